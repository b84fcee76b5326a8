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
//!    [`three_ds`] for the keyframer of 3D Studio `.3ds` files).
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

pub mod humanoid;
pub mod playeranimator;
pub mod three_ds;

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
