//! Seed 004's procedural shots: where the eye is, and where it looks, at a
//! fraction of a shot's duration (see the module guide of
//! [`super`] for the frame and the angles).
//!
//! Every shot is measured in the target's frame ([`Framing`]): bearings
//! are angles from the target's front (+Z at frame yaw 0) turning the way
//! yaw does (right), points are `[x, y, z]` in that frame. `u` is the
//! eased fraction: the caller applies the shot's easing
//! ([`crate::format::track::Easing::apply`]; seed 004's default, `smooth`,
//! is `ease_in_out_sine` here) to its linear time fraction.
//!
//! Seed 004's `flyover` and its look targets other than the target (pan
//! from entity to entity, a path looking along itself) are not here yet.

use std::f32::consts::FRAC_PI_2;

use glam::{Quat, Vec3};

use super::{facing, CameraPose};
use crate::format::camera::ShotKind;

/// The target a shot frames: a point and the frame's yaw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Framing {
    /// The point the camera looks at, in the world (blocks).
    pub target: Vec3,
    /// The frame's yaw, radians (Minecraft's sense): bearing 0 faces
    /// [`facing`] of it.
    pub frame_yaw_radians: f32,
}

impl Framing {
    /// A point given in the target's frame, in the world.
    pub fn to_world(&self, in_frame: Vec3) -> Vec3 {
        self.target + Quat::from_rotation_y(-self.frame_yaw_radians) * in_frame
    }

    /// The horizontal unit vector of a bearing.
    fn bearing(&self, bearing_radians: f32) -> Vec3 {
        facing(self.frame_yaw_radians + bearing_radians)
    }
}

/// One procedural shot (seed 004's table of shots).
#[derive(Clone, Debug, PartialEq)]
pub enum Shot {
    /// Around the target: `radius_blocks` out and `height_blocks` up,
    /// the bearing going from `from_radians` to `to_radians`.
    Orbit {
        /// Horizontal distance from the target.
        radius_blocks: f32,
        /// Height above the target.
        height_blocks: f32,
        /// Bearing at the start.
        from_radians: f32,
        /// Bearing at the end.
        to_radians: f32,
    },
    /// Along one bearing, from `far_blocks` to `near_blocks` away.
    Dolly {
        /// The bearing.
        bearing_radians: f32,
        /// Height above the target.
        height_blocks: f32,
        /// Distance at the start.
        far_blocks: f32,
        /// Distance at the end.
        near_blocks: f32,
    },
    /// At one bearing and distance, rising from `low_blocks` to
    /// `high_blocks` above the target.
    Crane {
        /// The bearing.
        bearing_radians: f32,
        /// Horizontal distance from the target.
        distance_blocks: f32,
        /// Height at the start.
        low_blocks: f32,
        /// Height at the end.
        high_blocks: f32,
    },
    /// Side-on at a bearing and distance, sliding to the target's right by
    /// `from_blocks` to `to_blocks` while it follows the target, its look
    /// square to the bearing.
    Track {
        /// The bearing.
        bearing_radians: f32,
        /// Horizontal distance from the target's line.
        distance_blocks: f32,
        /// Height above the target.
        height_blocks: f32,
        /// Slide at the start (to the right, seen from the camera: negative is left).
        from_blocks: f32,
        /// Slide at the end.
        to_blocks: f32,
    },
    /// Fixed at `offset` in the target's frame, looking at the target.
    Static {
        /// The eye, in the target's frame.
        offset: Vec3,
    },
    /// Fixed at `offset` in the target's frame, the look turning from
    /// yaw `from_radians` to `to_radians` (relative to the frame) at a
    /// fixed pitch.
    Pan {
        /// The eye, in the target's frame.
        offset: Vec3,
        /// Look yaw at the start, relative to the frame.
        from_radians: f32,
        /// Look yaw at the end.
        to_radians: f32,
        /// The look's pitch.
        pitch_radians: f32,
    },
    /// Through `points` (in the target's frame) on a Catmull-Rom spline,
    /// each segment an equal share of the time, looking at the target.
    Path {
        /// The points, first to last (at least one).
        points: Vec<Vec3>,
    },
}

