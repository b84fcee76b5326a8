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
//! - **Late arrivals.** The server keeps each modded player's last STREAM
//!   while it plays ([`RelayedStreams`]): until their STOP, until they
//!   leave, or, for an emote that does not loop, until its `endTick` has
//!   passed. A modded player whose CONFIG comes while it plays gets it
//!   then, with its start tick moved on by the ticks already played, so it
//!   joins at the current tick. A STREAM whose emote does not read as an
//!   animation binary v2 is relayed but not kept (its end is unknown).
//!
//! - **Walking into reach.** A modded player who comes within the view
//!   distance of a kept STREAM's player (or into their world) gets it at
//!   its current tick; one who leaves reach is forgotten, so coming back
//!   sends it again (`reach.rs`, checked twice a second).
//! - **The server's own emotes** reach modded players as bones
//!   (`stream.rs`; a controller as its held form, `held.rs`), and go into their own wheel as FILE packets after
//!   their CONFIG (`files.rs`).
//!
//! - **One form per viewer.** A modded player is a [`BoneViewer`]: the
//!   body of a bone-drawn emote reaches them as bones only
//!   ([`crate::server::emote`]'s `bone_view`, [`crate::server::cull`]).
//!   A client that speaks both Emotecraft's channel and
//!   `emoted:animation` gets the server's emotes on `emoted:animation`
//!   only: it is emoted's own, carries more (Molang, any bone layout) and
//!   is what such a client asked for on purpose. From its HELLO on, no
//!   STREAM of a server emote goes to it, and one it already has is
//!   stopped (`stop_streams_of_animation_clients`). Other Emotecraft
//!   players' own emotes still reach it on Emotecraft's channel: that is
//!   the only form they have.
//!
//! - **A modded player's own emotes** are drawn for vanilla players with
//!   display entities on the humanoid rig in their skin (`draw.rs`).

pub mod animation_channel;
mod draw;
mod files;
mod framed;
mod held;
mod reach;
mod stream;

pub use draw::{client_emote_id, DRAW_EVERY_TICKS, MAX_DRAWN_TICKS};
pub use held::{HeldForm, HeldForms};
pub use stream::{BoneAnimations, StreamedEmote};
use valence::custom_payload::CustomPayloadEvent;
use valence::ident::ident;
use valence::prelude::*;

use std::collections::{HashMap, HashSet};

use crate::modded::emotecraft::animation::read_emote;
use crate::modded::emotecraft::{
    read_discovery, server_config, EmotePacket, Purpose, CHANNEL, MAX_FROM_CLIENT_BYTES,
    SUB_DISCOVERY, SUB_EMOTE,
};
use crate::server::config::Config;
use crate::server::counters::ServerCounters;
use crate::server::emote_library::ClientEmotes;
use crate::server::events::{add_shared_events, BoneViewer};

/// Messages a player may send on the channel in one second (20 ticks);
/// more are dropped.
pub const MESSAGES_PER_SECOND: u32 = 20;

/// At most one STREAM of the same emote per this many ticks (a solved
/// head that turned, a controller's blend that moved).
pub(super) const RESTREAM_MIN_TICKS: i64 = 20;

/// Registers Emotecraft's channel, answers its handshake and relays.
pub struct EmotecraftPlugin;

impl Plugin for EmotecraftPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app)
            .add_plugins(animation_channel::AnimationChannelPlugin)
            .init_resource::<Config>()
            .init_resource::<RelayedStreams>()
            .init_resource::<stream::BoneAnimations>()
            .init_resource::<held::HeldForms>()
            .init_resource::<draw::ClientEmoteInbox>()
            .init_resource::<draw::LastDrawn>()
            .init_resource::<ClientEmotes>()
            .add_systems(
                Update,
                (
                    announce_the_channel,
                    handle_emotecraft_messages,
                    stream::stop_streams_of_animation_clients,
                    held::hold_controller_forms,
                    stream::stream_server_emotes,
                    reach::catch_up_in_reach,
                    files::send_emote_files,
                    draw::draw_client_emotes,
                )
                    .chain(),
            );
    }
}

/// On a player whose client answered Emotecraft's CONFIG.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct EmotecraftClient {
    /// The versions map the client sent (sub-packet id → version).
    pub versions: Vec<(u8, u8)>,
}

/// The STREAM each modded player plays now, as relayed (with their UUID),
/// for players who arrive while it plays (see the module docs).
#[derive(Resource, Default, Debug)]
pub struct RelayedStreams(HashMap<Entity, RelayedStream>);

