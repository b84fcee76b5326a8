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
//! - A **stretch** `[a, b]` (`a < b`) is sent at tick `a + 1` with a target
//!   `T` and duration `b − a`. The client starts from `S`, what it shows
//!   once the previous update has finished (at `a + 1`), and shows
//!   `interpolate(S, T, (t − a) / (b − a))` at tick `t + 1` for every `t`
//!   in `[a, b]`. `S` and `T` are poses within tolerance of `pose(a)` and
//!   `pose(b)`, not always the exact ones (see Planning). Per-tick streaming
//!   is the special case of stretches of length 1 with exact targets.
//! - A **point** update at tick `c` is sent at `c` with a target within
//!   tolerance of `pose(c)` and duration 1, so the client shows it at
//!   `c + 1`. The plan starts with one at tick 0, and each shown run after a
//!   hidden one starts with one (unless what the client shows is already
//!   close enough).
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
//! (lengths 2, 4, 8, ... while some target for `b` is drawn within tolerance
//! at every tick of `(a, b]`, up to the end of the shown run), then by binary
//! search between the last length that fit and the first that did not.
//! Every stretch chosen is verified at every tick it covers, so the plan is
//! within tolerance even where the error is not monotone in the length (the
//! search may then stop short of, or beyond, the first failing length).
//!
//! The targets tried for `b` are the exact `pose(b)`, then that pose
//! **aimed** past the path: a chord across a curving path misses it on one
//! side, so the end is moved to the other side by `1 / (1 + u)` of the
//! worst miss (at fraction `u` of the stretch), which splits the error
//! between the middle and the end; the next stretch starts from that
//! off-path pose. On a path of constant curvature this fits stretches up to
//! √2 times longer than chords between exact poses.
//!
//! Then each field of the chosen target (scale, right rotation,
//! translation, left rotation, in that order) is set back to the value the
//! client already has when the stretch still fits with it: the update then
//! leaves that field out. A composed scale, for example, jitters in its last
//! bits as parents turn, and is then never resent.
//!
//! The planner compares with 0.999 of the tolerance (a drawn pose's rotation
//! is read off its transformation instead of being decomposed again, which
//! differs from [`verify`] by float rounding). [`Planner`] keeps its buffers
//! between nodes; nothing is allocated per tick.
//!
//! # Frames
//!
//! The plan is made in the emote root's frame. A root turned by a constant
//! rotation `q` (the player's yaw) may send every update as
//! [`DisplayUpdate::turned`]: slerp and lerp commute with a fixed left
//! rotation, so the client draws exactly the turned poses. A yaw change in
//! the middle of a stretch is not covered and needs a new update.

use glam::{Mat3, Mat4, Quat, Vec3, Vec3A};

use crate::anim::DisplayTransform;

/// Below this scale on some axis (blocks per model unit) a node's rotation is
/// not compared, only its corners.
pub const MIN_ROTATED_SCALE: f32 = 1e-3;

/// A miss (in tolerances) past which aiming a target is not tried.
const HOPELESS_MISS: f32 = 2.0;

/// The share of the tolerance the planner uses (see [`Planner::plan_into`]).
const PLANNING_MARGIN: f32 = 0.999;

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

/// Per-tick streaming's updates against a plan's, for one node: how many,
/// and their size on the wire as [`metadata_bytes`] estimates it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateCounts {
    /// Updates per-tick streaming sends: one for every tick whose transform
    /// differs from the last one sent (tick 0 always sends).
    pub per_tick: usize,
    /// Updates in the plan.
    pub planned: usize,
    /// Estimated bytes of per-tick streaming's updates.
    pub per_tick_bytes: usize,
    /// Estimated bytes of the plan's updates.
    pub planned_bytes: usize,
}

impl std::ops::AddAssign for UpdateCounts {
    fn add_assign(&mut self, other: Self) {
        self.per_tick += other.per_tick;
        self.planned += other.planned;
        self.per_tick_bytes += other.per_tick_bytes;
        self.planned_bytes += other.planned_bytes;
    }
}

