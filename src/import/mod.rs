//! Other formats into schema 4: every importer ends in the same validated
//! [`AnimationFile`](crate::format::AnimationFile) the reader gives for a
//! hand-written file, so nothing after `format` knows where an emote came
//! from.
//!
//! # The model
//! An importer works in two steps:
//!
//! 1. **Evaluate the source** in its own terms, tick by tick, into poses
//!    of the player's body: for each of the six joints of
//!    [`crate::anim::bones`] a [`JointFrame`](crate::anim::bones::JointFrame)
//!    (rotation, pivot, bend) in the player's frame, plus an optional
//!    whole-body transform. Axis flips, units and the source's easing stay
//!    in this step ([`playeranimator`] for PlayerAnimator's keyframes,
//!    [`three_ds`] for the keyframer of 3D Studio `.3ds` files,
//!    [`gltf::humanoid`] for a glTF skeleton whose bone names make a
//!    humanoid).
//! 2. **Build schema 4 on the humanoid rig** from those poses
//!    ([`humanoid`]): the nodes of `emotes/humanoid_template.json`, tracks
//!    on its joint anchors only, resampled at every tick and thinned back
//!    to the fewest keys within 0.01 block and 0.5°, then read back through
//!    the schema 4 reader. The middle layer is public, so every format
//!    whose motion is a body's joints shares it.
//!
//! # Lossy steps
//! Whatever does not carry over exactly is reported as a [`Note`] with the
//! JSON pointer it concerns (in the output file, or in the source where
//! the output has no place for it): tracks resampled and thinned, source
//! parts dropped, the source's blend back to the player's own pose, loop
//! points schema 4 cannot express. A note is information, not an error:
//! the file is still valid.

pub mod bedrock;
pub mod blockbench;
pub mod detect;
pub mod emotecraft_json;
pub mod gltf;
#[cfg(test)]
pub(crate) mod golden;
pub mod humanoid;
pub mod keys;
#[cfg(test)]
pub(crate) mod keys_tests;
pub mod legacy;
pub mod playeranimator;
pub mod scene;
pub mod three_ds;

use std::path::PathBuf;

use serde_json::Value;

use crate::format::{parse_emote_value, AnimationFile, EmoteFile};

/// The emote whose stop conditions a converted emote takes.
const WAVE_JSON: &str = include_str!("../../emotes/wave.json");

/// What `emoted convert` asks of an importer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvertOptions {
    /// The namespace of the ids written (`converted` unless told).
    pub namespace: String,
    /// The input's file stem, the path of the ids written (`jack_in_the_box`).
    pub stem: String,
    /// Which animation of several to convert (`--clip NAME`, matched
    /// exactly, then case-insensitively); `None` converts every one.
    pub clip: Option<String>,
    /// The folder the input is in, for the files it names (a glTF's `.bin`,
    /// a Bedrock animation's geometry); `None` for input from memory.
    pub base_dir: Option<PathBuf>,
    /// The geometry file a Bedrock animation plays on (`--geometry`); when
    /// `None`, the importer looks beside the input.
    pub geometry: Option<PathBuf>,
    /// Which rig a glTF skeleton's animation is drawn on (`--rig`).
    pub rig: gltf::RigChoice,
}

impl ConvertOptions {
    /// The emote id for the source animation named `clip` (`None` for a
    /// source with one animation): `namespace:stem`, or
    /// `namespace:stem/clip` with the clip's name made an id path.
    pub fn id(&self, clip: Option<&str>) -> String {
        let path = |text: &str| {
            let mut taken = std::collections::BTreeSet::new();
            scene::node_id(text, &mut taken)
        };
        let namespace = if self.namespace.is_empty() {
            "converted"
        } else {
            &self.namespace
        };
        match clip {
            None => format!("{namespace}:{}", path(&self.stem)),
            Some(clip) => format!("{namespace}:{}/{}", path(&self.stem), path(clip)),
        }
    }
}

/// One lossy step of an import.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Where: a JSON pointer into the output file (`/timeline/tracks/hips/rotation`),
    /// or a path into the source (`/parts/leftItem`) when the output has no place for it.
    pub pointer: String,
    /// What changed and how far, in words an author understands.
    pub message: String,
}

