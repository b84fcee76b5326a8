//! Valence glue. So far: the default world and the emote library loaded at
//! start-up. Commands, display entities and playback come with the server issue.

pub mod combat;
pub mod commands;
pub mod config;
pub mod cull;
pub mod dispatch;
pub mod emote;
pub mod events;
pub mod gateway;
pub mod loadtest;
pub mod permissions;
pub mod reload;
pub mod selector;
pub mod tick_stats;
pub mod world;

use std::path::PathBuf;

use valence::prelude::*;

use crate::library::Library;

/// Runs every schedule's systems one after another on the main thread.
///
/// Bevy's multi-threaded executor wakes worker threads and hands each system
/// to them as a task. On the 2-core machines this server is measured on, that
/// hand-off (futex waits, task queues, conflict checks between ~150 small
/// systems) was most of an idle tick: a profile of 100 idle clients spent
/// over a third of the tick in the executor. The systems that do bulk work
/// per client (valence's packet copying into client buffers) still split
/// their loops over the compute pool with `par_iter`, so the cores are used
/// where the work is. Call this after every plugin is added.
pub fn run_schedules_on_one_thread(app: &mut App) {
    use valence::prelude::bevy_ecs::schedule::{ExecutorKind, Schedules};
    // The multi-threaded executor made the pool on first use; `par_iter`
    // needs it too.
    bevy_tasks::ComputeTaskPool::init(bevy_tasks::TaskPool::default);
    let mut schedules = app.world.resource_mut::<Schedules>();
    for (_, schedule) in schedules.iter_mut() {
        schedule.set_executor_kind(ExecutorKind::SingleThreaded);
    }
}

/// The emote server's own plugins: the flat world, the library, `/emote`,
/// playback, view-range culling, the command dispatcher and combat. `emoted serve` adds the
/// file watcher and tick statistics; `emoted loadtest` runs these alone,
/// so both run the same server.
pub struct EmoteServerPlugins;

impl Plugin for EmoteServerPlugins {
    fn build(&self, app: &mut App) {
        // Every feature reads the configuration; a host that inserted none
        // gets the defaults (`init_resource` keeps one already there).
        app.init_resource::<config::Config>();
        app.add_plugins((
            world::FlatWorldPlugin,
            EmoteLibraryPlugin,
            commands::EmoteCommandsPlugin,
            emote::EmotePlaybackPlugin,
            cull::DisplayCullPlugin,
            dispatch::EmoteDispatchPlugin,
            combat::CombatPlugin,
        ));
    }
}

/// Where the server reads emotes from.
#[derive(Resource, Clone, Debug)]
pub struct EmoteFolders {
    /// Folders (or files) of emote JSON: `emotes/` and `datapacks/` by default.
    pub roots: Vec<PathBuf>,
}

/// The emotes the server can play.
#[derive(Resource, Clone, Debug, Default)]
pub struct EmoteLibrary(pub Library);

/// Loads the emote library at start-up and logs every problem.
pub struct EmoteLibraryPlugin;

impl Plugin for EmoteLibraryPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<EmoteLibrary>()
            .add_systems(Startup, load_emote_library);
    }
}

fn load_emote_library(folders: Option<Res<EmoteFolders>>, mut library: ResMut<EmoteLibrary>) {
    let roots = folders.map(|f| f.roots.clone()).unwrap_or_default();
    let report = Library::reload(&roots, Some(&library.0));
    for line in report.lines() {
        tracing::warn!("{line}");
    }
    tracing::info!(
        "loaded {} emotes from {} files ({} refused)",
        report.library.len(),
        report.file_count,
        report.files.iter().filter(|f| f.has_errors()).count()
    );
    library.0 = report.library;
}
