//! A model's bones and cubes in Blockbench's display space, and the
//! composition both formats share: a bone's local transform at a time is
//! its rest plus its animation, **added** as Blockbench adds it
//! (import-notes.md §1, "Additive to rest").
//!
//! # Space and units
//! Blockbench's (three.js's) world: right-handed, Y up, pixels (16 px = 1
//! block). A [`RigNode`]'s pivot is absolute in that space; its rotation
//! is Euler degrees composed **ZYX** (`q = qz·qy·qx`). A Bedrock file is
//! mirrored on X into this space by its reader; a `.bbmodel` already is in
//! it.
//!
//! # A node's local transform
//! `T((pivot − parent pivot + p) / 16) · R_ZYX(rest + r) · S(s)`, with
//! `p`, `r`, `s` the animation's position (px, in the parent's frame),
//! rotation (degrees, summed per Euler component with the rest before
//! composing) and scale (a factor; Blockbench turns 0 into 0.00001). A
//! root's "parent pivot" is the model origin (plus the reader's
//! [`Rig::root_offset_px`]). Cubes are children of their bone, placed at
//! their own pivot with their own rotation, and never animated.

use glam::{Affine3A, Quat, Vec3};

use super::curves::{Channel, Resolve};
use crate::import::scene::{CubeBox, CubeFaces, NodeBody, SceneNode, Trs};

/// Pixels per block.
pub const PX_PER_BLOCK: f32 = 16.0;
/// What Blockbench puts in place of a zero scale factor.
const ZERO_SCALE: f64 = 0.00001;

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum RigBody {
    /// A bone or group: draws nothing itself.
    Bone,
    /// A cube, corners absolute in px (inflate applied).
    Cube {
        /// One corner.
        from_px: Vec3,
        /// The opposite corner.
        to_px: Vec3,
        /// Its textured faces, when the reader has them (a `.bbmodel`
        /// with embedded textures; `None` draws it untextured).
        faces: Option<Box<CubeFaces>>,
    },
}

/// One bone or cube.
#[derive(Clone, Debug, PartialEq)]
pub struct RigNode {
    /// The source's name.
    pub name: String,
    /// Where the source has it (a JSON pointer).
    pub source: String,
    /// The parent, an earlier index.
    pub parent: Option<usize>,
    /// The pivot, absolute, px.
    pub pivot_px: Vec3,
    /// The rest rotation, degrees, composed ZYX.
    pub rotation_deg: Vec3,
    /// Bone or cube.
    pub body: RigBody,
}

/// A model: nodes, parents first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rig {
    /// The nodes, each parent before its children.
    pub nodes: Vec<RigNode>,
    /// Added to every root's translation, px (Blockbench draws
    /// `java_block` models shifted by −8 px on X and Z).
    pub root_offset_px: Vec3,
}

/// One node's animation channels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeChannels {
    /// Degrees, added to the rest per component.
    pub rotation: Channel,
    /// Px, in the parent's frame.
    pub position: Channel,
    /// Factors.
    pub scale: Channel,
}

/// `degrees` composed ZYX (three.js `Euler(x, y, z, "ZYX")`): `qz·qy·qx`.
pub fn quat_zyx_degrees(degrees: Vec3) -> Quat {
    let r = degrees * (std::f32::consts::PI / 180.0);
    Quat::from_rotation_z(r.z) * Quat::from_rotation_y(r.y) * Quat::from_rotation_x(r.x)
}

/// From Blockbench's space into the player's: a half turn about Y. A
/// Blockbench or Bedrock model faces −Z (north) with +X at its right;
/// emoted's player faces +Z at yaw 0 with +X at their left, so turning the
/// model half round makes it face where the player faces, its right at
/// the player's right.
pub fn to_player() -> Affine3A {
    Affine3A::from_quat(Quat::from_rotation_y(std::f32::consts::PI))
}

impl Rig {
    /// The translation of `node` at rest from its parent's origin, px.
    fn rest_offset_px(&self, node: &RigNode) -> Vec3 {
        match node.parent.and_then(|p| self.nodes.get(p)) {
            Some(parent) => node.pivot_px - parent.pivot_px,
            None => node.pivot_px + self.root_offset_px,
        }
    }

