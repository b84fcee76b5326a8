//! The words of a command line, read one at a time, and the error type
//! every parser of the dispatcher returns.

use valence::prelude::*;

use super::coords::*;
use crate::server::selector::{parse_target, Selector, SelectorError};

/// Why an event command could not be parsed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// Nothing to run.
    #[error("a command must not be empty")]
    Empty,
    /// Not one of [`KNOWN_COMMANDS`](crate::format::event::KNOWN_COMMANDS).
    #[error("unknown command `{name}`; emoted runs: {known}")]
    Unknown {
        /// The first word.
        name: String,
        /// The commands emoted runs.
        known: String,
    },
    /// A bad target.
    #[error(transparent)]
    Selector(#[from] SelectorError),
    /// A required argument is missing.
    #[error("`{command}` is missing {what}. Usage: {usage}")]
    Missing {
        /// The command.
        command: &'static str,
        /// What is missing.
        what: &'static str,
        /// How to write it.
        usage: &'static str,
    },
    /// Text after the last argument.
    #[error("`{command}` has too many arguments: unexpected `{found}`. Usage: {usage}")]
    TooMany {
        /// The command.
        command: &'static str,
        /// The extra text.
        found: String,
        /// How to write it.
        usage: &'static str,
    },
    /// An argument of the wrong kind.
    #[error("`{command}`: `{found}` is not {expected}")]
    Invalid {
        /// The command.
        command: &'static str,
        /// The argument as written.
        found: String,
        /// What was expected.
        expected: &'static str,
    },
    /// `^` mixed with `~` or numbers.
    #[error(
        "`{found}`: local coordinates (^) cannot be mixed with world coordinates (~ or numbers)"
    )]
    MixedCoordinates {
        /// The three coordinates.
        found: String,
    },
    /// A particle emoted does not know.
    #[error("unknown particle `{name}`; use a 1.20.1 particle name such as heart, flame, note, cloud, end_rod, happy_villager or dust")]
    UnknownParticle {
        /// The name as written.
        name: String,
    },
    /// A JSON text component that does not parse.
    #[error("invalid JSON text `{json}`: {message}")]
    Text {
        /// The JSON.
        json: String,
        /// serde's message.
        message: String,
    },
    /// Bad SNBT in `data merge`.
    #[error("invalid SNBT in `data merge`: {message}")]
    Snbt {
        /// The SNBT parser's message.
        message: String,
    },
    /// A form of a known command that emoted does not run.
    #[error("{what} is not supported: {hint}")]
    Unsupported {
        /// The form.
        what: String,
        /// What to do instead.
        hint: &'static str,
    },
}

/// The words of a command, read left to right.
pub(super) struct Words<'a> {
    pub(super) command: &'static str,
    pub(super) usage: &'static str,
    pub(super) rest: &'a str,
}

impl<'a> Words<'a> {
    pub(super) fn new(command: &'static str, usage: &'static str, rest: &'a str) -> Self {
        Self {
            command,
            usage,
            rest: rest.trim_start(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    pub(super) fn peek(&self) -> Option<&'a str> {
        self.rest.split_whitespace().next()
    }

    pub(super) fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let end = self
            .rest
            .find(char::is_whitespace)
            .unwrap_or(self.rest.len());
        let word = &self.rest[..end];
        self.rest = self.rest[end..].trim_start();
        Some(word)
    }

    pub(super) fn require(&mut self, what: &'static str) -> Result<&'a str, CommandError> {
        self.next().ok_or(CommandError::Missing {
            command: self.command,
            what,
            usage: self.usage,
        })
    }

    pub(super) fn missing(&self, what: &'static str) -> CommandError {
        CommandError::Missing {
            command: self.command,
            what,
            usage: self.usage,
        }
    }

    pub(super) fn invalid(&self, found: &str, expected: &'static str) -> CommandError {
        CommandError::Invalid {
            command: self.command,
            found: found.to_owned(),
            expected,
        }
    }

    pub(super) fn target(&mut self) -> Result<Selector, CommandError> {
        if self.rest.is_empty() {
            return Err(self.missing("a target"));
        }
        let (selector, rest) = parse_target(self.rest)?;
        self.rest = rest;
        Ok(selector)
    }

    pub(super) fn number<T: std::str::FromStr>(
        &mut self,
        what: &'static str,
        expected: &'static str,
    ) -> Result<T, CommandError> {
        let word = self.require(what)?;
        word.parse::<T>().map_err(|_| self.invalid(word, expected))
    }

    pub(super) fn finite(&mut self, what: &'static str) -> Result<f32, CommandError> {
        let word = self.require(what)?;
        word.parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.invalid(word, "a number"))
    }

    pub(super) fn coordinates(&mut self) -> Result<Coordinates, CommandError> {
        let mut words = [""; 3];
        for word in &mut words {
            *word = self.require("a position (x y z)")?;
        }
        parse_coordinates(words).map_err(|e| match e {
            CoordError::Mixed => CommandError::MixedCoordinates {
                found: words.join(" "),
            },
            CoordError::Bad(w) => self.invalid(&w, "a coordinate (a number, ~, ~N, ^ or ^N)"),
        })
    }

    pub(super) fn finish(&self) -> Result<(), CommandError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(CommandError::TooMany {
                command: self.command,
                found: self.rest.to_owned(),
                usage: self.usage,
            })
        }
    }
}

pub(super) fn parse_text(json: &str) -> Result<Text, CommandError> {
    serde_json::from_str::<Text>(json).map_err(|e| CommandError::Text {
        json: json.to_owned(),
        message: e.to_string(),
    })
}

/// A time in ticks: `20`, `20t`, `1s`, `1d`.
pub(super) fn parse_ticks(word: &str) -> Option<i32> {
    let (number, scale) = match word.as_bytes().last()? {
        b't' => (&word[..word.len() - 1], 1.0),
        b's' => (&word[..word.len() - 1], 20.0),
        b'd' => (&word[..word.len() - 1], 24000.0),
        _ => (word, 1.0),
    };
    let ticks = number.parse::<f64>().ok()? * scale;
    (ticks.is_finite() && (0.0..=f64::from(i32::MAX)).contains(&ticks))
        .then(|| ticks.round() as i32)
}
