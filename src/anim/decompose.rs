//! Splitting a node's composed matrix into what a 1.20.1 display entity
//! accepts: `M = T · R_left · S · R_right` (translation, left rotation,
//! per-axis scale, right rotation).
//!
//! The 3×3 part `A` is split by its singular value decomposition
//! `A = U · Σ · Vᵀ`: `R_left = U`, `S = Σ`, `R_right = Vᵀ`. When `A` has
//! orthogonal columns (no non-uniform scale under a rotation, by far the
//! common case) that is read off directly; otherwise the eigenvectors of
//! `AᵀA` come from cyclic Jacobi rotations. A reflection (negative
//! determinant) is carried by a negative scale on one axis.

use glam::{Mat3, Mat4, Quat, Vec3};

/// A display entity's transformation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DisplayTransform {
    /// `translation`, in blocks.
    pub translation: Vec3,
    /// `left_rotation`.
    pub left_rotation: Quat,
    /// `scale`.
    pub scale: Vec3,
    /// `right_rotation`.
    pub right_rotation: Quat,
}

impl DisplayTransform {
    /// The identity transformation.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        left_rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
        right_rotation: Quat::IDENTITY,
    };

    /// The matrix the client composes: `T · R_left · S · R_right`.
    pub fn to_matrix(&self) -> Mat4 {
        Mat4::from_translation(self.translation)
            * Mat4::from_quat(self.left_rotation)
            * Mat4::from_scale(self.scale)
            * Mat4::from_quat(self.right_rotation)
    }

    /// [`Self::to_matrix`] with 3×3 products (the same matrix up to float
    /// rounding), for loops that compose many.
    pub fn to_matrix_fast(&self) -> Mat4 {
        let left = Mat3::from_quat(self.left_rotation);
        let scaled = Mat3::from_cols(
            left.x_axis * self.scale.x,
            left.y_axis * self.scale.y,
            left.z_axis * self.scale.z,
        );
        let linear = if self.right_rotation == Quat::IDENTITY {
            scaled
        } else {
            scaled * Mat3::from_quat(self.right_rotation)
        };
        Mat4::from_cols(
            linear.x_axis.extend(0.0),
            linear.y_axis.extend(0.0),
            linear.z_axis.extend(0.0),
            self.translation.extend(1.0),
        )
    }

    /// What a 1.20.1 client draws a fraction `t` of the way from `self` to
    /// `to` while it interpolates a transformation: translation and scale
    /// lerped, each rotation slerped on its own (shortest arc).
    pub fn interpolate(&self, to: &Self, t: f32) -> Self {
        Self {
            translation: self.translation.lerp(to.translation, t),
            left_rotation: super::track::slerp(self.left_rotation, to.left_rotation, t),
            scale: self.scale.lerp(to.scale, t),
            right_rotation: super::track::slerp(self.right_rotation, to.right_rotation, t),
        }
    }

    /// Splits an affine matrix.
    pub fn from_matrix(m: &Mat4) -> Self {
        let translation = m.w_axis.truncate();
        let a = Mat3::from_mat4(*m);
        let lengths = Vec3::new(a.x_axis.length(), a.y_axis.length(), a.z_axis.length());
        let orthogonal = {
            let tol = 1e-5 * lengths.max_element().max(1e-12) * lengths.max_element().max(1e-12);
            a.x_axis.dot(a.y_axis).abs() <= tol
                && a.x_axis.dot(a.z_axis).abs() <= tol
                && a.y_axis.dot(a.z_axis).abs() <= tol
        };
        if orthogonal && lengths.min_element() > 1e-12 {
            // A = R · S with R's columns the normalised columns of A.
            let mut scale = lengths;
            let mut r = Mat3::from_cols(
                a.x_axis / lengths.x,
                a.y_axis / lengths.y,
                a.z_axis / lengths.z,
            );
            if r.determinant() < 0.0 {
                r.z_axis = -r.z_axis;
                scale.z = -scale.z;
            }
            return Self {
                translation,
                left_rotation: Quat::from_mat3(&r).normalize(),
                scale,
                right_rotation: Quat::IDENTITY,
            };
        }
        let (u, sigma, v) = svd3(&a);
        Self {
            translation,
            left_rotation: Quat::from_mat3(&u).normalize(),
            scale: sigma,
            right_rotation: Quat::from_mat3(&v.transpose()).normalize(),
        }
    }
}

