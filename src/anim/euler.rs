//! Euler angles as schema 4 files write them.
//!
//! `[x, y, z]` in degrees is the XYZ order of JOML's `rotationXYZ` and
//! three.js's `Euler(…, "XYZ")`: `q = qx(x) · qy(y) · qz(z)`, so a vector is
//! turned about Z first, then Y, then X (in the node's frame).

use glam::{Mat3, Quat, Vec3};

/// The quaternion of XYZ Euler angles given in degrees.
pub fn quat_from_euler_degrees(degrees: Vec3) -> Quat {
    let r = degrees * (std::f32::consts::PI / 180.0);
    Quat::from_rotation_x(r.x) * Quat::from_rotation_y(r.y) * Quat::from_rotation_z(r.z)
}

/// The XYZ Euler angles in degrees of a rotation, what a file writes for
/// it: [`quat_from_euler_degrees`] of the result is `rotation` (or its
/// negation, the same turn). `y` is within ±90°, `x` and `z` within ±180°;
/// at `y = ±90°` (gimbal lock) the whole turn about the remaining axis is
/// put in `x` and `z` is 0.
pub fn euler_degrees_from_quat(rotation: Quat) -> Vec3 {
    // R = Rx(a)·Ry(b)·Rz(c) has row 0, column 2 = sin b; row 1, column 2 =
    // −sin a·cos b; row 2, column 2 = cos a·cos b; row 0, column 1 =
    // −cos b·sin c; row 0, column 0 = cos b·cos c. glam's columns are
    // `x_axis`, `y_axis`, `z_axis`.
    let m = Mat3::from_quat(rotation.normalize());
    let sin_b = m.z_axis.x.clamp(-1.0, 1.0);
    let b = sin_b.asin();
    let (a, c) = if sin_b.abs() < 0.999_999 {
        (
            (-m.z_axis.y).atan2(m.z_axis.z),
            (-m.y_axis.x).atan2(m.x_axis.x),
        )
    } else {
        // cos b = 0: R = Rx(a)·Ry(±90°) with c = 0, whose column 1 is
        // (0, cos a, sin a).
        (m.y_axis.z.atan2(m.y_axis.y), 0.0)
    };
    Vec3::new(a, b, c) * (180.0 / std::f32::consts::PI)
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
    fn euler_angles_come_back_from_their_quaternion() {
        for d in [
            Vec3::new(30.0, -45.0, 70.0),
            Vec3::new(-170.0, 10.0, 120.0),
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(5.0, 89.0, -3.0),
        ] {
            let back = euler_degrees_from_quat(quat_from_euler_degrees(d));
            assert!(back.abs_diff_eq(d, 1e-2), "{d} came back as {back}");
        }
        // Gimbal lock: Rx(40)·Ry(90)·Rz(0) is read back exactly as written.
        let locked = quat_from_euler_degrees(Vec3::new(40.0, 90.0, 0.0));
        let back = quat_from_euler_degrees(euler_degrees_from_quat(locked));
        assert!(back.angle_between(locked) < 1e-3, "{back}");
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
