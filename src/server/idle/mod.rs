//! Idle emotes: a player who stands quiet for their group's `delay` starts
//! one of its idle emotes by themself, and the first thing they do stops
//! it ("Sit stopped: you moved").
//!
//! # What idle means
//!
//! A player is idle while they do nothing: no movement (their feet within
//! [`MOVE_EPSILON_BLOCKS`](crate::playback::idle::MOVE_EPSILON_BLOCKS) of
//! where they were last active, falling and being pushed included), no
//! look change (yaw and pitch within
//! [`LOOK_EPSILON_DEGREES`](crate::playback::idle::LOOK_EPSILON_DEGREES);
//! a look that steers the player's emote camera, [`CameraFlying`], is not
//! one),
//! no chat, no command (running one or asking for completions while typing
//! one), no click of any kind (swing, dig, use an item, a block or an
//! entity), no sneak or sprint toggle, and nothing in a window or the
//! inventory (a click, a hotbar change, a drop, swapping hands, closing it).
//! Movement and look come from the player's [`Position`] and [`Look`];
//! the rest from the client's packets (see `wake.rs`). Joining, and the end of
//! any playback of the player (whatever ended it), count as activity too.
//!
//! # The rule
//!
//! Each player's rule comes from `[[permissions.emote_groups]]`: the first
//! group that has `idle` and that the player holds
//! ([`PlayerPermissions::idle_rule`];
//! the TOML shape is in [`crate::server::permissions::idle`]). It is
//! resolved again when the configuration changes (a reload) or the
//! player's operator level does. Candidates are resolved against the
//! emotes loaded at each attempt. Permission is not checked (an idle emote
//! need not be in any group's `emotes`), but an Animation that is not
//! `standalone`, or that is cooling down for the player, is left out,
//! unless the player holds `emote.bypass`, which the request then carries.
//! An emote in `permissions.disabled` is left out the same way. The
//! group's cooldown multiplier applies as for a command.
//!
//! # One tick
//!
//! [`IdleEmotesSet`] runs in [`PostUpdate`], after every start and stop of
//! [`Update`] has been applied, so each player's [`IdleClock`] sees what
//! plays now, whether a playback ended this tick ([`EmoteEndedEvent`]), and
//! what the player did. Its decision goes out as a [`PlayEmoteRequest`]
//! (at most one attempt per player in flight) or a [`StopEmoteRequest`]
//! with [`EndReason::NoLongerIdle`], which playback handles in the next
//! tick's [`Update`]. A start shows in the next tick's observation: an
//! [`ActiveEmote`] of the requested id means it started; none means the
//! playback refused it (the display cap, a first-tick Molang failure,
//! an open two-player offer took the player), and the clock tries again
//! one second after the attempt. The player did not ask, so a refusal is
//! not told in chat (the request is `quiet`: a debug log line), or a full
//! server would tell an idle player so every second. A player who is a two-player partner
//! counts as playing their initiator's emote.
//!
//! The clock only stops what it started: a command or wheel pick that
//! replaces an idle emote ends it (its [`EmoteEndedEvent`] is seen the
//! same tick), so the command's own wake does not stop the new emote.
//! One case is left open: a stop asked in one tick and a new emote asked
//! by the player in the very next tick (within 50 ms of the first action)
//! meet in the same [`Update`], where playback starts before it stops, so
//! the stop ends the new emote.
//!
//! Players who leave lose their [`IdleWatch`] with their entity.

mod wake;

#[cfg(test)]
mod tests;

use valence::event_loop::PacketEvent;
use valence::op_level::OpLevel;
use valence::prelude::*;

use crate::playback::idle::{
    pick, IdleClock, IdleDecision, IdleObservation, IdleRule, IdleWake, PoseWatch,
};
use crate::playback::StepRng;
use crate::server::config::Config;
use crate::server::emote::{ActiveEmote, EmoteCooldowns, EmotePartner};
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::{
    add_shared_events, CameraFlying, EmoteEndedEvent, EndReason, PlayEmoteRequest, StopEmoteRequest,
};
use crate::server::permissions::{PlayerIdentity, PlayerPermissions};

