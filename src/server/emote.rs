//! Playing Animations and Sequences for players with display entities.
//!
//! One [`ActiveEmote`] lives on the (initiating) player entity while an
//! emote plays. Each display node of the union of its Animations gets one
//! display entity, spawned once, that stays where the root was placed
//! (1.20.1 snaps entity moves); the whole pose goes in its transformation,
//! `T · R_left · S · R_right`, decomposed from the node's matrix turned by the
//! root's yaw. Every update re-sends `start_interpolation` 0 with an
//! `interpolation_duration` of one tick (the time until the next update);
//! of the transformation only the fields that changed are written, and a
//! node that did not move sends nothing. A hidden node is drawn at scale 0.
//!
//! Roots: all spaces start at the player's feet and yaw where the emote
//! started. `initiator` (and `partner` in a solo playback) turn with the
//! player's yaw through the rotation deadzone; `scene` stays as it started.
//! After a two-player match the initiator and partner roots are where
//! `participants` placed them ([`crate::server::duo`]). Minecraft yaw 0
//! faces +Z, and emote space faces +Z too, so a root rotation is `R_y(−yaw)`.
//!
//! A Sequence plays as segments ([`crate::playback::sequence`]): one cycle
//! of an Animation each, holds for `wait` steps and loop delays, and
//! transitions that move the shown nodes from the last pose to the next
//! Animation's first pose as the client would interpolate them.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use valence::entity::block_display::BlockDisplayEntityBundle;
use valence::entity::display::{
    Billboard, Brightness, GlowColorOverride, Height, InterpolationDuration, LeftRotation,
    RightRotation, Scale, ShadowRadius, ShadowStrength, StartInterpolation, Translation, ViewRange,
    Width,
};
use valence::entity::entity::Flags;
use valence::entity::item_display::ItemDisplayEntityBundle;
use valence::entity::text_display::{
    Background, LineWidth, TextDisplayEntityBundle, TextDisplayFlags, TextOpacity,
};
use valence::interact_entity::{EntityInteraction, InteractEntityEvent};
use valence::inventory::HeldItem;
use valence::math::{Mat4, Quat, Vec3};
use valence::movement::MovementEvent;
use valence::nbt::{Compound, Value};
use valence::prelude::*;

use crate::anim::{DisplayTransform, Pose};
use crate::format::animation::AnimationFile;
use crate::format::event::{CommandEvent, EventSource, OriginAnchor};
use crate::format::node::{Arm, ItemContent, NodeKind, Participant, Space};
use crate::format::sequence::Step;
use crate::format::settings::PlaybackMode;
use crate::format::snbt::as_number;
use crate::format::{EmoteFile, EmoteId};
use crate::library::{CompiledAnimation, MolangState};
use crate::playback::schedule::{update_at, DisplayUpdate, Planner, Tolerance};
use crate::playback::sequence::{self, Segment, StepRng};
use crate::playback::{
    Clock, ClockStep, Cooldowns, PlayerObservation, StopMonitor, StopReason, YawFollower,
};
use crate::server::duo::Duo;
use crate::server::events::{
    CommandSource, EmoteCommandEvent, EmoteDisplay, EmoteEndedEvent, EmotePlaybackSet, EndReason,
    PlayEmoteRequest, PlayerDamagedEvent, PlayerDiedEvent, StopEmoteRequest,
};
use crate::server::EmoteLibrary;

/// Plays emotes: starts, advances and stops playbacks, and cleans up after them.
pub struct EmotePlaybackPlugin;

impl Plugin for EmotePlaybackPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<EmoteCooldowns>()
            .init_resource::<crate::server::duo::JoinedThisTick>()
            .init_resource::<PlanCache>()
            .add_event::<EmoteCommandEvent>()
            .add_event::<PlayEmoteRequest>()
            .add_event::<StopEmoteRequest>()
            .add_event::<EmoteEndedEvent>()
            // Sent by the combat plugin; registered here too so playback
            // works on a server without it.
            .add_event::<PlayerDamagedEvent>()
            .add_event::<PlayerDiedEvent>()
            .add_systems(Startup, create_hidden_players_layer)
            .add_systems(
                Update,
                (
                    apply_display_tolerance,
                    end_emotes_of_dead_players,
                    crate::server::duo::join_offers,
                    start_requested_emotes,
                    stop_requested_emotes,
                    observe_players,
                    advance_emotes,
                    follow_held_items,
                    dress_skins,
                    crate::server::duo::run_offers,
                    crate::server::duo::watch_partners,
                    end_emotes_of_leaving_players,
                    despawn_orphan_displays,
                    log_failed_emotes,
                )
                    .chain()
                    .in_set(EmotePlaybackSet),
            );
    }
}

/// An entity layer nobody views: a player whose emote sets `player.hidden`
/// is moved there for the playback, so no viewer draws the player's model or
/// equipment; the displays stay in the player's own layer.
#[derive(Resource, Clone, Copy, Debug)]
pub struct HiddenPlayersLayer(pub Entity);

fn create_hidden_players_layer(mut commands: Commands, server: Res<Server>) {
    let layer = commands.spawn(EntityLayer::new(&server)).id();
    commands.insert_resource(HiddenPlayersLayer(layer));
}

/// The Molang operations sampling one cycle ahead for the scheduler may
/// run in a tick (see `Playing::plan_cycle`): four times the default
/// per-tick budget, about 0.6 ms.
const PLANNING_MOLANG_OPS: u64 = 4 * crate::molang::DEFAULT_OP_BUDGET;

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

/// The delay a Sequence holds between two cycles of `file` (a `loop`
/// Animation's `loop_delay`; `None` for other modes and Sequences).
fn loop_delay_between_cycles(file: &EmoteFile) -> Option<u32> {
    match file {
        EmoteFile::Animation(a) if a.settings.playback.mode == PlaybackMode::Loop => {
            Some(a.settings.playback.loop_delay_ticks)
        }
        _ => None,
    }
}

/// An Animation a playback may play, looked up once when it starts.
#[derive(Clone)]
struct PlayableAnimation {
    file: Arc<EmoteFile>,
    compiled: Arc<CompiledAnimation>,
    /// `[emotes] molang_budget_ops` when the playback started.
    molang_budget_ops: u64,
}

/// The Animation segment of a playback that plays (or last played).
/// A clone continues exactly as the original would.
#[derive(Clone)]
struct Playing {
    id: EmoteId,
    file: Arc<EmoteFile>,
    compiled: Arc<CompiledAnimation>,
    clock: Clock,
    molang: MolangState,
    pose: Pose,
    /// The union node index of each rig node.
    rig_to_union: Vec<usize>,
    /// The union index of each rig node's partner copy (two-player
    /// Sequences mirror Animations that have no `partner` nodes).
    rig_to_mirror: Vec<usize>,
    /// The space each rig node inherits from its root.
    spaces: Vec<Space>,
    /// Per union node: whether a rig node of this Animation draws it (the
    /// others stay hidden while it plays).
    covers: Arc<[bool]>,
    /// A `loop` Animation inside a Sequence: its `loop` events run when its
    /// one cycle ends.
    loops_in_sequence: bool,
    /// Its `stop` events already ran (they run once).
    stop_fired: bool,
}

/// How a segment's Animation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PlayMode {
    /// In its own mode (a standalone playback).
    Own,
    /// One cycle (a Sequence step).
    OneCycle,
    /// Looping until something else happens (a two-player offer).
    Looping,
}

/// Where each space's root is, in the emote frame (the initiator's root,
/// which the root yaw turns). Solo playbacks use the identity for all.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SpaceRoots {
    /// `initiator` space.
    pub(crate) initiator: Mat4,
    /// `partner` space; `None` hides partner content (no partner yet).
    pub(crate) partner: Option<Mat4>,
    /// Copy `initiator` nodes onto the partner for Animations without
    /// `partner` nodes (after a match).
    pub(crate) mirror: bool,
}

impl SpaceRoots {
    /// A playback with one participant.
    pub(crate) const SOLO: Self = Self {
        initiator: Mat4::IDENTITY,
        partner: Some(Mat4::IDENTITY),
        mirror: false,
    };
    /// A two-player offer (or its timeout branch): partner content hidden.
    pub(crate) const OFFER: Self = Self {
        initiator: Mat4::IDENTITY,
        partner: None,
        mirror: false,
    };
}

/// The union id of a node's partner copy.
fn mirror_id(id: &str) -> String {
    format!("{id}@partner")
}

