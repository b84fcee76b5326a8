//! Keeping a camera out of walls: the eye a shot wants, pulled in along
//! the line from the target until nothing solid stands between them.
//!
//! The line is walked through the block grid one block boundary at a time
//! (a voxel traversal: every block the segment touches, in order, none
//! skipped however thin the corner it cuts), asking the world
//! ([`SolidBlocks`], fed by the server) whether each block stops a camera.
//! The eye stops `margin_blocks` short of the first solid block's face, so
//! the near plane does not clip into it; a target inside a solid block
//! keeps the eye at the target.

use glam::{IVec3, Vec3};

/// What the camera asks of the world: whether the block at integer
/// coordinates stops it (the server answers from its chunks: any block
/// with a collision shape, say).
pub trait SolidBlocks {
    /// Whether block `(x, y, z)` stops a camera.
    fn is_solid(&self, block: IVec3) -> bool;
}

/// A world with no blocks (`emoted sample`, previews).
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenAir;

impl SolidBlocks for OpenAir {
    fn is_solid(&self, _block: IVec3) -> bool {
        false
    }
}

/// The most block boundaries walked: a line of 300 blocks at the most,
/// far past any shot.
const MAX_STEPS: usize = 1024;

/// The eye on the line from `target` to `wanted`, as far out as it can be
/// with nothing solid between it and the target, `margin_blocks` short of
/// the first solid block (never behind the target).
pub fn clear_eye(
    target: Vec3,
    wanted: Vec3,
    blocks: &impl SolidBlocks,
    margin_blocks: f32,
) -> Vec3 {
    let delta = wanted - target;
    let length = delta.length();
    if !length.is_finite() || !target.is_finite() {
        return target;
    }
    let mut block = target.floor().as_ivec3();
    if blocks.is_solid(block) {
        return target;
    }
    if length <= f32::EPSILON {
        return wanted;
    }
    let direction = delta / length;
    // Per axis: which way the line steps, how far along it the next
    // boundary is, and how far apart the boundaries are.
    let step = IVec3::new(sign(direction.x), sign(direction.y), sign(direction.z));
    let next_boundary = |position: f32, block: i32, d: f32| -> f32 {
        if d > 0.0 {
            (block as f32 + 1.0 - position) / d
        } else if d < 0.0 {
            (position - block as f32) / -d
        } else {
            f32::INFINITY
        }
    };
    let mut t_max = Vec3::new(
        next_boundary(target.x, block.x, direction.x),
        next_boundary(target.y, block.y, direction.y),
        next_boundary(target.z, block.z, direction.z),
    );
    let t_delta = Vec3::new(
        spacing(direction.x),
        spacing(direction.y),
        spacing(direction.z),
    );
    for _ in 0..MAX_STEPS {
        // The nearest boundary: the line enters the next block there.
        let (axis, t) = if t_max.x <= t_max.y && t_max.x <= t_max.z {
            (0, t_max.x)
        } else if t_max.y <= t_max.z {
            (1, t_max.y)
        } else {
            (2, t_max.z)
        };
        if t >= length {
            return wanted;
        }
        match axis {
            0 => {
                block.x += step.x;
                t_max.x += t_delta.x;
            }
            1 => {
                block.y += step.y;
                t_max.y += t_delta.y;
            }
            _ => {
                block.z += step.z;
                t_max.z += t_delta.z;
            }
        }
        if blocks.is_solid(block) {
            return target + direction * (t - margin_blocks).max(0.0);
        }
    }
    target
}

fn sign(d: f32) -> i32 {
    if d > 0.0 {
        1
    } else if d < 0.0 {
        -1
    } else {
        0
    }
}

