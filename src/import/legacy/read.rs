//! Schema 1 and schema 3 files into one model ([`Legacy`]).
//!
//! Schema 1 is read under its own names, so errors point at what the
//! file says; the renames (the spec's schema 1 → 3 table) are:
//!
//! | Schema 1 | Schema 3 (and 4) |
//! |---|---|
//! | no `type` | `type: "animation"` |
//! | `minecraft_version`, `transform_space` | dropped (matrices are root-local) |
//! | `tick_rate: 20` | dropped (20 tps; another rate is refused) |
//! | root `standalone`, `player` | `settings.standalone`, `settings.player` |
//! | no cooldown | `settings.cooldown: "0t"` |
//! | `timeline.loop` (true/false or a mode) | `settings.playback.mode` |
//! | `timeline.loop_delay_ticks` | `settings.playback.loop_delay` |
//! | `duration_ticks`, `tick`, `interpolation_duration_ticks` | `duration`, `time`, `interpolation_duration` |
//!
//! Times are read leniently in both: a Minecraft time string or a number
//! of ticks.

use glam::Mat4;
use serde_json::{json, Map, Value};

use super::events::events;
use super::fields::{escape, missing, object, time, wrong};
use super::LegacyError as Error;
use crate::import::Note;

/// Which format the file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Schema {
    One,
    Three,
}

impl Schema {
    fn duration(self) -> &'static str {
        match self {
            Schema::One => "duration_ticks",
            Schema::Three => "duration",
        }
    }
    fn time(self) -> &'static str {
        match self {
            Schema::One => "tick",
            Schema::Three => "time",
        }
    }
    fn interpolation(self) -> &'static str {
        match self {
            Schema::One => "interpolation_duration_ticks",
            Schema::Three => "interpolation_duration",
        }
    }
}

/// The file, migrated as far as names go.
#[derive(Clone, Debug)]
pub(super) struct Legacy {
    pub id: Option<String>,
    pub metadata: Map<String, Value>,
    /// Schema 4 `settings`.
    pub settings: Value,
    /// In the file's order.
    pub nodes: Vec<Node>,
    pub duration_ticks: u32,
    /// Schema 4 `timeline.events`.
    pub events: Map<String, Value>,
}

/// One node and its keys.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub id: String,
    /// `/nodes/<id>`.
    pub pointer: String,
    pub space: String,
    pub parent: Option<String>,
    /// Root-local.
    pub default: Mat4,
    /// The schema 4 fields besides `space`, `parent` and `transform`.
    pub fields: Map<String, Value>,
    pub display: bool,
    pub visible: bool,
    /// In time order, at most one per tick.
    pub transforms: Vec<Key>,
    /// `(tick, visible)`, in time order.
    pub states: Vec<(u32, bool)>,
}

/// A transform: the node reaches `matrix` at `tick`, moving from its
/// previous matrix from `start_tick` on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Key {
    pub tick: u32,
    pub start_tick: u32,
    pub matrix: Mat4,
}

