//! The top of a clip file: which layout it is, the clip fields both
//! layouts share, and the joints of the curves layout (versions 2 and 3).

use std::collections::BTreeMap;

use serde_json::Value;

use super::cues::{read_events, read_markers, read_plays, read_sounds};
use super::joints::BodyJoint;
use super::keys::{positive, read_rotation_channel, read_vec_channel, seconds, INTERPOLATIONS};
use super::modifiers::read_modifiers;
use super::poses::read_keyframes;
use super::types::{
    ClipBlend, ClipFile, ClipJoint, ClipSpace, EulerOrder, JointTarget, JointWeight, LoopMode,
    RotationChannel,
};
use crate::format::problem::{field, JsonPointer, Problems, Root};
use crate::format::read::{self, Obj};

/// The priority level names, lowest first: a name's number is its place
/// (`core` 0 … `action4` 6), as `anim::layers` numbers them.
const PRIORITY_NAMES: [&str; 7] = [
    "core", "idle", "movement", "action", "action2", "action3", "action4",
];

const LOOPS: [(&str, LoopMode); 4] = [
    ("once", LoopMode::Once),
    ("loop", LoopMode::Loop),
    ("hold", LoopMode::Hold),
    ("pingpong", LoopMode::PingPong),
];

const BLENDS: [(&str, ClipBlend); 2] = [
    ("normal", ClipBlend::Normal),
    ("additive", ClipBlend::Additive),
];

const SPACES: [(&str, ClipSpace); 2] = [("body", ClipSpace::Body), ("view", ClipSpace::View)];

/// Fields the editor writes for itself, read past in both layouts.
const EDITOR_FIELDS: [&str; 3] = ["rig", "fps", "viewModel"];

/// The fields both layouts share.
const SHARED_FIELDS: [&str; 7] = [
    "version", "length", "priority", "mask", "blend", "space", "markers",
];

/// Reads a clip from parsed JSON, recording every problem.
pub(crate) fn read_clip(root: &Value, problems: &mut Problems) -> Option<ClipFile> {
    let mut obj = Obj::new(root, &Root, problems, "an .anim clip")?;
    let version = obj.opt("version").and_then(|(v, p)| match v.as_u64() {
        Some(n @ 1..=3) => Some(n as u32),
        _ => {
            problems.error(&p, format!("`version` must be 1, 2 or 3, found {v}"));
            None
        }
    });
    let poses_layout = match (obj.has("keyframes"), obj.has("joints")) {
        (true, true) => {
            problems.error("", "a clip has either `joints` (versions 2 and 3) or `keyframes` (version 1), not both");
            return None;
        }
        (true, false) => true,
        (false, true) => false,
        (false, false) => {
            problems.error(
                "",
                "missing required field `joints` (or `keyframes` in a version 1 clip)",
            );
            return None;
        }
    };
    if poses_layout && matches!(version, Some(2 | 3)) {
        problems.error(
            "/keyframes",
            "version 2 and 3 clips list curves per joint in `joints`, not `keyframes`",
        );
    }
    if !poses_layout && version == Some(1) {
        problems.error(
            "/joints",
            "version 1 clips list whole poses in `keyframes`, not `joints`",
        );
    }
    let mut clip = ClipFile {
        version: version.unwrap_or(if poses_layout { 1 } else { 3 }),
        length_secs: 0.0,
        loop_mode: LoopMode::Once,
        speed: 1.0,
        autoplay: false,
        priority: 0.0,
        mask: None,
        blend: ClipBlend::Normal,
        space: ClipSpace::Body,
        euler: EulerOrder::Yxz,
        skeleton: None,
        retarget: BTreeMap::new(),
        joints: Vec::new(),
        markers: Vec::new(),
        events: Vec::new(),
        sounds: Vec::new(),
        plays: Vec::new(),
    };
    let length = obj
        .opt("length")
        .and_then(|(v, p)| seconds(v, &p, problems, "`length`"));
    if let Some((v, p)) = obj.opt("priority") {
        clip.priority = priority(v, &p, problems).unwrap_or(0.0);
    }
    if let Some((v, p)) = obj.opt("mask") {
        clip.mask = mask(v, &p, problems);
    }
    if let Some((v, p)) = obj.opt("blend") {
        clip.blend = read::one_of(v, &p, problems, "`blend`", &BLENDS).unwrap_or_default();
    }
    if let Some((v, p)) = obj.opt("space") {
        clip.space = read::one_of(v, &p, problems, "`space`", &SPACES).unwrap_or_default();
    }
    if let Some((v, p)) = obj.opt("markers") {
        clip.markers = read_markers(v, &p, problems);
    }
    let layout_fields: &[&str] = if poses_layout {
        clip.loop_mode = match obj.opt_bool("looped", problems) {
            Some(true) => LoopMode::Loop,
            _ => LoopMode::Once,
        };
        if let Some((v, p)) = obj.opt("keyframes") {
            clip.joints = read_keyframes(v, &p, problems);
        }
        &["looped", "keyframes"]
    } else {
        read_curves_fields(&mut obj, &mut clip, problems);
        &CURVES_FIELDS
    };
    obj.finish(
        problems,
        &[&SHARED_FIELDS[..], layout_fields, &EDITOR_FIELDS].concat(),
    );
    resolve_targets(&mut clip, problems);
    check_mask(&clip, problems);
    let last = last_time(&clip);
    clip.length_secs = match length {
        Some(length) => {
            if last > length {
                problems.warning("/length", format!("the clip is {length}s long, but something in it is at {last}s and is never reached"));
            }
            length
        }
        None => last,
    };
    (!problems.has_errors()).then_some(clip)
}