impl Playing {
    fn new(
        id: EmoteId,
        playable: &PlayableAnimation,
        union_ids: &[String],
        play_mode: PlayMode,
        seed: u64,
    ) -> Option<Self> {
        let EmoteFile::Animation(animation) = &*playable.file else {
            return None;
        };
        let compiled = Arc::clone(&playable.compiled);
        let playback = &animation.settings.playback;
        let mode = match play_mode {
            PlayMode::Own => playback.mode,
            PlayMode::OneCycle => PlaybackMode::Once,
            PlayMode::Looping => PlaybackMode::Loop,
        };
        let in_sequence = play_mode == PlayMode::OneCycle;
        let index_of = |id: &str| union_ids.iter().position(|u| u == id).unwrap_or(usize::MAX);
        let rig_to_union: Vec<usize> = compiled.rig.nodes.iter().map(|n| index_of(&n.id)).collect();
        let mut covers = vec![false; union_ids.len()];
        for &u in &rig_to_union {
            if let Some(c) = covers.get_mut(u) {
                *c = true;
            }
        }
        let rig_to_mirror = compiled
            .rig
            .nodes
            .iter()
            .map(|n| index_of(&mirror_id(&n.id)))
            .collect();
        let spaces = compiled
            .rig
            .nodes
            .iter()
            .map(|n| animation.node(&n.id).map_or(Space::Initiator, |f| f.space))
            .collect();
        Some(Self {
            id,
            file: Arc::clone(&playable.file),
            clock: Clock::new(
                mode,
                animation.timeline.duration_ticks,
                playback.loop_delay_ticks,
            ),
            molang: compiled
                .new_molang_state(seed)
                .with_budget_ops(playable.molang_budget_ops),
            pose: Pose::new(&compiled.rig),
            rig_to_union,
            rig_to_mirror,
            spaces,
            covers: covers.into(),
            loops_in_sequence: in_sequence && playback.mode == PlaybackMode::Loop,
            stop_fired: false,
            compiled,
        })
    }

    fn animation(&self) -> Option<&AnimationFile> {
        match &*self.file {
            EmoteFile::Animation(a) => Some(a),
            EmoteFile::Sequence(_) => None,
        }
    }

    /// One timeline tick: the pose, as root-frame matrices per union node
    /// (`None`: hidden), written into `frame`.
    fn step(
        &mut self,
        wall: u64,
        frame: &mut [Option<Mat4>],
        roots: &SpaceRoots,
    ) -> Result<ClockStep, crate::anim::SampleError> {
        let step = self.advance_clock(wall)?;
        self.sample(step.position_ticks, step.advancing, frame, roots)?;
        Ok(step)
    }

    /// The clock's tick, and the Molang cycle start when one begins; the
    /// pose is not sampled (see [`Playing::sample`]).
    fn advance_clock(&mut self, wall: u64) -> Result<ClockStep, crate::anim::SampleError> {
        let step = self.clock.step(wall);
        if step.cycle_started {
            self.compiled
                .begin_cycle(&mut self.molang, step.loop_count)?;
        }
        Ok(step)
    }

    /// Samples the pose at `position_ticks` into `self.pose` and `frame`.
    fn sample(
        &mut self,
        position_ticks: u32,
        advancing: bool,
        frame: &mut [Option<Mat4>],
        roots: &SpaceRoots,
    ) -> Result<(), crate::anim::SampleError> {
        self.compiled
            .step(&mut self.molang, position_ticks, advancing, &mut self.pose)?;
        self.frame_of_pose(roots, frame);
        Ok(())
    }

    /// The timeline events of the playing Animation whose time falls in
    /// `range` (the positions a tick covered).
    fn events_in<'a>(
        &'a self,
        range: Option<&'a std::ops::RangeInclusive<u32>>,
    ) -> impl Iterator<Item = &'a CommandEvent> + 'a {
        self.animation()
            .zip(range)
            .into_iter()
            .flat_map(|(animation, range)| {
                animation
                    .timeline
                    .events
                    .timeline
                    .iter()
                    .filter(move |e| range.contains(&e.time_ticks))
                    .map(|e| &e.event)
            })
    }

    /// True when the pose at a position can be sampled at any time, without
    /// the ticks before it: every cycle is alike and nothing carries state
    /// from tick to tick (no `molang.tick`, no track writes a variable).
    fn is_position_pure(&self) -> bool {
        self.compiled.is_position_pure()
    }

    /// True when nothing but the timeline decides this Animation's poses:
    /// every cycle of every playback is the same, so one plan serves them
    /// all.
    fn is_pure(&self) -> bool {
        self.compiled.is_cycle_invariant()
    }

    /// Plans the display updates of the cycle that just started, from
    /// `first_position` (0, or where a `server_sync` playback joined; that
    /// tick was sampled into `self.pose`): the rest of the cycle is sampled
    /// on a copy of this playback (same clock, same Molang state, so the
    /// same poses), and each rig node's updates are planned over it, in the
    /// emote frame with `roots` applied. A `server_sync` cycle is sampled
    /// as if the wall clock moved one tick per server tick; when it does
    /// not, the server drops the plan ([`send_pose`]).
    fn plan_cycle(
        &self,
        roots: &SpaceRoots,
        planner: &mut Planner,
        tolerance: Tolerance,
        first_position: u32,
    ) -> Option<Vec<Vec<DisplayUpdate>>> {
        let animation = self.animation()?;
        let server_sync = animation.settings.playback.mode == PlaybackMode::ServerSync;
        let nodes = self.compiled.rig.nodes.len();
        // One slot per rig node: the copy writes rig order, no mirrors.
        let mut copy = Playing {
            rig_to_union: (0..nodes).collect(),
            rig_to_mirror: vec![usize::MAX; nodes],
            ..self.clone()
        };
        let mut frame = vec![None; nodes];
        copy.frame_of_pose(roots, &mut frame);
        let mut frames: Vec<Vec<Option<Mat4>>> = frame.iter().map(|f| vec![*f]).collect();
        let duration = animation.timeline.duration_ticks;
        // A cycle with no delay after it wraps from D − 1 to 0: D itself is
        // never shown (the loop case finds that out from its clock).
        let last = if server_sync && animation.settings.playback.loop_delay_ticks == 0 {
            duration.saturating_sub(1)
        } else {
            duration
        };
        // Sampling ahead runs the cycle's Molang in this one tick: past
        // PLANNING_MOLANG_OPS operations (a few ticks' worth of the
        // playback's own budget) the cycle is not planned and streams per
        // tick instead, so a heavy program costs its own tick's budget and
        // no more.
        let mut molang_ops: u64 = 0;
        for expected in first_position + 1..=last {
            if server_sync {
                copy.sample(expected, true, &mut frame, roots).ok()?;
            } else {
                let step = copy.step(0, &mut frame, roots).ok()?;
                if step.position_ticks != expected {
                    break; // a loop wraps to 0, or a delay holds the end
                }
            }
            molang_ops = molang_ops.saturating_add(copy.molang.session.ops_used());
            if molang_ops > PLANNING_MOLANG_OPS {
                return None;
            }
            for (node, f) in frames.iter_mut().zip(&frame) {
                node.push(*f);
            }
        }
        Some(
            frames
                .iter()
                .map(|node| {
                    let mut out = Vec::new();
                    planner.plan_into(node, tolerance, &mut out);
                    out
                })
                .collect(),
        )
    }

    /// Writes the current pose into `frame`, by union index.
    fn frame_of_pose(&self, roots: &SpaceRoots, frame: &mut [Option<Mat4>]) {
        frame.fill(None);
        for (i, (rig_node, pose)) in self
            .compiled
            .rig
            .nodes
            .iter()
            .zip(&self.pose.nodes)
            .enumerate()
        {
            if !(rig_node.is_display && pose.visible) {
                continue;
            }
            let local = Mat4::from(pose.matrix);
            let root = match self.spaces[i] {
                Space::Scene => Some(Mat4::IDENTITY),
                Space::Initiator => Some(roots.initiator),
                Space::Partner => roots.partner,
            };
            if let Some(slot) = frame.get_mut(self.rig_to_union[i]) {
                *slot = root.map(|r| r * local);
            }
            if roots.mirror && self.spaces[i] == Space::Initiator {
                if let (Some(slot), Some(partner)) =
                    (frame.get_mut(self.rig_to_mirror[i]), roots.partner)
                {
                    *slot = Some(partner * local);
                }
            }
        }
    }

    /// The pose of this (not yet started) Animation's first tick, computed
    /// on a clone, so the real first tick matches it.
    fn preview_first_frame(&self, union_len: usize, roots: &SpaceRoots) -> Vec<Option<Mat4>> {
        let mut copy = self.clone();
        let mut frame = vec![None; union_len];
        if copy.step(wall_tick(), &mut frame, roots).is_err() {
            frame.fill(None);
        }
        frame
    }
}

