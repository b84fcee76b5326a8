//! emoted's own channel on the server, `emoted:animation` (issue 16): the
//! server's body emotes as Bedrock animation JSON for client mods other
//! than Emotecraft. The wire format and the JSON are
//! [`crate::modded::animation_channel`]'s; this plugin answers the
//! handshake and sends PLAY and STOP.
//!
//! # The model
//!
//! - **At join** the server's `minecraft:register` message names this
//!   channel beside Emotecraft's (`announce_the_channel`).
//! - **HELLO.** A client's HELLO is answered with the server's HELLO (the
//!   version and both caps); the player gets an [`AnimationChannelClient`]
//!   and is a [`BoneViewer`], so skin-bound displays of bone-drawn emotes
//!   are kept from them: their mod draws those emotes on the model. What
//!   plays near them then reaches them at once, at the tick it has reached.
//!   A second HELLO is answered again, and nothing more.
//! - **Bad input.** Anything else from a client (another kind, a message
//!   that does not read, one over 32 KiB, one past
//!   [`super::MESSAGES_PER_SECOND`] in a second) is dropped with one log line
//!   (the rate limit logs once a second per player); the client stays.
//! - **PLAY and STOP.** While a player plays a bone-drawn server emote
//!   ([`ActiveEmote::is_bone_drawn`]), every channel client in their world
//!   within the view distance (the player too, when they are one) has a
//!   PLAY of the Animation playing now (a Sequence's current step), with
//!   the player's UUID; when it ends or the Sequence moves on, those who
//!   have it get a STOP (and the next step's PLAY). A modded player's own
//!   emote is Emotecraft's to relay and does not come here.
//! - **Controllers.** A bone-drawn controller plays as its held form
//!   ([`super::held`]), under the controller's id; each time the form is
//!   sampled anew, those who have the PLAY get the new one, which replaces
//!   it (same animation UUID, no STOP between them).
//! - **Walking in and out of reach**, checked every [`CHECK_EVERY_TICKS`]
//!   ticks as for Emotecraft: a channel client who comes into reach gets
//!   the PLAY at the tick it has reached; one who leaves gets a STOP.
//! - **Ticks already played.** A PLAY says how far the Animation has
//!   played: its clock's ticks (a Sequence's step from the step's start),
//!   or for `server_sync` its place in the wall clock's cycle. So a
//!   client who arrives mid-emote, or a server whose first channel client
//!   comes while someone emotes, joins at the right moment.
//! - **The JSON** of an Animation is built once, the first time it plays,
//!   and kept until the library changes ([`BedrockAnimations`]), like
//!   Emotecraft's keys. One over [`MAX_TO_CLIENT_BYTES`] is not sent (a
//!   log line says so) and the emote reaches channel clients as nothing.
//!
//! While no channel client is online nothing is tracked.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use uuid::Uuid;
use valence::custom_payload::CustomPayloadEvent;
use valence::ident::ident;
use valence::prelude::bevy_ecs::query::Has;
use valence::prelude::*;

use super::framed::FramedPayload;
use super::held::HeldForms;
use super::{count_drop, MessageBudget, Reach, DROPPED_MALFORMED, DROPPED_RATE};
use crate::format::settings::PlaybackMode;
use crate::format::EmoteId;
use crate::modded::animation_channel::{
    bedrock_json, AnimationC2s, AnimationS2c, PlayAnimationS2c, CHANNEL, MAX_TO_CLIENT_BYTES,
};
use crate::modded::emotecraft::bones::emote_uuid;
use crate::server::config::Config;
use crate::server::counters::ServerCounters;
use crate::server::emote::ActiveEmote;
use crate::server::emote_library::{ClientEmotes, EmoteLibrary};
use crate::server::events::BoneViewer;

/// How often reach is checked: twice a second (as for Emotecraft).
pub const CHECK_EVERY_TICKS: i64 = 10;

/// Answers the channel's HELLO and sends the server's emotes on it.
pub struct AnimationChannelPlugin;

impl Plugin for AnimationChannelPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<BedrockAnimations>()
            .init_resource::<ChannelPlays>()
            .add_systems(
                Update,
                (
                    give_channel_budgets,
                    handle_channel_messages,
                    play_server_emotes,
                    follow_reach_of_plays,
                )
                    .chain()
                    .after(super::held::hold_controller_forms),
            );
    }
}

/// On a player whose client sent the channel's HELLO.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnimationChannelClient {
    /// The version the server answered with.
    pub version: u8,
}

