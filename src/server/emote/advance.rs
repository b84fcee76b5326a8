//! One tick of every playback: what the players did (the stop
//! conditions' observations), then each playback's phase machine.

use valence::interact_entity::{EntityInteraction, InteractEntityEvent};
use valence::movement::MovementEvent;
use valence::prelude::*;

use super::active::*;
use super::send::*;
use super::stop::*;
use crate::playback::partner::EYE_HEIGHT as EYE_HEIGHT_BLOCKS;
use crate::playback::playing::wall_tick;
use crate::playback::session::{DueCommand, NodeUpdate, PlaybackEnd, WorldView};
use crate::server::counters::ServerCounters;
use crate::server::events::{
    CameraFlying, EmoteCommandEvent, EmoteEndedEvent, EndReason, PlayerDamagedEvent,
};

/// The player inventory slot of the off hand.
pub(super) const OFF_HAND_SLOT: u16 = 45;

/// Collects what the stop conditions need from this tick's events.
pub(super) fn observe_players(
    mut movements: EventReader<MovementEvent>,
    mut interactions: EventReader<InteractEntityEvent>,
    mut damaged: EventReader<PlayerDamagedEvent>,
    flying: Query<(), With<CameraFlying>>,
    mut players: Query<(
        &mut StopWatch,
        &Position,
        &VisibleChunkLayer,
        Option<&Riding>,
    )>,
    changed_modes: Query<Entity, Changed<GameMode>>,
    layers: Query<&ChunkLayer>,
) {
    for movement in movements.iter() {
        if let Ok((mut watch, ..)) = players.get_mut(movement.client) {
            watch.observed.horizontal_position = [movement.position.x, movement.position.z];
            // Vanilla's jump test: was on the ground, now is not, and moved up.
            if movement.old_on_ground
                && !movement.on_ground
                && movement.position.y > movement.old_position.y
            {
                watch.observed.jumped = true;
            }
        }
    }
    for interaction in interactions.iter() {
        if interaction.interact != EntityInteraction::Attack || flying.contains(interaction.client)
        {
            continue; // a click through the emote camera does nothing
        }
        // Swinging at any entity is attacking, hurt or not.
        if let Ok((mut watch, ..)) = players.get_mut(interaction.client) {
            watch.observed.attacked = true;
        }
    }
    // Damage is what the combat rules really dealt.
    for hit in damaged.iter() {
        if let Ok((mut watch, ..)) = players.get_mut(hit.victim) {
            watch.observed.damaged = true;
        }
    }
    for entity in &changed_modes {
        if let Ok((mut watch, ..)) = players.get_mut(entity) {
            // The component is "changed" on the tick the player joined too;
            // only count changes after the watch began.
            if watch.age_ticks > 0 {
                watch.observed.game_mode_changed = true;
            }
        }
    }
    for (mut watch, position, layer, riding) in &mut players {
        watch.observed.riding = riding.is_some();
        // Eyes at 1.62 blocks above the feet, as a standing player's.
        let eye = position.0 + DVec3::new(0.0, 1.62, 0.0);
        let block = BlockPos::new(
            eye.x.floor() as i32,
            eye.y.floor() as i32,
            eye.z.floor() as i32,
        );
        let in_water = layers
            .get(layer.0)
            .ok()
            .and_then(|l| l.block(block))
            .is_some_and(|b| b.state.to_kind() == valence::block::BlockKind::Water);
        watch.observed.eyes_in_water = in_water;
    }
}

/// Players as [`advance_emotes`] reads them.
pub(super) type PlayingPlayers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut ActiveEmote,
        &'static Look,
        &'static mut EntityLayerId,
        Option<&'static mut StopWatch>,
        Option<&'static CameraFlying>,
    ),
    With<Client>,
>;

/// What the solvers read of every player: their look, feet, world and
/// emote camera.
pub(super) type SolverViews<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Look,
        &'static Position,
        &'static VisibleChunkLayer,
        Option<&'static CameraFlying>,
    ),
    With<Client>,
>;

/// Players farther than this are not looked at by a `nearest_player`
/// look-at, blocks.
pub(super) const NEAREST_PLAYER_BLOCKS: f64 = 8.0;

