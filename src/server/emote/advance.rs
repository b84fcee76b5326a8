//! One tick of every playback: what the players did (the stop
//! conditions' observations), then each playback's phase machine.

use valence::interact_entity::{EntityInteraction, InteractEntityEvent};
use valence::movement::MovementEvent;
use valence::prelude::*;

use super::active::*;
use super::queue::*;
use super::send::*;
use super::stop::*;
use crate::playback::playing::*;
use crate::server::events::{EmoteCommandEvent, EmoteEndedEvent, EndReason, PlayerDamagedEvent};

/// The player inventory slot of the off hand.
pub(super) const OFF_HAND_SLOT: u16 = 45;

/// Collects what the stop conditions need from this tick's events.
pub(super) fn observe_players(
    mut movements: EventReader<MovementEvent>,
    mut interactions: EventReader<InteractEntityEvent>,
    mut damaged: EventReader<PlayerDamagedEvent>,
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
        if interaction.interact != EntityInteraction::Attack {
            continue;
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
        &'static mut Client,
        &'static mut EntityLayerId,
        Option<&'static mut StopWatch>,
    ),
>;

#[allow(clippy::too_many_arguments)]
pub(super) fn advance_emotes(
    mut commands: Commands,
    mut players: PlayingPlayers,
    mut displays: DisplayQuery,
    mut ended: EventWriter<EmoteEndedEvent>,
    mut commands_out: EventWriter<EmoteCommandEvent>,
    policy: Option<Res<DisplayUpdatePolicy>>,
    mut plans: ResMut<PlanCache>,
    server: Res<Server>,
    simulated: Option<Res<SimulatedWallClock>>,
) {
    let wall = simulated.map_or_else(wall_tick, |c| c.start_tick + now_tick(&server));
    plans.planned_this_tick = 0;
    let policy = policy.map_or(DisplayUpdatePolicy::Scheduled, |p| *p);
    for (player, mut playback, look, mut client, mut layer, watch) in &mut players {
        let playback = &mut *playback;
        let mut end = None;
        if let Some(reason) = watch.and_then(|mut w| w.check()) {
            end = Some(EndReason::Condition(reason));
        }
        if end.is_none() {
            end = advance_one(playback, wall, player, &mut commands_out);
        }
        if end.is_none() || end == Some(EndReason::Finished) {
            if policy == DisplayUpdatePolicy::Scheduled {
                plan_new_cycle(playback, &mut plans);
            }
            let yaw = playback.yaw.step(look.yaw);
            send_pose(playback, yaw, &mut displays, server.current_tick());
        }
        if let Some(reason) = end {
            // A failure's chat line and log line: `report_failed_emotes`.
            if let EndReason::Condition(r) = &reason {
                client.send_action_bar_message(
                    format!("Emote stopped: {}", r.describe()).color(Color::GRAY),
                );
            }
            if let Some(original) = wind_down(playback, player, &mut commands, &mut commands_out) {
                layer.0 = original;
            }
            ended.send(EmoteEndedEvent {
                client: player,
                emote: playback.emote.clone(),
                reason,
            });
            commands.entity(player).remove::<(ActiveEmote, StopWatch)>();
        }
    }
}

/// One tick of a playback's phase machine: updates `playback.frame` and
/// queues the events due; returns why the playback ends, if it does.
pub(super) fn advance_one(
    playback: &mut ActiveEmote,
    wall: u64,
    player: Entity,
    out: &mut EventWriter<EmoteCommandEvent>,
) -> Option<EndReason> {
    playback.position_ticks = None;
    playback.cycle_started = false;
    match &mut playback.phase {
        Phase::Hold { left_ticks } => {
            *left_ticks = left_ticks.saturating_sub(1);
            if *left_ticks == 0 && !playback.start_next_segment() {
                return Some(EndReason::Finished);
            }
            None
        }
        Phase::Transition {
            from,
            to,
            done_ticks,
            total_ticks,
        } => {
            *done_ticks += 1;
            let t = *done_ticks as f32 / (*total_ticks).max(1) as f32;
            for ((slot, from), to) in playback.frame.iter_mut().zip(from.iter()).zip(to.iter()) {
                // Only nodes shown on both sides move; visibility changes
                // when the transition ends.
                if let (Some(a), Some(b)) = (from, to) {
                    *slot = Some(a.interpolate(b, t).to_matrix());
                }
            }
            if *done_ticks >= *total_ticks {
                playback.phase = Phase::Timeline;
            }
            None
        }
        Phase::Timeline => {
            let roots = playback.roots;
            playback.stale_pose = None;
            let step = match playback.current.advance_clock(wall) {
                Ok(step) => step,
                Err(e) => return Some(EndReason::Failed(e.to_string())),
            };
            // A planned cycle of a position-pure Animation needs no pose on
            // its quiet ticks: the client draws the plan. Cycle starts (which
            // plan), events (node origins), ends (transitions) and the
            // first tick sample as usual.
            let quiet = playback.schedule.is_some()
                && playback.current.is_position_pure()
                && !step.cycle_started
                && !step.loop_completed
                && !step.finished
                && playback
                    .current
                    .events_in(step.timeline_events.as_ref())
                    .next()
                    .is_none()
                && playback.current.clock.elapsed_ticks() > 1;
            if quiet {
                playback.stale_pose = Some((step.position_ticks, roots));
            } else if let Err(e) = playback.current.sample(
                step.position_ticks,
                step.advancing,
                &mut playback.frame,
                &roots,
            ) {
                return Some(EndReason::Failed(e.to_string()));
            }
            if let Some(duo) = &mut playback.duo {
                duo.offer_cycle_ended = step.loop_completed;
            }
            playback.position_ticks = Some(step.position_ticks);
            playback.cycle_started = step.cycle_started;
            if playback.current.clock.elapsed_ticks() == 1 {
                queue_group(playback, EventGroup::Start, player, out);
            }
            let due = playback.current.events_in(step.timeline_events.as_ref());
            queue_events(playback, due, player, out);
            let cycle_done =
                step.loop_completed || (step.finished && playback.current.loops_in_sequence);
            if cycle_done {
                queue_group(playback, EventGroup::Loop, player, out);
            }
            if step.finished {
                // The outgoing segment's `stop` runs before the next one's `start`.
                fire_stop(playback, player, out);
                if !playback.start_next_segment() {
                    return Some(EndReason::Finished);
                }
            }
            None
        }
    }
}
