//! Bedrock animation JSON (`format_version` 1.8.0, as GeckoLib and
//! Blockbench write it) on its geometry (`.geo.json`), into schema 4 scene
//! Animations whose nodes are the model's bones and cubes.
//!
//! # The model
//! Blockbench is the reference: what an author sees in Blockbench's
//! preview is what the emote plays. So everything is evaluated in
//! Blockbench's display space (three.js: right-handed, Y up, pixels) and
//! by Blockbench's rules, then handed to [`crate::import::scene`]:
//!
//! 1. **Geometry** ([`geometry`]): bones with absolute pivots and rest
//!    rotations, cubes as child nodes, mirrored on X into display space.
//!    The geometry is `options.geometry`, else `X.geo.json` beside the
//!    animation file `X.animation.json` (in its folder, or in `../geo/`,
//!    GeckoLib's `animations/` and `geo/` layout, keeping any subfolder).
//!    Without one, every animated bone is a root anchor at the origin,
//!    with a note.
//! 2. **Channels** ([`animation`]): keys in seconds with one or two
//!    points, numbers or Molang, mirrored the same way; evaluated by
//!    [`curves`] (linear, catmull-rom, step, pre/post) with Molang read
//!    by [`values`].
//! 3. **Composition** ([`rig`]): additive to the rest pose, Euler angles
//!    summed then composed ZYX, position in the parent's frame, scale
//!    multiplied; the local transform as a quaternion, in blocks.
//! 4. **Baking** ([`bake`]): every tick `0..=duration` sampled; the scene
//!    builder thins it back to the fewest keys within 0.01 block and 0.5°.
//!
//! # Choices where the sources are silent
//! - **Facing** ([`rig::to_player`]): the model is turned half round
//!   about Y into the player's frame. Bedrock and Blockbench models face
//!   −Z (north) with +X at the model's right; emoted's player faces +Z at
//!   yaw 0, so the turned model faces where the player faces and its
//!   right is the player's right.
//! - **Length**: `animation_length`, else the last key or effect, rounded
//!   to the nearest tick (at least one), with a note when it moved.
//! - **Looping**: `loop: true` → `loop`, absent or `false` → `once`,
//!   `"hold_on_last_frame"` → `hold`.
//! - **Effects**: a sound becomes `playsound <effect> master @a ~ ~ ~` at
//!   its tick; a timeline entry that is a `/command` becomes that command;
//!   particles (an entity's short effect names) and timeline Molang are
//!   dropped with a note.
//! - **Bone names** match the geometry exactly, else case-insensitively
//!   (as Blockbench matches them); a bone the geometry lacks is dropped
//!   with a note.
//! - `relative_to`, `anim_time_update`, `blend_weight`, `start_delay` and
//!   `loop_delay` have no place in an emote and are noted.

pub mod animation;
pub mod bake;
pub mod curves;
pub mod geometry;
pub mod rig;
pub mod values;

use std::path::PathBuf;

use serde_json::Value;

use self::animation::{read_animations, Clip, EffectKind, LoopMode};
use self::bake::{bake, note_channel, tick_of, ClipSource};
use self::geometry::read_geometry;
use self::rig::{NodeChannels, Rig, RigBody, RigNode};
use self::values::Expressions;
use crate::format::settings::PlaybackMode;
use crate::import::humanoid::Imported;
use crate::import::scene::{scene_animation_noted, SceneClip, SceneEvent};
use crate::import::{ConvertOptions, ImportError, Note};

/// One clip's scene, sampled at every tick, and the notes about it.
pub type ClipScene = (SceneClip, Vec<Note>);

/// Why a Bedrock file gave no emote. Every message names the JSON pointer
/// (prefixed by the file's name for the geometry) and the rule.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BedrockError {
    /// The bytes are not JSON.
    #[error("{file}: not valid JSON ({message}); a Bedrock animation or geometry file is JSON")]
    Json {
        /// Which file.
        file: String,
        /// The parser's words, with line and column.
        message: String,
    },
    /// The input is a geometry file.
    #[error("/: this is Bedrock geometry, which holds no animation: convert its animation file (NAME.animation.json) instead, with --geometry naming this file if it is not beside it")]
    GeometryOnly,
    /// A value does not have the shape the format gives it.
    #[error("{pointer}: {rule}")]
    Shape {
        /// Where.
        pointer: String,
        /// The rule it breaks.
        rule: String,
    },
    /// A keyframe or effect time is not a number of seconds.
    #[error("{pointer}: `{text}` is not a keyframe time: times are seconds written as decimal strings, such as \"0.5\", 0 or more")]
    BadTime {
        /// Where.
        pointer: String,
        /// The key as written.
        text: String,
    },
    /// Bones name each other as parents in a loop.
    #[error("{pointer}: bone `{name}` is its own ancestor (the `parent` names loop); point one of them at another bone")]
    ParentLoop {
        /// The geometry's bones.
        pointer: String,
        /// A bone in the loop.
        name: String,
    },
    /// The file has no animation at all.
    #[error("/animations: the file has no animations; add one, or convert another file")]
    NoAnimations,
    /// `--clip` names no animation of the file.
    #[error("/animations: no animation is named `{clip}`; the file has {available}")]
    NoSuchClip {
        /// What was asked for.
        clip: String,
        /// The names there are.
        available: String,
    },
    /// The geometry file could not be read.
    #[error("{path}: the geometry file could not be read ({message}); check --geometry")]
    GeometryFile {
        /// The path tried.
        path: String,
        /// The system's words.
        message: String,
    },
    /// The scene could not be built.
    #[error(transparent)]
    Import(#[from] ImportError),
}

