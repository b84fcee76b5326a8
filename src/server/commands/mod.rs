//! Commands: `/emote` (alias `/e`), `/gamemode` and `/tp` (alias
//! `/teleport`): the command tree the client uses for suggestions, the
//! server-side parser, permission checks, per-player rate limits, and the
//! answers to tab completion.
//!
//! valence 0.2.0-alpha.1 has no command framework, so the tree is sent on
//! join (`CommandTreeS2c`, again when the player's permissions change),
//! commands arrive as `CommandExecutionC2s`, and the argument nodes use
//! `ask_server` suggestions that are answered from the emote library and the
//! player list (`RequestCommandCompletionsC2s` → `CommandSuggestionsS2c`).
//!
//! Who may run what comes from [`crate::server::permissions`], resolved
//! from the live [`Config`](crate::server::config::Config) for every command (a hot reload applies at
//! once):
//!
//! | command | needs |
//! |---|---|
//! | `/emote play <id>` | what [`PlayerPermissions::may_play`](crate::server::permissions::PlayerPermissions::may_play) says |
//! | `/emote stop` | `emote.default` |
//! | `/emote list [page]`, `/emote info <id>` | nothing (the list shows what you may play, each entry a button that plays it) |
//! | `/emote parts [on\|off]` | nothing (what the player themself sees: parts or heads, kept in the store) |
//! | `/emote play <id> <player>`, `/emote stop <player>`, `/emote reload` | `emote.manage` |
//! | `/gamemode <mode> [targets]` | `minecraft.command.gamemode` |
//! | `/tp ...` | `minecraft.command.teleport` |
//!
//! Operators (level 2 and up, as vanilla requires for `/gamemode` and
//! `/tp`) hold every node. The admin commands have their own nodes rather
//! than `emote.manage` so that an emote moderator need not be able to fly.
//!
//! Every command and every completion request first spends from the
//! player's rate limit (`[commands]` in the configuration, governor's GCRA):
//! a command over the limit is refused with "Slow down", a completion
//! request over it is dropped.
//!
//! # One syntax with event commands
//!
//! `/gamemode` and `/tp` are read by the grammars event commands use
//! ([`crate::server::syntax`]): the same words, plain-decimal numbers,
//! coordinates, game modes and selectors, refused with the same
//! [`CommandError`](crate::server::syntax::CommandError) (a sentence that
//! ends with the command's usage). A typed command resolves `~` and `^`
//! against the sender: its position, and for `^` its look (yaw 0 faces
//! +Z), also when it moves another player. Targets are selectors: a player
//! name (any case), `@s` (the sender), `@p`, `@a`, `@r` or `@e` with
//! their arguments, counting online players only; a target that names
//! nobody is refused. A destination entity is the first one the selector
//! picks. Unlike event commands, typed `/tp` takes no `[yaw pitch]` and
//! does not turn the player.
//!
//! Changes from the typed front end's own parser of before:
//! - `/tp ^left ^up ^forward` is accepted (it was refused as "not
//!   supported"); `^` mixed with `~` or numbers is refused, as in events;
//! - `/tp` and `/gamemode` targets are selectors, so `@a`, `@p`… work and
//!   a word that is neither a player name nor a selector (`Bad-Name`, `~`)
//!   is refused when parsed instead of answered "No player named …".

mod list;
mod parse;
mod rate;
mod run;
mod suggest;
#[cfg(test)]
mod tests;
mod tree;

use valence::prelude::*;

use self::rate::*;
use self::run::*;
use self::suggest::*;
use self::tree::*;
use crate::server::events::add_shared_events;

pub use list::LIST_PAGE_SIZE;
pub use parse::{parse_command, parse_emote, Command, EmoteCommand};
pub use rate::{slow_down_message, Bucket, CommandRateLimits, RateLimit};
pub use run::{info as emote_info, MANAGE_OP_LEVEL, MAX_HORIZONTAL, MAX_VERTICAL};
pub use suggest::suggest;
pub use tree::{ListedOperator, SentCommandTree, LISTED_OPERATOR_LEVEL};

/// Sends the command tree, runs commands and answers tab completion.
pub struct EmoteCommandsPlugin;

impl Plugin for EmoteCommandsPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app)
            .init_resource::<CommandRateLimits>()
            .add_systems(
                Update,
                (
                    apply_operator_list,
                    send_command_trees,
                    handle_commands,
                    answer_completions,
                    forget_rate_limits_of_leavers,
                )
                    .chain()
                    .before(crate::server::events::EmotePlaybackSet),
            );
    }
}
