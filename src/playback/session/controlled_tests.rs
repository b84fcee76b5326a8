//! Controller playbacks prepared and stepped without a server, on the
//! bundled `example:walk_wave` and `example:lounge`.

use std::path::PathBuf;

use glam::DVec3;
use uuid::Uuid;

use super::*;
use crate::library::Library;
use crate::playback::controlled::Motion;
use crate::playback::Cooldowns;

fn library() -> Library {
    let emotes = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
    let report = Library::load(&[emotes]);
    assert_eq!(report.error_count(), 0, "{:?}", report.lines());
    report.library
}

fn start(library: &Library, emote: &str) -> PlaybackState {
    let id = EmoteId::parse(emote).expect("an id");
    let request = PlayRequest {
        emote: &id,
        bypass: false,
        player: Uuid::from_u128(7),
        now_tick: 100,
        position: DVec3::new(0.5, 64.0, 0.5),
        yaw_degrees: 0.0,
        molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
    };
    prepare(&request, library, &Cooldowns::default())
        .unwrap_or_else(|e| panic!("{emote} plays: {e}"))
        .state
}

/// Steps `state` once with `motion`; returns the end, if any.
fn tick(state: &mut PlaybackState, motion: &Motion) -> Option<PlaybackEnd> {
    state.observe_motion(motion);
    let mut due = Vec::new();
    state.advance(0, &mut due).end
}

fn walking(speed: f32) -> Motion {
    Motion {
        speed,
        forward: speed,
        ..Motion::default()
    }
}

#[test]
fn walk_wave_blends_by_speed_and_answers_sneak_and_jump() {
    let library = library();
    let mut state = start(&library, "example:walk_wave");
    let controller = state.controller.as_ref().expect("a controller playback");
    assert_eq!(controller.id().as_str(), "example:walk_wave");
    // The body is wave's: every node has its place, none planned.
    assert!(state.union.ids.iter().any(|id| id == "leg_r"));
    assert!(state.current.planned.iter().all(|p| !p));
    let leg = state
        .current
        .compiled
        .rig
        .node_index("leg_r")
        .expect("a right leg");
    let leg_angle = |state: &PlaybackState| {
        let (axis, angle) = state.current.pose.nodes[leg].rotation.to_axis_angle();
        (axis.x * angle).to_degrees().abs()
    };
    // Standing: the legs stay straight for a whole idle cycle.
    let mut standing = 0.0_f32;
    for _ in 0..40 {
        assert_eq!(tick(&mut state, &Motion::default()), None);
        standing = standing.max(leg_angle(&state));
    }
    assert!(standing < 1.0, "{standing}");
    // Running: the legs swing wide.
    let mut running = 0.0_f32;
    for _ in 0..28 {
        tick(&mut state, &walking(4.3));
        running = running.max(leg_angle(&state));
    }
    assert!(running > 35.0, "{running}");
    let state_of = |state: &PlaybackState| {
        state
            .controller
            .as_ref()
            .and_then(|c| c.state_name(0))
            .map(str::to_owned)
    };
    assert_eq!(state_of(&state).as_deref(), Some("move"));
    let sneaking = Motion {
        sneaking: true,
        ..walking(1.3)
    };
    tick(&mut state, &sneaking);
    assert_eq!(state_of(&state).as_deref(), Some("sneak"));
    let jump = Motion {
        jumped: true,
        grounded: false,
        ..Motion::default()
    };
    tick(&mut state, &jump);
    assert_eq!(state_of(&state).as_deref(), Some("jump"));
    // Back on the ground after the jump's exit time: moving again.
    for _ in 0..20 {
        tick(&mut state, &Motion::default());
    }
    assert_eq!(state_of(&state).as_deref(), Some("move"));
    // Every node goes per tick, and a standing body sends little.
    let mut updates = Vec::new();
    state.pose_updates(0.0, 200, &mut updates);
    assert!(!updates.is_empty());
}

#[test]
fn the_lounge_ends_through_its_own_transition_on_a_jump() {
    let library = library();
    let mut state = start(&library, "example:lounge");
    for _ in 0..60 {
        assert_eq!(
            tick(&mut state, &Motion::default()),
            None,
            "sits until a jump"
        );
    }
    let jump = Motion {
        jumped: true,
        ..Motion::default()
    };
    assert_eq!(tick(&mut state, &jump), None);
    let rise = state.controller.as_ref().and_then(|c| c.state_name(0));
    assert_eq!(rise, Some("rise"));
    // The rise (10 ticks) plays out, then `exit` ends the emote.
    let mut ended_after = None;
    for n in 1..=20 {
        if let Some(end) = tick(&mut state, &Motion::default()) {
            assert_eq!(end, PlaybackEnd::Finished);
            ended_after = Some(n);
            break;
        }
    }
    let ended_after = ended_after.expect("the rise ends the emote");
    assert!((9..=11).contains(&ended_after), "{ended_after}");
}

#[test]
fn a_controller_is_refused_like_any_emote_and_its_body_clip_alone_is_not_standalone() {
    let library = library();
    let id = EmoteId::parse("example:walk").expect("an id");
    let request = PlayRequest {
        emote: &id,
        bypass: false,
        player: Uuid::from_u128(7),
        now_tick: 0,
        position: DVec3::ZERO,
        yaw_degrees: 0.0,
        molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
    };
    assert!(matches!(
        prepare(&request, &library, &Cooldowns::default()),
        Err(PlayRefusal::NotStandalone(_))
    ));
}
