//! Per-tick poses of the player's body into a schema 4 Animation on
//! emoted's humanoid rig (`emotes/humanoid_template.json`), drawn with
//! display entities wearing the player's own skin.
//!
//! # The model
//! The input is a [`BodyClip`]: a duration, a playback mode, an id and
//! metadata, and for every tick `0..=duration` a [`BodyPose`], each
//! joint's [`JointFrame`] in the player's frame (the types
//! [`crate::anim::bones`] reads a body emote into, so the two directions
//! meet) and an optional whole-body transform.
//!
//! The output keeps the template's nodes as they are (its idle timeline is
//! dropped) and animates only the eleven joint anchors: `hips`, `spine`,
//! `neck`, `shoulder_r/l`, `elbow_r/l`, `hip_r/l`, `knee_r/l`. `rig` works
//! out each anchor's local transform at each tick; [`super::keys`] turns those
//! into position and rotation tracks (XYZ Euler degrees, keys slerped),
//! keeping the fewest keys within [`POSITION_TOLERANCE_BLOCKS`] and
//! [`ROTATION_TOLERANCE_RADIANS`] of every tick. An anchor that never
//! leaves its rest on a channel gets no track there. The anchors are
//! thinned parents first, each against its parent's world as the thinned
//! parent plays it, so every anchor's world transform (what the viewer
//! sees) is within the tolerances, not only its local one.
//!
//! Settings: standalone, the player hidden (the displays are the player),
//! the template's cooldown and deadzone, the stop conditions of
//! `emotes/wave.json` (a body emote stops when the player moves, jumps,
//! swims, rides, is hurt, attacks or changes game mode), and the clip's
//! mode. The JSON is read back through [`crate::format::parse_emote_value`],
//! so what comes out is the validated [`AnimationFile`] a hand-written
//! file gives; a refusal is an importer bug and comes back as
//! [`ImportError::Refused`].

mod rig;

use std::collections::BTreeMap;

use glam::{Affine3A, Vec3};
use serde_json::{json, Map, Value};

use self::rig::{parent_index, RestRig, ANCHORS};
use super::keys::{node_tracks, Sample, Tolerances};
use super::{check_duration, read_back, wave_stop_conditions, ImportError, Note};
use crate::anim::bones::{BodyJoint, JointFrame};
use crate::format::settings::PlaybackMode;
use crate::format::{parse_emote_value, AnimationFile};

pub use super::keys::{POSITION_TOLERANCE_BLOCKS, ROTATION_TOLERANCE_RADIANS};

/// The humanoid rig, embedded when emoted is built.
pub const TEMPLATE_JSON: &str = include_str!("../../../emotes/humanoid_template.json");

/// The body's pose at one tick.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyPose {
    /// Each joint's frame; a joint left out stays at rest (with no bend).
    pub joints: BTreeMap<BodyJoint, JointFrame>,
    /// The whole body moved and turned as one, in the player's frame
    /// (PlayerAnimator's `body` part), applied after the joints; `None`
    /// leaves the body where the joints put it.
    pub body: Option<Affine3A>,
}

/// A body's motion, tick by tick, and how it plays.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyClip {
    /// The emote id to write (`namespace:path`).
    pub id: String,
    /// `metadata` as written (at least a `name`).
    pub metadata: Map<String, Value>,
    /// The timeline's length in ticks, 1..=[`crate::format::MAX_TIMELINE_TICKS`].
    pub duration_ticks: u32,
    /// How it plays.
    pub mode: PlaybackMode,
    /// For `loop` and `server_sync`: the ticks of rest between cycles.
    pub loop_delay_ticks: u32,
    /// One pose per tick, `0..=duration_ticks`.
    pub poses: Vec<BodyPose>,
}

/// What an import gives: the file as JSON (what `emoted convert` writes),
/// the same file validated, and the lossy steps taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The schema 4 file.
    pub json: Value,
    /// `json` read back by the schema 4 reader.
    pub file: AnimationFile,
    /// Every lossy step, in the order taken.
    pub notes: Vec<Note>,
}

