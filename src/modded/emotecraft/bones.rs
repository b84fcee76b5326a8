//! A schema 4 Animation's bone form ([`BoneForm`]) as PlayerAnimator's
//! keyframes ([`BoneAnimation`]), for a STREAM to modded viewers.
//!
//! # Units and axes
//! PlayerAnimator poses the vanilla model's parts, whose frame is the
//! player's turned half a turn about X: model `(x, y, z)` is the player's
//! `(x, 1.5 − y, −z)` in blocks, the model measured in pixels from the
//! neck with +y down. So a pivot `p` becomes `(16·p.x, 24 − 16·p.y,
//! −16·p.z)` pixels, and a rotation `R` becomes `C·R·C` with `C` the half
//! turn about X, read as the part's `pitch, yaw, roll` in the order the
//! model applies them (`R_z(roll) · R_y(yaw) · R_x(pitch)`). A bend keeps
//! its angle; its axis, a turn about Y, changes sign under `C`.
//!
//! # Keys
//! Every tick of the cycle is sampled, then each axis keeps only the keys
//! it needs ([`super::fit`]): a stretch between two keys, linear or eased,
//! stays within [`ANGLE_TOLERANCE_RADIANS`] (0.2°, under the scheduler's
//! 0.5° for display entities, so an imported body stays within 0.5° of
//! its source end to end) or [`OFFSET_TOLERANCE_PX`] (0.01 block, the
//! scheduler's) of every sampled tick. PlayerAnimator
//! interpolates every axis on its own, so the angles are chosen with
//! care:
//! - pitch, yaw and roll are chosen tick by tick as the triple nearest
//!   the tick before ([`super::euler`]): a turn through yaw ±90° keeps
//!   going rather than flipping pitch and roll, a turn held at gimbal
//!   lock keeps its pitch, and angles go past ±180° unwrapped;
//! - the three angles are thinned as one turn and the bend's axis and
//!   angle as one bend ([`super::composite`]): read back together at
//!   every tick they stay within 0.2° of the sampled turn and bend, with
//!   keys added where the axes alone would stray together;
//! - a looped axis that goes on by whole turns in a cycle (a spin) is
//!   split at the seam: a second key at tick 0, ahead of the first, holds
//!   the first value one turn on, and only the step from the end of one
//!   cycle toward the next reads it, so the spin goes on the way it went
//!   (PlayerAnimator's own JSON reader writes a move's `turn` the same
//!   way, as two keys at one tick).
//!
//! An axis that stays at the vanilla model's rest value
//! is sent disabled, with no keys: the vanilla model's own pose shows
//! there (the head follows the look, the arms sway a little), as in the
//! emotes Emotecraft players make (an angle is switched on after all when
//! the turn read together needs it). A part with every axis disabled is
//! left out of the binary: the reader makes a missing part a still one.
//!
//! # Play modes
//! PlayerAnimator plays ticks `0..=endTick` and then goes on from
//! `returnTick` when looped, so a looped cycle is `endTick − returnTick +
//! 1` ticks. The bone form has frames `0..=D` for a cycle of `D` ticks.
//! - `once`: not looped, `endTick = D`: the last frame shows at tick `D`,
//!   which is also the stop tick.
//! - `loop` and `server_sync`: looped back to tick 0 with `endTick = D + L
//!   − 1` for a loop delay of `L` ticks, so one cycle is `D + L` ticks,
//!   as schema 4 plays it (frames `0..=D`, frame `D` held through the
//!   delay, then the next cycle's frame 0; with no delay frame `D` gives
//!   way to it). PlayerAnimator goes from the last key toward the next
//!   cycle's first, which holds when frame `D` is frame 0 (a loop that
//!   ends where it began); an axis whose frame `D` is not gets one more
//!   key at tick `D + L − 1`, so it holds `D` through the delay as schema
//!   4 does (the turn is held whole when frame `D` turns otherwise than
//!   frame 0). With no delay, tick `D` is the next cycle's frame 0, and
//!   the turn is fitted so. A one-tick loop with no delay cannot be written
//!   (PlayerAnimator makes `endTick` at least 1): it plays two ticks a
//!   cycle.
//! - `hold`: looped back to `endTick = D`, a cycle of one tick, which holds
//!   the final pose until a STOP, as Emotecraft imports GeckoLib's
//!   `hold_on_last_frame`.

use uuid::Uuid;

use super::animation::{emote_payload, BoneAnimation, Part, ANIMATION_BINARY_VERSION};
use super::frame::{player_sub, EmotePacket, Purpose, SubPacket, SUB_EMOTE};
use super::joint::{joint_part, Cycle};
use crate::anim::bones::{BoneForm, JointFrame};
use crate::format::settings::PlaybackMode;

