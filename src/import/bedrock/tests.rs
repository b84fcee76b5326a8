//! The Bedrock reader: geometry mirroring and ordering, the additive rule,
//! Molang keys, the fixtures and GeckoLib's jack-in-the-box end to end.

use std::path::{Path, PathBuf};

use glam::{Quat, Vec3};
use serde_json::json;

use super::curves::NumbersOnly;
use super::geometry::read_geometry;
use super::rig::quat_zyx_degrees;
use super::*;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/bedrock")
}

fn options(dir: PathBuf, stem: &str) -> ConvertOptions {
    ConvertOptions {
        namespace: "test".to_owned(),
        stem: stem.to_owned(),
        base_dir: Some(dir),
        ..ConvertOptions::default()
    }
}

fn same_turn(a: Quat, b: Quat) -> bool {
    a.dot(b).abs() > 1.0 - 1e-6
}

#[test]
fn geometry_is_mirrored_on_x_into_blockbench_space() {
    let geo = json!({"format_version": "1.12.0", "minecraft:geometry": [{"bones": [
        {"name": "b", "pivot": [2, 3, 4], "rotation": [10, 20, 30],
         "cubes": [{"origin": [1, 0, 0], "size": [2, 1, 1], "inflate": 0.5}]}
    ]}]});
    let rig = read_geometry(&geo, "g#", &mut Vec::new()).expect("reads");
    let bone = &rig.nodes[0];
    // pivot (x, y, z) → (−x, y, z); rotation (x, y, z) → (−x, −y, z).
    assert_eq!(bone.pivot_px, Vec3::new(-2.0, 3.0, 4.0));
    assert_eq!(bone.rotation_deg, Vec3::new(-10.0, -20.0, 30.0));
    // from.x = −(origin.x + size.x) = −3, to = from + size; inflate 0.5.
    let cube = &rig.nodes[1];
    assert_eq!(cube.parent, Some(0));
    assert_eq!(
        cube.body,
        RigBody::Cube {
            from_px: Vec3::new(-3.5, -0.5, -0.5),
            to_px: Vec3::new(-0.5, 1.5, 1.5),
            faces: None,
        }
    );
    // No pivot: the cube turns about its box's centre.
    assert_eq!(cube.pivot_px, Vec3::new(-2.0, 0.5, 0.5));
}

#[test]
fn parents_declared_later_come_first_and_loops_are_refused() {
    let geo = json!({"minecraft:geometry": [{"bones": [
        {"name": "hand", "parent": "arm", "pivot": [0, 0, 0]},
        {"name": "arm", "parent": "body", "pivot": [0, 0, 0]},
        {"name": "body", "pivot": [0, 0, 0]}
    ]}]});
    let rig = read_geometry(&geo, "g#", &mut Vec::new()).expect("reads");
    let names: Vec<&str> = rig.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["body", "arm", "hand"]);
    assert_eq!(rig.nodes[1].parent, Some(0));
    assert_eq!(rig.nodes[2].parent, Some(1));

    let looped = json!({"minecraft:geometry": [{"bones": [
        {"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}
    ]}]});
    let error = read_geometry(&looped, "g#", &mut Vec::new()).expect_err("loops");
    assert!(matches!(error, BedrockError::ParentLoop { .. }), "{error}");
    assert!(
        error
            .to_string()
            .starts_with("g#/minecraft:geometry/0/bones: bone `a`"),
        "{error}"
    );
}

#[test]
fn legacy_geometry_reads_like_1_12() {
    let geo = json!({"format_version": "1.10.0", "geometry.x": {"bones": [
        {"name": "b", "pivot": [1, 2, 3], "cubes": [{"origin": [0, 0, 0], "size": [1, 1, 1]}]}
    ]}});
    let rig = read_geometry(&geo, "g#", &mut Vec::new()).expect("reads");
    assert_eq!(rig.nodes[0].pivot_px, Vec3::new(-1.0, 2.0, 3.0));
    assert_eq!(rig.nodes[1].source, "g#/geometry.x/bones/0/cubes/0");
}

