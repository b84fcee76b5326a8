//! Two-player Sequences: the geometry of matching a partner to an open
//! offer and of placing both participants.
//!
//! The rules of `anchor-sequence-format.md` §8.4, with the choices where it
//! is silent:
//! - positions are the players' **feet**; "horizontal" is the x/z distance
//!   (at most [`MATCH_HORIZONTAL_BLOCKS`]) and "vertical" the y difference
//!   (at most [`MATCH_VERTICAL_BLOCKS`]);
//! - "faces the other" uses **yaw only**: the direction from one player to
//!   the other lies within [`MATCH_FACING_DEGREES`] of the player's yaw;
//! - line of sight is checked from the initiator's eyes to the partner's
//!   eyes: no opaque block on the segment (sampled every 0.1 block);
//! - both players must be alive and in the same world (chunk layer).
//!
//! Placements (`participants`): `~` offsets are world axes from the scene
//! origin, `^` offsets are left, up, forward of the initiator's yaw at the
//! match; `~N` angles are relative to the initiator's angles at the match.
//!
//! The flow, and the choices where the spec is silent:
//! - the first player to play a two-player Sequence opens an **offer**: the
//!   offer Animation loops (whatever its own mode) and partner content stays
//!   hidden; players within [`OFFER_ANNOUNCE_BLOCKS`] get a chat line with a
//!   clickable `[Join]` that runs the same command;
//! - a player who plays the same Sequence near an open offer **joins** it
//!   when the conditions hold (nearest initiator first); the joiner is
//!   reserved, told so, and plays nothing until the match; a joiner near an
//!   offer whose conditions fail is told why instead of opening an offer;
//! - the reservation is checked again when the offer's current cycle ends
//!   (or the timeout comes): then both players are teleported to their
//!   placements, the `matched` branch plays, the root stops following the
//!   initiator's yaw, and the partner gets the Sequence's cooldown, hidden
//!   setting and stop conditions; if the check fails the reservation is
//!   dropped and the offer stays open;
//! - when the timeout runs out with no match the `timeout` branch plays;
//! - either participant's stop condition, `/emote stop` or leaving ends the
//!   Sequence for both, with its `stop` events run once;
//! - events and Molang queries always refer to the initiator.

use valence::entity::living::Health;
use valence::math::DVec3;
use valence::prelude::*;

use super::active::*;
use super::duo_state::*;
use super::stop::stop_segment;
use crate::format::EmoteFile;
use crate::playback::partner::*;
use crate::playback::playing::*;
use crate::playback::session::PlayRefusal;
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::{EmoteCommandEvent, EndReason, PlayEmoteRequest, StopEmoteRequest};

/// Line of sight between two eyes in `layer`: no opaque block on the way.
pub(super) fn clear_sight(layer: Option<&ChunkLayer>, from: DVec3, to: DVec3) -> bool {
    let Some(layer) = layer else {
        return false;
    };
    sight_samples(from, to).all(|p| {
        let pos = BlockPos::new(p.x.floor() as i32, p.y.floor() as i32, p.z.floor() as i32);
        layer.block(pos).is_none_or(|b| !b.state.is_opaque())
    })
}

pub(super) fn stance(
    position: &Position,
    look: &Look,
    health: &Health,
    layer: &VisibleChunkLayer,
) -> Stance {
    Stance {
        position: position.0,
        yaw_degrees: look.yaw,
        alive: health.0 > 0.0,
        world: layer.0.to_bits(),
    }
}