pub use super::axes::{ANGLE_TOLERANCE_RADIANS, OFFSET_TOLERANCE_PX};

/// `form` as PlayerAnimator keyframes, named by `uuid` (what a STOP names).
pub fn bone_animation(form: &BoneForm, uuid: Uuid) -> BoneAnimation {
    let end_tick = i32::try_from(form.duration_ticks).unwrap_or(i32::MAX);
    // The ticks after frame D of a loop's delay that must still show it.
    let held_ticks = match form.mode {
        PlaybackMode::Loop | PlaybackMode::ServerSync => {
            form.loop_delay_ticks.saturating_sub(1) as usize
        }
        PlaybackMode::Once | PlaybackMode::Hold => 0,
    };
    let looped = matches!(form.mode, PlaybackMode::Loop | PlaybackMode::ServerSync);
    let parts = form
        .joints
        .iter()
        .enumerate()
        .map(|(j, (joint, bends))| {
            let frames: Vec<&JointFrame> =
                form.frames.iter().filter_map(|tick| tick.get(j)).collect();
            let cycle = Cycle {
                held_ticks,
                looped,
                tight_loop: looped && form.loop_delay_ticks == 0,
            };
            joint_part(*joint, *bends, &frames, cycle)
        })
        // A part the emote never moves is left out: PlayerAnimator's reader
        // makes a missing part as it makes a still one (every axis off,
        // the vanilla model's), and each costs 55 bytes or so.
        .filter(|part: &Part| part.axes.iter().any(|a| a.enabled))
        .collect();
    let (is_looped, return_tick, end_tick) = match form.mode {
        PlaybackMode::Once => (false, 0, end_tick),
        PlaybackMode::Hold => (true, end_tick, end_tick),
        PlaybackMode::Loop | PlaybackMode::ServerSync => {
            let delay = i32::try_from(form.loop_delay_ticks).unwrap_or(0);
            let cycle_end = end_tick.saturating_add(delay).saturating_sub(1);
            (true, 0, cycle_end.max(1))
        }
    };
    BoneAnimation {
        begin_tick: 0,
        end_tick,
        stop_tick: end_tick,
        is_looped,
        return_tick,
        easing_before: false,
        nsfw: false,
        parts,
        uuid,
    }
}

