//! The sampler against values worked out by hand (the arithmetic is in
//! the comments), plus property tests.

use glam::{Quat, Vec3};
use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::format::clip::{parse_clip_json, parse_retarget_json};

fn clip(value: Value) -> CompiledClip {
    let report = parse_clip_json(&value.to_string());
    let file = report
        .file
        .unwrap_or_else(|| panic!("{:?}", report.problems));
    CompiledClip::compile(&file, None)
}

/// A clip whose joint `head` has these channels.
fn head(channels: Value) -> CompiledClip {
    clip(json!({ "joints": { "head": channels } }))
}

fn sample(clip: &CompiledClip, t: f32) -> JointSample {
    let mut pose = clip.new_pose();
    clip.sample_into(t, &mut pose);
    pose.samples()[0]
}

fn position(clip: &CompiledClip, t: f32) -> Vec3 {
    sample(clip, t).channels.position.expect("position")
}

fn rotation(clip: &CompiledClip, t: f32) -> Quat {
    sample(clip, t).channels.rotation.expect("rotation")
}

fn assert_vec(got: Vec3, expected: Vec3, what: &str) {
    assert!(
        got.abs_diff_eq(expected, 1e-4),
        "{what}: got {got}, expected {expected}"
    );
}

fn assert_quat(got: Quat, expected: Quat, what: &str) {
    let close = got.abs_diff_eq(expected, 1e-4) || got.abs_diff_eq(-expected, 1e-4);
    assert!(close, "{what}: got {got}, expected {expected}");
}

/// The x of a position channel from `keys` at `t`.
fn x_at(keys: Value, t: f32) -> f32 {
    position(&head(json!({ "position": keys })), t).x
}

#[test]
fn linear_and_the_ends() {
    // 0 → [10, 20, −4] over 1 s: a quarter of the way at 0.25 s.
    let c = head(json!({ "position": [[0, [0, 0, 0]], [1, [10, 20, -4]]] }));
    assert_vec(position(&c, 0.25), Vec3::new(2.5, 5.0, -1.0), "0.25");
    // Held before the first key and after the last.
    assert_vec(position(&c, -1.0), Vec3::ZERO, "before");
    assert_vec(position(&c, 3.0), Vec3::new(10.0, 20.0, -4.0), "after");
}

#[test]
fn step_holds_until_the_next_key() {
    let keys = json!([[0, [1, 0, 0], "step"], [1, [5, 0, 0]]]);
    assert_eq!(x_at(keys.clone(), 0.999), 1.0);
    assert_eq!(x_at(keys, 1.0), 5.0);
}

#[test]
fn catmull_rom_through_the_keys_with_doubled_ends() {
    // Keys 0, 10, 20, 0 at 0, 1, 2, 3 s. Segment 1→2 at u = ½ with
    // p0..p3 = 0, 10, 20, 0: ½(2·10 + 20·½ + (0 − 50 + 80 − 0)·¼ + (30 − 0 − 60 + 0)·⅛)
    // = ½(20 + 10 + 7.5 − 3.75) = 16.875.
    let keys = json!([
        [0, [0, 0, 0], "catmullrom"],
        [1, [10, 0, 0], "catmullrom"],
        [2, [20, 0, 0], "catmullrom"],
        [3, [0, 0, 0]]
    ]);
    assert!((x_at(keys.clone(), 1.5) - 16.875).abs() < 1e-4);
    // First segment: the missing neighbour is the first key itself,
    // p0..p3 = 0, 0, 10, 20: ½(10·½ + (40 − 20)·¼ + (−30 + 20)·⅛) = 4.375.
    assert!((x_at(keys.clone(), 0.5) - 4.375).abs() < 1e-4);
    // Through the keys.
    assert!((x_at(keys, 2.0) - 20.0).abs() < 1e-5);
}

#[test]
fn bezier_without_handles_eases_in_and_out() {
    // Flat handles a third long: the time curve is 0, ⅓, ⅔, 1, so s = t,
    // and the value 0, 0, 10, 10 is 10·(3s² − 2s³): 1.5625 at ¼, 5 at ½.
    let keys = json!([[0, [0, 0, 0], "bezier"], [1, [10, 0, 0]]]);
    assert!((x_at(keys.clone(), 0.25) - 1.5625).abs() < 1e-4);
    assert!((x_at(keys, 0.5) - 5.0).abs() < 1e-4);
}

