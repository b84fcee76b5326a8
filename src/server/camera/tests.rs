//! The plugin in a headless server (the world, the library, commands,
//! playback, skins and the camera, as `emoted serve` has them) with mock
//! clients: every way an emote ends hands the view back before the camera
//! goes, a replaced emote keeps its camera, a server move and Shift end
//! the emote, and the players, emotes and settings that get no camera.

use std::path::{Path, PathBuf};
use std::time::Duration;

use valence::entity::EntityId;
use valence::keepalive::KeepaliveSettings;
use valence::network::NetworkPlugin;
use valence::protocol::packets::play::game_state_change_s2c::GameEventKind;
use valence::protocol::packets::play::player_input_c2s::PlayerInputFlags;
use valence::protocol::packets::play::{
    EntitiesDestroyS2c, EntityPassengersSetS2c, GameStateChangeS2c, PlayerPositionLookS2c,
    SetCameraEntityS2c,
};
use valence::protocol::Packet;
use valence::testing::{create_mock_client, MockClientHelper};

use glam::{Quat, Vec3};

use super::*;
use crate::format::EmoteId;
use crate::server::emote::SimulatedWallClock;
use crate::server::emote_library::EmoteFolders;
use crate::server::events::{PlayEmoteRequest, PlayerDiedEvent};

/// What the client got that concerns the camera, in order.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Camera(i32),
    Passengers(i32, Vec<i32>),
    Destroyed(Vec<i32>),
    MovedTo,
    /// A game event telling the client its game mode (its id).
    Mode(u8),
}

struct Scenario {
    app: App,
    player: Entity,
    helper: MockClientHelper,
}

impl Scenario {
    /// A server with `config` (TOML) and the bundled emotes plus `extra`
    /// folders, and one player who has joined.
    fn new(config: &str, extra: &[PathBuf]) -> Scenario {
        let config = Config::parse(config, Path::new("emoted.toml")).expect("valid config");
        let mut roots = vec![PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/emotes"
        ))];
        roots.extend(extra.iter().cloned());
        let mut app = App::new();
        app.insert_resource(config)
            .insert_resource(KeepaliveSettings {
                period: Duration::from_secs(24 * 3600),
            })
            .insert_resource(EmoteFolders { roots })
            .insert_resource(SimulatedWallClock { start_tick: 0 })
            .add_plugins(DefaultPlugins.build().disable::<NetworkPlugin>())
            .add_plugins((
                crate::server::world::FlatWorldPlugin,
                crate::server::emote_library::EmoteLibraryPlugin,
                crate::server::commands::EmoteCommandsPlugin,
                crate::server::emote::EmotePlaybackPlugin,
                crate::server::skin::SkinPlugin,
                EmoteCameraPlugin,
            ));
        app.update();
        let (bundle, helper) = create_mock_client("emoter");
        let player = app.world.spawn(bundle).id();
        let mut s = Scenario {
            app,
            player,
            helper,
        };
        s.ticks(2);
        s.confirm_teleports();
        s
    }

    fn ticks(&mut self, count: usize) {
        for _ in 0..count {
            self.app.update();
        }
    }

    /// Answers the server's position packets, as a client does.
    fn confirm_teleports(&mut self) {
        crate::server::testing::confirm_teleports(&self.app, self.player, &mut self.helper);
        self.ticks(1);
    }

    fn play(&mut self, id: &str) {
        self.app.world.send_event(PlayEmoteRequest {
            client: self.player,
            emote: EmoteId::parse(id).expect("an id"),
            bypass: true,
            cooldown_multiplier: 1.0,
            quiet: false,
        });
    }

    fn camera(&self) -> Option<&EmoteCamera> {
        self.app.world.get::<EmoteCamera>(self.player)
    }

    /// Plays `id` and runs until the view is handed over; the camera's
    /// and the seat's entity ids.
    fn fly(&mut self, id: &str) -> (i32, i32) {
        self.play(id);
        for _ in 0..5 {
            self.ticks(1);
            if self.camera().is_some_and(EmoteCamera::is_handed_over) {
                let camera = self.camera().expect("a camera");
                let id_of = |e| self.app.world.get::<EntityId>(e).expect("an id").get();
                let ids = (id_of(camera.camera), id_of(camera.seat));
                assert!(self.app.world.get::<CameraFlying>(self.player).is_some());
                return ids;
            }
        }
        panic!("no camera for {id}");
    }

    /// The camera packets the client got since the last call.
    fn seen(&mut self) -> Vec<Seen> {
        let mut out = Vec::new();
        for frame in self.helper.collect_received().0 {
            if frame.id == SetCameraEntityS2c::ID {
                let p = frame.decode::<SetCameraEntityS2c>().expect("decodes");
                out.push(Seen::Camera(p.entity_id.0));
            } else if frame.id == EntityPassengersSetS2c::ID {
                let p = frame.decode::<EntityPassengersSetS2c>().expect("decodes");
                out.push(Seen::Passengers(
                    p.entity_id.0,
                    p.passengers.iter().map(|v| v.0).collect(),
                ));
            } else if frame.id == EntitiesDestroyS2c::ID {
                let p = frame.decode::<EntitiesDestroyS2c>().expect("decodes");
                out.push(Seen::Destroyed(p.entity_ids.iter().map(|v| v.0).collect()));
            } else if frame.id == PlayerPositionLookS2c::ID {
                out.push(Seen::MovedTo);
            } else if frame.id == GameStateChangeS2c::ID {
                let p = frame.decode::<GameStateChangeS2c>().expect("decodes");
                if p.kind == GameEventKind::ChangeGameMode {
                    out.push(Seen::Mode(p.value as u8));
                }
            }
        }
        out
    }

    /// Every end event so far.
    fn ended(&self) -> Vec<EndReason> {
        let events = self.app.world.resource::<Events<EmoteEndedEvent>>();
        events
            .iter_current_update_events()
            .map(|e| e.reason.clone())
            .collect()
    }

    fn live_parts(&mut self) -> usize {
        self.app
            .world
            .query_filtered::<(), (With<CameraPart>, Without<Despawned>)>()
            .iter(&self.app.world)
            .count()
    }
}

