//! The bone form's reading of a body, worked by hand: `bend_between` on
//! its own, then a small body of vanilla proportions (its waist at the
//! rest waist PlayerAnimator turns the upper parts about), posed by its
//! tracks and read back as joint frames.
use std::f32::consts::FRAC_PI_2;

use glam::Vec3;
use serde_json::{json, Value};

use super::*;
use crate::anim::{ExprCompiler, ExprId, NoExprs};
use crate::format::{parse_emote_value, EmoteFile};

#[test]
fn a_bend_about_x_has_axis_zero_and_its_angle() {
    let bend = bend_between(Quat::IDENTITY, Quat::from_rotation_x(0.5));
    assert!(bend.axis_radians.abs() < 1e-5, "{bend:?}");
    assert!((bend.angle_radians - 0.5).abs() < 1e-5, "{bend:?}");
}

#[test]
fn a_negative_bend_flips_the_axis_half_a_turn() {
    let bend = bend_between(Quat::IDENTITY, Quat::from_rotation_x(-0.5));
    assert!((bend.axis_radians.abs() - std::f32::consts::PI).abs() < 1e-5);
    assert!((bend.angle_radians - 0.5).abs() < 1e-5);
}

#[test]
fn a_bend_about_z_has_a_quarter_turn_axis_and_twist_is_dropped() {
    // R_y(φ)·X̂ = (cos φ, 0, −sin φ): −Z is φ = π/2, so a turn about +Z
    // by 0.3 is a bend of 0.3 about φ = −π/2.
    let lower = Quat::from_rotation_z(0.3) * Quat::from_rotation_y(0.7);
    let bend = bend_between(Quat::IDENTITY, lower);
    assert!((bend.axis_radians + FRAC_PI_2).abs() < 1e-4, "{bend:?}");
    assert!((bend.angle_radians - 0.3).abs() < 1e-4, "{bend:?}");
}

#[test]
fn the_bend_is_relative_to_the_upper_slice() {
    let upper = Quat::from_rotation_x(1.0);
    let lower = upper * Quat::from_rotation_x(0.25);
    let bend = bend_between(upper, lower);
    assert!((bend.angle_radians - 0.25).abs() < 1e-5, "{bend:?}");
}

/// A compiler for files with no Molang.
struct NoMolang;

impl ExprCompiler for NoMolang {
    type Error = String;
    fn compile(&mut self, _source: &str, pointer: &str) -> Result<ExprId, String> {
        Err(format!("{pointer}: these tests have no Molang"))
    }
}

/// An anchor node under `parent` at `position`.
fn anchor(parent: &str, position: [f32; 3]) -> Value {
    json!({"type": "anchor", "parent": parent,
        "transform": {"position": position, "rotation": [0, 0, 0], "scale": [1, 1, 1]}})
}

/// A skin-bound slice of `part` (`order`) under `parent` at `position`.
fn slice(parent: &str, part: &str, order: u32, position: [f32; 3]) -> Value {
    json!({"type": "item_display", "parent": parent,
        "item_stack_snbt": "{id:\"minecraft:player_head\",Count:1b}", "item_display": "none",
        "skin": {"participant": "initiator", "part": part, "order": order},
        "transform": {"position": position, "rotation": [0, 0, 0], "scale": [0.5, 0.75, 0.5]}})
}

