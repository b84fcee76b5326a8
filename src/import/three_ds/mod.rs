//! 3D Studio `.3ds` files' keyframer (chunk `0xB000`): the node hierarchy
//! and its tracks, read without trusting a byte, and evaluated at any
//! frame the way lib3ds 2.0 plays them.
//!
//! # The model
//! A `.3ds` file is a tree of little-endian chunks (`u16 id`, `u32 length`
//! that counts its own 6-byte header, then data and child chunks). The
//! animation lives in the keyframer chunk inside the main chunk
//! (`0x4D4D → 0xB000`), beside the editor (`0x3D3D`, the meshes, which
//! this module does not read yet). The keyframer holds a header
//! (`0xB00A`: revision, scene name, frame count), the active segment
//! (`0xB008`) and one chunk per **node**. A node names an editor object,
//! gives its parent by node id (`0xFFFF` for none), a pivot, and tracks of
//! keys: position, rotation, scale and hide.
//!
//! Reading goes in three layers, each in its own file:
//!
//! 1. [`chunks`]: the chunk walker and the field cursor. Every rule a
//!    file can break (a truncated header or field, a length below 6 or
//!    past the parent's end, nesting over [`Limits::max_depth`], more than
//!    [`Limits::max_chunks`] chunks, a file over [`Limits::max_file_bytes`],
//!    a string with no NUL in its chunk, a count the chunk cannot hold) is
//!    a [`ReadError`] naming the byte offset where it broke. Nothing is
//!    allocated for a count before the bytes it needs are known to be
//!    there; unknown chunks are skipped by their length, unread.
//! 2. [`keyframer`] and [`tracks`]: the [`Scene`] of [`Node`]s, keys sorted
//!    by frame with duplicates resolved, relative rotations made absolute,
//!    parents linked by id (a missing parent or a cycle is an error at the
//!    node's offset), values checked finite and in range, so that
//!    evaluation can never fail.
//! 3. [`tcb`] and [`scene`]: evaluation. [`tcb`] samples one track
//!    (Kochanek–Bartels Hermite curves for vectors, squad over the
//!    absolute quaternions for rotations, ease, REPEAT and SMOOTH, hide
//!    toggles); [`evaluate`] gives every node's local transform, world
//!    matrix and visibility at a frame, in emoted's Y-up frame.
//!
//! # Conventions
//! - Frames are the file's own integer frames; the file stores no frame
//!   rate, so [`FrameRate`] converts ticks to frames (30 frames per second
//!   unless told otherwise).
//! - 3D Studio is Z-up, emoted Y-up. The change of basis `(x, y, z) → (x,
//!   z, −y)` is applied once, in [`evaluate`], to every node's local
//!   transform (see [`scene`]); tracks and keys keep the file's own axes.
//! - [`convert`] builds schema 4 from the samples, through
//!   [`crate::import::scene`].

pub mod chunks;
pub mod convert;
pub mod keyframer;
pub mod scene;
pub mod tcb;
pub mod tracks;

#[cfg(test)]
mod eval_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod writer;

pub use chunks::Limits;
pub use keyframer::{read_scene, read_scene_with, KeyframerHeader, Node, NodeKind, Scene, Segment};
pub use scene::{evaluate, FrameRate, NodeSample, Trs};
pub use tracks::{Key, RotationTrack, Spline, Track, TrackFlags};

/// Where a rule was broken: a chunk named by its id, or the file itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The whole input, for the top-level chunk.
    File,
    /// The chunk with this id.
    Chunk(u16),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::File => write!(f, "the file"),
            Place::Chunk(id) => write!(f, "chunk {id:#06X}"),
        }
    }
}

