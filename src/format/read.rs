//! Small helpers to walk a `serde_json::Value` while recording every problem
//! with its JSON pointer. Each helper returns `None` after recording an error,
//! so a reader can go on and find the next problem in the same file.

use serde_json::{Map, Value};
use valence::math::Vec3;

use super::problem::{field, index, Field, JsonPointer, Problems};
use super::time::{parse_time, ticks_from_number};

/// An object being read. Fields are taken with [`Obj::opt`] and [`Obj::req`];
/// [`Obj::finish`] reports every key outside the allowed list as unknown.
pub(crate) struct Obj<'a> {
    map: &'a Map<String, Value>,
    pointer: &'a dyn JsonPointer,
}

impl<'a> Obj<'a> {
    /// Starts reading `value` as an object; records an error if it is not one.
    pub(crate) fn new(
        value: &'a Value,
        pointer: &'a dyn JsonPointer,
        problems: &mut Problems,
        what: &str,
    ) -> Option<Self> {
        match value {
            Value::Object(map) => Some(Self { map, pointer }),
            other => {
                problems.error(
                    pointer,
                    format!("{what} must be an object, found {}", kind_of(other)),
                );
                None
            }
        }
    }

    /// True when `key` is present.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// Takes an optional field.
    pub(crate) fn opt(&mut self, key: &str) -> Option<(&'a Value, Field<'a>)> {
        let (k, v) = self.map.get_key_value(key)?;
        Some((v, field(self.pointer, k.as_str())))
    }

    /// Takes a required field, recording `missing required field` when absent.
    pub(crate) fn req(
        &mut self,
        key: &str,
        problems: &mut Problems,
    ) -> Option<(&'a Value, Field<'a>)> {
        let found = self.opt(key);
        if found.is_none() {
            problems.error(self.pointer, format!("missing required field `{key}`"));
        }
        found
    }

    /// Takes a required field that must name one of `names` (see [`one_of`]).
    pub(crate) fn req_one_of<T: Copy>(
        &mut self,
        key: &str,
        problems: &mut Problems,
        what: &str,
        names: &[(&str, T)],
    ) -> Option<T> {
        let (value, pointer) = self.req(key, problems)?;
        one_of(value, &pointer, problems, what, names)
    }

    /// Takes an optional boolean field (named `` `key` `` in messages);
    /// `None` when it is absent or not a boolean.
    pub(crate) fn opt_bool(&mut self, key: &str, problems: &mut Problems) -> Option<bool> {
        let (value, pointer) = self.opt(key)?;
        boolean(value, &pointer, problems, &format!("`{key}`"))
    }

    /// An optional number field that must lie in `range` (else `rule` is
    /// recorded at its pointer); see [`number_in_range`].
    pub(crate) fn opt_number_in_range(
        &mut self,
        key: &str,
        problems: &mut Problems,
        range: std::ops::RangeInclusive<f64>,
        rule: &str,
    ) -> Option<f32> {
        let (value, pointer) = self.opt(key)?;
        number_in_range(value, &pointer, problems, &format!("`{key}`"), range, rule)
    }

    /// Records `message` at a field that is not allowed here.
    pub(crate) fn forbid(&mut self, key: &str, problems: &mut Problems, message: &str) {
        if let Some((_, ptr)) = self.opt(key) {
            problems.error(&ptr, message);
        }
    }

    /// Records every field outside `allowed` as unknown.
    pub(crate) fn finish(self, problems: &mut Problems, allowed: &[&str]) {
        for key in self.map.keys() {
            if !allowed.contains(&key.as_str()) {
                problems.error(
                    &field(self.pointer, key),
                    format!(
                        "unknown field `{key}`; allowed here: {}",
                        allowed.join(", ")
                    ),
                );
            }
        }
    }

    /// The fields this object has.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&'a String, &'a Value)> {
        self.map.iter()
    }
}

/// A short name for a JSON value's kind, for messages.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn string<'a>(
    value: &'a Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<&'a str> {
    match value {
        Value::String(s) => Some(s),
        other => {
            problems.error(
                pointer,
                format!("{what} must be a string, found {}", kind_of(other)),
            );
            None
        }
    }
}

