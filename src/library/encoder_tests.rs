//! The STREAM writer's per-joint fitting (`modded::emotecraft::joint`),
//! read back by PlayerAnimator's own rules (`import::playeranimator`):
//! a looped spin goes on through the seam, and a turn through gimbal lock
//! stays within the writer's tolerance. Here because `library` may name
//! both `modded` and `import`; they must not name each other both ways.

use std::f32::consts::{PI, TAU};

use glam::Quat;

use crate::anim::bones::{BodyJoint, JointFrame};
use crate::import::playeranimator::joint_axes_at;
use crate::modded::emotecraft::animation::{BoneAnimation, Part};
use crate::modded::emotecraft::bones::ANGLE_TOLERANCE_RADIANS;
use crate::modded::emotecraft::joint::{joint_part, Cycle};

/// The right arm's frames over `ticks + 1` ticks, turned by `turn(tick)`
/// in the player's frame.
fn arm_frames(ticks: usize, turn: impl Fn(f32) -> Quat) -> Vec<JointFrame> {
    (0..=ticks)
        .map(|t| JointFrame {
            rotation: turn(t as f32),
            ..JointFrame::rest(BodyJoint::RightArm, false)
        })
        .collect()
}

/// PlayerAnimator's turn of the right arm at `tick`, `part` its only part.
fn played_turn(part: &Part, end_tick: i32, looped: bool, tick: i64) -> Quat {
    let animation = BoneAnimation {
        begin_tick: 0,
        end_tick,
        stop_tick: end_tick,
        is_looped: looped,
        return_tick: 0,
        easing_before: false,
        nsfw: false,
        parts: vec![part.clone()],
        uuid: uuid::Uuid::nil(),
    };
    let axes = joint_axes_at(&animation, tick).expect("finite")[&BodyJoint::RightArm];
    let [pitch, yaw, roll] = [axes[3], axes[4], axes[5]];
    let model =
        Quat::from_rotation_z(roll) * Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch);
    let half_turn_x = Quat::from_rotation_x(PI);
    half_turn_x * model * half_turn_x
}

#[test]
fn a_looped_spin_goes_on_through_the_seam() {
    // A full turn about the player's Y in 20 ticks, looped with no
    // delay: tick 20 is the next cycle's tick 0. Linear in yaw, so
    // the fit keeps the ends; without the split the last stretch
    // would go back to the first key's yaw, and the arm would stand.
    let frames = arm_frames(20, |t| Quat::from_rotation_y(TAU * t / 20.0));
    let refs: Vec<&JointFrame> = frames.iter().collect();
    let cycle = Cycle {
        held_ticks: 0,
        looped: true,
        tight_loop: true,
    };
    let part = joint_part(BodyJoint::RightArm, false, &refs, cycle);
    let yaw = &part.axes[4].keyframes;
    assert_eq!(yaw.first().map(|k| k.tick), Some(0));
    assert_eq!(
        yaw.get(1).map(|k| k.tick),
        Some(0),
        "two keys at tick 0: {yaw:?}"
    );
    assert!((yaw[0].value.abs() - TAU).abs() < 1e-4, "{yaw:?}");
    for tick in 0..20 {
        let played = played_turn(&part, 19, true, tick);
        let want = frames[tick as usize].rotation;
        assert!(played.angle_between(want) < 0.01, "tick {tick}");
    }
}

#[test]
fn a_turn_through_gimbal_lock_stays_within_tolerance_between_keys() {
    // The arm raised forward, then swung out through yaw 90° while it
    // rolls: every tick read back within the tolerance.
    let frames = arm_frames(40, |t| {
        let f = t / 40.0;
        Quat::from_rotation_y(2.6 * f)
            * Quat::from_rotation_x(-0.4 - f)
            * Quat::from_rotation_z(0.7 * f)
    });
    let refs: Vec<&JointFrame> = frames.iter().collect();
    let cycle = Cycle {
        held_ticks: 0,
        looped: false,
        tight_loop: false,
    };
    let part = joint_part(BodyJoint::RightArm, false, &refs, cycle);
    for tick in 0..=40 {
        let played = played_turn(&part, 40, false, tick);
        let gap = played.angle_between(frames[tick as usize].rotation);
        assert!(
            gap <= ANGLE_TOLERANCE_RADIANS + 1e-3,
            "tick {tick}: {}°",
            gap.to_degrees()
        );
    }
}
