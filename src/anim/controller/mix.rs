//! Mixing what a controller's layers pose into one body pose.
//!
//! # The model
//! A controller's clips all pose one **body**: the rig of the first clip of
//! its base layer's default state (the library checks that every other
//! clip's nodes are nodes of it, with the same parents). Each tick the
//! sampler hands in every sampled clip's local transforms, and
//! [`BodyMixer::mix`] writes the body's pose, node by node in rig order
//! (parents first), starting from the body's rest:
//!
//! - **Inside a layer** the clips share a node by weight (a weighted mean,
//!   rotations by [`blend_joint`]'s weighted slerp). A clip that lacks the
//!   node leaves its share to what is under the layer.
//! - **The layer** then covers what is under it by its weight × the node's
//!   mask weight: an override layer replaces it by that much; an additive
//!   layer adds each clip's difference from the body's rest (rotation
//!   `rest⁻¹ · r`, position `p − rest`, scale `s / rest`), scaled by that
//!   much. Layers are applied in file order, base first, so a later layer
//!   sees every earlier one under it.
//! - **Masks** name nodes; a node the mask does not name takes its
//!   parent's mask weight (seed 004: "mask bones and their descendants"),
//!   and a root it does not name is left alone (weight 0).
//! - **Visibility** is the heaviest sample's (over every layer), or the
//!   body's own when no sample covers the node.

use glam::{Affine3A, Vec3};

use super::{Blending, CompiledController, ControllerOutput};
use crate::anim::layers::{blend_joint, Blend, JointChannels, JointPose, TrackOnJoint};
use crate::anim::pose::NodePose;
use crate::anim::rig::Rig;

/// One sampled clip, as the mixer reads it.
#[derive(Clone, Copy, Debug)]
pub struct ClipPose<'a> {
    /// The clip's sampled nodes, in its rig order.
    pub nodes: &'a [NodePose],
    /// For each body node, the clip node that poses it (`None`: the clip
    /// lacks it).
    pub from_body: &'a [Option<usize>],
}

/// Mixes a controller's layers onto its body; one per playing copy (it
/// keeps scratch buffers, so mixing does not allocate once warm).
#[derive(Clone, Debug)]
pub struct BodyMixer {
    /// Per layer, per body node: the mask weight.
    masks: Vec<Vec<f32>>,
    tracks: Vec<TrackOnJoint>,
}

impl BodyMixer {
    /// The mixer of `controller` on `body`: each layer's mask resolved to
    /// a weight per body node.
    pub fn new(controller: &CompiledController, body: &Rig) -> Self {
        let masks = (0..controller.layer_count())
            .map(|l| {
                let mask = controller.layer(l).mask.as_deref();
                let mut weights = vec![0.0_f32; body.nodes.len()];
                for (i, node) in body.nodes.iter().enumerate() {
                    weights[i] = match mask {
                        None => 1.0,
                        Some(mask) => match mask.iter().find(|m| m.node == node.id) {
                            Some(named) => named.weight,
                            None => node.parent.map_or(0.0, |p| weights[p]),
                        },
                    };
                }
                weights
            })
            .collect();
        Self {
            masks,
            tracks: Vec::new(),
        }
    }

    /// The mask weight of body node `node` in layer `layer`.
    pub fn mask_weight(&self, layer: usize, node: usize) -> f32 {
        self.masks
            .get(layer)
            .and_then(|m| m.get(node))
            .copied()
            .unwrap_or(0.0)
    }

    /// Writes the body's pose for `output` into `pose` (one per body node),
    /// reading clip `c`'s sampled nodes from `clip(c)`.
    pub fn mix<'c>(
        &mut self,
        body: &Rig,
        output: &ControllerOutput,
        clip: impl Fn(usize) -> Option<ClipPose<'c>>,
        pose: &mut [NodePose],
    ) {
        for (i, node) in body.nodes.iter().enumerate() {
            let rest = JointPose {
                rotation: node.rest_rotation,
                position: node.rest_position,
                scale: node.rest_scale,
            };
            let mut joint = rest;
            let mut visible = (0.0_f32, node.initial_visible);
            for (l, layer) in output.layers.iter().enumerate() {
                let cover = layer.weight * self.mask_weight(l, i);
                if cover <= 0.0 {
                    continue;
                }
                let blend = match layer.blending {
                    Blending::Override => Blend::Normal,
                    Blending::Additive => Blend::Additive,
                };
                self.tracks.clear();
                for sample in &layer.samples {
                    let Some(clip) = clip(sample.clip.0) else {
                        continue;
                    };
                    let Some(sampled) = clip
                        .from_body
                        .get(i)
                        .copied()
                        .flatten()
                        .and_then(|c| clip.nodes.get(c))
                    else {
                        continue;
                    };
                    let weight = sample.weight * cover;
                    if weight > visible.0 {
                        visible = (weight, sampled.visible);
                    }
                    let channels = match blend {
                        Blend::Normal => JointChannels {
                            rotation: Some(sampled.rotation),
                            position: Some(sampled.position),
                            scale: Some(sampled.scale),
                        },
                        Blend::Additive => JointChannels {
                            rotation: Some(rest.rotation.inverse() * sampled.rotation),
                            position: Some(sampled.position - rest.position),
                            scale: Some(ratio(sampled.scale, rest.scale)),
                        },
                    };
                    self.tracks.push(TrackOnJoint {
                        priority: 0.0,
                        weight,
                        blend,
                        channels,
                    });
                }
                if !self.tracks.is_empty() {
                    joint = blend_joint(joint, &self.tracks);
                }
            }
            let rotation = joint.rotation.normalize();
            let local =
                Affine3A::from_scale_rotation_translation(joint.scale, rotation, joint.position);
            let matrix = match node.parent.and_then(|p| pose.get(p)) {
                Some(parent) => parent.matrix * local,
                None => local,
            };
            if let Some(slot) = pose.get_mut(i) {
                *slot = NodePose {
                    visible: visible.1,
                    position: joint.position,
                    rotation,
                    scale: joint.scale,
                    matrix,
                };
            }
        }
    }
}

/// `a / b` per component, 1 where `b` is 0 (a flat rest scales nothing).
fn ratio(a: Vec3, b: Vec3) -> Vec3 {
    let div = |a: f32, b: f32| if b == 0.0 { 1.0 } else { a / b };
    Vec3::new(div(a.x, b.x), div(a.y, b.y), div(a.z, b.z))
}
