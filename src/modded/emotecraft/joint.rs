//! One joint's PlayerAnimator axes from its frames: the offsets thinned
//! axis by axis, the turn and the bend thinned as a viewer reads them,
//! and a looped spin split at the seam (the module `bones` has the model).

use std::f32::consts::{PI, TAU};

use glam::{DQuat, Quat, Vec2};

use super::animation::{Axis, Keyframe, Part};
use super::axes::{axes_of, ANGLE_TOLERANCE_RADIANS, OFFSET_TOLERANCE_PX};
use super::composite::{fit_group, Group};
use super::euler::{compose, continuous_angles, nearest_angles, turn_between, unwrap_near};
use super::fit::fit_keys;
use crate::anim::bones::{BodyJoint, JointFrame};

/// How the cycle the keys describe ends.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cycle {
    /// The ticks after frame D of a loop's delay that must still show it.
    pub(crate) held_ticks: usize,
    /// Whether PlayerAnimator goes on from the last key to the first
    /// (`loop`, `server_sync`).
    pub(crate) looped: bool,
    /// A loop with no delay: tick D shows the next cycle's frame 0.
    pub(crate) tight_loop: bool,
}

/// One joint's part: its offsets thinned axis by axis, its turn and its
/// bend thinned as the viewer reads them ([`super::composite`]).
pub(crate) fn joint_part(
    joint: BodyJoint,
    bends: bool,
    frames: &[&JointFrame],
    cycle: Cycle,
) -> Part {
    let mut part = Part::still(joint.name());
    let samples: Vec<[f32; 8]> = frames.iter().map(|f| axes_of(f)).collect();
    let rest = axes_of(&JointFrame::rest(joint, bends));
    for (a, axis) in part.axes.iter_mut().enumerate().take(3) {
        let mut values: Vec<f32> = samples.iter().map(|s| s[a]).collect();
        hold_through_delay(&mut values, cycle.held_ticks, OFFSET_TOLERANCE_PX);
        // An axis the emote never moves from rest is left to the vanilla
        // model, as Emotecraft's own emotes leave it.
        if values
            .iter()
            .any(|v| (v - rest[a]).abs() > OFFSET_TOLERANCE_PX)
        {
            *axis = Axis {
                enabled: true,
                keyframes: fit_keys(&values, OFFSET_TOLERANCE_PX),
            };
        }
    }
    let turns: Vec<DQuat> = frames.iter().map(|f| model_turn(f.rotation)).collect();
    for (slot, axis) in part.axes[3..6].iter_mut().zip(turn_axes(&turns, cycle)) {
        *slot = axis;
    }
    if bends && part.axes.len() >= 8 {
        for (slot, axis) in part.axes[6..8].iter_mut().zip(bend_axes(&samples, cycle)) {
            *slot = axis;
        }
    }
    part
}

/// A joint's turn in the model's frame, `C·R·C`.
fn model_turn(rotation: Quat) -> DQuat {
    let half_turn_x = DQuat::from_rotation_x(std::f64::consts::PI);
    let r = rotation.as_f64();
    (half_turn_x * r * half_turn_x).normalize()
}

/// The pitch, yaw and roll axes of a joint turning through `turns`
/// (one per frame): angles chosen continuous tick to tick ([`super::euler`]),
/// thinned so the three read together stay within
/// [`ANGLE_TOLERANCE_RADIANS`] of every frame's turn, and split at a
/// loop's seam (module docs).
fn turn_axes(turns: &[DQuat], cycle: Cycle) -> [Axis; 3] {
    let Some(&first) = turns.first() else {
        return Default::default();
    };
    if turns
        .iter()
        .all(|t| turn_between(*t, DQuat::IDENTITY) <= f64::from(ANGLE_TOLERANCE_RADIANS))
    {
        return Default::default();
    }
    let mut turns = turns.to_vec();
    let mut angles = continuous_angles(&turns, [0.0; 3]);
    let d = angles.len() - 1;
    if cycle.tight_loop && d >= 1 {
        // Tick D shows the next cycle's first frame.
        turns[d] = first;
        angles[d] = nearest_angles(first, angles[d - 1]);
    }
    let last = (turns[d], angles[d]);
    if cycle.looped && turn_between(last.0, first) > HELD_TURN_RADIANS {
        turns.extend(std::iter::repeat_n(last.0, cycle.held_ticks));
        angles.extend(std::iter::repeat_n(last.1, cycle.held_ticks));
    }
    let values: Vec<Vec<f32>> = (0..3)
        .map(|a| angles.iter().map(|t| t[a] as f32).collect())
        .collect();
    let mut axes: [Axis; 3] = fit_angles(&values, |tick, read| {
        let read = [read[0], read[1], read[2]].map(f64::from);
        turn_between(compose(read), turns[tick])
    });
    if cycle.looped {
        let end = *angles.last().unwrap_or(&angles[0]);
        // The first turn as the angles nearest the last: the next cycle
        // starts there (a turn that kept going, or the other triple), with
        // angles that stay off unchanged.
        let mut seam = nearest_angles(first, end);
        let off_moves = axes
            .iter()
            .zip(seam.iter().zip(angles[0]))
            .any(|(axis, (s, a))| !axis.enabled && (s - a).abs() > 1e-6);
        if off_moves {
            seam = [0, 1, 2].map(|a| unwrap_near(angles[0][a], end[a]));
        }
        for (axis, value) in axes.iter_mut().zip(seam) {
            split_at_seam(axis, value as f32);
        }
    }
    axes
}