/// The planned display updates of the cycle playing now.
struct CycleSchedule {
    /// Per rig node of the playing Animation, its updates over the cycle
    /// (ticks counted from `first_position`); shared between playbacks of a
    /// pure Animation.
    plans: Arc<Vec<Vec<DisplayUpdate>>>,
    /// The timeline position the plan starts at: 0, or where a `server_sync`
    /// playback joined its cycle.
    first_position: u32,
    /// The timeline position whose updates were last sent (a held position
    /// sends nothing more).
    last_position: Option<u32>,
}

/// What a playback is doing this tick.
enum Phase {
    /// Moving the shared nodes from the previous pose to the first pose of
    /// the segment about to play, over `total_ticks`.
    Transition {
        from: Vec<Option<DisplayTransform>>,
        to: Vec<Option<DisplayTransform>>,
        done_ticks: u32,
        total_ticks: u32,
    },
    /// Playing the current Animation's timeline.
    Timeline,
    /// Holding the last pose (a `wait` step or a loop delay).
    Hold {
        /// Ticks still to hold.
        left_ticks: u32,
    },
}

/// A display update of more than one tick, as every viewer got it: a viewer
/// that arrives while clients interpolate it is told to draw the same
/// ([`crate::server::cull`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InFlight {
    /// What clients showed when it was sent: where the interpolation starts.
    pub from: DisplayTransform,
    /// Its target.
    pub to: DisplayTransform,
    /// The server tick it was sent on (`Server::current_tick`).
    pub sent_tick: i64,
    /// Its `interpolation_duration`.
    pub duration_ticks: u32,
}

impl InFlight {
    /// Ticks still to interpolate at server tick `now` (0 once finished).
    pub fn remaining_ticks(&self, now: i64) -> i64 {
        (i64::from(self.duration_ticks) - (now - self.sent_tick)).max(0)
    }
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
    file: Arc<EmoteFile>,
    /// Every Animation it may play, by id.
    animations: BTreeMap<EmoteId, PlayableAnimation>,
    /// Union node ids, in the order first seen.
    union_ids: Vec<String>,
    /// Display entity per union node (None for anchors).
    displays: Vec<Option<Entity>>,
    /// What each union node shows now, in the root's frame (None: hidden).
    frame: Vec<Option<Mat4>>,
    last_sent: Vec<Option<DisplayTransform>>,
    /// Per union node: the update of more than one tick clients may still
    /// be interpolating (for viewers that arrive in the middle of it).
    in_flight: Vec<Option<InFlight>>,
    current: Playing,
    phase: Phase,
    /// Segments still to play (Sequences).
    queue: VecDeque<Segment>,
    /// Seed of this playback; each segment derives its own.
    seed: u64,
    segments_started: u64,
    yaw: YawFollower,
    /// Where the root was placed (the player's feet when it started).
    root: DVec3,
    /// For `player.hidden`: the layer to put the player back in.
    restore_layer: Option<Entity>,
    /// The stop conditions (a [`StopWatch`] goes on each participant).
    pub(crate) stop_conditions: crate::format::settings::StopConditions,
    /// `player.hidden` (applies to each participant).
    pub(crate) player_hidden: bool,
    /// Where each space's root is.
    pub(crate) roots: SpaceRoots,
    /// Two-player state: `None` for a solo playback.
    pub(crate) duo: Option<Duo>,
    /// Item displays that show what a participant holds.
    hands: Vec<HandDisplay>,
    /// Skin-bound item displays (union index) and whose head they wear.
    skins: Vec<(usize, Participant)>,
    /// The participants the skins were last dressed for (initiator, partner).
    skins_dressed: Option<(Entity, Option<Entity>)>,
    /// Per union node: a `scene` node, placed where the emote started and
    /// not turned with the player afterwards.
    scene_nodes: Vec<bool>,
    /// The root rotation when the playback started (for `scene` nodes).
    scene_root: Mat4,
    /// The planned updates of the current cycle (`None`: per tick).
    schedule: Option<CycleSchedule>,
    /// The timeline position of this tick (for the schedule).
    position_ticks: Option<u32>,
    /// The root yaw the schedule's updates were turned by; a turn drops
    /// the schedule for the rest of the cycle.
    scheduled_yaw: Option<f32>,
    /// A cycle started this tick (plan it).
    cycle_started: bool,
    /// The current cycle waits for a plan (the tick's planning budget was
    /// spent); it streams per tick meanwhile.
    plan_pending: bool,
    /// The timeline position (and roots) whose pose was not sampled: the
    /// schedule drew it, and nothing else needed it. `frame` and
    /// `current.pose` are then stale until [`ActiveEmote::refresh_pose`].
    stale_pose: Option<(u32, SpaceRoots)>,
}

/// An `item_source: participant_hand` display and what it shows now.
#[derive(Clone, Debug)]
struct HandDisplay {
    /// Union node index.
    union: usize,
    /// Which hand (right is the main hand, left the off hand).
    arm: Arm,
    /// A partner node (or a partner copy): follows the partner's hands.
    partner: bool,
    /// The stack last shown.
    shown: Option<ItemStack>,
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
    monitor: StopMonitor,
    observed: PlayerObservation,
    /// Ticks checked so far (a game mode "change" on the first is the join).
    age_ticks: u64,
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

    fn segment_seed(&mut self) -> u64 {
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
    fn start_next_segment(&mut self) -> bool {
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

/// The server's wall-clock tick, `unix_ms / 50` (DESIGN.md, `server_sync`).
pub fn wall_tick() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| (d.as_millis() / 50) as u64)
}

/// The server tick counter used for cooldowns.
fn now_tick(server: &Server) -> u64 {
    u64::try_from(server.current_tick()).unwrap_or(0)
}

/// Why a play request was refused, as the player reads it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlayRefusal {
    /// No emote with that id.
    #[error("Unknown emote `{0}`. Try /emote list.")]
    Unknown(String),
    /// Only usable inside Sequences.
    #[error("`{0}` is not a standalone emote; it only plays inside Sequences.")]
    NotStandalone(String),
    /// Still cooling down.
    #[error("`{id}` is on cooldown for {seconds:.1} more seconds.")]
    Cooldown {
        /// The emote.
        id: String,
        /// Seconds left.
        seconds: f64,
    },
    /// The player is not in a world.
    #[error("You must be in a world to play an emote.")]
    NoWorld,
    /// The server-wide display entity cap would be passed.
    #[error("The server is showing too many emote entities right now ({active} of {max}); try again shortly.")]
    EntityCap {
        /// Displays in use.
        active: usize,
        /// `max_active_display_entities`.
        max: usize,
    },
    /// Molang failed on the first tick.
    #[error("`{0}` could not start: {1}")]
    Failed(String, String),
}

/// Players as [`start_requested_emotes`] reads them.
type StartingPlayers<'w, 's> = Query<
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