/// Feeds a playback's solvers this tick's views of its participants: the
/// initiator's look (and the eye of the camera filming them), the matched
/// partner's, and the nearest other player's eyes when its look-at wants
/// them.
fn feed_solvers(player: Entity, playback: &mut ActiveEmote, views: &SolverViews) {
    if !playback.state.has_solvers() {
        return;
    }
    let view_of = |entity: Entity| -> Option<WorldView> {
        let (_, look, _, _, flying) = views.get(entity).ok()?;
        Some(WorldView {
            look_yaw_degrees: look.yaw,
            look_pitch_degrees: look.pitch,
            face_point: flying.and_then(|f| f.eye),
            nearest_eyes: None,
        })
    };
    let Some(mut initiator) = view_of(player) else {
        return;
    };
    if playback.state.looks_at_nearest_player() {
        if let Ok((_, _, feet, world, _)) = views.get(player) {
            let mut nearest: Option<(f64, DVec3)> = None;
            for (other_player, _, other, other_world, _) in views.iter() {
                let distance = other.0.distance(feet.0);
                if other_player == player
                    || other_world.0 != world.0
                    || distance > NEAREST_PLAYER_BLOCKS
                {
                    continue;
                }
                if nearest.is_none_or(|(d, _)| distance < d) {
                    nearest = Some((distance, other.0 + DVec3::Y * EYE_HEIGHT_BLOCKS));
                }
            }
            initiator.nearest_eyes = nearest.map(|(_, eyes)| eyes);
        }
    }
    let partner = playback.partner().and_then(view_of);
    playback.state.observe_live(&initiator, partner.as_ref());
}

/// Buffers [`advance_emotes`] reuses from tick to tick.
#[derive(Default)]
pub(super) struct TickBuffers {
    due: Vec<DueCommand>,
    updates: Vec<NodeUpdate>,
}

/// One tick of every playback: its stop conditions, its phase machine,
/// the commands due and the display updates.
#[allow(clippy::too_many_arguments)]
pub(super) fn advance_emotes(
    mut commands: Commands,
    mut players: PlayingPlayers,
    mut displays: DisplayQuery,
    mut bands: BandWriter,
    mut ended: EventWriter<EmoteEndedEvent>,
    mut commands_out: EventWriter<EmoteCommandEvent>,
    policy: Option<Res<DisplayUpdatePolicy>>,
    mut plans: ResMut<EmotePlans>,
    server: Res<Server>,
    simulated: Option<Res<SimulatedWallClock>>,
    mut buffers: Local<TickBuffers>,
    views: SolverViews,
    counters: Option<Res<ServerCounters>>,
) {
    let wall = simulated.map_or_else(wall_tick, |c| c.start_tick + now_tick(&server));
    plans.0.begin_tick();
    let policy = policy.map_or(DisplayUpdatePolicy::Scheduled, |p| *p);
    let TickBuffers { due, updates } = &mut *buffers;
    for (player, mut playback, look, mut layer, watch, flying) in &mut players {
        let playback = &mut *playback;
        let mut end = None;
        if let Some(reason) = watch.and_then(|mut w| w.check()) {
            end = Some(EndReason::Condition(reason));
        }
        if end.is_none() {
            feed_solvers(player, playback, &views);
            let outcome = playback.state.advance(wall, due);
            send_due(playback, player, due, &mut commands_out);
            if let (Some(duo), Some(completed)) = (&mut playback.duo, outcome.cycle_completed) {
                duo.offer_cycle_ended = completed;
            }
            end = outcome.end.map(|end| match end {
                PlaybackEnd::Finished => EndReason::Finished,
                PlaybackEnd::Failed(message) => EndReason::Failed(message),
                PlaybackEnd::OverBudget(message) => {
                    if let Some(counters) = &counters {
                        counters.molang_budget_stopped();
                    }
                    EndReason::Failed(message)
                }
            });
        }
        if end.is_none() || end == Some(EndReason::Finished) {
            if policy == DisplayUpdatePolicy::Scheduled {
                playback.state.plan_new_cycle(&mut plans.0);
            }
            // While the emote camera flies the look steers it: the body
            // holds its yaw.
            let player_yaw = match flying {
                Some(_) => playback.state.root_yaw_degrees(),
                None => look.yaw,
            };
            let yaw = playback.state.yaw.step(player_yaw);
            playback
                .state
                .pose_updates(yaw, server.current_tick(), updates);
            write_updates(playback, updates, &mut displays, &mut bands);
        }
        if let Some(reason) = end {
            // What the players are told: the feedback plugin; a failure's
            // chat line and log line: `report_failed_emotes`.
            if let Some(original) = wind_down(playback, player, &mut commands, &mut commands_out) {
                layer.0 = original;
            }
            ended.send(EmoteEndedEvent {
                client: player,
                partner: playback.partner(),
                emote: playback.emote().clone(),
                reason,
            });
            commands.entity(player).remove::<(ActiveEmote, StopWatch)>();
        }
    }
}
