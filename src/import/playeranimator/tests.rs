//! PlayerAnimator's evaluation, worked by hand from the rules in the
//! module guide.

use uuid::Uuid;

use super::*;
use crate::modded::emotecraft::animation::Part;

fn key(tick: i32, value: f32, ease: u8) -> Keyframe {
    Keyframe { tick, value, ease }
}

fn animation(end_tick: i32, looped: bool, return_tick: i32, parts: Vec<Part>) -> BoneAnimation {
    BoneAnimation {
        begin_tick: 0,
        end_tick,
        stop_tick: end_tick,
        is_looped: looped,
        return_tick,
        easing_before: false,
        nsfw: false,
        parts,
        uuid: Uuid::nil(),
    }
}

/// A `rightArm` whose roll (axis 5) has `keys`.
fn arm_roll(keys: Vec<Keyframe>) -> Part {
    let mut part = Part::still("rightArm");
    part.axes[5] = Axis {
        enabled: true,
        keyframes: keys,
    };
    part
}

fn roll_at(animation: &BoneAnimation, tick: i64) -> f32 {
    joint_axes_at(animation, tick).expect("finite")[&BodyJoint::RightArm][5]
}

#[test]
fn ease_ids_follow_playeranimators_order_at_the_midpoint() {
    // 9 is in-cubic (0.5³ = 0.125), 12 in-quad (0.25), 8 in-out sine
    // (½·(1 − cos(π/2)) = 0.5), 1 constant (0), 34 out-bounce:
    // 7.5625·(0.5 − 1.5/2.75)² + 0.75 = 0.765625, an unknown id linear.
    for (id, expected) in [
        (9, 0.125),
        (12, 0.25),
        (8, 0.5),
        (1, 0.0),
        (34, 0.765_625),
        (0, 0.5),
        (200, 0.5),
    ] {
        assert!((ease_value(id, 0.5) - expected).abs() < 1e-5, "ease {id}");
    }
}

#[test]
fn a_key_eases_the_stretch_after_it_unless_easing_before_is_set() {
    // Keys 0 → 1 over ticks 0..10, the first in-cubic: tick 5 is 0.125;
    // with isEasingBefore the second key's linear ease shapes it: 0.5.
    let mut a = animation(
        20,
        false,
        0,
        vec![arm_roll(vec![key(0, 0.0, 9), key(10, 1.0, 0)])],
    );
    assert!((roll_at(&a, 5) - 0.125).abs() < 1e-5);
    a.easing_before = true;
    assert!((roll_at(&a, 5) - 0.5).abs() < 1e-5);
}

#[test]
fn a_disabled_axis_keeps_the_rest_and_an_enabled_one_holds_its_last_key() {
    // x (axis 0) has a key at 10 px but is off: the arm stays at −5 px.
    let mut part = arm_roll(vec![key(0, 0.0, 0), key(4, 0.8, 0)]);
    part.axes[0] = Axis {
        enabled: false,
        keyframes: vec![key(0, 10.0, 0)],
    };
    let a = animation(10, false, 0, vec![part]);
    let axes = joint_axes_at(&a, 3).expect("finite")[&BodyJoint::RightArm];
    assert_eq!(axes[0], -5.0);
    // Tick 3 of the ramp 0 → 0.8 over 4 ticks is 0.6; after tick 4 it holds.
    assert!((axes[5] - 0.6).abs() < 1e-5);
    assert!((roll_at(&a, 9) - 0.8).abs() < 1e-5);
    let (clip, _) = body_clip(&a, "t:arm", Map::new()).expect("imports");
    let frame = clip.poses[3].joints[&BodyJoint::RightArm];
    assert!((frame.pivot.x + 5.0 / 16.0).abs() < 1e-6, "{frame:?}");
}

#[test]
fn before_the_first_key_the_rest_eases_in_from_tick_0_then_from_begin() {
    // One key at tick 10 (1.0), beginTick 4. Tick 2 < begin: in-out sine
    // from (0, rest 0): f = 0.2, ½·(1 − cos 0.2π) = 0.0954915. Tick 7:
    // from (4, 0): f = 3/6 = 0.5 → 0.5.
    let mut a = animation(20, false, 0, vec![arm_roll(vec![key(10, 1.0, 0)])]);
    a.begin_tick = 4;
    assert!((roll_at(&a, 2) - 0.095_491_5).abs() < 1e-5);
    assert!((roll_at(&a, 7) - 0.5).abs() < 1e-5);
}

