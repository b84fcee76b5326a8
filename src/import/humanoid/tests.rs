//! The middle layer on its own: poses in, schema 4 out.

use glam::Vec3;

use super::*;
use crate::anim::bones::Bend;

fn clip(duration_ticks: u32, pose: BodyPose) -> BodyClip {
    let mut metadata = Map::new();
    metadata.insert("name".to_owned(), Value::String("Test".to_owned()));
    BodyClip {
        id: "test:pose".to_owned(),
        metadata,
        duration_ticks,
        mode: PlaybackMode::Loop,
        loop_delay_ticks: 3,
        poses: vec![pose; duration_ticks as usize + 1],
    }
}

#[test]
fn a_body_at_rest_gives_the_template_with_no_tracks_and_the_settings() {
    let imported = humanoid_animation(&clip(10, BodyPose::default())).expect("imports");
    assert_eq!(imported.json["timeline"]["tracks"], json!({}));
    assert!(imported.notes.is_empty());
    let settings = &imported.json["settings"];
    assert_eq!(settings["player"]["hidden"], json!(true));
    assert_eq!(
        settings["player"]["stop_conditions"]["movement_distance"],
        json!(0.1)
    );
    assert_eq!(
        settings["playback"],
        json!({"mode": "loop", "loop_delay": "3t"})
    );
    assert_eq!(imported.file.id.as_str(), "test:pose");
    assert_eq!(imported.file.timeline.duration_ticks, 10);
    assert_eq!(imported.file.nodes.len(), 27);
}

#[test]
fn the_poses_must_cover_the_timeline() {
    let mut c = clip(10, BodyPose::default());
    c.poses.pop();
    assert_eq!(
        humanoid_animation(&c).err(),
        Some(ImportError::FrameCount {
            duration_ticks: 10,
            given: 10
        })
    );
    assert_eq!(
        humanoid_animation(&clip(0, BodyPose::default())).err(),
        Some(ImportError::Empty)
    );
}

#[test]
fn a_torso_bend_turns_the_spine_and_carries_the_head_about_the_vanilla_waist() {
    // The torso bent 30° about +X (axis 0), no turn of its own: its lower
    // slice drives it, so the hips stay, and the upper slice turns against
    // them: the spine's local turn is R_x(30°), in place (W_spine = W_hips
    // · L_spine · S). The legs hang from the hips and do not move.
    //
    // The head and the arms are carried by PlayerAnimator's turn of the
    // upper parts, about the vanilla waist w = 1.125, not the template's
    // 1.0546875 (s): the neck n = (0, 1.40625, 0) goes to U(n) = w +
    // R(n − w), which is, from the turned spine, R⁻¹(U(n) − s) = (n − w) +
    // R⁻¹(w − s) = (0, 0.28125, 0) + R_x(−30°)·(0, 0.0703125, 0) = (0,
    // 0.28125 + 0.0703125·cos 30°, −0.0703125·sin 30°) = (0, 0.342142,
    // −0.0351563), with no turn of its own.
    let mut pose = BodyPose::default();
    pose.joints.insert(
        BodyJoint::Torso,
        JointFrame {
            bend: Some(Bend {
                axis_radians: 0.0,
                angle_radians: 30f32.to_radians(),
            }),
            ..JointFrame::rest(BodyJoint::Torso, true)
        },
    );
    let imported = humanoid_animation(&clip(4, pose)).expect("imports");
    let tracks = &imported.json["timeline"]["tracks"];
    let value = |v: &Value| -> Vec3 {
        let a: Vec<f32> = v
            .as_array()
            .expect("an array")
            .iter()
            .map(|x| x.as_f64().expect("a number") as f32)
            .collect();
        Vec3::new(a[0], a[1], a[2])
    };
    let spine_turn = value(&tracks["spine"]["rotation"][0]["value"]);
    assert!(
        spine_turn.abs_diff_eq(Vec3::new(30.0, 0.0, 0.0), 1e-3),
        "{spine_turn}"
    );
    let neck = value(&tracks["neck"]["position"][0]["value"]);
    let expected = Vec3::new(
        0.0,
        0.28125 + 0.070_312_5 * 30f32.to_radians().cos(),
        -0.070_312_5 * 0.5,
    );
    assert!(neck.abs_diff_eq(expected, 1e-5), "{neck} vs {expected}");
    let mut moved: Vec<&String> = tracks.as_object().expect("tracks").keys().collect();
    moved.sort();
    // The shoulders, like the neck, are made up for the waists' gap.
    assert_eq!(moved, ["neck", "shoulder_l", "shoulder_r", "spine"]);
    assert!(tracks["spine"].get("position").is_none(), "{tracks}");
    assert!(tracks["neck"].get("rotation").is_none(), "{tracks}");
    // Constant over the clip: one key per track.
    assert_eq!(
        tracks["spine"]["rotation"].as_array().map(Vec::len),
        Some(1)
    );
}
