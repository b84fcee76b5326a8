//! Reading curve modifiers: `"modifiers": { "rotation": [...], "position": [...] }`.
//!
//! Each modifier is an object with a `type` and that type's fields (every
//! other field is refused), plus `axis` (0, 1 or 2) and `enabled`. The rules
//! beyond the field types: `noise.scale` and `stepped.step` are above 0,
//! `limits.min` is at most `limits.max`, an envelope's `min` is below its
//! `max`, its points are `[time, min, max]` with times that never go back
//! and at most [`ENVELOPE_POINTS`] of them. `scale` channels take no
//! modifiers (seed 000: angle and offset channels only).

use serde_json::Value;

use super::keys::{positive, seconds};
use super::types::{CycleMode, EnvelopePoints, Modifier, ModifierKind, ENVELOPE_POINTS};
use crate::format::problem::{index, JsonPointer, Problems};
use crate::format::read::{self, Obj};

const CYCLE_MODES: [(&str, CycleMode); 4] = [
    ("none", CycleMode::None),
    ("repeat", CycleMode::Repeat),
    ("offset", CycleMode::Offset),
    ("mirror", CycleMode::Mirror),
];

#[derive(Clone, Copy)]
enum Type {
    Cycles,
    Noise,
    Stepped,
    Limits,
    Envelope,
}

const TYPES: [(&str, Type); 5] = [
    ("cycles", Type::Cycles),
    ("noise", Type::Noise),
    ("stepped", Type::Stepped),
    ("limits", Type::Limits),
    ("envelope", Type::Envelope),
];

