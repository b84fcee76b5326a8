//! The planner: the stretches each node's frames are cut into, ends
//! aimed past curving paths, fields the client has kept.

use glam::{Mat4, Quat, Vec3};

use crate::anim::DisplayTransform;

use super::metric::*;
use super::update::*;

/// A miss (in tolerances) past which aiming a target is not tried.
pub(super) const HOPELESS_MISS: f32 = 2.0;

/// The share of the tolerance the planner uses (see [`Planner::plan_into`]).
pub(super) const PLANNING_MARGIN: f32 = 0.999;

/// Plans display updates, reusing its buffers from one node to the next.
#[derive(Clone, Debug, Default)]
pub struct Planner {
    /// Per tick: the decomposed exact transform (`None` when hidden).
    exact: Vec<Option<DisplayTransform>>,
    /// Per tick: the exact rotation, when it is compared.
    rotations: Vec<Option<Quat>>,
}

impl Planner {
    /// An empty planner.
    pub fn new() -> Self {
        Self::default()
    }

    /// Plans the updates for one node whose exact root-frame matrices over
    /// ticks `0..=D` are `frames` (`None` = hidden), replacing `out`'s
    /// contents. An empty `frames` plans nothing.
    pub fn plan_into(
        &mut self,
        frames: &[Option<Mat4>],
        tolerance: Tolerance,
        out: &mut Vec<DisplayUpdate>,
    ) {
        out.clear();
        // The planner reads a drawn pose's rotation off its transformation
        // instead of decomposing its matrix, as `verify` does; the two agree
        // to float rounding, which this margin covers.
        let tolerance = Tolerance {
            translation_blocks: tolerance.translation_blocks * PLANNING_MARGIN,
            rotation_degrees: tolerance.rotation_degrees * PLANNING_MARGIN,
        };
        self.exact.clear();
        self.rotations.clear();
        for frame in frames {
            let d = frame.as_ref().map(DisplayTransform::from_matrix);
            self.exact.push(d);
            self.rotations.push(d.as_ref().and_then(compared_rotation));
        }
        let n = frames.len();
        // What the client shows once every update so far has finished.
        let mut shown: Option<DisplayTransform> = None;
        let mut t = 0usize;
        while t < n {
            let Some(start) = self.exact[t] else {
                // A hidden run: one scale-0 update at its first tick.
                let hidden = hidden_transform(shown);
                if shown != Some(hidden) {
                    out.push(point(t, hidden));
                    shown = Some(hidden);
                }
                while t < n && self.exact[t].is_none() {
                    t += 1;
                }
                continue;
            };
            // The first tick of a shown run: what the client shows, if it is
            // already close enough, else the exact pose with every field
            // the client already has kept where that stays close enough.
            let first_fits = shown.is_some_and(|s| {
                !draws_nothing(Some(&s.to_matrix())) && self.accepts(frames, &s, t, tolerance)
            });
            if !first_fits {
                let target = match shown {
                    Some(from) if from.scale != Vec3::ZERO => {
                        self.keep_fields(frames, from, start, t, t, tolerance)
                    }
                    _ => start,
                };
                out.push(point(t, target));
                shown = Some(target);
            }
            let run_end = (t..n)
                .find(|&i| self.exact[i].is_none())
                .map_or(n - 1, |i| i - 1);
            let mut a = t;
            while a < run_end {
                let from = shown.unwrap_or(start);
                let (b, target) = self.longest_stretch(frames, from, a, run_end, tolerance);
                let target = self.keep_fields(frames, from, target, a, b, tolerance);
                if target != from {
                    out.push(DisplayUpdate {
                        send_tick: (a + 1) as u32,
                        target_tick: b as u32,
                        transform: target,
                        duration_ticks: (b - a) as u32,
                    });
                    shown = Some(target);
                }
                a = b;
            }
            t = run_end + 1;
        }
    }

    /// The end of the stretch from `a` (where the client shows `from`) and
    /// the target to send for it: galloping (lengths 2, 4, 8, ...) until a
    /// length has no target that fits or the run ends, then a binary search
    /// between the last length that fit and the first that did not. Every
    /// stretch returned is verified tick by tick, so the plan is exact
    /// whatever the shape of the error; the search costs `O(L log L)` pose
    /// checks per candidate target for a stretch of length `L`.
    fn longest_stretch(
        &self,
        frames: &[Option<Mat4>],
        from: DisplayTransform,
        a: usize,
        run_end: usize,
        tolerance: Tolerance,
    ) -> (usize, DisplayTransform) {
        // A one-tick stretch to the exact pose has nothing in between.
        let mut good = (a + 1, self.exact[a + 1].unwrap_or(from));
        let mut step = 1;
        while good.0 < run_end {
            let candidate = (good.0 + step).min(run_end);
            if let Some(target) = self.target_for(frames, from, a, candidate, tolerance) {
                good = (candidate, target);
                step *= 2;
                continue;
            }
            // `good` fits, `candidate` does not: search between them.
            let mut fails = candidate;
            while fails - good.0 > 1 {
                let middle = good.0 + (fails - good.0) / 2;
                match self.target_for(frames, from, a, middle, tolerance) {
                    Some(target) => good = (middle, target),
                    None => fails = middle,
                }
            }
            break;
        }
        good
    }

