//! emoted: a Minecraft 1.20.1 server built for emotes.
//!
//! Files flow one way: [`format`](mod@format) (schema 4 Animations and
//! Sequences, validated) → [`library`] (the loaded, compiled emotes) →
//! [`playback`] (what each playback does this tick, pure) → [`server`] (the
//! valence glue: display entities, players, commands). [`anim`] and
//! [`molang`] are the math and the expression language underneath; [`pack`]
//! builds the resource pack that draws skin-bound parts with the player's
//! own skin; [`preview`] draws an Animation's poses as a PNG contact sheet
//! (`emoted preview`); [`store`] keeps per-player state (favourites, the
//! wheel order) in SQLite across restarts; [`modded`] reads and writes
//! modded clients' channels (Emotecraft's) as plain bytes; [`import`]
//! turns other formats (PlayerAnimator's keyframes first) into validated
//! schema 4 on the humanoid rig. None of `anim`, `import`,
//! `modded`, `molang`, `pack`, `playback`, `preview` or `store` names
//! valence.
//!
//! The server is a set of bevy plugins, [`EmotePlugins`], that any valence
//! 1.20.1 app can add; `emoted serve` is one such app.
//!
//! ```no_run
//! use valence::prelude::*;
//!
//! let mut app = App::new();
//! app.insert_resource(emoted::server::EmoteFolders {
//!     roots: vec!["emotes".into()],
//! })
//! .add_plugins(DefaultPlugins)
//! .add_plugins(emoted::EmotePlugins);
//! emoted::server::run_schedules_on_one_thread(&mut app);
//! app.run();
//! ```
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
pub mod import;
pub mod library;
pub mod modded;
pub mod molang;
pub mod pack;
pub mod playback;
pub mod preview;
pub mod server;
pub mod store;

pub use server::EmotePlugins;
