//! The update scheduler at load time: every display node of every bundled
//! Animation sampled once (seed 1), then planned with the default tolerance.
//! Throughput is counted in node ticks planned.

use criterion::{criterion_group, Criterion, Throughput};
use emoted::anim::Pose;
use emoted::format::{read_emote_file, EmoteFile};
use emoted::library::CompiledAnimation;
use emoted::playback::schedule::{Planner, Tolerance};
use valence::math::Mat4;

/// Every bundled display node's exact frames over one cycle.
fn bundled_paths() -> Vec<Vec<Option<Mat4>>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).expect("emotes/") {
        let path = entry.expect("entry").path();
        if let Some(EmoteFile::Animation(anim)) = read_emote_file(&path).file {
            let compiled = CompiledAnimation::compile(&anim).expect("compiles");
            let mut state = compiled.new_molang_state(1);
            let mut pose = Pose::new(&compiled.rig);
            let mut frames = vec![Vec::new(); compiled.rig.nodes.len()];
            compiled.begin_cycle(&mut state, 0).expect("finite");
            for tick in 0..=anim.timeline.duration_ticks {
                compiled
                    .step(&mut state, tick, true, &mut pose)
                    .expect("finite");
                for (node, frames) in pose.nodes.iter().zip(frames.iter_mut()) {
                    frames.push(node.visible.then(|| Mat4::from(node.matrix)));
                }
            }
            for (node, frames) in compiled.rig.nodes.iter().zip(frames) {
                if node.is_display {
                    paths.push(frames);
                }
            }
        }
    }
    paths
}

fn plan_bundled(c: &mut Criterion) {
    let paths = bundled_paths();
    let ticks: u64 = paths.iter().map(|p| p.len() as u64).sum();
    let mut planner = Planner::new();
    let mut updates = Vec::new();
    let mut group = c.benchmark_group("schedule");
    group.throughput(Throughput::Elements(ticks));
    group.bench_function("plan_bundled_display_nodes", |b| {
        b.iter(|| {
            let mut count = 0;
            for frames in &paths {
                planner.plan_into(frames, Tolerance::default(), &mut updates);
                count += updates.len();
            }
            std::hint::black_box(count)
        })
    });
    group.finish();
}

criterion_group!(benches, plan_bundled);