/// The size of one display update's `EntityTrackerUpdateS2c` as the server
/// sends it, uncompressed (it stays under the compression threshold): the
/// frame (length, data length, packet id, a 2-byte entity id, the end
/// marker: 6 bytes), `start_interpolation` (3), `interpolation_duration`
/// when it changes (3), and each transformation field that differs from
/// `previous` (a vector 14, a quaternion 18). An estimate for comparing
/// plans; `emoted loadtest` counts the real bytes.
pub fn metadata_bytes(
    previous: Option<&DisplayTransform>,
    next: &DisplayTransform,
    duration_changed: bool,
) -> usize {
    let differs = |same: fn(&DisplayTransform, &DisplayTransform) -> bool| {
        previous.is_none_or(|p| !same(p, next))
    };
    let mut bytes = 6 + 3;
    if duration_changed {
        bytes += 3;
    }
    if differs(|a, b| a.translation == b.translation) {
        bytes += 14;
    }
    if differs(|a, b| a.left_rotation == b.left_rotation) {
        bytes += 18;
    }
    if differs(|a, b| a.scale == b.scale) {
        bytes += 14;
    }
    if differs(|a, b| a.right_rotation == b.right_rotation) {
        bytes += 18;
    }
    bytes
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
    let mut error = corner_error(drawn, exact);
    if let Some(exact_rotation) = exact_rotation {
        if let Some(drawn_rotation) = compared_rotation(&DisplayTransform::from_matrix(drawn)) {
            error.rotation_degrees = angle_degrees(drawn_rotation, exact_rotation);
        }
    }
    error
}

/// The corner error of `drawn` against `exact` (rotation not compared).
fn corner_error(drawn: &Mat4, exact: &Mat4) -> PoseError {
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
    PoseError {
        translation_blocks: worst.sqrt(),
        rotation_degrees: 0.0,
    }
}

