//! Distance bands and the byte budget, replayed as a 1.20.1 client draws
//! them (issue 33's replay test).
//!
//! The real server runs in-process (the `emoted loadtest` harness) on a
//! simulated wall clock, so two runs of it send the same thing. A test
//! emote swings one block display back and forth and turns it a quarter
//! with eased keyframes, which the client's interpolation (translation
//! lerped, rotations slerped) can only follow within a tolerance; 100 players play it on a 10 × 10 grid 4 blocks apart (nine
//! chunk columns). A watcher stands at the grid's corner, another 40
//! blocks east of the grid's far side.
//!
//! - **The byte budget.** With no budget the near watcher gets the emotes
//!   of its own and the next chunk columns at band 0, within 0.01 block of
//!   the exact pose. With a budget of 1 byte a second its farthest columns
//!   go to the coarsest band, and the columns of its nearest 20 emotes
//!   never do: those are drawn exactly as with no budget (the nearest
//!   emotes still replay within 0.01 block / 0.5°), the others within the
//!   coarsest band's 0.08 block / 4° of that (plus band 0's own), for
//!   fewer bytes.
//! - **Distance bands.** Every display is drawn within its band's
//!   tolerance, in blocks and degrees (plus band 0's), of what it is with
//!   band 0 at every
//!   distance, and the far watcher, whose columns are all 16 blocks or
//!   more away, gets fewer bytes than the near one.
//! - **Arrivals.** A watcher teleporting into the crowd is spawned its
//!   displays nearest chunk column first, at most
//!   `viewer_spawns_per_tick` a tick.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use common::display_replay::{
    drawn_poses, join_captured, metadata_for, one_block_emote_turning, spawned_ids, DrawnPose,
    Frames,
};
use common::TempDir;
use emoted::format::EmoteId;
use emoted::playback::schedule::{band_for_distance, band_tolerance, Tolerance, COARSEST_BAND};
use emoted::server::config::Config;
use emoted::server::emote::{ActiveEmote, DisplayUpdatePolicy};
use emoted::server::events::PlayEmoteRequest;
use emoted::server::loadtest::{headless_app, join_counting_client};
use valence::entity::EntityId;
use valence::math::Quat;
use valence::prelude::*;

/// One block swings 3 blocks and back, eased, looping, and turns a
/// quarter about its vertical and back as it goes.
fn swing() -> String {
    one_block_emote_turning(
        "test:swing",
        "loop",
        r#"{"time": "0t", "value": [0, 1, 0], "interpolation": "linear", "easing": "ease_in_out_cubic"},
          {"time": "20t", "value": [3, 1, 0], "interpolation": "linear", "easing": "ease_in_out_cubic"},
          {"time": "40t", "value": [0, 1, 0]}"#,
        Some(
            r#"{"time": "0t", "value": [0, 0, 0], "interpolation": "linear", "easing": "ease_in_out_cubic"},
          {"time": "20t", "value": [0, 90, 0], "interpolation": "linear", "easing": "ease_in_out_cubic"},
          {"time": "40t", "value": [0, 0, 0]}"#,
        ),
    )
}

/// Players playing the swing, on a 10 × 10 grid.
const PLAYERS: usize = 100;
/// The grid's spacing, blocks.
const SPACING_BLOCKS: f64 = 4.0;
/// Where the far watcher stands, blocks east of the grid's corner.
const FAR_X_BLOCKS: f64 = 76.5;
/// Ticks run; the comparison covers the second half (the budget is
/// measured every second).
const TICKS: u64 = 120;

/// What one watcher was sent.
struct Watched {
    frames: Frames,
}

