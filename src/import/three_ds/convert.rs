//! A `.3ds` keyframer as a schema 4 Animation: the node hierarchy by name,
//! every node's local transform as lib3ds plays it ([`super::evaluate`])
//! at every tick, thinned by [`crate::import::scene`].
//!
//! # Choices
//! - **Which frames.** The active segment (`0xB008`) when the file has
//!   one, else frames 0 to the header's frame count, else the first to the
//!   last key of any track. Tick `t` shows frame `first + t/20 s × fps`
//!   (30 fps unless `--fps` says otherwise: the file does not store it);
//!   the timeline lasts until the last frame, rounded up to a tick.
//! - **Units.** One file unit is one block; 3D Studio's own unit is
//!   whatever the author modelled in, so a scene drawn in centimetres
//!   comes out a hundred times too large (the note on the root says so).
//! - **Facing.** After the Z-up to Y-up change, a model's front (3D
//!   Studio's −Y, what its Front view shows) faces +Z, the way a player
//!   faces at yaw 0, so the root anchor does not turn it.
//! - **What is drawn.** Object nodes become nodes named after their
//!   objects (a dummy by its instance name). A mesh (an object node with a
//!   bounding box, `0xB014`) is drawn as its box, a block display stretched
//!   over `bbox − pivot` (the mesh is drawn about its pivot), until meshes
//!   are read; the hide track then shows and hides the box. Cameras,
//!   lights and their targets are not emote parts: they are dropped with
//!   a note, and an object hung from one hangs from the root instead.
//! - **How it plays.** `once`: a `.3ds` scene states no loop.

use glam::{Affine3A, Vec3};
use serde_json::{json, Map, Value};

use super::keyframer::{Node, NodeKind, Scene};
use super::scene::{evaluate, z_up_to_y_up, FrameRate};
use super::{read_scene, ReadError};
use crate::format::settings::PlaybackMode;
use crate::format::MAX_TIMELINE_TICKS;
use crate::import::humanoid::Imported;
use crate::import::scene::{scene_animation_noted, CubeBox, NodeBody, SceneClip, SceneNode, Trs};
use crate::import::{ConvertOptions, ImportError, Note};

/// Why a `.3ds` file gave no emote.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConvertError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The scene could not be built.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The frame rate is not a positive number.
    #[error("--fps must be a positive number of frames per second, not {0}")]
    FrameRate(f32),
}