/// One Animation as the channel sends it.
#[derive(Debug)]
pub struct BedrockAnimation {
    /// The UUID PLAY and STOP name it by (Emotecraft's for the same id).
    pub uuid: Uuid,
    /// The animation's name inside the JSON.
    pub name: String,
    /// The Bedrock animation file.
    pub json: String,
    /// For a `server_sync` Animation, its cycle (duration and loop delay):
    /// its place is the wall clock's tick modulo it.
    pub sync_cycle_ticks: Option<u64>,
}

impl BedrockAnimation {
    /// The animation of `id` with bone form `form`.
    fn of(id: &EmoteId, form: &crate::library::BoneForm) -> BedrockAnimation {
        let name = format!("animation.emoted.{}", id.as_str().replace([':', '/'], "."));
        let json = bedrock_json(form, &name).to_string();
        let sync_cycle_ticks = (form.mode == PlaybackMode::ServerSync)
            .then(|| u64::from(form.duration_ticks) + u64::from(form.loop_delay_ticks));
        BedrockAnimation {
            uuid: emote_uuid(id.as_str()),
            name,
            json,
            sync_cycle_ticks,
        }
    }

    /// The animation of `id` with bone form `form`, unless its PLAY would
    /// be over [`MAX_TO_CLIENT_BYTES`] (then a log line says so).
    fn within_cap(id: &EmoteId, form: &crate::library::BoneForm) -> Option<BedrockAnimation> {
        let built = BedrockAnimation::of(id, form);
        // A message of the JSON and 2 + 16 + 16 + 4 + 2 + 4 bytes more.
        let length = built.json.len() + built.name.len() + 44;
        if length > MAX_TO_CLIENT_BYTES {
            tracing::warn!(
                "{id}: its {CHANNEL} PLAY would be {length} bytes, more than the \
                 {MAX_TO_CLIENT_BYTES} allowed; channel clients will not get it"
            );
            return None;
        }
        Some(built)
    }

    /// The ticks of it that `active` has played: its clock's, or for a
    /// `server_sync` Animation its place in the wall clock's cycle.
    fn ticks_played(&self, active: &ActiveEmote) -> i64 {
        let played = match self.sync_cycle_ticks {
            Some(cycle) if cycle > 0 => {
                let unix_ms = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis());
                (unix_ms / 50 % u128::from(cycle)) as u64
            }
            _ => active.state.current.clock.elapsed_ticks(),
        };
        i64::try_from(played).unwrap_or(0)
    }

    /// Its PLAY for `player`, `start_tick` ticks in.
    fn play(&self, player: Uuid, start_tick: i64) -> Option<Vec<u8>> {
        let message = AnimationS2c::Play(PlayAnimationS2c {
            player,
            animation: self.uuid,
            start_tick: i32::try_from(start_tick).unwrap_or(i32::MAX),
            name: self.name.clone(),
            json: self.json.clone(),
        });
        match message.write() {
            Ok(bytes) => Some(bytes),
            Err(e) => {
                tracing::warn!("{}: not sent on {CHANNEL}: {e}", self.name);
                None
            }
        }
    }
}

/// Each Animation's channel form (`None`: it has no bone form, or its
/// JSON is over the cap), built on first use, forgotten when the library
/// changes.
#[derive(Resource, Default)]
pub struct BedrockAnimations(HashMap<EmoteId, Option<Arc<BedrockAnimation>>>);

impl BedrockAnimations {
    /// The channel form of Animation `id`, building it on first use.
    pub fn get(&mut self, library: &EmoteLibrary, id: &EmoteId) -> Option<Arc<BedrockAnimation>> {
        if let Some(known) = self.0.get(id) {
            return known.clone();
        }
        let built = library
            .0
            .get(id.as_str())
            .and_then(|loaded| BedrockAnimation::within_cap(id, loaded.bones.as_ref()?))
            .map(Arc::new);
        self.0.insert(id.clone(), built.clone());
        built
    }
}

/// What each player plays on the channel now, by player entity.
#[derive(Resource, Default)]
pub struct ChannelPlays(HashMap<Entity, ChannelPlay>);

/// One player's animation on the channel.
struct ChannelPlay {
    /// The Animation.
    id: EmoteId,
    /// Its channel form.
    animation: Arc<BedrockAnimation>,
    /// The player's UUID.
    player: Uuid,
    /// The server tick it started at.
    started_at_tick: i64,
    /// For a controller, the tick its held form was sampled at.
    held_at_tick: Option<i64>,
    /// The channel clients who have its PLAY.
    sent_to: HashSet<Entity>,
}

impl ChannelPlay {
    /// Its PLAY at `now`.
    fn play_at(&self, now: i64) -> Option<Vec<u8>> {
        self.animation
            .play(self.player, now.saturating_sub(self.started_at_tick))
    }

