//! The Bedrock and Blockbench importers end to end: each fixture (and
//! GeckoLib's jack-in-the-box, read in place when it is there) → schema 4
//! → the runtime's own sampler, every node's world within 0.01 block and
//! 0.5° of the importer's own evaluation of the source at every tick.
//! (Here rather than in `import`, which does not name the library.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use glam::{Affine3A, Mat4};

use crate::import::humanoid::Imported;
use crate::import::scene::{node_id, SceneClip, ROOT_NODE_ID};
use crate::import::ConvertOptions;
use crate::import::{bedrock, blockbench};
use crate::library::sample::sample_ticks;
use crate::library::CompiledAnimation;

/// The largest position (blocks) and rotation (radians) gaps between the
/// runtime's sampling of `imported` and `clip`'s own worlds, over every
/// node and tick; panics past the tolerances.
pub(crate) fn worst_gaps(clip: &SceneClip, imported: &Imported) -> (f32, f32) {
    let mut taken = BTreeSet::from([ROOT_NODE_ID.to_owned()]);
    let ids: Vec<String> = clip
        .nodes
        .iter()
        .map(|n| node_id(&n.name, &mut taken))
        .collect();
    let compiled = CompiledAnimation::compile(&imported.file).expect("compiles");
    let ticks: Vec<u32> = (0..=clip.duration_ticks).collect();
    let lines = sample_ticks(&compiled, &ticks, 0).expect("samples");
    let mut worst = (0.0f32, 0.0f32);
    for line in &lines {
        let t = line.tick as usize;
        let mut worlds: Vec<Affine3A> = Vec::with_capacity(clip.nodes.len());
        for (node, id) in clip.nodes.iter().zip(&ids) {
            let parent = node
                .parent
                .and_then(|p| worlds.get(p).copied())
                .unwrap_or(clip.to_player);
            let world = parent * node.frames[t].affine();
            worlds.push(world);
            let sampled = &line.nodes[id.as_str()];
            let matrix = Affine3A::from_mat4(Mat4::from_cols_array(&sampled.matrix));
            let (_, want_rotation, want_position) = world.to_scale_rotation_translation();
            let (_, got_rotation, got_position) = matrix.to_scale_rotation_translation();
            let gap = want_position.distance(got_position);
            let turn = want_rotation.angle_between(got_rotation);
            worst = (worst.0.max(gap), worst.1.max(turn));
            assert!(
                gap <= 0.0101,
                "{}: {id} at tick {t}: {gap} block off",
                clip.id
            );
            assert!(
                turn <= 0.5f32.to_radians() + 1e-4,
                "{}: {id} at tick {t}: {} degrees off",
                clip.id,
                turn.to_degrees()
            );
        }
    }
    worst
}

fn round_trip(dir: &Path, file: &str, stem: &str) -> usize {
    let bytes = std::fs::read(dir.join(file)).expect("fixture");
    let options = ConvertOptions {
        namespace: "test".to_owned(),
        stem: stem.to_owned(),
        base_dir: Some(dir.to_path_buf()),
        ..ConvertOptions::default()
    };
    let (clips, _) = bedrock::evaluate(&bytes, &options).expect("evaluates");
    let imported = bedrock::convert(&bytes, &options).expect("converts");
    assert_eq!(clips.len(), imported.len());
    for ((clip, _), imported) in clips.iter().zip(&imported) {
        let worst = worst_gaps(clip, imported);
        println!(
            "{}: worst {:.4} block, {:.3}°",
            clip.id,
            worst.0,
            worst.1.to_degrees()
        );
    }
    clips.len()
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/bedrock")
}

#[test]
fn bedrock_fixtures_play_as_the_source_at_every_tick() {
    let dir = fixtures();
    assert_eq!(round_trip(&dir, "wave.animation.json", "wave.animation"), 1);
    assert_eq!(round_trip(&dir, "hop.animation.json", "hop.animation"), 1);
    assert_eq!(round_trip(&dir, "spin.animation.json", "spin.animation"), 1);
    let gecko = dir.join("geckolib/animations/entity");
    assert_eq!(
        round_trip(&gecko, "spinner.animation.json", "spinner.animation"),
        2
    );
}

/// GeckoLib's jack-in-the-box (MIT), read in place, never copied.
#[test]
fn jack_in_the_box_plays_as_the_source_at_every_tick() {
    let dir = PathBuf::from("/work/shared/samples/import/bedrock");
    if !dir.join("jack_in_the_box.animation.json").is_file() {
        println!("skip: {} is absent", dir.display());
        return;
    }
    assert_eq!(
        round_trip(
            &dir,
            "jack_in_the_box.animation.json",
            "jack_in_the_box.animation"
        ),
        1
    );
}

#[test]
fn blockbench_fixtures_play_as_the_source_at_every_tick() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/blockbench");
    let mut count = 0;
    for file in [
        "wave_5x.bbmodel",
        "bob_4x.bbmodel",
        "legacy_4x.bbmodel",
        "spin_5x.bbmodel",
    ] {
        let bytes = std::fs::read(dir.join(file)).expect("fixture");
        let options = ConvertOptions {
            namespace: "test".to_owned(),
            stem: file.trim_end_matches(".bbmodel").to_owned(),
            ..ConvertOptions::default()
        };
        let (clips, _) = blockbench::evaluate(&bytes, &options).expect("evaluates");
        let imported = blockbench::convert(&bytes, &options).expect("converts");
        assert_eq!(clips.len(), imported.len());
        for ((clip, _), imported) in clips.iter().zip(&imported) {
            let worst = worst_gaps(clip, imported);
            println!(
                "{}: worst {:.4} block, {:.3}°",
                clip.id,
                worst.0,
                worst.1.to_degrees()
            );
            count += 1;
        }
    }
    assert_eq!(count, 5);
}
