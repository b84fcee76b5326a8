//! What a playing emote is on the player entity: [`ActiveEmote`], its
//! display entities and held-item and stop-condition state, and the
//! wall clock playbacks read.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use valence::math::Mat4;
use valence::prelude::*;

use super::duo_state::*;
use crate::anim::DisplayTransform;
use crate::format::node::{Arm, Participant};
use crate::format::sequence::Step;
use crate::format::{EmoteFile, EmoteId};
use crate::playback::playing::*;
use crate::playback::sequence::{self, Segment, StepRng};
use crate::playback::Cooldowns;
use crate::playback::{PlayerObservation, StopMonitor, StopReason, YawFollower};

/// An entity layer nobody views: a player whose emote sets `player.hidden`
/// is moved there for the playback, so no viewer draws the player's model or
/// equipment; the displays stay in the player's own layer.
#[derive(Resource, Clone, Copy, Debug)]
pub struct HiddenPlayersLayer(pub Entity);

pub(super) fn create_hidden_players_layer(mut commands: Commands, server: Res<Server>) {
    let layer = commands.spawn(EntityLayer::new(&server)).id();
    commands.insert_resource(HiddenPlayersLayer(layer));
}

/// The emote a player is playing: one Animation, or a Sequence of them.
///
/// Every node any of its Animations has (the union, by node id) gets its
/// display entity once, when the playback starts; nodes the playing
/// Animation lacks are hidden.
#[derive(Component)]
pub struct ActiveEmote {
    /// The emote id (an Animation or a Sequence).
    pub emote: EmoteId,
    pub(super) file: Arc<EmoteFile>,
    /// Every Animation it may play, by id.
    pub(super) animations: BTreeMap<EmoteId, PlayableAnimation>,
    /// Union node ids, in the order first seen.
    pub(super) union_ids: Vec<String>,
    /// Display entity per union node (None for anchors).
    pub(super) displays: Vec<Option<Entity>>,
    /// What each union node shows now, in the root's frame (None: hidden).
    pub(super) frame: Vec<Option<Mat4>>,
    pub(super) last_sent: Vec<Option<DisplayTransform>>,
    /// Per union node: the update of more than one tick clients may still
    /// be interpolating (for viewers that arrive in the middle of it).
    pub(super) in_flight: Vec<Option<InFlight>>,
    pub(super) current: Playing,
    pub(super) phase: Phase,
    /// Segments still to play (Sequences).
    pub(super) queue: VecDeque<Segment>,
    /// Seed of this playback; each segment derives its own.
    pub(super) seed: u64,
    pub(super) segments_started: u64,
    pub(super) yaw: YawFollower,
    /// Where the root was placed (the player's feet when it started).
    pub(super) root: DVec3,
    /// For `player.hidden`: the layer to put the player back in.
    pub(super) restore_layer: Option<Entity>,
    /// The stop conditions (a [`StopWatch`] goes on each participant).
    pub(crate) stop_conditions: crate::format::settings::StopConditions,
    /// `player.hidden` (applies to each participant).
    pub(crate) player_hidden: bool,
    /// Where each space's root is.
    pub(crate) roots: SpaceRoots,
    /// Two-player state: `None` for a solo playback.
    pub(crate) duo: Option<Duo>,
    /// Item displays that show what a participant holds.
    pub(super) hands: Vec<HandDisplay>,
    /// Skin-bound item displays (union index) and whose head they wear.
    pub(super) skins: Vec<(usize, Participant)>,
    /// The participants the skins were last dressed for (initiator, partner).
    pub(super) skins_dressed: Option<(Entity, Option<Entity>)>,
    /// Per union node: a `scene` node, placed where the emote started and
    /// not turned with the player afterwards.
    pub(super) scene_nodes: Vec<bool>,
    /// The root rotation when the playback started (for `scene` nodes).
    pub(super) scene_root: Mat4,
    /// The planned updates of the current cycle (`None`: per tick).
    pub(super) schedule: Option<CycleSchedule>,
    /// The timeline position of this tick (for the schedule).
    pub(super) position_ticks: Option<u32>,
    /// The root yaw the schedule's updates were turned by; a turn drops
    /// the schedule for the rest of the cycle.
    pub(super) scheduled_yaw: Option<f32>,
    /// A cycle started this tick (plan it).
    pub(super) cycle_started: bool,
    /// The current cycle waits for a plan (the tick's planning budget was
    /// spent); it streams per tick meanwhile.
    pub(super) plan_pending: bool,
    /// The timeline position (and roots) whose pose was not sampled: the
    /// schedule drew it, and nothing else needed it. `frame` and
    /// `current.pose` are then stale until [`ActiveEmote::refresh_pose`].
    pub(super) stale_pose: Option<(u32, SpaceRoots)>,
}

