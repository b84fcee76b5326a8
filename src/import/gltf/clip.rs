//! One glTF animation sampled at every tick into a [`SceneClip`]: the
//! channels read and checked, the node hierarchy cut to what moves, each
//! kept node's local transform evaluated from its rest pose and curves.

use std::collections::BTreeSet;

use ::gltf::json::accessor::Type;
use ::gltf::json::animation::{Interpolation as JsonInterpolation, Property};
use ::gltf::json::validation::Checked;
use ::gltf::json::Root;
use glam::{Affine3A, Quat, Vec3, Vec4};
use serde_json::Map;

use super::accessors::read_floats;
use super::buffers::Buffers;
use super::curves::{quat, Curve, CurveRule, Interpolation};
use super::hierarchy::Hierarchy;
use super::{GltfError, MAX_SAMPLES, TICKS_PER_SECOND};
use crate::format::settings::PlaybackMode;
use crate::format::MAX_TIMELINE_TICKS;
use crate::import::scene::{NodeBody, SceneClip, SceneNode, Trs};
use crate::import::{ImportError, Note};

/// Which part of a node's transform a channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Path {
    Translation,
    Rotation,
    Scale,
}

/// A checked channel: its node, what it drives and its curve.
struct Channel {
    node: usize,
    path: Path,
    curve: Curve,
}

/// What [`sample_clip`] needs besides the document.
pub(super) struct ClipInput<'a> {
    /// The animation's index.
    pub animation: usize,
    /// For each channel the parsed document kept, its index in the file.
    pub channel_indices: &'a [usize],
    /// The emote id.
    pub id: String,
    /// `metadata` to write.
    pub metadata: Map<String, serde_json::Value>,
}

/// Reads, checks and samples animation `input.animation` of `root`.
pub(super) fn sample_clip(
    root: &Root,
    buffers: &Buffers<'_>,
    hierarchy: &Hierarchy,
    rest: &[Result<Trs, String>],
    input: ClipInput<'_>,
    notes: &mut Vec<Note>,
) -> Result<SceneClip, GltfError> {
    let a = input.animation;
    let channels = read_channels(root, buffers, a, input.channel_indices, notes)?;
    if channels.is_empty() {
        return Err(GltfError::Invalid {
            pointer: format!("/animations/{a}/channels"),
            rule: "the animation moves no node (no translation, rotation or scale channel); there is nothing to convert".to_owned(),
        });
    }

    // Duration: the last key of any channel, rounded up to a whole tick.
    let end_secs = channels
        .iter()
        .map(|c| c.curve.end_secs())
        .fold(0.0f32, f32::max);
    let ticks = (f64::from(end_secs) * f64::from(TICKS_PER_SECOND) - 1e-3)
        .ceil()
        .max(1.0);
    if ticks > f64::from(MAX_TIMELINE_TICKS) {
        return Err(GltfError::Import {
            clip: input.id,
            error: ImportError::TooLong {
                pointer: format!("/animations/{a}"),
                ticks: ticks.min(i64::MAX as f64) as i64,
                max_ticks: MAX_TIMELINE_TICKS,
            },
        });
    }
    let duration_ticks = ticks as u32;

    // The nodes kept: every animated node and its ancestors, parents first.
    let animated: BTreeSet<usize> = channels.iter().map(|c| c.node).collect();
    let (kept, dropped) = hierarchy.keep(&animated);
    for (node, below) in dropped {
        notes.push(Note::new(
            format!("/nodes/{node}"),
            format!(
                "`{}` and the {below} node(s) below it are dropped: this animation moves none of them",
                node_name(root, node)
            ),
        ));
    }
    let samples = kept.len().saturating_mul(duration_ticks as usize + 1);
    if samples > MAX_SAMPLES {
        return Err(GltfError::Invalid {
            pointer: format!("/animations/{a}"),
            rule: format!(
                "{} nodes over {duration_ticks} ticks make {samples} samples, over emoted's limit of {MAX_SAMPLES}; split the scene or the clip",
                kept.len()
            ),
        });
    }

    let mut nodes = Vec::with_capacity(kept.len());
    for (position, &index) in kept.iter().enumerate() {
        let pointer = format!("/nodes/{index}");
        let rest_pose = match rest.get(index) {
            Some(Ok(trs)) => *trs,
            Some(Err(rule)) => {
                return Err(GltfError::Invalid {
                    pointer,
                    rule: rule.clone(),
                })
            }
            None => Trs::IDENTITY,
        };
        let own: Vec<&Channel> = channels.iter().filter(|c| c.node == index).collect();
        if !own.is_empty() && root.nodes.get(index).is_some_and(|n| n.matrix.is_some()) {
            notes.push(Note::new(
                format!("{pointer}/matrix"),
                "an animated node should not have a matrix; it is decomposed into translation, rotation and scale for the channels to replace",
            ));
        }
        let frames = (0..=duration_ticks)
            .map(|tick| {
                let time_secs = tick as f32 / TICKS_PER_SECOND;
                let mut trs = rest_pose;
                for channel in &own {
                    let v = channel.curve.sample(time_secs);
                    match channel.path {
                        Path::Translation => trs.translation = v.truncate(),
                        Path::Rotation => trs.rotation = quat(v),
                        Path::Scale => trs.scale = v.truncate(),
                    }
                }
                trs
            })
            .collect();
        let name = match root.nodes.get(index).and_then(|n| n.name.clone()) {
            Some(name) => name,
            None => {
                let name = format!("node_{index}");
                notes.push(Note::new(
                    pointer.clone(),
                    format!("the node has no name; it is called `{name}`"),
                ));
                name
            }
        };
        let parent = hierarchy
            .parent(index)
            .and_then(|p| kept.iter().position(|&k| k == p))
            .filter(|&p| p < position);
        nodes.push(SceneNode {
            name,
            source: pointer,
            parent,
            body: NodeBody::Anchor,
            frames,
            visible: Vec::new(),
        });
    }

    Ok(SceneClip {
        id: input.id,
        metadata: input.metadata,
        duration_ticks,
        mode: PlaybackMode::Once,
        loop_delay_ticks: 0,
        to_player: Affine3A::IDENTITY,
        nodes,
        events: Vec::new(),
        textures: Vec::new(),
    })
}

