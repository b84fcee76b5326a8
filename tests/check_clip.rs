//! `emoted check` and `emoted sample` on `.anim` clips and `.retarget`
//! maps, run as the real binary on tests/fixtures/clips: the valid files
//! pass, each invalid one prints its pointer and rule, folders are
//! searched, and sampled poses match values worked out by hand.

use std::f64::consts::FRAC_1_SQRT_2;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips")
}

struct Run {
    code: Option<i32>,
    stdout: Vec<String>,
    stderr: String,
}

fn emoted(args: &[&str], paths: &[&Path]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .args(args)
        .args(paths)
        .output()
        .expect("run emoted");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn the_valid_clips_and_map_pass() {
    let dir = fixtures();
    let files: Vec<PathBuf> = [
        "walk_v1.anim",
        "swing_v2.anim",
        "every_feature_v3.anim",
        "goblin.retarget",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect();
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let run = emoted(&["check"], &paths);
    assert_eq!(run.code, Some(0), "{:?}\n{}", run.stdout, run.stderr);
    // The clips are emotes: what does not carry over to the server (clip
    // events, plays, scale, joints the rig lacks) is a warning, never an
    // error, and walk_v1 (poses and markers only) has none.
    assert!(
        run.stdout.iter().all(|l| l.contains(": warning: ")),
        "{:?}",
        run.stdout
    );
    let walk = dir.join("walk_v1.anim").display().to_string();
    assert!(
        !run.stdout.iter().any(|l| l.starts_with(&walk)),
        "{:?}",
        run.stdout
    );
    let feature = dir.join("every_feature_v3.anim").display().to_string();
    for pointer in ["/joints/leftArm/scale", "/plays/0"] {
        let line = format!("{feature}: {pointer}: warning: ");
        assert!(
            run.stdout.iter().any(|l| l.starts_with(&line)),
            "no {line} in {:?}",
            run.stdout
        );
    }
    assert!(run.stderr.contains("checked 4 files"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("3 emotes valid (3 from clips), 1 retarget maps valid"),
        "{}",
        run.stderr
    );
}

/// Each invalid fixture, the pointer of its error and a piece of the rule.
const INVALID: &[(&str, &str, &str)] = &[
    (
        "time_goes_back.anim",
        "/joints/head/rotation/1/0",
        "key times must not decrease: 0.25s follows 0.5s",
    ),
    (
        "three_keys_at_one_time.anim",
        "/joints/head/position/3/0",
        "at most two keys may share a time",
    ),
    (
        "negative_time.anim",
        "/joints/head/scale/0/0",
        "must be at least 0 seconds",
    ),
    (
        "wrong_arity.anim",
        "/joints/head/position/0/1",
        "must be an array of three finite numbers",
    ),
    (
        "quaternion_mixed_with_euler.anim",
        "/joints/head/rotation/1/1",
        "cannot share a channel",
    ),
    (
        "not_finite.anim",
        "/joints/head/position/0/1/1",
        "must be a finite number",
    ),
    (
        "unknown_interpolation.anim",
        "/joints/head/position/0/2",
        "interpolation `smooth` is not one of",
    ),
    (
        "unknown_ease.anim",
        "/joints/head/position/0/3/ease",
        "`ease` `sideways` is not one of: in, out, inOut",
    ),
    (
        "unknown_loop.anim",
        "/loop",
        "`loop` `forever` is not one of",
    ),
    (
        "unknown_blend.anim",
        "/blend",
        "`blend` `multiply` is not one of: normal, additive",
    ),
    (
        "unknown_space.anim",
        "/space",
        "`space` `world` is not one of: body, view",
    ),
    (
        "weight_above_one.anim",
        "/joints/head/weight",
        "must be from 0 to 1",
    ),
    ("speed_zero.anim", "/speed", "`speed` must be above 0"),
    ("unknown_field.anim", "/colour", "unknown field `colour`"),
    (
        "unknown_field.anim",
        "/joints/head/rotate",
        "unknown field `rotate`",
    ),
    (
        "event_on_nowhere.anim",
        "/events/0/on",
        "`on` `everywhere` is not one of: server, client, both",
    ),
    (
        "unknown_modifier.anim",
        "/joints/head/modifiers/position/0/type",
        "modifier `type` `wobble` is not one of",
    ),
    (
        "modifier_field.anim",
        "/joints/head/modifiers/position/0/scale",
        "noise `scale` must be above 0 seconds",
    ),
    (
        "modifier_field.anim",
        "/joints/head/modifiers/position/0/speed",
        "unknown field `speed`",
    ),
    (
        "modifier_on_quaternion.anim",
        "/joints/head/modifiers/rotation",
        "not on quaternion keys",
    ),
    (
        "modifier_on_scale.anim",
        "/joints/head/modifiers/scale",
        "not on `scale`",
    ),
    (
        "handle_backwards.anim",
        "/joints/head/position/0/3/out/0",
        "must be at least 0",
    ),
    (
        "unknown_priority.anim",
        "/priority",
        "`priority` `urgent` is not a number or one of",
    ),
    ("both_layouts.anim", "", "not both"),
    (
        "pose_bad_direction.anim",
        "/keyframes/0/poses/head/direction",
        "`direction` `up` is not one of",
    ),
    (
        "source_without_target.retarget",
        "/joints/LeftArm",
        "give both `source` and `target`",
    ),
    ("bad_scale.retarget", "/scale", "`scale` must be above 0"),
];

#[test]
fn each_invalid_file_prints_its_pointer_and_rule_and_the_folder_is_searched() {
    // The folder, not the files: check finds the clips and maps in it.
    let dir = fixtures().join("invalid");
    let run = emoted(&["check"], &[&dir]);
    assert_eq!(run.code, Some(1), "{:?}", run.stdout);
    for (file, pointer, rule) in INVALID {
        let line = format!("{}: {pointer}: ", dir.join(file).display());
        assert!(
            run.stdout
                .iter()
                .any(|l| l.starts_with(&line) && l.contains(rule)),
            "no `{line}…{rule}` in\n{}",
            run.stdout.join("\n")
        );
    }
    let files = std::fs::read_dir(&dir).expect("fixtures").count();
    assert!(
        run.stderr.contains(&format!("checked {files} files")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("{files} files refused")),
        "{}",
        run.stderr
    );
}

#[test]
fn a_folder_mixes_clips_and_schema_4_files() {
    // tests/fixtures/clips holds the valid clips, the map and the invalid folder.
    let run = emoted(&["check"], &[&fixtures()]);
    assert_eq!(run.code, Some(1));
    let walk = fixtures().join("walk_v1.anim").display().to_string();
    assert!(
        !run.stdout.iter().any(|l| l.starts_with(&walk)),
        "walk_v1 is valid"
    );
    assert!(run
        .stdout
        .iter()
        .any(|l| l.contains("invalid/time_goes_back.anim")));
}

fn sample(file: &str, ticks: &[u32]) -> Vec<Value> {
    let mut args = vec![
        "sample".to_owned(),
        fixtures().join(file).display().to_string(),
    ];
    for t in ticks {
        args.extend(["--tick".to_owned(), t.to_string()]);
    }
    json_lines(&args)
}

/// Runs `emoted ARGS`, which must succeed, and reads one JSON object a line.
fn json_lines(args: &[String]) -> Vec<Value> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = emoted(&args, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run.stdout
        .iter()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn assert_close(got: &Value, expected: &[f64], what: &str) {
    let got = floats(got);
    let same =
        got.len() == expected.len() && got.iter().zip(expected).all(|(g, e)| (g - e).abs() < 1e-4);
    // A quaternion and its negation are one turn.
    let negated = got.len() == 4 && got.iter().zip(expected).all(|(g, e)| (g + e).abs() < 1e-4);
    assert!(
        same || negated,
        "{what}: got {got:?}, expected {expected:?}"
    );
}

#[test]
fn sample_prints_hand_worked_poses_of_a_v2_clip() {
    let lines = sample("swing_v2.anim", &[5, 14, 20]);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["tick"], 5);
    // Tick 5 is 0.25 s. rightLeg's catmullrom 30 → −30 at u = ½, the missing
    // neighbour before the first key being the key itself (30, 30, −30, 30):
    // ½(60 − 60·½ − 240·¼ + 180·⅛) = −3.75°, about x: (sin −1.875°, 0, 0, cos 1.875°).
    let leg = &lines[0]["joints"]["rightLeg"];
    assert_close(
        &leg["rotation"],
        &[-0.032_719_08, 0.0, 0.0, 0.999_464_6],
        "rightLeg at 5",
    );
    assert!(
        leg.get("position").is_none(),
        "a channel the joint lacks is left out"
    );
    assert_eq!(leg["weight"], 1.0);
    // torso: exactly on its second key (0.06 up), at weight 0.8.
    let torso = &lines[0]["joints"]["torso"];
    assert_close(&torso["position"], &[0.0, 0.06, 0.0], "torso at 5");
    assert!((torso["weight"].as_f64().expect("weight") - 0.8).abs() < 1e-6);
    // Tick 14 is 0.7 s: −30 → 30 at u = 0.4 with neighbours 30 and (the last key
    // doubled) 30: ½(−60 + 300·0.16 − 180·0.064) = −11.76°. torso is past its
    // last key (a step to 0).
    assert_close(
        &lines[1]["joints"]["rightLeg"]["rotation"],
        &[-0.102_445_3, 0.0, 0.0, 0.994_738_6],
        "rightLeg at 14",
    );
    assert_close(
        &lines[1]["joints"]["torso"]["position"],
        &[0.0, 0.0, 0.0],
        "torso at 14",
    );
    // Tick 20 is 1 s: the loop is back at its start, 30°.
    assert_close(
        &lines[2]["joints"]["rightLeg"]["rotation"],
        &[0.258_819, 0.0, 0.0, 0.965_925_8],
        "rightLeg at 20",
    );
}

#[test]
fn sample_prints_hand_worked_poses_of_a_v1_clip() {
    let lines = sample("walk_v1.anim", &[2]);
    let joints = &lines[0]["joints"];
    // 0.1 s, u = 0.2. rightLeg: sine inOut (1 − cos 0.2π)/2 = 0.0954915, so
    // 30 − 60·0.0954915 = 24.2705°; leftLeg: sine in 1 − cos 0.1π = 0.0489435,
    // −30 + 60·0.0489435 = −27.0634°, its weight 1 − 0.5·0.0489435.
    assert_close(
        &joints["rightLeg"]["rotation"],
        &[0.210_220_2, 0.0, 0.0, 0.977_654_1],
        "rightLeg",
    );
    assert_close(
        &joints["rightLeg"]["position"],
        &[0.0, 0.0, 0.0],
        "no offset: the rest",
    );
    assert_close(
        &joints["leftLeg"]["rotation"],
        &[-0.233_983_2, 0.0, 0.0, 0.972_240_6],
        "leftLeg",
    );
    assert!((joints["leftLeg"]["weight"].as_f64().expect("weight") - 0.975_528_3).abs() < 1e-5);
    // head's first pose is at 0.5 s: held before it.
    assert_close(&joints["head"]["rotation"], &[0.0, 0.0, 0.0, 1.0], "head");
    assert_close(&joints["head"]["position"], &[0.0, 0.1, 0.0], "head");
}

#[test]
fn sample_prints_hand_worked_poses_of_a_v3_clip() {
    // Speed 2, ping-pong over 2 s: ticks 5, 15 and 25 are clip times 0.5, 1.5
    // and (2.5 s run back from the end) 1.5.
    let lines = sample("every_feature_v3.anim", &[5, 15, 25]);
    let arm = |i: usize| &lines[i]["joints"]["rightArm"]["rotation"];
    // 0.5 s: the 90° step key (zyx with only x is a turn about x).
    assert_close(
        arm(0),
        &[FRAC_1_SQRT_2, 0.0, 0.0, FRAC_1_SQRT_2],
        "rightArm at 5",
    );
    // 1.5 s: on the 40° key, both ways round.
    assert_close(
        arm(1),
        &[0.342_020_1, 0.0, 0.0, 0.939_692_6],
        "rightArm at 15",
    );
    assert_close(
        arm(2),
        &[0.342_020_1, 0.0, 0.0, 0.939_692_6],
        "rightArm at 25",
    );
    // leftArm at 0.5 s: half way from the identity to 90° about y (bezier on
    // quaternions is a slerp): 45°. Its scale eases in elastically, 1 → 2 at
    // u = ¼: −2^(−7.5)·sin(−8.25·2π/3) = −0.0055243.
    let left = &lines[0]["joints"]["leftArm"];
    assert_close(
        &left["rotation"],
        &[0.0, 0.382_683_4, 0.0, 0.923_879_5],
        "leftArm",
    );
    assert_close(&left["scale"], &[0.994_475_7; 3], "leftArm scale");
    // tail plays on cape (retarget): sine in 5 → −5 over 2 s at u = ¾,
    // 5 − 10·(1 − cos 67.5°) = −1.17317°.
    assert_close(
        &lines[1]["joints"]["cape"]["rotation"],
        &[-0.010_237_6, 0.0, 0.0, 0.999_947_6],
        "cape",
    );
    // Body is muted and Waist retargeted to "": neither plays.
    let names: Vec<&String> = lines[0]["joints"]
        .as_object()
        .expect("joints")
        .keys()
        .collect();
    assert_eq!(names, ["cape", "head", "leftArm", "rightArm"]);
}

#[test]
fn sample_refuses_an_invalid_clip_with_its_problems() {
    let path = fixtures().join("invalid/speed_zero.anim");
    let run = emoted(&["sample", &path.display().to_string(), "--tick", "0"], &[]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("/speed: `speed` must be above 0"),
        "{}",
        run.stderr
    );
}

/// Clips written here for the layering rules (seed 001), each holding one
/// offset from tick 0 so the arithmetic is plain.
fn layering_clips() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("emoted-layers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let clips = [
        // Action priority, the arm at half weight: x = 1.
        (
            "action.anim",
            r#"{"version": 3, "length": 1, "priority": "action",
            "joints": {"rightArm": {"position": [[0, [1, 0, 0]]], "weight": 0.5}}}"#,
        ),
        // Idle priority, full weight: y = 1.
        (
            "idle.anim",
            r#"{"version": 3, "length": 1, "priority": "idle",
            "joints": {"rightArm": {"position": [[0, [0, 1, 0]]]}}}"#,
        ),
        // Additive, masked to the arm: z + 2 there, nothing on the head.
        (
            "additive.anim",
            r#"{"version": 3, "length": 1, "blend": "additive", "mask": ["rightArm"],
            "joints": {"rightArm": {"position": [[0, [0, 0, 2]]]},
                       "head": {"position": [[0, [0, 0, 1]]]}}}"#,
        ),
    ];
    for (name, text) in clips {
        std::fs::write(dir.join(name), text).expect("written");
    }
    dir
}

