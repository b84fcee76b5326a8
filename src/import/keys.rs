//! One node's local transforms, sampled at every tick, as schema 4
//! `position`, `rotation` and `scale` tracks with the fewest keys that
//! stay close: what every importer that resamples motion ends in.
//!
//! # The model
//! Every sample is first turned into the key it would be written as, and
//! that key read back the way the runtime reads it: a position or scale
//! key is the sample rounded to 10⁻⁶; a rotation key is the sample's XYZ
//! Euler degrees rounded to 10⁻⁴°, which reads back as a quaternion that
//! is the same turn but may be the sample's *negation* (a half turn about
//! Y is written `[180, 0, 180]`, read back as `−q`). Thinning is then
//! judged on those read-back keys, never on the source values: a key is
//! dropped while the interpolation between the read-back keys kept around
//! it (a lerp for vectors; for rotations the runtime's shortest-arc slerp,
//! [`crate::anim::slerp`]) stays within the tolerance of every source
//! sample, so what was checked is exactly what plays.
//!
//! # Half turns
//! A slerp whose ends are about half a turn apart may go either way: which
//! way hangs on the sign of a dot product near 0, which the rounding of
//! the written keys decides. So no rotation segment whose read-back ends
//! are [`MAX_SEGMENT_TURN_DEGREES`] (179°) or more apart is ever kept; the
//! thinning keeps a key between them instead, and every kept segment then
//! turns at most 179°, a way no rounding can reverse. The one exception is
//! two neighbouring ticks ≥ 179° apart: there is no sample between them
//! to key, and each tick plays its own key exactly.
//!
//! A channel that stays within the tolerance of the node's rest on every
//! tick gets no track; one that holds still elsewhere gets one key. The
//! `.anim` clip writer (`emoted convert --to anim`) thins its quaternion
//! keys through [`kept_rotations`] and its offsets through
//! [`vector_keys`], with the same guarantees.

use glam::{Affine3A, Quat, Vec3};
use serde_json::{json, Map, Value};

use super::Note;
use crate::anim::thin::kept_indices;
use crate::anim::{euler_degrees_from_quat, quat_from_euler_degrees, slerp};

/// How far a position track may stray from a sampled tick: 0.01 block.
pub const POSITION_TOLERANCE_BLOCKS: f32 = 0.01;
/// How far a rotation track may stray from a sampled tick: 0.5°.
pub const ROTATION_TOLERANCE_RADIANS: f32 = 0.5 * std::f32::consts::PI / 180.0;
/// How far a scale track may stray from a sampled tick: 0.01 of the
/// factor (a one-block part is then off by at most 0.01 block).
pub const SCALE_TOLERANCE: f32 = 0.01;
/// The widest turn, in degrees, between the two ends of a kept rotation
/// segment (see the module guide's "Half turns"): a segment this wide or
/// wider gets a key in between.
pub const MAX_SEGMENT_TURN_DEGREES: f32 = 179.0;

/// A local transform taken apart: blocks, a unit quaternion, factors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Blocks, in the parent's frame.
    pub position: Vec3,
    /// A unit quaternion.
    pub rotation: Quat,
    /// Factors along the node's own axes.
    pub scale: Vec3,
}

impl Sample {
    /// `affine` taken apart (its rotation normalised when finite).
    pub fn of(affine: &Affine3A) -> Sample {
        let (scale, rotation, position) = affine.to_scale_rotation_translation();
        let rotation = if rotation.is_finite() {
            rotation.normalize()
        } else {
            rotation
        };
        Sample {
            position,
            rotation,
            scale,
        }
    }

    /// `T(position) · R(rotation) · S(scale)`.
    pub fn affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.position)
    }
}

/// How far each channel may stray, in the node's local units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerances {
    /// Position, in local blocks.
    pub position: f32,
    /// Rotation, radians.
    pub rotation: f32,
    /// Scale, factor.
    pub scale: f32,
}

impl Tolerances {
    /// The importers' tolerances: 0.01 block, 0.5°, 0.01.
    pub const DEFAULT: Tolerances = Tolerances {
        position: POSITION_TOLERANCE_BLOCKS,
        rotation: ROTATION_TOLERANCE_RADIANS,
        scale: SCALE_TOLERANCE,
    };

    /// The player's body (`import::humanoid`): rotations within 0.25°.
    /// A body emote reaches modded viewers through a second thinning, the
    /// STREAM writer's, within 0.2°
    /// ([`crate::modded::emotecraft::bones::ANGLE_TOLERANCE_RADIANS`]), so
    /// an imported body stays within 0.5° of its source end to end. The
    /// body has six joints: the extra keys cost little.
    pub const BODY: Tolerances = Tolerances {
        rotation: ROTATION_TOLERANCE_RADIANS / 2.0,
        ..Tolerances::DEFAULT
    };
}