/// The view came back (Set Camera 0) and the seat emptied before the
/// camera and the seat were destroyed.
fn assert_handed_back(seen: &[Seen], camera: i32, seat: i32) {
    let back = seen
        .iter()
        .position(|s| *s == Seen::Camera(0))
        .unwrap_or_else(|| panic!("no Set Camera back: {seen:?}"));
    let emptied = seen
        .iter()
        .position(|s| *s == Seen::Passengers(seat, vec![]))
        .unwrap_or_else(|| panic!("the seat kept its rider: {seen:?}"));
    let destroyed = seen
        .iter()
        .position(
            |s| matches!(s, Seen::Destroyed(ids) if ids.contains(&camera) && ids.contains(&seat)),
        )
        .unwrap_or_else(|| panic!("the camera stayed: {seen:?}"));
    assert!(back < destroyed && emptied < destroyed, "{seen:?}");
    // The client is told its real game mode again (survival) after it
    // looks through its own eyes.
    let mode = seen
        .iter()
        .position(|s| *s == Seen::Mode(0))
        .unwrap_or_else(|| panic!("no game mode back: {seen:?}"));
    assert!(back < mode && mode < destroyed, "{seen:?}");
}

#[test]
fn the_view_is_handed_over_seated_and_only_to_the_player() {
    let mut s = Scenario::new("", &[]);
    s.helper.clear_received();
    let (camera, seat) = s.fly("example:dance");
    let seen = s.seen();
    assert_eq!(
        seen.iter()
            .filter(|x| matches!(x, Seen::Camera(_) | Seen::Passengers(..)))
            .cloned()
            .collect::<Vec<_>>(),
        [Seen::Passengers(seat, vec![0]), Seen::Camera(camera)],
        "seated first, then the camera"
    );
    // The client alone is told it spectates (no hand, no hotbar); the
    // server's game mode is what it was.
    let camera_at = seen.iter().position(|x| *x == Seen::Camera(camera));
    let spectates = seen.iter().position(|x| *x == Seen::Mode(3));
    assert!(spectates.is_some() && camera_at < spectates, "{seen:?}");
    assert_eq!(
        s.app.world.get::<GameMode>(s.player),
        Some(&GameMode::Survival)
    );
    // The private layer is the player's alone.
    let private = s
        .app
        .world
        .get::<PrivateLayer>(s.player)
        .expect("a layer")
        .0;
    let mut viewers = s.app.world.query::<&VisibleEntityLayers>();
    let seeing = viewers
        .iter(&s.app.world)
        .filter(|v| v.0.contains(&private))
        .count();
    assert_eq!(seeing, 1);
    // The body holds its yaw while the look steers the camera.
    let yaw = s
        .app
        .world
        .get::<ActiveEmote>(s.player)
        .expect("playing")
        .state
        .root_yaw_degrees();
    s.app.world.get_mut::<Look>(s.player).expect("a look").yaw = yaw + 150.0;
    s.ticks(10);
    let now = s
        .app
        .world
        .get::<ActiveEmote>(s.player)
        .expect("playing")
        .state
        .root_yaw_degrees();
    assert_eq!(now, yaw);
}