/// One kept STREAM.
#[derive(Clone, Debug)]
struct RelayedStream {
    packet: EmotePacket,
    /// Its start tick as sent.
    start_tick: i32,
    /// The server tick it was relayed at.
    relayed_at_tick: i64,
    /// Ticks after which it has ended by itself (`None`: it loops).
    lasts_ticks: Option<i64>,
    /// The modded players who have it now (sent, and in reach since).
    sent_to: HashSet<Entity>,
    /// A server emote's STREAM ([`stream`]), not a relayed one: clients on
    /// `emoted:animation` get it there instead.
    server_emote: bool,
}

impl RelayedStream {
    /// The stream as it stands `now`, or `None` once it has ended.
    fn at(&self, now: i64) -> Option<EmotePacket> {
        let played = now - self.relayed_at_tick;
        if self.lasts_ticks.is_some_and(|lasts| played > lasts) {
            return None;
        }
        let mut packet = self.packet.clone();
        let tick = i64::from(self.start_tick) + played;
        packet.set_start_tick(i32::try_from(tick).unwrap_or(i32::MAX));
        Some(packet)
    }
}

/// How far a player's emote reaches modded players: their world, within
/// the view distance.
#[derive(Clone, Copy, Debug)]
struct Reach {
    blocks: f64,
}

impl Reach {
    /// The reach the configuration's view distance gives.
    fn of(config: &Config) -> Reach {
        Reach {
            blocks: f64::from(config.server.view_distance) * 16.0,
        }
    }

    /// Whether a viewer at `at` (position, world) is in reach of a player
    /// at `from`.
    fn covers(self, from: (DVec3, Entity), at: (DVec3, Entity)) -> bool {
        from.1 == at.1 && from.0.distance(at.0) <= self.blocks
    }
}

/// What to keep of a STREAM relayed at `now`, if its emote reads.
fn kept(packet: &EmotePacket, now: i64) -> Option<RelayedStream> {
    let (start_tick, animation) = read_emote(&packet.sub(SUB_EMOTE)?.payload, 0).ok()?;
    let lasts_ticks = (!animation.is_looped)
        .then(|| i64::from(animation.end_tick.max(animation.stop_tick)) - i64::from(start_tick));
    Some(RelayedStream {
        packet: packet.clone(),
        start_tick,
        relayed_at_tick: now,
        lasts_ticks,
        sent_to: HashSet::new(),
        server_emote: false,
    })
}

/// A player's use of one channel in the current second.
#[derive(Clone, Copy, Debug, Default)]
struct MessageBudget {
    second: i64,
    messages: u32,
}

impl MessageBudget {
    /// Counts a message `player` sent on `channel` in `second`: false once
    /// the second holds more than [`MESSAGES_PER_SECOND`] (the first one
    /// over is logged, the rest of the second's are dropped in silence).
    fn admit(&mut self, second: i64, channel: &str, player: &str) -> bool {
        if self.second != second {
            *self = MessageBudget {
                second,
                messages: 0,
            };
        }
        self.messages += 1;
        if self.messages == MESSAGES_PER_SECOND + 1 {
            tracing::warn!(
                "{player}: more than {MESSAGES_PER_SECOND} {channel} messages in a second; \
                 the rest of this second's are dropped"
            );
        }
        self.messages <= MESSAGES_PER_SECOND
    }
}

/// The `reason` label of a message dropped for coming over
/// [`MESSAGES_PER_SECOND`].
pub const DROPPED_RATE: &str = "rate";
/// The `reason` label of a message dropped because it could not be read.
pub const DROPPED_MALFORMED: &str = "malformed";

/// Counts a dropped plugin message, when the server counts.
fn count_drop(counters: &Option<Res<ServerCounters>>, channel: &'static str, reason: &'static str) {
    if let Some(counters) = counters {
        counters.plugin_message_dropped(channel, reason);
    }
}

/// A player's budget on Emotecraft's channel.
#[derive(Component, Clone, Copy, Debug, Default)]
struct ChannelBudget(MessageBudget);

