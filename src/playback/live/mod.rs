//! The solvers of a playing Animation ([`crate::anim::solve`]) fed with
//! what the server observes, as pure state: the inputs of the tick, the
//! animated pose they bend, and what they carry from tick to tick (the
//! smoothed look, the springs' tips).
//!
//! # The model
//! Each participant's body is solved in its own frame (its feet at the
//! origin, facing +Z): the initiator's on the playback's pose, and after a
//! two-player match the partner's copy of an Animation without `partner`
//! nodes on a copy of the same animated pose ([`LiveRig::partner_pose`]),
//! so the two bodies of a handshake bend each toward the other. The
//! server gives points in the **emote frame** (the initiator's root frame
//! before the root's yaw); each participant's root in that frame comes
//! from [`SpaceRoots`].
//!
//! Per tick, for each participant: the look-at turns toward its source
//! (the own look; the camera's eye while an emote camera films, so the
//! player looks into their own shot; the other participant's head; the
//! nearest player; a node), clamped, then smoothed from last tick's; the
//! IK chains reach their effectors (an effector on the other participant
//! is met halfway, so two hands meet whatever small offset the players
//! stand at); the springs step in the world, placed by
//! [`LiveInputs::emote_to_world`].
//!
//! The solvers never run while a cycle is planned ahead (the playing
//! Animation plans on a copy without them): the nodes they move are sent
//! per tick, every other node still by the plan.

pub mod sample;
#[cfg(test)]
mod tests;

use glam::{Affine3A, Mat4, Vec3};

use crate::anim::pose::{NodePose, Pose};
use crate::anim::solve::{Effector, LookAngles, LookSource, SpringState, TwoBoneChain};
use crate::format::node::Space;
use crate::library::CompiledAnimation;
use crate::playback::roots::SpaceRoots;

/// What the server observed of one participant this tick, for the
/// solvers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ParticipantInputs {
    /// Where they look, relative to their body's facing (`None`: straight
    /// ahead).
    pub look: Option<LookAngles>,
    /// A point their look-at faces whatever its source (the eye of the
    /// emote camera filming them), emote frame.
    pub face_point: Option<Vec3>,
    /// The eyes of the nearest other player, emote frame.
    pub nearest_eyes: Option<Vec3>,
}

/// The tick's inputs of a playback's solvers.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveInputs {
    /// The emote frame in the world (the root's position, turned by its
    /// yaw): where the springs swing.
    pub emote_to_world: Affine3A,
    /// The initiator.
    pub initiator: ParticipantInputs,
    /// The partner, once matched.
    pub partner: ParticipantInputs,
    /// Effectors given from outside (`emoted sample --reach`): end node
    /// (rig index) and the point it reaches, emote frame.
    pub reach: Vec<(usize, Vec3)>,
}

impl Default for LiveInputs {
    fn default() -> Self {
        Self {
            emote_to_world: Affine3A::IDENTITY,
            initiator: ParticipantInputs::default(),
            partner: ParticipantInputs::default(),
            reach: Vec::new(),
        }
    }
}

/// The bone form of `compiled` (built from `file`) with its solvers fed
/// `inputs` on every tick of the cycle, the participants placed by
/// `roots`: the solved body a modded viewer plays on the player's own
/// model (the look held as it is now).
pub fn solved_bone_form(
    compiled: &CompiledAnimation,
    file: &crate::format::AnimationFile,
    inputs: &LiveInputs,
    roots: &SpaceRoots,
) -> Result<Option<crate::library::bones::BoneForm>, crate::anim::SampleError> {
    let mut live = LiveRig::new(inputs.clone());
    crate::library::bones::bone_form_with(compiled, file, &mut |_, pose| {
        live.solve(compiled, pose, roots);
    })
}

/// What one participant's solvers carry from tick to tick.
#[derive(Clone, Debug, Default)]
struct Carried {
    /// The look the chain turned by last tick (clamped, smoothed).
    look: Option<LookAngles>,
    /// One per spring.
    springs: Vec<SpringState>,
}

