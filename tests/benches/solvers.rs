//! The solvers (issue 30) on the load test's living body
//! (`tests/fixtures/loadtest/living`: a look-at on the neck, a left arm
//! reaching a moving grip by two-bone IK, a cape on a spring): one tick of
//! one body, sampled alone and sampled then solved with a look that moves
//! every tick. The difference is what the solvers add per body and tick.

use criterion::{criterion_group, Criterion};
use emoted::anim::solve::LookAngles;
use emoted::anim::Pose;
use emoted::format::{read_emote_file, EmoteFile};
use emoted::library::CompiledAnimation;
use emoted::playback::live::{LiveInputs, LiveRig, ParticipantInputs};
use emoted::playback::roots::SpaceRoots;

fn living() -> CompiledAnimation {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/loadtest/living/living.json"
    );
    let Some(EmoteFile::Animation(file)) = read_emote_file(std::path::Path::new(path)).file else {
        panic!("the living body reads");
    };
    CompiledAnimation::compile(&file).expect("compiles")
}

fn solve_one_body(c: &mut Criterion) {
    let body = living();
    let duration = body.rig.duration_ticks;
    let mut state = body.new_molang_state(1);
    let mut pose = Pose::new(&body.rig);
    body.begin_cycle(&mut state, 0).expect("begins");
    let mut group = c.benchmark_group("solvers");
    let mut tick = 0u32;
    group.bench_function("living_body_tick_sampled", |b| {
        b.iter(|| {
            tick = (tick + 1) % duration;
            body.step(&mut state, tick, true, &mut pose)
                .expect("samples");
        })
    });
    let mut live = LiveRig::new(LiveInputs::default());
    group.bench_function("living_body_tick_sampled_and_solved", |b| {
        b.iter(|| {
            tick = (tick + 1) % duration;
            live.inputs.initiator = ParticipantInputs {
                look: Some(LookAngles::from_degrees(
                    (tick as f32 * 4.5).sin() * 45.0,
                    10.0,
                )),
                ..ParticipantInputs::default()
            };
            body.step(&mut state, tick, true, &mut pose)
                .expect("samples");
            live.solve(&body, &mut pose, &SpaceRoots::SOLO);
        })
    });
    group.finish();
}

criterion_group!(benches, solve_one_body);
