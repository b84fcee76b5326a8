//! [`scene_animation`]: a [`SceneClip`] as schema 4 JSON, thinned and read
//! back (the module guide, [`super`], gives the rules).

use std::collections::BTreeSet;

use glam::{Affine3A, Vec3};
use serde_json::{json, Map, Value};

use super::textured::{TexturedCubes, MIN_CUBE_EXTENT_BLOCKS};
use super::{
    node_id, CubeBox, NodeBody, SceneClip, SceneEvent, SceneNode, Trs, CUBE_BLOCK, ROOT_NODE_ID,
};
use crate::anim::{euler_degrees_from_quat, quat_from_euler_degrees};
use crate::format::event::KNOWN_COMMANDS;
use crate::format::settings::PlaybackMode;
use crate::import::humanoid::Imported;
use crate::import::keys::{node_tracks, round, Sample, Tolerances};
use crate::import::{check_duration, read_back, wave_stop_conditions, ImportError, Note};

/// `clip` as a schema 4 Animation whose nodes keep the source's names.
pub fn scene_animation(clip: &SceneClip) -> Result<Imported, ImportError> {
    check(clip)?;
    let ticks = clip.duration_ticks as usize + 1;
    let mut notes = Vec::new();

    // Ids first, so parents can be named.
    let mut taken = BTreeSet::from([ROOT_NODE_ID.to_owned()]);
    let ids: Vec<String> = clip
        .nodes
        .iter()
        .map(|node| {
            let id = node_id(&node.name, &mut taken);
            if id != node.name {
                notes.push(Note::new(
                    node.source.clone(),
                    format!(
                        "`{}` is node `{id}` (node ids are lower case a-z, 0-9 and _, and unique)",
                        node.name
                    ),
                ));
            }
            id
        })
        .collect();

    // Every node's wanted world in the root's frame, at every tick.
    let mut wanted: Vec<Vec<Affine3A>> = Vec::with_capacity(clip.nodes.len());
    for node in &clip.nodes {
        let worlds = (0..ticks)
            .map(|t| {
                let parent = node
                    .parent
                    .and_then(|p| wanted.get(p))
                    .and_then(|w| w.get(t).copied())
                    .unwrap_or(clip.to_player);
                parent * frame(node, t).affine()
            })
            .collect();
        wanted.push(worlds);
    }

    // Parents first: each node's local takes its parent's world as played
    // to its own wanted world.
    let mut nodes = Map::new();
    nodes.insert(
        ROOT_NODE_ID.to_owned(),
        json!({"type": "anchor", "space": "initiator", "transform": transform_json(&written(Sample::of(&clip.to_player)))}),
    );
    let mut tracks = Map::new();
    let mut played: Vec<Vec<Affine3A>> = Vec::with_capacity(clip.nodes.len());
    let mut cubes = TexturedCubes::new(clip);
    for (i, node) in clip.nodes.iter().enumerate() {
        let parent_played = node.parent.and_then(|p| played.get(p));
        let parent_at = |t: usize| {
            parent_played
                .and_then(|w| w.get(t).copied())
                .unwrap_or(clip.to_player)
        };
        let samples: Vec<Sample> = (0..ticks)
            .map(|t| {
                let target = wanted
                    .get(i)
                    .and_then(|w| w.get(t))
                    .copied()
                    .unwrap_or_default();
                Sample::of(&(parent_at(t).inverse() * target))
            })
            .collect();
        let largest_parent_scale = (0..ticks)
            .map(|t| largest_scale(&parent_at(t)))
            .fold(1e-6f32, f32::max);
        let tolerances = Tolerances {
            position: Tolerances::DEFAULT.position / largest_parent_scale,
            ..Tolerances::DEFAULT
        };
        let id = &ids[i];
        let rest = written(
            samples
                .first()
                .copied()
                .unwrap_or(Sample::of(&Affine3A::IDENTITY)),
        );
        let (channels, locals) = node_tracks(id, &samples, rest, tolerances, &mut notes);
        if !channels.is_empty() {
            tracks.insert(id.clone(), Value::Object(channels));
        }
        played.push(
            locals
                .iter()
                .enumerate()
                .map(|(t, local)| parent_at(t) * local.affine())
                .collect(),
        );
        let parent_id = node
            .parent
            .and_then(|p| ids.get(p))
            .map_or(ROOT_NODE_ID, String::as_str);
        write_node(
            node,
            id,
            parent_id,
            &rest,
            &mut taken,
            &mut nodes,
            &mut tracks,
            &mut notes,
            &mut cubes,
        );
    }

    let events = timeline_events(&clip.events, clip.duration_ticks, &mut notes);
    let resources = cubes.into_resources();
    let mut json = json!({
        "type": "animation",
        "schema_version": 4,
        "id": clip.id,
        "metadata": Value::Object(clip.metadata.clone()),
        "settings": settings(clip.mode, clip.loop_delay_ticks),
        "nodes": Value::Object(nodes),
        "timeline": {
            "duration": format!("{}t", clip.duration_ticks),
            "tracks": Value::Object(tracks),
            "events": {"timeline": events},
        },
    });
    if !resources.is_empty() {
        json["metadata"]["emoted"]["resources"] = resources.to_json();
    }
    let file = read_back(&json)?;
    Ok(Imported { json, file, notes })
}

