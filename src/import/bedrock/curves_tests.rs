//! Each interpolation at hand-worked values (import-notes.md §1), at
//! keys, just before and after them, before the first and after the last.

use super::*;

const N: fn(f64) -> Scalar = Scalar::Number;

fn point(x: f64) -> Point {
    [N(x), N(x * 2.0), N(-x)]
}

fn key(time_secs: f64, x: f64, interpolation: Interpolation) -> Key {
    Key::new(time_secs, point(x), interpolation)
}

fn x_at(channel: &Channel, t: f64, looping: bool) -> f64 {
    channel
        .sample(t, looping, &mut NumbersOnly)
        .expect("has keys")[0]
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

// Keys:   0 ────────── 1 s
//         0            10     (linear)
#[test]
fn linear_lerps_each_axis_and_holds_outside_the_keys() {
    let c = Channel::new(vec![
        key(0.0, 0.0, Interpolation::Linear),
        key(1.0, 10.0, Interpolation::Linear),
    ]);
    let v = c.sample(0.25, false, &mut NumbersOnly).expect("keys");
    // a + (b − a)·α per axis: 0 + 10·0.25, 0 + 20·0.25, 0 − 10·0.25.
    close(v[0], 2.5);
    close(v[1], 5.0);
    close(v[2], -2.5);
    close(x_at(&c, -1.0, false), 0.0);
    close(x_at(&c, 1.0 - 0.01, false), 9.9);
    close(x_at(&c, 1.0, false), 10.0);
    close(x_at(&c, 1.5, false), 10.0);
    assert!(Channel::default()
        .sample(0.5, false, &mut NumbersOnly)
        .is_none());
}

// Keys:   0 (step) ─── 1 s
//         0            10
#[test]
fn step_holds_the_post_value_until_the_next_key() {
    let c = Channel::new(vec![
        key(0.0, 0.0, Interpolation::Step),
        key(1.0, 10.0, Interpolation::Linear),
    ]);
    close(x_at(&c, 0.5, false), 0.0);
    close(x_at(&c, 0.999, false), 0.0);
    // Within 1/1200 s of a key is the key.
    close(x_at(&c, 1.0 - 0.0005, false), 10.0);
    close(x_at(&c, 1.0, false), 10.0);
}

// Keys:   0 ───── 1 s (pre 5, post 20) ───── 2 s
//         0                                  0
#[test]
fn pre_arrives_and_post_leaves() {
    let jump = Key {
        points: vec![point(5.0), point(20.0)],
        ..key(1.0, 0.0, Interpolation::Linear)
    };
    let c = Channel::new(vec![
        key(0.0, 0.0, Interpolation::Linear),
        jump,
        key(2.0, 0.0, Interpolation::Linear),
    ]);
    close(x_at(&c, 0.5, false), 2.5); // 0 → pre 5
    close(x_at(&c, 1.0, false), 5.0); // at the key: pre
    close(x_at(&c, 1.0 + 0.0005, false), 5.0); // within 1/1200 s: still the key
    close(x_at(&c, 1.5, false), 10.0); // post 20 → 0
                                       // Alone, a two-point key holds pre before it and post after it.
    let alone = Channel::new(vec![Key {
        points: vec![point(5.0), point(20.0)],
        ..key(1.0, 0.0, Interpolation::Linear)
    }]);
    close(x_at(&alone, 0.0, false), 5.0);
    close(x_at(&alone, 2.0, false), 20.0);
}

fn catmull_keys() -> Vec<Key> {
    [0.0, 10.0, 20.0, 0.0]
        .iter()
        .enumerate()
        .map(|(i, &x)| key(i as f64, x, Interpolation::CatmullRom))
        .collect()
}

// Keys:   0 ── 1 ── 2 ── 3 s
//         0    10   20   0    (catmullrom)
#[test]
fn catmull_rom_is_the_uniform_spline_over_the_neighbours() {
    let c = Channel::new(catmull_keys());
    // Middle span, α = 0.5: v0..v3 = 0, 10, 20, 0; m0 = 10, m1 = −5;
    // (2·10 − 2·20 + 10 − 5)/8 + (−30 + 60 − 20 + 5)/4 + 10/2 + 10 = 16.875.
    close(x_at(&c, 1.5, false), 16.875);
    // First span: no key before, so v0 = v1 = 0; v2 = 10, v3 = 20;
    // m0 = 5, m1 = 10: (−20 + 15)/8 + (30 − 20)/4 + 2.5 = 4.375.
    close(x_at(&c, 0.5, false), 4.375);
    // Looping with ≥ 3 keys, v0 is sorted[−2] = 20: m0 = −5, m1 = 10:
    // (−20 + 5)/8 + (30 + 10 − 10)/4 − 2.5 = 3.125.
    close(x_at(&c, 0.5, true), 3.125);
    // Last span, looping: v3 is sorted[1] = 10: v0..v3 = 10, 20, 0, 10;
    // m0 = −5, m1 = −5: (40 − 10)/8 + (−60 + 10 + 5)/4 − 2.5 + 20 = 10.
    close(x_at(&c, 2.5, true), 10.0);
    // At the keys the spline passes through them.
    close(x_at(&c, 2.0, false), 20.0);
}

#[test]
fn catmull_rom_leaves_out_the_neighbour_behind_a_jump() {
    let mut keys = catmull_keys();
    keys[1].points = vec![point(10.0), point(12.0)];
    let c = Channel::new(keys);
    // Span 1 → 2 at α = 0.5: before jumps, so v0 = v1 = 12; v2 = 20,
    // v3 = 0: m0 = 4, m1 = −6: (24 − 40 + 4 − 6)/8 + (−36 + 60 − 8 + 6)/4
    // + 2 + 12 = 17.25.
    close(x_at(&c, 1.5, false), 17.25);
}

#[test]
fn a_linear_key_into_a_catmull_rom_key_is_catmull_rom() {
    let mut keys = catmull_keys();
    keys[1].interpolation = Interpolation::Linear;
    let c = Channel::new(keys);
    close(x_at(&c, 1.5, false), 16.875);
    // Linear into step is linear.
    let c = Channel::new(vec![
        key(0.0, 0.0, Interpolation::Linear),
        key(1.0, 10.0, Interpolation::Step),
    ]);
    close(x_at(&c, 0.5, false), 5.0);
}

fn bezier_pair(right_time: f64, right_value: f64, left_time: f64, left_value: f64) -> Channel {
    let mut a = key(0.0, 0.0, Interpolation::Bezier);
    a.bezier.right_time_secs = [right_time; 3];
    a.bezier.right_value = [right_value; 3];
    let mut b = key(0.3, 10.0, Interpolation::Bezier);
    b.bezier.left_time_secs = [left_time; 3];
    b.bezier.left_value = [left_value; 3];
    Channel::new(vec![a, b])
}

// Keys:   0 ───── 0.3 s   (bezier)
//         0       10
#[test]
fn bezier_solves_the_curve_for_its_time() {
    // Handles at a third of the span: the curve's time is linear in its
    // parameter, so s = α = 0.5 and y = (0 + 3·5 + 3·10 + 10)/8 = 6.875.
    let c = bezier_pair(0.1, 5.0, -0.1, 0.0);
    close(x_at(&c, 0.15, false), 6.875);
    close(x_at(&c, 0.0, false), 0.0);
    close(x_at(&c, 0.3, false), 10.0);
    // A handle longer than the span is clamped into it (0.3 s), giving the
    // control points (0, 0), (0.3, 5), (0.3 − 0.1, 10), (0.3, 10).
    let clamped = bezier_pair(1.0, 5.0, -0.1, 0.0);
    let want = bezier([0.0, 0.0], [0.3, 5.0], [0.2, 10.0], [0.3, 10.0], 0.15);
    close(x_at(&clamped, 0.15, false), want);
}

/// Blockbench's own solve: 201 points along the curve, the two nearest in
/// time, lerped. The exact solve stays within a hair of it.
#[test]
fn bezier_agrees_with_blockbenchs_201_point_solve() {
    let p = [[0.0, 0.0], [0.25, 14.0], [0.05, -3.0], [0.3, 10.0]];
    let point_at = |s: f64| {
        let r = 1.0 - s;
        let w = [r * r * r, 3.0 * r * r * s, 3.0 * r * s * s, s * s * s];
        (0..2)
            .map(|k| (0..4).map(|i| w[i] * p[i][k]).sum::<f64>())
            .collect::<Vec<_>>()
    };
    let points: Vec<Vec<f64>> = (0..=200).map(|i| point_at(f64::from(i) / 200.0)).collect();
    for i in 1..30 {
        let t = 0.3 * f64::from(i) / 30.0;
        let mut by_gap: Vec<&Vec<f64>> = points.iter().collect();
        by_gap.sort_by(|a, b| (a[0] - t).abs().total_cmp(&(b[0] - t).abs()));
        let (a, b) = (by_gap[0], by_gap[1]);
        let f = ((t - a[0]) / (b[0] - a[0])).clamp(0.0, 1.0);
        let blockbench = a[1] + (b[1] - a[1]) * f;
        let ours = bezier(p[0], p[1], p[2], p[3], t);
        assert!(
            (ours - blockbench).abs() < 0.05,
            "t {t}: {ours} vs {blockbench}"
        );
    }
}

#[test]
fn a_linear_key_into_a_bezier_key_is_bezier() {
    let mut c = bezier_pair(0.1, 5.0, -0.1, 0.0);
    c.keys[0].interpolation = Interpolation::Linear;
    // The linear key's own handles still shape the curve.
    close(x_at(&c, 0.15, false), 6.875);
}

#[test]
fn bedrock_step_inference_drops_the_repeated_pre() {
    // 0 s: 0; 1 s: {pre: 0, post: 10}: the key at 0 holds, then jumps.
    let jump = Key {
        points: vec![point(0.0), point(10.0)],
        ..key(1.0, 0.0, Interpolation::Linear)
    };
    let mut c = Channel::new(vec![key(0.0, 0.0, Interpolation::Linear), jump]);
    c.infer_steps();
    assert_eq!(c.keys()[0].interpolation, Interpolation::Step);
    assert_eq!(c.keys()[1].interpolation, Interpolation::Step);
    assert_eq!(c.keys()[1].points, vec![point(10.0)]);
    close(x_at(&c, 0.9, false), 0.0);
    close(x_at(&c, 1.0, false), 10.0);
}

#[test]
fn keys_at_the_same_time_keep_the_last() {
    let c = Channel::new(vec![
        key(1.0, 1.0, Interpolation::Linear),
        key(0.0, 0.0, Interpolation::Linear),
        key(1.0, 7.0, Interpolation::Linear),
    ]);
    assert_eq!(c.keys().len(), 2);
    close(x_at(&c, 1.0, false), 7.0);
}
