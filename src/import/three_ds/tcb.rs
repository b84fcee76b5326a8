//! Sampling one track the way lib3ds 2.0 does: Kochanek–Bartels (TCB)
//! Hermite curves for positions and scales, squad over the absolute
//! orientations for rotations, and toggles for hide tracks.
//!
//! # Time
//! With keys at frames `t0 … t1`, a frame `t` becomes `nt = t`, or with
//! REPEAT `nt = fmod(t − t0, t1 − t0) + t0` (`fmod` keeps the sign, so a
//! frame before `t0` still comes before it). At or before `t0` the track
//! holds its first value (for rotations the first key's turn); at or
//! after `t1` its last (the orientation after every turn); a single key is
//! constant. Otherwise `nt` falls in the segment from key `i − 1` to key
//! `i` at `u = (nt − f_{i−1}) / (f_i − f_{i−1})`.
//!
//! # Tangents
//! A key `c` with neighbours `p` and `n` (and parameters T, C, B) gets
//! `fp = fn = 1`, or, when both neighbours exist, `dt = ½(f_n − f_p)`,
//! `fp = (f_c − f_p)/dt`, `fn = (f_n − f_c)/dt`, each then moved toward 1
//! by `|C|` (`fp + |C|(1 − fp)`), which makes the tangents fair over
//! uneven spacing. With `tm = ½(1 − T)`, `cm = 1 − C`, `cp = 1 + C`,
//! `bm = 1 − B`, `bp = 1 + B`:
//! `ksm = tm·cm·bp·fp`, `ksp = tm·cp·bm·fp`, `kdm = tm·cp·bp·fn`,
//! `kdp = tm·cm·bm·fn`. The neighbours of the segment's keys are the keys
//! beside them; with SMOOTH the first key's left neighbour is key `n − 2`
//! moved back by `t1 − t0` and the last key's right neighbour is key 1
//! moved on by `t1 − t0` (the track is taken to close on itself; lib3ds
//! 2.0 marks a missing neighbour with frame −1, so it drops a wrapped left
//! neighbour whose frame comes out negative, as it does for any track
//! starting at frame 0: this module keeps it).
//!
//! - **Vectors.** `Δm = c − p`, `Δp = n − c` (a missing side copies the
//!   other); the incoming tangent is `ds = ksm·Δm + ksp·Δp`, the outgoing
//!   `dd = kdm·Δm + kdp·Δp`. A segment is the cubic Hermite curve
//!   `h00·P0 + h01·P1 + h10·dd(P0) + h11·ds(P1)` with `h00 = 2u³ − 3u² + 1`,
//!   `h01 = −2u³ + 3u²`, `h10 = u³ − 2u² + u`, `h11 = u³ − u²`. T = C = B = 0
//!   is Catmull-Rom; C = −1 makes every tangent the chord, a straight line
//!   at constant speed.
//! - **Rotations.** Over the absolute orientations: `qm = ln(p⁻¹·c)` and
//!   `qp = ln(c⁻¹·n)` (each neighbour negated first when its dot product
//!   with `c` is negative; a missing side copies the other);
//!   `a = c·exp(½(kdm·qm + (kdp − 1)·qp))` leaving the key,
//!   `b = c·exp(½((1 − ksm)·qm − ksp·qp))` arriving at it. A segment is
//!   `squad(P0, a0, b1, P1, u) = slerp(slerp(P0, P1, u), slerp(a0, b1, u),
//!   2u(1 − u))`, every slerp on the short arc. lib3ds 2.0 also means to
//!   give a key that turns a full circle or more a zero tangent, but its
//!   test reads the quaternion's `w` instead of the angle and never fires;
//!   this module does as lib3ds 2.0 does. Either way a turn of more than
//!   half a circle between two keys plays as the shorter one.
//! - **Hide.** The number of keys at or before `nt`; each one toggles.
//!
//! # Ease
//! lib3ds reads each key's ease to and ease from but never uses them
//! (assimp drops all TCB data). An author who sets them in 3D Studio
//! expects the motion to slow down leaving the key (ease from) and
//! arriving at the next (ease to), so this module applies them as 3D
//! Studio's ease curve to the segment's fraction, `u' = ease(u, from =
//! key i−1's ease from, to = key i's ease to)`, before the Hermite or
//! squad step: see [`ease`]. With both at 0 (no ease bits in the file)
//! `u' = u`.

use glam::{Quat, Vec3};

