//! A humanoid glTF skeleton's animation played on the player's own body:
//! its bones matched to the six joints of [`crate::anim::bones`] by name,
//! its motion retargeted tick by tick into [`BodyPose`](crate::import::humanoid::BodyPose)s, drawn by
//! [`crate::import::humanoid`] on emoted's humanoid rig.
//!
//! # When a skeleton is humanoid
//! Every node's name is read by [`super::bone_names`] (Mixamo, Rigify and
//! Blender's metarig, VRM/Unity, Unreal, Biped spellings). The skeleton is
//! humanoid when it has a **hips**, a **head**, and **both upper arms and
//! upper legs**. Among several bones of one role the one nearest the root
//! wins (then the lower number: `upper_arm.L` before its segment
//! `upper_arm.L.001`). A lower arm or leg counts only below its upper
//! one, a spine or neck bone only between the hips and the head. With no
//! hips, a metarig's unnumbered `spine` is the hips, `spine.004`/`.005`
//! the neck and `spine.006` the head. `--rig` ([`RigChoice`]) forces
//! either path; `auto` takes the humanoid one when the skeleton is one,
//! else keeps the scene of named anchors.
//!
//! # Retargeting by world rotation deltas
//! glTF's world frame is the player's: +Y up, the model's front +Z (the
//! player's front at yaw 0), the model's left +X (the player's left), so
//! no axis changes; the nodes above the skeleton (an `Armature` with a
//! 0.01 scale and a −90° X turn, a `Z_UP` wrapper) are composed in, as
//! they are part of the world. At every tick, every node's world
//! transform is its sampled local TRS (its rest for a node the clip does
//! not move) composed through the hierarchy. A bone's **turn** is its
//! world rotation times the inverse of its world rotation at rest,
//! `Δ = R_world(t) · R_world(rest)⁻¹`.
//!
//! - **Limbs.** The player's arm or leg hangs straight down at rest; the
//!   skeleton's may not (a T-pose). Each limb bone's rest direction (to
//!   the next bone of the limb: forearm, hand, shin, foot, or its first
//!   child) gives a swing `A` from straight down onto it, so the player's
//!   part turns by `Δ · A`: a T-pose held plays as arms out, a rest that
//!   hangs like the player's gives `A = 1`. The upper arm (thigh) drives
//!   the joint; the forearm's (shin's) turn against it is the joint's
//!   [`Bend`](crate::anim::bones::Bend) ([`bend_between`](crate::anim::bones::bend_between)); its twist about its own length, which a
//!   bend cannot show, is dropped with a note.
//! - **Torso.** The lower torso turns as the first spine bone above the
//!   hips (the hips when there is none), about the pelvis; the upper
//!   half's bend is the last spine bone below the head against it (no
//!   bend with fewer than two spine bones). The chain is assumed upright
//!   at rest (no swing `A`).
//! - **Head.** The head bone's turn; its world rotation already carries
//!   the neck's and the spine's turns, so the neck adds nothing more.
//! - **Pivots.** The joints move as the player's body would: the legs'
//!   pivots turn with the hips about the pelvis `(0, 0.75, 0)`, the torso
//!   turns about the pelvis, the neck and shoulders ride on its upper
//!   half (lower half's turn and the bend, from the vanilla waist), and
//!   the head's and arms' frames take off PlayerAnimator's turn of the
//!   upper parts for the torso's bend ([`upper_parts_turn`](crate::anim::bones::upper_parts_turn)), as the bone
//!   form reads them back.
//! - **Hips translation** is the whole body's move ([`BodyPose::body`](crate::import::humanoid::BodyPose::body)):
//!   the hips bone's world position less its rest, scaled by the
//!   player's hip height (the legs' rest pivot, 0.75 block) over the
//!   skeleton's (its upper legs' mean rest height, the skeleton standing
//!   on y = 0), so a 1.8 m character's walk lands on a 1.8-block player.
//!   Only the hips keep translation (as retargeting does in spec 004):
//!   other bones' moves are dropped with a note.
//! - Bones that are not joints (fingers, toes, clavicles, twist bones,
//!   props) are dropped with one note listing them; their parents' turns
//!   still reach the joints below them through world rotations.

