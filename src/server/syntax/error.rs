//! The one error type of command parsing, for typed chat commands and
//! event commands alike.

use crate::server::syntax::selector::SelectorError;

/// Why a command could not be parsed, as one sentence a player reads in
/// chat (and an admin in the log): what is wrong, quoted as written, and,
/// where an argument is at fault, the command's usage. The usage is the
/// front end's own (`/tp …` typed, `tp …` in an event), so the message
/// names the command as it is written there.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// Nothing but spaces.
    #[error("Type a command, e.g. {example}.")]
    Empty {
        /// A command to try.
        example: &'static str,
    },
    /// Not a command this front end runs.
    #[error("Unknown command `{name}`. Commands here: {known}.")]
    UnknownCommand {
        /// The first word, as written (typed commands with their `/`).
        name: String,
        /// The commands this front end runs.
        known: String,
    },
    /// A subcommand the command does not have.
    #[error("Unknown subcommand `{name}`. Usage: {usage}")]
    UnknownSubcommand {
        /// The word.
        name: String,
        /// The command's usage.
        usage: &'static str,
    },
    /// A required argument is missing.
    #[error("Missing {what}. Usage: {usage}")]
    Missing {
        /// What is missing.
        what: &'static str,
        /// The command's usage.
        usage: &'static str,
    },
    /// Text after the last argument the command takes.
    #[error("Too many arguments: unexpected `{found}`. Usage: {usage}")]
    TooManyArguments {
        /// The extra text.
        found: String,
        /// The command's usage.
        usage: &'static str,
    },
    /// An argument of the wrong kind.
    #[error("`{found}` is not {expected}. Usage: {usage}")]
    Invalid {
        /// The argument as written.
        found: String,
        /// What was expected.
        expected: &'static str,
        /// The command's usage.
        usage: &'static str,
    },
    /// `^` on some coordinates of a position but not all.
    #[error("Local coordinates (^) cannot be mixed with world coordinates (~ or numbers): `{found}`. Usage: {usage}")]
    MixedCoordinates {
        /// The three coordinates.
        found: String,
        /// The command's usage.
        usage: &'static str,
    },
    /// A bad target.
    #[error("Bad target: {error}. Usage: {usage}")]
    Selector {
        /// What is wrong with it.
        #[source]
        error: SelectorError,
        /// The command's usage.
        usage: &'static str,
    },
    /// A particle emoted does not know.
    #[error("Unknown particle `{name}`: use a 1.20.1 particle name such as heart, flame, note, cloud, end_rod, happy_villager or dust. Usage: {usage}")]
    UnknownParticle {
        /// The name as written.
        name: String,
        /// The command's usage.
        usage: &'static str,
    },
    /// A JSON text component that does not parse.
    #[error("Invalid JSON text `{json}`: {message}. Usage: {usage}")]
    Text {
        /// The JSON.
        json: String,
        /// serde's message.
        message: String,
        /// The command's usage.
        usage: &'static str,
    },
    /// Bad SNBT in `data merge`.
    #[error("Invalid SNBT in `data merge`: {message}. Usage: {usage}")]
    Snbt {
        /// The SNBT parser's message.
        message: String,
        /// The command's usage.
        usage: &'static str,
    },
    /// A form of a known command that emoted does not run.
    #[error("{what} is not supported: {hint}.")]
    Unsupported {
        /// The form, starting with a capital or a quote.
        what: String,
        /// What to do instead.
        hint: &'static str,
    },
}
