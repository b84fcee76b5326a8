//! emoted's own command dispatcher for emote events.
//!
//! Events are queued by the playback systems as
//! [`EmoteCommandEvent`](crate::server::events::EmoteCommandEvent)s (the
//! command text, who runs it and from where) and run here, in [`Update`]
//! after [`EmotePlaybackSet`]. A command is parsed once into a typed
//! [`ParsedCommand`] (the parse of each event text is cached; function lines
//! are parsed when the function is loaded) and then run against the world.
//!
//! # What runs
//! Arguments are read by the syntax layer typed commands share
//! ([`crate::server::syntax`]): the same words, numbers, coordinates, game
//! modes, selectors, `tp` and `gamemode` grammars, and the same
//! [`CommandError`](crate::server::syntax::CommandError) messages.
//! Targets are [`Selector`](crate::server::syntax::selector::Selector)s: `@s @p @a @r @e` with `limit sort distance name
//! type gamemode x y z dx dy dz`, or player names (see [`crate::server::syntax::selector`]).
//! `@s` is the source: the player, the display node's entity, nobody for the
//! server. Positions are `x y z` with `~` (relative to the event origin) or
//! `^` (local to the source's facing: a player source's look, yaw 0 pitch 0
//! for the server and nodes); as in vanilla, a whole number without a `.` in
//! `x` or `z` means the block's centre (`+0.5`).
//!
//! - `say <message>`: chat to every player, as `[Name] message` (`Server`,
//!   the player's name, or the node id).
//! - `tellraw <targets> <json text>`.
//! - `title <targets> title|subtitle|actionbar <json text>`, `title <targets>
//!   clear|reset`, `title <targets> times <fade in> <stay> <fade out>` (ticks,
//!   or with a `t`/`s`/`d` unit).
//! - `data merge entity <target> {…}`: `Glowing` and `glow_color_override`
//!   on the selected display entities (players are left alone).
//! - `particle <name> [params] [x y z] [dx dy dz] [speed] [count]
//!   [force|normal] [viewers]`: every no-parameter particle of 1.20.1 by name
//!   (`heart`, `minecraft:flame`, `end_rod`…), plus `dust r g b size`,
//!   `dust_color_transition r g b size r g b`, `sculk_charge roll`, `shriek
//!   delay`, `block`/`block_marker`/`falling_dust <block>` (a block name, no
//!   properties) and `item <item>` (an item name, no NBT). `vibration` and
//!   unknown names are refused. Defaults are vanilla's: at the origin, no
//!   spread, speed 0, count 0. Without `viewers` the particle goes to every
//!   player who sees the chunk (valence's layer particle); `force` sets the
//!   long-distance flag.
//! - `playsound <sound> <source> <targets> [x y z] [volume] [pitch]
//!   [min volume]`: any sound identifier (resource-pack sounds too: it is
//!   sent by name), to each target player as vanilla does (out of range:
//!   skipped, or moved next to the player at `min volume` when that is set).
//!   A plain `@a` sound with no minimum volume is framed once and given to
//!   each player in range with the tick's other such sounds, in one copy
//!   where they are adjacent (`run/effects.rs`): a crowd's sounds cost a
//!   copy per player, not one per sound and player.
//! - `stopsound <targets> [source|*] [sound]`.
//! - `tp`/`teleport`: `<x y z> [yaw pitch]` (the source player),
//!   `<targets> <x y z> [yaw pitch]`, `<targets> <entity>` and `<entity>`.
//!   Players are moved by setting their `Position` (and `Look` when a
//!   rotation is given; `~` there is relative to the source's rotation).
//! - `gamemode <survival|creative|adventure|spectator> [targets]` (default
//!   the source player).
//! - `function <namespace:path>`: the lines of a datapack `.mcfunction` (see
//!   [`functions`]) run through this dispatcher with the same source
//!   and origin, nested at most [`MAX_FUNCTION_DEPTH`] deep.
//!
//! # A bounded tick
//!
//! The commands one playback's events run in one tick are capped at
//! `[emotes] max_commands_per_tick` (default
//! [`crate::server::config::DEFAULT_MAX_COMMANDS_PER_TICK`]), every line of
//! every `function` they call counted, `function` itself included. The
//! command that would go past the cap does not run, nor does anything after
//! it that tick, and the playback is stopped with the reason (a chat line to
//! the player and a warning in the log), as a Molang failure stops it.
//! Commands with no playback behind them (none today) are not capped.
//! - `emote play <id> [player]` and `emote stop [player]`: a
//!   [`PlayEmoteRequest`](crate::server::events::PlayEmoteRequest) (never
//!   bypassing `standalone` and cooldowns) or a
//!   [`StopEmoteRequest`](crate::server::events::StopEmoteRequest). Without
//!   a target they act on the source player
//!   (for a node source: the player whose emote owns the node). A player or
//!   node source may target other players only when that player has
//!   operator level [`MANAGE_OP_LEVEL`], as when typing the command; the
//!   server may target anyone.
//!
//! # What is refused
//! At parse time (one warning per command text): any other command (the
//! list is [`KNOWN_COMMANDS`], checked at load), `data` other than `data
//! merge entity`, `emote` other than `play`/`stop`, unknown particles,
//! `#tag` functions, selector arguments emoted cannot test (`tag`, `scores`,
//! `team`…) and malformed arguments, among them numbers that are not plain
//! decimals: `1e3`, `inf` or `NaN` in any coordinate, angle, spread, speed,
//! volume, pitch, colour or `title times` time (the one number rule of
//! [`crate::server::syntax`]; spreads, speeds, volumes, pitches, colours
//! and times took exponents before it). At run time: moving display entities
//! with `tp` (displays stay where their emote placed them), `tp`,
//! `gamemode` or `emote` without a target from the server, a destination
//! entity that matches nothing, `emote` on other players without
//! permission, and a missing or refused function. Each run-time failure
//! is logged once per command text and message as a warning; nothing here
//! panics. A selector that matches nobody is not a failure (e.g. `@a[distance=..16]`
//! with nobody near).
//!
//! The permission level of a `player` source is not otherwise checked:
//! commands come from emote files, which only the server's admin installs.

pub mod functions;
mod parse;
mod particles;
mod run;
#[cfg(test)]
mod tests;

use valence::prelude::*;

use crate::server::events::add_shared_events;
use crate::server::events::EmotePlaybackSet;
use crate::server::syntax::selector::SelectorRng;
use functions::EmoteFunctions;
use run::{run_emote_commands, DispatchRng, ParseCache, ReportedCommands};

pub use crate::format::event::KNOWN_COMMANDS;
pub use parse::{
    parse_event_command, parse_function_id, ParsedCommand, ParticleCommand, PlaySoundCommand,
    TitleAction, TitleKind,
};
pub use run::{RunError, MANAGE_OP_LEVEL, MAX_FUNCTION_DEPTH};

/// Runs queued emote event commands, and loads the datapack functions they call.
pub struct EmoteDispatchPlugin;

impl Plugin for EmoteDispatchPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app)
            .init_resource::<ReportedCommands>()
            .init_resource::<ParseCache>()
            .init_resource::<EmoteFunctions>()
            .insert_resource(DispatchRng(SelectorRng::from_entropy()))
            .add_systems(Startup, functions::load_functions_at_startup)
            .add_systems(
                Update,
                (
                    functions::reload_functions_on_request,
                    run_emote_commands.after(EmotePlaybackSet),
                ),
            );
    }
}