#[test]
fn bezier_handles_share_one_time_line() {
    // out = [0.5, [2, 0, −2]], no in handle (−⅓, 0). Time curve 0, 0.5, ⅔, 1:
    // at s = ½, t = ⅜·0.5 + ⅜·⅔ + ⅛ = 0.5625. Values at s = ½ (weights ⅛ ⅜ ⅜ ⅛):
    // x: 0, 2, 10, 10 → 0.75 + 3.75 + 1.25 = 5.75; y: 0, 0, 10, 10 → 5;
    // z: 0, −2, 10, 10 → 4.25.
    let c = head(
        json!({ "position": [[0, [0, 0, 0], "bezier", { "out": [0.5, [2, 0, -2]] }], [1, [10, 10, 10]]] }),
    );
    assert_vec(position(&c, 0.5625), Vec3::new(5.75, 5.0, 4.25), "s = ½");
    // One number for dv moves every axis: out [0.5, 2] gives x = y = z = 5.75.
    let c = head(
        json!({ "position": [[0, [0, 0, 0], "bezier", { "out": [0.5, 2] }], [1, [10, 10, 10]]] }),
    );
    assert_vec(position(&c, 0.5625), Vec3::splat(5.75), "one dv");
}

#[test]
fn the_ten_easings_and_their_directions() {
    // 0 → 10 over 1 s; the easing reshapes the fraction (easings.net formulas).
    let at = |family: &str, ease: Option<&str>, u: f32| {
        let extra = ease.map_or(json!({}), |e| json!({ "ease": e }));
        x_at(json!([[0, [0, 0, 0], family, extra], [1, [10, 0, 0]]]), u)
    };
    let cases: &[(&str, Option<&str>, f32, f32)] = &[
        (
            "sine",
            None,
            0.5,
            10.0 * (1.0 - std::f32::consts::FRAC_1_SQRT_2),
        ), // in: 1 − cos(π/4)
        ("quad", None, 0.5, 2.5),            // in: ¼
        ("quad", Some("out"), 0.5, 7.5),     // 1 − ¼
        ("quad", Some("inOut"), 0.25, 1.25), // 2·(¼)²
        ("cubic", None, 0.5, 1.25),          // ⅛
        ("quart", None, 0.5, 0.625),         // 1/16
        ("quint", None, 0.5, 0.3125),        // 1/32
        ("expo", None, 0.5, 0.3125),         // 2^(5 − 10)
        ("circ", None, 0.6, 2.0),            // 1 − √(1 − 0.36)
        (
            "back",
            None,
            0.5,
            10.0 * (1.0 - 2.70158 / 8.0 + 1.70158 / 4.0),
        ), // out by default
        (
            "back",
            Some("in"),
            0.5,
            10.0 * (2.70158 / 8.0 - 1.70158 / 4.0),
        ),
        ("bounce", None, 0.2, 10.0 * 7.5625 * 0.04), // out: 7.5625·u²
        ("elastic", None, 0.5, 10.0 * (1.0 + 0.5 / 32.0)), // out: 2^−5·sin(150°) + 1
    ];
    for &(family, ease, u, expected) in cases {
        let got = at(family, ease, u);
        assert!(
            (got - expected).abs() < 1e-3,
            "{family} {ease:?} at {u}: {got} vs {expected}"
        );
    }
}

#[test]
fn two_keys_at_one_time_jump() {
    // 0 → 10 at 1 s, then from −10 at 1 s → 0 at 2 s.
    let keys = json!([
        [0, [0, 0, 0]],
        [1, [10, 0, 0]],
        [1, [-10, 0, 0]],
        [2, [0, 0, 0]]
    ]);
    assert!((x_at(keys.clone(), 0.999) - 9.99).abs() < 1e-3);
    assert_eq!(x_at(keys.clone(), 1.0), -10.0);
    assert!((x_at(keys, 1.5) + 5.0).abs() < 1e-5);
}

