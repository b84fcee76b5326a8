//! A whole keyframer at one frame: every node's local transform, world
//! matrix, mesh matrix and visibility, in emoted's Y-up frame.
//!
//! # The model
//! A node's local transform is `T(position) · R(rotation) · S(scale)`
//! from its tracks at the frame (no position keys: the origin; no
//! rotation keys: no turn; no scale keys: 1). Its world matrix is its
//! parent's world matrix times that (a root's is its local). The **pivot
//! moves only the node's own mesh**, never its children: the mesh is
//! drawn with `world · T(−pivot)` (after the editor's inverse local-axis
//! matrix, which belongs to the mesh reader), as lib3ds's player does and
//! as assimp does by moving the vertices.
//!
//! A node is shown unless its header marks it hidden, and every hide key
//! at or before the frame toggles that. (lib3ds 2.0 instead takes its
//! first hide key for "shown" and lib3ds 1.3 takes a single key for
//! "hidden" forever; 3D Studio's own rule, and the one this module keeps,
//! is that each key toggles.) A hidden node's children keep their own
//! visibility.
//!
//! # Axes
//! 3D Studio is Z-up, emoted Y-up: a point `(x, y, z)` of the file is
//! `C·(x, y, z) = (x, z, −y)` here, `C` a quarter turn about X. [`evaluate`]
//! applies it to each node's local transform as a change of basis,
//! `C · L · C⁻¹`, so that the hierarchy composes as usual and every matrix
//! it returns maps emoted points to emoted points: the position becomes
//! `(x, z, −y)`, the rotation turns about the converted axis by the same
//! angle, the scale becomes `(sx, sz, sy)`, the pivot `C·pivot`. A mesh
//! vertex `v` read from the file is drawn at `mesh · (C·v)`. Tracks and
//! keys keep the file's axes; [`local_z_up`] gives a node's transform
//! before the change.

use std::f32::consts::FRAC_PI_2;

use glam::{Mat4, Quat, Vec3};

use super::keyframer::{Node, Scene};

/// Minecraft ticks per second.
const TICKS_PER_SECOND: f32 = 20.0;

/// How many of the file's frames play in a second. A `.3ds` file does not
/// store it; 3D Studio's default is 30.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameRate {
    /// Frames per second.
    pub frames_per_second: f32,
}

impl Default for FrameRate {
    fn default() -> FrameRate {
        FrameRate {
            frames_per_second: 30.0,
        }
    }
}

impl FrameRate {
    /// The frame shown `tick` ticks (20 a second) after frame `start`.
    pub fn frame_at_tick(self, start: i32, tick: f32) -> f32 {
        start as f32 + tick / TICKS_PER_SECOND * self.frames_per_second
    }
}

/// A translation, rotation and scale, applied scale first (the importers'
/// shared type).
pub use crate::import::scene::Trs;

impl Trs {
    /// `T · R · S`.
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// The same transform in emoted's Y-up frame: `C · self · C⁻¹`.
    pub fn to_y_up(&self) -> Trs {
        let c = z_up_to_y_up();
        Trs {
            translation: c * self.translation,
            rotation: (c * self.rotation * c.conjugate()).normalize(),
            scale: Vec3::new(self.scale.x, self.scale.z, self.scale.y),
        }
    }
}

/// One node at one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeSample {
    /// The node's index in [`Scene::nodes`].
    pub index: usize,
    /// Its local transform (Y-up).
    pub local: Trs,
    /// Its world matrix: the parent's world matrix times `local` (Y-up).
    pub world: Mat4,
    /// The matrix its own mesh is drawn with: `world · T(−pivot)` (Y-up).
    pub mesh: Mat4,
    /// Whether it is shown.
    pub visible: bool,
}

/// The rotation taking the file's Z-up axes to emoted's Y-up ones:
/// `(x, y, z) → (x, z, −y)`, a quarter turn about X.
pub fn z_up_to_y_up() -> Quat {
    Quat::from_rotation_x(-FRAC_PI_2)
}

/// A node's local transform at `frame` in the file's Z-up axes.
pub fn local_z_up(node: &Node, frame: f32) -> Trs {
    Trs {
        translation: node.position.sample(frame).unwrap_or(Vec3::ZERO),
        rotation: node.rotation.sample(frame),
        scale: node.scale.sample(frame).unwrap_or(Vec3::ONE),
    }
}

/// Whether `node` is shown at `frame`.
pub fn visible(node: &Node, frame: f32) -> bool {
    let toggled = node.hide.toggles_at(frame) % 2 == 1;
    node.starts_hidden() == toggled
}

/// Every node of `scene` at `frame` (the file's frames, fractions
/// allowed), in [`Scene::nodes`] order, in emoted's Y-up frame.
pub fn evaluate(scene: &Scene, frame: f32) -> Vec<NodeSample> {
    let c = z_up_to_y_up();
    let mut samples: Vec<NodeSample> = scene
        .nodes
        .iter()
        .enumerate()
        .map(|(index, node)| NodeSample {
            index,
            local: local_z_up(node, frame).to_y_up(),
            world: Mat4::IDENTITY,
            mesh: Mat4::IDENTITY,
            visible: visible(node, frame),
        })
        .collect();
    for &index in scene.parent_first() {
        let Some(node) = scene.nodes.get(index) else {
            continue;
        };
        let parent = node
            .parent
            .and_then(|p| samples.get(p))
            .map_or(Mat4::IDENTITY, |s| s.world);
        if let Some(sample) = samples.get_mut(index) {
            sample.world = parent * sample.local.matrix();
            sample.mesh = sample.world * Mat4::from_translation(-(c * node.pivot));
        }
    }
    samples
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_up_points_become_y_up_as_x_z_minus_y() {
        // (1, 2, 3) → (1, 3, −2); the file's up (0, 0, 1) is emoted's up.
        let c = z_up_to_y_up();
        assert!((c * Vec3::new(1.0, 2.0, 3.0)).abs_diff_eq(Vec3::new(1.0, 3.0, -2.0), 1e-6));
        assert!((c * Vec3::Z).abs_diff_eq(Vec3::Y, 1e-6));
    }

    #[test]
    fn the_change_of_basis_commutes_with_the_matrix() {
        // C · (T·R·S) · C⁻¹ built from the converted parts equals the
        // converted matrix, for a turn about a slanted axis and an uneven
        // scale.
        let trs = Trs {
            translation: Vec3::new(1.0, 2.0, 3.0),
            rotation: Quat::from_axis_angle(Vec3::new(1.0, 2.0, 2.0) / 3.0, 0.7),
            scale: Vec3::new(2.0, 3.0, 4.0),
        };
        let c = Mat4::from_quat(z_up_to_y_up());
        let expected = c * trs.matrix() * c.inverse();
        assert!(trs.to_y_up().matrix().abs_diff_eq(expected, 1e-5));
        assert_eq!(trs.to_y_up().scale, Vec3::new(2.0, 4.0, 3.0));
    }

    #[test]
    fn frames_follow_ticks_at_the_frame_rate() {
        // 30 fps: 20 ticks = 1 s = 30 frames, from the segment's start 10.
        assert_eq!(FrameRate::default().frame_at_tick(10, 20.0), 40.0);
        let pal = FrameRate {
            frames_per_second: 25.0,
        };
        assert_eq!(pal.frame_at_tick(0, 4.0), 5.0);
    }
}
