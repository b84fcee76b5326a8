//! The whole server as one bevy plugin group, [`EmotePlugins`], and how
//! its schedules run. `emoted serve` adds the group to valence's
//! `DefaultPlugins`; `emoted loadtest` builds the same group without the
//! file watcher and tick statistics; a host game can add it to its own
//! valence app.

use valence::prelude::bevy_ecs::schedule::{ExecutorKind, Schedules};
use valence::prelude::*;

use bevy_app::PluginGroupBuilder;

use crate::server::config::Config;
use crate::server::emote_library::EmoteLibraryPlugin;
use crate::server::{
    camera, combat, commands, cull, dispatch, emote, feedback, idle, memory_trim, metrics, modded,
    operator, reload, resource_pack, shutdown, skin, storage, tick_stats, walk, wheel, world,
};

/// Every feature of emoted, each its own plugin, in this order:
///
/// | plugin | what it does | its systems |
/// |---|---|---|
/// | [`ConfigPlugin`] | the configuration's defaults when the host inserted none | none |
/// | [`world::WorldPlugin`] | the world (flat, or an existing one: `[world] path`) and where players join | `Startup`, `Update` |
/// | [`EmoteLibraryPlugin`] | the emotes, loaded at start-up | `Startup` |
/// | [`commands::EmoteCommandsPlugin`] | `/emote`, `/gamemode`, `/tp`, completion, operators | `Update`, before [`EmotePlaybackSet`](crate::server::events::EmotePlaybackSet) |
/// | [`emote::EmotePlaybackPlugin`] | playback: start, advance, send, stop, two-player offers | `Update`, in `EmotePlaybackSet` |
/// | [`walk::WalkingBodyPlugin`] | controllers: the player's motion as their parameters, and the rig following the player | `Update`, before and after `EmotePlaybackSet` |
/// | [`camera::EmoteCameraPlugin`] | the emote camera: a vanilla player sees their own emote, seated, from a camera entity only they receive | `Update`, after `EmotePlaybackSet` |
/// | [`idle::IdleEmotesPlugin`] | idle emotes: started after a quiet delay, stopped by activity | `PostUpdate`, in [`IdleEmotesSet`](idle::IdleEmotesSet) |
/// | [`feedback::EmoteFeedbackPlugin`] | the action bar while an emote plays, and why it ended | `PostUpdate`, before valence flushes packets |
/// | [`cull::DisplayCullPlugin`] | view-range culling of display entities | `PostUpdate` |
/// | [`dispatch::EmoteDispatchPlugin`] | event commands and datapack functions | `Update`, after `EmotePlaybackSet` |
/// | [`combat::CombatPlugin`] | melee damage, death and respawn | `Update`, before `EmotePlaybackSet` |
/// | [`reload::EmoteReloadPlugin`] | `/emote reload` and the file watcher | `Startup`, `Update` |
/// | [`resource_pack::ResourcePackPlugin`] | the resource pack: its HTTP server, the offer at join, each player's answer | `PostStartup`, `Update`, `PostUpdate` (before valence flushes packets) |
/// | [`skin::SkinPlugin`] | each player's [`skin::PlayerSkin`] at join: their textures, slim or not, or their default skin | `PreUpdate` |
/// | [`storage::StoragePlugin`] | the per-player store (`[storage]`), each player's favourites and wheel order at join | `PreStartup`, `PreUpdate` |
/// | [`modded::EmotecraftPlugin`] | Emotecraft's channel: its handshake, and STREAM and STOP relayed between modded players | `Update` |
/// | [`wheel::EmoteWheelPlugin`] | the emote wheel: `/emote`, sneak + F, its clicks | `Update`, around `EmotePlaybackSet` |
/// | [`tick_stats::TickStatsPlugin`] | a tick-rate line in the log every 200 ticks | `First`, `Last` |
/// | [`operator::OperatorPlugin`] | the console's and RCON's commands (`list`, `say`, `reload`, `stop`, `emote …`) run in the tick; RCON's listener | `Startup`, `Update`, before `EmotePlaybackSet` |
/// | [`metrics::MetricsPlugin`] | Prometheus metrics at `GET /metrics` (`[metrics]`), the counters features add to | `PostStartup`, `First`, `PostUpdate`, `Last` |
/// | [`memory_trim::MemoryTrimPlugin`] | freed memory given back to the system every 10 s (`malloc_trim`) | `Last` |
/// | [`shutdown::ShutdownPlugin`] | a stop request (a signal to `emoted serve`) ends every playback, tells every player, closes the store and exits | `Update`, `Last` |
///
/// Insert [`Config`] (and [`EmoteFolders`](crate::server::emote_library::EmoteFolders))
/// before adding the group to use your own; to play an existing world,
/// replace the flat one: `EmotePlugins.set(WorldPlugin::open(&config.world)?)`
/// ([`world::WorldPlugin::open`]). Call
/// [`run_schedules_on_one_thread`] after every plugin is added.
pub struct EmotePlugins;

impl PluginGroup for EmotePlugins {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>()
            .add(ConfigPlugin)
            .add(world::WorldPlugin::Flat)
            .add(EmoteLibraryPlugin)
            .add(commands::EmoteCommandsPlugin)
            .add(emote::EmotePlaybackPlugin)
            .add(walk::WalkingBodyPlugin)
            .add(camera::EmoteCameraPlugin)
            .add(idle::IdleEmotesPlugin)
            .add(feedback::EmoteFeedbackPlugin)
            .add(cull::DisplayCullPlugin)
            .add(dispatch::EmoteDispatchPlugin)
            .add(combat::CombatPlugin)
            .add(reload::EmoteReloadPlugin)
            .add(resource_pack::ResourcePackPlugin)
            .add(skin::SkinPlugin)
            .add(storage::StoragePlugin)
            .add(wheel::EmoteWheelPlugin)
            .add(modded::EmotecraftPlugin)
            .add(tick_stats::TickStatsPlugin)
            .add(shutdown::ShutdownPlugin)
            .add(operator::OperatorPlugin)
            .add(metrics::MetricsPlugin)
            .add(memory_trim::MemoryTrimPlugin)
    }
}

/// Makes sure a [`Config`] resource exists: every feature reads it, and a
/// host that inserted none gets the defaults (`init_resource` keeps one
/// already there).
pub struct ConfigPlugin;

impl Plugin for ConfigPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Config>();
    }
}

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
    // The multi-threaded executor made the pool on first use; `par_iter`
    // needs it too.
    bevy_tasks::ComputeTaskPool::init(bevy_tasks::TaskPool::default);
    let mut schedules = app.world.resource_mut::<Schedules>();
    for (_, schedule) in schedules.iter_mut() {
        schedule.set_executor_kind(ExecutorKind::SingleThreaded);
    }
}