#[test]
fn angles_go_per_axis_then_compose_in_the_euler_order() {
    // 0 → 270° about y: per axis, 135° at the middle (a slerp would take −45°).
    let c = head(json!({ "rotation": [[0, [0, 0, 0]], [1, [0, 270, 0]]] }));
    let half = 67.5f32.to_radians();
    assert_quat(
        rotation(&c, 0.5),
        Quat::from_xyzw(0.0, half.sin(), 0.0, half.cos()),
        "135°",
    );
    // [90, 90, 0]: yxz is qy·qx, taking +Y to +Z (qx) and then to +X (qy);
    // xyz is qx·qy, taking +Y to +Y (qy) and then to +Z (qx).
    let turn = |order: &str| {
        let c = clip(
            json!({ "euler": order, "joints": { "head": { "rotation": [[0, [90, 90, 0]]] } } }),
        );
        rotation(&c, 0.0) * Vec3::Y
    };
    assert_vec(turn("yxz"), Vec3::X, "yxz");
    assert_vec(turn("xyz"), Vec3::Z, "xyz");
}

#[test]
fn quaternion_keys_slerp_and_treat_bezier_as_linear() {
    // Identity → 90° about y: half way is 45° about y, (0, sin 22.5°, 0, cos 22.5°).
    // The second key is written negated: the shortest arc is the same.
    let s = 45f32.to_radians().sin();
    for interpolation in ["linear", "bezier", "catmullrom"] {
        let c =
            head(json!({ "rotation": [[0, [0, 0, 0, 1], interpolation], [1, [0, -s, 0, -s]]] }));
        let half = 22.5f32.to_radians();
        assert_quat(
            rotation(&c, 0.5),
            Quat::from_xyzw(0.0, half.sin(), 0.0, half.cos()),
            interpolation,
        );
    }
    let c = head(json!({ "rotation": [[0, [0, 0, 0, 1], "step"], [1, [0, s, 0, s]]] }));
    assert_quat(rotation(&c, 0.9), Quat::IDENTITY, "step");
}

#[test]
fn cycles_repeat_offset_and_mirror() {
    // Keys 0 → 10 over [0, 1]; 1.25 s is a quarter into cycle 1, −0.25 s
    // three quarters into cycle −1.
    let with = |before: &str, after: &str, t: f32| {
        let c = head(json!({ "position": [[0, [0, 0, 0]], [1, [10, 0, 0]]],
            "modifiers": { "position": [{ "type": "cycles", "before": before, "after": after }] } }));
        position(&c, t).x
    };
    assert!((with("none", "repeat", 1.25) - 2.5).abs() < 1e-4);
    assert!((with("none", "offset", 1.25) - 12.5).abs() < 1e-4); // 2.5 + 1·10
    assert!((with("none", "mirror", 1.25) - 7.5).abs() < 1e-4); // read at 1 − 0.25
    assert!((with("none", "none", 1.25) - 10.0).abs() < 1e-4);
    assert!((with("repeat", "none", -0.25) - 7.5).abs() < 1e-4); // read at 0.75
    assert!((with("offset", "none", -0.25) + 2.5).abs() < 1e-4); // 7.5 − 10
    assert!((with("mirror", "none", -0.25) - 2.5).abs() < 1e-4); // read at 1 − 0.75
}

#[test]
fn stepped_limits_and_axes() {
    // step 0.25 from 0.1: 0.5 s reads the curve at 0.1 + ⌊0.4 / 0.25⌋·0.25 = 0.35.
    let c = head(json!({ "position": [[0, [0, 0, 0]], [1, [10, 10, 0]]],
        "modifiers": { "position": [{ "type": "stepped", "step": 0.25, "offset": 0.1, "axis": 0 }] } }));
    assert_vec(
        position(&c, 0.5),
        Vec3::new(3.5, 5.0, 0.0),
        "stepped x only",
    );
    let c = head(json!({ "position": [[0, [0, 0, 0]], [1, [10, 0, 0]]],
        "modifiers": { "position": [{ "type": "limits", "min": 1, "max": 4 }] } }));
    assert_eq!(position(&c, 0.8).x, 4.0);
    assert_eq!(position(&c, 0.0).x, 1.0);
    assert_eq!(position(&c, 0.2).x, 2.0);
    // A disabled modifier does nothing.
    let c = head(json!({ "position": [[0, [0, 0, 0]], [1, [10, 0, 0]]],
        "modifiers": { "position": [{ "type": "limits", "max": 4, "enabled": false }] } }));
    assert_eq!(position(&c, 0.8).x, 8.0);
}

