//! Springs (seed 001's `JointSpring`): a node lags and swings behind a
//! tip simulated in the world, like a cape, a tail or an ear.
//!
//! The tip is a point `length` blocks out along the node's `axis` (its own
//! frame). Each tick the animation says where the tip should be (the
//! **goal**); the simulated tip is pulled toward it (`stiffness`, per
//! second²), slowed by the air (`damping`, per second: drag on its speed
//! in the world, so a tip trails by `damping · speed / stiffness` while
//! the body moves), pulled down by `gravity` (blocks per second²), and
//! kept `length` from the node's origin. The node then turns by the
//! shortest arc that points its axis at the tip. The simulation runs in
//! [`SUBSTEPS`] steps per tick, with the node's origin and the goal moving
//! linearly across the tick, and starts over at the goal when the node
//! jumps more than [`RESTART_BLOCKS`] in one tick (a teleport), so it is
//! never flung.

use glam::{Affine3A, Quat, Vec3};

use super::{origin, turn_in_root_frame};
use crate::anim::pose::Pose;
use crate::anim::rig::Rig;

/// A node that moves farther than this in one tick restarts its spring,
/// blocks.
pub const RESTART_BLOCKS: f32 = 4.0;

/// Simulation steps per tick.
pub const SUBSTEPS: u32 = 8;

/// One tick, seconds.
pub const TICK_SECONDS: f32 = 0.05;

/// A spring on one node.
#[derive(Clone, Debug, PartialEq)]
pub struct SpringJoint {
    /// The node (rig index).
    pub node: usize,
    /// The unit direction of the tip in the node's own frame.
    pub axis: Vec3,
    /// How far out the tip is, blocks (above zero).
    pub length_blocks: f32,
    /// Pull toward the animated tip, per second².
    pub stiffness: f32,
    /// Drag on the tip's speed, per second.
    pub damping: f32,
    /// Downward pull, blocks per second².
    pub gravity: f32,
}

/// A spring's simulated tip, in the world.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpringState {
    /// The tip, the node's origin and the goal at the end of the last
    /// tick (`None` before the first tick, or after a restart).
    last: Option<(Vec3, Vec3, Vec3)>,
    /// The tip's velocity, blocks per second.
    velocity: Vec3,
}

impl SpringState {
    /// Forgets the tip: the next tick starts at the animated pose.
    pub fn restart(&mut self) {
        *self = Self::default();
    }
}

impl SpringJoint {
    /// One tick: simulates the tip with the root's frame placed in the
    /// world by `body` (root frame → world), then turns the node toward it.
    pub fn step(&self, state: &mut SpringState, pose: &mut Pose, rig: &Rig, body: &Affine3A) {
        let Some(node) = pose.nodes.get(self.node) else {
            return;
        };
        let animated_axis = node.matrix.transform_vector3(self.axis);
        let Some(animated_axis) = animated_axis.try_normalize() else {
            return;
        };
        let origin_world = body.transform_point3(origin(pose, self.node));
        let goal = origin_world + body.transform_vector3(animated_axis) * self.length_blocks;
        if !(origin_world.is_finite() && goal.is_finite()) {
            return;
        }
        let (mut tip, from_origin, from_goal) = match state.last {
            Some((tip, last_origin, last_goal))
                if last_origin.distance(origin_world) <= RESTART_BLOCKS && tip.is_finite() =>
            {
                (tip, last_origin, last_goal)
            }
            _ => {
                state.velocity = Vec3::ZERO;
                (goal, origin_world, goal)
            }
        };
        let h = TICK_SECONDS / SUBSTEPS as f32;
        let gravity = Vec3::new(0.0, -self.gravity, 0.0);
        for step in 1..=SUBSTEPS {
            let f = step as f32 / SUBSTEPS as f32;
            let center = from_origin.lerp(origin_world, f);
            let pull = from_goal.lerp(goal, f);
            let acceleration =
                (pull - tip) * self.stiffness - state.velocity * self.damping + gravity;
            state.velocity += acceleration * h;
            let moved = tip + state.velocity * h;
            // On the sphere of `length` round the origin; the speed is what
            // the step really moved.
            let constrained = match (moved - center).try_normalize() {
                Some(out) => center + out * self.length_blocks,
                None => pull,
            };
            state.velocity = (constrained - tip) / h;
            tip = constrained;
        }
        if !tip.is_finite() || !state.velocity.is_finite() {
            state.restart();
            return;
        }
        state.last = Some((tip, origin_world, goal));
        let Some(to_tip) = body
            .inverse()
            .transform_vector3(tip - origin_world)
            .try_normalize()
        else {
            return;
        };
        turn_in_root_frame(
            pose,
            rig,
            self.node,
            Quat::from_rotation_arc(animated_axis, to_tip),
        );
    }
}