/// Reads a list of modifiers; `None` when any is broken.
pub(crate) fn read_modifiers(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<Vec<Modifier>> {
    let Some(items) = value.as_array() else {
        problems.error(
            pointer,
            format!("modifiers must be a list, found {}", read::kind_of(value)),
        );
        return None;
    };
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        match read_modifier(item, &index(pointer, i), problems) {
            Some(m) => out.push(m),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn read_modifier(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<Modifier> {
    let mut obj = Obj::new(value, pointer, problems, "a modifier")?;
    let before = problems.error_count();
    let kind = obj.req_one_of("type", problems, "modifier `type`", &TYPES);
    let axis = obj.opt("axis").and_then(|(v, p)| match v.as_u64() {
        Some(a) if a <= 2 => Some(a as u8),
        _ => {
            problems.error(
                &p,
                format!("`axis` must be 0, 1 or 2 (x, y or z), found {v}"),
            );
            None
        }
    });
    let enabled = obj.opt_bool("enabled", problems).unwrap_or(true);
    let number = |obj: &mut Obj<'_>, key: &str, default: f32, problems: &mut Problems| {
        obj.opt(key)
            .and_then(|(v, p)| read::finite_number(v, &p, problems, &format!("`{key}`")))
            .unwrap_or(default)
    };
    let (kind, fields): (Option<ModifierKind>, &[&str]) = match kind {
        None => (None, &[]),
        Some(Type::Cycles) => {
            let mut side = |key: &str, problems: &mut Problems| {
                obj.opt(key)
                    .and_then(|(v, p)| {
                        read::one_of(v, &p, problems, &format!("cycles `{key}`"), &CYCLE_MODES)
                    })
                    .unwrap_or_default()
            };
            let before_mode = side("before", problems);
            let after = side("after", problems);
            (
                Some(ModifierKind::Cycles {
                    before: before_mode,
                    after,
                }),
                &["before", "after"],
            )
        }
        Some(Type::Noise) => {
            let scale_secs = seconds_above_zero(&mut obj, "scale", "noise `scale`", 1.0, problems);
            let kind = ModifierKind::Noise {
                scale_secs,
                strength: number(&mut obj, "strength", 1.0, problems),
                phase: number(&mut obj, "phase", 0.0, problems),
                offset: number(&mut obj, "offset", 0.0, problems),
            };
            (Some(kind), &["scale", "strength", "phase", "offset"])
        }
        Some(Type::Stepped) => {
            let step_secs = seconds_above_zero(&mut obj, "step", "stepped `step`", 0.1, problems);
            let offset_secs = number(&mut obj, "offset", 0.0, problems);
            (
                Some(ModifierKind::Stepped {
                    step_secs,
                    offset_secs,
                }),
                &["step", "offset"],
            )
        }
        Some(Type::Limits) => {
            let mut side = |key: &str, problems: &mut Problems| {
                obj.opt(key).and_then(|(v, p)| {
                    read::finite_number(v, &p, problems, &format!("limits `{key}`"))
                })
            };
            let (min, max) = (side("min", problems), side("max", problems));
            if let (Some(lo), Some(hi)) = (min, max) {
                if lo > hi {
                    problems.error(
                        pointer,
                        format!("limits `min` ({lo}) must be at most `max` ({hi})"),
                    );
                }
            }
            (Some(ModifierKind::Limits { min, max }), &["min", "max"])
        }
        Some(Type::Envelope) => {
            let reference = number(&mut obj, "reference", 0.0, problems);
            let min = number(&mut obj, "min", -1.0, problems);
            let max = number(&mut obj, "max", 1.0, problems);
            if min >= max {
                problems.error(
                    pointer,
                    format!("envelope `min` ({min}) must be below `max` ({max})"),
                );
            }
            let points = obj
                .opt("points")
                .and_then(|(v, p)| envelope_points(v, &p, problems))
                .unwrap_or(EnvelopePoints {
                    points: [[0.0; 3]; ENVELOPE_POINTS],
                    len: 0,
                });
            (
                Some(ModifierKind::Envelope {
                    reference,
                    min,
                    max,
                    points,
                }),
                &["reference", "min", "max", "points"],
            )
        }
    };
    obj.finish(problems, &[&["type", "axis", "enabled"], fields].concat());
    if problems.error_count() != before {
        return None;
    }
    Some(Modifier {
        kind: kind?,
        axis,
        enabled,
    })
}

/// An optional field of seconds above 0 (`default` when left out or broken).
fn seconds_above_zero(
    obj: &mut Obj<'_>,
    key: &str,
    what: &str,
    default: f32,
    problems: &mut Problems,
) -> f32 {
    obj.opt(key)
        .and_then(|(v, p)| positive(v, &p, problems, what, " seconds"))
        .unwrap_or(default)
}

fn envelope_points(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<EnvelopePoints> {
    let items = match value.as_array() {
        Some(items) if items.len() <= ENVELOPE_POINTS => items,
        _ => {
            problems.error(
                pointer,
                format!("envelope `points` must be a list of at most {ENVELOPE_POINTS} [time, min, max]"),
            );
            return None;
        }
    };
    let mut out = EnvelopePoints {
        points: [[0.0; 3]; ENVELOPE_POINTS],
        len: items.len(),
    };
    let mut previous = f32::NEG_INFINITY;
    let mut ok = true;
    for ((i, item), slot) in items.iter().enumerate().zip(out.points.iter_mut()) {
        let p = index(pointer, i);
        let triple = item.as_array().filter(|a| a.len() == 3);
        let Some(triple) = triple else {
            problems.error(&p, "an envelope point must be [time, min, max]");
            ok = false;
            continue;
        };
        let time = triple
            .first()
            .and_then(|t| seconds(t, &index(&p, 0), problems, "a point's time"));
        let lo = triple
            .get(1)
            .and_then(|v| read::finite_number(v, &index(&p, 1), problems, "a point's min"));
        let hi = triple
            .get(2)
            .and_then(|v| read::finite_number(v, &index(&p, 2), problems, "a point's max"));
        match (time, lo, hi) {
            (Some(t), Some(lo), Some(hi)) => {
                if t < previous {
                    problems.error(
                        &index(&p, 0),
                        format!("envelope point times must not decrease: {t}s follows {previous}s"),
                    );
                    ok = false;
                }
                previous = t;
                *slot = [t, lo, hi];
            }
            _ => ok = false,
        }
    }
    ok.then_some(out)
}
