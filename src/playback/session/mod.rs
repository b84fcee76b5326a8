//! One emote playing for a player, as pure state: what the server keeps in
//! its `ActiveEmote` component besides entities.
//!
//! The model: a playback is a queue of [`Segment`]s (one Animation cycle,
//! or a hold), played one after the other by a small phase machine
//! ([`Phase`]: a segment's timeline, a transition into the next segment's
//! first pose, or a hold). Every node any of its Animations has gets a
//! place in the *union* (by node id, in the order first seen); the
//! Animation playing now writes its nodes' root-frame matrices into
//! [`PlaybackState::frame`], and nodes it lacks stay hidden.
//!
//! The server drives it the way it drives [`crate::playback::StopMonitor`]
//! or [`crate::playback::Clock`]: each tick it calls
//! [`PlaybackState::advance`] with the wall clock, turns the
//! [`DueCommand`]s it returns into dispatcher events, asks for the tick's
//! display updates ([`PlaybackState::pose_updates`]) and writes them to the
//! display entities. Two-player Sequences tell it when a partner matched
//! ([`PlaybackState::begin_branch`], [`PlaybackState::freeze_yaw`]); where
//! the partner stands is the server's business
//! ([`crate::playback::partner`] has the rules).
//!
//! - [`prepare`](mod@prepare): a play request's checks and the state it starts from;
//! - [`advance`]: the phase machine;
//! - [`due`]: the command events a tick runs, with origins resolved;
//! - [`pose`]: the cycle's shared plan and each tick's display updates;
//! - [`sent`]: what each distance band's viewers were sent;
//! - [`nbt`]: what the NBT tracks built on each display, and each tick's
//!   changes.

pub mod advance;
pub mod controlled;
#[cfg(test)]
mod controlled_tests;
pub mod due;
#[cfg(test)]
mod join_tests;
pub mod live_updates;
pub mod nbt;
pub mod observe;
#[cfg(test)]
mod observe_tests;
pub mod pose;
pub mod prepare;
pub mod sent;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use glam::{DVec3, Mat4};

use crate::anim::DisplayTransform;
use crate::format::node::{NodeKind, Participant, Space};
use crate::format::settings::StopConditions;
use crate::format::{EmoteFile, EmoteId};
use crate::playback::controlled::ControlledBody;
use crate::playback::live::LiveInputs;
use crate::playback::playing::{CycleSchedule, Phase, PlayableAnimation, Playing, SpaceRoots};
use crate::playback::schedule::Tolerance;
use crate::playback::sequence::Segment;
use crate::playback::YawFollower;

pub use advance::{PlaybackEnd, TickOutcome};
pub use due::{DueCommand, DueSource};
pub use nbt::{NbtChange, UnionNbt};
pub use observe::WorldView;
pub use pose::{NodeUpdate, PlanCache};
pub use prepare::{prepare, PlayRefusal, PlayRequest, Prepared, TwoPlayerPlan};
pub use sent::SentBands;

/// The nodes of a playback: every node of every Animation it may play, by
/// union index.
#[derive(Clone, Debug, Default)]
pub struct UnionNodes {
    /// Node ids, in the order first seen (a partner copy's ends in
    /// `@partner`, see [`crate::playback::playing::mirror_id`]).
    pub ids: Vec<String>,
    /// What each draws, from the first Animation that has it.
    pub kinds: Vec<NodeKind>,
    /// The space of each (a partner copy's is `partner`).
    pub spaces: Vec<Space>,
}

impl UnionNodes {
    /// How many nodes.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// True for a node that has an entity (anchors have none).
    pub fn has_display(&self, union: usize) -> bool {
        self.kinds
            .get(union)
            .is_some_and(|k| !matches!(k, NodeKind::Anchor))
    }

    /// The skin-bound item displays and whose skin each wears: the
    /// binding's participant, and the partner for a partner copy.
    pub fn skin_bindings(&self) -> Vec<(usize, Participant)> {
        self.kinds
            .iter()
            .enumerate()
            .filter_map(|(union, kind)| match kind {
                NodeKind::Item {
                    skin: Some(binding),
                    ..
                } => Some((
                    union,
                    if crate::playback::playing::mirrored_source(&self.ids[union]).1 {
                        Participant::Partner
                    } else {
                        binding.participant
                    },
                )),
                _ => None,
            })
            .collect()
    }
}

