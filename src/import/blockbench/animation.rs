//! A `.bbmodel`'s `animations[]`: animators keyed by uuid (or a bone
//! name), their keyframes as [`Channel`]s, and the `effects` animator's
//! sound, particle and timeline keyframes as commands.
//!
//! # Keyframes
//! `channel`, `time` (s), `interpolation` (`linear` when absent), 1 or 2
//! `data_points` (pre, post) of `x`, `y`, `z` numbers or Molang strings
//! (`"0"`, or `"1"` for scale, when missing), the bezier handles, and for
//! very old files `x`/`y`/`z` on the keyframe itself. Legacy `bones` in
//! place of `animators`, and animators that are a bare keyframe array,
//! are read too.
//!
//! # 4.x files
//! Before format 5.0 Blockbench stored animations in Bedrock's axes; 5.0
//! converts them on load (`processCompatibility`), and so does this
//! reader: position x, rotation x and y, and the same components of the
//! bezier handle values are negated (a Molang value is negated when
//! evaluated). This applies to every keyframe of a file older than 5.0,
//! legacy layouts included, so the clip plays as its author saw it.

use serde_json::{Map, Value};

use super::model::Model;
use super::{shape, BlockbenchError, Version};
use crate::import::bedrock::bake::note_channel;
use crate::import::bedrock::curves::{BezierHandles, Channel, Interpolation, Key, Point, Scalar};
use crate::import::bedrock::pointer_key;
use crate::import::bedrock::rig::NodeChannels;
use crate::import::bedrock::values::Expressions;
use crate::import::Note;

/// How a clip plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopMode {
    /// `once`.
    Once,
    /// `loop`.
    Loop,
    /// `hold`.
    Hold,
}

/// One effect keyframe's data point.
#[derive(Clone, Debug, PartialEq)]
pub struct Effect {
    /// Seconds.
    pub time_secs: f64,
    /// Where the file has it.
    pub pointer: String,
    /// `sound`, `particle` or `timeline`.
    pub channel: String,
    /// The sound or particle effect.
    pub effect: String,
    /// The timeline script.
    pub script: String,
}

/// One animation.
#[derive(Clone, Debug)]
pub struct Clip {
    /// Its name.
    pub name: String,
    /// `/animations/I`.
    pub pointer: String,
    /// How it plays.
    pub mode: LoopMode,
    /// Its length, seconds (`length`, else its last keyframe).
    pub length_secs: f64,
    /// Node `i`'s channels.
    pub animated: Vec<Option<NodeChannels>>,
    /// Effect keyframes, in time order.
    pub effects: Vec<Effect>,
}

/// Every animation of `root`.
pub fn read_animations(
    root: &Map<String, Value>,
    model: &Model,
    version: Version,
    expressions: &mut Expressions,
    notes: &mut Vec<Note>,
) -> Result<Vec<Clip>, BlockbenchError> {
    let Some(list) = root.get("animations") else {
        return Ok(Vec::new());
    };
    let Some(list) = list.as_array() else {
        return Err(shape("/animations", "`animations` is an array"));
    };
    let mut clips = Vec::new();
    for (i, animation) in list.iter().enumerate() {
        let pointer = format!("/animations/{i}");
        let Some(animation) = animation.as_object() else {
            return Err(shape(&pointer, "an animation is an object"));
        };
        let reader = ClipReader {
            model,
            negate: version < Version(5, 0),
            expressions: &mut *expressions,
            notes: &mut *notes,
        };
        clips.push(reader.clip(animation, &pointer)?);
    }
    Ok(clips)
}

struct ClipReader<'a> {
    model: &'a Model,
    negate: bool,
    expressions: &'a mut Expressions,
    notes: &'a mut Vec<Note>,
}

