//! The command syntax that typed chat commands ([`crate::server::commands`])
//! and event commands ([`crate::server::dispatch`]) share, so that both
//! accept and refuse the same words, read them as the same values, and
//! explain a refusal the same way. Both front ends depend on this module;
//! it depends on neither.
//!
//! # The model
//!
//! A front end splits a line into its command name and the rest
//! ([`split_command`]) and hands the rest to a [`Words`] reader made with
//! its own usage text (`/tp …` typed, `tp …` in an event). Everything
//! after that is shared:
//!
//! 1. **Words** (`words.rs`): a word, a target, a position, a number, or
//!    the rest of the line at a time; each failure is a [`CommandError`]
//!    that carries the usage.
//! 2. **Arguments**, parsed once into types:
//!    - numbers are plain decimals, as Minecraft's command reader takes
//!      them: digits, one optional sign, a point; no exponent (`1e3`), no
//!      `inf` or `NaN` ([`parse_plain_number`]). That is the one rule for
//!      coordinates, angles and every decimal argument ([`Words::finite`]);
//!    - positions are [`Coordinates`]: three world coordinates (numbers,
//!      `~` or `~N`; a whole `x` or `z` is the block's centre, `+0.5`) or
//!      three local ones (`^left ^up ^forward`), never a mix (`coords.rs`);
//!    - game modes are the four vanilla names in any ASCII case, the same
//!      for `/gamemode`, the `gamemode` event command and the `gamemode=`
//!      selector argument ([`parse_game_mode`]);
//!    - targets are [`Selector`](selector::Selector)s: `@s @p @a @r @e`
//!      with arguments, or player names ([`selector`]).
//! 3. **Grammars** of the commands both front ends run (`grammar.rs`):
//!    `tp`/`teleport` ([`parse_teleport`]) and `gamemode`
//!    ([`parse_gamemode`]).
//! 4. **Resolution** against a snapshot, when the command runs: a
//!    position with [`Coordinates::resolve`] from an origin and a
//!    [`Facing`], a target with [`Selector::select`](selector::Selector::select).
//!    A typed command resolves against the sender (its position and look,
//!    also when it moves another player); an event command against the
//!    event's origin and its source's facing (a player source's look, yaw 0
//!    pitch 0 otherwise).
//!
//! # Errors
//!
//! [`CommandError`] is the one error of both front ends, in the style a
//! player reads in chat: a sentence that quotes what was written and says
//! what to write instead, ending with the command's usage where an
//! argument is wrong (`Missing z coordinate. Usage: /tp …`).
//!
//! # What still differs
//!
//! The front ends run different sets of commands (typed: `/emote` with
//! `list`, `info` and `reload`; events: `say`, `particle`, `function` and
//! the rest), only events read `[yaw pitch]` after a `tp` position
//! ([`Rotations`]), and typed `/emote` takes player names rather than
//! selectors. Vanilla's parser is case-sensitive for game modes; emoted
//! takes any case everywhere, since a player typing `Creative` means
//! creative.

mod coords;
mod error;
mod game_mode;
mod grammar;
mod number;
pub mod selector;
mod words;

pub use coords::{
    looks_like_coordinate, parse_coordinates, parse_world_coord, CoordError, Coordinates, Facing,
    Rotation, WorldCoord,
};
pub use error::CommandError;
pub use game_mode::{game_mode_name, parse_game_mode};
pub use grammar::{
    parse_gamemode, parse_teleport, Destination, GameModeCommand, Rotations, TeleportCommand,
};
pub use number::{parse_parameter_value, parse_plain_number};
pub use words::{split_command, Words, COORDINATE};

/// Asserts that `error` refuses the text of each case with a message that
/// contains its needle: the tests' table of refused commands or targets and
/// what each refusal must say.
#[cfg(test)]
pub(crate) fn assert_refusals(cases: &[(&str, &str)], error: impl Fn(&str) -> String) {
    for &(text, needle) in cases {
        let message = error(text);
        assert!(message.contains(needle), "{text}: {message}");
    }
}
