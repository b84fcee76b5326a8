//! Curve modifiers on angle and offset channels, run in the order listed
//! with the ones that move time (`cycles`, `stepped`) first.
//!
//! - `cycles` repeats the keyed range `[first key, last key]` (length
//!   `D`): after the last key, cycle `k = ⌊(t − t0) / D⌋` reads the curve
//!   at `t0 + frac · D`; `offset` adds `k ×` the range's change (last value
//!   − first value), `mirror` reads odd cycles backwards
//!   (`t1 − frac · D`); before the first key the same with negative `k`.
//!   `none` on a side leaves that side holding its end key. A range of
//!   length 0 is left alone.
//! - `stepped` reads the curve at `offset + ⌊(t − offset) / step⌋ · step`.
//! - `noise` adds `strength / 2 · n(t / scale + phase) + offset`, where `n`
//!   is value noise in `[−1, 1]`: a hashed value at each whole number,
//!   joined by smoothstep. It is a function of the time alone (and of the
//!   axis, so the axes wobble apart), so it is the same every time it plays.
//! - `limits` clamps to `[min, max]` (a side left out is open).
//! - `envelope` maps `reference + min` to the points' min and
//!   `reference + max` to their max, the points' bounds taken linearly
//!   between the points around `t` (held past the first and last); no
//!   points, no change.
//!
//! `noise` and `envelope` read the playhead's time, not the time the time
//! modifiers moved. A value modifier whose arithmetic overflows (say a
//! noise `scale` of 1e-40 s) leaves the value as it was, so a sample is
//! always finite. A modifier with an `axis` acts on that axis alone; a
//! disabled one is dropped when the clip is compiled.

use glam::Vec3;

use crate::format::clip::{CycleMode, Key, Modifier, ModifierKind};

/// A channel's keys with the modifiers that act on them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ModifiedCurve {
    pub(crate) keys: Vec<Key<Vec3>>,
    pub(crate) modifiers: Vec<Modifier>,
    /// The keyed range's first and last times.
    range: (f32, f32),
    /// The last key's value minus the first's.
    change: Vec3,
}

impl ModifiedCurve {
    /// The curve of `keys` with the enabled `modifiers`.
    pub(crate) fn new(keys: Vec<Key<Vec3>>, modifiers: &[Modifier]) -> Self {
        let (first, last) = (keys.first(), keys.last());
        let range = (
            first.map_or(0.0, |k| k.time_secs),
            last.map_or(0.0, |k| k.time_secs),
        );
        let change = match (first, last) {
            (Some(a), Some(b)) => b.value - a.value,
            _ => Vec3::ZERO,
        };
        Self {
            keys,
            modifiers: modifiers.iter().copied().filter(|m| m.enabled).collect(),
            range,
            change,
        }
    }

    /// The value at `t`.
    pub(crate) fn sample(&self, t: f32) -> Vec3 {
        if self.modifiers.is_empty() {
            return super::curve::sample_vec(&self.keys, t);
        }
        let mut times = [t; 3];
        let mut added = [0.0f32; 3];
        for (axis, (time, add)) in times.iter_mut().zip(added.iter_mut()).enumerate() {
            for m in self.modifiers.iter().filter(|m| acts_on(m, axis)) {
                match m.kind {
                    ModifierKind::Cycles { before, after } => {
                        let (moved, cycles) = cycle(*time, self.range, before, after);
                        *time = moved;
                        if cycles != 0.0 {
                            let offsets = if cycles > 0.0 { after } else { before };
                            if offsets == CycleMode::Offset {
                                *add += cycles * self.change[axis];
                            }
                        }
                    }
                    ModifierKind::Stepped {
                        step_secs,
                        offset_secs,
                    } if step_secs > 0.0 => {
                        *time =
                            offset_secs + ((*time - offset_secs) / step_secs).floor() * step_secs;
                    }
                    _ => {}
                }
            }
        }
        let mut value = if times[0] == times[1] && times[1] == times[2] {
            super::curve::sample_vec(&self.keys, times[0])
        } else {
            let per_axis = |axis: usize| super::curve::sample_vec(&self.keys, times[axis])[axis];
            Vec3::new(per_axis(0), per_axis(1), per_axis(2))
        };
        for axis in 0..3 {
            let mut v = value[axis] + added[axis];
            for m in self.modifiers.iter().filter(|m| acts_on(m, axis)) {
                // A modifier whose arithmetic overflows leaves the value alone.
                v = Some(apply_value(m.kind, v, t, axis))
                    .filter(|moved| moved.is_finite())
                    .unwrap_or(v);
            }
            value[axis] = v;
        }
        value
    }
}

