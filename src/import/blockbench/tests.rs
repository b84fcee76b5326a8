//! The `.bbmodel` reader: both outliner layouts, animator lookup, the
//! 4.x → 5.0 negation, refusals, and the fixtures end to end.

use std::path::{Path, PathBuf};

use glam::Vec3;
use serde_json::json;

use super::*;
use crate::import::bedrock::curves::{Interpolation, NumbersOnly, Scalar};
use crate::import::bedrock::rig::RigBody;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/blockbench")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).expect("fixture")
}

fn options(stem: &str) -> ConvertOptions {
    ConvertOptions {
        namespace: "test".to_owned(),
        stem: stem.to_owned(),
        ..ConvertOptions::default()
    }
}

fn notes_of(imported: &Imported) -> Vec<String> {
    imported.notes.iter().map(ToString::to_string).collect()
}

/// A one-group project with one rotation and one position key, at
/// `version`.
fn project(version: &str) -> Vec<u8> {
    json!({
        "meta": {"format_version": version, "model_format": "free"},
        "elements": [],
        "outliner": [{"name": "g", "uuid": "u1", "origin": [0, 0, 0], "children": []}],
        "animations": [{"name": "a", "loop": "once", "length": 1, "animators": {"u1": {"name": "g", "keyframes": [
            {"channel": "rotation", "time": 0, "data_points": [{"x": 10, "y": 20, "z": "30"}]},
            {"channel": "position", "time": 0, "data_points": [{"x": 1, "y": 2, "z": 3}]},
            {"channel": "position", "time": 1, "interpolation": "bezier",
             "bezier_left_value": [5, 6, 7], "bezier_right_value": [8, 9, 10], "data_points": [{"x": "q.anim_time", "y": 0, "z": 0}]}
        ]}}}]
    })
    .to_string()
    .into_bytes()
}

fn first_clip(bytes: &[u8]) -> animation::Clip {
    let json: Value = serde_json::from_slice(bytes).expect("json");
    let root = json.as_object().expect("object");
    let version = version(root).expect("version");
    let model = read_model(root, version, &mut Vec::new()).expect("model");
    let mut expressions = Expressions::new();
    let mut clips = read_animations(root, &model, version, &mut expressions, &mut Vec::new())
        .expect("animations");
    clips.remove(0)
}

#[test]
fn files_before_5_0_have_position_x_and_rotation_x_y_negated() {
    let old = first_clip(&project("4.9"));
    let new = first_clip(&project("5.0"));
    let channels = |c: &animation::Clip| c.animated[0].clone().expect("animated");
    let (old, new) = (channels(&old), channels(&new));
    let at0 = |c: &crate::import::bedrock::curves::Channel| {
        c.sample(0.0, false, &mut NumbersOnly).expect("keys")
    };
    assert_eq!(at0(&new.rotation), [10.0, 20.0, 30.0]);
    assert_eq!(at0(&old.rotation), [-10.0, -20.0, 30.0]);
    assert_eq!(at0(&new.position), [1.0, 2.0, 3.0]);
    assert_eq!(at0(&old.position), [-1.0, 2.0, 3.0]);
    // Bezier handle values follow the same components.
    let old_key = &old.position.keys()[1];
    assert_eq!(old_key.bezier.left_value, [-5.0, 6.0, 7.0]);
    assert_eq!(old_key.bezier.right_value, [-8.0, 9.0, 10.0]);
    assert_eq!(new.position.keys()[1].bezier.left_value, [5.0, 6.0, 7.0]);
    assert_eq!(old_key.interpolation, Interpolation::Bezier);
    // A Molang x is negated when evaluated.
    assert!(matches!(old_key.points[0][0], Scalar::Molang { sign, .. } if sign == -1.0));
}

