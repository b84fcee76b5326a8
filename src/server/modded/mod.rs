//! Modded clients on the server: Emotecraft's `emotecraft:emote` channel
//! (issue 16). The wire format is [`crate::modded::emotecraft`]'s; this
//! plugin registers the channel, answers the handshake and relays.
//!
//! # The model
//!
//! - **At join** every client is told the server speaks the channel (a
//!   `minecraft:register` message naming it). A vanilla client ignores it.
//! - **CONFIG.** A modded client answers with its versions map; the player
//!   gets an [`EmotecraftClient`] and the server's own map back
//!   ([`server_config`]): no songs, and "the server tracks play state", so
//!   the client stops sending repeats aimed at single players.
//! - **STREAM and STOP** from a modded player go to every other modded
//!   player in the same world within the view distance, with sub-packet 1
//!   set to the sender's UUID (clients refuse a STREAM without a player;
//!   what a client put there is a repeat's target, which the server
//!   ignores since it tracks play state). The rest of the packet is passed
//!   as it came, unknown sub-packets included. Nothing is sent to a player
//!   who did not answer CONFIG, so vanilla players never get the channel.
//! - **Bad input.** A message over [`MAX_FROM_CLIENT_BYTES`], one that does
//!   not read, or one past [`MESSAGES_PER_SECOND`] is dropped with one log
//!   line (the rate limit logs once per second per player); the sender
//!   stays connected.
//!
//! Left for later slices of issue 16: remembering a STREAM for players who
//! arrive while it plays, drawing modded players' emotes with display
//! entities for vanilla players, sending the server's own emotes as bones
//! and FILE packets.

use valence::custom_payload::CustomPayloadEvent;
use valence::ident::ident;
use valence::prelude::*;

use crate::modded::emotecraft::{
    read_discovery, server_config, EmotePacket, Purpose, CHANNEL, MAX_FROM_CLIENT_BYTES,
    SUB_DISCOVERY,
};
use crate::server::config::Config;

/// Messages a player may send on the channel in one second (20 ticks);
/// more are dropped.
pub const MESSAGES_PER_SECOND: u32 = 20;

/// Registers Emotecraft's channel, answers its handshake and relays.
pub struct EmotecraftPlugin;

impl Plugin for EmotecraftPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Config>().add_systems(
            Update,
            (announce_the_channel, handle_emotecraft_messages).chain(),
        );
    }
}

/// On a player whose client answered Emotecraft's CONFIG.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct EmotecraftClient {
    /// The versions map the client sent (sub-packet id → version).
    pub versions: Vec<(u8, u8)>,
}

/// A player's use of the channel in the current second.
#[derive(Component, Clone, Copy, Debug, Default)]
struct ChannelBudget {
    second: i64,
    messages: u32,
}

fn announce_the_channel(
    mut commands: Commands,
    mut joined: Query<(Entity, &mut Client), Added<Client>>,
) {
    for (player, mut client) in &mut joined {
        client.send_custom_payload(ident!("minecraft:register"), CHANNEL.as_bytes());
        commands.entity(player).insert(ChannelBudget::default());
    }
}

/// The players a message may reach.
type Players<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut Client,
        &'static UniqueId,
        &'static Username,
        &'static Position,
        &'static VisibleChunkLayer,
        Option<&'static EmotecraftClient>,
        Option<&'static mut ChannelBudget>,
    ),
>;

fn handle_emotecraft_messages(
    mut messages: EventReader<CustomPayloadEvent>,
    mut commands: Commands,
    config: Res<Config>,
    server: Res<Server>,
    mut players: Players,
) {
    let second = server.current_tick() / 20;
    let reach_blocks = f64::from(config.server.view_distance) * 16.0;
    for message in messages.iter() {
        if message.channel.as_str() != CHANNEL {
            continue;
        }
        let Ok((sender, mut client, uuid, name, position, layer, modded, budget)) =
            players.get_mut(message.client)
        else {
            continue;
        };
        if let Some(mut budget) = budget {
            if budget.second != second {
                *budget = ChannelBudget {
                    second,
                    messages: 0,
                };
            }
            budget.messages += 1;
            if budget.messages > MESSAGES_PER_SECOND {
                if budget.messages == MESSAGES_PER_SECOND + 1 {
                    tracing::warn!(
                        "{}: more than {MESSAGES_PER_SECOND} {CHANNEL} messages in a second; \
                         the rest of this second's are dropped",
                        name.0
                    );
                }
                continue;
            }
        }
        let mut packet = match EmotePacket::read(&message.data, MAX_FROM_CLIENT_BYTES) {
            Ok(packet) => packet,
            Err(e) => {
                tracing::warn!("{}: dropped a message on {CHANNEL}: {e}", name.0);
                continue;
            }
        };
        match packet.purpose {
            Purpose::Config => {
                let versions = match packet
                    .sub(SUB_DISCOVERY)
                    .map(|s| read_discovery(&s.payload))
                {
                    Some(Ok(versions)) => versions,
                    Some(Err(e)) => {
                        tracing::warn!("{}: dropped a CONFIG on {CHANNEL}: {e}", name.0);
                        continue;
                    }
                    None => Vec::new(),
                };
                client.send_custom_payload(ident!("emotecraft:emote"), &server_config().write());
                commands
                    .entity(sender)
                    .insert(EmotecraftClient { versions });
            }
            Purpose::Stream | Purpose::Stop if modded.is_some() => {
                packet.set_player(uuid.0, false);
                let bytes = packet.write();
                let (from, world) = (position.0, layer.0);
                let viewers: Vec<Entity> = players
                    .iter()
                    .filter(|(viewer, _, _, _, p, l, modded, _)| {
                        *viewer != sender
                            && modded.is_some()
                            && l.0 == world
                            && p.0.distance(from) <= reach_blocks
                    })
                    .map(|(viewer, ..)| viewer)
                    .collect();
                for viewer in viewers {
                    if let Ok((_, mut client, ..)) = players.get_mut(viewer) {
                        client.send_custom_payload(ident!("emotecraft:emote"), &bytes);
                    }
                }
            }
            purpose => tracing::debug!(
                "{}: ignored a {CHANNEL} message ({purpose:?}{})",
                name.0,
                if modded.is_none() {
                    ", before CONFIG"
                } else {
                    ""
                }
            ),
        }
    }
}
