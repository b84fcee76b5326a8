//! A playback that takes a pure Animation's shared plan mid-cycle: it
//! joins the plan node by node, band by band, and what each band's viewers
//! draw stays within that band's tolerance through the join.

use std::path::PathBuf;

use glam::{DVec3, Mat4, Vec3};
use uuid::Uuid;

use super::*;
use crate::anim::DisplayTransform;
use crate::format::EmoteId;
use crate::library::Library;
use crate::playback::schedule::{band_tolerance, verify, DisplayUpdate, DISPLAY_BANDS};
use crate::playback::Cooldowns;

fn bundled() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"))
}

/// `example:cape` (an 80-tick loop with no Molang) for player `player`.
fn cape_state(library: &Library, player: u128) -> PlaybackState {
    let cape = EmoteId::parse("example:cape").expect("an id");
    let request = PlayRequest {
        emote: &cape,
        bypass: true,
        player: Uuid::from_u128(player),
        now_tick: 0,
        position: DVec3::new(0.0, 64.0, 0.0),
        yaw_degrees: 0.0,
        molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
    };
    prepare(&request, library, &Cooldowns::default())
        .expect("plays")
        .state
}

/// One server tick of `state` (root yaw 0) at `tick`: its updates.
fn tick_updates(state: &mut PlaybackState, cache: &mut PlanCache, tick: i64) -> Vec<NodeUpdate> {
    state.advance(0, &mut Vec::new());
    state.plan_new_cycle(cache);
    let mut updates = Vec::new();
    state.pose_updates(0.0, tick, &mut updates);
    updates
}

/// One server tick of `state` with no plan ever made: every node whose
/// pose changed, per tick.
fn streamed_updates(state: &mut PlaybackState, tick: i64) -> Vec<NodeUpdate> {
    state.advance(0, &mut Vec::new());
    let mut updates = Vec::new();
    state.pose_updates(0.0, tick, &mut updates);
    updates
}

/// What a client shows for a stream of `transform`s, as a frame.
fn frame_of(transform: DisplayTransform) -> Option<Mat4> {
    (transform.scale != Vec3::ZERO).then(|| transform.to_matrix())
}

#[test]
fn a_playback_mid_cycle_joins_the_shared_plan_and_draws_within_each_bands_tolerance() {
    let library = Library::load(&[bundled()]).library;
    let mut cache = PlanCache::default();
    let mut late = cape_state(&library, 1);
    let mut first = cape_state(&library, 2);
    // Per tick, for reference: a playback that never plans.
    let mut exact = cape_state(&library, 3);
    assert!(late.current.is_pure(), "the cape has no Molang");
    let duration = late.current.runtime().duration_ticks as i64;
    assert_eq!(duration, 80);

    // `late` starts while the tick's budget is spent: it waits, streaming,
    // for 12 ticks; then `first` starts and plans the cape for everyone.
    const JOIN: i64 = 12;
    let mut late_updates: Vec<(i64, NodeUpdate)> = Vec::new();
    let mut exact_transforms: Vec<Vec<Option<DisplayTransform>>> = Vec::new();
    let mut last_exact: Vec<Option<DisplayTransform>> = (0..exact.union.len())
        .map(|union| exact.sent.last(union, 0))
        .collect();
    for tick in 0..duration {
        cache.begin_tick();
        if tick < JOIN {
            cache.spend_budget();
        } else if tick == JOIN {
            tick_updates(&mut first, &mut cache, tick);
            assert_eq!(
                cache.shared_plans(),
                1,
                "the first cycle is planned to share"
            );
        }
        let updates = tick_updates(&mut late, &mut cache, tick);
        if tick < JOIN {
            assert!(late.schedule.is_none(), "tick {tick}: waits for the budget");
        } else if tick == JOIN {
            let schedule = late.schedule.as_ref().expect("takes the shared plan");
            assert_eq!(schedule.first_position, 0, "the whole cycle's plan");
            assert!(schedule.joining.is_some(), "joins it node by node");
        }
        late_updates.extend(updates.into_iter().map(|u| (tick, u)));
        for update in streamed_updates(&mut exact, tick) {
            last_exact[update.union] = Some(update.transform);
        }
        exact_transforms.push(last_exact.clone());
    }
    assert!(
        late.schedule.as_ref().is_some_and(|s| s.joining.is_none()),
        "every band of every node follows the plan before the cycle ends"
    );

    // From the tick before the join: each planned node, each band, drawn
    // as the client interpolates what that band's viewers were sent.
    let from = JOIN - 1;
    let mut checked = 0;
    for union in 0..late.union.len() {
        let planned = late.current.planned.get(union).copied().unwrap_or(false);
        if !late.union.has_display(union) || !planned {
            continue;
        }
        let frames: Vec<Option<Mat4>> = exact_transforms[from as usize..]
            .iter()
            .map(|tick| tick[union].and_then(frame_of))
            .collect();
        let Some(start) = exact_transforms[from as usize][union] else {
            continue;
        };
        for band in 0..DISPLAY_BANDS {
            // What the streamed ticks left drawn, then what followed.
            let mut updates = vec![DisplayUpdate {
                send_tick: 0,
                target_tick: 0,
                transform: start,
                duration_ticks: 1,
            }];
            updates.extend(
                late_updates
                    .iter()
                    .filter(|(tick, u)| {
                        *tick >= JOIN && u.union == union && u.bands & (1 << band) != 0
                    })
                    .map(|(tick, u)| {
                        let send_tick = (tick - from) as u32;
                        DisplayUpdate {
                            send_tick,
                            target_tick: send_tick + u.duration_ticks - 1,
                            transform: u.transform,
                            duration_ticks: u.duration_ticks,
                        }
                    }),
            );
            let tolerance = band_tolerance(cache.tolerance(), band);
            if let Err(e) = verify(&frames, &updates, tolerance) {
                panic!("node {} band {band}: {e}", late.union.ids[union]);
            }
            checked += 1;
        }
    }
    assert!(checked >= 4 * DISPLAY_BANDS, "{checked} node-bands checked");

    // And each band's viewers get far fewer updates than streaming the rest
    // of the cycle would send them.
    let streamed: usize = {
        let mut state = cape_state(&library, 4);
        (0..duration)
            .map(|tick| streamed_updates(&mut state, tick).len())
            .skip(JOIN as usize)
            .sum()
    };
    for band in 0..DISPLAY_BANDS {
        let after_join = late_updates
            .iter()
            .filter(|(tick, u)| *tick >= JOIN && u.bands & (1 << band) != 0)
            .count();
        // The cape at the default tolerance: 47, 33, 24 and 14 against 349.
        assert!(
            after_join * 4 < streamed,
            "band {band}: {after_join} updates after the join, {streamed} streamed"
        );
    }
}

#[test]
fn a_plan_is_forgotten_once_its_animation_is_unloaded_and_not_playing() {
    let mut cache = PlanCache::default();
    let library = Library::load(&[bundled()]).library;
    let mut playing = cape_state(&library, 1);
    cache.begin_tick();
    tick_updates(&mut playing, &mut cache, 0);
    assert_eq!(cache.shared_plans(), 1);
    // Loaded and playing, then playing only (a reload made new forms):
    // kept.
    cache.forget_unloaded();
    assert_eq!(cache.shared_plans(), 1);
    drop(library);
    cache.forget_unloaded();
    assert_eq!(cache.shared_plans(), 1, "still played");
    // Neither: forgotten.
    drop(playing);
    cache.forget_unloaded();
    assert_eq!(cache.shared_plans(), 0);
}
