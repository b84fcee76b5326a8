//! The valence glue: each feature is a plugin in a module of its own, and
//! [`EmotePlugins`] is all of them (see [`app`]). Features talk through the
//! events of [`events`] and the resources of [`emote_library`] and
//! [`config`], never through each other's systems; they feed the pure
//! rules of [`crate::playback`] what players do and apply what they return.

pub mod app;
pub mod camera;
pub mod combat;
pub mod commands;
pub mod config;
pub mod counters;
pub mod cull;
pub mod dispatch;
pub mod display_bands;
pub mod emote;
pub mod emote_library;
pub mod events;
pub mod feedback;
pub mod framed;
pub mod gateway;
pub mod idle;
pub mod listener;
pub mod loadtest;
pub mod memory_trim;
pub mod metrics;
pub mod modded;
pub mod operator;
pub mod permissions;
pub mod reload;
pub mod resource_pack;
pub mod runtime;
pub mod serve;
pub mod shutdown;
pub mod skin;
pub mod storage;
pub mod syntax;
#[cfg(test)]
mod testing;
pub mod tick_stats;
pub mod walk;
pub mod wheel;
pub mod world;

pub use app::{run_schedules_on_one_thread, EmotePlugins};
pub use emote_library::{EmoteFolders, EmoteLibrary};
