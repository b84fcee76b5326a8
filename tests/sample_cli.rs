//! `emoted sample` on the bundled emotes, checked against poses computed by
//! hand from the files (the arithmetic is written out next to each value).

mod common;

use std::process::Command;

use serde_json::Value;

fn sample(file: &str, ticks: &[u32]) -> Vec<Value> {
    common::sample_lines(file, ticks, &[])
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn assert_close(got: &[f64], expected: &[f64], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}");
    for (g, e) in got.iter().zip(expected) {
        assert!(
            (g - e).abs() < 1e-4,
            "{what}: got {got:?}, expected {expected:?}"
        );
    }
}

/// `emotes/wave.json`: the right arm waves. `shoulder_r` (at −0.3515625,
/// 1.40625, 0: the top of the arm) turns about Z; `elbow_r`, 0.3515625
/// (6 px) down the upper arm, turns about Z again; `hand_r`, 6 px further
/// down, carries `held_item` 2 px forward, turned 90° about X. Both turns
/// are about Z, so the forearm's angle is their sum.
#[test]
fn wave_held_item_follows_the_turning_shoulder_and_elbow() {
    let lines = sample("emotes/wave.json", &[0, 3, 6]);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["tick"], 3);
    let half = 0.3515625;
    let forward = 0.1171875;
    // The held item's origin for a shoulder angle `a` and an elbow angle `b`:
    // shoulder + Rz(a)·(0, −half, 0) + Rz(a + b)·(0, −half, 0) + (0, 0, forward).
    let hand = |a: f64, b: f64| {
        let (a, ab) = (a.to_radians(), (a + b).to_radians());
        [
            -0.3515625 + half * (a.sin() + ab.sin()),
            1.40625 - half * (a.cos() + ab.cos()),
            forward,
        ]
    };

    // Tick 6 is a key of both: shoulder [0, 0, −115], elbow [0, 0, −45].
    let t6 = &lines[2]["nodes"];
    let m = floats(&t6["held_item"]["matrix"]);
    assert_close(&m[12..15], &hand(-115.0, -45.0), "held_item origin at 6t");
    // Its x axis is Rz(−160°)·X at the model's scale 0.9375; its y axis,
    // turned 90° about X, points forward.
    let (s, c) = ((-160f64).to_radians().sin(), (-160f64).to_radians().cos());
    assert_close(
        &m[0..3],
        &[0.9375 * c, 0.9375 * s, 0.0],
        "held_item x axis at 6t",
    );
    assert_close(&m[4..7], &[0.0, 0.0, 0.9375], "held_item y axis at 6t");
    // The hand is raised above the shoulder.
    assert!(m[13] > 1.8, "{m:?}");

    // Tick 3: halfway through 0t→6t with ease_out_sine in both tracks:
    // e = sin(π/4), shoulder angle −115°·e, elbow angle −45°·e.
    let e = std::f64::consts::FRAC_PI_4.sin();
    let (a, b) = (-115.0 * e, -45.0 * e);
    let q = floats(&lines[1]["nodes"]["shoulder_r"]["rotation"]);
    let half_a = a.to_radians() / 2.0;
    assert_close(
        &q,
        &[0.0, 0.0, half_a.sin(), half_a.cos()],
        "shoulder_r rotation at 3t",
    );
    let m = floats(&lines[1]["nodes"]["held_item"]["matrix"]);
    assert_close(&m[12..15], &hand(a, b), "held_item origin at 3t");
    // The greeting text is hidden until its 4t visibility key.
    assert_eq!(lines[1]["nodes"]["greeting"]["visible"], false);

    // Only the right arm moves: every other part keeps its rest matrix.
    for id in ["head", "torso", "arm_l", "leg_r", "leg_l"] {
        let rest = floats(&lines[0]["nodes"][id]["matrix"]);
        for line in &lines[1..] {
            assert_close(&floats(&line["nodes"][id]["matrix"]), &rest, id);
        }
    }
}