/// A node's name for a message.
fn node_name(root: &Root, index: usize) -> String {
    root.nodes
        .get(index)
        .and_then(|n| n.name.clone())
        .unwrap_or_else(|| format!("node_{index}"))
}

/// The animation's translation, rotation and scale channels, checked;
/// other channels are skipped with a note.
fn read_channels(
    root: &Root,
    buffers: &Buffers<'_>,
    a: usize,
    channel_indices: &[usize],
    notes: &mut Vec<Note>,
) -> Result<Vec<Channel>, GltfError> {
    let Some(animation) = root.animations.get(a) else {
        return Ok(Vec::new());
    };
    let mut channels: Vec<Channel> = Vec::new();
    let mut targets: Vec<(usize, Path, usize)> = Vec::new();
    let mut noted_samplers = BTreeSet::new();
    for (position, channel) in animation.channels.iter().enumerate() {
        let c = channel_indices.get(position).copied().unwrap_or(position);
        let pointer = format!("/animations/{a}/channels/{c}");
        let path = match channel.target.path {
            Checked::Valid(Property::Translation) => Path::Translation,
            Checked::Valid(Property::Rotation) => Path::Rotation,
            Checked::Valid(Property::Scale) => Path::Scale,
            Checked::Valid(Property::MorphTargetWeights) => {
                notes.push(Note::new(
                    pointer,
                    "morph target weights are skipped: emoted moves nodes and draws no meshes to morph",
                ));
                continue;
            }
            Checked::Invalid => {
                notes.push(Note::new(
                    format!("{pointer}/target/path"),
                    "the channel drives a property glTF 2.0 does not define (an extension's); it is skipped",
                ));
                continue;
            }
        };
        let node = channel.target.node.value();
        if node >= root.nodes.len() {
            return Err(GltfError::Invalid {
                pointer: format!("{pointer}/target/node"),
                rule: format!(
                    "there is no node {node} (the file has {})",
                    root.nodes.len()
                ),
            });
        }
        if let Some((_, _, earlier)) = targets.iter().find(|t| t.0 == node && t.1 == path) {
            return Err(GltfError::Invalid {
                pointer: format!("{pointer}/target"),
                rule: format!(
                    "channel {earlier} already drives this node's {path:?}; an animation drives each node property at most once"
                ),
            });
        }
        targets.push((node, path, c));
        let s = channel.sampler.value();
        let sampler_pointer = format!("/animations/{a}/samplers/{s}");
        let Some(sampler) = animation.samplers.get(s) else {
            return Err(GltfError::Invalid {
                pointer: format!("{pointer}/sampler"),
                rule: format!("there is no sampler {s} in this animation"),
            });
        };
        let interpolation = match sampler.interpolation {
            Checked::Valid(JsonInterpolation::Step) => Interpolation::Step,
            Checked::Valid(JsonInterpolation::Linear) => Interpolation::Linear,
            Checked::Valid(JsonInterpolation::CubicSpline) => Interpolation::CubicSpline,
            Checked::Invalid => {
                return Err(GltfError::Invalid {
                    pointer: format!("{sampler_pointer}/interpolation"),
                    rule: "interpolation is LINEAR, STEP or CUBICSPLINE".to_owned(),
                })
            }
        };
        let input = sampler.input.value();
        let output = sampler.output.value();
        let times = read_floats(root, buffers, input, &[Type::Scalar], "a sampler's input")?;
        let shape = match path {
            Path::Rotation => Type::Vec4,
            Path::Translation | Path::Scale => Type::Vec3,
        };
        let what = match path {
            Path::Translation => "a translation output",
            Path::Rotation => "a rotation output",
            Path::Scale => "a scale output",
        };
        let out = read_floats(root, buffers, output, &[shape], what)?;
        let values: Vec<Vec4> = (0..out.count())
            .map(|i| match *out.element(i) {
                [x, y, z, w] => Vec4::new(x, y, z, w),
                [x, y, z] => Vec4::new(x, y, z, 0.0),
                _ => Vec4::ZERO,
            })
            .collect();
        let curve = Curve::new(times.values, values, interpolation, path == Path::Rotation)
            .map_err(|rule| curve_error(rule, &sampler_pointer, input, output))?;
        if noted_samplers.insert(s) {
            if let Some(message) = resample_note(&curve) {
                notes.push(Note::new(sampler_pointer, message));
            }
        }
        channels.push(Channel { node, path, curve });
    }
    Ok(channels)
}