/// The tracks of node `node` (any of `position`, `rotation`, `scale` may be
/// absent) for `samples`, one per tick, against the node's `rest` (its
/// `transform`), and what those tracks play at each tick (from the keys as
/// written); a note for each track written.
pub fn node_tracks(
    node: &str,
    samples: &[Sample],
    rest: Sample,
    tolerances: Tolerances,
    notes: &mut Vec<Note>,
) -> (Map<String, Value>, Vec<Sample>) {
    let mut channels = Map::new();
    let mut played = vec![rest; samples.len()];
    let positions: Vec<Vec3> = samples.iter().map(|s| s.position).collect();
    if moves(&positions, rest.position, tolerances.position) {
        let written = vector_keys(&positions, tolerances.position);
        let plays = play(&as_vec3(&written), samples.len(), rest.position, Vec3::lerp);
        for (slot, value) in played.iter_mut().zip(plays) {
            slot.position = value;
        }
        note(notes, node, "position", written.len(), "0.01 block");
        channels.insert("position".to_owned(), keys(&written));
    }
    let rotations: Vec<Quat> = samples.iter().map(|s| s.rotation).collect();
    let turns = rotations
        .iter()
        .any(|q| !q.is_finite() || q.angle_between(rest.rotation) > tolerances.rotation);
    if turns {
        // Every sample as it would be written, and as that reads back.
        let euler: Vec<[f64; 3]> = rotations
            .iter()
            .map(|q| round(euler_degrees_from_quat(*q), 1e4))
            .collect();
        let read_back: Vec<Quat> = euler
            .iter()
            .map(|v| quat_from_euler_degrees(vec3(v)))
            .collect();
        let kept = kept_rotations(&rotations, &read_back, tolerances.rotation);
        let values = pick(&kept, &euler);
        let plays = play(
            &pick(&kept, &read_back),
            samples.len(),
            rest.rotation,
            slerp,
        );
        for (slot, value) in played.iter_mut().zip(plays) {
            slot.rotation = value;
        }
        note(notes, node, "rotation", values.len(), "0.5°");
        channels.insert("rotation".to_owned(), keys(&values));
    }
    let scales: Vec<Vec3> = samples.iter().map(|s| s.scale).collect();
    if moves(&scales, rest.scale, tolerances.scale) {
        let written = vector_keys(&scales, tolerances.scale);
        let plays = play(&as_vec3(&written), samples.len(), rest.scale, Vec3::lerp);
        for (slot, value) in played.iter_mut().zip(plays) {
            slot.scale = value;
        }
        note(notes, node, "scale", written.len(), "0.01");
        channels.insert("scale".to_owned(), keys(&written));
    }
    (channels, played)
}

/// The samples to keep of a rotation channel, judged on what plays:
/// `read_back[i]` is sample `i`'s key as the runtime reads it back (the
/// same turn as `values[i]`, perhaps negated, rounded). A segment between
/// kept keys `a` and `b` is kept only when the runtime's slerp from
/// `read_back[a]` to `read_back[b]` stays within `tolerance` radians of
/// every sample from `a` to `b` (`values`, the ends included) and its
/// ends are less than [`MAX_SEGMENT_TURN_DEGREES`] apart
/// ([`kept_indices`]; two neighbouring ticks are always a segment).
pub fn kept_rotations(values: &[Quat], read_back: &[Quat], tolerance: f32) -> Vec<usize> {
    let widest = MAX_SEGMENT_TURN_DEGREES.to_radians();
    thin(
        values.len(),
        |a, b| match (read_back.get(a), read_back.get(b)) {
            (Some(from), Some(to)) => from.angle_between(*to) < widest,
            _ => false,
        },
        |a, b, t, i| match (read_back.get(a), read_back.get(b), values.get(i)) {
            (Some(&from), Some(&to), Some(&sample)) => {
                slerp(from, to, t).angle_between(sample) <= tolerance
            }
            _ => false,
        },
    )
}

/// The samples to keep of a vector channel, judged on what plays:
/// `read_back[i]` is sample `i`'s key as written and read back (rounded).
/// A segment between kept keys is kept when the lerp between their
/// read-back values stays within `tolerance` of every sample (`values`,
/// the ends included) ([`kept_indices`]).
pub fn kept_vectors(values: &[Vec3], read_back: &[Vec3], tolerance: f32) -> Vec<usize> {
    thin(
        values.len(),
        |_, _| true,
        |a, b, t, i| match (read_back.get(a), read_back.get(b), values.get(i)) {
            (Some(from), Some(&to), Some(&sample)) => {
                from.lerp(to, t).distance(sample) <= tolerance
            }
            _ => false,
        },
    )
}

