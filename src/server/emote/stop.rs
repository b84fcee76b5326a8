//! Ending playbacks: stop requests, death, a change of world, leaving,
//! and displays whose playback is gone.

use valence::prelude::*;

use super::active::*;
use super::duo_state::*;
use super::send::send_due;
use crate::server::events::{
    EmoteCommandEvent, EmoteDisplay, EmoteEndedEvent, EndReason, PlayerDiedEvent, StopEmoteRequest,
};

/// Ends a playback's effects on the world: its `stop` events run (once), its
/// displays go, and the player's own entity layer is handed back when
/// `player.hidden` moved them (the caller restores it).
pub(super) fn wind_down(
    playback: &mut ActiveEmote,
    player: Entity,
    commands: &mut Commands,
    out: &mut EventWriter<EmoteCommandEvent>,
) -> Option<Entity> {
    stop_segment(playback, player, out);
    despawn_displays(commands, playback);
    playback.restore_layer.take()
}

/// Runs the `stop` events of the Animation playing now, once.
pub(super) fn stop_segment(
    playback: &mut ActiveEmote,
    player: Entity,
    out: &mut EventWriter<EmoteCommandEvent>,
) {
    let mut due = Vec::new();
    playback.state.fire_stop(&mut due);
    send_due(playback, player, &mut due, out);
}

pub(super) fn despawn_displays(commands: &mut Commands, playback: &mut ActiveEmote) {
    for entity in playback.display_entities() {
        if let Some(mut e) = commands.get_entity(entity) {
            e.insert(Despawned);
        }
    }
    playback.displays.clear();
    playback.pack_twins.clear();
}

pub(super) fn stop_requested_emotes(
    mut requests: EventReader<StopEmoteRequest>,
    mut commands: Commands,
    mut players: Query<(Option<&mut ActiveEmote>, &mut Client, &mut EntityLayerId)>,
    partners: Query<&EmotePartner>,
    mut ended: EventWriter<EmoteEndedEvent>,
    mut commands_out: EventWriter<EmoteCommandEvent>,
) {
    for request in requests.iter() {
        // A partner's stop ends the initiator's playback (for both), as
        // something that happened to the partner.
        let (target, reason) = match (partners.get(request.client), players.get(request.client)) {
            (Ok(partner), Ok((None, ..))) => (
                partner.initiator,
                EndReason::of_partner(request.reason.clone()),
            ),
            _ => (request.client, request.reason.clone()),
        };
        let Ok((playback, mut client, mut layer)) = players.get_mut(target) else {
            continue;
        };
        let Some(mut playback) = playback else {
            // Only the player's own stop is answered: a stop from someone
            // else, a command or a reload found nothing to stop either way.
            if reason == EndReason::Stopped {
                client.send_chat_message("You are not playing an emote.".color(Color::RED));
            }
            continue;
        };
        if let Some(original) = wind_down(&mut playback, target, &mut commands, &mut commands_out) {
            layer.0 = original;
        }
        // What the players are told: the feedback plugin.
        ended.send(EmoteEndedEvent {
            client: target,
            partner: playback.partner(),
            emote: playback.emote().clone(),
            reason,
        });
        commands.entity(target).remove::<(ActiveEmote, StopWatch)>();
    }
}

/// For each playback that failed (a Molang failure or its budget, or the
/// command cap), whichever path ended it: a chat line to the player with
/// the reason, and one warning in the log naming the player and the emote.
pub(super) fn report_failed_emotes(
    mut ended: EventReader<EmoteEndedEvent>,
    mut players: Query<(&Username, &mut Client)>,
) {
    for end in ended.iter() {
        let EndReason::Failed(message) = &end.reason else {
            continue;
        };
        let name = match players.get_mut(end.client) {
            Ok((name, mut client)) => {
                client.send_chat_message(format!("Emote stopped: {message}").color(Color::RED));
                name.0.as_str()
            }
            Err(_) => "a player",
        };
        tracing::warn!("stopped {name}'s emote {}: {message}", end.emote);
    }
}

/// Death and a change of world end a playback (as `/emote stop` would: its
/// `stop` events run and its displays go).
pub(super) fn end_emotes_of_dead_players(
    mut died: EventReader<PlayerDiedEvent>,
    moved: Query<Entity, (With<ActiveEmote>, Changed<VisibleChunkLayer>)>,
    mut stop: EventWriter<StopEmoteRequest>,
) {
    for death in died.iter() {
        stop.send(StopEmoteRequest {
            client: death.player,
            reason: EndReason::Died,
        });
    }
    for player in &moved {
        stop.send(StopEmoteRequest {
            client: player,
            reason: EndReason::LeftWorld,
        });
    }
}

pub(super) fn end_emotes_of_leaving_players(
    mut commands: Commands,
    mut left: RemovedComponents<Client>,
    mut players: Query<&mut ActiveEmote>,
    mut ended: EventWriter<EmoteEndedEvent>,
    mut commands_out: EventWriter<EmoteCommandEvent>,
) {
    for entity in left.iter() {
        if let Ok(mut playback) = players.get_mut(entity) {
            // The player is gone: no layer to restore.
            let _ = wind_down(&mut playback, entity, &mut commands, &mut commands_out);
            ended.send(EmoteEndedEvent {
                client: entity,
                partner: playback.partner(),
                emote: playback.emote().clone(),
                reason: EndReason::Left,
            });
            if let Some(mut e) = commands.get_entity(entity) {
                e.remove::<ActiveEmote>();
            }
        }
    }
}

/// Removes displays whose owner no longer plays them (a safety net: nothing
/// is ever left behind for a viewer).
pub(super) fn despawn_orphan_displays(
    mut commands: Commands,
    displays: Query<(Entity, &EmoteDisplay), Without<Despawned>>,
    owners: Query<&ActiveEmote>,
) {
    for (entity, display) in &displays {
        let owned = owners.get(display.owner).is_ok_and(|p| p.owns(entity));
        if !owned {
            commands.entity(entity).insert(Despawned);
        }
    }
}