impl Shot {
    /// The camera at eased fraction `u` (clamped to `[0, 1]`) of the shot,
    /// framing `framing`.
    pub fn pose(&self, framing: &Framing, u: f32) -> CameraPose {
        let u = if u.is_finite() {
            u.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let lerp = |a: f32, b: f32| a + (b - a) * u;
        let target = framing.target;
        let up = Vec3::Y;
        let eye = match self {
            Shot::Orbit {
                radius_blocks,
                height_blocks,
                from_radians,
                to_radians,
            } => {
                target
                    + framing.bearing(lerp(*from_radians, *to_radians)) * *radius_blocks
                    + up * *height_blocks
            }
            Shot::Dolly {
                bearing_radians,
                height_blocks,
                far_blocks,
                near_blocks,
            } => {
                target
                    + framing.bearing(*bearing_radians) * lerp(*far_blocks, *near_blocks)
                    + up * *height_blocks
            }
            Shot::Crane {
                bearing_radians,
                distance_blocks,
                low_blocks,
                high_blocks,
            } => {
                target
                    + framing.bearing(*bearing_radians) * *distance_blocks
                    + up * lerp(*low_blocks, *high_blocks)
            }
            Shot::Track {
                bearing_radians,
                distance_blocks,
                height_blocks,
                from_blocks,
                to_blocks,
            } => {
                // The camera faces back along the bearing; its right is
                // the bearing turned a quarter turn left.
                let right = framing.bearing(*bearing_radians - FRAC_PI_2);
                let beside = target + right * lerp(*from_blocks, *to_blocks);
                let eye = beside
                    + framing.bearing(*bearing_radians) * *distance_blocks
                    + up * *height_blocks;
                return CameraPose::looking_at(eye, beside);
            }
            Shot::Static { offset } => framing.to_world(*offset),
            Shot::Pan {
                offset,
                from_radians,
                to_radians,
                pitch_radians,
            } => {
                return CameraPose {
                    eye: framing.to_world(*offset),
                    yaw_radians: framing.frame_yaw_radians + lerp(*from_radians, *to_radians),
                    pitch_radians: pitch_radians.clamp(-FRAC_PI_2, FRAC_PI_2),
                }
            }
            Shot::Path { points } => framing.to_world(catmull_rom(points, u)),
        };
        CameraPose::looking_at(eye, target)
    }
}

impl Shot {
    /// A shot as a file writes it (`metadata.emoted.camera`, degrees) in
    /// the runtime's units (radians); `None` for the two that are not a
    /// function of time alone, the steered orbit and the keyed node
    /// ([`super::flight`] flies those).
    pub fn procedural(kind: &ShotKind) -> Option<Shot> {
        Some(match kind {
            ShotKind::Orbit {
                radius_blocks,
                height_blocks,
                sweep_degrees: Some([from_degrees, to_degrees]),
            } => Shot::Orbit {
                radius_blocks: *radius_blocks,
                height_blocks: *height_blocks,
                from_radians: from_degrees.to_radians(),
                to_radians: to_degrees.to_radians(),
            },
            ShotKind::Orbit {
                sweep_degrees: None,
                ..
            }
            | ShotKind::Keyed { .. } => return None,
            ShotKind::Follow {
                distance_blocks,
                height_blocks,
            } => Shot::Static {
                offset: Vec3::new(0.0, *height_blocks, -*distance_blocks),
            },
            ShotKind::Dolly {
                angle_degrees,
                height_blocks,
                far_blocks,
                near_blocks,
            } => Shot::Dolly {
                bearing_radians: angle_degrees.to_radians(),
                height_blocks: *height_blocks,
                far_blocks: *far_blocks,
                near_blocks: *near_blocks,
            },
            ShotKind::Crane {
                angle_degrees,
                distance_blocks,
                low_blocks,
                high_blocks,
            } => Shot::Crane {
                bearing_radians: angle_degrees.to_radians(),
                distance_blocks: *distance_blocks,
                low_blocks: *low_blocks,
                high_blocks: *high_blocks,
            },
            ShotKind::Fixed { position_blocks } => Shot::Static {
                offset: *position_blocks,
            },
            ShotKind::Path { points_blocks } => Shot::Path {
                points: points_blocks.clone(),
            },
        })
    }
}

/// The point at fraction `u` along a uniform Catmull-Rom spline through
/// `points` (the ends repeated as their own neighbours); the origin for
/// no points.
fn catmull_rom(points: &[Vec3], u: f32) -> Vec3 {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Vec3::ZERO;
    };
    if points.len() == 1 {
        return *first;
    }
    let segments = points.len() - 1;
    let s = u * segments as f32;
    let index = (s.floor() as usize).min(segments - 1);
    let t = s - index as f32;
    let at = |i: isize| -> Vec3 {
        match usize::try_from(i) {
            Ok(i) => points.get(i).copied().unwrap_or(*last),
            Err(_) => *first,
        }
    };
    let i = index as isize;
    let (p0, p1, p2, p3) = (at(i - 1), at(i), at(i + 1), at(i + 2));
    let (t2, t3) = (t * t, t * t * t);
    0.5 * ((2.0 * p1)
        + (p2 - p0) * t
        + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * t2
        + (3.0 * p1 - p0 - 3.0 * p2 + p3) * t3)
}