impl Note {
    /// A note at `pointer`.
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Note {
        Note {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NOTE: {}: {}", self.pointer, self.message)
    }
}

/// Why an import gave no file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// The source is longer than a schema 4 timeline may be.
    #[error("{pointer}: the source lasts {ticks} ticks; a schema 4 timeline is at most {max_ticks} ticks (10 minutes), so cut the source shorter")]
    TooLong {
        /// Where the length is written in the source.
        pointer: String,
        /// The source's length.
        ticks: i64,
        /// [`crate::format::MAX_TIMELINE_TICKS`].
        max_ticks: u32,
    },
    /// The poses given do not cover the timeline.
    #[error("the body poses cover {given} ticks but a {duration_ticks}-tick timeline needs {} (ticks 0 to {duration_ticks}); give one pose per tick", duration_ticks + 1)]
    FrameCount {
        /// The timeline's length.
        duration_ticks: u32,
        /// How many poses were given.
        given: usize,
    },
    /// A timeline must last at least one tick.
    #[error("a timeline must last at least 1 tick; give at least two poses (ticks 0 and 1)")]
    Empty,
    /// A source value is NaN or infinite.
    #[error("{pointer}: the value is not a finite number; every keyframe value must be finite")]
    NotFinite {
        /// Where the value is in the source.
        pointer: String,
    },
    /// A node's frames or visibility do not cover the timeline.
    #[error("{source_place}: node `{name}` has {given} samples but a {duration_ticks}-tick timeline needs {} (ticks 0 to {duration_ticks}) (an importer bug; please report it with the source file)", duration_ticks + 1)]
    NodeFrames {
        /// Where the source has the node.
        source_place: String,
        /// The node's name.
        name: String,
        /// The timeline's length.
        duration_ticks: u32,
        /// How many samples were given.
        given: usize,
    },
    /// A node names a parent that does not come before it.
    #[error("{source_place}: node `{name}` names parent {parent}, which is not an earlier node (an importer bug; please report it with the source file)")]
    Parent {
        /// Where the source has the node.
        source_place: String,
        /// The node's name.
        name: String,
        /// The index it gave.
        parent: usize,
    },
    /// The schema 4 reader refused what the importer built: a bug in the
    /// importer, reported with the reader's own words.
    #[error("the converted file was refused at {pointer}: {message} (an importer bug; please report it with the source file)")]
    Refused {
        /// The pointer the reader named.
        pointer: String,
        /// The reader's message.
        message: String,
    },
}

/// Refuses a timeline of no ticks or of more than
/// [`crate::format::MAX_TIMELINE_TICKS`].
fn check_duration(duration_ticks: u32) -> Result<(), ImportError> {
    use crate::format::MAX_TIMELINE_TICKS;
    if duration_ticks == 0 {
        return Err(ImportError::Empty);
    }
    if duration_ticks > MAX_TIMELINE_TICKS {
        return Err(ImportError::TooLong {
            pointer: "/timeline/duration".to_owned(),
            ticks: i64::from(duration_ticks),
            max_ticks: MAX_TIMELINE_TICKS,
        });
    }
    Ok(())
}

/// `emotes/wave.json`'s stop conditions (a converted emote stops when the
/// player moves, jumps, swims, rides, is hurt, attacks or changes game
/// mode), which every importer gives its output.
fn wave_stop_conditions() -> Option<Value> {
    serde_json::from_str::<Value>(WAVE_JSON)
        .ok()
        .and_then(|wave| wave.pointer("/settings/player/stop_conditions").cloned())
}

/// `json` through the schema 4 reader: the validated Animation, or the
/// reader's first error as [`ImportError::Refused`] (an importer bug).
fn read_back(json: &Value) -> Result<AnimationFile, ImportError> {
    let report = parse_emote_value(json);
    match report.file {
        Some(EmoteFile::Animation(file)) => Ok(file),
        _ => {
            let first = report.problems.into_iter().find(|p| p.is_error());
            Err(match first {
                Some(problem) => ImportError::Refused {
                    pointer: problem.pointer,
                    message: problem.message,
                },
                None => ImportError::Refused {
                    pointer: String::new(),
                    message: "the reader gave no Animation".to_owned(),
                },
            })
        }
    }
}