/// What resampling a curve at 20 tps loses, if anything.
fn resample_note(curve: &Curve) -> Option<String> {
    let between = curve.times_secs().iter().find(|&&t| {
        let ticks = f64::from(t) * f64::from(TICKS_PER_SECOND);
        (ticks - ticks.round()).abs() > 1e-3
    });
    match curve.interpolation() {
        Interpolation::CubicSpline => Some(format!(
            "CUBICSPLINE resampled at {TICKS_PER_SECOND} tps"
        )),
        Interpolation::Step if curve.times_secs().len() > 1 => Some(format!(
            "STEP sampled at {TICKS_PER_SECOND} tps: each jump plays as a one-tick blend{}",
            between.map_or(String::new(), |t| format!(
                ", and keys between ticks (the first at {t} s) jump at the next tick"
            ))
        )),
        Interpolation::Linear => between.map(|t| {
            format!(
                "LINEAR resampled at {TICKS_PER_SECOND} tps: keys fall between ticks (the first at {t} s)"
            )
        }),
        Interpolation::Step => None,
    }
}

/// A [`CurveRule`] as the error naming the accessor.
fn curve_error(rule: CurveRule, sampler: &str, input: usize, output: usize) -> GltfError {
    let (pointer, rule) = match rule {
        CurveRule::NoKeys => (format!("{sampler}/input"), "a sampler has at least one key".to_owned()),
        CurveRule::Time { index } => (
            format!("/accessors/{input}"),
            format!("key time {index} is not finite or not after the one before; a sampler's input times strictly increase"),
        ),
        CurveRule::Count { expected, given } => (
            format!("/accessors/{output}/count"),
            format!("the sampler's output has {given} elements; its keys need {expected} (three per key for CUBICSPLINE)"),
        ),
        CurveRule::NotFinite { index } => (
            format!("/accessors/{output}"),
            format!("element {index} is not a finite number"),
        ),
    };
    GltfError::Invalid { pointer, rule }
}

/// Every node's rest pose from its `matrix` or `translation`, `rotation`
/// and `scale`, or why it cannot be used.
pub(super) fn rest_poses(document: &::gltf::Document) -> Vec<Result<Trs, String>> {
    document
        .nodes()
        .map(|node| {
            let (t, r, s) = node.transform().decomposed();
            let trs = Trs {
                translation: Vec3::from_array(t),
                rotation: Quat::from_array(r),
                scale: Vec3::from_array(s),
            };
            let finite = trs.translation.is_finite() && trs.rotation.is_finite() && trs.scale.is_finite();
            if !finite || trs.rotation.length() < 1e-6 {
                return Err("the node's rest transform is not finite (a matrix with a zero scale?) or its rotation is zero".to_owned());
            }
            Ok(Trs {
                rotation: trs.rotation.normalize(),
                ..trs
            })
        })
        .collect()
}