use super::tracks::{Key, RotationTrack, Spline, Track};

/// Below this a quaternion's vector part has no direction.
const TINY: f32 = 1e-6;

/// Where a frame falls among a track's keys.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Spot {
    /// At or before the first key (or the track has one key).
    First,
    /// At or after the last key.
    Last,
    /// Between key `index − 1` and key `index`, `u` of the way.
    Between { index: usize, u: f32 },
}

/// The frame a track is read at: `frame`, wrapped with REPEAT.
fn track_time<V>(track: &Track<V>, frame: f32) -> f64 {
    let t = f64::from(frame);
    match (track.keys.first(), track.keys.last()) {
        (Some(first), Some(last)) if track.flags.repeat() && last.frame > first.frame => {
            let (t0, t1) = (f64::from(first.frame), f64::from(last.frame));
            (t - t0) % (t1 - t0) + t0
        }
        _ => t,
    }
}

fn locate<V>(track: &Track<V>, frame: f32) -> Spot {
    let keys = &track.keys;
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
        return Spot::First;
    };
    if keys.len() < 2 {
        return Spot::First;
    }
    let nt = track_time(track, frame);
    if nt.is_nan() || nt <= f64::from(first.frame) {
        return Spot::First;
    }
    if nt >= f64::from(last.frame) {
        return Spot::Last;
    }
    let index = keys.partition_point(|k| f64::from(k.frame) <= nt);
    match (
        index.checked_sub(1).and_then(|i| keys.get(i)),
        keys.get(index),
    ) {
        (Some(a), Some(b)) => {
            let (fa, fb) = (f64::from(a.frame), f64::from(b.frame));
            let u = ((nt - fa) / (fb - fa)).clamp(0.0, 1.0) as f32;
            Spot::Between { index, u }
        }
        _ => Spot::Last,
    }
}

/// A key seen as a neighbour: the key and the frame it counts at (moved by
/// a whole loop for SMOOTH's wrapped neighbours).
#[derive(Clone, Copy, Debug)]
struct Beside {
    index: usize,
    frame: f64,
}

/// The keys on either side of segment `index` (from key `index − 1` to
/// key `index`): key `index − 2` and key `index + 1`, or SMOOTH's wrapped
/// ones.
fn neighbours<V>(track: &Track<V>, index: usize) -> (Option<Beside>, Option<Beside>) {
    let keys = &track.keys;
    let n = keys.len();
    let span = match (keys.first(), keys.last()) {
        (Some(a), Some(b)) => f64::from(b.frame) - f64::from(a.frame),
        _ => 0.0,
    };
    let frame = |i: usize| keys.get(i).map(|k| f64::from(k.frame));
    let smooth = track.flags.smooth();
    let prev = if index >= 2 {
        frame(index - 2).map(|f| Beside {
            index: index - 2,
            frame: f,
        })
    } else if smooth && n >= 2 {
        frame(n - 2).map(|f| Beside {
            index: n - 2,
            frame: f - span,
        })
    } else {
        None
    };
    let next = if index + 1 < n {
        frame(index + 1).map(|f| Beside {
            index: index + 1,
            frame: f,
        })
    } else if smooth && n >= 2 {
        frame(1).map(|f| Beside {
            index: 1,
            frame: f + span,
        })
    } else {
        None
    };
    (prev, next)
}

/// The Kochanek–Bartels weights of a key at `frame` with `spline`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// Weight of the incoming difference in the incoming tangent.
    pub ksm: f32,
    /// Weight of the outgoing difference in the incoming tangent.
    pub ksp: f32,
    /// Weight of the incoming difference in the outgoing tangent.
    pub kdm: f32,
    /// Weight of the outgoing difference in the outgoing tangent.
    pub kdp: f32,
}

/// The weights of a key at `frame` whose neighbours are at `prev` and
/// `next` (the module guide's formulas).
pub fn weights(prev: Option<f64>, frame: f64, next: Option<f64>, spline: &Spline) -> Weights {
    let (mut fp, mut fn_) = (1.0f32, 1.0f32);
    if let (Some(p), Some(n)) = (prev, next) {
        let dt = 0.5 * (n - p);
        if dt > 0.0 {
            let c = spline.continuity.abs();
            fp = ((frame - p) / dt) as f32;
            fn_ = ((n - frame) / dt) as f32;
            fp += c * (1.0 - fp);
            fn_ += c * (1.0 - fn_);
        }
    }
    let tm = 0.5 * (1.0 - spline.tension);
    let (cm, cp) = (1.0 - spline.continuity, 1.0 + spline.continuity);
    let (bm, bp) = (1.0 - spline.bias, 1.0 + spline.bias);
    Weights {
        ksm: tm * cm * bp * fp,
        ksp: tm * cp * bm * fp,
        kdm: tm * cp * bp * fn_,
        kdp: tm * cm * bm * fn_,
    }
}

