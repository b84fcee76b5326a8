//! Every rule the schema 4 Sequence reader enforces (linear and two-player),
//! each with an invalid case (exact JSON pointer, message fragment naming the
//! rule) and valid variants; then the cross-file rules through
//! `Library::load` / `Library::reload` on temporary folders: references,
//! node compatibility, skin layouts, duplicate ids and last-good reloads.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use emoted::format::sequence::{Angle, Candidate, EmoteChoice, PositionFrame, SequenceFile, Step};
use emoted::format::{parse_emote_value, EmoteFile, Problem};
use emoted::library::{Library, LoadReport};
use serde_json::{json, Value};

use common::rules::*;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn run_invalid(base: &Value, cases: &[Case]) {
    assert_unique_names(cases.iter().map(|c| c.name));
    let mut failures = Vec::new();
    for case in cases {
        let mut v = base.clone();
        (case.patch)(&mut v);
        let report = parse_emote_value(&v);
        if !has_error(&report, case.pointer, case.message) || report.file.is_some() {
            failures.push(format!(
                "case `{}`: expected an error at `{}` containing `{}`; problems:\n{}",
                case.name,
                case.pointer,
                case.message,
                describe(&report.problems)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} invalid cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

fn load(v: &Value) -> Result<SequenceFile, String> {
    let report = parse_emote_value(v);
    let has_errors = report.problems.iter().any(Problem::is_error);
    match report.file {
        Some(EmoteFile::Sequence(s)) if !has_errors => Ok(s),
        Some(EmoteFile::Animation(_)) => Err("read as an Animation".to_owned()),
        _ => Err(format!("refused:\n{}", describe(&report.problems))),
    }
}

fn run_valid(base: &Value, variants: &[Valid<SequenceFile>]) {
    assert_unique_names(variants.iter().map(|c| c.name));
    let mut failures = Vec::new();
    for variant in variants {
        let mut v = base.clone();
        (variant.patch)(&mut v);
        if let Err(e) = load(&v).and_then(|s| (variant.check)(&s)) {
            failures.push(format!("valid variant `{}`: {e}", variant.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} valid variants failed:\n{}",
        failures.len(),
        variants.len(),
        failures.join("\n")
    );
}

fn player_settings() -> Value {
    json!({
        "hidden": true,
        "stop_conditions": {
            "movement_distance": 0.5,
            "jump": true,
            "submerge": true,
            "ride": true,
            "damage": true,
            "attack": true,
            "game_mode_change": true
        }
    })
}

/// A valid linear Sequence: a single id, a wait, a uniform random choice with
/// repeat and transition, and a weighted choice with both control ids.
fn linear() -> Value {
    json!({
        "type": "sequence",
        "schema_version": 4,
        "id": "test:seq",
        "metadata": {"name": "Seq", "description": "A test sequence.", "author": "tests"},
        "settings": {"cooldown": "1s", "player": player_settings()},
        "steps": [
            {"emote": "test:a"},
            {"wait": "10t"},
            {"emote": ["test:a", "test:b"], "repeat": 2, "transition": "3t"},
            {"emote": ["test:a", 40, "test:b", 35, "emote:continue", 15, "emote:break", 10]}
        ]
    })
}

/// A valid two-player Sequence.
fn duo() -> Value {
    json!({
        "type": "sequence",
        "schema_version": 4,
        "id": "test:duo",
        "metadata": {"name": "Duo"},
        "settings": {"cooldown": "3s", "player": player_settings()},
        "participants": {
            "initiator": {"position": "~ ~ ~", "rotation": "~ 0"},
            "partner": {"position": "^ ^ ^1.2", "rotation": "~180 0"}
        },
        "steps": [{
            "await_partner": {"emote": "test:offer", "timeout": "10s"},
            "matched": [
                {"emote": "test:a", "repeat": 2},
                {"wait": "1s"},
                {"emote": "test:b", "transition": "3t"}
            ],
            "timeout": [{"emote": "test:b"}]
        }]
    })
}

#[test]
fn bases_load_with_no_problem_at_all() {
    for (name, v) in [("linear", linear()), ("duo", duo())] {
        let report = parse_emote_value(&v);
        assert!(
            report.problems.is_empty(),
            "{name} has problems:\n{}",
            describe(&report.problems)
        );
        assert!(
            matches!(report.file, Some(EmoteFile::Sequence(_))),
            "{name} not read as a Sequence"
        );
    }
    let s = load(&linear()).expect("linear");
    assert!(!s.is_two_player());
    assert_eq!(s.steps.len(), 4);
    let d = load(&duo()).expect("duo");
    assert!(d.is_two_player());
    let refs: Vec<(&str, &str)> = d
        .references()
        .iter()
        .map(|r| (r.id.as_str(), r.pointer.as_str()))
        .collect();
    assert_eq!(
        refs,
        vec![
            ("test:offer", "/steps/0/await_partner/emote"),
            ("test:a", "/steps/0/matched/0/emote"),
            ("test:b", "/steps/0/matched/2/emote"),
            ("test:b", "/steps/0/timeout/0/emote"),
        ]
    );
}

#[test]
fn the_harness_names_a_failing_case() {
    let wrong = vec![Case {
        name: "deliberately wrong pointer",
        patch: |v| set(v, "/id", json!("Bad")),
        pointer: "/nope",
        message: "x",
    }];
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_invalid(&linear(), &wrong)
    }))
    .expect_err("must fail");
    let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("deliberately wrong pointer"), "{text}");
    let wrong = vec![Valid {
        name: "deliberately invalid variant",
        patch: |v| set(v, "/steps", json!([])),
        check: no_check,
    }];
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_valid(&linear(), &wrong)
    }))
    .expect_err("must fail");
    let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("deliberately invalid variant"), "{text}");
}

// ---------------------------------------------------------------------------
// Linear Sequences: invalid cases
// ---------------------------------------------------------------------------

