//! The reader's rules, one case each, and what valid files read as
//! (the property tests are in `props`).

use glam::{Quat, Vec3};
use serde_json::{json, Value};

use super::*;

fn read(value: &Value) -> Report<ClipFile> {
    parse_clip_json(&value.to_string())
}

fn errors(value: &Value) -> Vec<(String, String)> {
    read(value)
        .problems
        .into_iter()
        .filter(Problem::is_error)
        .map(|p| (p.pointer, p.message))
        .collect()
}

/// `value` is refused with an error at `pointer` whose message holds `rule`.
fn assert_refused(value: Value, pointer: &str, rule: &str) {
    let found = errors(&value);
    assert!(
        found.iter().any(|(p, m)| p == pointer && m.contains(rule)),
        "expected `{pointer}: …{rule}…`, got {found:?}"
    );
    assert!(read(&value).file.is_none());
}

fn clip_with_head(channels: Value) -> Value {
    json!({ "joints": { "head": channels } })
}

#[test]
fn every_rule_is_reported_at_its_pointer() {
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            clip_with_head(json!({ "rotation": [[0.5, [0, 0, 0]], [0.25, [1, 0, 0]]] })),
            "/joints/head/rotation/1/0",
            "must not decrease: 0.25s follows 0.5s",
        ),
        (
            clip_with_head(
                json!({ "position": [[0, [0, 0, 0]], [1, [0, 0, 0]], [1, [0, 0, 0]], [1, [0, 0, 0]]] }),
            ),
            "/joints/head/position/3/0",
            "at most two keys may share a time",
        ),
        (
            clip_with_head(json!({ "scale": [[-1, [1, 1, 1]]] })),
            "/joints/head/scale/0/0",
            "at least 0 seconds",
        ),
        (
            clip_with_head(json!({ "position": [[0, [0, 1]]] })),
            "/joints/head/position/0/1",
            "three finite numbers",
        ),
        (
            clip_with_head(json!({ "rotation": [[0, [0, 1]]] })),
            "/joints/head/rotation/0/1",
            "[x, y, z] degrees or an [x, y, z, w] quaternion",
        ),
        (
            clip_with_head(json!({ "rotation": [[0, [0, 0, 0, 1]], [1, [0, 90, 0]]] })),
            "/joints/head/rotation/1/1",
            "cannot share a channel",
        ),
        (
            clip_with_head(json!({ "rotation": [[0, [0, 0, 0, 0]]] })),
            "/joints/head/rotation/0/1",
            "must not be all zeros",
        ),
        (
            clip_with_head(json!({ "position": [[0, [0, 1e39, 0]]] })),
            "/joints/head/position/0/1/1",
            "finite number",
        ),
        (
            clip_with_head(json!({ "position": [[0, [0, 0, 0], "smooth"]] })),
            "/joints/head/position/0/2",
            "interpolation `smooth` is not one of",
        ),
        (
            clip_with_head(json!({ "position": [[0, [0, 0, 0], "sine", { "ease": "up" }]] })),
            "/joints/head/position/0/3/ease",
            "`ease` `up` is not one of: in, out, inOut",
        ),
        (
            clip_with_head(json!({ "position": [[0, [0, 0, 0], "linear", { "type": "big" }]] })),
            "/joints/head/position/0/3/type",
            "key `type`",
        ),
        (
            clip_with_head(json!({ "position": [[0, [0, 0, 0], "linear", { "left": "bent" }]] })),
            "/joints/head/position/0/3/left",
            "handle type `left`",
        ),
        (
            clip_with_head(json!({ "position": [[0, [0, 0, 0], "bezier", { "out": [-1, 0] }]] })),
            "/joints/head/position/0/3/out/0",
            "at least 0",
        ),
        (
            clip_with_head(json!({ "position": [[0, [0, 0, 0], "bezier", { "in": [1, 0] }]] })),
            "/joints/head/position/0/3/in/0",
            "at most 0",
        ),
        (
            clip_with_head(json!({ "position": [[0, [0, 0, 0], "bezier", { "in": [0] }]] })),
            "/joints/head/position/0/3/in",
            "must be [dt, dv]",
        ),
        (
            clip_with_head(json!({ "position": [[0, [0, 0, 0], "bezier", { "width": 2 }]] })),
            "/joints/head/position/0/3/width",
            "unknown field `width`",
        ),
        (
            clip_with_head(json!({ "position": [[0]] })),
            "/joints/head/position/0",
            "a key must be [time, value]",
        ),
        (
            clip_with_head(json!({ "position": [] })),
            "/joints/head/position",
            "at least one key",
        ),
        (
            clip_with_head(json!({ "weight": 1.5 })),
            "/joints/head/weight",
            "must be from 0 to 1",
        ),
        (
            clip_with_head(json!({ "muted": "yes" })),
            "/joints/head/muted",
            "true or false",
        ),
        (
            clip_with_head(json!({ "interpolation": "sine" })),
            "/joints/head/interpolation",
            "is not one of: linear, step, catmullrom, bezier",
        ),
        (
            clip_with_head(json!({ "rotate": [] })),
            "/joints/head/rotate",
            "unknown field `rotate`",
        ),
        (
            clip_with_head(json!({ "modifiers": { "position": [{ "type": "wobble" }] } })),
            "/joints/head/modifiers/position/0/type",
            "modifier `type` `wobble`",
        ),
        (
            clip_with_head(
                json!({ "modifiers": { "position": [{ "type": "noise", "scale": 0 }] } }),
            ),
            "/joints/head/modifiers/position/0/scale",
            "above 0 seconds",
        ),
        (
            clip_with_head(
                json!({ "modifiers": { "position": [{ "type": "stepped", "step": -1 }] } }),
            ),
            "/joints/head/modifiers/position/0/step",
            "above 0 seconds",
        ),
        (
            clip_with_head(
                json!({ "modifiers": { "position": [{ "type": "noise", "speed": 1 }] } }),
            ),
            "/joints/head/modifiers/position/0/speed",
            "unknown field `speed`",
        ),
        (
            clip_with_head(
                json!({ "modifiers": { "position": [{ "type": "limits", "min": 2, "max": 1 }] } }),
            ),
            "/joints/head/modifiers/position/0",
            "must be at most `max`",
        ),
        (
            clip_with_head(
                json!({ "modifiers": { "position": [{ "type": "envelope", "min": 1, "max": 1 }] } }),
            ),
            "/joints/head/modifiers/position/0",
            "must be below `max`",
        ),
        (
            clip_with_head(
                json!({ "modifiers": { "position": [{ "type": "envelope", "points": [[1, 0, 1], [0, 0, 1]] }] } }),
            ),
            "/joints/head/modifiers/position/0/points/1/0",
            "must not decrease",
        ),
        (
            clip_with_head(
                json!({ "modifiers": { "position": [{ "type": "cycles", "after": "forever" }] } }),
            ),
            "/joints/head/modifiers/position/0/after",
            "cycles `after`",
        ),
        (
            clip_with_head(
                json!({ "modifiers": { "position": [{ "type": "limits", "axis": 3 }] } }),
            ),
            "/joints/head/modifiers/position/0/axis",
            "0, 1 or 2",
        ),
        (
            clip_with_head(
                json!({ "rotation": [[0, [0, 0, 0, 1]]], "modifiers": { "rotation": [{ "type": "limits" }] } }),
            ),
            "/joints/head/modifiers/rotation",
            "not on quaternion keys",
        ),
        (
            clip_with_head(json!({ "modifiers": { "scale": [] } })),
            "/joints/head/modifiers/scale",
            "not on `scale`",
        ),
        (
            json!({ "loop": "forever", "joints": {} }),
            "/loop",
            "`loop` `forever` is not one of: once, loop, hold, pingpong",
        ),
        (
            json!({ "blend": "multiply", "joints": {} }),
            "/blend",
            "`blend`",
        ),
        (
            json!({ "space": "world", "joints": {} }),
            "/space",
            "`space`",
        ),
        (json!({ "euler": "xxy", "joints": {} }), "/euler", "`euler`"),
        (json!({ "speed": 0, "joints": {} }), "/speed", "above 0"),
        (
            json!({ "priority": "urgent", "joints": {} }),
            "/priority",
            "is not a number or one of: core",
        ),
        (
            json!({ "mask": 3, "joints": {} }),
            "/mask",
            "list of joint names",
        ),
        (
            json!({ "version": 4, "joints": {} }),
            "/version",
            "1, 2 or 3",
        ),
        (
            json!({ "colour": 1, "joints": {} }),
            "/colour",
            "unknown field `colour`",
        ),
        (
            json!({ "looped": true, "joints": {} }),
            "/looped",
            "unknown field `looped`",
        ),
        (json!({ "joints": {}, "keyframes": [] }), "", "not both"),
        (
            json!({ "length": 1 }),
            "",
            "missing required field `joints`",
        ),
        (
            json!({ "version": 1, "joints": {} }),
            "/joints",
            "version 1 clips",
        ),
        (
            json!({ "joints": {}, "events": [{ "time": 0, "name": "x", "on": "everywhere" }] }),
            "/events/0/on",
            "an event's `on` `everywhere` is not one of: server, client, both",
        ),
        (
            json!({ "joints": {}, "events": [{ "name": "x" }] }),
            "/events/0",
            "missing required field `time`",
        ),
        (
            json!({ "joints": {}, "markers": [{ "time": 0, "name": "" }] }),
            "/markers/0/name",
            "must not be empty",
        ),
        (
            json!({ "joints": {}, "sounds": [{ "time": 0, "sound": "a", "pitch": 0 }] }),
            "/sounds/0/pitch",
            "above 0",
        ),
        (
            json!({ "joints": {}, "plays": [{ "time": 0, "clip": "bow.anim" }] }),
            "/plays/0/clip",
            "res:// path",
        ),
        (
            json!({ "joints": {}, "retarget": { "a": 1 } }),
            "/retarget/a",
            "must be a string",
        ),
        (
            json!({ "keyframes": [{ "time": 1, "poses": {} }, { "time": 0, "poses": {} }] }),
            "/keyframes/1/time",
            "must not decrease",
        ),
        (
            json!({ "keyframes": [{ "time": 0, "poses": { "head": { "direction": "up" } } }] }),
            "/keyframes/0/poses/head/direction",
            "`direction`",
        ),
        (
            json!({ "keyframes": [{ "time": 0, "poses": { "head": { "easing": "smooth" } } }] }),
            "/keyframes/0/poses/head/easing",
            "`easing`",
        ),
        (
            json!({ "keyframes": [{ "time": 0, "poses": { "head": { "weight": -1 } } }] }),
            "/keyframes/0/poses/head/weight",
            "from 0 to 1",
        ),
        (
            json!({ "keyframes": [{ "time": 0, "poses": { "head": { "turn": 1 } } }] }),
            "/keyframes/0/poses/head/turn",
            "unknown field",
        ),
    ];
    for (value, pointer, rule) in cases {
        assert_refused(value, pointer, rule);
    }
}

