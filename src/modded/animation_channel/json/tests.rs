use std::f32::consts::FRAC_PI_2;

use super::*;

/// A form of `joints`, `duration_ticks` long, whose frame at each tick
/// `frame(tick, joint)` gives.
fn form_of(
    mode: PlaybackMode,
    duration_ticks: u32,
    joints: &[(BodyJoint, bool)],
    frame: impl Fn(u32, BodyJoint) -> JointFrame,
) -> BoneForm {
    BoneForm {
        duration_ticks,
        mode,
        loop_delay_ticks: 6,
        joints: joints.to_vec(),
        frames: (0..=duration_ticks)
            .map(|t| joints.iter().map(|(j, _)| frame(t, *j)).collect())
            .collect(),
    }
}

/// The right arm raised forward over ticks 0..=10 (0° to 90°, even
/// steps) and held there to tick 20.
fn raised_arm(mode: PlaybackMode) -> BoneForm {
    form_of(mode, 20, &[(BodyJoint::RightArm, false)], |t, j| {
        let f = t.min(10) as f32 / 10.0;
        JointFrame {
            rotation: Quat::from_rotation_x(-FRAC_PI_2 * f),
            ..JointFrame::rest(j, false)
        }
    })
}

fn animation<'a>(file: &'a Value, name: &str) -> &'a Value {
    assert_eq!(file["format_version"], "1.8.0");
    &file["animations"][name]
}

#[test]
fn an_arm_raised_forward_is_keyed_at_its_turns_in_bedrock_degrees() {
    let file = bedrock_json(&raised_arm(PlaybackMode::Once), "animation.test.raise");
    let anim = animation(&file, "animation.test.raise");
    // R_x(−90°·f) is (a, b, c) = (0, 0, −90f) as R_z·R_y·R_x, written
    // (c, −b, −a) = (−90f, 0, 0): Blockbench's "arm forward". The turn is
    // linear to tick 10 (0.5 s), then still to tick 20 (1.0 s): three keys.
    let rotation = anim["bones"]["rightArm"]["rotation"]
        .as_object()
        .expect("keys");
    let keys: Vec<(&str, &Value)> = rotation.iter().map(|(k, v)| (k.as_str(), v)).collect();
    assert_eq!(
        keys,
        [
            ("0.0", &json!([0.0, 0.0, 0.0])),
            ("0.5", &json!([-90.0, 0.0, 0.0])),
            ("1.0", &json!([-90.0, 0.0, 0.0])),
        ]
    );
    // The arm turns about its own pivot, which stays: no position; no
    // other joint moves: no other bone.
    assert!(anim["bones"]["rightArm"].get("position").is_none());
    assert_eq!(anim["bones"].as_object().map(Map::len), Some(1));
    assert_eq!(anim["animation_length"], 1.0);
}

#[test]
fn each_play_mode_has_its_loop_value_and_length() {
    // 20 ticks (1 s), a loop delay of 6 ticks (0.3 s): a loop's cycle is 26.
    let cases = [
        (PlaybackMode::Once, json!(false), 1.0),
        (PlaybackMode::Hold, json!("hold_on_last_frame"), 1.0),
        (PlaybackMode::Loop, json!(true), 1.3),
        (PlaybackMode::ServerSync, json!(true), 1.3),
    ];
    for (mode, looped, length) in cases {
        let file = bedrock_json(&raised_arm(mode), "a");
        let anim = animation(&file, "a");
        assert_eq!(anim["loop"], looped, "{mode:?}");
        let got = anim["animation_length"].as_f64().expect("seconds");
        assert!((got - length).abs() < 1e-9, "{mode:?}: {got}");
    }
}

#[test]
fn a_straight_move_thins_to_two_keys() {
    // The body slides 0.25 block forward (+Z) and turns 40° about the
    // player's Y, both evenly over 20 ticks. Position: 16 · (0, 0, −0.25)
    // = (0, 0, −4) px at the end (Bedrock's forward is −Z). Rotation:
    // R_y(b) with b = 40°, written y = −b = −40.
    let form = form_of(
        PlaybackMode::Once,
        20,
        &[(BodyJoint::Torso, false)],
        |t, j| {
            let f = t as f32 / 20.0;
            JointFrame {
                rotation: Quat::from_rotation_y(40_f32.to_radians() * f),
                pivot: j.rest_pivot() + Vec3::new(0.0, 0.0, 0.25 * f),
                bend: None,
            }
        },
    );
    let file = bedrock_json(&form, "a");
    let body = &animation(&file, "a")["bones"]["body"];
    assert_eq!(
        body["position"],
        json!({"0.0": [0.0, 0.0, 0.0], "1.0": [0.0, 0.0, -4.0]})
    );
    assert_eq!(
        body["rotation"],
        json!({"0.0": [0.0, 0.0, 0.0], "1.0": [0.0, -40.0, 0.0]})
    );
}

