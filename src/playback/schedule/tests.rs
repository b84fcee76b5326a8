//! The scheduler on made-up paths: circles, turns, blinks and scales, and
//! property tests that every plan replays within tolerance.

use glam::{Mat4, Quat, Vec3};

use crate::anim::DisplayTransform;
use glam::EulerRot;
use proptest::prelude::*;

use super::metric::*;
use super::planner::*;
use super::replay::*;
use super::update::*;

fn frames_of(d: u32, f: impl Fn(f32) -> Option<Mat4>) -> Vec<Option<Mat4>> {
    (0..=d).map(|t| f(t as f32)).collect()
}

fn check(frames: &[Option<Mat4>]) -> Vec<DisplayUpdate> {
    let updates = plan(frames, Tolerance::default());
    verify(frames, &updates, Tolerance::default()).expect("replay within tolerance");
    for pair in updates.windows(2) {
        assert!(pair[0].send_tick < pair[1].send_tick, "{updates:?}");
        // Each update is sent when the previous one has finished.
        assert!(pair[0].target_tick < pair[1].send_tick, "{updates:?}");
    }
    for u in &updates {
        assert!(u.duration_ticks >= 1);
        assert_eq!(u.target_tick, u.send_tick + u.duration_ticks - 1);
    }
    let counts = update_counts(frames, &updates);
    assert!(counts.planned <= counts.per_tick, "{counts:?}");
    updates
}

/// A pose with every field away from the identity: scaled unevenly, turned
/// and moved.
fn still_pose() -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::new(0.5, 1.0, 0.5),
        Quat::from_rotation_x(0.3),
        Vec3::new(0.2, 1.4, 0.0),
    )
}

#[test]
fn linear_translation_is_one_stretch() {
    let frames = frames_of(20, |t| {
        Some(Mat4::from_translation(Vec3::new(0.1 * t, 0.5, -0.05 * t)))
    });
    let updates = check(&frames);
    // Tick 0's pose, then one update over the 20 ticks.
    assert_eq!(updates.len(), 2, "{updates:?}");
    assert_eq!(
        (
            updates[1].send_tick,
            updates[1].target_tick,
            updates[1].duration_ticks
        ),
        (1, 20, 20)
    );
    assert_eq!(per_tick_update_count(&frames), 21);
}

#[test]
fn eased_motion_needs_a_few_stretches() {
    // ease_in_quad over 1 block in 20 ticks: a chord of x = f² over h
    // ticks is off by at most h²/1600 blocks, so about 4 ticks a stretch.
    let frames = frames_of(20, |t| {
        let f = t / 20.0;
        Some(Mat4::from_translation(Vec3::new(f * f, 0.0, 0.0)))
    });
    let updates = check(&frames);
    assert!(updates.len() > 2 && updates.len() <= 7, "{updates:?}");
    assert_eq!(per_tick_update_count(&frames), 21);
}

#[test]
fn curved_paths_aim_past_the_chord() {
    // A point on a circle of radius 1 block, 3° a tick. A chord whose
    // ends are on the circle bulges r·(1 − cos(hθ/2)) from it, within
    // 0.01 block for at most 5 ticks: 24 stretches over 120 ticks.
    // Aiming each end past the circle by part of the bulge fits longer
    // stretches.
    let radius = 1.0f32;
    let step = 3.0f32.to_radians();
    let frames = frames_of(120, |t| {
        let angle = t * step;
        Some(Mat4::from_translation(Vec3::new(
            radius * angle.cos(),
            0.0,
            radius * angle.sin(),
        )))
    });
    let updates = check(&frames);
    let stretches = updates.len() - 1;
    assert!(stretches <= 20, "{stretches} stretches: {updates:?}");
    let off_path = updates
        .iter()
        .filter(|u| (u.transform.translation.length() - radius).abs() > 0.002)
        .count();
    assert!(off_path > 0, "every target on the path: {updates:?}");
}

