//! The plugin in a headless server (the world, the library, commands,
//! playback and skins, as `emoted serve` has them) with one mock client:
//! the start after the delay, the stop on a wake, a refused start retried
//! each second, a finished idle emote repeated with another candidate, and
//! emotes the player chose left alone.

use std::path::{Path, PathBuf};
use std::time::Duration;

use bevy_ecs::event::ManualEventReader;
use valence::keepalive::KeepaliveSettings;
use valence::network::NetworkPlugin;
use valence::prelude::*;
use valence::protocol::packets::play::{CommandExecutionC2s, GameMessageS2c, LookAndOnGroundC2s};
use valence::protocol::{Packet, VarInt};
use valence::testing::{create_mock_client, MockClientHelper};

use super::*;
use crate::format::EmoteId;
use crate::server::emote::SimulatedWallClock;
use crate::server::emote_library::EmoteFolders;

/// The server with `idle` as the only emote group's idle table, and a
/// player who has joined.
struct Scenario {
    app: App,
    player: Entity,
    helper: MockClientHelper,
    requests: ManualEventReader<PlayEmoteRequest>,
    ends: ManualEventReader<EmoteEndedEvent>,
    /// Server ticks of the play requests seen, with their emotes.
    requested: Vec<(i64, EmoteId)>,
    /// Every playback end seen.
    ended: Vec<EmoteEndedEvent>,
    /// Chat lines the player got, with the server tick.
    chat: Vec<(i64, String)>,
}

impl Scenario {
    fn new(idle: &str, extra: &str) -> Scenario {
        let text = format!("{extra}\n[[permissions.emote_groups]]\nidle = {idle}\n");
        let config = Config::parse(&text, Path::new("emoted.toml")).expect("valid config");
        let mut app = App::new();
        app.insert_resource(config)
            .insert_resource(KeepaliveSettings {
                period: Duration::from_secs(24 * 3600),
            })
            .insert_resource(EmoteFolders {
                roots: vec![PathBuf::from(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/emotes"
                ))],
            })
            .insert_resource(SimulatedWallClock { start_tick: 0 })
            .add_plugins(DefaultPlugins.build().disable::<NetworkPlugin>())
            .add_plugins((
                crate::server::world::FlatWorldPlugin,
                crate::server::emote_library::EmoteLibraryPlugin,
                crate::server::commands::EmoteCommandsPlugin,
                crate::server::emote::EmotePlaybackPlugin,
                crate::server::skin::SkinPlugin,
                IdleEmotesPlugin,
            ));
        app.update(); // start-up: the world and the library
        let (bundle, helper) = create_mock_client("idler");
        let player = app.world.spawn(bundle).id();
        let mut scenario = Scenario {
            app,
            player,
            helper,
            requests: ManualEventReader::default(),
            ends: ManualEventReader::default(),
            requested: Vec::new(),
            ended: Vec::new(),
            chat: Vec::new(),
        };
        scenario.ticks(2); // the join, and the idle watch
        scenario.confirm_teleports();
        scenario
    }

    /// Answers the join's position packets, as a client does: valence
    /// ignores a client's movement until it has.
    fn confirm_teleports(&mut self) {
        crate::server::testing::confirm_teleports(&self.app, self.player, &mut self.helper);
        self.ticks(1);
    }

    fn tick_now(&self) -> i64 {
        self.app.world.resource::<Server>().current_tick()
    }

    /// Runs `count` ticks, recording requests and ends.
    fn ticks(&mut self, count: usize) {
        for _ in 0..count {
            self.app.update();
            let now = self.tick_now();
            let requests = self.app.world.resource::<Events<PlayEmoteRequest>>();
            for request in self.requests.iter(requests) {
                self.requested.push((now, request.emote.clone()));
            }
            let ends = self.app.world.resource::<Events<EmoteEndedEvent>>();
            self.ended.extend(self.ends.iter(ends).cloned());
            for frame in self.helper.collect_received().0 {
                if frame.id == GameMessageS2c::ID {
                    if let Ok(line) = frame.decode::<GameMessageS2c>() {
                        self.chat.push((now, line.chat.to_string()));
                    }
                }
            }
        }
    }

    /// Runs ticks until `done` holds (at most `limit`); the ticks it took.
    fn ticks_until(&mut self, limit: usize, done: impl Fn(&Scenario) -> bool) -> Option<usize> {
        (1..=limit).find(|_| {
            self.ticks(1);
            done(self)
        })
    }

    fn playing(&self) -> Option<String> {
        let active = self.app.world.get::<ActiveEmote>(self.player)?;
        Some(active.emote().to_string())
    }

    fn send_look(&mut self, yaw: f32) {
        self.helper.send(&LookAndOnGroundC2s {
            yaw,
            pitch: 0.0,
            on_ground: true,
        });
    }
}