#[test]
fn compressed_and_newer_files_are_refused() {
    let error = convert(b"<lz>\x01\x02", &ConvertOptions::default()).expect_err("compressed");
    assert_eq!(error, BlockbenchError::Compressed);
    assert!(error.to_string().contains("save it as a project"));
    let error = convert(&project("5.1"), &ConvertOptions::default()).expect_err("too new");
    assert_eq!(
        error,
        BlockbenchError::TooNew {
            found: "5.1".to_owned()
        }
    );
    assert!(error
        .to_string()
        .starts_with("/meta/format_version: format 5.1 is newer than 5.0"));
    assert!(convert(&project("5.0.1"), &ConvertOptions::default()).is_err());
    assert!(convert(&project("4.10"), &ConvertOptions::default()).is_ok());
}

#[test]
fn both_outliner_layouts_give_the_same_rig() {
    let inline = json!({"meta": {"format_version": "4.9", "model_format": "free"},
        "elements": [{"name": "c", "uuid": "e1", "from": [0, 0, 0], "to": [2, 2, 2], "origin": [1, 1, 1], "inflate": 1}],
        "outliner": [{"name": "g", "uuid": "g1", "origin": [1, 2, 3], "rotation": [4, 5, 6], "children": ["e1"]}]});
    let split = json!({"meta": {"format_version": "5.0", "model_format": "free"},
        "elements": [{"name": "c", "uuid": "e1", "from": [0, 0, 0], "to": [2, 2, 2], "origin": [1, 1, 1], "inflate": 1}],
        "groups": [{"name": "g", "uuid": "g1", "origin": [1, 2, 3], "rotation": [4, 5, 6]}],
        "outliner": [{"uuid": "g1", "isOpen": true, "children": ["e1"]}]});
    let rig = |v: &Value, version| {
        read_model(v.as_object().expect("object"), version, &mut Vec::new()).expect("model")
    };
    let (a, b) = (rig(&inline, Version(4, 9)), rig(&split, Version(5, 0)));
    for (x, y) in a.rig.nodes.iter().zip(&b.rig.nodes) {
        assert_eq!(
            (x.pivot_px, x.rotation_deg, x.parent, &x.body),
            (y.pivot_px, y.rotation_deg, y.parent, &y.body)
        );
    }
    assert_eq!(a.rig.nodes[0].rotation_deg, Vec3::new(4.0, 5.0, 6.0));
    // Inflate grows the box on every side.
    assert_eq!(
        a.rig.nodes[1].body,
        RigBody::Cube {
            from_px: Vec3::splat(-1.0),
            to_px: Vec3::splat(3.0),
            faces: None,
        }
    );
    assert_eq!(a.by_uuid.get("e1"), Some(&1));
    // By uuid, else by name ignoring case.
    assert_eq!(b.find("g1", None), Some(0));
    assert_eq!(b.find("G", None), Some(0));
    assert_eq!(b.find("not-a-uuid", Some("g")), Some(0));
    assert_eq!(b.find("nothing", None), None);
}

#[test]
fn java_block_models_are_shifted_by_half_a_block() {
    let json = json!({"meta": {"format_version": "4.0"}, "outliner": [{"name": "g", "origin": [8, 0, 8], "children": []}]});
    let model = read_model(
        json.as_object().expect("object"),
        Version(4, 0),
        &mut Vec::new(),
    )
    .expect("model");
    assert_eq!(model.rig.root_offset_px, Vec3::new(-8.0, 0.0, -8.0));
    let local = model.rig.local(0, [0.0; 3], [0.0; 3], [1.0; 3]);
    assert!(local.translation.abs_diff_eq(Vec3::ZERO, 1e-6));
}