#[test]
fn jittering_fields_are_not_resent() {
    // A node turning under a parent that turns too: the decomposed
    // scale jitters in its last bits from tick to tick.
    let frames = frames_of(40, |t| {
        let parent = Mat4::from_rotation_x(0.3 * t.sin()) * Mat4::from_rotation_y(0.05 * t);
        Some(
            parent
                * Mat4::from_scale_rotation_translation(
                    Vec3::splat(0.3),
                    Quat::from_rotation_z(0.2 * t),
                    Vec3::new(0.5, 0.0, 0.0),
                ),
        )
    });
    let decomposed_scales: Vec<Vec3> = frames
        .iter()
        .flatten()
        .map(|m| DisplayTransform::from_matrix(m).scale)
        .collect();
    assert!(
        decomposed_scales.windows(2).any(|w| w[0] != w[1]),
        "the test needs jitter to mean something"
    );
    let updates = check(&frames);
    assert!(updates.len() > 5);
    assert!(
        updates
            .iter()
            .all(|u| u.transform.scale == updates[0].transform.scale),
        "{updates:?}"
    );
    let counts = update_counts(&frames, &updates);
    assert!(counts.planned_bytes < counts.per_tick_bytes);
}

#[test]
fn constant_slerp_rotation_is_one_stretch() {
    let from = Quat::from_rotation_y(-1.2);
    let to = Quat::from_euler(EulerRot::XYZ, 0.4, 1.3, -0.2);
    let frames = frames_of(30, |t| {
        Some(Mat4::from_scale_rotation_translation(
            Vec3::splat(1.5),
            crate::anim::slerp(from, to, t / 30.0),
            Vec3::new(0.0, 1.0, 0.0),
        ))
    });
    let updates = check(&frames);
    assert_eq!(updates.len(), 2, "{updates:?}");
    assert_eq!(updates[1].duration_ticks, 30);
}

#[test]
fn still_pose_sends_once_at_tick_0() {
    let m = still_pose();
    let frames = vec![Some(m); 41];
    let updates = check(&frames);
    assert_eq!(updates.len(), 1);
    assert_eq!((updates[0].send_tick, updates[0].duration_ticks), (0, 1));
    assert_eq!(
        update_counts(&frames, &updates),
        UpdateCounts {
            per_tick: 1,
            planned: 1,
            // Header and start (9), duration (3), 2 vectors, 2 rotations.
            per_tick_bytes: 9 + 3 + 2 * 14 + 2 * 18,
            planned_bytes: 9 + 3 + 2 * 14 + 2 * 18,
        }
    );
}

#[test]
fn visibility_changes_split_stretches() {
    // Linear over 0..=30, hidden on ticks 10..=14.
    let frames = frames_of(30, |t| {
        (!(10.0..15.0).contains(&t)).then(|| Mat4::from_translation(Vec3::new(0.1 * t, 0.0, 0.0)))
    });
    let updates = check(&frames);
    let sends: Vec<_> = updates
        .iter()
        .map(|u| (u.send_tick, u.target_tick, u.hides()))
        .collect();
    assert_eq!(
        sends,
        [
            (0, 0, false),
            (1, 9, false),
            (10, 10, true),
            (15, 15, false),
            (16, 30, false)
        ]
    );
    // Hidden where it was last shown.
    assert!(updates[2]
        .transform
        .translation
        .abs_diff_eq(Vec3::new(0.9, 0.0, 0.0), 1e-6));
}

#[test]
fn rotation_past_half_a_turn_is_split() {
    // 270° about Y in 10 ticks: one slerp would take the short way.
    let frames = frames_of(10, |t| {
        Some(Mat4::from_rotation_y(t * 0.1 * 1.5 * std::f32::consts::PI))
    });
    let updates = check(&frames);
    assert!(updates.len() >= 3, "{updates:?}");
}

#[test]
fn replay_draws_nothing_before_the_first_update() {
    let updates = [point(2, DisplayTransform::IDENTITY)];
    let drawn = replay(&updates, 3);
    assert_eq!(
        drawn,
        [None, None, Some(Mat4::IDENTITY), Some(Mat4::IDENTITY)]
    );
    assert_eq!(update_at(&updates, 2), Some(&updates[0]));
    assert_eq!(update_at(&updates, 1), None);
}

#[test]
fn turned_update_matches_turned_matrix() {
    let m = still_pose();
    let root = Quat::from_rotation_y(0.8);
    let update = point(0, DisplayTransform::from_matrix(&m));
    let turned = update.turned(root).to_matrix();
    assert!(turned.abs_diff_eq(Mat4::from_quat(root) * m, 1e-5));
}

