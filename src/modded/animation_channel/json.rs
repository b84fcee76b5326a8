//! A bone form ([`BoneForm`]) as one Bedrock animation file
//! (`format_version` 1.8.0), with the bone names and axes GeckoLib and
//! Blockbench use for a player model (`protocol-notes.md` §4).
//!
//! # The frames
//!
//! A [`JointFrame`] is in the **player's frame**: feet at the origin,
//! facing +Z, +Y up, the right hand at −X, in blocks. A Bedrock model
//! (`geometry.humanoid`, and what Blockbench shows) has the same up and
//! the right arm at −X too (its pivot is `[-5, 22, 0]`) but faces −Z (a
//! Bedrock mob's head is at negative Z), in pixels. So
//!
//! `bedrock (x, y, z) px = 16 · player (x, y, −z) blocks`.
//!
//! It follows from what GeckoLib does with the file (read in its sources:
//! `GeometryBone` loads a pivot as `(−x, y, z)` and a rotation as
//! `radians(−x, −y, z)`, and `GeoEntityRenderer` turns the model by
//! `180° − yaw` about Y with no mirror). GeckoLib's model space is the
//! Bedrock one mirrored in X, and at yaw 0 the half turn about Y takes it
//! to the player's frame: `(x, y, z) → (−x, y, −z)`; the two together are
//! the line above. A **position** key (an offset of the bone, which moves
//! its pivot by as much) is therefore `16 · (Δx, Δy, −Δz)` of the pivot's
//! move from its rest ([`BodyJoint::rest_pivot`]).
//!
//! A **rotation** key `(x, y, z)` in degrees is applied by GeckoLib as
//! `R_z(z) · R_y(−y) · R_x(−x)` in its model space (Z, then Y, then X:
//! vertices turn about X first). The half turn about Y negates turns
//! about X and Z and keeps turns about Y, so in the player's frame it is
//!
//! `R = R_z(−z) · R_y(−y) · R_x(x)`.
//!
//! A joint's rotation `R` is split as `R_z(a) · R_y(b) · R_x(c)` and
//! written `(x, y, z) = (c, −b, −a)` in degrees. Checks: an arm raised
//! forward is `R_x(−90°)` in the player's frame (its hanging −Y turns to
//! +Z), so `x = −90`, Blockbench's "arm forward" and vanilla's zombie arms
//! (`xRot = −π/2`); the right arm raised out to its side is `R_z(−θ)`, so
//! `z = +θ`, the sign Bedrock's own idle bob gives the right arm; and a
//! head that looks down by `p` is `R_x(p)`, `x = p`, which GeckoLib's own
//! head-look animation writes as `rotX = −p` (the `−x` above).
//!
//! # Bones
//!
//! The bones are `head`, `body`, `rightArm`, `leftArm`, `rightLeg` and
//! `leftLeg` ([`bedrock_bone_name`]), each written **flat**: its keys are
//! its own move from rest in the model's frame, not relative to a parent
//! bone, as PlayerAnimator moves the parts (and as Emotecraft imports a
//! GeckoLib file). A reader whose geometry parents the head and arms to
//! `body` applies them after undoing the body's move.
//!
//! The vanilla player model has no lower-limb bones, so **bends are
//! dropped**: a limb shows its upper half's move (a bent elbow or knee
//! comes out straight), and the body its lower half's. The head and arms
//! still land where the file puts them when the torso bends: a
//! [`JointFrame`] of an upper part has PlayerAnimator's turn about the
//! waist taken off ([`crate::anim::bones::upper_parts_turn`]), and it is
//! put back here, since nothing on this channel adds it.
//!
//! # Keys
//!
//! Every tick of the cycle is sampled; angles are unwrapped tick to tick
//! (so a turn through ±180° does not spin back between two keys); then
//! [`kept_indices`] keeps the fewest linear keys (Bedrock's default
//! `lerp_mode`) that stay within [`ANGLE_TOLERANCE_DEGREES`] of every
//! sampled angle and [`OFFSET_TOLERANCE_PX`] (0.01 block) of every
//! offset. A key's time is its tick in seconds (`"0.35"` for tick 7). A
//! channel that never leaves rest is left out, and a bone with neither
//! channel too, so the client's own pose shows there. Values are rounded
//! to a thousandth.
//!
//! # Play modes
//!
//! `once` is `"loop": false` and `hold` is `"hold_on_last_frame"`, both
//! `animation_length` = the duration. `loop` and `server_sync` are
//! `"loop": true` with `animation_length` = the duration plus the loop
//! delay: Bedrock holds the last key until the length, then starts over,
//! as schema 4 holds the last frame through the delay.

use glam::{EulerRot, Quat, Vec3};
use serde_json::{json, Map, Value};

use crate::anim::bones::BoneForm;
use crate::anim::bones::{upper_parts_turn, Bend, BodyJoint, JointFrame};
use crate::anim::thin::kept_indices;
use crate::format::settings::PlaybackMode;

/// How far a kept key's line may stray from a sampled angle.
pub const ANGLE_TOLERANCE_DEGREES: f32 = 0.5;
/// How far a kept key's line may stray from a sampled offset: 0.01 block.
pub const OFFSET_TOLERANCE_PX: f32 = 0.16;

/// The Bedrock (and GeckoLib) player model's name of a joint's bone.
pub fn bedrock_bone_name(joint: BodyJoint) -> &'static str {
    match joint {
        BodyJoint::Head => "head",
        BodyJoint::Torso => "body",
        BodyJoint::RightArm => "rightArm",
        BodyJoint::LeftArm => "leftArm",
        BodyJoint::RightLeg => "rightLeg",
        BodyJoint::LeftLeg => "leftLeg",
    }
}

