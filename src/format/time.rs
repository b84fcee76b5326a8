//! Time values as Minecraft's `TimeArgument` parses them.
//!
//! A time is a number with an optional unit: `t` or none for ticks, `s` for
//! seconds (20 ticks) and `d` for Minecraft days (24,000 ticks). Like vanilla,
//! the tick count is `round(value × unit)` with halves rounded up, so `0.33s`
//! is 7 ticks and `0.025s` is 1 tick. Units are case-sensitive. A JSON number
//! is accepted as a bare tick count (vanilla reads the same text).
//!
//! DESIGN.md says fractions of a tick are kept until sampling; the format issue
//! and vanilla both round at parse time. We follow vanilla: every time in a
//! loaded file is a whole number of ticks, so the timeline and the 20 tps server
//! tick agree exactly.

use std::fmt;

/// Ticks per second on a 20 tps server.
pub const TICKS_PER_SECOND: u32 = 20;
/// Ticks per Minecraft day.
pub const TICKS_PER_DAY: u32 = 24_000;

/// Why a time value was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TimeError {
    /// The text is not a number followed by an optional unit.
    #[error("`{text}` is not a Minecraft time: write a number with an optional unit t, s or d (e.g. \"20t\", \"1.5s\")")]
    Syntax {
        /// The text as written.
        text: String,
    },
    /// The value is below the field's minimum.
    #[error("time must be at least {minimum_ticks}t, found {found}")]
    BelowMinimum {
        /// The smallest tick count the field accepts.
        minimum_ticks: u32,
        /// The value as written.
        found: String,
    },
    /// The value does not fit in the tick counter.
    #[error("time `{text}` is too large")]
    TooLarge {
        /// The text as written.
        text: String,
    },
}

/// Parses `text` into whole ticks, refusing results below `minimum_ticks`.
pub fn parse_time(text: &str, minimum_ticks: u32) -> Result<u32, TimeError> {
    let syntax = || TimeError::Syntax {
        text: text.to_owned(),
    };
    let (number, multiplier) = match text.char_indices().last() {
        Some((i, 'd')) => (&text[..i], f64::from(TICKS_PER_DAY)),
        Some((i, 's')) => (&text[..i], f64::from(TICKS_PER_SECOND)),
        Some((i, 't')) => (&text[..i], 1.0),
        Some(_) => (text, 1.0),
        None => return Err(syntax()),
    };
    // Vanilla's StringReader.readFloat accepts digits, '.' and '-' only.
    if number.is_empty()
        || !number
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
    {
        return Err(syntax());
    }
    let value: f64 = number.parse().map_err(|_| syntax())?;
    ticks_from_f64(value * multiplier, text, minimum_ticks)
}

/// Converts a JSON number of ticks, with the same rounding and minimum as [`parse_time`].
pub fn ticks_from_number(value: f64, minimum_ticks: u32) -> Result<u32, TimeError> {
    ticks_from_f64(value, &format_number(value), minimum_ticks)
}

fn ticks_from_f64(raw_ticks: f64, text: &str, minimum_ticks: u32) -> Result<u32, TimeError> {
    if !raw_ticks.is_finite() {
        return Err(TimeError::Syntax {
            text: text.to_owned(),
        });
    }
    // Java's Math.round: floor(x + 0.5).
    let rounded = (raw_ticks + 0.5).floor();
    if rounded < f64::from(minimum_ticks) {
        return Err(TimeError::BelowMinimum {
            minimum_ticks,
            found: text.to_owned(),
        });
    }
    if rounded > f64::from(u32::MAX) {
        return Err(TimeError::TooLarge {
            text: text.to_owned(),
        });
    }
    Ok(rounded as u32)
}

fn format_number(value: f64) -> String {
    format!("{value}")
}

/// A tick count shown the way files write it (`"20t"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ticks(pub u32);

impl fmt::Display for Ticks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}t", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts that each case's text reads as its tick count (no minimum).
    fn assert_ticks(cases: &[(&str, u32)]) {
        for &(text, ticks) in cases {
            assert_eq!(parse_time(text, 0), Ok(ticks), "{text}");
        }
    }

    #[test]
    fn units_and_bare_numbers() {
        assert_ticks(&[
            ("20", 20),
            ("20t", 20),
            ("1s", 20),
            ("1.5s", 30),
            ("1d", 24_000),
            ("0.5d", 12_000),
            (".5s", 10),
        ]);
    }

    #[test]
    fn rounding_matches_vanilla() {
        assert_ticks(&[("0.33s", 7), ("0.025s", 1), ("2.5t", 3), ("2.49t", 2)]);
    }

    #[test]
    fn minimum_is_enforced_after_rounding() {
        assert_eq!(parse_time("0t", 0), Ok(0));
        assert!(matches!(
            parse_time("0t", 1),
            Err(TimeError::BelowMinimum {
                minimum_ticks: 1,
                ..
            })
        ));
        assert!(matches!(
            parse_time("0.4t", 1),
            Err(TimeError::BelowMinimum { .. })
        ));
        assert!(matches!(
            parse_time("-1t", 0),
            Err(TimeError::BelowMinimum { .. })
        ));
    }

    #[test]
    fn bad_syntax_is_refused() {
        for text in [
            "", "t", "s", "1m", "1 s", "1S", "1ss", "ten", "1e3", "+1", "1.2.3", "NaN",
        ] {
            assert!(
                matches!(parse_time(text, 0), Err(TimeError::Syntax { .. })),
                "{text:?} should be a syntax error"
            );
        }
    }

    #[test]
    fn json_numbers_are_ticks() {
        assert_eq!(ticks_from_number(20.0, 0), Ok(20));
        assert_eq!(ticks_from_number(0.5, 0), Ok(1));
        assert!(ticks_from_number(-3.0, 0).is_err());
        assert!(ticks_from_number(f64::NAN, 0).is_err());
    }
}
