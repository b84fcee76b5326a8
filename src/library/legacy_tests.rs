//! Schema 1 and 3 migrations end to end: each fixture → schema 4 →
//! `emoted`'s own sampler (the composed matrix of every node in its
//! root's frame) against the source's linear matrix interpolation
//! ([`source_matrices`]) at every tick, within 0.01 block, 0.5° and 0.01
//! of scale. (Here rather than in `import`, which does not name the
//! library.)

use std::path::Path;

use glam::{Affine3A, Mat4};

use crate::import::keys::Sample;
use crate::import::legacy::{convert, source_matrices};
use crate::import::ConvertOptions;
use crate::library::sample::sample_ticks;
use crate::library::CompiledAnimation;

/// The tolerances, with room for float rounding through the matrices.
const POSITION_BLOCKS: f32 = 0.01 + 1e-4;
const ROTATION_DEGREES: f32 = 0.5 + 1e-3;
const SCALE: f32 = 0.01 + 1e-4;

#[test]
fn emoted_plays_every_migrated_fixture_as_its_source_interpolates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/legacy");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the fixtures folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".json") && !name.ends_with(".schema4.json")
        })
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    let options = ConvertOptions {
        namespace: "test".to_owned(),
        stem: "legacy".to_owned(),
        ..ConvertOptions::default()
    };
    for path in files {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).expect("reads");
        let source = source_matrices(&bytes).expect("reads");
        let imported = convert(&bytes, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let file = &imported[0].file;
        let compiled = CompiledAnimation::compile(file).expect("compiles");
        let ticks: Vec<u32> = (0..=file.timeline.duration_ticks).collect();
        let lines = sample_ticks(&compiled, &ticks, 0).expect("samples");
        let (mut worst_blocks, mut worst_degrees) = (0.0f32, 0.0f32);
        for line in &lines {
            for (id, frames) in &source {
                let want = Sample::of(&Affine3A::from_mat4(frames[line.tick as usize]));
                let got = Mat4::from_cols_array(&line.nodes[id].matrix);
                let got = Sample::of(&Affine3A::from_mat4(got));
                let blocks = want.position.distance(got.position);
                let degrees = want.rotation.angle_between(got.rotation).to_degrees();
                let scale = (want.scale - got.scale).abs().max_element();
                worst_blocks = worst_blocks.max(blocks);
                worst_degrees = worst_degrees.max(degrees);
                assert!(
                    blocks <= POSITION_BLOCKS && degrees <= ROTATION_DEGREES && scale <= SCALE,
                    "{name} {id} at {}t: {want:?} played as {got:?}",
                    line.tick
                );
            }
        }
        eprintln!("{name}: worst {worst_blocks:.4} block, {worst_degrees:.3}°");
    }
}
