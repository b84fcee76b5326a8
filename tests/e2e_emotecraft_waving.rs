//! A modded viewer (a real client speaking `emotecraft:emote`) sees a
//! converted Emotecraft emote as the file itself plays: KosmX's
//! `waving.json` (CC-BY-4.0, read in place from the shared samples) is
//! converted with `emoted convert` into a scratch emotes folder, a server
//! loads it, a vanilla player plays it and a modded one receives the
//! STREAM. The test decodes the STREAM with its own code
//! (`tests/common/emotecraft.rs`), evaluates it at every tick as
//! PlayerAnimator plays keys, and holds each part's turn, bend and pivot
//! to the source file's own evaluation (emoted's importer evaluates it by
//! PlayerAnimator's rules, `emoted::import::playeranimator`; the file's
//! whole-body part, which the STREAM folds into the parts, carries them).
//!
//! The right arm of `waving.json` waves at yaw 90°, where PlayerAnimator's
//! angles are at gimbal lock: an encoder that picks the angles tick by
//! tick without looking at the tick before sends pitch and roll that
//! wander, and the viewer's arm swings through other poses (43.5° off
//! before the encoder chose them continuous).

mod common;

use std::process::Command;

use common::emotecraft::*;
use common::{Server, TempDir};
use emoted::anim::bones::{BodyJoint, JointFrame};
use emoted::import::emotecraft_json::read_emote;
use emoted::import::playeranimator::body_clip;
use glam::{Affine3A, DQuat, DVec2};
use serde_json::{json, Map};

/// How far the viewer's turn or bend may be from the file's, degrees.
const TURN_DEGREES: f64 = 1.0;
/// How far the viewer's pivot may be from the file's, pixels (the round
/// trip's bound in `library::emotecraft_json_tests`).
const PIVOT_PX: f32 = 0.35;

/// A part's turn in the model's frame from its pitch, yaw and roll, the
/// order PlayerAnimator's model applies them.
fn turn(axes: &[f32; 8]) -> DQuat {
    let [pitch, yaw, roll] = [axes[3], axes[4], axes[5]].map(f64::from);
    DQuat::from_rotation_z(roll) * DQuat::from_rotation_y(yaw) * DQuat::from_rotation_x(pitch)
}

/// The angle between two turns, degrees.
fn degrees_between(a: DQuat, b: DQuat) -> f64 {
    let d = a.conjugate() * b;
    (2.0 * d.xyz().length().atan2(d.w.abs())).to_degrees()
}

/// A bend as the vector `angle · (cos axis, sin axis)`.
fn bend(axes: &[f32; 8]) -> DVec2 {
    let (axis, angle) = (f64::from(axes[6]), f64::from(axes[7]));
    DVec2::new(axis.cos(), axis.sin()) * angle
}

/// The vanilla model's pose of a part, in PlayerAnimator's axes (what a
/// disabled axis, or a part the STREAM leaves out, shows).
fn vanilla(name: &str) -> [f32; 8] {
    let (x, y, z) = match name {
        "rightArm" => (-5.0, 2.0, 0.0),
        "leftArm" => (5.0, 2.0, 0.0),
        "rightLeg" => (-1.9, 12.0, 0.1),
        "leftLeg" => (1.9, 12.0, 0.1),
        _ => (0.0, 0.0, 0.0),
    };
    [x, y, z, 0.0, 0.0, 0.0, 0.0, 0.0]
}

/// A part as the viewer draws it: its pivot in model pixels, its turn in
/// the model's frame, its bend as the vector `angle · (cos axis, sin
/// axis)` (the axis as sent).
struct Drawn {
    pivot_px: [f32; 3],
    turn: DQuat,
    bend: DVec2,
}

/// A joint of the file's evaluation, carried by the whole-body transform
/// `body`, as a part with no body part around it: pivot `(16·x, 24 −
/// 16·y, −16·z)` pixels, turn `C·R·C` (`C` the half turn about X), bend
/// axis negated. (Compared as a turn, not as angles: at yaw 90° any
/// decomposition into angles is one of many.)
fn drawn_by_file(body: &Affine3A, frame: &JointFrame) -> Drawn {
    let (_, body_turn, _) = body.to_scale_rotation_translation();
    let pivot = body.transform_point3(frame.pivot);
    let c = DQuat::from_rotation_x(std::f64::consts::PI);
    let (axis, angle) = frame
        .bend
        .map_or((0.0, 0.0), |b| (-b.axis_radians, b.angle_radians));
    Drawn {
        pivot_px: [16.0 * pivot.x, 24.0 - 16.0 * pivot.y, -16.0 * pivot.z],
        turn: c * (body_turn * frame.rotation).normalize().as_f64() * c,
        bend: DVec2::new(f64::from(axis).cos(), f64::from(axis).sin()) * f64::from(angle),
    }
}