/// An `item_source: participant_hand` display and what it shows now.
#[derive(Clone, Debug)]
pub(super) struct HandDisplay {
    /// Union node index.
    pub(super) union: usize,
    /// Which hand (right is the main hand, left the off hand).
    pub(super) arm: Arm,
    /// A partner node (or a partner copy): follows the partner's hands.
    pub(super) partner: bool,
    /// The stack last shown.
    pub(super) shown: Option<ItemStack>,
}

/// Put this on a player who rides something: playbacks whose `ride` stop
/// condition is on stop. emoted's default world has nothing to ride; a
/// host game that adds mounts sets it.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Riding;

/// The stop conditions watched on one participant of a playback: what was
/// observed since the last tick, checked and reset every tick.
#[derive(Component)]
pub struct StopWatch {
    pub(super) monitor: StopMonitor,
    pub(super) observed: PlayerObservation,
    /// Ticks checked so far (a game mode "change" on the first is the join).
    pub(super) age_ticks: u64,
}

impl StopWatch {
    /// Watches `conditions` for a participant standing at `position`.
    pub fn new(conditions: crate::format::settings::StopConditions, position: DVec3) -> Self {
        Self {
            monitor: StopMonitor::new(conditions, [position.x, position.z]),
            observed: PlayerObservation {
                horizontal_position: [position.x, position.z],
                ..Default::default()
            },
            age_ticks: 0,
        }
    }

    /// Checks this tick's observations and starts the next tick's.
    pub fn check(&mut self) -> Option<StopReason> {
        let reason = self.monitor.check(&self.observed);
        self.observed = PlayerObservation {
            horizontal_position: self.observed.horizontal_position,
            ..Default::default()
        };
        self.age_ticks += 1;
        reason
    }
}

