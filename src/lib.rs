//! emoted: a Minecraft 1.20.1 server built for emotes.
//!
//! The library is organised as DESIGN.md lays out: files flow one way,
//! [`format`](mod@format) (validated file types) → [`library`] (the loaded emotes) → the
//! runtime. This crate currently contains the file layer and the library
//! loader; see the README for the state of each part.
#![deny(rustdoc::broken_intra_doc_links)]
#![warn(
    missing_docs,
    unreachable_pub,
    clippy::dbg_macro,
    clippy::print_stdout,
    clippy::unwrap_used
)]

pub mod anim;
pub mod format;
pub mod library;
pub mod molang;
pub mod playback;
pub mod server;