#[test]
fn envelope_stretches_between_its_points() {
    // reference 0, min −1, max 1 map to the points' bounds: at 1 s half way
    // between (−2, 2) and (−1, 1), i.e. (−1.5, 1.5), so v = 1 becomes 1.5.
    let c = head(json!({ "position": [[0, [1, 1, 0]]],
        "modifiers": { "position": [{ "type": "envelope", "axis": 0, "points": [[0, -2, 2], [2, -1, 1]] }] } }));
    assert_vec(position(&c, 1.0), Vec3::new(1.5, 1.0, 0.0), "at 1 s");
    assert_vec(
        position(&c, 5.0),
        Vec3::new(1.0, 1.0, 0.0),
        "after the last point: (−1, 1)",
    );
    assert_vec(
        position(&c, 0.0),
        Vec3::new(2.0, 1.0, 0.0),
        "at 0 s: (−2, 2)",
    );
}

#[test]
fn noise_is_deterministic_bounded_and_per_axis() {
    let make = |strength: f32| {
        head(json!({ "position": [[0, [0, 0, 0]]],
            "modifiers": { "position": [{ "type": "noise", "axis": 1, "scale": 0.5, "strength": strength, "offset": 0.25 }] } }))
    };
    let (a, b) = (make(4.0), make(4.0));
    let mut moved = false;
    for i in 0..200 {
        let t = i as f32 * 0.037;
        let p = position(&a, t);
        assert_eq!(p, position(&b, t), "the same every time");
        // Half the strength either way around the offset; x and z untouched.
        assert!((p.y - 0.25).abs() <= 2.0 + 1e-4, "{p}");
        assert_eq!((p.x, p.z), (0.0, 0.0));
        moved |= (p.y - 0.25).abs() > 0.1;
    }
    assert!(moved, "it wobbles");
    // A scale so small that t / scale overflows wobbles nothing (and stays finite).
    let tiny = head(json!({ "position": [[0, [0, 0, 0]]],
        "modifiers": { "position": [{ "type": "noise", "scale": 1e-38, "strength": 4 }] } }));
    assert_eq!(position(&tiny, 5.0), Vec3::ZERO);
    // Strength 0 leaves only the offset.
    assert_eq!(position(&make(0.0), 0.3).y, 0.25);
}

#[test]
fn loop_modes_and_speed() {
    let make = |mode: &str, speed: f32| {
        clip(json!({ "length": 2, "loop": mode, "speed": speed, "joints": {} }))
    };
    assert_eq!(make("once", 1.0).clip_time(3.0), 2.0);
    assert_eq!(make("hold", 1.0).clip_time(3.0), 2.0);
    assert_eq!(make("loop", 1.0).clip_time(3.0), 1.0);
    // Ping-pong: 3 s is 1 s into the way back (2·2 − 3), 5 s is 1 s into the next run.
    assert_eq!(make("pingpong", 1.0).clip_time(1.5), 1.5);
    assert_eq!(make("pingpong", 1.0).clip_time(3.0), 1.0);
    assert_eq!(make("pingpong", 1.0).clip_time(5.0), 1.0);
    // Speed 2: 1.5 s of track is 3 s of clip, 1 s into the second loop.
    assert_eq!(make("loop", 2.0).clip_time(1.5), 1.0);
    assert_eq!(make("once", 1.0).clip_time(-1.0), 0.0);
}