fn linear_cases() -> Vec<Case> {
    vec![
        // --- root ----------------------------------------------------------
        Case {
            name: "type missing",
            patch: |v| remove(v, "/type"),
            pointer: "",
            message: "missing required field `type`",
        },
        Case {
            name: "type unknown",
            patch: |v| set(v, "/type", json!("playlist")),
            pointer: "/type",
            message: "must be \"animation\", \"sequence\" or \"controller\"",
        },
        Case {
            name: "schema_version missing",
            patch: |v| remove(v, "/schema_version"),
            pointer: "",
            message: "missing required field `schema_version`",
        },
        Case {
            name: "schema_version 3",
            patch: |v| set(v, "/schema_version", json!(3)),
            pointer: "/schema_version",
            message: "must be 4",
        },
        Case {
            name: "schema_version 1",
            patch: |v| set(v, "/schema_version", json!(1)),
            pointer: "/schema_version",
            message: "must be 4",
        },
        Case {
            name: "id missing",
            patch: |v| remove(v, "/id"),
            pointer: "",
            message: "missing required field `id`",
        },
        Case {
            name: "id uppercase",
            patch: |v| set(v, "/id", json!("Test:Seq")),
            pointer: "/id",
            message: "lowercase namespace:path",
        },
        Case {
            name: "id without namespace",
            patch: |v| set(v, "/id", json!("seq")),
            pointer: "/id",
            message: "namespace:path",
        },
        Case {
            name: "id is a control id",
            patch: |v| set(v, "/id", json!("emote:break")),
            pointer: "/id",
            message: "reserved for Sequence repeat control",
        },
        Case {
            name: "metadata missing",
            patch: |v| remove(v, "/metadata"),
            pointer: "",
            message: "missing required field `metadata`",
        },
        Case {
            name: "metadata name missing",
            patch: |v| remove(v, "/metadata/name"),
            pointer: "/metadata",
            message: "missing required field `name`",
        },
        Case {
            name: "metadata name empty",
            patch: |v| set(v, "/metadata/name", json!("")),
            pointer: "/metadata/name",
            message: "must not be empty",
        },
        Case {
            name: "settings missing",
            patch: |v| remove(v, "/settings"),
            pointer: "",
            message: "missing required field `settings`",
        },
        Case {
            name: "settings not an object",
            patch: |v| set(v, "/settings", json!("none")),
            pointer: "/settings",
            message: "must be an object",
        },
        Case {
            name: "steps missing",
            patch: |v| remove(v, "/steps"),
            pointer: "",
            message: "missing required field `steps`",
        },
        Case {
            name: "unknown root field",
            patch: |v| set(v, "/loop", json!(true)),
            pointer: "/loop",
            message: "unknown field `loop`",
        },
        Case {
            name: "Animation root field nodes",
            patch: |v| set(v, "/nodes", json!({})),
            pointer: "/nodes",
            message: "unknown field `nodes`",
        },
        Case {
            name: "Animation root field timeline",
            patch: |v| set(v, "/timeline", json!({})),
            pointer: "/timeline",
            message: "unknown field `timeline`",
        },
        Case {
            name: "target_minecraft_version not a string",
            patch: |v| set(v, "/target_minecraft_version", json!(1)),
            pointer: "/target_minecraft_version",
            message: "must be a string",
        },
        // --- settings: only cooldown and player ----------------------------
        Case {
            name: "settings standalone refused",
            patch: |v| set(v, "/settings/standalone", json!(true)),
            pointer: "/settings/standalone",
            message: "unknown field `standalone`",
        },
        Case {
            name: "settings rotation_deadzone refused",
            patch: |v| set(v, "/settings/rotation_deadzone", json!(50)),
            pointer: "/settings/rotation_deadzone",
            message: "unknown field `rotation_deadzone`",
        },
        Case {
            name: "settings playback refused",
            patch: |v| set(v, "/settings/playback", json!({"mode": "loop"})),
            pointer: "/settings/playback",
            message: "unknown field `playback`",
        },
        Case {
            name: "settings display_interpolation refused",
            patch: |v| set(v, "/settings/display_interpolation", json!("1t")),
            pointer: "/settings/display_interpolation",
            message: "unknown field",
        },
        Case {
            name: "cooldown negative",
            patch: |v| set(v, "/settings/cooldown", json!("-1t")),
            pointer: "/settings/cooldown",
            message: "at least 0t",
        },
        Case {
            name: "cooldown bad syntax",
            patch: |v| set(v, "/settings/cooldown", json!("one second")),
            pointer: "/settings/cooldown",
            message: "is not a Minecraft time",
        },
        Case {
            name: "player not an object",
            patch: |v| set(v, "/settings/player", json!([])),
            pointer: "/settings/player",
            message: "must be an object",
        },
        Case {
            name: "player hidden not a boolean",
            patch: |v| set(v, "/settings/player/hidden", json!("no")),
            pointer: "/settings/player/hidden",
            message: "must be true or false",
        },
        Case {
            name: "movement_distance negative",
            patch: |v| {
                set(
                    v,
                    "/settings/player/stop_conditions/movement_distance",
                    json!(-1),
                )
            },
            pointer: "/settings/player/stop_conditions/movement_distance",
            message: "0 (off) or a positive distance",
        },
        Case {
            name: "stop condition not a boolean",
            patch: |v| set(v, "/settings/player/stop_conditions/ride", json!(1)),
            pointer: "/settings/player/stop_conditions/ride",
            message: "must be true or false",
        },
        Case {
            name: "stop conditions unknown field",
            patch: |v| set(v, "/settings/player/stop_conditions/fall", json!(true)),
            pointer: "/settings/player/stop_conditions/fall",
            message: "unknown field",
        },
        // --- steps -----------------------------------------------------------
        Case {
            name: "steps not an array",
            patch: |v| set(v, "/steps", json!({"emote": "test:a"})),
            pointer: "/steps",
            message: "must be an array",
        },
        Case {
            name: "steps empty",
            patch: |v| set(v, "/steps", json!([])),
            pointer: "/steps",
            message: "must not be empty",
        },
        Case {
            name: "step not an object",
            patch: |v| set(v, "/steps/0", json!("test:a")),
            pointer: "/steps/0",
            message: "must be an object",
        },
        Case {
            name: "step with no kind",
            patch: |v| set(v, "/steps/0", json!({})),
            pointer: "/steps/0",
            message: "exactly one of `emote`, `wait` or `await_partner`",
        },
        Case {
            name: "step with repeat only",
            patch: |v| set(v, "/steps/0", json!({"repeat": 2})),
            pointer: "/steps/0",
            message: "exactly one of `emote`, `wait` or `await_partner`",
        },
        Case {
            name: "step emote and wait",
            patch: |v| set(v, "/steps/0/wait", json!("5t")),
            pointer: "/steps/0",
            message: "exactly one of `emote`, `wait` or `await_partner`",
        },
        Case {
            name: "step emote and await_partner",
            patch: |v| {
                set(
                    v,
                    "/steps/2/await_partner",
                    json!({"emote": "test:a", "timeout": "5s"}),
                )
            },
            pointer: "/steps/2",
            message: "exactly one of `emote`, `wait` or `await_partner`",
        },
        Case {
            name: "step unknown field",
            patch: |v| set(v, "/steps/0/loop", json!(true)),
            pointer: "/steps/0/loop",
            message: "unknown field `loop`",
        },
        Case {
            name: "emote id invalid",
            patch: |v| set(v, "/steps/0/emote", json!("Test:A")),
            pointer: "/steps/0/emote",
            message: "lowercase namespace:path",
        },
        Case {
            name: "emote id without namespace",
            patch: |v| set(v, "/steps/0/emote", json!("wave")),
            pointer: "/steps/0/emote",
            message: "namespace:path",
        },
        Case {
            name: "emote a number",
            patch: |v| set(v, "/steps/0/emote", json!(5)),
            pointer: "/steps/0/emote",
            message: "an Animation id or a random-selection array",
        },
        Case {
            name: "emote an object",
            patch: |v| set(v, "/steps/0/emote", json!({"id": "test:a"})),
            pointer: "/steps/0/emote",
            message: "an Animation id or a random-selection array",
        },
        Case {
            name: "emote an empty array",
            patch: |v| set(v, "/steps/0/emote", json!([])),
            pointer: "/steps/0/emote",
            message: "an Animation id or a random-selection array",
        },
        Case {
            name: "emote:continue outside an array",
            patch: |v| set(v, "/steps/0/emote", json!("emote:continue")),
            pointer: "/steps/0/emote",
            message: "only inside a random-selection array",
        },
        Case {
            name: "emote:break outside an array",
            patch: |v| set(v, "/steps/2/emote", json!("emote:break")),
            pointer: "/steps/2/emote",
            message: "only inside a random-selection array",
        },
        Case {
            name: "uniform choice invalid id",
            patch: |v| set(v, "/steps/2/emote/1", json!("B")),
            pointer: "/steps/2/emote/1",
            message: "namespace:path",
        },
        Case {
            name: "uniform choice non-string",
            patch: |v| set(v, "/steps/2/emote/1", json!(true)),
            pointer: "/steps/2/emote/1",
            message: "lists Animation ids",
        },
        Case {
            name: "uniform choice only control ids",
            patch: |v| {
                set(
                    v,
                    "/steps/2/emote",
                    json!(["emote:continue", "emote:break"]),
                )
            },
            pointer: "/steps/2/emote",
            message: "at least one real Animation",
        },
        Case {
            name: "weights sum to 99",
            patch: |v| set(v, "/steps/3/emote/1", json!(39)),
            pointer: "/steps/3/emote",
            message: "weights must total exactly 100, found 99",
        },
        Case {
            name: "weights sum to 101",
            patch: |v| set(v, "/steps/3/emote/1", json!(41)),
            pointer: "/steps/3/emote",
            message: "weights must total exactly 100, found 101",
        },
        Case {
            name: "weights sum to 100 only as fractions",
            patch: |v| set(v, "/steps/3/emote", json!(["test:a", 50.5, "test:b", 49.5])),
            pointer: "/steps/3/emote/1",
            message: "whole number",
        },
        Case {
            name: "weight zero",
            patch: |v| set(v, "/steps/3/emote", json!(["test:a", 0, "test:b", 100])),
            pointer: "/steps/3/emote/1",
            message: "at least 1",
        },
        Case {
            name: "weight negative",
            patch: |v| set(v, "/steps/3/emote", json!(["test:a", -10, "test:b", 110])),
            pointer: "/steps/3/emote/1",
            message: "at least 1",
        },
        Case {
            name: "weight fractional",
            patch: |v| set(v, "/steps/3/emote/1", json!(39.5)),
            pointer: "/steps/3/emote/1",
            message: "whole number",
        },
        Case {
            name: "weight written as a string",
            patch: |v| set(v, "/steps/3/emote/1", json!("40")),
            pointer: "/steps/3/emote/1",
            message: "expected a whole-number weight",
        },
        Case {
            name: "weighted choice odd length (mixed)",
            patch: |v| set(v, "/steps/3/emote", json!(["test:a", "test:b", 100])),
            pointer: "/steps/3/emote",
            message: "alternates id and weight",
        },
        Case {
            name: "weighted choice bare id in a weight slot (mixed)",
            patch: |v| {
                set(
                    v,
                    "/steps/3/emote",
                    json!(["test:a", 100, "test:b", "test:c"]),
                )
            },
            pointer: "/steps/3/emote/3",
            message: "do not mix bare ids with weighted ones",
        },
        Case {
            name: "weighted choice weight in an id slot",
            patch: |v| set(v, "/steps/3/emote", json!([50, "test:a", 50, "test:b"])),
            pointer: "/steps/3/emote/0",
            message: "expected an id here",
        },
        Case {
            name: "weighted choice invalid id",
            patch: |v| set(v, "/steps/3/emote/2", json!("Test:B")),
            pointer: "/steps/3/emote/2",
            message: "namespace:path",
        },
        Case {
            name: "weighted choice only control ids",
            patch: |v| {
                set(
                    v,
                    "/steps/3/emote",
                    json!(["emote:continue", 60, "emote:break", 40]),
                )
            },
            pointer: "/steps/3/emote",
            message: "at least one real Animation",
        },
        Case {
            name: "repeat zero",
            patch: |v| set(v, "/steps/2/repeat", json!(0)),
            pointer: "/steps/2/repeat",
            message: "at least 1",
        },
        Case {
            name: "repeat negative",
            patch: |v| set(v, "/steps/2/repeat", json!(-2)),
            pointer: "/steps/2/repeat",
            message: "at least 1",
        },
        Case {
            name: "repeat fractional",
            patch: |v| set(v, "/steps/2/repeat", json!(1.5)),
            pointer: "/steps/2/repeat",
            message: "whole number",
        },
        Case {
            name: "repeat as string",
            patch: |v| set(v, "/steps/2/repeat", json!("2")),
            pointer: "/steps/2/repeat",
            message: "whole number",
        },
        Case {
            name: "transition negative",
            patch: |v| set(v, "/steps/2/transition", json!("-1t")),
            pointer: "/steps/2/transition",
            message: "at least 0t",
        },
        Case {
            name: "transition bad syntax",
            patch: |v| set(v, "/steps/2/transition", json!("fast")),
            pointer: "/steps/2/transition",
            message: "is not a Minecraft time",
        },
        // --- wait steps ------------------------------------------------------
        Case {
            name: "wait zero",
            patch: |v| set(v, "/steps/1/wait", json!("0t")),
            pointer: "/steps/1/wait",
            message: "at least 1t",
        },
        Case {
            name: "wait rounds to zero",
            patch: |v| set(v, "/steps/1/wait", json!("0.02s")),
            pointer: "/steps/1/wait",
            message: "at least 1t",
        },
        Case {
            name: "wait zero as number",
            patch: |v| set(v, "/steps/1/wait", json!(0)),
            pointer: "/steps/1/wait",
            message: "at least 1t",
        },
        Case {
            name: "wait negative",
            patch: |v| set(v, "/steps/1/wait", json!("-1s")),
            pointer: "/steps/1/wait",
            message: "at least 1t",
        },
        Case {
            name: "wait not a time",
            patch: |v| set(v, "/steps/1/wait", json!(true)),
            pointer: "/steps/1/wait",
            message: "must be a time",
        },
        Case {
            name: "wait first",
            patch: |v| set(v, "/steps/0", json!({"wait": "5t"})),
            pointer: "/steps/0/wait",
            message: "cannot be the first step",
        },
        Case {
            name: "wait last",
            patch: |v| set(v, "/steps/4", json!({"wait": "5t"})),
            pointer: "/steps/4/wait",
            message: "cannot be the last step",
        },
        Case {
            name: "wait next to wait",
            patch: |v| set(v, "/steps/2", json!({"wait": "5t"})),
            pointer: "/steps/2/wait",
            message: "cannot follow another wait",
        },
        Case {
            name: "wait only step",
            patch: |v| set(v, "/steps", json!([{"wait": "5t"}])),
            pointer: "/steps/0/wait",
            message: "cannot be the first step",
        },
        Case {
            name: "wait with repeat",
            patch: |v| set(v, "/steps/1/repeat", json!(2)),
            pointer: "/steps/1/repeat",
            message: "a wait step cannot have `repeat`",
        },
        Case {
            name: "wait with transition",
            patch: |v| set(v, "/steps/1/transition", json!("2t")),
            pointer: "/steps/1/transition",
            message: "a wait step cannot have `transition`",
        },
        Case {
            name: "wait unknown field",
            patch: |v| set(v, "/steps/1/pose", json!("last")),
            pointer: "/steps/1/pose",
            message: "unknown field",
        },
        // --- two-player parts in a linear file -------------------------------
        Case {
            name: "participants without await_partner",
            patch: |v| {
                set(
                    v,
                    "/participants",
                    json!({"initiator": {"position": "~ ~ ~", "rotation": "~ 0"}, "partner": {"position": "^ ^ ^1", "rotation": "~180 0"}}),
                )
            },
            pointer: "/participants",
            message: "only for two-player Sequences",
        },
        Case {
            name: "await_partner among linear steps",
            patch: |v| {
                set(
                    v,
                    "/steps/4",
                    json!({"await_partner": {"emote": "test:a", "timeout": "5s"}, "matched": [{"emote": "test:a"}], "timeout": [{"emote": "test:b"}]}),
                )
            },
            pointer: "/steps",
            message: "exactly one step, and it is `await_partner`",
        },
    ]
}

