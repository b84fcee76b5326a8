//! The Emotecraft JSON reader, worked by hand from the layout in the
//! module guide; the fixtures against their golden schema 4 files; the
//! three real emotes of `../shared/samples/import/emotecraft` when that
//! folder is there.

use std::f32::consts::{PI, TAU};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::*;
use crate::format::settings::PlaybackMode;
use crate::format::{parse_emote_value, EmoteFile};

fn read(value: Value) -> Result<EmotecraftEmote, EmotecraftJsonError> {
    read_emote(value.to_string().as_bytes(), "stem")
}

/// A file with `moves`, `endTick` 20 and `extra` merged into `emote`.
fn file(moves: Value, extra: Value) -> Value {
    let mut emote = json!({"endTick": 20, "moves": moves});
    if let (Some(e), Some(x)) = (emote.as_object_mut(), extra.as_object()) {
        e.extend(x.clone());
    }
    json!({"name": "Test", "emote": emote})
}

/// The keys `(tick, value, ease)` of `part`'s axis `axis`.
fn keys(emote: &EmotecraftEmote, part: &str, axis: usize) -> Vec<(i32, f32, u8)> {
    let part = emote
        .animation
        .parts
        .iter()
        .find(|p| p.name == part)
        .unwrap_or_else(|| panic!("no part {part}"));
    part.axes[axis]
        .keyframes
        .iter()
        .map(|k| (k.tick, k.value, k.ease))
        .collect()
}

fn close(a: &[(i32, f32, u8)], b: &[(i32, f32, u8)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.0 == y.0 && x.2 == y.2 && (x.1 - y.1).abs() < 1e-6)
}

#[test]
fn ease_names_read_with_or_without_the_ease_prefix_in_any_case() {
    for (name, id) in [
        ("linear", Some(0)),
        ("step", Some(1)),
        ("constant", Some(1)),
        ("easeInOutSine", Some(8)),
        ("INOUTSINE", Some(8)),
        ("InOutSine", Some(8)),
        ("EASEINQUAD", Some(12)),
        ("inoutcirc", Some(26)),
        ("outExpo", Some(22)),
        ("EaseOutBack", Some(28)),
        ("inOutBounce", Some(35)),
        // PlayerAnimator compares `step` exactly, then upper-cases.
        ("Step", None),
        ("in", None),
        ("wobbly", None),
    ] {
        assert_eq!(ease_id(name), id, "{name}");
    }
}

#[test]
fn degrees_become_radians_and_offsets_stay_pixels() {
    // degrees is true by default: roll 90 → 90 × 0.01745329251 =
    // 1.5707964 rad; x stays −5 px; the move's ease (in-quad, 12) goes
    // on every key of the move; an axis without an easing is linear.
    let e = read(file(
        json!([
            {"tick": 3, "easing": "inQuad", "rightArm": {"roll": 90, "x": -5}},
            {"tick": 9, "rightArm": {"roll": "45"}}
        ]),
        json!({}),
    ))
    .expect("reads");
    assert!(close(
        &keys(&e, "rightArm", 5),
        &[(3, PI / 2.0, 12), (9, PI / 4.0, 0)]
    ));
    assert!(close(&keys(&e, "rightArm", 0), &[(3, -5.0, 12)]));
    // Radians stay as written when degrees is false.
    let e = read(file(
        json!([{"tick": 0, "head": {"yaw": 0.5}}]),
        json!({"degrees": false}),
    ))
    .expect("reads");
    assert!(close(&keys(&e, "head", 4), &[(0, 0.5, 0)]));
}

#[test]
fn a_part_given_one_axis_has_all_its_axes_enabled() {
    let e = read(file(
        json!([{"tick": 0, "leftLeg": {"pitch": 10}}]),
        json!({}),
    ))
    .expect("reads");
    let leg = &e.animation.parts[0];
    assert_eq!(leg.name, "leftLeg");
    assert_eq!(leg.axes.len(), 8);
    assert!(leg.axes.iter().all(|a| a.enabled));
    assert!(leg.axes[0].keyframes.is_empty());
}

#[test]
fn a_turn_adds_a_second_key_whole_turns_further_after_the_first() {
    // turn 1 at tick 10: the roll keys are 0.5 then 0.5 + 2π at tick 10,
    // after the key already at tick 10 (written earlier in the file); the
    // offset x gets no turned key.
    let e = read(file(
        json!([
            {"tick": 10, "head": {"roll": 0.25}},
            {"tick": 10, "turn": 1, "head": {"roll": 0.5, "x": 1}},
            {"tick": 0, "head": {"roll": 0}}
        ]),
        json!({"degrees": false}),
    ))
    .expect("reads");
    assert!(close(
        &keys(&e, "head", 5),
        &[(0, 0.0, 0), (10, 0.25, 0), (10, 0.5, 0), (10, 0.5 + TAU, 0)]
    ));
    assert!(close(&keys(&e, "head", 0), &[(10, 1.0, 0)]));
}