/// `bytes`, a Bedrock animation file, as one schema 4 Animation per
/// animation (or only `options.clip`); ids are `options.id(None)` for a
/// file with one animation, `options.id(Some(name))` for several.
pub fn convert(bytes: &[u8], options: &ConvertOptions) -> Result<Vec<Imported>, BedrockError> {
    let (clips, notes) = evaluate(bytes, options)?;
    let mut out = Vec::with_capacity(clips.len());
    for (clip, clip_notes) in clips {
        let source_notes = notes.iter().cloned().chain(clip_notes).collect();
        out.push(scene_animation_noted(&clip, source_notes)?);
    }
    Ok(out)
}

/// The scene clips [`convert`] builds, each with its own notes, plus the
/// notes shared by all (the geometry's): the source's own evaluation at
/// every tick, before thinning.
pub fn evaluate(
    bytes: &[u8],
    options: &ConvertOptions,
) -> Result<(Vec<ClipScene>, Vec<Note>), BedrockError> {
    let json = parse_json(bytes, "/")?;
    let Some(root) = json.as_object() else {
        return Err(BedrockError::Shape {
            pointer: "/".to_owned(),
            rule: "a Bedrock animation file is a JSON object".to_owned(),
        });
    };
    if !root.contains_key("animations")
        && (root.contains_key("minecraft:geometry")
            || root.keys().any(|k| k.starts_with("geometry.")))
    {
        return Err(BedrockError::GeometryOnly);
    }
    let mut shared = Vec::new();
    let mut expressions = Expressions::new();
    let clips = read_animations(root, &mut expressions, &mut shared)?;
    if clips.is_empty() {
        return Err(BedrockError::NoAnimations);
    }
    let chosen = choose(&clips, options.clip.as_deref())?;
    let rig = match load_geometry(options, &mut shared)? {
        Some(rig) => rig,
        None => bare_rig(&clips, &mut shared),
    };
    let several = clips.len() > 1;
    let mut out = Vec::new();
    for clip in chosen {
        let mut notes = Vec::new();
        let animated = bind(&rig, clip, &mut notes);
        let events = events(clip, &mut notes);
        let source = ClipSource {
            id: options.id(several.then_some(clip.name.as_str())),
            name: clip.name.clone(),
            format: "Bedrock",
            pointer: &clip.pointer,
            length_secs: clip.length_secs,
            mode: match clip.mode {
                LoopMode::Once => PlaybackMode::Once,
                LoopMode::Loop => PlaybackMode::Loop,
                LoopMode::Hold => PlaybackMode::Hold,
            },
            animated: &animated,
            expressions: &expressions,
            events,
        };
        let scene = bake(&rig, source, &mut notes)?;
        out.push((scene, notes));
    }
    Ok((out, shared))
}

