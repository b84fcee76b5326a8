//! Thinning judged on what plays: the tracks [`node_tracks`] writes, read
//! back by the format reader and sampled by the runtime's own rotation
//! track ([`VectorTrack::sample_rotation`]), stay within the tolerance of
//! every sample, half turns included.

use std::f32::consts::{FRAC_1_SQRT_2, PI};

use glam::{Quat, Vec3};
use proptest::prelude::*;
use serde_json::Value;

use super::keys::{node_tracks, Sample, Tolerances, MAX_SEGMENT_TURN_DEGREES};
use crate::anim::slerp;
use crate::anim::track::{CompiledKey, NoExprs, Scalar, VectorChannel, VectorTrack};
use crate::format::problem::Problems;
use crate::format::track::{read_vector_track, Component, KeyValue, VectorValue};

/// A sample turned by `rotation`, at the origin, unscaled.
fn turned(rotation: Quat) -> Sample {
    Sample {
        position: Vec3::ZERO,
        rotation,
        scale: Vec3::ONE,
    }
}

/// A spin about Y the way a glTF LINEAR rotation channel plays it: keys
/// at 0°, 90°, 180°, 270° and 360°, `ticks_per_key` ticks apart, slerped
/// between. The half-turn key is `(0, 1, 0, 0)`, what exporters write, so
/// the sample there is exactly a half turn from the first.
fn quarter_key_spin(ticks_per_key: usize) -> Vec<Quat> {
    let s = FRAC_1_SQRT_2;
    let keys = [
        Quat::IDENTITY,
        Quat::from_xyzw(0.0, s, 0.0, s),
        Quat::from_xyzw(0.0, 1.0, 0.0, 0.0),
        Quat::from_xyzw(0.0, s, 0.0, -s),
        Quat::from_xyzw(0.0, 0.0, 0.0, -1.0),
    ];
    let mut out = Vec::new();
    for pair in keys.windows(2) {
        for tick in 0..ticks_per_key {
            out.push(slerp(pair[0], pair[1], tick as f32 / ticks_per_key as f32));
        }
    }
    out.extend(keys.last());
    out
}

/// The numbers of a written key value, as the format reader gives them.
fn constants(value: &VectorValue) -> [Scalar; 3] {
    value.clone().map(|c| match c {
        Component::Number(v) => Scalar::Constant(v),
        Component::Molang(m) => panic!("thinning writes numbers, not `{m}`"),
    })
}

/// A written rotation track read back by the format reader and played by
/// the runtime's rotation track at ticks `0..tick_count`.
fn runtime_plays(track: &Value, tick_count: usize) -> Vec<Quat> {
    let mut problems = Problems::new();
    let keys = read_vector_track(
        track,
        &"/rotation".to_owned(),
        &mut problems,
        "rotation",
        None,
    )
    .unwrap_or_else(|| panic!("{track} does not read back: {problems:?}"));
    let compiled: Vec<CompiledKey> = keys
        .iter()
        .map(|k| {
            let (incoming, outgoing) = match &k.value {
                KeyValue::Single(v) => (constants(v), constants(v)),
                KeyValue::Jump { pre, post } => (constants(pre), constants(post)),
            };
            CompiledKey {
                time_ticks: k.time_ticks as f32,
                incoming,
                outgoing,
                interpolation: k.interpolation,
                easing: k.easing,
            }
        })
        .collect();
    let played = VectorTrack::new(VectorChannel::Rotation, &compiled);
    let mut cursor = 0;
    (0..tick_count)
        .map(|t| played.sample_rotation(t as f32, &mut cursor, &mut NoExprs))
        .collect()
}

/// Thins `rotations` (one a tick, rest: no turn), plays the written
/// track, and asserts every tick is within the tolerance of its sample,
/// and that no two neighbouring keys read back 179° or more apart unless
/// they are one tick apart. Returns the worst gap in degrees and the keys.
fn assert_plays_within_tolerance(rotations: &[Quat], what: &str) -> (f32, Vec<Value>) {
    let samples: Vec<Sample> = rotations.iter().map(|&q| turned(q)).collect();
    let mut notes = Vec::new();
    let (channels, played) = node_tracks(
        "spinner",
        &samples,
        turned(Quat::IDENTITY),
        Tolerances::DEFAULT,
        &mut notes,
    );
    let Some(track) = channels.get("rotation") else {
        // Nothing turns: every sample is within the tolerance of the rest.
        let worst = rotations
            .iter()
            .map(|q| q.angle_between(Quat::IDENTITY).to_degrees())
            .fold(0.0, f32::max);
        assert!(worst <= 0.5, "{what}: no track, but a turn of {worst}°");
        return (worst, Vec::new());
    };
    let plays = runtime_plays(track, rotations.len());
    let mut worst = 0.0f32;
    for (tick, ((want, got), reported)) in rotations.iter().zip(&plays).zip(&played).enumerate() {
        let gap = want.angle_between(*got).to_degrees();
        worst = worst.max(gap);
        assert!(
            gap <= 0.501,
            "{what}: tick {tick} plays {gap}° from its sample ({track})"
        );
        // What `node_tracks` says it plays is what the runtime plays (as
        // quaternions, `q` and `−q` the same turn: an angle from `acos`
        // near 1 is only good to about 0.04° in `f32`).
        let said = reported.rotation;
        assert!(
            said.abs_diff_eq(*got, 1e-5) || said.abs_diff_eq(-*got, 1e-5),
            "{what}: tick {tick} reported {said}, plays {got}"
        );
    }
    let keys = track.as_array().cloned().unwrap_or_default();
    let read_back: Vec<(f64, Quat)> = keys
        .iter()
        .map(|key| {
            let tick = key["time"]
                .as_str()
                .and_then(|t| t.trim_end_matches('t').parse().ok())
                .expect("a tick time");
            let v: Vec<f32> = key["value"]
                .as_array()
                .expect("a value")
                .iter()
                .filter_map(Value::as_f64)
                .map(|x| x as f32)
                .collect();
            let q = crate::anim::quat_from_euler_degrees(Vec3::new(v[0], v[1], v[2]));
            (tick, q)
        })
        .collect();
    assert_no_wide_segment(&read_back, &format!("{what} ({track})"));
    (worst, keys)
}

