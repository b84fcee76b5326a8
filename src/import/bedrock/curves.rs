//! Keyframe channels as Blockbench evaluates them, shared by the Bedrock
//! animation reader and the `.bbmodel` reader (both are Blockbench's
//! `BoneAnimator.interpolate`; import-notes.md §1).
//!
//! # The model
//! A [`Channel`] is a list of [`Key`]s sorted by time. A key has one or two
//! data points: the first is its **pre** value (what the curve arrives
//! at), the last its **post** value (what it leaves from), so two points
//! make a jump. Each point is three [`Scalar`]s, a number or a Molang
//! expression, read through a [`Resolve`] at the time being sampled.
//!
//! [`Channel::sample`] at time `t` (seconds):
//! 1. `before` is the key with the largest time `< t`, `after` the one with
//!    the smallest time `≥ t`.
//! 2. Within [`KEY_EPSILON_SECS`] of a key: that key's pre point.
//! 3. `before` is step: its post point. Only one side: hold it (the post
//!    of the last key after the end, the pre of the first before it).
//! 4. Otherwise `α = (t − t0) / (t1 − t0)` and, per axis:
//!    - **linear** when `before` is linear and `after` linear or step:
//!      `a + (b − a)·α` (a = before's post, b = after's pre);
//!    - else **catmull-rom** when either key is: three.js's uniform
//!      spline over the previous key's post (only when `before` has one
//!      point, else `before`'s post again), `before`'s post, `after`'s
//!      pre, and the next key's pre (only when `after` has one point,
//!      else `after`'s pre again); looping channels of three or more keys
//!      borrow the neighbours across the loop (`sorted[-2]`, `sorted[1]`);
//!    - else **bezier**: the cubic through `before`'s post and its right
//!      handle, `after`'s left handle and pre, solved for its time.
//!
//! # Where this differs from Blockbench, on purpose
//! - **Bezier** is solved exactly (bisection on the curve's time, which
//!   only grows because both handles' times are clamped into the
//!   segment), where Blockbench picks the nearer two of 201 points along
//!   the curve and lerps between them. The two agree to a small fraction
//!   of the segment's value change: far inside 0.01 block and 0.5°.
//! - **Catmull-rom** after a key with two points: Blockbench leaves the
//!   previous key out of the spline but still shifts the spline's
//!   parameter as if it were in, so it evaluates the wrong span. This
//!   module uses the rule as meant (the previous key is left out, the
//!   span is `before`→`after`).

/// Keys closer than this to the sampled time are "at" it: 1/1200 s, as
/// Blockbench's `interpolate` has it.
pub const KEY_EPSILON_SECS: f64 = 1.0 / 1200.0;

/// One component of a data point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A number.
    Number(f64),
    /// A Molang expression, by index into the reader's compiled programs,
    /// times `sign` (−1 for an axis the reader mirrors).
    Molang {
        /// The index the [`Resolve`] knows it by.
        index: usize,
        /// 1 or −1.
        sign: f64,
    },
}

impl Scalar {
    /// The same value with its sign flipped.
    pub fn negated(self) -> Scalar {
        match self {
            Scalar::Number(n) => Scalar::Number(-n),
            Scalar::Molang { index, sign } => Scalar::Molang { index, sign: -sign },
        }
    }
}

/// Reads a [`Scalar`] at the time being sampled.
pub trait Resolve {
    /// The value of `scalar` now.
    fn resolve(&mut self, scalar: Scalar) -> f64;
}

/// Numbers only: every Molang expression reads 0 (for tests and for
/// values known to be plain).
#[derive(Clone, Copy, Debug, Default)]
pub struct NumbersOnly;

impl Resolve for NumbersOnly {
    fn resolve(&mut self, scalar: Scalar) -> f64 {
        match scalar {
            Scalar::Number(n) => n,
            Scalar::Molang { .. } => 0.0,
        }
    }
}

/// Three components: x, y, z.
pub type Point = [Scalar; 3];

/// How a key travels to the next one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interpolation {
    /// Straight, per axis.
    #[default]
    Linear,
    /// Hold the post value until the next key.
    Step,
    /// three.js's uniform catmull-rom spline.
    CatmullRom,
    /// A cubic with time and value handles.
    Bezier,
}

impl Interpolation {
    /// The interpolation a file names (`None` for a name neither format has).
    pub fn from_name(name: &str) -> Option<Interpolation> {
        match name {
            "linear" => Some(Interpolation::Linear),
            "step" => Some(Interpolation::Step),
            "catmullrom" => Some(Interpolation::CatmullRom),
            "bezier" => Some(Interpolation::Bezier),
            _ => None,
        }
    }

