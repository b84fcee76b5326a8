//! A viewer that arrives in the middle of a scheduled stretch draws what the
//! viewers who were there all along draw.
//!
//! The real server runs in-process (the `emoted loadtest` harness). A test
//! emote slides one block display 4 blocks in 40 ticks, which the scheduler
//! sends as a single 40-tick update. The watcher stands past the display's
//! view range, steps into range 15 ticks into the slide, and both clients'
//! packets are decoded and replayed through the 1.20.1 client's
//! interpolation: from the tick after the watcher's arrival on, both draw
//! the same translation. Without the catch-up packets the watcher would
//! snap to the slide's end and wait there (the test checks that this is
//! what the spawn alone would show).

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use common::display_replay::{drawn, join_captured, metadata_for, one_block_emote};

use emoted::format::EmoteId;
use emoted::server::emote::{ActiveEmote, DisplayUpdatePolicy};
use emoted::server::events::PlayEmoteRequest;
use emoted::server::loadtest::headless_app;
use valence::entity::EntityId;
use valence::prelude::*;

/// One block slides 4 blocks in 40 ticks, held at the end.
fn slide() -> String {
    one_block_emote(
        "test:slide",
        "hold",
        r#"{"time": "0t", "value": [0, 1, 0], "interpolation": "linear"},
          {"time": "40t", "value": [4, 1, 0]}"#,
    )
}

#[test]
fn a_viewer_arriving_mid_stretch_draws_what_the_others_draw() {
    let dir = std::env::temp_dir().join(format!("emoted-catch-up-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    std::fs::write(dir.join("slide.json"), slide()).expect("write");
    let mut app = headless_app(&[dir.clone()], DisplayUpdatePolicy::Scheduled);

    let tick = Arc::new(AtomicU64::new(0));
    let (dancer, dancer_frames) = join_captured(&mut app, 0, &tick);
    let (watcher, watcher_frames) = join_captured(&mut app, 1, &tick);
    let step = |app: &mut App| {
        tick.fetch_add(1, Ordering::Relaxed);
        app.update();
    };
    step(&mut app);
    // Past the display's 64-block reach, inside the chunk view.
    app.world.get_mut::<Position>(watcher).expect("watcher").0.x = 90.5;
    step(&mut app);

    app.world.send_event(PlayEmoteRequest {
        client: dancer,
        emote: EmoteId::parse("test:slide").expect("an id"),
        bypass: true,
        cooldown_multiplier: 1.0,
        quiet: false,
    });
    for _ in 0..15 {
        step(&mut app);
    }
    let display = app
        .world
        .get::<ActiveEmote>(dancer)
        .expect("playing")
        .display_entities()
        .next()
        .expect("one display");
    let id = app.world.get::<EntityId>(display).expect("an id").get();
    assert!(
        metadata_for(&watcher_frames.lock().unwrap(), id).is_empty(),
        "nothing reaches the watcher out of range"
    );

    // In range, 15 ticks into the slide.
    app.world.get_mut::<Position>(watcher).expect("watcher").0.x = 8.5;
    step(&mut app);
    let arrival = tick.load(Ordering::Relaxed);
    for _ in 0..30 {
        step(&mut app);
    }
    let end = tick.load(Ordering::Relaxed);

    let dancer_packets = metadata_for(&dancer_frames.lock().unwrap(), id);
    let watcher_packets = metadata_for(&watcher_frames.lock().unwrap(), id);
    // The dancer got one long update for the slide.
    assert!(
        dancer_packets
            .iter()
            .any(|(_, f)| f.duration.is_some_and(|d| d >= 20)),
        "{dancer_packets:?}"
    );
    // The spawn alone would leave the watcher at the slide's end.
    let spawn_only: Vec<_> = watcher_packets.iter().take(1).copied().collect();
    let everyone = drawn(&dancer_packets, arrival + 1..=end);
    let stale = drawn(&spawn_only, arrival + 1..=end);
    assert!(
        stale[&(arrival + 1)].distance(everyone[&(arrival + 1)]) > 0.5,
        "the test needs an arrival mid-stretch: {stale:?} {everyone:?}"
    );
    // With the catch-up, the watcher draws what the dancer draws.
    let watched = drawn(&watcher_packets, arrival + 1..=end);
    for t in arrival + 1..=end {
        assert!(
            watched[&t].distance(everyone[&t]) < 1e-4,
            "tick {t}: the watcher draws {} where everyone draws {}\nwatcher: {watcher_packets:?}\ndancer: {dancer_packets:?}",
            watched[&t],
            everyone[&t]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