/// The fields of the curves layout beyond the shared ones.
const CURVES_FIELDS: [&str; 10] = [
    "loop", "speed", "autoplay", "joints", "euler", "skeleton", "retarget", "events", "sounds",
    "plays",
];

fn read_curves_fields(obj: &mut Obj<'_>, clip: &mut ClipFile, problems: &mut Problems) {
    if let Some((v, p)) = obj.opt("loop") {
        clip.loop_mode = read::one_of(v, &p, problems, "`loop`", &LOOPS).unwrap_or_default();
    }
    if let Some((v, p)) = obj.opt("speed") {
        clip.speed = positive(v, &p, problems, "`speed`", "").unwrap_or(1.0);
    }
    clip.autoplay = obj.opt_bool("autoplay", problems).unwrap_or(false);
    if let Some((v, p)) = obj.opt("euler") {
        let names = EulerOrder::ALL;
        clip.euler = read::one_of(v, &p, problems, "`euler`", &names).unwrap_or_default();
    }
    if let Some((v, p)) = obj.opt("skeleton") {
        if Obj::new(v, &p, problems, "`skeleton`").is_some() {
            clip.skeleton = Some(v.clone());
        }
    }
    if let Some((v, p)) = obj.opt("retarget") {
        if let Some(map) = Obj::new(v, &p, problems, "`retarget`") {
            for (from, to) in map.entries() {
                if let Some(to) = read::string(to, &field(&p, from), problems, "a `retarget` entry")
                {
                    clip.retarget.insert(from.clone(), to.to_owned());
                }
            }
        }
    }
    if let Some((v, p)) = obj.opt("events") {
        clip.events = read_events(v, &p, problems);
    }
    if let Some((v, p)) = obj.opt("sounds") {
        clip.sounds = read_sounds(v, &p, problems);
    }
    if let Some((v, p)) = obj.opt("plays") {
        clip.plays = read_plays(v, &p, problems);
    }
    if let Some((v, p)) = obj.opt("joints") {
        if let Some(joints) = Obj::new(v, &p, problems, "`joints`") {
            for (name, value) in joints.entries() {
                if let Some(joint) = read_joint(name, value, &field(&p, name), problems) {
                    clip.joints.push(joint);
                }
            }
        }
    }
}

/// A `priority`: a level name or any finite number.
fn priority(value: &Value, pointer: &dyn JsonPointer, problems: &mut Problems) -> Option<f32> {
    if let Some(name) = value.as_str() {
        let found = PRIORITY_NAMES.iter().position(|level| *level == name);
        if found.is_none() {
            problems.error(
                pointer,
                format!(
                    "`priority` `{name}` is not a number or one of: {}",
                    PRIORITY_NAMES.join(", ")
                ),
            );
        }
        return found.map(|n| n as f32);
    }
    read::finite_number(
        value,
        pointer,
        problems,
        "`priority` (a number or a level name)",
    )
}

/// A `mask`: a list of names, or one string of names split by commas or spaces.
fn mask(value: &Value, pointer: &dyn JsonPointer, problems: &mut Problems) -> Option<Vec<String>> {
    let names: Vec<String> = match value {
        Value::String(s) => s
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect(),
        Value::Array(items) => {
            let mut names = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let p = crate::format::problem::index(pointer, i);
                names.extend(
                    read::nonempty_string(item, &p, problems, "a `mask` name").map(str::to_owned),
                );
            }
            names
        }
        other => {
            problems.error(
                pointer,
                format!(
                    "`mask` must be a list of joint names or one string of names, found {}",
                    read::kind_of(other)
                ),
            );
            return None;
        }
    };
    Some(names)
}

