//! Starting a playback: the checks of [`prepare`] (cooldown, standalone,
//! something to play), then the server's own (the display cap, an open
//! two-player offer), and the displays spawned: one per display node (a
//! skin-bound node gets a second one later, see [`super::twins`]).

use valence::prelude::*;

use super::active::*;
use super::bone_view::*;
use super::displays::*;
use super::duo_state::*;
use super::stop::*;
use crate::format::node::{NodeKind, Participant};
use crate::playback::session::{prepare, PlayRefusal, PlayRequest};
use crate::server::emote_library::{ClientEmotes, EmoteLibrary};
use crate::server::events::{
    BoneDrawn, DisplayAudience, EmoteCommandEvent, EmoteDisplay, EmoteEndedEvent, EndReason,
    PlayEmoteRequest,
};
use crate::server::resource_pack::PackStatus;
use crate::server::skin::PackSlices;

/// Players as [`start_requested_emotes`] reads them.
pub(super) type StartingPlayers<'w, 's> = Query<
    'w,
    's,
    (
        &'static Position,
        &'static Look,
        &'static mut EntityLayerId,
        &'static UniqueId,
        Option<&'static mut ActiveEmote>,
        &'static mut Client,
    ),
>;

/// Tells the player why `request` was refused, in chat, or for a quiet
/// request (an idle emote) in the log at debug level.
fn tell_refusal(client: &mut Client, request: &PlayEmoteRequest, refusal: &PlayRefusal) {
    if request.quiet {
        tracing::debug!("{}: not started: {refusal}", request.emote);
    } else {
        client.send_chat_message(refusal.to_string().color(Color::RED));
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn start_requested_emotes(
    mut requests: EventReader<PlayEmoteRequest>,
    mut commands: Commands,
    library: Res<EmoteLibrary>,
    server: Res<Server>,
    mut cooldowns: ResMut<EmoteCooldowns>,
    mut players: StartingPlayers,
    mut ended: EventWriter<EmoteEndedEvent>,
    existing_displays: Query<(), (With<EmoteDisplay>, Without<Despawned>)>,
    config: Res<crate::server::config::Config>,
    mut commands_out: EventWriter<EmoteCommandEvent>,
    hidden_layer: Option<Res<HiddenPlayersLayer>>,
    joined: Res<JoinedThisTick>,
    pack_slices: Option<Res<PackSlices>>,
    pack_statuses: Query<&PackStatus>,
    mut vanilla_hidden: ResMut<VanillaHiddenLayers>,
    client_emotes: Option<Res<ClientEmotes>>,
) {
    let pack_viewers =
        pack_slices.is_some() && pack_statuses.iter().any(|status| status.is_loaded());
    let molang_budget_ops = config.emotes.molang_budget_ops;
    let max_displays = config.emotes.max_active_display_entities;
    // Displays spawned through `commands` this tick are not in the query yet.
    let mut in_use = existing_displays.iter().count();
    for request in requests.iter() {
        if joined.0.contains(&request.client) {
            continue; // taken by an open two-player offer
        }
        let Ok((position, look, mut layer, uuid, active, mut client)) =
            players.get_mut(request.client)
        else {
            continue;
        };
        let play = PlayRequest {
            emote: &request.emote,
            bypass: request.bypass,
            player: uuid.0,
            now_tick: now_tick(&server),
            position: position.0,
            yaw_degrees: look.yaw,
            molang_budget_ops,
        };
        // A modded player's own emote is in its own library.
        let source = match &client_emotes {
            Some(client) if client.0.get(request.emote.as_str()).is_some() => &client.0,
            _ => &library.0,
        };
        let result = prepare(&play, source, &cooldowns.0);
        let prepared = match result {
            Ok(p) => p,
            Err(refusal) => {
                tell_refusal(&mut client, request, &refusal);
                continue;
            }
        };
        let duo = prepared.two_player.map(Duo::new);
        let mut playback = ActiveEmote::new(prepared.state, duo);
        playback.bone_drawn = is_bone_drawn(&playback.state, source);
        // The cap is checked before anything is spawned; a replaced emote's
        // displays are about to go.
        // Counted whenever a pack is served: they are added as soon as a
        // viewer loads it.
        let twin_count = if pack_slices.is_some() {
            playback.skins.len()
        } else {
            0
        };
        let needed = playback
            .state
            .union
            .kinds
            .iter()
            .filter(|k| !matches!(k, NodeKind::Anchor))
            .count()
            + twin_count;
        let freed = active.as_ref().map_or(0, |a| a.display_entities().count());
        if in_use.saturating_sub(freed) + needed > max_displays {
            let refusal = PlayRefusal::EntityCap {
                active: in_use,
                max: max_displays,
            };
            tell_refusal(&mut client, request, &refusal);
            continue;
        }
        in_use = in_use.saturating_sub(freed) + needed;
        if let Some(mut old) = active {
            if let Some(original) =
                wind_down(&mut old, request.client, &mut commands, &mut commands_out)
            {
                layer.0 = original;
            }
            ended.send(EmoteEndedEvent {
                client: request.client,
                partner: old.partner(),
                emote: old.emote().clone(),
                reason: EndReason::Replaced,
            });
        }
        let root = position.0;
        let visible_layer = layer.0;
        let owner = request.client;
        // Skin-bound nodes get their pack-drawn twins from `add_pack_twins`,
        // once someone can see them; while someone can, their fallback heads
        // are for the others only from the start.
        let skin_audience = if pack_viewers {
            DisplayAudience::WithoutPack
        } else {
            DisplayAudience::Everyone
        };
        let mut roles = vec![
            DisplayRole::AsWritten(DisplayAudience::Everyone);
            playback.state.union.kinds.len()
        ];
        for skin in &playback.skins {
            roles[skin.union] = DisplayRole::AsWritten(skin_audience);
        }
        playback.displays = playback
            .state
            .union
            .kinds
            .iter()
            .zip(roles)
            .map(|(kind, role)| {
                spawn_display(&mut commands, kind, visible_layer, root, owner, role)
            })
            .collect();
        if playback.bone_drawn {
            // Modded viewers draw the initiator's body with bones, and the
            // item in their hand on it.
            let body = playback
                .skins
                .iter()
                .filter(|skin| skin.participant == Participant::Initiator)
                .map(|skin| skin.union);
            let hands = playback
                .hands
                .iter()
                .filter(|hand| !hand.partner)
                .map(|hand| hand.union);
            for union in body.chain(hands) {
                if let Some(Some(display)) = playback.displays.get(union) {
                    commands.entity(*display).insert(BoneDrawn);
                }
            }
        }
        if let (true, Some(hidden)) = (playback.state.player_hidden, &hidden_layer) {
            playback.restore_layer = Some(visible_layer);
            layer.0 = if playback.bone_drawn {
                vanilla_hidden.of(visible_layer, &mut commands, &server)
            } else {
                hidden.0
            };
        }
        cooldowns.0.start(
            uuid.0,
            request.emote.clone(),
            now_tick(&server),
            (f64::from(playback.state.cooldown_ticks) * f64::from(request.cooldown_multiplier))
                .round() as u32,
        );
        let watch = StopWatch::new(playback.state.stop_conditions, root);
        commands.entity(request.client).insert((playback, watch));
    }
}