/// `A = U · diag(σ) · Vᵀ` with `U`, `V` proper rotations (σ may carry a sign).
fn svd3(a: &Mat3) -> (Mat3, Vec3, Mat3) {
    // Eigen-decompose the symmetric AᵀA with cyclic Jacobi sweeps.
    let ata = a.transpose() * *a;
    let mut s = [
        [ata.x_axis.x, ata.y_axis.x, ata.z_axis.x],
        [ata.x_axis.y, ata.y_axis.y, ata.z_axis.y],
        [ata.x_axis.z, ata.y_axis.z, ata.z_axis.z],
    ];
    let mut v = [[1.0f32, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _sweep in 0..12 {
        let off = s[0][1].abs() + s[0][2].abs() + s[1][2].abs();
        if off < 1e-12 {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            if s[p][q].abs() < 1e-15 {
                continue;
            }
            let theta = (s[q][q] - s[p][p]) / (2.0 * s[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let sn = t * c;
            // S ← Jᵀ S J
            for row in &mut s {
                let (skp, skq) = (row[p], row[q]);
                row[p] = c * skp - sn * skq;
                row[q] = sn * skp + c * skq;
            }
            let (row_p, row_q) = (s[p], s[q]);
            for (k, (spk, sqk)) in row_p.into_iter().zip(row_q).enumerate() {
                s[p][k] = c * spk - sn * sqk;
                s[q][k] = sn * spk + c * sqk;
            }
            // V ← V J
            for row in v.iter_mut() {
                let vp = row[p];
                let vq = row[q];
                row[p] = c * vp - sn * vq;
                row[q] = sn * vp + c * vq;
            }
        }
    }
    let mut vm = Mat3::from_cols(
        Vec3::new(v[0][0], v[1][0], v[2][0]),
        Vec3::new(v[0][1], v[1][1], v[2][1]),
        Vec3::new(v[0][2], v[1][2], v[2][2]),
    );
    if vm.determinant() < 0.0 {
        vm.z_axis = -vm.z_axis;
    }
    // U's columns: A·vᵢ / σᵢ; a zero σ gets a column completing the basis.
    let av = [*a * vm.x_axis, *a * vm.y_axis, *a * vm.z_axis];
    let mut sigma = Vec3::new(av[0].length(), av[1].length(), av[2].length());
    let mut cols = [Vec3::ZERO; 3];
    for i in 0..3 {
        if sigma[i] > 1e-9 {
            cols[i] = av[i] / sigma[i];
        }
    }
    for i in 0..3 {
        if sigma[i] <= 1e-9 {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            let candidate = cols[j].cross(cols[k]);
            cols[i] = if candidate.length_squared() > 1e-12 {
                candidate.normalize()
            } else if cols[j].length_squared() > 0.5 {
                cols[j].any_orthonormal_vector()
            } else {
                [Vec3::X, Vec3::Y, Vec3::Z][i]
            };
            sigma[i] = 0.0;
        }
    }
    let mut u = Mat3::from_cols(cols[0], cols[1], cols[2]);
    if u.determinant() < 0.0 {
        u.z_axis = -u.z_axis;
        sigma.z = -sigma.z;
    }
    (u, sigma, vm)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A Sequence transition (and the client) at a quarter and half way:
    /// translation (0,0,0)→(2,0,4), left rotation 0°→90° about Y, scale
    /// 1→3, right rotation 0°→60° about X; values worked out by hand.
    #[test]
    fn interpolation_matches_hand_computed_values() {
        let from = DisplayTransform::IDENTITY;
        let to = DisplayTransform {
            translation: Vec3::new(2.0, 0.0, 4.0),
            left_rotation: Quat::from_rotation_y(90f32.to_radians()),
            scale: Vec3::splat(3.0),
            right_rotation: Quat::from_rotation_x(60f32.to_radians()),
        };
        let half = from.interpolate(&to, 0.5);
        assert!(half.translation.abs_diff_eq(Vec3::new(1.0, 0.0, 2.0), 1e-6));
        assert!(half.scale.abs_diff_eq(Vec3::splat(2.0), 1e-6));
        // 45° about Y: (0, sin 22.5°, 0, cos 22.5°).
        let (s, c) = (22.5f32.to_radians().sin(), 22.5f32.to_radians().cos());
        assert!(half
            .left_rotation
            .abs_diff_eq(Quat::from_xyzw(0.0, s, 0.0, c), 1e-6));
        // 30° about X: (sin 15°, 0, 0, cos 15°).
        let (s, c) = (15f32.to_radians().sin(), 15f32.to_radians().cos());
        assert!(half
            .right_rotation
            .abs_diff_eq(Quat::from_xyzw(s, 0.0, 0.0, c), 1e-6));
        let quarter = from.interpolate(&to, 0.25);
        assert!(quarter
            .translation
            .abs_diff_eq(Vec3::new(0.5, 0.0, 1.0), 1e-6));
        assert!(quarter.scale.abs_diff_eq(Vec3::splat(1.5), 1e-6));
        // The ends are the ends.
        assert_eq!(from.interpolate(&to, 0.0).translation, Vec3::ZERO);
        assert!(from
            .interpolate(&to, 1.0)
            .to_matrix()
            .abs_diff_eq(to.to_matrix(), 1e-5));
    }

    fn assert_round_trip(m: Mat4) {
        let d = DisplayTransform::from_matrix(&m);
        let back = d.to_matrix();
        assert!(back.abs_diff_eq(m, 1e-4), "{m:?}\n→ {d:?}\n→ {back:?}");
    }

    #[test]
    fn rotation_and_uniform_scale_use_left_rotation_only() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::splat(2.0),
            Quat::from_rotation_y(0.7),
            Vec3::new(1.0, 2.0, 3.0),
        );
        let d = DisplayTransform::from_matrix(&m);
        assert_eq!(d.right_rotation, Quat::IDENTITY);
        assert!(d.scale.abs_diff_eq(Vec3::splat(2.0), 1e-5));
        assert_round_trip(m);
    }

    #[test]
    fn non_uniform_scale_under_a_rotation_needs_both_rotations() {
        // parent turned 45° about Z, child scaled (3, 1, 1) and turned 30° about Y.
        let m = Mat4::from_quat(Quat::from_rotation_z(0.785))
            * Mat4::from_scale(Vec3::new(3.0, 1.0, 1.0))
            * Mat4::from_quat(Quat::from_rotation_y(0.52));
        assert_round_trip(m);
    }

    #[test]
    fn zero_scale_is_kept() {
        let m =
            Mat4::from_scale_rotation_translation(Vec3::ZERO, Quat::from_rotation_x(1.0), Vec3::X);
        let d = DisplayTransform::from_matrix(&m);
        assert_eq!(d.translation, Vec3::X);
        assert!(d.scale.abs_diff_eq(Vec3::ZERO, 1e-6));
        assert_round_trip(m);
    }

    #[test]
    fn mirrored_matrices_round_trip() {
        let m = Mat4::from_scale(Vec3::new(-1.0, 2.0, 1.0))
            * Mat4::from_quat(Quat::from_rotation_y(0.3));
        assert_round_trip(m);
    }

    proptest! {
        #[test]
        fn the_fast_matrix_is_the_matrix(
            a in -3.0f32..3.0, b in -3.0f32..3.0, c in -3.0f32..3.0,
            sx in -3.0f32..3.0, sy in 0.0f32..3.0, sz in 0.1f32..3.0,
            d in -3.0f32..3.0, right in any::<bool>(),
            tx in -5.0f32..5.0,
        ) {
            let transform = DisplayTransform {
                translation: Vec3::new(tx, d, -tx),
                left_rotation: Quat::from_euler(glam::EulerRot::XYZ, a, b, c),
                scale: Vec3::new(sx, sy, sz),
                right_rotation: if right { Quat::from_euler(glam::EulerRot::ZYX, c, a, d) } else { Quat::IDENTITY },
            };
            let slow = transform.to_matrix();
            let fast = transform.to_matrix_fast();
            prop_assert!(fast.abs_diff_eq(slow, 1e-5), "{fast:?} vs {slow:?}");
        }

        #[test]
        fn any_trs_chain_round_trips(
            a in -3.0f32..3.0, b in -3.0f32..3.0, c in -3.0f32..3.0,
            sx in 0.1f32..3.0, sy in 0.1f32..3.0, sz in 0.1f32..3.0,
            d in -3.0f32..3.0, e in -3.0f32..3.0,
            tx in -5.0f32..5.0,
        ) {
            let parent = Mat4::from_scale_rotation_translation(Vec3::new(sx, sy, sz), Quat::from_euler(glam::EulerRot::XYZ, a, b, c), Vec3::new(tx, 1.0, -tx));
            let child = Mat4::from_scale_rotation_translation(Vec3::new(sy, sz, sx), Quat::from_euler(glam::EulerRot::XYZ, d, e, a), Vec3::new(0.5, 0.0, tx));
            let m = parent * child;
            let back = DisplayTransform::from_matrix(&m).to_matrix();
            // Relative tolerance: the chains reach entries of about 50.
            let magnitude = m.to_cols_array().iter().fold(1.0f32, |acc, v| acc.max(v.abs()));
            prop_assert!(back.abs_diff_eq(m, 1e-4 * magnitude), "{:?} vs {:?}", m, back);
        }
    }
}
