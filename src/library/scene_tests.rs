//! The scene builder end to end: a hand-made node chain → schema 4 → the
//! runtime's own sampler, every node's world within 0.01 block and 0.5° of
//! the chain's at every tick. (Here rather than in `import`, which does
//! not name the library.)

use glam::{Affine3A, Mat4, Quat, Vec3};
use serde_json::{json, Map};

use crate::import::scene::{scene_animation, NodeBody, SceneClip, SceneNode, Trs};
use crate::library::sample::sample_ticks;
use crate::library::CompiledAnimation;

/// A three-bone arm swinging on curves no linear key matches exactly,
/// with its shoulder turning the other two, a scaled hand, a half turn
/// from the source frame into the player's.
fn swinging_arm(duration_ticks: u32) -> SceneClip {
    let ticks = 0..=duration_ticks;
    let seconds = |t: u32| t as f32 / 20.0;
    let shoulder = ticks
        .clone()
        .map(|t| Trs {
            translation: Vec3::new(0.3, 1.4 + 0.1 * (seconds(t) * 3.0).sin(), 0.0),
            rotation: Quat::from_rotation_x(1.2 * (seconds(t) * 2.0).sin())
                * Quat::from_rotation_z(0.4 * seconds(t)),
            scale: Vec3::ONE,
        })
        .collect();
    let elbow = ticks
        .clone()
        .map(|t| Trs {
            translation: Vec3::new(0.0, -0.4, 0.0),
            rotation: Quat::from_rotation_x(-0.9 * (seconds(t) * 5.0).cos()),
            scale: Vec3::ONE,
        })
        .collect();
    let hand = ticks
        .map(|t| Trs {
            translation: Vec3::new(0.0, -0.35, 0.05),
            rotation: Quat::from_rotation_y(seconds(t) * 4.0),
            scale: Vec3::splat(1.0 + 0.5 * (seconds(t) * 2.0).sin().abs()),
        })
        .collect();
    let node = |name: &str, parent, frames| SceneNode {
        name: name.to_owned(),
        source: format!("/bones/{name}"),
        parent,
        body: NodeBody::Anchor,
        frames,
        visible: Vec::new(),
    };
    let mut metadata = Map::new();
    metadata.insert("name".to_owned(), json!("Arm"));
    SceneClip {
        id: "converted:arm".to_owned(),
        metadata,
        duration_ticks,
        mode: crate::format::settings::PlaybackMode::Loop,
        loop_delay_ticks: 0,
        to_player: Affine3A::from_quat(Quat::from_rotation_y(std::f32::consts::PI)),
        nodes: vec![
            node("Shoulder", None, shoulder),
            node("Elbow", Some(0), elbow),
            node("Hand", Some(1), hand),
        ],
        events: Vec::new(),
        textures: Vec::new(),
    }
}

#[test]
fn every_node_plays_within_the_tolerances_of_the_source_at_every_tick() {
    let clip = swinging_arm(60);
    let imported = scene_animation(&clip).expect("builds");
    let compiled = CompiledAnimation::compile(&imported.file).expect("compiles");
    let ticks: Vec<u32> = (0..=clip.duration_ticks).collect();
    let lines = sample_ticks(&compiled, &ticks, 0).expect("samples");
    let ids = ["shoulder", "elbow", "hand"];
    let mut worst = (0.0f32, 0.0f32);
    for line in &lines {
        let t = line.tick as usize;
        let mut world = clip.to_player;
        for (node, id) in clip.nodes.iter().zip(ids) {
            world = world * node.frames[t].affine();
            let sampled = &line.nodes[id];
            let matrix = Affine3A::from_mat4(Mat4::from_cols_array(&sampled.matrix));
            let (_, want_rotation, want_position) = world.to_scale_rotation_translation();
            let (_, got_rotation, got_position) = matrix.to_scale_rotation_translation();
            let gap = want_position.distance(got_position);
            let turn = want_rotation.angle_between(got_rotation);
            worst = (worst.0.max(gap), worst.1.max(turn));
            assert!(gap <= 0.0101, "{id} at tick {t}: {gap} block off");
            assert!(
                turn <= 0.5f32.to_radians() + 1e-4,
                "{id} at tick {t}: {} degrees off",
                turn.to_degrees()
            );
        }
    }
    // Thinning did keep fewer keys than ticks, and the tolerance was used.
    let rotation_keys = imported.json["timeline"]["tracks"]["shoulder"]["rotation"]
        .as_array()
        .expect("the shoulder turns")
        .len();
    assert!(rotation_keys < 61, "{rotation_keys} keys");
    assert!(worst.0 > 0.0 && worst.1 > 0.0, "{worst:?}");
}

