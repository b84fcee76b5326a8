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
//! arm and forearm, thigh and shin, upper and lower torso) bends as
//! PlayerAnimator bends it. One slice **drives** the joint (its rotation
//! and pivot) and the other gives the **bend**, its rotation relative to
//! the driver, `B = R_driver⁻¹ · R_other`, split into a twist about the
//! part's own Y axis (dropped: a bend cannot twist) and a swing about an
//! axis in its XZ plane. The swing is the bend: its angle, and the
//! direction of its axis as a turn about Y from +X (`axis = R_y(φ) · X̂`,
//! [`Bend::turn`]).
//!
//! - A **limb** (arm, leg) keeps its upper half and bends its lower half
//!   (PlayerAnimator's `Direction.UP`): the upper slice drives, the lower
//!   one bends.
//! - The **torso** keeps its lower half and bends its upper half
//!   (`Direction.DOWN`): the lower slice (the one nearer the legs) drives,
//!   so its move carries the neck pivot, and the upper slice bends about
//!   the waist.
//!
//! A torso bend also carries the **upper parts**, the head and both arms:
//! PlayerAnimator draws them through an extra turn `W` about the vanilla
//! model's rest waist ([`WAIST_HEIGHT_BLOCKS`]) by the torso's swing, in
//! the model's own frame, whatever the torso's turn and offset
//! ([`upper_parts_turn`]). The model frame is the player's turned half a
//! turn about X (`C`), and PlayerAnimator's turn is about model axis
//! `(cos(−a), 0, sin(−a))` by the bend angle, `a` the bend axis it is
//! sent; [`crate::modded::emotecraft::bones`] sends `a = −φ`, and `C`
//! takes that model axis to the player's `(cos φ, 0, −sin φ)`, the swing's
//! own axis, and keeps the angle. So in the player's frame `W = T(w) ·
//! S · T(−w)`, `S` the torso's swing, `w` the rest waist. An upper part
//! whose file move is `D` is written as `W⁻¹ · D`, so PlayerAnimator's
//! turn lands it where the file puts it. The legs are not upper parts.
//! The head's and arms' rotations come out exact; a body whose waist is
//! not vanilla's turns its upper parts about another point, which the
//! pivot makes up for (emoted's template, its waist at 1.0546875, bowed
//! 50°: the head's pivot 0.054 block forward and 0.025 up of its rest).
//!
//! Only parts bound to the `initiator`'s skin under an `initiator`-space
//! root form bones (a partner's parts and scene-space copies stay display
//! entities). Nothing here knows a wire format: [`crate::modded`] turns
//! [`JointFrame`]s into each protocol's units and axes.

use glam::{Affine3A, Quat, Vec3};

use super::pose::Pose;
use super::rig::Rig;
use crate::format::node::{BodyPart, NodeKind, Participant, Space};
use crate::format::settings::PlaybackMode;
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

/// How high the vanilla model's waist is at rest, in blocks: 6 px below
/// the neck, where PlayerAnimator turns the upper parts for a torso bend.
pub const WAIST_HEIGHT_BLOCKS: f32 = 1.125;

/// A joint's bend: for a limb its lower half turned against the upper
/// one, for the torso its upper half turned against the lower one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bend {
    /// The bend's axis as a turn about the part's Y from +X, radians.
    pub axis_radians: f32,
    /// How far the bending half turns about that axis, radians (≥ 0 as
    /// [`bend_between`] gives it).
    pub angle_radians: f32,
}

impl Bend {
    /// No bend.
    pub const NONE: Bend = Bend {
        axis_radians: 0.0,
        angle_radians: 0.0,
    };

    /// The bend as a turn: about `R_y(φ)·X̂ = (cos φ, 0, −sin φ)` by the
    /// angle (right-handed), in the driving half's frame.
    pub fn turn(self) -> Quat {
        if self.angle_radians == 0.0 || !self.angle_radians.is_finite() {
            return Quat::IDENTITY;
        }
        let axis = Vec3::new(self.axis_radians.cos(), 0.0, -self.axis_radians.sin());
        Quat::from_axis_angle(axis, self.angle_radians)
    }
}

