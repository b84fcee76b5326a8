//! Emotecraft JSON emotes end to end: the JSON read into PlayerAnimator's
//! keyframes (first) → schema 4 on the humanoid rig → `emoted`'s own
//! sample of that file, as the STREAM writer turns it into keyframes
//! (second) → both evaluated by PlayerAnimator's rules at every tick:
//! joint by joint ([`joint_axes_at`]) for an emote without a `body`
//! part, and as whole poses in the player's frame ([`body_clip`], each
//! joint carried by the whole-body transform) for every emote, since the
//! writer may say a whole-body move with the joints instead. (Here rather
//! than in `import`, which does not name the library.)

use std::collections::BTreeMap;
use std::f32::consts::PI;
use std::path::{Path, PathBuf};

use glam::{Affine3A, DVec2, Quat, Vec2, Vec3};
use serde_json::Map;
use uuid::Uuid;

use crate::anim::bones::{upper_parts_turn, Bend, BodyJoint};
use crate::format::AnimationFile;
use crate::import::emotecraft_json::{convert, read_emote};
use crate::import::playeranimator::{body_clip, joint_axes_at};
use crate::import::ConvertOptions;
use crate::library::bones::{bone_form, BoneForm};
use crate::library::CompiledAnimation;
use crate::modded::emotecraft::animation::BoneAnimation;
use crate::modded::emotecraft::bones::{
    bone_animation, ANGLE_TOLERANCE_RADIANS, OFFSET_TOLERANCE_PX,
};
use crate::modded::emotecraft::euler::turn_between;

/// How far the second evaluation may be from the first: 0.5°, issue
/// 28's bound. Two thinnings stand between them: the import's, within
/// 0.25° (the body's tolerance), and the STREAM writer's, which
/// [`check_writer`] holds to its own 0.2° alone.
const ROUND_TRIP_PX: f32 = 0.35;
const ROUND_TRIP_DEGREES: f32 = 0.5;

/// The keyframes the STREAM writer makes of `file` (`emoted`'s sampler),
/// and the bone form it made them from.
fn stream_of(file: &AnimationFile) -> (BoneAnimation, BoneForm) {
    let compiled = CompiledAnimation::compile(file).expect("compiles");
    let form = bone_form(&compiled, file)
        .expect("samples")
        .expect("a body emote");
    (bone_animation(&form, Uuid::nil()), form)
}

/// The STREAM writer's own stage: PlayerAnimator's evaluation of the
/// keyframes against the bone form they were made from, frame by frame
/// (both PlayerAnimator's own frames: the head and arms without the torso
/// bend's carry). The writer promises its tolerances here: each turn and
/// bend within [`ANGLE_TOLERANCE_RADIANS`] (0.5°), each pivot offset
/// within [`OFFSET_TOLERANCE_PX`] (rounding to the `f32` keys aside).
fn check_writer(name: &str, form: &BoneForm, written: &BoneAnimation) {
    let (clip, _) = body_clip(written, "test:written", Map::new()).expect("evaluates");
    let bend = |b: Option<Bend>| {
        b.map_or(DVec2::ZERO, |b| {
            DVec2::new(
                f64::from(b.axis_radians).cos(),
                f64::from(b.axis_radians).sin(),
            ) * f64::from(b.angle_radians)
        })
    };
    let rounding = 1e-5;
    for (tick, (frames, pose)) in form.frames.iter().zip(&clip.poses).enumerate() {
        for ((joint, _), frame) in form.joints.iter().zip(frames) {
            let Some(read) = pose.joints.get(joint) else {
                continue;
            };
            let turn = turn_between(frame.rotation.as_f64(), read.rotation.as_f64());
            let bent = bend(frame.bend).distance(bend(read.bend));
            let px = (frame.pivot - read.pivot).abs().max_element() * 16.0;
            assert!(
                turn.max(bent) <= f64::from(ANGLE_TOLERANCE_RADIANS) + rounding
                    && px <= OFFSET_TOLERANCE_PX + 1e-3,
                "{name} tick {tick} {}: the writer's keys read {read:?} for {frame:?} \
                 ({:.3}° turn, {:.3}° bend, {px:.3} px)",
                joint.name(),
                turn.to_degrees(),
                bent.to_degrees()
            );
        }
    }
}

/// `a − b` as an angle in [0, π].
fn angle_gap(a: f32, b: f32) -> f32 {
    let d = (a - b).rem_euclid(2.0 * PI);
    d.min(2.0 * PI - d)
}

/// The largest gaps between two joints' axes: offsets in pixels, angles
/// in radians (a bend as the vector `angle · (cos axis, sin axis)`).
fn gaps(a: &[f32; 8], b: &[f32; 8]) -> (f32, f32) {
    let offset = (0..3).map(|i| (a[i] - b[i]).abs()).fold(0.0, f32::max);
    let turn = (3..6).map(|i| angle_gap(a[i], b[i])).fold(0.0, f32::max);
    let bend = |v: &[f32; 8]| glam::Vec2::new(v[6].cos(), v[6].sin()) * v[7];
    (offset, turn.max(bend(a).distance(bend(b))))
}

/// One joint in the player's frame: pivot (blocks), turn, bend vector.
type WorldJoint = (Vec3, Quat, Vec2);

