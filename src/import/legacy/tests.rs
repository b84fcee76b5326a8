//! The migration worked by hand from the spec's tables and the
//! interpolation rule of the module guide; the fixtures against their
//! golden schema 4 files.

use std::f32::consts::FRAC_1_SQRT_2;
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use serde_json::{json, Value};

use super::*;
use crate::format::settings::PlaybackMode;

fn options() -> ConvertOptions {
    ConvertOptions {
        namespace: "test".to_owned(),
        stem: "legacy".to_owned(),
        ..ConvertOptions::default()
    }
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/legacy")
}

fn load(name: &str) -> Imported {
    let bytes = std::fs::read(fixture_dir().join(name)).expect("reads");
    let mut out = convert(&bytes, &options()).unwrap_or_else(|e| panic!("{name}: {e}"));
    out.remove(0)
}

/// Row-major 16 numbers of `T(x, y, z)`.
fn translation(x: f32, y: f32, z: f32) -> Value {
    json!([1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z, 0, 0, 0, 1])
}

/// A schema 3 file with one item node `a` at `default` and `keyframes`.
fn one_node(default: Value, keyframes: Value) -> Value {
    json!({
        "type": "animation", "schema_version": 3, "id": "test:one",
        "metadata": {"name": "One"},
        "settings": {"standalone": true, "cooldown": "0t", "player": {"hidden": false,
            "stop_conditions": {}}, "playback": {"mode": "once", "loop_delay": "0t"}},
        "nodes": {"a": {"type": "item_display", "space": "initiator",
            "item_stack_snbt": "{id:\"minecraft:stick\",Count:1b}", "item_display": "fixed",
            "default_matrix": default}},
        "timeline": {"duration": "20t", "keyframes": keyframes, "events": {}}
    })
}

fn frames(file: &Value) -> Vec<Mat4> {
    let all = source_matrices(file.to_string().as_bytes()).expect("reads");
    all.get("a").cloned().expect("node a")
}

#[test]
fn a_transform_arrives_at_its_time_after_its_interpolation() {
    // Timeline: a at y 0 from 0t; a key at 20t with interpolation 10t to
    // y 2. The node holds y 0 until 10t, then lerps: y 1 at 15t (halfway),
    // 2 at 20t.
    //
    //   0t ──── hold ──── 10t ── lerp ── 20t
    //   y 0               y 0    y 1 @15  y 2
    let file = one_node(
        translation(0.0, 0.0, 0.0),
        json!([{"time": "20t", "interpolation_duration": "10t",
                "node_transforms": {"a": {"matrix": translation(0.0, 2.0, 0.0)}}}]),
    );
    let f = frames(&file);
    let y = |t: usize| f[t].w_axis.y;
    assert_eq!((y(0), y(10), y(15), y(20)), (0.0, 0.0, 1.0, 2.0));
    assert!((y(11) - 0.2).abs() < 1e-6 && (y(19) - 1.8).abs() < 1e-6);
    // Written directly: a hold key at 10t, the move to 20t.
    let out = convert(file.to_string().as_bytes(), &options()).expect("converts");
    let position = &out[0].json["timeline"]["tracks"]["a"]["position"];
    assert_eq!(
        position,
        &json!([{"time": "0t", "value": [0.0, 0.0, 0.0]},
                {"time": "10t", "value": [0.0, 0.0, 0.0]},
                {"time": "20t", "value": [0.0, 2.0, 0.0]}])
    );
}

#[test]
fn a_matrix_midway_through_a_turn_is_shrunk_and_the_tracks_follow_it() {
    // A quarter turn about Y from 0t to 20t (no interpolation given: the
    // whole span). At 10t the matrix is ½·I + ½·R_y(90°): columns
    // (½, 0, −½), (0, 1, 0), (½, 0, ½), a 45° turn with x and z scaled
    // by √½ = 0.70711, which schema 4's slerp does not shrink; the
    // resampled scale track must bring it in.
    let turned = json!([0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 0, 1]);
    let file = one_node(
        translation(0.0, 0.0, 0.0),
        json!([{"time": "20t", "node_transforms": {"a": turned}}]),
    );
    let mid = frames(&file)[10];
    let expected = Mat4::from_cols(
        glam::Vec4::new(0.5, 0.0, -0.5, 0.0),
        glam::Vec4::new(0.0, 1.0, 0.0, 0.0),
        glam::Vec4::new(0.5, 0.0, 0.5, 0.0),
        glam::Vec4::W,
    );
    assert!(mid.abs_diff_eq(expected, 1e-6), "{mid}");
    let out = convert(file.to_string().as_bytes(), &options()).expect("converts");
    let tracks = &out[0].json["timeline"]["tracks"]["a"];
    let scale = played(&tracks["scale"], 10);
    assert!(
        (scale - Vec3::new(FRAC_1_SQRT_2, 1.0, FRAC_1_SQRT_2))
            .abs()
            .max_element()
            <= 0.01,
        "{scale}"
    );
    let turn = played(&tracks["rotation"], 10);
    let q = crate::anim::quat_from_euler_degrees(turn);
    assert!(q.angle_between(Quat::from_rotation_y(45f32.to_radians())) <= 0.5f32.to_radians());
    let pointers: Vec<&str> = out[0].notes.iter().map(|n| n.pointer.as_str()).collect();
    assert!(
        pointers.contains(&"/timeline/keyframes/0/node_transforms/a"),
        "{pointers:?}"
    );
    assert!(pointers.contains(&"/timeline/tracks/a"), "{pointers:?}");
}

