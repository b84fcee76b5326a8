//! The schema 4 file: root fields, settings, nodes with their transforms,
//! the timeline (tracks from [`super::motion`]) and the events, read back
//! through the schema 4 reader.

use serde_json::{json, Map, Value};

use super::motion::{node_motion, transform_json};
use super::read::{Legacy, Node};
use super::LegacyError as Error;
use crate::format::{parse_emote_value, EmoteFile};
use crate::import::humanoid::Imported;
use crate::import::Note;

/// The migrated file, validated.
pub(super) fn schema4(
    legacy: &Legacy,
    fallback_id: &str,
    mut notes: Vec<Note>,
) -> Result<Imported, Error> {
    let id = match &legacy.id {
        Some(id) => id.clone(),
        None => {
            notes.push(Note::new(
                "/id",
                format!("the file has no id; the emote is `{fallback_id}`"),
            ));
            fallback_id.to_owned()
        }
    };
    let mut metadata = legacy.metadata.clone();
    let named = metadata
        .get("name")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.trim().is_empty());
    if !named {
        let name = id.rsplit([':', '/']).next().unwrap_or(&id).to_owned();
        notes.push(Note::new(
            "/metadata/name",
            format!("no name; the emote is named `{name}` after its id"),
        ));
        metadata.insert("name".to_owned(), Value::String(name));
    }
    let motion = node_motion(legacy, &mut notes)?;
    let mut nodes = Map::new();
    for node in &legacy.nodes {
        let mut out = node.fields.clone();
        match &node.parent {
            Some(parent) => out.insert("parent".to_owned(), Value::String(parent.clone())),
            None => out.insert("space".to_owned(), Value::String(node.space.clone())),
        };
        if let Some(rest) = motion.transforms.get(&node.id) {
            out.insert("transform".to_owned(), transform_json(rest));
        }
        nodes.insert(node.id.clone(), Value::Object(out));
    }
    let mut tracks = motion.tracks;
    for node in &legacy.nodes {
        if let Some(visible) = visible_track(node) {
            let channels = tracks
                .entry(node.id.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(channels) = channels.as_object_mut() {
                channels.insert("visible".to_owned(), visible);
            }
        }
    }
    let json = json!({
        "type": "animation",
        "schema_version": 4,
        "id": id,
        "metadata": metadata,
        "settings": legacy.settings,
        "nodes": nodes,
        "timeline": {
            "duration": format!("{}t", legacy.duration_ticks),
            "tracks": tracks,
            "events": legacy.events,
        },
    });
    let report = parse_emote_value(&json);
    match report.file {
        Some(EmoteFile::Animation(file)) => Ok(Imported { json, file, notes }),
        _ => {
            let first = report.problems.into_iter().find(|p| p.is_error());
            Err(match first {
                Some(p) => Error::Refused {
                    pointer: p.pointer,
                    message: p.message,
                },
                None => Error::Refused {
                    pointer: String::new(),
                    message: "the reader gave no Animation".to_owned(),
                },
            })
        }
    }
}

/// A stepped `visible` track from the node's initial visibility and its
/// states; `None` when it never changes.
fn visible_track(node: &Node) -> Option<Value> {
    let mut keys: Vec<(u32, bool)> = vec![(0, node.visible)];
    for &(tick, visible) in &node.states {
        if tick == 0 {
            keys.retain(|&(t, _)| t != 0);
            keys.insert(0, (0, visible));
        } else if keys.last().map(|&(_, v)| v) != Some(visible) {
            keys.push((tick, visible));
        }
    }
    let changes = keys.len() > 1 || keys.first().map(|&(_, v)| v) != Some(node.visible);
    changes.then(|| {
        Value::Array(
            keys.iter()
                .map(|(tick, v)| json!({"time": format!("{tick}t"), "value": v}))
                .collect(),
        )
    })
}
