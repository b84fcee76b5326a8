//! The builder on its own: hand-made scenes in, schema 4 JSON out.

use glam::{Affine3A, Quat, Vec3};
use serde_json::{json, Map, Value};

use super::*;
use crate::import::ImportError;

fn metadata() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("name".to_owned(), json!("Scene"));
    m
}

fn node(name: &str, parent: Option<usize>, frames: Vec<Trs>) -> SceneNode {
    SceneNode {
        name: name.to_owned(),
        source: format!("/bones/{name}"),
        parent,
        body: NodeBody::Anchor,
        frames,
        visible: Vec::new(),
    }
}

fn clip(duration_ticks: u32, nodes: Vec<SceneNode>) -> SceneClip {
    SceneClip {
        id: "converted:scene".to_owned(),
        metadata: metadata(),
        duration_ticks,
        mode: PlaybackMode::Once,
        loop_delay_ticks: 0,
        to_player: Affine3A::IDENTITY,
        nodes,
        events: Vec::new(),
        textures: Vec::new(),
    }
}

fn at(x: f32, y: f32, z: f32) -> Trs {
    Trs {
        translation: Vec3::new(x, y, z),
        ..Trs::IDENTITY
    }
}

#[test]
fn a_still_node_keeps_its_pose_as_its_transform_and_gets_no_track() {
    let still = node("Left Arm", None, vec![at(0.25, 1.5, 0.0); 11]);
    let imported = scene_animation(&clip(10, vec![still])).expect("builds");
    let json = &imported.json;
    assert_eq!(json["nodes"]["root"]["space"], json!("initiator"));
    assert_eq!(json["nodes"]["left_arm"]["parent"], json!("root"));
    assert_eq!(
        json["nodes"]["left_arm"]["transform"]["position"],
        json!([0.25, 1.5, 0.0])
    );
    assert_eq!(json["timeline"]["tracks"], json!({}));
    assert_eq!(json["settings"]["player"]["hidden"], json!(false));
    assert_eq!(
        json["settings"]["playback"],
        json!({"mode": "once", "loop_delay": "0t"})
    );
    // The renamed node is the one note.
    assert_eq!(imported.notes.len(), 1, "{:?}", imported.notes);
    assert_eq!(imported.notes[0].pointer, "/bones/Left Arm");
    assert!(imported.notes[0].message.contains("`left_arm`"));
    assert_eq!(imported.file.nodes.len(), 2);
}

#[test]
fn a_straight_move_keeps_two_keys_and_a_curve_more() {
    let straight = (0..=20).map(|t| at(t as f32 * 0.1, 0.0, 0.0)).collect();
    let curve = (0..=20)
        .map(|t| at(0.0, (t as f32 * 0.3).sin(), 0.0))
        .collect();
    let imported = scene_animation(&clip(
        20,
        vec![node("a", None, straight), node("b", None, curve)],
    ))
    .expect("builds");
    let tracks = &imported.json["timeline"]["tracks"];
    let a = tracks["a"]["position"].as_array().expect("a track");
    assert_eq!(a.len(), 2);
    assert_eq!(a[1], json!({"time": "20t", "value": [2.0, 0.0, 0.0]}));
    let b = tracks["b"]["position"].as_array().expect("b track");
    assert!(b.len() > 4 && b.len() < 21, "{} keys", b.len());
    assert!(tracks["b"].get("rotation").is_none());
    let note = imported
        .notes
        .iter()
        .find(|n| n.pointer == "/timeline/tracks/a/position")
        .expect("a note for the resampled track");
    assert!(note.message.contains("2 linear keys within 0.01 block"));
}

#[test]
fn a_scale_track_is_written_when_the_scale_moves() {
    let frames = (0..=10)
        .map(|t| Trs {
            scale: Vec3::splat(1.0 + t as f32 * 0.1),
            ..Trs::IDENTITY
        })
        .collect();
    let imported = scene_animation(&clip(10, vec![node("grow", None, frames)])).expect("builds");
    let scale = imported.json["timeline"]["tracks"]["grow"]["scale"]
        .as_array()
        .expect("scale track");
    assert_eq!(scale.len(), 2);
    assert_eq!(scale[1]["value"], json!([2.0, 2.0, 2.0]));
}

