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
    assert_eq!(imported.file.nodes.len(), 25);
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
fn a_torso_bend_turns_the_hips_about_the_waist() {
    // The torso bent 30° about +X (axis 0), no turn of its own: the spine
    // stays, and the lower body slice turns against it. hips = spine · S ·
    // L_spine⁻¹: the hips (rest 0.3515625 below the waist) swing about
    // the waist: R_x(30°)·(0, −0.3515625, 0) = (0, −0.3044, −0.1758) from
    // the waist at y 1.0546875, so the hips are at (0, 0.7503, −0.1758),
    // turned 30° about X; the spine's local turn is −30°.
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
    let hips = value(&tracks["hips"]["position"][0]["value"]);
    let s = 0.351_562_5_f32;
    let expected = Vec3::new(0.0, 1.054_687_5 - s * 30f32.to_radians().cos(), -s * 0.5);
    assert!(hips.abs_diff_eq(expected, 1e-5), "{hips} vs {expected}");
    let hips_turn = value(&tracks["hips"]["rotation"][0]["value"]);
    assert!(
        hips_turn.abs_diff_eq(Vec3::new(30.0, 0.0, 0.0), 1e-3),
        "{hips_turn}"
    );
    let spine_turn = value(&tracks["spine"]["rotation"][0]["value"]);
    assert!(
        spine_turn.abs_diff_eq(Vec3::new(-30.0, 0.0, 0.0), 1e-3),
        "{spine_turn}"
    );
    // The legs hang from the hips but keep their own (rest) frame: their
    // anchors turn back by −30° locally.
    let hip_r = value(&tracks["hip_r"]["rotation"][0]["value"]);
    assert!(
        hip_r.abs_diff_eq(Vec3::new(-30.0, 0.0, 0.0), 1e-3),
        "{hip_r}"
    );
    // Constant over the clip: one key per track.
    assert_eq!(tracks["hips"]["rotation"].as_array().map(Vec::len), Some(1));
}
