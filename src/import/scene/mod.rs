//! A source's own node hierarchy, sampled at every tick, as a schema 4
//! Animation whose nodes keep the source's names: what every importer
//! of a free-form rig ends in (Blockbench, Bedrock geometry, glTF, the
//! `.3ds` keyframer), as [`super::humanoid`] is for body emotes.
//!
//! # The model
//! A [`SceneClip`] is a list of [`SceneNode`]s, parents before children,
//! each with its source name, its parent (an index into the list), what
//! it draws ([`NodeBody`]) and, for every tick `0..=duration_ticks`, its
//! **local** transform ([`Trs`]: blocks, a unit quaternion, factors) in
//! the source's own frame, converted to Y up and blocks by the importer,
//! and optionally whether it shows. `to_player` carries the source's
//! frame into the player's (emoted's players face +Z at yaw 0, +X is
//! their left): the builder writes it as the transform of one root anchor,
//! [`ROOT_NODE_ID`], in `initiator` space, from which every source root
//! hangs.
//!
//! The builder ([`scene_animation`]):
//! - makes each name a node id ([`node_id`]): lower case, `[a-z0-9_]`,
//!   unique; a name that had to change gets a note naming both;
//! - writes each node's tick-0 transform as its `transform`, and a
//!   `position`, `rotation` or `scale` track only for a channel that moves
//!   from it; tracks are resampled at every tick and thinned back to the
//!   fewest linear keys that stay within [`POSITION_TOLERANCE_BLOCKS`],
//!   [`ROTATION_TOLERANCE_RADIANS`] and [`SCALE_TOLERANCE`] of every tick
//!   **in the node's world** (parents first, each node against its
//!   parent's world as the thinned parent plays it, with the position
//!   tolerance divided by the parent's largest scale, so a parent's error
//!   is made up by its children instead of adding up down the chain);
//! - writes a `visible` track (step keys where the value changes) for a
//!   display node whose visibility changes; an anchor cannot be hidden,
//!   so visibility given for an anchor is dropped with a note;
//! - writes each [`SceneEvent`] as a timeline event run by the server at
//!   the root;
//! - reads the JSON back through the schema 4 reader, so what comes out
//!   is the validated [`AnimationFile`] a hand-written file gives.
//!
//! # Cubes
//! A [`NodeBody::Cube`] (a Blockbench or Bedrock cube) gets a child
//! display node that draws its box ([`textured`] has the details):
//!
//! - **textured**, when the importer gave its faces ([`CubeBox::faces`])
//!   and every face's texture is one of [`SceneClip::textures`]: an
//!   `item_display` of [`IMPORTED_BASE_ITEM`](crate::format::resources::IMPORTED_BASE_ITEM)
//!   whose `CustomModelData` selects an item model of one element, the
//!   whole 16³ model box with the cube's face UVs. The cube's box is on
//!   the display node (centre, a half turn about Y that undoes the one an
//!   item display makes, its size as the scale), so the element stays
//!   axis-aligned and within Java's −16..32 px whatever the cube's size.
//!   The models and the PNGs go into the Animation's `resources`
//!   ([`crate::format::resources`]), which emoted's pack serves;
//! - **untextured** otherwise (Bedrock geometry, whose textures are files
//!   of their own; a Blockbench cube whose texture is not embedded): a
//!   `block_display` of [`CUBE_BLOCK`] stretched over the box. The
//!   display's own unit cube spans the node's origin to `(1, 1, 1)`, so
//!   the node sits at the box's minimum corner scaled to its size. A note
//!   says so.

mod build;
mod ids;
pub mod textured;

use glam::{Affine3A, Quat, Vec3};
use serde_json::{Map, Value};

use crate::format::settings::PlaybackMode;

pub use self::build::{scene_animation, scene_animation_noted};
pub use self::ids::node_id;
pub use super::keys::{POSITION_TOLERANCE_BLOCKS, ROTATION_TOLERANCE_RADIANS, SCALE_TOLERANCE};
/// The id of the root anchor every source root hangs from.
pub const ROOT_NODE_ID: &str = "root";
/// The block an untextured cube is drawn with.
pub const CUBE_BLOCK: &str = "minecraft:white_concrete";