#[test]
fn every_linear_invalid_case_is_refused_at_its_pointer_with_its_rule() {
    run_invalid(&linear(), &linear_cases());
}

// ---------------------------------------------------------------------------
// Two-player Sequences: invalid cases
// ---------------------------------------------------------------------------

fn duo_cases() -> Vec<Case> {
    vec![
        Case {
            name: "participants missing",
            patch: |v| remove(v, "/participants"),
            pointer: "",
            message: "requires `participants`",
        },
        Case {
            name: "participants not an object",
            patch: |v| set(v, "/participants", json!("both")),
            pointer: "/participants",
            message: "must be an object",
        },
        Case {
            name: "participants initiator missing",
            patch: |v| remove(v, "/participants/initiator"),
            pointer: "/participants",
            message: "missing required field `initiator`",
        },
        Case {
            name: "participants partner missing",
            patch: |v| remove(v, "/participants/partner"),
            pointer: "/participants",
            message: "missing required field `partner`",
        },
        Case {
            name: "participants unknown field",
            patch: |v| {
                set(
                    v,
                    "/participants/spectator",
                    json!({"position": "~ ~ ~", "rotation": "~ 0"}),
                )
            },
            pointer: "/participants/spectator",
            message: "unknown field",
        },
        Case {
            name: "placement not an object",
            patch: |v| set(v, "/participants/partner", json!("^ ^ ^1")),
            pointer: "/participants/partner",
            message: "must be an object",
        },
        Case {
            name: "placement position missing",
            patch: |v| remove(v, "/participants/partner/position"),
            pointer: "/participants/partner",
            message: "missing required field `position`",
        },
        Case {
            name: "placement rotation missing",
            patch: |v| remove(v, "/participants/initiator/rotation"),
            pointer: "/participants/initiator",
            message: "missing required field `rotation`",
        },
        Case {
            name: "placement unknown field",
            patch: |v| set(v, "/participants/partner/facing", json!("north")),
            pointer: "/participants/partner/facing",
            message: "unknown field",
        },
        Case {
            name: "position mixes ~ and ^",
            patch: |v| set(v, "/participants/partner/position", json!("~ ^ ~1")),
            pointer: "/participants/partner/position",
            message: "all use `~`",
        },
        Case {
            name: "position mixes ^ and ~",
            patch: |v| set(v, "/participants/partner/position", json!("^ ^ ~1")),
            pointer: "/participants/partner/position",
            message: "all use `~`",
        },
        Case {
            name: "position absolute",
            patch: |v| set(v, "/participants/partner/position", json!("1 64 2")),
            pointer: "/participants/partner/position",
            message: "all use `~`",
        },
        Case {
            name: "position partly absolute",
            patch: |v| set(v, "/participants/initiator/position", json!("~ 64 ~")),
            pointer: "/participants/initiator/position",
            message: "all use `~`",
        },
        Case {
            name: "position two coordinates",
            patch: |v| set(v, "/participants/partner/position", json!("^ ^")),
            pointer: "/participants/partner/position",
            message: "three coordinates",
        },
        Case {
            name: "position four coordinates",
            patch: |v| set(v, "/participants/partner/position", json!("^ ^ ^ ^")),
            pointer: "/participants/partner/position",
            message: "three coordinates",
        },
        Case {
            name: "position bad number",
            patch: |v| set(v, "/participants/partner/position", json!("^ ^ ^one")),
            pointer: "/participants/partner/position",
            message: "three coordinates",
        },
        Case {
            name: "position not a string",
            patch: |v| set(v, "/participants/partner/position", json!([0, 0, 1])),
            pointer: "/participants/partner/position",
            message: "must be a string",
        },
        Case {
            name: "rotation with ^",
            patch: |v| set(v, "/participants/partner/rotation", json!("^ 0")),
            pointer: "/participants/partner/rotation",
            message: "`<yaw> <pitch>`",
        },
        Case {
            name: "rotation one angle",
            patch: |v| set(v, "/participants/partner/rotation", json!("~180")),
            pointer: "/participants/partner/rotation",
            message: "`<yaw> <pitch>`",
        },
        Case {
            name: "rotation three angles",
            patch: |v| set(v, "/participants/partner/rotation", json!("~180 0 0")),
            pointer: "/participants/partner/rotation",
            message: "`<yaw> <pitch>`",
        },
        Case {
            name: "rotation a word",
            patch: |v| set(v, "/participants/partner/rotation", json!("north 0")),
            pointer: "/participants/partner/rotation",
            message: "`<yaw> <pitch>`",
        },
        Case {
            name: "rotation not a string",
            patch: |v| set(v, "/participants/partner/rotation", json!([180, 0])),
            pointer: "/participants/partner/rotation",
            message: "must be a string",
        },
        Case {
            name: "two top-level steps",
            patch: |v| set(v, "/steps/1", json!({"emote": "test:a"})),
            pointer: "/steps",
            message: "exactly one step, and it is `await_partner`",
        },
        Case {
            name: "await step with repeat",
            patch: |v| set(v, "/steps/0/repeat", json!(2)),
            pointer: "/steps/0/repeat",
            message: "cannot have `repeat`",
        },
        Case {
            name: "await step with transition",
            patch: |v| set(v, "/steps/0/transition", json!("2t")),
            pointer: "/steps/0/transition",
            message: "unknown field",
        },
        Case {
            name: "await_partner not an object",
            patch: |v| set(v, "/steps/0/await_partner", json!("test:offer")),
            pointer: "/steps/0/await_partner",
            message: "must be an object",
        },
        Case {
            name: "await_partner unknown field",
            patch: |v| set(v, "/steps/0/await_partner/repeat", json!(2)),
            pointer: "/steps/0/await_partner/repeat",
            message: "unknown field",
        },
        Case {
            name: "offer missing",
            patch: |v| remove(v, "/steps/0/await_partner/emote"),
            pointer: "/steps/0/await_partner",
            message: "missing required field `emote`",
        },
        Case {
            name: "offer a control id",
            patch: |v| set(v, "/steps/0/await_partner/emote", json!("emote:continue")),
            pointer: "/steps/0/await_partner/emote",
            message: "control ids",
        },
        Case {
            name: "offer emote:break",
            patch: |v| set(v, "/steps/0/await_partner/emote", json!("emote:break")),
            pointer: "/steps/0/await_partner/emote",
            message: "control ids",
        },
        Case {
            name: "offer a random array",
            patch: |v| {
                set(
                    v,
                    "/steps/0/await_partner/emote",
                    json!(["test:offer", "test:a"]),
                )
            },
            pointer: "/steps/0/await_partner/emote",
            message: "must be a string",
        },
        Case {
            name: "offer invalid id",
            patch: |v| set(v, "/steps/0/await_partner/emote", json!("Offer")),
            pointer: "/steps/0/await_partner/emote",
            message: "namespace:path",
        },
        Case {
            name: "timeout missing",
            patch: |v| remove(v, "/steps/0/await_partner/timeout"),
            pointer: "/steps/0/await_partner",
            message: "missing required field `timeout`",
        },
        Case {
            name: "timeout zero",
            patch: |v| set(v, "/steps/0/await_partner/timeout", json!("0t")),
            pointer: "/steps/0/await_partner/timeout",
            message: "at least 1t",
        },
        Case {
            name: "timeout rounds to zero",
            patch: |v| set(v, "/steps/0/await_partner/timeout", json!("0.01s")),
            pointer: "/steps/0/await_partner/timeout",
            message: "at least 1t",
        },
        Case {
            name: "timeout negative",
            patch: |v| set(v, "/steps/0/await_partner/timeout", json!("-5s")),
            pointer: "/steps/0/await_partner/timeout",
            message: "at least 1t",
        },
        Case {
            name: "matched missing",
            patch: |v| remove(v, "/steps/0/matched"),
            pointer: "/steps/0",
            message: "missing required field `matched`",
        },
        Case {
            name: "timeout branch missing",
            patch: |v| remove(v, "/steps/0/timeout"),
            pointer: "/steps/0",
            message: "missing required field `timeout`",
        },
        Case {
            name: "matched empty",
            patch: |v| set(v, "/steps/0/matched", json!([])),
            pointer: "/steps/0/matched",
            message: "must not be empty",
        },
        Case {
            name: "timeout branch empty",
            patch: |v| set(v, "/steps/0/timeout", json!([])),
            pointer: "/steps/0/timeout",
            message: "must not be empty",
        },
        Case {
            name: "matched not an array",
            patch: |v| set(v, "/steps/0/matched", json!({"emote": "test:a"})),
            pointer: "/steps/0/matched",
            message: "must be an array",
        },
        Case {
            name: "nested await_partner in matched",
            patch: |v| {
                set(
                    v,
                    "/steps/0/matched/0",
                    json!({"await_partner": {"emote": "test:offer", "timeout": "5s"}, "matched": [{"emote": "test:a"}], "timeout": [{"emote": "test:b"}]}),
                )
            },
            pointer: "/steps/0/matched/0/await_partner",
            message: "cannot contain another `await_partner`",
        },
        Case {
            name: "nested await_partner in timeout",
            patch: |v| {
                set(
                    v,
                    "/steps/0/timeout/0",
                    json!({"await_partner": {"emote": "test:offer", "timeout": "5s"}, "matched": [{"emote": "test:a"}], "timeout": [{"emote": "test:b"}]}),
                )
            },
            pointer: "/steps/0/timeout/0/await_partner",
            message: "cannot contain another `await_partner`",
        },
        Case {
            name: "branch wait first",
            patch: |v| {
                set(
                    v,
                    "/steps/0/timeout",
                    json!([{"wait": "5t"}, {"emote": "test:b"}]),
                )
            },
            pointer: "/steps/0/timeout/0/wait",
            message: "cannot be the first step",
        },
        Case {
            name: "branch wait last",
            patch: |v| set(v, "/steps/0/matched/3", json!({"wait": "5t"})),
            pointer: "/steps/0/matched/3/wait",
            message: "cannot be the last step",
        },
        Case {
            name: "branch wait next to wait",
            patch: |v| {
                set(
                    v,
                    "/steps/0/matched",
                    json!([{"emote": "test:a"}, {"wait": "5t"}, {"wait": "5t"}, {"emote": "test:b"}]),
                )
            },
            pointer: "/steps/0/matched/2/wait",
            message: "cannot follow another wait",
        },
        Case {
            name: "branch wait with repeat",
            patch: |v| set(v, "/steps/0/matched/1/repeat", json!(3)),
            pointer: "/steps/0/matched/1/repeat",
            message: "a wait step cannot have `repeat`",
        },
        Case {
            name: "branch repeat zero",
            patch: |v| set(v, "/steps/0/matched/0/repeat", json!(0)),
            pointer: "/steps/0/matched/0/repeat",
            message: "at least 1",
        },
        Case {
            name: "branch control id outside an array",
            patch: |v| set(v, "/steps/0/matched/2/emote", json!("emote:break")),
            pointer: "/steps/0/matched/2/emote",
            message: "only inside a random-selection array",
        },
        Case {
            name: "branch weights not 100",
            patch: |v| {
                set(
                    v,
                    "/steps/0/timeout/0/emote",
                    json!(["test:a", 30, "test:b", 30]),
                )
            },
            pointer: "/steps/0/timeout/0/emote",
            message: "exactly 100, found 60",
        },
        Case {
            name: "branch step with two kinds",
            patch: |v| set(v, "/steps/0/timeout/0/wait", json!("2t")),
            pointer: "/steps/0/timeout/0",
            message: "exactly one of",
        },
    ]
}