/// `clip` as a schema 4 Animation on the humanoid rig.
pub fn humanoid_animation(clip: &BodyClip) -> Result<Imported, ImportError> {
    check_duration(clip.duration_ticks)?;
    let wanted = clip.duration_ticks as usize + 1;
    if clip.poses.len() != wanted {
        return Err(ImportError::FrameCount {
            duration_ticks: clip.duration_ticks,
            given: clip.poses.len(),
        });
    }
    let (mut json, rest) = template()?;
    let wanted_worlds = wanted_of(&rest, clip);

    // Parents first: each anchor's local is what takes its parent's world
    // as played to its own wanted world.
    let mut notes = Vec::new();
    let mut track_map = Map::new();
    let mut played_worlds: Vec<Vec<Affine3A>> = Vec::with_capacity(ANCHORS.len());
    for (a, (anchor, _)) in ANCHORS.iter().enumerate() {
        let parent_worlds = parent_index(a).and_then(|p| played_worlds.get(p));
        let parent_at = |t: usize| {
            parent_worlds
                .and_then(|w| w.get(t).copied())
                .unwrap_or(Affine3A::IDENTITY)
        };
        let targets: Vec<Affine3A> = wanted_worlds
            .iter()
            .enumerate()
            .map(|(t, w)| parent_at(t).inverse() * w.get(a).copied().unwrap_or_default())
            .collect();
        let samples: Vec<Sample> = targets.iter().map(Sample::of).collect();
        let rest_sample = Sample {
            position: rest.rest_position[a],
            rotation: rest.rest_rotation[a],
            scale: Vec3::ONE,
        };
        let (channels, played) =
            node_tracks(anchor, &samples, rest_sample, Tolerances::BODY, &mut notes);
        if !channels.is_empty() {
            track_map.insert((*anchor).to_owned(), Value::Object(channels));
        }
        let worlds = played
            .iter()
            .enumerate()
            .map(|(t, local)| parent_at(t) * local.affine())
            .collect();
        played_worlds.push(worlds);
    }

    if let Some(object) = json.as_object_mut() {
        object.insert("id".to_owned(), Value::String(clip.id.clone()));
        object.insert("metadata".to_owned(), Value::Object(clip.metadata.clone()));
        object.insert(
            "timeline".to_owned(),
            json!({
                "duration": format!("{}t", clip.duration_ticks),
                "tracks": Value::Object(track_map),
            }),
        );
    }
    set_settings(&mut json, clip.mode, clip.loop_delay_ticks);

    let file = read_back(&json)?;
    Ok(Imported { json, file, notes })
}

/// Every animated anchor's wanted world transform at every tick of
/// `clip`, in the player's frame (the template's root, `body`, sits at the
/// player's feet): the source's own poses carried onto the rig, which the
/// built emote's anchors are thinned against. By anchor id, for tests and
/// tools that hold an import to its source.
pub fn wanted_anchor_worlds(
    clip: &BodyClip,
) -> Result<Vec<Vec<(&'static str, Affine3A)>>, ImportError> {
    let (_, rest) = template()?;
    Ok(wanted_of(&rest, clip)
        .iter()
        .map(|worlds| {
            ANCHORS
                .iter()
                .map(|(id, _)| *id)
                .zip(worlds.iter().copied())
                .collect()
        })
        .collect())
}

/// The wanted world of every anchor ([`ANCHORS`] order) at every tick.
fn wanted_of(rest: &RestRig, clip: &BodyClip) -> Vec<[Affine3A; 11]> {
    clip.poses
        .iter()
        .map(|pose| {
            let frame_of = |joint: BodyJoint| {
                pose.joints
                    .get(&joint)
                    .copied()
                    .unwrap_or_else(|| JointFrame::rest(joint, false))
            };
            rest.wanted_worlds(&frame_of, pose.body)
        })
        .collect()
}

/// The template as JSON (its timeline dropped) and its rest rig.
fn template() -> Result<(Value, RestRig), ImportError> {
    let bug = |message: &str| ImportError::Refused {
        pointer: String::new(),
        message: format!("the embedded humanoid template {message}"),
    };
    let mut json: Value =
        serde_json::from_str(TEMPLATE_JSON).map_err(|_| bug("is not valid JSON"))?;
    let report = parse_emote_value(&json);
    let file = report.file.ok_or_else(|| bug("does not validate"))?;
    let rest = RestRig::of(&file).ok_or_else(|| bug("lacks a joint anchor"))?;
    if let Some(object) = json.as_object_mut() {
        object.remove("timeline");
    }
    Ok((json, rest))
}

/// Standalone, hidden player, wave's stop conditions, the given mode.
fn set_settings(json: &mut Value, mode: PlaybackMode, loop_delay_ticks: u32) {
    let stop_conditions = wave_stop_conditions();
    let delay = match mode {
        PlaybackMode::Loop | PlaybackMode::ServerSync => loop_delay_ticks,
        PlaybackMode::Once | PlaybackMode::Hold => 0,
    };
    let Some(settings) = json.get_mut("settings").and_then(Value::as_object_mut) else {
        return;
    };
    settings.insert("standalone".to_owned(), Value::Bool(true));
    if let Some(player) = settings.get_mut("player").and_then(Value::as_object_mut) {
        player.insert("hidden".to_owned(), Value::Bool(true));
        if let Some(stop) = stop_conditions {
            player.insert("stop_conditions".to_owned(), stop);
        }
    }
    settings.insert(
        "playback".to_owned(),
        json!({"mode": mode.name(), "loop_delay": format!("{delay}t")}),
    );
}

#[cfg(test)]
mod tests;
