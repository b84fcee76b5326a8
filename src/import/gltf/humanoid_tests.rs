//! Retargeting onto the player's body against hand-worked poses, on a
//! Mixamo-like skeleton written here: an `Armature` node turned −90°
//! about X with a 0.01 scale (Blender's Z-up centimetres into glTF), so
//! every expectation also checks that the wrapper is composed in.
//!
//! The skeleton, in the armature's frame (cm, +Z up, front −Y), arms and
//! legs hanging; world = (x, z, −y) / 100:
//!
//! ```text
//! Hips (0,0,100) ─ Spine (0,0,10) ─ Spine2 (0,0,20) ─ Neck (0,0,20) ─ Head (0,0,10)
//!                                    ├ RightArm (−20,0,15) ─ RightForeArm (0,0,−28) ─ RightHand (0,0,−25) ─ RightHandIndex1
//!                                    └ LeftArm (20,0,15) ─ LeftForeArm ─ LeftHand
//! Hips ├ RightUpLeg (−10,0,−10) ─ RightLeg (0,0,−45) ─ RightFoot (0,0,−40)
//!      └ LeftUpLeg (10,0,−10) ─ LeftLeg ─ LeftFoot
//! ```
//! The builders are shared with the library's round trip
//! (`crate::library::gltf_humanoid_tests`).
//! The right upper arm rests twisted 40° about its own length (a turn
//! about the armature's Z), so world deltas, not local keys, must decide.

use std::f32::consts::FRAC_PI_2;

use glam::{Quat, Vec3};
use serde_json::{json, Value};

use super::humanoid::{body_clip, RigChoice};
use super::skeleton::Matching;
use super::writer::Doc;
use super::{convert, sample_skeleton, GltfError};
use crate::anim::bones::BodyJoint;
use crate::import::humanoid::BodyPose;
use crate::import::ConvertOptions;

/// The armature's turn: Z up into Y up.
pub(crate) fn armature() -> Quat {
    Quat::from_rotation_x(-FRAC_PI_2)
}

/// The right upper arm's rest local turn.
pub(crate) fn arm_rest() -> Quat {
    Quat::from_rotation_z(40f32.to_radians())
}

/// (name, parent, translation cm, rest rotation) of the skeleton.
pub(crate) fn bones(prefix: &str) -> Vec<(String, Option<usize>, [f32; 3], Quat)> {
    let b = |name: &str, parent: Option<usize>, t: [f32; 3]| {
        (format!("{prefix}{name}"), parent, t, Quat::IDENTITY)
    };
    let mut list = vec![
        b("Hips", None, [0., 0., 100.]),
        b("Spine", Some(0), [0., 0., 10.]),
        b("Spine2", Some(1), [0., 0., 20.]),
        b("Neck", Some(2), [0., 0., 20.]),
        b("Head", Some(3), [0., 0., 10.]),
        b("RightArm", Some(2), [-20., 0., 15.]),
        b("RightForeArm", Some(5), [0., 0., -28.]),
        b("RightHand", Some(6), [0., 0., -25.]),
        b("LeftArm", Some(2), [20., 0., 15.]),
        b("LeftForeArm", Some(8), [0., 0., -28.]),
        b("LeftHand", Some(9), [0., 0., -25.]),
        b("RightUpLeg", Some(0), [-10., 0., -10.]),
        b("RightLeg", Some(11), [0., 0., -45.]),
        b("RightFoot", Some(12), [0., 0., -40.]),
        b("LeftUpLeg", Some(0), [10., 0., -10.]),
        b("LeftLeg", Some(14), [0., 0., -45.]),
        b("LeftFoot", Some(15), [0., 0., -40.]),
        b("RightHandIndex1", Some(7), [0., 0., -5.]),
    ];
    list[5].3 = arm_rest();
    list
}

/// Node indices in the document: the armature is 0, bone `i` is `i + 1`.
pub(crate) const ARM: usize = 6;
pub(crate) const FOREARM: usize = 7;
pub(crate) const HIPS: usize = 1;
pub(crate) const SPINE2: usize = 3;
const FINGER: usize = 18;

