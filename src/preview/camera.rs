//! The two views and their perspective cameras.
//!
//! A rig faces +Z at yaw 0 with its right arm at −X. The **front** view
//! looks from +Z toward −Z, so the rig's right arm is on the viewer's left,
//! as when facing a person. The **side** view looks from −X toward +X, at
//! the rig's right side (the arm most emotes move is the nearer one); the
//! rig faces the viewer's right.
//!
//! A camera is a pin-hole: a point `p` in the rig's frame goes to the
//! camera's frame (`right`, `up`, `forward` axes through the eye), then to
//! pixels as `centre + focal · (x / depth, −y / depth)`, where `depth` is
//! the distance along `forward`. [`Camera::framing`] aims at a bounding
//! sphere from a little above (a fixed elevation, so the ground shows as a
//! floor), far enough that the sphere fits the picture: every column of a
//! sheet uses the same two cameras, so what does not move stays on the
//! same pixels.

use glam::{Vec2, Vec3};

/// Which way a cell looks at the rig.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    /// From +Z toward −Z: the rig's face, its right arm on the viewer's left.
    Front,
    /// From −X toward +X: the rig's right side, its front on the viewer's right.
    Side,
    /// What the player sees through the emote camera, for an Animation
    /// that writes its shots (`metadata.emoted.camera`): a third row, each
    /// column from that tick's camera, with a vanilla client's default
    /// field of view ([`PLAYER_FIELD_OF_VIEW_DEGREES`]).
    Camera,
}

impl View {
    /// The two fixed views, in the sheet's row order.
    pub const ALL: [View; 2] = [View::Front, View::Side];

    /// The label a sheet writes on the view's cells.
    pub fn label(self) -> &'static str {
        match self {
            View::Front => "front",
            View::Side => "right side",
            View::Camera => "camera",
        }
    }

    /// The horizontal direction from the rig toward the eye (the camera
    /// row's comes from the shots: toward the front, as the default orbit).
    pub fn toward_eye(self) -> Vec3 {
        match self {
            View::Front | View::Camera => Vec3::Z,
            View::Side => Vec3::NEG_X,
        }
    }

    /// The row of this view in a sheet.
    pub fn row(self) -> usize {
        match self {
            View::Front => 0,
            View::Side => 1,
            View::Camera => 2,
        }
    }
}

/// A vanilla client's default vertical field of view, degrees (the camera
/// row draws what a player would see).
pub const PLAYER_FIELD_OF_VIEW_DEGREES: f32 = 70.0;

/// The camera's vertical field of view, in degrees.
pub const FIELD_OF_VIEW_DEGREES: f32 = 30.0;

/// How far above the horizontal [`Camera::framing`] puts the eye, in degrees.
pub const ELEVATION_DEGREES: f32 = 12.0;

/// Points nearer the eye than this (in blocks) are not drawn.
pub const NEAR_BLOCKS: f32 = 0.05;

/// A sphere that holds everything a sheet draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// Its centre, in the rig's frame.
    pub centre: Vec3,
    /// Its radius in blocks.
    pub radius: f32,
}

impl Sphere {
    /// The smallest sphere around the box that holds `points`, or `None`
    /// when there are none (or any is not finite).
    pub fn around(points: impl IntoIterator<Item = Vec3>) -> Option<Sphere> {
        let mut min = Vec3::splat(f32::INFINITY);
        let mut max = Vec3::splat(f32::NEG_INFINITY);
        for p in points {
            if !p.is_finite() {
                return None;
            }
            min = min.min(p);
            max = max.max(p);
        }
        (min.x <= max.x).then(|| Sphere {
            centre: (min + max) / 2.0,
            radius: (max - min).length() / 2.0,
        })
    }
}

/// A point on the picture: pixel coordinates (x right, y down, pixel
/// centres at `.5`) and its depth in blocks along the camera's axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenPoint {
    /// Across, in pixels.
    pub x_px: f32,
    /// Down, in pixels.
    pub y_px: f32,
    /// Distance in front of the eye along its axis, in blocks.
    pub depth: f32,
}

/// A pin-hole camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    eye: Vec3,
    right: Vec3,
    up: Vec3,
    forward: Vec3,
    focal_px: f32,
    centre_px: Vec2,
}

impl Camera {
    /// A camera at `eye` looking at `target` (not straight up or down),
    /// with `focal_px` pixels per unit of `x / depth` and the axis at
    /// `centre_px`.
    pub fn looking_at(eye: Vec3, target: Vec3, focal_px: f32, centre_px: Vec2) -> Camera {
        let forward = (target - eye).normalize_or_zero();
        let right = forward.cross(Vec3::Y).normalize_or_zero();
        let up = right.cross(forward);
        Camera {
            eye,
            right,
            up,
            forward,
            focal_px,
            centre_px,
        }
    }

    /// The camera of `view` for a square picture `size_px` wide, aimed at
    /// `bounds` from [`ELEVATION_DEGREES`] above, far enough that the whole
    /// sphere fits in [`FIELD_OF_VIEW_DEGREES`] with a small margin.
    pub fn framing(view: View, bounds: Sphere, size_px: u32) -> Camera {
        let half_fov = (FIELD_OF_VIEW_DEGREES / 2.0).to_radians();
        let elevation = ELEVATION_DEGREES.to_radians();
        let radius = bounds.radius.max(0.25);
        let distance = 1.08 * radius / half_fov.sin();
        let toward_eye = view.toward_eye() * elevation.cos() + Vec3::Y * elevation.sin();
        let size = size_px as f32;
        Camera::looking_at(
            bounds.centre + toward_eye * distance,
            bounds.centre,
            size / 2.0 / half_fov.tan(),
            Vec2::splat(size / 2.0),
        )
    }

