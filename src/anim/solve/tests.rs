//! The solvers on small hand-built rigs: look-at turns and limits, IK
//! reach and lengths (with a property test over random limbs and
//! targets), spring lag, settling and restart.

use glam::{Affine3A, Quat, Vec3};
use proptest::prelude::*;

use super::*;
use crate::anim::rig::{Rig, RigNode};

/// A rig of anchors: `(id, parent, position)`, rotations from `rotations`.
fn rig(nodes: &[(&str, Option<usize>, [f32; 3])]) -> Rig {
    Rig {
        nodes: nodes
            .iter()
            .map(|&(id, parent, p)| RigNode {
                id: id.to_owned(),
                parent,
                rest_position: Vec3::from_array(p),
                rest_rotation: Quat::IDENTITY,
                rest_scale: Vec3::ONE,
                rest_local: Affine3A::from_translation(Vec3::from_array(p)),
                initial_visible: false,
                is_display: false,
                position: None,
                rotation: None,
                scale: None,
                visible: None,
                nbt: None,
            })
            .collect(),
        duration_ticks: 20,
    }
}

fn rest_pose(rig: &Rig) -> Pose {
    let mut pose = Pose::new(rig);
    pose.sample(rig, 0.0, &mut crate::anim::NoExprs)
        .expect("finite");
    pose
}

fn forward(pose: &Pose, i: usize) -> Vec3 {
    pose.nodes[i].matrix.transform_vector3(Vec3::Z).normalize()
}

/// spine (0) → neck (1) → head (2), an arm shoulder (3) → elbow (4) → hand (5).
fn body() -> Rig {
    rig(&[
        ("spine", None, [0.0, 1.05, 0.0]),
        ("neck", Some(0), [0.0, 0.35, 0.0]),
        ("head", Some(1), [0.0, 0.47, 0.0]),
        ("shoulder_r", Some(0), [-0.35, 0.35, 0.0]),
        ("elbow_r", Some(3), [0.0, -0.35, 0.0]),
        ("hand_r", Some(4), [0.0, -0.35, 0.0]),
    ])
}

fn look_chain(limit_degrees: f32) -> LookAtChain {
    LookAtChain {
        nodes: vec![0, 1],
        cumulative_shares: vec![0.3, 1.0],
        yaw_limit: limit_degrees.to_radians(),
        pitch_limit: 60f32.to_radians(),
        weight: 1.0,
        smoothing: 1.0,
    }
}

#[test]
fn a_look_to_the_right_turns_the_head_toward_minus_x() {
    let rig = body();
    let mut pose = rest_pose(&rig);
    let chain = look_chain(70.0);
    chain.apply(
        &mut pose,
        &rig,
        chain.clamp(LookAngles::from_degrees(40.0, 0.0)),
    );
    let f = forward(&pose, 2);
    let turned = f.angle_between(Vec3::Z).to_degrees();
    assert!((turned - 40.0).abs() < 0.01, "{turned}");
    assert!(f.x < 0.0, "right is −X: {f:?}");
    // The spine took 30 % of it: the shoulder swung with it.
    let spine_turn = forward(&pose, 0).angle_between(Vec3::Z).to_degrees();
    assert!((spine_turn - 12.0).abs() < 0.01, "{spine_turn}");
    // Pitch down looks down, and the whole look reaches the head.
    let mut pose = rest_pose(&rig);
    let look = LookAngles::from_degrees(30.0, 20.0);
    chain.apply(&mut pose, &rig, look);
    assert!((forward(&pose, 2) - look.direction()).length() < 1e-4);
    assert!(look.direction().y < 0.0);
}

#[test]
fn a_look_past_the_limit_stops_at_it_and_a_weight_scales_it() {
    let rig = body();
    let chain = look_chain(70.0);
    let mut pose = rest_pose(&rig);
    chain.apply(
        &mut pose,
        &rig,
        chain.clamp(LookAngles::from_degrees(120.0, 0.0)),
    );
    let turned = forward(&pose, 2).angle_between(Vec3::Z).to_degrees();
    assert!((turned - 70.0).abs() < 0.01, "{turned}");
    // −200° is 160° the other way round: clamped to the left limit.
    let clamped = chain.clamp(LookAngles::from_degrees(-200.0, 0.0));
    assert!((clamped.yaw.to_degrees() - 70.0).abs() < 1e-3);
    let half = LookAtChain {
        weight: 0.5,
        ..look_chain(70.0)
    };
    let mut pose = rest_pose(&rig);
    half.apply(&mut pose, &rig, LookAngles::from_degrees(40.0, 0.0));
    let turned = forward(&pose, 2).angle_between(Vec3::Z).to_degrees();
    assert!((turned - 20.0).abs() < 0.01, "{turned}");
}

