//! `metadata.emoted` read through the whole Animation reader: what each
//! camera shot becomes, its defaults, and every rule with its pointer;
//! `resources` in their new place and their old; and a file with
//! `metadata.emoted` is schema 4 as any server reads it.

use serde_json::{json, Value};
use valence::math::Vec3;

use super::camera::{CameraSetting, CameraShot, ShotKind, ShotTarget};
use super::track::Easing;
use super::{parse_emote_value, EmoteFile};

/// A one-node Animation whose `metadata.emoted.camera` is `camera`.
fn with_camera(camera: Value) -> Value {
    json!({
        "type": "animation",
        "schema_version": 4,
        "id": "test:camera",
        "metadata": {"name": "Camera", "emoted": {"camera": camera}},
        "settings": {},
        "nodes": {
            "head": {"type": "anchor", "space": "initiator",
                     "transform": {"position": [0, 1.6, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}},
            "box": {"type": "block_display", "parent": "head",
                    "block_state_snbt": "{Name:\"minecraft:stone\"}",
                    "transform": {"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}}
        },
        "timeline": {"duration": "40t", "tracks": {}}
    })
}

fn camera_of(camera: Value) -> CameraSetting {
    let report = parse_emote_value(&with_camera(camera));
    match report.file {
        Some(EmoteFile::Animation(a)) => a.metadata.camera,
        other => panic!("not read: {other:?} {:?}", report.problems),
    }
}

/// The errors of `camera`, as `pointer: message`.
fn errors_of(camera: Value) -> Vec<String> {
    let report = parse_emote_value(&with_camera(camera));
    assert!(report.file.is_none(), "refused");
    report
        .problems
        .iter()
        .map(|p| format!("{}: {}", p.pointer, p.message))
        .collect()
}

#[test]
fn absent_true_and_false() {
    let mut without = with_camera(json!(true));
    without["metadata"]
        .as_object_mut()
        .expect("metadata")
        .remove("emoted");
    let report = parse_emote_value(&without);
    let Some(EmoteFile::Animation(a)) = report.file else {
        panic!("{:?}", report.problems)
    };
    assert_eq!(a.metadata.camera, CameraSetting::ServerDefault);
    assert_eq!(camera_of(json!(true)), CameraSetting::ServerDefault);
    assert_eq!(camera_of(json!(false)), CameraSetting::Off);
}

#[test]
fn shots_with_their_defaults_and_parameters() {
    let camera = camera_of(json!({"shots": [
        {"shot": "orbit", "duration": "2s", "from": -40},
        {"at": "40t", "shot": "crane", "duration": 10, "height": [0.5, 3], "target": "head",
         "offset": [0, 0, 0], "ease": "linear", "angle": 180},
        {"at": "3s", "shot": "dolly", "duration": "1s", "distance": [6, 2]},
        {"at": 61, "shot": "fixed", "position": [1, 2, 3]},
        {"at": 70, "shot": "path", "duration": 5, "points": [[0, 1, 4], [2, 1, 2]]},
        {"at": 80, "shot": "orbit", "radius": 3},
        {"at": 90, "shot": "follow"},
        {"at": 100, "shot": "keyed", "node": "head"}
    ]}));
    let CameraSetting::Shots(shots) = camera else {
        panic!("{camera:?}")
    };
    assert_eq!(
        shots[0],
        CameraShot {
            at_ticks: 0,
            duration_ticks: 40,
            target: ShotTarget::Initiator,
            offset_blocks: Vec3::new(0.0, 1.2, 0.0),
            ease: Easing::InOutSine,
            kind: ShotKind::Orbit {
                radius_blocks: 4.0,
                height_blocks: 0.5,
                sweep_degrees: Some([-40.0, 40.0])
            },
        }
    );
    assert_eq!(shots[1].at_ticks, 40);
    assert_eq!(shots[1].target, ShotTarget::Node("head".into()));
    assert_eq!(shots[1].ease, Easing::Linear);
    assert_eq!(
        shots[1].kind,
        ShotKind::Crane {
            angle_degrees: 180.0,
            distance_blocks: 4.0,
            low_blocks: 0.5,
            high_blocks: 3.0
        }
    );
    assert_eq!(
        shots[2].kind,
        ShotKind::Dolly {
            angle_degrees: 0.0,
            height_blocks: 0.5,
            far_blocks: 6.0,
            near_blocks: 2.0
        }
    );
    assert_eq!(
        shots[3].kind,
        ShotKind::Fixed {
            position_blocks: Vec3::new(1.0, 2.0, 3.0)
        }
    );
    assert_eq!(
        shots[4].kind,
        ShotKind::Path {
            points_blocks: vec![Vec3::new(0.0, 1.0, 4.0), Vec3::new(2.0, 1.0, 2.0)]
        }
    );
    // An orbit without `from` or `to` is steered: no duration needed.
    assert_eq!(
        (shots[5].duration_ticks, &shots[5].kind),
        (
            1,
            &ShotKind::Orbit {
                radius_blocks: 3.0,
                height_blocks: 0.5,
                sweep_degrees: None
            }
        )
    );
    assert_eq!(
        shots[6].kind,
        ShotKind::Follow {
            distance_blocks: 4.0,
            height_blocks: 1.5
        }
    );
    assert_eq!(
        shots[7].kind,
        ShotKind::Keyed {
            node: "head".into()
        }
    );
}

#[test]
fn every_rule_is_refused_at_its_pointer() {
    let base = "/metadata/emoted/camera";
    for (camera, pointer, needle) in [
        (json!(3), base.to_owned(), "must be an object"),
        (json!({}), base.to_owned(), "missing required field `shots`"),
        (
            json!({"shots": []}),
            format!("{base}/shots"),
            "1 to 64 shots",
        ),
        (
            json!({"shots": [], "zoom": 1}),
            format!("{base}/zoom"),
            "unknown field `zoom`",
        ),
        (
            json!({"shots": [{"shot": "dolly", "distance": [6, 2]}]}),
            format!("{base}/shots/0"),
            "missing required field `duration`",
        ),
        (
            json!({"shots": [{"shot": "orbit", "to": 90}]}),
            format!("{base}/shots/0"),
            "missing required field `duration`",
        ),
        (
            json!({"shots": [{"shot": "keyed", "node": "tail"}]}),
            format!("{base}/shots/0/node"),
            "`tail` is not a node of this Animation",
        ),
        (
            json!({"shots": [{"shot": "keyed", "node": "box"}]}),
            format!("{base}/shots/0/node"),
            "only an anchor can carry the camera",
        ),
        (
            json!({"shots": [{"shot": "keyed"}]}),
            format!("{base}/shots/0"),
            "missing required field `node`",
        ),
        (
            json!({"shots": [{"shot": "spin", "duration": 5}]}),
            format!("{base}/shots/0/shot"),
            "`spin` is not one of: orbit, follow, fixed, keyed, dolly, crane, path",
        ),
        (
            json!({"shots": [{"shot": "orbit", "duration": 5, "fov": 30}]}),
            format!("{base}/shots/0/fov"),
            "field of view",
        ),
        (
            json!({"shots": [{"shot": "orbit", "duration": 5, "target": "tail"}]}),
            format!("{base}/shots/0/target"),
            "neither `initiator` nor a node",
        ),
        (
            json!({"shots": [{"shot": "orbit", "duration": 5}, {"shot": "orbit", "duration": 5}]}),
            format!("{base}/shots/1"),
            "missing required field `at`",
        ),
        (
            json!({"shots": [{"at": 10, "shot": "orbit", "duration": 5},
                             {"at": 10, "shot": "orbit", "duration": 5}]}),
            format!("{base}/shots/1/at"),
            "must come after the shot before it",
        ),
        (
            json!({"shots": [{"shot": "dolly", "duration": 5, "distance": 3}]}),
            format!("{base}/shots/0/distance"),
            "two finite numbers",
        ),
        (
            json!({"shots": [{"shot": "path", "duration": 5, "points": []}]}),
            format!("{base}/shots/0/points"),
            "1 to 256 points",
        ),
        (
            json!({"shots": [{"shot": "path", "duration": 5, "points": [[0, 1]]}]}),
            format!("{base}/shots/0/points/0"),
            "three finite numbers",
        ),
        (
            json!({"shots": [{"shot": "orbit", "duration": 5, "radius": "far"}]}),
            format!("{base}/shots/0/radius"),
            "must be a number",
        ),
        (
            json!({"shots": [{"shot": "fixed", "duration": 5, "position": [0, 0, 1], "radius": 2}]}),
            format!("{base}/shots/0/radius"),
            "unknown field `radius`",
        ),
    ] {
        let errors = errors_of(camera.clone());
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with(&format!("{pointer}: ")) && e.contains(needle)),
            "{camera}: wanted `{needle}` at {pointer}, got {errors:?}"
        );
    }
}

/// An Animation with a texture-only `resources`, at `/metadata/emoted`
/// (`new_place`) or at the top level.
fn with_resources(new_place: bool) -> Value {
    let mut file = with_camera(json!(true));
    let resources = json!({"textures": {"skin": super::resources::png_data_uri(
        &super::resources::tests::tiny_png()
    )}});
    if new_place {
        file["metadata"]["emoted"] = json!({"resources": resources});
    } else {
        file["metadata"]
            .as_object_mut()
            .expect("metadata")
            .remove("emoted");
        file["resources"] = resources;
    }
    file
}

#[test]
fn resources_move_under_metadata_emoted_and_the_old_place_still_reads_with_a_warning() {
    let new = parse_emote_value(&with_resources(true));
    let Some(EmoteFile::Animation(a)) = &new.file else {
        panic!("{:?}", new.problems)
    };
    assert!(a.resources.textures.contains_key("skin"));
    assert!(new.problems.is_empty(), "{:?}", new.problems);
    let old = parse_emote_value(&with_resources(false));
    let Some(EmoteFile::Animation(b)) = &old.file else {
        panic!("{:?}", old.problems)
    };
    assert_eq!(a.resources, b.resources);
    assert!(
        old.problems
            .iter()
            .any(|p| p.pointer == "/resources" && p.message.contains("metadata.emoted.resources")),
        "{:?}",
        old.problems
    );
    // Both places: refused, at the old one.
    let mut both = with_resources(true);
    both["resources"] = both["metadata"]["emoted"]["resources"].clone();
    let report = parse_emote_value(&both);
    assert!(report.file.is_none());
    assert!(report
        .problems
        .iter()
        .any(|p| p.pointer == "/resources" && p.message.contains("written twice")));
    // A misspelt field of emoted's own is refused, not ignored.
    let mut typo = with_camera(json!(true));
    typo["metadata"]["emoted"]["camra"] = json!(false);
    let report = parse_emote_value(&typo);
    assert!(report.file.is_none());
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.pointer == "/metadata/emoted/camra"
                && p.message
                    .contains("camera, ik, look_at, resources, springs")),
        "{:?}",
        report.problems
    );
}

