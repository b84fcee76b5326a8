//! Boxes and their six faces, each face's corners in the order its skin
//! rectangle is read.
//!
//! A box is axis-aligned in its node's frame, which is the rig's frame at
//! yaw 0: the front is +Z, up is +Y and the **right** side (the side of the
//! right hand) is −X. Every face lists its corners as the top left, top
//! right, bottom right and bottom left of its rectangle in the skin
//! ([`Face`] rectangles of [`skin_uv`](crate::pack::skin_uv)), seen from
//! outside the box. That is how vanilla's `ModelPart` boxes lay a texture
//! net around a cube, so the edges the net shares are the edges the box
//! shares:
//!
//! - front, right, left, back: the rectangle's top edge is the box's top;
//!   left to right, the front runs from −X to +X, the right side from the
//!   back to the front, the left side from the front to the back, the back
//!   from +X to −X (they wrap around the box in that order);
//! - top and bottom: left to right is −X to +X, and the rectangle's top
//!   edge is the back (−Z) for both (vanilla flips the bottom's rectangle
//!   upside down compared with a net folded around the box).

use glam::{Affine3A, Vec3};

use crate::pack::skin_uv::Face;

/// An axis-aligned box in a node's frame, in blocks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid {
    /// The corner with the smallest coordinates.
    pub min: Vec3,
    /// The corner with the largest coordinates.
    pub max: Vec3,
}

/// One face of a box: which face, and its corners (top left, top right,
/// bottom right, bottom left of its rectangle).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceQuad {
    /// Which face.
    pub face: Face,
    /// Its corners in rectangle order.
    pub corners: [Vec3; 4],
}

impl Cuboid {
    /// The box from `min` to `max`.
    pub fn new(min: Vec3, max: Vec3) -> Cuboid {
        Cuboid { min, max }
    }

    /// The box grown by `by` blocks on every side (a skin's overlay layer).
    pub fn inflated(&self, by: f32) -> Cuboid {
        Cuboid {
            min: self.min - Vec3::splat(by),
            max: self.max + Vec3::splat(by),
        }
    }

    /// Its eight corners.
    pub fn corners(&self) -> [Vec3; 8] {
        let (a, b) = (self.min, self.max);
        [
            Vec3::new(a.x, a.y, a.z),
            Vec3::new(b.x, a.y, a.z),
            Vec3::new(a.x, b.y, a.z),
            Vec3::new(b.x, b.y, a.z),
            Vec3::new(a.x, a.y, b.z),
            Vec3::new(b.x, a.y, b.z),
            Vec3::new(a.x, b.y, b.z),
            Vec3::new(b.x, b.y, b.z),
        ]
    }

    /// Its six faces, in [`Face::ALL`] order.
    pub fn faces(&self) -> [FaceQuad; 6] {
        FACE_CORNERS.map(|(face, corners)| FaceQuad {
            face,
            corners: corners.map(|[x, y, z]| {
                let pick = |high: bool, lo: f32, hi: f32| if high { hi } else { lo };
                Vec3::new(
                    pick(x, self.min.x, self.max.x),
                    pick(y, self.min.y, self.max.y),
                    pick(z, self.min.z, self.max.z),
                )
            }),
        })
    }
}

/// Per face, its corners in rectangle order (top left, top right, bottom
/// right, bottom left), each as which end of x, y and z it takes (`true`:
/// the largest), in [`Face::ALL`] order.
const FACE_CORNERS: [(Face, [[bool; 3]; 4]); 6] = {
    const L: bool = false;
    const H: bool = true;
    [
        (Face::Top, [[L, H, L], [H, H, L], [H, H, H], [L, H, H]]),
        (Face::Bottom, [[L, L, L], [H, L, L], [H, L, H], [L, L, H]]),
        (Face::Right, [[L, H, L], [L, H, H], [L, L, H], [L, L, L]]),
        (Face::Front, [[L, H, H], [H, H, H], [H, L, H], [L, L, H]]),
        (Face::Left, [[H, H, H], [H, H, L], [H, L, L], [H, L, H]]),
        (Face::Back, [[H, H, L], [L, H, L], [L, L, L], [H, L, L]]),
    ]
};

impl FaceQuad {
    /// The face moved by `matrix`.
    pub fn transformed(&self, matrix: &Affine3A) -> FaceQuad {
        FaceQuad {
            face: self.face,
            corners: self.corners.map(|c| matrix.transform_point3(c)),
        }
    }

    /// The outward unit normal; `mirrored` says the matrix that placed the
    /// face flips handedness (a negative scale).
    pub fn outward_normal(&self, mirrored: bool) -> Vec3 {
        let [top_left, top_right, _, bottom_left] = self.corners;
        let normal = (bottom_left - top_left)
            .cross(top_right - top_left)
            .normalize_or_zero();
        // The bottom's rectangle is read mirrored (see the module docs), so
        // its corners wind the other way round.
        if mirrored != (self.face == Face::Bottom) {
            -normal
        } else {
            normal
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit() -> Cuboid {
        Cuboid::new(Vec3::splat(-1.0), Vec3::splat(1.0))
    }

    #[test]
    fn every_face_points_out_and_lies_on_its_side() {
        let outward = [
            (Face::Top, Vec3::Y),
            (Face::Bottom, Vec3::NEG_Y),
            (Face::Right, Vec3::NEG_X),
            (Face::Front, Vec3::Z),
            (Face::Left, Vec3::X),
            (Face::Back, Vec3::NEG_Z),
        ];
        for (quad, (face, normal)) in unit().faces().iter().zip(outward) {
            assert_eq!(quad.face, face);
            assert!(
                quad.outward_normal(false).abs_diff_eq(normal, 1e-6),
                "{face:?}: {}",
                quad.outward_normal(false)
            );
            for corner in quad.corners {
                assert_eq!(corner.dot(normal), 1.0, "{face:?} {corner}");
            }
        }
    }

    #[test]
    fn faces_share_the_edges_their_rectangles_share() {
        let [top, bottom, right, front, left, back] = unit().faces();
        // Side faces wrap around: each one's right edge is the next one's left.
        for (a, b) in [(right, front), (front, left), (left, back), (back, right)] {
            assert_eq!([a.corners[1], a.corners[2]], [b.corners[0], b.corners[3]]);
        }
        // The top's bottom edge is the front's top edge; the front's top
        // edge runs the same way as the bottom's bottom edge.
        assert_eq!(
            [top.corners[3], top.corners[2]],
            [front.corners[0], front.corners[1]]
        );
        assert_eq!(bottom.corners[3].x, front.corners[3].x);
        assert_eq!(bottom.corners[3].z, front.corners[3].z);
        assert_eq!(bottom.corners[0].z, -1.0);
    }

    #[test]
    fn a_mirroring_matrix_flips_the_normal_back() {
        let mirror = Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        let front = unit().faces()[3].transformed(&mirror);
        assert!(front.outward_normal(true).abs_diff_eq(Vec3::Z, 1e-6));
    }
}