#[test]
fn cues_between_two_times() {
    let make = |mode: &str, speed: f32| {
        clip(
            json!({ "length": 1, "loop": mode, "speed": speed, "joints": {},
            "markers": [{ "time": 0.25, "name": "a" }, { "time": 0.75, "name": "b" }],
            "events": [{ "time": 0.75, "name": "e" }] }),
        )
    };
    let cues = |c: &CompiledClip, from: f32, to: f32| {
        let mut out = Vec::new();
        c.cues_between(from, to, &mut out);
        out
    };
    let looped = make("loop", 1.0);
    assert_eq!(cues(&looped, 0.0, 0.25), []);
    assert_eq!(cues(&looped, 0.25, 0.5), [Cue::Marker(0)]);
    // 0.75 (marker b, then event e at the same time), then 1.25 (a again).
    assert_eq!(
        cues(&looped, 0.5, 1.3),
        [Cue::Marker(1), Cue::Event(0), Cue::Marker(0)]
    );
    assert_eq!(
        cues(&make("once", 1.0), 0.5, 5.0),
        [Cue::Marker(1), Cue::Event(0)]
    );
    // Ping-pong fires on the forward runs only: 0.25, 0.75, then 2.25, 2.75.
    let m = [Cue::Marker(0), Cue::Marker(1), Cue::Event(0)];
    assert_eq!(cues(&make("pingpong", 1.0), 0.0, 4.0), [m, m].concat());
    // Speed 2: 0.2 s of track is 0.4 s of clip.
    assert_eq!(cues(&make("loop", 2.0), 0.0, 0.2), [Cue::Marker(0)]);
}

#[test]
fn retarget_maps_rests_and_scale() {
    let file = parse_clip_json(
        &json!({ "joints": {
        "LeftArm": { "rotation": [[0, [90, 0, 0]]], "position": [[0, [1, 0, 0]]] },
        "Body": { "position": [[0, [0, 1, 0]]] },
        "Cape": { "position": [[0, [0, 1, 0]]] },
        "head": { "position": [[0, [0, 1, 0]]] }
    } })
        .to_string(),
    )
    .file
    .expect("valid");
    let map = parse_retarget_json(
        &json!({ "scale": 0.8, "joints": {
        "LeftArm": { "to": "arm_l", "source": [0, 0, 0], "target": [0, 0, 90] },
        "Body": "spine", "Cape": ""
    } })
        .to_string(),
    )
    .file
    .expect("valid");
    let c = CompiledClip::compile(&file, Some(&map));
    let mut pose = c.new_pose();
    c.sample_into(0.0, &mut pose);
    let by_name = |name: &str| {
        let i = c
            .joints()
            .iter()
            .position(|j| j.name() == name)
            .expect("joint");
        (&c.joints()[i], pose.samples()[i])
    };
    let (arm, s) = by_name("LeftArm");
    assert_eq!((arm.target_name(), arm.body_joint()), (Some("arm_l"), None));
    // S = 1, T = 90° about z: r' = T⁻¹ · r · T, 90° about T⁻¹·x = −y; and T · r' = r · T,
    // the clip's world turn r applied on the target's rest.
    let target = Quat::from_rotation_z(90f32.to_radians());
    let r = Quat::from_rotation_x(90f32.to_radians());
    let turned = s.channels.rotation.expect("rotation");
    assert_quat(turned, Quat::from_rotation_y(-90f32.to_radians()), "r'");
    assert_quat(target * turned, r * target, "the same world turn");
    // Positions × 0.8.
    assert_vec(
        s.channels.position.expect("position"),
        Vec3::new(0.8, 0.0, 0.0),
        "scaled",
    );
    assert_eq!(by_name("Body").0.target_name(), Some("spine"));
    assert!(!by_name("Cape").0.is_playing(), "\"\" keeps it still");
    // Not in the map: where the clip put it, scaled all the same.
    let (h, s) = by_name("head");
    assert_eq!(h.body_joint(), Some(BodyJoint::Head));
    assert_vec(
        s.channels.position.expect("position"),
        Vec3::new(0.0, 0.8, 0.0),
        "head",
    );
}

#[test]
fn version_one_eases_in_out_and_weights_per_pose() {
    let c = clip(json!({ "keyframes": [
        { "time": 0, "poses": { "rightLeg": { "angles": [30, 0, 0], "easing": "sine" } } },
        { "time": 0.5, "poses": { "rightLeg": { "angles": [-30, 0, 0], "weight": 0.5 } } }
    ] }));
    // inOut sine at u = 0.2: (1 − cos(0.2π))/2 = 0.0954915; 30 − 60·that = 24.2705°,
    // a turn about x of (sin 12.135°, 0, 0, cos 12.135°) = (0.210220, 0, 0, 0.977654).
    let s = sample(&c, 0.1);
    assert_quat(
        s.channels.rotation.expect("rotation"),
        Quat::from_xyzw(0.210_220_17, 0.0, 0.0, 0.977_654_1),
        "0.1 s",
    );
    // The weight eases the same way: 1 − 0.5·0.0954915.
    assert!(
        (s.weight - (1.0 - 0.5 * 0.095_491_5)).abs() < 1e-5,
        "{}",
        s.weight
    );
    // Everything a pose leaves out is the rest: no offset.
    assert_eq!(s.channels.position, Some(Vec3::ZERO));
}

