//! Schema 1 and schema 3 Animation files (hanhy06/emote's earlier
//! formats) migrated to schema 4.
//!
//! # The model
//! A schema 3 Animation is flat: every node declares a `space` and a
//! `default_matrix`, 16 numbers in row-major order, the node's transform
//! in its **root's** frame (the space's player root, not a parent's).
//! Motion is one `timeline.keyframes` array sorted by `time`; a keyframe
//! moves nodes (`node_transforms`: a node id to its new matrix, written
//! as the 16 numbers or as `{"matrix": [...], "interpolation_duration":
//! "2t"}`) and shows or hides display nodes (`node_states`: a node id to
//! `{"visible": bool}` or to the boolean). Events name their `source` and
//! `origin` by string (`player`, `server`, `root` or a node id) with the
//! event's `offset` beside them. Schema 1 is schema 3 with other names
//! (the table in `read.rs`): integer `*_ticks` fields, `player`,
//! `standalone` and the loop at other places, no `type`, no `space`.
//!
//! Both are read into one model (`read.rs`), then written as schema 4
//! (`motion.rs` for the tracks, `write.rs` for the rest):
//!
//! - **Nodes.** A node becomes a root in its space. A node may also name
//!   a `parent` (not in the published tables, but a converter's own
//!   output may carry it): it is written as that parent's child, and
//!   since schema 3 matrices are root-local, its local transform is
//!   rebuilt as `parent⁻¹ · node`, against the parent **as its written
//!   tracks play it**, so the child stays where the file puts it in the
//!   root's frame, within the tolerances, whatever the parent's thinning
//!   did. Display nodes keep their item, block and text fields as written.
//!   A schema 1 node gets `space: initiator` (what schema 3's guidance
//!   gives player-body nodes) and a `skin` gets `participant: initiator`.
//! - **`interpolation_duration`.** A transform at time `t` with
//!   interpolation `d` *arrives* at `t`: the node holds its previous
//!   matrix until `t − d`, then moves linearly (matrix lerp, component by
//!   component) to the new one at `t`. That is why schema 3 refuses a
//!   `d` longer than the time since the node's previous transform, and
//!   with `d` equal to that span it is exactly schema 4's segment
//!   between adjacent keys, the reading the spec's migration table
//!   gives. A transform's own `interpolation_duration` wins over its
//!   keyframe's; with neither, `d` is the whole span (a note says so); a
//!   `d` past the span is cut to it (with a note); `0t` is a jump.
//! - **Tracks.** Where matrix lerp is exactly TRS lerp (a root whose
//!   matrices are all `T · R · S` and whose every moving span keeps one
//!   rotation), keys are written directly at the keyframes' times, with a
//!   hold key at `t − d` and `step` before a jump. Otherwise (a turn
//!   inside a span, which matrix lerp shrinks instead of slerping; shear;
//!   a child) the node's local transform is sampled at every tick and
//!   thinned with [`crate::import::keys::node_tracks`] within 0.01 block
//!   and 0.5°. Each node's note says which was done.
//! - **Visibility.** `node_states` become a stepped `visible` track from
//!   the node's initial `visible` (a state given to an anchor is dropped).
//! - **Events.** `source: "player" | "server" | <node>` becomes
//!   `{"type": ...}`, `origin: "root" | <node>` likewise, the event's
//!   `offset` moving into the origin. The keywords win over a node of the
//!   same name.
//!
//! The result is read back through the schema 4 reader; a rule the
//! migrated file breaks there (an id that is not lowercase, a text
//! component that is not one) is the source's, and comes back as
//! [`LegacyError::Refused`] with the reader's pointer and words.

mod events;
mod fields;
mod motion;
mod read;
mod write;

use super::humanoid::Imported;
use super::ConvertOptions;
use crate::format::time::TimeError;

