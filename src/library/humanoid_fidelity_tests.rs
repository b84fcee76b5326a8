//! Every format that ends on the humanoid rig, held to its source: the
//! `.anim` clip fixtures (evaluated by `anim::clip`) and the Emotecraft
//! emotes (evaluated by PlayerAnimator's rules, `import::playeranimator`),
//! converted, compiled and played by the runtime's sampler, with every
//! joint anchor's world within 0.01 block and 0.5° of where the source's
//! own pose puts it ([`wanted_anchor_worlds`]) at every tick. (Here rather
//! than in `import`, which does not name the library.)

use std::path::Path;

use glam::{Affine3A, Mat4};

use crate::format::clip::read_clip_file;
use crate::import::emotecraft_json::read_emote;
use crate::import::humanoid::{wanted_anchor_worlds, BodyClip, Imported};
use crate::import::playeranimator::{body_clip, import_bone_animation};
use crate::library::clips::{clip_imported, clip_poses};
use crate::library::sample::sample_ticks;
use crate::library::CompiledAnimation;

/// The worst position (blocks) and turn (degrees) gap between `imported`
/// as played and `clip`'s wanted anchor worlds, over every tick.
fn worst_gap(clip: &BodyClip, imported: &Imported) -> (f32, f32) {
    let wanted = wanted_anchor_worlds(clip).expect("the template");
    let compiled = CompiledAnimation::compile(&imported.file).expect("compiles");
    let ticks: Vec<u32> = (0..=clip.duration_ticks).collect();
    let lines = sample_ticks(&compiled, &ticks, 0).expect("samples");
    assert_eq!(lines.len(), wanted.len());
    let mut worst = (0.0f32, 0.0f32);
    for (line, anchors) in lines.iter().zip(&wanted) {
        for (id, want) in anchors {
            let got = Affine3A::from_mat4(Mat4::from_cols_array(&line.nodes[*id].matrix));
            let (_, want_rotation, want_position) = want.to_scale_rotation_translation();
            let (_, got_rotation, got_position) = got.to_scale_rotation_translation();
            let gap = got_position.distance(want_position);
            let turn = got_rotation.angle_between(want_rotation).to_degrees();
            assert!(gap <= 0.0101, "{id} at tick {}: {gap} block off", line.tick);
            assert!(turn <= 0.501, "{id} at tick {}: {turn}° off", line.tick);
            worst = (worst.0.max(gap), worst.1.max(turn));
        }
    }
    worst
}

#[test]
fn clip_fixtures_play_as_the_clip_sampler_poses_the_body() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips");
    for name in ["walk_v1", "swing_v2", "every_feature_v3"] {
        let report = read_clip_file(&folder.join(format!("{name}.anim")));
        let clip = report.file.expect("a valid clip");
        let mut problems = Vec::new();
        let (cycle, poses) = clip_poses(&clip, &mut problems).expect("poses");
        let imported = clip_imported(&clip, "converted:x", name, &mut problems).expect("converts");
        let body = BodyClip {
            id: "converted:x".to_owned(),
            metadata: serde_json::Map::new(),
            duration_ticks: cycle.duration_ticks,
            mode: cycle.mode,
            loop_delay_ticks: 0,
            poses,
        };
        let (gap, turn) = worst_gap(&body, &imported);
        assert!(gap > 0.0 || turn > 0.0, "{name}: thinned, so not exact");
    }
}

#[test]
fn emotecraft_emotes_play_as_player_animator_poses_the_body() {
    let mut files: Vec<std::path::PathBuf> = ["wave_v1", "props_hold_v2", "spin_loop_v3"]
        .iter()
        .map(|n| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/import/emotecraft")
                .join(format!("{n}.json"))
        })
        .collect();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/import/emotecraft");
    if samples.is_dir() {
        files.extend(
            ["waving", "palm", "point"]
                .iter()
                .map(|n| samples.join(format!("{n}.json"))),
        );
    } else {
        eprintln!(
            "skipped the Emotecraft samples: {} is absent (read in place, never copied)",
            samples.display()
        );
    }
    for path in files {
        let bytes = std::fs::read(&path).expect("the file");
        let emote = read_emote(&bytes, "x").expect("reads");
        let (body, _) =
            body_clip(&emote.animation, "converted:x", emote.metadata.clone()).expect("poses");
        let imported = import_bone_animation(&emote.animation, "converted:x", emote.metadata)
            .expect("converts");
        let (gap, turn) = worst_gap(&body, &imported);
        eprintln!("{}: within {gap:.4} block and {turn:.3}°", path.display());
    }
}
