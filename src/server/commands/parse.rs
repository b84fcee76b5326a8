//! Typed command lines into [`Command`]: `/emote` and its subcommands
//! here, `/gamemode` and `/tp` through the grammars event commands use too
//! ([`crate::server::syntax`]), all read by the shared [`Words`] reader
//! and refused with the shared [`CommandError`].

use crate::server::syntax::{
    parse_gamemode, parse_parameter_value, parse_teleport, split_command, CommandError,
    GameModeCommand, Rotations, TeleportCommand, Words,
};
use crate::store::OnOffChoice;

/// A parsed command line.
// Parsed once per typed line and never stored: the size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `/emote ...`
    Emote(EmoteCommand),
    /// `/gamemode <mode> [targets]` (`@s`, the sender, when not written).
    GameMode(GameModeCommand),
    /// `/tp ...`: see [`parse_teleport`] (no `[yaw pitch]` typed).
    Teleport(TeleportCommand),
}

/// A parsed `/emote` command.
#[derive(Clone, Debug, PartialEq)]
pub enum EmoteCommand {
    /// `/emote play <id> [player]`
    Play {
        /// The emote id as typed.
        id: String,
        /// Another player to play it on.
        target: Option<String>,
    },
    /// `/emote stop [player]`
    Stop {
        /// Another player to stop.
        target: Option<String>,
    },
    /// `/emote set <parameter> <value>`: a parameter of the controller the
    /// player plays.
    Set {
        /// The parameter's name.
        parameter: String,
        /// Its value (`true`/`false` are 1/0).
        value: f32,
    },
    /// `/emote list [page]` (pages from 1)
    List {
        /// The page.
        page: usize,
    },
    /// `/emote info <id>`
    Info {
        /// The emote id as typed.
        id: String,
    },
    /// `/emote reload`
    Reload,
    /// `/emote` alone, or `/emotes`: open the emote wheel.
    Wheel,
    /// `/emote parts [on|off]` (see emoted's body parts or heads) and
    /// `/emote camera [on|off]` (the emote camera flies or not).
    Choose {
        /// Which choice.
        choice: OnOffChoice,
        /// On, off, or `None` to be told which.
        on: Option<bool>,
    },
}

/// How `/emote` is written.
pub(super) const EMOTE_USAGE: &str =
    "/emote [play <id> [player] | stop [player] | set <parameter> <value> | list [page] | info <id> | parts [on|off] | camera [on|off] | reload]";
/// How `/gamemode` is written.
pub(super) const GAMEMODE_USAGE: &str =
    "/gamemode <survival|creative|adventure|spectator> [targets]";
/// How `/tp` is written.
pub(super) const TP_USAGE: &str =
    "/tp <x y z> | /tp <destination> | /tp <targets> <x y z> | /tp <targets> <destination>";
/// The commands players may type.
const TYPED_COMMANDS: &str = "/emote (or /e), /emotes, /gamemode, /tp";

/// Parses a command line (without the leading `/`).
pub fn parse_command(line: &str) -> Result<Command, CommandError> {
    let (name, rest) = split_command(line, "/emote list")?;
    match name {
        "emote" | "e" => parse_emote(rest).map(Command::Emote),
        "emotes" => Words::new("/emotes", rest)
            .finish()
            .map(|()| Command::Emote(EmoteCommand::Wheel)),
        "gamemode" => parse_gamemode(&mut Words::new(GAMEMODE_USAGE, rest)).map(Command::GameMode),
        "tp" | "teleport" => parse_teleport(&mut Words::new(TP_USAGE, rest), Rotations::Refused)
            .map(Command::Teleport),
        _ => Err(CommandError::UnknownCommand {
            name: format!("/{name}"),
            known: TYPED_COMMANDS.to_owned(),
        }),
    }
}

/// The arguments of `/emote`.
pub fn parse_emote(rest: &str) -> Result<EmoteCommand, CommandError> {
    let mut words = Words::new(EMOTE_USAGE, rest);
    let Some(sub) = words.next() else {
        return Ok(EmoteCommand::Wheel);
    };
    let usage = match sub {
        "play" => "/emote play <id> [player]",
        "stop" => "/emote stop [player]",
        "set" => "/emote set <parameter> <value>",
        "list" => "/emote list [page]",
        "info" => "/emote info <id>",
        "reload" => "/emote reload",
        "parts" => "/emote parts [on|off]",
        "camera" => "/emote camera [on|off]",
        other => {
            return Err(CommandError::UnknownSubcommand {
                name: other.to_owned(),
                usage: EMOTE_USAGE,
            })
        }
    };
    let mut w = Words::new(usage, words.rest());
    let owned = |s: &str| s.to_owned();
    let command = match sub {
        "play" => EmoteCommand::Play {
            id: owned(w.require("emote id")?),
            target: w.next().map(owned),
        },
        "stop" => EmoteCommand::Stop {
            target: w.next().map(owned),
        },
        "set" => {
            let parameter = owned(w.require("a parameter")?);
            let word = w.require("a value")?;
            EmoteCommand::Set {
                parameter,
                value: parse_parameter_value(word)
                    .ok_or_else(|| w.invalid(word, "a number, true or false"))?,
            }
        }
        "list" => EmoteCommand::List {
            page: match w.next() {
                None => 1,
                Some(page) => page
                    .parse::<usize>()
                    .ok()
                    .filter(|p| *p >= 1)
                    .ok_or_else(|| w.invalid(page, "a page number (1, 2, ...)"))?,
            },
        },
        "info" => EmoteCommand::Info {
            id: owned(w.require("emote id")?),
        },
        "parts" | "camera" => EmoteCommand::Choose {
            choice: if sub == "parts" {
                OnOffChoice::Parts
            } else {
                OnOffChoice::Camera
            },
            on: match w.next() {
                None => None,
                Some("on") => Some(true),
                Some("off") => Some(false),
                Some(other) => return Err(w.invalid(other, "on or off")),
            },
        },
        _ => EmoteCommand::Reload,
    };
    w.finish()?;
    Ok(command)
}
