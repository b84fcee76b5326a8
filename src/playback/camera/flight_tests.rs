use std::collections::HashSet;

use glam::IVec3;

use super::*;
use crate::format::camera::ShotKind;
use crate::format::track::Easing;

const FEET: Vec3 = Vec3::new(10.0, 64.0, -4.0);

/// A world of the solid blocks listed.
struct Blocks(HashSet<IVec3>);

impl SolidBlocks for Blocks {
    fn is_solid(&self, block: IVec3) -> bool {
        self.0.contains(&block)
    }
}

fn open_air() -> Blocks {
    Blocks(HashSet::new())
}

fn no_nodes(_: &str) -> Option<Mat4> {
    None
}

fn scene<'a>(look: LookDegrees, blocks: &'a Blocks, yaw_degrees: f32) -> Scene<'a, Blocks> {
    Scene {
        body: Framing {
            target: FEET,
            frame_yaw_radians: yaw_degrees.to_radians(),
        },
        look,
        other_body: None,
        rig_reach_blocks: 1.0,
        node_matrix: &no_nodes,
        blocks,
    }
}

fn look(yaw: f32, pitch: f32) -> LookDegrees {
    LookDegrees { yaw, pitch }
}

/// The eye's bearing round the aim point, degrees, from the body's front
/// (yaw 0: +Z), turning right.
fn bearing_degrees(eye: Vec3) -> f32 {
    let d = eye - FEET;
    (-d.x).atan2(d.z).to_degrees()
}

#[test]
fn the_steered_orbit_starts_in_front_of_the_body_looking_back_at_it() {
    let blocks = open_air();
    let mut flight = Flight::new(vec![], look(30.0, 5.0), FlightSettings::default());
    assert!(flight.is_steered());
    let frame = flight.step(0, &scene(look(30.0, 5.0), &blocks, 0.0));
    let aim = FEET + Vec3::Y;
    let eye = frame.pose.eye;
    assert!((eye.distance(aim) - 4.0).abs() < 1e-3, "{eye}");
    assert!(bearing_degrees(eye).abs() < 1e-3, "in front: {eye}");
    assert!(eye.y > aim.y, "a little above: {eye}");
    let toward = (aim - eye).normalize();
    let looking = look_direction(frame.pose.yaw_radians, frame.pose.pitch_radians);
    assert!(looking.dot(toward) > 0.9999);
    assert!(!frame.cut);
}

#[test]
fn turning_the_mouse_steers_the_bearing_and_pitching_it_the_elevation() {
    let blocks = open_air();
    let mut flight = Flight::new(vec![], look(170.0, 0.0), FlightSettings::default());
    flight.step(0, &scene(look(170.0, 0.0), &blocks, 0.0));
    // 90° to the right (across the ±180° seam): the camera goes round
    // to the body's right, most of the way within 5 ticks.
    let mut bearings = vec![];
    for tick in 1..=20 {
        let frame = flight.step(tick, &scene(look(-100.0, 0.0), &blocks, 0.0));
        bearings.push(bearing_degrees(frame.pose.eye));
    }
    assert!(bearings[4] > 80.0, "{bearings:?}");
    assert!((bearings[19] - 90.0).abs() < 0.1, "{bearings:?}");
    assert!(
        bearings.windows(2).all(|w| w[1] >= w[0] - 1e-3),
        "eased, no overshoot"
    );
    // Looking down raises the camera, up to its limit.
    for tick in 21..=60 {
        flight.step(tick, &scene(look(-100.0, 90.0), &blocks, 0.0));
    }
    let high = flight
        .step(61, &scene(look(-100.0, 90.0), &blocks, 0.0))
        .pose;
    let aim = FEET + Vec3::Y;
    let elevation = ((high.eye.y - aim.y) / high.eye.distance(aim))
        .asin()
        .to_degrees();
    assert!(
        (elevation - MAX_ELEVATION_DEGREES).abs() < 0.5,
        "{elevation}"
    );
}