#[test]
fn an_arm_out_to_the_side_is_a_positive_z() {
    // The right arm out to its side by 115° at tick 2 (0.1 s): R_z(−115°)
    // in the player's frame takes its hanging −Y to (sin(−115°),
    // −cos(−115°), 0) = (−0.906, 0.423, 0), out to −X (its side) and up;
    // a = −115, written z = −a = +115. Its bend is dropped.
    let form = form_of(
        PlaybackMode::Once,
        2,
        &[(BodyJoint::RightArm, true)],
        |t, j| JointFrame {
            rotation: Quat::from_rotation_z(-115_f32.to_radians() * (t as f32 / 2.0)),
            ..JointFrame::rest(j, true)
        },
    );
    let file = bedrock_json(&form, "a");
    let keys = &animation(&file, "a")["bones"]["rightArm"]["rotation"];
    assert_eq!(keys["0.1"], json!([0.0, 0.0, 115.0]), "{keys}");
}

#[test]
fn a_torso_bend_is_put_back_on_the_arms() {
    // The torso bends 30° about its X (Bend axis 0 → turn R_x(30°)); the
    // right arm's frame is at rest, PlayerAnimator's turn taken off. Put
    // back: the arm turns R_x(30°), x = +30, and its pivot turns about the
    // waist (0, 1.125, 0): the shoulder (−0.3125, 1.375, 0) is 0.25 above
    // it, so it goes to (−0.3125, 1.125 + 0.25·cos 30°, 0.25·sin 30°) =
    // (−0.3125, 1.3415, 0.125): a move of (0, −0.0335, 0.125) blocks,
    // (0, −0.536, −2.0) px. The body keeps its own (rest) move: no bone.
    let bend = Bend {
        axis_radians: 0.0,
        angle_radians: 30_f32.to_radians(),
    };
    let form = form_of(
        PlaybackMode::Hold,
        1,
        &[(BodyJoint::Torso, true), (BodyJoint::RightArm, false)],
        |t, j| JointFrame {
            bend: (j == BodyJoint::Torso).then_some(if t == 1 { bend } else { Bend::NONE }),
            ..JointFrame::rest(j, false)
        },
    );
    let file = bedrock_json(&form, "a");
    let bones = &animation(&file, "a")["bones"];
    assert!(bones.get("body").is_none(), "{bones}");
    let arm = &bones["rightArm"];
    assert_eq!(arm["rotation"]["0.05"], json!([30.0, 0.0, 0.0]));
    let position = arm["position"]["0.05"].as_array().expect("xyz");
    let expected = [0.0, -0.536, -2.0];
    for (got, want) in position.iter().zip(expected) {
        let got = got.as_f64().expect("number");
        assert!((got - want).abs() < 2e-3, "{position:?}");
    }
}

#[test]
fn a_turn_through_half_a_turn_does_not_spin_back() {
    // The head rolls about Z from 170° to 190° over 2 ticks: sampled as
    // 170, ±180 and −170 (to_euler's range), unwrapped to 170, 180, 190,
    // a straight line, z = −a: −170 to −190 in two keys.
    let form = form_of(
        PlaybackMode::Once,
        2,
        &[(BodyJoint::Head, false)],
        |t, j| JointFrame {
            rotation: Quat::from_rotation_z((170.0 + 10.0 * t as f32).to_radians()),
            ..JointFrame::rest(j, false)
        },
    );
    let file = bedrock_json(&form, "a");
    let keys = animation(&file, "a")["bones"]["head"]["rotation"]
        .as_object()
        .expect("keys")
        .clone();
    assert_eq!(keys.len(), 2, "{keys:?}");
    let end = keys["0.1"].as_array().expect("xyz")[2].as_f64().expect("z");
    assert!((end + 190.0).abs() < 0.01, "{keys:?}");
}

#[test]
fn key_times_are_exact_seconds() {
    assert_eq!(seconds_key(0), "0.0");
    assert_eq!(seconds_key(1), "0.05");
    assert_eq!(seconds_key(7), "0.35");
    assert_eq!(seconds_key(10), "0.5");
    assert_eq!(seconds_key(47), "2.35");
}