#[test]
fn looks_point_where_they_say_and_approach_the_short_way() {
    let d = Vec3::new(-1.0, -1.0, 1.0);
    let look = LookAngles::towards(d);
    assert!((look.direction() - d.normalize()).length() < 1e-5);
    let from = LookAngles::from_degrees(170.0, 0.0);
    let to = LookAngles::from_degrees(-170.0, 0.0);
    let half = from.approach(to, 0.5);
    assert!(
        (half.yaw.to_degrees().abs() - 180.0).abs() < 1e-3,
        "{half:?}"
    );
}

fn arm() -> TwoBoneChain {
    TwoBoneChain {
        root: 3,
        mid: 4,
        end: 5,
        pole: Some(Vec3::NEG_Z),
        weight: 1.0,
    }
}

fn lengths(pose: &Pose) -> (f32, f32) {
    (
        origin(pose, 3).distance(origin(pose, 4)),
        origin(pose, 4).distance(origin(pose, 5)),
    )
}

#[test]
fn a_hand_reaches_a_point_in_reach_with_its_lengths_kept_and_the_elbow_on_the_pole_side() {
    let rig = body();
    let mut pose = rest_pose(&rig);
    let target = Vec3::new(-0.2, 1.2, 0.4);
    arm().reach(&mut pose, &rig, target);
    assert!(origin(&pose, 5).distance(target) < 1e-4);
    let (upper, lower) = lengths(&pose);
    assert!((upper - 0.35).abs() < 1e-5 && (lower - 0.35).abs() < 1e-5);
    // The elbow is behind the line from shoulder to hand (pole −Z).
    let a = origin(&pose, 3);
    let along = (target - a).normalize();
    let elbow = origin(&pose, 4) - a;
    assert!((elbow - along * elbow.dot(along)).z < 0.0);
    // A pole forward bends it the other way.
    let mut pose = rest_pose(&rig);
    let forward = TwoBoneChain {
        pole: Some(Vec3::Z),
        ..arm()
    };
    forward.reach(&mut pose, &rig, target);
    let elbow = origin(&pose, 4) - a;
    assert!((elbow - along * elbow.dot(along)).z > 0.0);
}

#[test]
fn a_point_out_of_reach_straightens_the_arm_toward_it() {
    let rig = body();
    let mut pose = rest_pose(&rig);
    let target = Vec3::new(-0.35, 1.4, 3.0);
    arm().reach(&mut pose, &rig, target);
    let a = origin(&pose, 3);
    let toward = (target - a).normalize();
    for node in [4, 5] {
        let off = (origin(&pose, node) - a).normalize();
        assert!(off.angle_between(toward).to_degrees() < 0.01);
    }
    assert!((origin(&pose, 5).distance(a) - 0.7).abs() < 1e-5);
}

#[test]
fn without_a_pole_the_animated_bend_plane_is_kept_and_a_weight_goes_part_way() {
    let rig = body();
    let mut pose = rest_pose(&rig);
    // The animation bends the elbow forward (a turn about −X at the elbow).
    pose.nodes[4].rotation = Quat::from_rotation_x(-1.0);
    recompose_from(&mut pose, &rig, 0);
    let keep = TwoBoneChain {
        pole: None,
        ..arm()
    };
    let target = Vec3::new(-0.35, 1.1, 0.3);
    keep.reach(&mut pose, &rig, target);
    assert!(origin(&pose, 5).distance(target) < 1e-4);
    let a = origin(&pose, 3);
    let along = (target - a).normalize();
    let elbow = origin(&pose, 4) - a;
    // The bend stays in the animated plane (x = the shoulder's), on the
    // side the upper arm was.
    assert!(elbow.x.abs() < 1e-4, "{elbow:?}");
    assert!((elbow - along * elbow.dot(along)).z < 0.0);
    let mut half = rest_pose(&rig);
    let start = origin(&half, 5);
    TwoBoneChain {
        weight: 0.0,
        ..arm()
    }
    .reach(&mut half, &rig, target);
    assert_eq!(origin(&half, 5), start, "weight 0 leaves the animated pose");
}