/// The solver state of one playing Animation.
#[derive(Clone, Debug)]
pub struct LiveRig {
    /// This tick's inputs.
    pub inputs: LiveInputs,
    /// The pose as the tracks gave it, before solving.
    animated: Vec<NodePose>,
    /// The partner's solved copy (mirrored Animations after a match).
    partner_pose: Option<Pose>,
    initiator: Carried,
    partner: Carried,
}

/// One participant's side of a solve.
struct Side<'a> {
    /// Its root in the emote frame.
    root: Mat4,
    /// The other participant's root and animated pose (`None`: alone).
    other: Option<(Mat4, &'a [NodePose])>,
    inputs: &'a ParticipantInputs,
    /// Effectors from outside (the initiator's only), emote frame.
    reach: &'a [(usize, Vec3)],
    /// The partner's copy of a mirrored Animation (every node placed by
    /// `root`).
    copy: bool,
}

impl LiveRig {
    /// A rig with nothing carried yet.
    pub fn new(inputs: LiveInputs) -> Self {
        Self {
            inputs,
            animated: Vec::new(),
            partner_pose: None,
            initiator: Carried::default(),
            partner: Carried::default(),
        }
    }

    /// The partner copy's solved pose, when the partner's body is a copy
    /// of the initiator's nodes.
    pub fn partner_pose(&self) -> Option<&[NodePose]> {
        self.partner_pose.as_ref().map(|pose| pose.nodes.as_slice())
    }

    /// Solves `pose`, just sampled, in place (and the partner's copy when
    /// `roots.mirror`), remembering the animated pose for
    /// [`Self::resolve`].
    pub fn solve(&mut self, animation: &CompiledAnimation, pose: &mut Pose, roots: &SpaceRoots) {
        self.animated.clear();
        self.animated.extend_from_slice(&pose.nodes);
        self.solve_again(animation, pose, roots);
    }

    /// Solves the animated pose of the last [`Self::solve`] again with this
    /// tick's inputs (a held pose still follows the look).
    pub fn resolve(&mut self, animation: &CompiledAnimation, pose: &mut Pose, roots: &SpaceRoots) {
        if self.animated.len() != pose.nodes.len() {
            return;
        }
        pose.nodes.copy_from_slice(&self.animated);
        self.solve_again(animation, pose, roots);
    }

    fn solve_again(&mut self, animation: &CompiledAnimation, pose: &mut Pose, roots: &SpaceRoots) {
        let solve = Solve {
            animation,
            roots,
            emote_to_world: &self.inputs.emote_to_world,
            animated: &self.animated,
        };
        let mirrored = roots.mirror && roots.partner.is_some();
        let initiator = Side {
            root: roots.initiator,
            other: roots
                .partner
                .filter(|_| mirrored)
                .map(|p| (p, self.animated.as_slice())),
            inputs: &self.inputs.initiator,
            reach: &self.inputs.reach,
            copy: false,
        };
        solve.side(pose, &initiator, &mut self.initiator);
        // The copy's buffer is kept from tick to tick.
        let kept = self.partner_pose.take();
        self.partner_pose = match roots.partner.filter(|_| mirrored) {
            Some(partner_root) => {
                let mut copy = kept
                    .filter(|pose| pose.nodes.len() == self.animated.len())
                    .unwrap_or_else(|| Pose::new(&animation.rig));
                copy.nodes.copy_from_slice(&self.animated);
                let side = Side {
                    root: partner_root,
                    other: Some((roots.initiator, self.animated.as_slice())),
                    inputs: &self.inputs.partner,
                    reach: &[],
                    copy: true,
                };
                solve.side(&mut copy, &side, &mut self.partner);
                Some(copy)
            }
            None => None,
        };
    }
}

/// What every participant's solve of a tick shares.
struct Solve<'a> {
    /// The Animation: its solvers, rig and node spaces.
    animation: &'a CompiledAnimation,
    roots: &'a SpaceRoots,
    emote_to_world: &'a Affine3A,
    /// The pose as the tracks gave it.
    animated: &'a [NodePose],
}