/// A local transform: `T(translation) · R(rotation) · S(scale)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    /// Blocks, in the parent's frame.
    pub translation: Vec3,
    /// A unit quaternion.
    pub rotation: Quat,
    /// Factors along the node's own axes.
    pub scale: Vec3,
}

impl Trs {
    /// No move, no turn, scale 1.
    pub const IDENTITY: Trs = Trs {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// The transform as an affine matrix.
    pub fn affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

impl Default for Trs {
    fn default() -> Self {
        Trs::IDENTITY
    }
}

/// What a node draws.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeBody {
    /// Nothing: a bone, a group, an empty.
    Anchor,
    /// A display node, given by its schema 4 fields besides `parent`,
    /// `space` and `transform` (`type`, `item_stack_snbt`, `item_display`,
    /// `text`, `block_state_snbt`, `entity_nbt`, `skin`…), as written.
    Display(Map<String, Value>),
    /// A box in the node's frame (a Blockbench or Bedrock cube).
    Cube(CubeBox),
}

/// A box, in blocks, in its node's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct CubeBox {
    /// The corner with the smallest coordinates.
    pub min_blocks: Vec3,
    /// Its extent on each axis (each at least 0).
    pub size_blocks: Vec3,
    /// Its faces in the order of
    /// [`Face::ALL`](crate::format::resources::Face::ALL) (north, east,
    /// south, west, up, down), `None` for a face not drawn; `None` for
    /// the whole box when the importer has no textures for it (it is
    /// drawn untextured).
    pub faces: Option<Box<CubeFaces>>,
}

/// A cube's six faces (module docs, "Cubes").
pub type CubeFaces = [Option<CubeFace>; 6];

/// One textured face of a cube.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubeFace {
    /// `[u1, v1, u2, v2]` in item model units: 0..16 over the whole
    /// texture, `u2 < u1` (or `v2 < v1`) mirrored.
    pub uv: [f32; 4],
    /// An index into [`SceneClip::textures`].
    pub texture: usize,
    /// The face's UV rotation: 0, 90, 180 or 270 degrees.
    pub rotation_deg: u16,
}

/// A texture the source embeds.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneTexture {
    /// The source's name for it (`skin.png`); the builder makes it a
    /// resource name.
    pub name: String,
    /// The checked PNG.
    pub texture: crate::format::resources::Texture,
}

/// One node of the source and its motion.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneNode {
    /// The source's name for it (a bone, node or object name); the builder
    /// makes it a node id.
    pub name: String,
    /// Where the source has this node, for notes (`/animations/0/bones/arm`
    /// or `node 7`).
    pub source: String,
    /// The parent, an index into [`SceneClip::nodes`] smaller than this
    /// node's own; `None` hangs it from the root anchor.
    pub parent: Option<usize>,
    /// What it draws.
    pub body: NodeBody,
    /// Its local transform at every tick `0..=duration_ticks`.
    pub frames: Vec<Trs>,
    /// Whether it shows at every tick `0..=duration_ticks`; empty when it
    /// always shows.
    pub visible: Vec<bool>,
}

/// Commands to run at one tick.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneEvent {
    /// When, in ticks after the start (before the duration).
    pub tick: u32,
    /// Where the source has it, for notes.
    pub source: String,
    /// The commands, without a leading `/`.
    pub commands: Vec<String>,
}

/// A source animation sampled at every tick, and how it plays.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneClip {
    /// The emote id to write (`namespace:path`).
    pub id: String,
    /// `metadata` as written (at least a `name`).
    pub metadata: Map<String, Value>,
    /// The timeline's length in ticks, 1..=[`crate::format::MAX_TIMELINE_TICKS`].
    pub duration_ticks: u32,
    /// How it plays.
    pub mode: PlaybackMode,
    /// For `loop` and `server_sync`: the ticks of rest between cycles.
    pub loop_delay_ticks: u32,
    /// From the source's frame (Y up, blocks) into the player's.
    pub to_player: Affine3A,
    /// The nodes, parents first.
    pub nodes: Vec<SceneNode>,
    /// Commands at their ticks.
    pub events: Vec<SceneEvent>,
    /// The textures cube faces name ([`CubeFace::texture`]).
    pub textures: Vec<SceneTexture>,
}

#[cfg(test)]
mod tests;
