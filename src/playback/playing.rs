//! The Animation a playback is playing, as pure state: its clock, Molang
//! state and pose, where its nodes go in the union of a Sequence's nodes,
//! how it samples a tick into root-frame matrices, and how it plans the
//! display updates of a cycle on a copy of itself (the scheduler). The
//! server keeps one in each `ActiveEmote` and turns what it samples into
//! display entity fields.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use glam::Mat4;

use crate::anim::{DisplayTransform, Pose};
use crate::format::event::CommandEvent;
use crate::format::node::Space;
use crate::format::settings::PlaybackMode;
use crate::format::{EmoteFile, EmoteId};
use crate::library::runtime::AnimationRuntime;
use crate::library::{CompiledAnimation, MolangState, NbtPlayhead};
use crate::playback::live::{LiveInputs, LiveRig};
pub use crate::playback::roots::SpaceRoots;
use crate::playback::schedule::{BandMask, DisplayUpdate, Planner, Tolerance, EVERY_BAND};
use crate::playback::{Clock, ClockStep};

/// The Molang operations sampling one cycle ahead for the scheduler may
/// run in a tick (see `Playing::plan_cycle`): four times the default
/// per-tick budget, about 0.6 ms.
pub const PLANNING_MOLANG_OPS: u64 = 4 * crate::molang::DEFAULT_OP_BUDGET;

/// An Animation a playback may play, looked up once when it starts.
#[derive(Clone)]
pub struct PlayableAnimation {
    /// The file it was loaded from (what a reload compares; playback reads
    /// [`CompiledAnimation::runtime`]).
    pub file: Arc<EmoteFile>,
    /// Its rig, Molang and runtime settings, compiled.
    pub compiled: Arc<CompiledAnimation>,
    /// `[emotes] molang_budget_ops` when the playback started.
    pub molang_budget_ops: u64,
}

/// The Animation segment of a playback that plays (or last played).
/// A clone continues exactly as the original would.
#[derive(Clone)]
pub struct Playing {
    /// The Animation's id.
    pub id: EmoteId,
    /// Its rig, Molang and runtime settings (mode, loop delay, events,
    /// spaces), compiled.
    pub compiled: Arc<CompiledAnimation>,
    /// The timeline clock of its mode.
    pub clock: Clock,
    /// Its Molang variables, randomness and queries.
    pub molang: MolangState,
    /// The pose last sampled.
    pub pose: Pose,
    /// Where it is in its NBT tracks (stepped by the playback after each
    /// tick's pose, see [`crate::library::nbt`]).
    pub nbt: NbtPlayhead,
    /// The union node index of each rig node.
    pub rig_to_union: Vec<usize>,
    /// The union index of each rig node's partner copy (two-player
    /// Sequences mirror Animations that have no `partner` nodes).
    pub rig_to_mirror: Vec<usize>,
    /// The space each rig node inherits from its root.
    pub spaces: Vec<Space>,
    /// Per union node: whether a rig node of this Animation draws it (the
    /// others stay hidden while it plays).
    pub covers: Arc<[bool]>,
    /// Per union node: drawn by the cycle's plan when there is one (covered
    /// and not moved by a solver; the solved nodes go per tick).
    pub planned: Arc<[bool]>,
    /// The solvers' state (`None`: the Animation has no active solver).
    pub live: Option<Box<LiveRig>>,
    /// A `loop` Animation inside a Sequence: its `loop` events run when its
    /// one cycle ends.
    pub loops_in_sequence: bool,
    /// Its `stop` events already ran (they run once).
    pub stop_fired: bool,
}

/// How a segment's Animation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayMode {
    /// In its own mode (a standalone playback).
    Own,
    /// One cycle (a Sequence step).
    OneCycle,
    /// Looping until something else happens (a two-player offer).
    Looping,
}

/// What a partner copy's union id adds to its node's id.
pub const MIRROR_SUFFIX: &str = "@partner";

/// The union id of a node's partner copy.
pub fn mirror_id(id: &str) -> String {
    format!("{id}{MIRROR_SUFFIX}")
}

/// The node a union id names in its file: itself, or for a partner copy the
/// initiator node it copies; and whether it is a copy.
pub fn mirrored_source(union_id: &str) -> (&str, bool) {
    match union_id.strip_suffix(MIRROR_SUFFIX) {
        Some(source) => (source, true),
        None => (union_id, false),
    }
}

