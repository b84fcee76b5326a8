//! glTF 2.0 (`.gltf` and `.glb`) animations into schema 4: one emote per
//! animation, its nodes named after the glTF nodes, each sampled at every
//! tick exactly as glTF 2.0's Appendix C plays it.
//!
//! # The model
//! A glTF file is a JSON document (in a `.glb`, the first chunk of a small
//! binary container, [`glb`]) and binary buffers. Its **nodes** form a
//! tree; each has a rest transform, `T · R · S` (or a `matrix`, decomposed
//! as the `gltf` crate does). An **animation** is a list of channels, each
//! a sampler (key times, values, `STEP`, `LINEAR` or `CUBICSPLINE`) that
//! drives one node's `translation`, `rotation` or `scale`. A channel's
//! value **replaces** that property of the rest pose; properties without a
//! channel keep their rest values. Skins add nothing for an emote: their
//! joints are ordinary nodes, moved by the same channels.
//!
//! Conversion goes in four steps, each in its own file:
//!
//! 1. [`glb`] splits a GLB into its JSON and BIN chunks, refusing any
//!    broken structure with the byte offset where it broke; the `gltf`
//!    crate (without its `import` feature: no image decoder) parses and
//!    validates the JSON, after channels without a target node are set
//!    aside (the specification says to ignore them; the crate refuses
//!    them).
//! 2. [`buffers`] resolves the buffers the animations read (the BIN chunk,
//!    base64 `data:` URIs, files beside the glTF, at most
//!    [`MAX_INPUT_BYTES`] each and together) and [`accessors`] reads the
//!    samplers' accessors with every offset checked.
//! 3. [`curves`] evaluates a sampler at any time (Appendix C);
//!    [`hierarchy`] checks the node tree and keeps, per animation, the
//!    animated nodes and their ancestors, breadth first (other subtrees
//!    are dropped with a note).
//! 4. `clip` samples each kept node's local transform at every tick
//!    `t / 20 s`, `0..=ceil(end × 20)`, into a [`SceneClip`], which
//!    [`scene_animation`] writes as validated schema 4 (thinned tracks,
//!    playback `once`).
//!
//! # Conventions
//! - **Units and axes.** glTF is metres, +Y up, and a model's front faces
//!   +Z; emoted is blocks, +Y up, and a player at yaw 0 faces +Z. So one
//!   metre is one block and `to_player` is the identity: a glTF character
//!   faces the way its player does. (Blender's exporter turns its −Y front
//!   into glTF's +Z, so a Blender rig facing "front" faces forward here.)
//! - **Names.** Nodes keep their glTF names (`node_N` for an unnamed node
//!   N; the builder makes them ids and notes every change). Animation
//!   names keep the original as `metadata.name`; the id uses the name
//!   [`clip_name`] cleans of exporter prefixes (`Armature|mixamo.com|Layer0`).
//! - **Duration.** `ceil(last key × 20)` ticks, at least 1 (with a
//!   thousandth of a tick of slack for float rounding); a clip longer than
//!   10 minutes is refused ([`ImportError::TooLong`]).
//! - **Notes** name the source: `/animations/0/samplers/2: CUBICSPLINE
//!   resampled at 20 tps`, skipped morph-weight channels, dropped nodes,
//!   unnamed nodes.
//!
//! # A humanoid skeleton
//! When the nodes' names make a humanoid skeleton (hips, head, both upper
//! arms and upper legs, [`bone_names`]), step 4 ends instead in the
//! player's own body: [`humanoid`] retargets each tick's world rotations
//! onto the six joints and [`crate::import::humanoid`] draws them on the
//! humanoid rig. [`RigChoice`] (`--rig`) forces either path.

pub mod accessors;
pub mod bone_names;
pub mod buffers;
mod clip;
pub mod curves;
pub mod glb;
pub mod hierarchy;
pub mod humanoid;
mod names;
mod retarget;
pub mod skeleton;

#[cfg(test)]
mod glb_tests;
#[cfg(test)]
pub(crate) mod humanoid_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod writer;

use ::gltf::json::Root;
use serde_json::{json, Map, Value};

use self::buffers::Buffers;
use self::clip::{rest_poses, sample_clip, ClipInput};
use self::hierarchy::Hierarchy;
pub use self::humanoid::RigChoice;
pub use self::names::clip_name;
use self::skeleton::Skeleton;
use super::humanoid::Imported;
use super::scene::{scene_animation_noted, SceneClip};
use super::{ConvertOptions, ImportError, Note};

/// The largest input (and buffer, and all buffers together) read: 64 MiB.
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// The most node samples (kept nodes × ticks) one clip may take.
pub const MAX_SAMPLES: usize = 2_000_000;
/// Samples per second: one per server tick.
pub const TICKS_PER_SECOND: f32 = 20.0;