#[test]
fn torso_is_the_whole_body_before_version_3() {
    let moves = json!([{"tick": 0, "torso": {"pitch": 10}}]);
    for (version, part) in [(None, "body"), (Some(2), "body"), (Some(3), "torso")] {
        let mut f = file(moves.clone(), json!({}));
        if let Some(v) = version {
            f["version"] = json!(v);
        }
        let e = read(f).expect("reads");
        let names: Vec<&str> = e.animation.parts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, [part], "version {version:?}");
    }
}

#[test]
fn the_header_reads_as_playeranimator_reads_it() {
    // isLoop is a string in Emotecraft's own files; stopTick defaults to
    // endTick; isLoop without returnTick is ignored.
    let e = read(file(
        json!([]),
        json!({"isLoop": "true", "returnTick": 4, "beginTick": 2, "easeBeforeKeyframe": true}),
    ))
    .expect("reads");
    let a = &e.animation;
    assert_eq!(
        (
            a.begin_tick,
            a.end_tick,
            a.stop_tick,
            a.is_looped,
            a.return_tick,
            a.easing_before
        ),
        (2, 20, 20, true, 4, true)
    );
    let e = read(file(json!([]), json!({"isLoop": true}))).expect("reads");
    assert!(!e.animation.is_looped);
    assert_eq!(e.notes[0].pointer, "/emote/isLoop");
}

#[test]
fn metadata_takes_the_names_text_and_the_other_top_level_values() {
    let e = read(json!({
        "name": {"translate": "x.y", "fallback": "Shown"},
        "author": "Someone",
        "uuid": "33b912f8-0aa0-45e6-a2d4-9b5677e6f35c",
        "category": 7,
        "comment": "not kept",
        "emote": {"endTick": 5, "nsfw": true, "moves": []}
    }))
    .expect("reads");
    assert_eq!(
        Value::Object(e.metadata),
        json!({"name": "Shown", "author": "Someone", "category": 7, "nsfw": true,
               "uuid": "33b912f8-0aa0-45e6-a2d4-9b5677e6f35c"})
    );
    assert_eq!(
        e.animation.uuid.to_string(),
        "33b912f8-0aa0-45e6-a2d4-9b5677e6f35c"
    );
    let pointers: Vec<&str> = e.notes.iter().map(|n| n.pointer.as_str()).collect();
    assert_eq!(pointers, ["/name", "/emote/nsfw"]);
    // No name: the file's stem, with a note.
    let e = read(json!({"emote": {"endTick": 5, "moves": []}})).expect("reads");
    assert_eq!(e.metadata["name"], "stem");
}

#[test]
fn parts_and_axes_emoted_cannot_draw_are_dropped_with_one_note_each() {
    let e = read(file(
        json!([
            {"tick": 0, "easing": "wobbly", "leftItem": {"pitch": 1}, "tail": {"yaw": 1},
             "head": {"bend": 1, "size": 2}},
            {"tick": 5, "leftItem": {"pitch": 2}, "head": {"pitch": 1}}
        ]),
        json!({}),
    ))
    .expect("reads");
    let names: Vec<&str> = e.animation.parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["head"]);
    let pointers: Vec<&str> = e.notes.iter().map(|n| n.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/emote/moves/0/easing",
            "/emote/moves/0/head/size",
            "/emote/moves/0/head/bend",
            "/emote/moves/0/leftItem",
            "/emote/moves/0/tail",
        ]
    );
}

/// One error case: the file and what the error says.
struct Case {
    file: Value,
    pointer: &'static str,
    message: &'static str,
}

#[test]
fn broken_files_are_refused_with_the_pointer_and_the_rule() {
    let cases = [
        Case {
            file: json!({"name": "x", "animations": {}}),
            pointer: "/emote",
            message: "top-level `emote` object",
        },
        Case {
            file: json!({"name": "x", "emote": {"moves": []}}),
            pointer: "/emote",
            message: "`endTick` is required",
        },
        Case {
            file: file(json!([]), json!({"endTick": 0})),
            pointer: "/emote/endTick",
            message: "endTick must be bigger than 0, found 0",
        },
        Case {
            file: json!({"version": 4, "name": "x", "emote": {"endTick": 3, "moves": []}}),
            pointer: "/version",
            message: "version 4 is later than 3",
        },
        Case {
            file: file(json!([]), json!({"isLoop": true, "returnTick": 21})),
            pointer: "/emote/returnTick",
            message: "from 0 to endTick (20), found 21",
        },
        Case {
            file: file(json!([{"tick": 0}, {"tick": "soon"}]), json!({})),
            pointer: "/emote/moves/1/tick",
            message: "expected a whole number",
        },
        Case {
            file: file(json!([{"easing": "linear"}]), json!({})),
            pointer: "/emote/moves/0",
            message: "`tick` is required",
        },
        Case {
            file: file(json!([{"tick": 0, "head": 5}]), json!({})),
            pointer: "/emote/moves/0/head",
            message: "expected an object",
        },
        Case {
            file: file(json!([{"tick": 0, "head": {"yaw": "NaN"}}]), json!({})),
            pointer: "/emote/moves/0/head/yaw",
            message: "not a finite number",
        },
        Case {
            file: file(json!({"tick": 0}), json!({})),
            pointer: "/emote/moves",
            message: "expected an array of moves",
        },
    ];
    for case in cases {
        let error = read(case.file.clone()).expect_err("refused");
        let text = error.to_string();
        assert!(
            text.starts_with(case.pointer) && text.contains(case.message),
            "{}: {text}",
            case.file
        );
    }
    let error = read_emote(b"{\"name\": ", "stem").expect_err("not JSON");
    assert!(
        matches!(error, EmotecraftJsonError::Json { line: 1, .. }),
        "{error}"
    );
}

