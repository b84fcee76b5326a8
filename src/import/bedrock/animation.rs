//! Bedrock animation JSON (1.8.0): `animations{name: {loop,
//! animation_length, bones, sound_effects, particle_effects, timeline}}`
//! into [`Clip`]s whose channels are in Blockbench's display space.
//!
//! # Channel values
//! - A constant (an array, a bare number meaning x = y = z, or a string)
//!   or a `{pre?, post, lerp_mode?}` object is one key at 0 s.
//! - Otherwise the channel is a map from decimal-second strings to an
//!   array, number, string or `{pre?, post?, lerp_mode?}`; the times are
//!   parsed and sorted.
//! - `pre` and `post` make two points unless both are arrays and equal.
//!   `lerp_mode` is `linear` (the default) or `catmullrom`; a key whose
//!   post equals the next key's pre, where the next key has both, becomes
//!   step ([`Channel::infer_steps`]).
//! - Mirrored into Blockbench's space: position `(−x, y, z)`, rotation
//!   `(−x, −y, z)` (a Molang axis is negated when evaluated).

use serde_json::{Map, Value};

use super::curves::{Channel, Interpolation, Key, Point, Scalar};
use super::values::Expressions;
use super::{pointer_key, BedrockError};
use crate::import::Note;

/// How a clip plays, as the file says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopMode {
    /// `loop: false` (or absent): play once.
    Once,
    /// `loop: true`.
    Loop,
    /// `loop: "hold_on_last_frame"`.
    Hold,
}

/// One bone's channels, as named in the file.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneTrack {
    /// The bone's name as the file writes it.
    pub name: String,
    /// `/animations/NAME/bones/BONE`.
    pub pointer: String,
    /// Degrees (display space).
    pub rotation: Channel,
    /// Px (display space).
    pub position: Channel,
    /// Factors.
    pub scale: Channel,
}

/// One effect at a time.
#[derive(Clone, Debug, PartialEq)]
pub struct Effect {
    /// Seconds.
    pub time_secs: f64,
    /// Where the file has it.
    pub pointer: String,
    /// What it is.
    pub kind: EffectKind,
}

/// The effects a Bedrock animation has.
#[derive(Clone, Debug, PartialEq)]
pub enum EffectKind {
    /// `sound_effects`: a sound's short name.
    Sound(String),
    /// `particle_effects`: an effect's short name.
    Particle(String),
    /// `timeline`: a Molang string or a `/command`.
    Timeline(String),
}

/// One animation.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// Its name (`animation.jack.popup`).
    pub name: String,
    /// `/animations/NAME`.
    pub pointer: String,
    /// How it plays.
    pub mode: LoopMode,
    /// Its length, seconds: `animation_length`, else the last key or effect.
    pub length_secs: f64,
    /// True when `animation_length` gave the length.
    pub length_given: bool,
    /// The bones it moves.
    pub bones: Vec<BoneTrack>,
    /// Its effects, in time order.
    pub effects: Vec<Effect>,
}

/// Every animation in `root` (an animation file), in file order.
pub fn read_animations(
    root: &Map<String, Value>,
    expressions: &mut Expressions,
    notes: &mut Vec<Note>,
) -> Result<Vec<Clip>, BedrockError> {
    let Some(animations) = root.get("animations").and_then(Value::as_object) else {
        return Err(BedrockError::Shape {
            pointer: "/animations".to_owned(),
            rule: "an animation file needs an `animations` object".to_owned(),
        });
    };
    let mut clips = Vec::new();
    for (name, body) in animations {
        let pointer = format!("/animations/{}", pointer_key(name));
        let Some(body) = body.as_object() else {
            return Err(shape(&pointer, "an animation must be an object"));
        };
        clips.push(read_clip(name, &pointer, body, expressions, notes)?);
    }
    Ok(clips)
}

