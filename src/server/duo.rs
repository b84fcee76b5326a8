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

use std::collections::HashSet;

use valence::entity::living::Health;
use valence::math::{DVec3, Mat4, Quat};
use valence::prelude::*;

use crate::format::sequence::{Angle, Participants, Placement, PositionFrame, Step};
use crate::format::EmoteFile;
use crate::server::emote::{
    fire_stop, ActiveEmote, EmoteCooldowns, HiddenPlayersLayer, PlayRefusal, SpaceRoots, StopWatch,
};
use crate::server::events::{EmoteCommandEvent, EndReason, PlayEmoteRequest, StopEmoteRequest};
use crate::server::EmoteLibrary;

/// Farthest apart two players may stand horizontally to match, in blocks.
pub const MATCH_HORIZONTAL_BLOCKS: f64 = 2.0;
/// Largest height difference of two players who match, in blocks.
pub const MATCH_VERTICAL_BLOCKS: f64 = 1.0;
/// How far from straight at the other each player may face, in degrees.
pub const MATCH_FACING_DEGREES: f32 = 45.0;
/// Eye height of a standing player, in blocks.
pub const EYE_HEIGHT: f64 = 1.62;
/// Players this close to an open offer hear of it, in blocks.
pub const OFFER_ANNOUNCE_BLOCKS: f64 = 16.0;

/// What matching needs to know of one player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stance {
    /// Feet position.
    pub position: DVec3,
    /// Minecraft yaw in degrees (0 faces +Z, 90 faces −X).
    pub yaw_degrees: f32,
    /// Health above zero.
    pub alive: bool,
    /// The world (chunk layer) the player is in, as an opaque id.
    pub world: u64,
}

/// Why two players cannot match, as the joining player reads it.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum MatchRefusal {
    /// One of them is dead.
    #[error("both players must be alive")]
    NotAlive,
    /// Different worlds.
    #[error("you are not in the same world")]
    OtherWorld,
    /// Too far apart.
    #[error("stand within {MATCH_HORIZONTAL_BLOCKS} blocks (you are {0:.1} away)")]
    TooFar(f64),
    /// Too far above or below.
    #[error("stand on the same level (within {MATCH_VERTICAL_BLOCKS} block)")]
    OtherLevel,
    /// Not facing each other.
    #[error("face each other")]
    NotFacing,
    /// Something opaque in between.
    #[error("nothing may stand between you")]
    NoLineOfSight,
}

/// The Minecraft yaw that looks from `from` towards `to`.
pub fn yaw_towards(from: DVec3, to: DVec3) -> f32 {
    let d = to - from;
    (-d.x).atan2(d.z).to_degrees() as f32
}

/// True when a player at `from` with `yaw_degrees` faces `to` within the limit.
pub fn faces(from: DVec3, yaw_degrees: f32, to: DVec3) -> bool {
    let towards = yaw_towards(from, to);
    crate::playback::deadzone::yaw_difference(yaw_degrees, towards).abs() <= MATCH_FACING_DEGREES
}

/// Checks the matching conditions between an initiator and a joining
/// player; `line_of_sight` is the world's answer for their eyes.
pub fn check_match(
    initiator: &Stance,
    partner: &Stance,
    line_of_sight: impl FnOnce() -> bool,
) -> Result<(), MatchRefusal> {
    if !(initiator.alive && partner.alive) {
        return Err(MatchRefusal::NotAlive);
    }
    if initiator.world != partner.world {
        return Err(MatchRefusal::OtherWorld);
    }
    let d = partner.position - initiator.position;
    let horizontal = (d.x * d.x + d.z * d.z).sqrt();
    if horizontal > MATCH_HORIZONTAL_BLOCKS {
        return Err(MatchRefusal::TooFar(horizontal));
    }
    if d.y.abs() > MATCH_VERTICAL_BLOCKS {
        return Err(MatchRefusal::OtherLevel);
    }
    if !faces(initiator.position, initiator.yaw_degrees, partner.position)
        || !faces(partner.position, partner.yaw_degrees, initiator.position)
    {
        return Err(MatchRefusal::NotFacing);
    }
    if !line_of_sight() {
        return Err(MatchRefusal::NoLineOfSight);
    }
    Ok(())
}

