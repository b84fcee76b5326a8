//! The mixer by hand: clips share a node by weight inside a layer, a
//! masked layer covers the named node and its descendants, an additive
//! layer adds its difference from the rest, a clip that lacks a node
//! leaves its share to what is under, and the heaviest sample decides
//! visibility.

use glam::{Affine3A, Quat, Vec3};
use serde_json::json;

use super::mix::{BodyMixer, ClipPose};
use super::{ClipId, ClipSample, CompiledController, ControllerOutput, LayerOutput};
use crate::anim::pose::NodePose;
use crate::anim::rig::{ExprCompiler, Rig};
use crate::anim::track::ExprId;
use crate::format::controller::{parse_controller_value, Blending};
use crate::format::{parse_emote_value, EmoteFile};

struct NoMolang;

impl ExprCompiler for NoMolang {
    type Error = String;
    fn compile(&mut self, _: &str, pointer: &str) -> Result<ExprId, String> {
        Err(format!("{pointer}: no Molang here"))
    }
}

/// `hips` (anchor) → `leg` and `arm` → `hand`, each 1 block under its parent.
fn body() -> Rig {
    let item = |parent: &str, y: f32| {
        json!({"type": "item_display", "parent": parent, "item_stack_snbt": "{id:\"minecraft:stick\",Count:1b}",
               "item_display": "fixed", "transform": {"position": [0, y, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}})
    };
    let doc = json!({
        "type": "animation", "schema_version": 4, "id": "t:body", "metadata": {"name": "B"}, "settings": {},
        "nodes": {
            "hips": {"type": "anchor", "space": "initiator",
                     "transform": {"position": [0, 1, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}},
            "leg": item("hips", -1.0), "arm": item("hips", 0.5), "hand": item("arm", -0.5)
        },
        "timeline": {"duration": "20t", "tracks": {}}
    });
    let Some(EmoteFile::Animation(file)) = parse_emote_value(&doc).file else {
        panic!("the test body is valid")
    };
    Rig::build(&file, &mut NoMolang).expect("no Molang")
}

/// Two layers: `base` (clips a, b) and `top` (clip c) masked as given.
fn controller(mask: serde_json::Value, blending: &str) -> CompiledController {
    let doc = json!({
        "type": "controller", "schema_version": 4, "id": "t:c", "metadata": {"name": "C"},
        "layers": [
            {"name": "base", "default_state": "s", "states": {"s": {"blend": {"parameter": "speed",
                "clips": [{"clip": "t:a", "threshold": 0}, {"clip": "t:b", "threshold": 1}]}}}},
            {"name": "top", "mask": mask, "blending": blending, "default_state": "s",
             "states": {"s": {"clip": "t:c"}}}
        ]
    });
    let (file, problems) = parse_controller_value(&doc);
    let file = file.unwrap_or_else(|| panic!("{:?}", problems.as_slice()));
    CompiledController::compile(&file, |_| Some(20)).expect("compiles")
}

/// A sampled node with a rotation about X of `degrees` at `position`.
fn node(degrees: f32, position: Vec3) -> NodePose {
    NodePose {
        visible: true,
        position,
        rotation: Quat::from_rotation_x(degrees.to_radians()),
        scale: Vec3::ONE,
        matrix: Affine3A::IDENTITY,
    }
}

fn layer(weight: f32, blending: Blending, samples: &[(usize, f32)]) -> LayerOutput {
    LayerOutput {
        weight,
        blending,
        mask: None,
        state: 0,
        samples: samples
            .iter()
            .map(|&(clip, weight)| ClipSample {
                clip: ClipId(clip),
                weight,
                normalized_time: 0.0,
            })
            .collect(),
    }
}

fn angle_x(q: Quat) -> f32 {
    let (axis, angle) = q.to_axis_angle();
    (angle * axis.x.signum()).to_degrees()
}

/// Every clip poses every body node (hips, leg, arm, hand) at `degrees`.
fn clip_nodes(degrees: f32, rig: &Rig) -> Vec<NodePose> {
    rig.nodes
        .iter()
        .map(|n| node(degrees, n.rest_position))
        .collect()
}

#[test]
fn clips_share_a_layer_by_weight_and_a_mask_covers_descendants() {
    let rig = body();
    let controller = controller(json!(["arm"]), "override");
    let mut mixer = BodyMixer::new(&controller, &rig);
    let all: Vec<Option<usize>> = (0..4).map(Some).collect();
    let (a, b, c) = (
        clip_nodes(10.0, &rig),
        clip_nodes(50.0, &rig),
        clip_nodes(-30.0, &rig),
    );
    let clips = [&a, &b, &c].map(|nodes| ClipPose {
        nodes,
        from_body: &all,
    });
    let output = ControllerOutput {
        layers: vec![
            layer(1.0, Blending::Override, &[(0, 0.25), (1, 0.75)]),
            layer(0.5, Blending::Override, &[(2, 1.0)]),
        ],
        ..ControllerOutput::default()
    };
    let mut pose = vec![NodePose::default(); rig.nodes.len()];
    mixer.mix(&rig, &output, |c| clips.get(c).copied(), &mut pose);
    let leg = rig.node_index("leg").expect("leg");
    let arm = rig.node_index("arm").expect("arm");
    let hand = rig.node_index("hand").expect("hand");
    // The base layer: 0.25 × 10° + 0.75 × 50° (slerp of two turns about X).
    assert!((angle_x(pose[leg].rotation) - 40.0).abs() < 0.01);
    // The arm and the hand under it: half of the way from 40° to −30°.
    for masked in [arm, hand] {
        assert!(
            (angle_x(pose[masked].rotation) - 5.0).abs() < 0.01,
            "{masked}"
        );
    }
    assert_eq!(mixer.mask_weight(1, leg), 0.0);
    assert_eq!(mixer.mask_weight(1, hand), 1.0);
    // Composed down the hierarchy: the hand hangs from the turned arm.
    let hips = rig.node_index("hips").expect("hips");
    let expected = pose[hips].matrix
        * Affine3A::from_rotation_translation(pose[arm].rotation, pose[arm].position)
        * Affine3A::from_rotation_translation(pose[hand].rotation, pose[hand].position);
    assert!(pose[hand].matrix.abs_diff_eq(expected, 1e-5));
}

#[test]
fn an_additive_layer_adds_its_difference_from_the_rest() {
    let rig = body();
    let controller = controller(json!([{"node": "arm", "weight": 0.5}]), "additive");
    let mut mixer = BodyMixer::new(&controller, &rig);
    let all: Vec<Option<usize>> = (0..4).map(Some).collect();
    let base = clip_nodes(20.0, &rig);
    let mut nod = clip_nodes(0.0, &rig);
    let arm = rig.node_index("arm").expect("arm");
    // The additive clip turns the arm by 40° and lifts it 0.2 from its rest.
    nod[arm] = node(40.0, rig.nodes[arm].rest_position + Vec3::Y * 0.2);
    let clips = [
        ClipPose {
            nodes: &base,
            from_body: &all,
        },
        ClipPose {
            nodes: &base,
            from_body: &all,
        },
        ClipPose {
            nodes: &nod,
            from_body: &all,
        },
    ];
    let output = ControllerOutput {
        layers: vec![
            layer(1.0, Blending::Override, &[(0, 1.0)]),
            layer(1.0, Blending::Additive, &[(2, 1.0)]),
        ],
        ..ControllerOutput::default()
    };
    let mut pose = vec![NodePose::default(); rig.nodes.len()];
    mixer.mix(&rig, &output, |c| clips.get(c).copied(), &mut pose);
    // 20° under it, plus half (the mask's weight) of 40°.
    assert!((angle_x(pose[arm].rotation) - 40.0).abs() < 0.01);
    let lifted = pose[arm].position - rig.nodes[arm].rest_position;
    assert!((lifted.y - 0.1).abs() < 1e-5, "{lifted}");
    // The hand inherits the mask, but the clip poses it at its rest: no change.
    let hand = rig.node_index("hand").expect("hand");
    assert!((angle_x(pose[hand].rotation) - 20.0).abs() < 0.01);
}

#[test]
fn a_clip_without_the_node_leaves_its_share_and_the_heaviest_shows() {
    let rig = body();
    let controller = controller(json!(["arm"]), "override");
    let mut mixer = BodyMixer::new(&controller, &rig);
    let leg = rig.node_index("leg").expect("leg");
    let all: Vec<Option<usize>> = (0..4).map(Some).collect();
    let mut no_leg = all.clone();
    no_leg[leg] = None;
    let a = clip_nodes(30.0, &rig);
    let mut b = clip_nodes(90.0, &rig);
    for n in &mut b {
        n.visible = false;
    }
    let clips = [
        ClipPose {
            nodes: &a,
            from_body: &no_leg,
        },
        ClipPose {
            nodes: &b,
            from_body: &all,
        },
        ClipPose {
            nodes: &a,
            from_body: &all,
        },
    ];
    let output = ControllerOutput {
        layers: vec![layer(1.0, Blending::Override, &[(0, 0.4), (1, 0.6)])],
        ..ControllerOutput::default()
    };
    let mut pose = vec![NodePose::default(); rig.nodes.len()];
    mixer.mix(&rig, &output, |c| clips.get(c).copied(), &mut pose);
    // The leg: only clip b has it, at 0.6 over the rest (0°).
    assert!((angle_x(pose[leg].rotation) - 54.0).abs() < 0.01);
    // b weighs most and hides; where a is heavier nothing changes that.
    assert!(!pose[leg].visible);
    let arm = rig.node_index("arm").expect("arm");
    assert!(!pose[arm].visible);
}
