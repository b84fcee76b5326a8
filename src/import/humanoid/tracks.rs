//! One anchor's local transforms, sampled at every tick, as schema 4
//! position and rotation tracks with the fewest keys that stay close.
//!
//! A position key is the sample itself (blocks, rounded to 10⁻⁶); keys are
//! lerped, so a key is dropped while the straight line between the keys
//! kept around it stays within [`POSITION_TOLERANCE_BLOCKS`] of every
//! sample. A rotation key is the sample's XYZ Euler degrees (rounded to
//! 10⁻⁴°); keys are slerped the short way, as the runtime does
//! ([`crate::anim::slerp`]), so a key is dropped while that slerp stays
//! within [`ROTATION_TOLERANCE_RADIANS`] of every sample. The runtime's
//! slerp never turns more than half a turn in one segment, and neither
//! does the check, so the kept keys play what was checked. A channel that
//! never leaves the anchor's rest gets no track; one that holds still
//! elsewhere gets one key.

use glam::{Affine3A, Quat, Vec3};
use serde_json::{json, Map, Value};

use super::Note;
use crate::anim::thin::kept_indices;
use crate::anim::{euler_degrees_from_quat, quat_from_euler_degrees, slerp};

/// How far a position track may stray from a sampled tick: 0.01 block.
pub const POSITION_TOLERANCE_BLOCKS: f32 = 0.01;
/// How far a rotation track may stray from a sampled tick: 0.5°.
pub const ROTATION_TOLERANCE_RADIANS: f32 = 0.5 * std::f32::consts::PI / 180.0;
/// Closer than this to the rest on every tick is "at rest" (no track).
const AT_REST_BLOCKS: f32 = 1e-5;
const AT_REST_RADIANS: f32 = 1e-5;

/// The `position` and `rotation` tracks of `anchor` (either may be absent)
/// for `samples`, one per tick, and the local transform those tracks play
/// at each tick (from the keys as written); a note for each track written.
pub(super) fn anchor_tracks(
    anchor: &str,
    samples: &[Affine3A],
    rest_position: Vec3,
    rest_rotation: Quat,
    notes: &mut Vec<Note>,
) -> (Map<String, Value>, Vec<Affine3A>) {
    let mut positions = Vec::with_capacity(samples.len());
    let mut rotations = Vec::with_capacity(samples.len());
    for sample in samples {
        let (_, rotation, position) = sample.to_scale_rotation_translation();
        positions.push(position);
        rotations.push(if rotation.is_finite() {
            rotation.normalize()
        } else {
            rotation
        });
    }
    let mut channels = Map::new();
    let mut played_positions = vec![rest_position; samples.len()];
    let mut played_rotations = vec![rest_rotation; samples.len()];
    let moves_from_rest = positions
        .iter()
        .any(|p| !p.is_finite() || p.distance(rest_position) > AT_REST_BLOCKS);
    if moves_from_rest {
        let kept = thin(&positions, |a, b, t, i| {
            a.lerp(b, t).distance(i) <= POSITION_TOLERANCE_BLOCKS
        });
        let values: Vec<(usize, [f64; 3])> = kept
            .iter()
            .filter_map(|&k| positions.get(k).map(|p| (k, round(*p, 1e6))))
            .collect();
        let written: Vec<(usize, Vec3)> = values.iter().map(|(k, v)| (*k, vec3(v))).collect();
        play(&written, &mut played_positions, |a, b, t| a.lerp(b, t));
        note(notes, anchor, "position", values.len());
        channels.insert("position".to_owned(), keys(&values));
    }
    let turns_from_rest = rotations
        .iter()
        .any(|q| !q.is_finite() || q.angle_between(rest_rotation) > AT_REST_RADIANS);
    if turns_from_rest {
        let kept = thin(&rotations, |a, b, t, i| {
            slerp(a, b, t).angle_between(i) <= ROTATION_TOLERANCE_RADIANS
        });
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
        play(&written, &mut played_rotations, slerp);
        note(notes, anchor, "rotation", values.len());
        channels.insert("rotation".to_owned(), keys(&values));
    }
    let played = played_positions
        .into_iter()
        .zip(played_rotations)
        .map(|(p, q)| Affine3A::from_rotation_translation(q, p))
        .collect();
    (channels, played)
}

/// Fills `out` (one slot per tick) with what keys `written` (tick, value)
/// play: `mix` between two keys, the last key's value after it.
fn play<T: Copy>(written: &[(usize, T)], out: &mut [T], mix: impl Fn(T, T, f32) -> T) {
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

/// `v`'s components rounded to `1 / scale`, as JSON numbers.
fn round(v: Vec3, scale: f64) -> [f64; 3] {
    let r = |x: f32| (f64::from(x) * scale).round() / scale;
    [r(v.x), r(v.y), r(v.z)]
}

/// The note for one resampled channel of `anchor`, kept to `keys` keys.
fn note(notes: &mut Vec<Note>, anchor: &str, channel: &str, keys: usize) {
    let tolerance = if channel == "position" {
        "0.01 block"
    } else {
        "0.5°"
    };
    notes.push(Note::new(
        format!("/timeline/tracks/{anchor}/{channel}"),
        format!("resampled at every tick and thinned to {keys} linear keys within {tolerance}"),
    ));
}
