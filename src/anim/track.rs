//! Compiled tracks and their sampling.
//!
//! A vector track keeps, per key, its time, its outgoing value (`value` or
//! `post`), its incoming value (`value` or `pre`) and the segment that leaves
//! it. Sampling at tick `t`:
//!
//! ```text
//!   key:      k0 ─────── k1 ─────── k2 (last)
//!   t < k0    → outgoing(k0)
//!   k_i ≤ t < k_{i+1}:
//!       step   → outgoing(k_i)
//!       linear → mix(outgoing(k_i), incoming(k_{i+1}), ease(u)),  u = (t − k_i)/(k_{i+1} − k_i)
//!   t ≥ last  → outgoing(last)     (a final `post` holds until the end)
//! ```
//!
//! `mix` is a component-wise lerp for position and scale and a shortest-arc
//! slerp of the keys' quaternions for rotation. A cursor per track remembers
//! the current segment, so playing forward never searches.

use glam::{Quat, Vec3};

use super::euler::quat_from_euler_degrees;
use crate::format::track::{Easing, Interpolation};

/// The index of a Molang expression in an Animation's expression table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExprId(pub u32);

/// One component of a key: fixed, or computed when sampled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A fixed number.
    Constant(f32),
    /// A Molang expression.
    Expr(ExprId),
}

/// Evaluates the Molang expressions a track refers to. The runtime wires
/// this to the Molang session of a playback; `anim` never sees Molang types.
pub trait ExprEvaluator {
    /// The value of `expr` while a key is evaluated; `key_frame_lerp_time` is
    /// the segment's uneased progress (`q.key_frame_lerp_time`).
    fn evaluate(&mut self, expr: ExprId, key_frame_lerp_time: f32) -> f32;
}

/// An evaluator for rigs without Molang: every expression is 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoExprs;

impl ExprEvaluator for NoExprs {
    fn evaluate(&mut self, _expr: ExprId, _key_frame_lerp_time: f32) -> f32 {
        0.0
    }
}

fn eval3(value: &[Scalar; 3], lerp_time: f32, exprs: &mut dyn ExprEvaluator) -> Vec3 {
    let mut out = [0.0f32; 3];
    for (slot, scalar) in out.iter_mut().zip(value) {
        *slot = match *scalar {
            Scalar::Constant(v) => v,
            Scalar::Expr(id) => exprs.evaluate(id, lerp_time),
        };
    }
    Vec3::from_array(out)
}

fn constant3(value: &[Scalar; 3]) -> Option<Vec3> {
    let mut out = [0.0f32; 3];
    for (slot, scalar) in out.iter_mut().zip(value) {
        match scalar {
            Scalar::Constant(v) => *slot = *v,
            Scalar::Expr(_) => return None,
        }
    }
    Some(Vec3::from_array(out))
}

/// Which channel a vector track drives (decides lerp or slerp).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorChannel {
    /// Position in blocks, lerped.
    Position,
    /// XYZ Euler degrees, slerped as quaternions.
    Rotation,
    /// Scale factors, lerped.
    Scale,
}

/// A compiled position, rotation or scale track.
#[derive(Clone, Debug)]
pub struct VectorTrack {
    channel: VectorChannel,
    times_ticks: Vec<f32>,
    outgoing: Vec<[Scalar; 3]>,
    incoming: Vec<[Scalar; 3]>,
    segments: Vec<(Interpolation, Easing)>,
    /// When every component is constant: the values, precomputed
    /// (`Vec3`, or the quaternion's xyz/w for rotations).
    constant_out: Option<Vec<Vec3>>,
    constant_in: Option<Vec<Vec3>>,
    quats_out: Vec<Quat>,
    /// For constant rotation tracks, each segment's slerp set up once.
    arcs: Vec<Arc>,
}

/// A slerp between two fixed quaternions, with the angle worked out once.
#[derive(Clone, Copy, Debug)]
struct Arc {
    from: Quat,
    /// The end, negated if needed so the arc is the short one.
    to: Quat,
    theta: f32,
    /// `cos θ` and `1 / sin θ`; 0 for nearly equal ends (then lerp).
    cos_theta: f32,
    inv_sin_theta: f32,
    /// `sin θ · (1 / sin θ)`, so `from`'s weight needs no second sine.
    sin_over_sin: f32,
}

