//! The humanoid template's rest pose and the wanted transform of each
//! joint anchor for one tick's body pose.
//!
//! Every anchor's **wanted world** transform (in the player's frame) comes
//! from the joint frames the way [`crate::anim::bones`] reads them back:
//!
//! - a joint's move is `D = T(pivot) · R · T(−rest_pivot)` (the rotation
//!   about the vanilla model's rest pivot, carried to the new pivot), and
//!   it moves the anchor its driving slice hangs from: `W = D · W_rest`
//!   (`neck` for the head, `hips` for the torso, whose lower slice drives
//!   it, `shoulder_*` for the arms, `hip_*` for the legs). The template's
//!   anchors are not at vanilla's pivots (it is 15/16 of vanilla, and its
//!   shoulders sit in the middle of the arm's top): `D` is applied as it
//!   is, so the bone form read back from the result gives the same `D`,
//!   hence the same rotation and pivot;
//! - the bend turns the anchor of the bending slice against the driving
//!   one by its swing, `S` ([`Bend::turn`]): `elbow_*` and `knee_*` keep
//!   their rest offset from the shoulder or hip and turn by `S`, and so
//!   does `spine` (the waist, from which the upper torso slice, the head
//!   and the arms hang) from `hips`: `W_spine = W_hips · L_spine · S`;
//! - the head and the arms are then carried by PlayerAnimator's turn of
//!   the upper parts for that torso bend, `U` ([`upper_parts_turn`], about
//!   the vanilla model's rest waist): `W = U · D · W_rest` for `neck` and
//!   `shoulder_*` (and so the elbows below them), the inverse of the bone
//!   form's `U⁻¹ · D`;
//! - the whole-body transform `G`, when given, is put in front of every
//!   wanted world.
//!
//! An anchor's local transform is then its parent's world inverse times
//! its own wanted world (`body`, the root, stays at rest), where the
//! parent's world is the one its thinned tracks actually play
//! ([`crate::import::keys`]), so a parent's small error is made up by the child
//! instead of adding up down the limb.

use glam::{Affine3A, Quat, Vec3};

use crate::anim::bones::{upper_parts_turn, Bend, BodyJoint, JointFrame};
use crate::anim::quat_from_euler_degrees;
use crate::format::node::Attachment;
use crate::format::{AnimationFile, EmoteFile};

/// The animated anchors of the template, parents first, each with its
/// parent's id.
pub(super) const ANCHORS: [(&str, &str); 11] = [
    ("hips", "body"),
    ("spine", "hips"),
    ("neck", "spine"),
    ("shoulder_r", "spine"),
    ("shoulder_l", "spine"),
    ("elbow_r", "shoulder_r"),
    ("elbow_l", "shoulder_l"),
    ("hip_r", "hips"),
    ("hip_l", "hips"),
    ("knee_r", "hip_r"),
    ("knee_l", "hip_l"),
];

/// Index of each anchor in [`ANCHORS`].
const HIPS: usize = 0;
const SPINE: usize = 1;
const NECK: usize = 2;
const SHOULDER_R: usize = 3;
const SHOULDER_L: usize = 4;
const ELBOW_R: usize = 5;
const ELBOW_L: usize = 6;
const HIP_R: usize = 7;
const HIP_L: usize = 8;
const KNEE_R: usize = 9;
const KNEE_L: usize = 10;

/// The rest of every animated anchor: its rest world transform and its
/// rest local transform.
#[derive(Clone, Debug)]
pub(super) struct RestRig {
    world: [Affine3A; 11],
    local: [Affine3A; 11],
    /// Each anchor's rest local position and rotation (the template's
    /// `transform`), for telling a track that never leaves it.
    pub(super) rest_position: [Vec3; 11],
    pub(super) rest_rotation: [Quat; 11],
}

