//! `emoted convert --to anim`: a body emote as an `.anim` clip (version 3),
//! the bone form modded clients get, for authors who keep editing in a
//! clip editor or hand it to another server.
//!
//! # The model
//! The converted schema 4 Animation is compiled and its **bone form**
//! sampled at every tick ([`super::bones::bone_form`]: each of the six
//! body joints' rotation from rest and pivot, in the player's frame, as
//! the modded clients' encoders read it). Each joint becomes a clip joint
//! (`head`, `torso`, `rightArm`, `leftArm`, `rightLeg`, `leftLeg`) in the
//! clip's frame, the player's turned half a turn about Y (Blockbench's
//! body axes, the inverse of what [`super::clips`] does when it plays a
//! clip): a `rotation` channel of quaternion keys `[x, y, z, w]`, which a
//! clip slerps, and a `position` channel, the pivot's offset from the
//! vanilla rest pivot in blocks. Both are thinned to the fewest keys
//! within 0.5° and 0.01 block of every tick ([`crate::import::keys`]),
//! judged on the keys as written (rounded to 10⁻⁶) and read back as a
//! clip reads them, and no rotation segment spans 179° or more, so a half
//! turn can never play the other way; a joint that never leaves its rest
//! is left out, and so is a channel that stays within the tolerance of
//! its rest.
//!
//! # What does not carry over (each a note)
//! - bends (elbows, knees, the torso's upper half): a clip's body joints
//!   have no lower slice;
//! - props, texts, blocks and command events: a clip moves a body only
//!   (a source that is not a body emote is refused);
//! - `server_sync` becomes `loop`; a loop's rest between cycles is not in
//!   the clip (its `length` is the cycle).

use glam::{Quat, Vec3};
use serde_json::{json, Map, Value};

use super::bones::bone_form;
use super::clips::{player_offset, player_rotation};
use super::CompiledAnimation;
use crate::anim::bones::BodyJoint;
use crate::format::settings::PlaybackMode;
use crate::import::humanoid::{Imported, TEMPLATE_JSON};
use crate::import::keys::{
    kept_rotations, vector_keys, POSITION_TOLERANCE_BLOCKS, ROTATION_TOLERANCE_RADIANS,
};
use crate::import::Note;

/// Ticks per second.
const TICKS_PER_SECOND: f64 = 20.0;

/// `imported` (a converted emote) as `.anim` clip JSON, with the notes of
/// what did not carry over; `Err` with the reason when it has no body.
pub fn anim_clip(imported: &Imported) -> Result<(Value, Vec<Note>), String> {
    let compiled = CompiledAnimation::compile(&imported.file).map_err(|problems| {
        let first = problems.first().map(|p| p.to_string()).unwrap_or_default();
        format!("the converted emote does not compile: {first}")
    })?;
    let form = bone_form(&compiled, &imported.file)
        .map_err(|e| format!("the converted emote does not play: {e}"))?
        .ok_or_else(|| {
            "`--to anim` writes a body's joints, and this source converts to named nodes, not a body; convert it to schema 4".to_owned()
        })?;
    let mut notes = Vec::new();
    let mut joints = Map::new();
    for (index, (joint, _)) in form.joints.iter().enumerate() {
        let frames: Vec<_> = form
            .frames
            .iter()
            .filter_map(|tick| tick.get(index).copied())
            .collect();
        let name = clip_name(*joint);
        let mut channels = Map::new();
        let rotations: Vec<Quat> = frames
            .iter()
            .map(|f| player_rotation(f.rotation).normalize())
            .collect();
        if rotations
            .iter()
            .any(|q| q.angle_between(Quat::IDENTITY) > ROTATION_TOLERANCE_RADIANS)
        {
            let written: Vec<[f64; 4]> = rotations.iter().map(|q| quat_json(*q)).collect();
            let read_back: Vec<Quat> = written.iter().map(read_back_quat).collect();
            let keys: Vec<Value> =
                kept_rotations(&rotations, &read_back, ROTATION_TOLERANCE_RADIANS)
                    .into_iter()
                    .filter_map(|k| written.get(k).map(|q| json!([seconds(k), q])))
                    .collect();
            channels.insert("rotation".to_owned(), Value::Array(keys));
        }
        let offsets: Vec<Vec3> = frames
            .iter()
            .map(|f| player_offset(f.pivot - joint.rest_pivot()))
            .collect();
        if offsets
            .iter()
            .any(|o| o.length() > POSITION_TOLERANCE_BLOCKS)
        {
            let keys: Vec<Value> = vector_keys(&offsets, POSITION_TOLERANCE_BLOCKS)
                .into_iter()
                .map(|(k, o)| json!([seconds(k), o]))
                .collect();
            channels.insert("position".to_owned(), Value::Array(keys));
        }
        let bends = frames.iter().any(|f| {
            f.bend
                .is_some_and(|b| b.angle_radians > ROTATION_TOLERANCE_RADIANS)
        });
        if bends {
            notes.push(Note::new(
                format!("/joints/{name}"),
                "its bend does not carry over: a clip's body joints have no lower slice",
            ));
        }
        if !channels.is_empty() {
            joints.insert(name.to_owned(), Value::Object(channels));
        }
    }
    let loop_mode = match form.mode {
        PlaybackMode::Once => "once",
        PlaybackMode::Hold => "hold",
        PlaybackMode::Loop => "loop",
        PlaybackMode::ServerSync => {
            notes.push(Note::new(
                "/loop",
                "server_sync plays as a plain loop in a clip",
            ));
            "loop"
        }
    };
    if form.loop_delay_ticks > 0 {
        notes.push(Note::new(
            "/length",
            format!(
                "the {}-tick rest between cycles is not in the clip",
                form.loop_delay_ticks
            ),
        ));
    }
    let template_nodes = serde_json::from_str::<Value>(TEMPLATE_JSON)
        .ok()
        .and_then(|t| t.get("nodes").and_then(Value::as_object).map(Map::len))
        .unwrap_or(0);
    let events = &imported.file.timeline.events;
    let has_events = !(events.start.is_empty()
        && events.timeline.is_empty()
        && events.on_loop.is_empty()
        && events.stop.is_empty());
    if imported.file.nodes.len() > template_nodes || has_events {
        notes.push(Note::new(
            "/joints",
            "props, texts, blocks and command events do not carry over: a clip moves a body only",
        ));
    }
    let clip = json!({
        "version": 3,
        "length": seconds(form.duration_ticks as usize),
        "loop": loop_mode,
        "joints": Value::Object(joints),
    });
    Ok((clip, notes))
}

