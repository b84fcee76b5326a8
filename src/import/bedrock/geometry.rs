//! Bedrock geometry (`.geo.json`): the 1.12.0 form
//! (`minecraft:geometry: [{description, bones}]`) and the legacy 1.8/1.10
//! form (`"geometry.name": {texturewidth, bones}`), into a [`Rig`] in
//! Blockbench's display space.
//!
//! # Mirroring (import-notes.md §2)
//! Bedrock's X runs the other way from Blockbench's: a pivot `(x, y, z)`
//! is `(−x, y, z)`, a rotation `(x, y, z)` is `(−x, −y, z)`, and a cube
//! whose unrotated minimum corner is `origin` with `size` spans
//! `from = (−(origin.x + size.x), origin.y, origin.z)` to `from + size`,
//! grown by `inflate` on every side. A cube without a `pivot` turns about
//! its box's centre (the schema's rule; it only matters when it turns).
//!
//! Bones may name a parent declared later; the rig is reordered parents
//! first. A parent that is not in the file leaves the bone a root, with a
//! note.

use glam::Vec3;
use serde_json::Value;

use super::rig::{parents_first, Rig, RigBody, RigNode};
use super::{pointer_key, BedrockError};
use crate::import::Note;

/// The geometry in `json`: the first one when the file has several (with
/// a note). `file` names the file in errors.
pub fn read_geometry(json: &Value, file: &str, notes: &mut Vec<Note>) -> Result<Rig, BedrockError> {
    let (pointer, geometry) = pick(json, file, notes)?;
    let bones = match geometry.get("bones") {
        None => &[][..],
        Some(Value::Array(bones)) => bones.as_slice(),
        Some(_) => {
            return Err(shape(
                file,
                &format!("{pointer}/bones"),
                "`bones` must be an array of bones",
            ))
        }
    };
    let names: Vec<Option<&str>> = bones
        .iter()
        .map(|b| b.get("name").and_then(Value::as_str))
        .collect();
    let mut nodes = Vec::new();
    let mut bone_index = Vec::with_capacity(bones.len());
    for (i, bone) in bones.iter().enumerate() {
        let at = format!("{pointer}/bones/{i}");
        let Some(name) = names.get(i).copied().flatten() else {
            return Err(shape(file, &at, "a bone needs a `name` (a string)"));
        };
        bone_index.push(nodes.len());
        nodes.push(RigNode {
            name: name.to_owned(),
            source: format!("{file}{at}"),
            parent: None,
            pivot_px: mirror_point(vec3(bone.get("pivot"), &format!("{at}/pivot"), file)?),
            rotation_deg: mirror_rotation(vec3(
                bone.get("rotation"),
                &format!("{at}/rotation"),
                file,
            )?),
            body: RigBody::Bone,
        });
    }
    // Parents by name (forward references allowed), then the cubes.
    for (i, bone) in bones.iter().enumerate() {
        let at = format!("{pointer}/bones/{i}");
        let own = bone_index.get(i).copied().unwrap_or(0);
        if let Some(parent) = bone.get("parent").and_then(Value::as_str) {
            match names.iter().position(|n| *n == Some(parent)) {
                Some(p) if p != i => {
                    if let Some(node) = nodes.get_mut(own) {
                        node.parent = bone_index.get(p).copied();
                    }
                }
                _ => notes.push(Note::new(
                    format!("{file}{at}/parent"),
                    format!("bone `{}` names parent `{parent}`, which is not another bone here; it hangs from the model root", names.get(i).copied().flatten().unwrap_or("")),
                )),
            }
        }
        let bone_inflate = bone.get("inflate").and_then(Value::as_f64).unwrap_or(0.0) as f32;
        let cubes = match bone.get("cubes") {
            None => &[][..],
            Some(Value::Array(cubes)) => cubes.as_slice(),
            Some(_) => {
                return Err(shape(
                    file,
                    &format!("{at}/cubes"),
                    "`cubes` must be an array of cubes",
                ))
            }
        };
        let bone_name = names.get(i).copied().flatten().unwrap_or("bone");
        for (c, cube) in cubes.iter().enumerate() {
            let cat = format!("{at}/cubes/{c}");
            nodes.push(read_cube(
                cube,
                &cat,
                file,
                bone_name,
                c,
                own,
                bone_inflate,
            )?);
        }
    }
    let node_names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let nodes = parents_first(nodes).map_err(|i| BedrockError::ParentLoop {
        pointer: format!("{file}{pointer}/bones"),
        name: node_names.get(i).cloned().unwrap_or_default(),
    })?;
    Ok(Rig {
        nodes,
        root_offset_px: Vec3::ZERO,
    })
}