impl Arc {
    fn new(from: Quat, to: Quat) -> Self {
        let to = if from.dot(to) < 0.0 { -to } else { to };
        let dot = from.dot(to).clamp(-1.0, 1.0);
        let theta = dot.acos();
        let (sin, cos) = theta.sin_cos();
        let inv_sin_theta = if dot > 0.9995 { 0.0 } else { 1.0 / sin };
        Self {
            from,
            to,
            theta,
            cos_theta: cos,
            inv_sin_theta,
            sin_over_sin: sin * inv_sin_theta,
        }
    }

    /// The slerp at `t`, with one `sin_cos` instead of two sines:
    /// `sin((1 − t)θ) = sin θ · cos tθ − cos θ · sin tθ`.
    fn at(&self, t: f32) -> Quat {
        if self.inv_sin_theta == 0.0 {
            return (self.from * (1.0 - t) + self.to * t).normalize();
        }
        let (sin_t, cos_t) = (t * self.theta).sin_cos();
        let wa = self.sin_over_sin * cos_t - self.cos_theta * sin_t * self.inv_sin_theta;
        let wb = sin_t * self.inv_sin_theta;
        (self.from * wa + self.to * wb).normalize()
    }
}

/// One compiled key, the input of [`VectorTrack::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledKey {
    /// Tick of the key.
    pub time_ticks: f32,
    /// Value the segment arriving here ends on.
    pub incoming: [Scalar; 3],
    /// Value the segment leaving here starts from.
    pub outgoing: [Scalar; 3],
    /// The segment leaving this key.
    pub interpolation: Interpolation,
    /// Its easing.
    pub easing: Easing,
}

impl VectorTrack {
    /// Builds a track from keys sorted by strictly increasing time (validated at load).
    pub fn new(channel: VectorChannel, keys: &[CompiledKey]) -> Self {
        let times_ticks: Vec<f32> = keys.iter().map(|k| k.time_ticks).collect();
        let outgoing: Vec<[Scalar; 3]> = keys.iter().map(|k| k.outgoing).collect();
        let incoming: Vec<[Scalar; 3]> = keys.iter().map(|k| k.incoming).collect();
        let segments = keys.iter().map(|k| (k.interpolation, k.easing)).collect();
        let constant_out: Option<Vec<Vec3>> = outgoing.iter().map(constant3).collect();
        let constant_in: Option<Vec<Vec3>> = incoming.iter().map(constant3).collect();
        let (quats_out, quats_in) = match (&constant_out, &constant_in, channel) {
            (Some(o), Some(i), VectorChannel::Rotation) => (
                o.iter().map(|v| quat_from_euler_degrees(*v)).collect(),
                i.iter().map(|v| quat_from_euler_degrees(*v)).collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        let arcs = (1..quats_out.len())
            .map(|i| Arc::new(quats_out[i - 1], quats_in[i]))
            .collect();
        Self {
            channel,
            times_ticks,
            outgoing,
            incoming,
            segments,
            constant_out,
            constant_in,
            quats_out,
            arcs,
        }
    }

    /// The channel this track drives.
    pub fn channel(&self) -> VectorChannel {
        self.channel
    }

    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.times_ticks.len()
    }

    /// True when no key uses Molang.
    pub fn is_constant(&self) -> bool {
        self.constant_out.is_some() && self.constant_in.is_some()
    }

    /// Moves `cursor` to the segment holding `t` and returns it with the
    /// segment's progress `u` (None past the last key or before the first).
    fn locate(&self, t: f32, cursor: &mut usize) -> (usize, Option<f32>) {
        let n = self.times_ticks.len();
        if *cursor >= n || self.times_ticks[*cursor] > t {
            *cursor = 0; // playing backwards (or a new cycle): restart the scan
        }
        while *cursor + 1 < n && self.times_ticks[*cursor + 1] <= t {
            *cursor += 1;
        }
        let i = *cursor;
        if t < self.times_ticks[0] || i + 1 >= n {
            return (i, None);
        }
        let (t0, t1) = (self.times_ticks[i], self.times_ticks[i + 1]);
        (i, Some((t - t0) / (t1 - t0)))
    }

    fn endpoints(&self, i: usize, u: f32, exprs: &mut dyn ExprEvaluator) -> (Vec3, Vec3) {
        match (&self.constant_out, &self.constant_in) {
            (Some(o), Some(inc)) => (o[i], inc[i + 1]),
            _ => (
                eval3(&self.outgoing[i], u, exprs),
                eval3(&self.incoming[i + 1], u, exprs),
            ),
        }
    }

    fn held(&self, i: usize, exprs: &mut dyn ExprEvaluator) -> Vec3 {
        match &self.constant_out {
            Some(o) => o[i],
            None => eval3(&self.outgoing[i], 0.0, exprs),
        }
    }

    /// Samples a position or scale track at tick `t`.
    pub fn sample_vec3(&self, t: f32, cursor: &mut usize, exprs: &mut dyn ExprEvaluator) -> Vec3 {
        let (i, progress) = self.locate(t, cursor);
        match progress {
            Some(u) if self.segments[i].0 == Interpolation::Linear => {
                let (a, b) = self.endpoints(i, u, exprs);
                a.lerp(b, self.segments[i].1.apply(u))
            }
            _ => self.held(i, exprs),
        }
    }

    /// Samples a rotation track at tick `t`, as a unit quaternion.
    pub fn sample_rotation(
        &self,
        t: f32,
        cursor: &mut usize,
        exprs: &mut dyn ExprEvaluator,
    ) -> Quat {
        let (i, progress) = self.locate(t, cursor);
        let constant = !self.quats_out.is_empty();
        match progress {
            Some(u) if self.segments[i].0 == Interpolation::Linear => {
                let e = self.segments[i].1.apply(u);
                if constant {
                    return self.arcs[i].at(e);
                }
                let (a, b) = self.endpoints(i, u, exprs);
                slerp(quat_from_euler_degrees(a), quat_from_euler_degrees(b), e)
            }
            _ if constant => self.quats_out[i],
            _ => quat_from_euler_degrees(self.held(i, exprs)),
        }
    }
}

/// Shortest-arc spherical interpolation; `t` may leave `[0, 1]` (overshooting easings).
pub fn slerp(a: Quat, b: Quat, t: f32) -> Quat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let dot = a.dot(b).clamp(-1.0, 1.0);
    if dot > 0.9995 {
        // Nearly equal: lerp and normalise avoids dividing by sin(θ) ≈ 0.
        return (a * (1.0 - t) + b * t).normalize();
    }
    let theta = dot.acos();
    let sin_theta = theta.sin();
    let wa = ((1.0 - t) * theta).sin() / sin_theta;
    let wb = (t * theta).sin() / sin_theta;
    (a * wa + b * wb).normalize()
}