    /// A target for the stretch `[a, b]` from `from` that the client draws
    /// within `tolerance` at every tick of `(a, b]`, if one of these does:
    ///
    /// 1. the exact pose at `b`;
    /// 2. that pose moved against the stretch's worst miss. A chord across
    ///    a curving path misses it on one side; aiming the end past the
    ///    exact pose on the other side, by `1 / (1 + u)` of the miss at
    ///    fraction `u` of the stretch, splits the error between the middle
    ///    and the end (the best straight line for a constant curvature).
    ///    The next stretch then starts from that off-path pose, and every
    ///    tick is still checked.
    fn target_for(
        &self,
        frames: &[Option<Mat4>],
        from: DisplayTransform,
        a: usize,
        b: usize,
        tolerance: Tolerance,
    ) -> Option<DisplayTransform> {
        let exact = self.exact[b]?;
        let stretch = |to| Stretch { from, to, a, b };
        let worst = match self.worst_miss(frames, stretch(exact), tolerance) {
            Miss::None => return Some(exact),
            Miss::Hidden => return None,
            // Aiming splits a miss between the middle and the end: it
            // cannot bring one much past the tolerance back within it.
            Miss::At(_, measure) if measure > HOPELESS_MISS => return None,
            Miss::At(tick, _) => tick,
        };
        let exact_at = self.exact[worst]?;
        let u = (worst - a) as f32 / (b - a) as f32;
        let drawn = from.interpolate(&exact, u);
        let share = 1.0 / (1.0 + u);
        // Translation: moved by the share of the miss.
        let translation = exact.translation + (exact_at.translation - drawn.translation) * share;
        // Rotation: the world-frame turn from the drawn to the exact rotation
        // at the worst tick, the same share of it, put in front of the left
        // rotation (which turns the whole node).
        let drawn_rotation = drawn.left_rotation * drawn.right_rotation;
        let exact_rotation = exact_at.left_rotation * exact_at.right_rotation;
        let turn = (exact_rotation * drawn_rotation.conjugate()).normalize();
        let turn = crate::anim::track::slerp(Quat::IDENTITY, turn, share);
        let aimed = DisplayTransform {
            translation,
            left_rotation: (turn * exact.left_rotation).normalize(),
            ..exact
        };
        self.fits(frames, stretch(aimed), tolerance)
            .then_some(aimed)
    }

    /// Tries keeping each field of `target` the client already has from
    /// `from` (scale first: decompositions jitter it in the last bits), so
    /// the update carries fewer fields; a field is kept only when the
    /// stretch `[a, b]` still fits with it.
    fn keep_fields(
        &self,
        frames: &[Option<Mat4>],
        from: DisplayTransform,
        mut target: DisplayTransform,
        a: usize,
        b: usize,
        tolerance: Tolerance,
    ) -> DisplayTransform {
        // Each swap puts `from`'s field into the target and tells whether
        // the field moved by less than the tolerance (a field that moved
        // further cannot be kept, so the stretch is not checked).
        type Swap = fn(&mut DisplayTransform, &DisplayTransform, Tolerance) -> bool;
        let swaps: [Swap; 4] = [
            |t, f, tol| {
                let largest_axis = |d: Vec3| d.abs().max_element();
                swap_vector(&mut t.scale, f.scale, largest_axis, tol.translation_blocks)
            },
            |t, f, tol| swap_rotation(&mut t.right_rotation, f.right_rotation, tol),
            |t, f, tol| {
                swap_vector(
                    &mut t.translation,
                    f.translation,
                    Vec3::length,
                    tol.translation_blocks,
                )
            },
            |t, f, tol| swap_rotation(&mut t.left_rotation, f.left_rotation, tol),
        ];
        for swap in swaps {
            let mut kept = target;
            if !swap(&mut kept, &from, tolerance) {
                continue;
            }
            let fits = if a == b {
                self.accepts(frames, &kept, a, tolerance)
            } else {
                let stretch = Stretch {
                    from,
                    to: kept,
                    a,
                    b,
                };
                self.fits(frames, stretch, tolerance)
            };
            if fits {
                target = kept;
            }
        }
        target
    }