fn read_joint(
    name: &str,
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<ClipJoint> {
    if name.is_empty() {
        problems.error(pointer, "a joint name must not be empty");
        return None;
    }
    let mut obj = Obj::new(value, pointer, problems, "a joint")?;
    let before = problems.error_count();
    let rotation = obj
        .opt("rotation")
        .and_then(|(v, p)| read_rotation_channel(v, &p, problems));
    let position = obj
        .opt("position")
        .and_then(|(v, p)| read_vec_channel(v, &p, problems, "position"));
    let scale = obj
        .opt("scale")
        .and_then(|(v, p)| read_vec_channel(v, &p, problems, "scale"));
    let weight = obj
        .opt_number_in_range("weight", problems, 0.0..=1.0, "must be from 0 to 1")
        .unwrap_or(1.0);
    let muted = obj.opt_bool("muted", problems).unwrap_or(false);
    obj.opt_bool("locked", problems);
    if let Some((v, p)) = obj.opt("interpolation") {
        read::one_of(
            v,
            &p,
            problems,
            "a joint's `interpolation`",
            &INTERPOLATIONS[..4],
        );
    }
    let (mut rotation_modifiers, mut position_modifiers) = (Vec::new(), Vec::new());
    if let Some((v, p)) = obj.opt("modifiers") {
        if let Some(mut modifiers) = Obj::new(v, &p, problems, "`modifiers`") {
            if let Some((v, mp)) = modifiers.opt("rotation") {
                rotation_modifiers = read_modifiers(v, &mp, problems).unwrap_or_default();
                if matches!(rotation, Some(RotationChannel::Quaternion(_)))
                    && !rotation_modifiers.is_empty()
                {
                    problems.error(
                        &mp,
                        "curve modifiers work on angles, not on quaternion keys",
                    );
                }
            }
            if let Some((v, mp)) = modifiers.opt("position") {
                position_modifiers = read_modifiers(v, &mp, problems).unwrap_or_default();
            }
            modifiers.forbid(
                "scale",
                problems,
                "curve modifiers work on angle and offset channels, not on `scale`",
            );
            modifiers.finish(problems, &["rotation", "position", "scale"]);
        }
    }
    obj.finish(
        problems,
        &[
            "rotation",
            "position",
            "scale",
            "weight",
            "muted",
            "locked",
            "interpolation",
            "modifiers",
        ],
    );
    if problems.error_count() != before {
        return None;
    }
    Some(ClipJoint {
        name: name.to_owned(),
        target: JointTarget::Unmatched,
        rotation,
        position,
        scale,
        weight: JointWeight::Constant(weight),
        muted,
        rotation_modifiers,
        position_modifiers,
    })
}

/// Lands each joint on a body joint: through `retarget`, else by its name.
/// A joint that lands on no body joint is a warning; a second joint on
/// the same body joint is a warning and kept off the body (the first in
/// the file wins).
fn resolve_targets(clip: &mut ClipFile, problems: &mut Problems) {
    let mut taken: BTreeMap<BodyJoint, String> = BTreeMap::new();
    for joint in &mut clip.joints {
        let pointer = field(&Root, "joints");
        let pointer = field(&pointer, &joint.name);
        let target = match clip.retarget.get(&joint.name) {
            Some(to) if to.is_empty() => JointTarget::Off,
            Some(to) => match BodyJoint::matching(to) {
                Some(body) => JointTarget::Body(body),
                None => {
                    let rp = field(&Root, "retarget");
                    problems.warning(&field(&rp, &joint.name), format!("`{to}` is no body joint; `{}` plays only on a model's joint named `{to}`", joint.name));
                    JointTarget::Unmatched
                }
            },
            None => match BodyJoint::matching(&joint.name) {
                Some(body) => JointTarget::Body(body),
                None => {
                    problems.warning(&pointer, format!("joint `{}` matches no body joint (root, head, torso, rightArm, leftArm, rightLeg, leftLeg, cape, rightWing, leftWing, spinInner, spinOuter); on a body it does nothing", joint.name));
                    JointTarget::Unmatched
                }
            },
        };
        joint.target = match target {
            JointTarget::Body(body) => match taken.get(&body) {
                Some(first) => {
                    problems.warning(&pointer, format!("joint `{}` lands on body joint `{}` as `{first}` does; it is kept off the body (the first in the file wins)", joint.name, body.name()));
                    JointTarget::Off
                }
                None => {
                    taken.insert(body, joint.name.clone());
                    JointTarget::Body(body)
                }
            },
            other => other,
        };
    }
}

/// A mask name that is neither a joint of the clip nor a body joint is a warning.
fn check_mask(clip: &ClipFile, problems: &mut Problems) {
    for name in clip.mask.iter().flatten() {
        let known =
            clip.joints.iter().any(|j| &j.name == name) || BodyJoint::matching(name).is_some();
        if !known {
            problems.warning(
                "/mask",
                format!("mask name `{name}` is no joint of this clip and no body joint"),
            );
        }
    }
}

/// The time of the last key, marker, event, sound or play (0 for none).
fn last_time(clip: &ClipFile) -> f32 {
    let mut last = 0.0f32;
    for joint in &clip.joints {
        let rotation = match &joint.rotation {
            Some(RotationChannel::Euler(keys)) => keys.last().map(|k| k.time_secs),
            Some(RotationChannel::Quaternion(keys)) => keys.last().map(|k| k.time_secs),
            None => None,
        };
        let vectors = [&joint.position, &joint.scale]
            .into_iter()
            .flatten()
            .filter_map(|k| k.last().map(|k| k.time_secs));
        last = rotation.into_iter().chain(vectors).fold(last, f32::max);
    }
    let cues = clip
        .markers
        .iter()
        .map(|m| m.time_secs)
        .chain(clip.events.iter().map(|e| e.time_secs))
        .chain(clip.sounds.iter().map(|s| s.time_secs))
        .chain(clip.plays.iter().map(|p| p.time_secs));
    cues.fold(last, f32::max)
}
