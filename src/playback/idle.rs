//! Idle emotes: what a player plays by themself after standing quiet for a
//! while. The server feeds each player's [`IdleClock`] what it saw in a
//! tick and acts on the [`IdleDecision`]; which emote to play comes from
//! the rule's [`IdleCandidates`], resolved against the emotes loaded now,
//! and [`pick`].
//!
//! # What counts as idle
//!
//! A player is idle while they do nothing at all: their feet stay within
//! [`MOVE_EPSILON_BLOCKS`] of where they were when they were last active,
//! their yaw and pitch within [`LOOK_EPSILON_DEGREES`] (both watched by
//! [`PoseWatch`]), and they do not chat, run or type a command, swing,
//! click, dig, use an item or an entity, sneak or sprint, or touch their
//! inventory (the server reads those from the client's packets). Whatever
//! ends it is an [`IdleWake`], which says what the player did.
//!
//! # The clock
//!
//! The clock counts from its *quiet point*: the tick of the last activity,
//! or the tick the player's last playback ended, whatever ended it (so a
//! finished idle emote repeats `delay` later while the player stays idle,
//! and a stop from anything else counts as activity). An attempt is due
//! once `delay` ticks have passed since the quiet point, nothing plays,
//! and the retry wait is over. Each observation moves the clock through
//! these phases:
//!
//! | phase | meaning | next |
//! |---|---|---|
//! | waiting | nothing plays | due: [`IdleDecision::Attempt`], then *requested* (or waiting [`RETRY_TICKS`] when no candidate could play); an emote plays: *busy* |
//! | requested | a start was asked; the next observation shows its outcome | the emote plays: *playing*; nothing plays: it failed, *waiting*, the next attempt [`RETRY_TICKS`] after this one; another emote plays, or one ended: *busy* or *waiting* |
//! | playing | the idle emote plays | a wake: [`IdleDecision::Stop`], then *stopping*; it ends or is replaced: *waiting* or *busy* |
//! | stopping | a stop was asked | it ends: *waiting* (or *busy* when something replaced it) |
//! | busy | an emote the clock did not start plays | it ends: *waiting* |
//!
//! Idle emotes never start while another emote plays, and a wake during
//! someone else's emote only moves the quiet point: the clock stops only
//! what it started.
//!
//! # Candidates
//!
//! A rule lists either ids and `*` globs with equal chance (a glob stands
//! for every loaded id it matches, each counted once however many entries
//! match it) or exact ids with weights that sum to [`WEIGHT_TOTAL`]. Both
//! resolve against the ids loaded at the moment of the attempt, so a reload
//! that adds or removes emotes applies at once; ids that are not loaded, or
//! that the server says may not play now (not standalone, cooling down),
//! drop out and the others' weights are renormalised. [`pick`] avoids the
//! emote played last when another candidate remains.

use crate::format::ident::glob_matches;
use crate::format::EmoteId;
use crate::playback::sequence::StepRng;

/// Ticks from a failed attempt to the next one (1 s).
pub const RETRY_TICKS: u64 = 20;

/// How far, in blocks, a player's feet may drift from where they were when
/// they were last active before it counts as moving: far less than a step,
/// more than the rounding a still client's position packets show.
pub const MOVE_EPSILON_BLOCKS: f64 = 0.01;

/// How far, in degrees, yaw or pitch may drift before it counts as looking
/// around (a vanilla client turns in steps of 0.15° at the lowest mouse
/// sensitivity).
pub const LOOK_EPSILON_DEGREES: f32 = 0.1;

/// What weighted candidates must add up to.
pub const WEIGHT_TOTAL: u32 = 100;

/// What a player did that ended their idleness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdleWake {
    /// The feet moved (walking, falling, being pushed or teleported),
    /// or the player started or stopped sneaking or sprinting.
    Moved,
    /// Yaw or pitch changed.
    LookedAround,
    /// A chat message.
    Chatted,
    /// A command, or a tab-completion request while typing one.
    Command,
    /// A swing, a click on a block or an entity, digging, or using an item.
    Clicked,
    /// A click in an open window or the inventory, a hotbar change, a
    /// dropped item, or swapping hands.
    Inventory,
}

impl IdleWake {
    /// A short phrase for chat, as the player reads it ("you moved").
    pub fn describe(self) -> &'static str {
        self.phrases().0
    }

    /// The whole line a player reads when this ends their idle emote
    /// ("Emote stopped: you moved").
    pub fn stop_notice(self) -> &'static str {
        self.phrases().1
    }

    fn phrases(self) -> (&'static str, &'static str) {
        match self {
            IdleWake::Moved => ("you moved", "Emote stopped: you moved"),
            IdleWake::LookedAround => ("you looked around", "Emote stopped: you looked around"),
            IdleWake::Chatted => ("you chatted", "Emote stopped: you chatted"),
            IdleWake::Command => ("you used a command", "Emote stopped: you used a command"),
            IdleWake::Clicked => ("you clicked", "Emote stopped: you clicked"),
            IdleWake::Inventory => (
                "you used your inventory",
                "Emote stopped: you used your inventory",
            ),
        }
    }
}

