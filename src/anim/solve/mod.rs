//! The solvers that bend a sampled pose toward the live world, run every
//! tick after the tracks: look-at, then two-bone IK, then springs (the
//! order of seed 004 and seed 001's `IKControl` and `JointSpring`).
//!
//! # The model
//! A solver never replaces the animation; it turns nodes the tracks have
//! already posed. Every turn is a rotation **in the root's frame** (the
//! participant's feet at the origin, facing +Z, +Y up, the right hand at
//! −X) about the turned node's own origin: [`turn_in_root_frame`] folds it
//! into the node's local rotation, so the node keeps its position and
//! scale, and its children follow. A solver only turns nodes, so a chain
//! keeps its lengths whatever it reaches for.
//!
//! - [`look_at`]: the head, neck and up to two spine nodes share a turn
//!   toward a direction, clamped to a cone around the body's facing;
//! - [`two_bone`]: an end node reaches a point by bending its parent and
//!   grandparent, in a plane a pole picks or the animation gave;
//! - [`spring`]: a node lags and swings behind a tip simulated in the
//!   world.
//!
//! These are the math on one pose; which solvers an Animation has (by
//! node index) is [`Solvers`], and the state they carry from tick to tick
//! with the inputs the server feeds is [`crate::playback::live`].

pub mod look_at;
pub mod spring;
#[cfg(test)]
mod tests;
pub mod two_bone;

use glam::{Affine3A, Quat, Vec3};

use super::pose::Pose;
use super::rig::Rig;

pub use look_at::{LookAngles, LookAtChain};
pub use spring::{SpringJoint, SpringState};
pub use two_bone::TwoBoneChain;

/// Where a look-at turns the chain: the participant's own look, the other
/// participant of a two-player Sequence, the nearest other player, or a
/// node of the same Animation (by rig index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookSource {
    /// Where the participant looks (the head follows the mouse).
    OwnLook,
    /// The other participant's head (the own look when alone).
    Partner,
    /// The nearest other player's eyes (the own look when none is near).
    NearestPlayer,
    /// A node of the Animation.
    Node(usize),
}

/// What an IK chain reaches for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Effector {
    /// Nothing: the chain is declared for an author (or `emoted sample
    /// --reach`) to use, and stays as animated.
    None,
    /// A node of the same Animation (by rig index).
    Node(usize),
    /// The other participant's node of this rig index (its own copy of
    /// the node, or the partner node of that id): both ends meet halfway.
    Partner(usize),
    /// A point in the participant's frame, blocks.
    Point(Vec3),
}

/// A declared IK chain and what it reaches for.
#[derive(Clone, Debug, PartialEq)]
pub struct IkSolver {
    /// The chain.
    pub chain: TwoBoneChain,
    /// Its effector.
    pub effector: Effector,
}

/// The solvers of one Animation, by rig node index, in the order they run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Solvers {
    /// The look-at chain and its target.
    pub look_at: Option<(LookAtChain, LookSource)>,
    /// The IK chains (those without an effector too).
    pub ik: Vec<IkSolver>,
    /// The springs, parents before children.
    pub springs: Vec<SpringJoint>,
}

impl Solvers {
    /// True when a solver may turn a node on a tick with no live input
    /// given (declared chains without effectors do not).
    pub fn is_active(&self) -> bool {
        self.look_at.is_some()
            || !self.springs.is_empty()
            || self.ik.iter().any(|ik| ik.effector != Effector::None)
    }

    /// Per rig node: whether an active solver may move it (the nodes it
    /// turns and every node below them). `extra_ends` adds the chains of
    /// these end nodes (an effector given from outside).
    pub fn moved_nodes(&self, rig: &Rig, extra_ends: &[usize]) -> Vec<bool> {
        let mut moved = vec![false; rig.nodes.len()];
        let mut mark = |i: usize| {
            if let Some(m) = moved.get_mut(i) {
                *m = true;
            }
        };
        if let Some((chain, _)) = &self.look_at {
            chain.nodes.iter().for_each(|&i| mark(i));
        }
        for ik in self.ik.iter().filter(|ik| ik.effector != Effector::None) {
            mark(ik.chain.root);
        }
        // A declared chain is its end's parent and grandparent too.
        for &end in extra_ends {
            if let Some(chain) = TwoBoneChain::of_end(rig, end) {
                mark(chain.root);
            }
        }
        self.springs.iter().for_each(|s| mark(s.node));
        for (i, node) in rig.nodes.iter().enumerate() {
            if let Some(p) = node.parent {
                if moved[p] {
                    moved[i] = true;
                }
            }
        }
        moved
    }
}

/// A node's origin in the root's frame.
pub fn origin(pose: &Pose, index: usize) -> Vec3 {
    pose.nodes[index].matrix.translation.into()
}

/// The rotation part of a composed matrix (its scale divided out).
fn rotation_of(matrix: &Affine3A) -> Quat {
    let (_, rotation, _) = matrix.to_scale_rotation_translation();
    rotation
}

/// Turns node `index` by `turn`, a rotation in the root's frame about the
/// node's own origin, and recomposes it and every node after it (its
/// children come after it).
pub fn turn_in_root_frame(pose: &mut Pose, rig: &Rig, index: usize, turn: Quat) {
    let Some(node) = rig.nodes.get(index) else {
        return;
    };
    let parent = node
        .parent
        .map_or(Quat::IDENTITY, |p| rotation_of(&pose.nodes[p].matrix));
    let local = pose.nodes[index].rotation;
    // parent · local' = turn · parent · local
    pose.nodes[index].rotation = (parent.inverse() * turn * parent * local).normalize();
    recompose_from(pose, rig, index);
}

/// Recomposes the matrices of node `from` and every node after it from
/// their local transforms.
pub fn recompose_from(pose: &mut Pose, rig: &Rig, from: usize) {
    for i in from..rig.nodes.len().min(pose.nodes.len()) {
        let node = &pose.nodes[i];
        let local =
            Affine3A::from_scale_rotation_translation(node.scale, node.rotation, node.position);
        let matrix = match rig.nodes[i].parent {
            Some(p) => pose.nodes[p].matrix * local,
            None => local,
        };
        pose.nodes[i].matrix = matrix;
    }
}

/// Leaves each of `nodes` `weight` of the way from its local rotation in
/// `before` to the one `pose` has now, and recomposes (a solver's weight).
pub fn blend_from(pose: &mut Pose, rig: &Rig, before: &[(usize, Quat)], weight: f32) {
    if weight >= 1.0 {
        return;
    }
    let mut first = usize::MAX;
    for &(i, animated) in before {
        let solved = pose.nodes[i].rotation;
        pose.nodes[i].rotation = animated.slerp(solved, weight.max(0.0)).normalize();
        first = first.min(i);
    }
    if first != usize::MAX {
        recompose_from(pose, rig, first);
    }
}