proptest! {
    #[test]
    fn reaching_keeps_lengths_and_reaches_every_point_in_reach(
        shoulder in (-1.5f32..1.5, -1.5f32..1.5, -1.5f32..1.5),
        elbow in (-1.5f32..1.5, -1.5f32..1.5, -1.5f32..1.5),
        target in (-0.7f32..0.7, -0.7f32..0.7, -0.7f32..0.7),
        pole in proptest::option::of((-1f32..1.0, -1f32..1.0, -1f32..1.0)),
    ) {
        let rig = body();
        let mut pose = rest_pose(&rig);
        pose.nodes[3].rotation = quat(shoulder);
        pose.nodes[4].rotation = quat(elbow);
        recompose_from(&mut pose, &rig, 0);
        let a = origin(&pose, 3);
        let target = a + Vec3::new(target.0, target.1, target.2);
        let chain = TwoBoneChain {
            pole: pole.map(|p| Vec3::new(p.0, p.1, p.2)),
            ..arm()
        };
        chain.reach(&mut pose, &rig, target);
        let (upper, lower) = lengths(&pose);
        prop_assert!((upper - 0.35).abs() < 1e-4 && (lower - 0.35).abs() < 1e-4);
        let distance = target.distance(a);
        let hand = origin(&pose, 5);
        if distance <= 0.69 && distance > 1e-3 {
            prop_assert!(hand.distance(target) < 1e-3, "{} from {:?}", hand.distance(target), target);
        } else if distance > 0.7 {
            prop_assert!((hand - a).normalize().angle_between(target - a) < 1e-3);
        }
    }
}

fn quat((x, y, z): (f32, f32, f32)) -> Quat {
    Quat::from_rotation_x(x) * Quat::from_rotation_y(y) * Quat::from_rotation_z(z)
}

/// A cape: a pivot (0) at the shoulders hanging its tip 0.9 down.
fn cape() -> (Rig, SpringJoint) {
    let rig = rig(&[("cape", None, [0.0, 1.4, -0.15])]);
    let joint = SpringJoint {
        node: 0,
        axis: Vec3::NEG_Y,
        length_blocks: 0.9,
        stiffness: 40.0,
        damping: 6.0,
        gravity: 9.8,
    };
    (rig, joint)
}

/// The cape's axis angle from straight down after each tick, the body
/// at `body(tick)`.
fn swing(ticks: u32, body: impl Fn(u32) -> Affine3A) -> Vec<f32> {
    let (rig, joint) = cape();
    let mut state = SpringState::default();
    (0..ticks)
        .map(|tick| {
            let mut pose = rest_pose(&rig);
            joint.step(&mut state, &mut pose, &rig, &body(tick));
            let axis = pose.nodes[0].matrix.transform_vector3(Vec3::NEG_Y);
            assert!((origin(&pose, 0) - Vec3::new(0.0, 1.4, -0.15)).length() < 1e-6);
            axis.angle_between(Vec3::NEG_Y).to_degrees()
        })
        .collect()
}

#[test]
fn a_cape_trails_a_moving_body_and_settles_when_it_stops() {
    // 3 blocks along +Z in 20 ticks, then still.
    let walk = |tick: u32| Affine3A::from_translation(Vec3::Z * 0.15 * tick.min(20) as f32);
    let angles = swing(120, walk);
    assert_eq!(angles[0], 0.0, "a spring starts at the animated pose");
    assert!(angles[8..20].iter().all(|a| *a > 10.0), "{angles:?}");
    assert!(angles[119] < 0.1, "{}", angles[119]);
    // Standing still it hangs as animated.
    assert!(swing(40, |_| Affine3A::IDENTITY).iter().all(|a| *a < 1e-3));
}

#[test]
fn a_cape_trails_behind_the_motion() {
    let (rig, joint) = cape();
    let mut state = SpringState::default();
    let mut pose = rest_pose(&rig);
    for tick in 0..12 {
        pose = rest_pose(&rig);
        let body = Affine3A::from_translation(Vec3::Z * 0.15 * tick as f32);
        joint.step(&mut state, &mut pose, &rig, &body);
    }
    let axis = pose.nodes[0].matrix.transform_vector3(Vec3::NEG_Y);
    assert!(axis.z < -0.1, "moving +Z, the tip swings back: {axis:?}");
}

#[test]
fn a_teleport_restarts_the_spring_instead_of_flinging_it() {
    let jump = |tick: u32| Affine3A::from_translation(Vec3::X * if tick >= 5 { 50.0 } else { 0.0 });
    let angles = swing(10, jump);
    assert!(angles.iter().all(|a| *a < 1e-3), "{angles:?}");
}

#[test]
fn moved_nodes_are_the_turned_ones_and_everything_below() {
    let rig = body();
    let solvers = Solvers {
        look_at: Some((
            LookAtChain {
                nodes: vec![1],
                cumulative_shares: vec![1.0],
                ..look_chain(70.0)
            },
            LookSource::OwnLook,
        )),
        ik: vec![IkSolver {
            chain: arm(),
            effector: Effector::None,
        }],
        springs: Vec::new(),
    };
    assert!(solvers.is_active());
    assert_eq!(
        solvers.moved_nodes(&rig, &[]),
        [false, true, true, false, false, false]
    );
    assert_eq!(
        solvers.moved_nodes(&rig, &[5]),
        [false, true, true, true, true, true]
    );
    let idle = Solvers {
        look_at: None,
        ..solvers
    };
    assert!(!idle.is_active());
}