/// Schema 4 keeps every `metadata` field it does not know (the format's
/// section 3): what `metadata.emoted` adds is invisible to the rest of the
/// file. The bundled celebrate, with and without it, is the same Animation
/// but for the camera, and emoted's fields are all under `metadata`.
#[test]
fn a_file_with_metadata_emoted_is_the_same_schema_4_animation_without_it() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/emotes/celebrate.json"
    ))
    .expect("celebrate");
    let with: Value = serde_json::from_str(&text).expect("JSON");
    assert!(with["metadata"]["emoted"]["camera"].is_object());
    let schema_4_top_level = [
        "type",
        "schema_version",
        "id",
        "metadata",
        "settings",
        "molang",
        "nodes",
        "timeline",
        "target_minecraft_version",
    ];
    for key in with.as_object().expect("an object").keys() {
        assert!(
            schema_4_top_level.contains(&key.as_str()),
            "`{key}` is not schema 4"
        );
    }
    let mut without = with.clone();
    without["metadata"]
        .as_object_mut()
        .expect("metadata")
        .remove("emoted");
    let (a, b) = (parse_emote_value(&with), parse_emote_value(&without));
    let (Some(EmoteFile::Animation(a)), Some(EmoteFile::Animation(b))) = (a.file, b.file) else {
        panic!("both read");
    };
    assert!(matches!(a.metadata.camera, CameraSetting::Shots(_)));
    assert_eq!(b.metadata.camera, CameraSetting::ServerDefault);
    assert_eq!(
        (a.nodes, a.timeline, a.settings),
        (b.nodes, b.timeline, b.settings)
    );
    assert_eq!(
        a.metadata.extra.get("emoted"),
        Some(&with["metadata"]["emoted"])
    );
}
