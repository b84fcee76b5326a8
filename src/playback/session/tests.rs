//! Playbacks prepared, stepped and planned without a server: the bundled
//! emotes, read from `emotes/`.

use std::path::PathBuf;
use std::sync::Arc;

use glam::{DVec3, Mat4};
use uuid::Uuid;

use super::*;
use crate::format::event::EventSource;
use crate::format::{read_emote_file, EmoteFile};
use crate::library::{CompiledAnimation, Library};
use crate::playback::playing::*;
use crate::playback::schedule::{update_counts, verify, Planner, Tolerance};
use crate::playback::Cooldowns;

fn bundled() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"))
}

/// A bundled Animation as the server would play it, with its rig's node
/// ids as the union.
fn playing(file_name: &str, seed: u64) -> Playing {
    playing_with_tick(file_name, seed, None)
}

/// [`playing`], with `molang.tick` replaced when `tick` is given.
fn playing_with_tick(file_name: &str, seed: u64, tick: Option<&str>) -> Playing {
    let path = bundled().join(file_name);
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
    Playing::new(id, &playable, &union, PlayMode::Own, seed)
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

/// The bundled library.
fn library() -> Library {
    let report = Library::load(&[bundled()]);
    assert!(report.library.len() > 10, "{:?}", report.lines());
    report.library
}

fn id(text: &str) -> EmoteId {
    EmoteId::parse(text).expect("an id")
}

/// A play request for `emote` by a fixed player at tick `now`.
fn request(emote: &EmoteId, now_tick: u64, bypass: bool) -> PlayRequest<'_> {
    PlayRequest {
        emote,
        bypass,
        player: Uuid::from_u128(0x1234_5678_9abc),
        now_tick,
        position: DVec3::new(10.0, 64.0, -3.0),
        yaw_degrees: 90.0,
        molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
    }
}

#[test]
fn a_play_request_is_checked_before_anything_plays() {
    let library = library();
    let mut cooldowns = Cooldowns::default();
    let unknown = id("example:nope");
    assert_eq!(
        prepare(&request(&unknown, 0, false), &library, &cooldowns).err(),
        Some(PlayRefusal::Unknown("example:nope".into()))
    );
    let idle = id("example:sit_idle_a");
    assert_eq!(
        prepare(&request(&idle, 0, false), &library, &cooldowns).err(),
        Some(PlayRefusal::NotStandalone("example:sit_idle_a".into()))
    );
    assert!(prepare(&request(&idle, 0, true), &library, &cooldowns).is_ok());
    let wave = id("example:wave");
    let prepared = prepare(&request(&wave, 0, false), &library, &cooldowns).expect("plays");
    // 2 s: 40 ticks; 30 later, 10 are left.
    assert_eq!(prepared.state.cooldown_ticks, 40);
    assert_eq!(prepared.state.name, "Wave");
    cooldowns.start(request(&wave, 0, false).player, wave.clone(), 0, 40);
    match prepare(&request(&wave, 30, false), &library, &cooldowns) {
        Err(PlayRefusal::Cooldown { id, seconds }) => {
            assert_eq!(id, "example:wave");
            assert!((seconds - 0.5).abs() < 1e-9, "{seconds}");
        }
        other => panic!("{:?}", other.map(|p| p.state.name)),
    }
    assert!(prepare(&request(&wave, 30, true), &library, &cooldowns).is_ok());
    assert!(prepare(&request(&wave, 40, false), &library, &cooldowns).is_ok());
}

#[test]
fn an_animation_plays_its_timeline_and_runs_its_events_in_order() {
    let library = library();
    let wave = id("example:wave");
    let prepared =
        prepare(&request(&wave, 0, false), &library, &Cooldowns::default()).expect("plays");
    let mut state = prepared.state;
    assert_eq!(state.current_animation(), &wave);
    assert_eq!(state.root_position(), DVec3::new(10.0, 64.0, -3.0));
    let runtime = state.current.runtime().clone();
    let mut due = Vec::new();
    let mut ticks = 0u32;
    let mut events_at = Vec::new();
    let end = loop {
        ticks += 1;
        assert!(ticks < 1000, "never ends");
        let outcome = state.advance(0, &mut due);
        for command in due.drain(..) {
            events_at.push((ticks, command));
        }
        if let Some(end) = outcome.end {
            break end;
        }
    };
    assert_eq!(end, PlaybackEnd::Finished);
    // A `once` timeline shows positions 0 to its duration, one a tick.
    assert_eq!(ticks, runtime.duration_ticks + 1);
    // start, then the three timeline particles at their ticks (position
    // = tick - 1), then nothing else: wave has no stop events.
    let start = &events_at[0];
    assert_eq!(start.0, 1);
    assert_eq!(start.1.source, DueSource::Player);
    assert!(start.1.command.starts_with("title @s actionbar"));
    assert_eq!(start.1.origin, state.root_position());
    let particles: Vec<u32> = events_at[1..].iter().map(|(tick, _)| tick - 1).collect();
    let expected: Vec<u32> = runtime
        .events
        .timeline
        .iter()
        .map(|e| e.time_ticks)
        .collect();
    assert_eq!(particles, expected);
    assert!(runtime
        .events
        .timeline
        .iter()
        .all(|e| e.event.source == EventSource::Server));
    for (_, command) in &events_at[1..] {
        assert_eq!(command.source, DueSource::Server);
        assert!(command.command.starts_with("particle"));
        // At the arm pivot, half a block up: never at the root itself.
        assert!(command.origin.distance(state.root_position()) > 0.4);
    }
    // Its stop events (none) run once, however often it is asked.
    state.fire_stop(&mut due);
    assert!(due.is_empty() && state.current.stop_fired);
}