/// 3D Studio's ease curve: the fraction `u` of a segment reshaped so the
/// motion starts slowly over the first `ease_from` of it and stops slowly
/// over the last `ease_to` (both scaled down to sum to 1 when they sum to
/// more), at constant speed between; `u` itself when both are 0.
pub fn ease(u: f32, ease_from: f32, ease_to: f32) -> f32 {
    let u = f64::from(u.clamp(0.0, 1.0));
    let (mut from, mut to) = (f64::from(ease_from), f64::from(ease_to));
    let sum = from + to;
    if !sum.is_finite() || sum <= 0.0 {
        return u as f32;
    }
    if sum > 1.0 {
        from /= sum;
        to /= sum;
    }
    let a = 1.0 / (2.0 - (from + to));
    let s = if u < from {
        a / from * u * u
    } else if to > 0.0 && u >= 1.0 - to {
        1.0 - a / to * (1.0 - u) * (1.0 - u)
    } else {
        (2.0 * u - from) * a
    };
    s.clamp(0.0, 1.0) as f32
}

impl Track<Vec3> {
    /// The track's value at `frame`, or `None` when it has no keys.
    pub fn sample(&self, frame: f32) -> Option<Vec3> {
        let keys = &self.keys;
        match locate(self, frame) {
            Spot::First => keys.first().map(|k| k.value),
            Spot::Last => keys.last().map(|k| k.value),
            Spot::Between { index, u } => {
                let (prev, next) = neighbours(self, index);
                let (k0, k1) = (keys.get(index - 1)?, keys.get(index)?);
                let beside0 = Beside {
                    index: index - 1,
                    frame: f64::from(k0.frame),
                };
                let beside1 = Beside {
                    index,
                    frame: f64::from(k1.frame),
                };
                let (out0, _) = self.tangents(prev, beside0, Some(beside1))?;
                let (_, in1) = self.tangents(Some(beside0), beside1, next)?;
                let u = ease(u, k0.spline.ease_from, k1.spline.ease_to);
                let (u2, u3) = (u * u, u * u * u);
                let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
                let h01 = -2.0 * u3 + 3.0 * u2;
                let h10 = u3 - 2.0 * u2 + u;
                let h11 = u3 - u2;
                Some(h00 * k0.value + h01 * k1.value + h10 * out0 + h11 * in1)
            }
        }
    }

    /// The outgoing (`dd`) and incoming (`ds`) tangents of key `c`.
    fn tangents(&self, p: Option<Beside>, c: Beside, n: Option<Beside>) -> Option<(Vec3, Vec3)> {
        let value = |b: Beside| self.keys.get(b.index).map(|k| k.value);
        let key: &Key<Vec3> = self.keys.get(c.index)?;
        let cv = key.value;
        let w = weights(p.map(|b| b.frame), c.frame, n.map(|b| b.frame), &key.spline);
        let dm = p.and_then(value).map(|pv| cv - pv);
        let dp = n.and_then(value).map(|nv| nv - cv);
        let (dm, dp) = match (dm, dp) {
            (Some(m), Some(p)) => (m, p),
            (Some(m), None) => (m, m),
            (None, Some(p)) => (p, p),
            (None, None) => (Vec3::ZERO, Vec3::ZERO),
        };
        let outgoing = w.kdm * dm + w.kdp * dp;
        let incoming = w.ksm * dm + w.ksp * dp;
        Some((outgoing, incoming))
    }
}

