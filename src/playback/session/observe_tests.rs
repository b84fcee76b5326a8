//! A whole playback fed as the server feeds it: a wave whose head follows
//! an observed look, per tick within the tolerance, while the rest of the
//! body stays on the shared plan.

use std::path::PathBuf;

use glam::{DVec3, Vec3};
use uuid::Uuid;

use super::*;
use crate::format::EmoteId;
use crate::library::Library;
use crate::playback::Cooldowns;

fn bundled() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"))
}

fn wave_state(library: &Library) -> PlaybackState {
    let wave = EmoteId::parse("example:wave").expect("an id");
    let request = PlayRequest {
        emote: &wave,
        bypass: false,
        player: Uuid::from_u128(7),
        now_tick: 0,
        position: DVec3::new(10.0, 64.0, -3.0),
        yaw_degrees: 90.0,
        molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
    };
    prepare(&request, library, &Cooldowns::default())
        .expect("plays")
        .state
}

/// The Minecraft yaw of a sent transformation's forward (+Z), in the
/// world (the root's yaw included).
fn sent_yaw(state: &PlaybackState, union: usize) -> f32 {
    let sent = state.sent.last(union, 0).expect("sent");
    let forward = (sent.left_rotation * sent.right_rotation) * Vec3::Z;
    (-forward.x).atan2(forward.z).to_degrees()
}

#[test]
fn an_observed_look_turns_the_head_per_tick_and_the_rest_is_still_planned() {
    let library = Library::load(&[bundled()]).library;
    let mut turned = wave_state(&library);
    let mut straight = wave_state(&library);
    let union = |id: &str| turned.union.ids.iter().position(|u| u == id).expect(id);
    let (head, upper_arm) = (union("head"), union("upper_arm_r"));
    assert!(turned.has_solvers());
    assert!(
        !turned.current.planned[head],
        "the neck's look-at moves the head"
    );
    assert!(turned.current.planned[upper_arm], "the arm is the plan's");
    let mut cache = PlanCache::default();
    let mut head_updates = 0;
    let mut updates = Vec::new();
    for tick in 0..30 {
        for (state, look_yaw) in [(&mut turned, 90.0 + 40.0), (&mut straight, 90.0)] {
            state.observe_live(
                &WorldView {
                    look_yaw_degrees: look_yaw,
                    ..WorldView::default()
                },
                None,
            );
            state.advance(0, &mut Vec::new());
            state.plan_new_cycle(&mut cache);
            updates.clear();
            state.pose_updates(90.0, tick, &mut updates);
            if look_yaw > 90.0 && tick >= 10 {
                head_updates += updates.iter().filter(|u| u.union == head).count();
            }
        }
        assert!(
            turned.schedule.is_some(),
            "tick {tick}: the cycle is planned"
        );
    }
    let difference = sent_yaw(&turned, head) - sent_yaw(&straight, head);
    assert!((difference - 40.0).abs() < 1.0, "{difference}");
    // Once the look settled the head is sent only as the wave moves it
    // past the tolerance: far fewer than one update a tick.
    assert!(head_updates < 10, "{head_updates} head updates in 20 ticks");
}
