//! `.retarget` files (version 1): a map of a clip's joints onto a rig that
//! names or rests its bones differently.
//!
//! The rules: `version`, when given, is 1; `joints` is required and maps a
//! clip joint to a rig joint's name (`""` keeps the joint still) or to
//! `{ to, source, target }`, where `source` and `target` are rest
//! rotations (`[x, y, z]` degrees in `yxz` order, or a quaternion) given
//! both or neither; `scale` is a finite number above 0 (1 when left out);
//! the top-level `source` and `target` are strings the editor reads.
//! Unknown fields are refused.

use std::collections::BTreeMap;

use glam::Quat;
use serde_json::Value;

use super::keys::{positive, quaternion};
use super::types::EulerOrder;
use crate::format::problem::{field, JsonPointer, Problems, Root};
use crate::format::read::{self, Obj};

/// A validated `.retarget` file.
#[derive(Clone, Debug, PartialEq)]
pub struct RetargetFile {
    /// The top-level `source`: the rig the clip was made on (editor only).
    pub source_rig: Option<String>,
    /// The top-level `target`: the rig the map is for (editor only).
    pub target_rig: Option<String>,
    /// Positions are multiplied by this.
    pub scale: f32,
    /// Clip joint name to where it plays.
    pub joints: BTreeMap<String, RetargetJoint>,
}

/// Where one clip joint plays on the rig.
#[derive(Clone, Debug, PartialEq)]
pub struct RetargetJoint {
    /// The rig joint (`""`: the joint is kept still).
    pub to: String,
    /// The joint's rest rotation on the clip's rig and on this rig, when given.
    pub rests: Option<RestRotations>,
}

/// A joint's rest rotation on both rigs, each in its rig's own space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestRotations {
    /// On the rig the clip was made on.
    pub source: Quat,
    /// On this rig.
    pub target: Quat,
}

/// Reads a `.retarget` file from parsed JSON, recording every problem.
pub(crate) fn read_retarget(root: &Value, problems: &mut Problems) -> Option<RetargetFile> {
    let mut obj = Obj::new(root, &Root, problems, "a .retarget file")?;
    if let Some((v, p)) = obj.opt("version") {
        if v.as_u64() != Some(1) {
            problems.error(&p, format!("`version` must be 1, found {v}"));
        }
    }
    let mut rig = |key: &str, problems: &mut Problems| {
        obj.opt(key).and_then(|(v, p)| {
            read::string(v, &p, problems, &format!("`{key}`")).map(str::to_owned)
        })
    };
    let source_rig = rig("source", problems);
    let target_rig = rig("target", problems);
    let scale = match obj.opt("scale") {
        Some((v, p)) => positive(v, &p, problems, "`scale`", ""),
        None => Some(1.0),
    };
    let mut joints = BTreeMap::new();
    if let Some((v, p)) = obj.req("joints", problems) {
        if let Some(map) = Obj::new(v, &p, problems, "`joints`") {
            for (name, entry) in map.entries() {
                if let Some(joint) = read_entry(entry, &field(&p, name), problems) {
                    joints.insert(name.clone(), joint);
                }
            }
        }
    }
    obj.finish(
        problems,
        &["version", "source", "target", "scale", "joints"],
    );
    if problems.has_errors() {
        return None;
    }
    Some(RetargetFile {
        source_rig,
        target_rig,
        scale: scale?,
        joints,
    })
}

fn read_entry(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<RetargetJoint> {
    if let Value::String(to) = value {
        return Some(RetargetJoint {
            to: to.clone(),
            rests: None,
        });
    }
    let mut obj = Obj::new(
        value,
        pointer,
        problems,
        "a joint entry (a name or { to, source, target })",
    )?;
    let to = obj
        .req("to", problems)
        .and_then(|(v, p)| read::string(v, &p, problems, "`to`").map(str::to_owned));
    let source = obj.opt("source").map(|(v, p)| rest(v, &p, problems));
    let target = obj.opt("target").map(|(v, p)| rest(v, &p, problems));
    let rests = match (source, target) {
        (None, None) => None,
        (Some(s), Some(t)) => Some(RestRotations {
            source: s?,
            target: t?,
        }),
        _ => {
            problems.error(
                pointer,
                "give both `source` and `target` rest rotations, or neither",
            );
            None
        }
    };
    obj.finish(problems, &["to", "source", "target"]);
    Some(RetargetJoint { to: to?, rests })
}

/// A rest rotation: `[x, y, z]` degrees in `yxz` order, or a quaternion.
fn rest(value: &Value, pointer: &dyn JsonPointer, problems: &mut Problems) -> Option<Quat> {
    if value.as_array().is_some_and(|a| a.len() == 4) {
        return quaternion(value, pointer, problems, "a rest rotation");
    }
    read::vec3(
        value,
        pointer,
        problems,
        "a rest rotation ([x, y, z] degrees or [x, y, z, w])",
    )
    .map(|degrees| EulerOrder::Yxz.quat_from_degrees(degrees))
}
