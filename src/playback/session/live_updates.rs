//! The display updates of nodes a solver moves ([`crate::playback::live`]):
//! their future depends on what players do, so no plan covers them, and a
//! head that follows the mouse moves a little every tick. Each tick the
//! exact solved transformation is held against what clients draw now (the
//! last update, interpolated if it is still running); within the
//! tolerance nothing goes out. Otherwise the update leads: it aims
//! [`LEAD_TICKS`] ahead along the node's motion over the last tick and
//! asks clients to take that long, so a node moving steadily (a hand
//! following a swaying grip, a turning head) is drawn along its path and
//! sent again only when its motion changes. A controller's nodes
//! ([`crate::playback::controlled`]) take the same test but no lead: a
//! walk cycle turns back every few ticks, where a lead would overshoot, so
//! each update is the exact pose over one tick.

use super::{NodeUpdate, PlaybackState};
use crate::anim::DisplayTransform;
use crate::playback::schedule::{pose_error, EVERY_BAND};

/// How far ahead a solved node's update aims, ticks.
pub const LEAD_TICKS: u32 = 4;

impl PlaybackState {
    /// True when an active solver of the playing Animation (or a
    /// controller, whose every node goes per tick) may move union node
    /// `union`.
    pub(super) fn is_solved(&self, union: usize) -> bool {
        (self.current.live.is_some() || self.controller.is_some())
            && self.current.covers.get(union).copied().unwrap_or(false)
            && !self.current.planned.get(union).copied().unwrap_or(true)
    }

    /// The update of a solved node whose exact transformation is `exact`
    /// at server tick `now`, if clients draw it off by more than the
    /// tolerance (module docs), pushed onto `out` for every band.
    pub(super) fn solved_update(
        &mut self,
        union: usize,
        exact: DisplayTransform,
        now: i64,
        out: &mut Vec<NodeUpdate>,
    ) {
        let Some(previous) = self.live_previous.get_mut(union).map(|p| p.replace(exact)) else {
            return;
        };
        // Band 0's viewers draw it closest; every band gets the update.
        let drawn = self.sent.drawn_at(union, 0, now);
        if let Some(drawn) = drawn {
            if drawn.scale != glam::Vec3::ZERO
                && self
                    .live_tolerance
                    .accepts(pose_error(&drawn.to_matrix(), &exact.to_matrix()))
            {
                return;
            }
        }
        // A controller's body swings back and forth every cycle: a lead
        // would overshoot each turn, so it goes to the exact pose in a tick.
        let lead = previous.filter(|_| self.controller.is_none());
        let (to, duration_ticks) = match lead {
            Some(previous) => (
                previous.interpolate(&exact, 1.0 + LEAD_TICKS as f32),
                LEAD_TICKS,
            ),
            None => (exact, 1),
        };
        self.sent
            .send(union, EVERY_BAND, to, duration_ticks, now, out);
    }
}
