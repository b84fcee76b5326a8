//! Kept STREAMs for modded players who walk into reach: every
//! [`CHECK_EVERY_TICKS`] ticks, each kept stream ([`RelayedStreams`]) goes
//! to the modded players now within the view distance of its player, in
//! their world, who do not have it, at the tick it has reached; players
//! who are out of reach are struck off, so they get it again when they
//! come back (their client forgot the player when it left their view).
//! A server emote's stream skips clients on `emoted:animation`, which get
//! it there.

use valence::ident::ident;
use valence::prelude::bevy_ecs::query::Has;
use valence::prelude::*;

use super::animation_channel::AnimationChannelClient;
use super::{EmotecraftClient, Reach, RelayedStreams};
use crate::server::config::Config;

/// How often reach is checked: twice a second.
pub(super) const CHECK_EVERY_TICKS: i64 = 10;

/// Sends kept streams to modded players who came into reach (module docs).
pub(super) fn catch_up_in_reach(
    config: Res<Config>,
    server: Res<Server>,
    mut streams: ResMut<RelayedStreams>,
    owners: Query<(&Position, &VisibleChunkLayer)>,
    mut viewers: Query<
        (
            Entity,
            &mut Client,
            &Position,
            &VisibleChunkLayer,
            Has<AnimationChannelClient>,
        ),
        With<EmotecraftClient>,
    >,
) {
    let now = server.current_tick();
    if now % CHECK_EVERY_TICKS != 0 {
        return;
    }
    let reach = Reach::of(&config);
    streams.0.retain(|owner, stream| {
        let Ok((from, world)) = owners.get(*owner) else {
            return false; // gone
        };
        let Some(packet) = stream.at(now) else {
            return false; // ended
        };
        let mut bytes = None;
        for (viewer, mut client, at, layer, on_animation_channel) in &mut viewers {
            // A server emote reaches `emoted:animation` clients there only.
            let wanted = !(stream.server_emote && on_animation_channel);
            let in_reach =
                wanted && viewer != *owner && reach.covers((from.0, world.0), (at.0, layer.0));
            if !in_reach {
                stream.sent_to.remove(&viewer);
            } else if stream.sent_to.insert(viewer) {
                let bytes = bytes.get_or_insert_with(|| packet.write());
                client.send_custom_payload(ident!("emotecraft:emote"), bytes);
            }
        }
        true
    });
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use valence::keepalive::KeepaliveSettings;
    use valence::network::NetworkPlugin;
    use valence::protocol::packets::play::CustomPayloadS2c;
    use valence::protocol::Packet;
    use valence::testing::{create_mock_client, MockClientHelper};

    use super::super::{kept, EmotecraftPlugin};
    use super::*;
    use crate::modded::emotecraft::animation::BoneAnimation;
    use crate::modded::emotecraft::bones::stream_packet;
    use crate::modded::emotecraft::CHANNEL;

    /// Emotecraft messages the viewer got since the last look.
    fn streams_received(helper: &mut MockClientHelper) -> usize {
        helper
            .collect_received()
            .0
            .iter()
            .filter(|f| f.id == CustomPayloadS2c::ID)
            .filter(|f| {
                f.decode::<CustomPayloadS2c>()
                    .is_ok_and(|p| p.channel.as_str() == CHANNEL)
            })
            .count()
    }

    #[test]
    fn a_modded_player_gets_a_kept_stream_on_walking_into_reach_and_again_after_leaving() {
        let config = Config::parse("[server]\nview_distance = 4\n", Path::new("emoted.toml"))
            .expect("valid config");
        let mut app = App::new();
        app.insert_resource(config)
            .insert_resource(KeepaliveSettings {
                period: Duration::from_secs(24 * 3600),
            })
            .insert_resource(crate::server::emote_library::EmoteLibrary(
                crate::library::Library::default(),
            ))
            .add_plugins(DefaultPlugins.build().disable::<NetworkPlugin>())
            .add_plugins((crate::server::world::FlatWorldPlugin, EmotecraftPlugin));
        app.update();
        let (owner_bundle, _owner_helper) = create_mock_client("alice");
        let owner = app.world.spawn(owner_bundle).id();
        let (viewer_bundle, mut viewer) = create_mock_client("bob");
        let bob = app.world.spawn(viewer_bundle).id();
        app.update();
        app.world
            .entity_mut(bob)
            .insert(EmotecraftClient { versions: vec![] });
        // Bob starts 200 blocks away: out of a 4-chunk (64-block) reach.
        app.world.get_mut::<Position>(bob).expect("bob").0 = DVec3::new(200.0, 64.0, 0.0);
        app.world.get_mut::<Position>(owner).expect("alice").0 = DVec3::new(0.0, 64.0, 0.0);
        let animation = BoneAnimation {
            begin_tick: 0,
            end_tick: 40,
            stop_tick: 40,
            is_looped: true,
            return_tick: 0,
            easing_before: false,
            nsfw: false,
            parts: Vec::new(),
            uuid: uuid::Uuid::from_u128(7),
        };
        let now = app.world.resource::<Server>().current_tick();
        let stream = kept(&stream_packet(&animation, 0, uuid::Uuid::from_u128(1)), now)
            .expect("a stream that reads");
        app.world
            .resource_mut::<RelayedStreams>()
            .0
            .insert(owner, stream);
        let ticks = |app: &mut App, n: i64| (0..n).for_each(|_| app.update());
        ticks(&mut app, CHECK_EVERY_TICKS + 1);
        assert_eq!(streams_received(&mut viewer), 0, "out of reach");
        // Bob walks up: one STREAM within a check, and no second one.
        app.world.get_mut::<Position>(bob).expect("bob").0 = DVec3::new(20.0, 64.0, 0.0);
        ticks(&mut app, CHECK_EVERY_TICKS + 1);
        assert_eq!(streams_received(&mut viewer), 1, "walked into reach");
        ticks(&mut app, 3 * CHECK_EVERY_TICKS);
        assert_eq!(streams_received(&mut viewer), 0, "sent once");
        // He leaves and comes back: sent again.
        app.world.get_mut::<Position>(bob).expect("bob").0 = DVec3::new(300.0, 64.0, 0.0);
        ticks(&mut app, CHECK_EVERY_TICKS + 1);
        app.world.get_mut::<Position>(bob).expect("bob").0 = DVec3::new(10.0, 64.0, 0.0);
        ticks(&mut app, CHECK_EVERY_TICKS + 1);
        assert_eq!(streams_received(&mut viewer), 1, "back in reach");
    }
}