#[test]
fn every_end_hands_the_view_back_before_the_camera_goes() {
    type Trigger = fn(&mut Scenario);
    type IsReason = fn(&EndReason) -> bool;
    let ends: [(&str, Trigger, IsReason); 5] = [
        (
            "stop",
            |s| {
                s.app.world.send_event(StopEmoteRequest {
                    client: s.player,
                    reason: EndReason::Stopped,
                })
            },
            |r| *r == EndReason::Stopped,
        ),
        (
            "reload",
            |s| {
                s.app.world.send_event(StopEmoteRequest {
                    client: s.player,
                    reason: EndReason::Reloaded { removed: false },
                })
            },
            |r| matches!(r, EndReason::Reloaded { .. }),
        ),
        (
            "death",
            |s| s.app.world.send_event(PlayerDiedEvent { player: s.player }),
            |r| *r == EndReason::Died,
        ),
        (
            "another world",
            |s| {
                s.app
                    .world
                    .get_mut::<VisibleChunkLayer>(s.player)
                    .expect("a world")
                    .set_changed()
            },
            |r| *r == EndReason::LeftWorld,
        ),
        (
            "shift",
            |s| {
                s.helper.send(&PlayerInputC2s {
                    sideways: 0.0,
                    forward: 0.0,
                    flags: PlayerInputFlags::new().with_unmount(true),
                })
            },
            |r| *r == EndReason::Stopped,
        ),
    ];
    for (name, trigger, reason) in ends {
        let mut s = Scenario::new("", &[]);
        let (camera, seat) = s.fly("example:dance");
        s.seen();
        trigger(&mut s);
        let mut seen = Vec::new();
        let mut reasons = Vec::new();
        for _ in 0..3 {
            s.ticks(1);
            seen.extend(s.seen());
            reasons.extend(s.ended());
        }
        assert!(reasons.iter().any(reason), "{name}: {reasons:?}");
        assert_handed_back(&seen, camera, seat);
        assert!(s.camera().is_none(), "{name}");
        assert!(
            s.app.world.get::<CameraFlying>(s.player).is_none(),
            "{name}"
        );
        assert_eq!(s.live_parts(), 0, "{name}");
    }
}

#[test]
fn the_natural_end_hands_back_and_a_replaced_emote_keeps_the_camera() {
    let mut s = Scenario::new("", &[]);
    let (camera, _) = s.fly("example:dance");
    s.seen();
    s.play("example:wave");
    s.ticks(3);
    let seen = s.seen();
    assert!(!seen.contains(&Seen::Camera(0)), "{seen:?}");
    let kept = s.camera().expect("still flying");
    assert_eq!(
        s.app
            .world
            .get::<EntityId>(kept.camera)
            .expect("an id")
            .get(),
        camera
    );
    // The wave (2 s, once) ends by itself.
    let seat = s.app.world.get::<EntityId>(kept.seat).expect("an id").get();
    let mut seen = Vec::new();
    for _ in 0..60 {
        s.ticks(1);
        seen.extend(s.seen());
    }
    assert_handed_back(&seen, camera, seat);
    assert!(s.camera().is_none());
}

