//! The reading itself: the file's values as Gson reads them, the header,
//! the metadata and the moves, into a [`BoneAnimation`] (the rules are in
//! the module guide of [`super`]).

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use uuid::Uuid;

use super::{EmotecraftEmote, EmotecraftJsonError as Error};
use crate::anim::bones::BodyJoint;
use crate::import::Note;
use crate::modded::emotecraft::animation::{part_bends, Axis, BoneAnimation, Keyframe, Part};

/// The last JSON version PlayerAnimator reads.
pub const HIGHEST_VERSION: i64 = 3;
/// Degrees to radians as PlayerAnimator multiplies them (an `f32`).
const RADIANS_PER_DEGREE: f32 = 0.017_453_292;
/// The axes of a part object, in the binary's order (`axis` is the bend's
/// direction, `bend` the bend), and whether each is an angle.
const AXES: [(&str, bool); 8] = [
    ("x", false),
    ("y", false),
    ("z", false),
    ("pitch", true),
    ("yaw", true),
    ("roll", true),
    ("axis", true),
    ("bend", true),
];
/// PlayerAnimator's ease names (upper case, no `EASE` prefix) and ids.
const EASES: [(&str, u8); 32] = [
    ("LINEAR", 0),
    ("CONSTANT", 1),
    ("INSINE", 6),
    ("OUTSINE", 7),
    ("INOUTSINE", 8),
    ("INCUBIC", 9),
    ("OUTCUBIC", 10),
    ("INOUTCUBIC", 11),
    ("INQUAD", 12),
    ("OUTQUAD", 13),
    ("INOUTQUAD", 14),
    ("INQUART", 15),
    ("OUTQUART", 16),
    ("INOUTQUART", 17),
    ("INQUINT", 18),
    ("OUTQUINT", 19),
    ("INOUTQUINT", 20),
    ("INEXPO", 21),
    ("OUTEXPO", 22),
    ("INOUTEXPO", 23),
    ("INCIRC", 24),
    ("OUTCIRC", 25),
    ("INOUTCIRC", 26),
    ("INBACK", 27),
    ("OUTBACK", 28),
    ("INOUTBACK", 29),
    ("INELASTIC", 30),
    ("OUTELASTIC", 31),
    ("INOUTELASTIC", 32),
    ("INBOUNCE", 33),
    ("OUTBOUNCE", 34),
    ("INOUTBOUNCE", 35),
];

/// PlayerAnimator's ease id for an `easing` name; `None` for a name it
/// does not know (which it plays linear).
pub fn ease_id(name: &str) -> Option<u8> {
    if name == "step" {
        return Some(1);
    }
    let upper = name.to_uppercase();
    let bare = match upper.strip_prefix("EASE") {
        Some(rest) => rest,
        None => &upper,
    };
    EASES.iter().find(|(n, _)| *n == bare).map(|&(_, id)| id)
}