#[test]
fn every_problem_in_a_file_is_reported() {
    let value = json!({
        "speed": -1,
        "joints": { "head": { "weight": 2, "position": [[1, [0, 0, 0]], [0, [0, 0, 0]]] } },
        "extra": true
    });
    let pointers: Vec<String> = errors(&value).into_iter().map(|(p, _)| p).collect();
    for expected in [
        "/speed",
        "/joints/head/weight",
        "/joints/head/position/1/0",
        "/extra",
    ] {
        assert!(
            pointers.iter().any(|p| p == expected),
            "{expected} in {pointers:?}"
        );
    }
}

#[test]
fn a_channel_over_the_key_cap_is_refused() {
    let keys: Vec<Value> = (0..=MAX_CHANNEL_KEYS)
        .map(|i| json!([i, [0, 0, 0]]))
        .collect();
    assert_refused(
        clip_with_head(json!({ "position": keys })),
        "/joints/head/position",
        "at most 10000 keys",
    );
}

#[test]
fn files_over_eight_mib_are_refused_before_parsing() {
    let bytes = vec![b' '; crate::format::MAX_FILE_BYTES as usize + 1];
    let report = parse_clip_bytes(&bytes);
    assert!(report.file.is_none());
    assert!(
        report.problems[0].message.contains("8 MiB"),
        "{:?}",
        report.problems
    );
}