/// Tick `k` in seconds.
fn seconds(tick: usize) -> f64 {
    tick as f64 / TICKS_PER_SECOND
}

/// A quaternion as `[x, y, z, w]`, rounded to 10⁻⁶.
fn quat_json(q: Quat) -> [f64; 4] {
    let r = |x: f32| (f64::from(x) * 1e6).round() / 1e6 + 0.0;
    [r(q.x), r(q.y), r(q.z), r(q.w)]
}

/// A written quaternion key as a clip reads it back: narrowed to `f32`
/// and normalised (`[0, 0, 0, 1]` for one that is all zeros, which a unit
/// quaternion rounded to 10⁻⁶ never is).
fn read_back_quat(q: &[f64; 4]) -> Quat {
    let q = Quat::from_xyzw(q[0] as f32, q[1] as f32, q[2] as f32, q[3] as f32);
    let length = q.length();
    if length > 1e-6 && length.is_finite() {
        q / length
    } else {
        Quat::IDENTITY
    }
}

/// The clip's name for a body joint.
fn clip_name(joint: BodyJoint) -> &'static str {
    match joint {
        BodyJoint::Head => "head",
        BodyJoint::Torso => "torso",
        BodyJoint::RightArm => "rightArm",
        BodyJoint::LeftArm => "leftArm",
        BodyJoint::RightLeg => "rightLeg",
        BodyJoint::LeftLeg => "leftLeg",
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::format::clip::parse_clip_json;
    use crate::import::emotecraft_json::read_emote;
    use crate::import::keys_tests::assert_no_wide_segment;
    use crate::import::playeranimator::import_bone_animation;
    use crate::library::clips::clip_poses;

    /// `imported` → clip → the clip played on the body (`clip_poses`):
    /// every joint within 0.5° and 0.01 block of the bone form it was
    /// written from, at every tick.
    fn assert_round_trip(imported: &Imported, what: &str) {
        let (clip_json, _) = anim_clip(imported).expect("a body emote");
        let report = parse_clip_json(&clip_json.to_string());
        let clip = report
            .file
            .unwrap_or_else(|| panic!("{what}: {:?}", report.problems));
        let mut problems = Vec::new();
        let (cycle, poses) = clip_poses(&clip, &mut problems).expect("poses");
        let compiled = CompiledAnimation::compile(&imported.file).expect("compiles");
        let form = bone_form(&compiled, &imported.file)
            .expect("samples")
            .expect("a bone form");
        assert_eq!(cycle.duration_ticks, form.duration_ticks, "{what}");
        assert!(
            !form.joints.is_empty() && poses.iter().any(|p| !p.joints.is_empty()),
            "{what}"
        );
        for (tick, (pose, frames)) in poses.iter().zip(&form.frames).enumerate() {
            for ((joint, _), frame) in form.joints.iter().zip(frames) {
                let played = pose
                    .joints
                    .get(joint)
                    .map_or((Quat::IDENTITY, joint.rest_pivot()), |f| {
                        (f.rotation, f.pivot)
                    });
                let turn = played.0.angle_between(frame.rotation).to_degrees();
                let gap = played.1.distance(frame.pivot);
                assert!(turn <= 0.51, "{what} {joint:?} tick {tick}: {turn}°");
                assert!(gap <= 0.0101, "{what} {joint:?} tick {tick}: {gap} block");
            }
        }
    }

    #[test]
    fn emotecraft_emotes_come_back_from_their_clip_within_the_tolerances() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/emotecraft");
        for name in ["wave_v1", "props_hold_v2", "spin_loop_v3"] {
            let bytes = std::fs::read(folder.join(format!("{name}.json"))).expect("fixture");
            let emote = read_emote(&bytes, name).expect("reads");
            let imported = import_bone_animation(&emote.animation, "converted:x", emote.metadata)
                .expect("imports");
            assert_round_trip(&imported, name);
        }
    }

    /// The numbers of a clip key's value (`[time, [x, y, z, w]]`).
    fn key_numbers(key: &Value) -> Vec<f64> {
        key[1]
            .as_array()
            .expect("[x, y, z, w]")
            .iter()
            .filter_map(Value::as_f64)
            .collect()
    }

    #[test]
    fn a_head_spinning_in_quarter_keys_comes_back_from_its_clip_the_same_way() {
        // 360° of yaw in four 90° keys, 5 ticks apart: the half-turn key at
        // tick 10 must not make a clip segment that turns the other way.
        let json = r#"{"version": 3, "name": "Spin", "emote": {
            "endTick": 20, "degrees": true, "moves": [
                {"tick": 0, "easing": "linear", "head": {"yaw": 0}},
                {"tick": 5, "easing": "linear", "head": {"yaw": 90}},
                {"tick": 10, "easing": "linear", "head": {"yaw": 180}},
                {"tick": 15, "easing": "linear", "head": {"yaw": 270}},
                {"tick": 20, "easing": "linear", "head": {"yaw": 360}}
            ]}}"#;
        let emote = read_emote(json.as_bytes(), "spin").expect("reads");
        let imported = import_bone_animation(&emote.animation, "converted:spin", emote.metadata)
            .expect("imports");
        assert_round_trip(&imported, "a spinning head");
        // No kept segment turns 179° or more (the half turn has a key
        // before it), so no rounding can send one the other way.
        let (clip, _) = anim_clip(&imported).expect("a body emote");
        let keys = clip["joints"]["head"]["rotation"]
            .as_array()
            .cloned()
            .expect("the head turns");
        let read_back: Vec<(f64, Quat)> = keys
            .iter()
            .map(|k| {
                let q = key_numbers(k);
                let seconds = k[0].as_f64().expect("seconds");
                (
                    seconds * TICKS_PER_SECOND,
                    read_back_quat(&[q[0], q[1], q[2], q[3]]),
                )
            })
            .collect();
        assert_no_wide_segment(&read_back, "a spinning head's clip");
    }

    #[test]
    fn the_clip_names_the_joints_in_the_clips_frame_and_the_loop() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/emotecraft");
        let bytes = std::fs::read(folder.join("wave_v1.json")).expect("fixture");
        let emote = read_emote(&bytes, "wave").expect("reads");
        let imported = import_bone_animation(&emote.animation, "converted:x", emote.metadata)
            .expect("imports");
        let (clip, _) = anim_clip(&imported).expect("a body emote");
        assert_eq!(clip["version"], 3);
        let joints = clip["joints"].as_object().expect("joints");
        assert!(
            joints.contains_key("rightArm"),
            "the wave moves the right arm: {clip}"
        );
        assert!(joints.keys().all(|k| [
            "head", "torso", "rightArm", "leftArm", "rightLeg", "leftLeg"
        ]
        .contains(&k.as_str())));
        // Every rotation key is [time, [x, y, z, w]] with a unit quaternion.
        for channel in joints.values().filter_map(|j| j.get("rotation")) {
            for key in channel.as_array().expect("keys") {
                let q = key_numbers(key);
                assert_eq!(q.len(), 4);
                let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
                assert!((norm - 1.0).abs() < 1e-5, "{key}");
            }
        }
    }

    #[test]
    fn a_source_without_a_body_is_refused_with_the_reason() {
        use crate::import::scene::{scene_animation, NodeBody, SceneClip, SceneNode, Trs};
        let mut metadata = Map::new();
        metadata.insert("name".to_owned(), json!("Prop"));
        let scene = SceneClip {
            id: "converted:prop".to_owned(),
            metadata,
            duration_ticks: 2,
            mode: PlaybackMode::Once,
            loop_delay_ticks: 0,
            to_player: glam::Affine3A::IDENTITY,
            nodes: vec![SceneNode {
                name: "spinner".to_owned(),
                source: "/nodes/0".to_owned(),
                parent: None,
                body: NodeBody::Anchor,
                frames: vec![Trs::IDENTITY; 3],
                visible: Vec::new(),
            }],
            events: Vec::new(),
            textures: Vec::new(),
        };
        let imported = scene_animation(&scene).expect("builds");
        let error = anim_clip(&imported).expect_err("no body");
        assert!(error.contains("not a body"), "{error}");
    }
}
