//! One node's local transforms, sampled at every tick, as schema 4
//! `position`, `rotation` and `scale` tracks with the fewest keys that
//! stay close: what every importer that resamples motion ends in.
//!
//! A position or scale key is the sample itself (rounded to 10⁻⁶); keys
//! are lerped, so a key is dropped while the straight line between the
//! keys kept around it stays within the tolerance of every sample. A
//! rotation key is the sample's XYZ Euler degrees (rounded to 10⁻⁴°);
//! keys are slerped the short way, as the runtime does
//! ([`crate::anim::slerp`]), so a key is dropped while that slerp stays
//! within the rotation tolerance of every sample. The runtime's slerp
//! never turns more than half a turn in one segment, and neither does the
//! check, so the kept keys play what was checked. A channel that stays
//! within the tolerance of the node's rest on every tick gets no track;
//! one that holds still elsewhere gets one key.

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
        let written = vector_track(&positions, tolerances.position);
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
        let kept = kept_rotations(&rotations, tolerances.rotation);
        let values: Vec<(usize, [f64; 3])> = kept
            .iter()
            .filter_map(|&k| {
                rotations
                    .get(k)
                    .map(|q| (k, round(euler_degrees_from_quat(*q), 1e4)))
            })
            .collect();
        let written: Vec<(usize, Quat)> = values
            .iter()
            .map(|(k, v)| (*k, quat_from_euler_degrees(vec3(v))))
            .collect();
        let plays = play(&written, samples.len(), rest.rotation, slerp);
        for (slot, value) in played.iter_mut().zip(plays) {
            slot.rotation = value;
        }
        note(notes, node, "rotation", values.len(), "0.5°");
        channels.insert("rotation".to_owned(), keys(&values));
    }
    let scales: Vec<Vec3> = samples.iter().map(|s| s.scale).collect();
    if moves(&scales, rest.scale, tolerances.scale) {
        let written = vector_track(&scales, tolerances.scale);
        let plays = play(&as_vec3(&written), samples.len(), rest.scale, Vec3::lerp);
        for (slot, value) in played.iter_mut().zip(plays) {
            slot.scale = value;
        }
        note(notes, node, "scale", written.len(), "0.01");
        channels.insert("scale".to_owned(), keys(&written));
    }
    (channels, played)
}

/// The samples to keep of a rotation channel slerped between kept keys,
/// within `tolerance` radians of every sample ([`kept_indices`]).
pub fn kept_rotations(values: &[Quat], tolerance: f32) -> Vec<usize> {
    thin(values, |a, b, t, i| {
        slerp(a, b, t).angle_between(i) <= tolerance
    })
}

/// The samples to keep of a vector channel lerped between kept keys,
/// within `tolerance` of every sample ([`kept_indices`]).
pub fn kept_vectors(values: &[Vec3], tolerance: f32) -> Vec<usize> {
    thin(values, |a, b, t, i| a.lerp(b, t).distance(i) <= tolerance)
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

/// The kept keys of a lerped vector channel, as (tick, rounded value).
fn vector_track(values: &[Vec3], tolerance: f32) -> Vec<(usize, [f64; 3])> {
    kept_vectors(values, tolerance)
        .iter()
        .filter_map(|&k| values.get(k).map(|v| (k, round(*v, 1e6))))
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

/// The indices to keep of `values`: greedy ([`kept_indices`]) with
/// `close(a, b, t, sample)` telling whether the interpolation from `a` to
/// `b` at fraction `t` is close enough to the sample there; a channel
/// close to its first sample everywhere keeps only that one.
fn thin<T: Copy>(values: &[T], close: impl Fn(T, T, f32, T) -> bool) -> Vec<usize> {
    let fits = |a: usize, b: usize| {
        let (Some(&from), Some(&to)) = (values.get(a), values.get(b)) else {
            return false;
        };
        let span = (b - a) as f32;
        (a + 1..b).all(|i| {
            values
                .get(i)
                .is_some_and(|&v| close(from, to, (i - a) as f32 / span, v))
        })
    };
    if let Some(&first) = values.first() {
        if values.iter().all(|&v| close(first, first, 0.0, v)) {
            return vec![0];
        }
    }
    kept_indices(values.len(), fits)
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
