//! `emoted sample` on `.anim` clips, run as the real binary: one small clip
//! per rule of seed 000 (each easing family, bezier handles, each curve
//! modifier), with the value at a tick worked out by hand in the comments.
//! The clips are written here, each moving one joint's position on x from
//! 0 to 1 (a position is printed as it is, so the numbers read straight).
//! The layering rules have their own test in `check_clip.rs`.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample_clip_rules");
    std::fs::create_dir_all(&dir).expect("mkdir");
    dir
}

/// Writes `clip` as NAME.anim and samples it at `ticks`: each tick's
/// `head` position x (`None` when head does not play).
fn head_x(name: &str, clip: &str, ticks: &[u32]) -> Vec<f64> {
    let path = dir().join(format!("{name}.anim"));
    std::fs::write(&path, clip).expect("write");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_emoted"));
    cmd.arg("sample").arg(&path);
    for t in ticks {
        cmd.args(["--tick", &t.to_string()]);
    }
    let out = cmd.output().expect("run emoted");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{name}: {}{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            v["joints"]["head"]["position"][0]
                .as_f64()
                .unwrap_or_else(|| panic!("{name}: no head position in {l}"))
        })
        .collect()
}

/// A 1 s clip (held at its end for `length` s) whose head moves x from 0
/// to 1 with `interpolation` (and `extra`), plus `more` joint fields.
fn move_clip(interpolation: &str, extra: &str, more: &str, length: f32) -> String {
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(", {extra}")
    };
    format!(
        r#"{{"version": 3, "length": {length}, "joints": {{"head": {{
            "position": [[0, [0, 0, 0], "{interpolation}"{extra}], [1, [1, 0, 0]]]{more}}}}}}}"#
    )
}

fn assert_near(got: f64, expected: f64, what: &str) {
    assert!(
        (got - expected).abs() < 1e-4,
        "{what}: got {got}, expected {expected}"
    );
}

/// Tick 5 is u = ¼ of the way. The curves are easings.net's; left out,
/// `ease` is `in` for the power families, sine, expo and circ, and `out`
/// for back, bounce and elastic (seed 000).
#[test]
fn each_easing_family_at_a_quarter() {
    let cases: [(&str, &str, f64); 14] = [
        // u² = 1/16
        ("quad", "", 0.0625),
        // u³, u⁴, u⁵
        ("cubic", "", 0.015_625),
        ("quart", "", 0.003_906_25),
        ("quint", "", 0.000_976_562_5),
        // 1 − cos(uπ/2) = 1 − cos 22.5°
        ("sine", "", 0.076_120_47),
        // 2^(10u − 10) = 2^−7.5
        ("expo", "", 0.005_524_27),
        // 1 − √(1 − u²) = 1 − √(15/16)
        ("circ", "", 0.031_754_26),
        // out: 1 + 2.70158(u − 1)³ + 1.70158(u − 1)²
        //    = 1 − 2.70158·0.421875 + 1.70158·0.5625
        ("back", "", 0.817_410_2),
        // out: 7.5625 u² (u < 1/2.75)
        ("bounce", "", 0.472_656_25),
        // out: 2^(−10u) sin((10u − 0.75)·2π/3) + 1 = 2^−2.5·sin 210° + 1
        ("elastic", "", 0.911_611_7),
        // out: 1 − (1 − u)² = 1 − 9/16
        ("quad", r#"{"ease": "out"}"#, 0.4375),
        // inOut, first half: 2u² = 1/8
        ("quad", r#"{"ease": "inOut"}"#, 0.125),
        // inOut, first half: 4u³ = 1/16
        ("cubic", r#"{"ease": "inOut"}"#, 0.0625),
        // in: 2.70158 u³ − 1.70158 u² = 0.0422122 − 0.1063488
        ("back", r#"{"ease": "in"}"#, -0.064_136_6),
    ];
    for (i, (family, extra, expected)) in cases.iter().enumerate() {
        let clip = move_clip(family, extra, "", 1.0);
        let got = head_x(&format!("ease_{i}_{family}"), &clip, &[5]);
        assert_near(got[0], *expected, &format!("{family} {extra}"));
    }
}

#[test]
fn linear_step_and_bezier_handles() {
    // linear: u = ¼.
    let got = head_x("linear", &move_clip("linear", "", "", 1.0), &[5]);
    assert_near(got[0], 0.25, "linear");
    // step holds 0 until the next key's time, then jumps.
    let got = head_x("step", &move_clip("step", "", "", 2.0), &[19, 20]);
    assert_near(got[0], 0.0, "step before");
    assert_near(got[1], 1.0, "step at the key");
    // Missing handles are flat and a third long: control points (0, 0),
    // (⅓, 0), (⅔, 1), (1, 1). Time is linear in s, so s = t and the value
    // is 3s² − 2s³: at ¼, 3/16 − 2/64 = 0.15625.
    let got = head_x("bezier_flat", &move_clip("bezier", "", "", 1.0), &[5]);
    assert_near(got[0], 0.156_25, "bezier, default handles");
    // out (0.5, +0.5) and the next key's in (−0.5, 0): control points
    // (0, 0), (0.5, 0.5), (0.5, 1), (1, 1). x(s) = 1.5s − 1.5s² + s³ is ½
    // at s = ½, where y = 3·¼·½·½ + 3·½·¼·1 + ⅛ = 0.6875.
    let clip = r#"{"version": 3, "length": 1, "joints": {"head": {"position": [
        [0, [0, 0, 0], "bezier", {"out": [0.5, 0.5]}],
        [1, [1, 0, 0], "linear", {"in": [-0.5, 0]}]]}}}"#;
    let got = head_x("bezier_handles", clip, &[10]);
    assert_near(got[0], 0.6875, "bezier with handles");
}