/// A document of the armature and `bones`, with one animation.
pub(crate) fn skeleton_doc(bones: &[(String, Option<usize>, [f32; 3], Quat)]) -> (Doc, usize) {
    let mut doc = Doc::new();
    let a = armature();
    let children: Vec<usize> = (0..bones.len())
        .filter(|&i| bones[i].1.is_none())
        .map(|i| i + 1)
        .collect();
    doc.node(
        json!({"name": "Armature", "rotation": [a.x, a.y, a.z, a.w],
               "scale": [0.01, 0.01, 0.01], "children": children}),
        true,
    );
    for (i, (name, _, t, r)) in bones.iter().enumerate() {
        let children: Vec<usize> = (0..bones.len())
            .filter(|&c| bones[c].1 == Some(i))
            .map(|c| c + 1)
            .collect();
        let mut node = json!({"name": name, "translation": t, "rotation": [r.x, r.y, r.z, r.w]});
        if !children.is_empty() {
            node["children"] = json!(children);
        }
        doc.node(node, false);
    }
    let animation = doc.animation(Some("Armature|mixamo.com|Layer0"));
    (doc, animation)
}

/// A rotation channel from the node's rest (0 s) to `to` (1 s).
pub(crate) fn turn(doc: &mut Doc, a: usize, node: usize, from: Quat, to: Quat) {
    let values = [from.to_array(), to.to_array()].concat();
    doc.channel(a, node, "rotation", "LINEAR", &[0.0, 1.0], &values);
}

fn options() -> ConvertOptions {
    ConvertOptions {
        namespace: "test".to_owned(),
        stem: "dancer".to_owned(),
        ..ConvertOptions::default()
    }
}

/// The body poses of the one clip of `doc`, and the notes.
fn poses(doc: &Doc) -> (Vec<BodyPose>, Vec<String>) {
    let (mut clips, skeleton) = sample_skeleton(&doc.gltf(), &options()).expect("samples");
    let matching = Matching::find(&skeleton).expect("humanoid");
    let (body, notes) = body_clip(&skeleton, &matching, &clips.remove(0));
    (body.poses, notes.iter().map(ToString::to_string).collect())
}

fn same_rotation(a: Quat, b: Quat, epsilon: f32) -> bool {
    a.abs_diff_eq(b, epsilon) || a.abs_diff_eq(-b, epsilon)
}

/// The world turn of the right upper arm's parent (Spine2): the armature's.
fn arm_parent_world() -> Quat {
    armature()
}

#[test]
fn an_upper_arm_raised_forward_turns_the_right_arm_forward_in_the_players_frame() {
    // Raised 90° forward: the hand, hanging at −Y, goes to the front, +Z
    // (glTF's front is the player's): in the player's frame a turn of
    // −90° about X (R_x(−90°)·(0, −1, 0) = (0, 0, 1)). The key is the
    // local turn that gives it: world = P · L, so L = P⁻¹ · Δ · P · L_rest.
    let delta = Quat::from_rotation_x(-FRAC_PI_2);
    let p = arm_parent_world();
    let raised = p.inverse() * delta * p * arm_rest();
    let (mut doc, a) = skeleton_doc(&bones("mixamorig:"));
    turn(&mut doc, a, ARM, arm_rest(), raised);
    let (poses, notes) = poses(&doc);
    assert_eq!(poses.len(), 21);
    let arm = poses[20].joints[&BodyJoint::RightArm];
    assert!(
        same_rotation(arm.rotation, delta, 1e-5),
        "{:?}",
        arm.rotation
    );
    assert!((arm.rotation * Vec3::NEG_Y).abs_diff_eq(Vec3::Z, 1e-5));
    // Halfway (tick 10): 45° forward.
    let half = poses[10].joints[&BodyJoint::RightArm].rotation;
    assert!(same_rotation(
        half,
        Quat::from_rotation_x(-FRAC_PI_2 / 2.0),
        1e-5
    ));
    // At rest the arm does not turn, its pivot is vanilla's, and nothing
    // else moves: no bend, the left arm still, the body in place.
    let rest = poses[0].joints[&BodyJoint::RightArm];
    assert!(same_rotation(rest.rotation, Quat::IDENTITY, 1e-5));
    assert!(rest
        .pivot
        .abs_diff_eq(BodyJoint::RightArm.rest_pivot(), 1e-5));
    assert_eq!(poses[20].body, None);
    let left = poses[20].joints[&BodyJoint::LeftArm];
    assert!(same_rotation(left.rotation, Quat::IDENTITY, 1e-5));
    assert!(left.bend.is_some_and(|b| b.angle_radians.abs() < 1e-5));
    assert!(
        notes[0].contains("matched: hips `mixamorig:Hips`"),
        "{notes:?}"
    );
    assert!(notes[0].contains("rightArm `mixamorig:RightArm` and `mixamorig:RightForeArm` (bend)"));
    assert!(notes[0].contains("torso `mixamorig:Spine` (lower half) and `mixamorig:Spine2`"));
}

