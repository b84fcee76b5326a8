//! A part's turn as PlayerAnimator's three angles, chosen tick by tick so
//! that each angle moves as little as it can.
//!
//! # Why the choice matters
//! PlayerAnimator turns a part by `R_z(roll) · R_y(yaw) · R_x(pitch)` (in
//! the model's frame, [`super::bones`]) and interpolates each of the three
//! angles on its own. Every turn has many such triples: each angle may
//! move by whole turns, and `(pitch + π, π − yaw, roll + π)` is the same
//! turn as `(pitch, yaw, roll)`. Near `yaw = ±90°` (gimbal lock) the
//! triples even form a family: there only `roll − pitch` (at +90°) or
//! `roll + pitch` (at −90°) matters, and a tiny change of the turn can
//! move pitch and roll by a lot. A textbook decomposition picks yaw in
//! `[−90°, 90°]`, so a turn that passes yaw 90° flips pitch and roll by
//! half a turn between two ticks, and a turn held at yaw 90° comes out
//! with pitch and roll that wander at random: the viewer, who
//! interpolates the angles apart, sees the part swing through other
//! poses.
//!
//! # The choice
//! [`nearest_angles`] takes the turn at this tick and the angles chosen
//! at the tick before. Of the two exact solutions, each angle moved by
//! whole turns toward the previous one, it keeps the closer (squared
//! distance summed over the three angles); near gimbal lock it then
//! slides that triple along the family, roll taking up the change, to
//! bring pitch back toward the previous pitch as far as the turn stays
//! within [`DECOMPOSE_TOLERANCE_RADIANS`] of exact. So a turn through
//! yaw 90° keeps going (yaw 100°, not 80° with pitch and roll flipped),
//! a turn held at yaw 90° keeps its pitch (the roll moves, as an author
//! keys a wave at yaw 90°), and angles go past ±180° unwrapped. The same call gives the seam of a loop: the
//! first tick's turn as the triple nearest the last tick's.
//!
//! The math is in `f64`: in `f32` an angle between two turns is only
//! known to about 0.04°, too coarse for the budget above.

use std::f64::consts::{PI, TAU};

use glam::{DMat3, DQuat};

/// How far a triple slid along the gimbal family may turn the part from
/// the exact turn: 0.02°.
pub const DECOMPOSE_TOLERANCE_RADIANS: f64 = 0.02 * PI / 180.0;

/// Angles `[pitch, yaw, roll]` in radians, the model's `R_z(roll) ·
/// R_y(yaw) · R_x(pitch)`.
pub type Angles = [f64; 3];

/// The turn `angles` stand for.
pub fn compose(angles: Angles) -> DQuat {
    let [pitch, yaw, roll] = angles;
    DQuat::from_rotation_z(roll) * DQuat::from_rotation_y(yaw) * DQuat::from_rotation_x(pitch)
}