/// `bytes`, a `.3ds` file, as one schema 4 Animation, `fps` frames a
/// second (30 when `None`).
pub fn convert(
    bytes: &[u8],
    options: &ConvertOptions,
    fps: Option<f32>,
) -> Result<Vec<Imported>, ConvertError> {
    let rate = FrameRate {
        frames_per_second: fps.unwrap_or(FrameRate::default().frames_per_second),
    };
    if !(rate.frames_per_second.is_finite() && rate.frames_per_second > 0.0) {
        return Err(ConvertError::FrameRate(rate.frames_per_second));
    }
    let scene = read_scene(bytes)?;
    let mut notes = Vec::new();
    let (first, last, range_source) = frame_range(&scene);
    // In i64: a segment's frames are any i32, and `i32::MIN..i32::MAX`
    // spans more than an i32 (found by the `three_ds` fuzz target).
    let frames = (i64::from(last) - i64::from(first)).max(0) as f32;
    let duration_f = (frames / rate.frames_per_second * 20.0).ceil().max(1.0);
    if duration_f > MAX_TIMELINE_TICKS as f32 {
        return Err(ImportError::TooLong {
            pointer: range_source.to_owned(),
            ticks: duration_f as i64,
            max_ticks: MAX_TIMELINE_TICKS,
        }
        .into());
    }
    let duration_ticks = duration_f as u32;
    let samples: Vec<_> = (0..=duration_ticks)
        .map(|t| {
            let frame = rate.frame_at_tick(first, t as f32).min(last as f32);
            evaluate(&scene, frame)
        })
        .collect();

    // Kept nodes, parents first, and where each file node went.
    let mut kept_at: Vec<Option<usize>> = vec![None; scene.nodes.len()];
    let mut nodes: Vec<SceneNode> = Vec::new();
    for &index in scene.parent_first() {
        let Some(node) = scene.nodes.get(index) else {
            continue;
        };
        let source = format!("byte {}: node {}", node.offset, node.id);
        if node.kind != NodeKind::Object {
            notes.push(Note::new(
                source,
                format!(
                    "`{}` ({:?}) is not an emote part and is dropped",
                    node.name(),
                    node.kind
                ),
            ));
            continue;
        }
        let parent = node.parent.and_then(|p| kept_at.get(p).copied().flatten());
        if node.parent.is_some() && parent.is_none() {
            notes.push(Note::new(
                source.clone(),
                format!(
                    "`{}` hung from a dropped node; it hangs from the root",
                    node.name()
                ),
            ));
        }
        let frames = samples
            .iter()
            .map(|at| at.get(index).map_or(Trs::IDENTITY, |s| s.local))
            .collect();
        let visible: Vec<bool> = samples
            .iter()
            .map(|at| at.get(index).is_none_or(|s| s.visible))
            .collect();
        kept_at[index] = Some(nodes.len());
        nodes.push(SceneNode {
            name: node.name().to_owned(),
            source,
            parent,
            body: body(node),
            visible: if visible.iter().all(|&v| v) {
                Vec::new()
            } else {
                visible
            },
            frames,
        });
    }
    notes.push(Note::new(
        "/nodes/root",
        format!(
            "one file unit is one block, and frame {first} to {last} play at {} frames a second (a .3ds file stores neither)",
            rate.frames_per_second
        ),
    ));

    let name = scene
        .header
        .as_ref()
        .map(|h| h.name.clone())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| options.stem.clone());
    let mut metadata = Map::new();
    metadata.insert("name".to_owned(), Value::String(name));
    metadata.insert("source".to_owned(), json!("3D Studio .3ds keyframer"));
    let clip = SceneClip {
        id: options.id(None),
        metadata,
        duration_ticks,
        mode: PlaybackMode::Once,
        loop_delay_ticks: 0,
        to_player: Affine3A::IDENTITY,
        nodes,
        events: Vec::new(),
        textures: Vec::new(),
    };
    Ok(vec![scene_animation_noted(&clip, notes)?])
}

/// The frames that play: the segment, the header's count, or the keys', and
/// where they came from (the pointer of a too-long error).
fn frame_range(scene: &Scene) -> (i32, i32, &'static str) {
    if let Some(segment) = scene.segment {
        return (
            segment.first_frame,
            segment.last_frame.max(segment.first_frame),
            "chunk 0xB008",
        );
    }
    if let Some(header) = scene.header.as_ref().filter(|h| h.frame_count > 0) {
        return (
            0,
            i32::try_from(header.frame_count).unwrap_or(i32::MAX),
            "chunk 0xB00A",
        );
    }
    let frames = scene.nodes.iter().flat_map(|n| {
        let position = n.position.keys.iter().map(|k| k.frame);
        let rotation = n.rotation.track.keys.iter().map(|k| k.frame);
        let scale = n.scale.keys.iter().map(|k| k.frame);
        let hide = n.hide.keys.iter().map(|k| k.frame);
        position.chain(rotation).chain(scale).chain(hide)
    });
    let (low, high) = frames.fold((i32::MAX, i32::MIN), |(lo, hi), f| (lo.min(f), hi.max(f)));
    if low > high {
        (0, 0, "the track keys")
    } else {
        (low, high, "the track keys")
    }
}

/// A mesh's box about its pivot in emoted's axes, or an anchor.
fn body(node: &Node) -> NodeBody {
    let Some((low, high)) = node.bounding_box else {
        return NodeBody::Anchor;
    };
    let c = z_up_to_y_up();
    let a = c * (low - node.pivot);
    let b = c * (high - node.pivot);
    let min_blocks = a.min(b);
    let size_blocks = (a.max(b) - min_blocks).max(Vec3::ZERO);
    if !(min_blocks.is_finite() && size_blocks.is_finite()) {
        return NodeBody::Anchor;
    }
    NodeBody::Cube(CubeBox {
        min_blocks,
        size_blocks,
        faces: None,
    })
}