use glam::{Affine3A, Quat, Vec3};

use super::bone_names::{read_bone_name, Role, Side};
use super::hierarchy::Hierarchy;
use super::retarget::{rotation_of, Losses, Retarget};
use super::{GltfError, SampledClip};
use crate::anim::bones::BodyJoint;
use crate::import::humanoid::{humanoid_animation, BodyClip, Imported};
use crate::import::scene::Trs;
use crate::import::Note;

/// Which rig a glTF animation is drawn on (`emoted convert --rig`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum RigChoice {
    /// The player's body when the skeleton is humanoid, else the scene.
    #[default]
    Auto,
    /// Always the scene of named anchors, one per glTF node.
    Scene,
    /// Always the player's body; a skeleton that is not humanoid is refused.
    Humanoid,
}

/// The node tree with every node's name and rest pose.
#[derive(Clone, Debug)]
pub struct Skeleton {
    pub(super) names: Vec<Option<String>>,
    pub(super) parents: Vec<Option<usize>>,
    pub(super) rest: Vec<Trs>,
    /// Every node, parents first.
    order: Vec<usize>,
    pub(super) rest_worlds: Vec<Affine3A>,
}

impl Skeleton {
    /// The skeleton of a document: names, the checked `hierarchy`, and
    /// each node's `rest` pose (a node whose rest cannot be used rests at
    /// identity; a clip that moves it is refused before this is read).
    pub(super) fn new(
        root: &::gltf::json::Root,
        hierarchy: &Hierarchy,
        rest: &[Result<Trs, String>],
    ) -> Skeleton {
        let count = root.nodes.len();
        let names = root.nodes.iter().map(|n| n.name.clone()).collect();
        let parents = (0..count).map(|n| hierarchy.parent(n)).collect();
        let rest: Vec<Trs> = (0..count)
            .map(|n| match rest.get(n) {
                Some(Ok(trs)) => *trs,
                _ => Trs::IDENTITY,
            })
            .collect();
        let (order, _) = hierarchy.keep(&(0..count).collect());
        let mut skeleton = Skeleton {
            names,
            parents,
            rest,
            order,
            rest_worlds: Vec::new(),
        };
        let mut worlds = Vec::new();
        skeleton.worlds(|n| skeleton.rest.get(n).copied(), None, &mut worlds);
        skeleton.rest_worlds = worlds;
        skeleton
    }

    /// Every node's world transform (of the nodes `only` marks, when
    /// given; the others are left at identity), from its local one
    /// (`local`, or its rest when that gives `None`).
    pub(super) fn worlds(
        &self,
        local: impl Fn(usize) -> Option<Trs>,
        only: Option<&[bool]>,
        out: &mut Vec<Affine3A>,
    ) {
        out.clear();
        out.resize(self.parents.len(), Affine3A::IDENTITY);
        let wanted = |n: usize| only.is_none_or(|o| o.get(n).copied().unwrap_or(false));
        for &n in self.order.iter().filter(|&&n| wanted(n)) {
            let own = local(n)
                .or_else(|| self.rest.get(n).copied())
                .unwrap_or(Trs::IDENTITY)
                .affine();
            let parent = self.parent(n).and_then(|p| out.get(p).copied());
            if let Some(slot) = out.get_mut(n) {
                *slot = parent.unwrap_or(Affine3A::IDENTITY) * own;
            }
        }
    }

    pub(super) fn parent(&self, node: usize) -> Option<usize> {
        self.parents.get(node).copied().flatten()
    }

    /// Node `node`'s name for a message (`node_N` when it has none).
    pub(super) fn name(&self, node: usize) -> String {
        match self.names.get(node).cloned().flatten() {
            Some(name) => name,
            None => format!("node_{node}"),
        }
    }