fn sample_layered(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["sample".to_owned()];
    for clip in ["action.anim", "idle.anim", "additive.anim"] {
        args.push(dir.join(clip).display().to_string());
    }
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    json_lines(&args)
}

#[test]
fn sample_layers_clips_by_priority_weight_mask_additive_and_fade() {
    let dir = layering_clips();
    // Tick 0, no fade. Idle covers the rest by min(1, 1): y = 1. Action,
    // the higher group, covers that by its weight 0.5: lerp((0,1,0),
    // (1,0,0), 0.5) = (0.5, 0.5, 0). The additive clip adds (0, 0, 2) at
    // weight 1. Its head is masked out, and nothing else moves the head.
    let lines = sample_layered(&dir, &["--tick", "0"]);
    let arm = &lines[0]["joints"]["rightArm"];
    assert_close(&arm["position"], &[0.5, 0.5, 2.0], "layered arm");
    assert_close(&arm["rotation"], &[0.0, 0.0, 0.0, 1.0], "no clip turns it");
    assert_close(&arm["scale"], &[1.0, 1.0, 1.0], "no clip scales it");
    assert!(lines[0]["joints"].get("head").is_none(), "{}", lines[0]);
    // Tick 10 with a one-second fade in: every track at half its weight.
    // Idle 0.5: (0, 0.5, 0). Action 0.25: lerp(that, (1,0,0), 0.25) =
    // (0.25, 0.375, 0). Additive 0.5: + (0, 0, 1).
    let lines = sample_layered(&dir, &["--tick", "10", "--fade-in", "1"]);
    let arm = &lines[0]["joints"]["rightArm"];
    assert_close(&arm["position"], &[0.25, 0.375, 1.0], "faded arm");
    let _ = std::fs::remove_dir_all(&dir);
}