/// Points every 0.1 block from `from` to `to` (both ends included), for a
/// line-of-sight test against the blocks they fall in.
pub fn sight_samples(from: DVec3, to: DVec3) -> impl Iterator<Item = DVec3> {
    let steps = ((to - from).length() / 0.1).ceil().max(1.0) as usize;
    (0..=steps).map(move |i| from.lerp(to, i as f64 / steps as f64))
}

/// Where a participant stands and faces, in the world, at the match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    /// Feet position.
    pub position: DVec3,
    /// Yaw in degrees.
    pub yaw_degrees: f32,
    /// Pitch in degrees.
    pub pitch_degrees: f32,
}

fn angle(angle: Angle, base: f32) -> f32 {
    match angle {
        Angle::Absolute(v) => v,
        Angle::Relative(v) => base + v,
    }
}

/// Places a participant from the scene `origin` and the initiator's yaw and
/// pitch at the match.
pub fn place(
    placement: &Placement,
    origin: DVec3,
    initiator_yaw_degrees: f32,
    initiator_pitch_degrees: f32,
) -> Placed {
    let o = placement.offset.as_dvec3();
    let offset = match placement.frame {
        PositionFrame::Relative => o,
        PositionFrame::Local => {
            // ^left ^up ^forward of the horizontal facing: at yaw 0 (facing
            // +Z) left is +X.
            let yaw = f64::from(initiator_yaw_degrees).to_radians();
            let forward = DVec3::new(-yaw.sin(), 0.0, yaw.cos());
            let left = DVec3::new(yaw.cos(), 0.0, yaw.sin());
            left * o.x + DVec3::Y * o.y + forward * o.z
        }
    };
    Placed {
        position: origin + offset,
        yaw_degrees: angle(placement.yaw, initiator_yaw_degrees),
        pitch_degrees: angle(placement.pitch, initiator_pitch_degrees).clamp(-90.0, 90.0),
    }
}

/// A participant's root in the emote frame of a playback whose root is at
/// `root` turned to `root_yaw_degrees` (world = root + R_y(−yaw) · local).
pub fn root_in_emote_frame(placed: &Placed, root: DVec3, root_yaw_degrees: f32) -> Mat4 {
    let turn_back = Quat::from_rotation_y(root_yaw_degrees.to_radians());
    let local = turn_back * (placed.position - root).as_vec3();
    let relative_yaw = placed.yaw_degrees - root_yaw_degrees;
    Mat4::from_translation(local)
        * Mat4::from_quat(Quat::from_rotation_y(-relative_yaw.to_radians()))
}

/// Two-player state of a playback (on the initiator's [`ActiveEmote`]).
#[derive(Clone, Debug)]
pub struct Duo {
    participants: Participants,
    timeout_ticks: u32,
    waited_ticks: u32,
    matched: Vec<Step>,
    timeout: Vec<Step>,
    state: DuoState,
    /// The offer completed a cycle this tick (set by the playback).
    pub(crate) offer_cycle_ended: bool,
}

/// Where a two-player playback is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DuoState {
    /// The offer plays; a joiner may be reserved.
    Offering { reserved: Option<Entity> },
    /// Both play the `matched` branch.
    Matched { partner: Entity },
    /// Nobody joined: the `timeout` branch plays.
    Alone,
}

impl Duo {
    /// A fresh offer.
    pub(crate) fn new(
        participants: Participants,
        timeout_ticks: u32,
        matched: Vec<Step>,
        timeout: Vec<Step>,
    ) -> Self {
        Self {
            participants,
            timeout_ticks,
            waited_ticks: 0,
            matched,
            timeout,
            state: DuoState::Offering { reserved: None },
            offer_cycle_ended: false,
        }
    }

    /// True once a partner matched.
    pub fn is_matched(&self) -> bool {
        matches!(self.state, DuoState::Matched { .. })
    }

    /// The matched partner.
    pub fn partner(&self) -> Option<Entity> {
        match self.state {
            DuoState::Matched { partner } => Some(partner),
            _ => None,
        }
    }

    fn is_open(&self) -> bool {
        self.state == DuoState::Offering { reserved: None }
    }
}

