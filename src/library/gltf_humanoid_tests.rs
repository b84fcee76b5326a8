//! A humanoid glTF skeleton end to end: glTF → the player's body on the
//! humanoid rig (schema 4) → the runtime's own sampler. The rig's
//! shoulder and elbow anchors must turn as the glTF upper arm and forearm
//! do (within 0.5°) at every tick, with the spine bowing under them, and
//! the hips' slide must reach the legs scaled to the player's hip height.
//!
//! The skeleton is the Mixamo-like one of
//! [`crate::import::gltf::humanoid_tests`] (an `Armature` turned −90°
//! about X with a 0.01 scale). Every channel starts at the rest pose, so
//! a bone's turn at tick `t` is its world rotation at `t` times the
//! inverse of its world rotation at tick 0, composed here from the
//! importer's Appendix C samples ([`crate::import::gltf::sample`]).

use glam::{Affine3A, Mat4, Quat, Vec3};

use crate::import::gltf::humanoid_tests::{
    arm_rest, armature, bones, skeleton_doc, turn, ARM, FOREARM, HIPS, SPINE2,
};
use crate::import::gltf::{convert, sample, SampledClip};
use crate::import::ConvertOptions;
use crate::library::sample::{sample_ticks, SampleLine};
use crate::library::CompiledAnimation;

/// Node `name`'s world transform at `tick` of `clip`, composed through
/// its parents.
fn world(clip: &SampledClip, name: &str, tick: usize) -> Affine3A {
    let mut at = clip.scene.nodes.iter().position(|n| n.name == name);
    let mut matrix = Affine3A::IDENTITY;
    while let Some(k) = at {
        let node = &clip.scene.nodes[k];
        matrix = node.frames[tick].affine() * matrix;
        at = node.parent;
    }
    assert_ne!(matrix, Affine3A::IDENTITY, "{name} is sampled");
    clip.scene.to_player * matrix
}

fn rotation(matrix: &Affine3A) -> Quat {
    matrix.to_scale_rotation_translation().1
}

/// The glTF bone's turn from tick 0 (the rest) to `tick`.
fn bone_turn(clip: &SampledClip, name: &str, tick: usize) -> Quat {
    rotation(&world(clip, name, tick)) * rotation(&world(clip, name, 0)).inverse()
}

/// Anchor `id`'s composed transform in `line`.
fn anchor(line: &SampleLine, id: &str) -> Affine3A {
    let node = line
        .nodes
        .get(id)
        .unwrap_or_else(|| panic!("{id} is sampled"));
    Affine3A::from_mat4(Mat4::from_cols_array(&node.matrix))
}

#[test]
fn the_rigs_arm_turns_as_the_gltf_arm_does_at_every_tick() {
    let (mut doc, a) = skeleton_doc(&bones("mixamorig:"));
    let times = [0.0, 0.5, 1.0, 1.5];
    // The right upper arm: forward, out to the side, back down (local keys
    // in the armature's Z-up frame; the check does not need their world
    // meaning).
    let keys = [
        arm_rest(),
        Quat::from_rotation_x(-1.4) * arm_rest(),
        Quat::from_rotation_y(-1.2) * Quat::from_rotation_x(-0.3) * arm_rest(),
        arm_rest(),
    ];
    let values: Vec<f32> = keys.iter().flat_map(|q| q.to_array()).collect();
    doc.channel(a, ARM, "rotation", "LINEAR", &times, &values);
    // The forearm bends about the upper arm's own X (a swing, no twist),
    // so the elbow's world turn is the forearm's.
    let upper_rest = armature() * arm_rest();
    let bend = |angle: f32| upper_rest.inverse() * Quat::from_rotation_x(angle) * upper_rest;
    let values: Vec<f32> = [0.0, -1.2, -0.4, 0.0]
        .iter()
        .flat_map(|&angle| bend(angle).to_array())
        .collect();
    doc.channel(a, FOREARM, "rotation", "LINEAR", &times, &values);
    // The chest bows forward and back; the hips slide without turning.
    turn(
        &mut doc,
        a,
        SPINE2,
        Quat::IDENTITY,
        Quat::from_rotation_x(0.5),
    );
    let hips = [0., 0., 100., 0., -30., 96., 0., -30., 96., 0., 0., 100.];
    doc.channel(a, HIPS, "translation", "LINEAR", &times, &hips);

    let bytes = doc.gltf();
    let options = ConvertOptions {
        namespace: "test".to_owned(),
        stem: "dancer".to_owned(),
        ..ConvertOptions::default()
    };
    let clip = sample(&bytes, &options).expect("samples").remove(0);
    let imported = convert(&bytes, &options).expect("converts").remove(0);
    assert!(imported.file.nodes.iter().any(|n| n.id == "shoulder_r"));
    let compiled = CompiledAnimation::compile(&imported.file).expect("compiles");
    let ticks: Vec<u32> = (0..=clip.scene.duration_ticks).collect();
    assert_eq!(ticks.len(), 31);
    let lines = sample_ticks(&compiled, &ticks, 0).expect("samples");
    let first = &lines[0];

    let (mut worst_shoulder, mut worst_elbow, mut worst_slide) = (0.0f32, 0.0f32, 0.0f32);
    let mut bowed = 0.0f32;
    for line in &lines {
        let t = line.tick as usize;
        let turned =
            |id: &str| rotation(&anchor(line, id)) * rotation(&anchor(first, id)).inverse();
        let want = bone_turn(&clip, "mixamorig:RightArm", t);
        let shoulder = turned("shoulder_r").angle_between(want).to_degrees();
        assert!(shoulder <= 0.5, "tick {t}: the shoulder is {shoulder}° off");
        let want = bone_turn(&clip, "mixamorig:RightForeArm", t);
        let elbow = turned("elbow_r").angle_between(want).to_degrees();
        assert!(elbow <= 0.5, "tick {t}: the elbow is {elbow}° off");
        // The legs do not turn, so the hip anchors slide as the hips do,
        // scaled by 0.75 / 0.90 (the upper legs rest at 0.90 m).
        let hips_now = world(&clip, "mixamorig:Hips", t).translation;
        let hips_rest = world(&clip, "mixamorig:Hips", 0).translation;
        let want = Vec3::from(hips_now - hips_rest) * (0.75 / 0.90);
        let slid = anchor(line, "hip_r").translation - anchor(first, "hip_r").translation;
        let slide = Vec3::from(slid).distance(want);
        assert!(slide <= 0.0101, "tick {t}: hip_r is {slide} block off");
        bowed = bowed.max(turned("spine").angle_between(Quat::IDENTITY).to_degrees());
        worst_shoulder = worst_shoulder.max(shoulder);
        worst_elbow = worst_elbow.max(elbow);
        worst_slide = worst_slide.max(slide);
    }
    // The chest's bow reached the rig (0.5 rad ≈ 28.6°, less the hips').
    assert!(bowed > 20.0, "the spine turned at most {bowed}°");
    eprintln!(
        "glTF humanoid round trip: shoulder {worst_shoulder:.3}°, elbow {worst_elbow:.3}°, hip slide {worst_slide:.4} block at worst"
    );
}