#[test]
fn pose_error_measures_corners_and_angle() {
    let a = Mat4::IDENTITY;
    let moved = Mat4::from_translation(Vec3::new(0.0, 0.02, 0.0));
    let e = pose_error(&moved, &a);
    assert!((e.translation_blocks - 0.02).abs() < 1e-6 && e.rotation_degrees == 0.0);
    let turned = Mat4::from_rotation_z(1f32.to_radians());
    let e = pose_error(&turned, &a);
    assert!((e.rotation_degrees - 1.0).abs() < 1e-3, "{e:?}");
    // A corner at distance √0.5 from the axis moves by 2·√0.5·sin(0.5°).
    assert!((e.translation_blocks - 2.0 * 0.5f32.sqrt() * 0.5f32.to_radians().sin()).abs() < 1e-4);
}

/// A random piecewise-linear path: keys of (position, rotation, scale)
/// lerped and slerped, under a parent that turns at a constant rate,
/// with an optional hidden range.
fn path_frames(
    keys: &[(u32, [f32; 3], [f32; 3], f32)],
    parent_rate: f32,
    hidden: (u32, u32),
    d: u32,
) -> Vec<Option<Mat4>> {
    let mut keys = keys.to_vec();
    keys.sort_by_key(|k| k.0);
    keys.dedup_by_key(|k| k.0);
    let pose = |k: &(u32, [f32; 3], [f32; 3], f32)| {
        (
            Vec3::from(k.1),
            Quat::from_euler(EulerRot::XYZ, k.2[0], k.2[1], k.2[2]),
            Vec3::splat(k.3),
        )
    };
    (0..=d)
        .map(|t| {
            if (hidden.0..hidden.1).contains(&t) {
                return None;
            }
            let i = keys.partition_point(|k| k.0 <= t);
            let (p, r, s) = if i == 0 {
                pose(&keys[0])
            } else if i == keys.len() {
                pose(&keys[i - 1])
            } else {
                let (k0, k1) = (&keys[i - 1], &keys[i]);
                let f = (t - k0.0) as f32 / (k1.0 - k0.0) as f32;
                let (p0, r0, s0) = pose(k0);
                let (p1, r1, s1) = pose(k1);
                (
                    p0.lerp(p1, f),
                    crate::anim::slerp(r0, r1, f),
                    s0.lerp(s1, f),
                )
            };
            let parent = Mat4::from_rotation_y(parent_rate * t as f32);
            Some(parent * Mat4::from_scale_rotation_translation(s, r, p))
        })
        .collect()
}

proptest! {
    #[test]
    fn replayed_plan_stays_within_tolerance(
        keys in prop::collection::vec(
            (0u32..=60, prop::array::uniform3(-2.0f32..2.0), prop::array::uniform3(-3.0f32..3.0), 0.2f32..2.0),
            1..6,
        ),
        parent_rate in prop_oneof![Just(0.0f32), -0.1f32..0.1],
        hidden in (0u32..=60, 0u32..8),
    ) {
        let frames = path_frames(&keys, parent_rate, (hidden.0, hidden.0 + hidden.1), 60);
        let updates = plan(&frames, Tolerance::default());
        prop_assert!(verify(&frames, &updates, Tolerance::default()).is_ok(),
            "{:?}", verify(&frames, &updates, Tolerance::default()));
        let counts = update_counts(&frames, &updates);
        prop_assert!(counts.planned <= counts.per_tick, "{:?}", counts);
    }
}

#[test]
fn a_target_is_held_once_its_interpolation_is_done_and_until_the_next_update() {
    let update = |send_tick: u32, duration_ticks: u32| DisplayUpdate {
        send_tick,
        target_tick: send_tick + duration_ticks - 1,
        transform: DisplayTransform::IDENTITY,
        duration_ticks,
    };
    // Sent at 0 over 4 ticks (target 3), then at 6 over 1 (target 6). At
    // 6 the target before it is still held (the new one is `update_at`'s).
    let plan = [update(0, 4), update(6, 1)];
    let held: Vec<Option<u32>> = (0..9)
        .map(|tick| held_at(&plan, tick).map(|u| u.send_tick))
        .collect();
    assert_eq!(
        held,
        [
            None,
            None,
            None,
            Some(0),
            Some(0),
            Some(0),
            Some(0),
            Some(6),
            Some(6)
        ]
    );
    assert_eq!(held_at(&[], 5), None);
}
