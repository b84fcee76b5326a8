//! Half turns never flip (issue 28): the same spin, 360° about Y in four
//! 90° keys, from each format that resamples motion (`spin.gltf`,
//! `spin_5x.bbmodel`, `spin.animation.json`, `spin.3ds` in
//! `tests/fixtures/import/`), converted and played by the runtime's own
//! sampler, turns the same way at every tick: tick `t` of a spin lasting
//! `d` ticks is `t/d` of a full turn from tick 0, within 0.5°, with one
//! sense of turn for the whole clip. (Each fixture is also held to its
//! format's own evaluation at every tick with the other fixtures of that
//! format, in `gltf_tests`, `bedrock_tests` and `scene_tests`.)
//!
//! `spin.3ds` is binary: [`spin_3ds`] writes it with the test-only `.3ds`
//! writer, and a test holds the committed bytes to it
//! (`UPDATE_GOLDEN=1` rewrites the file).

use std::f32::consts::{FRAC_PI_2, TAU};
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat};

use crate::import::golden::golden_bytes;
use crate::import::humanoid::Imported;
use crate::import::three_ds::keyframer::{
    BOUNDING_BOX, KEYFRAMER_HEADER, NODE_ID, NO_PARENT, PIVOT, SEGMENT,
};
use crate::import::three_ds::tracks::{POSITION_TRACK, ROTATION_TRACK};
use crate::import::three_ds::writer::{chunk, file, floats, linear, node_header, parent, track};
use crate::import::{bedrock, blockbench, gltf, three_ds, ConvertOptions};
use crate::library::sample::sample_ticks;
use crate::library::CompiledAnimation;

/// `tests/fixtures/import/FORMAT`.
fn fixtures(format: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(format)
}

fn options(stem: &str, base_dir: PathBuf) -> ConvertOptions {
    ConvertOptions {
        namespace: "converted".to_owned(),
        stem: stem.to_owned(),
        base_dir: Some(base_dir),
        ..ConvertOptions::default()
    }
}

/// `spin.3ds`: one mesh node, `Spinner`, a thin box standing on the
/// ground, turned by a rotation track of linear keys every 6 frames, each
/// a quarter turn about the file's up axis (Z) relative to the one
/// before; the segment is frames 0–24, 16 ticks at 30 frames a second.
fn spin_3ds() -> Vec<u8> {
    let header = {
        let mut body = 5u16.to_le_bytes().to_vec();
        body.extend_from_slice(b"spin\0");
        body.extend_from_slice(&24u32.to_le_bytes());
        body
    };
    let segment: Vec<u8> = [0i32, 24].iter().flat_map(|f| f.to_le_bytes()).collect();
    let quarter = |frame: i32| linear(frame, &[FRAC_PI_2, 0.0, 0.0, 1.0]);
    file(&[
        chunk(KEYFRAMER_HEADER, &header),
        chunk(SEGMENT, &segment),
        parent(
            0xB002,
            &[
                chunk(NODE_ID, &0u16.to_le_bytes()),
                node_header("Spinner", 0, NO_PARENT),
                chunk(PIVOT, &floats(&[0.0, 0.0, 0.0])),
                chunk(BOUNDING_BOX, &floats(&[-0.5, -0.05, 0.0, 0.5, 0.05, 1.0])),
                track(POSITION_TRACK, 0, &[linear(0, &[0.0, 0.0, 0.0])]),
                track(
                    ROTATION_TRACK,
                    0,
                    &[
                        linear(0, &[0.0, 0.0, 0.0, 1.0]),
                        quarter(6),
                        quarter(12),
                        quarter(18),
                        quarter(24),
                    ],
                ),
            ],
        ),
    ])
}