impl Playing {
    /// The playback of `playable`, with its nodes placed in the union
    /// `union_ids`, run as `play_mode` says, with Molang randomness seeded
    /// by `seed`.
    pub fn new(
        id: EmoteId,
        playable: &PlayableAnimation,
        union_ids: &[String],
        play_mode: PlayMode,
        seed: u64,
    ) -> Self {
        let compiled = Arc::clone(&playable.compiled);
        let runtime = &compiled.runtime;
        let playback = &runtime.playback;
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
        let rig_to_mirror: Vec<usize> = compiled
            .rig
            .nodes
            .iter()
            .map(|n| index_of(&mirror_id(&n.id)))
            .collect();
        let spaces = runtime.nodes.iter().map(|n| n.space).collect();
        let live = runtime
            .solvers
            .is_active()
            .then(|| Box::new(LiveRig::new(LiveInputs::default())));
        let planned = planned_nodes(&compiled, &covers, &rig_to_union, &rig_to_mirror, &[]);
        Self {
            id,
            clock: Clock::new(mode, runtime.duration_ticks, playback.loop_delay_ticks),
            molang: compiled
                .new_molang_state(seed)
                .with_budget_ops(playable.molang_budget_ops),
            pose: Pose::new(&compiled.rig),
            nbt: NbtPlayhead::new(&compiled, seed),
            rig_to_union,
            rig_to_mirror,
            spaces,
            covers: covers.into(),
            planned,
            live,
            loops_in_sequence: in_sequence && playback.mode == PlaybackMode::Loop,
            stop_fired: false,
            compiled,
        }
    }

    /// What the runtime reads of the Animation it plays.
    pub fn runtime(&self) -> &AnimationRuntime {
        &self.compiled.runtime
    }

    /// One timeline tick: the pose, as root-frame matrices per union node
    /// (`None`: hidden), written into `frame`.
    pub fn step(
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
    pub fn advance_clock(&mut self, wall: u64) -> Result<ClockStep, crate::anim::SampleError> {
        let step = self.clock.step(wall);
        if step.cycle_started {
            self.compiled
                .begin_cycle(&mut self.molang, step.loop_count)?;
        }
        Ok(step)
    }

    /// Samples the pose at `position_ticks` into `self.pose` and `frame`.
    pub fn sample(
        &mut self,
        position_ticks: u32,
        advancing: bool,
        frame: &mut [Option<Mat4>],
        roots: &SpaceRoots,
    ) -> Result<(), crate::anim::SampleError> {
        self.compiled
            .step(&mut self.molang, position_ticks, advancing, &mut self.pose)?;
        if let Some(live) = &mut self.live {
            live.solve(&self.compiled, &mut self.pose, roots);
        }
        self.frame_of_pose(roots, frame);
        Ok(())
    }

    /// Solves the last sampled pose again with the inputs of this tick (a
    /// held pose), into `frame`; nothing without solvers.
    pub fn resolve(&mut self, frame: &mut [Option<Mat4>], roots: &SpaceRoots) {
        if let Some(live) = &mut self.live {
            live.resolve(&self.compiled, &mut self.pose, roots);
            self.frame_of_pose(roots, frame);
        }
    }

    /// Runs the solvers from now on with `inputs` (and carries on with the
    /// ones it has): effectors given from outside reach whatever the file
    /// declares, so their chains go per tick too.
    pub fn set_live_inputs(&mut self, inputs: &LiveInputs) {
        if self.live.is_none() && inputs.reach.is_empty() {
            return;
        }
        if !inputs.reach.is_empty() {
            let ends: Vec<usize> = inputs.reach.iter().map(|(end, _)| *end).collect();
            self.planned = planned_nodes(
                &self.compiled,
                &self.covers,
                &self.rig_to_union,
                &self.rig_to_mirror,
                &ends,
            );
        }
        match &mut self.live {
            Some(live) => live.inputs.clone_from(inputs),
            None => self.live = Some(Box::new(LiveRig::new(inputs.clone()))),
        }
    }

    /// The timeline events of the playing Animation whose time falls in
    /// `range` (the positions a tick covered).
    pub fn events_in<'a>(
        &'a self,
        range: Option<&'a std::ops::RangeInclusive<u32>>,
    ) -> impl Iterator<Item = &'a CommandEvent> + 'a {
        range
            .into_iter()
            .flat_map(|range| self.runtime().timeline_events_in(range))
    }

