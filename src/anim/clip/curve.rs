//! Sampling one channel's keys at a time (no allocation).
//!
//! Before the first key a channel holds the first key's value, after the
//! last the last's. Between two keys the earlier key's interpolation
//! decides the way:
//! - `linear`: a straight line; `step`: the earlier value until the later
//!   key's time.
//! - an easing: the line, its fraction reshaped by the family's curve in
//!   the key's direction (the curves Molang's `math.ease_*` and schema 4's
//!   keyframe easings use, [`crate::molang::ease`]).
//! - `catmullrom`: the uniform Catmull-Rom spline through the keys, shaped
//!   by the key before the segment and the key after it. At the ends
//!   (and across a jump) the missing neighbour is the segment's own end
//!   key, so the curve leaves the first key and reaches the last one with
//!   half the slope of a straight line (no overshoot past the ends).
//! - `bezier`: a cubic through the earlier key's `out` handle and the later
//!   key's `in` handle. The handles share one time line: the curve's
//!   parameter is found from the time (bisection, 32 steps) on the time
//!   curve `t0, t0 + out.dt, t1 + in.dt, t1`, and each axis's value comes
//!   from its own handle `dv`. A missing handle is flat and a third of the
//!   segment long; a handle's `dt` is clamped into the segment, which
//!   keeps the time curve monotonic.
//!
//! Two keys at one time are a jump: the segment between them is never
//! chosen, so the value arrives at the first and, from that time on,
//! leaves from the second. Quaternion keys slerp (shortest arc), with
//! `catmullrom` and `bezier` taken as linear.

use glam::{Quat, Vec3};

use crate::anim::track::slerp;
use crate::format::clip::{Interpolation, Key};
use crate::molang::ease::{ease_unit, Ease};

/// The segment `t` falls in: `Hold(i)` holds key `i`, `Between(i, u)` is
/// the way from key `i` to key `i + 1` at fraction `u` in `[0, 1)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Place {
    Hold(usize),
    Between(usize, f32),
}

/// Where `t` falls among keys with these times (non-decreasing).
pub(crate) fn locate<V>(keys: &[Key<V>], t: f32) -> Place {
    let after = keys.partition_point(|k| k.time_secs <= t);
    if after == 0 {
        return Place::Hold(0);
    }
    let i = after - 1;
    match (keys.get(i), keys.get(after)) {
        (Some(a), Some(b)) if b.time_secs > a.time_secs => Place::Between(
            i,
            ((t - a.time_secs) / (b.time_secs - a.time_secs)).clamp(0.0, 1.0),
        ),
        _ => Place::Hold(i),
    }
}

/// The reshaped fraction of an easing key (`u` for the others).
fn eased(
    key_interpolation: Interpolation,
    direction: crate::molang::ease::EaseDirection,
    u: f32,
) -> f32 {
    match key_interpolation {
        Interpolation::Ease(family) => ease_unit(Ease { family, direction }, u),
        _ => u,
    }
}

/// A vector channel (angles in degrees, offsets, scales) at `t`.
pub(crate) fn sample_vec(keys: &[Key<Vec3>], t: f32) -> Vec3 {
    let (i, u) = match locate(keys, t) {
        Place::Hold(i) => return keys.get(i).map_or(Vec3::ZERO, |k| k.value),
        Place::Between(i, u) => (i, u),
    };
    let (Some(a), Some(b)) = (keys.get(i), keys.get(i + 1)) else {
        return Vec3::ZERO;
    };
    match a.interpolation {
        Interpolation::Step => a.value,
        Interpolation::Linear | Interpolation::Ease(_) => {
            a.value.lerp(b.value, eased(a.interpolation, a.ease, u))
        }
        Interpolation::CatmullRom => {
            let before = keys
                .get(i.wrapping_sub(1))
                .filter(|k| i > 0 && k.time_secs < a.time_secs)
                .map_or(a.value, |k| k.value);
            let after = keys
                .get(i + 2)
                .filter(|k| k.time_secs > b.time_secs)
                .map_or(b.value, |k| k.value);
            catmull_rom(before, a.value, b.value, after, u)
        }
        Interpolation::Bezier => bezier(a, b, t),
    }
}

/// The uniform Catmull-Rom spline from `p1` to `p2` at `u`.
pub(crate) fn catmull_rom(p0: Vec3, p1: Vec3, p2: Vec3, p3: Vec3, u: f32) -> Vec3 {
    let u2 = u * u;
    let u3 = u2 * u;
    0.5 * (2.0 * p1
        + (p2 - p0) * u
        + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * u2
        + (3.0 * p1 - p0 - 3.0 * p2 + p3) * u3)
}

/// One coordinate of a cubic bezier at parameter `s`.
fn cubic(p0: f32, p1: f32, p2: f32, p3: f32, s: f32) -> f32 {
    let r = 1.0 - s;
    r * r * r * p0 + 3.0 * r * r * s * p1 + 3.0 * r * s * s * p2 + s * s * s * p3
}

/// The bezier segment from `a` to `b` at time `t` (see the module docs).
fn bezier(a: &Key<Vec3>, b: &Key<Vec3>, t: f32) -> Vec3 {
    let length = b.time_secs - a.time_secs;
    let flat = |dt: f32| crate::format::clip::Handle {
        dt_secs: dt,
        dv: Vec3::ZERO,
    };
    let out = a.handle_out.unwrap_or(flat(length / 3.0));
    let into = b.handle_in.unwrap_or(flat(-length / 3.0));
    let t1 = a.time_secs + out.dt_secs.clamp(0.0, length);
    let t2 = b.time_secs + into.dt_secs.clamp(-length, 0.0);
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for _ in 0..32 {
        let mid = 0.5 * (lo + hi);
        if cubic(a.time_secs, t1, t2, b.time_secs, mid) < t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let s = 0.5 * (lo + hi);
    let p1 = a.value + out.dv;
    let p2 = b.value + into.dv;
    Vec3::new(
        cubic(a.value.x, p1.x, p2.x, b.value.x, s),
        cubic(a.value.y, p1.y, p2.y, b.value.y, s),
        cubic(a.value.z, p1.z, p2.z, b.value.z, s),
    )
}

/// A quaternion channel at `t`.
pub(crate) fn sample_quat(keys: &[Key<Quat>], t: f32) -> Quat {
    match locate(keys, t) {
        Place::Hold(i) => keys.get(i).map_or(Quat::IDENTITY, |k| k.value),
        Place::Between(i, u) => match (keys.get(i), keys.get(i + 1)) {
            (Some(a), Some(_)) if a.interpolation == Interpolation::Step => a.value,
            (Some(a), Some(b)) => slerp(a.value, b.value, eased(a.interpolation, a.ease, u)),
            _ => Quat::IDENTITY,
        },
    }
}
