//! The solvers fed as the server feeds them: a held pose that still
//! follows the look, a camera's eye that wins over the look, and the two
//! bodies of a handshake whose hands meet halfway when the partner stands
//! off the file's placement. (A whole playback fed by the server's views:
//! `session::observe`'s tests.)

use std::path::PathBuf;

use glam::{Mat4, Quat, Vec3};

use super::*;
use crate::format::{read_emote_file, EmoteFile};
use crate::library::CompiledAnimation;

fn bundled() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"))
}

fn compiled(file_name: &str) -> CompiledAnimation {
    let file = read_emote_file(&bundled().join(file_name))
        .file
        .expect("a bundled file");
    let EmoteFile::Animation(animation) = &file else {
        panic!("{file_name} is not an Animation");
    };
    CompiledAnimation::compile(animation).expect("compiles")
}

#[test]
fn the_camera_eye_wins_over_the_look_and_a_held_pose_follows_it() {
    let wave = compiled("wave.json");
    let rig = &wave.rig;
    let head = rig.node_index("head").expect("head");
    let mut pose = crate::anim::Pose::new(rig);
    let mut state = wave.new_molang_state(0);
    wave.begin_cycle(&mut state, 0).expect("begins");
    wave.step(&mut state, 0, true, &mut pose).expect("samples");
    // The camera stands 3 blocks to the left (+X) at eye height: the head
    // turns left, whatever the mouse says.
    let mut live = LiveRig::new(LiveInputs {
        initiator: ParticipantInputs {
            look: Some(LookAngles::from_degrees(30.0, 0.0)),
            face_point: Some(Vec3::new(3.0, 1.7, 0.0)),
            nearest_eyes: None,
        },
        ..LiveInputs::default()
    });
    live.solve(&wave, &mut pose, &SpaceRoots::SOLO);
    let forward = pose.nodes[head].matrix.transform_vector3(Vec3::Z);
    let yaw = (-forward.x).atan2(forward.z).to_degrees();
    assert!((yaw + 70.0).abs() < 0.5, "left, up to the 70° limit: {yaw}");
    // Held: the same animated pose, a new look, smoothed by half a tick.
    live.inputs.initiator = ParticipantInputs {
        look: Some(LookAngles::from_degrees(30.0, 0.0)),
        ..ParticipantInputs::default()
    };
    live.resolve(&wave, &mut pose, &SpaceRoots::SOLO);
    let forward = pose.nodes[head].matrix.transform_vector3(Vec3::Z);
    let yaw = (-forward.x).atan2(forward.z).to_degrees();
    assert!((yaw - (-70.0 + 100.0 * 0.5)).abs() < 0.5, "{yaw}");
}

#[test]
fn two_handshaking_bodies_meet_halfway_off_their_placement() {
    let shake = compiled("handshake_shake.json");
    // The same Animation without its solvers.
    let mut unsolved = compiled("handshake_shake.json");
    unsolved.runtime.solvers = crate::anim::solve::Solvers::default();
    let rig = &shake.rig;
    let hand = rig.node_index("hand_r").expect("hand_r");
    // The file's placement is 0.8 block in front, facing back; this
    // partner stands off it by `(side, away)`.
    let placed = |side: f32, away: f32| {
        Mat4::from_translation(Vec3::new(side, 0.0, 0.8 + away))
            * Mat4::from_quat(Quat::from_rotation_y(std::f32::consts::PI))
    };
    let hands = |partner: Mat4, solve: bool| -> (Vec3, Vec3) {
        let roots = SpaceRoots {
            initiator: Mat4::IDENTITY,
            partner: Some(partner),
            mirror: true,
        };
        let mut pose = crate::anim::Pose::new(rig);
        let mut state = shake.new_molang_state(0);
        shake.begin_cycle(&mut state, 0).expect("begins");
        shake.step(&mut state, 5, true, &mut pose).expect("samples");
        let mut live = LiveRig::new(LiveInputs::default());
        let animated = pose.nodes.clone();
        live.solve(if solve { &shake } else { &unsolved }, &mut pose, &roots);
        let mine: Vec3 = pose.nodes[hand].matrix.translation.into();
        let theirs_local: Vec3 = live
            .partner_pose()
            .map_or(animated[hand].matrix.translation, |p| {
                p[hand].matrix.translation
            })
            .into();
        (mine, partner.transform_point3(theirs_local))
    };
    let (a, b) = hands(placed(0.0, 0.0), false);
    assert!(
        a.distance(b) < 0.1,
        "as placed the file's hands nearly meet: {}",
        a.distance(b)
    );
    // Within reach they meet; 0.28 block away and aside both arms are
    // straight, pointing at the same point a little beyond them.
    for (side, away, within) in [
        (0.3, 0.0, 0.01),
        (-0.3, 0.0, 0.01),
        (0.0, 0.3, 0.01),
        (0.0, -0.3, 0.01),
        (0.2, 0.2, 0.05),
    ] {
        let (a, b) = hands(placed(side, away), false);
        assert!(
            a.distance(b) > 0.2,
            "off the placement they miss: {}",
            a.distance(b)
        );
        let (a, b) = hands(placed(side, away), true);
        assert!(
            a.distance(b) < within,
            "({side}, {away}): IK closes the gap: {}",
            a.distance(b)
        );
    }
}
