//! Schema 4 emote files: Animations and Sequences.
//!
//! Reading goes through `serde_json::Value` and a hand-written walker instead
//! of `#[derive(Deserialize)]`, so that one pass reports **every** problem in
//! a file, each with the JSON pointer where it is and a message that names the
//! rule (DESIGN.md, "Errors"). What comes out ([`AnimationFile`],
//! [`SequenceFile`]) is valid by construction: the runtime never re-checks it.
//!
//! Choices where the specification is silent are documented on the module
//! that makes them: defaults in [`settings`], SNBT handling and the list of
//! runtime-owned `entity_nbt` keys in [`snbt`], how NBT tracks merge and
//! what they may change in [`nbt_track`], time rounding in [`time`],
//! Sequence minimums in [`sequence`]. Unknown fields are refused (a typo such
//! as `stop_condition` would otherwise be silently ignored), except inside
//! `metadata`, where extra fields are kept. `target_minecraft_version` is
//! accepted and ignored.

pub mod animation;
pub mod camera;
#[cfg(test)]
mod camera_tests;
pub mod clip;
pub mod content;
pub mod controller;
#[cfg(test)]
mod controller_tests;
pub mod display_fields;
pub mod event;
pub mod ident;
mod keyframes;
pub mod nbt_track;
#[cfg(test)]
mod nbt_track_tests;
pub mod node;
pub mod problem;
mod read;
pub mod resources;
pub mod sequence;
pub mod settings;
pub mod snbt;
pub mod solvers;
#[cfg(test)]
mod solvers_tests;
pub mod time;
pub mod track;

use std::io::Read;
use std::path::Path;

pub use animation::{AnimationFile, Metadata, MolangPrograms, Timeline};
pub use ident::EmoteId;
pub use problem::{Problem, Problems, Severity};
pub use sequence::SequenceFile;

/// The only schema version emoted loads.
pub const SCHEMA_VERSION: u32 = 4;
/// Files larger than this are refused before they are parsed.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// The longest timeline: 10 minutes.
pub const MAX_TIMELINE_TICKS: u32 = 12_000;
/// The longest Molang string, in characters.
pub const MAX_MOLANG_CHARS: usize = 16_384;

/// A loaded emote file of either kind.
#[derive(Clone, Debug, PartialEq)]
pub enum EmoteFile {
    /// A schema 4 Animation.
    Animation(AnimationFile),
    /// A schema 4 Sequence.
    Sequence(SequenceFile),
    /// A controller (emoted's own `"type": "controller"`, [`controller`]).
    Controller(controller::ControllerFile),
}

impl EmoteFile {
    /// True when players may pick the emote themselves: an Animation's
    /// `settings.standalone`; Sequences always.
    pub fn is_standalone(&self) -> bool {
        match self {
            EmoteFile::Animation(a) => a.settings.standalone,
            EmoteFile::Sequence(_) => true,
            EmoteFile::Controller(c) => c.settings.standalone,
        }
    }

    /// The emote id.
    pub fn id(&self) -> &EmoteId {
        match self {
            EmoteFile::Animation(a) => &a.id,
            EmoteFile::Sequence(s) => &s.id,
            EmoteFile::Controller(c) => &c.id,
        }
    }

    /// The metadata.
    pub fn metadata(&self) -> &Metadata {
        match self {
            EmoteFile::Animation(a) => &a.metadata,
            EmoteFile::Sequence(s) => &s.metadata,
            EmoteFile::Controller(c) => &c.metadata,
        }
    }
}

/// What reading one file gives: the file when it is valid, and every problem found.
#[derive(Clone, Debug)]
pub struct FileReport {
    /// `Some` exactly when no problem is an error.
    pub file: Option<EmoteFile>,
    /// Errors and warnings, in the order found.
    pub problems: Vec<Problem>,
}

/// "; did you mean `x`?" for the candidate closest to `name`, or nothing
/// when none is close (the suggestion every file error uses).
pub fn did_you_mean_among(name: &str, candidates: &[&str]) -> String {
    read::did_you_mean(name, candidates.iter().copied())
}

/// Reads an emote file from JSON text.
pub fn parse_emote_json(text: &str) -> FileReport {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return FileReport {
                file: None,
                problems: vec![Problem::error("", format!("not valid JSON: {e}"))],
            }
        }
    };
    parse_emote_value(&value)
}

/// Reads an emote file from parsed JSON.
pub fn parse_emote_value(value: &serde_json::Value) -> FileReport {
    let mut problems = Problems::new();
    let file = match value.get("type").and_then(|t| t.as_str()) {
        Some("animation") => {
            animation::read_animation(value, &mut problems).map(EmoteFile::Animation)
        }
        Some("sequence") => sequence::read_sequence(value, &mut problems).map(EmoteFile::Sequence),
        Some("controller") => {
            controller::read_controller(value, &mut problems).map(EmoteFile::Controller)
        }
        Some(other) => {
            problems.error(
                "/type",
                format!("`type` must be \"animation\", \"sequence\" or \"controller\", found \"{other}\""),
            );
            None
        }
        None if value.get("type").is_some() => {
            problems.error(
                "/type",
                "`type` must be \"animation\", \"sequence\" or \"controller\"",
            );
            None
        }
        None if value.is_object() => {
            problems.error(
                "",
                "missing required field `type` (\"animation\", \"sequence\" or \"controller\")",
            );
            None
        }
        None => {
            problems.error("", "an emote file must be a JSON object");
            None
        }
    };
    FileReport {
        file,
        problems: problems.into_vec(),
    }
}

/// Reads raw bytes: refuses more than [`MAX_FILE_BYTES`] and text that is not UTF-8.
pub fn parse_emote_bytes(bytes: &[u8]) -> FileReport {
    match capped_text(bytes) {
        Ok(text) => parse_emote_json(text),
        Err(problem) => refused(problem),
    }
}

fn refused(problem: Problem) -> FileReport {
    FileReport {
        file: None,
        problems: vec![problem],
    }
}

/// The text of `bytes` (a leading byte order mark dropped), or the problem
/// that refuses them: over [`MAX_FILE_BYTES`], or not UTF-8.
pub(crate) fn capped_text(bytes: &[u8]) -> Result<&str, Problem> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.strip_prefix('\u{feff}').unwrap_or(text)),
        Err(e) => Err(Problem::error("", format!("file is not UTF-8 text: {e}"))),
    }
}

fn too_large(len: u64) -> Problem {
    Problem::error(
        "",
        format!("file is {len} bytes; emote files are limited to 8 MiB ({MAX_FILE_BYTES} bytes)"),
    )
}

/// The bytes of the file at `path`, or the problem that refuses it. A file
/// over 8 MiB is refused from its size alone, and reading stops after
/// 8 MiB + 1 byte even if the file grows meanwhile.
pub(crate) fn read_capped(path: &Path) -> Result<Vec<u8>, Problem> {
    let io_error = |e: std::io::Error| Problem::error("", format!("cannot read file: {e}"));
    let file = std::fs::File::open(path).map_err(io_error)?;
    if let Ok(meta) = file.metadata() {
        if meta.len() > MAX_FILE_BYTES {
            return Err(too_large(meta.len()));
        }
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    Ok(bytes)
}

/// Reads an emote file from disk (see [`parse_emote_bytes`]; a file over
/// 8 MiB is refused from its size alone).
pub fn read_emote_file(path: &Path) -> FileReport {
    match read_capped(path) {
        Ok(bytes) => parse_emote_bytes(&bytes),
        Err(problem) => refused(problem),
    }
}