#[test]
fn the_orbit_turns_with_the_body_and_backs_off_for_a_wide_pose() {
    let blocks = open_air();
    let mut flight = Flight::new(vec![], look(0.0, 0.0), FlightSettings::default());
    let frame = flight.step(0, &scene(look(0.0, 0.0), &blocks, 90.0));
    // The body faces −X: so does the camera's bearing 0.
    assert!(frame.pose.eye.x < FEET.x - 3.5, "{:?}", frame.pose);
    let mut wide = scene(look(0.0, 0.0), &blocks, 90.0);
    wide.rig_reach_blocks = 3.0;
    let mut distance = 0.0;
    for tick in 1..40 {
        distance = flight.step(tick, &wide).pose.eye.distance(FEET + Vec3::Y);
    }
    let wanted = 3.0 / 30f32.to_radians().tan();
    assert!((distance - wanted).abs() < 0.01, "{distance} vs {wanted}");
    wide.rig_reach_blocks = 30.0;
    for tick in 40..80 {
        distance = flight.step(tick, &wide).pose.eye.distance(FEET + Vec3::Y);
    }
    assert!((distance - 7.0).abs() < 0.01, "at most the cap: {distance}");
}

#[test]
fn a_wall_pulls_the_camera_in_and_one_too_close_turns_it_round() {
    // A wall two blocks in front of the body (z = −4 + 2): the eye stops
    // short of it, on the same line.
    let wall: HashSet<IVec3> = (-5..25)
        .flat_map(|x| (60..75).map(move |y| IVec3::new(x, y, -2)))
        .collect();
    let blocks = Blocks(wall);
    let mut flight = Flight::new(vec![], look(0.0, 0.0), FlightSettings::default());
    let eye = flight
        .step(0, &scene(look(0.0, 0.0), &blocks, 0.0))
        .pose
        .eye;
    assert!(eye.z < -2.0 - 0.29 && eye.z > -2.0 - 0.31, "{eye}");
    assert!(!blocks.is_solid(eye.floor().as_ivec3()));
    // Hard against it (0.5 blocks): the eye turns to the first bearing
    // with a block of room, never in the wall.
    let near: HashSet<IVec3> = (-5..25)
        .flat_map(|x| (60..75).map(move |y| IVec3::new(x, y, -3)))
        .collect();
    let blocks = Blocks(near);
    let eye = flight
        .step(1, &scene(look(0.0, 0.0), &blocks, 0.0))
        .pose
        .eye;
    let aim = FEET + Vec3::Y;
    assert!(eye.distance(aim) >= 1.0 - 1e-3, "{eye}");
    assert!(!blocks.is_solid(eye.floor().as_ivec3()), "{eye}");
    // Walled in on every side, the camera rises.
    let mut pit = HashSet::new();
    for x in 8..13 {
        for z in -6..-1 {
            for y in 60..70 {
                if !(x == 10 && z == -4) {
                    pit.insert(IVec3::new(x, y, z));
                }
            }
        }
    }
    let blocks = Blocks(pit);
    let eye = flight
        .step(2, &scene(look(0.0, 0.0), &blocks, 0.0))
        .pose
        .eye;
    assert!(eye.y > aim.y + 1.0 && (eye.x - aim.x).abs() < 1e-3, "{eye}");
}

#[test]
fn written_shots_play_in_order_aimed_at_their_target() {
    let shots = vec![
        CameraShot {
            at_ticks: 0,
            duration_ticks: 10,
            target: ShotTarget::Initiator,
            offset_blocks: Vec3::new(0.0, 1.2, 0.0),
            ease: Easing::Linear,
            kind: ShotKind::Dolly {
                angle_degrees: 0.0,
                height_blocks: 0.0,
                far_blocks: 6.0,
                near_blocks: 2.0,
            },
        },
        CameraShot {
            at_ticks: 20,
            duration_ticks: 1,
            target: ShotTarget::Node("hand".into()),
            offset_blocks: Vec3::ZERO,
            ease: Easing::Linear,
            kind: ShotKind::Fixed {
                position_blocks: Vec3::new(0.0, 0.0, 2.0),
            },
        },
    ];
    let blocks = open_air();
    let hand = FEET + Vec3::new(0.5, 1.4, 0.3);
    let nodes = move |id: &str| (id == "hand").then_some(Mat4::from_translation(hand));
    let mut flight = Flight::new(shots, look(0.0, 0.0), FlightSettings::default());
    assert!(!flight.is_steered());
    let at = |flight: &mut Flight, tick: u32, look_yaw: f32| {
        flight.step(
            tick,
            &Scene {
                body: Framing {
                    target: FEET,
                    frame_yaw_radians: 0.0,
                },
                look: look(look_yaw, 0.0),
                other_body: None,
                rig_reach_blocks: 1.0,
                node_matrix: &nodes,
                blocks: &blocks,
            },
        )
    };
    let chest = FEET + Vec3::Y * 1.2;
    let start = at(&mut flight, 0, 0.0);
    assert!(start.pose.eye.distance(chest + Vec3::Z * 6.0) < 1e-4);
    assert!(
        at(&mut flight, 5, 0.0)
            .pose
            .eye
            .distance(chest + Vec3::Z * 4.0)
            < 1e-4
    );
    // The mouse steers nothing in a written shot.
    let held = at(&mut flight, 15, 120.0);
    assert!(held.pose.eye.distance(chest + Vec3::Z * 2.0) < 1e-4 && !held.cut);
    let cut = at(&mut flight, 20, 0.0);
    assert!(cut.cut);
    assert!(
        cut.pose.eye.distance(hand + Vec3::Z * 2.0) < 1e-4,
        "{cut:?}"
    );
}

