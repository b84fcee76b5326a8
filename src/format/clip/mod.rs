//! `.anim` clips (versions 1 to 3) and `.retarget` files: bone animation
//! for a body's twelve joints or a model's bones (seed 000, "Animation
//! files"; seed 001 for the joints and how names land on them).
//!
//! # The model
//! A clip is a set of joints, each with up to three channels (`rotation`,
//! `position`, `scale`) of keys `[time, value, interpolation, extra]` in
//! seconds, blocks and degrees, plus clip-wide playback fields and things
//! that happen at a time (markers, events, sounds, plays). Version 1 files
//! list whole poses at keyframes instead; they are turned into the same
//! per-joint curves when read ([`poses`]), so everything after the reader
//! sees one shape, [`ClipFile`].
//!
//! Reading goes through `serde_json::Value` and the same walker and
//! [`Problems`] the schema 4 reader uses: one pass reports every problem,
//! each at its JSON pointer with a message naming the rule. What comes out
//! is valid by construction; the sampler (`anim::clip`) never re-checks it.
//!
//! # Choices where the seed is silent
//! - Unknown fields are refused everywhere, as in schema 4, except the
//!   editor's own `rig`, `fps` and `viewModel` at the top and `preview` in
//!   an event, which are read past whatever they hold.
//! - A file without `version` is read by its layout (`keyframes`: version
//!   1, `joints`: 3). Version 3 fields in a file that says version 2 are
//!   read (the editor writes version 2).
//! - Joints land on body joints through the clip's `retarget`, else by
//!   name ([`joints`]). A joint that lands on none is a **warning**, not an
//!   error: the clip may be for a model. A second joint landing on a body
//!   joint already taken is a warning too, and is kept off the body.
//! - A channel holds at most [`MAX_CHANNEL_KEYS`] keys; an envelope at most
//!   [`ENVELOPE_POINTS`] points. Files over
//!   [`MAX_FILE_BYTES`](crate::format::MAX_FILE_BYTES) are refused unread,
//!   as schema 4 files are.
//! - Handles on quaternion keys are read and ignored (quaternion keys
//!   treat bezier as linear); `ease` on a key that is not an easing is
//!   read and ignored.
//! - `skeleton` must be an object and is kept as written; emoted does not
//!   apply it yet.
//! - Something timed after an explicit `length` is a warning (it is never
//!   reached).

mod cues;
mod document;
pub mod joints;
pub mod keys;
mod modifiers;
pub mod poses;
pub mod retarget;
pub mod types;

#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;

use std::path::Path;

pub use joints::BodyJoint;
pub use keys::{default_ease, MAX_CHANNEL_KEYS};
pub use retarget::{RestRotations, RetargetFile, RetargetJoint};
pub use types::*;

use super::{capped_text, read_capped, Problem, Problems};

/// What reading one clip or retarget file gives: the file when it is
/// valid, and every problem found (warnings too).
#[derive(Clone, Debug)]
pub struct Report<T> {
    /// `Some` exactly when no problem is an error.
    pub file: Option<T>,
    /// Errors and warnings, in the order found.
    pub problems: Vec<Problem>,
}

/// Reads a clip from JSON text.
pub fn parse_clip_json(text: &str) -> Report<ClipFile> {
    parse_json(text, document::read_clip)
}

/// Reads a `.retarget` file from JSON text.
pub fn parse_retarget_json(text: &str) -> Report<RetargetFile> {
    parse_json(text, retarget::read_retarget)
}

/// Reads a clip from raw bytes (at most [`MAX_FILE_BYTES`](crate::format::MAX_FILE_BYTES), UTF-8).
pub fn parse_clip_bytes(bytes: &[u8]) -> Report<ClipFile> {
    parse_bytes(bytes, document::read_clip)
}

/// Reads a `.retarget` file from raw bytes.
pub fn parse_retarget_bytes(bytes: &[u8]) -> Report<RetargetFile> {
    parse_bytes(bytes, retarget::read_retarget)
}

/// Reads a clip from disk; over [`MAX_FILE_BYTES`](crate::format::MAX_FILE_BYTES) is refused from its size.
pub fn read_clip_file(path: &Path) -> Report<ClipFile> {
    read_file(path, document::read_clip)
}

/// Reads a `.retarget` file from disk.
pub fn read_retarget_file(path: &Path) -> Report<RetargetFile> {
    read_file(path, retarget::read_retarget)
}

type Reader<T> = fn(&serde_json::Value, &mut Problems) -> Option<T>;

fn refused<T>(problem: Problem) -> Report<T> {
    Report {
        file: None,
        problems: vec![problem],
    }
}

fn parse_json<T>(text: &str, read: Reader<T>) -> Report<T> {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return refused(Problem::error("", format!("not valid JSON: {e}"))),
    };
    let mut problems = Problems::new();
    let file = read(&value, &mut problems);
    let file = if problems.has_errors() { None } else { file };
    Report {
        file,
        problems: problems.into_vec(),
    }
}

fn parse_bytes<T>(bytes: &[u8], read: Reader<T>) -> Report<T> {
    match capped_text(bytes) {
        Ok(text) => parse_json(text, read),
        Err(problem) => refused(problem),
    }
}

fn read_file<T>(path: &Path, read: Reader<T>) -> Report<T> {
    match read_capped(path) {
        Ok(bytes) => parse_bytes(&bytes, read),
        Err(problem) => refused(problem),
    }
}
