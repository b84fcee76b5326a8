//! The bone form of a body emote: how a schema 4 Animation's skin-bound
//! parts move the player's own joints, for clients that animate the real
//! player model (Emotecraft and PlayerAnimator, [`crate::modded`]).
//!
//! # The model
//! A body emote draws the player with item displays bound to their skin
//! (`skin.part`). Each bound part has a **rest**: the composed transform
//! its node has when no track moves anything (the humanoid template, and
//! every bundled body emote, rests standing). At a tick the node's
//! composed transform is `M`, so the part moved by `D = M · rest⁻¹`, a
//! transform in the player's frame (the `initiator` space: feet at the
//! origin, facing +Z, +Y up, the right hand at −X).
//!
//! A player model joint is a rotation about a pivot. The joint's pose at
//! the tick is therefore `D` applied to the vanilla model's rest pivot of
//! that joint ([`BodyJoint::rest_pivot`]): the **rotation** is `D`'s
//! rotation (its scale is dropped) and the **pivot** is where `D` puts the
//! rest pivot. A template whose proportions differ a little from vanilla
//! (emoted's is 15/16) still gives the exact rotation; the pivot moves with
//! the part as the part's own pivot would, give or take that difference
//! times the angle.
//!
//! A part cut into slices (`order` 0 above, 1 below: the template's upper
//! arm and forearm, thigh and shin, upper and lower torso) drives its joint
//! from the **upper** slice and its **bend** from the lower one, as
//! PlayerAnimator's bend does: the lower slice's rotation relative to the
//! upper one, `B = R_upper⁻¹ · R_lower`, split into a twist about the
//! limb's own Y axis (dropped: a bend cannot twist) and a swing about an
//! axis in the limb's XZ plane. The swing is the bend: its angle, and the
//! direction of its axis as a turn about Y from +X (`axis = R_y(φ) · X̂`).
//!
//! Only parts bound to the `initiator`'s skin under an `initiator`-space
//! root form bones (a partner's parts and scene-space copies stay display
//! entities). Nothing here knows a wire format: [`crate::modded`] turns
//! [`JointFrame`]s into each protocol's units and axes.

use glam::{Affine3A, Quat, Vec3};

use super::pose::Pose;
use super::rig::Rig;
use crate::format::node::{BodyPart, NodeKind, Participant, Space};
use crate::format::AnimationFile;

/// A joint of the player model, named as PlayerAnimator names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BodyJoint {
    /// The head (never bends).
    Head,
    /// The body box.
    Torso,
    /// The right arm.
    RightArm,
    /// The left arm.
    LeftArm,
    /// The right leg.
    RightLeg,
    /// The left leg.
    LeftLeg,
}

impl BodyJoint {
    /// Every joint, in the order bone forms list them.
    pub const ALL: [BodyJoint; 6] = [
        BodyJoint::Head,
        BodyJoint::Torso,
        BodyJoint::RightArm,
        BodyJoint::LeftArm,
        BodyJoint::RightLeg,
        BodyJoint::LeftLeg,
    ];

    /// The joint a skin part drives.
    pub fn of_part(part: BodyPart) -> BodyJoint {
        match part {
            BodyPart::Head => BodyJoint::Head,
            BodyPart::Body => BodyJoint::Torso,
            BodyPart::RightArm => BodyJoint::RightArm,
            BodyPart::LeftArm => BodyJoint::LeftArm,
            BodyPart::RightLeg => BodyJoint::RightLeg,
            BodyPart::LeftLeg => BodyJoint::LeftLeg,
        }
    }

    /// PlayerAnimator's name of the joint.
    pub fn name(self) -> &'static str {
        match self {
            BodyJoint::Head => "head",
            BodyJoint::Torso => "torso",
            BodyJoint::RightArm => "rightArm",
            BodyJoint::LeftArm => "leftArm",
            BodyJoint::RightLeg => "rightLeg",
            BodyJoint::LeftLeg => "leftLeg",
        }
    }

    /// The vanilla model's pivot of the joint at rest, in blocks in the
    /// player's frame: the neck (1.5 blocks up) for the head and the body,
    /// the shoulders 5 px out and 2 px below it, the hips 1.9 px out and
    /// 12 px up (and 0.1 px back, as vanilla places the legs).
    pub fn rest_pivot(self) -> Vec3 {
        const PX: f32 = 1.0 / 16.0;
        match self {
            BodyJoint::Head | BodyJoint::Torso => Vec3::new(0.0, 24.0 * PX, 0.0),
            BodyJoint::RightArm => Vec3::new(-5.0 * PX, 22.0 * PX, 0.0),
            BodyJoint::LeftArm => Vec3::new(5.0 * PX, 22.0 * PX, 0.0),
            BodyJoint::RightLeg => Vec3::new(-1.9 * PX, 12.0 * PX, -0.1 * PX),
            BodyJoint::LeftLeg => Vec3::new(1.9 * PX, 12.0 * PX, -0.1 * PX),
        }
    }
}