fn read_clip(
    name: &str,
    pointer: &str,
    body: &Map<String, Value>,
    expressions: &mut Expressions,
    notes: &mut Vec<Note>,
) -> Result<Clip, BedrockError> {
    let mode = match body.get("loop") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => LoopMode::Once,
        Some(Value::Bool(true)) => LoopMode::Loop,
        Some(Value::String(s)) if s == "hold_on_last_frame" => LoopMode::Hold,
        Some(Value::String(s)) if s == "true" => LoopMode::Loop,
        Some(Value::String(s)) if s == "false" => LoopMode::Once,
        Some(_) => {
            return Err(shape(
                &format!("{pointer}/loop"),
                "`loop` is true, false or \"hold_on_last_frame\"",
            ))
        }
    };
    for field in [
        "anim_time_update",
        "blend_weight",
        "start_delay",
        "loop_delay",
    ] {
        if body.contains_key(field) {
            notes.push(Note::new(
                format!("{pointer}/{field}"),
                format!("`{field}` has no place in an emote and is ignored"),
            ));
        }
    }
    let mut bones = Vec::new();
    if let Some(list) = body.get("bones") {
        let Some(list) = list.as_object() else {
            return Err(shape(
                &format!("{pointer}/bones"),
                "`bones` must be an object of bone names",
            ));
        };
        for (bone, channels) in list {
            let at = format!("{pointer}/bones/{}", pointer_key(bone));
            bones.push(read_bone(bone, &at, channels, expressions, notes)?);
        }
    }
    let effects = read_effects(pointer, body, notes)?;
    let last = bones
        .iter()
        .flat_map(|b| [&b.rotation, &b.position, &b.scale])
        .map(Channel::last_time_secs)
        .chain(effects.iter().map(|e| e.time_secs))
        .fold(0.0, f64::max);
    let given = match body.get("animation_length") {
        None => None,
        Some(v) => match v.as_f64().filter(|l| l.is_finite() && *l >= 0.0) {
            Some(l) => Some(l),
            None => {
                return Err(shape(
                    &format!("{pointer}/animation_length"),
                    "`animation_length` is a number of seconds, 0 or more",
                ))
            }
        },
    };
    Ok(Clip {
        name: name.to_owned(),
        pointer: pointer.to_owned(),
        mode,
        length_secs: given.unwrap_or(last),
        length_given: given.is_some(),
        bones,
        effects,
    })
}

fn read_bone(
    name: &str,
    at: &str,
    channels: &Value,
    expressions: &mut Expressions,
    notes: &mut Vec<Note>,
) -> Result<BoneTrack, BedrockError> {
    let Some(channels) = channels.as_object() else {
        return Err(shape(
            at,
            "a bone's animation must be an object of channels",
        ));
    };
    let mut track = BoneTrack {
        name: name.to_owned(),
        pointer: at.to_owned(),
        rotation: Channel::default(),
        position: Channel::default(),
        scale: Channel::default(),
    };
    for (channel, value) in channels {
        let pointer = format!("{at}/{}", pointer_key(channel));
        let (mirror, default, slot) = match channel.as_str() {
            "rotation" => ([true, true, false], 0.0, &mut track.rotation),
            "position" => ([true, false, false], 0.0, &mut track.position),
            "scale" => ([false, false, false], 1.0, &mut track.scale),
            "relative_to" => {
                notes.push(Note::new(
                    pointer,
                    "`relative_to` (rotation relative to the entity) is not carried over: the bone turns with its parent",
                ));
                continue;
            }
            _ => {
                notes.push(Note::new(
                    pointer,
                    format!("the `{channel}` channel is not an emote channel and is ignored"),
                ));
                continue;
            }
        };
        let reader = KeyReader {
            mirror,
            default,
            expressions: &mut *expressions,
        };
        *slot = reader.channel(value, &pointer, notes)?;
    }
    Ok(track)
}

/// Reads one channel's keys.
struct KeyReader<'a> {
    mirror: [bool; 3],
    default: f64,
    expressions: &'a mut Expressions,
}