#[test]
fn every_two_player_invalid_case_is_refused_at_its_pointer_with_its_rule() {
    run_invalid(&duo(), &duo_cases());
}

// ---------------------------------------------------------------------------
// Valid variants
// ---------------------------------------------------------------------------

fn choice(s: &SequenceFile, step: usize) -> Result<&EmoteChoice, String> {
    match s.steps.get(step) {
        Some(Step::Play { emote, .. }) => Ok(emote),
        other => Err(format!("step {step} is {other:?}")),
    }
}

fn linear_valid() -> Vec<Valid<SequenceFile>> {
    vec![
        Valid {
            name: "steps read in order",
            patch: |_| {},
            check: |s| match &s.steps[..] {
                [Step::Play {
                    repeat: 1,
                    transition_ticks: 0,
                    ..
                }, Step::Wait { duration_ticks: 10 }, Step::Play {
                    repeat: 2,
                    transition_ticks: 3,
                    ..
                }, Step::Play { .. }] => Ok(()),
                other => Err(format!("steps read as {other:?}")),
            },
        },
        Valid {
            name: "weighted choice keeps weights and control ids",
            patch: |_| {},
            check: |s| match choice(s, 3)? {
                EmoteChoice::Random(list) => {
                    let weights: Vec<u32> = list.iter().map(|(_, w)| *w).collect();
                    expect_eq("weights", weights, vec![40, 35, 15, 10])?;
                    expect_eq("continue", matches!(list[2].0, Candidate::Continue), true)?;
                    expect_eq("break", matches!(list[3].0, Candidate::Break), true)?;
                    expect_eq(
                        "animations",
                        choice(s, 3)?
                            .animations()
                            .iter()
                            .map(|r| r.id.as_str())
                            .collect::<Vec<_>>(),
                        vec!["test:a", "test:b"],
                    )
                }
                other => Err(format!("{other:?}")),
            },
        },
        Valid {
            name: "uniform choice has equal weights",
            patch: |_| {},
            check: |s| match choice(s, 2)? {
                EmoteChoice::Random(list) => expect_eq(
                    "weights",
                    list.iter().map(|(_, w)| *w).collect::<Vec<_>>(),
                    vec![1, 1],
                ),
                other => Err(format!("{other:?}")),
            },
        },
        Valid {
            name: "single weighted id with 100",
            patch: |v| set(v, "/steps/3/emote", json!(["test:a", 100])),
            check: no_check,
        },
        Valid {
            name: "weights 1 and 99",
            patch: |v| set(v, "/steps/3/emote", json!(["test:a", 1, "test:b", 99])),
            check: no_check,
        },
        Valid {
            name: "single-id uniform array",
            patch: |v| set(v, "/steps/2/emote", json!(["test:a"])),
            check: no_check,
        },
        Valid {
            name: "uniform array with control ids",
            patch: |v| {
                set(
                    v,
                    "/steps/2/emote",
                    json!(["test:a", "emote:continue", "emote:break"]),
                )
            },
            check: |s| match choice(s, 2)? {
                EmoteChoice::Random(list) => expect_eq("candidates", list.len(), 3),
                other => Err(format!("{other:?}")),
            },
        },
        Valid {
            name: "emote namespace ids other than the control ids",
            patch: |v| set(v, "/steps/0/emote", json!("emote:idle_sky")),
            check: no_check,
        },
        Valid {
            name: "repeat omitted is 1",
            patch: |v| remove(v, "/steps/2/repeat"),
            check: |s| match &s.steps[2] {
                Step::Play { repeat, .. } => expect_eq("repeat", *repeat, 1),
                other => Err(format!("{other:?}")),
            },
        },
        Valid {
            name: "repeat large",
            patch: |v| set(v, "/steps/2/repeat", json!(1000)),
            check: no_check,
        },
        Valid {
            name: "transition omitted is 0t",
            patch: |v| remove(v, "/steps/2/transition"),
            check: |s| match &s.steps[2] {
                Step::Play {
                    transition_ticks, ..
                } => expect_eq("transition", *transition_ticks, 0),
                other => Err(format!("{other:?}")),
            },
        },
        Valid {
            name: "transition in seconds",
            patch: |v| set(v, "/steps/2/transition", json!("0.5s")),
            check: |s| match &s.steps[2] {
                Step::Play {
                    transition_ticks, ..
                } => expect_eq("transition", *transition_ticks, 10),
                other => Err(format!("{other:?}")),
            },
        },
        Valid {
            name: "transition 0t on the first step",
            patch: |v| set(v, "/steps/0/transition", json!("0t")),
            check: no_check,
        },
        Valid {
            name: "wait 0.33s is 7t",
            patch: |v| set(v, "/steps/1/wait", json!("0.33s")),
            check: |s| expect_eq("wait", s.steps[1].clone(), Step::Wait { duration_ticks: 7 }),
        },
        Valid {
            name: "wait one tick",
            patch: |v| set(v, "/steps/1/wait", json!(1)),
            check: |s| expect_eq("wait", s.steps[1].clone(), Step::Wait { duration_ticks: 1 }),
        },
        Valid {
            name: "two waits separated by a step",
            patch: |v| {
                set(v, "/steps/4", json!({"wait": "2t"}));
                set(v, "/steps/5", json!({"emote": "test:b"}));
            },
            check: no_check,
        },
        Valid {
            name: "single step",
            patch: |v| set(v, "/steps", json!([{"emote": "test:a"}])),
            check: no_check,
        },
        Valid {
            name: "settings empty",
            patch: |v| set(v, "/settings", json!({})),
            check: |s| expect_eq("cooldown", s.settings.cooldown_ticks, 0),
        },
        Valid {
            name: "settings only player",
            patch: |v| remove(v, "/settings/cooldown"),
            check: |s| expect_eq("hidden", s.settings.player.hidden, true),
        },
        Valid {
            name: "cooldown 0.33s is 7t",
            patch: |v| set(v, "/settings/cooldown", json!("0.33s")),
            check: |s| expect_eq("cooldown", s.settings.cooldown_ticks, 7),
        },
        Valid {
            name: "cooldown in days",
            patch: |v| set(v, "/settings/cooldown", json!("1d")),
            check: |s| expect_eq("cooldown", s.settings.cooldown_ticks, 24_000),
        },
        Valid {
            name: "cooldown as number",
            patch: |v| set(v, "/settings/cooldown", json!(60)),
            check: |s| expect_eq("cooldown", s.settings.cooldown_ticks, 60),
        },
        Valid {
            name: "player stop conditions read",
            patch: |_| {},
            check: |s| {
                let c = s.settings.player.stop_conditions;
                expect_eq(
                    "stop",
                    (
                        c.movement_distance_blocks,
                        c.jump,
                        c.submerge,
                        c.ride,
                        c.damage,
                        c.attack,
                        c.game_mode_change,
                    ),
                    (0.5, true, true, true, true, true, true),
                )
            },
        },
        Valid {
            name: "target_minecraft_version",
            patch: |v| set(v, "/target_minecraft_version", json!("26.3")),
            check: no_check,
        },
        Valid {
            name: "metadata extras kept",
            patch: |v| set(v, "/metadata/tags", json!(["fun"])),
            check: |s| {
                expect_eq(
                    "author",
                    s.metadata.extra.get("author"),
                    Some(&json!("tests")),
                )?;
                expect_eq("tags", s.metadata.extra.get("tags"), Some(&json!(["fun"])))
            },
        },
    ]
}

