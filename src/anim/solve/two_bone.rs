//! Two-bone IK (seed 004's `ik` effector, seed 001's `IKControl` of type
//! `position`): an end node reaches a point; its parent (the elbow or
//! knee) and grandparent (the shoulder or hip) bend analytically.
//!
//! With `a`, `b`, `c` the origins of the grandparent, parent and end, the
//! lengths `|b − a|` and `|c − b|` stay. The end goes to the target, or as
//! far toward it as the straightened limb gets when it is out of reach
//! (closer than `|l₁ − l₂|`, the limb folds as far as it can). The elbow
//! goes where the two lengths meet, on the side the **pole** gives (a
//! direction in the root's frame: knees forward `[0, 0, 1]`), or without a
//! pole on the side the animation bent it (its bend plane is kept); a limb
//! the animation holds straight, with no pole, bends backward (−Z). The
//! grandparent turns by the shortest arc that puts the parent there, then
//! the parent by the shortest arc that puts the end on the target: the end
//! node's own turn relative to its parent is left alone.

use glam::{Quat, Vec3};

use super::{blend_from, origin, turn_in_root_frame};
use crate::anim::pose::Pose;
use crate::anim::rig::Rig;

/// Below this, a length or a distance is taken as zero, blocks.
const EPSILON_BLOCKS: f32 = 1e-5;

/// A two-bone chain, by rig node index.
#[derive(Clone, Debug, PartialEq)]
pub struct TwoBoneChain {
    /// The grandparent (shoulder, hip).
    pub root: usize,
    /// The parent (elbow, knee).
    pub mid: usize,
    /// The end (hand, foot).
    pub end: usize,
    /// The bend direction in the root's frame; `None` keeps the animated
    /// bend plane.
    pub pole: Option<Vec3>,
    /// How far from the animated pose to the solved one (0 to 1).
    pub weight: f32,
}

impl TwoBoneChain {
    /// The chain that ends at `end` (its parent and grandparent), with no
    /// pole and full weight; `None` for a node without a grandparent.
    pub fn of_end(rig: &Rig, end: usize) -> Option<Self> {
        let mid = rig.nodes.get(end)?.parent?;
        let root = rig.nodes.get(mid)?.parent?;
        Some(Self {
            root,
            mid,
            end,
            pole: None,
            weight: 1.0,
        })
    }

    /// Bends the chain so its end reaches `target` (root frame), as far as
    /// the limb allows (module docs).
    pub fn reach(&self, pose: &mut Pose, rig: &Rig, target: Vec3) {
        if !target.is_finite() || self.weight <= 0.0 {
            return;
        }
        let (a, b, c) = (
            origin(pose, self.root),
            origin(pose, self.mid),
            origin(pose, self.end),
        );
        let upper = (b - a).length();
        let lower = (c - b).length();
        let to_target = target - a;
        let distance = to_target.length();
        if upper < EPSILON_BLOCKS || lower < EPSILON_BLOCKS || distance < EPSILON_BLOCKS {
            return;
        }
        let along = to_target / distance;
        let reach = distance.clamp((upper - lower).abs(), upper + lower);
        let bend = self.bend_direction(along, b - a);
        // The elbow: `x` along the reach, `h` off it toward the bend.
        let x = (upper * upper - lower * lower + reach * reach) / (2.0 * reach);
        let h = (upper * upper - x * x).max(0.0).sqrt();
        let elbow = a + along * x + bend * h;
        let hand = a + along * reach;
        let before = [
            (self.root, pose.nodes[self.root].rotation),
            (self.mid, pose.nodes[self.mid].rotation),
        ];
        turn_in_root_frame(pose, rig, self.root, arc(b - a, elbow - a));
        let (b1, c1) = (origin(pose, self.mid), origin(pose, self.end));
        turn_in_root_frame(pose, rig, self.mid, arc(c1 - b1, hand - b1));
        blend_from(pose, rig, &before, self.weight);
    }

    /// The unit direction, across the reach `along`, the elbow goes.
    fn bend_direction(&self, along: Vec3, animated_upper: Vec3) -> Vec3 {
        let across = |v: Vec3| {
            let off = v - along * v.dot(along);
            (off.length() > 1e-4 * v.length().max(1e-6)).then(|| off.normalize())
        };
        self.pole
            .and_then(across)
            .or_else(|| across(animated_upper))
            .or_else(|| across(Vec3::NEG_Z))
            .or_else(|| across(Vec3::Y))
            .unwrap_or(Vec3::X)
    }
}

/// The shortest turn from direction `from` to direction `to` (identity
/// for a zero one).
fn arc(from: Vec3, to: Vec3) -> Quat {
    match (from.try_normalize(), to.try_normalize()) {
        (Some(f), Some(t)) => Quat::from_rotation_arc(f, t),
        _ => Quat::IDENTITY,
    }
}