/// A part of the STREAM as the viewer draws it from its eight axes.
fn drawn_by_stream(axes: &[f32; 8]) -> Drawn {
    Drawn {
        pivot_px: [axes[0], axes[1], axes[2]],
        turn: turn(axes),
        bend: bend(axes),
    }
}

/// Every part's eight axes at `tick` of the decoded STREAM.
fn stream_axes(animation: &Decoded, name: &str, tick: i32) -> [f32; 8] {
    let mut axes = vanilla(name);
    if let Some((_, decoded)) = animation.parts.iter().find(|(n, _)| n == name) {
        for (value, axis) in axes.iter_mut().zip(decoded) {
            *value = playeranimator_value(animation, axis, *value, tick);
        }
    }
    axes
}

#[test]
fn a_modded_viewer_sees_the_converted_waving_emote_as_the_file_plays() {
    let root = common::crate_root();
    let source = root.join("../shared/samples/import/emotecraft/waving.json");
    if !source.is_file() {
        eprintln!("skipped: {} is not here", source.display());
        return;
    }
    let emotes = TempDir::new("waving-emotes");
    let converted = emotes.path().join("waving.json");
    let run = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .args(["convert", &source.to_string_lossy(), "-o"])
        .arg(&converted)
        .args(["--namespace", "samples"])
        .output()
        .expect("emoted convert runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("(samples:waving)"), "{stderr}");

    let mut server = Server::start_with(&[emotes.path()]);
    let channel = json!({"event": "plugin_message", "channel": CHANNEL});
    // Bob (modded): the CONFIG answer, alice's STREAM, then her STOP.
    let bob = send(server.bot("bob").wait_spawn(), &client_config())
        .wait_for(channel, 3, 20000)
        .disconnect()
        .spawn();
    let alice = server.play_after_settling("alice", "samples:waving");
    let bob = bob.wait();
    alice.assert_ok();
    bob.assert_ok();

    let stream = messages(&bob, CHANNEL)
        .iter()
        .map(|m| unpack(m))
        .find(|(purpose, _)| *purpose == 1)
        .expect("alice's STREAM reached bob");
    let emote = &stream.1.iter().find(|s| s.0 == 0).expect("the emote").2;
    assert_eq!(i32::from_be_bytes(emote[..4].try_into().expect("4")), 0);
    let seen = decode_animation(&emote[4..]);

    let bytes = std::fs::read(&source).expect("reads the sample");
    let file = read_emote(&bytes, "waving").expect("reads").animation;
    assert!(!seen.looped && !file.is_looped);
    assert_eq!(seen.end_tick, file.end_tick, "the same length");
    // The file's own evaluation: PlayerAnimator's frames, the `body`
    // part (a version 1 file's torso) carrying every joint.
    let (clip, _) = body_clip(&file, "samples:waving", Map::new()).expect("evaluates");
    let (mut worst_turn, mut worst_px) = (0.0f64, 0.0f32);
    for tick in 0..=file.end_tick {
        let pose = &clip.poses[tick as usize];
        let body = pose.body.unwrap_or(Affine3A::IDENTITY);
        for joint in BodyJoint::ALL {
            let frame = &pose.joints[&joint];
            let axes = stream_axes(&seen, joint.name(), tick);
            if joint == BodyJoint::Torso {
                // No torso bend on either side, so the head and arms need
                // no carrying about the waist here.
                let file_bend = frame.bend.map_or(0.0, |b| b.angle_radians);
                assert!(
                    file_bend.abs() < 1e-3 && axes[7].abs() < 1e-2,
                    "tick {tick}"
                );
            }
            let (want, got) = (drawn_by_file(&body, frame), drawn_by_stream(&axes));
            let turned = degrees_between(want.turn, got.turn);
            let bent = (want.bend - got.bend).length().to_degrees();
            let px = (0..3)
                .map(|i| (want.pivot_px[i] - got.pivot_px[i]).abs())
                .fold(0.0, f32::max);
            worst_turn = worst_turn.max(turned.max(bent));
            worst_px = worst_px.max(px);
            assert!(
                turned <= TURN_DEGREES && bent <= TURN_DEGREES && px <= PIVOT_PX,
                "tick {tick} {}: the viewer's axes {axes:?} \
                 ({turned:.2}° turn, {bent:.2}° bend, {px:.3} px from the file's)",
                joint.name()
            );
        }
    }
    eprintln!(
        "waving.json as a modded viewer sees it: worst {worst_turn:.3}°, {worst_px:.3} px over {} ticks",
        file.end_tick + 1
    );
    server.assert_log_clean();
}