/// The body of vanilla proportions: hips at 0.75, the waist (`spine`) at
/// 1.125 with the lower torso slice below it (order 1, on `hips`) and the
/// upper one above (order 0), the neck at 1.5, the right shoulder at
/// vanilla's pivot (−5, 22) px with an elbow 6 px down, and a right leg of
/// one slice; the joints turned by `rotations` (anchor id, XYZ degrees),
/// sampled at tick 0 and read as joint frames.
fn frames_of(rotations: &[(&str, [f32; 3])]) -> Vec<(BodyJoint, JointFrame)> {
    let nodes = json!({
        "body": {"type": "anchor", "space": "initiator",
            "transform": {"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}},
        "hips": anchor("body", [0.0, 0.75, 0.0]),
        "torso_lower": slice("hips", "body", 1, [0.0, 0.375, 0.0]),
        "spine": anchor("hips", [0.0, 0.375, 0.0]),
        "torso_upper": slice("spine", "body", 0, [0.0, 0.375, 0.0]),
        "neck": anchor("spine", [0.0, 0.375, 0.0]),
        "head": slice("neck", "head", 0, [0.0, 0.5, 0.0]),
        "shoulder_r": anchor("spine", [-0.3125, 0.25, 0.0]),
        "upper_arm_r": slice("shoulder_r", "right_arm", 0, [0.0, 0.0, 0.0]),
        "elbow_r": anchor("shoulder_r", [0.0, -0.375, 0.0]),
        "forearm_r": slice("elbow_r", "right_arm", 1, [0.0, 0.0, 0.0]),
        "hip_r": anchor("hips", [-0.11875, 0.0, -0.00625]),
        "leg_r": slice("hip_r", "right_leg", 0, [0.0, 0.0, 0.0]),
    });
    let tracks: serde_json::Map<String, Value> = rotations
        .iter()
        .map(|(id, degrees)| {
            let keys = json!({"rotation": [{"time": "0t", "value": degrees}]});
            ((*id).to_owned(), keys)
        })
        .collect();
    let file = json!({"type": "animation", "schema_version": 4, "id": "test:body",
        "metadata": {"name": "Body"}, "settings": {}, "nodes": nodes,
        "timeline": {"duration": "1t", "tracks": tracks}});
    frames_at_zero(&file)
}

/// The joint frames of `file` (JSON) at tick 0.
fn frames_at_zero(file: &Value) -> Vec<(BodyJoint, JointFrame)> {
    let report = parse_emote_value(file);
    let Some(EmoteFile::Animation(file)) = report.file else {
        panic!("test file invalid: {:?}", report.problems);
    };
    let rig = Rig::build(&file, &mut NoMolang).expect("no Molang");
    let mut pose = Pose::new(&rig);
    pose.sample(&rig, 0.0, &mut NoExprs).expect("finite");
    let binding = BoneBinding::find(&file, &rig).expect("bound parts");
    let mut frames = Vec::new();
    binding.frames(&pose, &mut frames);
    binding.joints().map(|(j, _)| j).zip(frames).collect()
}

fn frame(frames: &[(BodyJoint, JointFrame)], joint: BodyJoint) -> JointFrame {
    frames
        .iter()
        .find(|(j, _)| *j == joint)
        .map(|(_, f)| *f)
        .expect("the joint is bound")
}

fn assert_turn(frame: &JointFrame, expected: Quat) {
    assert!(
        frame.rotation.angle_between(expected) < 1e-4,
        "{frame:?} vs {expected:?}"
    );
}

fn assert_bend(frame: &JointFrame, axis_radians: f32, angle_degrees: f32) {
    let bend = frame.bend.expect("a bend");
    assert!(
        (bend.angle_radians - angle_degrees.to_radians()).abs() < 1e-4,
        "{bend:?}"
    );
    if angle_degrees != 0.0 {
        let gap = (bend.axis_radians - axis_radians).rem_euclid(std::f32::consts::TAU);
        assert!(gap.min(std::f32::consts::TAU - gap) < 1e-4, "{bend:?}");
    }
}

#[test]
fn a_bow_bends_the_torso_and_the_head_comes_out_with_the_bend_taken_off() {
    // The spine turns +50° about X: R_x(θ) takes +Y to (0, cos θ, sin θ),
    // so the upper body leans forward (+Z), a bow. The lower torso slice
    // hangs from the hips, which do not move: the torso joint keeps its
    // rest (identity, pivot at the neck 1.5 up). The upper slice is turned
    // R_x(50°) against it: a bend of 50° about +X, axis φ = 0 (R_y(0)·X̂).
    let frames = frames_of(&[("spine", [50.0, 0.0, 0.0])]);
    let torso = frame(&frames, BodyJoint::Torso);
    assert_turn(&torso, Quat::IDENTITY);
    assert!(
        torso.pivot.abs_diff_eq(Vec3::new(0.0, 1.5, 0.0), 1e-5),
        "{torso:?}"
    );
    assert_bend(&torso, 0.0, 50.0);
    // The head turns with the spine in the file: D = T(w)·R_x(50°)·T(−w)
    // about the waist w = (0, 1.125, 0). PlayerAnimator turns it by the
    // same W = T(w)·R_x(50°)·T(−w), so it is written as W⁻¹·D = identity:
    // no turn of its own and the pivot at rest (the neck does not turn).
    let head = frame(&frames, BodyJoint::Head);
    assert_turn(&head, Quat::IDENTITY);
    assert!(
        head.pivot.abs_diff_eq(BodyJoint::Head.rest_pivot(), 1e-5),
        "{head:?}"
    );
    assert_eq!(head.bend, None);
    // The arm, carried by the spine the same way, is at rest as well.
    let arm = frame(&frames, BodyJoint::RightArm);
    assert_turn(&arm, Quat::IDENTITY);
    assert!(
        arm.pivot
            .abs_diff_eq(BodyJoint::RightArm.rest_pivot(), 1e-5),
        "{arm:?}"
    );
    assert_bend(&arm, 0.0, 0.0);
}

#[test]
fn an_arm_raised_while_the_torso_bends_keeps_only_its_own_turn() {
    // The spine bows 50° (as above), the right shoulder swings −90° about
    // X against the spine (the arm forward) and the elbow bends −30° about
    // X. In the file the arm turns R_x(50°)·R_x(−90°) = R_x(−40°) about a
    // shoulder carried by the bow; PlayerAnimator applies the bow's W to
    // it, so its frame is W⁻¹·D = T(s)·R_x(−90°)·T(−s), s the rest
    // shoulder (−5, 22) px: the −90° alone, about the rest pivot. The
    // elbow's turn against the upper arm, −30° about X, is a bend of 30°
    // about −X, axis φ = π, whatever carries the arm.
    let frames = frames_of(&[
        ("spine", [50.0, 0.0, 0.0]),
        ("shoulder_r", [-90.0, 0.0, 0.0]),
        ("elbow_r", [-30.0, 0.0, 0.0]),
    ]);
    let arm = frame(&frames, BodyJoint::RightArm);
    assert_turn(&arm, Quat::from_rotation_x(-FRAC_PI_2));
    assert!(
        arm.pivot
            .abs_diff_eq(BodyJoint::RightArm.rest_pivot(), 1e-5),
        "{arm:?}"
    );
    assert_bend(&arm, std::f32::consts::PI, 30.0);
    assert_bend(&frame(&frames, BodyJoint::Torso), 0.0, 50.0);
    // The legs are not upper parts: the right leg, hanging from the hips,
    // stays at rest (turning it by W⁻¹ would swing it back 50°).
    let leg = frame(&frames, BodyJoint::RightLeg);
    assert_turn(&leg, Quat::IDENTITY);
    assert!(
        leg.pivot
            .abs_diff_eq(BodyJoint::RightLeg.rest_pivot(), 1e-5),
        "{leg:?}"
    );
}

#[test]
fn the_lower_torso_slice_drives_the_torso_joint() {
    // The hips turn 30° about Y: both torso slices turn with them (the
    // upper one through the spine), so the torso joint turns R_y(30°)
    // about the hips' point (0, 0.75, 0), taking the neck to itself (it is
    // straight above), and nothing bends. The head turns with it, and
    // with no bend PlayerAnimator adds nothing: R_y(30°) as well.
    let frames = frames_of(&[("hips", [0.0, 30.0, 0.0])]);
    let torso = frame(&frames, BodyJoint::Torso);
    assert_turn(&torso, Quat::from_rotation_y(30f32.to_radians()));
    assert!(
        torso.pivot.abs_diff_eq(Vec3::new(0.0, 1.5, 0.0), 1e-5),
        "{torso:?}"
    );
    assert_bend(&torso, 0.0, 0.0);
    assert_turn(
        &frame(&frames, BodyJoint::Head),
        Quat::from_rotation_y(30f32.to_radians()),
    );
}

#[test]
fn the_upper_parts_turn_is_about_the_rest_waist() {
    // A quarter turn about +X at the waist (0, 1.125, 0) takes the neck
    // 0.375 above it to 0.375 in front of it: (0, 1.125, 0.375).
    let turn = upper_parts_turn(Bend {
        axis_radians: 0.0,
        angle_radians: FRAC_PI_2,
    });
    let neck = turn.transform_point3(Vec3::new(0.0, 1.5, 0.0));
    assert!(
        neck.abs_diff_eq(Vec3::new(0.0, 1.125, 0.375), 1e-5),
        "{neck}"
    );
}

#[test]
fn the_templates_lower_waist_moves_the_bowed_heads_pivot() {
    // emoted's template has its waist s at 1.0546875, 0.0703125 below
    // vanilla's w. Bowed 50° at s, the head's move is D = T(s)·R·T(−s) and
    // it is written as W⁻¹·D with W = T(w)·R·T(−w): no turn, and the rest
    // pivot p goes to p + (I − R⁻¹)·(w − s) = p + 0.0703125·(0, 1 − cos
    // 50°, sin 50°) = p + (0, 0.025116, 0.053862).
    let mut file: Value =
        serde_json::from_str(include_str!("../../../emotes/humanoid_template.json"))
            .expect("the template is JSON");
    file["timeline"] = json!({"duration": "1t",
        "tracks": {"spine": {"rotation": [{"time": "0t", "value": [50, 0, 0]}]}}});
    let frames = frames_at_zero(&file);
    let head = frame(&frames, BodyJoint::Head);
    assert_turn(&head, Quat::IDENTITY);
    let gap = 0.070_312_5_f32;
    let (sin, cos) = 50f32.to_radians().sin_cos();
    let expected = BodyJoint::Head.rest_pivot() + Vec3::new(0.0, gap * (1.0 - cos), gap * sin);
    assert!(
        head.pivot.abs_diff_eq(expected, 1e-5),
        "{head:?} vs {expected}"
    );
    assert_bend(&frame(&frames, BodyJoint::Torso), 0.0, 50.0);
}
