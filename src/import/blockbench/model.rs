//! A `.bbmodel`'s outliner into a [`Rig`]: groups become bones, cubes
//! child cube nodes (with their faces, [`super::faces`]), locators and
//! null objects anchors.
//!
//! Both outliner layouts are read: in 5.0 a group's data lives in the
//! top-level `groups[]` and the outliner only names it by `uuid`; before
//! 5.0 the outliner object carries the data itself. An outliner entry
//! that is a string is an element's uuid. Elements the outliner never
//! names hang from the model root, as Blockbench shows them.
//!
//! Units and axes are Blockbench's own (px, display space), so nothing is
//! mirrored; a `java_block` model (the default when `meta.model_format`
//! is absent) is shifted by −8 px on X and Z as Blockbench draws it.

use std::collections::BTreeMap;

use glam::Vec3;
use serde_json::{Map, Value};

use super::faces::Skinning;
use super::{shape, BlockbenchError, Version};
use crate::import::bedrock::rig::{parents_first, Rig, RigBody, RigNode};
use crate::import::scene::SceneTexture;
use crate::import::Note;

/// The deepest outliner nesting read.
const MAX_DEPTH: usize = 64;

/// The rig and how animators find its nodes.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// The nodes, parents first.
    pub rig: Rig,
    /// Node index by group or element uuid.
    pub by_uuid: BTreeMap<String, usize>,
    /// The embedded textures the cubes' faces name ([`super::faces`]).
    pub textures: Vec<SceneTexture>,
}

impl Model {
    /// The node a bone animator names: by uuid, else by the key or the
    /// animator's name, ignoring case (groups first, then elements).
    pub fn find(&self, key: &str, name: Option<&str>) -> Option<usize> {
        if let Some(&i) = self.by_uuid.get(key) {
            return Some(i);
        }
        let wanted: Vec<&str> = [Some(key), name].into_iter().flatten().collect();
        let matches = |bone: bool| {
            self.rig.nodes.iter().position(|n| {
                (n.body == RigBody::Bone) == bone
                    && wanted.iter().any(|w| n.name.eq_ignore_ascii_case(w))
            })
        };
        matches(true).or_else(|| matches(false))
    }
}

/// Reads the outliner of `root`.
pub fn read_model(
    root: &Map<String, Value>,
    version: Version,
    notes: &mut Vec<Note>,
) -> Result<Model, BlockbenchError> {
    let elements: Vec<&Value> = root
        .get("elements")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let groups: BTreeMap<&str, (usize, &Value)> = root
        .get("groups")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .enumerate()
                .filter_map(|(i, g)| g.get("uuid").and_then(Value::as_str).map(|u| (u, (i, g))))
                .collect()
        })
        .unwrap_or_default();
    let skinning = Skinning::read(root, notes);
    let mut reader = Reader {
        elements: &elements,
        groups: &groups,
        version,
        nodes: Vec::new(),
        by_uuid: BTreeMap::new(),
        placed: vec![false; elements.len()],
        skinning: &skinning,
        notes,
    };
    if let Some(outliner) = root.get("outliner") {
        let Some(list) = outliner.as_array() else {
            return Err(shape(
                "/outliner",
                "the outliner is an array of groups and element uuids",
            ));
        };
        for (i, entry) in list.iter().enumerate() {
            reader.entry(entry, &format!("/outliner/{i}"), None, 0)?;
        }
    }
    for i in 0..elements.len() {
        if !reader.placed.get(i).copied().unwrap_or(true) {
            reader.element(i, None);
        }
    }
    let Reader { nodes, by_uuid, .. } = reader;
    let names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let uuids: Vec<(String, usize)> = by_uuid.into_iter().collect();
    let sources: Vec<String> = nodes.iter().map(|n| n.source.clone()).collect();
    let nodes = parents_first(nodes).map_err(|i| BlockbenchError::Shape {
        pointer: "/outliner".to_owned(),
        rule: format!(
            "`{}` is its own ancestor; the outliner must be a tree",
            names.get(i).cloned().unwrap_or_default()
        ),
    })?;
    // Re-point the uuids at the reordered nodes (sources are unique).
    let by_uuid = uuids
        .into_iter()
        .filter_map(|(uuid, old)| {
            let source = sources.get(old)?;
            nodes
                .iter()
                .position(|n| &n.source == source)
                .map(|new| (uuid, new))
        })
        .collect();
    let java_block = root
        .get("meta")
        .and_then(|m| m.get("model_format"))
        .and_then(Value::as_str)
        .is_none_or(|f| f == "java_block");
    Ok(Model {
        rig: Rig {
            nodes,
            root_offset_px: if java_block {
                Vec3::new(-8.0, 0.0, -8.0)
            } else {
                Vec3::ZERO
            },
        },
        by_uuid,
        textures: skinning.textures,
    })
}