pub(crate) fn nonempty_string<'a>(
    value: &'a Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<&'a str> {
    let s = string(value, pointer, problems, what)?;
    if s.trim().is_empty() {
        problems.error(pointer, format!("{what} must not be empty"));
        return None;
    }
    Some(s)
}

pub(crate) fn boolean(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        other => {
            problems.error(
                pointer,
                format!("{what} must be true or false, found {}", kind_of(other)),
            );
            None
        }
    }
}

/// A finite number that also fits a finite `f32`.
pub(crate) fn finite_number(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<f32> {
    match value.as_f64() {
        Some(n) if n.is_finite() && (n as f32).is_finite() => Some(n as f32),
        Some(_) => {
            problems.error(pointer, format!("{what} must be a finite number"));
            None
        }
        None => {
            problems.error(
                pointer,
                format!("{what} must be a number, found {}", kind_of(value)),
            );
            None
        }
    }
}

/// A finite number within `[min, max]`, checked on the number as written
/// (before it is narrowed to `f32`, so 180.000001 is not taken for 180).
pub(crate) fn number_in_range(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    range: std::ops::RangeInclusive<f64>,
    rule: &str,
) -> Option<f32> {
    let narrowed = finite_number(value, pointer, problems, what)?;
    match value.as_f64() {
        Some(n) if range.contains(&n) => Some(narrowed),
        _ => {
            problems.error(pointer, format!("{what} {rule}, found {value}"));
            None
        }
    }
}

/// A nonnegative integer that fits `u32`.
pub(crate) fn count(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    minimum: u32,
) -> Option<u32> {
    match value.as_u64() {
        Some(n) if n >= u64::from(minimum) && n <= u64::from(u32::MAX) => Some(n as u32),
        _ => {
            problems.error(
                pointer,
                format!("{what} must be a whole number of at least {minimum}, found {value}"),
            );
            None
        }
    }
}

/// Three finite numbers.
pub(crate) fn vec3(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<Vec3> {
    if value.as_array().map(Vec::len) != Some(3) {
        problems.error(
            pointer,
            format!("{what} must be an array of three finite numbers"),
        );
        return None;
    }
    finite_numbers(value, pointer, problems, what).map(Vec3::from_array)
}

/// The `N` finite numbers of an array of `N` elements, each problem
/// recorded at its element; `None` (nothing recorded) for anything else.
pub(crate) fn finite_numbers<const N: usize>(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<[f32; N]> {
    let items = value.as_array().filter(|a| a.len() == N)?;
    let mut out = [0.0f32; N];
    let mut ok = true;
    for ((i, item), slot) in items.iter().enumerate().zip(out.iter_mut()) {
        match finite_number(item, &index(pointer, i), problems, what) {
            Some(n) => *slot = n,
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// A time value (string with unit, or JSON number of ticks) of at least `minimum_ticks`.
pub(crate) fn time(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    minimum_ticks: u32,
) -> Option<u32> {
    let result = match value {
        Value::String(s) => parse_time(s, minimum_ticks),
        Value::Number(n) => match n.as_f64() {
            Some(f) => ticks_from_number(f, minimum_ticks),
            None => {
                problems.error(pointer, format!("{what} is not a valid number"));
                return None;
            }
        },
        other => {
            problems.error(
                pointer,
                format!(
                    "{what} must be a time such as \"20t\" or \"1.5s\", found {}",
                    kind_of(other)
                ),
            );
            return None;
        }
    };
    match result {
        Ok(ticks) => Some(ticks),
        Err(err) => {
            problems.error(pointer, format!("{what}: {err}"));
            None
        }
    }
}

/// Reads an enum given as one of `names`.
pub(crate) fn one_of<T: Copy>(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    names: &[(&str, T)],
) -> Option<T> {
    let s = string(value, pointer, problems, what)?;
    match names.iter().find(|(name, _)| *name == s) {
        Some((_, v)) => Some(*v),
        None => {
            let list: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
            problems.error(
                pointer,
                format!("{what} `{s}` is not one of: {}", list.join(", ")),
            );
            None
        }
    }
}

/// `"; did you mean `x`?"` for the candidate closest to `name` (by edit
/// distance, within a third of its length), or nothing.
pub(crate) fn did_you_mean<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map_or_else(String::new, |(_, c)| format!("; did you mean `{c}`?"))
}

/// The Levenshtein distance between `a` and `b`, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}
