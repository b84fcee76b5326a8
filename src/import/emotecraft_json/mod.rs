//! Emotecraft's JSON emotes (`*.json` with a top-level `emote` object)
//! into schema 4 on the humanoid rig.
//!
//! # The model
//! An Emotecraft JSON emote is PlayerAnimator's keyframe model written as
//! a list of moves. This module reads the file the way PlayerAnimator's
//! JSON loader does, into the same [`BoneAnimation`] an Emotecraft STREAM
//! carries, and hands that to [`import_bone_animation`], which evaluates
//! the keys as PlayerAnimator plays them and builds schema 4. So the JSON
//! and the binary form of one emote convert to the same file.
//!
//! ```text
//! {name, description?, author?, uuid?, version? (1 when absent, at most 3),
//!  emote: {beginTick? (0), endTick (> 0), stopTick? (endTick),
//!          isLoop? + returnTick? (read only together), nsfw?,
//!          degrees? (true), easeBeforeKeyframe?,
//!          moves: [{tick, easing? ("linear"), turn? (0),
//!                   <part>: {x?, y?, z?, pitch?, yaw?, roll?, bend?, axis?}}]}}
//! ```
//!
//! # Reading a move
//! - Each axis given in a part object is one keyframe at the move's
//!   `tick` with the move's easing, inserted after the keys already at
//!   that tick (so the order of equal ticks is the order in the file).
//! - Angles (`pitch`, `yaw`, `roll`, `bend`, `axis`) are degrees unless
//!   `degrees` is false, and become radians (times the `f32`
//!   0.01745329251 PlayerAnimator uses); offsets (`x`, `y`, `z`) are
//!   model pixels, +y down, and stay as written.
//! - `turn: n` (n ≠ 0) adds, for each angle of the move, a second key at
//!   the same tick with the value plus n full turns: the stretch before
//!   the tick ends at the value, the one after starts n turns further.
//! - `easing` is an ease name, compared in upper case with an `EASE`
//!   prefix dropped (`easeInOutSine`, `INOUTSINE`, `InOutSine`); exactly
//!   `step` is constant; a name PlayerAnimator does not know plays linear
//!   (with a note).
//! - In versions 1 and 2, `torso` is the whole body (PlayerAnimator's
//!   `body` part, which moves the player as one); version 3 names the
//!   body `body` and the torso `torso`.
//! - A part given any key has all its axes enabled: an axis it never keys
//!   holds the part's rest value, not the player's own pose.
//!
//! Numbers, booleans and ticks are read as Gson reads them: a number or
//! a string holding one, a fractional tick cut toward zero, a boolean
//! string true only when it says `true`.
//!
//! # What does not carry over (each with a [`Note`])
//! `leftItem`, `rightItem` and part names emoted's rig does not have; a
//! bend on the head (PlayerAnimator refuses the whole file there; emoted
//! drops the axis); axis names PlayerAnimator ignores; `nsfw` (kept in
//! the metadata, nothing acts on it); `isLoop` without `returnTick` (or
//! the reverse), ignored as PlayerAnimator ignores it. Then whatever
//! [`import_bone_animation`] notes (the ease back after `endTick`,
//! resampled tracks).
//!
//! PlayerAnimator also drops a key whose neighbours on both sides hold
//! the same value; that never changes what plays, so it is not done here.

mod read;

use serde_json::{Map, Value};

use super::humanoid::Imported;
use super::playeranimator::import_bone_animation;
use super::{ConvertOptions, ImportError, Note};
use crate::modded::emotecraft::animation::BoneAnimation;

pub use self::read::{ease_id, HIGHEST_VERSION};

/// An Emotecraft JSON emote as read: the keyframes, the metadata for the
/// schema 4 file, and what was dropped on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct EmotecraftEmote {
    /// The keyframes, as PlayerAnimator's JSON loader builds them.
    pub animation: BoneAnimation,
    /// `name`, `description`, `author` and the file's other top-level
    /// values, for the schema 4 `metadata`.
    pub metadata: Map<String, Value>,
    /// Every lossy step of the reading, with pointers into the source.
    pub notes: Vec<Note>,
}

/// Why an Emotecraft JSON emote gave no file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EmotecraftJsonError {
    /// The bytes are not JSON.
    #[error("the file is not JSON (line {line}, column {column}): {message}")]
    Json {
        /// Line of the problem, from 1.
        line: usize,
        /// Column of the problem, from 1.
        column: usize,
        /// serde_json's words.
        message: String,
    },
    /// There is no `emote` object: not an Emotecraft JSON emote.
    #[error("/emote: an Emotecraft JSON emote has a top-level `emote` object; this file has none (a GeckoLib or Bedrock animation converts with --from bedrock)")]
    NotEmotecraft,
    /// A required field is missing.
    #[error("{pointer}: `{field}` is required")]
    Missing {
        /// The object that lacks it.
        pointer: String,
        /// The field's name.
        field: &'static str,
    },
    /// A value has the wrong type.
    #[error("{pointer}: expected {expected}")]
    WrongType {
        /// Where the value is.
        pointer: String,
        /// What the loader reads there.
        expected: &'static str,
    },
    /// The file is a later format than PlayerAnimator reads.
    #[error("{pointer}: version {version} is later than {HIGHEST_VERSION}, the last Emotecraft JSON version; save it from an Emotecraft that writes version {HIGHEST_VERSION} or earlier")]
    Version {
        /// Where the version is.
        pointer: String,
        /// The version written.
        version: i64,
    },
    /// `endTick` is 0 or negative.
    #[error("{pointer}: endTick must be bigger than 0, found {end_tick}")]
    EndTick {
        /// Where it is.
        pointer: String,
        /// The value written.
        end_tick: i32,
    },
    /// A looped emote returns to a tick outside its cycle.
    #[error("{pointer}: a looped emote's returnTick must be from 0 to endTick ({end_tick}), found {return_tick}")]
    ReturnTick {
        /// Where it is.
        pointer: String,
        /// The value written.
        return_tick: i32,
        /// The emote's `endTick`.
        end_tick: i32,
    },
    /// A keyframe value is NaN or infinite (or becomes so in radians).
    #[error("{pointer}: the value is not a finite number; every keyframe value must be finite")]
    NotFinite {
        /// Where it is.
        pointer: String,
    },
    /// The keyframes did not build a schema 4 file.
    #[error(transparent)]
    Import(#[from] ImportError),
}

/// Reads an Emotecraft JSON emote into PlayerAnimator's keyframes,
/// without building schema 4 (the importer's first half, for tools and
/// tests that compare evaluations). `stem` names the emote when the file
/// has no usable `name`.
pub fn read_emote(bytes: &[u8], stem: &str) -> Result<EmotecraftEmote, EmotecraftJsonError> {
    let root: Value = serde_json::from_slice(bytes).map_err(|e| EmotecraftJsonError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    read::emote(&root, stem)
}

/// Converts one Emotecraft JSON emote (one emote per file) into a schema 4
/// Animation on the humanoid rig, with the id `options.id(None)`. The
/// notes list the reading's lossy steps, then the import's.
pub fn convert(
    bytes: &[u8],
    options: &ConvertOptions,
) -> Result<Vec<Imported>, EmotecraftJsonError> {
    let stem = if options.stem.is_empty() {
        "emote"
    } else {
        &options.stem
    };
    let read = read_emote(bytes, stem)?;
    let mut imported = import_bone_animation(&read.animation, &options.id(None), read.metadata)?;
    let mut notes = read.notes;
    notes.append(&mut imported.notes);
    imported.notes = notes;
    Ok(vec![imported])
}

#[cfg(test)]
mod tests;
