//! Reading one state (its motion, speed and events) and one transition.

use serde_json::Value;

use super::{
    condition, numeric_parameter, state_index, unit_number, ClipRef, Motion, Parameter,
    PositionedClip, State, StateEvent, Target, ThresholdClip, Transition, ANY_STATE,
    DEFAULT_CROSSFADE_TICKS, EXIT_STATE, MAX_CROSSFADE_TICKS, MAX_STATE_SPEED,
};
use crate::format::event::{read_commands, CommandEvent, EventOrigin, EventSource, OriginAnchor};
use crate::format::ident::EmoteId;
use crate::format::problem::{field, index, JsonPointer, Problems};
use crate::format::read::{self, Obj};

/// Reads the state called `name`.
pub(super) fn read_state(
    name: &str,
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    parameters: &[Parameter],
) -> Option<State> {
    let mut obj = Obj::new(value, pointer, problems, "a state")?;
    let motions: Vec<_> = ["clip", "blend", "blend_2d"]
        .into_iter()
        .filter_map(|key| obj.opt(key).map(|(v, p)| (key, v, p)))
        .collect();
    let motion = match motions.as_slice() {
        [] => {
            problems.error(
                pointer,
                "a state plays one of `clip`, `blend` (1D) or `blend_2d`",
            );
            None
        }
        [("clip", v, p)] => clip_ref(v, p, problems).map(Motion::Clip),
        [("blend", v, p)] => read_blend_1d(v, p, problems, parameters),
        [(_, v, p)] => read_blend_2d(v, p, problems, parameters),
        [_, (key, _, p), ..] => {
            problems.error(
                p,
                format!("a state plays exactly one of `clip`, `blend` or `blend_2d`; remove `{key}` or the other"),
            );
            None
        }
    };
    let speed = match obj.opt("speed") {
        Some((v, p)) => read::number_in_range(
            v,
            &p,
            problems,
            "state `speed`",
            0.0..=f64::from(MAX_STATE_SPEED),
            "must lie in [0, 10]",
        ),
        None => Some(1.0),
    };
    let speed_parameter = match obj.opt("speed_parameter") {
        Some((v, p)) => {
            numeric_parameter(v, &p, problems, parameters, "`speed_parameter`").map(Some)
        }
        None => Some(None),
    };
    let looping = match obj.opt("loop") {
        Some((v, p)) => read::boolean(v, &p, problems, "`loop`"),
        None => Some(true),
    };
    let events = obj.opt("events").and_then(|(v, p)| {
        let Value::Array(items) = v else {
            problems.error(&p, "state `events` must be an array of events");
            return None;
        };
        let mut out: Vec<super::StateEvent> = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let ip = index(&p, i);
            let Some(event) = read_state_event(item, &ip, problems) else {
                continue;
            };
            if let Some(previous) = out.last().filter(|e| e.time > event.time) {
                problems.error(
                    &field(&ip, "time"),
                    format!(
                        "state events must be ordered by time: {} follows {}",
                        event.time, previous.time
                    ),
                );
            }
            out.push(event);
        }
        Some(out)
    });
    obj.finish(
        problems,
        &[
            "clip",
            "blend",
            "blend_2d",
            "speed",
            "speed_parameter",
            "loop",
            "events",
        ],
    );
    Some(State {
        name: name.to_owned(),
        motion: motion?,
        speed: speed?,
        speed_parameter: speed_parameter?,
        looping: looping?,
        events: events.unwrap_or_default(),
    })
}

fn clip_ref(value: &Value, pointer: &dyn JsonPointer, problems: &mut Problems) -> Option<ClipRef> {
    let text = read::string(value, pointer, problems, "`clip`")?;
    match EmoteId::parse(text) {
        Ok(id) => Some(ClipRef {
            id,
            pointer: pointer.render(),
        }),
        Err(e) => {
            problems.error(
                pointer,
                format!("`clip` must be an Animation's emote id: {e}"),
            );
            None
        }
    }
}