/// What linear keys `track` give at `tick` (component-wise lerp of the
/// Euler values is close enough for a single-axis turn in a test).
fn played(track: &Value, tick: u32) -> Vec3 {
    let keys: Vec<(u32, Vec3)> = track
        .as_array()
        .expect("a track")
        .iter()
        .map(|k| {
            let t = k["time"].as_str().expect("time").trim_end_matches('t');
            let v = |i: usize| k["value"][i].as_f64().expect("number") as f32;
            (t.parse().expect("ticks"), Vec3::new(v(0), v(1), v(2)))
        })
        .collect();
    for pair in keys.windows(2) {
        let [(a, va), (b, vb)] = [pair[0], pair[1]];
        if (a..=b).contains(&tick) {
            return va.lerp(vb, (tick - a) as f32 / (b - a) as f32);
        }
    }
    keys.last().map(|k| k.1).expect("keys")
}

#[test]
fn schema_3_props_keep_their_fields_and_get_exact_keys() {
    let props = load("s3_props.json");
    let j = &props.json;
    assert_eq!(
        j["nodes"]["hand"]["item_stack_snbt"],
        "{id:\"minecraft:stick\",Count:1b}"
    );
    assert_eq!(j["nodes"]["label"]["text"], json!({"text": "Hi"}));
    assert_eq!(j["nodes"]["label"]["space"], "scene");
    // 10t: lift over 10t; 20t: a jump to scale 2 (step before it);
    // 30t: back over the last 5t (a hold key at 25t).
    let scale: Vec<(String, f64, Option<String>)> = j["timeline"]["tracks"]["hand"]["scale"]
        .as_array()
        .expect("scale")
        .iter()
        .map(|k| {
            (
                k["time"].as_str().unwrap_or("").to_owned(),
                k["value"][1].as_f64().unwrap_or(f64::NAN),
                k["interpolation"].as_str().map(str::to_owned),
            )
        })
        .collect();
    let step = Some("step".to_owned());
    assert_eq!(
        scale,
        [
            ("0t".to_owned(), 1.0, None),
            ("10t".to_owned(), 1.0, step),
            ("20t".to_owned(), 2.0, None),
            ("25t".to_owned(), 2.0, None),
            ("30t".to_owned(), 1.0, None),
        ]
    );
    assert!(j["timeline"]["tracks"]["hand"].get("rotation").is_none());
    assert_eq!(
        j["timeline"]["tracks"]["label"]["visible"],
        json!([{"time": "0t", "value": false}, {"time": "10t", "value": true},
               {"time": "30t", "value": false}])
    );
    assert_eq!(
        j["timeline"]["events"]["timeline"][0],
        json!({"time": "10t", "source": {"type": "node", "node": "hand"},
               "origin": {"type": "node", "node": "spot", "offset": [0, 0.5, 0]},
               "commands": ["particle minecraft:flame ~ ~ ~ 0 0 0 0 1"]})
    );
    assert_eq!(
        j["timeline"]["events"]["start"][0]["source"],
        json!({"type": "player"})
    );
    assert_eq!(
        j["timeline"]["events"]["stop"][0]["origin"],
        json!({"type": "root"})
    );
}

#[test]
fn a_child_of_a_root_local_file_is_rebuilt_in_its_parents_frame() {
    // The sword is 0.6 below the arm in the arm's frame at every tick
    // (both matrices lerp, and lerp(A₀·L, A₁·L) = lerp(A₀, A₁)·L), so its
    // transform is (0, −0.6, 0), unturned, and it hangs from the arm.
    let p = load("s3_parented.json");
    let sword = &p.json["nodes"]["sword"];
    assert_eq!(sword["parent"], "arm");
    assert!(sword.get("space").is_none());
    assert_eq!(sword["transform"]["position"], json!([0.0, -0.6, 0.0]));
    assert_eq!(sword["transform"]["rotation"], json!([0.0, 0.0, 0.0]));
    assert_eq!(p.file.settings.playback.mode, PlaybackMode::Hold);
}

