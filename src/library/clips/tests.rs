//! Clips as emotes: ids, axes, cycles, cues and refusals, each worked out
//! by hand from the module docs.

use std::path::{Path, PathBuf};

use glam::{Quat, Vec3};

use super::*;
use crate::format::clip::parse_clip_json;
use crate::library::Library;

fn clip(json: &str) -> ClipFile {
    let report = parse_clip_json(json);
    report
        .file
        .unwrap_or_else(|| panic!("a valid clip: {:?}", report.problems))
}

/// Degrees between two rotations (the tests allow 0.05° for "the same",
/// f32 rounding over a few products).
fn degrees_between(a: Quat, b: Quat) -> f32 {
    // atan2 of the difference's axis part and its w: no acos of a dot
    // that rounds past 1.
    let d = a.inverse() * b;
    (2.0 * d.xyz().length().atan2(d.w.abs())).to_degrees()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("emoted-clips-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    dir
}

const RAISE: &str = r#"{"version": 3, "length": 1, "loop": "once",
    "joints": {"rightArm": {"rotation": [[0, [0, 0, 0]], [1, [90, 0, 0]]]}}}"#;

#[test]
fn ids_come_from_the_file_name_or_the_datapack_path() {
    assert_eq!(clip_id(Path::new("emotes/Big Wave.anim")), "clip:big_wave");
    assert_eq!(clip_id(Path::new("emotes/sub/salute.anim")), "clip:salute");
    // Without a pack.mcmeta a folder called data is just a folder.
    assert_eq!(clip_id(Path::new("x/data/ns/emotes/a/b.anim")), "clip:b");
    let root = temp_dir("ids");
    std::fs::create_dir_all(root.join("pack/data/My_NS/emotes/moves")).expect("mkdir");
    std::fs::write(root.join("pack/pack.mcmeta"), "{}").expect("write");
    let path = root.join("pack/data/My_NS/emotes/moves/Spin.anim");
    assert_eq!(clip_id(&path), "my_ns:moves/spin");
    let _ = std::fs::remove_dir_all(&root);
}

/// `rightArm` +90° about the clip's X points forward: −Z in the clip,
/// +Z in the player's frame, so the player's rotation is −90° about X.
#[test]
fn a_clip_arm_raised_about_x_points_forward_on_the_player() {
    let mut problems = Vec::new();
    let (cycle, poses) = clip_poses(&clip(RAISE), &mut problems).expect("plays");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(cycle.duration_ticks, 20);
    assert_eq!(cycle.mode, PlaybackMode::Once);
    assert_eq!(poses.len(), 21);
    let arm = poses[20].joints[&PlayerJoint::RightArm];
    let hand = arm.rotation * Vec3::NEG_Y;
    assert!((hand - Vec3::Z).length() < 1e-5, "{hand}");
    assert!(degrees_between(arm.rotation, Quat::from_rotation_x(-90_f32.to_radians())) < 0.05);
    assert_eq!(arm.pivot, PlayerJoint::RightArm.rest_pivot());
    // Linear in angle: 45° at tick 10 (0.5 s).
    let half = poses[10].joints[&PlayerJoint::RightArm].rotation;
    assert!(degrees_between(half, Quat::from_rotation_x(-45_f32.to_radians())) < 0.05);
    // A joint the clip does not name stays out (at rest).
    assert!(!poses[10].joints.contains_key(&PlayerJoint::LeftArm));
}

/// Through the humanoid rig and back to bones: the schema 4 Animation's
/// bone form has the arm where the clip put it, within the rig's 0.5°.
#[test]
fn the_converted_emote_has_the_clips_pose_in_its_bone_form() {
    let mut problems = Vec::new();
    let file =
        clip_animation(&clip(RAISE), "clip:raise", "raise", &mut problems).expect("converts");
    assert_eq!(file.metadata.name, "raise");
    let compiled = CompiledAnimation::compile(&file).expect("compiles");
    let form = bone_form(&compiled, &file)
        .expect("samples")
        .expect("bones");
    assert_eq!(form.duration_ticks, 20);
    let arm = form
        .joints
        .iter()
        .position(|(j, _)| *j == PlayerJoint::RightArm)
        .expect("the right arm");
    let at_end = form.frames[20][arm].rotation;
    assert!(
        degrees_between(at_end, Quat::from_rotation_x(-90_f32.to_radians())) < 0.6,
        "{at_end}"
    );
    let at_start = form.frames[0][arm].rotation;
    assert!(
        degrees_between(at_start, Quat::IDENTITY) < 0.6,
        "{at_start}"
    );
}

