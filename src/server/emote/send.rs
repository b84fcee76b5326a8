//! Sending poses: the scheduler's plan for each cycle (shared between
//! playbacks of a pure Animation), or per-tick updates where there is
//! none, written as display transformations.

use std::collections::HashMap;
use std::sync::Arc;

use valence::entity::display::{
    InterpolationDuration, LeftRotation, RightRotation, Scale, StartInterpolation, Translation,
};
use valence::math::{Mat4, Quat, Vec3};
use valence::prelude::*;

use super::active::*;
use crate::anim::DisplayTransform;
use crate::library::CompiledAnimation;
use crate::playback::playing::*;
use crate::playback::schedule::{update_at, DisplayUpdate, Planner, Tolerance};

/// Plans shared between playbacks: one per Animation whose cycles are all
/// alike ([`CompiledAnimation::is_cycle_invariant`]), keyed by its compiled
/// form, plus the planner's buffers.
#[derive(Resource, Default)]
pub struct PlanCache {
    pub(super) shared: HashMap<usize, SharedPlan>,
    pub(super) planner: Planner,
    /// Node-ticks planned during the current server tick.
    pub(super) planned_this_tick: usize,
    /// How far the drawn pose may be from the exact one.
    pub(super) tolerance: Tolerance,
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
pub(super) fn apply_display_tolerance(
    config: Res<crate::server::config::Config>,
    mut plans: ResMut<PlanCache>,
) {
    if config.is_changed() {
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
pub(super) const PLANNING_BUDGET_NODE_TICKS: usize = 4_000;

/// A shared plan and the compiled Animation it belongs to (kept alive so
/// its address, the key, is never reused).
pub(super) type SharedPlan = (Arc<CompiledAnimation>, Arc<Vec<Vec<DisplayUpdate>>>);

/// At most this many shared plans are kept (a reload makes new ones). At
/// the limit, plans of Animations no longer loaded or playing go first.
pub(super) const PLAN_CACHE_LIMIT: usize = 1024;

/// When a cycle started this tick (or one waits for the planning budget),
/// plans its display updates from this tick on, or takes the shared plan of
/// a pure Animation. Two-player mirrors stay per tick.
pub(super) fn plan_new_cycle(playback: &mut ActiveEmote, cache: &mut PlanCache) {
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

pub(super) type DisplayQuery<'w, 's> = Query<
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
pub(super) fn write_transform(
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
pub(super) fn send_pose(
    playback: &mut ActiveEmote,
    yaw_degrees: f32,
    displays: &mut DisplayQuery,
    now: i64,
) {
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
pub(super) fn send_per_tick(
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