#[allow(clippy::too_many_arguments)]
fn start_requested_emotes(
    mut requests: EventReader<PlayEmoteRequest>,
    mut commands: Commands,
    library: Res<EmoteLibrary>,
    server: Res<Server>,
    mut cooldowns: ResMut<EmoteCooldowns>,
    mut players: StartingPlayers,
    mut ended: EventWriter<EmoteEndedEvent>,
    existing_displays: Query<(), (With<EmoteDisplay>, Without<Despawned>)>,
    config: Option<Res<crate::server::config::Config>>,
    mut commands_out: EventWriter<EmoteCommandEvent>,
    hidden_layer: Option<Res<HiddenPlayersLayer>>,
    joined: Res<crate::server::duo::JoinedThisTick>,
) {
    let molang_budget_ops = config
        .as_ref()
        .map_or(crate::molang::DEFAULT_OP_BUDGET, |c| {
            c.emotes.molang_budget_ops
        });
    let max_displays = config.map_or(usize::MAX, |c| c.emotes.max_active_display_entities);
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
        let result = prepare_playback(
            request,
            &library,
            &cooldowns,
            uuid.0,
            now_tick(&server),
            position.0,
            look.yaw,
            molang_budget_ops,
        );
        let prepared = match result {
            Ok(p) => p,
            Err(refusal) => {
                client.send_chat_message(refusal.to_string().color(Color::RED));
                continue;
            }
        };
        let mut playback = prepared.playback;
        // The cap is checked before anything is spawned; a replaced emote's
        // displays are about to go.
        let needed = prepared
            .kinds
            .iter()
            .filter(|k| !matches!(k, NodeKind::Anchor))
            .count();
        let freed = active.as_ref().map_or(0, |a| a.display_entities().count());
        if in_use.saturating_sub(freed) + needed > max_displays {
            let refusal = PlayRefusal::EntityCap {
                active: in_use,
                max: max_displays,
            };
            client.send_chat_message(refusal.to_string().color(Color::RED));
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
                emote: old.emote.clone(),
                reason: EndReason::Stopped,
            });
        }
        let root = position.0;
        let visible_layer = layer.0;
        playback.displays = prepared
            .kinds
            .iter()
            .map(|kind| spawn_display(&mut commands, kind, visible_layer, root, request.client))
            .collect();
        if let (true, Some(hidden)) = (prepared.hidden, &hidden_layer) {
            playback.restore_layer = Some(visible_layer);
            layer.0 = hidden.0;
        }
        cooldowns.0.start(
            uuid.0,
            request.emote.clone(),
            now_tick(&server),
            (f64::from(prepared.cooldown_ticks) * f64::from(request.cooldown_multiplier)).round()
                as u32,
        );
        client.send_action_bar_message(format!("Playing {}", prepared.name).color(Color::GOLD));
        let watch = StopWatch::new(playback.stop_conditions, root);
        commands.entity(request.client).insert((playback, watch));
    }
}

/// A playback ready to start, and what starting it needs.
struct Prepared {
    playback: ActiveEmote,
    /// The node of each union node, from the first Animation that has it.
    kinds: Vec<NodeKind>,
    hidden: bool,
    cooldown_ticks: u32,
    name: String,
}

#[allow(clippy::too_many_arguments)]
fn prepare_playback(
    request: &PlayEmoteRequest,
    library: &EmoteLibrary,
    cooldowns: &EmoteCooldowns,
    uuid: Uuid,
    now: u64,
    position: DVec3,
    yaw_degrees: f32,
    molang_budget_ops: u64,
) -> Result<Prepared, PlayRefusal> {
    let id = request.emote.as_str().to_owned();
    let loaded = library
        .0
        .get(&id)
        .ok_or_else(|| PlayRefusal::Unknown(id.clone()))?;
    let seed = uuid.as_u128() as u64 ^ now;
    let lookup = |reference: &EmoteId| -> Option<PlayableAnimation> {
        let loaded = library.0.get(reference.as_str())?;
        Some(PlayableAnimation {
            file: Arc::clone(&loaded.file),
            compiled: Arc::clone(loaded.compiled.as_ref()?),
            molang_budget_ops,
        })
    };
    // What plays: the Animation itself, or the Sequence's resolved segments.
    let mut duo: Option<Duo> = None;
    let (player_settings, cooldown_ticks, name, mut segments) = match &*loaded.file {
        EmoteFile::Animation(animation) => {
            if !request.bypass && !animation.settings.standalone {
                return Err(PlayRefusal::NotStandalone(id));
            }
            let first = Segment::Play {
                step: 0,
                repetition: 0,
                animation: request.emote.clone(),
                transition_ticks: 0,
            };
            (
                animation.settings.player,
                animation.settings.cooldown_ticks,
                animation.metadata.name.clone(),
                VecDeque::from([first]),
            )
        }
        EmoteFile::Sequence(sequence) => {
            let segments = match (&sequence.participants, sequence.steps.first()) {
                // Two-player: the offer plays (looping) until a match or the
                // timeout; the branches are resolved then.
                (
                    Some(participants),
                    Some(Step::AwaitPartner {
                        offer,
                        timeout_ticks,
                        matched,
                        timeout,
                    }),
                ) => {
                    duo = Some(Duo::new(
                        *participants,
                        *timeout_ticks,
                        matched.clone(),
                        timeout.clone(),
                    ));
                    // Every Animation of both branches is looked up (and
                    // spawned for) now, after the offer.
                    let mut all = vec![Segment::Play {
                        step: 0,
                        repetition: 0,
                        animation: offer.id.clone(),
                        transition_ticks: 0,
                    }];
                    for step in matched.iter().chain(timeout) {
                        if let Step::Play { emote, .. } = step {
                            for reference in emote.animations() {
                                all.push(Segment::Play {
                                    step: 0,
                                    repetition: 0,
                                    animation: reference.id.clone(),
                                    transition_ticks: 0,
                                });
                            }
                        }
                    }
                    all
                }
                _ => {
                    let loop_delay =
                        |reference: &EmoteId| loop_delay_between_cycles(&lookup(reference)?.file);
                    let mut rng = StepRng::new(seed);
                    sequence::resolve(&sequence.steps, &loop_delay, &mut rng, false)
                }
            };
            (
                sequence.settings.player,
                sequence.settings.cooldown_ticks,
                sequence.metadata.name.clone(),
                VecDeque::from(segments),
            )
        }
    };
    if !request.bypass {
        let left = cooldowns.0.remaining_ticks(&uuid, &request.emote, now);
        if left > 0 {
            return Err(PlayRefusal::Cooldown {
                id,
                seconds: left as f64 / 20.0,
            });
        }
    }
    // Look every Animation up now, and build the union of their nodes.
    let mut animations = BTreeMap::new();
    let mut union_ids: Vec<String> = Vec::new();
    let mut kinds: Vec<NodeKind> = Vec::new();
    // The space of each union node (a partner copy's is `partner`).
    let mut union_spaces: Vec<Space> = Vec::new();
    for (index, segment) in segments.iter().enumerate() {
        let Segment::Play { animation, .. } = segment else {
            continue;
        };
        if animations.contains_key(animation) {
            continue;
        }
        // A two-player offer only plays before a match: never mirrored.
        let is_offer = duo.is_some() && index == 0;
        let playable =
            lookup(animation).ok_or_else(|| PlayRefusal::Unknown(animation.to_string()))?;
        if let EmoteFile::Animation(file) = &*playable.file {
            // Two-player Sequences copy the initiator nodes of an Animation
            // without `partner` nodes onto the partner (shown after a match).
            let mirrored =
                duo.is_some() && !is_offer && !file.nodes.iter().any(|n| n.space == Space::Partner);
            for rig_node in &playable.compiled.rig.nodes {
                let Some(node) = file.node(&rig_node.id) else {
                    continue;
                };
                if !union_ids.contains(&rig_node.id) {
                    union_ids.push(rig_node.id.clone());
                    kinds.push(node.kind.clone());
                    union_spaces.push(node.space);
                }
                let copy = mirror_id(&rig_node.id);
                if mirrored && node.space == Space::Initiator && !union_ids.contains(&copy) {
                    union_ids.push(copy);
                    kinds.push(node.kind.clone());
                    union_spaces.push(Space::Partner);
                }
            }
        }
        animations.insert(animation.clone(), playable);
    }
    // The first segment is an Animation (validation puts no wait first; a
    // step of only `continue`/`break` picks may leave nothing).
    while matches!(segments.front(), Some(Segment::Hold { .. })) {
        segments.pop_front();
    }
    let Some(Segment::Play {
        animation: first_id,
        ..
    }) = segments.pop_front()
    else {
        return Err(PlayRefusal::Failed(
            id,
            "every step picked `emote:continue` or `emote:break`; nothing to play this time".into(),
        ));
    };
    let play_mode = match (&*loaded.file, &duo) {
        (EmoteFile::Animation(_), _) => PlayMode::Own,
        (EmoteFile::Sequence(_), Some(_)) => PlayMode::Looping,
        (EmoteFile::Sequence(_), None) => PlayMode::OneCycle,
    };
    if duo.is_some() {
        // The rest were only listed to be looked up and spawned.
        segments.clear();
    }
    let first = animations
        .get(&first_id)
        .and_then(|p| Playing::new(first_id.clone(), p, &union_ids, play_mode, seed))
        .ok_or_else(|| PlayRefusal::Unknown(first_id.to_string()))?;
    let deadzone = first
        .animation()
        .map_or(180.0, |a| a.settings.rotation_deadzone_degrees);
    let union_len = union_ids.len();
    let scene_nodes = union_spaces.iter().map(|s| *s == Space::Scene).collect();
    // Skin bindings: a node wears its participant's head; a partner copy of
    // an initiator node wears the partner's.
    let skins = kinds
        .iter()
        .enumerate()
        .filter_map(|(union, kind)| match kind {
            NodeKind::Item {
                skin: Some(binding),
                ..
            } => {
                let copy = union_ids[union].ends_with("@partner");
                Some((
                    union,
                    if copy {
                        Participant::Partner
                    } else {
                        binding.participant
                    },
                ))
            }
            _ => None,
        })
        .collect();
    let hands = kinds
        .iter()
        .enumerate()
        .filter_map(|(union, kind)| match kind {
            NodeKind::Item {
                content: ItemContent::ParticipantHand(arm),
                ..
            } => Some(HandDisplay {
                union,
                arm: *arm,
                partner: union_spaces[union] == Space::Partner,
                shown: None,
            }),
            _ => None,
        })
        .collect();
    Ok(Prepared {
        playback: ActiveEmote {
            emote: request.emote.clone(),
            file: Arc::clone(&loaded.file),
            animations,
            union_ids,
            displays: Vec::new(),
            frame: vec![None; union_len],
            last_sent: vec![None; union_len],
            in_flight: vec![None; union_len],
            current: first,
            phase: Phase::Timeline,
            queue: segments,
            seed,
            segments_started: 0,
            yaw: YawFollower::new(deadzone, yaw_degrees),
            root: position,
            restore_layer: None,
            stop_conditions: player_settings.stop_conditions,
            player_hidden: player_settings.hidden,
            roots: if duo.is_some() {
                SpaceRoots::OFFER
            } else {
                SpaceRoots::SOLO
            },
            duo,
            hands,
            skins,
            skins_dressed: None,
            scene_nodes,
            scene_root: Mat4::from_quat(Quat::from_rotation_y(-yaw_degrees.to_radians())),
            schedule: None,
            position_ticks: None,
            scheduled_yaw: None,
            cycle_started: false,
            plan_pending: false,
            stale_pose: None,
        },
        kinds,
        hidden: player_settings.hidden,
        cooldown_ticks,
        name,
    })
}

