//! Typed command lines into [`Command`]: `/emote` and its subcommands,
//! `/gamemode` and `/tp`, with the errors players read.

use valence::prelude::*;

pub(super) use crate::server::syntax::parse_game_mode;
use crate::server::syntax::parse_plain_number;

/// A parsed command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `/emote ...`
    Emote(EmoteCommand),
    /// `/gamemode <mode> [player]`
    GameMode {
        /// The new game mode.
        mode: GameMode,
        /// Another player; `None` is the sender.
        target: Option<String>,
    },
    /// `/tp ...`
    Teleport(TeleportCommand),
}

/// A parsed `/emote` command.
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

/// A parsed `/tp` command.
#[derive(Clone, Debug, PartialEq)]
pub enum TeleportCommand {
    /// `/tp <player>` (the sender goes to the player) or
    /// `/tp <player> <destination player>`.
    ToPlayer {
        /// Who moves; `None` is the sender.
        target: Option<String>,
        /// The player to go to.
        destination: String,
    },
    /// `/tp <x> <y> <z>` or `/tp <player> <x> <y> <z>`.
    ToPosition {
        /// Who moves; `None` is the sender.
        target: Option<String>,
        /// x, y, z.
        position: [Coordinate; 3],
    },
}

/// One coordinate of `/tp`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coordinate {
    /// A number. Whole x and z numbers are block coordinates and already
    /// point at the block's centre (`3` is stored as 3.5), as in vanilla.
    Absolute(f64),
    /// `~` or `~N`: N blocks from the sender's own position (as in vanilla,
    /// also when another player is teleported).
    Relative(f64),
}

impl Coordinate {
    /// The coordinate, given the sender's value on this axis.
    pub fn resolve(self, base: f64) -> f64 {
        match self {
            Coordinate::Absolute(v) => v,
            Coordinate::Relative(offset) => base + offset,
        }
    }
}

/// Why a command line could not be parsed, as the player reads it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Nothing but spaces.
    #[error("Type a command, e.g. /emote list.")]
    Empty,
    /// Not a command this server has.
    #[error("Unknown command `/{name}`. Commands here: /emote (or /e), /gamemode, /tp.")]
    UnknownCommand {
        /// The first word.
        name: String,
    },
    /// `/emote` alone.
    #[error("{EMOTE_USAGE}")]
    EmoteUsage,
    /// `/emote <something else>`.
    #[error("Unknown subcommand `{name}`. {EMOTE_USAGE}")]
    UnknownSubcommand {
        /// The second word.
        name: String,
    },
    /// A required argument is missing.
    #[error("Missing {what}. Usage: {usage}")]
    Missing {
        /// What is missing.
        what: &'static str,
        /// The command's usage.
        usage: &'static str,
    },
    /// Arguments after the last one the command takes.
    #[error("Too many arguments. Usage: {usage}")]
    TooManyArguments {
        /// The command's usage.
        usage: &'static str,
    },
    /// `/emote list` with something that is not a page.
    #[error("`{found}` is not a page number (1, 2, ...).")]
    BadPage {
        /// As typed.
        found: String,
    },
    /// `/gamemode` with something that is not a game mode.
    #[error("`{found}` is not a game mode: use survival, creative, adventure or spectator.")]
    BadGameMode {
        /// As typed.
        found: String,
    },
    /// `/tp` with something that is not a coordinate.
    #[error("`{found}` is not a coordinate: use a number, `~` (where you are) or `~N` (N blocks from there).")]
    BadCoordinate {
        /// As typed.
        found: String,
    },
    /// `^` coordinates (relative to where the sender looks).
    #[error("Local coordinates (`{found}`) are not supported here; use numbers or `~`.")]
    LocalCoordinate {
        /// As typed.
        found: String,
    },
}

pub(super) const EMOTE_USAGE: &str =
    "Usage: /emote play <id> [player] | stop [player] | list [page] | info <id> | reload";
pub(super) const GAMEMODE_USAGE: &str =
    "/gamemode <survival|creative|adventure|spectator> [player]";
pub(super) const TP_USAGE: &str =
    "/tp <x> <y> <z> | /tp <player> | /tp <player> <x> <y> <z> | /tp <player> <destination>";

/// Parses a command line (without the leading `/`).
pub fn parse_command(line: &str) -> Result<Command, CommandError> {
    let mut words = line.split_whitespace();
    let Some(name) = words.next() else {
        return Err(CommandError::Empty);
    };
    let args: Vec<&str> = words.collect();
    match name {
        "emote" | "e" => parse_emote(&args).map(Command::Emote),
        "gamemode" => parse_gamemode(&args),
        "tp" | "teleport" => parse_teleport(&args).map(Command::Teleport),
        _ => Err(CommandError::UnknownCommand {
            name: name.to_owned(),
        }),
    }
}