#[test]
fn masks_mutes_and_layering_input() {
    let c = clip(
        json!({ "mask": "rightArm", "priority": "action", "blend": "additive", "joints": {
        "RightArm": { "position": [[0, [0, 1, 0]]], "weight": 0.5 },
        "head": { "position": [[0, [0, 1, 0]]] },
        "leftArm": { "position": [[0, [0, 1, 0]]], "muted": true }
    } }),
    );
    let playing: Vec<&str> = c
        .joints()
        .iter()
        .filter(|j| j.is_playing())
        .map(|j| j.name())
        .collect();
    // The mask names the body joint; RightArm lands on it.
    assert_eq!(playing, ["RightArm"]);
    let mut pose = c.new_pose();
    c.sample_into(0.0, &mut pose);
    let i = c
        .joints()
        .iter()
        .position(|j| j.name() == "RightArm")
        .expect("joint");
    let track = c.track_on_joint(&pose.samples()[i], 0.5);
    assert_eq!(
        (track.priority, track.weight, track.blend),
        (3.0, 0.25, Blend::Additive)
    );
    assert_eq!(
        track.channels.rotation, None,
        "channels the joint lacks stay None"
    );
}

fn key_strategy() -> impl Strategy<Value = (f32, [f32; 3], &'static str)> {
    let interpolation = prop_oneof![
        Just("linear"),
        Just("step"),
        Just("catmullrom"),
        Just("bezier"),
        Just("sine"),
        Just("back"),
        Just("elastic"),
        Just("bounce"),
        Just("expo"),
        Just("circ")
    ];
    (
        0.0f32..2.0,
        [-1e3f32..1e3, -1e3f32..1e3, -1e3f32..1e3],
        interpolation,
    )
}

proptest! {
    #[test]
    fn sampling_stays_finite(mut keys in prop::collection::vec(key_strategy(), 1..8), t in -5.0f32..10.0, cycles in any::<bool>()) {
        keys.sort_by(|a, b| a.0.total_cmp(&b.0));
        keys.dedup_by(|a, b| a.0 == b.0);
        let rows: Vec<Value> = keys.iter().map(|(time, v, i)| json!([time, v, i, { "out": [0.05, 3], "in": [-0.05, [1, 2, 3]] }])).collect();
        let modifiers = if cycles { json!([{ "type": "cycles", "before": "mirror", "after": "offset" }, { "type": "noise" }]) } else { json!([]) };
        let c = head(json!({ "rotation": rows, "position": rows, "scale": rows, "modifiers": { "rotation": modifiers, "position": modifiers } }));
        let s = sample(&c, t);
        let r = s.channels.rotation.expect("rotation");
        prop_assert!(r.is_finite() && (r.length() - 1.0).abs() < 1e-3);
        prop_assert!(s.channels.position.expect("position").is_finite());
        prop_assert!(s.channels.scale.expect("scale").is_finite());
        prop_assert!(c.clip_time(t).is_finite());
    }

    #[test]
    fn linear_between_two_keys_stays_between_them(a in [-1e3f32..1e3, -1e3f32..1e3, -1e3f32..1e3], b in [-1e3f32..1e3, -1e3f32..1e3, -1e3f32..1e3], t0 in 0.0f32..5.0, d in 0.01f32..5.0, u in -0.5f32..1.5) {
        let c = head(json!({ "position": [[t0, a], [t0 + d, b]] }));
        let p = position(&c, t0 + u * d);
        for axis in 0..3 {
            let (lo, hi) = (a[axis].min(b[axis]), a[axis].max(b[axis]));
            prop_assert!(p[axis] >= lo - 1e-3 && p[axis] <= hi + 1e-3, "{} not in [{lo}, {hi}]", p[axis]);
        }
    }
}