struct Reader<'a, 'n> {
    elements: &'a [&'a Value],
    groups: &'a BTreeMap<&'a str, (usize, &'a Value)>,
    version: Version,
    nodes: Vec<RigNode>,
    by_uuid: BTreeMap<String, usize>,
    placed: Vec<bool>,
    skinning: &'a Skinning,
    notes: &'n mut Vec<Note>,
}

impl Reader<'_, '_> {
    fn entry(
        &mut self,
        entry: &Value,
        at: &str,
        parent: Option<usize>,
        depth: usize,
    ) -> Result<(), BlockbenchError> {
        if depth > MAX_DEPTH {
            return Err(shape(at, "the outliner nests more than 64 groups deep"));
        }
        let object = match entry {
            Value::String(uuid) => {
                match self
                    .elements
                    .iter()
                    .position(|e| e.get("uuid").and_then(Value::as_str) == Some(uuid))
                {
                    Some(i) => self.element(i, parent),
                    None => self.notes.push(Note::new(
                        at,
                        format!("no element has uuid `{uuid}`; skipped"),
                    )),
                }
                return Ok(());
            }
            Value::Object(object) => object,
            _ => {
                return Err(shape(
                    at,
                    "an outliner entry is a group object or an element uuid",
                ))
            }
        };
        let uuid = object.get("uuid").and_then(Value::as_str).unwrap_or("");
        // 5.0: the data is in `groups[]`; before, inline.
        let (source, data) = match self.groups.get(uuid) {
            Some((i, group)) => (format!("/groups/{i}"), *group),
            None => (at.to_owned(), entry),
        };
        let name = data.get("name").and_then(Value::as_str).unwrap_or("group");
        let mut rotation = vec3(data.get("rotation"), &format!("{source}/rotation"))?;
        let pivot = vec3(data.get("origin"), &format!("{source}/origin"))?;
        if self.version < Version(3, 2) {
            rotation.z = -rotation.z;
        }
        let index = self.nodes.len();
        self.nodes.push(RigNode {
            name: name.to_owned(),
            source,
            parent,
            pivot_px: pivot,
            rotation_deg: rotation,
            body: RigBody::Bone,
        });
        if !uuid.is_empty() {
            self.by_uuid.insert(uuid.to_owned(), index);
        }
        let children = match object.get("children") {
            None => return Ok(()),
            Some(Value::Array(children)) => children,
            Some(_) => return Err(shape(&format!("{at}/children"), "`children` is an array")),
        };
        for (c, child) in children.iter().enumerate() {
            self.entry(child, &format!("{at}/children/{c}"), Some(index), depth + 1)?;
        }
        Ok(())
    }

    /// Element `i` as a node under `parent` (or a note when it draws
    /// nothing emoted can show).
    fn element(&mut self, i: usize, parent: Option<usize>) {
        if let Some(slot) = self.placed.get_mut(i) {
            *slot = true;
        }
        let Some(element) = self.elements.get(i) else {
            return;
        };
        let at = format!("/elements/{i}");
        let kind = element
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("cube");
        let name = element.get("name").and_then(Value::as_str).unwrap_or(kind);
        let read = |field: &str| vec3(element.get(field), "").unwrap_or(Vec3::ZERO);
        let (pivot, rotation, body) = match kind {
            "cube" => {
                let inflate = element
                    .get("inflate")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0) as f32;
                let (from, to) = (read("from"), read("to"));
                let body = RigBody::Cube {
                    from_px: from.min(to) - Vec3::splat(inflate),
                    to_px: from.max(to) + Vec3::splat(inflate),
                    faces: self.skinning.cube_faces(element, &at, self.notes),
                };
                (read("origin"), read("rotation"), body)
            }
            "locator" | "null_object" => (read("position"), read("rotation"), RigBody::Bone),
            other => {
                self.notes.push(Note::new(
                    at,
                    format!("`{name}` is a {other}, which an emote cannot draw yet; dropped"),
                ));
                return;
            }
        };
        if let Some(uuid) = element.get("uuid").and_then(Value::as_str) {
            self.by_uuid.insert(uuid.to_owned(), self.nodes.len());
        }
        self.nodes.push(RigNode {
            name: name.to_owned(),
            source: at,
            parent,
            pivot_px: pivot,
            rotation_deg: rotation,
            body,
        });
    }
}

/// A `[x, y, z]` of numbers (zero when absent).
fn vec3(value: Option<&Value>, pointer: &str) -> Result<Vec3, BlockbenchError> {
    let Some(value) = value else {
        return Ok(Vec3::ZERO);
    };
    crate::import::bedrock::geometry::finite_vec3(value)
        .ok_or_else(|| shape(pointer, "expected three finite numbers `[x, y, z]`"))
}
