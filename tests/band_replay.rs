//! Distance bands and the byte budget, replayed as a 1.20.1 client draws
//! them (issue 33's replay test).
//!
//! The real server runs in-process (the `emoted loadtest` harness) on a
//! simulated wall clock, so two runs of it send the same thing. A test
//! emote swings one block display back and forth with eased keyframes,
//! which the client's linear interpolation can only follow within a
//! tolerance; each of 100 players plays it on one spot. A watcher stands
//! among them.
//!
//! - **The byte budget.** With no budget the watcher gets every emote at
//!   band 0, within 0.01 block of the exact pose. With a budget of 1 byte a
//!   second its farthest emotes go to the coarsest band, and the nearest
//!   20 never do: at least 20 players' displays are drawn exactly as with
//!   no budget (the nearest emotes still replay within 0.01 block), the
//!   others within the coarsest band's 0.08 block of that (plus band 0's
//!   own 0.01), for fewer bytes.
//! - **Distance bands.** A second watcher 40 blocks away (band 2, 0.04
//!   block) draws within 0.05 block of what the near watcher draws, for
//!   fewer bytes.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use common::display_replay::{drawn, metadata_for, one_block_emote, Capture, Frames};
use emoted::format::EmoteId;
use emoted::server::config::Config;
use emoted::server::emote::{ActiveEmote, DisplayUpdatePolicy};
use emoted::server::events::PlayEmoteRequest;
use emoted::server::loadtest::{headless_app, join_client};
use valence::entity::EntityId;
use valence::math::Vec3;
use valence::prelude::*;

/// One block swings 3 blocks and back, eased, looping.
fn swing() -> String {
    one_block_emote(
        "test:swing",
        "loop",
        r#"{"time": "0t", "value": [0, 1, 0], "interpolation": "linear", "easing": "ease_in_out_cubic"},
          {"time": "20t", "value": [3, 1, 0], "interpolation": "linear", "easing": "ease_in_out_cubic"},
          {"time": "40t", "value": [0, 1, 0]}"#,
    )
}

/// Players playing the swing, all on the spawn.
const PLAYERS: usize = 100;
/// Ticks run; the comparison covers the second half (the budget is
/// measured every second).
const TICKS: u64 = 120;

/// What one watcher was sent.
struct Watched {
    frames: Frames,
}

impl Watched {
    /// The translation drawn of display `id` over the compared ticks.
    fn drawn(&self, id: i32) -> BTreeMap<u64, Vec3> {
        let frames = self.frames.lock().expect("frames");
        drawn(&metadata_for(&frames, id), TICKS / 2..=TICKS)
    }

    /// The bytes received over the compared ticks.
    fn bytes(&self) -> usize {
        let frames = self.frames.lock().expect("frames");
        frames
            .iter()
            .filter(|(tick, _)| *tick >= TICKS / 2)
            .map(|(_, bytes)| bytes.len())
            .sum()
    }
}