#[test]
fn a_bent_forearm_is_the_arms_bend() {
    // The forearm bent 90° forward at the elbow, the upper arm still: its
    // world turn is R_x(−90°), relative to the upper arm the same. As a
    // bend: about R_y(φ)·X̂ = (cos φ, 0, −sin φ) = −X̂, so φ = π, by 90°.
    let delta = Quat::from_rotation_x(-FRAC_PI_2);
    let upper_world = armature() * arm_rest();
    let bent = upper_world.inverse() * delta * upper_world;
    let (mut doc, a) = skeleton_doc(&bones("mixamorig:"));
    turn(&mut doc, a, FOREARM, Quat::IDENTITY, bent);
    let (poses, _) = poses(&doc);
    let arm = poses[20].joints[&BodyJoint::RightArm];
    assert!(same_rotation(arm.rotation, Quat::IDENTITY, 1e-5));
    let bend = arm.bend.expect("the arm bends");
    assert!((bend.angle_radians - FRAC_PI_2).abs() < 1e-4, "{bend:?}");
    assert!(
        (bend.axis_radians.abs() - std::f32::consts::PI).abs() < 1e-4,
        "{bend:?}"
    );
    assert!(same_rotation(bend.turn(), delta, 1e-4));
}

#[test]
fn the_hips_move_is_the_bodys_scaled_to_the_players_hip_height() {
    // The hips go from (0, 0, 100) to (0, −50, 90) cm in the armature: in
    // the world (x, z, −y)/100, a move of (0, −0.10, 0.50) m. The upper
    // legs rest at 1.00 − 0.10 = 0.90 m; the player's at 0.75 block: the
    // move is scaled by 0.75/0.90, to (0, −0.08333, 0.41667).
    let (mut doc, a) = skeleton_doc(&bones("mixamorig:"));
    let values = [0., 0., 100., 0., -50., 90.];
    doc.channel(a, HIPS, "translation", "LINEAR", &[0.0, 1.0], &values);
    // A finger moves too: dropped, with a note naming it.
    turn(
        &mut doc,
        a,
        FINGER,
        Quat::IDENTITY,
        Quat::from_rotation_x(1.0),
    );
    let (poses, notes) = poses(&doc);
    let body = poses[20].body.expect("the body moves");
    let want = Vec3::new(0.0, -0.10, 0.50) * (0.75 / 0.90);
    assert!(
        Vec3::from(body.translation).abs_diff_eq(want, 1e-5),
        "{body:?}"
    );
    assert!(body.matrix3.abs_diff_eq(glam::Mat3A::IDENTITY, 1e-6));
    // The joints do not turn: the hips only slide.
    for joint in BodyJoint::ALL {
        let frame = poses[20].joints[&joint];
        assert!(
            same_rotation(frame.rotation, Quat::IDENTITY, 1e-5),
            "{joint:?}"
        );
        assert!(
            frame.pivot.abs_diff_eq(joint.rest_pivot(), 1e-5),
            "{joint:?}"
        );
    }
    assert!(
        notes
            .iter()
            .any(|n| n.contains("not body joints") && n.contains("mixamorig:RightHandIndex1")),
        "{notes:?}"
    );
}

#[test]
fn a_t_pose_rest_is_swung_onto_the_hanging_arm() {
    // The right arm rests straight out to the right (−X in the world, −X
    // in the armature): from hanging (−Y) that is R_z(−90°), which the
    // player's arm takes when the clip holds the rest.
    let mut list = bones("");
    list[5].3 = Quat::IDENTITY;
    list[6].2 = [-28., 0., 0.];
    list[7].2 = [-25., 0., 0.];
    let (mut doc, a) = skeleton_doc(&list);
    turn(&mut doc, a, HIPS, Quat::IDENTITY, Quat::IDENTITY);
    let (poses, notes) = poses(&doc);
    let arm = poses[20].joints[&BodyJoint::RightArm];
    assert!(same_rotation(
        arm.rotation,
        Quat::from_rotation_z(-FRAC_PI_2),
        1e-5
    ));
    assert!(notes
        .iter()
        .any(|n| n.contains("`RightArm` points 90° from straight down")));
}

