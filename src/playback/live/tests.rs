//! The solvers fed as the server feeds them: a wave whose head follows an
//! observed look (per tick, within the tolerance, the rest still planned),
//! a held pose that still follows it, a camera's eye that wins over the
//! look, and the two bodies of a handshake whose hands meet halfway when
//! the partner stands off the file's placement.

use std::path::PathBuf;

use glam::{DVec3, Mat4, Quat, Vec3};
use uuid::Uuid;

use super::*;
use crate::format::{read_emote_file, EmoteFile, EmoteId};
use crate::library::{CompiledAnimation, Library};
use crate::playback::session::{prepare, PlanCache, PlayRequest, WorldView};
use crate::playback::Cooldowns;

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

fn wave_state(library: &Library) -> crate::playback::session::PlaybackState {
    let wave = EmoteId::parse("example:wave").expect("an id");
    let request = PlayRequest {
        emote: &wave,
        bypass: false,
        player: Uuid::from_u128(7),
        now_tick: 0,
        position: DVec3::new(10.0, 64.0, -3.0),
        yaw_degrees: 90.0,
        molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
    };
    prepare(&request, library, &Cooldowns::default())
        .expect("plays")
        .state
}

/// The Minecraft yaw of a sent transformation's forward (+Z), in the
/// world (the root's yaw included).
fn sent_yaw(state: &crate::playback::session::PlaybackState, union: usize) -> f32 {
    let sent = state.last_sent[union].expect("sent");
    let forward = (sent.left_rotation * sent.right_rotation) * Vec3::Z;
    (-forward.x).atan2(forward.z).to_degrees()
}

#[test]
fn an_observed_look_turns_the_head_per_tick_and_the_rest_is_still_planned() {
    let library = Library::load(&[bundled()]).library;
    let mut turned = wave_state(&library);
    let mut straight = wave_state(&library);
    let union = |id: &str| turned.union.ids.iter().position(|u| u == id).expect(id);
    let (head, upper_arm) = (union("head"), union("upper_arm_r"));
    assert!(turned.has_solvers());
    assert!(
        !turned.current.planned[head],
        "the neck's look-at moves the head"
    );
    assert!(turned.current.planned[upper_arm], "the arm is the plan's");
    let mut cache = PlanCache::default();
    let mut head_updates = 0;
    let mut updates = Vec::new();
    for tick in 0..30 {
        for (state, look_yaw) in [(&mut turned, 90.0 + 40.0), (&mut straight, 90.0)] {
            state.observe_live(
                &WorldView {
                    look_yaw_degrees: look_yaw,
                    ..WorldView::default()
                },
                None,
            );
            state.advance(0, &mut Vec::new());
            state.plan_new_cycle(&mut cache);
            updates.clear();
            state.pose_updates(90.0, tick, &mut updates);
            if look_yaw > 90.0 && tick >= 10 {
                head_updates += updates.iter().filter(|u| u.union == head).count();
            }
        }
        assert!(
            turned.schedule.is_some(),
            "tick {tick}: the cycle is planned"
        );
    }
    let difference = sent_yaw(&turned, head) - sent_yaw(&straight, head);
    assert!((difference - 40.0).abs() < 1.0, "{difference}");
    // Once the look settled the head is sent only as the wave moves it
    // past the tolerance: far fewer than one update a tick.
    assert!(head_updates < 10, "{head_updates} head updates in 20 ticks");
}

#[test]
fn the_camera_eye_wins_over_the_look_and_a_held_pose_follows_it() {
    let wave = compiled("wave.json");
    let rig = &wave.rig;
    let spaces: Vec<_> = wave.runtime.nodes.iter().map(|n| n.space).collect();
    let head = rig.node_index("head").expect("head");
    let mut pose = crate::anim::Pose::new(rig);
    let mut state = wave.new_molang_state(0);
    wave.begin_cycle(&mut state, 0).expect("begins");
    wave.step(&mut state, 0, true, &mut pose).expect("samples");
    let solvers = &wave.runtime.solvers;
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
    live.solve(solvers, rig, &spaces, &mut pose, &SpaceRoots::SOLO);
    let forward = pose.nodes[head].matrix.transform_vector3(Vec3::Z);
    let yaw = (-forward.x).atan2(forward.z).to_degrees();
    assert!((yaw + 70.0).abs() < 0.5, "left, up to the 70° limit: {yaw}");
    // Held: the same animated pose, a new look, smoothed by half a tick.
    live.inputs.initiator = ParticipantInputs {
        look: Some(LookAngles::from_degrees(30.0, 0.0)),
        ..ParticipantInputs::default()
    };
    live.resolve(solvers, rig, &spaces, &mut pose, &SpaceRoots::SOLO);
    let forward = pose.nodes[head].matrix.transform_vector3(Vec3::Z);
    let yaw = (-forward.x).atan2(forward.z).to_degrees();
    assert!((yaw - (-70.0 + 100.0 * 0.5)).abs() < 0.5, "{yaw}");
}

#[test]
fn two_handshaking_bodies_meet_halfway_off_their_placement() {
    let shake = compiled("handshake_shake.json");
    let rig = &shake.rig;
    let spaces: Vec<_> = shake.runtime.nodes.iter().map(|n| n.space).collect();
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
        let empty = crate::anim::solve::Solvers::default();
        live.solve(
            if solve {
                &shake.runtime.solvers
            } else {
                &empty
            },
            rig,
            &spaces,
            &mut pose,
            &roots,
        );
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