/// `v`'s components rounded to `1 / scale`, as JSON numbers (`-0` is
/// written `0`).
pub fn round(v: Vec3, scale: f64) -> [f64; 3] {
    let r = |x: f32| (f64::from(x) * scale).round() / scale + 0.0;
    [r(v.x), r(v.y), r(v.z)]
}

/// Whether any value is not finite or further than `tolerance` from
/// `rest` (within it on every tick, the rest itself plays close enough).
fn moves(values: &[Vec3], rest: Vec3, tolerance: f32) -> bool {
    values
        .iter()
        .any(|v| !v.is_finite() || v.distance(rest) > tolerance)
}

/// The keys of a lerped vector channel (`values`, one a tick) thinned
/// within `tolerance` ([`kept_vectors`], judged on the values as written):
/// (tick, the value rounded to 10⁻⁶ as written).
pub fn vector_keys(values: &[Vec3], tolerance: f32) -> Vec<(usize, [f64; 3])> {
    let rounded: Vec<[f64; 3]> = values.iter().map(|v| round(*v, 1e6)).collect();
    let read_back: Vec<Vec3> = rounded.iter().map(vec3).collect();
    pick(&kept_vectors(values, &read_back, tolerance), &rounded)
}

/// The entries `kept` of `all`, each with its index.
fn pick<T: Copy>(kept: &[usize], all: &[T]) -> Vec<(usize, T)> {
    kept.iter()
        .filter_map(|&k| all.get(k).map(|v| (k, *v)))
        .collect()
}

/// What keys `written` (tick, value) play over `count` ticks: `mix`
/// between two keys, the last key's value after it, `rest` where no key
/// reaches (never, for a track whose first key is at tick 0).
fn play<T: Copy>(
    written: &[(usize, T)],
    count: usize,
    rest: T,
    mix: impl Fn(T, T, f32) -> T,
) -> Vec<T> {
    let mut out = vec![rest; count];
    for pair in written.windows(2) {
        let [(a, from), (b, to)] = [pair[0], pair[1]];
        let span = (b - a) as f32;
        for (t, slot) in out.iter_mut().enumerate().take(b).skip(a) {
            *slot = mix(from, to, (t - a) as f32 / span);
        }
    }
    if let Some(&(last, value)) = written.last() {
        for slot in out.iter_mut().skip(last) {
            *slot = value;
        }
    }
    out
}

/// Written keys as the runtime reads them back.
fn as_vec3(written: &[(usize, [f64; 3])]) -> Vec<(usize, Vec3)> {
    written.iter().map(|(k, v)| (*k, vec3(v))).collect()
}

fn vec3(v: &[f64; 3]) -> Vec3 {
    Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
}

/// A track's keys: `{"time": "Nt", "value": [x, y, z]}` each.
fn keys(values: &[(usize, [f64; 3])]) -> Value {
    Value::Array(
        values
            .iter()
            .map(|(tick, value)| json!({"time": format!("{tick}t"), "value": value}))
            .collect(),
    )
}

/// The indices to keep of `count` samples: greedy ([`kept_indices`]),
/// a segment from kept `a` to kept `b` fitting when `may_span(a, b)` and
/// `close(a, b, t, i)` for every sample `i` from `a` to `b`, the ends
/// included: whether the interpolation from `a`'s key to `b`'s at
/// fraction `t` is close enough to sample `i`. A channel whose first key
/// is close to every sample keeps only that one.
fn thin(
    count: usize,
    may_span: impl Fn(usize, usize) -> bool,
    close: impl Fn(usize, usize, f32, usize) -> bool,
) -> Vec<usize> {
    if count > 0 && (0..count).all(|i| close(0, 0, 0.0, i)) {
        return vec![0];
    }
    kept_indices(count, |a, b| {
        let span = (b - a) as f32;
        may_span(a, b) && (a..=b).all(|i| close(a, b, (i - a) as f32 / span, i))
    })
}

/// The note for one resampled channel of `node`, kept to `keys` keys.
fn note(notes: &mut Vec<Note>, node: &str, channel: &str, keys: usize, tolerance: &str) {
    let plural = if keys == 1 { "" } else { "s" };
    notes.push(Note::new(
        format!("/timeline/tracks/{node}/{channel}"),
        format!(
            "resampled at every tick and thinned to {keys} linear key{plural} within {tolerance}"
        ),
    ));
}