fn spawn_display(
    commands: &mut Commands,
    kind: &NodeKind,
    layer: Entity,
    root: DVec3,
    owner: Entity,
) -> Option<Entity> {
    let position = Position(root);
    let layer = EntityLayerId(layer);
    // Until the first tick sends the sampled pose, the display is drawn at scale 0.
    let hidden = Scale(Vec3::ZERO);
    let tag = EmoteDisplay { owner };
    let (mut entity, common) = match kind {
        NodeKind::Anchor => return None,
        NodeKind::Item {
            content,
            context,
            common,
            ..
        } => {
            let stack = match content {
                ItemContent::Stack(stack) => stack.clone(),
                // The participant's held item is not followed yet: the node shows nothing.
                ItemContent::ParticipantHand(_) => ItemStack::new(ItemKind::Air, 1, None),
            };
            let bundle = ItemDisplayEntityBundle {
                layer,
                position,
                display_scale: hidden,
                item_display_item: valence::entity::item_display::Item(stack),
                item_display_item_display: valence::entity::item_display::ItemDisplay(
                    context.protocol_id() as i8,
                ),
                ..Default::default()
            };
            (commands.spawn((bundle, tag)), common)
        }
        NodeKind::Block { state, common } => {
            let bundle = BlockDisplayEntityBundle {
                layer,
                position,
                display_scale: hidden,
                block_display_block_state: valence::entity::block_display::BlockState(*state),
                ..Default::default()
            };
            (commands.spawn((bundle, tag)), common)
        }
        NodeKind::Text { text, common } => {
            let bundle = TextDisplayEntityBundle {
                layer,
                position,
                display_scale: hidden,
                text_display_text: valence::entity::text_display::Text(text.clone()),
                ..Default::default()
            };
            (commands.spawn((bundle, tag)), common)
        }
    };
    if let Some(nbt) = &common.entity_nbt {
        let fields = DisplayNbt::read(nbt);
        entity.insert(fields.display_components());
        if matches!(kind, NodeKind::Text { .. }) {
            entity.insert(fields.text_components());
        }
    }
    Some(entity.id())
}

/// The display-entity fields of `entity_nbt` (validated at load), with
/// vanilla's defaults for those it leaves out.
struct DisplayNbt {
    billboard: i8,
    brightness: i32,
    view_range: f32,
    shadow_radius: f32,
    shadow_strength: f32,
    width: f32,
    height: f32,
    glow_color_override: i32,
    glowing: bool,
    line_width: i32,
    background: i32,
    text_opacity: i8,
    text_flags: i8,
}

impl DisplayNbt {
    fn read(nbt: &Compound) -> Self {
        let mut out = Self {
            billboard: 0,
            brightness: -1,
            view_range: 1.0,
            shadow_radius: 0.0,
            shadow_strength: 1.0,
            width: 0.0,
            height: 0.0,
            glow_color_override: -1,
            glowing: false,
            line_width: 200,
            background: 0x4000_0000,
            text_opacity: -1,
            text_flags: 0,
        };
        for (key, value) in nbt.iter() {
            let number = as_number(value);
            let flag = number.is_some_and(|n| n != 0.0);
            match (key.as_str(), value) {
                ("billboard", Value::String(s)) => {
                    out.billboard = match s.as_str() {
                        "vertical" => 1,
                        "horizontal" => 2,
                        "center" => 3,
                        _ => 0,
                    }
                }
                ("brightness", Value::Compound(c)) => {
                    let block = c.get("block").and_then(as_number).unwrap_or(0.0) as i32;
                    let sky = c.get("sky").and_then(as_number).unwrap_or(0.0) as i32;
                    out.brightness = (block << 4) | (sky << 20);
                }
                ("view_range", _) => out.view_range = number.unwrap_or(1.0) as f32,
                ("shadow_radius", _) => out.shadow_radius = number.unwrap_or(0.0) as f32,
                ("shadow_strength", _) => out.shadow_strength = number.unwrap_or(1.0) as f32,
                ("width", _) => out.width = number.unwrap_or(0.0) as f32,
                ("height", _) => out.height = number.unwrap_or(0.0) as f32,
                ("glow_color_override", _) => {
                    out.glow_color_override = number.unwrap_or(-1.0) as i32
                }
                ("Glowing", _) => out.glowing = flag,
                ("line_width", _) => out.line_width = number.unwrap_or(200.0) as i32,
                ("background", _) => out.background = number.map_or(0x4000_0000, |n| n as i32),
                ("text_opacity", _) => out.text_opacity = number.unwrap_or(-1.0) as i8,
                ("shadow", _) if flag => out.text_flags |= 0x01,
                ("see_through", _) if flag => out.text_flags |= 0x02,
                ("default_background", _) if flag => out.text_flags |= 0x04,
                ("alignment", Value::String(s)) if s == "left" => out.text_flags |= 0x08,
                ("alignment", Value::String(s)) if s == "right" => out.text_flags |= 0x10,
                _ => {}
            }
        }
        out
    }

    fn display_components(&self) -> impl Bundle {
        (
            Billboard(self.billboard),
            Brightness(self.brightness),
            ViewRange(self.view_range),
            ShadowRadius(self.shadow_radius),
            ShadowStrength(self.shadow_strength),
            Width(self.width),
            Height(self.height),
            GlowColorOverride(self.glow_color_override),
            Flags(if self.glowing { 0x40 } else { 0 }),
        )
    }

    fn text_components(&self) -> impl Bundle {
        (
            LineWidth(self.line_width),
            Background(self.background),
            TextOpacity(self.text_opacity),
            TextDisplayFlags(self.text_flags),
        )
    }
}

/// Ends a playback's effects on the world: its `stop` events run (once), its
/// displays go, and the player's own entity layer is handed back when
/// `player.hidden` moved them (the caller restores it).
fn wind_down(
    playback: &mut ActiveEmote,
    player: Entity,
    commands: &mut Commands,
    out: &mut EventWriter<EmoteCommandEvent>,
) -> Option<Entity> {
    fire_stop(playback, player, out);
    despawn_displays(commands, playback);
    playback.restore_layer.take()
}