#[test]
fn a_loop_goes_on_toward_its_first_key_after_the_last() {
    // Looped to 0 at end 9: keys (0, 0) and (5, 1). Tick 7 lies between
    // the key at 5 and the first key one cycle (10 ticks) on, at 10:
    // f = 2/5 → 1 − 0.4 = 0.6.
    let a = animation(
        9,
        true,
        0,
        vec![arm_roll(vec![key(0, 0.0, 0), key(5, 1.0, 0)])],
    );
    assert!((roll_at(&a, 7) - 0.6).abs() < 1e-5);
    let (clip, _) = body_clip(&a, "t:loop", Map::new()).expect("imports");
    // Nothing at the end already holds the first pose: a 10-tick cycle.
    assert_eq!(clip.mode, PlaybackMode::Loop);
    assert_eq!((clip.duration_ticks, clip.loop_delay_ticks), (10, 0));
    assert_eq!(clip.poses.len(), 11);
}

#[test]
fn a_loop_that_rests_at_the_end_gets_a_loop_delay() {
    // Keys (0, 0), (4, 1), (6, 0) looped at end 9: ticks 6..=9 already
    // show the first pose, so the cycle of 10 is 6 ticks and a 4-tick delay.
    let a = animation(
        9,
        true,
        0,
        vec![arm_roll(vec![
            key(0, 0.0, 0),
            key(4, 1.0, 0),
            key(6, 0.0, 0),
        ])],
    );
    let (clip, _) = body_clip(&a, "t:rest", Map::new()).expect("imports");
    assert_eq!((clip.duration_ticks, clip.loop_delay_ticks), (6, 4));
}

#[test]
fn looped_to_the_end_is_hold_and_not_looped_is_once() {
    let part = || arm_roll(vec![key(0, 0.0, 0), key(20, 1.0, 0)]);
    let (clip, _) =
        body_clip(&animation(20, true, 20, vec![part()]), "t:h", Map::new()).expect("imports");
    assert_eq!(clip.mode, PlaybackMode::Hold);
    assert_eq!(clip.duration_ticks, 20);
    let (clip, notes) =
        body_clip(&animation(20, false, 0, vec![part()]), "t:o", Map::new()).expect("imports");
    assert_eq!(clip.mode, PlaybackMode::Once);
    assert_eq!(clip.poses.len(), 21);
    // PlayerAnimator's ease back to the player (stopTick ≤ endTick becomes
    // endTick + 3) is noted as dropped.
    assert!(notes.iter().any(|n| n.pointer == "/stopTick"), "{notes:?}");
}

#[test]
fn an_end_tick_past_ten_minutes_and_a_nan_value_are_refused() {
    let long = animation(12_001, false, 0, Vec::new());
    assert!(matches!(
        body_clip(&long, "t:l", Map::new()),
        Err(ImportError::TooLong { ticks: 12_001, .. })
    ));
    let nan = animation(10, false, 0, vec![arm_roll(vec![key(0, f32::NAN, 0)])]);
    assert_eq!(
        body_clip(&nan, "t:n", Map::new()).err(),
        Some(ImportError::NotFinite {
            pointer: "/parts/0/axes/5/keyframes/0/value".to_owned()
        })
    );
}

#[test]
fn item_parts_are_dropped_with_a_note_and_the_body_bend_adds_to_the_torso() {
    let mut item = Part::still("rightItem");
    item.axes[3].enabled = true;
    let mut body = Part::still("body");
    body.axes[7] = Axis {
        enabled: true,
        keyframes: vec![key(0, 0.25, 0)],
    };
    let mut torso = Part::still("torso");
    torso.axes[7] = Axis {
        enabled: true,
        keyframes: vec![key(0, 0.5, 0)],
    };
    let a = animation(5, false, 0, vec![item, body, torso]);
    let (_, notes) = body_clip(&a, "t:i", Map::new()).expect("imports");
    assert!(notes.iter().any(|n| n.pointer == "/parts/0"), "{notes:?}");
    let axes = joint_axes_at(&a, 2).expect("finite")[&BodyJoint::Torso];
    assert!((axes[7] - 0.75).abs() < 1e-6, "{axes:?}");
}

#[test]
fn the_body_part_turns_the_player_about_a_point_above_the_feet() {
    // yaw 90° about the point 0.7 up: a point 1 block forward at that
    // height ((0, 0.7, 1)) goes to R_y(90°)·(0, 0, 1) = (1, 0, 0) from it.
    let g = body_transform(&[0.0, 0.0, 0.0, 0.0, PI / 2.0, 0.0, 0.0, 0.0]);
    let moved = g.transform_point3(Vec3::new(0.0, 0.7, 1.0));
    assert!(moved.abs_diff_eq(Vec3::new(1.0, 0.7, 0.0), 1e-5), "{moved}");
    // An offset of x 1 in the renderer's frame is −X in the player's.
    let g = body_transform(&[1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert!(g
        .transform_point3(Vec3::ZERO)
        .abs_diff_eq(Vec3::new(-1.0, 0.5, 0.0), 1e-6));
}