impl RestRig {
    /// The rest rig of the template, or `None` when it lacks an anchor.
    pub(super) fn of(template: &EmoteFile) -> Option<RestRig> {
        let EmoteFile::Animation(file) = template else {
            return None;
        };
        let mut world = [Affine3A::IDENTITY; 11];
        let mut local = [Affine3A::IDENTITY; 11];
        let mut rest_position = [Vec3::ZERO; 11];
        let mut rest_rotation = [Quat::IDENTITY; 11];
        for (i, (id, parent)) in ANCHORS.iter().enumerate() {
            let node = file.node(id)?;
            match &node.attachment {
                Attachment::Parent(p) if p == parent => {}
                _ => return None,
            }
            let rotation = quat_from_euler_degrees(node.transform.rotation_degrees);
            local[i] = Affine3A::from_scale_rotation_translation(
                node.transform.scale,
                rotation,
                node.transform.position,
            );
            rest_position[i] = node.transform.position;
            rest_rotation[i] = rotation;
            world[i] = world_of(file, parent)? * local[i];
        }
        Some(RestRig {
            world,
            local,
            rest_position,
            rest_rotation,
        })
    }

    /// The wanted world transform of every anchor for one tick's pose,
    /// in [`ANCHORS`] order. `joints` misses no joint (a joint the source
    /// does not move is at rest).
    pub(super) fn wanted_worlds(
        &self,
        joints: &dyn Fn(BodyJoint) -> JointFrame,
        body: Option<Affine3A>,
    ) -> [Affine3A; 11] {
        let moved = |joint: BodyJoint| {
            let frame = joints(joint);
            let rotation = frame.rotation.normalize();
            let rest_pivot = joint.rest_pivot();
            let d =
                Affine3A::from_rotation_translation(rotation, frame.pivot - rotation * rest_pivot);
            let bend = frame.bend.unwrap_or(Bend::NONE);
            (d, bend)
        };
        let (torso, torso_bend) = moved(BodyJoint::Torso);
        let upper = upper_parts_turn(torso_bend);
        let (head, _) = moved(BodyJoint::Head);
        let (arm_r, bend_r) = moved(BodyJoint::RightArm);
        let (arm_l, bend_l) = moved(BodyJoint::LeftArm);
        let (leg_r, knee_bend_r) = moved(BodyJoint::RightLeg);
        let (leg_l, knee_bend_l) = moved(BodyJoint::LeftLeg);
        let turn = |bend: Bend| Affine3A::from_quat(bend.turn());

        let mut wanted = [Affine3A::IDENTITY; 11];
        wanted[HIPS] = torso * self.world[HIPS];
        wanted[SPINE] = wanted[HIPS] * self.local[SPINE] * turn(torso_bend);
        wanted[NECK] = upper * head * self.world[NECK];
        wanted[SHOULDER_R] = upper * arm_r * self.world[SHOULDER_R];
        wanted[SHOULDER_L] = upper * arm_l * self.world[SHOULDER_L];
        wanted[ELBOW_R] = wanted[SHOULDER_R] * self.local[ELBOW_R] * turn(bend_r);
        wanted[ELBOW_L] = wanted[SHOULDER_L] * self.local[ELBOW_L] * turn(bend_l);
        wanted[HIP_R] = leg_r * self.world[HIP_R];
        wanted[HIP_L] = leg_l * self.world[HIP_L];
        wanted[KNEE_R] = wanted[HIP_R] * self.local[KNEE_R] * turn(knee_bend_r);
        wanted[KNEE_L] = wanted[HIP_L] * self.local[KNEE_L] * turn(knee_bend_l);
        if let Some(body) = body {
            for w in &mut wanted {
                *w = body * *w;
            }
        }
        wanted
    }
}

/// The index in [`ANCHORS`] of anchor `a`'s parent; `None` for the root
/// `body`, which stays at rest.
pub(super) fn parent_index(a: usize) -> Option<usize> {
    let (_, parent) = ANCHORS.get(a)?;
    ANCHORS.iter().position(|(id, _)| id == parent)
}

/// The rest world transform of node `id` (its chain of rest locals).
fn world_of(file: &AnimationFile, id: &str) -> Option<Affine3A> {
    let mut matrix = Affine3A::IDENTITY;
    let mut current = id;
    // The chain is at most as long as the node list (the reader refuses cycles).
    for _ in 0..=file.nodes.len() {
        let node = file.node(current)?;
        let local = Affine3A::from_scale_rotation_translation(
            node.transform.scale,
            quat_from_euler_degrees(node.transform.rotation_degrees),
            node.transform.position,
        );
        matrix = local * matrix;
        match &node.attachment {
            Attachment::Root(_) => return Some(matrix),
            Attachment::Parent(p) => current = p,
        }
    }
    None
}
