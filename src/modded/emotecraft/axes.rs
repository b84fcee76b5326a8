//! PlayerAnimator's eight axes of a joint (pivot x, y, z in pixels;
//! pitch, yaw, roll; bend axis and angle), and how closely the STREAM
//! writer keeps them: shared by the writer's model (`bones`) and its
//! per-joint fitting (`joint`).

use std::f32::consts::PI;

use glam::{EulerRot, Quat};

use crate::anim::bones::JointFrame;

/// How far a kept key's line may stray from a sampled angle: 0.2°, well
/// under the displays' 0.5°, so that a body imported from another format
/// (itself within 0.25° of its source: `import::keys::Tolerances::BODY`)
/// reaches a modded viewer within 0.5° of that source, also where the
/// errors of the whole-body turn, the torso bend and the head add up
/// (the head turns inside both). Measured on the six Emotecraft files:
/// at worst 0.41° end to end (`library::emotecraft_json_tests`).
pub const ANGLE_TOLERANCE_RADIANS: f32 = 0.2 * PI / 180.0;
/// How far a kept key's line may stray from a sampled offset: 0.01 block.
pub const OFFSET_TOLERANCE_PX: f32 = 0.16;

/// PlayerAnimator's eight axes of a joint at one tick, in its units.
pub(super) fn axes_of(frame: &JointFrame) -> [f32; 8] {
    let half_turn_x = Quat::from_rotation_x(PI);
    let model = (half_turn_x * frame.rotation * half_turn_x).normalize();
    let (roll, yaw, pitch) = model.to_euler(EulerRot::ZYX);
    let p = frame.pivot;
    let (bend_axis, bend) = frame
        .bend
        .map_or((0.0, 0.0), |b| (-b.axis_radians, b.angle_radians));
    [
        16.0 * p.x,
        24.0 - 16.0 * p.y,
        -16.0 * p.z,
        pitch,
        yaw,
        roll,
        bend_axis,
        bend,
    ]
}