#[test]
fn schema_1_names_move_to_their_schema_3_places() {
    let bob = load("s1_bob.json");
    let j = &bob.json;
    assert_eq!(j["schema_version"], 4);
    assert_eq!(j["type"], "animation");
    assert_eq!(j["settings"]["cooldown"], "0t");
    assert_eq!(
        j["settings"]["playback"],
        json!({"mode": "loop", "loop_delay": "5t"})
    );
    assert_eq!(j["settings"]["player"]["hidden"], true);
    assert_eq!(j["nodes"]["head"]["space"], "initiator");
    assert_eq!(j["nodes"]["head"]["skin"]["participant"], "initiator");
    assert_eq!(j["timeline"]["duration"], "40t");
    let pointers: Vec<&str> = bob.notes.iter().map(|n| n.pointer.as_str()).collect();
    for p in [
        "/minecraft_version",
        "/transform_space",
        "/settings/cooldown",
        "/nodes",
    ] {
        assert!(pointers.contains(&p), "{pointers:?}");
    }
    let flag = load("s1_flag.json");
    assert_eq!(flag.json["settings"]["standalone"], false);
    assert_eq!(flag.json["timeline"]["events"]["timeline"][0]["time"], "5t");
    assert_eq!(flag.file.settings.playback.mode, PlaybackMode::Once);
}

/// One error case: the file and what the error says.
struct Case {
    file: Value,
    pointer: &'static str,
    message: &'static str,
}

#[test]
fn broken_files_are_refused_with_the_pointer_and_the_rule() {
    let t = |ticks: &str, node: &str| json!({"time": ticks, "node_transforms": {node: translation(0.0, 1.0, 0.0)}});
    let base = || one_node(translation(0.0, 0.0, 0.0), json!([]));
    let with = |path: &str, value: Value| {
        let mut f = base();
        let (parent, key) = path.rsplit_once('/').expect("a pointer");
        if let Some(Value::Object(o)) = f.pointer_mut(parent) {
            o.insert(key.to_owned(), value);
        }
        f
    };
    let cases = [
        Case {
            file: with("/schema_version", json!(4)),
            pointer: "/schema_version",
            message: "give a schema 1 or schema 3 Animation",
        },
        Case {
            file: with("/timeline/keyframes", json!([t("10t", "a"), t("5t", "a")])),
            pointer: "/timeline/keyframes/1/time",
            message: "sorted by time: 5t follows 10t",
        },
        Case {
            file: with("/timeline/keyframes", json!([t("21t", "a")])),
            pointer: "/timeline/keyframes/0/time",
            message: "past the timeline's duration of 20t",
        },
        Case {
            file: with("/timeline/keyframes", json!([t("5t", "b")])),
            pointer: "/timeline/keyframes/0/node_transforms/b",
            message: "node `b` is not in `nodes`",
        },
        Case {
            file: with("/nodes/a/default_matrix", json!([1, 0, 0, 0])),
            pointer: "/nodes/a/default_matrix",
            message: "16 numbers, row-major; found 4",
        },
        Case {
            file: with(
                "/nodes/a/default_matrix",
                json!([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1]),
            ),
            pointer: "/nodes/a/default_matrix",
            message: "the last row must be 0 0 0 1",
        },
        Case {
            file: with("/timeline/duration", json!("soon")),
            pointer: "/timeline/duration",
            message: "not a Minecraft time",
        },
        Case {
            file: with("/nodes/a/parent", json!("a")),
            pointer: "/nodes/a/parent",
            message: "parents go round in a ring",
        },
        Case {
            file: with("/nodes/a/parent", json!("nobody")),
            pointer: "/nodes/a/parent",
            message: "parent `nobody` is not in `nodes`",
        },
        Case {
            file: with("/id", json!("Not An Id")),
            pointer: "the migrated file is refused at /id",
            message: "",
        },
        Case {
            file: json!({"schema_version": 1, "tick_rate": 30, "nodes": {},
                         "timeline": {"duration_ticks": 10}}),
            pointer: "/tick_rate",
            message: "says 30",
        },
    ];
    for case in cases {
        let error = convert(case.file.to_string().as_bytes(), &options()).expect_err("refused");
        let text = error.to_string();
        assert!(
            text.starts_with(case.pointer) && text.contains(case.message),
            "{text}"
        );
    }
}

fn fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .expect("the fixtures folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".json") && !name.ends_with(".schema4.json")
        })
        .collect();
    files.sort();
    files
}

/// Each fixture migrates to exactly its golden schema 4 file beside it
/// (`UPDATE_GOLDEN=1` rewrites the golden files).
#[test]
fn fixtures_migrate_to_their_golden_schema_4_files() {
    let files = fixtures();
    let count = |prefix: &str| {
        files
            .iter()
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix))
            })
            .count()
    };
    assert!(count("s1_") >= 3 && count("s3_") >= 3, "{files:?}");
    for path in files {
        let bytes = std::fs::read(&path).expect("reads");
        let out = convert(&bytes, &options()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        crate::import::golden::assert_matches_golden(&path, &out[0].json);
    }
}
