//! Each node's matrices over time as schema 4 transforms and tracks: keys
//! written directly where matrix lerp is exactly TRS lerp, every tick
//! resampled and thinned elsewhere (the choice is in the module guide of
//! [`super`]).

use std::collections::BTreeMap;

use glam::{Affine3A, Mat4};
use serde_json::{json, Map, Value};

use super::read::{Key, Legacy, Node};
use super::LegacyError as Error;
use crate::anim::euler_degrees_from_quat;
use crate::import::keys::{node_tracks, round, Sample, Tolerances};
use crate::import::Note;

/// A matrix whose `T · R · S` rebuild is further than this from it (in any
/// entry) has shear, and cannot be written exactly.
const EXACT_ENTRY: f32 = 1e-5;
/// Two rotations closer than this (radians) are the same turn.
const SAME_TURN_RADIANS: f32 = 1e-5;

/// What the nodes' motion becomes.
#[derive(Debug, Default)]
pub(super) struct Motion {
    /// Each node's `transform`.
    pub transforms: BTreeMap<String, Sample>,
    /// Each moving node's channels (`position`, `rotation`, `scale`).
    pub tracks: Map<String, Value>,
}

/// The transforms and tracks of every node, parents first.
pub(super) fn node_motion(legacy: &Legacy, notes: &mut Vec<Note>) -> Result<Motion, Error> {
    let order = parents_first(&legacy.nodes, notes)?;
    let ticks = legacy.duration_ticks as usize + 1;
    let mut played: Vec<Vec<Affine3A>> = vec![Vec::new(); legacy.nodes.len()];
    let mut motion = Motion::default();
    for (index, parent) in order {
        let Some(node) = legacy.nodes.get(index) else {
            continue;
        };
        let world: Vec<Affine3A> = (0..ticks)
            .map(|t| Affine3A::from_mat4(world_at(node, t as u32)))
            .collect();
        let default_world = Affine3A::from_mat4(node.default);
        let sheared = matrices(node).any(|m| !is_trs(&Affine3A::from_mat4(m)));
        if sheared {
            notes.push(Note::new(
                format!("{}/default_matrix", node.pointer),
                "a matrix of this node is not translation · rotation · scale (it shears); each tick is taken apart into the nearest of those",
            ));
        }
        let parent_node = parent.and_then(|p| legacy.nodes.get(p));
        if parent_node.is_none() && !sheared && turns_only_in_jumps(node) {
            let (rest, channels) = exact_tracks(node);
            motion.transforms.insert(node.id.clone(), rest);
            if !channels.is_empty() {
                notes.push(Note::new(
                    format!("/timeline/tracks/{}", node.id),
                    "keys written directly at the keyframes' times (with a hold key where a move starts later and step before a jump): no move turns the node, so matrix lerp is exactly schema 4's",
                ));
                motion
                    .tracks
                    .insert(node.id.clone(), Value::Object(channels));
            }
            if let Some(slot) = played.get_mut(index) {
                *slot = world;
            }
            continue;
        }
        let (parent_played, parent_rest) = match (parent, parent_node) {
            (Some(p), Some(pn)) => (
                played.get(p).cloned().unwrap_or_default(),
                Affine3A::from_mat4(pn.default),
            ),
            _ => (vec![Affine3A::IDENTITY; ticks], Affine3A::IDENTITY),
        };
        let mut samples = Vec::with_capacity(ticks);
        for (t, (w, p)) in world.iter().zip(&parent_played).enumerate() {
            if p.matrix3.determinant().abs() < 1e-12 {
                return Err(Error::Parent {
                    pointer: format!("{}/parent", node.pointer),
                    rule: format!("the parent is scaled to nothing at {t}t, so this node's place in its frame is undefined; give the parent a nonzero scale"),
                });
            }
            samples.push(Sample::of(&(p.inverse() * *w)));
        }
        let rest = Sample::of(&(parent_rest.inverse() * default_world));
        let parent_scale = parent_played
            .iter()
            .map(|p| Sample::of(p).scale.abs().max_element())
            .fold(1.0f32, f32::max);
        let tolerances = Tolerances {
            position: Tolerances::DEFAULT.position / parent_scale,
            ..Tolerances::DEFAULT
        };
        let why = if parent_node.is_some() {
            "its matrices are root-local, so its transform in its parent's frame"
        } else if sheared {
            "a sheared matrix"
        } else {
            "a move that turns the node (matrix lerp shrinks through a turn where schema 4 slerps)"
        };
        let (channels, played_local) = node_tracks(&node.id, &samples, rest, tolerances, notes);
        if !channels.is_empty() {
            notes.push(Note::new(
                format!("/timeline/tracks/{}", node.id),
                format!("{why} cannot be written as keys exactly; sampled at every tick and thinned against the source's linear matrix interpolation"),
            ));
            motion
                .tracks
                .insert(node.id.clone(), Value::Object(channels));
        }
        motion.transforms.insert(node.id.clone(), rest);
        if let Some(slot) = played.get_mut(index) {
            *slot = parent_played
                .iter()
                .zip(&played_local)
                .map(|(p, l)| *p * l.affine())
                .collect();
        }
    }
    Ok(motion)
}

/// The node's root-local matrix at `tick`: its previous matrix until a
/// key's start, then the component-wise lerp to the key's matrix.
pub(super) fn world_at(node: &Node, tick: u32) -> Mat4 {
    let mut before = node.default;
    for key in &node.transforms {
        if tick >= key.tick {
            before = key.matrix;
            continue;
        }
        if tick > key.start_tick {
            let f = (tick - key.start_tick) as f32 / (key.tick - key.start_tick) as f32;
            return before * (1.0 - f) + key.matrix * f;
        }
        return before;
    }
    before
}

