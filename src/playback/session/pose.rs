//! Each tick's display updates: the scheduler's plan for the cycle
//! ([`crate::playback::schedule`], shared between playbacks of an
//! Animation whose cycles are all alike), or a per-tick update of every
//! node whose transformation changed where there is no plan. The server
//! writes what [`PlaybackState::pose_updates`] returns to the entities.

use std::collections::HashMap;
use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};

use super::sent::SentBands;
use super::PlaybackState;
use crate::anim::DisplayTransform;
use crate::library::CompiledAnimation;
use crate::playback::playing::{node_plan, BandPlans, CycleSchedule, SpaceRoots};
use crate::playback::schedule::{
    band_tolerance, bands_of, held_at, pose_error, update_at, BandMask, DisplayUpdate, Planner,
    Tolerance, DISPLAY_BANDS, EVERY_BAND,
};

/// How many node-ticks (display nodes × timeline ticks × distance bands)
/// may be planned in one server tick; about 3 ms on the 2-core machine,
/// sampling included.
/// Cycles that start together (every `server_sync` playback of an emote
/// wraps on the same tick; a burst of `/emote` starts) would otherwise plan
/// in one tick and stall it. A cycle over the budget streams per tick and
/// is planned from where it is on a later tick. Shared plans cost nothing.
pub const PLANNING_BUDGET_NODE_TICKS: usize = 16_000;

/// At most this many shared plans are kept (a reload makes new ones). At
/// the limit, plans of Animations no longer loaded or playing go first.
pub const PLAN_CACHE_LIMIT: usize = 1024;

/// A shared plan and the compiled Animation it belongs to (kept alive so
/// its address, the key, is never reused).
type SharedPlan = (Arc<CompiledAnimation>, Arc<BandPlans>);

/// Plans shared between playbacks: one per Animation whose cycles are all
/// alike ([`CompiledAnimation::is_cycle_invariant`]), keyed by its compiled
/// form, plus the planner's buffers and the tick's planning budget.
#[derive(Default)]
pub struct PlanCache {
    shared: HashMap<usize, SharedPlan>,
    planner: Planner,
    /// Node-ticks planned during the current server tick.
    planned_this_tick: usize,
    /// How far the drawn pose may be from the exact one (band 0's; the
    /// coarser bands' are multiples, [`band_tolerance`]).
    tolerance: Tolerance,
}

impl PlanCache {
    /// The tolerance of each distance band, finest first.
    fn band_tolerances(&self) -> [Tolerance; DISPLAY_BANDS] {
        std::array::from_fn(|band| band_tolerance(self.tolerance, band))
    }

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

    /// Spends the rest of this tick's planning budget (tests: a cycle
    /// that waits for it).
    #[cfg(test)]
    pub(super) fn spend_budget(&mut self) {
        self.planned_this_tick = 4 * PLANNING_BUDGET_NODE_TICKS;
    }

    /// A new server tick: the planning budget is whole again.
    pub fn begin_tick(&mut self) {
        self.planned_this_tick = 0;
    }

    /// How many shared plans are kept.
    pub fn shared_plans(&self) -> usize {
        self.shared.len()
    }

    /// Drops the shared plans of Animations nothing else holds (after a
    /// reload: no longer loaded, and no playback plays them). Without it a
    /// server reloading every 30 s kept up to [`PLAN_CACHE_LIMIT`] plans of
    /// Animations long gone, and their compiled forms with them.
    pub fn forget_unloaded(&mut self) {
        // The cache alone holds the others.
        self.shared
            .retain(|_, (compiled, _)| Arc::strong_count(compiled) > 1);
    }

    /// Keeps `plans`, the shared plan of `compiled` (whose address is
    /// `key`). At [`PLAN_CACHE_LIMIT`], the plans of Animations no longer
    /// loaded or playing go first, then all.
    fn keep_shared(
        &mut self,
        key: usize,
        compiled: &Arc<CompiledAnimation>,
        plans: &Arc<BandPlans>,
    ) {
        if self.shared.len() >= PLAN_CACHE_LIMIT {
            self.forget_unloaded();
            if self.shared.len() >= PLAN_CACHE_LIMIT {
                self.shared.clear();
            }
        }
        self.shared
            .insert(key, (Arc::clone(compiled), Arc::clone(plans)));
    }
}