#[cfg(test)]
mod tests {
    use std::f32::consts::PI;

    use super::super::look_direction;
    use super::*;

    const TARGET: Vec3 = Vec3::new(10.0, 65.0, -4.0);

    fn framing(yaw_degrees: f32) -> Framing {
        Framing {
            target: TARGET,
            frame_yaw_radians: yaw_degrees.to_radians(),
        }
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        a.distance(b) < 1e-4
    }

    /// The pose looks at `point`.
    fn aims_at(pose: &CameraPose, point: Vec3) -> bool {
        let toward = (point - pose.eye).normalize();
        look_direction(pose.yaw_radians, pose.pitch_radians).dot(toward) > 0.9999
    }

    #[test]
    fn an_orbit_at_bearing_zero_stands_in_front_of_the_player_and_looks_back() {
        let orbit = Shot::Orbit {
            radius_blocks: 4.0,
            height_blocks: 0.5,
            from_radians: (-40f32).to_radians(),
            to_radians: 40f32.to_radians(),
        };
        let pose = orbit.pose(&framing(0.0), 0.5);
        assert!(
            close(pose.eye, TARGET + Vec3::new(0.0, 0.5, 4.0)),
            "{pose:?}"
        );
        assert!(aims_at(&pose, TARGET));
        assert!((pose.yaw_radians.abs() - PI).abs() < 1e-4, "looks along −Z");
        // The player turned a quarter right (facing −X): so is the orbit.
        let turned = orbit.pose(&framing(90.0), 0.5);
        assert!(
            close(turned.eye, TARGET + Vec3::new(-4.0, 0.5, 0.0)),
            "{turned:?}"
        );
        // It sweeps from the player's left-front to right-front: bearing
        // −40° is to the player's left (+X at frame yaw 0).
        let start = orbit.pose(&framing(0.0), 0.0);
        assert!(
            start.eye.x > TARGET.x && aims_at(&start, TARGET),
            "{start:?}"
        );
        let end = orbit.pose(&framing(0.0), 1.0);
        assert!(end.eye.x < TARGET.x, "{end:?}");
        for u in [0.0, 0.3, 0.7, 1.0] {
            let p = orbit.pose(&framing(30.0), u);
            let flat = Vec3::new(p.eye.x - TARGET.x, 0.0, p.eye.z - TARGET.z);
            assert!((flat.length() - 4.0).abs() < 1e-4 && aims_at(&p, TARGET));
        }
    }

    #[test]
    fn dolly_crane_and_track_move_as_they_say() {
        let dolly = Shot::Dolly {
            bearing_radians: 0.0,
            height_blocks: 0.0,
            far_blocks: 6.0,
            near_blocks: 2.0,
        };
        assert!(close(
            dolly.pose(&framing(0.0), 0.0).eye,
            TARGET + Vec3::Z * 6.0
        ));
        assert!(close(
            dolly.pose(&framing(0.0), 1.0).eye,
            TARGET + Vec3::Z * 2.0
        ));
        assert!(close(
            dolly.pose(&framing(0.0), 0.25).eye,
            TARGET + Vec3::Z * 5.0
        ));
        let crane = Shot::Crane {
            bearing_radians: PI,
            distance_blocks: 3.0,
            low_blocks: 0.5,
            high_blocks: 8.0,
        };
        let high = crane.pose(&framing(0.0), 1.0);
        assert!(
            close(high.eye, TARGET + Vec3::new(0.0, 8.0, -3.0)),
            "behind: {high:?}"
        );
        assert!(high.pitch_radians > 1.0, "looks down on the player");
        let track = Shot::Track {
            bearing_radians: 0.0,
            distance_blocks: 5.0,
            height_blocks: 0.0,
            from_blocks: -2.0,
            to_blocks: 2.0,
        };
        let (a, b) = (
            track.pose(&framing(0.0), 0.0),
            track.pose(&framing(0.0), 1.0),
        );
        // In front, looking back (−Z): its right is +X.
        assert!(close(a.eye, TARGET + Vec3::new(-2.0, 0.0, 5.0)), "{a:?}");
        assert!(close(b.eye, TARGET + Vec3::new(2.0, 0.0, 5.0)), "{b:?}");
        assert!(
            (a.yaw_radians - b.yaw_radians).abs() < 1e-5,
            "square to the bearing"
        );
    }