/// Reads a schema 1 or 3 Animation.
pub(super) fn legacy(root: &Value, notes: &mut Vec<Note>) -> Result<Legacy, Error> {
    let root = object(root, "")?;
    let schema = match root.get("schema_version").and_then(Value::as_i64) {
        Some(1) => Schema::One,
        Some(3) => Schema::Three,
        _ => {
            return Err(Error::Version {
                found: root
                    .get("schema_version")
                    .map_or_else(|| "no schema_version".to_owned(), Value::to_string),
            })
        }
    };
    match root.get("type") {
        Some(Value::String(t)) if t == "animation" => {}
        None if schema == Schema::One => {}
        None => {
            return Err(Error::Missing {
                pointer: String::new(),
                field: "type",
            })
        }
        Some(_) => {
            return Err(wrong(
                "/type",
                "\"animation\" (a Sequence is not an Animation)",
            ))
        }
    }
    let timeline = match root.get("timeline") {
        Some(t) => object(t, "/timeline")?,
        None => return Err(missing("", "timeline")),
    };
    let duration_pointer = format!("/timeline/{}", schema.duration());
    let duration_ticks = match timeline.get(schema.duration()) {
        Some(v) => time(v, &duration_pointer, 1)?,
        None => return Err(missing("/timeline", schema.duration())),
    };
    // Found by the `legacy` fuzz target: "30d" (30 days) is 720,000 ticks, and
    // the migration samples every one.
    if duration_ticks > crate::format::MAX_TIMELINE_TICKS {
        return Err(Error::TooLong {
            pointer: duration_pointer,
            ticks: duration_ticks,
            max_ticks: crate::format::MAX_TIMELINE_TICKS,
        });
    }
    let settings = match schema {
        Schema::Three => match root.get("settings") {
            Some(s) => Value::Object(object(s, "/settings")?.clone()),
            None => return Err(missing("", "settings")),
        },
        Schema::One => schema1_settings(root, timeline, notes)?,
    };
    let id = match root.get("id") {
        Some(Value::String(id)) => Some(id.clone()),
        Some(_) => return Err(wrong("/id", "a namespace:path id")),
        None => None,
    };
    let metadata = match root.get("metadata") {
        Some(m) => object(m, "/metadata")?.clone(),
        None => Map::new(),
    };
    let mut nodes = read_nodes(root, schema, notes)?;
    read_keyframes(timeline, schema, duration_ticks, &mut nodes, notes)?;
    let node_ids: Vec<String> = nodes.iter().map(|n| n.id.clone()).collect();
    let events = events(timeline, schema == Schema::One, &node_ids, notes)?;
    Ok(Legacy {
        id,
        metadata,
        settings,
        nodes,
        duration_ticks,
        events,
    })
}

/// Schema 1's settings, gathered from where it keeps them.
fn schema1_settings(
    root: &Map<String, Value>,
    timeline: &Map<String, Value>,
    notes: &mut Vec<Note>,
) -> Result<Value, Error> {
    if let Some(rate) = root.get("tick_rate") {
        if rate.as_f64() != Some(20.0) {
            return Err(Error::TickRate {
                rate: rate.to_string(),
            });
        }
    }
    for field in ["minecraft_version", "transform_space"] {
        if let Some(v) = root.get(field) {
            notes.push(Note::new(
                format!("/{field}"),
                format!("`{v}` dropped: schema 3 and 4 have no such field (matrices are read as root-local)"),
            ));
        }
    }
    let standalone = match root.get("standalone") {
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(wrong("/standalone", "true or false")),
        None => true,
    };
    let player = match root.get("player") {
        Some(p) => Value::Object(object(p, "/player")?.clone()),
        None => json!({}),
    };
    let mode = match timeline.get("loop") {
        None | Some(Value::Bool(false)) => "once".to_owned(),
        Some(Value::Bool(true)) => "loop".to_owned(),
        Some(Value::String(mode)) => mode.clone(),
        Some(_) => return Err(wrong("/timeline/loop", "true, false or a playback mode")),
    };
    let delay = match timeline.get("loop_delay_ticks") {
        Some(v) => time(v, "/timeline/loop_delay_ticks", 0)?,
        None => 0,
    };
    notes.push(Note::new(
        "/settings/cooldown",
        "schema 1 has no cooldown; the migrated emote gets 0t",
    ));
    Ok(json!({
        "standalone": standalone,
        "cooldown": "0t",
        "player": player,
        "playback": {"mode": mode, "loop_delay": format!("{delay}t")},
    }))
}