/// local = T((pivot − parent pivot + p)/16) · R_ZYX(rest + r) · S(s).
#[test]
fn animation_is_added_to_the_rest_pose() {
    let geo = json!({"minecraft:geometry": [{"bones": [
        {"name": "parent", "pivot": [0, 2, 0]},
        {"name": "arm", "parent": "parent", "pivot": [0, 8, 0], "rotation": [20, 0, 0]}
    ]}]});
    let rig = read_geometry(&geo, "g#", &mut Vec::new()).expect("reads");
    // Bedrock rotation (0, 0, 40) and position (16, 0, 0), mirrored:
    // (0, 0, 40) and (−16, 0, 0); rest (20, 0, 0) mirrored is (−20, 0, 0).
    let local = rig.local(1, [0.0, 0.0, 40.0], [-16.0, 0.0, 0.0], [2.0, 2.0, 2.0]);
    // Euler angles summed, then composed ZYX: qz(40)·qx(−20)…
    let want =
        Quat::from_rotation_z(40f32.to_radians()) * Quat::from_rotation_x((-20f32).to_radians());
    assert!(same_turn(local.rotation, want));
    // …which is not the rest's turn followed by the animation's.
    let stacked =
        Quat::from_rotation_x((-20f32).to_radians()) * Quat::from_rotation_z(40f32.to_radians());
    assert!(!same_turn(local.rotation, stacked));
    // ((0, 8, 0) − (0, 2, 0) + (−16, 0, 0)) / 16.
    assert!(local
        .translation
        .abs_diff_eq(Vec3::new(-1.0, 0.375, 0.0), 1e-6));
    assert_eq!(local.scale, Vec3::splat(2.0));
    // A zero scale factor is Blockbench's 0.00001.
    assert_eq!(
        rig.local(1, [0.0; 3], [0.0; 3], [0.0, 1.0, 1.0]).scale.x,
        0.00001
    );
}

#[test]
fn zyx_is_z_after_y_after_x() {
    let q = quat_zyx_degrees(Vec3::new(90.0, 0.0, 90.0));
    // X first turns +Y to +Z; then Z (90°) leaves +Z alone.
    assert!((q * Vec3::Y).abs_diff_eq(Vec3::Z, 1e-6));
    // X first leaves +X alone; then Z turns it to +Y.
    assert!((q * Vec3::X).abs_diff_eq(Vec3::Y, 1e-6));
}

fn animation(bones: serde_json::Value) -> Vec<u8> {
    json!({"format_version": "1.8.0", "animations": {"animation.t": {"loop": true, "animation_length": 1, "bones": bones}}})
        .to_string()
        .into_bytes()
}

#[test]
fn animation_values_are_mirrored_and_molang_is_evaluated_in_degrees() {
    let bytes = animation(json!({"b": {
        "rotation": {"0": ["math.sin(query.anim_time * 90) * 10", 5, 7], "1": ["math.sin(q.life_time * 90) * 10", 5, 7]},
        "position": [2, 3, 4]
    }}));
    let root = serde_json::from_slice::<Value>(&bytes).expect("json");
    let mut expressions = Expressions::new();
    let mut notes = Vec::new();
    let clips = read_animations(
        root.as_object().expect("object"),
        &mut expressions,
        &mut notes,
    )
    .expect("reads");
    let bone = &clips[0].bones[0];
    let mut values = expressions.evaluator(1.0);
    values.set_time_secs(1.0);
    // sin(90°)·10 = 10, mirrored on x: −10; y mirrored: −5; z kept.
    let r = bone.rotation.sample(1.0, true, &mut values).expect("keys");
    assert!(
        (r[0] + 10.0).abs() < 1e-9 && r[1] == -5.0 && r[2] == 7.0,
        "{r:?}"
    );
    values.set_time_secs(0.5);
    let r = bone.rotation.sample(0.5, true, &mut values).expect("keys");
    // Both keys read sin(45°)·10 at 0.5 s.
    assert!(
        (r[0] + 10.0 * std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-9,
        "{r:?}"
    );
    let p = bone
        .position
        .sample(0.0, true, &mut NumbersOnly)
        .expect("keys");
    assert_eq!(p, [-2.0, 3.0, 4.0]);
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn unknown_molang_names_read_zero_with_a_note() {
    let bytes =
        animation(json!({"b": {"rotation": ["q.no_such_query + 3", "v.unset * 2 + 1", "this"]}}));
    let root = serde_json::from_slice::<Value>(&bytes).expect("json");
    let mut expressions = Expressions::new();
    let mut notes = Vec::new();
    let clips = read_animations(
        root.as_object().expect("object"),
        &mut expressions,
        &mut notes,
    )
    .expect("reads");
    let mut values = expressions.evaluator(1.0);
    let r = clips[0].bones[0]
        .rotation
        .sample(0.0, true, &mut values)
        .expect("keys");
    assert_eq!(r, [-3.0, -1.0, 0.0]);
    let text: Vec<String> = notes.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|n| n.contains("/bones/b/rotation/0")
                && n.contains("`q.no_such_query` is not a query")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|n| n.contains("`v.unset` is never set here")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|n| n.contains("/bones/b/rotation/2")
            && n.contains("`this` is not Molang emoted can run")),
        "{text:?}"
    );
}

