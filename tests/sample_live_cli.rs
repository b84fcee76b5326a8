//! `emoted sample` with the live inputs a server feeds the solvers
//! (`--look`, `--reach`, `--path`) on the bundled emotes: the head turns
//! with the look and stops at the emote's limit, a hand reaches a point
//! with its bones' lengths kept, the cape trails a moving body and
//! settles, and files without solvers print what they printed before.

mod common;

use common::{run_sample as run, sample_lines as sample};
use serde_json::Value;

/// Column `c` (0 = X, 1 = Y, 2 = Z, 3 = translation) of a node's matrix.
fn column(line: &Value, node: &str, c: usize) -> [f64; 3] {
    let m = line["nodes"][node]["matrix"]
        .as_array()
        .unwrap_or_else(|| panic!("node `{node}` in {line}"));
    let f = |i: usize| m[c * 4 + i].as_f64().expect("number");
    [f(0), f(1), f(2)]
}

fn angle_degrees(a: [f64; 3], b: [f64; 3]) -> f64 {
    let dot: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let len = |v: [f64; 3]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    (dot / (len(a) * len(b)))
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees()
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    a.iter()
        .zip(&b)
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// The head's forward (+Z) as a Minecraft yaw: positive is to the right
/// (toward −X).
fn head_yaw(line: &Value) -> f64 {
    let [x, _, z] = column(line, "head", 2);
    (-x).atan2(z).to_degrees()
}

#[test]
fn the_head_follows_the_look_and_stops_at_the_emotes_limit() {
    // The wave's look-at: the neck, 70° of yaw either way.
    let ticks = [10, 25];
    let straight = sample("emotes/wave.json", &ticks, &["--look", "0,0"]);
    let right = sample("emotes/wave.json", &ticks, &["--look", "40,0"]);
    let far = sample("emotes/wave.json", &ticks, &["--look", "120,0"]);
    let left = sample("emotes/wave.json", &ticks, &["--look=-30,0"]);
    for i in 0..ticks.len() {
        let turned = head_yaw(&right[i]) - head_yaw(&straight[i]);
        assert!((turned - 40.0).abs() <= 2.0, "tick {}: {turned}", ticks[i]);
        let forward = column(&right[i], "head", 2);
        assert!(
            forward[0] < 0.0,
            "to the participant's right, −X: {forward:?}"
        );
        let stopped = head_yaw(&far[i]) - head_yaw(&straight[i]);
        assert!(
            (stopped - 70.0).abs() <= 2.0,
            "tick {}: {stopped}",
            ticks[i]
        );
        let to_left = head_yaw(&left[i]) - head_yaw(&straight[i]);
        assert!(
            (to_left + 30.0).abs() <= 2.0,
            "tick {}: {to_left}",
            ticks[i]
        );
    }
    // A pitch down looks down.
    let down = sample("emotes/wave.json", &[10], &["--look", "0,30"]);
    let [_, y, _] = column(&down[0], "head", 2);
    let [_, y0, _] = column(&straight[0], "head", 2);
    assert!(y < y0 - 0.3, "{y} vs {y0}");
    // The bow's own limit is 45°.
    let bow_straight = sample("emotes/bow.json", &[5], &["--look", "0,0"]);
    let bow = sample("emotes/bow.json", &[5], &["--look", "120,0"]);
    let turned = angle_degrees(
        column(&bow[0], "head", 2),
        column(&bow_straight[0], "head", 2),
    );
    assert!((turned - 45.0).abs() <= 2.0, "{turned}");
}

#[test]
fn a_hand_reaches_a_point_and_keeps_its_bones() {
    let file = "emotes/humanoid_template.json";
    let plain = sample(file, &[10], &[]);
    let length = |line: &Value, a: &str, b: &str| distance(column(line, a, 3), column(line, b, 3));
    let point = [-0.3, 1.2, 0.5];
    let reached = sample(file, &[10], &["--reach", "hand_r=-0.3,1.2,0.5"]);
    assert!(distance(column(&reached[0], "hand_r", 3), point) < 0.02);
    for (a, b) in [("shoulder_r", "elbow_r"), ("elbow_r", "hand_r")] {
        let before = length(&plain[0], a, b);
        let after = length(&reached[0], a, b);
        assert!(
            (before - after).abs() < 0.001,
            "{a}→{b}: {before} → {after}"
        );
    }
    // The forearm's display went with it: it hangs from the elbow.
    assert!(
        distance(
            column(&reached[0], "forearm_r", 3),
            column(&reached[0], "elbow_r", 3)
        ) < 1e-4
    );
    // Past reach, the arm points straight at the point.
    let far = [-0.35, 1.4, 3.0];
    let straight = sample(file, &[10], &["--reach", "hand_r=-0.35,1.4,3"]);
    let shoulder = column(&straight[0], "shoulder_r", 3);
    let toward = |p: [f64; 3]| [p[0] - shoulder[0], p[1] - shoulder[1], p[2] - shoulder[2]];
    for node in ["elbow_r", "hand_r"] {
        let off = angle_degrees(toward(column(&straight[0], node, 3)), toward(far));
        assert!(off < 0.5, "{node} is {off}° off the line to the point");
    }
    // The left arm and the legs did not move.
    for node in ["hand_l", "foot_r", "foot_l", "head"] {
        assert!(
            distance(column(&plain[0], node, 3), column(&reached[0], node, 3)) < 1e-5,
            "{node}"
        );
    }
}

#[test]
fn the_cape_trails_a_moving_body_and_settles() {
    let ticks = [8, 12, 16, 20, 120];
    let still = sample("emotes/cape.json", &ticks, &[]);
    // 3 blocks forward in 20 ticks, then standing still.
    let moving = sample(
        "emotes/cape.json",
        &ticks,
        &["--path", "0:0,0,0,0;20:0,0,3,0"],
    );
    let hang = |line: &Value| column(line, "cape", 1);
    for i in 0..4 {
        let trail = angle_degrees(hang(&moving[i]), hang(&still[i]));
        assert!(trail >= 10.0, "tick {}: {trail}°", ticks[i]);
        // Behind: the cape's up axis leans forward as its tip swings back.
        assert!(hang(&moving[i])[2] > hang(&still[i])[2]);
    }
    let settled = angle_degrees(hang(&moving[4]), hang(&still[4]));
    assert!(settled <= 1.0, "100 ticks after the move: {settled}°");
    // A turn on the spot swings it too.
    let turning = sample(
        "emotes/cape.json",
        &[10],
        &["--path", "0:0,0,0,0;10:0,0,0,90"],
    );
    let still_at_10 = sample("emotes/cape.json", &[10], &[]);
    assert!(angle_degrees(hang(&turning[0]), hang(&still_at_10[0])) > 1.0);
}

#[test]
fn without_live_inputs_or_solvers_the_output_is_unchanged() {
    // guitar.json has no solvers: every input leaves it as it was.
    let ticks = [0, 7, 30];
    let plain = sample("emotes/guitar.json", &ticks, &[]);
    let fed = sample(
        "emotes/guitar.json",
        &ticks,
        &["--look", "40,10", "--path", "0:0,0,0,0;20:5,0,0,90"],
    );
    assert_eq!(plain, fed);
    // The wave without --look is the wave at look (0, 0).
    assert_eq!(
        sample("emotes/wave.json", &ticks, &[]),
        sample("emotes/wave.json", &ticks, &["--look", "0,0"])
    );
}

#[test]
fn bad_live_inputs_are_refused_with_the_rule() {
    let out = run("emotes/wave.json", &[0], &["--look", "40"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--look takes YAW,PITCH"));
    let out = run("emotes/wave.json", &[0], &["--reach", "tail=0,1,2"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("emotes/wave.json: --reach: `tail` is not a node"),
        "{err}"
    );
    let out = run(
        "emotes/wave.json",
        &[0],
        &["--path", "20:0,0,0,0;10:0,0,1,0"],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("rising ticks"));
}