/// One run: `PLAYERS` players swinging on the spawn, a watcher among them
/// and one 40 blocks away, with the byte budget `budget`. Returns the two
/// watchers and each player's display id.
fn run(dir: &std::path::Path, budget: u64) -> (Watched, Watched, Vec<i32>) {
    let mut app = headless_app(&[dir.to_path_buf()], DisplayUpdatePolicy::Scheduled);
    app.world
        .resource_mut::<Config>()
        .emotes
        .viewer_bytes_per_second = budget;
    let tick = Arc::new(AtomicU64::new(0));
    let watch = |app: &mut App, index: usize| {
        let frames = Arc::new(Mutex::new(Vec::new()));
        let connection = Capture {
            tick: Arc::clone(&tick),
            frames: Arc::clone(&frames),
        };
        (
            join_client(app, index, Box::new(connection)),
            Watched { frames },
        )
    };
    let (_, near) = watch(&mut app, 0);
    let (far_client, far) = watch(&mut app, 1);
    let players: Vec<Entity> = (0..PLAYERS)
        .map(|i| {
            let connection = Capture {
                tick: Arc::clone(&tick),
                frames: Arc::new(Mutex::new(Vec::new())),
            };
            join_client(&mut app, 2 + i, Box::new(connection))
        })
        .collect();
    let step = |app: &mut App| {
        tick.fetch_add(1, Ordering::Relaxed);
        app.update();
    };
    step(&mut app);
    // 40 blocks east of the spawn's chunk column: band 2.
    app.world.get_mut::<Position>(far_client).expect("far").0.x = 56.5;
    step(&mut app);
    tick.store(0, Ordering::Relaxed);
    for &player in &players {
        app.world.send_event(PlayEmoteRequest {
            client: player,
            emote: EmoteId::parse("test:swing").expect("an id"),
            bypass: true,
            cooldown_multiplier: 1.0,
            quiet: true,
        });
    }
    for _ in 0..TICKS {
        step(&mut app);
    }
    let ids = players
        .iter()
        .map(|&player| {
            let display = app
                .world
                .get::<ActiveEmote>(player)
                .expect("playing")
                .display_entities()
                .next()
                .expect("one display");
            app.world.get::<EntityId>(display).expect("an id").get()
        })
        .collect();
    (near, far, ids)
}

fn largest_gap(a: &BTreeMap<u64, Vec3>, b: &BTreeMap<u64, Vec3>) -> f32 {
    a.iter()
        .map(|(t, at)| b.get(t).map_or(f32::INFINITY, |bt| at.distance(*bt)))
        .fold(0.0, f32::max)
}

#[test]
fn the_budget_draws_far_emotes_coarser_and_never_the_nearest_twenty() {
    let dir = std::env::temp_dir().join(format!("emoted-band-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    std::fs::write(dir.join("swing.json"), swing()).expect("write");

    let (free_near, free_far, free_ids) = run(&dir, 0);
    let (tight_near, _, tight_ids) = run(&dir, 1);
    assert_eq!(free_ids, tight_ids, "the two runs spawn alike");

    // The swing moves: the watcher sees it move at every compared tick.
    let first = free_near.drawn(free_ids[0]);
    let travel = first.values().map(|p| p.x).fold(f32::MIN, f32::max)
        - first.values().map(|p| p.x).fold(f32::MAX, f32::min);
    assert!(travel > 2.0, "the swing is drawn swinging: {first:?}");

    let mut exact = 0;
    let mut coarser = 0;
    for &id in &free_ids {
        let gap = largest_gap(&tight_near.drawn(id), &free_near.drawn(id));
        assert!(
            gap <= 0.08 + 0.01 + 1e-4,
            "display {id}: the coarsest band draws {gap} block from band 0"
        );
        if gap < 1e-5 {
            exact += 1;
        } else {
            coarser += 1;
        }
    }
    eprintln!(
        "budget of 1 B/s: {exact} emotes at band 0, {coarser} coarser; {} bytes against {} with no budget; 40 blocks away: {} bytes",
        tight_near.bytes(),
        free_near.bytes(),
        free_far.bytes()
    );
    assert!(
        exact >= 20,
        "the nearest 20 emotes keep band 0: {exact} did"
    );
    assert!(
        coarser > 0,
        "a budget of 1 byte a second draws some coarser"
    );
    assert!(
        tight_near.bytes() < free_near.bytes(),
        "coarser is fewer bytes: {} vs {}",
        tight_near.bytes(),
        free_near.bytes()
    );

    // Band 2, 40 blocks away: within its 0.04 block (and band 0's 0.01)
    // of what the near watcher draws, for fewer bytes.
    for &id in &free_ids {
        let far = free_far.drawn(id);
        assert!(!far.is_empty(), "the far watcher sees display {id}");
        let gap = largest_gap(&far, &free_near.drawn(id));
        assert!(
            gap <= 0.04 + 0.01 + 1e-4,
            "display {id}: band 2 draws {gap} block off"
        );
    }
    assert!(
        free_far.bytes() < free_near.bytes(),
        "band 2 is fewer bytes: {} vs {}",
        free_far.bytes(),
        free_near.bytes()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