impl ActiveEmote {
    /// The display entities of this playback.
    pub fn display_entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.displays.iter().flatten().copied()
    }

    /// The update of more than one tick that clients may still be
    /// interpolating for `display`, if any (it may have finished: compare
    /// its tick and duration with the server's tick).
    pub fn in_flight_of(&self, display: Entity) -> Option<InFlight> {
        let union = self.displays.iter().position(|d| *d == Some(display))?;
        self.in_flight.get(union).copied().flatten()
    }

    /// The validated file this playback started from.
    pub fn file(&self) -> &EmoteFile {
        &self.file
    }

    /// Every Animation file the playback may play (for a Sequence, those it
    /// references), by id.
    pub fn animation_files(&self) -> impl Iterator<Item = (&EmoteId, &EmoteFile)> + '_ {
        self.animations.iter().map(|(id, a)| (id, &*a.file))
    }

    /// The id of the Animation playing now (for a Sequence, its current step's).
    pub fn current_animation(&self) -> &EmoteId {
        &self.current.id
    }

    pub(super) fn segment_seed(&mut self) -> u64 {
        self.segments_started += 1;
        self.seed
            .wrapping_add(self.segments_started.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// Plays a two-player branch (`matched` or `timeout`) after the offer:
    /// its steps are resolved now and the first one transitions from the
    /// offer's pose. `false` when the branch picked nothing to play.
    pub(crate) fn begin_branch(&mut self, steps: &[Step], roots: SpaceRoots) -> bool {
        self.roots = roots;
        let animations = &self.animations;
        let loop_delay =
            |reference: &EmoteId| loop_delay_between_cycles(&animations.get(reference)?.file);
        let mut rng = StepRng::new(self.seed ^ 0x5EED_0FB7_A4C4);
        let segments = sequence::resolve(steps, &loop_delay, &mut rng, true);
        self.queue = VecDeque::from(segments);
        self.start_next_segment()
    }

    /// The root's yaw now, in degrees.
    pub(crate) fn root_yaw_degrees(&self) -> f32 {
        self.yaw.yaw_degrees()
    }

    /// Where the root was placed.
    pub(crate) fn root_position(&self) -> DVec3 {
        self.root
    }

    /// Stops the root from following the initiator's yaw (after a match).
    pub(crate) fn freeze_yaw(&mut self) {
        self.yaw.set_deadzone(180.0);
    }

    /// Samples the pose a scheduled tick skipped, so `frame` and the
    /// node poses are current (a turn, a stop or a transition needs them).
    /// The Animation is position-pure, so this is the pose that tick had.
    pub(crate) fn refresh_pose(&mut self) {
        if let Some((position, roots)) = self.stale_pose.take() {
            // It sampled without error when the cycle was planned.
            let _ = self
                .current
                .sample(position, false, &mut self.frame, &roots);
        }
    }

    /// Starts the next segment; `false` when there is none left.
    pub(super) fn start_next_segment(&mut self) -> bool {
        self.refresh_pose();
        loop {
            let Some(segment) = self.queue.pop_front() else {
                return false;
            };
            match segment {
                Segment::Hold { ticks, .. } => {
                    self.phase = Phase::Hold { left_ticks: ticks };
                    return true;
                }
                Segment::Play {
                    animation,
                    transition_ticks,
                    ..
                } => {
                    let Some(playable) = self.animations.get(&animation).cloned() else {
                        continue; // cannot happen: every reference was looked up at start
                    };
                    let seed = self.segment_seed();
                    let Some(next) = Playing::new(
                        animation,
                        &playable,
                        &self.union_ids,
                        PlayMode::OneCycle,
                        seed,
                    ) else {
                        continue;
                    };
                    // Matched participants stay where they were placed.
                    let matched = self.duo.as_ref().is_some_and(Duo::is_matched);
                    if let (Some(a), false) = (next.animation(), matched) {
                        self.yaw.set_deadzone(a.settings.rotation_deadzone_degrees);
                    }
                    self.phase = if transition_ticks > 0 {
                        let to = next.preview_first_frame(self.union_ids.len(), &self.roots);
                        let split = |f: &[Option<Mat4>]| -> Vec<Option<DisplayTransform>> {
                            f.iter()
                                .map(|m| m.map(|m| DisplayTransform::from_matrix(&m)))
                                .collect()
                        };
                        Phase::Transition {
                            from: split(&self.frame),
                            to: split(&to),
                            done_ticks: 0,
                            total_ticks: transition_ticks,
                        }
                    } else {
                        Phase::Timeline
                    };
                    self.current = next;
                    return true;
                }
            }
        }
    }
}

/// Replaces the wall clock that `server_sync` follows with the server's own
/// tick counter plus `start_tick`: for runs that tick faster than real time
/// (`emoted loadtest`), where the real wall clock would barely move.
#[derive(Resource, Clone, Copy, Debug)]
pub struct SimulatedWallClock {
    /// The wall tick at server tick 0.
    pub start_tick: u64,
}

/// The server tick counter used for cooldowns.
pub(super) fn now_tick(server: &Server) -> u64 {
    u64::try_from(server.current_tick()).unwrap_or(0)
}

/// How display transformations are sent.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DisplayUpdatePolicy {
    /// One update per stretch the client can interpolate within tolerance
    /// ([`crate::playback::schedule`]), per-tick where it cannot.
    #[default]
    Scheduled,
    /// Every changed node every tick, with a one-tick interpolation (the
    /// naive baseline `emoted loadtest --per-tick` measures).
    PerTick,
}

/// Cooldowns by player UUID and emote id.
#[derive(Resource, Default)]
pub struct EmoteCooldowns(pub Cooldowns<Uuid, EmoteId>);