    /// True when drawing `drawn` at tick `t` is within `tolerance`.
    fn accepts(
        &self,
        frames: &[Option<Mat4>],
        drawn: &DisplayTransform,
        t: usize,
        tolerance: Tolerance,
    ) -> bool {
        match &frames[t] {
            Some(exact) => tolerance.accepts(transform_error(drawn, exact, self.rotations[t])),
            None => false,
        }
    }

    /// True when the client, interpolating over `stretch`, draws every
    /// tick of `(a, b]` within `tolerance` (stops at the first that is not).
    fn fits(&self, frames: &[Option<Mat4>], stretch: Stretch, tolerance: Tolerance) -> bool {
        self.stretch_errors(frames, stretch)
            .all(|(_, error)| error.is_some_and(|e| tolerance.accepts(e)))
    }

    /// Where the client, interpolating over `stretch`, draws the ticks of
    /// `(a, b]` furthest from their exact poses (the error measured in
    /// tolerances, the larger of its two measures).
    fn worst_miss(&self, frames: &[Option<Mat4>], stretch: Stretch, tolerance: Tolerance) -> Miss {
        let mut worst = (1.0f32, None);
        for (t, error) in self.stretch_errors(frames, stretch) {
            let Some(error) = error else {
                return Miss::Hidden;
            };
            let measure = (error.translation_blocks / tolerance.translation_blocks)
                .max(error.rotation_degrees / tolerance.rotation_degrees);
            if measure > worst.0 || !measure.is_finite() {
                worst = (measure, Some(t));
            }
        }
        worst.1.map_or(Miss::None, |tick| Miss::At(tick, worst.0))
    }

    /// Each tick of `(a, b]` and how far the client, interpolating over
    /// `stretch`, draws it from its exact pose (`None` where the node is
    /// hidden). The end is left out when `to` is its exact pose (drawn
    /// exactly).
    fn stretch_errors<'a>(
        &'a self,
        frames: &'a [Option<Mat4>],
        stretch: Stretch,
    ) -> impl Iterator<Item = (usize, Option<PoseError>)> + 'a {
        let Stretch { from, to, a, b } = stretch;
        let span = (b - a) as f32;
        let last = if Some(to) == self.exact[b] { b - 1 } else { b };
        (a + 1..=last).map(move |t| {
            let error = frames[t].as_ref().map(|exact| {
                let drawn = from.interpolate(&to, (t - a) as f32 / span);
                transform_error(&drawn, exact, self.rotations[t])
            });
            (t, error)
        })
    }
}

/// Puts `from` into `field`; true when the field moved, by at most `limit`
/// as `distance` measures the difference.
fn swap_vector(field: &mut Vec3, from: Vec3, distance: fn(Vec3) -> f32, limit: f32) -> bool {
    let moved = distance(*field - from);
    *field = from;
    moved > 0.0 && moved <= limit
}

/// Puts `from` into `field`; true when the rotation changed, by at most the
/// rotation tolerance.
fn swap_rotation(field: &mut Quat, from: Quat, tolerance: Tolerance) -> bool {
    let moved = angle_degrees(*field, from);
    let differs = *field != from;
    *field = from;
    differs && moved <= tolerance.rotation_degrees
}

/// What the client draws between two updates: it shows `from` at tick `a`
/// and interpolates to `to`, reached at tick `b`.
#[derive(Clone, Copy, Debug)]
struct Stretch {
    from: DisplayTransform,
    to: DisplayTransform,
    a: usize,
    b: usize,
}

/// What [`Planner::worst_miss`] found.
pub(super) enum Miss {
    /// Every tick is within the tolerance.
    None,
    /// A tick of the stretch is hidden.
    Hidden,
    /// The tick furthest outside the tolerance, and how far (in
    /// tolerances).
    At(usize, f32),
}

pub(super) fn point(tick: usize, transform: DisplayTransform) -> DisplayUpdate {
    DisplayUpdate {
        send_tick: tick as u32,
        target_tick: tick as u32,
        transform,
        duration_ticks: 1,
    }
}

/// Plans the updates for one node (see [`Planner::plan_into`]).
pub fn plan(frames: &[Option<Mat4>], tolerance: Tolerance) -> Vec<DisplayUpdate> {
    let mut out = Vec::new();
    Planner::new().plan_into(frames, tolerance, &mut out);
    out
}
