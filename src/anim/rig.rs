//! A compiled Animation: nodes in parent-first order with their rest
//! transforms and compiled tracks. Built once at load from a validated
//! [`AnimationFile`]; sampling assumes it is valid.

use glam::{Affine3A, Quat, Vec3};

use super::euler::quat_from_euler_degrees;
use super::nbt::{NbtChoice, NbtTrack};
use super::track::{
    CompiledKey, ExprId, Scalar, VectorChannel, VectorTrack, Visibility, VisibilityTrack,
};
use crate::format::nbt_track::NbtValue;
use crate::format::node::Attachment;
use crate::format::problem::join_pointer;
use crate::format::track::{Component, KeyValue, VectorKey, VisibilityValue};
use crate::format::AnimationFile;

/// Compiles the Molang strings a rig refers to. The library implements it
/// with the Molang compiler; tests can number expressions themselves.
pub trait ExprCompiler {
    /// The error a string can fail with.
    type Error;
    /// Compiles `source`, found at JSON `pointer` in the file, as a track
    /// expression (reads `v.*`, may not assign it).
    fn compile(&mut self, source: &str, pointer: &str) -> Result<ExprId, Self::Error>;
}

/// One node of a rig.
#[derive(Clone, Debug)]
pub struct RigNode {
    /// The node id from the file.
    pub id: String,
    /// Index of the parent in [`Rig::nodes`] (always lower than this node's).
    pub parent: Option<usize>,
    /// The node's transform position, used when it has no position track.
    pub rest_position: Vec3,
    /// The node's transform rotation.
    pub rest_rotation: Quat,
    /// The node's transform scale.
    pub rest_scale: Vec3,
    /// `T · R · S` of the rest transform, used as is when no transform track moves the node.
    pub rest_local: Affine3A,
    /// Visibility when it has no visibility track (anchors: false, they draw nothing).
    pub initial_visible: bool,
    /// True for item, block and text displays.
    pub is_display: bool,
    /// Position keys.
    pub position: Option<VectorTrack>,
    /// Rotation keys.
    pub rotation: Option<VectorTrack>,
    /// Scale keys.
    pub scale: Option<VectorTrack>,
    /// Visibility keys.
    pub visible: Option<VisibilityTrack>,
    /// NBT keys (applied as events, not sampled: [`super::nbt`]).
    pub nbt: Option<NbtTrack>,
}

/// A compiled Animation's node hierarchy and tracks.
#[derive(Clone, Debug)]
pub struct Rig {
    /// Nodes, parents before children.
    pub nodes: Vec<RigNode>,
    /// Length of one cycle in ticks.
    pub duration_ticks: u32,
}

impl RigNode {
    /// True when no position, rotation or scale track moves this node.
    pub fn is_static(&self) -> bool {
        self.position.is_none() && self.rotation.is_none() && self.scale.is_none()
    }
}

impl Rig {
    /// The index of the node with this id.
    pub fn node_index(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }

