//! Playbacks planned and stepped without a server.

use crate::playback::playing::*;
use std::sync::Arc;

use valence::math::Mat4;

use crate::format::EmoteFile;
use crate::library::CompiledAnimation;
use crate::playback::schedule::{Planner, Tolerance};

use crate::format::read_emote_file;
use crate::playback::schedule::{update_counts, verify};

/// A bundled Animation as the server would play it, with its rig's node
/// ids as the union.
fn playing(file_name: &str, seed: u64) -> Playing {
    playing_with_tick(file_name, seed, None)
}

/// [`playing`], with `molang.tick` replaced when `tick` is given.
fn playing_with_tick(file_name: &str, seed: u64, tick: Option<&str>) -> Playing {
    let path =
        std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes")).join(file_name);
    let mut file = read_emote_file(&path).file.expect("a bundled file");
    if let (EmoteFile::Animation(animation), Some(tick)) = (&mut file, tick) {
        animation.molang.tick = Some(tick.to_owned());
    }
    let EmoteFile::Animation(animation) = &file else {
        panic!("{file_name} is not an Animation");
    };
    let compiled = CompiledAnimation::compile(animation).expect("compiles");
    let union: Vec<String> = compiled.rig.nodes.iter().map(|n| n.id.clone()).collect();
    let playable = PlayableAnimation {
        file: Arc::new(file.clone()),
        compiled: Arc::new(compiled),
        molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
    };
    let id = animation.id.clone();
    Playing::new(id, &playable, &union, PlayMode::Own, seed).expect("an Animation")
}

#[test]
fn planning_ahead_stops_at_its_molang_allowance() {
    // About 24,000 operations a tick: within the playback's own budget,
    // but ten ticks of it are over what planning may spend in one tick.
    let heavy = "loop(20, {loop(300, {v.x = v.x + 1;});});";
    let roots = SpaceRoots::SOLO;
    for (tick, planned) in [(None, true), (Some(heavy), false)] {
        let mut playing = playing_with_tick("guitar.json", 3, tick);
        let mut frame = vec![None; playing.compiled.rig.nodes.len()];
        playing
            .step(0, &mut frame, &roots)
            .expect("within the budget");
        let used = playing.molang.session.ops_used();
        assert!(used < crate::molang::DEFAULT_OP_BUDGET, "{used}");
        let plans = playing.plan_cycle(&roots, &mut Planner::new(), Tolerance::default(), 0);
        assert_eq!(plans.is_some(), planned, "molang.tick {tick:?}");
    }
}

#[test]
fn a_server_sync_playback_joining_mid_cycle_plans_the_rest_of_its_cycle() {
    // `example:clock_sync`: 120 ticks, server_sync, Molang reading
    // `q.life_time` (so every cycle is planned on its own).
    let mut playing = playing("clock_sync.json", 7);
    let roots = SpaceRoots::SOLO;
    let nodes = playing.compiled.rig.nodes.len();
    let mut frame = vec![None; nodes];
    // The wall clock is 37 ticks into a cycle when the player starts.
    let wall = 120 * 9_000 + 37;
    let step = playing.step(wall, &mut frame, &roots).expect("samples");
    assert_eq!((step.position_ticks, step.cycle_started), (37, true));
    let plans = playing
        .plan_cycle(&roots, &mut Planner::new(), Tolerance::default(), 37)
        .expect("server_sync is planned");
    // The playback itself, one wall tick per server tick, to the end of
    // the cycle (position 119; the next tick starts a new cycle at 0):
    // the client must draw every tick within tolerance.
    let mut frames: Vec<Vec<Option<Mat4>>> = frame.iter().map(|f| vec![*f]).collect();
    for tick in 1..(120 - 37) {
        playing
            .step(wall + tick, &mut frame, &roots)
            .expect("samples");
        for (node, f) in frames.iter_mut().zip(&frame) {
            node.push(*f);
        }
    }
    let (mut planned, mut per_tick) = (0, 0);
    for (node, (plan, frames)) in plans.iter().zip(&frames).enumerate() {
        if let Err(e) = verify(frames, plan, Tolerance::default()) {
            panic!("node {}: {e}", playing.compiled.rig.nodes[node].id);
        }
        let counts = update_counts(frames, plan);
        planned += counts.planned;
        per_tick += counts.per_tick;
    }
    assert!(
        per_tick > 0 && planned < per_tick,
        "{planned} of {per_tick}"
    );
}