/// How far along the line two boundaries of one axis are.
fn spacing(d: f32) -> f32 {
    if d == 0.0 {
        f32::INFINITY
    } else {
        1.0 / d.abs()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use proptest::prelude::*;

    use super::*;

    struct Blocks(HashSet<IVec3>);

    impl SolidBlocks for Blocks {
        fn is_solid(&self, block: IVec3) -> bool {
            self.0.contains(&block)
        }
    }

    fn blocks(list: &[[i32; 3]]) -> Blocks {
        Blocks(list.iter().map(|b| IVec3::from_array(*b)).collect())
    }

    #[test]
    fn open_air_gives_the_wanted_eye() {
        let none = blocks(&[]);
        let (target, wanted) = (Vec3::new(0.5, 65.6, 0.5), Vec3::new(3.2, 66.1, 4.7));
        assert_eq!(clear_eye(target, wanted, &none, 0.3), wanted);
        assert_eq!(clear_eye(target, target, &none, 0.3), target);
    }

    #[test]
    fn a_wall_pulls_the_eye_in_short_of_its_face() {
        // A wall at z = 3 (blocks z 3, any x, y near the line).
        let wall = blocks(&[[0, 65, 3], [0, 66, 3]]);
        let target = Vec3::new(0.5, 65.5, 0.5);
        let eye = clear_eye(target, Vec3::new(0.5, 65.5, 6.5), &wall, 0.3);
        assert!((eye - Vec3::new(0.5, 65.5, 2.7)).length() < 1e-5, "{eye}");
        // Backwards (−Z) the way is open.
        let behind = Vec3::new(0.5, 65.5, -5.5);
        assert_eq!(clear_eye(target, behind, &wall, 0.3), behind);
        // A target inside a block keeps the eye on the target.
        let inside = blocks(&[[0, 65, 0]]);
        assert_eq!(clear_eye(target, behind, &inside, 0.3), target);
        // A wall right at the start: never behind the target.
        let near = blocks(&[[0, 65, 1]]);
        let eye = clear_eye(
            Vec3::new(0.5, 65.5, 0.9),
            Vec3::new(0.5, 65.5, 5.0),
            &near,
            0.3,
        );
        assert!((eye.z - 0.9).abs() < 1e-5, "{eye}");
    }

    #[test]
    fn a_corner_the_line_cuts_diagonally_is_not_skipped() {
        // The line from (0.5, 0.5) to (2.5, 2.5) in x/z passes exactly
        // through the corner at (1, 1): block (1, _, 0) is touched on the
        // way, a step at a time.
        let corner = blocks(&[[1, 0, 0]]);
        let eye = clear_eye(
            Vec3::new(0.5, 0.5, 0.5),
            Vec3::new(2.5, 0.5, 2.5),
            &corner,
            0.0,
        );
        assert!(eye.distance(Vec3::new(0.5, 0.5, 0.5)) < 0.8, "{eye}");
    }

    proptest! {
        #[test]
        fn the_eye_is_on_the_line_and_the_line_to_it_is_clear(
            seed in proptest::collection::vec((-4i32..4, 60i32..68, -4i32..4), 0..40),
            to in (-6.0f32..6.0, 58.0f32..70.0, -6.0f32..6.0),
        ) {
            let solid = Blocks(seed.iter().map(|(x, y, z)| IVec3::new(*x, *y, *z)).collect());
            let target = Vec3::new(0.5, 64.5, 0.5);
            let wanted = Vec3::new(to.0, to.1, to.2);
            let eye = clear_eye(target, wanted, &solid, 0.25);
            let (along, total) = ((eye - target).length(), (wanted - target).length());
            prop_assert!(along <= total + 1e-4);
            prop_assert!(eye.distance(target + (wanted - target).normalize_or_zero() * along) < 1e-3);
            // Sampled finely, nothing solid between the target and the eye
            // (unless the target itself is in a solid block).
            if !solid.is_solid(target.floor().as_ivec3()) {
                for i in 0..=200 {
                    let p = target.lerp(eye, i as f32 / 200.0);
                    prop_assert!(!solid.is_solid(p.floor().as_ivec3()), "{p} of {eye}");
                }
            }
        }
    }
}