/// Why a glTF file could not be converted. Every variant names where: a
/// byte offset in the input, or a JSON pointer into the glTF document.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GltfError {
    /// The input or a buffer is larger than emoted reads.
    #[error("{place}: {size_bytes} bytes is over the {max_bytes}-byte limit for a glTF input; is it really an animation?")]
    TooLarge {
        /// `byte N` for the input, a pointer for a buffer.
        place: String,
        /// Its size.
        size_bytes: u64,
        /// [`MAX_INPUT_BYTES`].
        max_bytes: u64,
    },
    /// The GLB ends inside a field.
    #[error("byte {offset}: {what} needs {needed_bytes} bytes, only {left_bytes} are left; the GLB file is cut short")]
    GlbTruncated {
        /// Where the field starts.
        offset: usize,
        /// The field.
        what: &'static str,
        /// Its size.
        needed_bytes: usize,
        /// The bytes left from `offset`.
        left_bytes: usize,
    },
    /// The GLB header's version is not 2.
    #[error("byte {offset}: GLB version {version}; emoted reads glTF 2.0 (GLB version 2)")]
    GlbVersion {
        /// Where the version is (4).
        offset: usize,
        /// The version found.
        version: u32,
    },
    /// The GLB header's length is not the input's.
    #[error("byte {offset}: the GLB header says the file is {declared_bytes} bytes, but it is {actual_bytes}; the file is cut short or has bytes after its end")]
    GlbLength {
        /// Where the length is (8).
        offset: usize,
        /// The length declared.
        declared_bytes: usize,
        /// The input's length.
        actual_bytes: usize,
    },
    /// A GLB chunk breaks the container's rules.
    #[error("byte {offset}: {rule}")]
    GlbChunk {
        /// Where the chunk (or its type) starts.
        offset: usize,
        /// The rule broken.
        rule: String,
    },
    /// The JSON does not parse, or is not a glTF 2.0 document.
    #[error("{place}: {message}; the glTF JSON must be a glTF 2.0 document")]
    Json {
        /// Where: `byte N (line L, column C)`, or a pointer.
        place: String,
        /// The parser's words.
        message: String,
    },
    /// The document breaks a glTF rule, or one emoted needs.
    #[error("{pointer}: {rule}")]
    Invalid {
        /// A JSON pointer into the glTF document.
        pointer: String,
        /// The rule, and what was found.
        rule: String,
    },
    /// The file has no animation.
    #[error("/animations: the file has no animation; export one (in Blender, tick Animation in the glTF exporter)")]
    NoAnimations,
    /// `--clip` names no animation of the file.
    #[error("no animation is called `{wanted}`; the file has {}", names.join(", "))]
    NoSuchClip {
        /// The name asked for.
        wanted: String,
        /// The animations' names (`animation_N` for unnamed ones).
        names: Vec<String>,
    },
    /// The sampled clip could not become schema 4.
    #[error("{clip}: {error}")]
    Import {
        /// The emote id of the clip.
        clip: String,
        /// Why.
        #[source]
        error: ImportError,
    },
}