/// Starts and stops idle emotes.
pub struct IdleEmotesPlugin;

/// The idle-emote systems. This set lives in [`PostUpdate`]: it reads what
/// [`EmotePlaybackSet`](crate::server::events::EmotePlaybackSet) started
/// and stopped in [`Update`], and its requests are handled there in the
/// next tick.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IdleEmotesSet;

impl Plugin for IdleEmotesPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app).add_systems(
            PostUpdate,
            (watch_new_players, note_packet_wakes, run_idle_clocks)
                .chain()
                .in_set(IdleEmotesSet),
        );
    }
}

/// One player's idle state: the clock, the pose it compares with, and the
/// rule that applies to them.
#[derive(Component, Debug)]
pub struct IdleWatch {
    clock: IdleClock,
    pose: PoseWatch,
    /// The first wake the player's packets showed this tick.
    woke_by: Option<IdleWake>,
    /// `None` until resolved (again).
    rule: Option<PlayerRule>,
}

/// What a player's permissions give the idle clock.
#[derive(Clone, Debug)]
struct PlayerRule {
    /// The rule, with its emote group's index; `None`: no group gives one.
    idle: Option<(usize, IdleRule)>,
    /// The player holds `emote.bypass`.
    bypass: bool,
}

impl IdleWatch {
    fn new(now_tick: u64, position: &Position, look: &Look) -> Self {
        Self {
            clock: IdleClock::new(now_tick),
            pose: PoseWatch::new(position.0.to_array(), look.yaw, look.pitch),
            woke_by: None,
            rule: None,
        }
    }

    /// The player's idle clock.
    pub fn clock(&self) -> &IdleClock {
        &self.clock
    }

    /// The index in `emote_groups` of the group whose idle rule applies to
    /// the player, once resolved.
    pub fn group_index(&self) -> Option<usize> {
        self.rule.as_ref()?.idle.as_ref().map(|(index, _)| *index)
    }
}

fn now_tick(server: &Server) -> u64 {
    u64::try_from(server.current_tick()).unwrap_or(0)
}

/// Players who joined since the last tick (no [`IdleWatch`] yet).
type UnwatchedPlayers<'w, 's> =
    Query<'w, 's, (Entity, &'static Position, &'static Look), (With<Client>, Without<IdleWatch>)>;

fn watch_new_players(mut commands: Commands, server: Res<Server>, players: UnwatchedPlayers) {
    let now = now_tick(&server);
    for (player, position, look) in &players {
        commands
            .entity(player)
            .insert(IdleWatch::new(now, position, look));
    }
}

fn note_packet_wakes(mut packets: EventReader<PacketEvent>, mut watches: Query<&mut IdleWatch>) {
    for packet in packets.iter() {
        let Some(wake) = wake::wake_of(packet) else {
            continue;
        };
        if let Ok(mut watch) = watches.get_mut(packet.client) {
            watch.woke_by.get_or_insert(wake);
        }
    }
}

/// Players as [`run_idle_clocks`] reads them.
type IdlePlayers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut IdleWatch,
        &'static Position,
        &'static Look,
        &'static Username,
        &'static UniqueId,
        Option<Ref<'static, OpLevel>>,
        Option<&'static ActiveEmote>,
        Option<&'static EmotePartner>,
        Option<&'static CameraFlying>,
    ),
    With<Client>,
>;