fn acts_on(modifier: &Modifier, axis: usize) -> bool {
    modifier.axis.is_none_or(|a| usize::from(a) == axis)
}

/// `cycles`: the time to read and the (signed) number of whole cycles moved.
fn cycle(t: f32, (t0, t1): (f32, f32), before: CycleMode, after: CycleMode) -> (f32, f32) {
    let length = t1 - t0;
    let mode = if t > t1 {
        after
    } else if t < t0 {
        before
    } else {
        CycleMode::None
    };
    if mode == CycleMode::None || length <= 0.0 {
        return (t, 0.0);
    }
    let x = (t - t0) / length;
    let k = x.floor();
    let fraction = x - k;
    let odd = k.rem_euclid(2.0) == 1.0;
    let moved = if mode == CycleMode::Mirror && odd {
        t1 - fraction * length
    } else {
        t0 + fraction * length
    };
    (moved, k)
}

/// A value modifier on one axis's value `v` at playhead time `t`.
fn apply_value(kind: ModifierKind, v: f32, t: f32, axis: usize) -> f32 {
    match kind {
        ModifierKind::Noise {
            scale_secs,
            strength,
            phase,
            offset,
        } if scale_secs > 0.0 => {
            v + 0.5 * strength * value_noise(t / scale_secs + phase, axis as u32) + offset
        }
        ModifierKind::Limits { min, max } => {
            let v = min.map_or(v, |lo| v.max(lo));
            max.map_or(v, |hi| v.min(hi))
        }
        ModifierKind::Envelope {
            reference,
            min,
            max,
            points,
        } => {
            let Some((lo, hi)) = envelope_bounds(points.as_slice(), t) else {
                return v;
            };
            let (from_lo, from_hi) = (reference + min, reference + max);
            if from_hi == from_lo {
                return v;
            }
            lo + (v - from_lo) * (hi - lo) / (from_hi - from_lo)
        }
        _ => v,
    }
}

/// The points' `(min, max)` at `t`.
fn envelope_bounds(points: &[[f32; 3]], t: f32) -> Option<(f32, f32)> {
    let after = points.partition_point(|p| p[0] <= t);
    let [t_b, lo_b, hi_b] = *points.get(after.min(points.len().saturating_sub(1)))?;
    let Some(&[t_a, lo_a, hi_a]) = after.checked_sub(1).and_then(|i| points.get(i)) else {
        return Some((lo_b, hi_b));
    };
    if after >= points.len() || t_b <= t_a {
        return Some((lo_a, hi_a));
    }
    let u = (t - t_a) / (t_b - t_a);
    Some((lo_a + (lo_b - lo_a) * u, hi_a + (hi_b - hi_a) * u))
}

/// Value noise in `[−1, 1]`: hashed values at whole numbers, smoothstepped between.
pub(crate) fn value_noise(x: f32, seed: u32) -> f32 {
    if !x.is_finite() {
        return 0.0;
    }
    let cell = x.floor();
    let f = x - cell;
    let cell = cell as i64;
    let (a, b) = (lattice(cell, seed), lattice(cell.wrapping_add(1), seed));
    let s = f * f * (3.0 - 2.0 * f);
    a + (b - a) * s
}

/// A value in `[−1, 1]` for a whole number (a 64-bit integer hash).
fn lattice(cell: i64, seed: u32) -> f32 {
    let mut h = (cell as u64) ^ (u64::from(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^= h >> 33;
    ((h >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}