/// [`scene_animation`] with the source's own notes (`source_notes`, its
/// lossy steps) put before the builder's, as every importer reports them.
pub fn scene_animation_noted(
    clip: &SceneClip,
    mut source_notes: Vec<Note>,
) -> Result<Imported, ImportError> {
    let mut imported = scene_animation(clip)?;
    source_notes.append(&mut imported.notes);
    imported.notes = source_notes;
    Ok(imported)
}

/// The rules a clip must keep for the builder to work on it.
fn check(clip: &SceneClip) -> Result<(), ImportError> {
    check_duration(clip.duration_ticks)?;
    let ticks = clip.duration_ticks as usize + 1;
    for (i, node) in clip.nodes.iter().enumerate() {
        // Frames cover every tick; visibility too, or is left empty.
        let given = if node.frames.len() != ticks {
            Some(node.frames.len())
        } else if !node.visible.is_empty() && node.visible.len() != ticks {
            Some(node.visible.len())
        } else {
            None
        };
        if let Some(given) = given {
            return Err(ImportError::NodeFrames {
                source_place: node.source.clone(),
                name: node.name.clone(),
                duration_ticks: clip.duration_ticks,
                given,
            });
        }
        if let Some(parent) = node.parent.filter(|&p| p >= i) {
            return Err(ImportError::Parent {
                source_place: node.source.clone(),
                name: node.name.clone(),
                parent,
            });
        }
        let finite = node
            .frames
            .iter()
            .all(|f| f.translation.is_finite() && f.rotation.is_finite() && f.scale.is_finite());
        if !finite {
            return Err(ImportError::NotFinite {
                pointer: node.source.clone(),
            });
        }
    }
    Ok(())
}

/// Node `node`'s frame at tick `t` (checked to exist).
fn frame(node: &SceneNode, t: usize) -> Trs {
    node.frames.get(t).copied().unwrap_or_default()
}

/// The largest factor `affine` stretches any direction by (at most; the
/// longest column times √3 would bound shear too, columns suffice for
/// the rotations and scales importers give).
fn largest_scale(affine: &Affine3A) -> f32 {
    let m = affine.matrix3;
    m.x_axis
        .length()
        .max(m.y_axis.length())
        .max(m.z_axis.length())
}

/// `sample` as the runtime reads it back once written: positions and
/// scales rounded to 10⁻⁶, the rotation through its rounded Euler degrees.
fn written(sample: Sample) -> Sample {
    let v = |a: [f64; 3]| Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32);
    Sample {
        position: v(round(sample.position, 1e6)),
        rotation: quat_from_euler_degrees(v(round(euler_degrees_from_quat(sample.rotation), 1e4))),
        scale: v(round(sample.scale, 1e6)),
    }
}

/// A `transform` object for `sample`.
fn transform_json(sample: &Sample) -> Value {
    json!({
        "position": round(sample.position, 1e6),
        "rotation": round(euler_degrees_from_quat(sample.rotation), 1e4),
        "scale": round(sample.scale, 1e6),
    })
}

