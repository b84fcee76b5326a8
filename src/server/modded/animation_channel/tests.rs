use std::path::Path;
use std::time::Duration;

use valence::keepalive::KeepaliveSettings;
use valence::network::NetworkPlugin;
use valence::protocol::packets::play::{CustomPayloadC2s, CustomPayloadS2c};
use valence::protocol::{Packet, RawBytes};
use valence::testing::{create_mock_client, MockClientHelper};

use super::*;

/// The channel's messages the client got since the last look, read.
fn received(helper: &mut MockClientHelper) -> Vec<AnimationS2c> {
    helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == CustomPayloadS2c::ID)
        .filter_map(|f| f.decode::<CustomPayloadS2c>().ok())
        .filter(|p| p.channel.as_str() == CHANNEL)
        .map(|p| AnimationS2c::read(p.data.0).expect("the server's messages read"))
        .collect()
}

fn say(helper: &mut MockClientHelper, bytes: &[u8]) {
    helper.send(&CustomPayloadC2s {
        channel: ident!("emoted:animation").into(),
        data: RawBytes(bytes),
    });
}

/// A headless server (view distance 4: a 64-block reach) with alice and
/// bob, bob 200 blocks away, running the channel's systems but the one
/// that follows players' emotes (which would stop the plays a test puts
/// in [`ChannelPlays`] by hand: nobody plays anything here).
fn app_with_two() -> (App, Entity, Entity, MockClientHelper) {
    let config = Config::parse("[server]\nview_distance = 4\n", Path::new("emoted.toml"))
        .expect("valid config");
    let mut app = App::new();
    app.insert_resource(config)
        .insert_resource(KeepaliveSettings {
            period: Duration::from_secs(24 * 3600),
        })
        .insert_resource(EmoteLibrary(crate::library::Library::default()))
        .add_plugins(DefaultPlugins.build().disable::<NetworkPlugin>())
        .add_plugins(crate::server::world::FlatWorldPlugin)
        .init_resource::<ChannelPlays>()
        .add_systems(
            Update,
            (
                give_channel_budgets,
                handle_channel_messages,
                follow_reach_of_plays,
            )
                .chain(),
        );
    app.update();
    let (alice, _alice_helper) = create_mock_client("alice");
    let alice = app.world.spawn(alice).id();
    let (bob, bob_helper) = create_mock_client("bob");
    let bob = app.world.spawn(bob).id();
    app.update();
    app.world.get_mut::<Position>(alice).expect("alice").0 = DVec3::new(0.0, 64.0, 0.0);
    app.world.get_mut::<Position>(bob).expect("bob").0 = DVec3::new(200.0, 64.0, 0.0);
    (app, alice, bob, bob_helper)
}

#[test]
fn a_hello_is_answered_and_makes_a_bone_viewer_and_anything_else_is_dropped() {
    let (mut app, _, bob, mut helper) = app_with_two();
    helper.clear_received();
    // A PLAY is not a client's message, and two bytes are not a HELLO.
    say(&mut helper, &[1, 1, 0]);
    say(&mut helper, &[1, 0]);
    app.update();
    assert!(received(&mut helper).is_empty());
    assert!(app.world.get::<AnimationChannelClient>(bob).is_none());
    // A HELLO naming version 4: the answer speaks 1, with both caps.
    say(&mut helper, &[1, 0, 4]);
    app.update();
    assert_eq!(received(&mut helper), [AnimationS2c::hello()]);
    assert_eq!(
        app.world.get::<AnimationChannelClient>(bob),
        Some(&AnimationChannelClient { version: 1 })
    );
    assert!(app.world.get::<BoneViewer>(bob).is_some());
    // Again: answered again.
    say(&mut helper, &[1, 0, 1]);
    app.update();
    assert_eq!(received(&mut helper), [AnimationS2c::hello()]);
}