/// The `.3ds` fixtures (`tests/fixtures/import/3ds`) converted and played
/// by the runtime: every object's world within 0.01 block and 0.5° of
/// lib3ds's evaluation ([`crate::import::three_ds::evaluate`]) at the
/// frame each tick shows, and each box shown exactly when its node is.
#[test]
fn three_ds_fixtures_play_as_lib3ds_evaluates_them() {
    use crate::import::scene::node_id;
    use crate::import::three_ds::{convert::convert, evaluate, read_scene, FrameRate, NodeKind};
    use crate::import::ConvertOptions;

    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/3ds");
    for name in ["arm", "spinner", "blink", "spin"] {
        let bytes = std::fs::read(folder.join(format!("{name}.3ds"))).expect("fixture");
        let options = ConvertOptions {
            namespace: "converted".to_owned(),
            stem: name.to_owned(),
            ..ConvertOptions::default()
        };
        let imported = convert(&bytes, &options, None).expect("converts");
        let [imported] = imported.as_slice() else {
            panic!("one emote");
        };
        let scene = read_scene(&bytes).expect("reads");
        let first = scene.segment.map_or(0, |s| s.first_frame);
        let last = scene.segment.map_or_else(
            || scene.header.as_ref().map_or(0, |h| h.frame_count as i32),
            |s| s.last_frame,
        );
        let compiled = CompiledAnimation::compile(&imported.file).expect("compiles");
        let duration = imported.file.timeline.duration_ticks;
        assert_eq!(
            duration,
            ((last - first) as f32 / 30.0 * 20.0).ceil() as u32,
            "{name}"
        );
        let ticks: Vec<u32> = (0..=duration).collect();
        let lines = sample_ticks(&compiled, &ticks, 0).expect("samples");
        // The ids the builder gives, parents first.
        let mut taken = std::collections::BTreeSet::from(["root".to_owned()]);
        let ids: Vec<(usize, String)> = scene
            .parent_first()
            .iter()
            .filter(|&&i| scene.nodes[i].kind == NodeKind::Object)
            .map(|&i| (i, node_id(scene.nodes[i].name(), &mut taken)))
            .collect();
        assert!(!ids.is_empty());
        for line in &lines {
            let frame = FrameRate::default()
                .frame_at_tick(first, line.tick as f32)
                .min(last as f32);
            let want = evaluate(&scene, frame);
            for (index, id) in &ids {
                let world = Affine3A::from_mat4(want[*index].world);
                let sampled = &line.nodes[id];
                let got = Affine3A::from_mat4(Mat4::from_cols_array(&sampled.matrix));
                let (_, want_rotation, want_position) = world.to_scale_rotation_translation();
                let (_, got_rotation, got_position) = got.to_scale_rotation_translation();
                let gap = want_position.distance(got_position);
                let turn = want_rotation.angle_between(got_rotation).to_degrees();
                assert!(
                    gap <= 0.0101,
                    "{name} {id} tick {}: {gap} block off",
                    line.tick
                );
                assert!(turn <= 0.501, "{name} {id} tick {}: {turn}° off", line.tick);
                if let Some(cube) = line.nodes.get(&format!("{id}_cube")) {
                    assert_eq!(
                        cube.visible, want[*index].visible,
                        "{name} {id}_cube tick {}",
                        line.tick
                    );
                }
            }
        }
    }
}
