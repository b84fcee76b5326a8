//! The emote camera's geometry (issue 29), pure: where a camera that a
//! player looks through stands at each tick, and where it looks.
//!
//! # The model
//! A camera is an eye point and a look, yaw and pitch in Minecraft's sense
//! ([`CameraPose`]): yaw 0 looks along +Z and a positive yaw turns right,
//! a positive pitch looks down, so the look direction is
//! `(−sin yaw · cos pitch, −sin pitch, cos yaw · cos pitch)`
//! ([`look_direction`]), and [`look_at`] is its inverse.
//!
//! A **shot** ([`shot::Shot`], seed 004's procedural shots) places the eye
//! around a *target* point (the emoting body, or a node) in the target's
//! *frame*: its yaw, so that bearing 0 is the target's +Z, its front, and
//! bearings turn the way yaw does. A shot is evaluated at a time fraction
//! `u` in `[0, 1]` of its duration, reshaped by its easing, every tick, so
//! it follows a target that moves.
//!
//! A camera must not stand inside a block or look through a wall:
//! [`clearance::clear_eye`] walks the line from the target to the wanted
//! eye through the block grid and stops short of the first solid block.
//!
//! A file's shots are read by [`crate::format::camera`]
//! (`metadata.emoted.camera`) and become [`shot::Shot`]s here (radians).
//! [`director::shot_at`] picks the shot of each tick and says where a cut
//! falls, and [`flight::Flight`] is one player's camera from start to
//! release: the shots, or the orbit the player steers with the mouse when
//! the emote writes none. The server's side (the camera entity, the seat,
//! Set Camera and its release) is the server's camera plugin.

pub mod clearance;
pub mod director;
pub mod flight;
pub mod sample;
pub mod shot;

use glam::Vec3;

use crate::anim::solve::LookAngles;

/// Where a camera is and where it looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraPose {
    /// The eye point, in blocks, in the world.
    pub eye: Vec3,
    /// The look's yaw, radians (Minecraft's sense: 0 looks along +Z,
    /// positive turns right).
    pub yaw_radians: f32,
    /// The look's pitch, radians (positive looks down), within ±π/2.
    pub pitch_radians: f32,
}

impl CameraPose {
    /// A camera at `eye` looking at `target` (straight ahead, along +Z,
    /// when the two are the same point).
    pub fn looking_at(eye: Vec3, target: Vec3) -> CameraPose {
        let (yaw_radians, pitch_radians) = look_at(eye, target);
        CameraPose {
            eye,
            yaw_radians,
            pitch_radians,
        }
    }
}

/// The horizontal unit vector a yaw faces: yaw 0 is +Z, a quarter turn
/// right (yaw π/2) is −X.
pub fn facing(yaw_radians: f32) -> Vec3 {
    Vec3::new(-yaw_radians.sin(), 0.0, yaw_radians.cos())
}

/// The unit vector a look (yaw, pitch) points along.
pub fn look_direction(yaw_radians: f32, pitch_radians: f32) -> Vec3 {
    LookAngles {
        yaw: yaw_radians,
        pitch: pitch_radians,
    }
    .direction()
}

/// The look (yaw, pitch) from `eye` toward `target`; (0, 0) when they are
/// the same point (or not finite), and yaw 0 when the target is straight
/// above or below.
pub fn look_at(eye: Vec3, target: Vec3) -> (f32, f32) {
    let look = LookAngles::towards(target - eye);
    (look.yaw, look.pitch)
}

#[cfg(test)]
mod tests {
    use std::f32::consts::FRAC_PI_2;

    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        a.distance(b) < 1e-5
    }

    #[test]
    fn yaw_zero_faces_plus_z_and_a_quarter_right_faces_minus_x() {
        assert!(close(facing(0.0), Vec3::Z));
        assert!(close(facing(FRAC_PI_2), -Vec3::X));
        assert!(close(facing(-FRAC_PI_2), Vec3::X));
        assert!(
            close(look_direction(0.0, FRAC_PI_2), -Vec3::Y),
            "pitch +90° looks down"
        );
    }

    #[test]
    fn look_at_is_the_inverse_of_the_look_direction() {
        for (yaw, pitch) in [(0.3, 0.2), (-2.5, -0.7), (3.0, 1.2), (-0.1, 0.0)] {
            let eye = Vec3::new(4.0, 70.0, -3.0);
            let target = eye + look_direction(yaw, pitch) * 6.0;
            let (y, p) = look_at(eye, target);
            assert!(
                (y - yaw).abs() < 1e-4 && (p - pitch).abs() < 1e-4,
                "{yaw} {pitch}: {y} {p}"
            );
        }
        assert_eq!(look_at(Vec3::ONE, Vec3::ONE), (0.0, 0.0));
        let (yaw, pitch) = look_at(Vec3::ZERO, Vec3::new(0.0, -3.0, 0.0));
        assert_eq!(yaw, 0.0);
        assert!((pitch - FRAC_PI_2).abs() < 1e-6, "straight down: {pitch}");
    }
}