impl Watched {
    /// What is drawn of display `id` over the compared ticks.
    fn drawn_of(&self, id: i32) -> BTreeMap<u64, DrawnPose> {
        let frames = self.frames.lock().expect("frames");
        drawn_poses(&metadata_for(&frames, id), TICKS / 2..=TICKS)
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

/// One run: `PLAYERS` players swinging on the spawn, `spacing_blocks`
/// apart, a watcher among them and one 40 blocks away, with the byte
/// budget `budget`. Returns the two watchers and each player's display id.
fn run(dir: &std::path::Path, budget: u64, spacing_blocks: f64) -> (Watched, Watched, Vec<i32>) {
    let mut app = headless_app(&[dir.to_path_buf()], DisplayUpdatePolicy::Scheduled);
    app.world
        .resource_mut::<Config>()
        .emotes
        .viewer_bytes_per_second = budget;
    let tick = Arc::new(AtomicU64::new(0));
    let (_, near_frames) = join_captured(&mut app, 0, &tick);
    let (far_client, far_frames) = join_captured(&mut app, 1, &tick);
    let (near, far) = (
        Watched {
            frames: near_frames,
        },
        Watched { frames: far_frames },
    );
    let players: Vec<Entity> = (0..PLAYERS)
        .map(|i| join_counting_client(&mut app, 2 + i).0)
        .collect();
    let step = |app: &mut App| {
        tick.fetch_add(1, Ordering::Relaxed);
        app.update();
    };
    step(&mut app);
    app.world.get_mut::<Position>(far_client).expect("far").0.x = FAR_X_BLOCKS;
    place_on_grid(&mut app, &players, spacing_blocks);
    step(&mut app);
    tick.store(0, Ordering::Relaxed);
    play_swing(&mut app, &players);
    for _ in 0..TICKS {
        step(&mut app);
    }
    let ids = players.iter().map(|&p| display_id(&app, p)).collect();
    (near, far, ids)
}

/// Moves `players` to their places on the grid, `spacing_blocks` apart.
fn place_on_grid(app: &mut App, players: &[Entity], spacing_blocks: f64) {
    for (index, &player) in players.iter().enumerate() {
        let (column, row) = grid_place(index, spacing_blocks);
        let mut position = app.world.get_mut::<Position>(player).expect("a player");
        position.0.x += column;
        position.0.z += row;
    }
}

/// Has every one of `players` start the swing.
fn play_swing(app: &mut App, players: &[Entity]) {
    for &player in players {
        app.world.send_event(PlayEmoteRequest {
            client: player,
            emote: EmoteId::parse("test:swing").expect("an id"),
            bypass: true,
            cooldown_multiplier: 1.0,
            quiet: true,
        });
    }
}

/// The entity id of the one display of `player`'s swing.
fn display_id(app: &App, player: Entity) -> i32 {
    let display = app
        .world
        .get::<ActiveEmote>(player)
        .expect("playing")
        .display_entities()
        .next()
        .expect("one display");
    app.world.get::<EntityId>(display).expect("an id").get()
}

/// Player `index`'s offset on the grid from the corner, blocks.
fn grid_place(index: usize, spacing_blocks: f64) -> (f64, f64) {
    let column = (index % 10) as f64 * spacing_blocks;
    let row = (index / 10) as f64 * spacing_blocks;
    (column, row)
}

/// The band a watcher at (`watcher_x`, 0.5) gets player `index`'s
/// display at: by the distance to the nearest point of its chunk column
/// (players stand at 0.5 plus their grid place).
fn column_band(watcher_x: f64, index: usize) -> usize {
    band_for_distance(column_distance(watcher_x, index), 8.0)
}

/// The distance from a watcher at (`watcher_x`, 0.5) to the nearest point
/// of player `index`'s chunk column, blocks.
fn column_distance(watcher_x: f64, index: usize) -> f64 {
    let (column, row) = grid_place(index, SPACING_BLOCKS);
    let axis = |watcher: f64, at: f64| {
        let low = (at / 16.0).floor() * 16.0;
        (low - watcher).max(watcher - (low + 16.0)).max(0.0)
    };
    let dx = axis(watcher_x, 0.5 + column);
    let dz = axis(0.5, 0.5 + row);
    (dx * dx + dz * dz).sqrt()
}

/// Band `band`'s translation tolerance at the default, blocks.
fn tolerance_at(band: usize) -> f32 {
    band_tolerance(Tolerance::default(), band).translation_blocks
}

/// Band `band`'s rotation tolerance at the default, degrees.
fn degrees_at(band: usize) -> f32 {
    band_tolerance(Tolerance::default(), band).rotation_degrees
}

/// The largest gap between two drawings of a display over the same ticks:
/// blocks apart, and degrees between their rotations.
fn largest_gap(a: &BTreeMap<u64, DrawnPose>, b: &BTreeMap<u64, DrawnPose>) -> Gap {
    a.iter()
        .map(|(t, at)| {
            b.get(t).map_or(
                Gap {
                    blocks: f32::INFINITY,
                    degrees: f32::INFINITY,
                },
                |bt| Gap {
                    blocks: at.translation.distance(bt.translation),
                    degrees: degrees_between(at.rotation(), bt.rotation()),
                },
            )
        })
        .fold(Gap::default(), |most, gap| Gap {
            blocks: most.blocks.max(gap.blocks),
            degrees: most.degrees.max(gap.degrees),
        })
}

/// The angle between two rotations, degrees: exactly 0 for equal ones
/// (`Quat::angle_between`'s arccosine is off by a few hundredths there).
fn degrees_between(a: Quat, b: Quat) -> f32 {
    let difference = a.conjugate() * b;
    2.0 * difference
        .xyz()
        .length()
        .atan2(difference.w.abs())
        .to_degrees()
}

/// How far apart two drawings are.
#[derive(Clone, Copy, Debug, Default)]
struct Gap {
    blocks: f32,
    degrees: f32,
}

impl Gap {
    /// Within `blocks` and `degrees` (and float noise).
    fn within(&self, blocks: f32, degrees: f32) -> bool {
        self.blocks <= blocks + 1e-4 && self.degrees <= degrees + 0.02
    }

    /// No gap at all.
    fn none(&self) -> bool {
        self.blocks < 1e-5 && self.degrees < 1e-3
    }
}

#[test]
fn the_budget_draws_far_emotes_coarser_and_never_the_nearest_twenty() {
    let dir = TempDir::new("emoted-band-replay");
    dir.write("swing.json", &swing());

    let (free_near, free_far, free_ids) = run(dir.path(), 0, SPACING_BLOCKS);
    let (tight_near, _, tight_ids) = run(dir.path(), 1, SPACING_BLOCKS);
    assert_eq!(free_ids, tight_ids, "the two runs spawn alike");

    // The swing moves: the watcher sees it move at every compared tick.
    let first = free_near.drawn_of(free_ids[0]);
    let xs = first.values().map(|p| p.translation.x);
    let travel = xs.clone().fold(f32::MIN, f32::max) - xs.fold(f32::MAX, f32::min);
    assert!(travel > 2.0, "the swing is drawn swinging: {first:?}");
    let turn = first
        .values()
        .map(|p| degrees_between(p.rotation(), Quat::IDENTITY))
        .fold(0.0, f32::max);
    assert!(turn > 60.0, "and turning, {turn}° at most: {first:?}");

    let mut exact = 0;
    let mut coarser = 0;
    for (index, &id) in free_ids.iter().enumerate() {
        // With no budget the near watcher gets this display at the band of
        // its column's distance.
        let natural = column_band(0.5, index);
        let gap = largest_gap(&tight_near.drawn_of(id), &free_near.drawn_of(id));
        assert!(
            gap.within(
                tolerance_at(COARSEST_BAND) + tolerance_at(natural),
                degrees_at(COARSEST_BAND) + degrees_at(natural)
            ),
            "display {id}: the coarsest band draws {gap:?} from its distance band"
        );
        if gap.none() {
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

    // Each display in reach of the far watcher, within its band's tolerance
    // (and the near watcher's band's) of what the near watcher draws.
    let mut far_bands = Vec::new();
    for (index, &id) in free_ids.iter().enumerate() {
        // Past a display's 64-block reach nothing is sent (culling).
        if column_distance(FAR_X_BLOCKS, index) > 64.0 {
            continue;
        }
        let far = free_far.drawn_of(id);
        assert!(!far.is_empty(), "the far watcher sees display {id}");
        let band = column_band(FAR_X_BLOCKS, index);
        far_bands.push(band);
        assert!(
            band >= 1,
            "the far watcher is 16 blocks or more from every column"
        );
        let near_band = column_band(0.5, index);
        let allowed = tolerance_at(band) + tolerance_at(near_band);
        let allowed_degrees = degrees_at(band) + degrees_at(near_band);
        let gap = largest_gap(&far, &free_near.drawn_of(id));
        assert!(
            gap.within(allowed, allowed_degrees),
            "display {id}: band {band} draws {gap:?} off (at most {allowed} block, {allowed_degrees}°)"
        );
    }
    assert!(
        far_bands.contains(&1) && far_bands.contains(&2),
        "the far watcher sees columns in bands 1 and 2: {far_bands:?}"
    );
    assert!(
        free_far.bytes() < free_near.bytes(),
        "farther is fewer bytes: {} vs {}",
        free_far.bytes(),
        free_near.bytes()
    );
}

/// `--spacing-blocks 0`: every player on one spot, one chunk column, so
/// the byte budget has to split the column's playbacks. The nearest 20
/// (the first in entity order) replay exactly as with no budget, within
/// 0.01 block / 0.5° of the exact pose; the other 80 go coarsest, within
/// its tolerance, for fewer bytes.
#[test]
fn a_crowd_on_one_spot_keeps_its_nearest_twenty_exact() {
    let dir = TempDir::new("emoted-band-spot");
    dir.write("swing.json", &swing());

    let (free_near, _, free_ids) = run(dir.path(), 0, 0.0);
    let (tight_near, _, tight_ids) = run(dir.path(), 1, 0.0);
    assert_eq!(free_ids, tight_ids, "the two runs spawn alike");
    let mut exact = Vec::new();
    let mut coarser = 0;
    for (index, &id) in free_ids.iter().enumerate() {
        let free = free_near.drawn_of(id);
        assert!(!free.is_empty(), "display {id} is drawn");
        let gap = largest_gap(&tight_near.drawn_of(id), &free);
        assert!(
            gap.within(tolerance_at(COARSEST_BAND), degrees_at(COARSEST_BAND)),
            "display {id}: the coarsest band draws {gap:?} from band 0"
        );
        if gap.none() {
            exact.push(index);
        } else {
            coarser += 1;
        }
    }
    eprintln!(
        "one spot, budget of 1 B/s: exact {exact:?}, {coarser} coarser; {} bytes against {} with no budget",
        tight_near.bytes(),
        free_near.bytes()
    );
    // The players joined in order, so the first 20 are the first 20
    // entities: those are kept.
    assert_eq!(
        exact,
        (0..20).collect::<Vec<_>>(),
        "the nearest 20 stay exact"
    );
    assert_eq!(coarser, PLAYERS - 20, "the others go coarser");
    assert!(
        tight_near.bytes() < free_near.bytes(),
        "coarser is fewer bytes: {} vs {}",
        tight_near.bytes(),
        free_near.bytes()
    );
}

/// Where the arriving watcher waits, out of every cell's reach, blocks
/// west of the grid's corner.
const AWAY_X_BLOCKS: f64 = -200.0;

/// A watcher away from the 100 swinging players (4 blocks apart, nine
/// chunk columns) teleports to the grid's corner after `TICKS` / 2 ticks,
/// with `[emotes] viewer_spawns_per_tick` at `spawns_per_tick`. Returns
/// the tick of the teleport and, for each player, the first tick on or
/// after it in which the watcher was sent the player's display's spawn.
fn arrive(dir: &std::path::Path, spawns_per_tick: u32) -> (u64, Vec<Option<u64>>) {
    let mut app = headless_app(&[dir.to_path_buf()], DisplayUpdatePolicy::Scheduled);
    app.world
        .resource_mut::<Config>()
        .emotes
        .viewer_spawns_per_tick = spawns_per_tick;
    let tick = Arc::new(AtomicU64::new(0));
    let (watcher, frames) = join_captured(&mut app, 0, &tick);
    let players: Vec<Entity> = (0..PLAYERS)
        .map(|i| join_counting_client(&mut app, 1 + i).0)
        .collect();
    let step = |app: &mut App| {
        tick.fetch_add(1, Ordering::Relaxed);
        app.update();
    };
    step(&mut app);
    let home = app.world.get::<Position>(watcher).expect("the watcher").0;
    app.world.get_mut::<Position>(watcher).expect("watcher").0.x = AWAY_X_BLOCKS;
    place_on_grid(&mut app, &players, SPACING_BLOCKS);
    step(&mut app);
    play_swing(&mut app, &players);
    for _ in 0..TICKS / 2 {
        step(&mut app);
    }
    let arrival_tick = tick.load(Ordering::Relaxed) + 1;
    app.world.get_mut::<Position>(watcher).expect("watcher").0 = home;
    for _ in 0..TICKS / 2 {
        step(&mut app);
    }
    let spawns = spawned_ids(&frames.lock().expect("frames"));
    let spawned = players
        .iter()
        .map(|&player| {
            let id = display_id(&app, player);
            spawns
                .iter()
                .find(|(at, spawned)| *spawned == id && *at >= arrival_tick)
                .map(|(at, _)| *at)
        })
        .collect();
    (arrival_tick, spawned)
}

/// A watcher teleporting into the crowd is spawned its displays over
/// several ticks, at most `viewer_spawns_per_tick` a tick, nearest chunk
/// column first; with no limit they all come in the tick it arrives.
#[test]
fn an_arriving_viewer_is_spawned_the_crowd_nearest_first_within_its_budget() {
    let dir = TempDir::new("emoted-band-arrival");
    dir.write("swing.json", &swing());

    let (arrived, unlimited) = arrive(dir.path(), 0);
    assert!(
        unlimited.iter().all(|at| *at == Some(arrived)),
        "with no limit every display is spawned on arrival: {unlimited:?}"
    );

    let (arrived, spread) = arrive(dir.path(), 20);
    let ticks: Vec<u64> = spread
        .iter()
        .enumerate()
        .map(|(index, at)| at.unwrap_or_else(|| panic!("player {index}'s display is spawned")))
        .collect();
    let mut per_tick: BTreeMap<u64, usize> = BTreeMap::new();
    for &at in &ticks {
        *per_tick.entry(at).or_default() += 1;
    }
    eprintln!("arrival at tick {arrived}, display spawns per tick: {per_tick:?}");
    assert_eq!(
        per_tick.keys().next(),
        Some(&arrived),
        "the nearest come at once"
    );
    assert!(
        per_tick.values().all(|&spawns| spawns <= 20),
        "at most 20 a tick (no column holds more): {per_tick:?}"
    );
    // 100 displays in columns of 16, 8 and 4: at least 5 ticks, and the
    // last column within a few more.
    assert!(per_tick.len() >= 5, "{per_tick:?}");
    assert!(
        *per_tick.keys().last().expect("spawns") < arrived + 10,
        "{per_tick:?}"
    );
    for (a, &tick_a) in ticks.iter().enumerate() {
        for (b, &tick_b) in ticks.iter().enumerate() {
            if column_distance(0.5, a) < column_distance(0.5, b) {
                assert!(
                    tick_a <= tick_b,
                    "player {a}'s column is nearer than player {b}'s, yet spawned at {tick_a} after {tick_b}"
                );
            }
        }
    }
}