/// One display's update this tick, for the viewers of some distance bands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeUpdate {
    /// The union node (it has a display).
    pub union: usize,
    /// Its new transformation, turned by the root.
    pub transform: DisplayTransform,
    /// Its `interpolation_duration`.
    pub duration_ticks: u32,
    /// The distance bands whose viewers get it
    /// ([`crate::playback::schedule::bands`]).
    pub bands: BandMask,
    /// What those bands' viewers were sent before (`None`: nothing), so
    /// fields that did not change can be left out.
    pub previous: Option<DisplayTransform>,
    /// The `interpolation_duration` those bands' viewers were sent before
    /// ([`sent::UNKNOWN_DURATION`](super::sent::UNKNOWN_DURATION): none).
    pub previous_duration_ticks: u32,
}

impl PlaybackState {
    /// When a cycle started this tick (or one waits for the planning
    /// budget), plans its display updates from this tick on, or takes the
    /// shared plan of a pure Animation. Two-player mirrors stay per tick.
    ///
    /// Every plan is made at each distance band
    /// ([`crate::playback::schedule::bands`]): the cycle is sampled once and
    /// planned four times, and the planning budget counts the four. (Planning
    /// a cycle of its own at band 0 alone, for every band, was measured:
    /// 300 players 4 blocks apart then got 579 KB/s each instead of 498.)
    ///
    /// A pure Animation is planned once, by the first playback that starts
    /// a cycle of it, and that plan may take up to twice the tick's budget
    /// (it serves every later playback for nothing). A playback of it that
    /// is mid-cycle (it waited for the budget, or a `server_sync` clock put
    /// it there) takes the shared plan too and joins it node by node
    /// ([`CycleSchedule::joined_at`]). Before this, such playbacks planned
    /// their own rest of the cycle, and at 1,000 players starting within
    /// three seconds, 300 of them streamed per tick for a whole cycle while
    /// they waited for the budget.
    pub fn plan_new_cycle(&mut self, cache: &mut PlanCache) {
        if self.cycle_started {
            self.scheduled_yaw = None;
            self.schedule = None;
            self.plan_pending = true;
        }
        self.live_tolerance = cache.tolerance;
        if !self.plan_pending || self.roots.mirror {
            return;
        }
        let Some(position) = self.position_ticks else {
            return;
        };
        let roots = self.roots;
        let current = &self.current;
        let pure = current.is_pure() && roots == SpaceRoots::SOLO;
        let key = Arc::as_ptr(&current.compiled) as usize;
        if pure {
            if let Some((_, plans)) = cache.shared.get(&key) {
                self.plan_pending = false;
                self.schedule = Some(CycleSchedule::joined_at(Arc::clone(plans), position));
                return;
            }
        }
        let shared = pure && position == 0;
        let duration = current.runtime().duration_ticks;
        // Each distance band is planned: the budget counts them all.
        let cost = current.compiled.rig.nodes.len()
            * duration.saturating_sub(position) as usize
            * DISPLAY_BANDS;
        let limit = if shared {
            2 * PLANNING_BUDGET_NODE_TICKS
        } else {
            PLANNING_BUDGET_NODE_TICKS
        };
        // Over budget: wait, unless nothing was planned yet this tick
        // (a single cycle larger than the budget still gets its plan).
        if cache.planned_this_tick > 0 && cache.planned_this_tick + cost > limit {
            return;
        }
        cache.planned_this_tick += cost;
        self.plan_pending = false;
        let tolerances = cache.band_tolerances();
        let plans = current
            .plan_cycle_banded(&roots, &mut cache.planner, &tolerances, position)
            .map(Arc::new);
        if let (true, Some(plans)) = (shared, &plans) {
            cache.keep_shared(key, &current.compiled, plans);
        }
        self.schedule = plans.map(|plans| CycleSchedule::followed(plans, position));
    }

