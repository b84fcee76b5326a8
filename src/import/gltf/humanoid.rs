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

use super::retarget::{Losses, Retarget};
use super::skeleton::{Matching, Skeleton};
use super::{GltfError, SampledClip};
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