/// The whole file.
pub(super) fn emote(root: &Value, stem: &str) -> Result<EmotecraftEmote, Error> {
    let root = object(root, "")?;
    let emote = match root.get("emote") {
        Some(Value::Object(emote)) => emote,
        _ => return Err(Error::NotEmotecraft),
    };
    let version = match root.get("version") {
        Some(v) => i64::from(int(v, "/version")?),
        None => 1,
    };
    if version > HIGHEST_VERSION {
        return Err(Error::Version {
            pointer: "/version".to_owned(),
            version,
        });
    }
    let mut notes = Vec::new();
    let metadata = metadata(root, stem, &mut notes);
    let mut animation = header(emote, &mut notes)?;
    let degrees = optional(emote, "degrees", "/emote", boolean)?.unwrap_or(true);
    let moves = match emote.get("moves") {
        Some(Value::Array(moves)) => moves,
        Some(_) => return Err(wrong("/emote/moves", "an array of moves")),
        None => {
            return Err(Error::Missing {
                pointer: "/emote".to_owned(),
                field: "moves",
            })
        }
    };
    let mut parts = Parts::default();
    for (m, one) in moves.iter().enumerate() {
        read_move(one, m, version, degrees, &mut parts, &mut notes)?;
    }
    notes.extend(
        parts
            .dropped
            .into_iter()
            .map(|(pointer, message)| Note::new(pointer, message)),
    );
    animation.parts = parts.kept;
    for part in &mut animation.parts {
        if part.axes.iter().any(|a| a.enabled) {
            for axis in &mut part.axes {
                axis.enabled = true;
            }
        }
    }
    if let Some(Value::String(text)) = root.get("uuid") {
        match Uuid::parse_str(text) {
            Ok(uuid) => animation.uuid = uuid,
            Err(_) => notes.push(Note::new(
                "/uuid",
                format!(
                    "`{text}` is not a UUID; the emote gets none (Emotecraft refuses the file)"
                ),
            )),
        }
    }
    Ok(EmotecraftEmote {
        animation,
        metadata,
        notes,
    })
}

/// The header ticks and flags (parts empty, UUID nil).
fn header(emote: &Map<String, Value>, notes: &mut Vec<Note>) -> Result<BoneAnimation, Error> {
    let at = "/emote";
    let begin_tick = optional(emote, "beginTick", at, int)?.unwrap_or(0);
    let end_tick = match emote.get("endTick") {
        Some(v) => int(v, "/emote/endTick")?,
        None => {
            return Err(Error::Missing {
                pointer: at.to_owned(),
                field: "endTick",
            })
        }
    };
    if end_tick <= 0 {
        return Err(Error::EndTick {
            pointer: "/emote/endTick".to_owned(),
            end_tick,
        });
    }
    let looped = optional(emote, "isLoop", at, boolean)?;
    let back_to = optional(emote, "returnTick", at, int)?;
    let (is_looped, return_tick) = match (looped, back_to) {
        (Some(looped), Some(back_to)) => (looped, back_to),
        (None, None) => (false, 0),
        (Some(_), None) | (None, Some(_)) => {
            let (given, missing) = if looped.is_some() {
                ("isLoop", "returnTick")
            } else {
                ("returnTick", "isLoop")
            };
            notes.push(Note::new(
                format!("/emote/{given}"),
                format!(
                    "ignored without `{missing}`, as Emotecraft ignores it: the emote plays once"
                ),
            ));
            (false, 0)
        }
    };
    if is_looped && !(0..=end_tick).contains(&return_tick) {
        return Err(Error::ReturnTick {
            pointer: "/emote/returnTick".to_owned(),
            return_tick,
            end_tick,
        });
    }
    let nsfw = optional(emote, "nsfw", at, boolean)?.unwrap_or(false);
    if nsfw {
        notes.push(Note::new(
            "/emote/nsfw",
            "the not-safe-for-work flag is kept as metadata.nsfw; emoted does not act on it",
        ));
    }
    Ok(BoneAnimation {
        begin_tick,
        end_tick,
        stop_tick: optional(emote, "stopTick", at, int)?.unwrap_or(end_tick),
        is_looped,
        return_tick,
        easing_before: optional(emote, "easeBeforeKeyframe", at, boolean)?.unwrap_or(false),
        nsfw,
        parts: Vec::new(),
        uuid: Uuid::nil(),
    })
}