/// The keys run from 0.5 s (x = 0) to 1.5 s (x = 1), so x = t − 0.5
/// inside; the clip lasts 3 s so the playhead is not clamped.
fn ranged(modifier: &str) -> String {
    format!(
        r#"{{"version": 3, "length": 3, "joints": {{"head": {{
            "position": [[0.5, [0, 0, 0]], [1.5, [1, 0, 0]]],
            "modifiers": {{"position": [{modifier}]}}}}}}}}"#
    )
}

#[test]
fn cycles_repeat_offset_mirror_and_none() {
    // Ticks 5 (0.25 s, before the range: cycle −1 at frac ¾) and 25
    // (1.25 s, inside) and 35 (1.75 s, after: cycle 1 at frac ¼) and 55
    // (2.75 s: cycle 2 at frac ¼).
    let ticks = [5, 25, 35, 55];
    let repeat = head_x("cycles_repeat", &ranged(r#"{"type": "cycles"}"#), &ticks);
    for (got, expected) in repeat.iter().zip([0.75, 0.75, 0.25, 0.25]) {
        assert_near(*got, expected, "repeat");
    }
    // offset climbs by the range's change (1) per cycle: −1 + 0.75,
    // 0.75, 1 + 0.25, 2 + 0.25.
    let offset = head_x(
        "cycles_offset",
        &ranged(r#"{"type": "cycles", "before": "offset", "after": "offset"}"#),
        &ticks,
    );
    for (got, expected) in offset.iter().zip([-0.25, 0.75, 1.25, 2.25]) {
        assert_near(*got, expected, "offset");
    }
    // mirror runs odd cycles backwards: cycle −1 reads 1.5 − 0.75 (x =
    // 0.25), cycle 1 reads 1.5 − 0.25 (x = 0.75), cycle 2 forwards (0.25).
    let mirror = head_x(
        "cycles_mirror",
        &ranged(r#"{"type": "cycles", "before": "mirror", "after": "mirror"}"#),
        &ticks,
    );
    for (got, expected) in mirror.iter().zip([0.25, 0.75, 0.75, 0.25]) {
        assert_near(*got, expected, "mirror");
    }
    // none holds the end keys on that side.
    let none = head_x(
        "cycles_none",
        &ranged(r#"{"type": "cycles", "before": "none", "after": "repeat"}"#),
        &ticks,
    );
    for (got, expected) in none.iter().zip([0.0, 0.75, 0.25, 0.25]) {
        assert_near(*got, expected, "none before");
    }
}

#[test]
fn stepped_limits_and_envelope() {
    // stepped, step 0.25 s from 0.1: tick 14 (0.7 s) reads 0.1 + 2·0.25 =
    // 0.6 s, x = 0.1.
    let got = head_x(
        "stepped",
        &ranged(r#"{"type": "stepped", "step": 0.25, "offset": 0.1}"#),
        &[14],
    );
    assert_near(got[0], 0.1, "stepped");
    // limits [0.2, 0.7]: ticks 12, 20, 30 are x = 0.1, 0.5, 1.0.
    let got = head_x(
        "limits",
        &ranged(r#"{"type": "limits", "min": 0.2, "max": 0.7}"#),
        &[12, 20, 30],
    );
    for (got, expected) in got.iter().zip([0.2, 0.5, 0.7]) {
        assert_near(*got, expected, "limits");
    }
    // A side left out is open.
    let got = head_x(
        "limits_open",
        &ranged(r#"{"type": "limits", "max": 0.7}"#),
        &[12],
    );
    assert_near(got[0], 0.1, "limits, no min");
    // envelope reference 0, min −1, max 1; points at 0 s (−1, 1) and at
    // 2 s (−3, 3). At tick 20 (1 s, x = 0.5) the bounds are (−2, 2), so
    // −1 → −2 and 1 → 2: x ↦ 2x, 1.0. Past the last point (tick 50,
    // 2.5 s, x = 1 held) the bounds hold at (−3, 3): 3.0.
    let got = head_x(
        "envelope",
        &ranged(
            r#"{"type": "envelope", "reference": 0, "min": -1, "max": 1,
                "points": [[0, -1, 1], [2, -3, 3]]}"#,
        ),
        &[20, 50],
    );
    assert_near(got[0], 1.0, "envelope between points");
    assert_near(got[1], 3.0, "envelope past the last point");
}

#[test]
fn noise_is_bounded_the_same_every_run_and_offsets() {
    // strength 2 wobbles at most 1 either way; offset 0.5 moves the middle.
    let clip = ranged(r#"{"type": "noise", "scale": 0.5, "strength": 2, "offset": 0.5}"#);
    let ticks: Vec<u32> = (20..=30).collect();
    let first = head_x("noise", &clip, &ticks);
    let again = head_x("noise_again", &clip, &ticks);
    assert_eq!(first, again, "the same every time it plays");
    let mut moved = false;
    for (tick, got) in ticks.iter().zip(&first) {
        let base = f64::from(*tick) / 20.0 - 0.5;
        let wobble = got - base - 0.5;
        assert!(wobble.abs() <= 1.0 + 1e-4, "tick {tick}: wobble {wobble}");
        moved |= wobble.abs() > 1e-3;
    }
    assert!(moved, "the noise moves the curve: {first:?}");
    // On an axis alone, the other axes are left as they are: an axis-1
    // noise leaves x on the line.
    let y_only = head_x(
        "noise_y",
        &ranged(r#"{"type": "noise", "axis": 1, "strength": 2}"#),
        &[20],
    );
    assert_near(y_only[0], 0.5, "x untouched by an axis-1 noise");
}

/// Time modifiers run first whatever the order listed: limits written
/// before cycles still clamp the cycled value. Tick 35 (1.75 s) cycles to
/// x = 0.25 (repeat) and 0.25 is under the 0.3 minimum.
#[test]
fn modifiers_that_move_time_run_first() {
    let got = head_x(
        "order",
        &ranged(r#"{"type": "limits", "min": 0.3}, {"type": "cycles"}"#),
        &[35],
    );
    assert_near(got[0], 0.3, "cycled, then limited");
    // A disabled modifier does nothing: tick 12 (0.6 s) stays at x = 0.1,
    // under the minimum it would give.
    let got = head_x(
        "disabled",
        &ranged(r#"{"type": "limits", "min": 0.3, "enabled": false}"#),
        &[12],
    );
    assert_near(got[0], 0.1, "a disabled limit");
}