/// The UUID an emote id streams under: the same for the same id on every
/// server start (a STOP must name what the STREAM named), from two 64-bit
/// FNV-1a hashes of the id, marked as a custom (version 8) UUID.
pub fn emote_uuid(id: &str) -> Uuid {
    let fnv = |seed: u64| {
        id.bytes().fold(seed, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    let (high, low) = (fnv(0xcbf2_9ce4_8422_2325), fnv(0x6c62_272e_07bb_0142));
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&high.to_be_bytes());
    bytes[8..].copy_from_slice(&low.to_be_bytes());
    uuid::Builder::from_custom_bytes(bytes).into_uuid()
}

/// A STREAM of `animation` played by `player`, from `start_tick`.
pub fn stream_packet(animation: &BoneAnimation, start_tick: i32, player: Uuid) -> EmotePacket {
    EmotePacket::new(
        Purpose::Stream,
        vec![
            SubPacket {
                id: SUB_EMOTE,
                version: ANIMATION_BINARY_VERSION,
                payload: emote_payload(start_tick, animation),
            },
            player_sub(player, false),
        ],
    )
}

#[cfg(test)]
mod tests {
    use std::f32::consts::PI;

    use glam::Quat;

    use super::super::axes::axes_of;
    use super::*;

    #[test]
    fn an_emote_uuid_is_stable_and_differs_by_id() {
        assert_eq!(emote_uuid("example:wave"), emote_uuid("example:wave"));
        assert_ne!(emote_uuid("example:wave"), emote_uuid("example:bow"));
        assert_eq!(emote_uuid("example:wave").get_version_num(), 8);
    }

    /// A right arm (no bend) whose roll goes 0 → 1 → `end_roll` over a
    /// 10-tick cycle (frames 0, 5, 10), played as `mode` with `delay`.
    fn arm_form(mode: PlaybackMode, delay: u32, end_roll: f32) -> BoneForm {
        use crate::anim::bones::BodyJoint;
        let frames = (0..=10)
            .map(|t| {
                let roll = if t <= 5 {
                    t as f32 / 5.0
                } else {
                    1.0 + (end_roll - 1.0) * (t - 5) as f32 / 5.0
                };
                // The model's roll is about its z, the player's −z.
                vec![JointFrame {
                    rotation: Quat::from_rotation_z(-roll),
                    ..JointFrame::rest(BodyJoint::RightArm, false)
                }]
            })
            .collect();
        BoneForm {
            duration_ticks: 10,
            mode,
            loop_delay_ticks: delay,
            joints: vec![(BodyJoint::RightArm, false)],
            frames,
        }
    }

    #[test]
    fn a_loop_of_d_ticks_and_delay_l_ends_at_d_plus_l_minus_one() {
        // PlayerAnimator plays 0..=endTick, then returnTick: a cycle of
        // endTick − returnTick + 1 ticks, which must be schema 4's D + L =
        // 10 + 4 = 14, so endTick = 13. Frame 10 is frame 0 again, so the
        // roll holds through the delay with no key after tick 10.
        let looped = bone_animation(&arm_form(PlaybackMode::Loop, 4, 0.0), Uuid::nil());
        assert!(looped.is_looped);
        assert_eq!((looped.return_tick, looped.end_tick), (0, 13));
        let roll = &looped.parts[0].axes[5];
        assert!(roll.enabled);
        assert_eq!(roll.keyframes.last().map(|k| k.tick), Some(10));
        // No delay: a cycle of 10 ticks, endTick 9 (frame 10 is the next
        // cycle's frame 0).
        let tight = bone_animation(&arm_form(PlaybackMode::Loop, 0, 0.0), Uuid::nil());
        assert_eq!((tight.return_tick, tight.end_tick), (0, 9));
        let synced = bone_animation(&arm_form(PlaybackMode::ServerSync, 2, 0.0), Uuid::nil());
        assert_eq!((synced.return_tick, synced.end_tick), (0, 11));
    }

    #[test]
    fn a_loop_that_ends_away_from_its_start_holds_through_the_delay() {
        // Frame 10 rolls 0.5, frame 0 rolls 0: schema 4 holds 0.5 through
        // ticks 10..=13 of the delay, so the last key is at tick 13 with
        // 0.5, and PlayerAnimator goes from there to the next cycle's 0.
        let looped = bone_animation(&arm_form(PlaybackMode::Loop, 4, 0.5), Uuid::nil());
        let last = looped.parts[0].axes[5].keyframes.last().copied();
        let last = last.expect("keys");
        assert_eq!(last.tick, 13);
        assert!((last.value - 0.5).abs() < 1e-4, "{last:?}");
    }

    #[test]
    fn once_stops_on_the_last_frame_and_hold_stays_on_it() {
        // once: not looped, frames 0..=10 shown, the last at tick 10.
        let once = bone_animation(&arm_form(PlaybackMode::Once, 4, 0.5), Uuid::nil());
        assert!(!once.is_looped);
        assert_eq!((once.end_tick, once.stop_tick), (10, 10));
        // hold: looped back to 10, a one-tick cycle on the last frame.
        let hold = bone_animation(&arm_form(PlaybackMode::Hold, 4, 0.5), Uuid::nil());
        assert!(hold.is_looped);
        assert_eq!((hold.return_tick, hold.end_tick), (10, 10));
        for a in [once, hold] {
            assert_eq!(
                a.parts[0].axes[5].keyframes.last().map(|k| k.tick),
                Some(10)
            );
        }
    }

    #[test]
    fn a_rest_frame_is_the_vanilla_pose_in_model_units() {
        use crate::anim::bones::BodyJoint;
        let axes = axes_of(&JointFrame::rest(BodyJoint::RightArm, true));
        let expected = [-5.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        for (a, e) in axes.iter().zip(expected) {
            assert!((a - e).abs() < 1e-4, "{axes:?}");
        }
        let legs = axes_of(&JointFrame::rest(BodyJoint::LeftLeg, true));
        assert!((legs[0] - 1.9).abs() < 1e-4 && (legs[1] - 12.0).abs() < 1e-4);
        assert!((legs[2] - 0.1).abs() < 1e-4, "{legs:?}");
    }

    #[test]
    fn an_arm_raised_forward_is_a_negative_pitch_in_the_model() {
        // Raising the right arm forward turns it about the player's −X... in
        // the player's frame (facing +Z, +Y up), an arm hanging down (−Y)
        // swung to point forward (+Z) is R_x(−90°): R_x(θ) takes −Y to
        // (0, −cos θ, −sin θ), so θ = −90° gives +Z. The model's X is the
        // player's, so pitch is the same −90°, as vanilla's "arm raised
        // forward" (zombie arms: xRot = −π/2).
        let frame = JointFrame {
            rotation: Quat::from_rotation_x(-PI / 2.0),
            ..JointFrame::rest(crate::anim::bones::BodyJoint::RightArm, false)
        };
        let axes = axes_of(&frame);
        assert!((axes[3] + PI / 2.0).abs() < 1e-4, "{axes:?}");
        assert!(axes[4].abs() < 1e-4 && axes[5].abs() < 1e-4, "{axes:?}");
    }
}