fn despawn_displays(commands: &mut Commands, playback: &mut ActiveEmote) {
    for entity in playback.displays.iter().flatten() {
        if let Some(mut e) = commands.get_entity(*entity) {
            e.insert(Despawned);
        }
    }
    playback.displays.clear();
}

fn stop_requested_emotes(
    mut requests: EventReader<StopEmoteRequest>,
    mut commands: Commands,
    mut players: Query<(Option<&mut ActiveEmote>, &mut Client, &mut EntityLayerId)>,
    partners: Query<&crate::server::duo::EmotePartner>,
    mut ended: EventWriter<EmoteEndedEvent>,
    mut commands_out: EventWriter<EmoteCommandEvent>,
) {
    for request in requests.iter() {
        // A partner's stop ends the initiator's playback (for both).
        let target = match (partners.get(request.client), players.get(request.client)) {
            (Ok(partner), Ok((None, ..))) => partner.initiator,
            _ => request.client,
        };
        let Ok((playback, mut client, mut layer)) = players.get_mut(target) else {
            continue;
        };
        let Some(mut playback) = playback else {
            if request.reason == EndReason::Stopped {
                client.send_chat_message("You are not playing an emote.".color(Color::RED));
            }
            continue;
        };
        if let Some(original) = wind_down(&mut playback, target, &mut commands, &mut commands_out) {
            layer.0 = original;
        }
        let notice = match request.reason {
            EndReason::Reloaded { removed: true } => "Emote stopped: it was removed by a reload",
            EndReason::Reloaded { removed: false } => "Emote stopped: its file changed",
            EndReason::Died => "Emote stopped: you died",
            EndReason::PartnerLeft => "Emote stopped: your partner left",
            EndReason::PartnerCondition(_) => "Emote stopped by your partner",
            EndReason::LeftWorld => "Emote stopped: you left the world",
            _ => "Emote stopped",
        };
        ended.send(EmoteEndedEvent {
            client: target,
            emote: playback.emote.clone(),
            reason: request.reason.clone(),
        });
        if let EndReason::Failed(message) = &request.reason {
            client.send_chat_message(format!("Emote stopped: {message}").color(Color::RED));
        }
        client.send_action_bar_message(notice.color(Color::GRAY));
        commands.entity(target).remove::<(ActiveEmote, StopWatch)>();
    }
}

/// One warning in the log for each playback that failed (a Molang failure
/// or its budget, or the command cap), naming the player and the emote; the
/// player was told in chat where it stopped.
fn log_failed_emotes(mut ended: EventReader<EmoteEndedEvent>, names: Query<&Username>) {
    for end in ended.iter() {
        if let EndReason::Failed(message) = &end.reason {
            let name = names.get(end.client).map_or("a player", |n| n.0.as_str());
            tracing::warn!("stopped {name}'s emote {}: {message}", end.emote);
        }
    }
}