fn duo_valid() -> Vec<Valid<SequenceFile>> {
    vec![
        Valid {
            name: "participants read",
            patch: |_| {},
            check: |s| {
                let p = s.participants.ok_or("no participants")?;
                expect_eq(
                    "initiator frame",
                    p.initiator.frame,
                    PositionFrame::Relative,
                )?;
                expect_eq("partner frame", p.partner.frame, PositionFrame::Local)?;
                expect_eq(
                    "partner offset",
                    p.partner.offset.to_array(),
                    [0.0, 0.0, 1.2],
                )?;
                expect_eq("partner yaw", p.partner.yaw, Angle::Relative(180.0))?;
                expect_eq("partner pitch", p.partner.pitch, Angle::Absolute(0.0))
            },
        },
        Valid {
            name: "await step read",
            patch: |_| {},
            check: |s| match &s.steps[..] {
                [Step::AwaitPartner {
                    offer,
                    timeout_ticks: 200,
                    matched,
                    timeout,
                }] => {
                    expect_eq("offer", offer.id.as_str(), "test:offer")?;
                    expect_eq("branches", (matched.len(), timeout.len()), (3, 1))
                }
                other => Err(format!("{other:?}")),
            },
        },
        Valid {
            name: "position with offsets",
            patch: |v| set(v, "/participants/partner/position", json!("~0.5 ~ ~-2")),
            check: |s| {
                expect_eq(
                    "offset",
                    s.participants.ok_or("none")?.partner.offset.to_array(),
                    [0.5, 0.0, -2.0],
                )
            },
        },
        Valid {
            name: "local position with offsets",
            patch: |v| set(v, "/participants/partner/position", json!("^1 ^ ^-1.5")),
            check: no_check,
        },
        Valid {
            name: "absolute rotation",
            patch: |v| set(v, "/participants/partner/rotation", json!("90 -10")),
            check: |s| {
                let p = s.participants.ok_or("none")?.partner;
                expect_eq(
                    "rotation",
                    (p.yaw, p.pitch),
                    (Angle::Absolute(90.0), Angle::Absolute(-10.0)),
                )
            },
        },
        Valid {
            name: "fully relative rotation",
            patch: |v| set(v, "/participants/partner/rotation", json!("~ ~")),
            check: no_check,
        },
        Valid {
            name: "timeout in ticks",
            patch: |v| set(v, "/steps/0/await_partner/timeout", json!("1t")),
            check: no_check,
        },
        Valid {
            name: "branch random choices",
            patch: |v| {
                set(
                    v,
                    "/steps/0/matched/0/emote",
                    json!(["test:a", 50, "test:b", 30, "emote:break", 20]),
                )
            },
            check: no_check,
        },
        Valid {
            name: "offer in the emote namespace",
            patch: |v| {
                set(
                    v,
                    "/steps/0/await_partner/emote",
                    json!("emote:handshake_offer"),
                )
            },
            check: no_check,
        },
    ]
}

#[test]
fn every_linear_valid_variant_loads() {
    run_valid(&linear(), &linear_valid());
}

#[test]
fn every_two_player_valid_variant_loads() {
    run_valid(&duo(), &duo_valid());
}

#[test]
fn one_sequence_with_several_errors_reports_every_one() {
    let mut v = linear();
    set(&mut v, "/settings/standalone", json!(true));
    set(&mut v, "/steps/0/emote", json!("emote:continue"));
    set(&mut v, "/steps/1/repeat", json!(2));
    set(&mut v, "/steps/2/repeat", json!(0));
    set(&mut v, "/steps/3/emote/1", json!(30));
    let expected = [
        ("/settings/standalone", "unknown field"),
        ("/steps/0/emote", "only inside a random-selection array"),
        ("/steps/1/repeat", "cannot have `repeat`"),
        ("/steps/2/repeat", "at least 1"),
        ("/steps/3/emote", "exactly 100, found 90"),
    ];
    let report = parse_emote_value(&v);
    assert!(report.file.is_none());
    for (p, m) in expected {
        assert!(
            has_error(&report, p, m),
            "{p}: {m} not reported:\n{}",
            describe(&report.problems)
        );
    }
}

// ---------------------------------------------------------------------------
// Cross-file rules (Library::load on temporary folders)
// ---------------------------------------------------------------------------

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let path = std::env::temp_dir().join(format!(
            "emoted-sequence-rules-{}-{n}-{tag}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    fn write(&self, relative: &str, value: &Value) -> PathBuf {
        let path = self.0.join(relative);
        fs::create_dir_all(path.parent().expect("parent")).expect("create dirs");
        fs::write(&path, serde_json::to_vec_pretty(value).expect("json")).expect("write");
        path
    }

    fn load(&self) -> LoadReport {
        Library::load(&[self.0.clone()])
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn problems_of<'a>(report: &'a LoadReport, path: &Path) -> Vec<&'a Problem> {
    report
        .files
        .iter()
        .filter(|f| f.path == path)
        .flat_map(|f| f.problems.iter())
        .collect()
}

