//! The update scheduler: the fewest display updates that let a 1.20.1 client
//! draw a node's motion within a tolerance of the exact pose.
//!
//! The client interpolates a display's transformation by itself: translation
//! and scale are lerped, the left and right rotations are each slerped on the
//! shortest arc ([`DisplayTransform::interpolate`]), from the transform it
//! shows when an update arrives to the update's, over
//! `interpolation_duration` ticks. Where a stretch of motion is close enough
//! to that, one update with the stretch's length replaces one per tick.
//!
//! # Timing model
//!
//! Ticks are timeline ticks `0..=D` of one cycle. A constant network delay is
//! ignored.
//!
//! - Per-tick streaming sends, at server tick `t`, `pose(t)` with duration 1,
//!   so the client shows `pose(t)` at `t + 1`.
//! - A **stretch** `[a, b]` (`a < b`) is sent at tick `a + 1` as target
//!   `pose(b)` with duration `b − a`. The client starts from `pose(a)`, which
//!   the previous update reached exactly at `a + 1`, and shows
//!   `interpolate(pose(a), pose(b), (t − a) / (b − a))` at tick `t + 1` for
//!   every `t` in `[a, b]`. Per-tick streaming is the special case of
//!   stretches of length 1.
//! - A **point** update at tick `c` is sent at `c` with target `pose(c)` and
//!   duration 1, so the client shows `pose(c)` at `c + 1`. The plan starts
//!   with one at tick 0, and each shown run after a hidden one starts with
//!   one.
//! - Hidden (`None`) is drawn as scale 0. A visibility change is always a
//!   stretch boundary; a hidden run is one point update at its first tick,
//!   with scale 0 and the translation and rotations last sent.
//! - An update whose target is what the client already shows is not sent,
//!   so a node whose pose does not change sends nothing.
//!
//! In every update `target_tick = send_tick + duration_ticks − 1`, and send
//! ticks strictly increase; each update is sent exactly when the previous
//! one has finished.
//!
//! # Error metric
//!
//! A drawn matrix `D` is within a [`Tolerance`] of the exact composed matrix
//! `E` when both hold:
//!
//! - **translation**: each of the 8 corners `c` of the unit cube
//!   `[−0.5, 0.5]³` lands within `translation_blocks` of where the exact pose
//!   puts it: `max |D·c − E·c| ≤ translation_blocks`. The difference is
//!   affine in `c`, so the corners bound every point of the cube;
//! - **rotation**: the angle between the two rotations is at most
//!   `rotation_degrees`. A matrix's rotation is `R_left · R_right` from
//!   [`DisplayTransform::from_matrix`], which is the orthogonal polar factor
//!   of its 3×3 part when that is invertible with a positive determinant (so
//!   it does not depend on how the decomposition split it). The rotation is
//!   not compared when either matrix has a scale below [`MIN_ROTATED_SCALE`]
//!   on some axis: such a node is too thin for its rotation to be defined,
//!   and the corner test already bounds it.
//!
//! Shown and hidden must agree exactly; a shown matrix whose 3×3 part is zero
//! draws nothing and counts as hidden.
//!
//! # Planning
//!
//! Greedy: from a stretch start `a`, the end `b` is searched by galloping
//! (lengths 2, 4, 8, ... while every tick strictly between `a` and `b` is
//! drawn within tolerance, up to the end of the shown run), then by binary
//! search between the last length that fit and the first that did not.
//! Checking one `b` costs `b − a` pose comparisons, so a stretch of length
//! `L` costs `O(L log L)` comparisons. Every stretch chosen is verified at
//! every tick it covers, so the plan is within tolerance even where the
//! error is not monotone in the length (the search may then stop short of,
//! or beyond, the first failing length).
//! [`Planner`] keeps its buffers between nodes; nothing is allocated per
//! tick.
//!
//! # Frames
//!
//! The plan is made in the emote root's frame. A root turned by a constant
//! rotation `q` (the player's yaw) may send every update as
//! [`DisplayUpdate::turned`]: slerp and lerp commute with a fixed left
//! rotation, so the client draws exactly the turned poses. A yaw change in
//! the middle of a stretch is not covered and needs a new update.

use valence::math::{Mat3, Mat4, Quat, Vec3, Vec3A};

use crate::anim::DisplayTransform;

/// Below this scale on some axis (blocks per model unit) a node's rotation is
/// not compared, only its corners.
pub const MIN_ROTATED_SCALE: f32 = 1e-3;

