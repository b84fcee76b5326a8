//! The small readers every part of the migration shares: times, objects,
//! JSON pointer tokens and the "wrong type" error.

use serde_json::{Map, Value};

use super::LegacyError as Error;
use crate::format::time::{parse_time, ticks_from_number};

/// A time value: a Minecraft time string, or a number of ticks.
pub(super) fn time(value: &Value, pointer: &str, minimum_ticks: u32) -> Result<u32, Error> {
    let result = match value {
        Value::String(s) => parse_time(s, minimum_ticks),
        Value::Number(n) => match n.as_f64() {
            Some(f) => ticks_from_number(f, minimum_ticks),
            None => return Err(wrong(pointer, "a time")),
        },
        _ => {
            return Err(wrong(
                pointer,
                "a time (\"10t\", \"0.5s\" or a number of ticks)",
            ))
        }
    };
    result.map_err(|source| Error::Time {
        pointer: pointer.to_owned(),
        source,
    })
}

/// A JSON pointer token (`~` and `/` escaped).
pub(super) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

pub(super) fn wrong(pointer: &str, expected: &'static str) -> Error {
    Error::WrongType {
        pointer: pointer.to_owned(),
        expected,
    }
}

pub(super) fn missing(pointer: &str, field: &'static str) -> Error {
    Error::Missing {
        pointer: pointer.to_owned(),
        field,
    }
}

pub(super) fn object<'a>(value: &'a Value, pointer: &str) -> Result<&'a Map<String, Value>, Error> {
    value.as_object().ok_or_else(|| wrong(pointer, "an object"))
}
