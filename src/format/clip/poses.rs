//! Version 1: whole poses at keyframes, turned into per-joint curves.
//!
//! Each keyframe is `{ time, poses }`, `poses` a table of joint name to
//! pose; keyframe times follow the key rules (never back, at most two
//! equal). A joint moves between the keyframes that have a pose for it.
//! A pose's `easing` (linear when left out; `constant` holds like
//! `step`; else one of the ten families) and `direction` (`inOut` when
//! left out) shape the way to the joint's next pose. Everything a pose
//! leaves out is the rest, so every joint gets a rotation and a position
//! channel and a keyed weight. Its rotation keys are Euler angles when
//! every pose of the joint gives `angles` (or nothing); when any gives a
//! quaternion `rotation`, the joint's angles are turned into quaternions
//! in the default `yxz` order (version 1 has no `euler`).

use std::collections::BTreeMap;

use glam::{Quat, Vec3};
use serde_json::Value;

use super::keys::{check_times, quaternion, seconds, DIRECTIONS, INTERPOLATIONS};
use super::types::{
    ClipJoint, EaseDirection, EulerOrder, Interpolation, JointTarget, JointWeight, Key,
    RotationChannel,
};
use crate::format::problem::{field, index, JsonPointer, Problems};
use crate::format::read::{self, Obj};

/// One joint's pose at one keyframe.
struct Pose {
    time_secs: f32,
    position: Vec3,
    turn: Turn,
    interpolation: Interpolation,
    direction: EaseDirection,
    weight: f32,
}

enum Turn {
    Angles(Vec3),
    Quaternion(Quat),
}

/// Reads `keyframes` into joints (sorted by name).
pub(crate) fn read_keyframes(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Vec<ClipJoint> {
    let Some(items) = value.as_array() else {
        problems.error(
            pointer,
            format!("`keyframes` must be a list, found {}", read::kind_of(value)),
        );
        return Vec::new();
    };
    let mut by_joint: BTreeMap<String, Vec<Pose>> = BTreeMap::new();
    let mut times = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let kp = index(pointer, i);
        let Some(mut obj) = Obj::new(item, &kp, problems, "a keyframe") else {
            times.push(None);
            continue;
        };
        let time = obj
            .req("time", problems)
            .and_then(|(v, p)| seconds(v, &p, problems, "a keyframe's `time`"));
        times.push(time);
        if let Some((v, pp)) = obj.req("poses", problems) {
            if let Some(poses) = Obj::new(v, &pp, problems, "`poses`") {
                for (name, pose) in poses.entries() {
                    let p = field(&pp, name);
                    if name.is_empty() {
                        problems.error(&p, "a joint name must not be empty");
                        continue;
                    }
                    if let (Some(pose), Some(time)) = (read_pose(pose, &p, problems), time) {
                        by_joint.entry(name.clone()).or_default().push(Pose {
                            time_secs: time,
                            ..pose
                        });
                    }
                }
            }
        }
        obj.finish(problems, &["time", "poses"]);
    }
    check_times(&times, problems, &|i, problems, message| {
        problems.error(&field(&index(pointer, i), "time"), message)
    });
    by_joint
        .into_iter()
        .map(|(name, poses)| joint_of(name, &poses))
        .collect()
}

fn read_pose(value: &Value, pointer: &dyn JsonPointer, problems: &mut Problems) -> Option<Pose> {
    let mut obj = Obj::new(value, pointer, problems, "a pose")?;
    let before = problems.error_count();
    let position = obj
        .opt("position")
        .and_then(|(v, p)| read::vec3(v, &p, problems, "a pose's `position`"))
        .unwrap_or(Vec3::ZERO);
    let rotation = obj
        .opt("rotation")
        .and_then(|(v, p)| quaternion(v, &p, problems, "a pose's `rotation`"));
    let angles = obj
        .opt("angles")
        .and_then(|(v, p)| read::vec3(v, &p, problems, "a pose's `angles`"));
    let turn = match (rotation, angles) {
        (Some(q), _) => Turn::Quaternion(q),
        (None, Some(a)) => Turn::Angles(a),
        (None, None) => Turn::Angles(Vec3::ZERO),
    };
    let interpolation = match obj.opt("easing") {
        Some((v, p)) if v.as_str() == Some("constant") => {
            let _ = p;
            Interpolation::Step
        }
        Some((v, p)) => {
            let names: Vec<(&str, Interpolation)> = INTERPOLATIONS
                .iter()
                .copied()
                .filter(|(_, i)| matches!(i, Interpolation::Linear | Interpolation::Ease(_)))
                .collect();
            read::one_of(
                v,
                &p,
                problems,
                "a pose's `easing` (linear, constant or a family)",
                &names,
            )
            .unwrap_or(Interpolation::Linear)
        }
        None => Interpolation::Linear,
    };
    let direction = obj
        .opt("direction")
        .and_then(|(v, p)| read::one_of(v, &p, problems, "a pose's `direction`", &DIRECTIONS))
        .unwrap_or(EaseDirection::InOut);
    let weight = obj
        .opt_number_in_range("weight", problems, 0.0..=1.0, "must be from 0 to 1")
        .unwrap_or(1.0);
    obj.finish(
        problems,
        &[
            "position",
            "rotation",
            "angles",
            "easing",
            "direction",
            "weight",
        ],
    );
    (problems.error_count() == before).then_some(Pose {
        time_secs: 0.0,
        position,
        turn,
        interpolation,
        direction,
        weight,
    })
}

fn key<V>(pose: &Pose, value: V) -> Key<V> {
    Key {
        time_secs: pose.time_secs,
        value,
        interpolation: pose.interpolation,
        ease: pose.direction,
        handle_in: None,
        handle_out: None,
    }
}

fn joint_of(name: String, poses: &[Pose]) -> ClipJoint {
    let any_quaternion = poses.iter().any(|p| matches!(p.turn, Turn::Quaternion(_)));
    let rotation = if any_quaternion {
        RotationChannel::Quaternion(
            poses
                .iter()
                .map(|p| match p.turn {
                    Turn::Quaternion(q) => key(p, q),
                    Turn::Angles(a) => key(p, EulerOrder::Yxz.quat_from_degrees(a)),
                })
                .collect(),
        )
    } else {
        RotationChannel::Euler(
            poses
                .iter()
                .map(|p| match p.turn {
                    Turn::Angles(a) => key(p, a),
                    Turn::Quaternion(_) => key(p, Vec3::ZERO),
                })
                .collect(),
        )
    };
    ClipJoint {
        name,
        target: JointTarget::Unmatched,
        rotation: Some(rotation),
        position: Some(poses.iter().map(|p| key(p, p.position)).collect()),
        scale: None,
        weight: JointWeight::Keyed(
            poses
                .iter()
                .map(|p| key(p, Vec3::splat(p.weight)))
                .collect(),
        ),
        muted: false,
        rotation_modifiers: Vec::new(),
        position_modifiers: Vec::new(),
    }
}