/// [`error_with_rotation`] for a drawn pose given as a transformation: its
/// rotation is `R_left · R_right` read off directly (the polar factor of
/// `R_left · S · R_right` when every scale is positive), so only a drawn
/// pose with a mirrored axis is decomposed again.
fn transform_error(
    drawn: &DisplayTransform,
    exact: &Mat4,
    exact_rotation: Option<Quat>,
) -> PoseError {
    let matrix = drawn.to_matrix_fast();
    if drawn.scale.min_element() < 0.0 {
        return error_with_rotation(&matrix, exact, exact_rotation);
    }
    let mut error = corner_error(&matrix, exact);
    if let (Some(exact_rotation), Some(drawn_rotation)) = (exact_rotation, compared_rotation(drawn))
    {
        error.rotation_degrees = angle_degrees(drawn_rotation, exact_rotation);
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
        let worst = match self.worst_miss(frames, from, exact, a, b, tolerance) {
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
        self.fits(frames, from, aimed, a, b, tolerance)
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
                let moved = (t.scale - f.scale).abs().max_element();
                t.scale = f.scale;
                moved > 0.0 && moved <= tol.translation_blocks
            },
            |t, f, tol| {
                let moved = angle_degrees(t.right_rotation, f.right_rotation);
                let differs = t.right_rotation != f.right_rotation;
                t.right_rotation = f.right_rotation;
                differs && moved <= tol.rotation_degrees
            },
            |t, f, tol| {
                let moved = (t.translation - f.translation).length();
                t.translation = f.translation;
                moved > 0.0 && moved <= tol.translation_blocks
            },
            |t, f, tol| {
                let moved = angle_degrees(t.left_rotation, f.left_rotation);
                let differs = t.left_rotation != f.left_rotation;
                t.left_rotation = f.left_rotation;
                differs && moved <= tol.rotation_degrees
            },
        ];
        for swap in swaps {
            let mut kept = target;
            if !swap(&mut kept, &from, tolerance) {
                continue;
            }
            let fits = if a == b {
                self.accepts(frames, &kept, a, tolerance)
            } else {
                self.fits(frames, from, kept, a, b, tolerance)
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

    /// True when the client, interpolating from `from` to `to` over
    /// `[a, b]`, draws every tick of `(a, b]` within `tolerance` (stops at
    /// the first that is not).
    fn fits(
        &self,
        frames: &[Option<Mat4>],
        from: DisplayTransform,
        to: DisplayTransform,
        a: usize,
        b: usize,
        tolerance: Tolerance,
    ) -> bool {
        self.stretch_errors(frames, from, to, a, b)
            .all(|(_, error)| error.is_some_and(|e| tolerance.accepts(e)))
    }

    /// Where the client, interpolating from `from` to `to` over `[a, b]`,
    /// draws the ticks of `(a, b]` furthest from their exact poses (the
    /// error measured in tolerances, the larger of its two measures).
    fn worst_miss(
        &self,
        frames: &[Option<Mat4>],
        from: DisplayTransform,
        to: DisplayTransform,
        a: usize,
        b: usize,
        tolerance: Tolerance,
    ) -> Miss {
        let mut worst = (1.0f32, None);
        for (t, error) in self.stretch_errors(frames, from, to, a, b) {
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

    /// Each tick of `(a, b]` and how far the client, interpolating from
    /// `from` to `to`, draws it from its exact pose (`None` where the node
    /// is hidden). The end is left out when `to` is its exact pose (drawn
    /// exactly).
    fn stretch_errors<'a>(
        &'a self,
        frames: &'a [Option<Mat4>],
        from: DisplayTransform,
        to: DisplayTransform,
        a: usize,
        b: usize,
    ) -> impl Iterator<Item = (usize, Option<PoseError>)> + 'a {
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

/// What [`Planner::worst_miss`] found.
enum Miss {
    /// Every tick is within the tolerance.
    None,
    /// A tick of the stretch is hidden.
    Hidden,
    /// The tick furthest outside the tolerance, and how far (in
    /// tolerances).
    At(usize, f32),
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
    use glam::EulerRot;
    use proptest::prelude::*;

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
    fn curved_paths_aim_past_the_chord() {
        // A point on a circle of radius 1 block, 3° a tick. A chord whose
        // ends are on the circle bulges r·(1 − cos(hθ/2)) from it, within
        // 0.01 block for at most 5 ticks: 24 stretches over 120 ticks.
        // Aiming each end past the circle by part of the bulge fits longer
        // stretches.
        let radius = 1.0f32;
        let step = 3.0f32.to_radians();
        let frames = frames_of(120, |t| {
            let angle = t * step;
            Some(Mat4::from_translation(Vec3::new(
                radius * angle.cos(),
                0.0,
                radius * angle.sin(),
            )))
        });
        let updates = check(&frames);
        let stretches = updates.len() - 1;
        assert!(stretches <= 20, "{stretches} stretches: {updates:?}");
        let off_path = updates
            .iter()
            .filter(|u| (u.transform.translation.length() - radius).abs() > 0.002)
            .count();
        assert!(off_path > 0, "every target on the path: {updates:?}");
    }

    #[test]
    fn jittering_fields_are_not_resent() {
        // A node turning under a parent that turns too: the decomposed
        // scale jitters in its last bits from tick to tick.
        let frames = frames_of(40, |t| {
            let parent = Mat4::from_rotation_x(0.3 * t.sin()) * Mat4::from_rotation_y(0.05 * t);
            Some(
                parent
                    * Mat4::from_scale_rotation_translation(
                        Vec3::splat(0.3),
                        Quat::from_rotation_z(0.2 * t),
                        Vec3::new(0.5, 0.0, 0.0),
                    ),
            )
        });
        let decomposed_scales: Vec<Vec3> = frames
            .iter()
            .flatten()
            .map(|m| DisplayTransform::from_matrix(m).scale)
            .collect();
        assert!(
            decomposed_scales.windows(2).any(|w| w[0] != w[1]),
            "the test needs jitter to mean something"
        );
        let updates = check(&frames);
        assert!(updates.len() > 5);
        assert!(
            updates
                .iter()
                .all(|u| u.transform.scale == updates[0].transform.scale),
            "{updates:?}"
        );
        let counts = update_counts(&frames, &updates);
        assert!(counts.planned_bytes < counts.per_tick_bytes);
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
                planned: 1,
                // Header and start (9), duration (3), 2 vectors, 2 rotations.
                per_tick_bytes: 9 + 3 + 2 * 14 + 2 * 18,
                planned_bytes: 9 + 3 + 2 * 14 + 2 * 18,
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