/// `emotes/prop_juggle.json`: `path_b` moves sideways; its child `ball_b`
/// falls (ease_in_quad) and turns about Z, at scale 0.7.
#[test]
fn juggle_child_follows_a_moving_parent() {
    let lines = sample("emotes/prop_juggle.json", &[5]);
    let nodes = &lines[0]["nodes"];
    // path_b: 0t (0, 1.1, 0.4) → 10t (0.3, 1.1, 0.4), linear, u = 0.5.
    assert_close(
        &floats(&nodes["path_b"]["position"]),
        &[0.15, 1.1, 0.4],
        "path_b at 5t",
    );
    // ball_b: y from 0.9 to 0 with ease_in_quad(0.5) = 0.25 → 0.675; z turn 0 → −120°, half = −60°.
    assert_close(
        &floats(&nodes["ball_b"]["position"]),
        &[0.0, 0.675, 0.0],
        "ball_b at 5t",
    );
    let m = floats(&nodes["ball_b"]["matrix"]);
    assert_close(&m[12..15], &[0.15, 1.1 + 0.675, 0.4], "ball_b origin at 5t");
    let (s, c) = ((-60f64).to_radians().sin(), (-60f64).to_radians().cos());
    assert_close(&m[0..3], &[0.7 * c, 0.7 * s, 0.0], "ball_b x axis at 5t");
    assert_close(&m[4..7], &[-0.7 * s, 0.7 * c, 0.0], "ball_b y axis at 5t");
}

#[test]
fn molang_randomness_follows_the_seed() {
    let run = |seed: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_emoted"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "sample",
                "emotes/prop_juggle.json",
                "--tick",
                "10",
                "--seed",
                seed,
            ])
            .output()
            .expect("runs");
        assert!(out.status.success());
        let line: Value = serde_json::from_slice(&out.stdout).expect("json");
        floats(&line["nodes"]["ball_a"]["position"])[1]
    };
    // v.toss = math.random(0.8, 1.05), reached at the 10t key.
    let a = run("1");
    assert!((0.8..=1.05).contains(&a), "{a}");
    assert_eq!(a, run("1"), "same seed, same toss");
    let others: Vec<f64> = (2..6).map(|s| run(&s.to_string())).collect();
    assert!(
        others.iter().any(|&o| o != a),
        "different seeds give different tosses"
    );
}

#[test]
fn every_bundled_animation_samples() {
    // Subfolders too (`emotes/walk_wave/`), as the server reads them.
    let bundled = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
    for path in emoted::library::discover::emote_files(bundled).expect("emotes/") {
        let text = std::fs::read_to_string(&path).expect("read");
        if !text.contains("\"animation\"") {
            continue;
        }
        let lines = sample(path.to_str().expect("utf-8 path"), &[0, 7, 40]);
        assert_eq!(lines.len(), 3, "{}", path.display());
        for line in &lines {
            for (id, node) in line["nodes"].as_object().expect("nodes") {
                let q = floats(&node["rotation"]);
                let len = q.iter().map(|x| x * x).sum::<f64>().sqrt();
                assert!(
                    (len - 1.0).abs() < 1e-4,
                    "{}: {id} rotation not unit",
                    path.display()
                );
                assert_eq!(floats(&node["matrix"]).len(), 16);
            }
        }
    }
}

/// `tests/fixtures/nbt_tracks/flowers.json`: the flower's keys merged so
/// far (a poppy picked at 0t in the first cycle, its glow at 10t, the
/// diamond at 15t, held past the end); the nodes without an `nbt` track,
/// and every bundled emote (above), have no `nbt` field.
#[test]
fn nbt_keys_merge_into_the_sampled_compound() {
    let lines = sample(
        "tests/fixtures/nbt_tracks/flowers.json",
        &[0, 9, 10, 15, 30],
    );
    let nbt: Vec<&str> = lines
        .iter()
        .map(|l| {
            l["nodes"]["flower"]["nbt"]
                .as_str()
                .expect("the flower's nbt")
        })
        .collect();
    let poppy = r#"item:{count:1,id:"minecraft:poppy"}"#;
    let diamond = r#"item:{count:1,id:"minecraft:diamond"}"#;
    assert_eq!(
        nbt,
        [
            format!("{{Glowing:0b,{poppy}}}"),
            format!("{{Glowing:0b,{poppy}}}"),
            format!("{{Glowing:1b,{poppy}}}"),
            format!("{{Glowing:1b,{diamond}}}"),
            format!("{{Glowing:1b,{diamond}}}"),
        ]
    );
    for line in &lines {
        for id in ["body", "clock"] {
            assert!(line["nodes"][id].get("nbt").is_none(), "{id}: {line}");
        }
    }
    for line in sample("emotes/wave.json", &[0, 6]) {
        let nodes = line["nodes"].as_object().expect("nodes");
        assert!(nodes.values().all(|n| n.get("nbt").is_none()), "{line}");
    }
}