    /// How many ancestors `node` has.
    pub(super) fn depth(&self, node: usize) -> usize {
        let mut depth = 0;
        let mut at = self.parent(node);
        while let Some(p) = at {
            depth += 1;
            if depth > self.parents.len() {
                break;
            }
            at = self.parent(p);
        }
        depth
    }

    /// Whether `node` is strictly below `ancestor`.
    pub(super) fn is_below(&self, node: usize, ancestor: usize) -> bool {
        let mut at = self.parent(node);
        let mut steps = 0;
        while let Some(p) = at {
            if p == ancestor {
                return true;
            }
            steps += 1;
            if steps > self.parents.len() {
                return false;
            }
            at = self.parent(p);
        }
        false
    }

    /// The first child of `node`, if any.
    pub(super) fn first_child(&self, node: usize) -> Option<usize> {
        self.order
            .iter()
            .copied()
            .find(|&c| self.parent(c) == Some(node))
    }

    pub(super) fn rest_position(&self, node: usize) -> Vec3 {
        self.rest_worlds
            .get(node)
            .map_or(Vec3::ZERO, |w| Vec3::from(w.translation))
    }

    pub(super) fn rest_rotation(&self, node: usize) -> Quat {
        self.rest_worlds
            .get(node)
            .map_or(Quat::IDENTITY, rotation_of)
    }
}

/// An arm's or a leg's bones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Limb {
    /// The upper arm or thigh (drives the joint).
    pub(super) upper: usize,
    /// The forearm or shin (its bend), when the skeleton has one below.
    pub(super) lower: Option<usize>,
    /// The hand or foot (aims the lower bone at rest).
    pub(super) tip: Option<usize>,
}

/// The bones of a humanoid skeleton that drive the player's joints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matching {
    pub(super) hips: usize,
    /// The spine bones between the hips and the head, hips side first.
    pub(super) spine: Vec<usize>,
    pub(super) neck: Option<usize>,
    pub(super) head: usize,
    /// Right, then left.
    pub(super) arms: [Limb; 2],
    /// Right, then left.
    pub(super) legs: [Limb; 2],
}