pub(super) fn parse_emote(words: &[&str]) -> Result<EmoteCommand, CommandError> {
    let Some((sub, args)) = words.split_first() else {
        return Err(CommandError::EmoteUsage);
    };
    let too_many = |usage| Err(CommandError::TooManyArguments { usage });
    let missing_id = |usage| {
        Err(CommandError::Missing {
            what: "emote id",
            usage,
        })
    };
    let owned = |s: &&str| (*s).to_owned();
    Ok(match *sub {
        "play" => match args {
            [id] => EmoteCommand::Play {
                id: owned(id),
                target: None,
            },
            [id, player] => EmoteCommand::Play {
                id: owned(id),
                target: Some(owned(player)),
            },
            [] => return missing_id("/emote play <id> [player]"),
            _ => return too_many("/emote play <id> [player]"),
        },
        "stop" => match args {
            [] => EmoteCommand::Stop { target: None },
            [player] => EmoteCommand::Stop {
                target: Some(owned(player)),
            },
            _ => return too_many("/emote stop [player]"),
        },
        "list" => match args {
            [] => EmoteCommand::List { page: 1 },
            [page] => match page.parse::<usize>() {
                Ok(p) if p >= 1 => EmoteCommand::List { page: p },
                _ => return Err(CommandError::BadPage { found: owned(page) }),
            },
            _ => return too_many("/emote list [page]"),
        },
        "info" => match args {
            [id] => EmoteCommand::Info { id: owned(id) },
            [] => return missing_id("/emote info <id>"),
            _ => return too_many("/emote info <id>"),
        },
        "reload" if args.is_empty() => EmoteCommand::Reload,
        "reload" => return too_many("/emote reload"),
        other => {
            return Err(CommandError::UnknownSubcommand {
                name: other.to_owned(),
            })
        }
    })
}

pub(super) fn parse_gamemode(args: &[&str]) -> Result<Command, CommandError> {
    let (mode, target) = match args {
        [] => {
            return Err(CommandError::Missing {
                what: "game mode",
                usage: GAMEMODE_USAGE,
            })
        }
        [mode] => (mode, None),
        [mode, player] => (mode, Some((*player).to_owned())),
        _ => {
            return Err(CommandError::TooManyArguments {
                usage: GAMEMODE_USAGE,
            })
        }
    };
    let mode = parse_game_mode(mode).ok_or_else(|| CommandError::BadGameMode {
        found: (*mode).to_owned(),
    })?;
    Ok(Command::GameMode { mode, target })
}

pub(super) fn parse_teleport(args: &[&str]) -> Result<TeleportCommand, CommandError> {
    let owned = |s: &&str| (*s).to_owned();
    match args {
        [] => Err(CommandError::Missing {
            what: "destination",
            usage: TP_USAGE,
        }),
        [destination] => Ok(TeleportCommand::ToPlayer {
            target: None,
            destination: owned(destination),
        }),
        [a, b] if looks_like_coordinate(a) && looks_like_coordinate(b) => {
            Err(CommandError::Missing {
                what: "z coordinate",
                usage: TP_USAGE,
            })
        }
        [target, destination] => Ok(TeleportCommand::ToPlayer {
            target: Some(owned(target)),
            destination: owned(destination),
        }),
        [x, y, z] => Ok(TeleportCommand::ToPosition {
            target: None,
            position: parse_position(x, y, z)?,
        }),
        [target, x, y, z] => Ok(TeleportCommand::ToPosition {
            target: Some(owned(target)),
            position: parse_position(x, y, z)?,
        }),
        _ => Err(CommandError::TooManyArguments { usage: TP_USAGE }),
    }
}

pub(super) fn looks_like_coordinate(word: &str) -> bool {
    word.starts_with(['~', '^', '-', '+', '.']) || word.starts_with(|c: char| c.is_ascii_digit())
}

pub(super) fn parse_position(x: &str, y: &str, z: &str) -> Result<[Coordinate; 3], CommandError> {
    Ok([
        parse_coordinate(x, true)?,
        parse_coordinate(y, false)?,
        parse_coordinate(z, true)?,
    ])
}

/// One `/tp` coordinate; `centre` puts whole numbers at the block's centre
/// (vanilla does so for x and z).
pub fn parse_coordinate(word: &str, centre: bool) -> Result<Coordinate, CommandError> {
    if word.starts_with('^') {
        return Err(CommandError::LocalCoordinate {
            found: word.to_owned(),
        });
    }
    let bad = || CommandError::BadCoordinate {
        found: word.to_owned(),
    };
    // Only plain decimal numbers: no `inf`, `NaN` or exponents.
    let number = |text: &str| parse_plain_number(text).ok_or_else(bad);
    if let Some(offset) = word.strip_prefix('~') {
        let offset = if offset.is_empty() {
            0.0
        } else {
            number(offset)?
        };
        return Ok(Coordinate::Relative(offset));
    }
    let value = number(word)?;
    let whole = !word.contains('.');
    Ok(Coordinate::Absolute(if centre && whole {
        value + 0.5
    } else {
        value
    }))
}