    /// Its STOP.
    fn stop(&self) -> Option<Vec<u8>> {
        let stop = AnimationS2c::Stop {
            player: self.player,
            animation: self.animation.uuid,
        };
        stop.write().ok()
    }
}

/// A player's messages on the channel in the current second.
#[derive(Component, Clone, Copy, Debug, Default)]
struct ChannelBudget(MessageBudget);

/// Gives each joining player their channel budget (before any message
/// of theirs is read, so the messages of one tick share it).
fn give_channel_budgets(mut commands: Commands, joined: Query<Entity, Added<Client>>) {
    for player in &joined {
        commands.entity(player).insert(ChannelBudget::default());
    }
}

/// Sends `bytes` on the channel to `viewer`.
fn send(clients: &mut Query<&mut Client>, viewer: Entity, bytes: &[u8]) {
    if let Ok(mut client) = clients.get_mut(viewer) {
        client.send_custom_payload(ident!("emoted:animation"), bytes);
    }
}

/// Where each player is: position and world.
type Placed<'w, 's> = Query<'w, 's, (&'static Position, &'static VisibleChunkLayer)>;

/// Reads what clients send on the channel (module docs).
#[allow(clippy::too_many_arguments)]
fn handle_channel_messages(
    mut messages: EventReader<CustomPayloadEvent>,
    mut commands: Commands,
    config: Res<Config>,
    server: Res<Server>,
    mut plays: ResMut<ChannelPlays>,
    mut senders: Query<(
        &Username,
        Option<&mut ChannelBudget>,
        Has<AnimationChannelClient>,
    )>,
    placed: Placed,
    mut clients: Query<&mut Client>,
    counters: Option<Res<ServerCounters>>,
) {
    let now = server.current_tick();
    let second = now / 20;
    let reach = Reach::of(&config);
    // Clients whose first HELLO came this tick (their component is not on yet).
    let mut greeted = HashSet::new();
    for message in messages.iter() {
        if message.channel.as_str() != CHANNEL {
            continue;
        }
        let sender = message.client;
        let Ok((name, budget, known)) = senders.get_mut(sender) else {
            continue;
        };
        // A player with no budget yet joined this tick: theirs comes next tick.
        if let Some(mut budget) = budget {
            if !budget.0.admit(second, CHANNEL, &name.0) {
                count_drop(&counters, CHANNEL, DROPPED_RATE);
                continue;
            }
        }
        let highest_version = match AnimationC2s::read(&message.data) {
            Ok(AnimationC2s::Hello { highest_version }) => highest_version,
            Err(e) => {
                tracing::warn!("{}: dropped a message on {CHANNEL}: {e}", name.0);
                count_drop(&counters, CHANNEL, DROPPED_MALFORMED);
                continue;
            }
        };
        let answer = AnimationS2c::hello();
        let AnimationS2c::Hello { version, .. } = answer else {
            continue;
        };
        if let Ok(bytes) = answer.write() {
            send(&mut clients, sender, &bytes);
        }
        if known || !greeted.insert(sender) {
            continue; // a second HELLO: answered, nothing more
        }
        tracing::debug!(
            "{}: reads {CHANNEL} up to version {highest_version}; speaking {version}",
            name.0
        );
        commands
            .entity(sender)
            .insert((AnimationChannelClient { version }, BoneViewer));
        // What plays near them now, at the tick it has reached.
        let Ok((here, world)) = placed.get(sender) else {
            continue;
        };
        for (owner, play) in &mut plays.0 {
            let Ok((from, owner_world)) = placed.get(*owner) else {
                continue;
            };
            if reach.covers((from.0, owner_world.0), (here.0, world.0)) {
                if let Some(bytes) = play.play_at(now) {
                    send(&mut clients, sender, &bytes);
                    play.sent_to.insert(sender);
                }
            }
        }
    }
}

/// A player whose emote may play on the channel.
type Player = (
    Entity,
    &'static UniqueId,
    &'static Position,
    &'static VisibleChunkLayer,
    Option<&'static ActiveEmote>,
);