/// `name`, `description`, `author` as text, and the other top-level
/// scalars as written (Emotecraft's extra data).
fn metadata(root: &Map<String, Value>, stem: &str, notes: &mut Vec<Note>) -> Map<String, Value> {
    let mut out = Map::new();
    for field in ["name", "description", "author"] {
        let Some(value) = root.get(field) else {
            continue;
        };
        match text_of(value) {
            Some(text) => {
                if !value.is_string() {
                    notes.push(Note::new(
                        format!("/{field}"),
                        format!("a text component; its plain text `{text}` is kept"),
                    ));
                }
                out.insert(field.to_owned(), Value::String(text));
            }
            None => notes.push(Note::new(
                format!("/{field}"),
                "not a string or a text component with text; dropped",
            )),
        }
    }
    let name_ok = out
        .get("name")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.trim().is_empty());
    if !name_ok {
        out.insert("name".to_owned(), Value::String(stem.to_owned()));
        notes.push(Note::new(
            "/name",
            format!(
                "no name (Emotecraft refuses the file); the emote is named `{stem}` after the file"
            ),
        ));
    }
    for (key, value) in root {
        let skip = matches!(
            key.as_str(),
            "emote" | "version" | "comment" | "name" | "description" | "author"
        );
        if !skip && !value.is_object() && !value.is_array() && !value.is_null() {
            out.insert(key.clone(), value.clone());
        }
    }
    if let Some(Value::Object(emote)) = root.get("emote") {
        if optional(emote, "nsfw", "/emote", boolean) == Ok(Some(true)) {
            out.insert("nsfw".to_owned(), Value::Bool(true));
        }
    }
    out
}

/// The plain text of a name: a string, or a text component's `fallback`,
/// `text` or `translate` (first found).
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => ["fallback", "text", "translate"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))
            .map(str::to_owned),
        _ => None,
    }
}

/// The parts read so far, and the notes for what was dropped (one per
/// part name or axis, at its first place).
#[derive(Default)]
struct Parts {
    kept: Vec<Part>,
    dropped: Vec<(String, String)>,
    noted: BTreeSet<String>,
}

impl Parts {
    fn part(&mut self, name: &str) -> Option<&mut Part> {
        if !self.kept.iter().any(|p| p.name == name) {
            self.kept.push(Part::still(name));
        }
        self.kept.iter_mut().find(|p| p.name == name)
    }

    fn drop_once(&mut self, key: String, pointer: String, message: String) {
        if self.noted.insert(key) {
            self.dropped.push((pointer, message));
        }
    }
}

/// One move: its tick, easing and turn, then each part's axes.
fn read_move(
    value: &Value,
    index: usize,
    version: i64,
    degrees: bool,
    parts: &mut Parts,
    notes: &mut Vec<Note>,
) -> Result<(), Error> {
    let at = format!("/emote/moves/{index}");
    let one = object(value, &at)?;
    let tick = match one.get("tick") {
        Some(v) => int(v, &format!("{at}/tick"))?,
        None => {
            return Err(Error::Missing {
                pointer: at,
                field: "tick",
            })
        }
    };
    let ease = match one.get("easing") {
        None => 0,
        Some(v) => {
            let name = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => return Err(wrong(&format!("{at}/easing"), "an ease name")),
            };
            ease_id(&name).unwrap_or_else(|| {
                notes.push(Note::new(
                    format!("{at}/easing"),
                    format!("`{name}` is not an ease PlayerAnimator knows; it plays linear, as Emotecraft plays it"),
                ));
                0
            })
        }
    };
    let turn = optional(one, "turn", &at, int)?.unwrap_or(0);
    for (key, part_value) in one {
        if matches!(key.as_str(), "tick" | "easing" | "turn" | "comment") {
            continue;
        }
        let part_at = format!("{at}/{}", escape(key));
        let fields = object(part_value, &part_at)?;
        let name = if version < 3 && key == "torso" {
            "body"
        } else {
            key.as_str()
        };
        let known = name == "body" || BodyJoint::ALL.iter().any(|j| j.name() == name);
        if !known {
            let why = if matches!(name, "leftItem" | "rightItem") {
                "held items do not move on emoted's humanoid rig"
            } else {
                "the humanoid rig has no such part"
            };
            parts.drop_once(
                format!("part {name}"),
                part_at,
                format!("part `{key}` is dropped: {why}"),
            );
            continue;
        }
        for field in fields.keys() {
            if !AXES.iter().any(|(a, _)| a == field) && field != "comment" {
                parts.drop_once(
                    format!("{name}/{field}"),
                    format!("{part_at}/{}", escape(field)),
                    format!("`{field}` is not an axis (x, y, z, pitch, yaw, roll, bend, axis); PlayerAnimator ignores it"),
                );
            }
        }
        for (slot, (axis, angle)) in AXES.iter().enumerate() {
            let Some(v) = fields.get(*axis) else {
                continue;
            };
            let value_at = format!("{part_at}/{axis}");
            if slot >= 6 && !part_bends(name) {
                parts.drop_once(
                    format!("{name}/{axis}"),
                    value_at,
                    format!("`{name}` does not bend, so its `{axis}` is dropped (Emotecraft refuses the whole file)"),
                );
                continue;
            }
            let mut value = float(v, &value_at)?;
            if degrees && *angle {
                value *= RADIANS_PER_DEGREE;
            }
            if !value.is_finite() {
                return Err(Error::NotFinite { pointer: value_at });
            }
            let mut keys = vec![value];
            if *angle && turn != 0 {
                let turned = (f64::from(value) + std::f64::consts::TAU * f64::from(turn)) as f32;
                if !turned.is_finite() {
                    return Err(Error::NotFinite {
                        pointer: format!("{at}/turn"),
                    });
                }
                keys.push(turned);
            }
            if let Some(axis) = parts.part(name).and_then(|p| p.axes.get_mut(slot)) {
                insert_keys(axis, tick, ease, &keys);
            }
        }
    }
    Ok(())
}