/// Why a schema 1 or 3 file gave no schema 4 file. Every variant names a
/// JSON pointer into the source (or, for [`LegacyError::Refused`], into
/// the migrated file) and the rule broken.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LegacyError {
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
    /// Not a schema 1 or 3 Animation.
    #[error("/schema_version: {found} is not a version this migrates; give a schema 1 or schema 3 Animation (schema 4 loads as it is)")]
    Version {
        /// What the file says.
        found: String,
    },
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
        /// What belongs there.
        expected: &'static str,
    },
    /// A time value is not a Minecraft time.
    #[error("{pointer}: {source}")]
    Time {
        /// Where the value is.
        pointer: String,
        /// Why it was refused.
        source: TimeError,
    },
    /// A matrix is not 16 finite numbers with a last row of `0 0 0 1`.
    #[error("{pointer}: {rule}")]
    Matrix {
        /// Where the matrix is.
        pointer: String,
        /// The rule it breaks.
        rule: String,
    },
    /// A keyframe, state or event names a node the file does not have.
    #[error("{pointer}: node `{node}` is not in `nodes`; name one of the file's nodes")]
    UnknownNode {
        /// Where the name is.
        pointer: String,
        /// The name.
        node: String,
    },
    /// Keyframes out of time order.
    #[error("{pointer}: keyframes must be sorted by time: {tick}t follows {previous_tick}t")]
    Unsorted {
        /// The keyframe's time.
        pointer: String,
        /// Its tick.
        tick: u32,
        /// The tick of the keyframe before it.
        previous_tick: u32,
    },
    /// A keyframe after the end of the timeline.
    #[error(
        "{pointer}: a keyframe at {tick}t is past the timeline's duration of {duration_ticks}t"
    )]
    PastEnd {
        /// The keyframe's time.
        pointer: String,
        /// Its tick.
        tick: u32,
        /// The timeline's duration.
        duration_ticks: u32,
    },
    /// A `parent` that names no node, or parents that go round in a ring.
    #[error("{pointer}: {rule}")]
    Parent {
        /// Where the `parent` is.
        pointer: String,
        /// The rule it breaks.
        rule: String,
    },
    /// A timeline longer than a schema 4 one may be (read before anything
    /// is sampled: a migration samples every tick).
    #[error("{pointer}: {ticks}t is longer than a schema 4 timeline may be ({max_ticks}t, 10 minutes); cut the source shorter")]
    TooLong {
        /// Where the duration is.
        pointer: String,
        /// The duration read.
        ticks: u32,
        /// [`crate::format::MAX_TIMELINE_TICKS`].
        max_ticks: u32,
    },
    /// A schema 1 file at another tick rate than 20.
    #[error("/tick_rate: schema 1 files play at 20 ticks per second; this one says {rate}, which has no schema 4 equivalent")]
    TickRate {
        /// The rate written.
        rate: String,
    },
    /// The migrated file breaks a schema 4 rule the source broke too.
    #[error(
        "the migrated file is refused at {pointer}: {message} (fix the source's matching field)"
    )]
    Refused {
        /// The schema 4 reader's pointer, into the migrated file.
        pointer: String,
        /// The reader's words.
        message: String,
    },
}

/// Migrates one schema 1 or schema 3 Animation to schema 4. The file's
/// own `id` is kept (Sequences name it); `options.id(None)` is used only
/// when it has none. Notes list every lossy or inferred step.
pub fn convert(bytes: &[u8], options: &ConvertOptions) -> Result<Vec<Imported>, LegacyError> {
    let mut notes = Vec::new();
    let legacy = parse(bytes, &mut notes)?;
    let imported = write::schema4(&legacy, &options.id(None), notes)?;
    Ok(vec![imported])
}

/// The source's own evaluation: every node's root-local matrix at every
/// tick `0..=duration`, by the interpolation rule of the module guide
/// (for tests and tools that compare the migrated file with its source).
pub fn source_matrices(
    bytes: &[u8],
) -> Result<std::collections::BTreeMap<String, Vec<glam::Mat4>>, LegacyError> {
    let root: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| LegacyError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let legacy = read::legacy(&root, &mut Vec::new())?;
    Ok(legacy
        .nodes
        .iter()
        .map(|node| {
            let frames = (0..=legacy.duration_ticks)
                .map(|t| motion::world_at(node, t))
                .collect();
            (node.id.clone(), frames)
        })
        .collect())
}

/// The bytes as JSON, read into the model.
fn parse(bytes: &[u8], notes: &mut Vec<crate::import::Note>) -> Result<read::Legacy, LegacyError> {
    let root: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| LegacyError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    read::legacy(&root, notes)
}

#[cfg(test)]
mod tests;