#[test]
fn a_skeleton_without_body_names_stays_a_scene() {
    let list: Vec<(String, Option<usize>, [f32; 3], Quat)> = ["root", "bone_a", "bone_b"]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                n.to_string(),
                i.checked_sub(1),
                [0., 0., 10.],
                Quat::IDENTITY,
            )
        })
        .collect();
    let (mut doc, a) = skeleton_doc(&list);
    turn(&mut doc, a, 3, Quat::IDENTITY, Quat::from_rotation_x(1.0));
    let (_, skeleton) = sample_skeleton(&doc.gltf(), &options()).expect("samples");
    assert_eq!(
        Matching::find(&skeleton).err(),
        Some(vec![
            "hips",
            "head",
            "right upper arm",
            "left upper arm",
            "right upper leg",
            "left upper leg"
        ])
    );
    let imported = convert(&doc.gltf(), &options()).expect("converts");
    let nodes = &imported[0].json["nodes"];
    assert!(nodes.get("bone_b").is_some(), "{nodes}");
    assert!(nodes.get("shoulder_r").is_none());
    // Forced: refused, saying what is missing and what to do.
    let forced = ConvertOptions {
        rig: RigChoice::Humanoid,
        ..options()
    };
    match convert(&doc.gltf(), &forced) {
        Err(GltfError::Invalid { pointer, rule }) => {
            assert_eq!(pointer, "/nodes");
            assert!(
                rule.contains("no bone is named as its hips, head"),
                "{rule}"
            );
            assert!(rule.contains("--rig scene"), "{rule}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_humanoid_converts_to_the_rig_unless_told_scene() {
    let (mut doc, a) = skeleton_doc(&bones("mixamorig:"));
    turn(
        &mut doc,
        a,
        ARM,
        arm_rest(),
        Quat::from_rotation_x(-1.0) * arm_rest(),
    );
    let imported = convert(&doc.gltf(), &options()).expect("converts");
    let json: &Value = &imported[0].json;
    assert!(json["nodes"].get("shoulder_r").is_some());
    assert!(json["timeline"]["tracks"].get("shoulder_r").is_some());
    assert!(imported[0]
        .notes
        .iter()
        .any(|n| n.message.contains("humanoid")));
    let scene = ConvertOptions {
        rig: RigChoice::Scene,
        ..options()
    };
    let imported = convert(&doc.gltf(), &scene).expect("converts");
    // The scene keeps a node per glTF node, named after it.
    let nodes = imported[0].json["nodes"].as_object().expect("nodes");
    assert!(nodes.keys().any(|k| k.contains("rightarm")), "{nodes:?}");
    assert!(!nodes.contains_key("shoulder_r"));
}

#[test]
fn a_metarig_spine_chain_gives_hips_and_head() {
    // Blender's metarig: `spine` is the pelvis, `spine.006` the head.
    let names = [
        "spine",
        "spine.001",
        "spine.002",
        "spine.003",
        "spine.004",
        "spine.005",
        "spine.006",
    ];
    let mut list: Vec<(String, Option<usize>, [f32; 3], Quat)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                n.to_string(),
                i.checked_sub(1),
                [0., 0., 10.],
                Quat::IDENTITY,
            )
        })
        .collect();
    for (name, parent) in [
        ("upper_arm.R", 3),
        ("forearm.R", 7),
        ("upper_arm.L", 3),
        ("forearm.L", 9),
        ("thigh.R", 0),
        ("shin.R", 11),
        ("thigh.L", 0),
        ("shin.L", 13),
    ] {
        list.push((
            name.to_owned(),
            Some(parent),
            [0., 0., -30.],
            Quat::IDENTITY,
        ));
    }
    let (mut doc, a) = skeleton_doc(&list);
    turn(&mut doc, a, 1, Quat::IDENTITY, Quat::IDENTITY);
    let (clips, skeleton) = sample_skeleton(&doc.gltf(), &options()).expect("samples");
    let matching = Matching::find(&skeleton).expect("humanoid");
    let (_, notes) = body_clip(&skeleton, &matching, &clips[0]);
    let note = &notes[0].message;
    assert!(note.contains("hips `spine`"), "{note}");
    assert!(
        note.contains("torso `spine.001` (lower half) and `spine.003`"),
        "{note}"
    );
    assert!(note.contains("head `spine.006`"), "{note}");
    assert!(
        note.contains("leftLeg `thigh.L` and `shin.L` (bend)"),
        "{note}"
    );
}