/// Adds keys at `tick` after every key already at or before it.
fn insert_keys(axis: &mut Axis, tick: i32, ease: u8, values: &[f32]) {
    axis.enabled = true;
    let at = axis.keyframes.partition_point(|k| k.tick <= tick);
    for (i, &value) in values.iter().enumerate() {
        axis.keyframes
            .insert(at + i, Keyframe { tick, value, ease });
    }
}

/// A JSON pointer token (`~` and `/` escaped).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn wrong(pointer: &str, expected: &'static str) -> Error {
    Error::WrongType {
        pointer: pointer.to_owned(),
        expected,
    }
}

fn object<'a>(value: &'a Value, pointer: &str) -> Result<&'a Map<String, Value>, Error> {
    value.as_object().ok_or_else(|| wrong(pointer, "an object"))
}

/// `object[field]` read by `read`, or `None` when absent.
fn optional<T>(
    object: &Map<String, Value>,
    field: &str,
    at: &str,
    read: fn(&Value, &str) -> Result<T, Error>,
) -> Result<Option<T>, Error> {
    object
        .get(field)
        .map(|v| read(v, &format!("{at}/{field}")))
        .transpose()
}

/// An `int` as Gson's `getAsInt`: a number (a fraction cut toward zero)
/// or a string of a whole number.
fn int(value: &Value, pointer: &str) -> Result<i32, Error> {
    let expected = "a whole number";
    let n = match value {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f.trunc() as i64)),
        Value::String(s) => s.parse::<i64>().ok(),
        _ => None,
    };
    n.and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| wrong(pointer, expected))
}

/// A `float` as Gson's `getAsFloat`: a number or a string of one.
fn float(value: &Value, pointer: &str) -> Result<f32, Error> {
    let n = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match n {
        Some(n) => Ok(n as f32),
        None => Err(wrong(pointer, "a number")),
    }
}

/// A `boolean` as Gson's `getAsBoolean`: a boolean, or a string that is
/// true when it says `true` in any case.
fn boolean(value: &Value, pointer: &str) -> Result<bool, Error> {
    match value {
        Value::Bool(b) => Ok(*b),
        Value::String(s) => Ok(s.eq_ignore_ascii_case("true")),
        _ => Err(wrong(pointer, "true or false")),
    }
}
