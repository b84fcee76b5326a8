//! The things that happen at a time: `markers`, `events`, `sounds` and
//! `plays`. Each is a list of objects with a `time` in seconds; they are
//! kept sorted by time (a stable sort, so equal times keep the file's
//! order).

use serde_json::Value;

use super::keys::{positive, seconds};
use super::types::{ClipEvent, ClipPlay, ClipSound, EventSide, Marker};
use crate::format::problem::{index, JsonPointer, Problems};
use crate::format::read::{self, Obj};

const SIDES: [(&str, EventSide); 3] = [
    ("server", EventSide::Server),
    ("client", EventSide::Client),
    ("both", EventSide::Both),
];

/// Reads a list of `what`s with `item` and sorts them by their time.
fn read_list<T>(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    item: impl Fn(&mut Obj<'_>, &mut Problems) -> Option<T>,
    allowed: &[&str],
    time_of: impl Fn(&T) -> f32,
) -> Vec<T> {
    let Some(items) = value.as_array() else {
        problems.error(
            pointer,
            format!("`{what}` must be a list, found {}", read::kind_of(value)),
        );
        return Vec::new();
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, v) in items.iter().enumerate() {
        let p = index(pointer, i);
        let Some(mut obj) = Obj::new(v, &p, problems, &format!("an entry of `{what}`")) else {
            continue;
        };
        let found = item(&mut obj, problems);
        obj.finish(problems, allowed);
        out.extend(found);
    }
    out.sort_by(|a, b| time_of(a).total_cmp(&time_of(b)));
    out
}

fn time_field(obj: &mut Obj<'_>, problems: &mut Problems) -> Option<f32> {
    let (v, p) = obj.req("time", problems)?;
    seconds(v, &p, problems, "`time`")
}

fn name_field(obj: &mut Obj<'_>, key: &str, problems: &mut Problems) -> Option<String> {
    let (v, p) = obj.req(key, problems)?;
    read::nonempty_string(v, &p, problems, &format!("`{key}`")).map(str::to_owned)
}

/// Reads `markers`.
pub(crate) fn read_markers(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Vec<Marker> {
    let item = |obj: &mut Obj<'_>, problems: &mut Problems| {
        let time_secs = time_field(obj, problems);
        let name = name_field(obj, "name", problems);
        let value = obj.opt("value").and_then(|(v, p)| {
            read::string(v, &p, problems, "a marker's `value`").map(str::to_owned)
        });
        Some(Marker {
            time_secs: time_secs?,
            name: name?,
            value,
        })
    };
    read_list(
        value,
        pointer,
        problems,
        "markers",
        item,
        &["time", "name", "value"],
        |m| m.time_secs,
    )
}

/// Reads `events`.
pub(crate) fn read_events(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Vec<ClipEvent> {
    let item = |obj: &mut Obj<'_>, problems: &mut Problems| {
        let time_secs = time_field(obj, problems);
        let name = name_field(obj, "name", problems);
        let payload = obj.opt("payload").map_or(Value::Null, |(v, _)| v.clone());
        let on = match obj.opt("on") {
            Some((v, p)) => read::one_of(v, &p, problems, "an event's `on`", &SIDES),
            None => Some(EventSide::Both),
        };
        Some(ClipEvent {
            time_secs: time_secs?,
            name: name?,
            payload,
            on: on?,
        })
    };
    let allowed = ["time", "name", "payload", "on", "preview"];
    read_list(value, pointer, problems, "events", item, &allowed, |e| {
        e.time_secs
    })
}

/// Reads `sounds`.
pub(crate) fn read_sounds(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Vec<ClipSound> {
    let item = |obj: &mut Obj<'_>, problems: &mut Problems| {
        let time_secs = time_field(obj, problems);
        let sound = name_field(obj, "sound", problems);
        let volume =
            obj.opt_number_in_range("volume", problems, 0.0..=f64::MAX, "must be at least 0");
        let pitch = match obj.opt("pitch") {
            Some((v, p)) => positive(v, &p, problems, "`pitch`", "")?,
            None => 1.0,
        };
        let volume = match obj.has("volume") {
            true => volume?,
            false => 1.0,
        };
        Some(ClipSound {
            time_secs: time_secs?,
            sound: sound?,
            volume,
            pitch,
        })
    };
    let allowed = ["time", "sound", "volume", "pitch"];
    read_list(value, pointer, problems, "sounds", item, &allowed, |s| {
        s.time_secs
    })
}

/// Reads `plays`.
pub(crate) fn read_plays(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Vec<ClipPlay> {
    let item = |obj: &mut Obj<'_>, problems: &mut Problems| {
        let time_secs = time_field(obj, problems);
        let clip = obj.req("clip", problems).and_then(|(v, p)| {
            let path = read::string(v, &p, problems, "a play's `clip`")?;
            if !path.starts_with("res://") || path.len() <= "res://".len() {
                problems.error(
                    &p,
                    format!(
                        "a play's `clip` must be the res:// path of an .anim, found \"{path}\""
                    ),
                );
                return None;
            }
            Some(path.to_owned())
        });
        let fade_secs = match obj.opt("fade") {
            Some((v, p)) => seconds(v, &p, problems, "`fade`")?,
            None => 0.0,
        };
        Some(ClipPlay {
            time_secs: time_secs?,
            clip: clip?,
            fade_secs,
        })
    };
    read_list(
        value,
        pointer,
        problems,
        "plays",
        item,
        &["time", "clip", "fade"],
        |p| p.time_secs,
    )
}