    /// The name files use.
    pub fn name(self) -> &'static str {
        match self {
            Interpolation::Linear => "linear",
            Interpolation::Step => "step",
            Interpolation::CatmullRom => "catmullrom",
            Interpolation::Bezier => "bezier",
        }
    }
}

/// A key's bezier handles: seconds from the key and value offsets, per axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BezierHandles {
    /// The incoming handle's time, seconds (≤ 0).
    pub left_time_secs: [f64; 3],
    /// The incoming handle's value offset.
    pub left_value: [f64; 3],
    /// The outgoing handle's time, seconds (≥ 0).
    pub right_time_secs: [f64; 3],
    /// The outgoing handle's value offset.
    pub right_value: [f64; 3],
}

impl Default for BezierHandles {
    /// Blockbench's defaults: ±0.1 s, flat.
    fn default() -> Self {
        BezierHandles {
            left_time_secs: [-0.1; 3],
            left_value: [0.0; 3],
            right_time_secs: [0.1; 3],
            right_value: [0.0; 3],
        }
    }
}

/// One keyframe.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// When, seconds.
    pub time_secs: f64,
    /// The pre point, then (when the key jumps) the post point.
    pub points: Vec<Point>,
    /// How it travels to the next key.
    pub interpolation: Interpolation,
    /// Its handles (read only for bezier segments).
    pub bezier: BezierHandles,
}

impl Key {
    /// A key with one point.
    pub fn new(time_secs: f64, point: Point, interpolation: Interpolation) -> Key {
        Key {
            time_secs,
            points: vec![point],
            interpolation,
            bezier: BezierHandles::default(),
        }
    }

    /// The value it arrives at.
    pub fn pre(&self) -> Point {
        self.points.first().copied().unwrap_or(ZERO_POINT)
    }

    /// The value it leaves from.
    pub fn post(&self) -> Point {
        self.points.last().copied().unwrap_or(ZERO_POINT)
    }

    /// True when it has a single point (no jump).
    pub fn is_single(&self) -> bool {
        self.points.len() < 2
    }
}

const ZERO_POINT: Point = [Scalar::Number(0.0); 3];

/// One channel's keys, sorted by time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Channel {
    keys: Vec<Key>,
}

impl Channel {
    /// The keys, sorted by time (stable: keys at the same time keep their
    /// order, and the later one wins as Blockbench's file readers have it:
    /// only the last of several keys at one time is kept).
    pub fn new(mut keys: Vec<Key>) -> Channel {
        keys.sort_by(|a, b| a.time_secs.total_cmp(&b.time_secs));
        let mut kept: Vec<Key> = Vec::with_capacity(keys.len());
        for key in keys {
            match kept.last_mut() {
                Some(last) if last.time_secs == key.time_secs => *last = key,
                _ => kept.push(key),
            }
        }
        Channel { keys: kept }
    }

    /// The keys.
    pub fn keys(&self) -> &[Key] {
        &self.keys
    }

    /// True when it has no keys.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The last key's time, seconds (0 when empty).
    pub fn last_time_secs(&self) -> f64 {
        self.keys.last().map_or(0.0, |k| k.time_secs)
    }

    /// Bedrock's step inference (Blockbench's reader): where a key's post
    /// equals the next key's pre and the next key jumps, the next key's
    /// pre point is dropped and the key becomes step; the last key is step
    /// when the one before it became step.
    pub fn infer_steps(&mut self) {
        let mut last_was_step = false;
        let count = self.keys.len();
        for i in 0..count {
            let post = self.keys.get(i).map(Key::post);
            let next_jump = self
                .keys
                .get(i + 1)
                .filter(|next| next.points.len() == 2)
                .map(Key::pre);
            match (post, next_jump) {
                (Some(post), Some(pre)) if post == pre => {
                    if let Some(next) = self.keys.get_mut(i + 1) {
                        next.points.remove(0);
                    }
                    if let Some(key) = self.keys.get_mut(i) {
                        key.interpolation = Interpolation::Step;
                    }
                    last_was_step = true;
                }
                _ if i + 1 == count && last_was_step => {
                    if let Some(key) = self.keys.get_mut(i) {
                        key.interpolation = Interpolation::Step;
                    }
                }
                _ => {}
            }
        }
    }