/// `root` moves the whole body: an offset (0, 0.5, 1) forward-back in the
/// clip is (0, 0.5, −1) for the player; a turn of 90° about the clip's Y
/// stays 90° about Y (Y is shared).
#[test]
fn the_root_moves_the_whole_body_in_the_players_frame() {
    let json = r#"{"version": 3, "length": 1, "joints": {"root": {
        "position": [[0, [0, 0.5, 1]], [1, [0, 0.5, 1]]],
        "rotation": [[0, [0, 90, 0]], [1, [0, 90, 0]]]}}}"#;
    let (_, poses) = clip_poses(&clip(json), &mut Vec::new()).expect("plays");
    let body = poses[5].body.expect("a body transform");
    let (_, rotation, translation) = body.to_scale_rotation_translation();
    assert!(
        (translation - Vec3::new(0.0, 0.5, -1.0)).length() < 1e-5,
        "{translation}"
    );
    assert!(
        degrees_between(rotation, Quat::from_rotation_y(90_f32.to_radians())) < 0.05,
        "{rotation}"
    );
}

/// Offsets of a part move its pivot: torso +0.1 block along the clip's X
/// (right) is 0.1 toward the player's −X (their right).
#[test]
fn a_part_offset_moves_its_pivot() {
    let json = r#"{"version": 3, "length": 1, "joints": {"torso": {
        "position": [[0, [0.1, 0, 0]], [1, [0.1, 0, 0]]]}}}"#;
    let (_, poses) = clip_poses(&clip(json), &mut Vec::new()).expect("plays");
    let torso = poses[0].joints[&PlayerJoint::Torso];
    let expected = PlayerJoint::Torso.rest_pivot() + Vec3::new(-0.1, 0.0, 0.0);
    assert!((torso.pivot - expected).length() < 1e-6, "{}", torso.pivot);
    assert_eq!(torso.rotation, Quat::IDENTITY);
}

/// A joint weight of 0.5 takes half the turn: 45° of the clip's 90°.
#[test]
fn a_joint_weight_blends_with_the_rest() {
    let json = r#"{"version": 3, "length": 1, "joints": {"head": {
        "rotation": [[0, [0, 90, 0]], [1, [0, 90, 0]]], "weight": 0.5}}}"#;
    let (_, poses) = clip_poses(&clip(json), &mut Vec::new()).expect("plays");
    let head = poses[3].joints[&PlayerJoint::Head].rotation;
    assert!(degrees_between(head, Quat::from_rotation_y(45_f32.to_radians())) < 0.05);
}

#[test]
fn cycles_round_to_whole_ticks_and_pingpong_runs_back() {
    // length 1, speed 2, pingpong: 2 × 1 / 2 = 1 s = 20 ticks, a loop.
    let json = r#"{"version": 3, "length": 1, "speed": 2, "loop": "pingpong",
        "joints": {"head": {"rotation": [[0, [0, 0, 0]], [1, [0, 80, 0]]]}}}"#;
    let file = clip(json);
    let cycle = ClipCycle::of(&file).expect("a cycle");
    assert_eq!(cycle.duration_ticks, 20);
    assert_eq!(cycle.mode, PlaybackMode::Loop);
    let (_, poses) = clip_poses(&file, &mut Vec::new()).expect("plays");
    // Tick 10 is the clip's end (80°), tick 5 half way there and tick 15
    // half way back (40°), tick 20 the start again.
    let head = |t: usize| poses[t].joints[&PlayerJoint::Head].rotation;
    let yaw = |deg: f32| Quat::from_rotation_y(deg.to_radians());
    assert!(degrees_between(head(10), yaw(80.0)) < 0.05);
    assert!(degrees_between(head(5), yaw(40.0)) < 0.05);
    assert!(degrees_between(head(15), yaw(40.0)) < 0.05);
    assert!(degrees_between(head(20), yaw(0.0)) < 0.05);
    // 1.03 s is 20.6 ticks: 21 ticks, each 1.03/21 s of track time.
    let long = clip(
        r#"{"version": 3, "length": 1.03, "loop": "hold",
        "joints": {"head": {"rotation": [[0, [0, 0, 0]]]}}}"#,
    );
    let cycle = ClipCycle::of(&long).expect("a cycle");
    assert_eq!(cycle.duration_ticks, 21);
    assert!((cycle.secs_per_tick - 1.03 / 21.0).abs() < 1e-7);
    assert_eq!(cycle.mode, PlaybackMode::Hold);
}

