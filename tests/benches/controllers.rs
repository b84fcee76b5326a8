//! Controllers (issue 32) on the bundled `example:walk_wave`: one tick of
//! a walking body (the machines stepped, three clips sampled and mixed),
//! and the held form modded viewers are sent when its blend moves (the
//! body played on over one 20-tick walk cycle, as bones). The server pays
//! the tick for every walking player and the held form at most once a
//! second per player, only while modded viewers are online.

use std::path::PathBuf;

use criterion::{criterion_group, Criterion};
use emoted::anim::Pose;
use emoted::format::{EmoteFile, EmoteId};
use emoted::library::Library;
use emoted::playback::controlled::Motion;
use emoted::playback::session::{prepare, PlayRequest, PlaybackState};
use emoted::playback::Cooldowns;

/// walk_wave ready to play, as the server prepares it.
fn walk_wave(library: &Library) -> PlaybackState {
    let id = EmoteId::parse("example:walk_wave").expect("an id");
    let request = PlayRequest {
        emote: &id,
        bypass: true,
        player: uuid::Uuid::from_u128(7),
        now_tick: 0,
        position: glam::DVec3::ZERO,
        yaw_degrees: 0.0,
        molang_budget_ops: emoted::molang::DEFAULT_OP_BUDGET,
    };
    prepare(&request, library, &Cooldowns::default())
        .unwrap_or_else(|e| panic!("walk_wave plays: {e}"))
        .state
}

fn controller_tick_and_held_form(c: &mut Criterion) {
    let emotes = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
    let library = Library::load(&[emotes]).library;
    let mut state = walk_wave(&library);
    let walking = Motion {
        speed: 2.6,
        forward: 2.6,
        ..Motion::default()
    };
    let body = state.current.compiled.clone();
    let Some((_, EmoteFile::Animation(file))) = state
        .animation_files()
        .find(|(id, _)| **id == state.current.id)
        .map(|(id, f)| (id.clone(), f.clone()))
    else {
        panic!("the body clip is an Animation")
    };
    let controller = state.controller.as_mut().expect("a controller");
    let mut pose = Pose::new(&body.rig);
    let mut group = c.benchmark_group("controllers");
    group.bench_function("walk_wave_walking_tick", |b| {
        b.iter(|| {
            controller.observe(&walking);
            controller.step(&body, &mut pose).expect("steps");
        })
    });
    group.bench_function("walk_wave_walking_held_form", |b| {
        b.iter(|| {
            controller
                .held_bone_form(&body, &file, &walking)
                .expect("samples")
                .expect("a skin-bound body")
        })
    });
    let form = controller
        .held_bone_form(&body, &file, &walking)
        .expect("samples")
        .expect("a skin-bound body");
    let uuid = emoted::modded::emotecraft::bones::emote_uuid("example:walk_wave");
    group.bench_function("walk_wave_walking_held_form_as_emotecraft_keys", |b| {
        b.iter(|| emoted::modded::emotecraft::bones::bone_animation(&form, uuid))
    });
    group.finish();
}

criterion_group!(benches, controller_tick_and_held_form);