#[test]
fn wrapping_keeps_angles_within_a_half_turn() {
    for (angle, wrapped) in [
        (0.0, 0.0),
        (PI, PI),
        (-PI, PI),
        (3.0 * PI / 2.0, -PI / 2.0),
        (-5.0 * PI / 2.0, -PI / 2.0),
        (f32::NAN, 0.0),
    ] {
        assert!((wrap_radians(angle) - wrapped).abs() < 1e-5, "{angle}");
    }
}

#[test]
fn the_follow_shot_stays_behind_the_body_whatever_the_mouse_does() {
    let blocks = open_air();
    let settings = FlightSettings {
        default_shot: DefaultShot::Follow,
        ..FlightSettings::default()
    };
    let mut flight = Flight::new(vec![], look(0.0, 0.0), settings);
    assert!(!flight.is_steered());
    for (tick, yaw) in [(0, 0.0), (1, 90.0), (2, -120.0)] {
        let eye = flight
            .step(tick, &scene(look(yaw, 40.0), &blocks, 0.0))
            .pose
            .eye;
        assert!((bearing_degrees(eye).abs() - 180.0).abs() < 1e-3, "{eye}");
        let aim = FEET + Vec3::Y;
        let elevation = ((eye.y - aim.y) / eye.distance(aim)).asin().to_degrees();
        assert!((elevation - FOLLOW_ELEVATION_DEGREES).abs() < 1e-3);
    }
    // The body turns a quarter right: the camera goes round with it.
    let mut turned = 0.0;
    for tick in 3..30 {
        turned = bearing_degrees(
            flight
                .step(tick, &scene(look(0.0, 0.0), &blocks, 90.0))
                .pose
                .eye,
        );
    }
    assert!((turned - -90.0).abs() < 1e-2, "{turned}");
}

#[test]
fn two_players_near_each_other_are_framed_together_and_far_apart_each_alone() {
    let blocks = open_air();
    // The partner 3 blocks in front (+Z) of a body facing +Z.
    let partner = Framing {
        target: FEET + Vec3::Z * 3.0,
        frame_yaw_radians: std::f32::consts::PI,
    };
    let mut flight = Flight::new(vec![], look(0.0, 0.0), FlightSettings::default());
    let mut two = scene(look(0.0, 0.0), &blocks, 0.0);
    two.other_body = Some(partner);
    let mut pose = flight.step(0, &two).pose;
    for tick in 1..30 {
        pose = flight.step(tick, &two).pose;
    }
    let middle = FEET + Vec3::new(0.0, 1.0, 1.5);
    // Side-on: the eye is off the line between them (x), level with the
    // middle along it (z), looking at the middle.
    assert!((pose.eye.z - middle.z).abs() < 1e-3, "{pose:?}");
    assert!((pose.eye.x - middle.x).abs() > 3.0, "{pose:?}");
    let toward = (middle - pose.eye).normalize();
    assert!(look_direction(pose.yaw_radians, pose.pitch_radians).dot(toward) > 0.9999);
    // Both fit: 1.5 blocks each side of the middle, plus a block.
    let wanted = (1.5 + 1.0) / 30f32.to_radians().tan();
    assert!(
        (pose.eye.distance(middle) - wanted).abs() < 0.01,
        "{pose:?}"
    );
    // Too far apart: the player's own orbit, in front of the body.
    let far = Framing {
        target: FEET + Vec3::Z * (TWO_SHOT_MAX_BLOCKS + 1.0),
        ..partner
    };
    let mut alone = scene(look(0.0, 0.0), &blocks, 0.0);
    alone.other_body = Some(far);
    let mut eye = Vec3::ZERO;
    for tick in 30..70 {
        eye = flight.step(tick, &alone).pose.eye;
    }
    assert!(bearing_degrees(eye).abs() < 0.5, "{eye}");
    assert!((eye.distance(FEET + Vec3::Y) - 4.0).abs() < 0.01, "{eye}");
}