    /// Node `index`'s local transform with the animation values
    /// `rotation_deg`, `position_px`, `scale` added to its rest.
    pub fn local(
        &self,
        index: usize,
        rotation_deg: [f64; 3],
        position_px: [f64; 3],
        scale: [f64; 3],
    ) -> Trs {
        let Some(node) = self.nodes.get(index) else {
            return Trs::IDENTITY;
        };
        let v = |a: [f64; 3]| Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32);
        let factor = scale.map(|s| if s == 0.0 { ZERO_SCALE } else { s });
        Trs {
            translation: (self.rest_offset_px(node) + v(position_px)) / PX_PER_BLOCK,
            rotation: quat_zyx_degrees(node.rotation_deg + v(rotation_deg)),
            scale: v(factor),
        }
    }

    /// Every node's local transform at `time_secs`, `animated[i]` giving
    /// node `i`'s channels (missing or empty channels leave the rest).
    pub fn pose(
        &self,
        animated: &[Option<NodeChannels>],
        time_secs: f64,
        looping: bool,
        values: &mut dyn Resolve,
    ) -> Vec<Trs> {
        (0..self.nodes.len())
            .map(|i| match animated.get(i).and_then(Option::as_ref) {
                Some(channels) => {
                    let rotation = channels.rotation.sample(time_secs, looping, values);
                    let position = channels.position.sample(time_secs, looping, values);
                    let scale = channels.scale.sample(time_secs, looping, values);
                    self.local(
                        i,
                        rotation.unwrap_or([0.0; 3]),
                        position.unwrap_or([0.0; 3]),
                        scale.unwrap_or([1.0; 3]),
                    )
                }
                None => self.local(i, [0.0; 3], [0.0; 3], [1.0; 3]),
            })
            .collect()
    }

    /// The scene nodes, with `frames[tick][node]` as their motion.
    pub fn scene_nodes(&self, frames: &[Vec<Trs>]) -> Vec<SceneNode> {
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, node)| SceneNode {
                name: node.name.clone(),
                source: node.source.clone(),
                parent: node.parent,
                body: match &node.body {
                    RigBody::Bone => NodeBody::Anchor,
                    RigBody::Cube {
                        from_px,
                        to_px,
                        faces,
                    } => NodeBody::Cube(CubeBox {
                        min_blocks: (from_px.min(*to_px) - node.pivot_px) / PX_PER_BLOCK,
                        size_blocks: (*to_px - *from_px).abs() / PX_PER_BLOCK,
                        faces: faces.clone(),
                    }),
                },
                frames: frames
                    .iter()
                    .map(|pose| pose.get(i).copied().unwrap_or_default())
                    .collect(),
                visible: Vec::new(),
            })
            .collect()
    }
}

/// Orders `nodes` (whose `parent` indices point anywhere in the list)
/// parents first, keeping the file's order among siblings, and rewrites
/// the indices. `Err(i)` names a node whose parent chain loops.
pub fn parents_first(nodes: Vec<RigNode>) -> Result<Vec<RigNode>, usize> {
    let count = nodes.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut roots = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        match node.parent.filter(|&p| p < count) {
            Some(p) => children.get_mut(p).map_or((), |c| c.push(i)),
            None => roots.push(i),
        }
    }
    let mut order = Vec::with_capacity(count);
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        if let Some(kids) = children.get(i) {
            stack.extend(kids.iter().rev());
        }
    }
    if order.len() < count {
        let placed: std::collections::BTreeSet<usize> = order.iter().copied().collect();
        return Err((0..count).find(|i| !placed.contains(i)).unwrap_or(0));
    }
    let mut new_index = vec![0usize; count];
    for (new, &old) in order.iter().enumerate() {
        if let Some(slot) = new_index.get_mut(old) {
            *slot = new;
        }
    }
    let mut slots: Vec<Option<RigNode>> = nodes.into_iter().map(Some).collect();
    Ok(order
        .iter()
        .filter_map(|&old| slots.get_mut(old).and_then(Option::take))
        .map(|mut node| {
            node.parent = node.parent.and_then(|p| new_index.get(p).copied());
            node
        })
        .collect())
}