/// The bend's axis and angle (a bending part's last two axes), thinned so
/// the bend as a vector (`angle · (cos axis, sin axis)`) stays within
/// [`ANGLE_TOLERANCE_RADIANS`] of every frame's.
fn bend_axes(samples: &[[f32; 8]], cycle: Cycle) -> [Axis; 2] {
    let mut values: Vec<Vec<f32>> = (6..8)
        .map(|a| samples.iter().map(|s| s[a]).collect())
        .collect();
    for v in &mut values {
        unwrap_angles(v);
    }
    let vector = |axis: f32, angle: f32| Vec2::new(axis.cos(), axis.sin()) * angle;
    let mut targets: Vec<Vec2> = samples.iter().map(|s| vector(s[6], s[7])).collect();
    let (Some(&first), Some(&last)) = (targets.first(), targets.last()) else {
        return Default::default();
    };
    if cycle.looped && first.distance(last) > ANGLE_TOLERANCE_RADIANS {
        targets.extend(std::iter::repeat_n(last, cycle.held_ticks));
        for v in &mut values {
            let end = v.last().copied().unwrap_or(0.0);
            v.extend(std::iter::repeat_n(end, cycle.held_ticks));
        }
    }
    let mut axes: [Axis; 2] = fit_angles(&values, |tick, read| {
        f64::from(vector(read[0], read[1]).distance(targets[tick]))
    });
    if cycle.looped {
        for (axis, v) in axes.iter_mut().zip(&values) {
            if let (Some(&start), Some(&end)) = (v.first(), v.last()) {
                let seam = unwrap_near(f64::from(start), f64::from(end)) as f32;
                split_at_seam(axis, seam);
            }
        }
    }
    axes
}

/// `N` angle axes (rest 0) thinned as one group ([`fit_group`]), each
/// within [`ANGLE_TOLERANCE_RADIANS`] and read together within it by
/// `stray`; an axis starts off when it never leaves rest.
fn fit_angles<const N: usize>(
    values: &[Vec<f32>],
    stray: impl Fn(usize, &[f32]) -> f64,
) -> [Axis; N] {
    let enabled = values
        .iter()
        .map(|v| v.iter().any(|x| x.abs() > ANGLE_TOLERANCE_RADIANS))
        .collect();
    let (keys, enabled) = fit_group(
        Group {
            values,
            enabled,
            rest: &[0.0; N],
            axis_tolerance: ANGLE_TOLERANCE_RADIANS,
            group_tolerance: f64::from(ANGLE_TOLERANCE_RADIANS),
        },
        stray,
    );
    let mut axes: [Axis; N] = std::array::from_fn(|_| Axis::default());
    for ((axis, keyframes), on) in axes.iter_mut().zip(keys).zip(enabled) {
        *axis = Axis {
            enabled: on,
            keyframes,
        };
    }
    axes
}

/// For a looped axis whose angle went on by whole turns: a key ahead of
/// the first, at its tick, holding `seam` (the first value one turn on).
/// PlayerAnimator reads the last key at or before a tick, so the first
/// cycle and every tick after it read the first key as before; only the
/// step from the end of a cycle toward the next one's first key reads
/// this one, and goes on turning the way it went, as PlayerAnimator's own
/// JSON reader does with a move's `turn`.
fn split_at_seam(axis: &mut Axis, seam: f32) {
    let Some(first) = axis.keyframes.first().copied() else {
        return;
    };
    if axis.enabled && (seam - first.value).abs() > SEAM_SPLIT_RADIANS {
        axis.keyframes.insert(
            0,
            Keyframe {
                value: seam,
                ..first
            },
        );
    }
}

/// A loop's first and last turn this close need no key to hold the last.
const HELD_TURN_RADIANS: f64 = 1e-4;
/// A seam this far from the first key's value gets a key of its own.
const SEAM_SPLIT_RADIANS: f32 = 1e-4;

/// Holds the last value `held_ticks` more ticks when it is not the first
/// one: PlayerAnimator goes from the last key toward the next cycle's
/// first, so a loop delay after a frame `D` unlike frame 0 needs a key at
/// the delay's last tick to hold `D` as schema 4 does (one that ends
/// where it began holds anyway, with no more keys).
fn hold_through_delay(values: &mut Vec<f32>, held_ticks: usize, tolerance: f32) {
    let (Some(&first), Some(&last)) = (values.first(), values.last()) else {
        return;
    };
    if (last - first).abs() > tolerance {
        values.extend(std::iter::repeat_n(last, held_ticks));
    }
}

/// Moves each angle by whole turns to within half a turn of the one before.
fn unwrap_angles(values: &mut [f32]) {
    for i in 1..values.len() {
        let previous = values[i - 1];
        let mut value = values[i];
        while value - previous > PI {
            value -= TAU;
        }
        while previous - value > PI {
            value += TAU;
        }
        values[i] = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_are_unwrapped_across_a_half_turn() {
        let mut values = [3.0, -3.1, 3.0];
        unwrap_angles(&mut values);
        assert!((values[1] - (TAU - 3.1)).abs() < 1e-5, "{values:?}");
        assert!((values[2] - 3.0).abs() < 1e-5);
    }
}