/// How far the pose the client draws may be from the exact pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// The largest distance, in blocks, between where the drawn and the exact
    /// pose put a corner of the unit cube `[−0.5, 0.5]³`.
    pub translation_blocks: f32,
    /// The largest angle, in degrees, between the drawn and exact rotations.
    pub rotation_degrees: f32,
}

impl Default for Tolerance {
    /// 0.01 block and 0.5°.
    fn default() -> Self {
        Self {
            translation_blocks: 0.01,
            rotation_degrees: 0.5,
        }
    }
}

impl Tolerance {
    /// True when `error` is within this tolerance on both measures.
    pub fn accepts(&self, error: PoseError) -> bool {
        error.translation_blocks <= self.translation_blocks
            && error.rotation_degrees <= self.rotation_degrees
    }
}

/// How far a drawn pose is from the exact one (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PoseError {
    /// The largest corner distance, in blocks.
    pub translation_blocks: f32,
    /// The angle between the rotations, in degrees (0 when not compared).
    pub rotation_degrees: f32,
}

/// One display update: a transformation metadata packet with
/// `start_interpolation` 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DisplayUpdate {
    /// The timeline tick at which to send it.
    pub send_tick: u32,
    /// The timeline tick whose pose it targets
    /// (`send_tick + duration_ticks − 1`).
    pub target_tick: u32,
    /// The transformation to send, in the root's frame; scale 0 when hidden.
    pub transform: DisplayTransform,
    /// The `interpolation_duration` to send, at least 1.
    pub duration_ticks: u32,
}

impl DisplayUpdate {
    /// True when this update hides the node (scale 0).
    pub fn hides(&self) -> bool {
        self.transform.scale == Vec3::ZERO
    }

    /// The transformation for a root turned by `root` (for example the
    /// player's yaw), as `DisplayTransform::from_matrix(Mat4::from_quat(root)
    /// · matrix)` would give it.
    pub fn turned(&self, root: Quat) -> DisplayTransform {
        DisplayTransform {
            translation: root * self.transform.translation,
            left_rotation: (root * self.transform.left_rotation).normalize(),
            ..self.transform
        }
    }
}

/// Per-tick streaming's update count against a plan's, for one node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateCounts {
    /// Updates per-tick streaming sends: one for every tick whose transform
    /// differs from the last one sent (tick 0 always sends).
    pub per_tick: usize,
    /// Updates in the plan.
    pub planned: usize,
}

impl std::ops::AddAssign for UpdateCounts {
    fn add_assign(&mut self, other: Self) {
        self.per_tick += other.per_tick;
        self.planned += other.planned;
    }
}

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

/// The error of drawing `drawn` where `exact` is the true pose.
pub fn pose_error(drawn: &Mat4, exact: &Mat4) -> PoseError {
    error_with_rotation(
        drawn,
        exact,
        compared_rotation(&DisplayTransform::from_matrix(exact)),
    )
}

/// The rotation the metric compares, `R_left · R_right`, or `None` when the
/// transform is too thin on some axis for it to be defined.
fn compared_rotation(d: &DisplayTransform) -> Option<Quat> {
    (d.scale.abs().min_element() >= MIN_ROTATED_SCALE).then(|| d.left_rotation * d.right_rotation)
}

/// The corner error of `drawn` against `exact`, and the rotation error
/// against the exact rotation `exact_rotation` (already decomposed).
fn error_with_rotation(drawn: &Mat4, exact: &Mat4, exact_rotation: Option<Quat>) -> PoseError {
    let dt = Vec3A::from(drawn.w_axis) - Vec3A::from(exact.w_axis);
    let dx = 0.5 * (Vec3A::from(drawn.x_axis) - Vec3A::from(exact.x_axis));
    let dy = 0.5 * (Vec3A::from(drawn.y_axis) - Vec3A::from(exact.y_axis));
    let dz = 0.5 * (Vec3A::from(drawn.z_axis) - Vec3A::from(exact.z_axis));
    let mut worst = 0.0f32;
    for sx in [-1.0f32, 1.0] {
        for sy in [-1.0f32, 1.0] {
            for sz in [-1.0f32, 1.0] {
                worst = worst.max((dt + sx * dx + sy * dy + sz * dz).length_squared());
            }
        }
    }
    let mut error = PoseError {
        translation_blocks: worst.sqrt(),
        rotation_degrees: 0.0,
    };
    if let Some(exact_rotation) = exact_rotation {
        if let Some(drawn_rotation) = compared_rotation(&DisplayTransform::from_matrix(drawn)) {
            error.rotation_degrees = angle_degrees(drawn_rotation, exact_rotation);
        }
    }
    error
}

