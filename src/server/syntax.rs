//! The command syntax that typed chat commands ([`crate::server::commands`])
//! and event commands ([`crate::server::dispatch`]) share, so that both
//! accept and refuse the same words:
//!
//! - **numbers** in coordinates and angles are plain decimals, as
//!   Minecraft's command reader takes them: digits, one optional sign, a
//!   point; no exponent (`1e3`), no `inf` or `NaN` ([`parse_plain_number`]);
//! - **game modes** are the four vanilla names, in any ASCII case
//!   (`creative`, `Creative`), the same for `/gamemode`, the `gamemode`
//!   event command and the `gamemode=` selector argument
//!   ([`parse_game_mode`]).
//!
//! Vanilla's own parser is case-sensitive for game modes; emoted takes any
//! case everywhere, since a player typing `Creative` means creative.

use valence::prelude::GameMode;

/// The four game modes, in vanilla's order.
const GAME_MODES: [GameMode; 4] = [
    GameMode::Survival,
    GameMode::Creative,
    GameMode::Adventure,
    GameMode::Spectator,
];

/// A game mode by its vanilla name, in any ASCII case.
pub fn parse_game_mode(name: &str) -> Option<GameMode> {
    GAME_MODES
        .into_iter()
        .find(|m| game_mode_name(*m).eq_ignore_ascii_case(name))
}

/// The vanilla name of a game mode.
pub fn game_mode_name(mode: GameMode) -> &'static str {
    match mode {
        GameMode::Survival => "survival",
        GameMode::Creative => "creative",
        GameMode::Adventure => "adventure",
        GameMode::Spectator => "spectator",
    }
}

/// A number as Minecraft's command reader takes it: only digits, `+`, `-`
/// and `.`, finite. `None` for anything else (`1e3`, `inf`, `NaN`, empty).
pub fn parse_plain_number(text: &str) -> Option<f64> {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.".contains(&b));
    if !plain {
        return None;
    }
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_plain_decimals() {
        for (text, value) in [("3", 3.0), ("-2.5", -2.5), ("+.5", 0.5), ("1000", 1000.0)] {
            assert_eq!(parse_plain_number(text), Some(value), "{text}");
        }
        for text in ["", "1e3", "inf", "NaN", "1_000", "0x10", "1,5", "--"] {
            assert_eq!(parse_plain_number(text), None, "{text}");
        }
    }

    #[test]
    fn game_modes_in_any_case() {
        for mode in GAME_MODES {
            assert_eq!(parse_game_mode(game_mode_name(mode)), Some(mode));
            let upper = game_mode_name(mode).to_ascii_uppercase();
            assert_eq!(parse_game_mode(&upper), Some(mode));
        }
        assert_eq!(parse_game_mode("hardcore"), None);
        assert_eq!(parse_game_mode("0"), None);
    }
}