    /// This tick's display updates, with the root at `yaw_degrees`, at
    /// server tick `now`, pushed onto `out`: from the cycle's plan when
    /// there is one (and the root has not turned since it began), else
    /// every node whose transformation changed, with a one-tick
    /// interpolation.
    pub fn pose_updates(&mut self, yaw_degrees: f32, now: i64, out: &mut Vec<NodeUpdate>) {
        let yaw = Quat::from_rotation_y(-yaw_degrees.to_radians());
        let scene_yaw = Quat::from_mat4(&self.scene_root);
        if let (Some(position), Some(schedule)) = (self.position_ticks, &mut self.schedule) {
            let steady = *self.scheduled_yaw.get_or_insert(yaw_degrees) == yaw_degrees;
            // The plan assumes one position per tick (or a held one); a
            // `server_sync` wall clock that skipped a tick would skip updates.
            let in_step = position >= schedule.first_position
                && schedule
                    .last_position
                    .is_none_or(|last| position == last || position == last + 1);
            if steady && in_step {
                if schedule.last_position != Some(position) {
                    schedule.last_position = Some(position);
                    let tick = position - schedule.first_position;
                    let rig_nodes = schedule.plans.first().map_or(0, Vec::len);
                    for rig_index in 0..rig_nodes {
                        let Some(&union) = self.current.rig_to_union.get(rig_index) else {
                            continue;
                        };
                        // Nodes a solver moves go per tick (and have
                        // nothing to join).
                        let planned = self.current.planned.get(union).copied().unwrap_or(false);
                        if !self.union.has_display(union) || !planned {
                            if let Some(joining) = schedule
                                .joining
                                .as_mut()
                                .and_then(|joining| joining.get_mut(rig_index))
                            {
                                *joining = 0;
                            }
                            continue;
                        }
                        let scene = self.scene_nodes.get(union).copied().unwrap_or(false);
                        let turn = if scene { scene_yaw } else { yaw };
                        // Each band's plan; bands with the same update this
                        // tick share it (and it is turned once).
                        let mut due: [Option<&DisplayUpdate>; DISPLAY_BANDS] =
                            [None; DISPLAY_BANDS];
                        for (band, slot) in due.iter_mut().enumerate() {
                            *slot = node_plan(&schedule.plans, band, rig_index)
                                .and_then(|plan| update_at(plan, tick));
                        }
                        // Bands joining the plan mid-cycle: those with an
                        // update starting now follow it; those whose plan
                        // holds a target now are sent it (once, over one
                        // tick) and follow; the rest stream.
                        let mut streaming: BandMask = 0;
                        let mut holding: [Option<&DisplayUpdate>; DISPLAY_BANDS] =
                            [None; DISPLAY_BANDS];
                        if let Some(joining) = schedule
                            .joining
                            .as_mut()
                            .and_then(|joining| joining.get_mut(rig_index))
                        {
                            for (band, slot) in due.iter().enumerate() {
                                if *joining & (1 << band) == 0 {
                                    continue;
                                }
                                let held = node_plan(&schedule.plans, band, rig_index)
                                    .and_then(|plan| held_at(plan, tick));
                                if slot.is_some() || held.is_some() {
                                    *joining &= !(1 << band);
                                    holding[band] = held.filter(|_| slot.is_none());
                                } else {
                                    streaming |= 1 << band;
                                }
                            }
                        }
                        for band in 0..DISPLAY_BANDS {
                            let Some(update) = due[band] else {
                                continue;
                            };
                            let mut mask: BandMask = 0;
                            for (other, slot) in due.iter_mut().enumerate().skip(band) {
                                if slot.is_some_and(|u| u == update) {
                                    mask |= 1 << other;
                                    *slot = None;
                                }
                            }
                            let transform = update.turned(turn);
                            self.sent
                                .send(union, mask, transform, update.duration_ticks, now, out);
                        }
                        for (band, held) in holding.iter().enumerate() {
                            if let Some(held) = held {
                                let transform = held.turned(turn);
                                let changed = self.sent.differing(union, 1 << band, &transform);
                                self.sent.send(union, changed, transform, 1, now, out);
                            }
                        }
                        if streaming != 0 {
                            let transform = exact_transform(
                                self.frame.get(union).copied().flatten(),
                                node_root(scene, yaw, scene_yaw, self.walk_offset),
                                self.sent.last(union, 0),
                            );
                            let due = joining_bands_due(
                                &self.sent,
                                union,
                                streaming,
                                &transform,
                                self.live_tolerance,
                                now,
                                |band| {
                                    node_plan(&schedule.plans, band, rig_index)
                                        .is_some_and(|plan| update_at(plan, tick + 1).is_some())
                                },
                            );
                            self.sent.send(union, due, transform, 1, now, out);
                        }
                    }
                    if schedule
                        .joining
                        .as_ref()
                        .is_some_and(|joining| joining.iter().all(|bands| *bands == 0))
                    {
                        schedule.joining = None;
                    }
                }
                // Nodes the playing Animation lacks stay hidden, and the
                // nodes its solvers move follow them, per tick.
                let planned = Arc::clone(&self.current.planned);
                self.per_tick_updates(yaw, scene_yaw, Some(&planned), now, out);
                return;
            }
            // The root turned mid-cycle (or the clock jumped): per tick
            // until the next cycle.
            self.schedule = None;
            self.refresh_pose();
        }
        self.per_tick_updates(yaw, scene_yaw, None, now, out);
        self.reanchored = false;
    }