impl GltfError {
    /// The byte offset in the input this error names, if it names one.
    pub fn offset(&self) -> Option<usize> {
        match self {
            GltfError::GlbTruncated { offset, .. }
            | GltfError::GlbVersion { offset, .. }
            | GltfError::GlbLength { offset, .. }
            | GltfError::GlbChunk { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

/// One animation sampled, before the schema 4 builder: what
/// [`convert`] builds each [`Imported`] from, public so that tests can
/// hold the output against this evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledClip {
    /// Every node's local transform at every tick, from Appendix C.
    pub scene: SceneClip,
    /// The source's lossy steps.
    pub notes: Vec<Note>,
}

/// Converts every animation of a glTF or GLB file (or only the one
/// `options.clip` names) into schema 4, one [`Imported`] each: on the
/// player's body for a humanoid skeleton ([`humanoid`], as
/// `options.rig` says), else as a scene of named anchors.
pub fn convert(bytes: &[u8], options: &ConvertOptions) -> Result<Vec<Imported>, GltfError> {
    let (clips, skeleton) = sample_skeleton(bytes, options)?;
    let matching = humanoid::choose(&skeleton, options.rig)?;
    clips
        .into_iter()
        .map(|clip| {
            if let Some(matching) = &matching {
                return humanoid::convert_clip(&skeleton, matching, clip);
            }
            scene_animation_noted(&clip.scene, clip.notes).map_err(|error| GltfError::Import {
                clip: clip.scene.id.clone(),
                error,
            })
        })
        .collect()
}

/// Reads a glTF or GLB file and samples its animations (or the one
/// `options.clip` names) at every tick: [`convert`] without the builder.
pub fn sample(bytes: &[u8], options: &ConvertOptions) -> Result<Vec<SampledClip>, GltfError> {
    sample_skeleton(bytes, options).map(|(clips, _)| clips)
}

/// [`sample`], and the document's [`Skeleton`] for [`humanoid`].
pub fn sample_skeleton(
    bytes: &[u8],
    options: &ConvertOptions,
) -> Result<(Vec<SampledClip>, Skeleton), GltfError> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(GltfError::TooLarge {
            place: format!("byte {MAX_INPUT_BYTES}"),
            size_bytes: bytes.len() as u64,
            max_bytes: MAX_INPUT_BYTES as u64,
        });
    }
    let (json_bytes, json_offset, blob) = if glb::is_glb(bytes) {
        let split = glb::split(bytes)?;
        (split.json, Some(split.json_offset), split.bin)
    } else {
        (bytes, None, None)
    };
    let mut value: Value = serde_json::from_slice(json_bytes).map_err(|e| GltfError::Json {
        place: json_place(json_bytes, json_offset, &e),
        message: without_position(&e),
    })?;
    check_version(&value)?;
    let mut notes = Vec::new();
    let channel_indices = set_aside_untargeted(&mut value, &mut notes);
    let root: Root = serde_json::from_value(value).map_err(|e| GltfError::Json {
        place: "/".to_owned(),
        message: e.to_string(),
    })?;
    let document = ::gltf::Document::from_json(root).map_err(validation_error)?;
    let root = document.as_json();
    if root.animations.is_empty() {
        return Err(GltfError::NoAnimations);
    }

    let chosen = choose(root, options)?;
    let hierarchy = Hierarchy::new(root)?;
    let rest = rest_poses(&document);
    let needed = needed_buffers(root, &chosen);
    let buffers = Buffers::resolve(root, &needed, blob, options)?;
    let single = root.animations.len() == 1;
    let mut taken = std::collections::BTreeSet::new();
    let mut clips = Vec::with_capacity(chosen.len());
    for a in chosen {
        let original = root.animations.get(a).and_then(|x| x.name.clone());
        let short = clip_name(original.as_deref(), a);
        let mut id = options.id(if single { None } else { Some(&short) });
        let mut n = 2;
        while !taken.insert(id.clone()) {
            id = options.id(Some(&format!("{short}_{n}")));
            n += 1;
        }
        let mut metadata = Map::new();
        let name = original.filter(|n| !n.trim().is_empty());
        metadata.insert(
            "name".to_owned(),
            json!(name
                .clone()
                .unwrap_or_else(|| fallback_name(options, a, single))),
        );
        metadata.insert("source".to_owned(), json!("glTF"));
        let mut clip_notes = notes
            .iter()
            .filter(|n| n.pointer.starts_with(&format!("/animations/{a}/")))
            .cloned()
            .collect();
        let input = ClipInput {
            animation: a,
            channel_indices: channel_indices.get(a).map_or(&[], Vec::as_slice),
            id,
            metadata,
        };
        let scene = sample_clip(root, &buffers, &hierarchy, &rest, input, &mut clip_notes)?;
        clips.push(SampledClip {
            scene,
            notes: clip_notes,
        });
    }
    Ok((clips, Skeleton::new(root, &hierarchy, &rest)))
}

/// The name an unnamed animation's metadata gets.
fn fallback_name(options: &ConvertOptions, a: usize, single: bool) -> String {
    let stem = if options.stem.is_empty() {
        "glTF animation"
    } else {
        &options.stem
    };
    if single {
        stem.to_owned()
    } else {
        format!("{stem} {a}")
    }
}

/// Where a JSON parse error is, in the input.
fn json_place(json: &[u8], chunk_offset: Option<usize>, e: &serde_json::Error) -> String {
    // serde_json counts lines and columns from 1; find the byte they name.
    let mut line = 1usize;
    let mut start = 0usize;
    for (i, &b) in json.iter().enumerate() {
        if line == e.line() {
            break;
        }
        if b == b'\n' {
            line += 1;
            start = i + 1;
        }
    }
    let byte = start + e.column().saturating_sub(1) + chunk_offset.unwrap_or(0);
    format!("byte {byte} (line {}, column {})", e.line(), e.column())
}

/// serde_json's message without the `at line L column C` it appends
/// (the place says where).
fn without_position(e: &serde_json::Error) -> String {
    let message = e.to_string();
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    }
}