impl Matching {
    /// Matches `skeleton`'s names to the joints (module docs), or gives
    /// the roles no bone has.
    pub fn find(skeleton: &Skeleton) -> Result<Matching, Vec<&'static str>> {
        let mut bones: Vec<(Role, Option<u32>, usize)> = (0..skeleton.names.len())
            .filter_map(|n| {
                let name = skeleton.names.get(n).cloned().flatten()?;
                read_bone_name(&name).map(|b| (b.role, b.number, n))
            })
            .collect();
        let pick = |bones: &[(Role, Option<u32>, usize)], role: Role, below: Option<usize>| {
            bones
                .iter()
                .filter(|(r, _, n)| *r == role && below.is_none_or(|a| skeleton.is_below(*n, a)))
                .min_by_key(|(_, number, n)| (skeleton.depth(*n), number.unwrap_or(0), *n))
                .map(|(_, _, n)| *n)
        };
        if pick(&bones, Role::Hips, None).is_none() {
            // Blender's metarig: `spine` is the pelvis, `spine.004`/`.005`
            // the neck, `spine.006` the head.
            if let Some(pelvis) = bones
                .iter()
                .filter(|(r, number, _)| *r == Role::Spine && number.is_none())
                .min_by_key(|(_, _, n)| (skeleton.depth(*n), *n))
                .map(|(_, _, n)| *n)
            {
                for (role, number, n) in &mut bones {
                    match (*role, *number) {
                        (Role::Spine, None) if *n == pelvis => *role = Role::Hips,
                        (Role::Spine, Some(4 | 5)) => *role = Role::Neck,
                        (Role::Spine, Some(6)) => *role = Role::Head,
                        _ => {}
                    }
                }
            }
        }
        let hips = pick(&bones, Role::Hips, None);
        let head = pick(&bones, Role::Head, hips).or_else(|| pick(&bones, Role::Head, None));
        let limb = |upper: Role, lower: Role, tip: Role| {
            let upper = pick(&bones, upper, None)?;
            let lower = pick(&bones, lower, Some(upper));
            let tip = pick(&bones, tip, Some(lower.unwrap_or(upper)))
                .or_else(|| lower.and_then(|l| skeleton.first_child(l)));
            Some(Limb { upper, lower, tip })
        };
        let arm = |side| limb(Role::UpperArm(side), Role::LowerArm(side), Role::Hand(side));
        let leg = |side| limb(Role::UpperLeg(side), Role::LowerLeg(side), Role::Foot(side));
        let found = (
            hips,
            head,
            arm(Side::Right),
            arm(Side::Left),
            leg(Side::Right),
            leg(Side::Left),
        );
        let (Some(hips), Some(head), Some(ra), Some(la), Some(rl), Some(ll)) = found else {
            let names = ["hips", "head", "right upper arm", "left upper arm"];
            let names = names
                .into_iter()
                .chain(["right upper leg", "left upper leg"]);
            let have = [
                found.0.is_some(),
                found.1.is_some(),
                found.2.is_some(),
                found.3.is_some(),
                found.4.is_some(),
                found.5.is_some(),
            ];
            return Err(names
                .zip(have)
                .filter(|(_, have)| !have)
                .map(|(name, _)| name)
                .collect());
        };
        let between = |n: usize| skeleton.is_below(n, hips) && skeleton.is_below(head, n);
        let mut spine: Vec<usize> = bones
            .iter()
            .filter(|(r, _, n)| *r == Role::Spine && between(*n))
            .map(|(_, _, n)| *n)
            .collect();
        spine.sort_by_key(|&n| (skeleton.depth(n), n));
        let neck = bones
            .iter()
            .filter(|(r, _, n)| *r == Role::Neck && between(*n))
            .map(|(_, _, n)| *n)
            .min_by_key(|&n| (skeleton.depth(n), n));
        Ok(Matching {
            hips,
            spine,
            neck,
            head,
            arms: [ra, la],
            legs: [rl, ll],
        })
    }

    /// The bones matched, in the note's words.
    fn describe(&self, skeleton: &Skeleton) -> String {
        let quoted = |n: usize| format!("`{}`", skeleton.name(n));
        let mut parts = vec![format!("hips {}", quoted(self.hips))];
        match (self.spine.first(), self.spine.last()) {
            (Some(&lower), Some(&upper)) if lower != upper => parts.push(format!(
                "torso {} (lower half) and {} (upper half's bend)",
                quoted(lower),
                quoted(upper)
            )),
            (Some(&lower), _) => parts.push(format!("torso {}", quoted(lower))),
            _ => parts.push(format!("torso {} (no spine bone)", quoted(self.hips))),
        }
        parts.push(format!("head {}", quoted(self.head)));
        let joints = [BodyJoint::RightArm, BodyJoint::LeftArm];
        let joints = joints
            .into_iter()
            .chain([BodyJoint::RightLeg, BodyJoint::LeftLeg]);
        for (joint, limb) in joints.zip(self.arms.iter().chain(&self.legs)) {
            parts.push(match limb.lower {
                Some(lower) => format!(
                    "{} {} and {} (bend)",
                    joint.name(),
                    quoted(limb.upper),
                    quoted(lower)
                ),
                None => format!("{} {} (no bend)", joint.name(), quoted(limb.upper)),
            });
        }
        parts.join(", ")
    }

    /// Every bone the joints use.
    pub(super) fn used(&self) -> Vec<usize> {
        let mut used = vec![self.hips, self.head];
        used.extend(&self.spine);
        used.extend(self.neck);
        for limb in self.arms.iter().chain(&self.legs) {
            used.push(limb.upper);
            used.extend(limb.lower);
            used.extend(limb.tip);
        }
        used
    }
}