/// One cube as a child node of bone `parent`.
fn read_cube(
    cube: &Value,
    at: &str,
    file: &str,
    bone_name: &str,
    c: usize,
    parent: usize,
    bone_inflate: f32,
) -> Result<RigNode, BedrockError> {
    let origin = vec3(cube.get("origin"), &format!("{at}/origin"), file)?;
    let size = vec3(cube.get("size"), &format!("{at}/size"), file)?;
    let inflate = cube
        .get("inflate")
        .and_then(Value::as_f64)
        .map_or(bone_inflate, |v| v as f32);
    let from = Vec3::new(-(origin.x + size.x), origin.y, origin.z);
    let to = from + size;
    let pivot = match cube.get("pivot") {
        Some(p) => mirror_point(vec3(Some(p), &format!("{at}/pivot"), file)?),
        None => (from + to) * 0.5,
    };
    Ok(RigNode {
        name: format!("{bone_name}_cube{c}"),
        source: format!("{file}{at}"),
        parent: Some(parent),
        pivot_px: pivot,
        rotation_deg: mirror_rotation(vec3(cube.get("rotation"), &format!("{at}/rotation"), file)?),
        body: RigBody::Cube {
            from_px: from - Vec3::splat(inflate),
            to_px: to + Vec3::splat(inflate),
            faces: None,
        },
    })
}

/// The geometry object to read and its pointer.
fn pick<'a>(
    json: &'a Value,
    file: &str,
    notes: &mut Vec<Note>,
) -> Result<(String, &'a Value), BedrockError> {
    if let Some(list) = json.get("minecraft:geometry") {
        let Some(list) = list.as_array() else {
            return Err(shape(
                file,
                "/minecraft:geometry",
                "`minecraft:geometry` must be an array of geometries",
            ));
        };
        let Some(first) = list.first() else {
            return Err(shape(
                file,
                "/minecraft:geometry",
                "the file has no geometry",
            ));
        };
        if list.len() > 1 {
            notes.push(Note::new(
                format!("{file}/minecraft:geometry"),
                format!("the file has {} geometries; the first is used", list.len()),
            ));
        }
        return Ok(("/minecraft:geometry/0".to_owned(), first));
    }
    let legacy: Vec<(&String, &Value)> = json
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(k, _)| k.starts_with("geometry."))
                .collect()
        })
        .unwrap_or_default();
    let Some((key, geometry)) = legacy.first() else {
        return Err(shape(file, "", "not Bedrock geometry: expected `minecraft:geometry` (1.12.0) or a `geometry.NAME` object (1.8/1.10)"));
    };
    if legacy.len() > 1 {
        notes.push(Note::new(
            format!("{file}/{}", pointer_key(key)),
            format!("the file has {} geometries; `{key}` is used", legacy.len()),
        ));
    }
    if key.contains(':') {
        notes.push(Note::new(
            format!("{file}/{}", pointer_key(key)),
            "the geometry inherits from another (`name:parent`); only its own bones are read",
        ));
    }
    Ok((format!("/{}", pointer_key(key)), geometry))
}

/// `value` as `[x, y, z]`: three finite numbers, or `None` (shared with
/// the Blockbench reader, which words its own error).
pub(crate) fn finite_vec3(value: &Value) -> Option<Vec3> {
    let numbers: Option<Vec<f32>> = value
        .as_array()
        .filter(|a| a.len() == 3)
        .and_then(|a| a.iter().map(|v| v.as_f64().map(|f| f as f32)).collect());
    match numbers.as_deref() {
        Some(&[x, y, z]) if x.is_finite() && y.is_finite() && z.is_finite() => {
            Some(Vec3::new(x, y, z))
        }
        _ => None,
    }
}

/// A `[x, y, z]` of numbers (zero when absent).
pub(super) fn vec3(value: Option<&Value>, pointer: &str, file: &str) -> Result<Vec3, BedrockError> {
    let Some(value) = value else {
        return Ok(Vec3::ZERO);
    };
    match finite_vec3(value) {
        Some(v) => Ok(v),
        None => Err(shape(
            file,
            pointer,
            "expected three finite numbers `[x, y, z]`",
        )),
    }
}

/// A Bedrock point in Blockbench's space.
pub fn mirror_point(p: Vec3) -> Vec3 {
    Vec3::new(-p.x, p.y, p.z)
}

/// A Bedrock rotation in Blockbench's space.
pub fn mirror_rotation(r: Vec3) -> Vec3 {
    Vec3::new(-r.x, -r.y, r.z)
}

fn shape(file: &str, pointer: &str, rule: &str) -> BedrockError {
    BedrockError::Shape {
        pointer: format!("{file}{pointer}"),
        rule: rule.to_owned(),
    }
}