impl KeyReader<'_> {
    fn channel(
        mut self,
        value: &Value,
        pointer: &str,
        notes: &mut Vec<Note>,
    ) -> Result<Channel, BedrockError> {
        let single = match value {
            Value::Object(o) => o.contains_key("post") || o.contains_key("pre"),
            _ => true,
        };
        let mut keys = Vec::new();
        if single {
            keys.push(self.key(0.0, value, pointer, notes)?);
        } else if let Value::Object(map) = value {
            for (time, key) in map {
                let at = format!("{pointer}/{}", pointer_key(time));
                let time_secs = time
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .ok_or_else(|| BedrockError::BadTime {
                        pointer: at.clone(),
                        text: time.clone(),
                    })?;
                keys.push(self.key(time_secs, key, &at, notes)?);
            }
        }
        let mut channel = Channel::new(keys);
        channel.infer_steps();
        Ok(channel)
    }

    fn key(
        &mut self,
        time_secs: f64,
        value: &Value,
        pointer: &str,
        notes: &mut Vec<Note>,
    ) -> Result<Key, BedrockError> {
        let Value::Object(object) = value else {
            let point = self.point(value, pointer, notes)?;
            return Ok(Key::new(time_secs, point, Interpolation::Linear));
        };
        let interpolation = match object.get("lerp_mode").and_then(Value::as_str) {
            None => Interpolation::Linear,
            Some(name) => Interpolation::from_name(name).unwrap_or_else(|| {
                notes.push(Note::new(
                    format!("{pointer}/lerp_mode"),
                    format!("`{name}` is not a lerp mode (linear, catmullrom); read as linear"),
                ));
                Interpolation::Linear
            }),
        };
        let pre = object.get("pre");
        let post = object.get("post");
        let mut points = Vec::new();
        if let Some(pre) = pre {
            points.push(self.point(pre, &format!("{pointer}/pre"), notes)?);
        }
        let same = matches!((pre, post), (Some(Value::Array(a)), Some(Value::Array(b))) if a == b);
        if let Some(post) = post.filter(|_| !same) {
            points.push(self.point(post, &format!("{pointer}/post"), notes)?);
        }
        if points.is_empty() {
            return Err(shape(pointer, "a keyframe object needs `pre` or `post`"));
        }
        Ok(Key {
            time_secs,
            points,
            interpolation,
            bezier: Default::default(),
        })
    }

    fn point(
        &mut self,
        value: &Value,
        pointer: &str,
        notes: &mut Vec<Note>,
    ) -> Result<Point, BedrockError> {
        let components: Vec<(String, &Value)> = match value {
            Value::Array(items) if items.len() == 3 => items
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("{pointer}/{i}"), v))
                .collect(),
            Value::Array(_) => {
                return Err(shape(
                    pointer,
                    "a vector keyframe has three values `[x, y, z]`",
                ))
            }
            other => (0..3).map(|_| (pointer.to_owned(), other)).collect(),
        };
        let mut out = [Scalar::Number(self.default); 3];
        for (i, (at, v)) in components.iter().enumerate() {
            let scalar = self
                .expressions
                .scalar(v, self.default, at, notes)
                .ok_or_else(|| shape(at, "a keyframe value is a number or a Molang string"))?;
            let mirrored = if self.mirror.get(i).copied().unwrap_or(false) {
                scalar.negated()
            } else {
                scalar
            };
            if let Some(slot) = out.get_mut(i) {
                *slot = mirrored;
            }
        }
        Ok(out)
    }
}

/// `sound_effects`, `particle_effects` and `timeline`, each `{time: entry
/// | [entries]}`.
fn read_effects(
    pointer: &str,
    body: &Map<String, Value>,
    notes: &mut Vec<Note>,
) -> Result<Vec<Effect>, BedrockError> {
    let mut effects = Vec::new();
    for field in ["sound_effects", "particle_effects", "timeline"] {
        let Some(map) = body.get(field) else { continue };
        let Some(map) = map.as_object() else {
            return Err(shape(
                &format!("{pointer}/{field}"),
                "effects are an object keyed by time in seconds",
            ));
        };
        for (time, entries) in map {
            let at = format!("{pointer}/{field}/{}", pointer_key(time));
            let time_secs = time
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| BedrockError::BadTime {
                    pointer: at.clone(),
                    text: time.clone(),
                })?;
            let list: Vec<&Value> = match entries {
                Value::Array(items) => items.iter().collect(),
                one => vec![one],
            };
            for entry in list {
                let kind = match (field, entry) {
                    ("timeline", Value::String(s)) => Some(EffectKind::Timeline(s.clone())),
                    ("sound_effects", e) => e
                        .get("effect")
                        .and_then(Value::as_str)
                        .map(|s| EffectKind::Sound(s.to_owned())),
                    ("particle_effects", e) => e
                        .get("effect")
                        .and_then(Value::as_str)
                        .map(|s| EffectKind::Particle(s.to_owned())),
                    _ => None,
                };
                match kind {
                    Some(kind) => effects.push(Effect {
                        time_secs,
                        pointer: at.clone(),
                        kind,
                    }),
                    None => notes.push(Note::new(
                        at.clone(),
                        "an effect entry without its effect is ignored",
                    )),
                }
            }
        }
    }
    effects.sort_by(|a, b| a.time_secs.total_cmp(&b.time_secs));
    Ok(effects)
}

fn shape(pointer: &str, rule: &str) -> BedrockError {
    BedrockError::Shape {
        pointer: pointer.to_owned(),
        rule: rule.to_owned(),
    }
}