#[test]
fn a_cube_gets_a_block_display_child_over_its_box() {
    let mut cube = node("body", None, vec![Trs::IDENTITY; 2]);
    cube.body = NodeBody::Cube(CubeBox {
        min_blocks: Vec3::new(-0.25, 0.0, -0.125),
        size_blocks: Vec3::new(0.5, 0.75, 0.0),
        faces: None,
    });
    cube.visible = vec![true, false];
    let imported = scene_animation(&clip(1, vec![cube])).expect("builds");
    let display = &imported.json["nodes"]["body_cube"];
    assert_eq!(display["type"], json!("block_display"));
    assert_eq!(display["parent"], json!("body"));
    assert_eq!(
        display["transform"]["position"],
        json!([-0.25, 0.0, -0.125])
    );
    assert_eq!(display["transform"]["scale"], json!([0.5, 0.75, 0.001]));
    assert_eq!(
        imported.json["timeline"]["tracks"]["body_cube"]["visible"],
        json!([{"time": "0t", "value": true}, {"time": "1t", "value": false}])
    );
}

#[test]
fn an_anchor_cannot_hide_and_says_so() {
    let mut hidden = node("empty", None, vec![Trs::IDENTITY; 3]);
    hidden.visible = vec![true, false, true];
    let imported = scene_animation(&clip(2, vec![hidden])).expect("builds");
    assert!(imported.json["timeline"]["tracks"].get("empty").is_none());
    assert!(imported
        .notes
        .iter()
        .any(|n| n.message.contains("visibility is dropped")));
}

#[test]
fn events_keep_known_commands_before_the_end() {
    let mut scene = clip(10, vec![node("a", None, vec![Trs::IDENTITY; 11])]);
    scene.events = vec![
        SceneEvent {
            tick: 4,
            source: "/effects/1".to_owned(),
            commands: vec![
                "/playsound minecraft:block.note_block.bell master @a".to_owned(),
                "summon minecraft:pig".to_owned(),
            ],
        },
        SceneEvent {
            tick: 10,
            source: "/effects/2".to_owned(),
            commands: vec!["say late".to_owned()],
        },
    ];
    let imported = scene_animation(&scene).expect("builds");
    assert_eq!(
        imported.json["timeline"]["events"]["timeline"],
        json!([{
            "time": "4t",
            "source": {"type": "server"},
            "origin": {"type": "root"},
            "commands": ["playsound minecraft:block.note_block.bell master @a"],
        }])
    );
    assert_eq!(imported.file.timeline.events.timeline.len(), 1);
    let messages: Vec<&str> = imported.notes.iter().map(|n| n.message.as_str()).collect();
    assert!(messages.iter().any(|m| m.contains("no `summon` command")));
    assert!(messages.iter().any(|m| m.contains("tick 10 is dropped")));
}

#[test]
fn broken_scenes_are_refused_with_the_node() {
    let short = node("a", None, vec![Trs::IDENTITY; 3]);
    assert!(matches!(
        scene_animation(&clip(5, vec![short])),
        Err(ImportError::NodeFrames { given: 3, .. })
    ));
    let forward = node("a", Some(0), vec![Trs::IDENTITY; 2]);
    assert!(matches!(
        scene_animation(&clip(1, vec![forward])),
        Err(ImportError::Parent { parent: 0, .. })
    ));
    let nan = node("a", None, vec![at(f32::NAN, 0.0, 0.0); 2]);
    assert!(matches!(
        scene_animation(&clip(1, vec![nan])),
        Err(ImportError::NotFinite { .. })
    ));
    assert!(matches!(
        scene_animation(&clip(0, vec![])),
        Err(ImportError::Empty)
    ));
}

#[test]
fn the_root_carries_the_source_frame_into_the_players() {
    let mut scene = clip(1, vec![node("a", None, vec![Trs::IDENTITY; 2])]);
    scene.to_player = Affine3A::from_quat(Quat::from_rotation_y(std::f32::consts::PI));
    let imported = scene_animation(&scene).expect("builds");
    let rotation = &imported.json["nodes"]["root"]["transform"]["rotation"];
    let degrees = |i: usize| rotation[i].as_f64().expect("a number") as f32;
    let written =
        crate::anim::quat_from_euler_degrees(Vec3::new(degrees(0), degrees(1), degrees(2)));
    let wanted = Quat::from_rotation_y(std::f32::consts::PI);
    assert!(written.angle_between(wanted) < 1e-4, "{rotation}");
}