/// Where a player stands and looks, watched for movement and turns beyond
/// [`MOVE_EPSILON_BLOCKS`] and [`LOOK_EPSILON_DEGREES`].
///
/// Each is measured from where the player was when last seen moving (or
/// turning), not from the previous tick, so a slow creep adds up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoseWatch {
    position: [f64; 3],
    yaw_degrees: f32,
    pitch_degrees: f32,
}

impl PoseWatch {
    /// Starts watching a player standing at `position` (feet, blocks) and
    /// looking at `yaw_degrees`, `pitch_degrees`.
    pub fn new(position: [f64; 3], yaw_degrees: f32, pitch_degrees: f32) -> Self {
        Self {
            position,
            yaw_degrees,
            pitch_degrees,
        }
    }

    /// Compares this tick's pose with the watched one: moving wins over
    /// looking when both happened. Whatever changed becomes the new
    /// reference.
    pub fn observe(
        &mut self,
        position: [f64; 3],
        yaw_degrees: f32,
        pitch_degrees: f32,
    ) -> Option<IdleWake> {
        let moved = self
            .position
            .iter()
            .zip(position)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            > MOVE_EPSILON_BLOCKS * MOVE_EPSILON_BLOCKS;
        let looked = (self.yaw_degrees - yaw_degrees).abs() > LOOK_EPSILON_DEGREES
            || (self.pitch_degrees - pitch_degrees).abs() > LOOK_EPSILON_DEGREES;
        if moved {
            self.position = position;
        }
        if looked {
            self.yaw_degrees = yaw_degrees;
            self.pitch_degrees = pitch_degrees;
        }
        match (moved, looked) {
            (true, _) => Some(IdleWake::Moved),
            (false, true) => Some(IdleWake::LookedAround),
            (false, false) => None,
        }
    }
}

/// The emotes an idle rule may play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdleCandidates {
    /// Ids and `*` globs; every loaded id they match has the same chance.
    Equal(Vec<String>),
    /// Exact ids, each with a weight; the weights add up to
    /// [`WEIGHT_TOTAL`] (the configuration checks it).
    Weighted(Vec<(EmoteId, u32)>),
}

/// One permission group's idle rule, ready to use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdleRule {
    /// Quiet ticks before an idle emote starts (and between repeats).
    pub delay_ticks: u32,
    /// What it may play.
    pub candidates: IdleCandidates,
}

impl IdleCandidates {
    /// The loaded ids this rule may play now, each with its weight (1 for
    /// [`IdleCandidates::Equal`]), in the order of `loaded`; an id is kept
    /// only when `eligible` says it may play now.
    pub fn resolve<'a>(
        &self,
        loaded: impl IntoIterator<Item = &'a EmoteId>,
        mut eligible: impl FnMut(&EmoteId) -> bool,
    ) -> Vec<(&'a EmoteId, u32)> {
        loaded
            .into_iter()
            .filter_map(|id| {
                let weight = match self {
                    IdleCandidates::Equal(patterns) => patterns
                        .iter()
                        .any(|p| glob_matches(p, id.as_str()))
                        .then_some(1),
                    IdleCandidates::Weighted(entries) => entries
                        .iter()
                        .find(|(entry, _)| entry == id)
                        .map(|(_, weight)| *weight),
                }?;
                (weight > 0 && eligible(id)).then_some((id, weight))
            })
            .collect()
    }
}

/// Draws one of `candidates` with chances in proportion to their weights,
/// leaving out `last` (the emote played last) when another candidate
/// remains; the others' weights are renormalised. `None` when there is
/// nothing to pick.
pub fn pick<'a>(
    candidates: &[(&'a EmoteId, u32)],
    last: Option<&EmoteId>,
    rng: &mut StepRng,
) -> Option<&'a EmoteId> {
    let others = candidates
        .iter()
        .filter(|(id, _)| Some(*id) != last)
        .count();
    let avoided = |id: &EmoteId| others > 0 && Some(id) == last;
    let total: u32 = candidates
        .iter()
        .filter(|(id, _)| !avoided(id))
        .map(|(_, w)| *w)
        .sum();
    if total == 0 {
        return None;
    }
    let mut ticket = rng.below(total);
    for (id, weight) in candidates.iter().filter(|(id, _)| !avoided(id)) {
        if ticket < *weight {
            return Some(*id);
        }
        ticket -= weight;
    }
    None
}

