//! One animation sampler evaluated at any time, exactly as glTF 2.0's
//! Appendix C says.
//!
//! With keys at times `t_0 < t_1 < … < t_n` and a requested time `t_c`:
//! before `t_0` the first value holds, from `t_n` on the last (clamping);
//! otherwise `k` is the key with `t_k ≤ t_c < t_{k+1}`, `t_d = t_{k+1} − t_k`
//! and `t = (t_c − t_k) / t_d`:
//!
//! | interpolation | value |
//! |---|---|
//! | `STEP` | `v_k` |
//! | `LINEAR` | `(1 − t)·v_k + t·v_{k+1}` |
//! | `LINEAR`, rotation | `sin(a(1 − t))/sin(a)·v_k + s·sin(a·t)/sin(a)·v_{k+1}`, with `a = acos(\|v_k·v_{k+1}\|)` and `s` the dot product's sign (a plain lerp when `a` is near 0) |
//! | `CUBICSPLINE` | `(2t³ − 3t² + 1)·v_k + t_d(t³ − 2t² + t)·b_k + (−2t³ + 3t²)·v_{k+1} + t_d(t³ − t²)·a_{k+1}` |
//!
//! where a `CUBICSPLINE` output holds, per key, the in-tangent `a_k`, the
//! value `v_k` and the out-tangent `b_k`. Rotation results are normalised
//! (for `CUBICSPLINE` the specification requires it; for `LINEAR` it only
//! removes rounding). A time equal to a key gives that key's value as is.

use glam::{Quat, Vec4};

/// How a sampler goes from one key to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Hold each key's value until the next.
    Step,
    /// Straight lines; great-circle arcs for rotations.
    Linear,
    /// Hermite curves through the values with the file's tangents.
    CubicSpline,
}

impl Interpolation {
    /// The name the file uses.
    pub fn name(self) -> &'static str {
        match self {
            Interpolation::Step => "STEP",
            Interpolation::Linear => "LINEAR",
            Interpolation::CubicSpline => "CUBICSPLINE",
        }
    }
}

/// A checked sampler: strictly increasing finite times, finite values.
/// Vectors use the first three lanes of each [`Vec4`]; rotations all four
/// (`x, y, z, w`).
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// Key times in seconds, strictly increasing, at least one.
    times_secs: Vec<f32>,
    /// One value per key, or three (`a_k, v_k, b_k`) for `CUBICSPLINE`.
    values: Vec<Vec4>,
    /// How keys join.
    interpolation: Interpolation,
    /// Whether the values are quaternions (slerp, normalised results).
    rotation: bool,
}

/// Why a curve could not be made (the caller adds where).
#[derive(Clone, Debug, PartialEq)]
pub enum CurveRule {
    /// There are no keys.
    NoKeys,
    /// Key `index` is not after the previous key, or not finite.
    Time {
        /// The key.
        index: usize,
    },
    /// The output holds `given` values where `expected` are needed.
    Count {
        /// What the keys need.
        expected: usize,
        /// What the output holds.
        given: usize,
    },
    /// Value `index` is not finite.
    NotFinite {
        /// The output element.
        index: usize,
    },
}

impl Curve {
    /// A curve of `times_secs` and `values` (three per key for
    /// `CUBICSPLINE`), checked.
    pub fn new(
        times_secs: Vec<f32>,
        values: Vec<Vec4>,
        interpolation: Interpolation,
        rotation: bool,
    ) -> Result<Curve, CurveRule> {
        if times_secs.is_empty() {
            return Err(CurveRule::NoKeys);
        }
        for (index, pair) in times_secs.windows(2).enumerate() {
            let increasing = matches!(pair, [a, b] if b > a);
            if !increasing {
                return Err(CurveRule::Time { index: index + 1 });
            }
        }
        if let Some(index) = times_secs.iter().position(|t| !t.is_finite()) {
            return Err(CurveRule::Time { index });
        }
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let expected = times_secs.len() * per_key;
        if values.len() != expected {
            return Err(CurveRule::Count {
                expected,
                given: values.len(),
            });
        }
        if let Some(index) = values.iter().position(|v| !v.is_finite()) {
            return Err(CurveRule::NotFinite { index });
        }
        Ok(Curve {
            times_secs,
            values,
            interpolation,
            rotation,
        })
    }