#[test]
fn defaults_and_clip_fields() {
    let clip = read(&json!({ "joints": { "RightArm": { "rotation": [[0, [10, 0, 0]], [0.5, [20, 0, 0]]] } }, "markers": [{ "time": 0.75, "name": "m" }] }))
        .file
        .expect("valid");
    assert_eq!(clip.version, 3);
    // No length: the last key (0.5) or marker (0.75).
    assert_eq!(clip.length_secs, 0.75);
    assert_eq!(clip.loop_mode, LoopMode::Once);
    assert_eq!((clip.speed, clip.priority), (1.0, 0.0));
    assert_eq!(clip.euler, EulerOrder::Yxz);
    assert_eq!(
        clip.joints[0].target,
        JointTarget::Body(BodyJoint::RightArm)
    );
    assert_eq!(clip.joints[0].weight, JointWeight::Constant(1.0));
    let clip = read(&json!({ "joints": {}, "priority": 2.5, "mask": "a, b c,,d", "loop": "hold" }))
        .file
        .expect("valid");
    assert_eq!(clip.priority, 2.5);
    assert_eq!(
        clip.mask,
        Some(vec!["a".into(), "b".into(), "c".into(), "d".into()])
    );
    assert_eq!(clip.loop_mode, LoopMode::Hold);
}