const SIT: &str = r#"{ delay = "1s", emotes = ["example:sit"] }"#;

#[test]
fn an_idle_emote_starts_after_the_delay_and_a_look_stops_it() {
    let mut s = Scenario::new(SIT, "");
    s.ticks(10);
    assert_eq!(s.playing(), None, "half the delay: nothing yet");
    assert!(s.requested.is_empty());
    let took = s.ticks_until(40, |s| s.playing().is_some());
    assert!(took.is_some(), "the sit never started");
    assert_eq!(s.playing().as_deref(), Some("example:sit"));
    assert_eq!(s.requested.len(), 1);
    let watch = s.app.world.get::<IdleWatch>(s.player).expect("watched");
    assert!(watch.clock().plays_idle_emote());
    assert_eq!(watch.group_index(), Some(0));

    // It holds while the player stays still.
    s.ticks(60);
    assert_eq!(s.playing().as_deref(), Some("example:sit"));
    assert!(s.ended.is_empty());

    s.send_look(90.0);
    let took = s.ticks_until(5, |s| s.playing().is_none());
    assert!(took.is_some(), "the look did not stop it");
    let reasons: Vec<&EndReason> = s.ended.iter().map(|e| &e.reason).collect();
    assert_eq!(reasons, [&EndReason::NoLongerIdle(IdleWake::LookedAround)]);
    // The look counts as activity: the next one waits a whole delay again.
    s.ticks(10);
    assert_eq!(s.requested.len(), 1);
}

#[test]
fn a_refused_start_is_retried_a_second_after_each_attempt() {
    // One display entity may exist: the sit needs more, so every start is
    // refused by playback (after the idle side asked for it).
    let mut s = Scenario::new(SIT, "[emotes]\nmax_active_display_entities = 1");
    s.ticks(90);
    assert_eq!(s.playing(), None);
    let ticks: Vec<i64> = s.requested.iter().map(|(tick, _)| *tick).collect();
    assert!(ticks.len() >= 3, "{ticks:?}");
    for pair in ticks.windows(2) {
        assert_eq!(pair[1] - pair[0], 20, "{ticks:?}");
    }
    // The player did not ask: the refusals are not told in chat.
    let told: Vec<&(i64, String)> = s.chat.iter().filter(|(t, _)| *t >= ticks[0]).collect();
    assert!(told.is_empty(), "{told:?}");
}

#[test]
fn candidates_that_may_not_play_are_never_asked_for() {
    // sit_down is not standalone; nothing else matches.
    let rule = r#"{ delay = "1s", emotes = ["example:sit_down", "example:missing_*"] }"#;
    let mut s = Scenario::new(rule, "");
    s.ticks(80);
    assert!(s.requested.is_empty(), "{:?}", s.requested);
    assert_eq!(s.playing(), None);
}

#[test]
fn a_disabled_candidate_is_never_asked_for() {
    let rule = r#"{ delay = "1s", emotes = ["example:sit", "example:wave"] }"#;
    let mut s = Scenario::new(rule, "[permissions]\ndisabled = [\"example:sit\"]\n");
    s.ticks(200);
    assert!(!s.requested.is_empty());
    assert!(
        s.requested
            .iter()
            .all(|(_, id)| id.as_str() == "example:wave"),
        "{:?}",
        s.requested
    );
}