/// A visibility key's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Visibility {
    /// Shown or hidden.
    Fixed(bool),
    /// Zero hides; any other finite value shows.
    Expr(ExprId),
}

/// A compiled, stepped visibility track.
#[derive(Clone, Debug)]
pub struct VisibilityTrack {
    times_ticks: Vec<f32>,
    values: Vec<Visibility>,
}

/// A Molang visibility value that was not finite: playback must stop.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("a visibility expression gave a non-finite value ({value})")]
pub struct NonFiniteVisibility {
    /// What the expression returned.
    pub value: f32,
}

impl VisibilityTrack {
    /// Builds a track from `(tick, value)` pairs in strictly increasing time.
    pub fn new(keys: &[(f32, Visibility)]) -> Self {
        Self {
            times_ticks: keys.iter().map(|k| k.0).collect(),
            values: keys.iter().map(|k| k.1).collect(),
        }
    }

    /// Whether the node is shown at tick `t`.
    pub fn sample(
        &self,
        t: f32,
        cursor: &mut usize,
        exprs: &mut dyn ExprEvaluator,
    ) -> Result<bool, NonFiniteVisibility> {
        let n = self.times_ticks.len();
        if *cursor >= n || self.times_ticks[*cursor] > t {
            *cursor = 0;
        }
        while *cursor + 1 < n && self.times_ticks[*cursor + 1] <= t {
            *cursor += 1;
        }
        match self.values[*cursor] {
            Visibility::Fixed(b) => Ok(b),
            Visibility::Expr(id) => {
                let value = exprs.evaluate(id, 0.0);
                if value.is_finite() {
                    Ok(value != 0.0)
                } else {
                    Err(NonFiniteVisibility { value })
                }
            }
        }
    }
}

#[cfg(test)]
mod arc_tests {
    use glam::Quat;
    use proptest::prelude::*;

    use super::{slerp, Arc};

    fn unit_quat() -> impl Strategy<Value = Quat> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_filter("not too short", |(x, y, z, w)| {
                x * x + y * y + z * z + w * w > 0.01
            })
            .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
    }

    proptest! {
        /// The precomputed arc (one `sin_cos`) is the textbook slerp,
        /// overshooting easings included.
        #[test]
        fn precomputed_arc_equals_slerp(a in unit_quat(), b in unit_quat(), t in -0.5f32..1.5) {
            let arc = Arc::new(a, b).at(t);
            let reference = slerp(a, b, t);
            prop_assert!(arc.abs_diff_eq(reference, 2e-5), "{arc:?} vs {reference:?}");
        }
    }
}
