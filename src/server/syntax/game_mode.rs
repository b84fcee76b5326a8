//! Game modes by their vanilla names, in any ASCII case: the same for
//! `/gamemode`, the `gamemode` event command and the `gamemode=` selector
//! argument.

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

#[cfg(test)]
mod tests {
    use super::*;

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