impl RotationTrack {
    /// The orientation at `frame` (no turn when the track has no keys).
    pub fn sample(&self, frame: f32) -> Quat {
        let keys = &self.track.keys;
        match locate(&self.track, frame) {
            Spot::First => self.absolute.first().copied().unwrap_or(Quat::IDENTITY),
            Spot::Last => self.absolute.last().copied().unwrap_or(Quat::IDENTITY),
            Spot::Between { index, u } => {
                let (prev, next) = neighbours(&self.track, index);
                let (Some(k0), Some(k1)) = (keys.get(index - 1), keys.get(index)) else {
                    return Quat::IDENTITY;
                };
                let q0 = self.orientation(index - 1);
                let q1 = self.orientation(index);
                // SMOOTH's wrapped neighbours: the orientation at key n − 2
                // before the first key; key 1's turn after the last.
                let qp = prev.map(|b| (b.frame, self.orientation(b.index)));
                let qn = next.map(|b| {
                    let q = if b.index == index + 1 {
                        self.orientation(b.index)
                    } else {
                        let turn = keys.get(b.index).map_or(Quat::IDENTITY, |k| k.value);
                        (turn * q1).normalize()
                    };
                    (b.frame, q)
                });
                let (f0, f1) = (f64::from(k0.frame), f64::from(k1.frame));
                let (a0, _) = quat_tangents(qp, (f0, q0), Some((f1, q1)), &k0.spline);
                let (_, b1) = quat_tangents(Some((f0, q0)), (f1, q1), qn, &k1.spline);
                let u = ease(u, k0.spline.ease_from, k1.spline.ease_to);
                squad(q0, a0, b1, q1, u)
            }
        }
    }

    fn orientation(&self, index: usize) -> Quat {
        self.absolute.get(index).copied().unwrap_or(Quat::IDENTITY)
    }
}

impl Track<()> {
    /// How many hide keys have toggled the node by `frame` (REPEAT wraps
    /// the frame first).
    pub fn toggles_at(&self, frame: f32) -> usize {
        let nt = track_time(self, frame);
        self.keys.partition_point(|k| f64::from(k.frame) <= nt)
    }
}

/// The leaving (`a`) and arriving (`b`) squad control points of the key
/// with orientation `c`.
fn quat_tangents(
    p: Option<(f64, Quat)>,
    c: (f64, Quat),
    n: Option<(f64, Quat)>,
    spline: &Spline,
) -> (Quat, Quat) {
    let (fc, qc) = c;
    let toward = |q: Quat| if q.dot(qc) < 0.0 { -q } else { q };
    let qm = p.map(|(_, q)| ln(toward(q).conjugate() * qc));
    let qp = n.map(|(_, q)| ln(qc.conjugate() * toward(q)));
    let (qm, qp) = match (qm, qp) {
        (Some(m), Some(p)) => (m, p),
        (Some(m), None) => (m, m),
        (None, Some(p)) => (p, p),
        (None, None) => (Vec3::ZERO, Vec3::ZERO),
    };
    let w = weights(p.map(|x| x.0), fc, n.map(|x| x.0), spline);
    let qa = 0.5 * (w.kdm * qm + (w.kdp - 1.0) * qp);
    let qb = 0.5 * ((1.0 - w.ksm) * qm - w.ksp * qp);
    ((qc * exp(qa)).normalize(), (qc * exp(qb)).normalize())
}

/// The logarithm of a unit quaternion: its axis times its half-angle.
pub fn ln(q: Quat) -> Vec3 {
    let v = Vec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s < TINY {
        return Vec3::ZERO;
    }
    v * (s.atan2(q.w) / s)
}

/// The unit quaternion whose logarithm is `v`.
pub fn exp(v: Vec3) -> Quat {
    let om = v.length();
    let k = if om < TINY { 1.0 } else { om.sin() / om };
    Quat::from_xyzw(v.x * k, v.y * k, v.z * k, om.cos())
}

/// Spherical interpolation on the short arc (`b` negated when it is more
/// than a quarter turn of the 4D sphere away), exact (`acos`, not an
/// approximation) so hand-worked values hold.
pub fn slerp(a: Quat, b: Quat, t: f32) -> Quat {
    let mut dot = a.dot(b);
    let b = if dot < 0.0 {
        dot = -dot;
        -b
    } else {
        b
    };
    let dot = dot.min(1.0);
    let om = dot.acos();
    let sin_om = om.sin();
    let (sa, sb) = if sin_om > TINY {
        (((1.0 - t) * om).sin() / sin_om, (t * om).sin() / sin_om)
    } else {
        (1.0 - t, t)
    };
    (a * sa + b * sb).normalize()
}

/// Shoemake's spherical quadrangle through `p0` and `p1` with control
/// points `a` (leaving `p0`) and `b` (arriving at `p1`).
pub fn squad(p0: Quat, a: Quat, b: Quat, p1: Quat, u: f32) -> Quat {
    slerp(slerp(p0, p1, u), slerp(a, b, u), 2.0 * u * (1.0 - u))
}