/// The skeleton's matching for `choice`: `None` draws the scene.
pub(super) fn choose(
    skeleton: &Skeleton,
    choice: RigChoice,
) -> Result<Option<Matching>, GltfError> {
    match (choice, Matching::find(skeleton)) {
        (RigChoice::Scene, _) => Ok(None),
        (RigChoice::Auto, found) => Ok(found.ok()),
        (RigChoice::Humanoid, Ok(matching)) => Ok(Some(matching)),
        (RigChoice::Humanoid, Err(missing)) => Err(GltfError::Invalid {
            pointer: "/nodes".to_owned(),
            rule: format!(
                "the skeleton is not humanoid: no bone is named as its {} (emoted reads Mixamo, Rigify, VRM and Unreal names such as Hips, Head, LeftArm, upper_arm.L, LeftUpperLeg, thigh_l); rename the bones or convert with --rig scene",
                missing.join(", ")
            ),
        }),
    }
}

/// `clip` on the player's body: its poses ([`body_clip`]) through
/// [`humanoid_animation`], with the sampler's, retargeting's and the
/// builder's notes.
pub(super) fn convert_clip(
    skeleton: &Skeleton,
    matching: &Matching,
    clip: SampledClip,
) -> Result<Imported, GltfError> {
    let (body, mut notes) = body_clip(skeleton, matching, &clip);
    let mut imported = humanoid_animation(&body).map_err(|error| GltfError::Import {
        clip: body.id.clone(),
        error,
    })?;
    let mut all = clip.notes;
    all.append(&mut notes);
    all.append(&mut imported.notes);
    imported.notes = all;
    Ok(imported)
}

/// The player's pose at every tick of `clip` (module docs), and the notes
/// of what retargeting dropped.
pub fn body_clip(
    skeleton: &Skeleton,
    matching: &Matching,
    clip: &SampledClip,
) -> (BodyClip, Vec<Note>) {
    let scene = &clip.scene;
    // The scene's nodes are the glTF nodes `/nodes/N` it kept.
    let mut frames: Vec<Option<&[Trs]>> = vec![None; skeleton.parents.len()];
    for node in &scene.nodes {
        let index = node
            .source
            .strip_prefix("/nodes/")
            .and_then(|n| n.parse().ok());
        if let Some(slot) = index.and_then(|n: usize| frames.get_mut(n)) {
            *slot = Some(&node.frames);
        }
    }
    let mut notes = vec![Note::new(
        "/nodes",
        format!(
            "the skeleton is humanoid, so the clip plays on the player's own body; matched: {}",
            matching.describe(skeleton)
        ),
    )];
    let retarget = Retarget::new(skeleton, matching, &mut notes);
    // Only the bones used and their ancestors are composed at each tick.
    let mut needed = vec![false; skeleton.parents.len()];
    for n in matching.used() {
        let mut at = Some(n);
        while let Some(slot) = at.and_then(|a| needed.get_mut(a)) {
            if *slot {
                break;
            }
            *slot = true;
            at = at.and_then(|a| skeleton.parent(a));
        }
    }
    let mut worlds = Vec::new();
    let mut losses = Losses::default();
    let mut poses = Vec::with_capacity(scene.duration_ticks as usize + 1);
    for tick in 0..=scene.duration_ticks as usize {
        let local = |n: usize| frames.get(n).copied().flatten()?.get(tick).copied();
        skeleton.worlds(local, Some(&needed), &mut worlds);
        poses.push(retarget.pose(&worlds, &mut losses));
        retarget.slides(&worlds, local, &mut losses);
    }
    let moved: Vec<usize> = (0..frames.len())
        .filter(|&n| frames.get(n).copied().flatten().is_some())
        .collect();
    retarget.notes(&moved, &losses, &mut notes);
    let body = BodyClip {
        id: scene.id.clone(),
        metadata: scene.metadata.clone(),
        duration_ticks: scene.duration_ticks,
        mode: scene.mode,
        loop_delay_ticks: scene.loop_delay_ticks,
        poses,
    };
    (body, notes)
}
