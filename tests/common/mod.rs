//! Shared code for the end-to-end tests: a real `emoted serve` process on a
//! free port, and real Minecraft 1.20.1 clients (mineflayer, driven by
//! `tests/client/bot.js`) that join it over TCP.
//!
//! Use it from a test file with `mod common;`. A typical test:
//!
//! ```ignore
//! let server = common::Server::start();
//! let run = server.bot("alice").wait_spawn().chat("/emote play example:wave")
//!     .wait_ms(500).disconnect().run();
//! run.assert_ok();
//! server.assert_log_clean();
//! ```
//!
//! The first test in a process that needs the client runs `npm ci` in
//! `tests/client` when `node_modules` is missing or older than
//! `package-lock.json`; a lock file under Cargo's target tmp dir keeps two
//! test binaries from installing at the same time.

#![allow(dead_code)]

use std::fs::{self};
use std::path::PathBuf;
use std::time::Duration;

/// Protocol version of Minecraft 1.20.1.
pub const PROTOCOL_1_20_1: i32 = 763;
/// How long the server may take to accept connections.
pub const SERVER_START_TIMEOUT: Duration = Duration::from_secs(60);

/// The crate root: the server and the client run from here.
pub fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn client_dir() -> PathBuf {
    crate_root().join("tests").join("client")
}

fn scratch_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e");
    fs::create_dir_all(&dir).expect("create target tmp dir for e2e");
    dir
}

pub mod animation_channel;
mod animations;
pub mod anvil;
mod camera;
pub mod container;
pub mod display_replay;
pub mod emotecraft;
mod events;
mod install;
mod pack;
mod ping;
mod plan;
pub mod plugin_messages;
mod poses;
pub mod rules;
mod server;
mod temp;
mod windows;

// Each test binary uses a part of these; the rest would warn there.
#[allow(unused_imports)]
pub use animations::*;
#[allow(unused_imports)]
pub use camera::*;
#[allow(unused_imports)]
pub use events::*;
#[allow(unused_imports)]
pub use install::*;
#[allow(unused_imports)]
pub use pack::*;
#[allow(unused_imports)]
pub use ping::*;
#[allow(unused_imports)]
pub use plan::*;
#[allow(unused_imports)]
pub use poses::*;
#[allow(unused_imports)]
pub use server::*;
#[allow(unused_imports)]
pub use temp::*;
#[allow(unused_imports)]
pub use windows::*;