/// One joint at one tick in Bedrock's units: rotation in degrees and
/// position in pixels, both offsets from rest (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
struct BedrockValues {
    rotation_degrees: [f32; 3],
    position_px: [f32; 3],
}

/// `frame` of `joint` in Bedrock's units, `torso_bend` put back on an
/// upper part (module docs).
fn bedrock_values(joint: BodyJoint, frame: &JointFrame, torso_bend: Bend) -> BedrockValues {
    let (rotation, pivot) = match joint {
        BodyJoint::Head | BodyJoint::RightArm | BodyJoint::LeftArm => (
            (torso_bend.turn() * frame.rotation).normalize(),
            upper_parts_turn(torso_bend).transform_point3(frame.pivot),
        ),
        BodyJoint::Torso | BodyJoint::RightLeg | BodyJoint::LeftLeg => {
            (frame.rotation, frame.pivot)
        }
    };
    let rotation = if rotation.is_finite() {
        rotation
    } else {
        Quat::IDENTITY
    };
    // R = R_z(a) · R_y(b) · R_x(c) = R_z(−z) · R_y(−y) · R_x(x).
    let (a, b, c) = rotation.to_euler(EulerRot::ZYX);
    let moved = pivot - joint.rest_pivot();
    let moved = if moved.is_finite() { moved } else { Vec3::ZERO };
    BedrockValues {
        rotation_degrees: [c.to_degrees(), -b.to_degrees(), -a.to_degrees()],
        position_px: [16.0 * moved.x, 16.0 * moved.y, -16.0 * moved.z],
    }
}

/// `form` as one Bedrock animation file whose one animation is `name`
/// (module docs).
pub fn bedrock_json(form: &BoneForm, name: &str) -> Value {
    let torso = form
        .joints
        .iter()
        .position(|(joint, _)| *joint == BodyJoint::Torso);
    let mut bones = Map::new();
    for (j, (joint, _)) in form.joints.iter().enumerate() {
        let samples: Vec<BedrockValues> = form
            .frames
            .iter()
            .filter_map(|tick| {
                let frame = tick.get(j)?;
                let bend = torso
                    .and_then(|t| tick.get(t))
                    .and_then(|t| t.bend)
                    .unwrap_or(Bend::NONE);
                Some(bedrock_values(*joint, frame, bend))
            })
            .collect();
        let mut rotations: Vec<[f32; 3]> = samples.iter().map(|s| s.rotation_degrees).collect();
        unwrap_degrees(&mut rotations);
        let positions: Vec<[f32; 3]> = samples.iter().map(|s| s.position_px).collect();
        let mut bone = Map::new();
        for (channel, values, tolerance) in [
            ("rotation", rotations, ANGLE_TOLERANCE_DEGREES),
            ("position", positions, OFFSET_TOLERANCE_PX),
        ] {
            if let Some(keys) = channel_keys(&values, tolerance) {
                bone.insert(channel.into(), keys);
            }
        }
        if !bone.is_empty() {
            bones.insert(bedrock_bone_name(*joint).into(), Value::Object(bone));
        }
    }
    let (looped, length_ticks) = match form.mode {
        PlaybackMode::Once => (json!(false), form.duration_ticks),
        PlaybackMode::Hold => (json!("hold_on_last_frame"), form.duration_ticks),
        PlaybackMode::Loop | PlaybackMode::ServerSync => (
            json!(true),
            form.duration_ticks.saturating_add(form.loop_delay_ticks),
        ),
    };
    json!({
        "format_version": "1.8.0",
        "animations": {
            name: {
                "loop": looped,
                "animation_length": f64::from(length_ticks) / 20.0,
                "bones": bones,
            }
        }
    })
}

/// The thinned keys of one channel sampled every tick, `None` when every
/// sample is at rest (all zero, within `tolerance`).
fn channel_keys(values: &[[f32; 3]], tolerance: f32) -> Option<Value> {
    if values
        .iter()
        .all(|v| v.iter().all(|c| c.abs() <= tolerance))
    {
        return None;
    }
    let fits = |a: usize, b: usize| {
        let (Some(from), Some(to)) = (values.get(a), values.get(b)) else {
            return false;
        };
        (a + 1..b).all(|i| {
            let t = (i - a) as f32 / (b - a) as f32;
            values.get(i).is_some_and(|v| {
                (0..3).all(|c| (from[c] + (to[c] - from[c]) * t - v[c]).abs() <= tolerance)
            })
        })
    };
    let keys: Map<String, Value> = kept_indices(values.len(), fits)
        .into_iter()
        .filter_map(|tick| {
            let v = values.get(tick)?;
            Some((seconds_key(tick), json!(v.map(rounded))))
        })
        .collect();
    Some(Value::Object(keys))
}

/// A tick as Bedrock's key time in seconds: `"0.35"` for tick 7, `"1.0"`
/// for tick 20 (exact: a tick is five hundredths).
fn seconds_key(tick: usize) -> String {
    let (whole, hundredths) = (tick / 20, (tick % 20) * 5);
    if hundredths % 10 == 0 {
        format!("{whole}.{}", hundredths / 10)
    } else {
        format!("{whole}.{hundredths:02}")
    }
}

/// A value rounded to a thousandth, with no negative zero.
fn rounded(v: f32) -> f64 {
    (f64::from(v) * 1000.0).round() / 1000.0 + 0.0
}

/// Moves each angle by whole turns to within half a turn of the one
/// before, per axis.
fn unwrap_degrees(values: &mut [[f32; 3]]) {
    for i in 1..values.len() {
        let previous = values[i - 1];
        for (value, previous) in values[i].iter_mut().zip(previous) {
            *value -= 360.0 * ((*value - previous) / 360.0).round();
        }
    }
}

#[cfg(test)]
mod tests;