/// On the partner of a matched two-player playback.
#[derive(Component, Clone, Copy, Debug)]
pub struct EmotePartner {
    /// The initiator, whose [`ActiveEmote`] plays for both.
    pub initiator: Entity,
    restore_layer: Option<Entity>,
}

/// Play requests taken by [`join_offers`] this tick (the playback start
/// skips them).
#[derive(Resource, Default, Debug)]
pub struct JoinedThisTick(pub HashSet<Entity>);

/// Line of sight between two eyes in `layer`: no opaque block on the way.
fn clear_sight(layer: Option<&ChunkLayer>, from: DVec3, to: DVec3) -> bool {
    let Some(layer) = layer else {
        return false;
    };
    sight_samples(from, to).all(|p| {
        let pos = BlockPos::new(p.x.floor() as i32, p.y.floor() as i32, p.z.floor() as i32);
        layer.block(pos).is_none_or(|b| !b.state.is_opaque())
    })
}

fn stance(position: &Position, look: &Look, health: &Health, layer: &VisibleChunkLayer) -> Stance {
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
                    && playback.emote == request.emote
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
            Some((_, initiator, _, name)) => {
                if let Ok((_, mut playback, ..)) = offers.get_mut(*initiator) {
                    if let Some(duo) = &mut playback.duo {
                        duo.state = DuoState::Offering {
                            reserved: Some(request.client),
                        };
                    }
                }
                client.send_action_bar_message(
                    format!("Joining {name}'s {}...", sequence.metadata.name).color(Color::GOLD),
                );
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
    library: Res<EmoteLibrary>,
    server: Res<Server>,
    mut cooldowns: ResMut<EmoteCooldowns>,
    hidden_layer: Option<Res<HiddenPlayersLayer>>,
    mut initiators: Query<(
        Entity,
        &mut ActiveEmote,
        &mut Position,
        &mut Look,
        &mut Client,
        &Health,
        &VisibleChunkLayer,
        &Username,
    )>,
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
    for (initiator, mut playback, mut position, mut look, mut client, health, layer, name) in
        &mut initiators
    {
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
                        reason: EndReason::PartnerLeft,
                    });
                }
            }
            continue;
        };
        duo.waited_ticks += 1;
        let title = library
            .0
            .get(playback.emote.as_str())
            .and_then(|l| match &*l.file {
                EmoteFile::Sequence(s) => Some(s.metadata.name.clone()),
                EmoteFile::Animation(_) => None,
            })
            .unwrap_or_else(|| playback.emote.to_string());
        if duo.waited_ticks == 1 {
            // Tell the players around, with a button that runs the same command.
            let command = format!("/emote play {}", playback.emote);
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
                let Ok((_, mut p_pos, mut p_look, mut p_client, _, _, mut p_layer, p_name, p_uuid)) =
                    others.get_mut(partner)
                else {
                    continue;
                };
                let origin = playback.root_position();
                let root_yaw = playback.root_yaw_degrees();
                let me_placed = place(&duo.participants.initiator, origin, root_yaw, look.pitch);
                let them_placed = place(&duo.participants.partner, origin, root_yaw, look.pitch);
                position.set(me_placed.position);
                look.yaw = me_placed.yaw_degrees;
                look.pitch = me_placed.pitch_degrees;
                p_pos.set(them_placed.position);
                p_look.yaw = them_placed.yaw_degrees;
                p_look.pitch = them_placed.pitch_degrees;
                let roots = SpaceRoots {
                    initiator: root_in_emote_frame(&me_placed, origin, root_yaw),
                    partner: Some(root_in_emote_frame(&them_placed, origin, root_yaw)),
                    mirror: true,
                };
                fire_stop(playback, initiator, &mut commands_out);
                duo.state = new_state;
                playback.duo = Some(duo.clone());
                playback.freeze_yaw();
                let steps = duo.matched.clone();
                if !playback.begin_branch(&steps, roots) {
                    stop.send(StopEmoteRequest {
                        client: initiator,
                        reason: EndReason::Finished,
                    });
                }
                // The partner's side: stop conditions, hidden, cooldown.
                let mut restore_layer = None;
                if let (true, Some(hidden)) = (playback.player_hidden, &hidden_layer) {
                    restore_layer = Some(p_layer.0);
                    p_layer.0 = hidden.0;
                }
                commands.entity(partner).insert((
                    EmotePartner {
                        initiator,
                        restore_layer,
                    },
                    StopWatch::new(playback.stop_conditions, them_placed.position),
                ));
                commands
                    .entity(initiator)
                    .insert(StopWatch::new(playback.stop_conditions, me_placed.position));
                let cooldown = match library.0.get(playback.emote.as_str()).map(|l| &*l.file) {
                    Some(EmoteFile::Sequence(s)) => s.settings.cooldown_ticks,
                    _ => 0,
                };
                cooldowns
                    .0
                    .start(p_uuid.0, playback.emote.clone(), now, cooldown);
                p_client
                    .send_action_bar_message(format!("{title} with {}", name.0).color(Color::GOLD));
                client.send_action_bar_message(
                    format!("{title} with {}", p_name.0).color(Color::GOLD),
                );
            }
            DuoState::Offering { .. } if duo.waited_ticks >= duo.timeout_ticks => {
                fire_stop(playback, initiator, &mut commands_out);
                duo.state = DuoState::Alone;
                playback.duo = Some(duo.clone());
                let steps = duo.timeout.clone();
                client.send_action_bar_message(
                    format!("Nobody joined your {title}").color(Color::GRAY),
                );
                if !playback.begin_branch(&steps, SpaceRoots::OFFER) {
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
    mut partners: Query<(
        Entity,
        &EmotePartner,
        Option<&mut StopWatch>,
        &mut EntityLayerId,
        &mut Client,
    )>,
    initiators: Query<&ActiveEmote>,
    mut stop: EventWriter<StopEmoteRequest>,
) {
    for (entity, partner, watch, mut layer, mut client) in &mut partners {
        let still_playing = initiators
            .get(partner.initiator)
            .is_ok_and(|p| p.duo.as_ref().and_then(Duo::partner) == Some(entity));
        if !still_playing {
            if let Some(original) = partner.restore_layer {
                layer.0 = original;
            }
            client.send_action_bar_message("Emote ended".color(Color::GRAY));
            commands
                .entity(entity)
                .remove::<(EmotePartner, StopWatch)>();
            continue;
        }
        if let Some(reason) = watch.and_then(|mut w| w.check()) {
            client.send_action_bar_message(
                format!("Emote stopped: {}", reason.describe()).color(Color::GRAY),
            );
            stop.send(StopEmoteRequest {
                client: partner.initiator,
                reason: EndReason::PartnerCondition(reason),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stance(x: f64, z: f64, yaw: f32) -> Stance {
        Stance {
            position: DVec3::new(x, 65.0, z),
            yaw_degrees: yaw,
            alive: true,
            world: 1,
        }
    }

    #[test]
    fn yaw_towards_follows_minecraft_axes() {
        let o = DVec3::ZERO;
        assert!((yaw_towards(o, DVec3::Z) - 0.0).abs() < 1e-4);
        assert!((yaw_towards(o, -DVec3::X) - 90.0).abs() < 1e-4);
        assert!((yaw_towards(o, -DVec3::Z).abs() - 180.0).abs() < 1e-4);
        assert!((yaw_towards(o, DVec3::X) + 90.0).abs() < 1e-4);
    }

    #[test]
    fn facing_each_other_within_reach_matches() {
        // A faces +Z (yaw 0); B stands 1.5 blocks in front, facing back (180).
        let a = stance(0.5, 0.5, 0.0);
        let b = stance(0.5, 2.0, 180.0);
        assert_eq!(check_match(&a, &b, || true), Ok(()));
        // 40° off is still facing; 50° is not.
        assert_eq!(check_match(&a, &stance(0.5, 2.0, 220.0), || true), Ok(()));
        assert_eq!(
            check_match(&a, &stance(0.5, 2.0, 230.0), || true),
            Err(MatchRefusal::NotFacing)
        );
        assert_eq!(
            check_match(&stance(0.5, 0.5, 90.0), &b, || true),
            Err(MatchRefusal::NotFacing)
        );
    }

    #[test]
    fn every_condition_refuses_with_its_reason() {
        let a = stance(0.5, 0.5, 0.0);
        assert!(matches!(
            check_match(&a, &stance(0.5, 3.0, 180.0), || true),
            Err(MatchRefusal::TooFar(d)) if (d - 2.5).abs() < 1e-9
        ));
        let mut high = stance(0.5, 2.0, 180.0);
        high.position.y += 1.5;
        assert_eq!(
            check_match(&a, &high, || true),
            Err(MatchRefusal::OtherLevel)
        );
        let mut dead = stance(0.5, 2.0, 180.0);
        dead.alive = false;
        assert_eq!(check_match(&a, &dead, || true), Err(MatchRefusal::NotAlive));
        let mut elsewhere = stance(0.5, 2.0, 180.0);
        elsewhere.world = 2;
        assert_eq!(
            check_match(&a, &elsewhere, || true),
            Err(MatchRefusal::OtherWorld)
        );
        assert_eq!(
            check_match(&a, &stance(0.5, 2.0, 180.0), || false),
            Err(MatchRefusal::NoLineOfSight)
        );
    }

    #[test]
    fn sight_samples_cover_the_segment() {
        let points: Vec<DVec3> = sight_samples(DVec3::ZERO, DVec3::new(0.0, 0.0, 1.0)).collect();
        assert_eq!(points.len(), 11);
        assert_eq!(points[0], DVec3::ZERO);
        assert_eq!(points[10], DVec3::new(0.0, 0.0, 1.0));
    }

    #[test]
    fn the_bundled_handshake_placement_puts_the_partner_in_front_facing_back() {
        // "^ ^ ^1.2", "~180 0" for an initiator facing −X (yaw 90).
        let partner = Placement {
            frame: PositionFrame::Local,
            offset: Vec3::new(0.0, 0.0, 1.2),
            yaw: Angle::Relative(180.0),
            pitch: Angle::Absolute(0.0),
        };
        let origin = DVec3::new(10.0, 65.0, 10.0);
        let placed = place(&partner, origin, 90.0, 20.0);
        assert!((placed.position - DVec3::new(8.8, 65.0, 10.0)).length() < 1e-6);
        assert_eq!(placed.yaw_degrees, 270.0);
        assert_eq!(placed.pitch_degrees, 0.0);
        // "~1 ~ ~-2" is world axes.
        let relative = Placement {
            frame: PositionFrame::Relative,
            offset: Vec3::new(1.0, 0.0, -2.0),
            yaw: Angle::Relative(0.0),
            pitch: Angle::Relative(0.0),
        };
        let placed = place(&relative, origin, 90.0, 20.0);
        assert!((placed.position - DVec3::new(11.0, 65.0, 8.0)).length() < 1e-9);
        assert_eq!(placed.pitch_degrees, 20.0);
        // ^ left at yaw 0 is +X.
        let left = Placement {
            frame: PositionFrame::Local,
            offset: Vec3::new(1.0, 0.0, 0.0),
            yaw: Angle::Relative(0.0),
            pitch: Angle::Relative(0.0),
        };
        assert!((place(&left, DVec3::ZERO, 0.0, 0.0).position - DVec3::X).length() < 1e-9);
    }

    #[test]
    fn a_partner_root_maps_back_to_its_world_placement() {
        let root = DVec3::new(10.0, 65.0, 10.0);
        let root_yaw = 90.0;
        let placed = Placed {
            position: DVec3::new(8.8, 65.0, 10.0),
            yaw_degrees: 270.0,
            pitch_degrees: 0.0,
        };
        let m = root_in_emote_frame(&placed, root, root_yaw);
        // Emote frame → world: root + R_y(−yaw) · local.
        let to_world = Mat4::from_translation(root.as_vec3())
            * Mat4::from_quat(Quat::from_rotation_y(-root_yaw.to_radians()));
        let world = to_world * m;
        let origin = world.transform_point3(Vec3::ZERO);
        assert!((origin - placed.position.as_vec3()).length() < 1e-4);
        // The partner's +Z (its forward) points along its yaw 270 (+X).
        let forward = world.transform_vector3(Vec3::Z);
        assert!((forward - Vec3::X).length() < 1e-4, "{forward:?}");
    }
}
