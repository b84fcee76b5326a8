//! Replaying a plan as the client interpolates it, and checking it
//! against the exact frames tick by tick.

use glam::{Mat4, Vec3};

use crate::anim::DisplayTransform;

use super::metric::*;
use super::update::*;

/// Where a replayed plan leaves the tolerance.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum ScheduleMismatch {
    /// The client would show a hidden node, or hide a shown one.
    #[error("tick {tick}: the client draws the node {drawn}, but it is {expected}; split the plan where visibility changes")]
    Visibility {
        /// The timeline tick.
        tick: u32,
        /// "shown" or "hidden".
        drawn: &'static str,
        /// "shown" or "hidden".
        expected: &'static str,
    },
    /// The drawn pose is further than the tolerance from the exact one.
    #[error("tick {tick}: the client draws the node {:.4} blocks and {:.3}° from its exact pose, over the tolerance; plan with the same tolerance", error.translation_blocks, error.rotation_degrees)]
    Pose {
        /// The timeline tick.
        tick: u32,
        /// How far off it is.
        error: PoseError,
    },
    /// The plan does not cover the frames.
    #[error("the plan was made for {planned} ticks but {frames} frames were given")]
    Length {
        /// Ticks replayed.
        planned: usize,
        /// Frames given.
        frames: usize,
    },
}

/// What the client draws at each timeline tick `0..=duration_ticks` (shown
/// at `tick + 1`, see the timing model) when it receives `updates`, sorted by
/// send tick. `None` where it draws nothing: before the first update, or at
/// scale 0.
///
/// Each update interpolates from what the client shows when it arrives; at
/// full progress the target is drawn exactly, as the client does.
pub fn replay(updates: &[DisplayUpdate], duration_ticks: u32) -> Vec<Option<Mat4>> {
    // The interpolation in progress: from, to, display tick it began, length.
    let mut current: Option<(DisplayTransform, DisplayTransform, u32, u32)> = None;
    let at = |current: &Option<(DisplayTransform, DisplayTransform, u32, u32)>, time: u32| {
        current.map(|(from, to, start, length)| {
            let done = time.saturating_sub(start);
            if done >= length {
                to
            } else if done == 0 {
                from
            } else {
                from.interpolate(&to, done as f32 / length as f32)
            }
        })
    };
    let mut next = 0;
    let mut out = Vec::with_capacity(duration_ticks as usize + 1);
    for tick in 0..=duration_ticks {
        while let Some(update) = updates.get(next).filter(|u| u.send_tick <= tick) {
            let from = at(&current, update.send_tick).unwrap_or(update.transform);
            current = Some((
                from,
                update.transform,
                update.send_tick,
                update.duration_ticks,
            ));
            next += 1;
        }
        out.push(
            at(&current, tick + 1).and_then(|d| (d.scale != Vec3::ZERO).then(|| d.to_matrix())),
        );
    }
    out
}

/// Replays `updates` over `frames.len()` ticks and checks every tick against
/// `frames` with `tolerance`; returns the first tick that fails.
pub fn verify(
    frames: &[Option<Mat4>],
    updates: &[DisplayUpdate],
    tolerance: Tolerance,
) -> Result<(), ScheduleMismatch> {
    let Some(last) = frames.len().checked_sub(1) else {
        return Ok(());
    };
    let drawn = replay(updates, last as u32);
    if drawn.len() != frames.len() {
        return Err(ScheduleMismatch::Length {
            planned: drawn.len(),
            frames: frames.len(),
        });
    }
    let word = |nothing: bool| if nothing { "hidden" } else { "shown" };
    for (tick, (drawn, exact)) in drawn.iter().zip(frames).enumerate() {
        let tick = tick as u32;
        let (drawn_nothing, exact_nothing) =
            (draws_nothing(drawn.as_ref()), draws_nothing(exact.as_ref()));
        if drawn_nothing != exact_nothing {
            return Err(ScheduleMismatch::Visibility {
                tick,
                drawn: word(drawn_nothing),
                expected: word(exact_nothing),
            });
        }
        if let (Some(drawn), Some(exact)) = (drawn, exact) {
            let error = pose_error(drawn, exact);
            if !tolerance.accepts(error) {
                return Err(ScheduleMismatch::Pose { tick, error });
            }
        }
    }
    Ok(())
}

/// How many updates per-tick streaming sends for `frames`, and their
/// estimated bytes: one at each tick whose transform (scale 0 where last
/// sent, when hidden) differs from the last one sent, as the server's
/// per-tick path compares them.
pub fn per_tick_updates(frames: &[Option<Mat4>]) -> (usize, usize) {
    let mut last: Option<DisplayTransform> = None;
    let (mut count, mut bytes) = (0, 0);
    for frame in frames {
        let transform = match frame {
            Some(m) => DisplayTransform::from_matrix(m),
            None => hidden_transform(last),
        };
        if last != Some(transform) {
            count += 1;
            bytes += metadata_bytes(last.as_ref(), &transform, last.is_none());
            last = Some(transform);
        }
    }
    (count, bytes)
}

/// How many updates per-tick streaming sends for `frames`.
pub fn per_tick_update_count(frames: &[Option<Mat4>]) -> usize {
    per_tick_updates(frames).0
}

/// Per-tick streaming's updates for `frames` against `updates`', in count
/// and estimated bytes ([`metadata_bytes`]).
pub fn update_counts(frames: &[Option<Mat4>], updates: &[DisplayUpdate]) -> UpdateCounts {
    let (per_tick, per_tick_bytes) = per_tick_updates(frames);
    let mut planned_bytes = 0;
    let mut previous: Option<&DisplayUpdate> = None;
    for update in updates {
        planned_bytes += metadata_bytes(
            previous.map(|p| &p.transform),
            &update.transform,
            previous.is_none_or(|p| p.duration_ticks != update.duration_ticks),
        );
        previous = Some(update);
    }
    UpdateCounts {
        per_tick,
        planned: updates.len(),
        per_tick_bytes,
        planned_bytes,
    }
}