/// A sound at 0.5 s of a speed-2 clip is at 0.25 s of track time, tick 5;
/// in a pingpong clip of length 1 it is passed again at (2 − 0.5)/2 s,
/// tick 15.
#[test]
fn sounds_become_playsound_events_at_their_ticks() {
    let json = r#"{"version": 3, "length": 1, "speed": 2, "loop": "pingpong",
        "joints": {"head": {"rotation": [[0, [0, 0, 0]], [1, [0, 10, 0]]]}},
        "sounds": [{"time": 0.5, "sound": "block.note_block.bell", "volume": 0.5, "pitch": 2}],
        "markers": [{"time": 0.2, "name": "m"}],
        "events": [{"time": 0.1, "name": "e"}]}"#;
    let mut problems = Vec::new();
    let file = clip_animation(&clip(json), "clip:bell", "bell", &mut problems).expect("converts");
    let ticks: Vec<u32> = file
        .timeline
        .events
        .timeline
        .iter()
        .map(|e| e.time_ticks)
        .collect();
    assert_eq!(ticks, vec![5, 15]);
    assert_eq!(
        file.timeline.events.timeline[0].event.commands,
        vec!["playsound minecraft:block.note_block.bell player @a ~ ~ ~ 0.5 2".to_owned()]
    );
    // The event warns; the marker passes in silence.
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(!problems[0].is_error() && problems[0].pointer == "/events/0");
}

#[test]
fn view_clips_and_clips_without_a_body_joint_are_refused() {
    let view = clip(
        r#"{"version": 3, "space": "view", "length": 1,
        "joints": {"rightArm": {"rotation": [[0, [0, 0, 0]]]}}}"#,
    );
    let refused = clip_poses(&view, &mut Vec::new()).expect_err("refused");
    assert_eq!(refused.pointer, "/space");
    assert!(refused.is_error());

    let tail = clip(
        r#"{"version": 3, "length": 1,
        "joints": {"tail": {"rotation": [[0, [0, 0, 0]], [1, [0, 30, 0]]]},
                   "cape": {"rotation": [[0, [0, 0, 0]], [1, [30, 0, 0]]]}}}"#,
    );
    let mut problems = Vec::new();
    let refused = clip_poses(&tail, &mut problems).expect_err("refused");
    assert_eq!(refused.pointer, "/joints");
    assert!(
        problems.iter().any(|p| p.pointer == "/joints/tail"),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.pointer == "/joints/cape"),
        "{problems:?}"
    );
}

#[test]
fn a_scale_channel_is_a_warning_and_the_rest_plays() {
    let json = r#"{"version": 3, "length": 1, "joints": {"leftLeg": {
        "rotation": [[0, [0, 0, 0]], [1, [20, 0, 0]]],
        "scale": [[0, [1, 1, 1]], [1, [2, 2, 2]]]}}}"#;
    let mut problems = Vec::new();
    let (_, poses) = clip_poses(&clip(json), &mut problems).expect("plays");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].pointer, "/joints/leftLeg/scale");
    assert!(!problems[0].is_error());
    let leg = poses[20].joints[&PlayerJoint::LeftLeg].rotation;
    assert!(degrees_between(leg, Quat::from_rotation_x(-20_f32.to_radians())) < 0.05);
}

/// The library loads a clip from a folder beside schema 4 files, by its
/// id, with a bone form; a broken clip is refused with its pointer and a
/// clip sharing an id with another is refused with it.
#[test]
fn the_library_loads_clips_beside_schema_4_files() {
    let root = temp_dir("library");
    std::fs::write(root.join("Raise.anim"), RAISE).expect("write");
    std::fs::create_dir_all(root.join("more")).expect("mkdir");
    std::fs::write(
        root.join("more/broken.anim"),
        r#"{"version": 3, "joints": 5}"#,
    )
    .expect("write");
    let report = Library::load(std::slice::from_ref(&root));
    let raise = report.library.get("clip:raise").expect("loaded by id");
    assert!(raise.is_clip());
    assert!(raise.bones.is_some());
    assert!(raise.compiled.is_some());
    let broken = report
        .files
        .iter()
        .find(|f| f.path.ends_with("more/broken.anim"))
        .expect("the broken clip's problems");
    assert!(broken.has_errors());
    assert!(
        broken.problems.iter().any(|p| p.pointer == "/joints"),
        "{:?}",
        broken.problems
    );
    assert_eq!(report.file_count, 2);

    std::fs::write(root.join("more/raise.anim"), RAISE).expect("write");
    let report = Library::load(std::slice::from_ref(&root));
    assert!(report.library.get("clip:raise").is_none(), "both refused");
    let _ = std::fs::remove_dir_all(&root);
}
