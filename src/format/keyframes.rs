//! What every track's keyframes share: a list of keyframe objects, each
//! with a `time` (the first at 0t, strictly increasing, none past the
//! duration), handed one by one to the track's own key reader; and Molang
//! strings, with their length limit.

use serde_json::Value;

use super::problem::{index, JsonPointer, Problems};
use super::read::{self, Obj};
use super::time::Ticks;
use super::MAX_MOLANG_CHARS;

/// Reads a Molang string, checking the length limit.
pub(crate) fn molang_string(
    value: &str,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<String> {
    if value.trim().is_empty() {
        problems.error(pointer, "a Molang string must not be empty");
        return None;
    }
    let chars = value.chars().count();
    if chars > MAX_MOLANG_CHARS {
        problems.error(
            pointer,
            format!(
                "a Molang string may have at most {MAX_MOLANG_CHARS} characters, found {chars}"
            ),
        );
        return None;
    }
    Some(value.to_owned())
}

/// Checks first-key-at-0t, strictly increasing times and times within the duration.
fn check_time(
    index: usize,
    time: u32,
    previous: Option<u32>,
    duration_ticks: Option<u32>,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) {
    if index == 0 && time != 0 {
        problems.error(
            pointer,
            format!("the first keyframe must be at 0t, found {}", Ticks(time)),
        );
    }
    if let Some(prev) = previous {
        if time <= prev {
            problems.error(
                pointer,
                format!(
                    "keyframe times must strictly increase: {} follows {}",
                    Ticks(time),
                    Ticks(prev)
                ),
            );
        }
    }
    if let Some(duration) = duration_ticks {
        if time > duration {
            problems.error(
                pointer,
                format!(
                    "keyframe time {} is past the timeline duration {}",
                    Ticks(time),
                    Ticks(duration)
                ),
            );
        }
    }
}

fn keys_array<'a>(
    value: &'a Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    channel: &str,
) -> Option<&'a Vec<Value>> {
    match value {
        Value::Array(keys) if !keys.is_empty() => Some(keys),
        Value::Array(_) => {
            problems.error(
                pointer,
                format!("the `{channel}` track must have at least one keyframe"),
            );
            None
        }
        other => {
            problems.error(
                pointer,
                format!(
                    "the `{channel}` track must be an array of keyframes, found {}",
                    read::kind_of(other)
                ),
            );
            None
        }
    }
}

/// A keyframe object handed to a track's key reader, its `time` already
/// read and checked against the key before it.
pub(super) struct KeyObject<'k> {
    /// The keyframe's fields (`time` already taken).
    pub(super) obj: Obj<'k>,
    /// Where the keyframe is.
    pub(super) pointer: &'k dyn JsonPointer,
    /// True for the track's final keyframe.
    pub(super) is_last: bool,
    /// The keyframe's time, or `None` when it was missing or broke a rule.
    pub(super) time_ticks: Option<u32>,
}

/// Reads each keyframe of the `channel` track: opens it as an object, reads
/// its `time` and checks it (see [`check_time`]), then hands it to
/// `read_key`, which reads the rest and returns the key, or `None` after
/// recording a problem. `None` when any keyframe failed.
pub(super) fn read_keys<K>(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    channel: &str,
    duration_ticks: Option<u32>,
    mut read_key: impl FnMut(KeyObject<'_>, &mut Problems) -> Option<K>,
) -> Option<Vec<K>> {
    let keys = keys_array(value, pointer, problems, channel)?;
    let mut out = Vec::with_capacity(keys.len());
    let mut previous = None;
    let mut ok = true;
    for (key_index, key) in keys.iter().enumerate() {
        let key_pointer = index(pointer, key_index);
        let Some(mut obj) = Obj::new(key, &key_pointer, problems, "a keyframe") else {
            ok = false;
            continue;
        };
        let time_ticks = obj.req("time", problems).and_then(|(v, p)| {
            let t = read::time(v, &p, problems, "keyframe `time`", 0)?;
            check_time(key_index, t, previous, duration_ticks, &p, problems);
            Some(t)
        });
        if let Some(t) = time_ticks {
            previous = Some(t);
        }
        let key_object = KeyObject {
            obj,
            pointer: &key_pointer,
            is_last: key_index + 1 == keys.len(),
            time_ticks,
        };
        match read_key(key_object, problems) {
            Some(key) => out.push(key),
            None => ok = false,
        }
    }
    ok.then_some(out)
}