    /// The interpolation.
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// The key times, seconds.
    pub fn times_secs(&self) -> &[f32] {
        &self.times_secs
    }

    /// The last key's time, seconds.
    pub fn end_secs(&self) -> f32 {
        self.times_secs.last().copied().unwrap_or(0.0)
    }

    /// Key `k`'s value (`v_k`).
    fn value(&self, k: usize) -> Vec4 {
        let i = if self.interpolation == Interpolation::CubicSpline {
            3 * k + 1
        } else {
            k
        };
        self.values.get(i).copied().unwrap_or(Vec4::ZERO)
    }

    /// Key `k`'s in-tangent `a_k` (`CUBICSPLINE` only).
    fn in_tangent(&self, k: usize) -> Vec4 {
        self.values.get(3 * k).copied().unwrap_or(Vec4::ZERO)
    }

    /// Key `k`'s out-tangent `b_k` (`CUBICSPLINE` only).
    fn out_tangent(&self, k: usize) -> Vec4 {
        self.values.get(3 * k + 2).copied().unwrap_or(Vec4::ZERO)
    }

    /// The value at `time_secs` (a normalised quaternion's `x, y, z, w`
    /// for rotations).
    pub fn sample(&self, time_secs: f32) -> Vec4 {
        let last = self.times_secs.len().saturating_sub(1);
        let first_time = self.times_secs.first().copied().unwrap_or(0.0);
        let raw = if time_secs <= first_time {
            self.value(0)
        } else if time_secs >= self.end_secs() {
            self.value(last)
        } else {
            // First key after `time_secs`, so `k` is the one at or before it.
            let next = self.times_secs.partition_point(|&t| t <= time_secs);
            let k = next.saturating_sub(1);
            let t_k = self.times_secs.get(k).copied().unwrap_or(first_time);
            let t_next = self.times_secs.get(next).copied().unwrap_or(t_k);
            let t_d = t_next - t_k;
            let t = (time_secs - t_k) / t_d;
            match self.interpolation {
                Interpolation::Step => self.value(k),
                Interpolation::Linear if self.rotation => slerp(self.value(k), self.value(next), t),
                Interpolation::Linear => self.value(k) * (1.0 - t) + self.value(next) * t,
                Interpolation::CubicSpline => hermite(
                    self.value(k),
                    self.out_tangent(k),
                    self.value(next),
                    self.in_tangent(next),
                    t_d,
                    t,
                ),
            }
        };
        if self.rotation {
            normalised(raw)
        } else {
            raw
        }
    }
}

/// `q` scaled to unit length (the identity when it has none).
pub fn normalised(q: Vec4) -> Vec4 {
    let length = q.length();
    if length > 1e-12 && length.is_finite() {
        q / length
    } else {
        Vec4::new(0.0, 0.0, 0.0, 1.0)
    }
}

/// Appendix C's slerp from `a` to `b` at `t`, taking the short way.
pub fn slerp(a: Vec4, b: Vec4, t: f32) -> Vec4 {
    let dot = a.dot(b);
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    let angle = dot.abs().min(1.0).acos();
    let sin = angle.sin();
    if sin.abs() < 1e-6 {
        return a * (1.0 - t) + b * (sign * t);
    }
    a * ((angle * (1.0 - t)).sin() / sin) + b * (sign * (angle * t).sin() / sin)
}

/// Appendix C's cubic Hermite spline from `v_k` (out-tangent `b_k`) to
/// `v_next` (in-tangent `a_next`) over `t_d` seconds, at fraction `t`.
pub fn hermite(v_k: Vec4, b_k: Vec4, v_next: Vec4, a_next: Vec4, t_d: f32, t: f32) -> Vec4 {
    let t2 = t * t;
    let t3 = t2 * t;
    v_k * (2.0 * t3 - 3.0 * t2 + 1.0)
        + b_k * (t_d * (t3 - 2.0 * t2 + t))
        + v_next * (-2.0 * t3 + 3.0 * t2)
        + a_next * (t_d * (t3 - t2))
}

/// A sampled rotation as a quaternion.
pub fn quat(v: Vec4) -> Quat {
    Quat::from_xyzw(v.x, v.y, v.z, v.w)
}