/// Death and a change of world end a playback (as `/emote stop` would: its
/// `stop` events run and its displays go).
fn end_emotes_of_dead_players(
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

/// Shows in each `participant_hand` display the item its participant holds
/// now (right arm: the selected hotbar slot; left arm: the off hand), and
/// follows it when it changes.
#[allow(clippy::type_complexity)]
fn follow_held_items(
    mut initiators: Query<(&mut ActiveEmote, &Inventory, &HeldItem)>,
    others: Query<(&Inventory, &HeldItem), Without<ActiveEmote>>,
    mut items: Query<&mut valence::entity::item_display::Item>,
) {
    for (mut playback, inventory, held) in &mut initiators {
        let playback = &mut *playback;
        let partner = playback
            .duo
            .as_ref()
            .and_then(Duo::partner)
            .and_then(|p| others.get(p).ok());
        for hand in &mut playback.hands {
            let (inventory, held) = match (hand.partner, partner) {
                (true, Some(p)) => p,
                _ => (inventory, held),
            };
            let slot = match hand.arm {
                Arm::Right => held.slot(),
                Arm::Left => OFF_HAND_SLOT,
            };
            // The player inventory has 46 slots; `slot` panics past them.
            if slot >= inventory.slot_count() {
                continue;
            }
            let stack = inventory
                .slot(slot)
                .cloned()
                .unwrap_or_else(|| ItemStack::new(ItemKind::Air, 1, None));
            if hand.shown.as_ref() == Some(&stack) {
                continue;
            }
            let Some(entity) = playback.displays.get(hand.union).copied().flatten() else {
                continue;
            };
            if let Ok(mut item) = items.get_mut(entity) {
                item.0 = stack.clone();
                hand.shown = Some(stack);
            }
        }
    }
}

/// Dresses skin-bound item displays in their participant's head: a
/// `player_head` whose `SkullOwner` is the participant (name, UUID and, in
/// online mode, the signed skin textures), set when the playback starts and
/// again when a partner matches. Partner-bound nodes keep the file's item
/// until then. How the head is cut into body parts is the resource pack's
/// business (`skin-binding-notes.md`); this picks whose skin it is.
#[allow(clippy::type_complexity)]
fn dress_skins(
    mut initiators: Query<(Entity, &mut ActiveEmote)>,
    players: Query<(&Username, &UniqueId, Option<&valence::client::Properties>)>,
    mut items: Query<&mut valence::entity::item_display::Item>,
) {
    for (initiator, mut playback) in &mut initiators {
        if playback.skins.is_empty() {
            continue;
        }
        let partner = playback.duo.as_ref().and_then(Duo::partner);
        if playback.skins_dressed == Some((initiator, partner)) {
            continue;
        }
        playback.skins_dressed = Some((initiator, partner));
        for &(union, participant) in &playback.skins {
            let who = match participant {
                Participant::Initiator => Some(initiator),
                Participant::Partner => partner,
            };
            let Some((name, uuid, properties)) = who.and_then(|w| players.get(w).ok()) else {
                continue;
            };
            let Some(Some(entity)) = playback.displays.get(union).copied() else {
                continue;
            };
            if let Ok(mut item) = items.get_mut(entity) {
                item.0 = player_head(&name.0, uuid.0, properties);
            }
        }
    }
}

/// A `player_head` stack for a player (1.20.1 `SkullOwner`).
fn player_head(
    name: &str,
    uuid: Uuid,
    properties: Option<&valence::client::Properties>,
) -> ItemStack {
    let bits = uuid.as_u128();
    let id: Vec<i32> = (0..4)
        .map(|i| (bits >> (96 - 32 * i)) as u32 as i32)
        .collect();
    let mut owner = Compound::new();
    owner.insert("Name", Value::String(name.to_owned()));
    owner.insert("Id", Value::IntArray(id));
    if let Some(textures) = properties.and_then(|p| p.textures()) {
        let mut texture = Compound::new();
        texture.insert("Value", Value::String(textures.value.clone()));
        if let Some(signature) = &textures.signature {
            texture.insert("Signature", Value::String(signature.clone()));
        }
        let mut props = Compound::new();
        props.insert(
            "textures",
            Value::List(valence::nbt::List::Compound(vec![texture])),
        );
        owner.insert("Properties", Value::Compound(props));
    }
    let mut tag = Compound::new();
    tag.insert("SkullOwner", Value::Compound(owner));
    ItemStack::new(ItemKind::PlayerHead, 1, Some(tag))
}

/// The player inventory slot of the off hand.
const OFF_HAND_SLOT: u16 = 45;

/// Collects what the stop conditions need from this tick's events.
fn observe_players(
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
type PlayingPlayers<'w, 's> = Query<
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
fn advance_emotes(
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
            match &reason {
                EndReason::Condition(r) => client.send_action_bar_message(
                    format!("Emote stopped: {}", r.describe()).color(Color::GRAY),
                ),
                EndReason::Failed(message) => {
                    client.send_chat_message(format!("Emote stopped: {message}").color(Color::RED))
                }
                _ => {}
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
fn advance_one(
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

/// Runs the `stop` events of the Animation playing now, once.
pub(crate) fn fire_stop(
    playback: &mut ActiveEmote,
    player: Entity,
    out: &mut EventWriter<EmoteCommandEvent>,
) {
    if !playback.current.stop_fired {
        playback.refresh_pose();
        queue_group(playback, EventGroup::Stop, player, out);
        playback.current.stop_fired = true;
    }
}

/// Which event group to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EventGroup {
    Start,
    Loop,
    Stop,
}

/// Queues the commands of `events` for the dispatcher, resolving sources and
/// origins against the Animation playing now.
fn queue_events<'a>(
    playback: &ActiveEmote,
    events: impl Iterator<Item = &'a CommandEvent>,
    player: Entity,
    out: &mut EventWriter<EmoteCommandEvent>,
) {
    let rotation = Quat::from_rotation_y(-playback.yaw.yaw_degrees().to_radians());
    let current = &playback.current;
    let union_of = |id: &str| {
        current
            .compiled
            .rig
            .node_index(id)
            .and_then(|i| current.rig_to_union.get(i).copied())
    };
    for event in events {
        let source = match &event.source {
            EventSource::Player => CommandSource::Player(player),
            EventSource::Server => CommandSource::Server,
            EventSource::Node(id) => {
                let entity = union_of(id).and_then(|u| playback.displays.get(u).copied().flatten());
                match entity {
                    Some(entity) => CommandSource::Node {
                        id: id.clone(),
                        entity,
                    },
                    None => continue,
                }
            }
        };
        let base = match &event.origin.anchor {
            OriginAnchor::Root => Vec3::ZERO,
            OriginAnchor::Node(id) => current
                .compiled
                .rig
                .node_index(id)
                .and_then(|i| current.pose.nodes.get(i))
                .map_or(Vec3::ZERO, |p| Vec3::from(p.matrix.translation)),
        };
        let origin = playback.root + (rotation * (base + event.origin.offset)).as_dvec3();
        for command in &event.commands {
            out.send(EmoteCommandEvent {
                playback: Some(player),
                source: source.clone(),
                origin,
                command: command.clone(),
            });
        }
    }
}

/// Queues a whole group of the playing Animation's events.
fn queue_group(
    playback: &ActiveEmote,
    group: EventGroup,
    player: Entity,
    out: &mut EventWriter<EmoteCommandEvent>,
) {
    let Some(animation) = playback.current.animation() else {
        return;
    };
    let events = &animation.timeline.events;
    let list = match group {
        EventGroup::Start => &events.start,
        EventGroup::Loop => &events.on_loop,
        EventGroup::Stop => &events.stop,
    };
    queue_events(playback, list.iter(), player, out);
}

/// Plans shared between playbacks: one per Animation whose cycles are all
/// alike ([`CompiledAnimation::is_cycle_invariant`]), keyed by its compiled
/// form, plus the planner's buffers.
#[derive(Resource, Default)]
pub struct PlanCache {
    shared: HashMap<usize, SharedPlan>,
    planner: Planner,
    /// Node-ticks planned during the current server tick.
    planned_this_tick: usize,
    /// How far the drawn pose may be from the exact one.
    tolerance: Tolerance,
}

impl PlanCache {
    /// The tolerance plans are made with.
    pub fn tolerance(&self) -> Tolerance {
        self.tolerance
    }

    /// Plans from now on keep the drawn pose within `tolerance`; shared
    /// plans made with another one are dropped. Cycles already planned
    /// play out as they were planned.
    pub fn set_tolerance(&mut self, tolerance: Tolerance) {
        if self.tolerance != tolerance {
            self.tolerance = tolerance;
            self.shared.clear();
        }
    }
}

/// Takes the scheduler's tolerance from `[emotes]` in the configuration,
/// at start-up and after each reload.
fn apply_display_tolerance(
    config: Option<Res<crate::server::config::Config>>,
    mut plans: ResMut<PlanCache>,
) {
    if let Some(config) = config.filter(|c| c.is_changed()) {
        plans.set_tolerance(Tolerance {
            translation_blocks: config.emotes.display_tolerance_blocks,
            rotation_degrees: config.emotes.display_tolerance_degrees,
        });
    }
}

/// How many node-ticks (display nodes × timeline ticks) may be planned in
/// one server tick; about 3 ms on the 2-core machine, sampling included.
/// Cycles that start together (every `server_sync` playback of an emote
/// wraps on the same tick; a burst of `/emote` starts) would otherwise plan
/// in one tick and stall it. A cycle over the budget streams per tick and
/// is planned from where it is on a later tick. Shared plans cost nothing.
const PLANNING_BUDGET_NODE_TICKS: usize = 4_000;

/// A shared plan and the compiled Animation it belongs to (kept alive so
/// its address, the key, is never reused).
type SharedPlan = (Arc<CompiledAnimation>, Arc<Vec<Vec<DisplayUpdate>>>);

/// At most this many shared plans are kept (a reload makes new ones). At
/// the limit, plans of Animations no longer loaded or playing go first.
const PLAN_CACHE_LIMIT: usize = 1024;

/// When a cycle started this tick (or one waits for the planning budget),
/// plans its display updates from this tick on, or takes the shared plan of
/// a pure Animation. Two-player mirrors stay per tick.
fn plan_new_cycle(playback: &mut ActiveEmote, cache: &mut PlanCache) {
    if playback.cycle_started {
        playback.scheduled_yaw = None;
        playback.schedule = None;
        playback.plan_pending = true;
    }
    if !playback.plan_pending || playback.roots.mirror {
        return;
    }
    let Some(first_position) = playback.position_ticks else {
        return;
    };
    let roots = playback.roots;
    let current = &playback.current;
    let shared = current.is_pure() && roots == SpaceRoots::SOLO && first_position == 0;
    let key = Arc::as_ptr(&current.compiled) as usize;
    let cached = shared && cache.shared.contains_key(&key);
    if !cached {
        let duration = current.animation().map_or(0, |a| a.timeline.duration_ticks);
        let cost =
            current.compiled.rig.nodes.len() * duration.saturating_sub(first_position) as usize;
        // Over budget: wait, unless nothing was planned yet this tick (a
        // single cycle larger than the budget still gets its plan).
        if cache.planned_this_tick > 0
            && cache.planned_this_tick + cost > PLANNING_BUDGET_NODE_TICKS
        {
            return;
        }
        cache.planned_this_tick += cost;
    }
    playback.plan_pending = false;
    let plans = if shared {
        match cache.shared.get(&key) {
            Some((_, plans)) => Some(Arc::clone(plans)),
            None => {
                let plans = current
                    .plan_cycle(&roots, &mut cache.planner, cache.tolerance, 0)
                    .map(Arc::new);
                if let Some(plans) = &plans {
                    if cache.shared.len() >= PLAN_CACHE_LIMIT {
                        // Keep the plans of Animations still loaded or
                        // playing; the cache alone holds the others.
                        cache
                            .shared
                            .retain(|_, (compiled, _)| Arc::strong_count(compiled) > 1);
                        if cache.shared.len() >= PLAN_CACHE_LIMIT {
                            cache.shared.clear();
                        }
                    }
                    cache
                        .shared
                        .insert(key, (Arc::clone(&current.compiled), Arc::clone(plans)));
                }
                plans
            }
        }
    } else {
        current
            .plan_cycle(&roots, &mut cache.planner, cache.tolerance, first_position)
            .map(Arc::new)
    };
    playback.schedule = plans.map(|plans| CycleSchedule {
        plans,
        first_position,
        last_position: None,
    });
}

type DisplayQuery<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut Translation,
        &'static mut LeftRotation,
        &'static mut Scale,
        &'static mut RightRotation,
        &'static mut StartInterpolation,
        &'static mut InterpolationDuration,
    ),
>;

/// Writes one display's transformation: only the fields that changed, and
/// always `start_interpolation` (so the client measures from now).
fn write_transform(
    displays: &mut DisplayQuery,
    entity: Entity,
    transform: &DisplayTransform,
    duration_ticks: u32,
) {
    if let Ok((mut t, mut l, mut s, mut r, mut start, mut duration)) = displays.get_mut(entity) {
        if t.0 != transform.translation {
            t.0 = transform.translation;
        }
        if l.0 != transform.left_rotation {
            l.0 = transform.left_rotation;
        }
        if s.0 != transform.scale {
            s.0 = transform.scale;
        }
        if r.0 != transform.right_rotation {
            r.0 = transform.right_rotation;
        }
        start.0 = 0;
        let ticks = i32::try_from(duration_ticks).unwrap_or(i32::MAX);
        if duration.0 != ticks {
            duration.0 = ticks;
        }
    }
}

/// Sends this tick's display updates: from the cycle's plan when there is
/// one (and the root has not turned since it began), else every node whose
/// transformation changed, with a one-tick interpolation.
fn send_pose(playback: &mut ActiveEmote, yaw_degrees: f32, displays: &mut DisplayQuery, now: i64) {
    let yaw = Quat::from_rotation_y(-yaw_degrees.to_radians());
    let scene_yaw = Quat::from_mat4(&playback.scene_root);
    if let (Some(position), Some(schedule)) = (playback.position_ticks, &mut playback.schedule) {
        let steady = *playback.scheduled_yaw.get_or_insert(yaw_degrees) == yaw_degrees;
        // The plan assumes one position per tick (or a held one); a
        // `server_sync` wall clock that skipped a tick would skip updates.
        let in_step = position >= schedule.first_position
            && schedule
                .last_position
                .is_none_or(|last| position == last || position == last + 1);
        if steady && in_step {
            if schedule.last_position != Some(position) {
                schedule.last_position = Some(position);
                let current = &playback.current;
                let tick = position - schedule.first_position;
                for (rig_index, plan) in schedule.plans.iter().enumerate() {
                    let Some(update) = update_at(plan, tick) else {
                        continue;
                    };
                    let Some(&union) = current.rig_to_union.get(rig_index) else {
                        continue;
                    };
                    let Some(Some(entity)) = playback.displays.get(union).copied() else {
                        continue;
                    };
                    let scene = playback.scene_nodes.get(union).copied().unwrap_or(false);
                    let transform = update.turned(if scene { scene_yaw } else { yaw });
                    write_transform(displays, entity, &transform, update.duration_ticks);
                    // Until the first update, a display is drawn hidden at
                    // the origin (its spawn fields).
                    let from = playback.last_sent[union].unwrap_or(DisplayTransform {
                        scale: Vec3::ZERO,
                        ..DisplayTransform::IDENTITY
                    });
                    playback.in_flight[union] = (update.duration_ticks > 1).then_some(InFlight {
                        from,
                        to: transform,
                        sent_tick: now,
                        duration_ticks: update.duration_ticks,
                    });
                    playback.last_sent[union] = Some(transform);
                }
            }
            // Nodes the playing Animation lacks stay hidden, per tick.
            let covered = Arc::clone(&playback.current.covers);
            send_per_tick(playback, yaw, scene_yaw, displays, Some(&covered));
            return;
        }
        // The root turned mid-cycle (or the clock jumped): per tick until
        // the next cycle.
        playback.schedule = None;
        playback.refresh_pose();
    }
    send_per_tick(playback, yaw, scene_yaw, displays, None);
}

/// The per-tick policy, for every node (or only those `skip` leaves out).
fn send_per_tick(
    playback: &mut ActiveEmote,
    yaw: Quat,
    scene_yaw: Quat,
    displays: &mut DisplayQuery,
    skip: Option<&[bool]>,
) {
    for (i, entity) in playback.displays.iter().enumerate() {
        let Some(entity) = entity else { continue };
        if skip.is_some_and(|s| s.get(i).copied().unwrap_or(false)) {
            continue;
        }
        // `scene` nodes stay as the scene started; the rest turn with the root.
        let scene = playback.scene_nodes.get(i).copied().unwrap_or(false);
        let root = Mat4::from_quat(if scene { scene_yaw } else { yaw });
        let transform = match playback.frame.get(i).copied().flatten() {
            Some(matrix) => DisplayTransform::from_matrix(&(root * matrix)),
            // Hidden: drawn at scale 0 where it last was.
            None => DisplayTransform {
                scale: Vec3::ZERO,
                ..playback.last_sent[i].unwrap_or(DisplayTransform::IDENTITY)
            },
        };
        if playback.last_sent[i] == Some(transform) {
            continue;
        }
        playback.last_sent[i] = Some(transform);
        playback.in_flight[i] = None;
        write_transform(displays, *entity, &transform, 1);
    }
}

fn end_emotes_of_leaving_players(
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
                emote: playback.emote.clone(),
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
fn despawn_orphan_displays(
    mut commands: Commands,
    displays: Query<(Entity, &EmoteDisplay), Without<Despawned>>,
    owners: Query<&ActiveEmote>,
) {
    for (entity, display) in &displays {
        let owned = owners
            .get(display.owner)
            .is_ok_and(|p| p.displays.contains(&Some(entity)));
        if !owned {
            commands.entity(entity).insert(Despawned);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::read_emote_file;
    use crate::playback::schedule::{update_counts, verify};

    /// A bundled Animation as the server would play it, with its rig's node
    /// ids as the union.
    fn playing(file_name: &str, seed: u64) -> Playing {
        playing_with_tick(file_name, seed, None)
    }

    /// [`playing`], with `molang.tick` replaced when `tick` is given.
    fn playing_with_tick(file_name: &str, seed: u64, tick: Option<&str>) -> Playing {
        let path = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"))
            .join(file_name);
        let mut file = read_emote_file(&path).file.expect("a bundled file");
        if let (EmoteFile::Animation(animation), Some(tick)) = (&mut file, tick) {
            animation.molang.tick = Some(tick.to_owned());
        }
        let EmoteFile::Animation(animation) = &file else {
            panic!("{file_name} is not an Animation");
        };
        let compiled = CompiledAnimation::compile(animation).expect("compiles");
        let union: Vec<String> = compiled.rig.nodes.iter().map(|n| n.id.clone()).collect();
        let playable = PlayableAnimation {
            file: Arc::new(file.clone()),
            compiled: Arc::new(compiled),
            molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
        };
        let id = animation.id.clone();
        Playing::new(id, &playable, &union, PlayMode::Own, seed).expect("an Animation")
    }

    #[test]
    fn planning_ahead_stops_at_its_molang_allowance() {
        // About 24,000 operations a tick: within the playback's own budget,
        // but ten ticks of it are over what planning may spend in one tick.
        let heavy = "loop(20, {loop(300, {v.x = v.x + 1;});});";
        let roots = SpaceRoots::SOLO;
        for (tick, planned) in [(None, true), (Some(heavy), false)] {
            let mut playing = playing_with_tick("guitar.json", 3, tick);
            let mut frame = vec![None; playing.compiled.rig.nodes.len()];
            playing
                .step(0, &mut frame, &roots)
                .expect("within the budget");
            let used = playing.molang.session.ops_used();
            assert!(used < crate::molang::DEFAULT_OP_BUDGET, "{used}");
            let plans = playing.plan_cycle(&roots, &mut Planner::new(), Tolerance::default(), 0);
            assert_eq!(plans.is_some(), planned, "molang.tick {tick:?}");
        }
    }

    #[test]
    fn a_server_sync_playback_joining_mid_cycle_plans_the_rest_of_its_cycle() {
        // `example:clock_sync`: 120 ticks, server_sync, Molang reading
        // `q.life_time` (so every cycle is planned on its own).
        let mut playing = playing("clock_sync.json", 7);
        let roots = SpaceRoots::SOLO;
        let nodes = playing.compiled.rig.nodes.len();
        let mut frame = vec![None; nodes];
        // The wall clock is 37 ticks into a cycle when the player starts.
        let wall = 120 * 9_000 + 37;
        let step = playing.step(wall, &mut frame, &roots).expect("samples");
        assert_eq!((step.position_ticks, step.cycle_started), (37, true));
        let plans = playing
            .plan_cycle(&roots, &mut Planner::new(), Tolerance::default(), 37)
            .expect("server_sync is planned");
        // The playback itself, one wall tick per server tick, to the end of
        // the cycle (position 119; the next tick starts a new cycle at 0):
        // the client must draw every tick within tolerance.
        let mut frames: Vec<Vec<Option<Mat4>>> = frame.iter().map(|f| vec![*f]).collect();
        for tick in 1..(120 - 37) {
            playing
                .step(wall + tick, &mut frame, &roots)
                .expect("samples");
            for (node, f) in frames.iter_mut().zip(&frame) {
                node.push(*f);
            }
        }
        let (mut planned, mut per_tick) = (0, 0);
        for (node, (plan, frames)) in plans.iter().zip(&frames).enumerate() {
            if let Err(e) = verify(frames, plan, Tolerance::default()) {
                panic!("node {}: {e}", playing.compiled.rig.nodes[node].id);
            }
            let counts = update_counts(frames, plan);
            planned += counts.planned;
            per_tick += counts.per_tick;
        }
        assert!(
            per_tick > 0 && planned < per_tick,
            "{planned} of {per_tick}"
        );
    }
}