    /// The value at `time_secs` (module guide), `None` for a channel with
    /// no keys. `looping` lets catmull-rom borrow neighbours across the loop.
    pub fn sample(
        &self,
        time_secs: f64,
        looping: bool,
        values: &mut dyn Resolve,
    ) -> Option<[f64; 3]> {
        let keys = &self.keys;
        let before = keys.iter().rposition(|k| k.time_secs < time_secs);
        let after = keys.iter().position(|k| k.time_secs >= time_secs);
        let key = |i: Option<usize>| i.and_then(|i| keys.get(i));
        let (b, a) = (key(before), key(after));
        let read = |p: Point, values: &mut dyn Resolve| p.map(|s| values.resolve(s));
        if let Some(b) = b.filter(|b| (time_secs - b.time_secs).abs() < KEY_EPSILON_SECS) {
            return Some(read(b.pre(), values));
        }
        if let Some(a) = a.filter(|a| (a.time_secs - time_secs).abs() < KEY_EPSILON_SECS) {
            return Some(read(a.pre(), values));
        }
        let (b, a) = match (b, a) {
            (Some(b), _) if b.interpolation == Interpolation::Step => {
                return Some(read(b.post(), values))
            }
            (Some(b), None) => return Some(read(b.post(), values)),
            (None, Some(a)) => return Some(read(a.pre(), values)),
            (None, None) => return None,
            (Some(b), Some(a)) => (b, a),
        };
        let alpha = (time_secs - b.time_secs) / (a.time_secs - b.time_secs);
        let from = read(b.post(), values);
        let to = read(a.pre(), values);
        use Interpolation::{Bezier, CatmullRom, Linear, Step};
        let linear = b.interpolation == Linear && matches!(a.interpolation, Linear | Step);
        if !linear && (b.interpolation == CatmullRom || a.interpolation == CatmullRom) {
            let index = before.unwrap_or(0);
            let wrap = looping && keys.len() >= 3;
            let previous = index.checked_sub(1).and_then(|i| keys.get(i)).or_else(|| {
                keys.len()
                    .checked_sub(2)
                    .and_then(|i| keys.get(i))
                    .filter(|_| wrap)
            });
            let next = keys.get(index + 2).or_else(|| keys.get(1).filter(|_| wrap));
            let v0 = match previous {
                Some(p) if b.is_single() => read(p.post(), values),
                _ => from,
            };
            let v3 = match next {
                Some(n) if a.is_single() => read(n.pre(), values),
                _ => to,
            };
            return Some(std::array::from_fn(|i| {
                catmull_rom(v0[i], from[i], to[i], v3[i], alpha)
            }));
        }
        if !linear && (b.interpolation == Bezier || a.interpolation == Bezier) {
            let span = a.time_secs - b.time_secs;
            return Some(std::array::from_fn(|i| {
                let out_time = b.bezier.right_time_secs[i].clamp(0.0, span);
                let in_time = a.bezier.left_time_secs[i].clamp(-span, 0.0);
                bezier(
                    [0.0, from[i]],
                    [out_time, from[i] + b.bezier.right_value[i]],
                    [span + in_time, to[i] + a.bezier.left_value[i]],
                    [span, to[i]],
                    alpha * span,
                )
            }));
        }
        Some(std::array::from_fn(|i| from[i] + (to[i] - from[i]) * alpha))
    }

    /// The interpolations its segments use, for notes.
    pub fn interpolations(&self) -> Vec<Interpolation> {
        let mut out: Vec<Interpolation> = Vec::new();
        for key in self.keys.iter().take(self.keys.len().saturating_sub(1)) {
            if !out.contains(&key.interpolation) {
                out.push(key.interpolation);
            }
        }
        out
    }
}

/// three.js's `CatmullRom(t, p0, p1, p2, p3)`: the uniform catmull-rom
/// spline from `v1` (α = 0) to `v2` (α = 1) with tangents `(v2 − v0)/2`
/// and `(v3 − v1)/2`.
pub fn catmull_rom(v0: f64, v1: f64, v2: f64, v3: f64, alpha: f64) -> f64 {
    let m0 = (v2 - v0) * 0.5;
    let m1 = (v3 - v1) * 0.5;
    let a2 = alpha * alpha;
    let a3 = a2 * alpha;
    (2.0 * v1 - 2.0 * v2 + m0 + m1) * a3
        + (-3.0 * v1 + 3.0 * v2 - 2.0 * m0 - m1) * a2
        + m0 * alpha
        + v1
}

/// The cubic bezier through `[time, value]` control points `p0..p3`
/// (times non-decreasing from `p0` to `p3`, so time only grows along it),
/// read at `time`: the curve parameter whose time is `time` is found by
/// bisection (60 halvings: far below f64 noise), then its value returned.
pub fn bezier(p0: [f64; 2], p1: [f64; 2], p2: [f64; 2], p3: [f64; 2], time: f64) -> f64 {
    let at = |s: f64, k: usize| {
        let r = 1.0 - s;
        r * r * r * p0[k] + 3.0 * r * r * s * p1[k] + 3.0 * r * s * s * p2[k] + s * s * s * p3[k]
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if at(mid, 0) < time {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    at(0.5 * (lo + hi), 1)
}

#[cfg(test)]
#[path = "curves_tests.rs"]
mod tests;