    /// True when the pose at a position can be sampled at any time, without
    /// the ticks before it: every cycle is alike and nothing carries state
    /// from tick to tick (no `molang.tick`, no track writes a variable).
    pub fn is_position_pure(&self) -> bool {
        self.compiled.is_position_pure()
    }

    /// True when nothing but the timeline decides this Animation's poses:
    /// every cycle of every playback is the same, so one plan serves them
    /// all.
    pub fn is_pure(&self) -> bool {
        self.compiled.is_cycle_invariant()
    }

    /// Plans the display updates of the cycle that just started, from
    /// `first_position` (0, or where a `server_sync` playback joined; that
    /// tick was sampled into `self.pose`): the rest of the cycle is sampled
    /// on a copy of this playback (same clock, same Molang state, so the
    /// same poses), and each rig node's updates are planned over it, in the
    /// emote frame with `roots` applied. A `server_sync` cycle is sampled
    /// as if the wall clock moved one tick per server tick; when it does
    /// not, the server drops the plan (`send_pose` in the server).
    pub fn plan_cycle(
        &self,
        roots: &SpaceRoots,
        planner: &mut Planner,
        tolerance: Tolerance,
        first_position: u32,
    ) -> Option<Vec<Vec<DisplayUpdate>>> {
        self.plan_cycle_banded(roots, planner, &[tolerance], first_position)
            .and_then(|mut bands| bands.pop())
    }

    /// [`Self::plan_cycle`] at several tolerances (the distance bands,
    /// [`crate::playback::schedule::bands`]): the cycle is sampled once
    /// and planned once per tolerance, band-major.
    pub fn plan_cycle_banded(
        &self,
        roots: &SpaceRoots,
        planner: &mut Planner,
        tolerances: &[Tolerance],
        first_position: u32,
    ) -> Option<BandPlans> {
        let runtime = self.runtime();
        let server_sync = runtime.playback.mode == PlaybackMode::ServerSync;
        let nodes = self.compiled.rig.nodes.len();
        // One slot per rig node: the copy writes rig order, no mirrors.
        // The plan is the animation alone: what the solvers move goes per
        // tick ([`Playing::planned`]).
        let mut copy = Playing {
            rig_to_union: (0..nodes).collect(),
            rig_to_mirror: vec![usize::MAX; nodes],
            live: None,
            ..self.clone()
        };
        let mut frame = vec![None; nodes];
        copy.frame_of_pose(roots, &mut frame);
        let mut frames: Vec<Vec<Option<Mat4>>> = frame.iter().map(|f| vec![*f]).collect();
        let duration = runtime.duration_ticks;
        // A cycle with no delay after it wraps from D − 1 to 0: D itself is
        // never shown (the loop case finds that out from its clock).
        let last = if server_sync && runtime.playback.loop_delay_ticks == 0 {
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
            tolerances
                .iter()
                .map(|tolerance| {
                    frames
                        .iter()
                        .map(|node| {
                            let mut out = Vec::new();
                            planner.plan_into(node, *tolerance, &mut out);
                            out
                        })
                        .collect()
                })
                .collect(),
        )
    }

    /// Writes the current pose into `frame`, by union index.
    pub fn frame_of_pose(&self, roots: &SpaceRoots, frame: &mut [Option<Mat4>]) {
        frame.fill(None);
        let partner_pose = self.live.as_ref().and_then(|live| live.partner_pose());
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
                    // The partner's own solved copy, when it has one.
                    let copy = partner_pose
                        .and_then(|nodes| nodes.get(i))
                        .map_or(local, |p| Mat4::from(p.matrix));
                    *slot = Some(partner * copy);
                }
            }
        }
    }

    /// Node `id`'s transform in the emote frame, placed as
    /// [`Self::frame_of_pose`] places shown display nodes, whether it is
    /// shown or not: anchors too (a keyed camera rides one). `None` for no
    /// such node, or a partner node before the match.
    pub fn node_in_frame(&self, id: &str, roots: &SpaceRoots) -> Option<Mat4> {
        let i = self.compiled.rig.nodes.iter().position(|n| n.id == id)?;
        let local = Mat4::from(self.pose.nodes.get(i)?.matrix);
        let root = match self.spaces.get(i)? {
            Space::Scene => Some(Mat4::IDENTITY),
            Space::Initiator => Some(roots.initiator),
            Space::Partner => roots.partner,
        };
        root.map(|r| r * local)
    }

    /// The pose of this (not yet started) Animation's first tick, computed
    /// on a clone, so the real first tick matches it.
    pub fn preview_first_frame(&self, union_len: usize, roots: &SpaceRoots) -> Vec<Option<Mat4>> {
        let mut copy = self.clone();
        let mut frame = vec![None; union_len];
        if copy.step(wall_tick(), &mut frame, roots).is_err() {
            frame.fill(None);
        }
        frame
    }
}

