//! Look-at: the head, neck and up to two spine nodes share a turn toward a
//! direction (seed 004's `lookAt`, `lookAtWeight`, `lookAtLimit`).
//!
//! A look is a yaw and a pitch relative to the body's facing (+Z of the
//! root's frame), in Minecraft's sense: positive yaw turns right (toward
//! −X), positive pitch looks down. The look is clamped to the chain's
//! limits, scaled by its weight, and **added to the animated pose**: the
//! chain turns by `R_y(−yaw) · R_x(pitch)` in the root's frame, so a head
//! the animation tilts keeps its tilt and turns with the look, and at look
//! (0, 0) the animation plays as written. Node `k` of the chain (root-most
//! first) takes the turn from its predecessors' shares to its own
//! cumulative share, so the last node ends exactly at the whole turn.

use glam::{Quat, Vec3};

use super::turn_in_root_frame;
use crate::anim::pose::Pose;
use crate::anim::rig::Rig;

/// A look relative to the body's facing, radians.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LookAngles {
    /// Positive turns right (toward −X of the root's frame).
    pub yaw: f32,
    /// Positive looks down.
    pub pitch: f32,
}

impl LookAngles {
    /// The look at `yaw_degrees`, `pitch_degrees`.
    pub fn from_degrees(yaw_degrees: f32, pitch_degrees: f32) -> Self {
        Self {
            yaw: yaw_degrees.to_radians(),
            pitch: pitch_degrees.to_radians(),
        }
    }

    /// The look along `direction`: straight ahead for a zero or non-finite
    /// one, yaw 0 for one straight up or down (the emote camera's look at a
    /// point is this too).
    pub fn towards(direction: Vec3) -> Self {
        if !direction.is_finite() {
            return Self::default();
        }
        let horizontal = (direction.x * direction.x + direction.z * direction.z).sqrt();
        if horizontal <= f32::EPSILON && direction.y.abs() <= f32::EPSILON {
            return Self::default();
        }
        let yaw = if horizontal <= f32::EPSILON {
            0.0
        } else {
            (-direction.x).atan2(direction.z)
        };
        Self {
            yaw,
            pitch: (-direction.y).atan2(horizontal),
        }
    }

    /// The turn that takes the body's facing to this look, `fraction` of
    /// the way.
    pub fn rotation(self, fraction: f32) -> Quat {
        Quat::from_rotation_y(-self.yaw * fraction) * Quat::from_rotation_x(self.pitch * fraction)
    }

    /// The unit direction of this look, `(−sin yaw · cos pitch, −sin pitch,
    /// cos yaw · cos pitch)`: where [`Self::rotation`] turns +Z.
    pub fn direction(self) -> Vec3 {
        let horizontal = self.pitch.cos();
        Vec3::new(
            -self.yaw.sin() * horizontal,
            -self.pitch.sin(),
            self.yaw.cos() * horizontal,
        )
    }

    /// This look moved `fraction` of the way toward `target` (yaw along
    /// the shorter way round).
    pub fn approach(self, target: Self, fraction: f32) -> Self {
        let mut yaw_step = target.yaw - self.yaw;
        if yaw_step > std::f32::consts::PI {
            yaw_step -= std::f32::consts::TAU;
        } else if yaw_step < -std::f32::consts::PI {
            yaw_step += std::f32::consts::TAU;
        }
        Self {
            yaw: self.yaw + yaw_step * fraction,
            pitch: self.pitch + (target.pitch - self.pitch) * fraction,
        }
    }
}

/// A look-at chain, by rig node index.
#[derive(Clone, Debug, PartialEq)]
pub struct LookAtChain {
    /// The chain, root-most first (a spine node, …, the neck); each is an
    /// ancestor of the next.
    pub nodes: Vec<usize>,
    /// Per node, the share of the turn taken by it and the nodes before
    /// it (the last is 1).
    pub cumulative_shares: Vec<f32>,
    /// The largest yaw either way, radians.
    pub yaw_limit: f32,
    /// The largest pitch up or down, radians.
    pub pitch_limit: f32,
    /// How much of the clamped look the chain takes (0 to 1).
    pub weight: f32,
    /// The share of the remaining turn the look takes each tick (1: at
    /// once).
    pub smoothing: f32,
}

impl LookAtChain {
    /// `look` clamped to the cone of the chain's limits.
    pub fn clamp(&self, look: LookAngles) -> LookAngles {
        let mut yaw = look.yaw;
        if yaw > std::f32::consts::PI {
            yaw -= std::f32::consts::TAU;
        } else if yaw < -std::f32::consts::PI {
            yaw += std::f32::consts::TAU;
        }
        LookAngles {
            yaw: yaw.clamp(-self.yaw_limit, self.yaw_limit),
            pitch: look.pitch.clamp(-self.pitch_limit, self.pitch_limit),
        }
    }

    /// Turns the chain by `look` (already clamped and smoothed) times the
    /// weight, shared along the chain (module docs).
    pub fn apply(&self, pose: &mut Pose, rig: &Rig, look: LookAngles) {
        let look = LookAngles {
            yaw: look.yaw * self.weight,
            pitch: look.pitch * self.weight,
        };
        let mut done = Quat::IDENTITY;
        for (&node, &share) in self.nodes.iter().zip(&self.cumulative_shares) {
            let total = look.rotation(share);
            turn_in_root_frame(pose, rig, node, total * done.inverse());
            done = total;
        }
    }
}