fn announce_the_channel(
    mut commands: Commands,
    mut joined: Query<(Entity, &mut Client), Added<Client>>,
) {
    for (player, mut client) in &mut joined {
        client.send_custom_payload(
            ident!("minecraft:register"),
            format!("{CHANNEL}\0{}", crate::modded::animation_channel::CHANNEL).as_bytes(),
        );
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
    mut streams: ResMut<RelayedStreams>,
    mut players: Players,
    mut inbox: ResMut<draw::ClientEmoteInbox>,
    counters: Option<Res<ServerCounters>>,
) {
    let now = server.current_tick();
    let second = now / 20;
    let reach = Reach::of(&config);
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
            if !budget.0.admit(second, CHANNEL, &name.0) {
                count_drop(&counters, CHANNEL, DROPPED_RATE);
                continue;
            }
        }
        let mut packet = match EmotePacket::read(&message.data, MAX_FROM_CLIENT_BYTES) {
            Ok(packet) => packet,
            Err(e) => {
                tracing::warn!("{}: dropped a message on {CHANNEL}: {e}", name.0);
                count_drop(&counters, CHANNEL, DROPPED_MALFORMED);
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
                        count_drop(&counters, CHANNEL, DROPPED_MALFORMED);
                        continue;
                    }
                    None => Vec::new(),
                };
                client.send_custom_payload(ident!("emotecraft:emote"), &server_config().write());
                // What modded players near them play now, at its current tick.
                let (here, world) = (position.0, layer.0);
                let mut catch_up = Vec::new();
                streams.0.retain(|owner, stream| {
                    let Ok((_, _, _, _, p, l, ..)) = players.get(*owner) else {
                        return false; // gone
                    };
                    let Some(packet) = stream.at(now) else {
                        return false; // ended
                    };
                    if *owner != sender && reach.covers((p.0, l.0), (here, world)) {
                        catch_up.push(packet.write());
                        stream.sent_to.insert(sender);
                    }
                    true
                });
                if let Ok((_, mut client, ..)) = players.get_mut(sender) {
                    for bytes in catch_up {
                        client.send_custom_payload(ident!("emotecraft:emote"), &bytes);
                    }
                }
                commands
                    .entity(sender)
                    .insert((EmotecraftClient { versions }, BoneViewer));
            }
            Purpose::Stream | Purpose::Stop if modded.is_some() => {
                packet.set_player(uuid.0, false);
                let bytes = packet.write();
                // Also drawn for vanilla players (`draw.rs`).
                let drawn = match packet.purpose {
                    Purpose::Stream => packet
                        .sub(SUB_EMOTE)
                        .and_then(|s| read_emote(&s.payload, 0).ok())
                        .map(|(_, animation)| draw::ClientEmoteMessage::Stream {
                            player: sender,
                            uuid: uuid.0,
                            name: name.0.clone(),
                            animation: Box::new(animation),
                        }),
                    _ => Some(draw::ClientEmoteMessage::Stop {
                        player: sender,
                        uuid: uuid.0,
                    }),
                };
                inbox.0.extend(drawn);
                match packet.purpose {
                    Purpose::Stream => match kept(&packet, now) {
                        Some(stream) => {
                            streams.0.insert(sender, stream);
                        }
                        None => {
                            streams.0.remove(&sender);
                        }
                    },
                    _ => {
                        streams.0.remove(&sender);
                    }
                }
                let (from, world) = (position.0, layer.0);
                let viewers: Vec<Entity> = players
                    .iter()
                    .filter(|(viewer, _, _, _, p, l, modded, _)| {
                        *viewer != sender
                            && modded.is_some()
                            && reach.covers((from, world), (p.0, l.0))
                    })
                    .map(|(viewer, ..)| viewer)
                    .collect();
                if let Some(stream) = streams.0.get_mut(&sender) {
                    stream.sent_to.extend(viewers.iter().copied());
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modded::emotecraft::animation::{emote_payload, BoneAnimation};
    use crate::modded::emotecraft::SubPacket;

    fn stream(looped: bool) -> EmotePacket {
        let animation = BoneAnimation {
            begin_tick: 0,
            end_tick: 40,
            stop_tick: 43,
            is_looped: looped,
            return_tick: 0,
            easing_before: true,
            nsfw: false,
            parts: Vec::new(),
            uuid: Uuid::from_u128(9),
        };
        EmotePacket::new(
            Purpose::Stream,
            vec![SubPacket {
                id: SUB_EMOTE,
                version: 2,
                payload: emote_payload(5, &animation),
            }],
        )
    }

    #[test]
    fn a_kept_stream_moves_on_and_ends_unless_it_loops() {
        let once = kept(&stream(false), 100).expect("reads");
        assert_eq!(once.at(130).and_then(|p| p.start_tick()), Some(35));
        // stop tick 43, from start tick 5: 38 ticks.
        assert!(once.at(138).is_some());
        assert!(once.at(139).is_none());
        let looping = kept(&stream(true), 100).expect("reads");
        assert_eq!(
            looping.at(10_100).and_then(|p| p.start_tick()),
            Some(10_005)
        );
        // An emote that does not read is not kept.
        let mut broken = stream(true);
        broken.subs[0].payload.truncate(10);
        assert!(kept(&broken, 0).is_none());
    }
}