/// Takes play requests for two-player Sequences that join an open offer.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub fn join_offers(
    mut requests: EventReader<PlayEmoteRequest>,
    mut joined: ResMut<JoinedThisTick>,
    library: Res<EmoteLibrary>,
    cooldowns: Res<EmoteCooldowns>,
    server: Res<Server>,
    mut offers: Query<(
        Entity,
        &mut ActiveEmote,
        &Position,
        &Look,
        &Health,
        &VisibleChunkLayer,
        &Username,
    )>,
    mut joiners: Query<(
        &Position,
        &Look,
        &Health,
        &VisibleChunkLayer,
        &mut Client,
        &UniqueId,
    )>,
    layers: Query<&ChunkLayer>,
) {
    joined.0.clear();
    let now = u64::try_from(server.current_tick()).unwrap_or(0);
    for request in requests.iter() {
        let Some(loaded) = library.0.get(request.emote.as_str()) else {
            continue;
        };
        let EmoteFile::Sequence(sequence) = &*loaded.file else {
            continue;
        };
        if !sequence.is_two_player() {
            continue;
        }
        let Ok((position, look, health, layer, _, uuid)) = joiners.get(request.client) else {
            continue;
        };
        let me = stance(position, look, health, layer);
        let my_uuid = uuid.0;
        let my_eyes = position.0 + DVec3::Y * EYE_HEIGHT;
        // Open offers of this Sequence nearby, nearest first.
        let mut nearby: Vec<(f64, Entity, Result<(), MatchRefusal>, String)> = offers
            .iter()
            .filter(|(e, playback, ..)| {
                *e != request.client
                    && *playback.emote() == request.emote
                    && playback.duo.as_ref().is_some_and(Duo::is_open)
            })
            .filter_map(|(e, _, p, l, h, vl, name)| {
                let distance = p.0.distance(me.position);
                if distance > OFFER_ANNOUNCE_BLOCKS || vl.0 != layer.0 {
                    return None;
                }
                let them = stance(p, l, h, vl);
                let eyes = p.0 + DVec3::Y * EYE_HEIGHT;
                let verdict = check_match(&them, &me, || {
                    clear_sight(layers.get(vl.0).ok(), eyes, my_eyes)
                });
                Some((distance, e, verdict, name.0.clone()))
            })
            .collect();
        nearby.sort_by(|a, b| a.0.total_cmp(&b.0));
        let Some(first) = nearby.first() else {
            continue; // no offer around: the request opens one
        };
        joined.0.insert(request.client);
        let Ok((.., mut client, _)) = joiners.get_mut(request.client) else {
            continue;
        };
        if !request.bypass {
            let left = cooldowns.0.remaining_ticks(&my_uuid, &request.emote, now);
            if left > 0 {
                let refusal = PlayRefusal::Cooldown {
                    id: request.emote.to_string(),
                    seconds: left as f64 / 20.0,
                };
                client.send_chat_message(refusal.to_string().color(Color::RED));
                continue;
            }
        }
        match nearby.iter().find(|(_, _, verdict, _)| verdict.is_ok()) {
            // The joiner's "Joining …" bar: the feedback plugin.
            Some((_, initiator, _, _)) => {
                if let Ok((_, mut playback, ..)) = offers.get_mut(*initiator) {
                    if let Some(duo) = &mut playback.duo {
                        duo.state = DuoState::Offering {
                            reserved: Some(request.client),
                        };
                    }
                }
            }
            None => {
                let (_, _, verdict, name) = first;
                if let Err(why) = verdict {
                    client.send_chat_message(
                        format!(
                            "You cannot join {name}'s {} yet: {why}.",
                            sequence.metadata.name
                        )
                        .color(Color::RED),
                    );
                }
            }
        }
    }
}