/// The `clips` array of a blend, each entry an object with `clip` and the
/// field `place` (`threshold` or `position`), read by `read_place`.
fn read_blend_clips<T>(
    obj: &mut Obj<'_>,
    problems: &mut Problems,
    place: &str,
    minimum: usize,
    mut read_place: impl FnMut(&Value, &dyn JsonPointer, &mut Problems) -> Option<T>,
) -> Option<Vec<(ClipRef, T, String)>> {
    let (v, p) = obj.req("clips", problems)?;
    let Value::Array(items) = v else {
        problems.error(&p, "blend `clips` must be an array");
        return None;
    };
    if items.len() < minimum {
        problems.error(
            &p,
            format!(
                "this blend needs at least {minimum} clips, found {}",
                items.len()
            ),
        );
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let ip = index(&p, i);
        let Some(mut entry) = Obj::new(item, &ip, problems, "a blend clip") else {
            continue;
        };
        let clip = entry
            .req("clip", problems)
            .and_then(|(v, cp)| clip_ref(v, &cp, problems));
        let at = entry
            .req(place, problems)
            .and_then(|(v, pp)| read_place(v, &pp, problems).map(|placed| (placed, pp.render())));
        entry.finish(problems, &["clip", place]);
        if let (Some(clip), Some((placed, at))) = (clip, at) {
            out.push((clip, placed, at));
        }
    }
    (out.len() == items.len()).then_some(out)
}

fn read_blend_1d(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    parameters: &[Parameter],
) -> Option<Motion> {
    let mut obj = Obj::new(value, pointer, problems, "`blend`")?;
    let parameter = obj
        .req("parameter", problems)
        .and_then(|(v, p)| numeric_parameter(v, &p, problems, parameters, "blend `parameter`"));
    let clips = read_blend_clips(&mut obj, problems, "threshold", 2, |v, p, problems| {
        read::finite_number(v, p, problems, "`threshold`")
    });
    obj.finish(problems, &["parameter", "clips"]);
    let clips = clips?;
    let mut increasing = true;
    for pair in clips.windows(2) {
        if pair[1].1 <= pair[0].1 {
            problems.error(
                pair[1].2.as_str(),
                format!(
                    "blend thresholds must strictly increase: {} follows {}",
                    pair[1].1, pair[0].1
                ),
            );
            increasing = false;
        }
    }
    increasing.then_some(())?;
    Some(Motion::Blend1d {
        parameter: parameter?,
        clips: clips
            .into_iter()
            .map(|(clip, threshold, _)| ThresholdClip { clip, threshold })
            .collect(),
    })
}

fn read_blend_2d(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    parameters: &[Parameter],
) -> Option<Motion> {
    let mut obj = Obj::new(value, pointer, problems, "`blend_2d`")?;
    let x = obj
        .req("x", problems)
        .and_then(|(v, p)| numeric_parameter(v, &p, problems, parameters, "blend `x`"));
    let y = obj.req("y", problems).and_then(|(v, p)| {
        let y = numeric_parameter(v, &p, problems, parameters, "blend `y`")?;
        if Some(y) == x {
            problems.error(
                &p,
                "a 2D blend needs two different parameters for `x` and `y`",
            );
            return None;
        }
        Some(y)
    });
    let clips = read_blend_clips(&mut obj, problems, "position", 3, |v, p, problems| {
        if v.as_array().map(Vec::len) != Some(2) {
            problems.error(
                p,
                "`position` must be an array of two finite numbers [x, y]",
            );
            return None;
        }
        read::finite_numbers::<2>(v, p, problems, "`position`")
    });
    obj.finish(problems, &["x", "y", "clips"]);
    let clips = clips?;
    let mut distinct = true;
    for (i, (_, position, at)) in clips.iter().enumerate() {
        if let Some(j) = clips[..i].iter().position(|(_, q, _)| q == position) {
            problems.error(
                at.as_str(),
                format!(
                    "2D blend positions must be distinct: [{}, {}] is also clip {j}'s",
                    position[0], position[1]
                ),
            );
            distinct = false;
        }
    }
    distinct.then_some(())?;
    Some(Motion::Blend2d {
        x: x?,
        y: y?,
        clips: clips
            .into_iter()
            .map(|(clip, position, _)| PositionedClip { clip, position })
            .collect(),
    })
}