#[test]
fn easing_directions_default_by_family() {
    let clip = read(&clip_with_head(json!({ "position": [
        [0, [0, 0, 0], "back"], [1, [0, 0, 0], "sine"], [2, [0, 0, 0], "bounce", { "ease": "inOut" }], [3, [0, 0, 0]]
    ] }))).file.expect("valid");
    let keys = clip.joints[0].position.as_ref().expect("position");
    assert_eq!(keys[0].ease, EaseDirection::Out);
    assert_eq!(keys[1].ease, EaseDirection::In);
    assert_eq!(keys[2].ease, EaseDirection::InOut);
    assert_eq!(keys[0].interpolation, Interpolation::Ease(EaseFamily::Back));
}

#[test]
fn unknown_and_doubled_joints_are_warnings() {
    let report = read(&json!({ "joints": {
        "Body": { "position": [[0, [0, 0, 0]]] },
        "torso": { "position": [[0, [0, 0, 0]]] },
        "Waist": { "position": [[0, [0, 0, 0]]] }
    }, "retarget": { "tail": "nowhere" } }));
    let clip = report.file.expect("warnings do not refuse");
    let by_name = |n: &str| {
        clip.joints
            .iter()
            .find(|j| j.name == n)
            .expect("joint")
            .target
            .clone()
    };
    // The walk is in key order: `Body` comes before `torso` and wins.
    assert_eq!(by_name("Body"), JointTarget::Body(BodyJoint::Torso));
    assert_eq!(by_name("torso"), JointTarget::Off);
    assert_eq!(by_name("Waist"), JointTarget::Unmatched);
    let warnings: Vec<&str> = report.problems.iter().map(|p| p.pointer.as_str()).collect();
    // Key order: uppercase sorts first, so `Waist` is met before `torso`.
    assert_eq!(warnings, ["/joints/Waist", "/joints/torso"]);
    assert!(report.problems.iter().all(|p| !p.is_error()));
}