impl ClipReader<'_> {
    fn clip(
        mut self,
        animation: &Map<String, Value>,
        pointer: &str,
    ) -> Result<Clip, BlockbenchError> {
        let name = animation
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("animation")
            .to_owned();
        let mode = match animation.get("loop").and_then(Value::as_str) {
            Some("loop") => LoopMode::Loop,
            Some("hold") => LoopMode::Hold,
            _ => LoopMode::Once,
        };
        for field in [
            "anim_time_update",
            "blend_weight",
            "start_delay",
            "loop_delay",
        ] {
            let set = match animation.get(field) {
                Some(Value::String(s)) => !s.trim().is_empty(),
                Some(Value::Number(_)) => true,
                _ => false,
            };
            if set {
                self.notes.push(Note::new(
                    format!("{pointer}/{field}"),
                    format!("`{field}` has no place in an emote and is ignored"),
                ));
            }
        }
        let mut animated: Vec<Option<NodeChannels>> = vec![None; self.model.rig.nodes.len()];
        let mut effects = Vec::new();
        let mut last_secs = 0.0f64;
        let (field, animators) = match (animation.get("animators"), animation.get("bones")) {
            (Some(a), _) => ("animators", a),
            (None, Some(b)) => ("bones", b),
            (None, None) => ("animators", &Value::Null),
        };
        if let Some(animators) = animators.as_object() {
            for (key, animator) in animators {
                let at = format!("{pointer}/{field}/{}", pointer_key(key));
                let (keyframes, keyframes_at) = match animator {
                    Value::Array(list) => (list.as_slice(), at.clone()),
                    Value::Object(o) => match o.get("keyframes") {
                        Some(Value::Array(list)) => (list.as_slice(), format!("{at}/keyframes")),
                        None => (&[][..], at.clone()),
                        Some(_) => {
                            return Err(shape(
                                &format!("{at}/keyframes"),
                                "`keyframes` is an array",
                            ))
                        }
                    },
                    _ => return Err(shape(&at, "an animator is an object with `keyframes`")),
                };
                for keyframe in keyframes {
                    let time = keyframe.get("time").and_then(Value::as_f64).unwrap_or(0.0);
                    if time.is_finite() {
                        last_secs = last_secs.max(time);
                    }
                }
                if key == "effects"
                    || animator.get("type").and_then(Value::as_str) == Some("effect")
                {
                    self.effects(keyframes, &keyframes_at, &mut effects)?;
                    continue;
                }
                let name = animator.get("name").and_then(Value::as_str);
                let Some(node) = self.model.find(key, name) else {
                    self.notes.push(Note::new(
                        at,
                        format!(
                            "no group or element is `{}`; its keyframes are dropped",
                            name.unwrap_or(key)
                        ),
                    ));
                    continue;
                };
                if animator.get("rotation_global").and_then(Value::as_bool) == Some(true) {
                    self.notes.push(Note::new(
                        format!("{at}/rotation_global"),
                        "global rotation is not carried over: the bone turns with its parent",
                    ));
                }
                if animator
                    .get("quaternion_interpolation")
                    .and_then(Value::as_bool)
                    == Some(true)
                {
                    self.notes.push(Note::new(
                        format!("{at}/quaternion_interpolation"),
                        "quaternion interpolation is not carried over: rotations are interpolated as Euler angles",
                    ));
                }
                let channels = self.channels(keyframes, &keyframes_at)?;
                for (channel, kind) in [
                    (&channels.rotation, "rotation"),
                    (&channels.position, "position"),
                    (&channels.scale, "scale"),
                ] {
                    let mut these = Vec::new();
                    note_channel(channel, kind == "rotation", &keyframes_at, &mut these);
                    self.notes.extend(these.into_iter().map(|note| {
                        Note::new(note.pointer, format!("{kind} keys: {}", note.message))
                    }));
                }
                if let Some(slot) = animated.get_mut(node) {
                    *slot = Some(channels);
                }
            }
        } else if !animators.is_null() {
            return Err(shape(
                &format!("{pointer}/{field}"),
                "`animators` is an object keyed by uuid",
            ));
        }
        let length = animation
            .get("length")
            .and_then(Value::as_f64)
            .filter(|l| l.is_finite() && *l > 0.0)
            .unwrap_or(last_secs);
        effects.sort_by(|a: &Effect, b: &Effect| a.time_secs.total_cmp(&b.time_secs));
        Ok(Clip {
            name,
            pointer: pointer.to_owned(),
            mode,
            length_secs: length,
            animated,
            effects,
        })
    }

    fn channels(&mut self, keyframes: &[Value], at: &str) -> Result<NodeChannels, BlockbenchError> {
        let (mut rotation, mut position, mut scale) = (Vec::new(), Vec::new(), Vec::new());
        for (k, keyframe) in keyframes.iter().enumerate() {
            let kat = format!("{at}/{k}");
            let channel = keyframe
                .get("channel")
                .and_then(Value::as_str)
                .unwrap_or("rotation");
            let (list, default, mirror) = match channel {
                "rotation" => (&mut rotation, 0.0, [true, true, false]),
                "position" => (&mut position, 0.0, [true, false, false]),
                "scale" => (&mut scale, 1.0, [false; 3]),
                other => {
                    self.notes.push(Note::new(
                        kat,
                        format!("the `{other}` channel is not an emote channel; dropped"),
                    ));
                    continue;
                }
            };
            let mirror = mirror.map(|m| m && self.negate);
            list.push(self.key(keyframe, &kat, default, mirror)?);
        }
        Ok(NodeChannels {
            rotation: Channel::new(rotation),
            position: Channel::new(position),
            scale: Channel::new(scale),
        })
    }

    fn key(
        &mut self,
        keyframe: &Value,
        at: &str,
        default: f64,
        mirror: [bool; 3],
    ) -> Result<Key, BlockbenchError> {
        let time_secs = match keyframe.get("time") {
            None => 0.0,
            Some(t) => t
                .as_f64()
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| {
                    shape(
                        &format!("{at}/time"),
                        "a keyframe's `time` is seconds, 0 or more",
                    )
                })?,
        };
        let interpolation = match keyframe.get("interpolation").and_then(Value::as_str) {
            None => Interpolation::Linear,
            Some(name) => Interpolation::from_name(name).unwrap_or_else(|| {
                self.notes.push(Note::new(
                    format!("{at}/interpolation"),
                    format!("`{name}` is not an interpolation (linear, step, catmullrom, bezier); read as linear"),
                ));
                Interpolation::Linear
            }),
        };
        let uniform = keyframe.get("uniform").and_then(Value::as_bool) == Some(true);
        let points: Vec<(String, &Value)> =
            match keyframe.get("data_points").and_then(Value::as_array) {
                Some(list) if !list.is_empty() => list
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (format!("{at}/data_points/{i}"), p))
                    .collect(),
                _ => vec![(at.to_owned(), keyframe)],
            };
        let mut read = Vec::with_capacity(points.len());
        for (pat, point) in points.iter().take(2) {
            read.push(self.point(point, pat, default, mirror, uniform)?);
        }
        let sign = |i: usize| if mirror[i] { -1.0 } else { 1.0 };
        let handle = |field: &str, fallback: f64| -> [f64; 3] {
            let list = keyframe.get(field).and_then(Value::as_array);
            std::array::from_fn(|i| {
                list.and_then(|l| l.get(i))
                    .and_then(Value::as_f64)
                    .filter(|v| v.is_finite())
                    .unwrap_or(fallback)
            })
        };
        let left_value = handle("bezier_left_value", 0.0);
        let right_value = handle("bezier_right_value", 0.0);
        Ok(Key {
            time_secs,
            points: read,
            interpolation,
            bezier: BezierHandles {
                left_time_secs: handle("bezier_left_time", -0.1),
                left_value: std::array::from_fn(|i| left_value[i] * sign(i)),
                right_time_secs: handle("bezier_right_time", 0.1),
                right_value: std::array::from_fn(|i| right_value[i] * sign(i)),
            },
        })
    }

    fn point(
        &mut self,
        point: &Value,
        at: &str,
        default: f64,
        mirror: [bool; 3],
        uniform: bool,
    ) -> Result<Point, BlockbenchError> {
        let mut out = [Scalar::Number(default); 3];
        let x = point.get("x");
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            let value = point.get(*axis).or(if uniform { x } else { None });
            let Some(value) = value else { continue };
            let pointer = format!("{at}/{axis}");
            let scalar = self
                .expressions
                .scalar(value, default, &pointer, self.notes)
                .ok_or_else(|| {
                    shape(&pointer, "a keyframe value is a number or a Molang string")
                })?;
            out[i] = if mirror[i] { scalar.negated() } else { scalar };
        }
        Ok(out)
    }

    fn effects(
        &mut self,
        keyframes: &[Value],
        at: &str,
        out: &mut Vec<Effect>,
    ) -> Result<(), BlockbenchError> {
        for (k, keyframe) in keyframes.iter().enumerate() {
            let kat = format!("{at}/{k}");
            let channel = keyframe
                .get("channel")
                .and_then(Value::as_str)
                .unwrap_or("");
            let time_secs = keyframe
                .get("time")
                .and_then(Value::as_f64)
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| {
                    shape(
                        &format!("{kat}/time"),
                        "a keyframe's `time` is seconds, 0 or more",
                    )
                })?;
            let points: Vec<&Value> = match keyframe.get("data_points").and_then(Value::as_array) {
                Some(list) => list.iter().collect(),
                None => vec![keyframe],
            };
            for (p, point) in points.into_iter().enumerate() {
                let text = |field: &str| {
                    point
                        .get(field)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .trim()
                        .to_owned()
                };
                out.push(Effect {
                    time_secs,
                    pointer: format!("{kat}/data_points/{p}"),
                    channel: channel.to_owned(),
                    effect: text("effect"),
                    script: text("script"),
                });
            }
        }
        Ok(())
    }
}
