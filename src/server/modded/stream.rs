//! The server's own emotes to modded viewers: while a player plays an
//! Animation that has a bone form ([`crate::library::bones`]), every
//! Emotecraft player in the same world within the view distance gets it as
//! a STREAM with the player's UUID, and a STOP when it ends or is
//! stopped (a Sequence streams each of its steps in turn).
//!
//! A controller streams its held form ([`super::held`]), from its tick 0,
//! and again each time the form is sampled anew: a STREAM with the same
//! emote UUID replaces the one playing.
//!
//! Only a bone-drawn playback streams (every Animation it plays has a bone
//! form, [`crate::server::emote`]'s `bone_view`): modded viewers get no
//! display copies of its body, so they must get the bones.
//!
//! The STREAM is kept in [`RelayedStreams`] like a relayed one, so a
//! modded player whose CONFIG comes while it plays gets it at the tick it
//! has reached. A modded player who plays a server emote gets it too, as
//! Emotecraft's own server does for emotes it starts: their client plays
//! it on their own model. That copy, and its STOP, say `isForced`: the
//! server ends the emote (its stop conditions), and the client neither
//! stops it by itself nor tells the player it was blocked.
//!
//! A client that also speaks `emoted:animation` gets none of this: it has
//! the same emotes there (one form per viewer, see the plugin's docs).
//!
//! While no modded player is online nothing is tracked, so a server of
//! vanilla players pays nothing per tick for this. The first modded player
//! to come gets what plays then on the next tick, from its start (tick 0)
//! rather than from the tick it has reached.
//!
//! Bone forms are sampled when the library loads ([`crate::library`]);
//! their PlayerAnimator keyframes are built the first time an emote
//! streams and kept until the library changes. An emote whose bone form
//! cannot be sampled (a Molang failure, a load warning) has none, so it is
//! drawn with displays for everyone.

use std::collections::HashMap;
use std::sync::Arc;

use uuid::Uuid;
use valence::ident::ident;
use valence::prelude::*;

use super::animation_channel::AnimationChannelClient;
use super::framed::FramedPayload;
use super::held::HeldForms;
use super::{kept, EmotecraftClient, Reach, RelayedStreams, RESTREAM_MIN_TICKS};
use crate::anim::solve::LookAngles;
use crate::format::{EmoteFile, EmoteId};
use crate::modded::emotecraft::animation::BoneAnimation;
use crate::modded::emotecraft::bones::{bone_animation, emote_uuid, stream_packet};
use crate::modded::emotecraft::stop_packet;
use crate::playback::live::solved_bone_form;
use crate::server::config::Config;
use crate::server::emote::ActiveEmote;
use crate::server::emote_library::{ClientEmotes, EmoteLibrary};

/// Each Animation's bone form as PlayerAnimator keyframes (`None`: it has
/// none), built on first use, forgotten when the library changes.
#[derive(Resource, Default)]
pub struct BoneAnimations(HashMap<EmoteId, Option<Arc<BoneAnimation>>>);

impl BoneAnimations {
    /// The bone animation of Animation `id`, building it on first use.
    pub fn get(&mut self, library: &EmoteLibrary, id: &EmoteId) -> Option<Arc<BoneAnimation>> {
        if let Some(known) = self.0.get(id) {
            return known.clone();
        }
        let built = library.0.get(id.as_str()).and_then(|loaded| {
            let form = loaded.bones.as_ref()?;
            Some(Arc::new(bone_animation(form, emote_uuid(id.as_str()))))
        });
        self.0.insert(id.clone(), built.clone());
        built
    }
}

/// On a player whose emote streams to modded viewers now.
#[derive(Component, Clone, Debug)]
pub struct StreamedEmote {
    /// The Animation streamed.
    pub animation: EmoteId,
    /// The UUID its STREAM named.
    pub uuid: Uuid,
    /// The look (relative to the body) its solved pose was sampled with,
    /// for an Animation with solvers.
    pub look: Option<LookAngles>,
    /// The server tick it was streamed at.
    pub at_tick: i64,
    /// For a controller, the tick its held form was sampled at.
    pub held_at_tick: Option<i64>,
}

