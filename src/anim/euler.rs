//! Euler angles as schema 4 files write them.
//!
//! `[x, y, z]` in degrees is the XYZ order of JOML's `rotationXYZ` and
//! three.js's `Euler(…, "XYZ")`: `q = qx(x) · qy(y) · qz(z)`, so a vector is
//! turned about Z first, then Y, then X (in the node's frame).

use glam::{Quat, Vec3};

/// The quaternion of XYZ Euler angles given in degrees.
pub fn quat_from_euler_degrees(degrees: Vec3) -> Quat {
    let r = degrees * (std::f32::consts::PI / 180.0);
    Quat::from_rotation_x(r.x) * Quat::from_rotation_y(r.y) * Quat::from_rotation_z(r.z)
}

#[cfg(test)]
mod tests {
    use glam::Mat3;

    use super::*;

    #[test]
    fn single_axes_turn_the_right_way() {
        // 90° about Y takes +X to −Z (right-handed).
        let q = quat_from_euler_degrees(Vec3::new(0.0, 90.0, 0.0));
        assert!((q * Vec3::X).abs_diff_eq(Vec3::new(0.0, 0.0, -1.0), 1e-6));
        let q = quat_from_euler_degrees(Vec3::new(90.0, 0.0, 0.0));
        assert!((q * Vec3::Y).abs_diff_eq(Vec3::Z, 1e-6));
    }

    #[test]
    fn order_is_x_then_y_then_z_as_matrices() {
        let d = Vec3::new(30.0, -45.0, 70.0);
        let r = d * (std::f32::consts::PI / 180.0);
        let m =
            Mat3::from_rotation_x(r.x) * Mat3::from_rotation_y(r.y) * Mat3::from_rotation_z(r.z);
        let q = quat_from_euler_degrees(d);
        for v in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(0.3, -1.2, 2.0)] {
            assert!((q * v).abs_diff_eq(m * v, 1e-5), "{v}");
        }
    }
}