/// What the server saw of one player in one tick, after the tick's
/// starts and stops.
#[derive(Clone, Copy, Debug)]
pub struct IdleObservation<'a> {
    /// The server tick.
    pub now_tick: u64,
    /// What the player did this tick, if anything (one wake is enough).
    pub wake: Option<IdleWake>,
    /// A playback of this player ended this tick, whatever ended it (a
    /// replacement by another emote too).
    pub ended: bool,
    /// The emote the player plays now, if any.
    pub playing: Option<&'a EmoteId>,
    /// The delay of the idle rule that applies to the player now; `None`
    /// when no rule does (the clock then never attempts).
    pub delay_ticks: Option<u32>,
}

/// What the server should do for the player now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleDecision {
    /// Nothing.
    Nothing,
    /// Pick a candidate and ask to start it, then tell the clock with
    /// [`IdleClock::attempted`].
    Attempt,
    /// Stop the idle emote the clock started: the player woke up.
    Stop(IdleWake),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    Waiting,
    Requested { emote: EmoteId, at_tick: u64 },
    Playing(EmoteId),
    Stopping,
    Busy,
}

/// One player's idle clock (see the [module docs](self) for its phases).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdleClock {
    quiet_since_tick: u64,
    retry_at_tick: u64,
    phase: Phase,
    last_played: Option<EmoteId>,
}

impl IdleClock {
    /// A clock for a player who arrived at `now_tick` (arriving counts as
    /// activity).
    pub fn new(now_tick: u64) -> Self {
        Self {
            quiet_since_tick: now_tick,
            retry_at_tick: 0,
            phase: Phase::Waiting,
            last_played: None,
        }
    }

    /// The tick the quiet stretch began: the last activity, or the end of
    /// the last playback.
    pub fn quiet_since_tick(&self) -> u64 {
        self.quiet_since_tick
    }

    /// The idle emote that played last, which the next pick avoids.
    pub fn last_played(&self) -> Option<&EmoteId> {
        self.last_played.as_ref()
    }

    /// True while an emote the clock started plays (until it is seen to
    /// end).
    pub fn plays_idle_emote(&self) -> bool {
        matches!(self.phase, Phase::Playing(_) | Phase::Stopping)
    }

    /// Takes one tick's observation and says what to do.
    pub fn observe(&mut self, seen: &IdleObservation<'_>) -> IdleDecision {
        let now = seen.now_tick;
        if seen.wake.is_some() || seen.ended {
            self.quiet_since_tick = now;
        }
        let other_or_none = |playing: Option<&EmoteId>| match playing {
            Some(_) => Phase::Busy,
            None => Phase::Waiting,
        };
        // An emote that stops playing (even one whose end was not seen, such
        // as a two-player partner's) moves the quiet point too.
        let was_playing = matches!(
            self.phase,
            Phase::Playing(_) | Phase::Stopping | Phase::Busy
        );
        self.phase = match std::mem::replace(&mut self.phase, Phase::Waiting) {
            Phase::Requested { emote, at_tick } => match seen.playing {
                // Started and kept: the attempt worked.
                Some(playing) if *playing == emote && !seen.ended => {
                    self.last_played = Some(emote.clone());
                    Phase::Playing(emote)
                }
                // Refused: retry a second after the attempt.
                None if !seen.ended => {
                    self.retry_at_tick = at_tick + RETRY_TICKS;
                    Phase::Waiting
                }
                // Replaced at once, or something else plays: not ours.
                playing => other_or_none(playing),
            },
            Phase::Playing(emote) if !seen.ended && seen.playing == Some(&emote) => {
                match seen.wake {
                    Some(wake) => {
                        self.phase = Phase::Stopping;
                        return IdleDecision::Stop(wake);
                    }
                    None => Phase::Playing(emote),
                }
            }
            Phase::Stopping if !seen.ended && seen.playing.is_some() => Phase::Stopping,
            Phase::Playing(_) | Phase::Stopping | Phase::Busy | Phase::Waiting => {
                other_or_none(seen.playing)
            }
        };
        if was_playing && self.phase == Phase::Waiting {
            self.quiet_since_tick = now;
        }
        let due = match (seen.delay_ticks, &self.phase) {
            (Some(delay), Phase::Waiting) => {
                seen.wake.is_none()
                    && now >= self.quiet_since_tick + u64::from(delay)
                    && now >= self.retry_at_tick
            }
            _ => false,
        };
        if due {
            IdleDecision::Attempt
        } else {
            IdleDecision::Nothing
        }
    }

    /// After [`IdleDecision::Attempt`]: `Some(emote)` when a start of
    /// `emote` was asked (its outcome shows in the next observation),
    /// `None` when no candidate could play (the next attempt waits
    /// [`RETRY_TICKS`]).
    pub fn attempted(&mut self, emote: Option<EmoteId>, now_tick: u64) {
        match emote {
            Some(emote) => {
                self.phase = Phase::Requested {
                    emote,
                    at_tick: now_tick,
                }
            }
            None => self.retry_at_tick = now_tick + RETRY_TICKS,
        }
    }
}

#[cfg(test)]
mod tests;