/// PlayerAnimator's extra turn of the upper parts (head and arms) for a
/// torso bend, in the player's frame: `T(w) · bend.turn() · T(−w)`, `w`
/// the rest waist (module docs).
pub fn upper_parts_turn(bend: Bend) -> Affine3A {
    let waist = Vec3::new(0.0, WAIST_HEIGHT_BLOCKS, 0.0);
    Affine3A::from_translation(waist)
        * Affine3A::from_quat(bend.turn())
        * Affine3A::from_translation(-waist)
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
            bend: bends.then_some(Bend::NONE),
        }
    }
}

/// One Animation's joints over one cycle, sampled at every tick: what
/// [`crate::library::bones`] samples and each modded protocol encodes.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneForm {
    /// The length of one cycle; `frames` has one more entry (ticks
    /// `0..=duration_ticks`).
    pub duration_ticks: u32,
    /// How the Animation plays.
    pub mode: PlaybackMode,
    /// For `loop`: the ticks of rest between cycles.
    pub loop_delay_ticks: u32,
    /// The joints, and whether each bends.
    pub joints: Vec<(BodyJoint, bool)>,
    /// Per tick, each joint's frame (in `joints` order).
    pub frames: Vec<Vec<JointFrame>>,
}

/// Which rig nodes drive one joint.
#[derive(Clone, Debug)]
struct JointNodes {
    joint: BodyJoint,
    /// The slice that drives the joint (the upper one of a limb, the lower
    /// one of a cut torso): its rig index and rest inverse.
    driver: (usize, Affine3A),
    /// The slice whose turn against the driver is the bend, when the part
    /// is cut.
    bending: Option<(usize, Affine3A)>,
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
            let (Some(upper), lower) = (slices.next(), slices.next()) else {
                continue;
            };
            let (driver, bending) = match (joint, lower) {
                (BodyJoint::Torso, Some(lower)) => (lower, Some(upper)),
                (_, lower) => (upper, lower),
            };
            joints.push(JointNodes {
                joint,
                driver,
                bending,
            });
        }
        (!joints.is_empty()).then_some(BoneBinding { joints })
    }

    /// The joints, with whether each bends.
    pub fn joints(&self) -> impl Iterator<Item = (BodyJoint, bool)> + '_ {
        self.joints.iter().map(|j| (j.joint, j.bending.is_some()))
    }

    /// Each joint's frame in `pose` (a pose of the bound rig), in the order
    /// of [`BoneBinding::joints`], the head and arms with the torso's bend
    /// taken off ([`upper_parts_turn`]). A part whose transform cannot be
    /// undone (a zero scale) keeps its rest.
    pub fn frames(&self, pose: &Pose, out: &mut Vec<JointFrame>) {
        out.clear();
        let torso_bend = self
            .joints
            .iter()
            .find(|nodes| nodes.joint == BodyJoint::Torso)
            .and_then(|nodes| joint_move(pose, nodes).1)
            .unwrap_or(Bend::NONE);
        let undo_torso_bend = upper_parts_turn(torso_bend).inverse();
        for nodes in &self.joints {
            let (driver, bend) = joint_move(pose, nodes);
            let Some(driver) = driver else {
                out.push(JointFrame::rest(nodes.joint, nodes.bending.is_some()));
                continue;
            };
            let driver = match nodes.joint {
                BodyJoint::Head | BodyJoint::RightArm | BodyJoint::LeftArm => {
                    undo_torso_bend * driver
                }
                BodyJoint::Torso | BodyJoint::RightLeg | BodyJoint::LeftLeg => driver,
            };
            out.push(JointFrame {
                rotation: rotation_of(&driver),
                pivot: driver.transform_point3(nodes.joint.rest_pivot()),
                bend,
            });
        }
    }
}

/// One joint's driving move `M · rest⁻¹` in `pose` (`None` when it cannot
/// be undone) and its bend (none when either slice cannot be undone).
fn joint_move(pose: &Pose, nodes: &JointNodes) -> (Option<Affine3A>, Option<Bend>) {
    let driver = moved(pose, nodes.driver);
    let bend = nodes
        .bending
        .map(|bending| match (driver, moved(pose, bending)) {
            (Some(driver), Some(bending)) => {
                bend_between(rotation_of(&driver), rotation_of(&bending))
            }
            _ => Bend::NONE,
        });
    (driver, bend)
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

/// The swing of `bending` against `driver` (the half that bends against
/// the half that drives the joint) about an axis in the XZ plane.
pub fn bend_between(driver: Quat, bending: Quat) -> Bend {
    let relative = (driver.inverse() * bending).normalize();
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
        return Bend::NONE;
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
mod tests;