    /// The per-tick policy, for every node (or only those `skip` leaves out).
    fn per_tick_updates(
        &mut self,
        yaw: Quat,
        scene_yaw: Quat,
        skip: Option<&[bool]>,
        now: i64,
        out: &mut Vec<NodeUpdate>,
    ) {
        for union in 0..self.union.len() {
            if !self.union.has_display(union) {
                continue;
            }
            if skip.is_some_and(|s| s.get(union).copied().unwrap_or(false)) {
                continue;
            }
            // `scene` nodes stay as the scene started; the rest turn with
            // the root, and a walking body's are carried to where it is.
            let scene = self.scene_nodes.get(union).copied().unwrap_or(false);
            let root = node_root(scene, yaw, scene_yaw, self.walk_offset);
            let transform = exact_transform(
                self.frame.get(union).copied().flatten(),
                root,
                self.sent.last(union, 0),
            );
            if self.reanchored {
                self.live_previous[union] = None;
                self.sent.send(union, EVERY_BAND, transform, 0, now, out);
                continue;
            }
            if transform.scale != Vec3::ZERO && self.is_solved(union) {
                self.solved_update(union, transform, now, out);
                continue;
            }
            self.live_previous[union] = None;
            let changed = self.sent.differing(union, EVERY_BAND, &transform);
            self.sent.send(union, changed, transform, 1, now, out);
        }
    }
}

/// A node's exact transformation this tick: its `frame` matrix under
/// `root`, or, hidden (`None`), scale 0 where it was `last` drawn.
fn exact_transform(
    frame: Option<Mat4>,
    root: Mat4,
    last: Option<DisplayTransform>,
) -> DisplayTransform {
    match frame {
        Some(matrix) => DisplayTransform::from_matrix(&(root * matrix)),
        None => DisplayTransform {
            scale: Vec3::ZERO,
            ..last.unwrap_or(DisplayTransform::IDENTITY)
        },
    }
}

/// The bands of `streaming` (a node joining a plan) that are sent its
/// `exact` pose this tick: those whose drawn pose is past their band's
/// share of `tolerance`, and those whose plan starts an update next tick
/// (`starts_next`), so that update sets out from the exact pose as the
/// plan has it. The rest keep what they draw, within their tolerance.
fn joining_bands_due(
    sent: &SentBands,
    union: usize,
    streaming: BandMask,
    exact: &DisplayTransform,
    tolerance: Tolerance,
    now: i64,
    starts_next: impl Fn(usize) -> bool,
) -> BandMask {
    let exact_matrix = exact.to_matrix();
    let mut due: BandMask = 0;
    for band in bands_of(streaming) {
        let close = sent.drawn_at(union, band, now).is_some_and(|drawn| {
            (drawn.scale == Vec3::ZERO) == (exact.scale == Vec3::ZERO)
                && (exact.scale == Vec3::ZERO
                    || band_tolerance(tolerance, band)
                        .accepts(pose_error(&drawn.to_matrix(), &exact_matrix)))
        });
        if !close || (starts_next(band) && sent.differing(union, 1 << band, exact) != 0) {
            due |= 1 << band;
        }
    }
    due
}

/// The matrix a node's emote-frame pose is drawn under: a `scene` node
/// stays as the scene started (`scene_yaw`); the rest turn with the root
/// (`yaw`) and a walking body's are carried `walk_offset` to where it is.
fn node_root(scene: bool, yaw: Quat, scene_yaw: Quat, walk_offset: Vec3) -> Mat4 {
    if scene {
        Mat4::from_quat(scene_yaw)
    } else {
        Mat4::from_rotation_translation(yaw, walk_offset)
    }
}