#[allow(clippy::too_many_arguments)]
fn run_idle_clocks(
    server: Res<Server>,
    config: Res<Config>,
    library: Option<Res<EmoteLibrary>>,
    cooldowns: Option<Res<EmoteCooldowns>>,
    mut ended: EventReader<EmoteEndedEvent>,
    mut players: IdlePlayers,
    playbacks: Query<&ActiveEmote>,
    mut play: EventWriter<PlayEmoteRequest>,
    mut stop: EventWriter<StopEmoteRequest>,
    mut ended_now: Local<Vec<Entity>>,
) {
    let now = now_tick(&server);
    ended_now.clear();
    ended_now.extend(ended.iter().map(|end| end.client));
    let config_changed = config.is_changed();
    for (player, mut watch, position, look, name, uuid, op, active, partner, flying) in &mut players
    {
        let watch = &mut *watch;
        let level = op.as_ref().map_or(0, |o| o.get());
        if config_changed || op.as_ref().is_some_and(|o| o.is_changed()) {
            watch.rule = None;
        }
        let identity = PlayerIdentity {
            name: &name.0,
            uuid: uuid.0,
        };
        let rule = watch
            .rule
            .get_or_insert_with(|| resolve_rule(&config, identity, level));
        let pose_wake = watch
            .pose
            .observe(position.0.to_array(), look.yaw, look.pitch)
            // The look steers an emote camera: not a sign of life.
            .filter(|w| !(flying.is_some() && *w == IdleWake::LookedAround));
        let wake = pose_wake.or(watch.woke_by.take());
        let playing = active.map(ActiveEmote::emote).or_else(|| {
            let initiator = partner?.initiator;
            playbacks.get(initiator).ok().map(ActiveEmote::emote)
        });
        let decision = watch.clock.observe(&IdleObservation {
            now_tick: now,
            wake,
            ended: ended_now.contains(&player),
            playing,
            delay_ticks: rule.idle.as_ref().map(|(_, r)| r.delay_ticks),
        });
        match decision {
            IdleDecision::Nothing => {}
            IdleDecision::Stop(wake) => stop.send(StopEmoteRequest {
                client: player,
                reason: EndReason::NoLongerIdle(wake),
            }),
            IdleDecision::Attempt => {
                let (Some((_, idle)), Some(library)) = (&rule.idle, &library) else {
                    watch.clock.attempted(None, now);
                    continue;
                };
                let bypass = rule.bypass;
                let may_play = |id: &crate::format::EmoteId| {
                    let Some(loaded) = library.0.get(id.as_str()) else {
                        return false;
                    };
                    let cooling = cooldowns
                        .as_ref()
                        .is_some_and(|c| c.0.remaining_ticks(&uuid.0, id, now) > 0);
                    let disabled = config.permissions.is_disabled(id.as_str());
                    bypass || (loaded.file.is_standalone() && !cooling && !disabled)
                };
                let candidates = idle
                    .candidates
                    .resolve(library.0.iter().map(|(id, _)| id), may_play);
                let mut rng = StepRng::new(uuid.0.as_u128() as u64 ^ now);
                let picked = pick(&candidates, watch.clock.last_played(), &mut rng).cloned();
                if let Some(emote) = &picked {
                    let perms = PlayerPermissions::resolve(&config.permissions, identity, level);
                    tracing::debug!("{} is idle: playing {emote}", name.0);
                    play.send(PlayEmoteRequest {
                        client: player,
                        emote: emote.clone(),
                        bypass,
                        cooldown_multiplier: perms.cooldown_multiplier(emote.as_str()),
                        quiet: true,
                    });
                }
                watch.clock.attempted(picked, now);
            }
        }
    }
}

/// The idle rule and bypass of a player, from the configuration now.
fn resolve_rule(config: &Config, identity: PlayerIdentity, op_level: u8) -> PlayerRule {
    let perms = PlayerPermissions::resolve(&config.permissions, identity, op_level);
    let idle = perms.idle_rule().and_then(|(index, setting)| {
        let option = format!("permissions.emote_groups[{}].idle", index + 1);
        match setting.rule(&option) {
            Ok(rule) => Some((index, rule)),
            Err(e) => {
                // Validated at load; a host that built its Config by hand
                // may still get here.
                tracing::warn!("idle emotes are off for {}: {e}", identity.name);
                None
            }
        }
    });
    PlayerRule {
        idle,
        bypass: perms.bypasses(),
    }
}
