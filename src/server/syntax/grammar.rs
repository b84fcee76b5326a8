//! The argument grammars of the commands both front ends run, `tp` (or
//! `teleport`) and `gamemode`: one parser each, given the front end's
//! [`Words`] (and so its usage in messages).

use valence::prelude::GameMode;

use crate::server::syntax::coords::{
    looks_like_coordinate, parse_world_coord, Coordinates, Rotation, WorldCoord,
};
use crate::server::syntax::error::CommandError;
use crate::server::syntax::game_mode::parse_game_mode;
use crate::server::syntax::selector::Selector;
use crate::server::syntax::words::Words;

/// Where `tp` sends its targets.
#[derive(Clone, Debug, PartialEq)]
pub enum Destination {
    /// A position, with a rotation where the front end reads one.
    Position(Coordinates, Option<Rotation>),
    /// The position of one entity (the first the selector picks).
    Entity(Selector),
}

/// A parsed `tp`.
#[derive(Clone, Debug, PartialEq)]
pub struct TeleportCommand {
    /// Who moves (`@s`, the one who runs the command, when not written).
    pub targets: Selector,
    /// Where to.
    pub destination: Destination,
}

/// Whether `tp` reads `[yaw pitch]` after a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rotations {
    /// Event commands: `tp [targets] <x y z> [yaw pitch]`.
    Read,
    /// Typed `/tp`: the position is the last argument.
    Refused,
}

/// Parses the arguments of `tp`:
///
/// | words | meaning |
/// |---|---|
/// | `<x y z>` | `@s` goes there |
/// | `<destination>` | `@s` goes to that entity |
/// | `<targets> <x y z>` | the targets go there |
/// | `<targets> <destination>` | the targets go to that entity |
///
/// With [`Rotations::Read`], `[yaw pitch]` may follow a position. A word
/// that [looks like a coordinate](looks_like_coordinate) after the targets
/// starts a position. Exactly three words are a position when the first or
/// the last two look like coordinates (so `tp NaN 1 2` is a bad coordinate,
/// while a selector with spaces still reads as a target), five words with
/// rotations when the first does, and two coordinates alone miss the z.
pub fn parse_teleport(
    words: &mut Words,
    rotations: Rotations,
) -> Result<TeleportCommand, CommandError> {
    let count = words.word_count();
    let first = words
        .peek()
        .ok_or_else(|| words.missing("destination (a target or a position)"))?;
    let coordinate = |n: usize| words.peek_nth(n).is_some_and(looks_like_coordinate);
    if count == 2 && coordinate(0) && coordinate(1) {
        return Err(words.missing("z coordinate"));
    }
    let source_moves = match count {
        3 => looks_like_coordinate(first) || coordinate(1) && coordinate(2),
        5 => rotations == Rotations::Read && looks_like_coordinate(first),
        _ => false,
    };
    let targets = if source_moves {
        Selector::source()
    } else {
        let targets = words.target()?;
        if words.is_empty() {
            return Ok(TeleportCommand {
                targets: Selector::source(),
                destination: Destination::Entity(targets),
            });
        }
        if !words.peek().is_some_and(looks_like_coordinate) {
            let destination = words.target()?;
            words.finish()?;
            return Ok(TeleportCommand {
                targets,
                destination: Destination::Entity(destination),
            });
        }
        targets
    };
    let position = words.coordinates()?;
    let rotation = match rotations {
        Rotations::Read if !words.is_empty() => Some(parse_rotation(words)?),
        _ => None,
    };
    words.finish()?;
    Ok(TeleportCommand {
        targets,
        destination: Destination::Position(position, rotation),
    })
}

/// `yaw pitch` after a `tp` position: numbers or `~N` (degrees).
fn parse_rotation(words: &mut Words) -> Result<Rotation, CommandError> {
    if words.peek() == Some("facing") {
        return Err(CommandError::Unsupported {
            what: "`tp … facing`".to_owned(),
            hint: "give a yaw and pitch instead",
        });
    }
    let mut angle = |what: &'static str| -> Result<WorldCoord, CommandError> {
        let word = words.require(what)?;
        parse_world_coord(word, false)
            .map_err(|_| words.invalid(word, "an angle in degrees (a number or ~N)"))
    };
    Ok(Rotation {
        yaw: angle("a yaw")?,
        pitch: angle("a pitch")?,
    })
}

/// A parsed `gamemode`.
#[derive(Clone, Debug, PartialEq)]
pub struct GameModeCommand {
    /// The new game mode.
    pub mode: GameMode,
    /// Who gets it (`@s` when not written).
    pub targets: Selector,
}

/// Parses the arguments of `gamemode <mode> [targets]`.
pub fn parse_gamemode(words: &mut Words) -> Result<GameModeCommand, CommandError> {
    let word = words.require("game mode")?;
    let mode = parse_game_mode(word).ok_or_else(|| {
        words.invalid(
            word,
            "a game mode (survival, creative, adventure or spectator)",
        )
    })?;
    let targets = if words.is_empty() {
        Selector::source()
    } else {
        words.target()?
    };
    words.finish()?;
    Ok(GameModeCommand { mode, targets })
}