    #[test]
    fn static_and_pan_stay_put_in_the_frame_and_follow_the_target() {
        let fixed = Shot::Static {
            offset: Vec3::new(1.0, 1.5, 3.0),
        };
        let here = fixed.pose(&framing(0.0), 0.4);
        assert!(close(here.eye, TARGET + Vec3::new(1.0, 1.5, 3.0)));
        assert!(aims_at(&here, TARGET));
        let moved = Framing {
            target: TARGET + Vec3::X * 2.0,
            ..framing(0.0)
        };
        assert!(close(fixed.pose(&moved, 0.4).eye, here.eye + Vec3::X * 2.0));
        let pan = Shot::Pan {
            offset: Vec3::new(0.0, 1.0, 3.0),
            from_radians: -0.5,
            to_radians: 0.5,
            pitch_radians: 0.1,
        };
        let mid = pan.pose(&framing(90.0), 0.5);
        assert!((mid.yaw_radians - FRAC_PI_2).abs() < 1e-5);
        assert!((mid.pitch_radians - 0.1).abs() < 1e-6);
    }

    #[test]
    fn a_path_passes_through_its_points_and_looks_at_the_target() {
        let points = vec![
            Vec3::new(0.0, 1.0, 4.0),
            Vec3::new(3.0, 2.0, 2.0),
            Vec3::new(0.0, 3.0, -4.0),
        ];
        let path = Shot::Path {
            points: points.clone(),
        };
        for (u, point) in [(0.0, points[0]), (0.5, points[1]), (1.0, points[2])] {
            let pose = path.pose(&framing(0.0), u);
            assert!(close(pose.eye, TARGET + point), "u {u}: {pose:?}");
            assert!(aims_at(&pose, TARGET));
        }
        // Between knots it is smooth: no jump from one tick to the next.
        let mut last = path.pose(&framing(0.0), 0.0).eye;
        for tick in 1..=100 {
            let eye = path.pose(&framing(0.0), tick as f32 / 100.0).eye;
            assert!(eye.distance(last) < 0.3, "tick {tick}");
            last = eye;
        }
        let one = Shot::Path {
            points: vec![Vec3::Z],
        };
        assert!(close(one.pose(&framing(0.0), 0.7).eye, TARGET + Vec3::Z));
        let none = Shot::Path { points: vec![] };
        assert!(close(none.pose(&framing(0.0), 0.7).eye, TARGET));
    }

    #[test]
    fn a_files_shot_is_the_same_shot_in_radians() {
        let written = ShotKind::Orbit {
            radius_blocks: 3.0,
            height_blocks: 0.2,
            sweep_degrees: Some([-90.0, 90.0]),
        };
        let shot = Shot::procedural(&written).expect("a sweep");
        let start = shot.pose(&framing(0.0), 0.0);
        // Bearing −90°: the player's left, +X at frame yaw 0.
        assert!(
            close(start.eye, TARGET + Vec3::new(3.0, 0.2, 0.0)),
            "{start:?}"
        );
        let crane = Shot::procedural(&ShotKind::Crane {
            angle_degrees: 180.0,
            distance_blocks: 2.0,
            low_blocks: 1.0,
            high_blocks: 1.0,
        })
        .expect("a crane");
        assert!(close(
            crane.pose(&framing(0.0), 0.5).eye,
            TARGET + Vec3::new(0.0, 1.0, -2.0)
        ));
        // Follow: behind and above, turning with the body.
        let follow = Shot::procedural(&ShotKind::Follow {
            distance_blocks: 4.0,
            height_blocks: 1.5,
        })
        .expect("a follow");
        assert!(close(
            follow.pose(&framing(90.0), 0.0).eye,
            TARGET + Vec3::new(4.0, 1.5, 0.0)
        ));
        let steered = ShotKind::Orbit {
            radius_blocks: 3.0,
            height_blocks: 0.2,
            sweep_degrees: None,
        };
        assert_eq!(Shot::procedural(&steered), None);
        assert_eq!(
            Shot::procedural(&ShotKind::Keyed {
                node: "camera".into()
            }),
            None
        );
    }

    #[test]
    fn a_fraction_out_of_range_is_clamped() {
        let dolly = Shot::Dolly {
            bearing_radians: 0.0,
            height_blocks: 0.0,
            far_blocks: 6.0,
            near_blocks: 2.0,
        };
        let f = framing(0.0);
        assert_eq!(dolly.pose(&f, -3.0), dolly.pose(&f, 0.0));
        assert_eq!(dolly.pose(&f, 7.0), dolly.pose(&f, 1.0));
        assert_eq!(dolly.pose(&f, f32::NAN), dolly.pose(&f, 0.0));
    }
}