#[test]
fn a_right_arm_rolled_ninety_degrees_turns_the_shoulder_anchor() {
    // Roll 90° (degrees) on the right arm, held: the import's own test
    // works the shoulder anchor out as XYZ (0, 0, −90)°.
    let f = file(json!([{"tick": 0, "rightArm": {"roll": 90}}]), json!({}));
    let out = convert(f.to_string().as_bytes(), &options("arm")).expect("converts");
    let rotation = &out[0].json["timeline"]["tracks"]["shoulder_r"]["rotation"];
    assert_eq!(rotation.as_array().map(Vec::len), Some(1), "{rotation}");
    let z = rotation[0]["value"][2].as_f64().expect("a number");
    assert!((z + 90.0).abs() < 1e-3, "{z}");
    assert_eq!(out[0].json["id"], "test:arm");
    assert_eq!(out[0].file.settings.playback.mode, PlaybackMode::Once);
}

fn options(stem: &str) -> ConvertOptions {
    ConvertOptions {
        namespace: "test".to_owned(),
        stem: stem.to_owned(),
        ..ConvertOptions::default()
    }
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/emotecraft");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
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

fn stem(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("emote")
        .to_owned()
}

/// Each fixture converts to exactly its golden schema 4 file beside it
/// (`UPDATE_GOLDEN=1` rewrites the golden files).
#[test]
fn fixtures_convert_to_their_golden_schema_4_files() {
    let files = fixtures();
    assert_eq!(files.len(), 3, "{files:?}");
    for path in files {
        let bytes = std::fs::read(&path).expect("reads");
        let out = convert(&bytes, &options(&stem(&path)))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        crate::import::golden::assert_matches_golden(&path, &out[0].json);
    }
}

#[test]
fn the_fixtures_keep_what_their_layout_says() {
    let load = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/import/emotecraft")
            .join(name);
        let bytes = std::fs::read(&path).expect("reads");
        let out = convert(&bytes, &options(&stem(&path))).expect("converts");
        out.into_iter().next().expect("one emote")
    };
    // Not looped, endTick 30: once over 30 ticks; the whole-body roll
    // (version 1 torso) moves the hips.
    let wave = load("wave_v1.json");
    assert_eq!(wave.file.settings.playback.mode, PlaybackMode::Once);
    assert_eq!(wave.file.timeline.duration_ticks, 30);
    assert!(wave.json["timeline"]["tracks"].get("hips").is_some());
    // Looped to 0 at endTick 39: a 40-tick cycle.
    let spin = load("spin_loop_v3.json");
    assert_eq!(spin.file.settings.playback.mode, PlaybackMode::Loop);
    let p = &spin.file.settings.playback;
    assert_eq!(spin.file.timeline.duration_ticks + p.loop_delay_ticks, 40);
    // Looped to endTick: hold; the text component's fallback names it.
    let props = load("props_hold_v2.json");
    assert_eq!(props.file.settings.playback.mode, PlaybackMode::Hold);
    assert_eq!(props.json["metadata"]["name"], "Fixture props");
    assert_eq!(props.json["metadata"]["category"], "tests");
    let dropped: Vec<&str> = props.notes.iter().map(|n| n.pointer.as_str()).collect();
    for pointer in [
        "/emote/moves/2/rightItem",
        "/emote/moves/2/tail",
        "/emote/nsfw",
    ] {
        assert!(dropped.contains(&pointer), "{dropped:?}");
    }
}

/// The real Emotecraft emotes (KosmX, CC-BY-4.0), read in place.
#[test]
fn the_real_emotecraft_emotes_convert_to_files_the_reader_accepts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/import/emotecraft");
    if !dir.is_dir() {
        eprintln!("skipped: {} is not here", dir.display());
        return;
    }
    for (name, mode, duration_ticks) in [
        ("waving.json", PlaybackMode::Once, 45),
        ("palm.json", PlaybackMode::Once, 43),
        ("point.json", PlaybackMode::Once, 82),
    ] {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).expect("reads");
        let out = convert(&bytes, &options(&stem(&path))).unwrap_or_else(|e| panic!("{name}: {e}"));
        let report = parse_emote_value(&out[0].json);
        assert!(
            matches!(report.file, Some(EmoteFile::Animation(_)))
                && report.problems.iter().all(|p| !p.is_error()),
            "{name}: {:?}",
            report.problems
        );
        assert_eq!(out[0].file.settings.playback.mode, mode, "{name}");
        assert_eq!(
            out[0].file.timeline.duration_ticks, duration_ticks,
            "{name}"
        );
        assert_eq!(out[0].json["metadata"]["author"], "KosmX", "{name}");
    }
}