/// The angle of the rotation taking `a` to `b`, in degrees (sign-blind).
fn angle_degrees(a: Quat, b: Quat) -> f32 {
    let r = a.conjugate() * b;
    (2.0 * Vec3::new(r.x, r.y, r.z).length().atan2(r.w.abs())).to_degrees()
}

/// True when `m` draws nothing: hidden, or a zero 3×3 part.
fn draws_nothing(m: Option<&Mat4>) -> bool {
    m.is_none_or(|m| Mat3::from_mat4(*m) == Mat3::ZERO)
}

/// The transform per-tick streaming and the plan send for a hidden node:
/// scale 0 where it was last drawn.
fn hidden_transform(last: Option<DisplayTransform>) -> DisplayTransform {
    DisplayTransform {
        scale: Vec3::ZERO,
        ..last.unwrap_or(DisplayTransform::IDENTITY)
    }
}

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
            if shown != Some(start) {
                out.push(point(t, start));
                shown = Some(start);
            }
            let run_end = (t..n)
                .find(|&i| self.exact[i].is_none())
                .map_or(n - 1, |i| i - 1);
            let mut a = t;
            while a < run_end {
                let b = self.longest_stretch(frames, a, run_end, tolerance);
                let target = self.exact[b].expect("shown run");
                if shown != Some(target) {
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

    /// The end of the stretch from `a`: galloping (lengths 2, 4, 8, ...)
    /// until a length does not fit or the run ends, then a binary search
    /// between the last length that fit and the first that did not. Every
    /// stretch returned is verified tick by tick, so the plan is exact
    /// whatever the shape of the error; the search costs `O(L log L)` pose
    /// checks for a stretch of length `L` instead of `O(L²)`.
    fn longest_stretch(
        &self,
        frames: &[Option<Mat4>],
        a: usize,
        run_end: usize,
        tolerance: Tolerance,
    ) -> usize {
        let mut good = a + 1; // a one-tick stretch has nothing in between
        let mut step = 1;
        while good < run_end {
            let candidate = (good + step).min(run_end);
            if self.fits(frames, a, candidate, tolerance) {
                good = candidate;
                step *= 2;
                continue;
            }
            // `good` fits, `candidate` does not: search between them.
            let (mut fits, mut fails) = (good, candidate);
            while fails - fits > 1 {
                let middle = fits + (fails - fits) / 2;
                if self.fits(frames, a, middle, tolerance) {
                    fits = middle;
                } else {
                    fails = middle;
                }
            }
            good = fits;
            break;
        }
        good
    }

    /// True when the client, interpolating from `pose(a)` to `pose(b)`,
    /// draws every tick strictly between them within `tolerance`.
    fn fits(&self, frames: &[Option<Mat4>], a: usize, b: usize, tolerance: Tolerance) -> bool {
        let (Some(from), Some(to)) = (self.exact[a], self.exact[b]) else {
            return false;
        };
        let span = (b - a) as f32;
        (a + 1..b).all(|t| {
            let Some(exact) = &frames[t] else {
                return false;
            };
            let drawn = from.interpolate(&to, (t - a) as f32 / span).to_matrix();
            tolerance.accepts(error_with_rotation(&drawn, exact, self.rotations[t]))
        })
    }
}

fn point(tick: usize, transform: DisplayTransform) -> DisplayUpdate {
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

/// How many updates per-tick streaming sends for `frames`: one at each tick
/// whose transform (scale 0 where last sent, when hidden) differs from the
/// last one sent, as the server's per-tick path compares them.
pub fn per_tick_update_count(frames: &[Option<Mat4>]) -> usize {
    let mut last: Option<DisplayTransform> = None;
    let mut count = 0;
    for frame in frames {
        let transform = match frame {
            Some(m) => DisplayTransform::from_matrix(m),
            None => hidden_transform(last),
        };
        if last != Some(transform) {
            count += 1;
            last = Some(transform);
        }
    }
    count
}

/// Per-tick streaming's update count for `frames` against `updates`'. Bytes
/// only roughly follow the counts: the server sends just the fields that
/// changed, so `emoted loadtest` measures the bytes themselves.
pub fn update_counts(frames: &[Option<Mat4>], updates: &[DisplayUpdate]) -> UpdateCounts {
    UpdateCounts {
        per_tick: per_tick_update_count(frames),
        planned: updates.len(),
    }
}

/// The update to send at `tick`, if any (`updates` sorted by send tick, at
/// most one per tick, as [`plan`] makes them).
pub fn update_at(updates: &[DisplayUpdate], tick: u32) -> Option<&DisplayUpdate> {
    updates
        .binary_search_by_key(&tick, |u| u.send_tick)
        .ok()
        .map(|i| &updates[i])
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use valence::math::EulerRot;

    use super::*;

    fn frames_of(d: u32, f: impl Fn(f32) -> Option<Mat4>) -> Vec<Option<Mat4>> {
        (0..=d).map(|t| f(t as f32)).collect()
    }

    fn check(frames: &[Option<Mat4>]) -> Vec<DisplayUpdate> {
        let updates = plan(frames, Tolerance::default());
        verify(frames, &updates, Tolerance::default()).expect("replay within tolerance");
        for pair in updates.windows(2) {
            assert!(pair[0].send_tick < pair[1].send_tick, "{updates:?}");
            // Each update is sent when the previous one has finished.
            assert!(pair[0].target_tick < pair[1].send_tick, "{updates:?}");
        }
        for u in &updates {
            assert!(u.duration_ticks >= 1);
            assert_eq!(u.target_tick, u.send_tick + u.duration_ticks - 1);
        }
        let counts = update_counts(frames, &updates);
        assert!(counts.planned <= counts.per_tick, "{counts:?}");
        updates
    }

    #[test]
    fn linear_translation_is_one_stretch() {
        let frames = frames_of(20, |t| {
            Some(Mat4::from_translation(Vec3::new(0.1 * t, 0.5, -0.05 * t)))
        });
        let updates = check(&frames);
        // Tick 0's pose, then one update over the 20 ticks.
        assert_eq!(updates.len(), 2, "{updates:?}");
        assert_eq!(
            (
                updates[1].send_tick,
                updates[1].target_tick,
                updates[1].duration_ticks
            ),
            (1, 20, 20)
        );
        assert_eq!(per_tick_update_count(&frames), 21);
    }

    #[test]
    fn eased_motion_needs_a_few_stretches() {
        // ease_in_quad over 1 block in 20 ticks: a chord of x = f² over h
        // ticks is off by at most h²/1600 blocks, so about 4 ticks a stretch.
        let frames = frames_of(20, |t| {
            let f = t / 20.0;
            Some(Mat4::from_translation(Vec3::new(f * f, 0.0, 0.0)))
        });
        let updates = check(&frames);
        assert!(updates.len() > 2 && updates.len() <= 7, "{updates:?}");
        assert_eq!(per_tick_update_count(&frames), 21);
    }

    #[test]
    fn constant_slerp_rotation_is_one_stretch() {
        let from = Quat::from_rotation_y(-1.2);
        let to = Quat::from_euler(EulerRot::XYZ, 0.4, 1.3, -0.2);
        let frames = frames_of(30, |t| {
            Some(Mat4::from_scale_rotation_translation(
                Vec3::splat(1.5),
                crate::anim::slerp(from, to, t / 30.0),
                Vec3::new(0.0, 1.0, 0.0),
            ))
        });
        let updates = check(&frames);
        assert_eq!(updates.len(), 2, "{updates:?}");
        assert_eq!(updates[1].duration_ticks, 30);
    }

    #[test]
    fn still_pose_sends_once_at_tick_0() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(0.5, 1.0, 0.5),
            Quat::from_rotation_x(0.3),
            Vec3::new(0.2, 1.4, 0.0),
        );
        let frames = vec![Some(m); 41];
        let updates = check(&frames);
        assert_eq!(updates.len(), 1);
        assert_eq!((updates[0].send_tick, updates[0].duration_ticks), (0, 1));
        assert_eq!(
            update_counts(&frames, &updates),
            UpdateCounts {
                per_tick: 1,
                planned: 1
            }
        );
    }

    #[test]
    fn visibility_changes_split_stretches() {
        // Linear over 0..=30, hidden on ticks 10..=14.
        let frames = frames_of(30, |t| {
            (!(10.0..15.0).contains(&t))
                .then(|| Mat4::from_translation(Vec3::new(0.1 * t, 0.0, 0.0)))
        });
        let updates = check(&frames);
        let sends: Vec<_> = updates
            .iter()
            .map(|u| (u.send_tick, u.target_tick, u.hides()))
            .collect();
        assert_eq!(
            sends,
            [
                (0, 0, false),
                (1, 9, false),
                (10, 10, true),
                (15, 15, false),
                (16, 30, false)
            ]
        );
        // Hidden where it was last shown.
        assert!(updates[2]
            .transform
            .translation
            .abs_diff_eq(Vec3::new(0.9, 0.0, 0.0), 1e-6));
    }

    #[test]
    fn rotation_past_half_a_turn_is_split() {
        // 270° about Y in 10 ticks: one slerp would take the short way.
        let frames = frames_of(10, |t| {
            Some(Mat4::from_rotation_y(t * 0.1 * 1.5 * std::f32::consts::PI))
        });
        let updates = check(&frames);
        assert!(updates.len() >= 3, "{updates:?}");
    }

    #[test]
    fn replay_draws_nothing_before_the_first_update() {
        let updates = [point(2, DisplayTransform::IDENTITY)];
        let drawn = replay(&updates, 3);
        assert_eq!(
            drawn,
            [None, None, Some(Mat4::IDENTITY), Some(Mat4::IDENTITY)]
        );
        assert_eq!(update_at(&updates, 2), Some(&updates[0]));
        assert_eq!(update_at(&updates, 1), None);
    }

    #[test]
    fn turned_update_matches_turned_matrix() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(0.5, 1.0, 0.5),
            Quat::from_rotation_x(0.3),
            Vec3::new(0.2, 1.4, 0.0),
        );
        let root = Quat::from_rotation_y(0.8);
        let update = point(0, DisplayTransform::from_matrix(&m));
        let turned = update.turned(root).to_matrix();
        assert!(turned.abs_diff_eq(Mat4::from_quat(root) * m, 1e-5));
    }

    #[test]
    fn pose_error_measures_corners_and_angle() {
        let a = Mat4::IDENTITY;
        let moved = Mat4::from_translation(Vec3::new(0.0, 0.02, 0.0));
        let e = pose_error(&moved, &a);
        assert!((e.translation_blocks - 0.02).abs() < 1e-6 && e.rotation_degrees == 0.0);
        let turned = Mat4::from_rotation_z(1f32.to_radians());
        let e = pose_error(&turned, &a);
        assert!((e.rotation_degrees - 1.0).abs() < 1e-3, "{e:?}");
        // A corner at distance √0.5 from the axis moves by 2·√0.5·sin(0.5°).
        assert!(
            (e.translation_blocks - 2.0 * 0.5f32.sqrt() * 0.5f32.to_radians().sin()).abs() < 1e-4
        );
    }

    /// A random piecewise-linear path: keys of (position, rotation, scale)
    /// lerped and slerped, under a parent that turns at a constant rate,
    /// with an optional hidden range.
    fn path_frames(
        keys: &[(u32, [f32; 3], [f32; 3], f32)],
        parent_rate: f32,
        hidden: (u32, u32),
        d: u32,
    ) -> Vec<Option<Mat4>> {
        let mut keys = keys.to_vec();
        keys.sort_by_key(|k| k.0);
        keys.dedup_by_key(|k| k.0);
        let pose = |k: &(u32, [f32; 3], [f32; 3], f32)| {
            (
                Vec3::from(k.1),
                Quat::from_euler(EulerRot::XYZ, k.2[0], k.2[1], k.2[2]),
                Vec3::splat(k.3),
            )
        };
        (0..=d)
            .map(|t| {
                if (hidden.0..hidden.1).contains(&t) {
                    return None;
                }
                let i = keys.partition_point(|k| k.0 <= t);
                let (p, r, s) = if i == 0 {
                    pose(&keys[0])
                } else if i == keys.len() {
                    pose(&keys[i - 1])
                } else {
                    let (k0, k1) = (&keys[i - 1], &keys[i]);
                    let f = (t - k0.0) as f32 / (k1.0 - k0.0) as f32;
                    let (p0, r0, s0) = pose(k0);
                    let (p1, r1, s1) = pose(k1);
                    (
                        p0.lerp(p1, f),
                        crate::anim::slerp(r0, r1, f),
                        s0.lerp(s1, f),
                    )
                };
                let parent = Mat4::from_rotation_y(parent_rate * t as f32);
                Some(parent * Mat4::from_scale_rotation_translation(s, r, p))
            })
            .collect()
    }

    proptest! {
        #[test]
        fn replayed_plan_stays_within_tolerance(
            keys in prop::collection::vec(
                (0u32..=60, prop::array::uniform3(-2.0f32..2.0), prop::array::uniform3(-3.0f32..3.0), 0.2f32..2.0),
                1..6,
            ),
            parent_rate in prop_oneof![Just(0.0f32), -0.1f32..0.1],
            hidden in (0u32..=60, 0u32..8),
        ) {
            let frames = path_frames(&keys, parent_rate, (hidden.0, hidden.0 + hidden.1), 60);
            let updates = plan(&frames, Tolerance::default());
            prop_assert!(verify(&frames, &updates, Tolerance::default()).is_ok(),
                "{:?}", verify(&frames, &updates, Tolerance::default()));
            let counts = update_counts(&frames, &updates);
            prop_assert!(counts.planned <= counts.per_tick, "{:?}", counts);
        }
    }
}