/// The nodes, in the file's order (`nodes` is a JSON object, read in key
/// order).
fn read_nodes(
    root: &Map<String, Value>,
    schema: Schema,
    notes: &mut Vec<Note>,
) -> Result<Vec<Node>, Error> {
    let nodes = match root.get("nodes") {
        Some(n) => object(n, "/nodes")?,
        None => return Err(missing("", "nodes")),
    };
    let mut out = Vec::with_capacity(nodes.len());
    let mut spaced = false;
    for (id, value) in nodes {
        let pointer = format!("/nodes/{}", escape(id));
        let node = object(value, &pointer)?;
        let default = match node.get("default_matrix") {
            Some(m) => matrix(m, &format!("{pointer}/default_matrix"))?,
            None => return Err(missing(&pointer, "default_matrix")),
        };
        let parent = match node.get("parent") {
            Some(Value::String(p)) => Some(p.clone()),
            Some(_) => return Err(wrong(&format!("{pointer}/parent"), "a node id")),
            None => None,
        };
        let space = match node.get("space") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                return Err(wrong(
                    &format!("{pointer}/space"),
                    "scene, initiator or partner",
                ))
            }
            None if schema == Schema::One || parent.is_some() => {
                spaced |= parent.is_none();
                "initiator".to_owned()
            }
            None => return Err(missing(&pointer, "space")),
        };
        let mut fields: Map<String, Value> = node
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "space" | "parent" | "default_matrix"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(Value::Object(skin)) = fields.get_mut("skin") {
            skin.entry("participant")
                .or_insert_with(|| Value::String("initiator".to_owned()));
        }
        let display = fields.get("type").and_then(Value::as_str) != Some("anchor");
        let visible = fields
            .get("visible")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        out.push(Node {
            id: id.clone(),
            pointer,
            space,
            parent,
            default,
            fields,
            display,
            visible,
            transforms: Vec::new(),
            states: Vec::new(),
        });
    }
    if spaced {
        notes.push(Note::new(
            "/nodes",
            "schema 1 nodes have no space; each root gets `initiator` (the player's own placement)",
        ));
    }
    Ok(out)
}

/// `timeline.keyframes` into each node's transforms and states.
fn read_keyframes(
    timeline: &Map<String, Value>,
    schema: Schema,
    duration_ticks: u32,
    nodes: &mut [Node],
    notes: &mut Vec<Note>,
) -> Result<(), Error> {
    let keyframes = match timeline.get("keyframes") {
        Some(Value::Array(k)) => k.as_slice(),
        Some(_) => return Err(wrong("/timeline/keyframes", "an array of keyframes")),
        None => &[],
    };
    let (mut previous_tick, mut whole_span_noted) = (0, false);
    for (k, value) in keyframes.iter().enumerate() {
        let at = format!("/timeline/keyframes/{k}");
        let keyframe = object(value, &at)?;
        let time_at = format!("{at}/{}", schema.time());
        let tick = match keyframe.get(schema.time()) {
            Some(v) => time(v, &time_at, 0)?,
            None => return Err(missing(&at, schema.time())),
        };
        if tick < previous_tick {
            return Err(Error::Unsorted {
                pointer: time_at,
                tick,
                previous_tick,
            });
        }
        if tick > duration_ticks {
            return Err(Error::PastEnd {
                pointer: time_at,
                tick,
                duration_ticks,
            });
        }
        previous_tick = tick;
        let default_span = match keyframe.get(schema.interpolation()) {
            Some(v) => Some(time(v, &format!("{at}/{}", schema.interpolation()), 0)?),
            None => None,
        };
        if let Some(moves) = keyframe.get("node_transforms") {
            for (id, value) in object(moves, &format!("{at}/node_transforms"))? {
                let pointer = format!("{at}/node_transforms/{}", escape(id));
                let (m, own_span) = match value {
                    Value::Object(o) => {
                        let m = match o.get("matrix") {
                            Some(m) => matrix(m, &format!("{pointer}/matrix"))?,
                            None => return Err(missing(&pointer, "matrix")),
                        };
                        let span = match o.get(schema.interpolation()) {
                            Some(v) => Some(time(
                                v,
                                &format!("{pointer}/{}", schema.interpolation()),
                                0,
                            )?),
                            None => None,
                        };
                        (m, span)
                    }
                    other => (matrix(other, &pointer)?, None),
                };
                let node = node_mut(nodes, id, &pointer)?;
                let from = node.transforms.last().map_or(0, |k| k.tick);
                let gap = tick - from;
                let span = match own_span.or(default_span) {
                    Some(span) if span > gap => {
                        notes.push(Note::new(
                            pointer.clone(),
                            format!("interpolation of {span}t is longer than the {gap}t since `{id}`'s previous transform; cut to {gap}t"),
                        ));
                        gap
                    }
                    Some(span) => span,
                    None => {
                        if !whole_span_noted {
                            whole_span_noted = true;
                            notes.push(Note::new(
                                pointer.clone(),
                                format!("no {}: a transform moves linearly over the whole span since the node's previous transform (schema 4's segment between adjacent keys)", schema.interpolation()),
                            ));
                        }
                        gap
                    }
                };
                let key = Key {
                    tick,
                    start_tick: tick - span,
                    matrix: m,
                };
                match node.transforms.last_mut() {
                    Some(last) if last.tick == tick => {
                        notes.push(Note::new(
                            pointer,
                            format!(
                                "`{id}` is moved twice at {tick}t; the later transform is kept"
                            ),
                        ));
                        last.matrix = m;
                    }
                    _ => node.transforms.push(key),
                }
            }
        }
        if let Some(states) = keyframe.get("node_states") {
            for (id, value) in object(states, &format!("{at}/node_states"))? {
                let pointer = format!("{at}/node_states/{}", escape(id));
                let visible = match value {
                    Value::Bool(b) => *b,
                    Value::Object(o) => match o.get("visible") {
                        Some(Value::Bool(b)) => *b,
                        _ => return Err(wrong(&format!("{pointer}/visible"), "true or false")),
                    },
                    _ => return Err(wrong(&pointer, "{\"visible\": true or false}")),
                };
                let node = node_mut(nodes, id, &pointer)?;
                if !node.display {
                    notes.push(Note::new(
                        pointer,
                        format!(
                            "`{id}` is an anchor, which cannot be hidden; the state is dropped"
                        ),
                    ));
                    continue;
                }
                node.states.retain(|&(t, _)| t != tick);
                node.states.push((tick, visible));
            }
        }
    }
    Ok(())
}