#[test]
fn key_times_must_be_decimal_seconds() {
    let bytes = animation(json!({"b": {"rotation": {"0.5s": [0, 0, 0]}}}));
    let error = convert(&bytes, &ConvertOptions::default()).expect_err("bad time");
    assert_eq!(
        error,
        BedrockError::BadTime {
            pointer: "/animations/animation.t/bones/b/rotation/0.5s".to_owned(),
            text: "0.5s".to_owned()
        }
    );
    assert!(error.to_string().contains("decimal strings"));
}

#[test]
fn a_geometry_file_alone_is_refused() {
    let bytes = std::fs::read(fixtures().join("wave.geo.json")).expect("fixture");
    let error = convert(&bytes, &ConvertOptions::default()).expect_err("geometry only");
    assert_eq!(error, BedrockError::GeometryOnly);
    assert!(error.to_string().contains("holds no animation"));
}

#[test]
fn without_geometry_bones_are_anchors_at_the_origin() {
    let bytes = animation(json!({"b": {"position": [16, 0, 0]}}));
    let (clips, shared) = evaluate(&bytes, &ConvertOptions::default()).expect("evaluates");
    assert!(
        shared.iter().any(|n| n.message.contains("no geometry")),
        "{shared:?}"
    );
    let node = &clips[0].0.nodes[0];
    assert_eq!(node.parent, None);
    assert!(node.frames[0]
        .translation
        .abs_diff_eq(Vec3::new(-1.0, 0.0, 0.0), 1e-6));
}

#[test]
fn the_wave_fixture_loops_with_its_sound_and_command() {
    let dir = fixtures();
    let bytes = std::fs::read(dir.join("wave.animation.json")).expect("fixture");
    let out = convert(&bytes, &options(dir, "wave.animation")).expect("converts");
    assert_eq!(out.len(), 1);
    let json = &out[0].json;
    assert_eq!(json["id"], "test:wave_animation");
    assert_eq!(json["metadata"]["name"], "animation.wave.loop");
    assert_eq!(json["metadata"]["source"], "Bedrock");
    assert_eq!(json["settings"]["playback"]["mode"], "loop");
    assert_eq!(json["timeline"]["duration"], "20t");
    let events = json["timeline"]["events"]["timeline"]
        .as_array()
        .expect("events");
    assert_eq!(
        events[0]["commands"][0],
        "playsound entity.player.levelup master @a ~ ~ ~"
    );
    assert_eq!(events[1]["time"], "10t");
    assert_eq!(events[1]["commands"][0], "say halfway");
    for node in ["body", "arm", "body_cube0", "body_cube1", "arm_cube0"] {
        assert!(
            json["nodes"].get(node).is_some(),
            "{node} in {}",
            json["nodes"]
        );
    }
    assert_eq!(json["nodes"]["arm"]["parent"], "body");
    let notes: Vec<String> = out[0].notes.iter().map(ToString::to_string).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("/bones/arm/rotation: catmullrom")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("timeline Molang")),
        "{notes:?}"
    );
}

#[test]
fn the_hop_fixture_holds_and_jumps() {
    let dir = fixtures();
    let bytes = std::fs::read(dir.join("hop.animation.json")).expect("fixture");
    let (clips, _) = evaluate(&bytes, &options(dir.clone(), "hop")).expect("evaluates");
    let clip = &clips[0].0;
    assert_eq!(clip.mode, PlaybackMode::Hold);
    assert_eq!(clip.duration_ticks, 16); // the last key, 0.8 s
    let blob = clip.nodes.iter().find(|n| n.name == "blob").expect("blob");
    // Tick 8 (0.4 s) is the key's pre (4, 16, 0) mirrored, from pivot
    // (0, 4, 0) − root (0, 0, 0); tick 9 leaves from post (4, 8, 0).
    assert!(blob.frames[8]
        .translation
        .abs_diff_eq(Vec3::new(-4.0, 20.0, 0.0) / 16.0, 1e-6));
    // α = 0.05 / 0.4: (−4, 8, 0)·(1 − 0.125) + (0, 4, 0).
    let t9 = Vec3::new(-3.5, 11.0, 0.0);
    assert!(
        blob.frames[9].translation.abs_diff_eq(t9 / 16.0, 1e-6),
        "{:?}",
        blob.frames[9]
    );
    // Bare-number scale 1.5 at 0.4 s.
    assert!(blob.frames[8].scale.abs_diff_eq(Vec3::splat(1.5), 1e-6));
    let out = convert(&bytes, &options(dir, "hop")).expect("converts");
    assert_eq!(out[0].json["settings"]["playback"]["mode"], "hold");
    // The bone named `root` is renamed past the builder's own root anchor.
    assert!(
        out[0]
            .notes
            .iter()
            .any(|n| n.message.contains("`root` is node")),
        "{:?}",
        out[0].notes
    );
}