/// A look that moved this far from the one a STREAM was solved with sends
/// the emote again, solved with the new look, degrees.
pub(super) const RESTREAM_LOOK_DEGREES: f32 = 15.0;

/// The angle between two looks, the larger of yaw and pitch, degrees.
fn look_change_degrees(a: Option<LookAngles>, b: Option<LookAngles>) -> f32 {
    let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
    (a.yaw - b.yaw)
        .abs()
        .max((a.pitch - b.pitch).abs())
        .to_degrees()
}

/// The bone animation of a playback whose Animation has solvers: solved
/// with the inputs it has now (the look held), so modded viewers see the
/// head turned as vanilla viewers do.
fn solved_animation(library: &EmoteLibrary, active: &ActiveEmote) -> Option<Arc<BoneAnimation>> {
    let id = active.state.current_animation();
    let loaded = library.0.get(id.as_str())?;
    loaded.bones.as_ref()?;
    let (EmoteFile::Animation(file), Some(compiled)) = (&*loaded.file, &loaded.compiled) else {
        return None;
    };
    let form = solved_bone_form(
        compiled,
        file,
        &active.state.live_inputs,
        &active.state.roots,
    )
    .ok()
    .flatten()?;
    Some(Arc::new(bone_animation(&form, emote_uuid(id.as_str()))))
}

/// The Emotecraft clients the server's emotes stream to: those not on
/// `emoted:animation`.
type StreamViewer = (With<EmotecraftClient>, Without<AnimationChannelClient>);

/// The modded viewers of a player at `from` in `world`, but the player.
fn modded_viewers(
    viewers: &Query<(Entity, &Position, &VisibleChunkLayer), StreamViewer>,
    player: Entity,
    from: DVec3,
    world: Entity,
    reach: Reach,
) -> Vec<Entity> {
    viewers
        .iter()
        .filter(|(viewer, p, l)| *viewer != player && reach.covers((from, world), (p.0, l.0)))
        .map(|(viewer, ..)| viewer)
        .collect()
}

/// A player whose emote may stream.
type Streamer = (
    Entity,
    &'static UniqueId,
    &'static Position,
    &'static VisibleChunkLayer,
    Option<&'static ActiveEmote>,
    Option<&'static StreamedEmote>,
);

