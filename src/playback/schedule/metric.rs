//! The error metric: how far a drawn pose is from the exact one, at the
//! unit cube's corners and in rotation, and the tolerance it must meet.

use glam::{Mat3, Mat4, Quat, Vec3, Vec3A};

use crate::anim::DisplayTransform;

/// Below this scale on some axis (blocks per model unit) a node's rotation is
/// not compared, only its corners.
pub const MIN_ROTATED_SCALE: f32 = 1e-3;

/// How far the pose the client draws may be from the exact pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// The largest distance, in blocks, between where the drawn and the exact
    /// pose put a corner of the unit cube `[−0.5, 0.5]³`.
    pub translation_blocks: f32,
    /// The largest angle, in degrees, between the drawn and exact rotations.
    pub rotation_degrees: f32,
}

impl Default for Tolerance {
    /// 0.01 block and 0.5°.
    fn default() -> Self {
        Self {
            translation_blocks: 0.01,
            rotation_degrees: 0.5,
        }
    }
}

impl Tolerance {
    /// True when `error` is within this tolerance on both measures.
    pub fn accepts(&self, error: PoseError) -> bool {
        error.translation_blocks <= self.translation_blocks
            && error.rotation_degrees <= self.rotation_degrees
    }
}

/// How far a drawn pose is from the exact one (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PoseError {
    /// The largest corner distance, in blocks.
    pub translation_blocks: f32,
    /// The angle between the rotations, in degrees (0 when not compared).
    pub rotation_degrees: f32,
}

/// The error of drawing `drawn` where `exact` is the true pose.
pub fn pose_error(drawn: &Mat4, exact: &Mat4) -> PoseError {
    error_with_rotation(
        drawn,
        exact,
        compared_rotation(&DisplayTransform::from_matrix(exact)),
    )
}

/// The rotation the metric compares, `R_left · R_right`, or `None` when the
/// transform is too thin on some axis for it to be defined.
pub(super) fn compared_rotation(d: &DisplayTransform) -> Option<Quat> {
    (d.scale.abs().min_element() >= MIN_ROTATED_SCALE).then(|| d.left_rotation * d.right_rotation)
}

/// The corner error of `drawn` against `exact`, and the rotation error
/// against the exact rotation `exact_rotation` (already decomposed).
pub(super) fn error_with_rotation(
    drawn: &Mat4,
    exact: &Mat4,
    exact_rotation: Option<Quat>,
) -> PoseError {
    let mut error = corner_error(drawn, exact);
    if let Some(exact_rotation) = exact_rotation {
        if let Some(drawn_rotation) = compared_rotation(&DisplayTransform::from_matrix(drawn)) {
            error.rotation_degrees = angle_degrees(drawn_rotation, exact_rotation);
        }
    }
    error
}

/// The corner error of `drawn` against `exact` (rotation not compared).
pub(super) fn corner_error(drawn: &Mat4, exact: &Mat4) -> PoseError {
    let dt = Vec3A::from(drawn.w_axis) - Vec3A::from(exact.w_axis);
    let dx = 0.5 * (Vec3A::from(drawn.x_axis) - Vec3A::from(exact.x_axis));
    let dy = 0.5 * (Vec3A::from(drawn.y_axis) - Vec3A::from(exact.y_axis));
    let dz = 0.5 * (Vec3A::from(drawn.z_axis) - Vec3A::from(exact.z_axis));
    let mut worst = 0.0f32;
    for sx in [-1.0f32, 1.0] {
        for sy in [-1.0f32, 1.0] {
            for sz in [-1.0f32, 1.0] {
                worst = worst.max((dt + sx * dx + sy * dy + sz * dz).length_squared());
            }
        }
    }
    PoseError {
        translation_blocks: worst.sqrt(),
        rotation_degrees: 0.0,
    }
}

/// [`error_with_rotation`] for a drawn pose given as a transformation: its
/// rotation is `R_left · R_right` read off directly (the polar factor of
/// `R_left · S · R_right` when every scale is positive), so only a drawn
/// pose with a mirrored axis is decomposed again.
pub(super) fn transform_error(
    drawn: &DisplayTransform,
    exact: &Mat4,
    exact_rotation: Option<Quat>,
) -> PoseError {
    let matrix = drawn.to_matrix_fast();
    if drawn.scale.min_element() < 0.0 {
        return error_with_rotation(&matrix, exact, exact_rotation);
    }
    let mut error = corner_error(&matrix, exact);
    if let (Some(exact_rotation), Some(drawn_rotation)) = (exact_rotation, compared_rotation(drawn))
    {
        error.rotation_degrees = angle_degrees(drawn_rotation, exact_rotation);
    }
    error
}

/// The angle of the rotation taking `a` to `b`, in degrees (sign-blind).
pub(super) fn angle_degrees(a: Quat, b: Quat) -> f32 {
    let r = a.conjugate() * b;
    (2.0 * Vec3::new(r.x, r.y, r.z).length().atan2(r.w.abs())).to_degrees()
}

/// True when `m` draws nothing: hidden, or a zero 3×3 part.
pub(super) fn draws_nothing(m: Option<&Mat4>) -> bool {
    m.is_none_or(|m| Mat3::from_mat4(*m) == Mat3::ZERO)
}

/// The transform per-tick streaming and the plan send for a hidden node:
/// scale 0 where it was last drawn.
pub(super) fn hidden_transform(last: Option<DisplayTransform>) -> DisplayTransform {
    DisplayTransform {
        scale: Vec3::ZERO,
        ..last.unwrap_or(DisplayTransform::IDENTITY)
    }
}