#[test]
fn more_than_twenty_messages_in_a_second_are_dropped() {
    let (mut app, _, _, mut helper) = app_with_two();
    helper.clear_received();
    // 25 HELLOs in one tick (one second): the first 20 are answered.
    for _ in 0..25 {
        say(&mut helper, &[1, 0, 1]);
    }
    app.update();
    assert_eq!(received(&mut helper).len(), 20);
}

/// A 40-tick Animation's channel form, with no bones.
fn animation() -> Arc<BedrockAnimation> {
    Arc::new(BedrockAnimation {
        uuid: Uuid::from_u128(7),
        name: "animation.test".into(),
        json: "{}".into(),
        sync_cycle_ticks: None,
    })
}

#[test]
fn a_channel_client_gets_a_play_on_coming_into_reach_and_a_stop_on_leaving() {
    let (mut app, alice, bob, mut helper) = app_with_two();
    say(&mut helper, &[1, 0, 1]);
    app.update();
    helper.clear_received();
    let started = app.world.resource::<Server>().current_tick();
    let alice_uuid = app.world.get::<UniqueId>(alice).expect("uuid").0;
    app.world.resource_mut::<ChannelPlays>().0.insert(
        alice,
        ChannelPlay {
            id: EmoteId::parse("test:raise").expect("an id"),
            animation: animation(),
            player: alice_uuid,
            started_at_tick: started,
            held_at_tick: None,
            sent_to: HashSet::new(),
        },
    );
    let ticks = |app: &mut App, n: i64| (0..n).for_each(|_| app.update());
    ticks(&mut app, CHECK_EVERY_TICKS + 1);
    assert!(received(&mut helper).is_empty(), "out of reach");
    // Bob walks up: a PLAY at the tick reached, then nothing more.
    app.world.get_mut::<Position>(bob).expect("bob").0 = DVec3::new(20.0, 64.0, 0.0);
    ticks(&mut app, CHECK_EVERY_TICKS + 1);
    let got = received(&mut helper);
    let [AnimationS2c::Play(play)] = got.as_slice() else {
        panic!("one PLAY: {got:?}");
    };
    assert_eq!(
        (play.player, play.animation),
        (alice_uuid, Uuid::from_u128(7))
    );
    // Sent at a check: a multiple of 10 ticks, between 12 and 22 after start.
    let reached = i64::from(play.start_tick);
    assert!((12..=22).contains(&reached), "{reached}");
    ticks(&mut app, 3 * CHECK_EVERY_TICKS);
    assert!(received(&mut helper).is_empty(), "sent once");
    // He leaves: a STOP naming the same player and animation.
    app.world.get_mut::<Position>(bob).expect("bob").0 = DVec3::new(300.0, 64.0, 0.0);
    ticks(&mut app, CHECK_EVERY_TICKS + 1);
    assert_eq!(
        received(&mut helper),
        [AnimationS2c::Stop {
            player: alice_uuid,
            animation: Uuid::from_u128(7)
        }]
    );
}

#[test]
fn a_hello_while_someone_plays_nearby_gets_the_play_at_once() {
    let (mut app, alice, bob, mut helper) = app_with_two();
    app.world.get_mut::<Position>(bob).expect("bob").0 = DVec3::new(5.0, 64.0, 0.0);
    let now = app.world.resource::<Server>().current_tick();
    app.world.resource_mut::<ChannelPlays>().0.insert(
        alice,
        ChannelPlay {
            id: EmoteId::parse("test:raise").expect("an id"),
            animation: animation(),
            player: Uuid::from_u128(1),
            // Started 30 ticks before the HELLO is read (the server's
            // tick moves on after the update).
            started_at_tick: now - 30,
            held_at_tick: None,
            sent_to: HashSet::new(),
        },
    );
    helper.clear_received();
    say(&mut helper, &[1, 0, 1]);
    app.update();
    let got = received(&mut helper);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0], AnimationS2c::hello());
    let AnimationS2c::Play(play) = &got[1] else {
        panic!("a PLAY: {got:?}");
    };
    assert_eq!(play.start_tick, 30);
}