#[test]
fn a_server_move_unseats_the_player_first_and_seats_them_again_where_they_land() {
    let mut s = Scenario::new("", &[]);
    let (_, seat) = s.fly("example:dance");
    s.seen();
    let landing =
        s.app.world.get::<Position>(s.player).expect("a position").0 + DVec3::new(20.0, 0.0, 0.0);
    s.app
        .world
        .get_mut::<Position>(s.player)
        .expect("a position")
        .0 = landing;
    s.ticks(1);
    let seen = s.seen();
    let unseated = seen
        .iter()
        .position(|x| *x == Seen::Passengers(seat, vec![]));
    let moved = seen.iter().position(|x| *x == Seen::MovedTo);
    assert!(
        unseated.is_some() && moved.is_some() && unseated < moved,
        "unseated before the move: {seen:?}"
    );
    s.confirm_teleports();
    let seen = s.seen();
    assert!(seen.contains(&Seen::Passengers(seat, vec![0])), "{seen:?}");
    assert!(
        !seen.contains(&Seen::Camera(0)),
        "the view stays the camera's"
    );
    let camera = s.camera().expect("still flying");
    let seat_at = s
        .app
        .world
        .get::<Position>(camera.seat)
        .expect("the seat")
        .0;
    assert!((seat_at - landing - DVec3::Y * rig::SEAT_RIDER_DROP_BLOCKS).length() < 1e-9);
    assert!(
        s.app.world.get::<ActiveEmote>(s.player).is_some(),
        "the emote plays on"
    );
}

#[test]
fn the_jump_key_is_a_jump_for_the_stop_conditions() {
    let mut s = Scenario::new("", &[]);
    s.fly("example:guitar"); // stops on a jump
    s.helper.send(&PlayerInputC2s {
        sideways: 0.0,
        forward: 0.0,
        flags: PlayerInputFlags::new().with_jump(true),
    });
    let mut reasons = Vec::new();
    for _ in 0..3 {
        s.ticks(1);
        reasons.extend(s.ended());
    }
    assert!(
        reasons.contains(&EndReason::Condition(crate::playback::StopReason::Jumped)),
        "{reasons:?}"
    );
}

#[test]
fn a_player_who_leaves_leaves_no_camera_behind() {
    let mut s = Scenario::new("", &[]);
    s.fly("example:dance");
    let private = s
        .app
        .world
        .get::<PrivateLayer>(s.player)
        .expect("a layer")
        .0;
    s.app.world.entity_mut(s.player).remove::<Client>();
    s.ticks(3);
    assert_eq!(s.live_parts(), 0);
    assert!(s.app.world.get_entity(private).is_none());
}