#[test]
fn version_one_poses_become_curves() {
    let clip = read(&json!({ "looped": true, "priority": 1, "keyframes": [
        { "time": 0, "poses": { "head": { "angles": [10, 0, 0], "easing": "quad" } } },
        { "time": 1, "poses": { "head": { "position": [0, 1, 0], "weight": 0.5, "easing": "constant" }, "torso": { "rotation": [0, 0, 0, 2] } } }
    ] })).file.expect("valid");
    assert_eq!(clip.version, 1);
    assert_eq!(clip.loop_mode, LoopMode::Loop);
    assert_eq!(clip.length_secs, 1.0);
    let head = clip.joints.iter().find(|j| j.name == "head").expect("head");
    let Some(RotationChannel::Euler(rotation)) = &head.rotation else {
        panic!("euler")
    };
    // The second pose leaves its angles out: the rest, [0, 0, 0].
    assert_eq!(
        (rotation[0].value, rotation[1].value),
        (Vec3::new(10.0, 0.0, 0.0), Vec3::ZERO)
    );
    assert_eq!(
        rotation[0].interpolation,
        Interpolation::Ease(EaseFamily::Quad)
    );
    assert_eq!(rotation[0].ease, EaseDirection::InOut);
    assert_eq!(rotation[1].interpolation, Interpolation::Step);
    let position = head.position.as_ref().expect("position");
    assert_eq!(position[0].value, Vec3::ZERO);
    let JointWeight::Keyed(weights) = &head.weight else {
        panic!("keyed")
    };
    assert_eq!((weights[0].value.x, weights[1].value.x), (1.0, 0.5));
    let torso = clip
        .joints
        .iter()
        .find(|j| j.name == "torso")
        .expect("torso");
    let Some(RotationChannel::Quaternion(q)) = &torso.rotation else {
        panic!("quaternion")
    };
    // [0, 0, 0, 2] is normalised to the identity.
    assert!(q[0].value.abs_diff_eq(Quat::IDENTITY, 1e-6));
}

#[test]
fn retarget_files() {
    let report = parse_retarget_json(&json!({
        "version": 1, "scale": 0.5,
        "joints": { "Body": "spine", "LeftArm": { "to": "arm_l", "source": [0, 0, 0], "target": [0, 0, 0, 1] }, "Cape": "" }
    }).to_string());
    let file = report.file.expect("valid");
    assert_eq!(file.scale, 0.5);
    assert_eq!(file.joints["Body"].to, "spine");
    assert_eq!(file.joints["Cape"].to, "");
    let rests = file.joints["LeftArm"].rests.expect("rests");
    assert!(rests.source.abs_diff_eq(Quat::IDENTITY, 1e-6));
    let refused = |value: Value, pointer: &str, rule: &str| {
        let report = parse_retarget_json(&value.to_string());
        assert!(report.file.is_none());
        assert!(
            report
                .problems
                .iter()
                .any(|p| p.pointer == pointer && p.message.contains(rule)),
            "{pointer} {rule}: {:?}",
            report.problems
        );
    };
    refused(
        json!({ "joints": { "A": { "to": "b", "source": [0, 0, 0] } } }),
        "/joints/A",
        "both `source` and `target`",
    );
    refused(json!({ "scale": 0, "joints": {} }), "/scale", "above 0");
    refused(
        json!({ "version": 2, "joints": {} }),
        "/version",
        "must be 1",
    );
    refused(json!({}), "", "missing required field `joints`");
    refused(
        json!({ "joints": { "A": { "to": "b", "roll": 1 } } }),
        "/joints/A/roll",
        "unknown field",
    );
    refused(
        json!({ "joints": { "A": 3 } }),
        "/joints/A",
        "a name or { to, source, target }",
    );
}

#[test]
fn the_fixtures_read() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips");
    for name in ["walk_v1.anim", "swing_v2.anim", "every_feature_v3.anim"] {
        let report = read_clip_file(&dir.join(name));
        assert!(report.problems.is_empty(), "{name}: {:?}", report.problems);
        assert!(report.file.is_some());
    }
    let report = read_retarget_file(&dir.join("goblin.retarget"));
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}