#[test]
fn only_changed_nodes_are_sent_and_hidden_ones_shrink_to_nothing() {
    let library = library();
    let bow = id("example:bow");
    let mut state = prepare(&request(&bow, 0, false), &library, &Cooldowns::default())
        .expect("plays")
        .state;
    let mut due = Vec::new();
    let mut updates = Vec::new();
    state.advance(0, &mut due);
    state.pose_updates(90.0, 1, &mut updates);
    let displays = (0..state.union.len())
        .filter(|&u| state.union.has_display(u))
        .count();
    assert!(displays >= 6, "{displays}");
    // The first tick draws every display, with a one-tick interpolation.
    assert_eq!(updates.len(), displays);
    assert!(updates
        .iter()
        .all(|u| u.duration_ticks == 1 && state.union.has_display(u.union)));
    updates.clear();
    // Nothing moved: nothing to send.
    state.pose_updates(90.0, 2, &mut updates);
    assert!(updates.is_empty(), "{updates:?}");
    // A node the Animation hides is drawn at scale 0 where it was.
    let node = updates_target(&state);
    let before = state.sent.last(node, 0).expect("sent");
    state.frame[node] = None;
    state.pose_updates(90.0, 3, &mut updates);
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0].union, node);
    assert_eq!(updates[0].transform.scale, glam::Vec3::ZERO);
    assert_eq!(updates[0].transform.translation, before.translation);
}

/// The first display node of a playback.
fn updates_target(state: &PlaybackState) -> usize {
    (0..state.union.len())
        .find(|&u| state.union.has_display(u))
        .expect("a display")
}

#[test]
fn a_sequence_moves_into_its_next_step_through_a_transition() {
    let library = library();
    let session = id("example:sit_session");
    let mut state = prepare(
        &request(&session, 0, false),
        &library,
        &Cooldowns::default(),
    )
    .expect("plays")
    .state;
    assert_eq!(state.current_animation(), &id("example:sit_down"));
    let mut due = Vec::new();
    let mut seen_transition = None;
    for _ in 0..2000 {
        if state.advance(0, &mut due).end.is_some() {
            break;
        }
        if let Phase::Transition {
            total_ticks,
            done_ticks,
            ..
        } = &state.phase
        {
            if seen_transition.is_none() {
                seen_transition = Some((*total_ticks, *done_ticks, state.current.id.clone()));
            }
        }
    }
    // sit_down, then an idle (or a `continue`/`break` pick) with a 5-tick
    // transition, or the 4-tick one into stand_up when every repeat picked
    // nothing: the first transition seen is one of the two.
    let (total, done, into) = seen_transition.expect("a transition");
    assert_eq!(done, 0);
    match into.as_str() {
        "example:sit_idle_a" | "example:sit_idle_b" => assert_eq!(total, 5),
        "example:stand_up" => assert_eq!(total, 4),
        other => panic!("transition into {other}"),
    }
}

#[test]
fn a_two_player_sequence_unites_both_branches_and_copies_initiator_nodes() {
    let library = library();
    let handshake = id("example:handshake");
    let prepared = prepare(
        &request(&handshake, 0, false),
        &library,
        &Cooldowns::default(),
    )
    .expect("plays");
    let plan = prepared.two_player.expect("two players");
    assert!(!plan.matched.is_empty() && !plan.timeout.is_empty());
    let mut state = prepared.state;
    assert_eq!(state.current_animation(), &id("example:handshake_offer"));
    assert_eq!(state.roots, SpaceRoots::OFFER);
    assert!(state.queue.is_empty(), "branches resolve at the match");
    // handshake_shake has no partner nodes: its initiator nodes get
    // partner copies, in the partner's space; its scene node none.
    for node in ["shoulder_r", "forearm_r", "hand_r", "head", "body"] {
        let copy = mirror_id(node);
        let index = state.union.ids.iter().position(|i| *i == copy);
        let index = index.unwrap_or_else(|| panic!("{copy} in {:?}", state.union.ids));
        assert_eq!(state.union.spaces[index], Space::Partner);
    }
    assert!(!state.union.ids.contains(&mirror_id("deal_text")));
    let deadzone_before = state.yaw.yaw_degrees();
    state.freeze_yaw();
    let roots = SpaceRoots {
        initiator: Mat4::IDENTITY,
        partner: Some(Mat4::from_translation(glam::Vec3::new(0.0, 0.0, 1.2))),
        mirror: true,
    };
    assert!(state.begin_branch(&plan.matched, roots));
    assert_eq!(state.current_animation(), &id("example:handshake_shake"));
    assert!(state.partner_matched);
    // A matched root no longer follows the initiator's yaw.
    assert_eq!(state.yaw.step(deadzone_before + 170.0), deadzone_before);
}