/// Starts and stops each player's animation on the channel (module docs).
#[allow(clippy::too_many_arguments)]
fn play_server_emotes(
    library: Res<EmoteLibrary>,
    client_emotes: Res<ClientEmotes>,
    held_forms: Res<HeldForms>,
    mut animations: ResMut<BedrockAnimations>,
    config: Res<Config>,
    server: Res<Server>,
    mut plays: ResMut<ChannelPlays>,
    players: Query<Player>,
    viewers: Query<(Entity, &Position, &VisibleChunkLayer), With<AnimationChannelClient>>,
    mut clients: Query<&mut Client>,
) {
    if library.is_changed() {
        animations.0.clear();
    }
    if viewers.is_empty() && plays.0.is_empty() {
        return; // nobody to tell (see the module docs)
    }
    let now = server.current_tick();
    let reach = Reach::of(&config);
    for (player, uuid, position, layer, active) in &players {
        let active = active
            .filter(|a| a.is_bone_drawn() && client_emotes.0.get(a.emote().as_str()).is_none());
        let playing = active.map(|a| a.current_animation());
        let controlled = active.filter(|a| a.state.controller.is_some());
        let held = controlled.and_then(|_| held_forms.of(player));
        let held_at_tick = held.map(|h| h.sampled_at_tick);
        let kept = plays.0.get(&player);
        if kept.map(|p| (&p.id, p.held_at_tick)) == playing.map(|id| (id, held_at_tick)) {
            continue;
        }
        let old = plays.0.remove(&player);
        let wanted = match (active, controlled) {
            (Some(active), Some(_)) => held
                .and_then(|h| Some((h.form.as_ref()?, h.sampled_at_tick)))
                .and_then(|(form, at)| {
                    let built = BedrockAnimation::within_cap(active.emote(), form)?;
                    Some((Arc::new(built), at, active))
                }),
            (Some(active), None) => {
                animations
                    .get(&library, active.current_animation())
                    .map(|animation| {
                        let started = now - animation.ticks_played(active);
                        (animation, started, active)
                    })
            }
            _ => None,
        };
        let play = wanted.map(|(animation, started_at_tick, active)| ChannelPlay {
            id: active.current_animation().clone(),
            player: uuid.0,
            started_at_tick,
            held_at_tick,
            animation,
            sent_to: viewers
                .iter()
                .filter(|(_, at, world)| reach.covers((position.0, layer.0), (at.0, world.0)))
                .map(|(viewer, ..)| viewer)
                .collect(),
        });
        // Those who had the old one get its STOP, unless a PLAY of the
        // same animation replaces it for them (a controller's new form).
        if let Some(old) = old {
            let replaced_for = |viewer: &Entity| {
                play.as_ref().is_some_and(|p| {
                    p.animation.uuid == old.animation.uuid && p.sent_to.contains(viewer)
                })
            };
            if let Some(bytes) = old.stop() {
                for viewer in old.sent_to.iter().filter(|v| !replaced_for(v)) {
                    send(&mut clients, *viewer, &bytes);
                }
            }
        }
        let Some(mut play) = play else {
            continue;
        };
        match play.play_at(now) {
            Some(bytes) => {
                let framed = FramedPayload::new(&server, ident!("emoted:animation"), &bytes);
                for viewer in &play.sent_to {
                    if let Ok(mut client) = clients.get_mut(*viewer) {
                        framed.send_to(&mut client);
                    }
                }
            }
            None => play.sent_to.clear(),
        }
        plays.0.insert(player, play);
    }
    // Players who left: those who had their PLAY get a STOP.
    plays.0.retain(|owner, play| {
        if players.contains(*owner) {
            return true;
        }
        if let Some(bytes) = play.stop() {
            for viewer in &play.sent_to {
                send(&mut clients, *viewer, &bytes);
            }
        }
        false
    });
}

/// Sends PLAY to channel clients who came into reach and STOP to those
/// who left it (module docs).
fn follow_reach_of_plays(
    config: Res<Config>,
    server: Res<Server>,
    mut plays: ResMut<ChannelPlays>,
    placed: Placed,
    viewers: Query<Entity, With<AnimationChannelClient>>,
    mut clients: Query<&mut Client>,
) {
    let now = server.current_tick();
    if now % CHECK_EVERY_TICKS != 0 || plays.0.is_empty() {
        return;
    }
    let reach = Reach::of(&config);
    for (owner, play) in &mut plays.0 {
        let Ok((from, world)) = placed.get(*owner) else {
            continue; // gone: play_server_emotes stops it
        };
        // Viewers who are gone are struck off.
        play.sent_to.retain(|viewer| viewers.contains(*viewer));
        for viewer in &viewers {
            let in_reach = placed
                .get(viewer)
                .is_ok_and(|(at, layer)| reach.covers((from.0, world.0), (at.0, layer.0)));
            let has_it = play.sent_to.contains(&viewer);
            let bytes = match (in_reach, has_it) {
                (true, false) => play.play_at(now),
                (false, true) => play.stop(),
                _ => continue,
            };
            if let Some(bytes) = bytes {
                send(&mut clients, viewer, &bytes);
                if in_reach {
                    play.sent_to.insert(viewer);
                } else {
                    play.sent_to.remove(&viewer);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