    /// Compiles a validated file, sending every Molang string to `compiler`.
    /// Returns every compile error, not just the first.
    pub fn build<C: ExprCompiler>(
        file: &AnimationFile,
        compiler: &mut C,
    ) -> Result<Rig, Vec<C::Error>> {
        let mut errors = Vec::new();
        let mut nodes: Vec<RigNode> = Vec::with_capacity(file.nodes.len());
        // `file.nodes` is sorted by depth, so a parent is always already placed.
        for node in &file.nodes {
            let parent = match &node.attachment {
                Attachment::Root(_) => None,
                Attachment::Parent(p) => nodes.iter().position(|n| &n.id == p),
            };
            let tracks = file.timeline.tracks.get(&node.id);
            let base = join_pointer("/timeline/tracks", &node.id);
            let mut vector = |keys: &Option<Vec<VectorKey>>, channel: VectorChannel, name: &str| {
                keys.as_ref().map(|keys| {
                    let compiled =
                        compile_vector_keys(keys, &format!("{base}/{name}"), compiler, &mut errors);
                    VectorTrack::new(channel, &compiled)
                })
            };
            let position =
                tracks.and_then(|t| vector(&t.position, VectorChannel::Position, "position"));
            let rotation =
                tracks.and_then(|t| vector(&t.rotation, VectorChannel::Rotation, "rotation"));
            let scale = tracks.and_then(|t| vector(&t.scale, VectorChannel::Scale, "scale"));
            let visible = tracks.and_then(|t| t.visible.as_ref()).map(|keys| {
                let compiled: Vec<(f32, Visibility)> = keys
                    .iter()
                    .enumerate()
                    .map(|(k, key)| {
                        let value = match &key.value {
                            VisibilityValue::Fixed(b) => Visibility::Fixed(*b),
                            VisibilityValue::Molang(src) => {
                                let pointer = format!("{base}/visible/{k}/value");
                                compile_or_record(compiler, src, &pointer, &mut errors)
                                    .map_or(Visibility::Fixed(true), Visibility::Expr)
                            }
                        };
                        (key.time_ticks as f32, value)
                    })
                    .collect();
                VisibilityTrack::new(&compiled)
            });
            let nbt = tracks.and_then(|t| t.nbt.as_ref()).map(|keys| {
                let compiled: Vec<(u32, NbtChoice)> =
                    keys.iter()
                        .enumerate()
                        .map(|(k, key)| {
                            let choice = match &key.value {
                                NbtValue::Fixed(_) => NbtChoice::Fixed,
                                NbtValue::Select { select, options } => {
                                    let pointer = format!("{base}/nbt/{k}/value/select");
                                    compile_or_record(compiler, select, &pointer, &mut errors)
                                        .map_or(NbtChoice::Fixed, |expr| NbtChoice::Select {
                                            expr,
                                            option_count: options.len() as u32,
                                        })
                                }
                            };
                            (key.time_ticks, choice)
                        })
                        .collect();
                NbtTrack::new(&compiled)
            });
            let display = node.kind.display();
            nodes.push(RigNode {
                id: node.id.clone(),
                parent,
                rest_local: Affine3A::from_scale_rotation_translation(
                    node.transform.scale,
                    quat_from_euler_degrees(node.transform.rotation_degrees),
                    node.transform.position,
                ),
                rest_position: node.transform.position,
                rest_rotation: quat_from_euler_degrees(node.transform.rotation_degrees),
                rest_scale: node.transform.scale,
                initial_visible: display.is_some_and(|d| d.visible),
                is_display: display.is_some(),
                position,
                rotation,
                scale,
                visible,
                nbt,
            });
        }
        if errors.is_empty() {
            Ok(Rig {
                nodes,
                duration_ticks: file.timeline.duration_ticks,
            })
        } else {
            Err(errors)
        }
    }
}

/// Compiles `source` (found at `pointer`); on failure records the error in
/// `errors` (the rig is then not built) and returns `None`.
fn compile_or_record<C: ExprCompiler>(
    compiler: &mut C,
    source: &str,
    pointer: &str,
    errors: &mut Vec<C::Error>,
) -> Option<ExprId> {
    compiler
        .compile(source, pointer)
        .map_err(|e| errors.push(e))
        .ok()
}

fn compile_vector_keys<C: ExprCompiler>(
    keys: &[VectorKey],
    pointer: &str,
    compiler: &mut C,
    errors: &mut Vec<C::Error>,
) -> Vec<CompiledKey> {
    // Pointers are only built for Molang components (most keys are numbers).
    let mut compile3 = |value: &[Component; 3],
                        k: usize,
                        field: &str,
                        errors: &mut Vec<C::Error>|
     -> [Scalar; 3] {
        let mut out = [Scalar::Constant(0.0); 3];
        for (c, component) in value.iter().enumerate() {
            out[c] = match component {
                Component::Number(v) => Scalar::Constant(*v),
                Component::Molang(src) => {
                    let pointer = format!("{pointer}/{k}/{field}/{c}");
                    compile_or_record(compiler, src, &pointer, errors)
                        .map_or(Scalar::Constant(0.0), Scalar::Expr)
                }
            };
        }
        out
    };
    keys.iter()
        .enumerate()
        .map(|(k, key)| {
            let (incoming, outgoing) = match &key.value {
                KeyValue::Single(v) => {
                    let v = compile3(v, k, "value", errors);
                    (v, v)
                }
                KeyValue::Jump { pre, post } => (
                    compile3(pre, k, "pre", errors),
                    compile3(post, k, "post", errors),
                ),
            };
            CompiledKey {
                time_ticks: key.time_ticks as f32,
                incoming,
                outgoing,
                interpolation: key.interpolation,
                easing: key.easing,
            }
        })
        .collect()
}