/// Node `id`'s rotation in its root's frame at every tick of `imported`,
/// as the runtime plays it.
fn played_turns(imported: &Imported, id: &str) -> Vec<Quat> {
    let compiled = CompiledAnimation::compile(&imported.file).expect("compiles");
    let duration_ticks = imported.file.timeline.duration_ticks;
    let ticks: Vec<u32> = (0..=duration_ticks).collect();
    let lines = sample_ticks(&compiled, &ticks, 0).expect("samples");
    lines
        .iter()
        .map(|line| {
            let node = line
                .nodes
                .get(id)
                .unwrap_or_else(|| panic!("{}: no node {id}", imported.file.id));
            let (_, rotation, _) =
                Mat4::from_cols_array(&node.matrix).to_scale_rotation_translation();
            rotation
        })
        .collect()
}

/// Asserts that node `id` of `imported` spins one full turn about Y at a
/// steady rate over the whole timeline, the same way at every tick: tick
/// `t` is `±t/d` of a turn (one sign throughout) from tick 0, within 0.5°.
fn assert_spins_one_way(imported: &Imported, id: &str) {
    let what = imported.file.id.as_str();
    let turns = played_turns(imported, id);
    let duration_ticks = turns.len() - 1;
    assert!(duration_ticks >= 4, "{what}: {duration_ticks} ticks");
    let start = turns[0];
    let from_start = |t: usize| turns[t] * start.inverse();
    let step = TAU / duration_ticks as f32;
    // The sense of the turn, from the first tick.
    let sense = if from_start(1).angle_between(Quat::from_rotation_y(step)) < step / 2.0 {
        1.0
    } else {
        -1.0
    };
    for t in 0..=duration_ticks {
        let want = Quat::from_rotation_y(sense * step * t as f32);
        let gap = from_start(t).angle_between(want).to_degrees();
        assert!(
            gap <= 0.501,
            "{what}: {id} at tick {t} is {gap}° from {}° about Y",
            (sense * step * t as f32).to_degrees()
        );
    }
}

/// Asserts that `converted` is one emote lasting `duration_ticks` whose
/// `spinner` spins one way ([`assert_spins_one_way`]).
fn assert_one_spin(converted: &[Imported], duration_ticks: u32) {
    let [imported] = converted else {
        panic!("{} emotes, not one", converted.len());
    };
    assert_eq!(imported.file.timeline.duration_ticks, duration_ticks);
    assert_spins_one_way(imported, "spinner");
}

/// The bytes of fixture `name` in `format`'s folder, and the options
/// that convert it (ids from `stem`).
fn fixture(format: &str, name: &str, stem: &str) -> (Vec<u8>, ConvertOptions) {
    let folder = fixtures(format);
    let bytes = std::fs::read(folder.join(name)).expect("fixture");
    (bytes, options(stem, folder))
}

#[test]
fn the_spin_3ds_fixture_is_what_its_generator_writes() {
    let path = fixtures("3ds").join("spin.3ds");
    let bytes = spin_3ds();
    assert!(
        golden_bytes(&path, &bytes) == bytes,
        "{} is not what spin_3ds writes",
        path.display()
    );
}

#[test]
fn a_spin_in_quarter_keys_turns_the_same_way_at_every_tick_in_every_format() {
    type Convert = fn(&[u8], &ConvertOptions) -> Vec<Imported>;
    let cases: [(&str, &str, &str, u32, Convert); 4] = [
        ("gltf", "spin.gltf", "spin", 20, |b, o| {
            gltf::convert(b, o).expect("converts")
        }),
        ("blockbench", "spin_5x.bbmodel", "spin_5x", 20, |b, o| {
            blockbench::convert(b, o).expect("converts")
        }),
        (
            "bedrock",
            "spin.animation.json",
            "spin.animation",
            20,
            |b, o| bedrock::convert(b, o).expect("converts"),
        ),
        ("3ds", "spin.3ds", "spin", 16, |b, o| {
            three_ds::convert::convert(b, o, None).expect("converts")
        }),
    ];
    for (format, name, stem, duration_ticks, convert) in cases {
        let (bytes, options) = fixture(format, name, stem);
        assert_one_spin(&convert(&bytes, &options), duration_ticks);
    }
}