/// Why a `.3ds` file could not be read. Every variant names the byte
/// offset (from the start of the input) where the rule was broken; for a
/// value that is missing, the offset where it should have started.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReadError {
    /// The input is larger than the reader accepts.
    #[error("byte {offset}: the file is {size_bytes} bytes, over the {max_bytes}-byte limit for a .3ds file; is it really one?")]
    TooLarge {
        /// The first byte past the limit.
        offset: usize,
        /// The input's size.
        size_bytes: usize,
        /// [`Limits::max_file_bytes`].
        max_bytes: usize,
    },
    /// The first chunk is not the main chunk.
    #[error(
        "byte {offset}: a .3ds file starts with the main chunk 0x4D4D, this one with {id:#06X}"
    )]
    NotThreeDs {
        /// Where the first chunk starts (0).
        offset: usize,
        /// The id found.
        id: u16,
    },
    /// Fewer than 6 bytes are left where a chunk header should be.
    #[error("byte {offset}: a chunk header needs 6 bytes, only {left_bytes} are left in {parent}; the file is cut short")]
    TruncatedHeader {
        /// Where the header starts.
        offset: usize,
        /// The bytes left before the parent's end.
        left_bytes: usize,
        /// The chunk (or the file) the header is in.
        parent: Place,
    },
    /// A chunk's length does not even cover its own header, so a reader
    /// would never move past it.
    #[error("byte {offset}: chunk {id:#06X} says it is {length} bytes long; a chunk is at least its 6-byte header")]
    ShortChunk {
        /// Where the chunk starts.
        offset: usize,
        /// Its id.
        id: u16,
        /// The length it gives.
        length: u32,
    },
    /// A chunk runs past the end of the chunk (or the file) it is in.
    #[error("byte {offset}: chunk {id:#06X} is {length} bytes long and runs past the end of {parent} at byte {parent_end}")]
    PastParent {
        /// Where the chunk starts.
        offset: usize,
        /// Its id.
        id: u16,
        /// The length it gives.
        length: u32,
        /// The chunk (or the file) it is in.
        parent: Place,
        /// Where that parent ends.
        parent_end: usize,
    },
    /// Chunks nest deeper than [`Limits::max_depth`].
    #[error("byte {offset}: chunk {id:#06X} is nested {depth} chunks deep, more than the {max_depth} a .3ds file needs")]
    TooDeep {
        /// Where the chunk starts.
        offset: usize,
        /// Its id.
        id: u16,
        /// Its depth (the main chunk is at depth 1).
        depth: usize,
        /// [`Limits::max_depth`].
        max_depth: usize,
    },
    /// The file has more chunks than [`Limits::max_chunks`].
    #[error("byte {offset}: this is chunk number {count}, more than the {max_chunks} the reader accepts")]
    TooManyChunks {
        /// Where the chunk over the limit starts.
        offset: usize,
        /// Its number, counting every chunk header read.
        count: usize,
        /// [`Limits::max_chunks`].
        max_chunks: usize,
    },
    /// A field runs past the end of its chunk.
    #[error("byte {offset}: {what} needs {needed_bytes} bytes, only {left_bytes} are left in chunk {chunk:#06X}")]
    Truncated {
        /// Where the field starts.
        offset: usize,
        /// What the field is.
        what: &'static str,
        /// Its size.
        needed_bytes: usize,
        /// The bytes left in the chunk.
        left_bytes: usize,
        /// The chunk's id.
        chunk: u16,
    },
    /// A string has no NUL byte before its chunk ends.
    #[error("byte {offset}: {what} has no terminating NUL byte before chunk {chunk:#06X} ends")]
    Unterminated {
        /// Where the string starts.
        offset: usize,
        /// What the string is.
        what: &'static str,
        /// The chunk's id.
        chunk: u16,
    },
    /// A count says more items than the bytes left in its chunk can hold.
    #[error("byte {offset}: {what} is {count}, but {count} items of at least {each_bytes} bytes do not fit in the {left_bytes} bytes left in chunk {chunk:#06X}")]
    CountTooLarge {
        /// Where the count is.
        offset: usize,
        /// What is counted.
        what: &'static str,
        /// The count.
        count: u32,
        /// The fewest bytes one item takes.
        each_bytes: usize,
        /// The bytes left in the chunk after the count.
        left_bytes: usize,
        /// The chunk's id.
        chunk: u16,
    },
    /// A number is NaN or infinite.
    #[error("byte {offset}: {what} is {value}; every number in a keyframer must be finite")]
    NotFinite {
        /// Where the number is.
        offset: usize,
        /// What it is.
        what: &'static str,
        /// The value read.
        value: f32,
    },
    /// A spline parameter is outside the range 3D Studio gives it.
    #[error("byte {offset}: {what} is {value}; it must be from {min} to {max}")]
    OutOfRange {
        /// Where the number is.
        offset: usize,
        /// What it is.
        what: &'static str,
        /// The value read.
        value: f32,
        /// The smallest value allowed.
        min: f32,
        /// The largest value allowed.
        max: f32,
    },
    /// A chunk that may appear once appears again.
    #[error("byte {offset}: a second chunk {id:#06X} in {parent}; the first is at byte {first_offset}, and which one counts would be a guess")]
    Duplicate {
        /// Where the second one starts.
        offset: usize,
        /// Its id.
        id: u16,
        /// The chunk it is in.
        parent: Place,
        /// Where the first one starts.
        first_offset: usize,
    },
    /// The main chunk has no keyframer.
    #[error("byte {offset}: the main chunk has no keyframer chunk 0xB000, so there is no animation or hierarchy to import")]
    NoKeyframer {
        /// Where the main chunk starts.
        offset: usize,
    },
    /// A node has no header chunk, so no name and no parent.
    #[error("byte {offset}: node chunk {id:#06X} has no header chunk 0xB010 (its object's name and parent)")]
    MissingNodeHeader {
        /// Where the node starts.
        offset: usize,
        /// The node chunk's id.
        id: u16,
    },
    /// Two nodes have the same node id.
    #[error("byte {offset}: node id {node_id} is already the id of the node at byte {first_offset}; parents are found by id, so ids must be unique")]
    DuplicateNodeId {
        /// Where the second node starts.
        offset: usize,
        /// The id.
        node_id: u16,
        /// Where the first node with it starts.
        first_offset: usize,
    },
    /// A node's parent id names no node.
    #[error("byte {offset}: node {node_id} names parent {parent_id}, but no node has that id (65535 means no parent)")]
    MissingParent {
        /// Where the node starts.
        offset: usize,
        /// The node's id.
        node_id: u16,
        /// The parent id it gives.
        parent_id: u16,
    },
    /// Following parents from a node comes back to it.
    #[error("byte {offset}: node {node_id} is its own ancestor (its parents loop back to it); the hierarchy must be a tree")]
    ParentCycle {
        /// Where the first node of the loop (in file order) starts.
        offset: usize,
        /// Its id.
        node_id: u16,
    },
}

impl ReadError {
    /// The byte offset the error names.
    pub fn offset(&self) -> usize {
        match self {
            ReadError::TooLarge { offset, .. }
            | ReadError::NotThreeDs { offset, .. }
            | ReadError::TruncatedHeader { offset, .. }
            | ReadError::ShortChunk { offset, .. }
            | ReadError::PastParent { offset, .. }
            | ReadError::TooDeep { offset, .. }
            | ReadError::TooManyChunks { offset, .. }
            | ReadError::Truncated { offset, .. }
            | ReadError::Unterminated { offset, .. }
            | ReadError::CountTooLarge { offset, .. }
            | ReadError::NotFinite { offset, .. }
            | ReadError::OutOfRange { offset, .. }
            | ReadError::Duplicate { offset, .. }
            | ReadError::NoKeyframer { offset }
            | ReadError::MissingNodeHeader { offset, .. }
            | ReadError::DuplicateNodeId { offset, .. }
            | ReadError::MissingParent { offset, .. }
            | ReadError::ParentCycle { offset, .. } => *offset,
        }
    }
}