/// The clips to convert: all, or the one `wanted` names (exactly, then
/// ignoring case).
fn choose<'a>(clips: &'a [Clip], wanted: Option<&str>) -> Result<Vec<&'a Clip>, BedrockError> {
    let Some(wanted) = wanted else {
        return Ok(clips.iter().collect());
    };
    clips
        .iter()
        .find(|c| c.name == wanted)
        .or_else(|| clips.iter().find(|c| c.name.eq_ignore_ascii_case(wanted)))
        .map(|c| vec![c])
        .ok_or_else(|| BedrockError::NoSuchClip {
            clip: wanted.to_owned(),
            available: clips
                .iter()
                .map(|c| format!("`{}`", c.name))
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Each rig node's channels from `clip` (bones by name, exactly, then
/// ignoring case), with notes for bones the rig lacks and for resampling.
fn bind(rig: &Rig, clip: &Clip, notes: &mut Vec<Note>) -> Vec<Option<NodeChannels>> {
    let mut animated: Vec<Option<NodeChannels>> = vec![None; rig.nodes.len()];
    let is_bone = |n: &&RigNode| n.body == RigBody::Bone;
    for bone in &clip.bones {
        let found = rig
            .nodes
            .iter()
            .position(|n| is_bone(&n) && n.name == bone.name)
            .or_else(|| {
                rig.nodes
                    .iter()
                    .position(|n| is_bone(&n) && n.name.eq_ignore_ascii_case(&bone.name))
            });
        let Some(slot) = found.and_then(|i| animated.get_mut(i)) else {
            notes.push(Note::new(
                bone.pointer.clone(),
                format!(
                    "the geometry has no bone `{}`; its channels are dropped",
                    bone.name
                ),
            ));
            continue;
        };
        note_channel(
            &bone.rotation,
            true,
            &format!("{}/rotation", bone.pointer),
            notes,
        );
        note_channel(
            &bone.position,
            false,
            &format!("{}/position", bone.pointer),
            notes,
        );
        note_channel(
            &bone.scale,
            false,
            &format!("{}/scale", bone.pointer),
            notes,
        );
        *slot = Some(NodeChannels {
            rotation: bone.rotation.clone(),
            position: bone.position.clone(),
            scale: bone.scale.clone(),
        });
    }
    animated
}

/// `clip`'s effects as commands where a command exists.
fn events(clip: &Clip, notes: &mut Vec<Note>) -> Vec<SceneEvent> {
    let mut out = Vec::new();
    for effect in &clip.effects {
        let command = match &effect.kind {
            EffectKind::Sound(name) => Some(format!("playsound {name} master @a ~ ~ ~")),
            EffectKind::Timeline(text) if text.trim().starts_with('/') => {
                Some(text.trim().trim_start_matches('/').to_owned())
            }
            EffectKind::Timeline(text) => {
                notes.push(Note::new(
                    effect.pointer.clone(),
                    format!(
                        "timeline Molang `{}` is dropped: an emote's timeline runs commands",
                        text.trim()
                    ),
                ));
                None
            }
            EffectKind::Particle(name) => {
                notes.push(Note::new(
                    effect.pointer.clone(),
                    format!("particle effect `{name}` is dropped: it names an entity's particle, which has no command"),
                ));
                None
            }
        };
        if let Some(command) = command {
            out.push(SceneEvent {
                tick: tick_of(effect.time_secs),
                source: effect.pointer.clone(),
                commands: vec![command],
            });
        }
    }
    out
}

/// Every bone the clips name, as a root anchor at the origin.
fn bare_rig(clips: &[Clip], notes: &mut Vec<Note>) -> Rig {
    let mut nodes: Vec<RigNode> = Vec::new();
    for bone in clips.iter().flat_map(|c| &c.bones) {
        if !nodes
            .iter()
            .any(|n| n.name.eq_ignore_ascii_case(&bone.name))
        {
            nodes.push(RigNode {
                name: bone.name.clone(),
                source: bone.pointer.clone(),
                parent: None,
                pivot_px: glam::Vec3::ZERO,
                rotation_deg: glam::Vec3::ZERO,
                body: RigBody::Bone,
            });
        }
    }
    notes.push(Note::new(
        "/animations",
        "no geometry was given or found beside the file (X.geo.json, or ../geo/X.geo.json): every bone is an unparented anchor at the origin with no rest pose and draws nothing; give the geometry with --geometry",
    ));
    Rig {
        nodes,
        root_offset_px: glam::Vec3::ZERO,
    }
}

/// The geometry to play on: `options.geometry`, else one found beside
/// the input; `None` when there is none.
fn load_geometry(
    options: &ConvertOptions,
    notes: &mut Vec<Note>,
) -> Result<Option<Rig>, BedrockError> {
    let path = match &options.geometry {
        Some(path) => path.clone(),
        None => match geometry_candidates(options)
            .into_iter()
            .find(|p| p.is_file())
        {
            Some(path) => path,
            None => return Ok(None),
        },
    };
    let bytes = std::fs::read(&path).map_err(|e| BedrockError::GeometryFile {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let json = parse_json(&bytes, &file)?;
    notes.push(Note::new(
        format!("{file}#"),
        format!(
            "the model is `{}`'s geometry; its cubes are drawn untextured",
            path.display()
        ),
    ));
    read_geometry(&json, &format!("{file}#"), notes).map(Some)
}

/// Where a geometry beside the input may be: `X.geo.json` in the input's
/// folder, in `../geo/`, and (for GeckoLib's `assets/NS/animations/SUB/`)
/// in `assets/NS/geo/SUB/`.
pub fn geometry_candidates(options: &ConvertOptions) -> Vec<PathBuf> {
    let Some(dir) = options.base_dir.as_deref() else {
        return Vec::new();
    };
    let stem = options
        .stem
        .strip_suffix(".animation")
        .or_else(|| options.stem.strip_suffix(".anim"))
        .unwrap_or(&options.stem);
    let name = format!("{stem}.geo.json");
    let mut out = vec![dir.join(&name), dir.join("..").join("geo").join(&name)];
    let parts: Vec<_> = dir.components().collect();
    if let Some(at) = parts.iter().rposition(|c| c.as_os_str() == "animations") {
        let mut path: PathBuf = parts.iter().take(at).collect();
        path.push("geo");
        path.extend(parts.iter().skip(at + 1));
        path.push(&name);
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// `bytes` as JSON, or [`BedrockError::Json`] naming `file`.
fn parse_json(bytes: &[u8], file: &str) -> Result<Value, BedrockError> {
    serde_json::from_slice(bytes).map_err(|e| BedrockError::Json {
        file: file.to_owned(),
        message: e.to_string(),
    })
}

/// `key` escaped for a JSON pointer (`~` → `~0`, `/` → `~1`).
pub fn pointer_key(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests;