#[test]
fn sequences_and_broken_files_are_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["sample", "emotes/sit_session.json", "--tick", "0"])
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes an Animation"));
}

/// `emoted molang` prints what it computes; an expression may start with
/// `-` without being taken for a flag.
#[test]
fn molang_cli_reads_an_expression_that_starts_with_a_minus() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_emoted"))
            .arg("molang")
            .args(args)
            .output()
            .expect("runs emoted");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .expect("utf-8")
            .trim()
            .to_owned()
    };
    assert_eq!(run(&["-2 * -3 + !0"]), "7");
    assert_eq!(run(&["-v.x * 2", "--set", "v.x=3"]), "-6");
    assert_eq!(run(&["--set", "v.x=3", "-v.x"]), "-3");
}

/// `example:celebrate` flies a keyed camera on its `camera` anchor for
/// 40 ticks, then cuts to a fixed shot: at every keyed tick the camera's
/// eye is the anchor's world position and it looks along the anchor's +Z.
#[test]
fn the_keyed_camera_is_the_anchors_world_transform_at_every_tick() {
    let ticks: Vec<u32> = (0..=45).collect();
    let lines = sample("emotes/celebrate.json", &ticks);
    assert_eq!(lines.len(), ticks.len());
    for line in &lines {
        let tick = line["tick"].as_u64().expect("a tick");
        let camera = &line["camera"];
        let matrix = floats(&line["nodes"]["camera"]["matrix"]);
        if tick < 40 {
            assert_eq!(camera["shot"], 0, "tick {tick}: {camera}");
            assert_close(&floats(&camera["eye"]), &matrix[12..15], "the eye");
            // The look: yaw and pitch of the anchor's +Z (the third column).
            let (x, y, z) = (matrix[8], matrix[9], matrix[10]);
            let yaw = (-x).atan2(z).to_degrees();
            let pitch = (-y).atan2((x * x + z * z).sqrt()).to_degrees();
            let yaw_got = camera["yaw_degrees"].as_f64().expect("yaw");
            let turn = (yaw_got - yaw + 540.0).rem_euclid(360.0) - 180.0;
            assert!(turn.abs() < 1e-3, "tick {tick}: yaw {yaw_got} vs {yaw}");
            assert_close(
                &[camera["pitch_degrees"].as_f64().expect("pitch")],
                &[pitch],
                "pitch",
            );
            assert_eq!(camera["cut"], false);
        } else {
            assert_eq!(camera["shot"], 1, "tick {tick}: {camera}");
            assert_eq!(camera["cut"], tick == 40, "the cut is at 40t only");
            // The fixed shot: [-2.6, 3.2, 2.6] from the chest (0, 1.2, 0).
            assert_close(&floats(&camera["eye"]), &[-2.6, 4.4, 2.6], "the fixed eye");
        }
    }
    // The anchor moves: the keyed camera is not standing still.
    let first = floats(&lines[0]["camera"]["eye"]);
    let last = floats(&lines[39]["camera"]["eye"]);
    assert!((first[0] - last[0]).abs() > 1.0, "{first:?} → {last:?}");
    // A file that writes no camera prints none.
    let wave = sample("emotes/wave.json", &[0]);
    assert!(wave[0].get("camera").is_none(), "{}", wave[0]);
}