/// Runs offers: announces them, confirms reservations when the offer's
/// cycle ends, matches, and plays the timeout branch.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub fn run_offers(
    mut commands: Commands,
    server: Res<Server>,
    mut cooldowns: ResMut<EmoteCooldowns>,
    hidden_layer: Option<Res<HiddenPlayersLayer>>,
    mut initiators: Query<
        (
            Entity,
            &mut ActiveEmote,
            &mut Position,
            &mut Look,
            &Health,
            &VisibleChunkLayer,
            &Username,
        ),
        With<Client>,
    >,
    mut others: Query<
        (
            Entity,
            &mut Position,
            &mut Look,
            &mut Client,
            &Health,
            &VisibleChunkLayer,
            &mut EntityLayerId,
            &Username,
            &UniqueId,
        ),
        Without<ActiveEmote>,
    >,
    layers: Query<&ChunkLayer>,
    mut stop: EventWriter<StopEmoteRequest>,
    mut commands_out: EventWriter<EmoteCommandEvent>,
) {
    let now = u64::try_from(server.current_tick()).unwrap_or(0);
    for (initiator, mut playback, mut position, mut look, health, layer, name) in &mut initiators {
        let playback = &mut *playback;
        let Some(mut duo) = playback.duo.clone() else {
            continue;
        };
        let DuoState::Offering { reserved } = duo.state else {
            // A matched partner who left ends the Sequence.
            if let Some(partner) = duo.partner() {
                if others.get(partner).is_err() {
                    stop.send(StopEmoteRequest {
                        client: initiator,
                        reason: EndReason::of_partner(EndReason::Left),
                    });
                }
            }
            continue;
        };
        duo.waited_ticks += 1;
        let title = playback.state.name.clone();
        if duo.waited_ticks == 1 {
            // Tell the players around, with a button that runs the same command.
            let command = format!("/emote play {}", playback.state.emote);
            for (_, p, _, mut other_client, _, vl, ..) in &mut others {
                if vl.0 == layer.0 && p.0.distance(position.0) <= OFFER_ANNOUNCE_BLOCKS {
                    let line = format!("{} offers {}. ", name.0, title).color(Color::YELLOW)
                        + "[Join]"
                            .color(Color::GREEN)
                            .bold()
                            .on_click_run_command(command.clone())
                            .on_hover_show_text(format!("Runs {command}"));
                    other_client.send_chat_message(line);
                }
            }
        }
        let mut new_state = duo.state;
        if let Some(partner) = reserved {
            let due = duo.offer_cycle_ended || duo.waited_ticks >= duo.timeout_ticks;
            match others.get(partner) {
                Err(_) => new_state = DuoState::Offering { reserved: None },
                Ok(_) if !due => {}
                Ok((_, p_pos, p_look, _, p_health, p_layer, ..)) => {
                    let them = stance(p_pos, p_look, p_health, p_layer);
                    let me = stance(&position, &look, health, layer);
                    let eyes = position.0 + DVec3::Y * EYE_HEIGHT;
                    let their_eyes = p_pos.0 + DVec3::Y * EYE_HEIGHT;
                    let verdict = check_match(&me, &them, || {
                        clear_sight(layers.get(layer.0).ok(), eyes, their_eyes)
                    });
                    match verdict {
                        Ok(()) => new_state = DuoState::Matched { partner },
                        Err(why) => {
                            new_state = DuoState::Offering { reserved: None };
                            if let Ok((_, _, _, mut c, ..)) = others.get_mut(partner) {
                                c.send_chat_message(
                                    format!("The match with {} was lost: {why}.", name.0)
                                        .color(Color::RED),
                                );
                            }
                        }
                    }
                }
            }
        }
        match new_state {
            DuoState::Matched { partner } => {
                let Ok((_, mut p_pos, mut p_look, _, _, _, mut p_layer, _, p_uuid)) =
                    others.get_mut(partner)
                else {
                    continue;
                };
                let origin = playback.state.root_position();
                let root_yaw = playback.state.root_yaw_degrees();
                // Players within a few tenths of their places stay put when
                // the arms close the gap (IK); others are moved there.
                let ik = playback.state.reaches_for_partner();
                let (me_placed, move_me) = settle(
                    place(&duo.participants.initiator, origin, root_yaw, look.pitch),
                    position.0,
                    ik,
                );
                let (them_placed, move_them) = settle(
                    place(&duo.participants.partner, origin, root_yaw, look.pitch),
                    p_pos.0,
                    ik,
                );
                if move_me {
                    position.set(me_placed.position);
                    look.yaw = me_placed.yaw_degrees;
                    look.pitch = me_placed.pitch_degrees;
                }
                if move_them {
                    p_pos.set(them_placed.position);
                    p_look.yaw = them_placed.yaw_degrees;
                    p_look.pitch = them_placed.pitch_degrees;
                }
                let roots = SpaceRoots {
                    initiator: root_in_emote_frame(&me_placed, origin, root_yaw),
                    partner: Some(root_in_emote_frame(&them_placed, origin, root_yaw)),
                    mirror: true,
                };
                stop_segment(playback, initiator, &mut commands_out);
                duo.state = new_state;
                playback.duo = Some(duo.clone());
                playback.state.freeze_yaw();
                let steps = duo.matched.clone();
                if !playback.state.begin_branch(&steps, roots) {
                    stop.send(StopEmoteRequest {
                        client: initiator,
                        reason: EndReason::Finished,
                    });
                }
                // The partner's side: stop conditions, hidden, cooldown.
                let mut restore_layer = None;
                if let (true, Some(hidden)) = (playback.state.player_hidden, &hidden_layer) {
                    restore_layer = Some(p_layer.0);
                    p_layer.0 = hidden.0;
                }
                commands.entity(partner).insert((
                    EmotePartner {
                        initiator,
                        restore_layer,
                    },
                    StopWatch::new(playback.state.stop_conditions, them_placed.position),
                ));
                commands.entity(initiator).insert(StopWatch::new(
                    playback.state.stop_conditions,
                    me_placed.position,
                ));
                let cooldown = playback.state.cooldown_ticks;
                cooldowns
                    .0
                    .start(p_uuid.0, playback.state.emote.clone(), now, cooldown);
            }
            DuoState::Offering { .. } if duo.waited_ticks >= duo.timeout_ticks => {
                stop_segment(playback, initiator, &mut commands_out);
                duo.state = DuoState::Alone;
                playback.duo = Some(duo.clone());
                let steps = duo.timeout.clone();
                if !playback.state.begin_branch(&steps, SpaceRoots::OFFER) {
                    stop.send(StopEmoteRequest {
                        client: initiator,
                        reason: EndReason::Finished,
                    });
                }
            }
            state => {
                duo.state = state;
                playback.duo = Some(duo);
            }
        }
    }
}

/// The partner's side: its stop conditions end the Sequence for both, and
/// a partner whose Sequence ended is released.
#[allow(clippy::type_complexity)]
pub fn watch_partners(
    mut commands: Commands,
    mut partners: Query<
        (
            Entity,
            &EmotePartner,
            Option<&mut StopWatch>,
            &mut EntityLayerId,
        ),
        With<Client>,
    >,
    initiators: Query<&ActiveEmote>,
    mut stop: EventWriter<StopEmoteRequest>,
) {
    for (entity, partner, watch, mut layer) in &mut partners {
        let still_playing = initiators
            .get(partner.initiator)
            .is_ok_and(|p| p.duo.as_ref().and_then(Duo::partner) == Some(entity));
        if !still_playing {
            if let Some(original) = partner.restore_layer {
                layer.0 = original;
            }
            commands
                .entity(entity)
                .remove::<(EmotePartner, StopWatch)>();
            continue;
        }
        if let Some(reason) = watch.and_then(|mut w| w.check()) {
            stop.send(StopEmoteRequest {
                client: partner.initiator,
                reason: EndReason::of_partner(EndReason::Condition(reason)),
            });
        }
    }
}