/// `{"position", "rotation", "scale"}` of a sample, rounded as tracks are.
pub(super) fn transform_json(sample: &Sample) -> Value {
    let [position, rotation, scale] = channel_values(sample);
    json!({"position": position, "rotation": rotation, "scale": scale})
}

/// Position (blocks), rotation (XYZ Euler degrees) and scale, rounded.
fn channel_values(sample: &Sample) -> [[f64; 3]; 3] {
    [
        round(sample.position, 1e6),
        round(euler_degrees_from_quat(sample.rotation), 1e4),
        round(sample.scale, 1e6),
    ]
}

fn matrices(node: &Node) -> impl Iterator<Item = Mat4> + '_ {
    std::iter::once(node.default).chain(node.transforms.iter().map(|k| k.matrix))
}

fn is_trs(affine: &Affine3A) -> bool {
    let rebuilt = Sample::of(affine).affine();
    rebuilt.abs_diff_eq(*affine, EXACT_ENTRY)
}

/// Whether every span that moves keeps one rotation (then matrix lerp is
/// translation and scale lerp under a fixed turn: exactly TRS lerp).
fn turns_only_in_jumps(node: &Node) -> bool {
    let mut before = node.default;
    for key in &node.transforms {
        if key.start_tick < key.tick {
            let a = Sample::of(&Affine3A::from_mat4(before)).rotation;
            let b = Sample::of(&Affine3A::from_mat4(key.matrix)).rotation;
            if a.angle_between(b) > SAME_TURN_RADIANS {
                return false;
            }
        }
        before = key.matrix;
    }
    true
}

/// The node's transform and its keys written at the keyframes' times.
fn exact_tracks(node: &Node) -> (Sample, Map<String, Value>) {
    let sample = |m: Mat4| Sample::of(&Affine3A::from_mat4(m));
    let rest = sample(node.default);
    let mut first = rest;
    let mut keys: Vec<(u32, Sample, bool)> = Vec::new();
    let mut moves: &[Key] = &node.transforms;
    if let Some((k, rest_keys)) = node.transforms.split_first() {
        if k.tick == 0 {
            first = sample(k.matrix);
            moves = rest_keys;
        }
    }
    keys.push((0, first, false));
    let (mut before, mut before_tick) = (first, 0);
    for key in moves {
        let now = sample(key.matrix);
        if key.start_tick == key.tick {
            if let Some(last) = keys.last_mut() {
                last.2 = true;
            }
        } else if key.start_tick > before_tick {
            keys.push((key.start_tick, before, false));
        }
        keys.push((key.tick, now, false));
        (before, before_tick) = (now, key.tick);
    }
    let rest_values = channel_values(&rest);
    let mut channels = Map::new();
    for (c, name) in ["position", "rotation", "scale"].into_iter().enumerate() {
        let values: Vec<(u32, [f64; 3], bool)> = keys
            .iter()
            .filter_map(|(t, s, step)| channel_values(s).get(c).map(|v| (*t, *v, *step)))
            .collect();
        if values.iter().all(|(_, v, _)| Some(v) == rest_values.get(c)) {
            continue;
        }
        let track: Vec<Value> = values
            .iter()
            .map(|(t, v, step)| {
                let mut key = json!({"time": format!("{t}t"), "value": v});
                if *step {
                    key["interpolation"] = json!("step");
                }
                key
            })
            .collect();
        channels.insert(name.to_owned(), Value::Array(track));
    }
    (rest, channels)
}

/// Node indices with their parent's index, parents before children.
fn parents_first(
    nodes: &[Node],
    notes: &mut Vec<Note>,
) -> Result<Vec<(usize, Option<usize>)>, Error> {
    let index_of = |id: &str| nodes.iter().position(|n| n.id == id);
    let mut parent_of = Vec::with_capacity(nodes.len());
    for node in nodes {
        let parent = match &node.parent {
            None => None,
            Some(p) => Some(index_of(p).ok_or_else(|| Error::Parent {
                pointer: format!("{}/parent", node.pointer),
                rule: format!("parent `{p}` is not in `nodes`; name one of the file's nodes"),
            })?),
        };
        parent_of.push(parent);
    }
    let mut depth_of = Vec::with_capacity(nodes.len());
    for (i, node) in nodes.iter().enumerate() {
        let (mut depth, mut at) = (0usize, i);
        while let Some(Some(p)) = parent_of.get(at) {
            depth += 1;
            at = *p;
            if depth > nodes.len() {
                return Err(Error::Parent {
                    pointer: format!("{}/parent", node.pointer),
                    rule: "parents go round in a ring; a node cannot be its own ancestor"
                        .to_owned(),
                });
            }
        }
        if let (Some(root), true) = (nodes.get(at), depth > 0) {
            if root.space != node.space {
                notes.push(Note::new(
                    format!("{}/space", node.pointer),
                    format!(
                        "the node hangs from `{}` and so plays in its root's space `{}`, not `{}`",
                        root.id, root.space, node.space
                    ),
                ));
            }
        }
        depth_of.push(depth);
    }
    let mut order: Vec<(usize, Option<usize>)> = parent_of.into_iter().enumerate().collect();
    order.sort_by_key(|(i, _)| depth_of.get(*i).copied().unwrap_or(0));
    Ok(order)
}