/// A joint's bend: the lower half turned against the upper one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bend {
    /// The bend's axis as a turn about the limb's Y from +X, radians.
    pub axis_radians: f32,
    /// How far the lower half turns about that axis, radians (≥ 0).
    pub angle_radians: f32,
}

/// One joint's pose at one tick, in the player's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointFrame {
    /// The joint's rotation from its rest.
    pub rotation: Quat,
    /// Where its pivot is, in blocks.
    pub pivot: Vec3,
    /// The bend, for a joint whose part has a lower slice.
    pub bend: Option<Bend>,
}

impl JointFrame {
    /// The joint at rest.
    pub fn rest(joint: BodyJoint, bends: bool) -> JointFrame {
        JointFrame {
            rotation: Quat::IDENTITY,
            pivot: joint.rest_pivot(),
            bend: bends.then_some(Bend {
                axis_radians: 0.0,
                angle_radians: 0.0,
            }),
        }
    }
}

/// Which rig nodes drive one joint.
#[derive(Clone, Debug)]
struct JointNodes {
    joint: BodyJoint,
    /// The upper (lowest `order`) slice: its rig index and rest inverse.
    upper: (usize, Affine3A),
    /// The next slice below, when the part is cut.
    lower: Option<(usize, Affine3A)>,
}

/// The rig nodes that drive the player's joints in one Animation.
#[derive(Clone, Debug)]
pub struct BoneBinding {
    joints: Vec<JointNodes>,
}

impl BoneBinding {
    /// The joints `file`'s initiator-bound parts drive, or `None` when it
    /// has no such part. `rig` is `file` compiled.
    pub fn find(file: &AnimationFile, rig: &Rig) -> Option<BoneBinding> {
        let rest = rest_matrices(rig);
        let mut joints = Vec::new();
        for joint in BodyJoint::ALL {
            let mut slices: Vec<(u32, usize)> = file
                .nodes
                .iter()
                .filter_map(|node| match &node.kind {
                    NodeKind::Item {
                        skin: Some(skin), ..
                    } if skin.participant == Participant::Initiator
                        && BodyJoint::of_part(skin.part) == joint
                        && node.space == Space::Initiator =>
                    {
                        rig.node_index(&node.id).map(|i| (skin.order, i))
                    }
                    _ => None,
                })
                .collect();
            slices.sort_by_key(|(order, _)| *order);
            let mut slices = slices.into_iter().map(|(_, i)| (i, rest[i].inverse()));
            if let Some(upper) = slices.next() {
                joints.push(JointNodes {
                    joint,
                    upper,
                    lower: slices.next(),
                });
            }
        }
        (!joints.is_empty()).then_some(BoneBinding { joints })
    }

    /// The joints, with whether each bends.
    pub fn joints(&self) -> impl Iterator<Item = (BodyJoint, bool)> + '_ {
        self.joints.iter().map(|j| (j.joint, j.lower.is_some()))
    }

    /// Each joint's frame in `pose` (a pose of the bound rig), in the order
    /// of [`BoneBinding::joints`]. A part whose transform cannot be undone
    /// (a zero scale) keeps its rest.
    pub fn frames(&self, pose: &Pose, out: &mut Vec<JointFrame>) {
        out.clear();
        for nodes in &self.joints {
            let Some(upper) = moved(pose, nodes.upper) else {
                out.push(JointFrame::rest(nodes.joint, nodes.lower.is_some()));
                continue;
            };
            let rotation = rotation_of(&upper);
            let bend = nodes.lower.map(|lower| match moved(pose, lower) {
                Some(lower) => bend_between(rotation, rotation_of(&lower)),
                None => Bend {
                    axis_radians: 0.0,
                    angle_radians: 0.0,
                },
            });
            out.push(JointFrame {
                rotation,
                pivot: upper.transform_point3(nodes.joint.rest_pivot()),
                bend,
            });
        }
    }
}