#[test]
fn geckolib_layout_finds_the_geometry_and_names_each_clip() {
    let dir = fixtures().join("geckolib/animations/entity");
    let bytes = std::fs::read(dir.join("spinner.animation.json")).expect("fixture");
    let out = convert(&bytes, &options(dir.clone(), "spinner.animation")).expect("converts");
    let ids: Vec<&str> = out
        .iter()
        .map(|i| i.json["id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        ids,
        [
            "test:spinner_animation/animation_spinner_spin",
            "test:spinner_animation/animation_spinner_stop"
        ]
    );
    assert_eq!(out[0].json["nodes"]["blade"]["parent"], "hub");
    assert_eq!(out[1].json["settings"]["playback"]["mode"], "once");
    let notes: Vec<String> = out[1].notes.iter().map(ToString::to_string).collect();
    assert!(
        notes.iter().any(|n| n.contains("no bone `ghost`")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("particle effect `sparks` is dropped")),
        "{notes:?}"
    );
    let spin: Vec<String> = out[0].notes.iter().map(ToString::to_string).collect();
    assert!(
        spin.iter()
            .any(|n| n.contains("`q.is_on_fire` reads emoted's default")),
        "{spin:?}"
    );
    // --clip picks one, ignoring case.
    let one = ConvertOptions {
        clip: Some("ANIMATION.SPINNER.STOP".to_owned()),
        ..options(dir, "spinner")
    };
    let picked = convert(&bytes, &one).expect("converts");
    assert_eq!(picked.len(), 1);
    assert_eq!(picked[0].json["metadata"]["name"], "animation.spinner.stop");
    let missing = ConvertOptions {
        clip: Some("nope".to_owned()),
        ..ConvertOptions::default()
    };
    let error = convert(&bytes, &missing).expect_err("no such clip");
    assert!(
        error.to_string().contains("`animation.spinner.spin`"),
        "{error}"
    );
}

/// GeckoLib's jack-in-the-box (MIT), read in place, never copied.
#[test]
fn geckolib_jack_in_the_box_converts_when_the_sample_is_there() {
    let dir = PathBuf::from("/work/shared/samples/import/bedrock");
    let Ok(bytes) = std::fs::read(dir.join("jack_in_the_box.animation.json")) else {
        println!("skip: {} is absent", dir.display());
        return;
    };
    let out = convert(&bytes, &options(dir, "jack_in_the_box.animation")).expect("converts");
    assert_eq!(out.len(), 1);
    let json = &out[0].json;
    assert_eq!(json["metadata"]["name"], "use.popup");
    assert_eq!(json["timeline"]["duration"], "309t");
    assert_eq!(json["settings"]["playback"]["mode"], "once");
    assert_eq!(json["nodes"]["elbow"]["parent"], "arm");
    assert_eq!(json["nodes"]["top"]["parent"], "chest_body");
    assert!(json["timeline"]["tracks"]["top"]["rotation"].is_array());
    assert_eq!(
        json["timeline"]["events"]["timeline"][0]["commands"][0],
        "playsound music master @a ~ ~ ~"
    );
}

#[test]
fn a_runaway_molang_loop_stops_at_the_operation_budget() {
    let heavy = "loop(1024, {loop(1024, {loop(1024, {v.x = v.x + 1;});});}); return 5;";
    let bytes = animation(json!({"b": {"rotation": [0, 0, heavy]}}));
    let root = serde_json::from_slice::<Value>(&bytes).expect("json");
    let mut expressions = Expressions::new();
    let clips = read_animations(
        root.as_object().expect("object"),
        &mut expressions,
        &mut Vec::new(),
    )
    .expect("reads");
    let mut values = expressions.evaluator(1.0);
    values.set_time_secs(0.0);
    let started = std::time::Instant::now();
    let r = clips[0].bones[0]
        .rotation
        .sample(0.0, true, &mut values)
        .expect("keys");
    assert_eq!(r[2], 0.0);
    assert!(started.elapsed().as_secs() < 5);
}