/// A playing emote (an Animation, or a Sequence of them), without entities.
///
/// Everything is per union node where it is a `Vec`.
pub struct PlaybackState {
    /// The emote id (an Animation or a Sequence).
    pub emote: EmoteId,
    /// Its display name (`metadata.name`).
    pub name: String,
    /// Its cooldown, per player (a partner's starts at the match).
    pub cooldown_ticks: u32,
    /// The validated file it started from (what a reload compares).
    pub file: Arc<EmoteFile>,
    /// Every Animation it may play, by id.
    pub animations: BTreeMap<EmoteId, PlayableAnimation>,
    /// Its nodes.
    pub union: UnionNodes,
    /// What each node shows now, in the root's frame (`None`: hidden).
    pub frame: Vec<Option<Mat4>>,
    /// What each distance band's viewers were sent of each node: the last
    /// target and the update in flight ([`sent`]).
    pub sent: SentBands,
    /// What the NBT tracks built on each display ([`nbt`]).
    pub nbt: UnionNbt,
    /// The Animation segment playing (or last played).
    pub current: Playing,
    /// What the phase machine does this tick.
    pub phase: Phase,
    /// Segments still to play (Sequences).
    pub queue: VecDeque<Segment>,
    /// Seed of this playback; each segment derives its own.
    pub seed: u64,
    /// Segments started so far (for their seeds).
    pub segments_started: u64,
    /// The root's yaw, following the player's through the deadzone.
    pub yaw: YawFollower,
    /// Where the root was placed (the player's feet when it started).
    pub root: DVec3,
    /// The stop conditions (watched on each participant).
    pub stop_conditions: StopConditions,
    /// `player.hidden` (applies to each participant).
    pub player_hidden: bool,
    /// Where each space's root is.
    pub roots: SpaceRoots,
    /// A two-player playback whose partner matched: participants stay
    /// where they were placed.
    pub partner_matched: bool,
    /// Per node: a `scene` node, placed where the emote started and not
    /// turned with the player afterwards.
    pub scene_nodes: Vec<bool>,
    /// The root rotation when the playback started (for `scene` nodes).
    pub scene_root: Mat4,
    /// The planned updates of the current cycle (`None`: per tick).
    pub schedule: Option<CycleSchedule>,
    /// The timeline position of this tick (for the schedule).
    pub position_ticks: Option<u32>,
    /// The root yaw the schedule's updates were turned by; a turn drops
    /// the schedule for the rest of the cycle.
    pub scheduled_yaw: Option<f32>,
    /// A cycle started this tick (plan it).
    pub cycle_started: bool,
    /// The current cycle waits for a plan (the tick's planning budget was
    /// spent); it streams per tick meanwhile.
    pub plan_pending: bool,
    /// The timeline position (and roots) whose pose was not sampled: the
    /// schedule drew it, and nothing else needed it. `frame` and
    /// `current.pose` are then stale until [`PlaybackState::refresh_pose`].
    pub stale_pose: Option<(u32, SpaceRoots)>,
    /// What the solvers were last fed ([`PlaybackState::observe_live`]);
    /// each segment starts with it.
    pub live_inputs: LiveInputs,
    /// How far a node a solver moves may be drawn from its solved pose
    /// before it is sent again (the planner's tolerance).
    pub live_tolerance: Tolerance,
    /// Per union node a solver moves, its exact transformation last tick
    /// (its motion leads the next update, [`live_updates`]).
    pub live_previous: Vec<Option<DisplayTransform>>,
    /// A controller's machines and clips, when the emote is a controller:
    /// it poses the body clip's nodes every tick ([`controlled`]).
    pub controller: Option<Box<ControlledBody>>,
    /// Where a walking body is from the root (its displays' place), in
    /// world blocks: carried in every node's transformation
    /// ([`PlaybackState::follow_to`]).
    pub walk_offset: glam::Vec3,
    /// The root moved to the body this tick: every display is sent its
    /// pose with no interpolation (its place and its transformation change
    /// together).
    pub reanchored: bool,
}

impl PlaybackState {
    /// The id of the Animation playing now (for a Sequence, its current
    /// step's).
    pub fn current_animation(&self) -> &EmoteId {
        &self.current.id
    }

    /// Every Animation file the playback may play (for a Sequence, those
    /// it references), by id.
    pub fn animation_files(&self) -> impl Iterator<Item = (&EmoteId, &EmoteFile)> + '_ {
        self.animations.iter().map(|(id, a)| (id, &*a.file))
    }

    /// The root's yaw now, in degrees.
    pub fn root_yaw_degrees(&self) -> f32 {
        self.yaw.yaw_degrees()
    }

    /// Where the root was placed.
    pub fn root_position(&self) -> DVec3 {
        self.root
    }

    /// A partner matched: the root stops following the initiator's yaw,
    /// and later segments keep it so.
    pub fn freeze_yaw(&mut self) {
        self.partner_matched = true;
        self.yaw.set_deadzone(180.0);
    }

    /// Node `id`'s transform in the emote frame now, shown or not (see
    /// [`Playing::node_in_frame`]); call [`Self::refresh_pose`] first on
    /// a scheduled tick.
    pub fn node_in_frame(&self, id: &str) -> Option<Mat4> {
        self.current.node_in_frame(id, &self.roots)
    }

    /// Samples the pose a scheduled tick skipped, so `frame` and the node
    /// poses are current (a turn, a stop or a transition needs them). The
    /// Animation is position-pure, so this is the pose that tick had.
    pub fn refresh_pose(&mut self) {
        if let Some((position, roots)) = self.stale_pose.take() {
            // It sampled without error when the cycle was planned.
            let _ = self
                .current
                .sample(position, false, &mut self.frame, &roots);
        }
    }
}