#[test]
fn the_5x_wave_carries_its_effects_and_notes() {
    let out = convert(&read("wave_5x.bbmodel"), &options("wave_5x")).expect("converts");
    assert_eq!(out.len(), 1);
    let json = &out[0].json;
    assert_eq!(json["id"], "test:wave_5x");
    assert_eq!(
        json["metadata"],
        json!({"name": "wave", "source": "Blockbench"})
    );
    assert_eq!(json["settings"]["playback"]["mode"], "loop");
    assert_eq!(json["timeline"]["duration"], "20t");
    assert_eq!(json["nodes"]["arm"]["parent"], "body");
    assert_eq!(json["nodes"]["hand_tip"]["parent"], "arm");
    assert_eq!(json["nodes"]["upper"]["parent"], "arm");
    assert!(json["nodes"].get("blob").is_none());
    let events = json["timeline"]["events"]["timeline"]
        .as_array()
        .expect("events");
    let commands: Vec<&str> = events
        .iter()
        .flat_map(|e| e["commands"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        commands,
        [
            "playsound entity.player.levelup master @a ~ ~ ~",
            "particle minecraft:heart ~ ~ ~",
            "say waving"
        ]
    );
    assert_eq!(events[1]["time"], "5t");
    let notes = notes_of(&out[0]);
    for want in [
        "`blob` is a mesh",
        "particle `sparkle_burst` is not a Java particle",
        "timeline Molang `v.waves = v.waves + 1;`",
        "rotation keys: catmullrom",
        "position keys: bezier",
    ] {
        assert!(
            notes.iter().any(|n| n.contains(want)),
            "{want} in {notes:?}"
        );
    }
    // An empty `anim_time_update` is not noted.
    assert!(
        !notes.iter().any(|n| n.contains("anim_time_update")),
        "{notes:?}"
    );
}

#[test]
fn the_4x_nod_finds_its_bone_by_name_and_holds() {
    let (clips, _) = evaluate(&read("bob_4x.bbmodel"), &options("bob")).expect("evaluates");
    let clip = &clips[0].0;
    assert_eq!(clip.mode, PlaybackMode::Hold);
    assert_eq!(clip.duration_ticks, 16);
    let head = clip.nodes.iter().find(|n| n.name == "head").expect("head");
    // Tick 8 is the key's pre, (30, 10, 5) negated on x and y, added to
    // the rest (0, 15, 0): (−30, 5, 5), composed ZYX.
    let want = crate::import::bedrock::rig::quat_zyx_degrees(Vec3::new(-30.0, 5.0, 5.0));
    assert!(head.frames[8].rotation.dot(want).abs() > 1.0 - 1e-6);
    // The bedrock format draws at the origin: no java_block shift.
    assert!(head.frames[0]
        .translation
        .abs_diff_eq(Vec3::new(0.0, 0.5, 0.0), 1e-6));
}

#[test]
fn the_legacy_file_reads_bones_and_names_each_clip() {
    let out = convert(&read("legacy_4x.bbmodel"), &options("legacy_4x")).expect("converts");
    let ids: Vec<&str> = out.iter().filter_map(|i| i.json["id"].as_str()).collect();
    assert_eq!(ids, ["test:legacy_4x/flutter", "test:legacy_4x/raise"]);
    assert!(out[0].json["timeline"]["tracks"]["cloth"]["rotation"].is_array());
    assert_eq!(out[1].json["settings"]["playback"]["mode"], "once");
    assert_eq!(out[1].json["timeline"]["duration"], "30t");
    let flutter = notes_of(&out[0]);
    assert!(
        flutter
            .iter()
            .any(|n| n.contains("rotation keys: Euler angles") && n.contains("Molang")),
        "{flutter:?}"
    );
    let one = ConvertOptions {
        clip: Some("Raise".to_owned()),
        ..options("legacy_4x")
    };
    assert_eq!(
        convert(&read("legacy_4x.bbmodel"), &one)
            .expect("converts")
            .len(),
        1
    );
    let none = ConvertOptions {
        clip: Some("jump".to_owned()),
        ..options("legacy_4x")
    };
    let error = convert(&read("legacy_4x.bbmodel"), &none).expect_err("no such clip");
    assert!(error.to_string().contains("`flutter`, `raise`"), "{error}");
}

#[test]
fn a_project_without_animations_is_refused() {
    let bytes =
        json!({"meta": {"format_version": "5.0"}, "elements": [], "outliner": []}).to_string();
    assert_eq!(
        convert(bytes.as_bytes(), &ConvertOptions::default()),
        Err(BlockbenchError::NoAnimations)
    );
    let error = convert(b"{not json", &ConvertOptions::default()).expect_err("not json");
    assert!(
        error.to_string().starts_with("/: not valid JSON"),
        "{error}"
    );
}