/// PlayerAnimator's poses of `animation` as a viewer sees them, tick by
/// tick: every joint carried by the whole-body transform, and the head
/// and arms also by the torso bend's turn about the waist
/// ([`upper_parts_turn`]), which PlayerAnimator applies in the model's
/// frame, inside the whole-body transform. (The two do not commute: a
/// body turned 90° with its torso bent carries the upper parts
/// elsewhere than the same bend with no turn.)
fn world_poses(animation: &BoneAnimation) -> Vec<BTreeMap<BodyJoint, WorldJoint>> {
    let (clip, _) = body_clip(animation, "test:pose", Map::new()).expect("evaluates");
    clip.poses
        .iter()
        .map(|pose| {
            let body = pose.body.unwrap_or(Affine3A::IDENTITY);
            let torso_bend = pose
                .joints
                .get(&BodyJoint::Torso)
                .and_then(|frame| frame.bend)
                .unwrap_or(Bend::NONE);
            let upper = body * upper_parts_turn(torso_bend);
            pose.joints
                .iter()
                .map(|(joint, frame)| {
                    let carried = match joint {
                        BodyJoint::Head | BodyJoint::RightArm | BodyJoint::LeftArm => upper,
                        BodyJoint::Torso | BodyJoint::RightLeg | BodyJoint::LeftLeg => body,
                    };
                    let (_, turn, _) = carried.to_scale_rotation_translation();
                    let bend = frame.bend.map_or(Vec2::ZERO, |b| {
                        Vec2::new(b.axis_radians.cos(), b.axis_radians.sin()) * b.angle_radians
                    });
                    let world = (
                        carried.transform_point3(frame.pivot),
                        (turn * frame.rotation).normalize(),
                        bend,
                    );
                    (*joint, world)
                })
                .collect()
        })
        .collect()
}

/// Converts `path` and checks the round trip at every tick of the
/// source's first cycle; returns the worst gaps.
fn round_trip(path: &Path) -> (f32, f32) {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).expect("reads");
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("emote");
    let first = read_emote(&bytes, stem).expect("reads").animation;
    let options = ConvertOptions {
        namespace: "test".to_owned(),
        stem: stem.to_owned(),
        ..ConvertOptions::default()
    };
    let imported = convert(&bytes, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (second, form) = stream_of(&imported[0].file);
    check_writer(&name, &form, &second);
    let (mut worst_px, mut worst_radians) = (0.0f32, 0.0f32);
    let mut first_past = None;
    for (tick, (a, b)) in world_poses(&first)
        .iter()
        .zip(world_poses(&second))
        .enumerate()
    {
        for joint in BodyJoint::ALL {
            let ((pa, qa, ba), (pb, qb, bb)) = (a[&joint], b[&joint]);
            let px = pa.distance(pb) * 16.0;
            let radians = qa.angle_between(qb).max(ba.distance(bb));
            worst_px = worst_px.max(px);
            worst_radians = worst_radians.max(radians);
            let past = px > ROUND_TRIP_PX || radians > ROUND_TRIP_DEGREES.to_radians();
            if past && first_past.is_none() {
                first_past = Some(format!(
                    "tick {tick} {} in the player's frame: {:?} became {:?}",
                    joint.name(),
                    a[&joint],
                    b[&joint]
                ));
            }
        }
    }
    let has_body = first.parts.iter().any(|p| p.name == "body");
    for tick in (0..=i64::from(first.end_tick)).filter(|_| !has_body) {
        let a = joint_axes_at(&first, tick).expect("finite");
        let b = joint_axes_at(&second, tick).expect("finite");
        for joint in BodyJoint::ALL {
            let (px, radians) = gaps(&a[&joint], &b[&joint]);
            worst_px = worst_px.max(px);
            worst_radians = worst_radians.max(radians);
            assert!(
                px <= ROUND_TRIP_PX && radians <= ROUND_TRIP_DEGREES.to_radians(),
                "{name} tick {tick} {}: {:?} became {:?}",
                joint.name(),
                a[&joint],
                b[&joint]
            );
        }
    }
    eprintln!(
        "{name}: worst {worst_px:.3} px, {:.3}°; first past the bounds: {first_past:?}",
        worst_radians.to_degrees()
    );
    (worst_px, worst_radians)
}

/// The round trip of `path` within its bounds.
fn check(path: &Path) {
    let (px, radians) = round_trip(path);
    assert!(
        px <= ROUND_TRIP_PX && radians <= ROUND_TRIP_DEGREES.to_radians(),
        "{}: {px} px, {}° past {ROUND_TRIP_PX} px, {ROUND_TRIP_DEGREES}°",
        path.display(),
        radians.to_degrees()
    );
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    name.ends_with(".json") && !name.ends_with(".schema4.json")
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn emoted_plays_the_fixtures_as_playeranimator_evaluates_them() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/emotecraft");
    let files = json_files(&dir);
    assert_eq!(files.len(), 3, "{files:?}");
    for path in files {
        check(&path);
    }
}

/// The real emotes (KosmX, CC-BY-4.0), read in place.
#[test]
fn emoted_plays_the_real_emotecraft_emotes_as_playeranimator_evaluates_them() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/import/emotecraft");
    if !dir.is_dir() {
        eprintln!("skipped: {} is not here", dir.display());
        return;
    }
    let files = json_files(&dir);
    assert_eq!(files.len(), 3, "{files:?}");
    for path in files {
        check(&path);
    }
}