/// Writes `node` (and a cube's display child) into `nodes`, and its
/// visibility into `tracks` where it can show it.
#[allow(clippy::too_many_arguments)]
fn write_node(
    node: &SceneNode,
    id: &str,
    parent_id: &str,
    rest: &Sample,
    taken: &mut BTreeSet<String>,
    nodes: &mut Map<String, Value>,
    tracks: &mut Map<String, Value>,
    notes: &mut Vec<Note>,
    cubes: &mut TexturedCubes<'_>,
) {
    let mut object = match &node.body {
        NodeBody::Display(fields) => fields.clone(),
        NodeBody::Anchor | NodeBody::Cube(_) => {
            let mut anchor = Map::new();
            anchor.insert("type".to_owned(), json!("anchor"));
            anchor
        }
    };
    object.insert("parent".to_owned(), json!(parent_id));
    object.insert("transform".to_owned(), transform_json(rest));
    let shown_by = match &node.body {
        NodeBody::Display(_) => Some(id.to_owned()),
        NodeBody::Cube(cube) => {
            let cube_id = node_id(&format!("{id}_cube"), taken);
            match cubes.display(cube, &cube_id, id) {
                Some(display) => {
                    nodes.insert(cube_id.clone(), display);
                }
                None => {
                    nodes.insert(cube_id.clone(), cube_json(cube, id));
                    notes.push(Note::new(
                        node.source.clone(),
                        format!(
                            "the cube is drawn as `{cube_id}`, an untextured {CUBE_BLOCK} block display over its box (no embedded texture for its faces)"
                        ),
                    ));
                }
            }
            Some(cube_id)
        }
        NodeBody::Anchor => None,
    };
    nodes.insert(id.to_owned(), Value::Object(object));
    let Some(first) = node.visible.first().copied() else {
        return;
    };
    let Some(display) = shown_by else {
        if node.visible.iter().any(|&v| !v) {
            notes.push(Note::new(
                node.source.clone(),
                format!("`{id}` draws nothing (an anchor), so its visibility is dropped"),
            ));
        }
        return;
    };
    if let Some(object) = nodes.get_mut(&display).and_then(Value::as_object_mut) {
        object.insert("visible".to_owned(), json!(first));
    }
    let mut keys = vec![json!({"time": "0t", "value": first})];
    let mut last = first;
    for (tick, &shown) in node.visible.iter().enumerate().skip(1) {
        if shown != last {
            keys.push(json!({"time": format!("{tick}t"), "value": shown}));
            last = shown;
        }
    }
    if keys.len() > 1 {
        let entry = tracks
            .entry(display)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(channels) = entry.as_object_mut() {
            channels.insert("visible".to_owned(), Value::Array(keys));
        }
    }
}

/// The block display that draws `cube`, a child of `parent_id`.
fn cube_json(cube: &CubeBox, parent_id: &str) -> Value {
    let scale = cube.size_blocks.max(Vec3::splat(MIN_CUBE_EXTENT_BLOCKS));
    json!({
        "type": "block_display",
        "parent": parent_id,
        "block_state_snbt": format!("{{Name:\"{CUBE_BLOCK}\"}}"),
        "transform": {
            "position": round(cube.min_blocks, 1e6),
            "rotation": [0, 0, 0],
            "scale": round(scale, 1e6),
        },
    })
}

/// The `timeline` events: server-run at the root, in tick order; an event
/// at or after the end, or a command emoted's dispatcher does not run, is
/// dropped with a note.
fn timeline_events(events: &[SceneEvent], duration_ticks: u32, notes: &mut Vec<Note>) -> Value {
    let mut sorted: Vec<&SceneEvent> = events.iter().collect();
    sorted.sort_by_key(|e| e.tick);
    let mut out = Vec::new();
    for event in sorted {
        if event.tick >= duration_ticks {
            notes.push(Note::new(
                event.source.clone(),
                format!(
                    "the event at tick {} is dropped: schema 4 events come before the end (tick {duration_ticks})",
                    event.tick
                ),
            ));
            continue;
        }
        let mut commands = Vec::new();
        for command in &event.commands {
            let command = command.trim().trim_start_matches('/');
            let name = command.split_whitespace().next().unwrap_or("");
            if KNOWN_COMMANDS.contains(&name) {
                commands.push(command.to_owned());
            } else {
                notes.push(Note::new(
                    event.source.clone(),
                    format!("`{command}` is dropped: emoted's dispatcher has no `{name}` command"),
                ));
            }
        }
        if !commands.is_empty() {
            out.push(json!({
                "time": format!("{}t", event.tick),
                "source": {"type": "server"},
                "origin": {"type": "root"},
                "commands": commands,
            }));
        }
    }
    Value::Array(out)
}

/// Standalone, the player shown (the source is a prop or a model beside
/// them, not their body), a two-second cooldown, a 50° deadzone, wave's
/// stop conditions, the given mode.
fn settings(mode: PlaybackMode, loop_delay_ticks: u32) -> Value {
    let delay = match mode {
        PlaybackMode::Loop | PlaybackMode::ServerSync => loop_delay_ticks,
        PlaybackMode::Once | PlaybackMode::Hold => 0,
    };
    let mut player = Map::new();
    player.insert("hidden".to_owned(), json!(false));
    if let Some(stop) = wave_stop_conditions() {
        player.insert("stop_conditions".to_owned(), stop);
    }
    json!({
        "standalone": true,
        "cooldown": "2s",
        "rotation_deadzone": 50,
        "player": Value::Object(player),
        "playback": {"mode": mode.name(), "loop_delay": format!("{delay}t")},
    })
}