/// Per union node: covered by the Animation and not moved by its active
/// solvers or by a chain ending at one of `extra_ends` (see
/// [`Playing::planned`]).
fn planned_nodes(
    compiled: &CompiledAnimation,
    covers: &[bool],
    rig_to_union: &[usize],
    rig_to_mirror: &[usize],
    extra_ends: &[usize],
) -> Arc<[bool]> {
    let mut planned = covers.to_vec();
    let solvers = &compiled.runtime.solvers;
    if solvers.is_active() || !extra_ends.is_empty() {
        let moved = solvers.moved_nodes(&compiled.rig, extra_ends);
        for (rig_index, moved) in moved.into_iter().enumerate() {
            if moved {
                for union in [rig_to_union[rig_index], rig_to_mirror[rig_index]] {
                    if let Some(p) = planned.get_mut(union) {
                        *p = false;
                    }
                }
            }
        }
    }
    planned.into()
}

/// A cycle's plans: per distance band
/// ([`crate::playback::schedule::bands`]), per rig node, its updates.
pub type BandPlans = Vec<Vec<Vec<DisplayUpdate>>>;

/// Rig node `rig_index`'s updates at distance band `band` in `plans` (a
/// plan without that band: band 0's).
pub fn node_plan(plans: &BandPlans, band: usize, rig_index: usize) -> Option<&[DisplayUpdate]> {
    plans
        .get(band)
        .or(plans.first())
        .and_then(|plans| plans.get(rig_index))
        .map(Vec::as_slice)
}

/// The planned display updates of the cycle playing now.
pub struct CycleSchedule {
    /// Per distance band, per rig node of the playing Animation, its
    /// updates over the cycle (ticks counted from `first_position`); shared
    /// between playbacks of a pure Animation.
    pub plans: Arc<BandPlans>,
    /// The timeline position the plan starts at: 0, or where a `server_sync`
    /// playback joined its cycle.
    pub first_position: u32,
    /// The timeline position whose updates were last sent (a held position
    /// sends nothing more).
    pub last_position: Option<u32>,
    /// A playback that took a shared plan mid-cycle: per rig node, the
    /// distance bands that do not follow the plan yet. Such a band streams
    /// the exact pose per tick until the plan's next update for that node
    /// starts, then follows the plan: a stretch begins where the streamed
    /// pose already is, so joining draws no error of its own. `None` once
    /// every band of every node follows.
    pub joining: Option<Vec<BandMask>>,
}

impl CycleSchedule {
    /// A plan followed from its first position by every band.
    pub fn followed(plans: Arc<BandPlans>, first_position: u32) -> Self {
        Self {
            plans,
            first_position,
            last_position: None,
            joining: None,
        }
    }

    /// The shared plan of a whole cycle (planned from position 0), taken by
    /// a playback now at `position`: every band of every node joins at the
    /// plan's next update for it (at once when `position` is 0).
    pub fn joined_at(plans: Arc<BandPlans>, position: u32) -> Self {
        let nodes = plans.first().map_or(0, Vec::len);
        Self {
            plans,
            first_position: 0,
            last_position: None,
            joining: (position > 0).then(|| vec![EVERY_BAND; nodes]),
        }
    }
}

/// What a playback is doing this tick.
pub enum Phase {
    /// Moving the shared nodes from the previous pose to the first pose of
    /// the segment about to play, over `total_ticks`.
    Transition {
        /// Per union node, the pose the transition starts from.
        from: Vec<Option<DisplayTransform>>,
        /// Per union node, the first pose of the next segment.
        to: Vec<Option<DisplayTransform>>,
        /// Ticks of the transition done.
        done_ticks: u32,
        /// Its length in ticks.
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

    /// The same update as a display that draws `draw(t)` for a node pose
    /// `t` received it (both ends changed, the timing kept).
    pub fn map(self, draw: impl Fn(&DisplayTransform) -> DisplayTransform) -> InFlight {
        InFlight {
            from: draw(&self.from),
            to: draw(&self.to),
            ..self
        }
    }
}

/// The server's wall-clock tick, `unix_ms / 50` (DESIGN.md, `server_sync`).
pub fn wall_tick() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| (d.as_millis() / 50) as u64)
}