#[test]
fn who_gets_no_camera() {
    // The setting, the game mode rule, the player's choice, a modded
    // client, and an emote that refuses one.
    let dir = std::env::temp_dir().join(format!("emoted-camera-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");
    let wave = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes/wave.json"))
        .expect("the wave");
    let mut refusing: serde_json::Value = serde_json::from_str(&wave).expect("JSON");
    refusing["id"] = serde_json::json!("test:no_camera");
    refusing["metadata"]["emoted"] = serde_json::json!({"camera": false});
    std::fs::write(dir.join("no_camera.json"), refusing.to_string()).expect("written");

    let none_for = |s: &mut Scenario, id: &str, why: &str| {
        s.play(id);
        s.ticks(4);
        assert!(
            s.app.world.get::<ActiveEmote>(s.player).is_some(),
            "{why}: it plays"
        );
        assert!(s.camera().is_none(), "{why}");
        assert!(
            !s.seen().iter().any(|x| matches!(x, Seen::Camera(_))),
            "{why}"
        );
    };
    let mut s = Scenario::new("[camera]\nenabled = false\n", &[]);
    none_for(&mut s, "example:dance", "cameras turned off");
    let mut s = Scenario::new("[camera]\nallow_in_pvp = false\n", &[]);
    none_for(
        &mut s,
        "example:dance",
        "a survival player where PvP comes first",
    );
    let mut s = Scenario::new("[camera]\nallow_in_pvp = false\n", &[]);
    *s.app.world.get_mut::<GameMode>(s.player).expect("a mode") = GameMode::Creative;
    s.ticks(2);
    s.fly("example:dance"); // a creative player cannot be hurt: a camera
    let mut s = Scenario::new("", &[]);
    s.app.world.entity_mut(s.player).insert(PlayerChoices {
        camera_off: true,
        ..PlayerChoices::default()
    });
    none_for(&mut s, "example:dance", "/emote camera off");
    let mut s = Scenario::new("", &[]);
    s.app.world.entity_mut(s.player).insert(BoneViewer);
    none_for(&mut s, "example:dance", "a modded client");
    let mut s = Scenario::new("", std::slice::from_ref(&dir));
    none_for(&mut s, "test:no_camera", "camera: false");
    s.fly("example:wave");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_keyed_camera_rides_its_anchor_in_the_world() {
    use crate::format::{read_emote_file, EmoteFile};
    use crate::library::sample::sample_ticks;
    use crate::library::CompiledAnimation;

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes/celebrate.json");
    let Some(EmoteFile::Animation(file)) = read_emote_file(Path::new(path)).file else {
        panic!("celebrate reads");
    };
    let compiled = CompiledAnimation::compile(&file).expect("compiles");
    let ticks: Vec<u32> = (0..40).collect();
    let anchor: Vec<Vec3> = sample_ticks(&compiled, &ticks, 0)
        .expect("samples")
        .iter()
        .map(|line| {
            let m = line.nodes["camera"].matrix;
            Vec3::new(m[12], m[13], m[14])
        })
        .collect();

    let mut s = Scenario::new("", &[]);
    s.app.world.get_mut::<Look>(s.player).expect("a look").yaw = 90.0;
    s.ticks(1);
    s.fly("example:celebrate");
    let mut checked = 0;
    for _ in 0..30 {
        s.ticks(1);
        let playback = s.app.world.get::<ActiveEmote>(s.player).expect("playing");
        let Some(position) = playback.state.position_ticks else {
            continue;
        };
        let root = playback.state.root_position().as_vec3();
        let turn = Quat::from_rotation_y(-playback.state.root_yaw_degrees().to_radians());
        let camera = s.camera().expect("flying").camera;
        let feet = s.app.world.get::<Position>(camera).expect("placed").0;
        let eye = feet.as_vec3() + Vec3::Y * CAMERA_EYE_HEIGHT_BLOCKS as f32;
        if position < 40 {
            let wanted = root + turn * anchor[position as usize];
            assert!(
                eye.distance(wanted) < 1e-3,
                "tick {position}: {eye} vs the anchor at {wanted}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} ticks checked");
}

#[test]
fn both_players_of_a_handshake_see_a_two_shot_and_both_get_their_view_back() {
    let mut s = Scenario::new("", &[]);
    let alice = s.player;
    let (bundle, mut bob_helper) = create_mock_client("bob");
    let bob = s.app.world.spawn(bundle).id();
    s.ticks(2);
    // Bob stands 1.2 blocks in front of alice, facing her.
    let at = s.app.world.get::<Position>(alice).expect("alice").0;
    s.app.world.get_mut::<Look>(alice).expect("alice").yaw = 0.0;
    s.app.world.get_mut::<Position>(bob).expect("bob").0 = at + DVec3::new(0.0, 0.0, 1.2);
    s.app.world.get_mut::<Look>(bob).expect("bob").yaw = 180.0;
    s.ticks(2);
    s.play("example:handshake");
    s.ticks(3);
    s.app.world.send_event(PlayEmoteRequest {
        client: bob,
        emote: EmoteId::parse("example:handshake").expect("an id"),
        bypass: true,
        cooldown_multiplier: 1.0,
        quiet: false,
    });
    let both_fly = |s: &mut Scenario| {
        [alice, bob].iter().all(|p| {
            s.app
                .world
                .get::<EmoteCamera>(*p)
                .is_some_and(EmoteCamera::is_handed_over)
        })
    };
    // The match comes when the offer's loop ends (up to its length).
    for _ in 0..120 {
        s.ticks(1);
        if both_fly(&mut s) {
            break;
        }
    }
    let partner = s.app.world.get::<EmotePartner>(bob).map(|p| p.initiator);
    let matched = s
        .app
        .world
        .get::<ActiveEmote>(alice)
        .map(|p| (p.partner(), p.state.partner_matched));
    let flying = [alice, bob].map(|p| {
        s.app
            .world
            .get::<EmoteCamera>(p)
            .map(|c| c.is_handed_over())
    });
    assert!(
        both_fly(&mut s),
        "both players fly a camera: {partner:?} {matched:?} {flying:?} {:?}",
        s.ended()
    );
    let bobs = s.app.world.get::<EmoteCamera>(bob).expect("bob's camera");
    assert_eq!((bobs.filming, bobs.role), (alice, Participant::Partner));
    // Each camera looks at the point between them, side-on.
    let middle = (at + DVec3::new(0.0, 1.0, 0.4)).as_vec3();
    for player in [alice, bob] {
        let camera = s
            .app
            .world
            .get::<EmoteCamera>(player)
            .expect("a camera")
            .camera;
        let feet = s
            .app
            .world
            .get::<Position>(camera)
            .expect("placed")
            .0
            .as_vec3();
        let look = *s.app.world.get::<Look>(camera).expect("a look");
        let eye = feet + Vec3::Y * CAMERA_EYE_HEIGHT_BLOCKS as f32;
        let direction =
            crate::playback::camera::look_direction(look.yaw.to_radians(), look.pitch.to_radians());
        let toward = (middle - eye).normalize();
        assert!(
            direction.dot(toward) > 0.999,
            "{player:?}: {eye} looks at {direction}"
        );
        assert!((eye.z - middle.z).abs() < 0.2, "side-on: {eye} vs {middle}");
    }
    // Alice stops: both views come back.
    s.seen();
    bob_helper.clear_received();
    s.app.world.send_event(StopEmoteRequest {
        client: alice,
        reason: EndReason::Stopped,
    });
    s.ticks(2);
    assert!(s.seen().contains(&Seen::Camera(0)));
    let bob_saw: Vec<i32> = bob_helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == SetCameraEntityS2c::ID)
        .filter_map(|f| f.decode::<SetCameraEntityS2c>().ok())
        .map(|p| p.entity_id.0)
        .collect();
    assert_eq!(bob_saw, [0], "bob's view came back");
    assert!(s.app.world.get::<EmoteCamera>(bob).is_none());
    assert_eq!(s.live_parts(), 0);
}

#[test]
fn a_cut_jumps_to_a_fresh_camera_entity_and_the_old_one_goes_after() {
    let mut s = Scenario::new("", &[]);
    let (first, _) = s.fly("example:celebrate");
    s.seen();
    let mut seen = Vec::new();
    for _ in 0..60 {
        s.ticks(1);
        seen.extend(s.seen());
        let at = s
            .app
            .world
            .get::<ActiveEmote>(s.player)
            .and_then(|p| p.state.position_ticks);
        if at.is_some_and(|t| t >= 43) {
            break;
        }
    }
    // celebrate cuts at 40t: the client is told to look through another
    // entity, and only then is the first one destroyed.
    let cut = seen
        .iter()
        .position(|x| matches!(x, Seen::Camera(id) if *id != first && *id != 0))
        .unwrap_or_else(|| panic!("no cut: {seen:?}"));
    let gone = seen
        .iter()
        .position(|x| matches!(x, Seen::Destroyed(ids) if ids.contains(&first)))
        .unwrap_or_else(|| panic!("the first camera stayed: {seen:?}"));
    assert!(cut < gone, "{seen:?}");
    assert!(
        !seen.contains(&Seen::Camera(0)),
        "the view stays the camera's"
    );
    assert_eq!(s.live_parts(), 2, "one camera and the seat");
}
