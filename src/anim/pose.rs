//! Sampling a whole rig: every node's local transform and visibility, then
//! the hierarchy composed into matrices in the root's frame
//! (`composed = parent · T · R · S`), as ozz's `LocalToModelJob` does.

use glam::{Affine3A, Quat, Vec3};

use super::nbt::BadSelection;
use super::rig::Rig;
use super::track::{ExprEvaluator, NonFiniteVisibility};

/// One node's sampled pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodePose {
    /// Shown (display nodes only; anchors are never shown).
    pub visible: bool,
    /// Local position in blocks.
    pub position: Vec3,
    /// Local rotation.
    pub rotation: Quat,
    /// Local scale.
    pub scale: Vec3,
    /// The composed transform in the root's frame (an affine 3×4 matrix;
    /// `Mat4::from(matrix)` gives the 4×4 form).
    pub matrix: Affine3A,
}

impl Default for NodePose {
    fn default() -> Self {
        Self {
            visible: false,
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
            matrix: Affine3A::IDENTITY,
        }
    }
}

/// Why sampling stopped a playback.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SampleError {
    /// A Molang component made a transform non-finite.
    #[error("node `{node}`: a Molang value is not finite, so the emote stops")]
    NonFiniteTransform {
        /// The node id.
        node: String,
    },
    /// A visibility expression was not finite.
    #[error("node `{node}`: {source}")]
    NonFiniteVisibility {
        /// The node id.
        node: String,
        /// What the expression gave.
        source: NonFiniteVisibility,
    },
    /// An nbt key's selector named no option (see [`BadSelection`]).
    #[error("node `{node}`, nbt key at {time_ticks}t: {source}")]
    BadNbtSelection {
        /// The node id.
        node: String,
        /// The key's time.
        time_ticks: u32,
        /// What the selector gave.
        source: BadSelection,
    },
    /// Molang used up the operations one tick may use (the budget
    /// `molang.tick` and every track expression share; loops are what
    /// spend it). To fix it, use fewer or shorter loops, or raise the
    /// server's budget.
    #[error("{program} used more than the {budget_ops} Molang operations one tick may use (the tick's Molang programs share them), so the emote stops; use fewer or shorter loops")]
    MolangBudgetExceeded {
        /// Where it ran out: `` `molang.tick` ``, `` `molang.initialize` ``
        /// or a node's track expression.
        program: String,
        /// The budget of one tick.
        budget_ops: u64,
    },
}

/// The sampled poses of a rig plus the per-track cursors; allocate once per
/// playback with [`Pose::new`] and reuse every tick.
#[derive(Clone, Debug)]
pub struct Pose {
    /// One pose per rig node, in rig order.
    pub nodes: Vec<NodePose>,
    /// Cursors: position, rotation, scale, visibility, per node.
    cursors: Vec<[usize; 4]>,
}

impl Pose {
    /// A pose buffer sized for `rig`.
    pub fn new(rig: &Rig) -> Self {
        Self {
            nodes: vec![NodePose::default(); rig.nodes.len()],
            cursors: vec![[0; 4]; rig.nodes.len()],
        }
    }

    /// Samples `rig` at tick `t` (ticks after the cycle began) into this buffer.
    /// Does not allocate.
    pub fn sample(
        &mut self,
        rig: &Rig,
        t: f32,
        exprs: &mut dyn ExprEvaluator,
    ) -> Result<(), SampleError> {
        for (i, node) in rig.nodes.iter().enumerate() {
            let cursors = &mut self.cursors[i];
            let position = match &node.position {
                Some(track) => track.sample_vec3(t, &mut cursors[0], exprs),
                None => node.rest_position,
            };
            let rotation = match &node.rotation {
                Some(track) => track.sample_rotation(t, &mut cursors[1], exprs),
                None => node.rest_rotation,
            };
            let scale = match &node.scale {
                Some(track) => track.sample_vec3(t, &mut cursors[2], exprs),
                None => node.rest_scale,
            };
            if !(position.is_finite() && rotation.is_finite() && scale.is_finite()) {
                return Err(SampleError::NonFiniteTransform {
                    node: node.id.clone(),
                });
            }
            let visible = match &node.visible {
                Some(track) => track.sample(t, &mut cursors[3], exprs).map_err(|source| {
                    SampleError::NonFiniteVisibility {
                        node: node.id.clone(),
                        source,
                    }
                })?,
                None => node.initial_visible,
            };
            let local = if node.is_static() {
                node.rest_local
            } else {
                Affine3A::from_scale_rotation_translation(scale, rotation, position)
            };
            let matrix = match node.parent {
                Some(p) => self.nodes[p].matrix * local,
                None => local,
            };
            self.nodes[i] = NodePose {
                visible,
                position,
                rotation,
                scale,
                matrix,
            };
        }
        Ok(())
    }
}