impl Solve<'_> {
    /// Solves one participant's body `pose` in place.
    fn side(&self, pose: &mut Pose, side: &Side<'_>, carried: &mut Carried) {
        let Solve {
            animation,
            roots,
            emote_to_world,
            animated,
        } = *self;
        let (solvers, rig) = (&animation.runtime.solvers, &animation.rig);
        let space_of = |index: usize| animation.runtime.nodes.get(index).map(|n| n.space);
        // The frame a node of this body is posed in: its space's root, or for
        // the partner's copy of a mirrored Animation the partner's root.
        let frame_of = |index: usize| -> Option<Mat4> {
            if side.copy {
                return Some(side.root);
            }
            match space_of(index)? {
                Space::Scene => Some(Mat4::IDENTITY),
                Space::Initiator => Some(roots.initiator),
                Space::Partner => roots.partner,
            }
        };
        let in_emote_frame = |nodes: &[NodePose], index: usize| -> Option<Vec3> {
            let local: Vec3 = nodes.get(index)?.matrix.translation.into();
            Some(frame_of(index)?.transform_point3(local))
        };
        // The other participant's node, animated (mirrored Animations), or a
        // node of the other space of this file.
        let theirs = |index: usize, own_space: Option<Space>| -> Option<Vec3> {
            match side.other {
                Some((root, nodes)) => {
                    let local: Vec3 = nodes.get(index)?.matrix.translation.into();
                    Some(root.transform_point3(local))
                }
                None if !side.copy && space_of(index) != own_space => {
                    in_emote_frame(animated, index)
                }
                None => None,
            }
        };
        if let Some((chain, source)) = &solvers.look_at {
            if let (Some(&eye_node), Some(frame)) = (
                chain.nodes.last(),
                chain.nodes.first().and_then(|&n| frame_of(n)),
            ) {
                let to_chain = frame.inverse();
                let eye = in_emote_frame(&pose.nodes, eye_node).unwrap_or_default();
                let towards =
                    |point: Vec3| LookAngles::towards(to_chain.transform_vector3(point - eye));
                let own_look = side.inputs.look.unwrap_or_default();
                let wanted = match side.inputs.face_point {
                    Some(point) => towards(point),
                    None => match source {
                        LookSource::OwnLook => own_look,
                        LookSource::Partner => {
                            theirs(eye_node, space_of(eye_node)).map_or(own_look, towards)
                        }
                        LookSource::NearestPlayer => {
                            side.inputs.nearest_eyes.map_or(own_look, towards)
                        }
                        LookSource::Node(i) => {
                            in_emote_frame(animated, *i).map_or(own_look, towards)
                        }
                    },
                };
                let wanted = chain.clamp(wanted);
                let look = match carried.look {
                    Some(last) => last.approach(wanted, chain.smoothing),
                    None => wanted,
                };
                carried.look = Some(look);
                chain.apply(pose, rig, look);
            }
        }
        let reach = |chain: &TwoBoneChain, pose: &mut Pose, target: Option<Vec3>| {
            if let (Some(target), Some(frame)) = (target, frame_of(chain.root)) {
                chain.reach(pose, rig, frame.inverse().transform_point3(target));
            }
        };
        for ik in &solvers.ik {
            let given = side
                .reach
                .iter()
                .find(|(end, _)| *end == ik.chain.end)
                .map(|(_, p)| *p);
            let target = given.or_else(|| match ik.effector {
                Effector::None => None,
                Effector::Node(i) => in_emote_frame(&pose.nodes, i),
                Effector::Point(p) => frame_of(ik.chain.root).map(|f| f.transform_point3(p)),
                // Both ends meet halfway between where the animation put them.
                Effector::Partner(i) => {
                    let other = theirs(i, space_of(ik.chain.root))?;
                    Some((in_emote_frame(animated, ik.chain.end)? + other) / 2.0)
                }
            });
            reach(&ik.chain, pose, target);
        }
        for &(end, point) in side.reach {
            if !solvers.ik.iter().any(|ik| ik.chain.end == end) {
                if let Some(chain) = TwoBoneChain::of_end(rig, end) {
                    reach(&chain, pose, Some(point));
                }
            }
        }
        if carried.springs.len() != solvers.springs.len() {
            carried.springs = vec![SpringState::default(); solvers.springs.len()];
        }
        for (spring, state) in solvers.springs.iter().zip(&mut carried.springs) {
            if let Some(frame) = frame_of(spring.node) {
                let body = *emote_to_world * Affine3A::from_mat4(frame);
                spring.step(state, pose, rig, &body);
            }
        }
    }
}
