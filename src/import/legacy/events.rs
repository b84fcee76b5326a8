//! A schema 1 or 3 file's command events as schema 4's: string sources
//! and origins made objects, an event's `offset` moved into its origin,
//! fields schema 3 does not have dropped with a note.

use serde_json::{json, Map, Value};

use super::fields::{escape, object, time, wrong};
use super::LegacyError as Error;
use crate::import::Note;

/// The four event groups with string sources and origins made objects.
pub(super) fn events(
    timeline: &Map<String, Value>,
    schema1: bool,
    node_ids: &[String],
    notes: &mut Vec<Note>,
) -> Result<Map<String, Value>, Error> {
    let mut out = Map::new();
    let Some(groups) = timeline.get("events") else {
        return Ok(out);
    };
    let time_field = if schema1 { "tick" } else { "time" };
    for (group, list) in object(groups, "/timeline/events")? {
        let at = format!("/timeline/events/{}", escape(group));
        let Value::Array(list) = list else {
            return Err(wrong(&at, "an array of events"));
        };
        let mut written = Vec::with_capacity(list.len());
        for (e, event) in list.iter().enumerate() {
            let at = format!("{at}/{e}");
            let event = object(event, &at)?;
            let mut one = Map::new();
            if let Some(t) = event.get(time_field) {
                let tick = time(t, &format!("{at}/{time_field}"), 0)?;
                one.insert("time".to_owned(), Value::String(format!("{tick}t")));
            }
            let source = match event.get("source") {
                Some(Value::String(s)) => match s.as_str() {
                    "player" | "server" => json!({"type": s}),
                    node => {
                        json!({"type": "node", "node": known(node_ids, node, &format!("{at}/source"))?})
                    }
                },
                Some(other) => other.clone(),
                None => json!({"type": "server"}),
            };
            let mut origin = match event.get("origin") {
                Some(Value::String(s)) if s == "root" => json!({"type": "root"}),
                Some(Value::String(s)) => {
                    json!({"type": "node", "node": known(node_ids, s, &format!("{at}/origin"))?})
                }
                Some(other) => other.clone(),
                None => json!({"type": "root"}),
            };
            if let (Some(offset), Some(o)) = (event.get("offset"), origin.as_object_mut()) {
                o.entry("offset").or_insert_with(|| offset.clone());
            }
            one.insert("source".to_owned(), source);
            one.insert("origin".to_owned(), origin);
            one.insert(
                "commands".to_owned(),
                event.get("commands").cloned().unwrap_or_else(|| json!([])),
            );
            for key in event.keys() {
                let known_field = matches!(
                    key.as_str(),
                    "time" | "tick" | "source" | "origin" | "offset" | "commands"
                );
                if !known_field {
                    notes.push(Note::new(
                        format!("{at}/{}", escape(key)),
                        format!("`{key}` is not an event field of schema 3; dropped"),
                    ));
                }
            }
            written.push(Value::Object(one));
        }
        out.insert(group.clone(), Value::Array(written));
    }
    Ok(out)
}

/// `name` when it is one of the nodes.
fn known(node_ids: &[String], name: &str, pointer: &str) -> Result<String, Error> {
    if node_ids.iter().any(|id| id == name) {
        Ok(name.to_owned())
    } else {
        Err(Error::UnknownNode {
            pointer: pointer.to_owned(),
            node: name.to_owned(),
        })
    }
}