    /// The emote camera's view for a square picture `size_px` wide: at
    /// `eye`, looking along `direction`, with a player's field of view.
    pub fn player_view(eye: Vec3, direction: Vec3, size_px: u32) -> Camera {
        let half_fov = (PLAYER_FIELD_OF_VIEW_DEGREES / 2.0).to_radians();
        let size = size_px as f32;
        Camera::looking_at(
            eye,
            eye + direction,
            size / 2.0 / half_fov.tan(),
            Vec2::splat(size / 2.0),
        )
    }

    /// Where `point` lands on the picture, or `None` when it is behind the
    /// near plane ([`NEAR_BLOCKS`]).
    pub fn project(&self, point: Vec3) -> Option<ScreenPoint> {
        let d = point - self.eye;
        let depth = d.dot(self.forward);
        // Also refuses NaN.
        if depth.is_nan() || depth < NEAR_BLOCKS {
            return None;
        }
        Some(ScreenPoint {
            x_px: self.centre_px.x + self.focal_px * d.dot(self.right) / depth,
            y_px: self.centre_px.y - self.focal_px * d.dot(self.up) / depth,
            depth,
        })
    }

    /// The unit vector from the eye along its axis.
    pub fn forward(&self) -> Vec3 {
        self.forward
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front_camera() -> Camera {
        // Eye 4 blocks in front of the origin, 100 px per unit, 200×200 px.
        Camera::looking_at(
            Vec3::new(0.0, 0.0, 4.0),
            Vec3::ZERO,
            100.0,
            Vec2::splat(100.0),
        )
    }

    #[test]
    fn a_point_in_front_lands_where_the_pinhole_says() {
        let camera = front_camera();
        let centre = camera.project(Vec3::ZERO).expect("in front");
        assert_eq!(
            (centre.x_px, centre.y_px, centre.depth),
            (100.0, 100.0, 4.0)
        );
        // One block up and to +X at depth 4: 25 px right and up.
        let p = camera.project(Vec3::new(1.0, 1.0, 0.0)).expect("in front");
        assert!(
            (p.x_px - 125.0).abs() < 1e-4 && (p.y_px - 75.0).abs() < 1e-4,
            "{p:?}"
        );
        // Nearer points spread out more.
        let near = camera.project(Vec3::new(1.0, 0.0, 2.0)).expect("in front");
        assert!(
            (near.x_px - 150.0).abs() < 1e-4 && near.depth == 2.0,
            "{near:?}"
        );
        assert_eq!(camera.project(Vec3::new(0.0, 0.0, 5.0)), None);
    }

    #[test]
    fn the_front_view_shows_the_right_arm_on_the_left() {
        let bounds = Sphere {
            centre: Vec3::new(0.0, 1.0, 0.0),
            radius: 1.0,
        };
        let front = Camera::framing(View::Front, bounds, 256);
        let right_hand = front.project(Vec3::new(-0.4, 1.0, 0.0)).expect("seen");
        let left_hand = front.project(Vec3::new(0.4, 1.0, 0.0)).expect("seen");
        assert!(right_hand.x_px < 128.0 && left_hand.x_px > 128.0);
        // The side view sees the rig's right side: its front is on the right,
        // its right arm nearer than its left.
        let side = Camera::framing(View::Side, bounds, 256);
        let nose = side.project(Vec3::new(0.0, 1.0, 0.3)).expect("seen");
        assert!(nose.x_px > 128.0);
        let near_arm = side.project(Vec3::new(-0.4, 1.0, 0.0)).expect("seen");
        let far_arm = side.project(Vec3::new(0.4, 1.0, 0.0)).expect("seen");
        assert!(near_arm.depth < far_arm.depth);
        // From above: the head is higher on the picture than the feet.
        let head = front.project(Vec3::new(0.0, 1.8, 0.0)).expect("seen");
        let feet = front.project(Vec3::ZERO).expect("seen");
        assert!(head.y_px < feet.y_px);
    }

    #[test]
    fn the_framed_sphere_fits_the_picture() {
        let bounds =
            Sphere::around([Vec3::new(-1.0, 0.0, -0.5), Vec3::new(1.0, 2.5, 0.5)]).expect("points");
        for view in View::ALL {
            let camera = Camera::framing(view, bounds, 256);
            for dx in [-1.0, 1.0] {
                for dy in [-1.0, 1.0] {
                    for dz in [-1.0, 1.0] {
                        let p = bounds.centre + Vec3::new(dx, dy, dz) * bounds.radius / 3f32.sqrt();
                        let s = camera.project(p).expect("in front");
                        assert!((0.0..256.0).contains(&s.x_px), "{view:?} {s:?}");
                        assert!((0.0..256.0).contains(&s.y_px), "{view:?} {s:?}");
                    }
                }
            }
        }
        assert_eq!(Sphere::around([]), None);
        assert_eq!(Sphere::around([Vec3::NAN]), None);
    }
}