fn node_mut<'a>(nodes: &'a mut [Node], id: &str, pointer: &str) -> Result<&'a mut Node, Error> {
    nodes
        .iter_mut()
        .find(|n| n.id == id)
        .ok_or_else(|| Error::UnknownNode {
            pointer: pointer.to_owned(),
            node: id.to_owned(),
        })
}

/// 16 finite numbers, row-major, with a last row of `0 0 0 1`.
pub(super) fn matrix(value: &Value, pointer: &str) -> Result<Mat4, Error> {
    let rule = |rule: String| Error::Matrix {
        pointer: pointer.to_owned(),
        rule,
    };
    let Value::Array(items) = value else {
        return Err(rule(
            "a matrix is an array of 16 numbers, row-major".to_owned(),
        ));
    };
    if items.len() != 16 {
        return Err(rule(format!(
            "a matrix is 16 numbers, row-major; found {}",
            items.len()
        )));
    }
    let mut rows = [0.0f32; 16];
    for (i, (slot, item)) in rows.iter_mut().zip(items).enumerate() {
        match item.as_f64().map(|v| v as f32) {
            Some(v) if v.is_finite() => *slot = v,
            _ => return Err(rule(format!("entry {i} is not a finite number"))),
        }
    }
    let last_row = [rows[12], rows[13], rows[14], rows[15]];
    let affine = last_row
        .iter()
        .zip([0.0, 0.0, 0.0, 1.0])
        .all(|(a, b)| (a - b).abs() <= 1e-6);
    if !affine {
        return Err(rule(format!(
            "the last row must be 0 0 0 1 (a display transform is affine); found {last_row:?}"
        )));
    }
    // glam is column-major: the rows read as columns, transposed.
    Ok(Mat4::from_cols_array(&rows).transpose())
}