/// `M · rest⁻¹` of one slice, when finite.
fn moved(pose: &Pose, (index, rest_inverse): (usize, Affine3A)) -> Option<Affine3A> {
    let delta = pose.nodes.get(index)?.matrix * rest_inverse;
    delta.is_finite().then_some(delta)
}

/// The rotation of an affine transform, its scale dropped.
fn rotation_of(transform: &Affine3A) -> Quat {
    let (_, rotation, _) = transform.to_scale_rotation_translation();
    if rotation.is_finite() {
        rotation.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// The swing of `lower` against `upper` about an axis in the XZ plane.
pub fn bend_between(upper: Quat, lower: Quat) -> Bend {
    let relative = (upper.inverse() * lower).normalize();
    // Twist about Y: the Y part of the quaternion; the swing is the rest.
    let twist = Quat::from_xyzw(0.0, relative.y, 0.0, relative.w);
    let twist = if twist.length_squared() > 1e-12 {
        twist.normalize()
    } else {
        Quat::IDENTITY
    };
    let swing = relative * twist.inverse();
    let (axis, angle) = swing.to_axis_angle();
    if !angle.is_finite() || angle.abs() < 1e-6 || !axis.is_finite() {
        return Bend {
            axis_radians: 0.0,
            angle_radians: 0.0,
        };
    }
    let (axis, angle) = if angle < 0.0 {
        (-axis, -angle)
    } else {
        (axis, angle)
    };
    // axis = R_y(φ)·X̂ = (cos φ, 0, −sin φ).
    Bend {
        axis_radians: (-axis.z).atan2(axis.x),
        angle_radians: angle,
    }
}

/// Every rig node's composed rest transform.
fn rest_matrices(rig: &Rig) -> Vec<Affine3A> {
    let mut rest: Vec<Affine3A> = Vec::with_capacity(rig.nodes.len());
    for node in &rig.nodes {
        let matrix = match node.parent.and_then(|p| rest.get(p)) {
            Some(parent) => *parent * node.rest_local,
            None => node.rest_local,
        };
        rest.push(matrix);
    }
    rest
}

#[cfg(test)]
mod tests {
    use std::f32::consts::FRAC_PI_2;

    use super::*;

    #[test]
    fn a_bend_about_x_has_axis_zero_and_its_angle() {
        let bend = bend_between(Quat::IDENTITY, Quat::from_rotation_x(0.5));
        assert!(bend.axis_radians.abs() < 1e-5, "{bend:?}");
        assert!((bend.angle_radians - 0.5).abs() < 1e-5, "{bend:?}");
    }

    #[test]
    fn a_negative_bend_flips_the_axis_half_a_turn() {
        let bend = bend_between(Quat::IDENTITY, Quat::from_rotation_x(-0.5));
        assert!((bend.axis_radians.abs() - std::f32::consts::PI).abs() < 1e-5);
        assert!((bend.angle_radians - 0.5).abs() < 1e-5);
    }

    #[test]
    fn a_bend_about_z_has_a_quarter_turn_axis_and_twist_is_dropped() {
        // R_y(φ)·X̂ = (cos φ, 0, −sin φ): −Z is φ = π/2, so a turn about +Z
        // by 0.3 is a bend of 0.3 about φ = −π/2.
        let lower = Quat::from_rotation_z(0.3) * Quat::from_rotation_y(0.7);
        let bend = bend_between(Quat::IDENTITY, lower);
        assert!((bend.axis_radians + FRAC_PI_2).abs() < 1e-4, "{bend:?}");
        assert!((bend.angle_radians - 0.3).abs() < 1e-4, "{bend:?}");
    }

    #[test]
    fn the_bend_is_relative_to_the_upper_slice() {
        let upper = Quat::from_rotation_x(1.0);
        let lower = upper * Quat::from_rotation_x(0.25);
        let bend = bend_between(upper, lower);
        assert!((bend.angle_radians - 0.25).abs() < 1e-5, "{bend:?}");
    }
}