/// Asserts that no two neighbouring keys, `(tick, rotation as read
/// back)`, more than a tick apart turn [`MAX_SEGMENT_TURN_DEGREES`] or
/// more: the guarantee of every thinned rotation track and clip channel.
pub(crate) fn assert_no_wide_segment(keys: &[(f64, Quat)], what: &str) {
    for pair in keys.windows(2) {
        let ((a, from), (b, to)) = (pair[0], pair[1]);
        let turn = from.angle_between(to).to_degrees();
        assert!(
            turn < MAX_SEGMENT_TURN_DEGREES || b - a <= 1.0,
            "{what}: the segment {a}t → {b}t turns {turn}°"
        );
    }
}

#[test]
fn a_spin_in_quarter_keys_plays_the_same_way_at_every_tick() {
    // 360° in four 90° keys, 5 ticks apart (one second): the half-turn
    // sample at tick 10 is written [180, 0, 180], which reads back as the
    // sample's negation; a 0t → 10t segment would then turn the wrong way.
    let spin = quarter_key_spin(5);
    let (_, keys) = assert_plays_within_tolerance(&spin, "a one-second spin");
    assert!(keys.len() >= 4, "{keys:?}");
    // The same spin at other speeds, and backwards.
    for ticks_per_key in [1, 2, 3, 4, 6, 10, 20] {
        let spin = quarter_key_spin(ticks_per_key);
        assert_plays_within_tolerance(&spin, &format!("{ticks_per_key} ticks a key"));
        let back: Vec<Quat> = spin.iter().map(|q| q.inverse()).collect();
        assert_plays_within_tolerance(&back, &format!("backwards, {ticks_per_key} ticks a key"));
    }
}

#[test]
fn a_steady_turn_keeps_no_segment_of_a_half_turn_or_more() {
    // 18° a tick about Y for two turns: keys at most 179° apart, so about
    // one every 9 ticks, and not fewer than 40 / 9.
    let rotations: Vec<Quat> = (0..=40)
        .map(|t| Quat::from_rotation_y((18.0 * t as f32).to_radians()))
        .collect();
    let (_, keys) = assert_plays_within_tolerance(&rotations, "two turns");
    assert!(keys.len() >= 6, "{} keys: {keys:?}", keys.len());
    // About a tilted axis too, where the Euler angles are all non-zero.
    let axis = Vec3::new(0.3, 1.0, -0.5).normalize();
    let rotations: Vec<Quat> = (0..=40)
        .map(|t| Quat::from_axis_angle(axis, (18.0 * t as f32).to_radians()))
        .collect();
    assert_plays_within_tolerance(&rotations, "two turns about a tilted axis");
}

/// One step of a random rotation sequence: a turn about an axis.
fn step() -> impl Strategy<Value = (Vec3, f32, usize)> {
    (
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
        prop_oneof![-190.0f32..190.0, Just(180.0), Just(-180.0), Just(90.0)],
        1usize..12,
    )
        .prop_map(|((x, y, z), degrees, ticks)| {
            let axis = Vec3::new(x, y, z);
            let axis = if axis.length() > 1e-3 {
                axis.normalize()
            } else {
                Vec3::Y
            };
            (axis, degrees, ticks)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random motion, one sample a tick: each step turns up to 190°
    /// about a random axis (half turns exactly, often) over 1 to 11
    /// ticks, at a steady rate. Thinned, written, read back and played by
    /// the runtime, every tick stays within 0.5° of its sample, and no
    /// kept segment spans 179° or more (but one of a single tick).
    #[test]
    fn thinned_rotations_play_within_the_tolerance_at_every_tick(
        start in (-PI..PI, -PI..PI, -PI..PI),
        steps in proptest::collection::vec(step(), 1..8),
    ) {
        let mut rotation = Quat::from_euler(glam::EulerRot::XYZ, start.0, start.1, start.2);
        let mut rotations = vec![rotation];
        for (axis, degrees, ticks) in steps {
            let per_tick = Quat::from_axis_angle(axis, degrees.to_radians() / ticks as f32);
            for _ in 0..ticks {
                rotation = (per_tick * rotation).normalize();
                rotations.push(rotation);
            }
        }
        assert_plays_within_tolerance(&rotations, "random motion");
    }
}