/// Starts and stops the STREAMs of the server's emotes (module docs).
#[allow(clippy::too_many_arguments)]
pub(super) fn stream_server_emotes(
    mut commands: Commands,
    library: Res<EmoteLibrary>,
    mut animations: ResMut<BoneAnimations>,
    held_forms: Res<HeldForms>,
    config: Res<Config>,
    server: Res<Server>,
    mut streams: ResMut<RelayedStreams>,
    players: Query<Streamer>,
    viewers: Query<(Entity, &Position, &VisibleChunkLayer), StreamViewer>,
    mut clients: Query<&mut Client>,
    client_emotes: Res<ClientEmotes>,
) {
    if library.is_changed() {
        animations.0.clear();
    }
    if viewers.is_empty() {
        return; // nobody to stream to (see the module docs)
    }
    let now = server.current_tick();
    let reach = Reach::of(&config);
    for (player, uuid, position, layer, active, streamed) in &players {
        // A modded player's own emote reaches modded viewers as they sent
        // it (the relay), not again from here.
        let active = active
            .filter(|a| a.is_bone_drawn() && client_emotes.0.get(a.emote().as_str()).is_none());
        let playing = active.map(|a| a.state.current_animation());
        let controlled = active.filter(|a| a.state.controller.is_some());
        let held = controlled.and_then(|_| held_forms.of(player));
        let solved = active.filter(|a| a.state.has_solvers() && controlled.is_none());
        let look = solved.and_then(|a| a.state.live_inputs.initiator.look);
        // The same Animation streams on, unless its solved head turned far
        // from what was streamed (sent again from the tick it reached), or
        // a controller's held form was sampled anew (sent from its start).
        let turned = streamed.is_some_and(|s| {
            solved.is_some()
                && look_change_degrees(s.look, look) > RESTREAM_LOOK_DEGREES
                && now - s.at_tick >= RESTREAM_MIN_TICKS
        });
        let held_at_tick = held.map(|h| h.sampled_at_tick);
        let reheld = streamed.is_some_and(|s| held.is_some() && s.held_at_tick != held_at_tick);
        let again = turned || reheld;
        if streamed.map(|s| &s.animation) == playing && !again {
            continue;
        }
        let wanted = playing.and_then(|id| {
            let animation = match (solved, held, controlled) {
                (Some(active), ..) => solved_animation(&library, active),
                (_, Some(held), Some(active)) => held.form.as_ref().map(|form| {
                    Arc::new(bone_animation(form, emote_uuid(active.emote().as_str())))
                }),
                (_, None, Some(_)) => None,
                _ => animations.get(&library, id),
            };
            Some((id, animation?))
        });
        let start_tick = if turned {
            solved.and_then(|a| a.state.position_ticks).unwrap_or(0) as i32
        } else {
            0
        };
        let around = modded_viewers(&viewers, player, position.0, layer.0, reach);
        // What the others get, and what the player gets if modded: the
        // same, with the player's copy forced (the server ends it).
        let mut to_others = Vec::new();
        let mut to_player = Vec::new();
        if let Some(old) = streamed.filter(|_| !again || wanted.is_none()) {
            if wanted.is_none() {
                let mut stop = stop_packet(old.uuid, uuid.0);
                to_others.push(stop.write());
                stop.set_player(uuid.0, true);
                to_player.push(stop.write());
            }
            streams.0.remove(&player);
        }
        match wanted {
            Some((id, animation)) => {
                let mut packet = stream_packet(&animation, start_tick, uuid.0);
                if let Some(mut stream) = kept(&packet, now) {
                    stream.server_emote = true;
                    stream.sent_to.extend(around.iter().copied());
                    streams.0.insert(player, stream);
                }
                to_others.push(packet.write());
                packet.set_player(uuid.0, true);
                to_player.push(packet.write());
                commands.entity(player).insert(StreamedEmote {
                    animation: id.clone(),
                    uuid: animation.uuid,
                    look,
                    at_tick: now,
                    held_at_tick,
                });
            }
            // An emote without a bone form: nothing to do unless one streamed.
            None if streamed.is_none() => continue,
            None => {
                commands.entity(player).remove::<StreamedEmote>();
            }
        }
        let channel = ident!("emotecraft:emote");
        let mut send = |viewer: Entity, messages: &[FramedPayload]| {
            if let Ok(mut client) = clients.get_mut(viewer) {
                for framed in messages {
                    framed.send_to(&mut client);
                }
            }
        };
        let framed = |messages: Vec<Vec<u8>>| {
            messages
                .iter()
                .map(|bytes| FramedPayload::new(&server, channel, bytes))
                .collect::<Vec<_>>()
        };
        let (to_others, to_player) = (framed(to_others), framed(to_player));
        for viewer in around {
            send(viewer, &to_others);
        }
        if viewers.contains(player) {
            send(player, &to_player);
        }
    }
}

/// A client that has just said HELLO on `emoted:animation` while it had a
/// server emote's STREAM on Emotecraft's channel: that STREAM is stopped
/// for it (it gets the emote on `emoted:animation` now) and it is struck
/// off, so reach does not send it again.
pub(super) fn stop_streams_of_animation_clients(
    mut streams: ResMut<RelayedStreams>,
    new_viewers: Query<Entity, (Added<AnimationChannelClient>, With<EmotecraftClient>)>,
    owners: Query<(&UniqueId, &StreamedEmote)>,
    mut clients: Query<&mut Client>,
) {
    for viewer in &new_viewers {
        for (owner, stream) in streams.0.iter_mut() {
            if !stream.server_emote || !stream.sent_to.remove(&viewer) {
                continue;
            }
            let (Ok((owner_uuid, streamed)), Ok(mut client)) =
                (owners.get(*owner), clients.get_mut(viewer))
            else {
                continue;
            };
            let stop = stop_packet(streamed.uuid, owner_uuid.0).write();
            client.send_custom_payload(ident!("emotecraft:emote"), &stop);
        }
    }
}