fn all_lines(report: &LoadReport) -> String {
    let lines = report.lines();
    if lines.is_empty() {
        "  (no problems)".to_owned()
    } else {
        lines
            .iter()
            .map(|l| format!("  {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn file_error(report: &LoadReport, path: &Path, pointer: &str, fragment: &str) -> bool {
    problems_of(report, path)
        .iter()
        .any(|p| p.is_error() && p.pointer == pointer && p.message.contains(fragment))
}

fn tf() -> Value {
    json!({"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]})
}

fn anim_with(id: &str, mode: &str, nodes: Value) -> Value {
    json!({
        "type": "animation",
        "schema_version": 4,
        "id": id,
        "metadata": {"name": id},
        "settings": {"standalone": false, "playback": {"mode": mode}},
        "nodes": nodes,
        "timeline": {"duration": "20t"}
    })
}

fn anim(id: &str, nodes: Value) -> Value {
    anim_with(id, "once", nodes)
}

fn simple_nodes() -> Value {
    json!({"root": {"type": "anchor", "space": "initiator", "transform": tf()}})
}

fn seq(id: &str, steps: Value) -> Value {
    json!({
        "type": "sequence",
        "schema_version": 4,
        "id": id,
        "metadata": {"name": id},
        "settings": {},
        "steps": steps
    })
}

fn two_step_seq() -> Value {
    seq(
        "test:seq",
        json!([{"emote": "test:a"}, {"emote": "test:b"}]),
    )
}

#[test]
fn a_valid_sequence_and_its_animations_load() {
    let dir = TempDir::new("valid");
    dir.write("a.json", &anim("test:a", simple_nodes()));
    dir.write("sub/b.json", &anim_with("test:b", "loop", simple_nodes()));
    dir.write("seq.json", &two_step_seq());
    let report = dir.load();
    assert_eq!(report.error_count(), 0, "{}", all_lines(&report));
    assert_eq!(report.file_count, 3);
    for id in ["test:a", "test:b", "test:seq"] {
        assert!(
            report.library.get(id).is_some(),
            "{id} not loaded:\n{}",
            all_lines(&report)
        );
    }
    assert_eq!(report.library.len(), 3);
}

/// Writes the given files, loads, and checks that `seq.json` is refused with
/// an error at `pointer` containing `fragment`, while the Animations load.
fn expect_sequence_refused(
    tag: &str,
    files: &[(&str, Value)],
    pointer: &str,
    fragment: &str,
) -> Result<(), String> {
    let dir = TempDir::new(tag);
    let mut seq_path = None;
    for (name, value) in files {
        let path = dir.write(name, value);
        if *name == "seq.json" {
            seq_path = Some(path);
        }
    }
    let seq_path = seq_path.expect("test bug: no seq.json");
    let report = dir.load();
    let seq_id = files
        .iter()
        .find(|(n, _)| *n == "seq.json")
        .and_then(|(_, v)| v["id"].as_str())
        .expect("seq id");
    let mut why = Vec::new();
    if !file_error(&report, &seq_path, pointer, fragment) {
        why.push(format!("no error at `{pointer}` containing `{fragment}`"));
    }
    if report.library.get(seq_id).is_some() {
        why.push(format!("`{seq_id}` was loaded"));
    }
    for (name, value) in files {
        let id = value["id"].as_str().unwrap_or_default();
        if *name != "seq.json" && value["type"] == "animation" && report.library.get(id).is_none() {
            let expected_out = problems_of(&report, &dir.0.join(name))
                .iter()
                .any(|p| p.is_error());
            if !expected_out {
                why.push(format!("Animation `{id}` has no error but did not load"));
            }
        }
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n{}", why.join("; "), all_lines(&report)))
    }
}

fn expect_sequence_loads(tag: &str, files: &[(&str, Value)]) -> Result<(), String> {
    let dir = TempDir::new(tag);
    for (name, value) in files {
        dir.write(name, value);
    }
    let report = dir.load();
    let mut why = Vec::new();
    if report.error_count() != 0 {
        why.push("errors reported".to_owned());
    }
    for (_, value) in files {
        let id = value["id"].as_str().unwrap_or_default();
        if report.library.get(id).is_none() {
            why.push(format!("`{id}` not loaded"));
        }
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n{}", why.join("; "), all_lines(&report)))
    }
}

#[test]
fn references_must_be_loaded_playable_animations() {
    let cases: Vec<(&str, Vec<(&str, Value)>, &str, &str)> = vec![
        (
            "missing reference",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                ("seq.json", two_step_seq()),
            ],
            "/steps/1/emote",
            "Animation `test:b` is not loaded",
        ),
        (
            "missing reference inside a weighted array",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                (
                    "seq.json",
                    seq(
                        "test:seq",
                        json!([{"emote": ["test:a", 50, "test:ghost", 40, "emote:break", 10]}]),
                    ),
                ),
            ],
            "/steps/0/emote/2",
            "`test:ghost` is not loaded",
        ),
        (
            "missing reference inside a uniform array",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                (
                    "seq.json",
                    seq("test:seq", json!([{"emote": ["test:a", "test:ghost"]}])),
                ),
            ],
            "/steps/0/emote/1",
            "`test:ghost` is not loaded",
        ),
        (
            "reference to an invalid Animation file",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                ("b.json", {
                    let mut b = anim("test:b", simple_nodes());
                    set(&mut b, "/timeline/duration", json!("0t"));
                    b
                }),
                ("seq.json", two_step_seq()),
            ],
            "/steps/1/emote",
            "`test:b` is not loaded",
        ),
        (
            "reference is a Sequence",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                ("other.json", seq("test:b", json!([{"emote": "test:a"}]))),
                ("seq.json", two_step_seq()),
            ],
            "/steps/1/emote",
            "`test:b` is a Sequence",
        ),
        (
            "reference is the Sequence itself",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                (
                    "seq.json",
                    seq(
                        "test:seq",
                        json!([{"emote": "test:a"}, {"emote": "test:seq"}]),
                    ),
                ),
            ],
            "/steps/1/emote",
            "`test:seq` is a Sequence",
        ),
        (
            "reference to a hold Animation",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                ("b.json", anim_with("test:b", "hold", simple_nodes())),
                ("seq.json", two_step_seq()),
            ],
            "/steps/1/emote",
            "uses `hold` mode",
        ),
        (
            "reference to a server_sync Animation",
            vec![
                ("a.json", anim_with("test:a", "server_sync", simple_nodes())),
                ("b.json", anim("test:b", simple_nodes())),
                ("seq.json", two_step_seq()),
            ],
            "/steps/0/emote",
            "uses `server_sync` mode",
        ),
        (
            "offer missing",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                ("seq.json", {
                    let mut d = duo();
                    set(&mut d, "/steps/0/matched", json!([{"emote": "test:a"}]));
                    set(&mut d, "/steps/0/timeout", json!([{"emote": "test:a"}]));
                    d
                }),
            ],
            "/steps/0/await_partner/emote",
            "`test:offer` is not loaded",
        ),
        (
            "offer in hold mode",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                (
                    "offer.json",
                    anim_with("test:offer", "hold", simple_nodes()),
                ),
                ("seq.json", {
                    let mut d = duo();
                    set(&mut d, "/steps/0/matched", json!([{"emote": "test:a"}]));
                    set(&mut d, "/steps/0/timeout", json!([{"emote": "test:a"}]));
                    d
                }),
            ],
            "/steps/0/await_partner/emote",
            "uses `hold` mode",
        ),
        (
            "timeout branch reference missing",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                (
                    "offer.json",
                    anim_with("test:offer", "loop", simple_nodes()),
                ),
                ("seq.json", {
                    let mut d = duo();
                    set(&mut d, "/steps/0/matched", json!([{"emote": "test:a"}]));
                    d
                }),
            ],
            "/steps/0/timeout/0/emote",
            "`test:b` is not loaded",
        ),
    ];
    let mut failures = Vec::new();
    for (name, files, pointer, fragment) in cases {
        if let Err(e) = expect_sequence_refused(
            name.split(' ').next().unwrap_or("x"),
            &files,
            pointer,
            fragment,
        ) {
            failures.push(format!("case `{name}`: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn playable_references_are_accepted() {
    let cases: Vec<(&str, Vec<(&str, Value)>)> = vec![
        (
            "once and loop",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                ("b.json", anim_with("test:b", "loop", simple_nodes())),
                ("seq.json", two_step_seq()),
            ],
        ),
        (
            "standalone true and false",
            vec![
                ("a.json", {
                    let mut a = anim("test:a", simple_nodes());
                    set(&mut a, "/settings/standalone", json!(true));
                    a
                }),
                ("b.json", anim("test:b", simple_nodes())),
                ("seq.json", two_step_seq()),
            ],
        ),
        (
            "control ids are not references",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                (
                    "seq.json",
                    seq(
                        "test:seq",
                        json!([{"emote": ["test:a", 60, "emote:continue", 30, "emote:break", 10], "repeat": 5}]),
                    ),
                ),
            ],
        ),
        (
            "the same Animation several times",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                (
                    "seq.json",
                    seq(
                        "test:seq",
                        json!([{"emote": "test:a"}, {"wait": "2t"}, {"emote": ["test:a", "test:a"]}]),
                    ),
                ),
            ],
        ),
        (
            "two-player Sequence",
            vec![
                ("a.json", anim("test:a", simple_nodes())),
                ("b.json", anim("test:b", simple_nodes())),
                (
                    "offer.json",
                    anim_with("test:offer", "loop", simple_nodes()),
                ),
                ("seq.json", duo()),
            ],
        ),
    ];
    let mut failures = Vec::new();
    for (name, files) in cases {
        if let Err(e) = expect_sequence_loads("ok", &files) {
            failures.push(format!("case `{name}`: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Two Animations that share the node `prop`; the Sequence plays both.
struct Compat {
    name: &'static str,
    a: fn() -> Value,
    b: fn() -> Value,
    /// Fragment of the error at `/steps/1/emote`, or `None` when compatible.
    refused: Option<&'static str>,
}

fn item(snbt: &str, context: &str) -> Value {
    json!({"type": "item_display", "space": "initiator", "item_stack_snbt": snbt, "item_display": context, "transform": tf()})
}

fn stick() -> Value {
    item("{id:\"minecraft:stick\",count:1}", "fixed")
}

fn block(snbt: &str) -> Value {
    json!({"type": "block_display", "space": "initiator", "block_state_snbt": snbt, "transform": tf()})
}

fn text(t: Value) -> Value {
    json!({"type": "text_display", "space": "initiator", "text": t, "transform": tf()})
}

fn skinned(part: &str, order: u32, scale: [f32; 3]) -> Value {
    json!({
        "type": "item_display",
        "space": "initiator",
        "item_stack_snbt": "{id:\"minecraft:player_head\",count:1}",
        "item_display": "none",
        "skin": {"participant": "initiator", "part": part, "order": order},
        "transform": {"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": scale}
    })
}

fn hand(arm: &str) -> Value {
    json!({"type": "item_display", "space": "initiator", "item_source": {"type": "participant_hand", "arm": arm}, "item_display": "thirdperson_righthand", "transform": tf()})
}

fn with_prop(prop: Value) -> Value {
    json!({"prop": prop})
}

fn compat_cases() -> Vec<Compat> {
    vec![
        // refused: shared node ids that differ in what must match
        Compat {
            name: "type differs",
            a: || with_prop(block("{Name:\"minecraft:stone\"}")),
            b: || with_prop(json!({"type": "anchor", "space": "initiator", "transform": tf()})),
            refused: Some("its type differs"),
        },
        Compat {
            name: "item vs text type",
            a: || with_prop(stick()),
            b: || with_prop(text(json!("x"))),
            refused: Some("its type differs"),
        },
        Compat {
            name: "root space differs",
            a: || with_prop(block("{Name:\"minecraft:stone\"}")),
            b: || {
                let mut n = block("{Name:\"minecraft:stone\"}");
                set(&mut n, "/space", json!("partner"));
                with_prop(n)
            },
            refused: Some("inherited space differs"),
        },
        Compat {
            name: "inherited space differs through a parent",
            a: || with_prop(block("{Name:\"minecraft:stone\"}")),
            b: || {
                let mut n = block("{Name:\"minecraft:stone\"}");
                remove(&mut n, "/space");
                set(&mut n, "/parent", json!("holder"));
                json!({"holder": {"type": "anchor", "space": "scene", "transform": tf()}, "prop": n})
            },
            refused: Some("inherited space differs"),
        },
        Compat {
            name: "item stack differs",
            a: || with_prop(stick()),
            b: || with_prop(item("{id:\"minecraft:apple\",count:1}", "fixed")),
            refused: Some("item stack or item_source differs"),
        },
        Compat {
            name: "item count differs",
            a: || with_prop(stick()),
            b: || with_prop(item("{id:\"minecraft:stick\",count:2}", "fixed")),
            refused: Some("item stack or item_source differs"),
        },
        Compat {
            name: "item components differ",
            a: || with_prop(item("{id:\"minecraft:diamond_sword\",count:1}", "fixed")),
            b: || {
                with_prop(item("{id:\"minecraft:diamond_sword\",count:1,components:{\"minecraft:enchantments\":{levels:{\"minecraft:sharpness\":1}}}}", "fixed"))
            },
            refused: Some("item stack or item_source differs"),
        },
        Compat {
            name: "item stack vs item_source",
            a: || with_prop(stick()),
            b: || with_prop(hand("right")),
            refused: Some("item stack or item_source differs"),
        },
        Compat {
            name: "item_source arm differs",
            a: || with_prop(hand("left")),
            b: || with_prop(hand("right")),
            refused: Some("item stack or item_source differs"),
        },
        Compat {
            name: "item_display context differs",
            a: || with_prop(stick()),
            b: || with_prop(item("{id:\"minecraft:stick\",count:1}", "head")),
            refused: Some("item_display context differs"),
        },
        Compat {
            name: "block differs",
            a: || with_prop(block("{Name:\"minecraft:stone\"}")),
            b: || with_prop(block("{Name:\"minecraft:dirt\"}")),
            refused: Some("block state differs"),
        },
        Compat {
            name: "block property differs",
            a: || {
                with_prop(block(
                    "{Name:\"minecraft:oak_stairs\",Properties:{facing:\"east\"}}",
                ))
            },
            b: || {
                with_prop(block(
                    "{Name:\"minecraft:oak_stairs\",Properties:{facing:\"west\"}}",
                ))
            },
            refused: Some("block state differs"),
        },
        Compat {
            name: "text differs",
            a: || with_prop(text(json!({"text": "a"}))),
            b: || with_prop(text(json!({"text": "b"}))),
            refused: Some("its text differs"),
        },
        Compat {
            name: "text color differs",
            a: || with_prop(text(json!({"text": "a", "color": "red"}))),
            b: || with_prop(text(json!({"text": "a", "color": "blue"}))),
            refused: Some("its text differs"),
        },
        Compat {
            name: "entity_nbt added",
            a: || with_prop(block("{Name:\"minecraft:stone\"}")),
            b: || {
                let mut n = block("{Name:\"minecraft:stone\"}");
                set(&mut n, "/entity_nbt", json!("{billboard:\"center\"}"));
                with_prop(n)
            },
            refused: Some("entity_nbt differs"),
        },
        Compat {
            name: "entity_nbt value differs",
            a: || {
                let mut n = stick();
                set(&mut n, "/entity_nbt", json!("{shadow_radius:1.0f}"));
                with_prop(n)
            },
            b: || {
                let mut n = stick();
                set(&mut n, "/entity_nbt", json!("{shadow_radius:2.0f}"));
                with_prop(n)
            },
            refused: Some("entity_nbt differs"),
        },
        Compat {
            name: "skin order differs",
            a: || with_prop(skinned("head", 0, [1.0, 1.0, 1.0])),
            b: || with_prop(skinned("head", 1, [1.0, 1.0, 1.0])),
            refused: Some("skin binding differs"),
        },
        Compat {
            name: "skin part differs",
            a: || with_prop(skinned("head", 0, [1.0, 1.0, 1.0])),
            b: || with_prop(skinned("body", 0, [1.0, 1.0, 1.0])),
            refused: Some("skin binding differs"),
        },
        Compat {
            name: "skin binding removed",
            a: || with_prop(skinned("head", 0, [1.0, 1.0, 1.0])),
            b: || {
                let mut n = skinned("head", 0, [1.0, 1.0, 1.0]);
                remove(&mut n, "/skin");
                with_prop(n)
            },
            refused: Some("skin binding differs"),
        },
        // refused: different skin layouts
        Compat {
            name: "skin layout: local Y scale differs",
            a: || with_prop(skinned("head", 0, [1.0, 1.0, 1.0])),
            b: || with_prop(skinned("head", 0, [1.0, 0.5, 1.0])),
            refused: Some("different player-skin layout"),
        },
        Compat {
            name: "skin layout: skinned node missing",
            a: || with_prop(skinned("head", 0, [1.0, 1.0, 1.0])),
            b: || json!({"other": stick()}),
            refused: Some("different player-skin layout"),
        },
        Compat {
            name: "skin layout: extra skinned node",
            a: || with_prop(skinned("head", 0, [1.0, 1.0, 1.0])),
            b: || json!({"prop": skinned("head", 0, [1.0, 1.0, 1.0]), "arm": skinned("right_arm", 0, [1.0, 1.0, 1.0])}),
            refused: Some("different player-skin layout"),
        },
        Compat {
            name: "skin layout: same binding under another node id",
            a: || with_prop(skinned("head", 0, [1.0, 1.0, 1.0])),
            b: || json!({"head2": skinned("head", 0, [1.0, 1.0, 1.0])}),
            refused: Some("different player-skin layout"),
        },
        // accepted
        Compat {
            name: "transform differs",
            a: || with_prop(stick()),
            b: || {
                let mut n = stick();
                set(
                    &mut n,
                    "/transform",
                    json!({"position": [1, 2, 3], "rotation": [0, 90, 0], "scale": [2, 2, 2]}),
                );
                with_prop(n)
            },
            refused: None,
        },
        Compat {
            name: "initial visibility differs",
            a: || with_prop(stick()),
            b: || {
                let mut n = stick();
                set(&mut n, "/visible", json!(false));
                with_prop(n)
            },
            refused: None,
        },
        Compat {
            name: "same item in modern and 1.20.1 form",
            a: || with_prop(stick()),
            b: || with_prop(item("{id:\"minecraft:stick\",Count:1b}", "fixed")),
            refused: None,
        },
        Compat {
            name: "same entity_nbt",
            a: || {
                let mut n = stick();
                set(
                    &mut n,
                    "/entity_nbt",
                    json!("{billboard:\"center\",shadow_radius:1.0f}"),
                );
                with_prop(n)
            },
            b: || {
                let mut n = stick();
                set(
                    &mut n,
                    "/entity_nbt",
                    json!("{shadow_radius:1.0f,billboard:\"center\"}"),
                );
                with_prop(n)
            },
            refused: None,
        },
        Compat {
            name: "same space, one through a parent",
            a: || with_prop(block("{Name:\"minecraft:stone\"}")),
            b: || {
                let mut n = block("{Name:\"minecraft:stone\"}");
                remove(&mut n, "/space");
                set(&mut n, "/parent", json!("holder"));
                json!({"holder": {"type": "anchor", "space": "initiator", "transform": tf()}, "prop": n})
            },
            refused: None,
        },
        Compat {
            name: "same block with its default property written out",
            a: || with_prop(block("{Name:\"minecraft:oak_stairs\"}")),
            b: || {
                with_prop(block(
                    "{Name:\"minecraft:oak_stairs\",Properties:{facing:\"north\"}}",
                ))
            },
            refused: None,
        },
        Compat {
            name: "same item with and without the minecraft namespace",
            a: || with_prop(stick()),
            b: || with_prop(item("{id:\"stick\",count:1}", "fixed")),
            refused: None,
        },
        Compat {
            name: "same text as a string and as an object",
            a: || with_prop(text(json!("hello"))),
            b: || with_prop(text(json!({"text": "hello"}))),
            refused: None,
        },
        Compat {
            name: "different node sets (union)",
            a: || json!({"x": stick()}),
            b: || json!({"y": block("{Name:\"minecraft:stone\"}")}),
            refused: None,
        },
        Compat {
            name: "skinned node moved and scaled in X and Z",
            a: || with_prop(skinned("head", 0, [1.0, 1.0, 1.0])),
            b: || {
                let mut n = skinned("head", 0, [2.0, 1.0, 0.5]);
                set(&mut n, "/transform/position", json!([0, 1, 0]));
                with_prop(n)
            },
            refused: None,
        },
        Compat {
            name: "same skin layout with several parts",
            a: || json!({"prop": skinned("head", 0, [1.0, 1.0, 1.0]), "arm": skinned("right_arm", 2, [1.0, 0.5, 1.0])}),
            b: || json!({"prop": skinned("head", 0, [1.0, 1.0, 1.0]), "arm": skinned("right_arm", 2, [1.0, 0.5, 1.0]), "extra": stick()}),
            refused: None,
        },
    ]
}

#[test]
fn shared_nodes_and_skin_layouts_must_be_compatible() {
    let cases = compat_cases();
    let mut names = std::collections::HashSet::new();
    let mut failures = Vec::new();
    for case in &cases {
        assert!(names.insert(case.name), "duplicate case {}", case.name);
        let mut a = anim("test:a", (case.a)());
        let mut b = anim("test:b", (case.b)());
        // Tracks and Molang may differ between the two.
        set(&mut a, "/molang", json!({"initialize": "v.a = 1;"}));
        set(&mut b, "/timeline/duration", json!("30t"));
        let files = vec![("a.json", a), ("b.json", b), ("seq.json", two_step_seq())];
        let result = match case.refused {
            Some(fragment) => expect_sequence_refused("compat", &files, "/steps/1/emote", fragment),
            None => expect_sequence_loads("compat", &files),
        };
        if let Err(e) = result {
            failures.push(format!("case `{}`: {e}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} compatibility cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn incompatibility_is_reported_at_the_reference_inside_arrays_and_branches() {
    let a = anim("test:a", with_prop(stick()));
    let b = anim(
        "test:b",
        with_prop(item("{id:\"minecraft:apple\",count:1}", "fixed")),
    );
    let offer = anim_with("test:offer", "loop", with_prop(stick()));
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "uniform array",
            seq("test:seq", json!([{"emote": ["test:a", "test:b"]}])),
            "/steps/0/emote/1",
        ),
        (
            "weighted array",
            seq("test:seq", json!([{"emote": ["test:a", 50, "test:b", 50]}])),
            "/steps/0/emote/2",
        ),
        (
            "later step",
            seq(
                "test:seq",
                json!([{"emote": "test:a"}, {"wait": "1t"}, {"emote": "test:b"}]),
            ),
            "/steps/2/emote",
        ),
        (
            "matched branch against the offer",
            {
                let mut d = duo();
                set(&mut d, "/steps/0/matched", json!([{"emote": "test:b"}]));
                set(&mut d, "/steps/0/timeout", json!([{"emote": "test:a"}]));
                d
            },
            "/steps/0/matched/0/emote",
        ),
    ];
    let mut failures = Vec::new();
    for (name, s, pointer) in cases {
        let files = vec![
            ("a.json", a.clone()),
            ("b.json", b.clone()),
            ("offer.json", offer.clone()),
            ("seq.json", s),
        ];
        if let Err(e) = expect_sequence_refused(
            "where",
            &files,
            pointer,
            "node `prop` of `test:b` is incompatible",
        ) {
            failures.push(format!("case `{name}`: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn duplicate_ids_refuse_every_file_and_name_the_others() {
    let dir = TempDir::new("dup");
    let p1 = dir.write("one.json", &anim("test:dup", simple_nodes()));
    let p2 = dir.write("nested/two.json", &anim("test:dup", simple_nodes()));
    let p3 = dir.write(
        "three.json",
        &seq("test:dup", json!([{"emote": "test:other"}])),
    );
    let other = dir.write("other.json", &anim("test:other", simple_nodes()));
    let report = dir.load();
    assert!(
        report.library.get("test:dup").is_none(),
        "a shared id must not load:\n{}",
        all_lines(&report)
    );
    assert!(
        report.library.get("test:other").is_some(),
        "an unrelated file must still load:\n{}",
        all_lines(&report)
    );
    assert!(problems_of(&report, &other).is_empty());
    let all = [&p1, &p2, &p3];
    for path in all {
        let msgs: Vec<&Problem> = problems_of(&report, path)
            .into_iter()
            .filter(|p| p.is_error() && p.pointer == "/id")
            .collect();
        assert_eq!(
            msgs.len(),
            1,
            "{}: expected one /id error:\n{}",
            path.display(),
            all_lines(&report)
        );
        let message = &msgs[0].message;
        for other_path in all.iter().filter(|o| **o != path) {
            assert!(
                message.contains(&other_path.display().to_string()),
                "{}: message does not name {}: {message}",
                path.display(),
                other_path.display()
            );
        }
        assert!(
            !message.contains(&path.display().to_string()),
            "{}: names itself: {message}",
            path.display()
        );
    }
}

#[test]
fn a_sequence_referencing_a_duplicated_id_is_refused() {
    let dir = TempDir::new("dupref");
    dir.write("one.json", &anim("test:a", simple_nodes()));
    dir.write("two.json", &anim("test:a", simple_nodes()));
    let s = dir.write("seq.json", &seq("test:seq", json!([{"emote": "test:a"}])));
    let report = dir.load();
    assert!(
        file_error(&report, &s, "/steps/0/emote", "not loaded"),
        "{}",
        all_lines(&report)
    );
    assert!(report.library.get("test:seq").is_none());
}

#[test]
fn an_invalid_file_sharing_an_id_is_skipped_on_its_own() {
    let dir = TempDir::new("dupinvalid");
    dir.write("good.json", &anim("test:a", simple_nodes()));
    let mut bad = anim("test:a", simple_nodes());
    set(&mut bad, "/settings/rotation_deadzone", json!(999));
    let bad_path = dir.write("bad.json", &bad);
    let report = dir.load();
    assert!(
        report.library.get("test:a").is_some(),
        "the valid file must load:\n{}",
        all_lines(&report)
    );
    assert!(
        file_error(
            &report,
            &bad_path,
            "/settings/rotation_deadzone",
            "from 0 to 180"
        ),
        "{}",
        all_lines(&report)
    );
    assert!(
        !report
            .files
            .iter()
            .flat_map(|f| &f.problems)
            .any(|p| p.pointer == "/id"),
        "no duplicate-id error expected:\n{}",
        all_lines(&report)
    );
}

fn named(id: &str, name: &str) -> Value {
    let mut a = anim(id, simple_nodes());
    set(&mut a, "/metadata/name", json!(name));
    a
}

fn name_of(library: &Library, id: &str) -> Option<String> {
    library.get(id).map(|e| e.file.metadata().name.clone())
}

#[test]
fn reload_keeps_the_last_good_version_of_a_file_that_became_invalid() {
    let dir = TempDir::new("lastgood");
    let path = dir.write("a.json", &named("test:a", "One"));
    let first = dir.load();
    assert_eq!(first.error_count(), 0, "{}", all_lines(&first));
    assert_eq!(name_of(&first.library, "test:a").as_deref(), Some("One"));

    // The file becomes invalid: the previous version stays, and the errors are reported.
    let mut broken = named("test:a", "Two");
    set(&mut broken, "/timeline/duration", json!("0t"));
    dir.write("a.json", &broken);
    let second = Library::reload(&[dir.0.clone()], Some(&first.library));
    assert_eq!(
        name_of(&second.library, "test:a").as_deref(),
        Some("One"),
        "{}",
        all_lines(&second)
    );
    assert_eq!(second.kept_previous, vec![path.clone()]);
    assert!(
        file_error(&second, &path, "/timeline/duration", "at least 1t"),
        "{}",
        all_lines(&second)
    );

    // Without a previous library the invalid file is simply refused.
    let fresh = Library::reload(&[dir.0.clone()], None);
    assert!(fresh.library.get("test:a").is_none());
    assert!(fresh.kept_previous.is_empty());

    // Unparseable JSON also keeps the last good version.
    fs::write(&path, b"{ not json").expect("write");
    let third = Library::reload(&[dir.0.clone()], Some(&second.library));
    assert_eq!(
        name_of(&third.library, "test:a").as_deref(),
        Some("One"),
        "{}",
        all_lines(&third)
    );

    // Once valid again, the new version replaces it.
    dir.write("a.json", &named("test:a", "Three"));
    let fourth = Library::reload(&[dir.0.clone()], Some(&third.library));
    assert_eq!(fourth.error_count(), 0, "{}", all_lines(&fourth));
    assert_eq!(name_of(&fourth.library, "test:a").as_deref(), Some("Three"));
    assert!(fourth.kept_previous.is_empty());
}

#[test]

fn reload_keeps_the_last_good_version_of_a_sequence_refused_by_cross_file_rules() {
    let dir = TempDir::new("lastgoodcross");
    dir.write("a.json", &anim("test:a", simple_nodes()));
    let s = dir.write("seq.json", &seq("test:seq", json!([{"emote": "test:a"}])));
    let first = dir.load();
    assert_eq!(first.error_count(), 0, "{}", all_lines(&first));

    // The new version parses but references an Animation that does not exist.
    dir.write(
        "seq.json",
        &seq(
            "test:seq",
            json!([{"emote": "test:a"}, {"emote": "test:missing"}]),
        ),
    );
    let second = Library::reload(&[dir.0.clone()], Some(&first.library));
    assert!(
        file_error(&second, &s, "/steps/1/emote", "not loaded"),
        "{}",
        all_lines(&second)
    );
    let kept = second.library.get("test:seq").map(|e| e.file.clone());
    match kept.as_deref() {
        Some(EmoteFile::Sequence(old)) => {
            assert_eq!(old.steps.len(), 1, "the previous version must be kept")
        }
        other => panic!(
            "the last good version of test:seq was not kept: {other:?}\n{}",
            all_lines(&second)
        ),
    }
    assert_eq!(second.kept_previous, vec![s]);
}

#[test]
fn reload_keeps_only_the_file_that_became_invalid() {
    let dir = TempDir::new("lastgood2");
    let a = dir.write("a.json", &named("test:a", "A1"));
    dir.write("b.json", &named("test:b", "B1"));
    let first = dir.load();
    assert_eq!(first.error_count(), 0, "{}", all_lines(&first));

    let mut broken = named("test:a", "A2");
    set(&mut broken, "/id", json!("Not Valid"));
    dir.write("a.json", &broken);
    dir.write("b.json", &named("test:b", "B2"));
    let new = dir.write("c.json", &{
        let mut c = named("test:c", "C1");
        set(&mut c, "/nodes", json!({}));
        c
    });
    let second = Library::reload(&[dir.0.clone()], Some(&first.library));
    assert_eq!(name_of(&second.library, "test:a").as_deref(), Some("A1"));
    assert_eq!(name_of(&second.library, "test:b").as_deref(), Some("B2"));
    assert!(
        second.library.get("test:c").is_none(),
        "a new invalid file has no last good version"
    );
    assert_eq!(second.kept_previous, vec![a]);
    assert!(
        file_error(&second, &new, "/nodes", "at least one node"),
        "{}",
        all_lines(&second)
    );
}

#[test]
fn a_sequence_still_loads_when_its_animation_keeps_its_last_good_version() {
    let dir = TempDir::new("lastgoodseq");
    let a = dir.write("a.json", &anim("test:a", simple_nodes()));
    dir.write("seq.json", &seq("test:seq", json!([{"emote": "test:a"}])));
    let first = dir.load();
    assert_eq!(first.error_count(), 0, "{}", all_lines(&first));
    fs::write(&a, b"\xff\xfe").expect("write");
    let second = Library::reload(&[dir.0.clone()], Some(&first.library));
    assert!(
        second.library.get("test:a").is_some(),
        "{}",
        all_lines(&second)
    );
    assert!(
        second.library.get("test:seq").is_some(),
        "{}",
        all_lines(&second)
    );
}