#[test]
fn a_finished_idle_emote_repeats_with_the_other_candidate() {
    // Both play once (wave 40 ticks, heart 50) and cool down within the
    // delay that follows each.
    let rule = r#"{ delay = "3s", weights = [{ id = "example:wave", weight = 90 }, { id = "example:heart", weight = 10 }] }"#;
    let mut s = Scenario::new(rule, "");
    s.ticks(400);
    let played: Vec<&str> = s.requested.iter().map(|(_, id)| id.as_str()).collect();
    assert!(played.len() >= 3, "{played:?}");
    for pair in played.windows(2) {
        assert_ne!(pair[0], pair[1], "the last one is avoided: {played:?}");
    }
    assert!(
        s.ended.iter().all(|e| e.reason == EndReason::Finished),
        "{:?}",
        s.ended
    );
    // Each repeat starts a whole delay after the previous one ended.
    let ticks: Vec<i64> = s.requested.iter().map(|(tick, _)| *tick).collect();
    for pair in ticks.windows(2) {
        assert!(pair[1] - pair[0] >= 60 + 40, "{ticks:?}");
    }
}

#[test]
fn an_emote_the_player_plays_is_neither_replaced_nor_stopped() {
    let mut s = Scenario::new(SIT, "");
    // A looping guitar, asked for before the delay ran out.
    s.app.world.send_event(PlayEmoteRequest {
        client: s.player,
        emote: EmoteId::parse("example:guitar").expect("id"),
        bypass: false,
        cooldown_multiplier: 1.0,
        quiet: false,
    });
    s.ticks(100);
    assert_eq!(s.playing().as_deref(), Some("example:guitar"));
    assert_eq!(s.requested.len(), 1, "only the guitar: {:?}", s.requested);
    // A look ends nothing the idle clock did not start.
    s.send_look(45.0);
    s.ticks(5);
    assert_eq!(s.playing().as_deref(), Some("example:guitar"));
    assert!(s.ended.is_empty(), "{:?}", s.ended);
}

#[test]
fn a_command_that_replaces_the_idle_emote_plays_on() {
    let mut s = Scenario::new(SIT, "");
    assert!(s
        .ticks_until(60, |s| s.playing().as_deref() == Some("example:sit"))
        .is_some());
    s.helper.send(&CommandExecutionC2s {
        command: "emote play example:wave",
        timestamp: 0,
        salt: 0,
        argument_signatures: Vec::new(),
        message_count: VarInt(0),
        acknowledgement: [0; 3],
    });
    s.ticks(5);
    assert_eq!(s.playing().as_deref(), Some("example:wave"));
    let reasons: Vec<&EndReason> = s.ended.iter().map(|e| &e.reason).collect();
    assert_eq!(reasons, [&EndReason::Replaced], "the sit was replaced");
}

#[test]
fn a_reload_of_the_configuration_applies_at_once() {
    let mut s = Scenario::new(SIT, "");
    // The rule goes before its delay runs out.
    *s.app.world.resource_mut::<Config>() = Config::default();
    s.ticks(60);
    assert!(s.requested.is_empty(), "{:?}", s.requested);
    assert_eq!(
        s.app
            .world
            .get::<IdleWatch>(s.player)
            .and_then(IdleWatch::group_index),
        None
    );
    // It comes back: the player has been quiet long enough already.
    let text = format!("[[permissions.emote_groups]]\nemotes = [\"example:*\"]\n[[permissions.emote_groups]]\nidle = {SIT}\n");
    *s.app.world.resource_mut::<Config>() =
        Config::parse(&text, Path::new("emoted.toml")).expect("valid");
    s.ticks(3);
    assert_eq!(s.requested.len(), 1, "{:?}", s.requested);
    assert_eq!(s.playing().as_deref(), Some("example:sit"));
    assert_eq!(
        s.app
            .world
            .get::<IdleWatch>(s.player)
            .and_then(IdleWatch::group_index),
        Some(1)
    );
}

#[test]
fn a_look_that_steers_an_emote_camera_is_not_activity() {
    let mut s = Scenario::new(SIT, "");
    s.ticks(5);
    let quiet_since = |s: &Scenario| {
        s.app
            .world
            .get::<IdleWatch>(s.player)
            .expect("watched")
            .clock()
            .quiet_since_tick()
    };
    let before = quiet_since(&s);
    s.app
        .world
        .entity_mut(s.player)
        .insert(crate::server::events::CameraFlying::default());
    s.send_look(120.0);
    s.ticks(3);
    assert_eq!(quiet_since(&s), before, "steering the camera");
    s.app
        .world
        .entity_mut(s.player)
        .remove::<crate::server::events::CameraFlying>();
    s.send_look(0.0);
    s.ticks(3);
    assert!(quiet_since(&s) > before, "looking around without one");
}