/// Reads one transition of a layer whose states are `states`.
pub(super) fn read_transition(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    parameters: &[Parameter],
    states: &[&str],
) -> Option<Transition> {
    let mut obj = Obj::new(value, pointer, problems, "a transition")?;
    let from = obj.req("from", problems).and_then(|(v, p)| {
        let name = read::nonempty_string(v, &p, problems, "`from`")?;
        if name == ANY_STATE {
            return Some(None);
        }
        state_index(states, name, &p, problems, "`from`").map(Some)
    });
    let to = obj.req("to", problems).and_then(|(v, p)| {
        let name = read::nonempty_string(v, &p, problems, "`to`")?;
        if name == ANY_STATE {
            problems.error(
                &p,
                "`to` must name a state or `exit`; `any` is only for `from`",
            );
            return None;
        }
        if name == EXIT_STATE {
            return Some(Target::Exit);
        }
        state_index(states, name, &p, problems, "`to`").map(Target::State)
    });
    let conditions = match obj.opt("when") {
        None => Some(Vec::new()),
        Some((Value::String(text), p)) => {
            condition::resolve(text, &p, problems, parameters).map(|c| vec![c])
        }
        Some((Value::Array(items), p)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let ip = index(&p, i);
                let resolved = read::string(item, &ip, problems, "a condition")
                    .and_then(|text| condition::resolve(text, &ip, problems, parameters));
                out.extend(resolved);
            }
            (out.len() == items.len()).then_some(out)
        }
        Some((other, p)) => {
            problems.error(
                &p,
                format!(
                    "`when` must be a condition string or an array of them, found {}",
                    read::kind_of(other)
                ),
            );
            None
        }
    };
    let crossfade_ticks = match obj.opt("crossfade") {
        Some((v, p)) => read::time(v, &p, problems, "`crossfade`", 0).and_then(|t| {
            if t > MAX_CROSSFADE_TICKS {
                problems.error(
                    &p,
                    format!("`crossfade` may be at most {MAX_CROSSFADE_TICKS}t (10 s), found {t}t"),
                );
                return None;
            }
            Some(t)
        }),
        None => Some(DEFAULT_CROSSFADE_TICKS),
    };
    let exit_time = match obj.opt("exit_time") {
        Some((v, p)) => unit_number(v, &p, problems, "`exit_time`", false).map(Some),
        None => Some(None),
    };
    let offset = match obj.opt("offset") {
        Some((v, p)) => unit_number(v, &p, problems, "`offset`", true),
        None => Some(0.0),
    };
    let interruptible = match obj.opt("interruptible") {
        Some((v, p)) => read::boolean(v, &p, problems, "`interruptible`"),
        None => Some(false),
    };
    obj.finish(
        problems,
        &[
            "from",
            "to",
            "when",
            "crossfade",
            "exit_time",
            "offset",
            "interruptible",
        ],
    );
    let conditions = conditions?;
    if from == Some(None) && conditions.is_empty() {
        problems.error(
            pointer,
            "a transition from `any` needs a `when` condition, or it would fire again at every end of a cycle",
        );
        return None;
    }
    // Seed 004: a transition without conditions leaves at the end of the clip.
    let exit_time = exit_time?.or(conditions.is_empty().then_some(1.0));
    Some(Transition {
        from: from?,
        to: to?,
        conditions,
        crossfade_ticks: crossfade_ticks?,
        exit_time,
        offset: offset?,
        interruptible: interruptible?,
    })
}

/// A state event: `{"time": 0.5, "commands": [...]}`, optionally with
/// `"source": "server"` (the default is the player).
fn read_state_event(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<StateEvent> {
    let mut obj = Obj::new(value, pointer, problems, "an event")?;
    let time = obj
        .req("time", problems)
        .and_then(|(v, p)| unit_number(v, &p, problems, "event `time`", true));
    let source = match obj.opt("source") {
        Some((v, p)) => read::one_of(
            v,
            &p,
            problems,
            "event `source`",
            &[("player", true), ("server", false)],
        ),
        None => Some(true),
    };
    let commands = obj
        .req("commands", problems)
        .and_then(|(v, p)| read_commands(v, &p, problems));
    obj.finish(problems, &["time", "source", "commands"]);
    Some(StateEvent {
        time: time?,
        event: CommandEvent {
            source: if source? {
                EventSource::Player
            } else {
                EventSource::Server
            },
            origin: EventOrigin {
                anchor: OriginAnchor::Root,
                offset: Default::default(),
            },
            commands: commands?,
        },
    })
}
