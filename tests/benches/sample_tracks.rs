//! Sampling the bundled emotes: every Animation in `emotes/`, with its Molang
//! (`molang.tick`, track expressions) and the hierarchy composed, one tick at
//! a time over its whole timeline. Throughput is counted in channel samples
//! (one per position, rotation, scale or visibility track sampled).

use criterion::{criterion_group, Criterion, Throughput};
use emoted::anim::Pose;
use emoted::format::{read_emote_file, EmoteFile};
use emoted::library::{CompiledAnimation, MolangState};

struct Loaded {
    compiled: CompiledAnimation,
    state: MolangState,
    pose: Pose,
    duration_ticks: u32,
    channels: u64,
    cursors: Vec<[usize; 4]>,
}

fn bundled() -> Vec<Loaded> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("emotes/") {
        let path = entry.expect("entry").path();
        if let Some(EmoteFile::Animation(anim)) = read_emote_file(&path).file {
            let compiled = CompiledAnimation::compile(&anim).expect("compiles");
            let channels = compiled
                .rig
                .nodes
                .iter()
                .map(|n| {
                    u64::from(n.position.is_some())
                        + u64::from(n.rotation.is_some())
                        + u64::from(n.scale.is_some())
                        + u64::from(n.visible.is_some())
                })
                .sum();
            out.push(Loaded {
                state: compiled.new_molang_state(1),
                pose: Pose::new(&compiled.rig),
                duration_ticks: anim.timeline.duration_ticks,
                channels,
                cursors: vec![[0; 4]; compiled.rig.nodes.len()],
                compiled,
            });
        }
    }
    out
}

fn sample_bundled(c: &mut Criterion) {
    let mut loaded = bundled();
    let per_pass: u64 = loaded
        .iter()
        .map(|l| l.channels * u64::from(l.duration_ticks + 1))
        .sum();
    let mut group = c.benchmark_group("sample");
    group.throughput(Throughput::Elements(per_pass));
    group.bench_function("bundled_timelines_channel_samples", |b| {
        b.iter(|| {
            for l in &mut loaded {
                l.compiled.begin_cycle(&mut l.state, 0).expect("finite");
                for tick in 0..=l.duration_ticks {
                    l.compiled
                        .step(&mut l.state, tick, true, &mut l.pose)
                        .expect("finite");
                }
            }
        })
    });

    // The channels alone: every track of every node sampled at every tick,
    // Molang components included, without `molang.tick` or the hierarchy.
    // One evaluator per tick, as `step` makes, so an expression's value is
    // reused within a tick and never across ticks.
    group.bench_function("bundled_tracks_only_channel_samples", |b| {
        b.iter(|| {
            let mut checksum = 0.0f32;
            for l in &mut loaded {
                let duration = l.duration_ticks;
                let compiled = &l.compiled;
                let cursors = &mut l.cursors;
                cursors.fill([0; 4]);
                for tick in 0..=duration {
                    let t = tick as f32;
                    l.state.queries.anim_time_secs = f64::from(tick) / 20.0;
                    let mut exprs = compiled.evaluator(&mut l.state);
                    for (node, cursor) in compiled.rig.nodes.iter().zip(cursors.iter_mut()) {
                        if let Some(track) = &node.position {
                            checksum += track.sample_vec3(t, &mut cursor[0], &mut exprs).x;
                        }
                        if let Some(track) = &node.rotation {
                            checksum += track.sample_rotation(t, &mut cursor[1], &mut exprs).w;
                        }
                        if let Some(track) = &node.scale {
                            checksum += track.sample_vec3(t, &mut cursor[2], &mut exprs).y;
                        }
                        if let Some(track) = &node.visible {
                            checksum += f32::from(u8::from(
                                track.sample(t, &mut cursor[3], &mut exprs).unwrap_or(false),
                            ));
                        }
                    }
                }
            }
            std::hint::black_box(checksum)
        })
    });
    group.finish();
}

criterion_group!(benches, sample_bundled);