/// The angle between two turns, in radians (`q` and `−q` are the same
/// turn), accurate for small angles too.
pub fn turn_between(a: DQuat, b: DQuat) -> f64 {
    let d = a.conjugate() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

/// The exact triple of `turn` whose yaw is in `[−90°, 90°]`; at gimbal
/// lock, the one with pitch 0.
fn principal(turn: DQuat) -> Angles {
    let m = DMat3::from_quat(turn.normalize());
    // Row 2 is (−sin yaw, cos yaw · sin pitch, cos yaw · cos pitch); column
    // 0 is cos yaw · (cos roll, sin roll, ·).
    let sin_yaw = (-m.x_axis.z).clamp(-1.0, 1.0);
    let yaw = sin_yaw.asin();
    let cos_pitch_part = m.y_axis.z.hypot(m.z_axis.z);
    if cos_pitch_part > 1e-12 {
        let pitch = m.y_axis.z.atan2(m.z_axis.z);
        let roll = m.x_axis.y.atan2(m.x_axis.x);
        [pitch, yaw, roll]
    } else if sin_yaw > 0.0 {
        // R_z(roll − pitch) · R_y(90°): row 1 is (0, cos s, sin s).
        [0.0, PI / 2.0, m.z_axis.y.atan2(m.y_axis.y)]
    } else {
        // R_z(roll + pitch) · R_y(−90°): row 1 is (0, cos s, −sin s).
        [0.0, -PI / 2.0, (-m.z_axis.y).atan2(m.y_axis.y)]
    }
}

/// `value` moved by whole turns to within half a turn of `near`.
pub fn unwrap_near(value: f64, near: f64) -> f64 {
    value + TAU * ((near - value) / TAU).round()
}

fn distance(a: Angles, b: Angles) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// The triple of `turn` nearest `previous` (module docs).
pub fn nearest_angles(turn: DQuat, previous: Angles) -> Angles {
    let turn = turn.normalize();
    let [p, y, r] = principal(turn);
    let exact = [[p, y, r], [p + PI, PI - y, r + PI]].map(|solution| {
        [
            unwrap_near(solution[0], previous[0]),
            unwrap_near(solution[1], previous[1]),
            unwrap_near(solution[2], previous[2]),
        ]
    });
    let [a, b] = exact;
    let nearest = if distance(b, previous) < distance(a, previous) {
        b
    } else {
        a
    };
    // Sliding costs a little accuracy: only worth it near gimbal lock,
    // where it brings pitch back by more than SLIDE_GAIN_RADIANS.
    let slid = slid(turn, nearest, previous);
    if (slid[0] - previous[0]).abs() + SLIDE_GAIN_RADIANS < (nearest[0] - previous[0]).abs() {
        slid
    } else {
        nearest
    }
}

/// The least a slide along the gimbal family must bring pitch back.
const SLIDE_GAIN_RADIANS: f64 = 1e-3;

/// `exact` slid along the gimbal family (pitch and roll together, the
/// same way at yaw +90°, opposite ways at −90°) toward the previous
/// pitch, as far as the turn stays within [`DECOMPOSE_TOLERANCE_RADIANS`]
/// of `turn`.
fn slid(turn: DQuat, exact: Angles, previous: Angles) -> Angles {
    let sign = exact[1].sin().signum();
    // The step along (1, 0, sign) that brings pitch back.
    let full = previous[0] - exact[0];
    let at = |t: f64| [exact[0] + t, exact[1], exact[2] + sign * t];
    let fits = |t: f64| turn_between(compose(at(t)), turn) <= DECOMPOSE_TOLERANCE_RADIANS;
    if fits(full) {
        return at(full);
    }
    // The error grows with the step: bisect for the largest that fits.
    let (mut good, mut bad) = (0.0, full);
    for _ in 0..24 {
        let mid = (good + bad) / 2.0;
        if fits(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    at(good)
}

/// The triples of `turns`, tick by tick from `start` (module docs).
pub fn continuous_angles(turns: &[DQuat], start: Angles) -> Vec<Angles> {
    let mut previous = start;
    turns
        .iter()
        .map(|&turn| {
            previous = nearest_angles(turn, previous);
            previous
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEGREE: f64 = PI / 180.0;

    fn assert_exact(angles: Angles, turn: DQuat) {
        let gap = turn_between(compose(angles), turn);
        assert!(
            gap <= DECOMPOSE_TOLERANCE_RADIANS * 1.01,
            "{angles:?}: {gap}"
        );
    }

    #[test]
    fn a_turn_away_from_gimbal_lock_is_its_own_angles() {
        let angles = [0.3, -0.7, 1.1];
        let got = nearest_angles(compose(angles), [0.0; 3]);
        for (g, a) in got.iter().zip(angles) {
            assert!((g - a).abs() < 1e-9, "{got:?}");
        }
    }

    #[test]
    fn a_yaw_turn_past_ninety_degrees_keeps_going_without_a_flip() {
        // Yaw 0 → 360° with a little pitch and roll: a textbook
        // decomposition turns back at 90° and flips pitch and roll.
        let turns: Vec<DQuat> = (0..=72)
            .map(|i| compose([0.1, f64::from(i) * 5.0 * DEGREE, -0.2]))
            .collect();
        let angles = continuous_angles(&turns, [0.0; 3]);
        for (i, (a, turn)) in angles.iter().zip(&turns).enumerate() {
            assert_exact(*a, *turn);
            let yaw = f64::from(i as u32) * 5.0 * DEGREE;
            assert!((a[1] - yaw).abs() < 1e-6, "tick {i}: {a:?}");
            assert!(
                (a[0] - 0.1).abs() < 1e-6 && (a[2] + 0.2).abs() < 1e-6,
                "{a:?}"
            );
        }
    }

    #[test]
    fn a_turn_held_at_gimbal_lock_keeps_its_pitch() {
        // Yaw 90° (exactly, and a hair off), roll swinging: only roll −
        // pitch is fixed, and the choice keeps pitch where it was.
        for yaw in [90.0 * DEGREE, 90.0 * DEGREE - 1e-5, 90.0 * DEGREE + 3e-4] {
            let turns: Vec<DQuat> = (0..=40)
                .map(|i| {
                    compose([
                        0.0,
                        yaw,
                        (95.0 + 90.0 * (f64::from(i) * 0.3).sin()) * DEGREE,
                    ])
                })
                .collect();
            let angles = continuous_angles(&turns, [0.0; 3]);
            for (a, turn) in angles.iter().zip(&turns) {
                assert_exact(*a, *turn);
                assert!(a[0].abs() < 0.01, "pitch stays put: {a:?}");
            }
        }
        // At −90° the family is roll + pitch.
        let turn = compose([0.4, -90.0 * DEGREE, 0.9]);
        let got = nearest_angles(turn, [0.4, -1.5, 0.0]);
        assert_exact(got, turn);
        assert!((got[0] - 0.4).abs() < 1e-6, "{got:?}");
    }

    #[test]
    fn the_seam_of_a_full_turn_is_the_first_turn_one_turn_on() {
        let first = compose([0.0, 0.0, 0.0]);
        let seam = nearest_angles(first, [0.02, -6.2, -0.01]);
        assert!(
            (seam[1] + TAU).abs() < 1e-9 && seam[0].abs() < 1e-9,
            "{seam:?}"
        );
        assert_eq!(unwrap_near(0.5, 7.0), 0.5 + TAU);
    }
}