/// Refuses a document that says it is not glTF 2.
fn check_version(value: &Value) -> Result<(), GltfError> {
    let version = value.pointer("/asset/version").and_then(Value::as_str);
    match version {
        Some(v) if v.starts_with("2.") => Ok(()),
        Some(v) => Err(GltfError::Invalid {
            pointer: "/asset/version".to_owned(),
            rule: format!(
                "glTF {v} is not read; emoted reads glTF 2.x (re-export the file as glTF 2.0)"
            ),
        }),
        None => Err(GltfError::Invalid {
            pointer: "/asset/version".to_owned(),
            rule: "a glTF document has `asset.version` (\"2.0\")".to_owned(),
        }),
    }
}

/// Removes the channels that have no target node (which the
/// specification says to ignore), noting each; returns, per animation,
/// the file's index of every channel kept.
fn set_aside_untargeted(value: &mut Value, notes: &mut Vec<Note>) -> Vec<Vec<usize>> {
    let Some(animations) = value.get_mut("animations").and_then(Value::as_array_mut) else {
        return Vec::new();
    };
    animations
        .iter_mut()
        .enumerate()
        .map(|(a, animation)| {
            let Some(channels) = animation.get_mut("channels").and_then(Value::as_array_mut) else {
                return Vec::new();
            };
            let mut kept = Vec::new();
            let mut index = 0usize;
            channels.retain(|channel| {
                let c = index;
                index += 1;
                let has_node = channel.pointer("/target/node").is_some();
                if has_node || channel.get("target").is_none() {
                    kept.push(c);
                    true
                } else {
                    notes.push(Note::new(
                        format!("/animations/{a}/channels/{c}"),
                        "the channel has no target node (an extension's); it is skipped",
                    ));
                    false
                }
            });
            kept
        })
        .collect()
}

/// The crate's validation errors as one error (the first, with a count of
/// the others).
fn validation_error(error: ::gltf::Error) -> GltfError {
    match error {
        ::gltf::Error::Validation(errors) => {
            let more = errors.len().saturating_sub(1);
            let (pointer, rule) = errors
                .first()
                .map(|(path, e)| (pointer_of(path.as_str()), e.to_string()))
                .unwrap_or_else(|| ("/".to_owned(), "invalid".to_owned()));
            let rule = if more > 0 {
                format!("{rule} (and {more} more problem(s))")
            } else {
                rule
            };
            GltfError::Invalid { pointer, rule }
        }
        other => GltfError::Json {
            place: "/".to_owned(),
            message: other.to_string(),
        },
    }
}

/// The crate's validation path (`animations[0].channels[3].sampler`) as
/// a JSON pointer (`/animations/0/channels/3/sampler`).
pub fn pointer_of(path: &str) -> String {
    let mut out = String::from("/");
    for c in path.chars() {
        match c {
            '.' | '[' => {
                if !out.ends_with('/') {
                    out.push('/');
                }
            }
            ']' => {}
            c => out.push(c),
        }
    }
    out
}

/// The animations to convert: all, or the one `options.clip` names.
fn choose(root: &Root, options: &ConvertOptions) -> Result<Vec<usize>, GltfError> {
    let Some(wanted) = options.clip.as_deref() else {
        return Ok((0..root.animations.len()).collect());
    };
    let names: Vec<(String, String)> = root
        .animations
        .iter()
        .enumerate()
        .map(|(a, x)| {
            let original = x.name.clone().unwrap_or_else(|| format!("animation_{a}"));
            (original, clip_name(x.name.as_deref(), a))
        })
        .collect();
    let exact = names.iter().position(|(o, s)| o == wanted || s == wanted);
    let loose = || {
        names
            .iter()
            .position(|(o, s)| o.eq_ignore_ascii_case(wanted) || s.eq_ignore_ascii_case(wanted))
    };
    match exact.or_else(loose) {
        Some(a) => Ok(vec![a]),
        None => Err(GltfError::NoSuchClip {
            wanted: wanted.to_owned(),
            names: names.into_iter().map(|(o, _)| o).collect(),
        }),
    }
}

/// The buffers the chosen animations' accessors read.
fn needed_buffers(root: &Root, chosen: &[usize]) -> Vec<usize> {
    let mut views = Vec::new();
    for animation in chosen.iter().filter_map(|&a| root.animations.get(a)) {
        for sampler in &animation.samplers {
            for accessor in [sampler.input, sampler.output]
                .iter()
                .filter_map(|i| root.accessors.get(i.value()))
            {
                views.extend(accessor.buffer_view.map(|v| v.value()));
                if let Some(sparse) = &accessor.sparse {
                    views.push(sparse.indices.buffer_view.value());
                    views.push(sparse.values.buffer_view.value());
                }
            }
        }
    }
    let mut buffers: Vec<usize> = views
        .iter()
        .filter_map(|&v| root.buffer_views.get(v))
        .map(|v| v.buffer.value())
        .collect();
    buffers.sort_unstable();
    buffers.dedup();
    buffers
}
