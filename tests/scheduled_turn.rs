//! A scheduled playback whose player turns mid-cycle: from the turn on, the
//! server must send exactly what the per-tick policy sends. The scheduled
//! server skips sampling the pose on the quiet ticks of a planned cycle
//! (the client draws the plan), so this also checks that the skipped pose
//! is sampled again when the turn needs it.
//!
//! Two in-process servers (the `emoted loadtest` harness: valence's own
//! client code, connections that only count bytes) run in lockstep, one
//! per policy, with the same player playing the same emote; the display
//! entities' transformation components are compared tick by tick.

use emoted::format::EmoteId;
use emoted::server::emote::{ActiveEmote, DisplayUpdatePolicy};
use emoted::server::events::PlayEmoteRequest;
use emoted::server::loadtest::{headless_app, join_counting_client};
use valence::entity::display::{LeftRotation, RightRotation, Scale, Translation};
use valence::math::{Quat, Vec3};
use valence::prelude::*;

type Transform = (Vec3, Quat, Vec3, Quat);

struct Side {
    app: App,
    player: Entity,
}

impl Side {
    fn new(policy: DisplayUpdatePolicy) -> Self {
        let roots = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/emotes"
        ))];
        let mut app = headless_app(&roots, policy);
        let (player, _) = join_counting_client(&mut app, 0);
        app.update();
        Self { app, player }
    }

    fn play(&mut self, emote: &str) {
        self.app.world.send_event(PlayEmoteRequest {
            client: self.player,
            emote: EmoteId::parse(emote).expect("an id"),
            bypass: true,
            cooldown_multiplier: 1.0,
            quiet: false,
        });
    }

    fn turn_to(&mut self, yaw: f32) {
        self.app
            .world
            .get_mut::<Look>(self.player)
            .expect("a player")
            .yaw = yaw;
    }

    /// Each display's transformation components, in union order.
    fn transforms(&self) -> Vec<Transform> {
        let world = &self.app.world;
        let playback = world
            .get::<ActiveEmote>(self.player)
            .expect("still playing");
        playback
            .display_entities()
            .map(|e| {
                (
                    world.get::<Translation>(e).expect("a display").0,
                    world.get::<LeftRotation>(e).expect("a display").0,
                    world.get::<Scale>(e).expect("a display").0,
                    world.get::<RightRotation>(e).expect("a display").0,
                )
            })
            .collect()
    }
}

fn close(a: &Transform, b: &Transform) -> bool {
    a.0.abs_diff_eq(b.0, 1e-4)
        && (a.1.abs_diff_eq(b.1, 1e-4) || a.1.abs_diff_eq(-b.1, 1e-4))
        && a.2.abs_diff_eq(b.2, 1e-4)
        && (a.3.abs_diff_eq(b.3, 1e-4) || a.3.abs_diff_eq(-b.3, 1e-4))
}

#[test]
fn a_turn_mid_cycle_sends_the_per_tick_poses_from_then_on() {
    // `example:halo`: position-pure (one shared plan), a 60-tick loop, a
    // 50° deadzone; its ring turns, so its displays move on every tick.
    let mut scheduled = Side::new(DisplayUpdatePolicy::Scheduled);
    let mut per_tick = Side::new(DisplayUpdatePolicy::PerTick);
    for side in [&mut scheduled, &mut per_tick] {
        side.play("example:halo");
        side.app.update();
    }
    // Quiet ticks of the planned first cycle: the plan draws them, so the
    // scheduled server sends (and holds) other transformations.
    let mut differed = 0;
    for _ in 0..20 {
        scheduled.app.update();
        per_tick.app.update();
        let (a, b) = (scheduled.transforms(), per_tick.transforms());
        assert_eq!(a.len(), b.len());
        differed += a.iter().zip(&b).filter(|(a, b)| !close(a, b)).count();
    }
    assert!(
        differed > 0,
        "the plan never differed from per-tick streaming: is it planned?"
    );
    // The player turns by 120°: past the deadzone, so the root follows.
    for side in [&mut scheduled, &mut per_tick] {
        side.turn_to(120.0);
    }
    // From the turn to the end of the cycle, both servers send the same.
    for tick in 0..30 {
        scheduled.app.update();
        per_tick.app.update();
        let (a, b) = (scheduled.transforms(), per_tick.transforms());
        for (node, (a, b)) in a.iter().zip(&b).enumerate() {
            assert!(
                close(a, b),
                "tick {tick} after the turn, display {node}: scheduled {a:?}, per-tick {b:?}"
            );
        }
    }
}
