//! The words of a command, read left to right by every parser of both
//! front ends, and the errors they give with the command's usage.

use crate::server::syntax::coords::{parse_coordinates, CoordError, Coordinates};
use crate::server::syntax::error::CommandError;
use crate::server::syntax::number::parse_plain_number;
use crate::server::syntax::selector::{parse_target, Selector};

/// What a word that is no coordinate should have been.
pub const COORDINATE: &str = "a coordinate: use a number, `~` or `~N` (N blocks from here), or `^N` on all three axes (N blocks left, up or forward)";

/// A command line split into its name and the rest: `("tp", " ~ ~1 ~")`.
/// A line of nothing but spaces is refused, with `example` to try.
pub fn split_command<'a>(
    line: &'a str,
    example: &'static str,
) -> Result<(&'a str, &'a str), CommandError> {
    let line = line.trim();
    if line.is_empty() {
        return Err(CommandError::Empty { example });
    }
    Ok(match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], &line[i..]),
        None => (line, ""),
    })
}

/// The arguments of one command, read a word at a time (as an iterator)
/// or a target, a position or a JSON text at a time. Errors carry the
/// usage given to [`Words::new`].
#[derive(Clone, Debug)]
pub struct Words<'a> {
    usage: &'static str,
    rest: &'a str,
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    /// The next word.
    fn next(&mut self) -> Option<&'a str> {
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
}

impl<'a> Words<'a> {
    /// The arguments `text` of a command written as `usage`.
    pub fn new(usage: &'static str, text: &'a str) -> Self {
        Self {
            usage,
            rest: text.trim_start(),
        }
    }

    /// How the command is written, for messages.
    pub fn usage(&self) -> &'static str {
        self.usage
    }

    /// What is left, from the next word on.
    pub fn rest(&self) -> &'a str {
        self.rest
    }

    /// What is left, all of it, as one argument (a JSON text).
    pub fn take_rest(&mut self) -> &'a str {
        std::mem::take(&mut self.rest)
    }

    /// True when every argument has been read.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// How many words are left.
    pub fn word_count(&self) -> usize {
        self.rest.split_whitespace().count()
    }

    /// The word `n` places ahead (0: the next one), not read.
    pub fn peek_nth(&self, n: usize) -> Option<&'a str> {
        self.rest.split_whitespace().nth(n)
    }

    /// The next word, not read.
    pub fn peek(&self) -> Option<&'a str> {
        self.peek_nth(0)
    }

    /// The next word, or that `what` is missing.
    pub fn require(&mut self, what: &'static str) -> Result<&'a str, CommandError> {
        self.next().ok_or_else(|| self.missing(what))
    }

    /// `what` is missing.
    pub fn missing(&self, what: &'static str) -> CommandError {
        CommandError::Missing {
            what,
            usage: self.usage,
        }
    }

    /// `found` is not what the command expected there.
    pub fn invalid(&self, found: &str, expected: &'static str) -> CommandError {
        CommandError::Invalid {
            found: found.to_owned(),
            expected,
            usage: self.usage,
        }
    }

    /// A target: a player name or a selector (which may hold spaces).
    pub fn target(&mut self) -> Result<Selector, CommandError> {
        if self.rest.is_empty() {
            return Err(self.missing("a target"));
        }
        let (selector, rest) = parse_target(self.rest).map_err(|error| CommandError::Selector {
            error,
            usage: self.usage,
        })?;
        self.rest = rest;
        Ok(selector)
    }

    /// A number of type `T` (Rust's own reading: whole numbers).
    pub fn number<T: std::str::FromStr>(
        &mut self,
        what: &'static str,
        expected: &'static str,
    ) -> Result<T, CommandError> {
        let word = self.require(what)?;
        word.parse::<T>().map_err(|_| self.invalid(word, expected))
    }

    /// A plain decimal number ([`parse_plain_number`]) that is finite as
    /// an `f32`.
    pub fn finite(&mut self, what: &'static str) -> Result<f32, CommandError> {
        let word = self.require(what)?;
        parse_plain_number(word)
            .map(|v| v as f32)
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.invalid(word, "a number (digits and a point, no exponent)"))
    }

    /// A position: three coordinates.
    pub fn coordinates(&mut self) -> Result<Coordinates, CommandError> {
        let mut words = [""; 3];
        for word in &mut words {
            *word = self.require("a position (x y z)")?;
        }
        parse_coordinates(words).map_err(|e| match e {
            CoordError::Mixed => CommandError::MixedCoordinates {
                found: words.join(" "),
                usage: self.usage,
            },
            CoordError::Bad(w) => self.invalid(&w, COORDINATE),
        })
    }

    /// Nothing may follow.
    pub fn finish(&self) -> Result<(), CommandError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(CommandError::TooManyArguments {
                found: self.rest.to_owned(),
                usage: self.usage,
            })
        }
    }
}
