//! Every rule the schema 4 Animation reader enforces, each with an invalid
//! case (the exact JSON pointer and a fragment of the message that names the
//! rule) and valid variants that must load with no error.
//!
//! Table-driven: one valid base file (`base()`), small JSON pointer helpers
//! (`set`, `remove`), and lists of [`Case`] / [`Valid`] patches applied to a
//! fresh copy of the base. A failing entry is reported by name.

mod common;

use emoted::format::node::{Attachment, ItemContent, NodeKind, Space};
use emoted::format::settings::PlaybackMode;
use emoted::format::snbt::RUNTIME_OWNED_KEYS;
use emoted::format::track::{Component, KeyValue, VisibilityValue};
use emoted::format::{parse_emote_value, AnimationFile, EmoteFile};
use serde_json::{json, Value};
use valence::prelude::ItemKind;

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
        let hit = has_error(&report, case.pointer, case.message);
        if !hit || report.file.is_some() {
            failures.push(format!(
                "case `{}`: expected an error at `{}` containing `{}`{}; problems:\n{}",
                case.name,
                case.pointer,
                case.message,
                if report.file.is_some() {
                    " and the file refused"
                } else {
                    ""
                },
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

fn load(v: &Value) -> Result<AnimationFile, String> {
    let report = parse_emote_value(v);
    let errs = errors(&report);
    match report.file {
        Some(EmoteFile::Animation(a)) if errs.is_empty() => Ok(a),
        Some(EmoteFile::Sequence(_)) => Err("read as a Sequence".to_owned()),
        _ => Err(format!("refused:\n{}", describe(&report.problems))),
    }
}

fn run_valid(base: &Value, variants: &[Valid<AnimationFile>]) {
    assert_unique_names(variants.iter().map(|c| c.name));
    let mut failures = Vec::new();
    for variant in variants {
        let mut v = base.clone();
        (variant.patch)(&mut v);
        match load(&v).and_then(|a| (variant.check)(&a)) {
            Ok(()) => {}
            Err(e) => failures.push(format!("valid variant `{}`: {e}", variant.name)),
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

fn transform() -> Value {
    json!({"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]})
}

/// A valid Animation that uses every node type, both item forms, a skin
/// binding, an anchor with tracks, all four event groups and each source and
/// origin type.
fn base() -> Value {
    json!({
        "type": "animation",
        "schema_version": 4,
        "id": "test:wave",
        "metadata": {"name": "Wave", "description": "A test wave.", "author": "tests"},
        "settings": {
            "standalone": true,
            "cooldown": "2s",
            "rotation_deadzone": 50,
            "player": {
                "hidden": true,
                "stop_conditions": {
                    "movement_distance": 0.1,
                    "jump": true,
                    "submerge": true,
                    "ride": true,
                    "damage": true,
                    "attack": true,
                    "game_mode_change": true
                }
            },
            "playback": {"mode": "once", "loop_delay": "0t"}
        },
        "molang": {"initialize": "v.x = 1;", "tick": "v.x = v.x + 1;"},
        "nodes": {
            "body": {"type": "anchor", "space": "initiator", "transform": transform()},
            "hand": {
                "type": "item_display",
                "parent": "body",
                "item_stack_snbt": "{id:\"minecraft:stick\",count:1}",
                "item_display": "fixed",
                "transform": {"position": [0.3, 1.2, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}
            },
            "held": {
                "type": "item_display",
                "parent": "body",
                "item_source": {"type": "participant_hand", "arm": "right"},
                "item_display": "thirdperson_righthand",
                "transform": transform()
            },
            "head": {
                "type": "item_display",
                "space": "initiator",
                "item_stack_snbt": "{id:\"minecraft:player_head\",count:1}",
                "item_display": "none",
                "skin": {"participant": "initiator", "part": "head", "order": 0},
                "transform": transform()
            },
            "block": {
                "type": "block_display",
                "space": "scene",
                "block_state_snbt": "{Name:\"minecraft:oak_stairs\",Properties:{facing:\"east\"}}",
                "visible": true,
                "entity_nbt": "{brightness:{block:15,sky:15}}",
                "transform": transform()
            },
            "label": {
                "type": "text_display",
                "space": "scene",
                "text": {"text": "Hi", "color": "gold"},
                "visible": false,
                "entity_nbt": "{billboard:\"center\",line_width:100}",
                "transform": transform()
            }
        },
        "timeline": {
            "duration": "40t",
            "tracks": {
                "body": {"position": [
                    {"time": "0t", "value": [0, 0, 0]},
                    {"time": "40t", "value": [0, 1, 0]}
                ]},
                "hand": {"rotation": [
                    {"time": "0t", "value": [0, 0, -20], "interpolation": "linear", "easing": "ease_in_out_sine"},
                    {"time": "20t", "value": [0, 0, 20], "interpolation": "step"},
                    {"time": "40t", "value": [0, 0, -20]}
                ]},
                "label": {"visible": [
                    {"time": "0t", "value": false},
                    {"time": "10t", "value": true}
                ]}
            },
            "events": {
                "start": [{"source": {"type": "player"}, "origin": {"type": "root"}, "commands": ["say start"]}],
                "timeline": [
                    {
                        "time": "10t",
                        "source": {"type": "server"},
                        "origin": {"type": "node", "node": "body", "offset": [0, 0.5, 0]},
                        "commands": ["particle minecraft:flame ~ ~ ~ 0 0 0 0 1 normal"]
                    },
                    {
                        "time": "20t",
                        "source": {"type": "node", "node": "block"},
                        "origin": {"type": "node", "node": "label"},
                        "commands": ["data merge entity @s {Glowing:1b}"]
                    }
                ],
                "loop": [{"source": {"type": "server"}, "origin": {"type": "root"}, "commands": ["playsound minecraft:block.note_block.bell master @a"]}],
                "stop": [{"source": {"type": "player"}, "origin": {"type": "root"}, "commands": ["title @s clear"]}]
            }
        }
    })
}

// ---------------------------------------------------------------------------
// The base itself
// ---------------------------------------------------------------------------

#[test]
fn base_loads_with_no_problem_at_all() {
    let report = parse_emote_value(&base());
    assert!(
        report.problems.is_empty(),
        "base has problems:\n{}",
        describe(&report.problems)
    );
    let Some(EmoteFile::Animation(a)) = report.file else {
        panic!("base not read as an Animation")
    };
    assert_eq!(a.id.as_str(), "test:wave");
    assert_eq!(a.nodes.len(), 6);
    assert_eq!(a.timeline.duration_ticks, 40);
    assert_eq!(a.timeline.events.start.len(), 1);
    assert_eq!(a.timeline.events.timeline.len(), 2);
    assert_eq!(a.timeline.events.on_loop.len(), 1);
    assert_eq!(a.timeline.events.stop.len(), 1);
}

#[test]
fn helpers_patch_what_they_name() {
    let mut v = base();
    set(&mut v, "/nodes/a~1b", json!(1));
    assert_eq!(v["nodes"]["a/b"], json!(1));
    remove(&mut v, "/nodes/a~1b");
    assert!(v["nodes"].get("a/b").is_none());
    set(&mut v, "/timeline/events/start/1", json!(2));
    assert_eq!(v["timeline"]["events"]["start"][1], json!(2));
    set(&mut v, "/timeline/events/start/0", json!(3));
    assert_eq!(v["timeline"]["events"]["start"][0], json!(3));
    remove(&mut v, "/timeline/events/start/0");
    assert_eq!(v["timeline"]["events"]["start"], json!([2]));
}

#[test]
fn the_harness_names_a_failing_case() {
    let wrong_invalid = vec![Case {
        name: "deliberately wrong pointer",
        patch: |v| set(v, "/id", json!("Bad")),
        pointer: "/not/the/pointer",
        message: "namespace:path",
    }];
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_invalid(&base(), &wrong_invalid)
    }))
    .expect_err("an invalid case whose error is not at its pointer must fail");
    let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        text.contains("deliberately wrong pointer"),
        "failure does not name the case: {text}"
    );

    let wrong_valid = vec![Valid {
        name: "deliberately invalid variant",
        patch: |v| set(v, "/id", json!("Bad")),
        check: no_check,
    }];
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_valid(&base(), &wrong_valid)
    }))
    .expect_err("a valid variant that is refused must fail");
    let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        text.contains("deliberately invalid variant"),
        "failure does not name the variant: {text}"
    );

    let wrong_check = vec![Valid {
        name: "deliberately wrong check",
        patch: |_| {},
        check: |a: &AnimationFile| expect_eq("duration", a.timeline.duration_ticks, 41),
    }];
    assert!(
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_valid(
            &base(),
            &wrong_check
        )))
        .is_err()
    );
}

// ---------------------------------------------------------------------------
// Invalid cases
// ---------------------------------------------------------------------------

const ROT: &str = "/timeline/tracks/hand/rotation";
const VIS: &str = "/timeline/tracks/label/visible";

fn invalid_cases() -> Vec<Case> {
    vec![
        // --- root fields -------------------------------------------------
        Case {
            name: "root is not an object",
            patch: |v| *v = json!([1, 2]),
            pointer: "",
            message: "must be a JSON object",
        },
        Case {
            name: "type missing",
            patch: |v| remove(v, "/type"),
            pointer: "",
            message: "missing required field `type`",
        },
        Case {
            name: "type unknown",
            patch: |v| set(v, "/type", json!("emote")),
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
            name: "schema_version as string",
            patch: |v| set(v, "/schema_version", json!("4")),
            pointer: "/schema_version",
            message: "must be 4",
        },
        Case {
            name: "schema_version 4.5",
            patch: |v| set(v, "/schema_version", json!(4.5)),
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
            name: "id not a string",
            patch: |v| set(v, "/id", json!(7)),
            pointer: "/id",
            message: "must be a string",
        },
        Case {
            name: "id uppercase",
            patch: |v| set(v, "/id", json!("Test:Wave")),
            pointer: "/id",
            message: "lowercase namespace:path",
        },
        Case {
            name: "id without namespace",
            patch: |v| set(v, "/id", json!("wave")),
            pointer: "/id",
            message: "namespace:path",
        },
        Case {
            name: "id empty path",
            patch: |v| set(v, "/id", json!("test:")),
            pointer: "/id",
            message: "namespace:path",
        },
        Case {
            name: "id with space",
            patch: |v| set(v, "/id", json!("test:a wave")),
            pointer: "/id",
            message: "lowercase namespace:path",
        },
        Case {
            name: "id is emote:continue",
            patch: |v| set(v, "/id", json!("emote:continue")),
            pointer: "/id",
            message: "reserved for Sequence repeat control",
        },
        Case {
            name: "id is emote:break",
            patch: |v| set(v, "/id", json!("emote:break")),
            pointer: "/id",
            message: "reserved for Sequence repeat control",
        },
        Case {
            name: "target_minecraft_version not a string",
            patch: |v| set(v, "/target_minecraft_version", json!(26.3)),
            pointer: "/target_minecraft_version",
            message: "must be a string",
        },
        Case {
            name: "unknown root field",
            patch: |v| set(v, "/extra", json!(1)),
            pointer: "/extra",
            message: "unknown field `extra`",
        },
        Case {
            name: "root callbacks are not supported",
            patch: |v| set(v, "/callbacks", json!([])),
            pointer: "/callbacks",
            message: "unknown field `callbacks`",
        },
        // --- metadata ----------------------------------------------------
        Case {
            name: "metadata missing",
            patch: |v| remove(v, "/metadata"),
            pointer: "",
            message: "missing required field `metadata`",
        },
        Case {
            name: "metadata not an object",
            patch: |v| set(v, "/metadata", json!("Wave")),
            pointer: "/metadata",
            message: "must be an object",
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
            name: "metadata name blank",
            patch: |v| set(v, "/metadata/name", json!("   ")),
            pointer: "/metadata/name",
            message: "must not be empty",
        },
        Case {
            name: "metadata name not a string",
            patch: |v| set(v, "/metadata/name", json!(1)),
            pointer: "/metadata/name",
            message: "must be a string",
        },
        Case {
            name: "metadata description not a string",
            patch: |v| set(v, "/metadata/description", json!(["x"])),
            pointer: "/metadata/description",
            message: "must be a string",
        },
        Case {
            name: "metadata icon not a string",
            patch: |v| set(v, "/metadata/icon", json!(7)),
            pointer: "/metadata/icon",
            message: "must be an item id such as \"minecraft:stick\" or item SNBT",
        },
        Case {
            name: "metadata icon empty",
            patch: |v| set(v, "/metadata/icon", json!("  ")),
            pointer: "/metadata/icon",
            message: "not an empty string",
        },
        Case {
            name: "metadata icon unknown item",
            patch: |v| set(v, "/metadata/icon", json!("minecraft:wand_of_waving")),
            pointer: "/metadata/icon",
            message: "unknown item `minecraft:wand_of_waving`",
        },
        Case {
            name: "metadata icon air",
            patch: |v| set(v, "/metadata/icon", json!("air")),
            pointer: "/metadata/icon",
            message: "shows nothing",
        },
        Case {
            name: "metadata icon bad SNBT",
            patch: |v| {
                set(
                    v,
                    "/metadata/icon",
                    json!("{id:\"minecraft:stick\",count:500}"),
                )
            },
            pointer: "/metadata/icon",
            message: "metadata `icon`:",
        },
        // --- settings ----------------------------------------------------
        Case {
            name: "settings missing",
            patch: |v| remove(v, "/settings"),
            pointer: "",
            message: "missing required field `settings`",
        },
        Case {
            name: "settings not an object",
            patch: |v| set(v, "/settings", json!([])),
            pointer: "/settings",
            message: "must be an object",
        },
        Case {
            name: "settings unknown field",
            patch: |v| set(v, "/settings/hidden", json!(true)),
            pointer: "/settings/hidden",
            message: "unknown field `hidden`",
        },
        Case {
            name: "settings display_interpolation is not supported",
            patch: |v| set(v, "/settings/display_interpolation", json!("1t")),
            pointer: "/settings/display_interpolation",
            message: "unknown field",
        },
        Case {
            name: "standalone not a boolean",
            patch: |v| set(v, "/settings/standalone", json!("yes")),
            pointer: "/settings/standalone",
            message: "must be true or false",
        },
        Case {
            name: "cooldown negative",
            patch: |v| set(v, "/settings/cooldown", json!("-1t")),
            pointer: "/settings/cooldown",
            message: "at least 0t",
        },
        Case {
            name: "cooldown negative seconds",
            patch: |v| set(v, "/settings/cooldown", json!("-0.5s")),
            pointer: "/settings/cooldown",
            message: "at least 0t",
        },
        Case {
            name: "cooldown negative number",
            patch: |v| set(v, "/settings/cooldown", json!(-3)),
            pointer: "/settings/cooldown",
            message: "at least 0t",
        },
        Case {
            name: "cooldown bad syntax",
            patch: |v| set(v, "/settings/cooldown", json!("2 s")),
            pointer: "/settings/cooldown",
            message: "is not a Minecraft time",
        },
        Case {
            name: "cooldown unknown unit",
            patch: |v| set(v, "/settings/cooldown", json!("2m")),
            pointer: "/settings/cooldown",
            message: "is not a Minecraft time",
        },
        Case {
            name: "cooldown uppercase unit",
            patch: |v| set(v, "/settings/cooldown", json!("2S")),
            pointer: "/settings/cooldown",
            message: "is not a Minecraft time",
        },
        Case {
            name: "cooldown empty",
            patch: |v| set(v, "/settings/cooldown", json!("")),
            pointer: "/settings/cooldown",
            message: "is not a Minecraft time",
        },
        Case {
            name: "cooldown boolean",
            patch: |v| set(v, "/settings/cooldown", json!(true)),
            pointer: "/settings/cooldown",
            message: "must be a time",
        },
        Case {
            name: "rotation_deadzone below 0",
            patch: |v| set(v, "/settings/rotation_deadzone", json!(-1)),
            pointer: "/settings/rotation_deadzone",
            message: "from 0 to 180",
        },
        Case {
            name: "rotation_deadzone above 180",
            patch: |v| set(v, "/settings/rotation_deadzone", json!(180.5)),
            pointer: "/settings/rotation_deadzone",
            message: "from 0 to 180",
        },
        Case {
            name: "rotation_deadzone not finite as f32",
            patch: |v| set(v, "/settings/rotation_deadzone", json!(1e300)),
            pointer: "/settings/rotation_deadzone",
            message: "finite",
        },
        Case {
            name: "rotation_deadzone as string",
            patch: |v| set(v, "/settings/rotation_deadzone", json!("50")),
            pointer: "/settings/rotation_deadzone",
            message: "must be a number",
        },
        Case {
            name: "player not an object",
            patch: |v| set(v, "/settings/player", json!(true)),
            pointer: "/settings/player",
            message: "must be an object",
        },
        Case {
            name: "player hidden not a boolean",
            patch: |v| set(v, "/settings/player/hidden", json!(1)),
            pointer: "/settings/player/hidden",
            message: "must be true or false",
        },
        Case {
            name: "player unknown field",
            patch: |v| set(v, "/settings/player/invisible", json!(true)),
            pointer: "/settings/player/invisible",
            message: "unknown field",
        },
        Case {
            name: "stop_condition typo",
            patch: |v| set(v, "/settings/player/stop_condition", json!({})),
            pointer: "/settings/player/stop_condition",
            message: "unknown field `stop_condition`",
        },
        Case {
            name: "stop_conditions not an object",
            patch: |v| set(v, "/settings/player/stop_conditions", json!([])),
            pointer: "/settings/player/stop_conditions",
            message: "must be an object",
        },
        Case {
            name: "stop_conditions unknown field",
            patch: |v| set(v, "/settings/player/stop_conditions/swim", json!(true)),
            pointer: "/settings/player/stop_conditions/swim",
            message: "unknown field",
        },
        Case {
            name: "movement_distance negative",
            patch: |v| {
                set(
                    v,
                    "/settings/player/stop_conditions/movement_distance",
                    json!(-0.1),
                )
            },
            pointer: "/settings/player/stop_conditions/movement_distance",
            message: "0 (off) or a positive distance",
        },
        Case {
            name: "movement_distance as string",
            patch: |v| {
                set(
                    v,
                    "/settings/player/stop_conditions/movement_distance",
                    json!("1"),
                )
            },
            pointer: "/settings/player/stop_conditions/movement_distance",
            message: "must be a number",
        },
        Case {
            name: "playback not an object",
            patch: |v| set(v, "/settings/playback", json!("once")),
            pointer: "/settings/playback",
            message: "must be an object",
        },
        Case {
            name: "playback mode unknown",
            patch: |v| set(v, "/settings/playback/mode", json!("bounce")),
            pointer: "/settings/playback/mode",
            message: "is not one of",
        },
        Case {
            name: "playback mode not a string",
            patch: |v| set(v, "/settings/playback/mode", json!(1)),
            pointer: "/settings/playback/mode",
            message: "must be a string",
        },
        Case {
            name: "playback unknown field",
            patch: |v| set(v, "/settings/playback/loop_start", json!("0t")),
            pointer: "/settings/playback/loop_start",
            message: "unknown field",
        },
        Case {
            name: "loop_delay in once mode",
            patch: |v| set(v, "/settings/playback/loop_delay", json!("5t")),
            pointer: "/settings/playback/loop_delay",
            message: "must be 0t in `once` mode",
        },
        Case {
            name: "loop_delay in hold mode",
            patch: |v| {
                set(v, "/settings/playback/mode", json!("hold"));
                set(v, "/settings/playback/loop_delay", json!("1s"));
            },
            pointer: "/settings/playback/loop_delay",
            message: "must be 0t in `hold` mode",
        },
        Case {
            name: "loop_delay with mode omitted (once)",
            patch: |v| {
                remove(v, "/settings/playback/mode");
                set(v, "/settings/playback/loop_delay", json!("2t"));
            },
            pointer: "/settings/playback/loop_delay",
            message: "must be 0t in `once` mode",
        },
        Case {
            name: "loop_delay negative in loop mode",
            patch: |v| {
                set(v, "/settings/playback/mode", json!("loop"));
                set(v, "/settings/playback/loop_delay", json!("-1t"));
            },
            pointer: "/settings/playback/loop_delay",
            message: "at least 0t",
        },
        // --- molang ------------------------------------------------------
        Case {
            name: "server_sync with molang.tick",
            patch: |v| set(v, "/settings/playback/mode", json!("server_sync")),
            pointer: "/molang/tick",
            message: "`server_sync` Animations may not have a `molang.tick`",
        },
        Case {
            name: "molang not an object",
            patch: |v| set(v, "/molang", json!("v.x = 1;")),
            pointer: "/molang",
            message: "must be an object",
        },
        Case {
            name: "molang unknown program",
            patch: |v| set(v, "/molang/update", json!("v.x = 1;")),
            pointer: "/molang/update",
            message: "unknown field",
        },
        Case {
            name: "molang.tick not a string",
            patch: |v| set(v, "/molang/tick", json!(1)),
            pointer: "/molang/tick",
            message: "must be a string",
        },
        Case {
            name: "molang.tick empty",
            patch: |v| set(v, "/molang/tick", json!(" ")),
            pointer: "/molang/tick",
            message: "must not be empty",
        },
        Case {
            name: "molang.initialize over 16384 chars",
            patch: |v| set(v, "/molang/initialize", json!("1".repeat(16_385))),
            pointer: "/molang/initialize",
            message: "at most 16384 characters",
        },
        Case {
            name: "molang.tick over 16384 chars",
            patch: |v| set(v, "/molang/tick", json!("1".repeat(16_385))),
            pointer: "/molang/tick",
            message: "at most 16384 characters",
        },
        Case {
            name: "track molang over 16384 chars",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/1/value/1",
                    json!("1".repeat(16_385)),
                )
            },
            pointer: "/timeline/tracks/hand/rotation/1/value/1",
            message: "at most 16384 characters",
        },
        Case {
            name: "visibility molang over 16384 chars",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/label/visible/1/value",
                    json!("1".repeat(16_385)),
                )
            },
            pointer: "/timeline/tracks/label/visible/1/value",
            message: "at most 16384 characters",
        },
        // --- nodes -------------------------------------------------------
        Case {
            name: "nodes missing",
            patch: |v| {
                remove(v, "/nodes");
                set(v, "/timeline/tracks", json!({}));
                set(v, "/timeline/events", json!({}));
            },
            pointer: "",
            message: "missing required field `nodes`",
        },
        Case {
            name: "nodes not an object",
            patch: |v| set(v, "/nodes", json!([])),
            pointer: "/nodes",
            message: "must be an object",
        },
        Case {
            name: "nodes empty",
            patch: |v| {
                set(v, "/nodes", json!({}));
                set(v, "/timeline/tracks", json!({}));
                set(v, "/timeline/events", json!({}));
            },
            pointer: "/nodes",
            message: "at least one node",
        },
        Case {
            name: "node not an object",
            patch: |v| set(v, "/nodes/extra", json!("anchor")),
            pointer: "/nodes/extra",
            message: "must be an object",
        },
        Case {
            name: "node id empty",
            patch: |v| {
                set(
                    v,
                    "/nodes/",
                    json!({"type": "anchor", "space": "scene", "transform": transform()}),
                )
            },
            pointer: "/nodes/",
            message: "node id must not be empty",
        },
        Case {
            name: "node id with slash is escaped in the pointer",
            patch: |v| {
                set(
                    v,
                    "/nodes/a~1b",
                    json!({"type": "lamp", "space": "scene", "transform": transform()}),
                )
            },
            pointer: "/nodes/a~1b/type",
            message: "is not one of",
        },
        Case {
            name: "node type missing",
            patch: |v| remove(v, "/nodes/block/type"),
            pointer: "/nodes/block",
            message: "missing required field `type`",
        },
        Case {
            name: "node type unknown",
            patch: |v| set(v, "/nodes/block/type", json!("entity_display")),
            pointer: "/nodes/block/type",
            message: "node `type` `entity_display` is not one of",
        },
        Case {
            name: "node unknown field",
            patch: |v| set(v, "/nodes/block/color", json!("red")),
            pointer: "/nodes/block/color",
            message: "unknown field `color`",
        },
        Case {
            name: "transform missing",
            patch: |v| remove(v, "/nodes/block/transform"),
            pointer: "/nodes/block",
            message: "missing required field `transform`",
        },
        Case {
            name: "transform not an object",
            patch: |v| set(v, "/nodes/block/transform", json!([0, 0, 0])),
            pointer: "/nodes/block/transform",
            message: "must be an object",
        },
        Case {
            name: "transform scale missing",
            patch: |v| remove(v, "/nodes/block/transform/scale"),
            pointer: "/nodes/block/transform",
            message: "missing required field `scale`",
        },
        Case {
            name: "transform position two numbers",
            patch: |v| set(v, "/nodes/block/transform/position", json!([0, 0])),
            pointer: "/nodes/block/transform/position",
            message: "three finite numbers",
        },
        Case {
            name: "transform rotation four numbers",
            patch: |v| set(v, "/nodes/block/transform/rotation", json!([0, 0, 0, 0])),
            pointer: "/nodes/block/transform/rotation",
            message: "three finite numbers",
        },
        Case {
            name: "transform Molang not allowed",
            patch: |v| set(v, "/nodes/block/transform/rotation/1", json!("q.anim_time")),
            pointer: "/nodes/block/transform/rotation/1",
            message: "must be a number",
        },
        Case {
            name: "transform scale not finite as f32",
            patch: |v| set(v, "/nodes/block/transform/scale/0", json!(1e39)),
            pointer: "/nodes/block/transform/scale/0",
            message: "finite",
        },
        Case {
            name: "transform unknown field",
            patch: |v| set(v, "/nodes/block/transform/pivot", json!([0, 0, 0])),
            pointer: "/nodes/block/transform/pivot",
            message: "unknown field",
        },
        Case {
            name: "space and parent both",
            patch: |v| set(v, "/nodes/hand/space", json!("initiator")),
            pointer: "/nodes/hand/parent",
            message: "either `space` (root) or `parent` (child), not both",
        },
        Case {
            name: "neither space nor parent",
            patch: |v| remove(v, "/nodes/block/space"),
            pointer: "/nodes/block",
            message: "a root node needs `space`",
        },
        Case {
            name: "space unknown",
            patch: |v| set(v, "/nodes/block/space", json!("world")),
            pointer: "/nodes/block/space",
            message: "is not one of",
        },
        Case {
            name: "parent unknown",
            patch: |v| set(v, "/nodes/hand/parent", json!("ghost")),
            pointer: "/nodes/hand/parent",
            message: "parent `ghost` is not a node of this file",
        },
        Case {
            name: "parent empty",
            patch: |v| set(v, "/nodes/hand/parent", json!("")),
            pointer: "/nodes/hand/parent",
            message: "must not be empty",
        },
        Case {
            name: "parent not a string",
            patch: |v| set(v, "/nodes/hand/parent", json!(["body"])),
            pointer: "/nodes/hand/parent",
            message: "must be a string",
        },
        Case {
            name: "parent is itself",
            patch: |v| {
                remove(v, "/nodes/body/space");
                set(v, "/nodes/body/parent", json!("body"));
            },
            pointer: "/nodes/body/parent",
            message: "cannot form a cycle",
        },
        Case {
            name: "parent cycle of two",
            patch: |v| {
                remove(v, "/nodes/body/space");
                set(v, "/nodes/body/parent", json!("hand"));
            },
            pointer: "/nodes/body/parent",
            message: "cannot form a cycle",
        },
        Case {
            name: "parent cycle of three",
            patch: |v| {
                remove(v, "/nodes/body/space");
                set(v, "/nodes/body/parent", json!("x"));
                set(
                    v,
                    "/nodes/x",
                    json!({"type": "anchor", "parent": "hand", "transform": transform()}),
                );
            },
            // Reported once, at the member whose id sorts first.
            pointer: "/nodes/body/parent",
            message: "cannot form a cycle",
        },
        Case {
            name: "visible not a boolean",
            patch: |v| set(v, "/nodes/block/visible", json!("yes")),
            pointer: "/nodes/block/visible",
            message: "must be true or false",
        },
        // --- item_display ------------------------------------------------
        Case {
            name: "item stack and item source both",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_source",
                    json!({"type": "participant_hand", "arm": "left"}),
                )
            },
            pointer: "/nodes/hand/item_source",
            message: "exactly one of `item_stack_snbt` or `item_source`, not both",
        },
        Case {
            name: "item stack and item source neither",
            patch: |v| remove(v, "/nodes/hand/item_stack_snbt"),
            pointer: "/nodes/hand",
            message: "needs exactly one of `item_stack_snbt` or `item_source`",
        },
        Case {
            name: "item_display context missing",
            patch: |v| remove(v, "/nodes/hand/item_display"),
            pointer: "/nodes/hand",
            message: "missing required field `item_display`",
        },
        Case {
            name: "item_display context unknown",
            patch: |v| set(v, "/nodes/hand/item_display", json!("left_hand")),
            pointer: "/nodes/hand/item_display",
            message: "is not one of",
        },
        Case {
            name: "item_stack_snbt not a string",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!({"id": "minecraft:stick"}),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "must be a string",
        },
        Case {
            name: "item_stack_snbt invalid SNBT",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\""),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "invalid SNBT",
        },
        Case {
            name: "item_stack_snbt not a compound",
            patch: |v| set(v, "/nodes/hand/item_stack_snbt", json!("[1,2]")),
            pointer: "/nodes/hand/item_stack_snbt",
            message: "compound",
        },
        Case {
            name: "item unknown (newer than 1.20.1)",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:mace\",count:1}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "unknown item `minecraft:mace`",
        },
        Case {
            name: "item unknown name",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:not_an_item\",count:1}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "unknown item",
        },
        Case {
            name: "item unknown namespace",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"mymod:stick\",count:1}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "unknown item",
        },
        Case {
            name: "item air",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:air\",count:1}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "minecraft:air",
        },
        Case {
            name: "item id missing",
            patch: |v| set(v, "/nodes/hand/item_stack_snbt", json!("{count:1}")),
            pointer: "/nodes/hand/item_stack_snbt",
            message: "needs an `id`",
        },
        Case {
            name: "item count 0",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",count:0}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "count must be from 1 to 127",
        },
        Case {
            name: "item count 128",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",count:128}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "count must be from 1 to 127",
        },
        Case {
            name: "item legacy Count 0b",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",Count:0b}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "count must be from 1 to 127",
        },
        Case {
            name: "item count negative",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",count:-1}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "count must be from 1 to 127",
        },
        Case {
            name: "item count not a number",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",count:\"1\"}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "whole number",
        },
        Case {
            name: "item components and tag both",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",count:1,tag:{},components:{}}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "not both",
        },
        Case {
            name: "item unknown stack key",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",count:1,Slot:1b}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "unknown item stack key `Slot`",
        },
        Case {
            name: "item component with a bad value",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!(
                        "{id:\"minecraft:stick\",count:1,components:{\"minecraft:damage\":\"x\"}}"
                    ),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "`minecraft:damage` must be a whole number",
        },
        Case {
            name: "item tag not a compound",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",Count:1b,tag:1}"),
                )
            },
            pointer: "/nodes/hand/item_stack_snbt",
            message: "`tag` must be a compound",
        },
        Case {
            name: "item_source not an object",
            patch: |v| set(v, "/nodes/held/item_source", json!("right")),
            pointer: "/nodes/held/item_source",
            message: "must be an object",
        },
        Case {
            name: "item_source type unknown",
            patch: |v| set(v, "/nodes/held/item_source/type", json!("participant_head")),
            pointer: "/nodes/held/item_source/type",
            message: "is not one of",
        },
        Case {
            name: "item_source type missing",
            patch: |v| remove(v, "/nodes/held/item_source/type"),
            pointer: "/nodes/held/item_source",
            message: "missing required field `type`",
        },
        Case {
            name: "item_source arm unknown",
            patch: |v| set(v, "/nodes/held/item_source/arm", json!("main")),
            pointer: "/nodes/held/item_source/arm",
            message: "is not one of",
        },
        Case {
            name: "item_source arm missing",
            patch: |v| remove(v, "/nodes/held/item_source/arm"),
            pointer: "/nodes/held/item_source",
            message: "missing required field `arm`",
        },
        Case {
            name: "item_source unknown field",
            patch: |v| set(v, "/nodes/held/item_source/slot", json!(0)),
            pointer: "/nodes/held/item_source/slot",
            message: "unknown field",
        },
        Case {
            name: "item_source in scene space (root)",
            patch: |v| {
                remove(v, "/nodes/held/parent");
                set(v, "/nodes/held/space", json!("scene"));
            },
            pointer: "/nodes/held/item_source",
            message: "must inherit initiator or partner space, not scene",
        },
        Case {
            name: "item_source in scene space (inherited)",
            patch: |v| set(v, "/nodes/held/parent", json!("block")),
            pointer: "/nodes/held/item_source",
            message: "must inherit initiator or partner space, not scene",
        },
        Case {
            name: "item_source with skin",
            patch: |v| {
                set(
                    v,
                    "/nodes/held/skin",
                    json!({"part": "right_arm", "order": 0}),
                )
            },
            pointer: "/nodes/held/skin",
            message: "participant-hand items cannot use `skin`",
        },
        // --- skin --------------------------------------------------------
        Case {
            name: "skin not an object",
            patch: |v| set(v, "/nodes/head/skin", json!("head")),
            pointer: "/nodes/head/skin",
            message: "must be an object",
        },
        Case {
            name: "skin part missing",
            patch: |v| remove(v, "/nodes/head/skin/part"),
            pointer: "/nodes/head/skin",
            message: "missing required field `part`",
        },
        Case {
            name: "skin part unknown",
            patch: |v| set(v, "/nodes/head/skin/part", json!("tail")),
            pointer: "/nodes/head/skin/part",
            message: "is not one of",
        },
        Case {
            name: "skin order missing",
            patch: |v| remove(v, "/nodes/head/skin/order"),
            pointer: "/nodes/head/skin",
            message: "missing required field `order`",
        },
        Case {
            name: "skin order negative",
            patch: |v| set(v, "/nodes/head/skin/order", json!(-1)),
            pointer: "/nodes/head/skin/order",
            message: "whole number of at least 0",
        },
        Case {
            name: "skin order fractional",
            patch: |v| set(v, "/nodes/head/skin/order", json!(1.5)),
            pointer: "/nodes/head/skin/order",
            message: "whole number of at least 0",
        },
        Case {
            name: "skin participant unknown",
            patch: |v| set(v, "/nodes/head/skin/participant", json!("spectator")),
            pointer: "/nodes/head/skin/participant",
            message: "is not one of",
        },
        Case {
            name: "skin participant partner in initiator space",
            patch: |v| set(v, "/nodes/head/skin/participant", json!("partner")),
            pointer: "/nodes/head/skin/participant",
            message: "must match the node's inherited space `initiator`",
        },
        Case {
            name: "skin participant initiator in partner space",
            patch: |v| set(v, "/nodes/head/space", json!("partner")),
            pointer: "/nodes/head/skin/participant",
            message: "must match the node's inherited space `partner`",
        },
        Case {
            name: "skin default participant in partner space",
            patch: |v| {
                set(v, "/nodes/head/space", json!("partner"));
                remove(v, "/nodes/head/skin/participant");
            },
            pointer: "/nodes/head/skin",
            message: "must match the node's inherited space `partner`",
        },
        Case {
            name: "skin participant must match inherited space",
            patch: |v| {
                remove(v, "/nodes/head/space");
                set(v, "/nodes/head/parent", json!("body"));
                set(v, "/nodes/body/space", json!("partner"));
                remove(v, "/nodes/head/skin/participant");
            },
            pointer: "/nodes/head/skin",
            message: "must match the node's inherited space `partner`",
        },
        Case {
            name: "skin in scene space",
            patch: |v| {
                set(v, "/nodes/head/space", json!("scene"));
                remove(v, "/nodes/head/skin/participant");
            },
            pointer: "/nodes/head/skin",
            message: "scene-space nodes do not support skin binding",
        },
        Case {
            name: "skin unknown field",
            patch: |v| set(v, "/nodes/head/skin/region", json!(0)),
            pointer: "/nodes/head/skin/region",
            message: "unknown field",
        },
        Case {
            name: "skin on block_display",
            patch: |v| set(v, "/nodes/block/skin", json!({"part": "head", "order": 0})),
            pointer: "/nodes/block/skin",
            message: "only supported on item_display",
        },
        Case {
            name: "skin on text_display",
            patch: |v| set(v, "/nodes/label/skin", json!({"part": "head", "order": 0})),
            pointer: "/nodes/label/skin",
            message: "only supported on item_display",
        },
        // --- block_display -----------------------------------------------
        Case {
            name: "block_state_snbt missing",
            patch: |v| remove(v, "/nodes/block/block_state_snbt"),
            pointer: "/nodes/block",
            message: "missing required field `block_state_snbt`",
        },
        Case {
            name: "block_state_snbt not a string",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!({"Name": "minecraft:stone"}),
                )
            },
            pointer: "/nodes/block/block_state_snbt",
            message: "must be a string",
        },
        Case {
            name: "block_state_snbt invalid SNBT",
            patch: |v| set(v, "/nodes/block/block_state_snbt", json!("{Name:")),
            pointer: "/nodes/block/block_state_snbt",
            message: "invalid SNBT",
        },
        Case {
            name: "block unknown",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Name:\"minecraft:not_a_block\"}"),
                )
            },
            pointer: "/nodes/block/block_state_snbt",
            message: "unknown block `minecraft:not_a_block`",
        },
        Case {
            name: "block newer than 1.20.1",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Name:\"minecraft:crafter\"}"),
                )
            },
            pointer: "/nodes/block/block_state_snbt",
            message: "unknown block",
        },
        Case {
            name: "block Name missing",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Properties:{facing:\"east\"}}"),
                )
            },
            pointer: "/nodes/block/block_state_snbt",
            message: "needs a `Name`",
        },
        Case {
            name: "block unknown property",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Name:\"minecraft:stone\",Properties:{facing:\"east\"}}"),
                )
            },
            pointer: "/nodes/block/block_state_snbt",
            message: "has no property `facing`",
        },
        Case {
            name: "block invalid property value",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Name:\"minecraft:oak_stairs\",Properties:{facing:\"up\"}}"),
                )
            },
            pointer: "/nodes/block/block_state_snbt",
            message: "not a valid value",
        },
        Case {
            name: "block numeric property out of range",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Name:\"minecraft:water\",Properties:{level:\"99\"}}"),
                )
            },
            pointer: "/nodes/block/block_state_snbt",
            message: "not a valid value",
        },
        Case {
            name: "block nonsense property value",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Name:\"minecraft:oak_stairs\",Properties:{facing:\"sideways\"}}"),
                )
            },
            pointer: "/nodes/block/block_state_snbt",
            message: "not a valid value",
        },
        Case {
            name: "block unknown state key",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Name:\"minecraft:stone\",Data:1b}"),
                )
            },
            pointer: "/nodes/block/block_state_snbt",
            message: "unknown block state key `Data`",
        },
        Case {
            name: "item fields on block_display",
            patch: |v| set(v, "/nodes/block/item_display", json!("fixed")),
            pointer: "/nodes/block/item_display",
            message: "belongs to item_display nodes",
        },
        Case {
            name: "text on block_display",
            patch: |v| set(v, "/nodes/block/text", json!("x")),
            pointer: "/nodes/block/text",
            message: "belongs to text_display nodes",
        },
        // --- text_display ------------------------------------------------
        Case {
            name: "text missing",
            patch: |v| remove(v, "/nodes/label/text"),
            pointer: "/nodes/label",
            message: "missing required field `text`",
        },
        Case {
            name: "text a number",
            patch: |v| set(v, "/nodes/label/text", json!(5)),
            pointer: "/nodes/label/text",
            message: "must be a JSON text component",
        },
        Case {
            name: "text object without content",
            patch: |v| set(v, "/nodes/label/text", json!({"color": "red"})),
            pointer: "/nodes/label/text",
            message: "not a valid text component",
        },
        Case {
            name: "text object with a bad color",
            patch: |v| {
                set(
                    v,
                    "/nodes/label/text",
                    json!({"text": "a", "color": "not_a_color"}),
                )
            },
            pointer: "/nodes/label/text",
            message: "not a valid text component",
        },
        Case {
            name: "text a boolean",
            patch: |v| set(v, "/nodes/label/text", json!(true)),
            pointer: "/nodes/label/text",
            message: "must be a JSON text component",
        },
        Case {
            name: "block_state_snbt on text_display",
            patch: |v| {
                set(
                    v,
                    "/nodes/label/block_state_snbt",
                    json!("{Name:\"minecraft:stone\"}"),
                )
            },
            pointer: "/nodes/label/block_state_snbt",
            message: "belongs to block_display nodes",
        },
        Case {
            name: "item_stack_snbt on text_display",
            patch: |v| {
                set(
                    v,
                    "/nodes/label/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",count:1}"),
                )
            },
            pointer: "/nodes/label/item_stack_snbt",
            message: "belongs to item_display nodes",
        },
        // --- entity_nbt --------------------------------------------------
        Case {
            name: "entity_nbt not a string",
            patch: |v| set(v, "/nodes/block/entity_nbt", json!({"Glowing": 1})),
            pointer: "/nodes/block/entity_nbt",
            message: "must be a string",
        },
        Case {
            name: "entity_nbt invalid SNBT",
            patch: |v| set(v, "/nodes/block/entity_nbt", json!("{Glowing:")),
            pointer: "/nodes/block/entity_nbt",
            message: "invalid SNBT",
        },
        Case {
            name: "entity_nbt not a compound",
            patch: |v| set(v, "/nodes/block/entity_nbt", json!("1b")),
            pointer: "/nodes/block/entity_nbt",
            message: "compound",
        },
        Case {
            name: "entity_nbt bad billboard",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/entity_nbt",
                    json!("{billboard:\"sideways\"}"),
                )
            },
            pointer: "/nodes/block/entity_nbt",
            message: "`billboard` must be",
        },
        Case {
            name: "entity_nbt brightness out of range",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/entity_nbt",
                    json!("{brightness:{block:16,sky:0}}"),
                )
            },
            pointer: "/nodes/block/entity_nbt",
            message: "`brightness` must be",
        },
        Case {
            name: "entity_nbt numeric field not a number",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/entity_nbt",
                    json!("{shadow_radius:\"big\"}"),
                )
            },
            pointer: "/nodes/block/entity_nbt",
            message: "`shadow_radius` must be a number",
        },
        Case {
            name: "entity_nbt flag not a boolean",
            patch: |v| set(v, "/nodes/block/entity_nbt", json!("{Glowing:\"yes\"}")),
            pointer: "/nodes/block/entity_nbt",
            message: "`Glowing` must be a boolean",
        },
        Case {
            name: "entity_nbt bad alignment",
            patch: |v| {
                set(
                    v,
                    "/nodes/label/entity_nbt",
                    json!("{alignment:\"justify\"}"),
                )
            },
            pointer: "/nodes/label/entity_nbt",
            message: "`alignment` must be",
        },
        // --- anchors -----------------------------------------------------
        Case {
            name: "anchor with visible",
            patch: |v| set(v, "/nodes/body/visible", json!(true)),
            pointer: "/nodes/body/visible",
            message: "anchor nodes do not support `visible`",
        },
        Case {
            name: "anchor with entity_nbt",
            patch: |v| set(v, "/nodes/body/entity_nbt", json!("{Glowing:1b}")),
            pointer: "/nodes/body/entity_nbt",
            message: "anchor nodes do not support `entity_nbt`",
        },
        Case {
            name: "anchor with item_stack_snbt",
            patch: |v| {
                set(
                    v,
                    "/nodes/body/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",count:1}"),
                )
            },
            pointer: "/nodes/body/item_stack_snbt",
            message: "belongs to display nodes, not anchors",
        },
        Case {
            name: "anchor with skin",
            patch: |v| set(v, "/nodes/body/skin", json!({"part": "body", "order": 0})),
            pointer: "/nodes/body/skin",
            message: "belongs to display nodes, not anchors",
        },
        Case {
            name: "anchor with text",
            patch: |v| set(v, "/nodes/body/text", json!("x")),
            pointer: "/nodes/body/text",
            message: "belongs to display nodes, not anchors",
        },
        Case {
            name: "anchor with visible track",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/body/visible",
                    json!([{"time": "0t", "value": true}]),
                )
            },
            pointer: "/timeline/tracks/body/visible",
            message: "anchor nodes cannot have a `visible` track",
        },
        Case {
            name: "anchor as event source",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/start/0/source",
                    json!({"type": "node", "node": "body"}),
                )
            },
            pointer: "/timeline/events/start/0/source/node",
            message: "must be a display node",
        },
        // --- timeline ----------------------------------------------------
        Case {
            name: "timeline missing",
            patch: |v| remove(v, "/timeline"),
            pointer: "",
            message: "missing required field `timeline`",
        },
        Case {
            name: "timeline not an object",
            patch: |v| set(v, "/timeline", json!([])),
            pointer: "/timeline",
            message: "must be an object",
        },
        Case {
            name: "timeline unknown field",
            patch: |v| set(v, "/timeline/keyframes", json!([])),
            pointer: "/timeline/keyframes",
            message: "unknown field `keyframes`",
        },
        Case {
            name: "duration missing",
            patch: |v| remove(v, "/timeline/duration"),
            pointer: "/timeline",
            message: "missing required field `duration`",
        },
        Case {
            name: "duration zero",
            patch: |v| set(v, "/timeline/duration", json!("0t")),
            pointer: "/timeline/duration",
            message: "at least 1t",
        },
        Case {
            name: "duration rounds to zero",
            patch: |v| set(v, "/timeline/duration", json!("0.4t")),
            pointer: "/timeline/duration",
            message: "at least 1t",
        },
        Case {
            name: "duration negative",
            patch: |v| set(v, "/timeline/duration", json!("-20t")),
            pointer: "/timeline/duration",
            message: "at least 1t",
        },
        Case {
            name: "duration zero as number",
            patch: |v| set(v, "/timeline/duration", json!(0)),
            pointer: "/timeline/duration",
            message: "at least 1t",
        },
        Case {
            name: "duration over 10 minutes (ticks)",
            patch: |v| set(v, "/timeline/duration", json!("12001t")),
            pointer: "/timeline/duration",
            message: "at most 10 minutes",
        },
        Case {
            name: "duration over 10 minutes (seconds, rounded)",
            patch: |v| set(v, "/timeline/duration", json!("600.05s")),
            pointer: "/timeline/duration",
            message: "at most 10 minutes",
        },
        Case {
            name: "duration one day",
            patch: |v| set(v, "/timeline/duration", json!("1d")),
            pointer: "/timeline/duration",
            message: "at most 10 minutes",
        },
        Case {
            name: "tracks not an object",
            patch: |v| set(v, "/timeline/tracks", json!([])),
            pointer: "/timeline/tracks",
            message: "must be an object",
        },
        Case {
            name: "tracks on unknown node",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/ghost",
                    json!({"position": [{"time": "0t", "value": [0, 0, 0]}]}),
                )
            },
            pointer: "/timeline/tracks/ghost",
            message: "not in `nodes`",
        },
        Case {
            name: "node tracks not an object",
            patch: |v| set(v, "/timeline/tracks/hand", json!([])),
            pointer: "/timeline/tracks/hand",
            message: "must be an object",
        },
        Case {
            name: "unknown channel",
            patch: |v| set(v, "/timeline/tracks/hand/opacity", json!([])),
            pointer: "/timeline/tracks/hand/opacity",
            message: "unknown field `opacity`",
        },
        Case {
            name: "track not an array",
            patch: |v| set(v, ROT, json!({"time": "0t"})),
            pointer: ROT,
            message: "must be an array of keyframes",
        },
        Case {
            name: "track empty",
            patch: |v| set(v, ROT, json!([])),
            pointer: ROT,
            message: "at least one keyframe",
        },
        // --- vector keyframes --------------------------------------------
        Case {
            name: "keyframe not an object",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/1", json!([0, 0, 0])),
            pointer: "/timeline/tracks/hand/rotation/1",
            message: "must be an object",
        },
        Case {
            name: "keyframe time missing",
            patch: |v| remove(v, "/timeline/tracks/hand/rotation/1/time"),
            pointer: "/timeline/tracks/hand/rotation/1",
            message: "missing required field `time`",
        },
        Case {
            name: "first keyframe not at 0t",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/0/time", json!("1t")),
            pointer: "/timeline/tracks/hand/rotation/0/time",
            message: "first keyframe must be at 0t",
        },
        Case {
            name: "first keyframe rounds to 1t",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/0/time", json!("0.5t")),
            pointer: "/timeline/tracks/hand/rotation/0/time",
            message: "first keyframe must be at 0t",
        },
        Case {
            name: "keyframe time negative",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/1/time", json!("-1t")),
            pointer: "/timeline/tracks/hand/rotation/1/time",
            message: "at least 0t",
        },
        Case {
            name: "keyframe times equal",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/1/time", json!("0t")),
            pointer: "/timeline/tracks/hand/rotation/1/time",
            message: "strictly increase",
        },
        Case {
            name: "keyframe times decreasing",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/2/time", json!("10t")),
            pointer: "/timeline/tracks/hand/rotation/2/time",
            message: "strictly increase",
        },
        Case {
            name: "keyframe times equal after rounding (0.33s = 7t)",
            patch: |v| {
                set(v, "/timeline/tracks/hand/rotation/1/time", json!("0.33s"));
                set(v, "/timeline/tracks/hand/rotation/2/time", json!("7t"));
            },
            pointer: "/timeline/tracks/hand/rotation/2/time",
            message: "strictly increase",
        },
        Case {
            name: "keyframe times equal after rounding (2.4t = 2t)",
            patch: |v| {
                set(v, "/timeline/tracks/hand/rotation/1/time", json!("2t"));
                set(v, "/timeline/tracks/hand/rotation/2/time", json!("2.4t"));
            },
            pointer: "/timeline/tracks/hand/rotation/2/time",
            message: "strictly increase",
        },
        Case {
            name: "keyframe past the duration",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/2/time", json!("41t")),
            pointer: "/timeline/tracks/hand/rotation/2/time",
            message: "past the timeline duration",
        },
        Case {
            name: "keyframe past the duration (seconds)",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/2/time", json!("2.05s")),
            pointer: "/timeline/tracks/hand/rotation/2/time",
            message: "past the timeline duration",
        },
        Case {
            name: "keyframe value two components",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/1/value", json!([0, 0])),
            pointer: "/timeline/tracks/hand/rotation/1/value",
            message: "three finite numbers or Molang strings",
        },
        Case {
            name: "keyframe value not an array",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/1/value", json!(0)),
            pointer: "/timeline/tracks/hand/rotation/1/value",
            message: "three finite numbers or Molang strings",
        },
        Case {
            name: "keyframe component boolean",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/1/value/0", json!(true)),
            pointer: "/timeline/tracks/hand/rotation/1/value/0",
            message: "finite number or a Molang string",
        },
        Case {
            name: "keyframe component null",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/1/value/2", Value::Null),
            pointer: "/timeline/tracks/hand/rotation/1/value/2",
            message: "finite number or a Molang string",
        },
        Case {
            name: "keyframe component not finite as f32",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/1/value/0", json!(-1e39)),
            pointer: "/timeline/tracks/hand/rotation/1/value/0",
            message: "finite",
        },
        Case {
            name: "keyframe component empty Molang",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/1/value/0", json!("")),
            pointer: "/timeline/tracks/hand/rotation/1/value/0",
            message: "must not be empty",
        },
        Case {
            name: "keyframe value and pre",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/1/pre", json!([0, 0, 0])),
            pointer: "/timeline/tracks/hand/rotation/1",
            message: "either `value` or both `pre` and `post`, not both forms",
        },
        Case {
            name: "keyframe value, pre and post",
            patch: |v| {
                set(v, "/timeline/tracks/hand/rotation/1/pre", json!([0, 0, 0]));
                set(v, "/timeline/tracks/hand/rotation/1/post", json!([0, 0, 0]));
            },
            pointer: "/timeline/tracks/hand/rotation/1",
            message: "not both forms",
        },
        Case {
            name: "keyframe pre without post",
            patch: |v| {
                remove(v, "/timeline/tracks/hand/rotation/1/value");
                set(v, "/timeline/tracks/hand/rotation/1/pre", json!([0, 0, 0]));
            },
            pointer: "/timeline/tracks/hand/rotation/1",
            message: "`pre` and `post` must be given together",
        },
        Case {
            name: "keyframe post without pre",
            patch: |v| {
                remove(v, "/timeline/tracks/hand/rotation/1/value");
                set(v, "/timeline/tracks/hand/rotation/1/post", json!([0, 0, 0]));
            },
            pointer: "/timeline/tracks/hand/rotation/1",
            message: "`pre` and `post` must be given together",
        },
        Case {
            name: "keyframe no value",
            patch: |v| remove(v, "/timeline/tracks/hand/rotation/1/value"),
            pointer: "/timeline/tracks/hand/rotation/1",
            message: "must define `value`, or both `pre` and `post`",
        },
        Case {
            name: "keyframe pre malformed",
            patch: |v| {
                remove(v, "/timeline/tracks/hand/rotation/1/value");
                set(v, "/timeline/tracks/hand/rotation/1/pre", json!([0, 0]));
                set(v, "/timeline/tracks/hand/rotation/1/post", json!([0, 0, 0]));
            },
            pointer: "/timeline/tracks/hand/rotation/1/pre",
            message: "three finite numbers",
        },
        Case {
            name: "keyframe post component malformed",
            patch: |v| {
                remove(v, "/timeline/tracks/hand/rotation/1/value");
                set(v, "/timeline/tracks/hand/rotation/1/pre", json!([0, 0, 0]));
                set(
                    v,
                    "/timeline/tracks/hand/rotation/1/post",
                    json!([0, {}, 0]),
                );
            },
            pointer: "/timeline/tracks/hand/rotation/1/post/1",
            message: "finite number or a Molang string",
        },
        Case {
            name: "final keyframe with interpolation",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/2/interpolation",
                    json!("linear"),
                )
            },
            pointer: "/timeline/tracks/hand/rotation/2/interpolation",
            message: "final keyframe cannot declare `interpolation`",
        },
        Case {
            name: "final keyframe with easing",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/2/easing",
                    json!("ease_in_sine"),
                )
            },
            pointer: "/timeline/tracks/hand/rotation/2/easing",
            message: "final keyframe cannot declare `easing`",
        },
        Case {
            name: "single keyframe with interpolation",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/body/position",
                    json!([{"time": "0t", "value": [0, 0, 0], "interpolation": "step"}]),
                )
            },
            pointer: "/timeline/tracks/body/position/0/interpolation",
            message: "final keyframe cannot declare `interpolation`",
        },
        Case {
            name: "easing with step",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/1/easing",
                    json!("ease_in_sine"),
                )
            },
            pointer: "/timeline/tracks/hand/rotation/1/easing",
            message: "cannot be combined with `step`",
        },
        Case {
            name: "easing unknown",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/0/easing",
                    json!("ease_in_out_wobble"),
                )
            },
            pointer: "/timeline/tracks/hand/rotation/0/easing",
            message: "is not one of",
        },
        Case {
            name: "easing camelCase",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/0/easing",
                    json!("easeInSine"),
                )
            },
            pointer: "/timeline/tracks/hand/rotation/0/easing",
            message: "is not one of",
        },
        Case {
            name: "easing not a string",
            patch: |v| set(v, "/timeline/tracks/hand/rotation/0/easing", json!(1)),
            pointer: "/timeline/tracks/hand/rotation/0/easing",
            message: "must be a string",
        },
        Case {
            name: "interpolation unknown",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/0/interpolation",
                    json!("catmullrom"),
                )
            },
            pointer: "/timeline/tracks/hand/rotation/0/interpolation",
            message: "is not one of",
        },
        Case {
            name: "keyframe unknown field",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/0/tangent",
                    json!([0, 0, 0]),
                )
            },
            pointer: "/timeline/tracks/hand/rotation/0/tangent",
            message: "unknown field",
        },
        Case {
            name: "keyframe on scale track checked too",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/scale",
                    json!([{"time": "5t", "value": [1, 1, 1]}]),
                )
            },
            pointer: "/timeline/tracks/hand/scale/0/time",
            message: "first keyframe must be at 0t",
        },
        // --- visibility keyframes ----------------------------------------
        Case {
            name: "visibility value a number",
            patch: |v| set(v, "/timeline/tracks/label/visible/1/value", json!(1)),
            pointer: "/timeline/tracks/label/visible/1/value",
            message: "true, false or a Molang string",
        },
        Case {
            name: "visibility value an array",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/label/visible/1/value",
                    json!([1, 1, 1]),
                )
            },
            pointer: "/timeline/tracks/label/visible/1/value",
            message: "true, false or a Molang string",
        },
        Case {
            name: "visibility value empty Molang",
            patch: |v| set(v, "/timeline/tracks/label/visible/1/value", json!("")),
            pointer: "/timeline/tracks/label/visible/1/value",
            message: "must not be empty",
        },
        Case {
            name: "visibility value missing",
            patch: |v| remove(v, "/timeline/tracks/label/visible/1/value"),
            pointer: "/timeline/tracks/label/visible/1",
            message: "missing required field `value`",
        },
        Case {
            name: "visibility with interpolation",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/label/visible/0/interpolation",
                    json!("step"),
                )
            },
            pointer: "/timeline/tracks/label/visible/0/interpolation",
            message: "do not support `interpolation`",
        },
        Case {
            name: "visibility with easing",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/label/visible/0/easing",
                    json!("linear"),
                )
            },
            pointer: "/timeline/tracks/label/visible/0/easing",
            message: "do not support `easing`",
        },
        Case {
            name: "visibility with pre",
            patch: |v| set(v, "/timeline/tracks/label/visible/1/pre", json!(false)),
            pointer: "/timeline/tracks/label/visible/1/pre",
            message: "do not support `pre`",
        },
        Case {
            name: "visibility with post",
            patch: |v| set(v, "/timeline/tracks/label/visible/1/post", json!(true)),
            pointer: "/timeline/tracks/label/visible/1/post",
            message: "do not support `post`",
        },
        Case {
            name: "visibility first key not at 0t",
            patch: |v| set(v, "/timeline/tracks/label/visible/0/time", json!("2t")),
            pointer: "/timeline/tracks/label/visible/0/time",
            message: "first keyframe must be at 0t",
        },
        Case {
            name: "visibility times not increasing",
            patch: |v| set(v, "/timeline/tracks/label/visible/1/time", json!("0t")),
            pointer: "/timeline/tracks/label/visible/1/time",
            message: "strictly increase",
        },
        Case {
            name: "visibility key past the duration",
            patch: |v| set(v, "/timeline/tracks/label/visible/1/time", json!("3s")),
            pointer: "/timeline/tracks/label/visible/1/time",
            message: "past the timeline duration",
        },
        Case {
            name: "visibility track empty",
            patch: |v| set(v, VIS, json!([])),
            pointer: VIS,
            message: "at least one keyframe",
        },
        Case {
            name: "visibility unknown field",
            patch: |v| set(v, "/timeline/tracks/label/visible/0/color", json!(1)),
            pointer: "/timeline/tracks/label/visible/0/color",
            message: "unknown field",
        },
        // --- events ------------------------------------------------------
        Case {
            name: "events not an object",
            patch: |v| set(v, "/timeline/events", json!([])),
            pointer: "/timeline/events",
            message: "must be an object",
        },
        Case {
            name: "events unknown group",
            patch: |v| set(v, "/timeline/events/tick", json!([])),
            pointer: "/timeline/events/tick",
            message: "unknown field `tick`",
        },
        Case {
            name: "event group not an array",
            patch: |v| set(v, "/timeline/events/start", json!({})),
            pointer: "/timeline/events/start",
            message: "must be an array of events",
        },
        Case {
            name: "event not an object",
            patch: |v| set(v, "/timeline/events/stop/0", json!("say hi")),
            pointer: "/timeline/events/stop/0",
            message: "must be an object",
        },
        Case {
            name: "start event with time",
            patch: |v| set(v, "/timeline/events/start/0/time", json!("0t")),
            pointer: "/timeline/events/start/0/time",
            message: "only `timeline` events have a `time`",
        },
        Case {
            name: "loop event with time",
            patch: |v| set(v, "/timeline/events/loop/0/time", json!("0t")),
            pointer: "/timeline/events/loop/0/time",
            message: "only `timeline` events have a `time`",
        },
        Case {
            name: "stop event with time",
            patch: |v| set(v, "/timeline/events/stop/0/time", json!("0t")),
            pointer: "/timeline/events/stop/0/time",
            message: "only `timeline` events have a `time`",
        },
        Case {
            name: "timeline event without time",
            patch: |v| remove(v, "/timeline/events/timeline/0/time"),
            pointer: "/timeline/events/timeline/0",
            message: "missing required field `time`",
        },
        Case {
            name: "timeline event time negative",
            patch: |v| set(v, "/timeline/events/timeline/0/time", json!("-1t")),
            pointer: "/timeline/events/timeline/0/time",
            message: "at least 0t",
        },
        Case {
            name: "event unknown field",
            patch: |v| set(v, "/timeline/events/start/0/callbacks", json!([])),
            pointer: "/timeline/events/start/0/callbacks",
            message: "unknown field",
        },
        Case {
            name: "event source missing",
            patch: |v| remove(v, "/timeline/events/start/0/source"),
            pointer: "/timeline/events/start/0",
            message: "missing required field `source`",
        },
        Case {
            name: "event source as a string (schema 3)",
            patch: |v| set(v, "/timeline/events/start/0/source", json!("player")),
            pointer: "/timeline/events/start/0/source",
            message: "must be an object",
        },
        Case {
            name: "event source type missing",
            patch: |v| set(v, "/timeline/events/start/0/source", json!({})),
            pointer: "/timeline/events/start/0/source",
            message: "missing required field `type`",
        },
        Case {
            name: "event source type unknown",
            patch: |v| set(v, "/timeline/events/start/0/source/type", json!("console")),
            pointer: "/timeline/events/start/0/source/type",
            message: "is not one of",
        },
        Case {
            name: "event node source without node",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/start/0/source",
                    json!({"type": "node"}),
                )
            },
            pointer: "/timeline/events/start/0/source",
            message: "a `node` source requires `node`",
        },
        Case {
            name: "event player source with node",
            patch: |v| set(v, "/timeline/events/start/0/source/node", json!("block")),
            pointer: "/timeline/events/start/0/source/node",
            message: "only a `node` source names a `node`",
        },
        Case {
            name: "event server source with node",
            patch: |v| set(v, "/timeline/events/timeline/0/source/node", json!("block")),
            pointer: "/timeline/events/timeline/0/source/node",
            message: "only a `node` source names a `node`",
        },
        Case {
            name: "event source node unknown",
            patch: |v| set(v, "/timeline/events/timeline/1/source/node", json!("ghost")),
            pointer: "/timeline/events/timeline/1/source/node",
            message: "node `ghost` is not in `nodes`",
        },
        Case {
            name: "event source node empty",
            patch: |v| set(v, "/timeline/events/timeline/1/source/node", json!("")),
            pointer: "/timeline/events/timeline/1/source/node",
            message: "must not be empty",
        },
        Case {
            name: "event source unknown field",
            patch: |v| set(v, "/timeline/events/start/0/source/permission", json!(4)),
            pointer: "/timeline/events/start/0/source/permission",
            message: "unknown field",
        },
        Case {
            name: "event origin missing",
            patch: |v| remove(v, "/timeline/events/start/0/origin"),
            pointer: "/timeline/events/start/0",
            message: "missing required field `origin`",
        },
        Case {
            name: "event origin as a string (schema 3)",
            patch: |v| set(v, "/timeline/events/start/0/origin", json!("root")),
            pointer: "/timeline/events/start/0/origin",
            message: "must be an object",
        },
        Case {
            name: "event origin type unknown",
            patch: |v| set(v, "/timeline/events/start/0/origin/type", json!("player")),
            pointer: "/timeline/events/start/0/origin/type",
            message: "is not one of",
        },
        Case {
            name: "event node origin without node",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/start/0/origin",
                    json!({"type": "node"}),
                )
            },
            pointer: "/timeline/events/start/0/origin",
            message: "a `node` origin requires `node`",
        },
        Case {
            name: "event root origin with node",
            patch: |v| set(v, "/timeline/events/start/0/origin/node", json!("body")),
            pointer: "/timeline/events/start/0/origin/node",
            message: "a `root` origin does not name a `node`",
        },
        Case {
            name: "event origin node unknown",
            patch: |v| set(v, "/timeline/events/timeline/0/origin/node", json!("ghost")),
            pointer: "/timeline/events/timeline/0/origin/node",
            message: "node `ghost` is not in `nodes`",
        },
        Case {
            name: "event origin offset two numbers",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/timeline/0/origin/offset",
                    json!([0, 1]),
                )
            },
            pointer: "/timeline/events/timeline/0/origin/offset",
            message: "three finite numbers",
        },
        Case {
            name: "event origin offset Molang",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/timeline/0/origin/offset/1",
                    json!("q.anim_time"),
                )
            },
            pointer: "/timeline/events/timeline/0/origin/offset/1",
            message: "must be a number",
        },
        Case {
            name: "event origin unknown field",
            patch: |v| set(v, "/timeline/events/start/0/origin/rotation", json!([0, 0])),
            pointer: "/timeline/events/start/0/origin/rotation",
            message: "unknown field",
        },
        Case {
            name: "event commands missing",
            patch: |v| remove(v, "/timeline/events/start/0/commands"),
            pointer: "/timeline/events/start/0",
            message: "missing required field `commands`",
        },
        Case {
            name: "event commands not an array",
            patch: |v| set(v, "/timeline/events/start/0/commands", json!("say hi")),
            pointer: "/timeline/events/start/0/commands",
            message: "must be an array of command strings",
        },
        Case {
            name: "event commands empty",
            patch: |v| set(v, "/timeline/events/start/0/commands", json!([])),
            pointer: "/timeline/events/start/0/commands",
            message: "at least one command",
        },
        Case {
            name: "event command empty",
            patch: |v| set(v, "/timeline/events/start/0/commands/1", json!("  ")),
            pointer: "/timeline/events/start/0/commands/1",
            message: "command must not be empty",
        },
        Case {
            name: "event command not a string",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/start/0/commands/0",
                    json!(["say", "hi"]),
                )
            },
            pointer: "/timeline/events/start/0/commands/0",
            message: "must be a string",
        },
        Case {
            name: "event command with leading slash",
            patch: |v| set(v, "/timeline/events/stop/0/commands/0", json!("/say hi")),
            pointer: "/timeline/events/stop/0/commands/0",
            message: "do not start with `/`",
        },
        Case {
            name: "event command unknown",
            patch: |v| set(v, "/timeline/events/loop/0/commands/0", json!("kill @a")),
            pointer: "/timeline/events/loop/0/commands/0",
            message: "unknown command `kill`",
        },
        Case {
            name: "event command data other than merge entity",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/timeline/1/commands/0",
                    json!("data get entity @s"),
                )
            },
            pointer: "/timeline/events/timeline/1/commands/0",
            message: "only `data merge entity",
        },
        Case {
            name: "timeline events out of order",
            patch: |v| set(v, "/timeline/events/timeline/1/time", json!("5t")),
            pointer: "/timeline/events/timeline/1/time",
            message: "must be ordered by time",
        },
        Case {
            name: "timeline event at the end",
            patch: |v| set(v, "/timeline/events/timeline/1/time", json!("40t")),
            pointer: "/timeline/events/timeline/1/time",
            message: "before the end of the timeline",
        },
        Case {
            name: "timeline event rounds to the end (1.99s = 40t)",
            patch: |v| set(v, "/timeline/events/timeline/1/time", json!("1.99s")),
            pointer: "/timeline/events/timeline/1/time",
            message: "before the end of the timeline",
        },
        Case {
            name: "timeline event past the end",
            patch: |v| set(v, "/timeline/events/timeline/1/time", json!("100t")),
            pointer: "/timeline/events/timeline/1/time",
            message: "before the end of the timeline",
        },
    ]
}

#[test]
fn every_invalid_case_is_refused_at_its_pointer_with_its_rule() {
    run_invalid(&base(), &invalid_cases());
}

// ---------------------------------------------------------------------------
// Valid variants
// ---------------------------------------------------------------------------

fn node<'a>(a: &'a AnimationFile, id: &str) -> Result<&'a emoted::format::node::Node, String> {
    a.node(id).ok_or_else(|| format!("node `{id}` missing"))
}

fn valid_variants() -> Vec<Valid<AnimationFile>> {
    vec![
        // root and metadata
        Valid {
            name: "target_minecraft_version is accepted",
            patch: |v| set(v, "/target_minecraft_version", json!("26.3")),
            check: no_check,
        },
        Valid {
            name: "id with path slashes, dots and dashes",
            patch: |v| set(v, "/id", json!("my-pack.v2:dances/salsa_2")),
            check: |a| expect_eq("id", a.id.as_str(), "my-pack.v2:dances/salsa_2"),
        },
        Valid {
            name: "id in the emote namespace",
            patch: |v| set(v, "/id", json!("emote:idle_sky")),
            check: no_check,
        },
        Valid {
            name: "metadata icon from an item id",
            patch: |v| set(v, "/metadata/icon", json!("minecraft:golden_apple")),
            check: |a| {
                let icon = a.metadata.icon.as_ref().ok_or("an icon")?;
                expect_eq("item", icon.item, ItemKind::GoldenApple)?;
                expect_eq("not an extra", a.metadata.extra.get("icon"), None)
            },
        },
        Valid {
            name: "metadata icon from item SNBT",
            patch: |v| {
                set(
                    v,
                    "/metadata/icon",
                    json!("{id:\"minecraft:player_head\",Count:1b,tag:{CustomModelData:7}}"),
                )
            },
            check: |a| {
                let icon = a.metadata.icon.as_ref().ok_or("an icon")?;
                expect_eq("item", icon.item, ItemKind::PlayerHead)?;
                expect_eq("a tag", icon.nbt.is_some(), true)
            },
        },
        Valid {
            name: "no metadata icon",
            patch: |_| {},
            check: |a| expect_eq("icon", a.metadata.icon.is_none(), true),
        },
        Valid {
            name: "metadata extras are kept",
            patch: |v| set(v, "/metadata/license", json!({"spdx": "MIT", "year": 2024})),
            check: |a| {
                expect_eq(
                    "author",
                    a.metadata.extra.get("author"),
                    Some(&json!("tests")),
                )?;
                expect_eq(
                    "license",
                    a.metadata.extra.get("license"),
                    Some(&json!({"spdx": "MIT", "year": 2024})),
                )?;
                expect_eq("extra keys", a.metadata.extra.len(), 2)?;
                expect_eq("name", a.metadata.name.as_str(), "Wave")?;
                expect_eq(
                    "description",
                    a.metadata.description.as_str(),
                    "A test wave.",
                )
            },
        },
        Valid {
            name: "metadata description may be omitted",
            patch: |v| remove(v, "/metadata/description"),
            check: |a| expect_eq("description", a.metadata.description.as_str(), ""),
        },
        // settings
        Valid {
            name: "standalone false",
            patch: |v| set(v, "/settings/standalone", json!(false)),
            check: |a| expect_eq("standalone", a.settings.standalone, false),
        },
        Valid {
            name: "cooldown zero",
            patch: |v| set(v, "/settings/cooldown", json!("0t")),
            check: |a| expect_eq("cooldown", a.settings.cooldown_ticks, 0),
        },
        Valid {
            name: "cooldown seconds",
            patch: |v| set(v, "/settings/cooldown", json!("2s")),
            check: |a| expect_eq("cooldown", a.settings.cooldown_ticks, 40),
        },
        Valid {
            name: "cooldown 0.33s rounds to 7t",
            patch: |v| set(v, "/settings/cooldown", json!("0.33s")),
            check: |a| expect_eq("cooldown", a.settings.cooldown_ticks, 7),
        },
        Valid {
            name: "cooldown 0.025s rounds up to 1t",
            patch: |v| set(v, "/settings/cooldown", json!("0.025s")),
            check: |a| expect_eq("cooldown", a.settings.cooldown_ticks, 1),
        },
        Valid {
            name: "cooldown in days",
            patch: |v| set(v, "/settings/cooldown", json!("1d")),
            check: |a| expect_eq("cooldown", a.settings.cooldown_ticks, 24_000),
        },
        Valid {
            name: "cooldown in fractional days",
            patch: |v| set(v, "/settings/cooldown", json!("0.005d")),
            check: |a| expect_eq("cooldown", a.settings.cooldown_ticks, 120),
        },
        Valid {
            name: "cooldown bare number string is ticks",
            patch: |v| set(v, "/settings/cooldown", json!("15")),
            check: |a| expect_eq("cooldown", a.settings.cooldown_ticks, 15),
        },
        Valid {
            name: "cooldown JSON number is ticks",
            patch: |v| set(v, "/settings/cooldown", json!(15)),
            check: |a| expect_eq("cooldown", a.settings.cooldown_ticks, 15),
        },
        Valid {
            name: "cooldown fractional ticks round half up",
            patch: |v| set(v, "/settings/cooldown", json!("2.5t")),
            check: |a| expect_eq("cooldown", a.settings.cooldown_ticks, 3),
        },
        Valid {
            name: "cooldown leading dot",
            patch: |v| set(v, "/settings/cooldown", json!(".5s")),
            check: |a| expect_eq("cooldown", a.settings.cooldown_ticks, 10),
        },
        Valid {
            name: "rotation_deadzone 0",
            patch: |v| set(v, "/settings/rotation_deadzone", json!(0)),
            check: |a| expect_eq("deadzone", a.settings.rotation_deadzone_degrees, 0.0),
        },
        Valid {
            name: "rotation_deadzone 180",
            patch: |v| set(v, "/settings/rotation_deadzone", json!(180)),
            check: |a| expect_eq("deadzone", a.settings.rotation_deadzone_degrees, 180.0),
        },
        Valid {
            name: "rotation_deadzone fractional",
            patch: |v| set(v, "/settings/rotation_deadzone", json!(12.5)),
            check: |a| expect_eq("deadzone", a.settings.rotation_deadzone_degrees, 12.5),
        },
        Valid {
            name: "movement_distance 0 disables",
            patch: |v| {
                set(
                    v,
                    "/settings/player/stop_conditions/movement_distance",
                    json!(0),
                )
            },
            check: |a| {
                expect_eq(
                    "movement",
                    a.settings.player.stop_conditions.movement_distance_blocks,
                    0.0,
                )
            },
        },
        Valid {
            name: "stop conditions false",
            patch: |v| {
                set(
                    v,
                    "/settings/player/stop_conditions",
                    json!({"movement_distance": 2.5, "jump": false, "submerge": false, "ride": false, "damage": false, "attack": false, "game_mode_change": false}),
                )
            },
            check: |a| {
                let s = a.settings.player.stop_conditions;
                expect_eq("movement", s.movement_distance_blocks, 2.5)?;
                expect_eq(
                    "flags",
                    [
                        s.jump,
                        s.submerge,
                        s.ride,
                        s.damage,
                        s.attack,
                        s.game_mode_change,
                    ],
                    [false; 6],
                )
            },
        },
        Valid {
            name: "stop conditions read",
            patch: |_| {},
            check: |a| {
                let s = a.settings.player.stop_conditions;
                expect_eq(
                    "flags",
                    [
                        s.jump,
                        s.submerge,
                        s.ride,
                        s.damage,
                        s.attack,
                        s.game_mode_change,
                    ],
                    [true; 6],
                )?;
                expect_eq("hidden", a.settings.player.hidden, true)
            },
        },
        Valid {
            name: "playback mode loop with delay",
            patch: |v| {
                set(v, "/settings/playback/mode", json!("loop"));
                set(v, "/settings/playback/loop_delay", json!("1s"));
            },
            check: |a| {
                expect_eq("mode", a.settings.playback.mode, PlaybackMode::Loop)?;
                expect_eq("loop_delay", a.settings.playback.loop_delay_ticks, 20)
            },
        },
        Valid {
            name: "playback mode hold with 0t delay",
            patch: |v| set(v, "/settings/playback/mode", json!("hold")),
            check: |a| expect_eq("mode", a.settings.playback.mode, PlaybackMode::Hold),
        },
        Valid {
            name: "playback mode server_sync with delay and no tick program",
            patch: |v| {
                set(v, "/settings/playback/mode", json!("server_sync"));
                set(v, "/settings/playback/loop_delay", json!("10t"));
                remove(v, "/molang/tick");
            },
            check: |a| {
                expect_eq("mode", a.settings.playback.mode, PlaybackMode::ServerSync)?;
                expect_eq("loop_delay", a.settings.playback.loop_delay_ticks, 10)
            },
        },
        Valid {
            name: "server_sync keeps molang.initialize",
            patch: |v| {
                set(v, "/settings/playback/mode", json!("server_sync"));
                remove(v, "/molang/tick");
            },
            check: |a| {
                expect_eq(
                    "initialize",
                    a.molang.initialize.as_deref(),
                    Some("v.x = 1;"),
                )
            },
        },
        Valid {
            name: "once with loop_delay omitted",
            patch: |v| remove(v, "/settings/playback/loop_delay"),
            check: |a| expect_eq("loop_delay", a.settings.playback.loop_delay_ticks, 0),
        },
        Valid {
            name: "once with loop_delay 0 as number",
            patch: |v| set(v, "/settings/playback/loop_delay", json!(0)),
            check: no_check,
        },
        Valid {
            name: "once with loop_delay rounding to 0t",
            patch: |v| set(v, "/settings/playback/loop_delay", json!("0.4t")),
            check: no_check,
        },
        // molang
        Valid {
            name: "molang omitted",
            patch: |v| remove(v, "/molang"),
            check: |a| expect_eq("tick", a.molang.tick.as_deref(), None),
        },
        Valid {
            name: "molang.initialize exactly 16384 chars",
            patch: |v| set(v, "/molang/initialize", json!("1".repeat(16_384))),
            check: |a| {
                expect_eq(
                    "length",
                    a.molang.initialize.as_ref().map(|s| s.len()),
                    Some(16_384),
                )
            },
        },
        Valid {
            name: "molang limit counts characters not bytes",
            patch: |v| set(v, "/molang/tick", json!("é".repeat(16_384))),
            check: no_check,
        },
        Valid {
            name: "track molang exactly 16384 chars",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/1/value/1",
                    json!("1".repeat(16_384)),
                )
            },
            check: no_check,
        },
        // nodes
        Valid {
            name: "nodes and their spaces resolved through parents",
            patch: |_| {},
            check: |a| {
                expect_eq("hand space", node(a, "hand")?.space, Space::Initiator)?;
                expect_eq(
                    "hand parent",
                    node(a, "hand")?.attachment.clone(),
                    Attachment::Parent("body".to_owned()),
                )?;
                expect_eq("label space", node(a, "label")?.space, Space::Scene)?;
                let order: Vec<&str> = a.nodes.iter().map(|n| n.id.as_str()).collect();
                let body = order.iter().position(|n| *n == "body");
                let hand = order.iter().position(|n| *n == "hand");
                if body < hand {
                    Ok(())
                } else {
                    Err(format!("parents must come before children: {order:?}"))
                }
            },
        },
        Valid {
            name: "deep parent chain",
            patch: |v| {
                set(
                    v,
                    "/nodes/c1",
                    json!({"type": "anchor", "parent": "body", "transform": transform()}),
                );
                set(
                    v,
                    "/nodes/c2",
                    json!({"type": "anchor", "parent": "c1", "transform": transform()}),
                );
                set(
                    v,
                    "/nodes/c3",
                    json!({"type": "block_display", "parent": "c2", "block_state_snbt": "{Name:\"minecraft:stone\"}", "transform": transform()}),
                );
            },
            check: |a| expect_eq("c3 space", node(a, "c3")?.space, Space::Initiator),
        },
        Valid {
            name: "partner space root",
            patch: |v| set(v, "/nodes/body/space", json!("partner")),
            check: |a| expect_eq("hand space", node(a, "hand")?.space, Space::Partner),
        },
        Valid {
            name: "node id with a slash",
            patch: |v| {
                set(
                    v,
                    "/nodes/a~1b",
                    json!({"type": "anchor", "space": "scene", "transform": transform()}),
                )
            },
            check: |a| node(a, "a/b").map(|_| ()),
        },
        Valid {
            name: "negative and fractional transforms",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/transform",
                    json!({"position": [-1.5, 0.25, 3], "rotation": [-90, 45.5, 360], "scale": [0.5, -1, 2]}),
                )
            },
            check: no_check,
        },
        Valid {
            name: "visible false on a display node",
            patch: |v| set(v, "/nodes/block/visible", json!(false)),
            check: |a| {
                expect_eq(
                    "visible",
                    node(a, "block")?.kind.display().map(|d| d.visible),
                    Some(false),
                )
            },
        },
        Valid {
            name: "visible defaults to true",
            patch: |v| remove(v, "/nodes/block/visible"),
            check: |a| {
                expect_eq(
                    "visible",
                    node(a, "block")?.kind.display().map(|d| d.visible),
                    Some(true),
                )
            },
        },
        // items
        Valid {
            name: "item legacy form",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",Count:64b}"),
                )
            },
            check: no_check,
        },
        Valid {
            name: "item legacy form with tag",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:diamond_sword\",Count:1b,tag:{Damage:5}}"),
                )
            },
            check: no_check,
        },
        Valid {
            name: "item without namespace",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"stick\",count:1}"),
                )
            },
            check: no_check,
        },
        Valid {
            name: "item count omitted",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\"}"),
                )
            },
            check: no_check,
        },
        Valid {
            name: "item count 1",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",count:1}"),
                )
            },
            check: no_check,
        },
        Valid {
            name: "item count 127",
            patch: |v| {
                set(
                    v,
                    "/nodes/hand/item_stack_snbt",
                    json!("{id:\"minecraft:stick\",count:127}"),
                )
            },
            check: no_check,
        },
        Valid {
            name: "item modern components",
            patch: |v| {
                set(v, "/nodes/hand/item_stack_snbt", json!("{id:\"minecraft:diamond_sword\",count:1,components:{\"minecraft:enchantments\":{levels:{\"minecraft:sharpness\":5}},\"minecraft:custom_model_data\":7}}"))
            },
            check: no_check,
        },
        Valid {
            name: "item unknown component is a warning only",
            patch: |v| {
                set(v, "/nodes/hand/item_stack_snbt", json!("{id:\"minecraft:stick\",count:1,components:{\"minecraft:rarity\":\"epic\"}}"))
            },
            check: no_check,
        },
        Valid {
            name: "item_source left arm",
            patch: |v| set(v, "/nodes/held/item_source/arm", json!("left")),
            check: no_check,
        },
        Valid {
            name: "item_source in partner space",
            patch: |v| {
                remove(v, "/nodes/held/parent");
                set(v, "/nodes/held/space", json!("partner"));
            },
            check: |a| expect_eq("space", node(a, "held")?.space, Space::Partner),
        },
        Valid {
            name: "item_source read",
            patch: |_| {},
            check: |a| match &node(a, "held")?.kind {
                NodeKind::Item {
                    content: ItemContent::ParticipantHand(arm),
                    ..
                } => expect_eq("arm", *arm, emoted::format::node::Arm::Right),
                other => Err(format!("held is {other:?}")),
            },
        },
        // skin
        Valid {
            name: "skin participant omitted defaults to initiator",
            patch: |v| remove(v, "/nodes/head/skin/participant"),
            check: no_check,
        },
        Valid {
            name: "skin partner in partner space",
            patch: |v| {
                set(v, "/nodes/head/space", json!("partner"));
                set(v, "/nodes/head/skin/participant", json!("partner"));
            },
            check: no_check,
        },
        Valid {
            name: "skin partner inherited through parent",
            patch: |v| {
                remove(v, "/nodes/head/space");
                set(v, "/nodes/head/parent", json!("body"));
                set(v, "/nodes/body/space", json!("partner"));
                set(v, "/nodes/head/skin/participant", json!("partner"));
            },
            check: no_check,
        },
        Valid {
            name: "skin large order",
            patch: |v| set(v, "/nodes/head/skin/order", json!(12)),
            check: no_check,
        },
        // blocks and text
        Valid {
            name: "block numeric property as a string and as a number",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Name:\"minecraft:water\",Properties:{level:\"5\"}}"),
                );
                set(
                    v,
                    "/nodes/c",
                    json!({"type": "block_display", "space": "scene", "block_state_snbt": "{Name:\"minecraft:water\",Properties:{level:5}}", "transform": transform()}),
                );
            },
            check: no_check,
        },
        Valid {
            name: "block without properties",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Name:\"minecraft:gold_block\"}"),
                )
            },
            check: no_check,
        },
        Valid {
            name: "block without namespace",
            patch: |v| {
                set(
                    v,
                    "/nodes/block/block_state_snbt",
                    json!("{Name:\"stone\"}"),
                )
            },
            check: no_check,
        },
        Valid {
            name: "block several properties",
            patch: |v| {
                set(v, "/nodes/block/block_state_snbt", json!("{Name:\"minecraft:oak_stairs\",Properties:{facing:\"north\",half:\"top\",shape:\"outer_left\",waterlogged:\"true\"}}"))
            },
            check: no_check,
        },
        Valid {
            name: "text as a plain string",
            patch: |v| set(v, "/nodes/label/text", json!("Hello")),
            check: no_check,
        },
        Valid {
            name: "text object with extra",
            patch: |v| {
                set(
                    v,
                    "/nodes/label/text",
                    json!({"text": "A", "bold": true, "extra": [{"text": "B", "color": "red"}]}),
                )
            },
            check: no_check,
        },
        // entity_nbt
        Valid {
            name: "entity_nbt reference keys",
            patch: |v| {
                set(v, "/nodes/hand/entity_nbt", json!("{brightness:{block:15,sky:15},shadow_radius:0.5f,shadow_strength:1.0f,billboard:\"center\",view_range:2.0f,Glowing:1b,glow_color_override:16711680}"))
            },
            check: no_check,
        },
        Valid {
            name: "entity_nbt text keys on a text display",
            patch: |v| {
                set(v, "/nodes/label/entity_nbt", json!("{line_width:200,background:0,text_opacity:127b,shadow:1b,see_through:0b,default_background:0b,alignment:\"left\"}"))
            },
            check: no_check,
        },
        Valid {
            name: "entity_nbt unknown key is a warning only",
            patch: |v| set(v, "/nodes/block/entity_nbt", json!("{glowing:1b}")),
            check: no_check,
        },
        Valid {
            name: "entity_nbt empty compound",
            patch: |v| set(v, "/nodes/block/entity_nbt", json!("{}")),
            check: no_check,
        },
        // anchors
        Valid {
            name: "anchor as event origin",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/stop/0/origin",
                    json!({"type": "node", "node": "body"}),
                )
            },
            check: no_check,
        },
        Valid {
            name: "anchor with position, rotation and scale tracks",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/body",
                    json!({
                        "position": [{"time": "0t", "value": [0, 0, 0]}],
                        "rotation": [{"time": "0t", "value": [0, 0, 0], "interpolation": "step"}, {"time": "40t", "value": [0, 90, 0]}],
                        "scale": [{"time": "0t", "value": [1, 1, 1]}]
                    }),
                )
            },
            check: no_check,
        },
        Valid {
            name: "anchor only file",
            patch: |v| {
                set(
                    v,
                    "/nodes",
                    json!({"only": {"type": "anchor", "space": "scene", "transform": transform()}}),
                );
                set(v, "/timeline/tracks", json!({}));
                set(v, "/timeline/events", json!({}));
            },
            check: |a| expect_eq("display count", a.display_count(), 0),
        },
        // timeline
        Valid {
            name: "tracks omitted",
            patch: |v| remove(v, "/timeline/tracks"),
            check: |a| expect_eq("tracks", a.timeline.tracks.len(), 0),
        },
        Valid {
            name: "events omitted",
            patch: |v| remove(v, "/timeline/events"),
            check: |a| expect_eq("start events", a.timeline.events.start.len(), 0),
        },
        Valid {
            name: "events empty object",
            patch: |v| set(v, "/timeline/events", json!({})),
            check: no_check,
        },
        Valid {
            name: "event groups empty",
            patch: |v| {
                set(
                    v,
                    "/timeline/events",
                    json!({"start": [], "timeline": [], "loop": [], "stop": []}),
                )
            },
            check: no_check,
        },
        Valid {
            name: "node without tracks",
            patch: |v| remove(v, "/timeline/tracks/label"),
            check: no_check,
        },
        Valid {
            name: "empty channel object",
            patch: |v| set(v, "/timeline/tracks/block", json!({})),
            check: no_check,
        },
        Valid {
            name: "duration 10 minutes in ticks",
            patch: |v| set(v, "/timeline/duration", json!("12000t")),
            check: |a| expect_eq("duration", a.timeline.duration_ticks, 12_000),
        },
        Valid {
            name: "duration 10 minutes in seconds",
            patch: |v| set(v, "/timeline/duration", json!("600s")),
            check: |a| expect_eq("duration", a.timeline.duration_ticks, 12_000),
        },
        Valid {
            name: "duration 10 minutes in days",
            patch: |v| set(v, "/timeline/duration", json!("0.5d")),
            check: |a| expect_eq("duration", a.timeline.duration_ticks, 12_000),
        },
        Valid {
            name: "duration in seconds",
            patch: |v| set(v, "/timeline/duration", json!("2s")),
            check: |a| expect_eq("duration", a.timeline.duration_ticks, 40),
        },
        Valid {
            name: "duration bare number string",
            patch: |v| set(v, "/timeline/duration", json!("40")),
            check: |a| expect_eq("duration", a.timeline.duration_ticks, 40),
        },
        Valid {
            name: "duration JSON number",
            patch: |v| set(v, "/timeline/duration", json!(40)),
            check: |a| expect_eq("duration", a.timeline.duration_ticks, 40),
        },
        Valid {
            name: "duration fractional seconds round (2.01s = 40t)",
            patch: |v| set(v, "/timeline/duration", json!("2.01s")),
            check: |a| expect_eq("duration", a.timeline.duration_ticks, 40),
        },
        // keyframes
        Valid {
            name: "keyframe exactly at the duration",
            patch: |_| {},
            check: |a| {
                let keys = a.timeline.tracks["hand"]
                    .rotation
                    .as_ref()
                    .ok_or("no rotation")?;
                expect_eq(
                    "times",
                    keys.iter().map(|k| k.time_ticks).collect::<Vec<_>>(),
                    vec![0, 20, 40],
                )
            },
        },
        Valid {
            name: "keyframe times in other units",
            patch: |v| {
                set(v, "/timeline/tracks/hand/rotation/0/time", json!(0));
                set(v, "/timeline/tracks/hand/rotation/1/time", json!("0.33s"));
                set(v, "/timeline/tracks/hand/rotation/2/time", json!("8"));
            },
            check: |a| {
                let keys = a.timeline.tracks["hand"]
                    .rotation
                    .as_ref()
                    .ok_or("no rotation")?;
                expect_eq(
                    "times",
                    keys.iter().map(|k| k.time_ticks).collect::<Vec<_>>(),
                    vec![0, 7, 8],
                )
            },
        },
        Valid {
            name: "keyframe Molang components",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/1/value",
                    json!(["math.sin(q.anim_time * 360) * 20", 0, "v.x"]),
                )
            },
            check: |a| {
                let keys = a.timeline.tracks["hand"]
                    .rotation
                    .as_ref()
                    .ok_or("no rotation")?;
                match &keys[1].value {
                    KeyValue::Single(
                        [Component::Molang(m), Component::Number(n), Component::Molang(x)],
                    ) => expect_eq(
                        "molang",
                        (m.as_str(), *n, x.as_str()),
                        ("math.sin(q.anim_time * 360) * 20", 0.0, "v.x"),
                    ),
                    other => Err(format!("value read as {other:?}")),
                }
            },
        },
        Valid {
            name: "keyframe pre and post",
            patch: |v| {
                remove(v, "/timeline/tracks/hand/rotation/1/value");
                set(v, "/timeline/tracks/hand/rotation/1/pre", json!([0, 0, 20]));
                set(
                    v,
                    "/timeline/tracks/hand/rotation/1/post",
                    json!([0, "v.x", -20]),
                );
            },
            check: |a| {
                let keys = a.timeline.tracks["hand"]
                    .rotation
                    .as_ref()
                    .ok_or("no rotation")?;
                match &keys[1].value {
                    KeyValue::Jump { pre, post } => {
                        expect_eq(
                            "pre",
                            pre.clone(),
                            [
                                Component::Number(0.0),
                                Component::Number(0.0),
                                Component::Number(20.0),
                            ],
                        )?;
                        expect_eq(
                            "post[1]",
                            post[1].clone(),
                            Component::Molang("v.x".to_owned()),
                        )
                    }
                    other => Err(format!("value read as {other:?}")),
                }
            },
        },
        Valid {
            name: "pre and post on the final keyframe",
            patch: |v| {
                remove(v, "/timeline/tracks/hand/rotation/2/value");
                set(v, "/timeline/tracks/hand/rotation/2/pre", json!([0, 0, 0]));
                set(v, "/timeline/tracks/hand/rotation/2/post", json!([0, 0, 1]));
            },
            check: no_check,
        },
        Valid {
            name: "explicit linear easing on a linear segment",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/0/easing",
                    json!("linear"),
                )
            },
            check: no_check,
        },
        Valid {
            name: "easing without interpolation (defaults to linear)",
            patch: |v| remove(v, "/timeline/tracks/hand/rotation/0/interpolation"),
            check: no_check,
        },
        Valid {
            name: "step without easing",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/rotation/0/interpolation",
                    json!("step"),
                );
                remove(v, "/timeline/tracks/hand/rotation/0/easing");
            },
            check: no_check,
        },
        Valid {
            name: "single keyframe track",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/hand/scale",
                    json!([{"time": "0t", "value": [2, 2, 2]}]),
                )
            },
            check: no_check,
        },
        Valid {
            name: "visibility Molang value",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/label/visible/1/value",
                    json!("q.anim_time > 0.5"),
                )
            },
            check: |a| {
                let keys = a.timeline.tracks["label"]
                    .visible
                    .as_ref()
                    .ok_or("no visible")?;
                expect_eq(
                    "value",
                    keys[1].value.clone(),
                    VisibilityValue::Molang("q.anim_time > 0.5".to_owned()),
                )
            },
        },
        Valid {
            name: "visibility key at the duration",
            patch: |v| set(v, "/timeline/tracks/label/visible/1/time", json!("2s")),
            check: no_check,
        },
        Valid {
            name: "visibility on every display type",
            patch: |v| {
                set(
                    v,
                    "/timeline/tracks/block",
                    json!({"visible": [{"time": "0t", "value": true}]}),
                );
                set(
                    v,
                    "/timeline/tracks/hand/visible",
                    json!([{"time": "0t", "value": false}]),
                );
            },
            check: no_check,
        },
        // events
        Valid {
            name: "timeline events at equal times",
            patch: |v| set(v, "/timeline/events/timeline/1/time", json!("10t")),
            check: no_check,
        },
        Valid {
            name: "timeline event at 0t",
            patch: |v| set(v, "/timeline/events/timeline/0/time", json!("0t")),
            check: no_check,
        },
        Valid {
            name: "timeline event one tick before the end",
            patch: |v| set(v, "/timeline/events/timeline/1/time", json!("39t")),
            check: |a| expect_eq("time", a.timeline.events.timeline[1].time_ticks, 39),
        },
        Valid {
            name: "timeline event at 1.9s",
            patch: |v| set(v, "/timeline/events/timeline/1/time", json!("1.9s")),
            check: |a| expect_eq("time", a.timeline.events.timeline[1].time_ticks, 38),
        },
        Valid {
            name: "event node source on an item display",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/stop/0/source",
                    json!({"type": "node", "node": "hand"}),
                )
            },
            check: no_check,
        },
        Valid {
            name: "event node source on a text display",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/stop/0/source",
                    json!({"type": "node", "node": "label"}),
                )
            },
            check: no_check,
        },
        Valid {
            name: "event node source on a participant-hand item",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/stop/0/source",
                    json!({"type": "node", "node": "held"}),
                )
            },
            check: no_check,
        },
        Valid {
            name: "event root origin with offset",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/start/0/origin/offset",
                    json!([1, -2, 0.5]),
                )
            },
            check: no_check,
        },
        Valid {
            name: "event several commands",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/start/0/commands",
                    json!([
                        "say a",
                        "tellraw @a {\"text\":\"b\"}",
                        "title @a actionbar \"c\"",
                        "playsound minecraft:ui.button.click master @s",
                        "function example:confetti",
                        "emote play test:x"
                    ]),
                )
            },
            check: |a| expect_eq("commands", a.timeline.events.start[0].commands.len(), 6),
        },
        Valid {
            name: "event command with surrounding spaces",
            patch: |v| {
                set(
                    v,
                    "/timeline/events/start/0/commands/0",
                    json!("  say hi  "),
                )
            },
            check: no_check,
        },
        Valid {
            name: "each event group keeps its events",
            patch: |_| {},
            check: |a| {
                let t: Vec<u32> = a
                    .timeline
                    .events
                    .timeline
                    .iter()
                    .map(|e| e.time_ticks)
                    .collect();
                expect_eq("timeline times", t, vec![10, 20])?;
                expect_eq(
                    "stop commands",
                    a.timeline.events.stop[0].commands.clone(),
                    vec!["title @s clear".to_owned()],
                )
            },
        },
    ]
}

#[test]
fn every_valid_variant_loads() {
    run_valid(&base(), &valid_variants());
}

// ---------------------------------------------------------------------------
// Rules checked per name (each name is its own case)
// ---------------------------------------------------------------------------

/// The 31 easing names, built from the specification's words: `linear` plus
/// ten families, each with `ease_in_*`, `ease_out_*` and `ease_in_out_*`.
fn spec_easings() -> Vec<String> {
    let families = [
        "sine", "quad", "cubic", "quart", "quint", "expo", "circ", "back", "elastic", "bounce",
    ];
    let mut names = vec!["linear".to_owned()];
    for f in families {
        for variant in ["ease_in", "ease_out", "ease_in_out"] {
            names.push(format!("{variant}_{f}"));
        }
    }
    names
}

#[test]
fn all_31_easing_names_are_accepted_on_a_linear_segment() {
    let names = spec_easings();
    assert_eq!(names.len(), 31);
    let mut failures = Vec::new();
    for name in &names {
        let mut v = base();
        set(
            &mut v,
            "/timeline/tracks/hand/rotation/0/easing",
            json!(name),
        );
        match load(&v) {
            Ok(a) => {
                let key = &a.timeline.tracks["hand"]
                    .rotation
                    .as_ref()
                    .expect("rotation")[0];
                if key.easing.name() != name {
                    failures.push(format!(
                        "easing `{name}` read back as `{}`",
                        key.easing.name()
                    ));
                }
            }
            Err(e) => failures.push(format!("easing `{name}`: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unknown_easing_names_are_refused() {
    let mut failures = Vec::new();
    for name in [
        "ease_in_out_wobble",
        "ease_sine",
        "ease_in_linear",
        "EASE_IN_SINE",
        "ease-in-sine",
        "easeOutBounce",
        "in_sine",
        "ease_in_out_quad ",
        "",
        "step",
    ] {
        let mut v = base();
        set(
            &mut v,
            "/timeline/tracks/hand/rotation/0/easing",
            json!(name),
        );
        let report = parse_emote_value(&v);
        if !has_error(
            &report,
            "/timeline/tracks/hand/rotation/0/easing",
            "is not one of",
        ) {
            failures.push(format!(
                "easing {name:?} not refused at its pointer:\n{}",
                describe(&report.problems)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_item_display_context_is_accepted() {
    // Minecraft 1.20.1's ItemDisplayContext names.
    let mut failures = Vec::new();
    for ctx in [
        "none",
        "thirdperson_lefthand",
        "thirdperson_righthand",
        "firstperson_lefthand",
        "firstperson_righthand",
        "head",
        "gui",
        "ground",
        "fixed",
    ] {
        let mut v = base();
        set(&mut v, "/nodes/hand/item_display", json!(ctx));
        if let Err(e) = load(&v) {
            failures.push(format!("context `{ctx}`: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_skin_part_is_accepted() {
    let mut failures = Vec::new();
    for part in [
        "head",
        "body",
        "left_arm",
        "right_arm",
        "left_leg",
        "right_leg",
    ] {
        let mut v = base();
        set(&mut v, "/nodes/head/skin/part", json!(part));
        if let Err(e) = load(&v) {
            failures.push(format!("part `{part}`: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_stop_condition_flag_must_be_a_boolean() {
    let mut failures = Vec::new();
    for flag in [
        "jump",
        "submerge",
        "ride",
        "damage",
        "attack",
        "game_mode_change",
    ] {
        let pointer = format!("/settings/player/stop_conditions/{flag}");
        let mut v = base();
        set(&mut v, &pointer, json!("true"));
        let report = parse_emote_value(&v);
        if !has_error(&report, &pointer, "must be true or false") || report.file.is_some() {
            failures.push(format!(
                "flag `{flag}` not refused at {pointer}:\n{}",
                describe(&report.problems)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The runtime-owned groups of the format notes (identity, position,
/// transformation, interpolation, display content, passengers) as 1.20.1 keys.
const SPEC_RUNTIME_OWNED: &[&str] = &[
    "id",
    "UUID",
    "Pos",
    "Rotation",
    "Motion",
    "transformation",
    "interpolation_duration",
    "start_interpolation",
    "teleport_duration",
    "item",
    "block_state",
    "text",
    "Passengers",
];

#[test]
fn every_runtime_owned_entity_nbt_key_is_refused_on_every_display_type() {
    let mut keys: Vec<&str> = RUNTIME_OWNED_KEYS.to_vec();
    for k in SPEC_RUNTIME_OWNED {
        if !keys.contains(k) {
            keys.push(k);
        }
    }
    let mut failures = Vec::new();
    for key in keys {
        for node in ["hand", "held", "block", "label"] {
            let pointer = format!("/nodes/{node}/entity_nbt");
            let mut v = base();
            set(&mut v, &pointer, json!(format!("{{{key}:1b}}")));
            let report = parse_emote_value(&v);
            if !has_error(&report, &pointer, &format!("may not set `{key}`"))
                || report.file.is_some()
            {
                failures.push(format!(
                    "`{key}` on `{node}` not refused:\n{}",
                    describe(&report.problems)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn text_only_entity_nbt_keys_are_refused_on_item_and_block_displays() {
    let keys = [
        ("line_width", "200"),
        ("background", "0"),
        ("text_opacity", "127b"),
        ("shadow", "1b"),
        ("see_through", "1b"),
        ("default_background", "1b"),
        ("alignment", "\"left\""),
    ];
    let mut failures = Vec::new();
    for (key, value) in keys {
        for node in ["hand", "block"] {
            let pointer = format!("/nodes/{node}/entity_nbt");
            let mut v = base();
            set(&mut v, &pointer, json!(format!("{{{key}:{value}}}")));
            let report = parse_emote_value(&v);
            if !has_error(
                &report,
                &pointer,
                &format!("`{key}` belongs to text displays only"),
            ) {
                failures.push(format!(
                    "`{key}` on `{node}` not refused:\n{}",
                    describe(&report.problems)
                ));
            }
        }
        let mut v = base();
        set(
            &mut v,
            "/nodes/label/entity_nbt",
            json!(format!("{{{key}:{value}}}")),
        );
        if let Err(e) = load(&v) {
            failures.push(format!("`{key}` on the text display: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------
// Item forms and warnings
// ---------------------------------------------------------------------------

fn hand_content(snbt: &str) -> ItemContent {
    let mut v = base();
    set(&mut v, "/nodes/hand/item_stack_snbt", json!(snbt));
    let a = load(&v).unwrap_or_else(|e| panic!("{snbt}: {e}"));
    match &a.node("hand").expect("hand").kind {
        NodeKind::Item { content, .. } => content.clone(),
        other => panic!("hand read as {other:?}"),
    }
}

#[test]
fn modern_and_1_20_1_item_forms_read_the_same() {
    assert_eq!(
        hand_content("{id:\"minecraft:stick\",count:3}"),
        hand_content("{id:\"minecraft:stick\",Count:3b}")
    );
    assert_ne!(
        hand_content("{id:\"minecraft:stick\",count:3}"),
        hand_content("{id:\"minecraft:stick\",count:4}"),
        "the count must be kept"
    );
}

#[test]
fn modern_components_become_the_1_20_1_tag() {
    // Hand-written 1.20.1 equivalents of the modern components.
    let pairs = [
        (
            "{id:\"minecraft:diamond_sword\",count:1,components:{\"minecraft:enchantments\":{levels:{\"minecraft:sharpness\":5}}}}",
            "{id:\"minecraft:diamond_sword\",Count:1b,tag:{Enchantments:[{id:\"minecraft:sharpness\",lvl:5s}]}}",
        ),
        (
            "{id:\"minecraft:stick\",count:1,components:{\"minecraft:custom_model_data\":7}}",
            "{id:\"minecraft:stick\",Count:1b,tag:{CustomModelData:7}}",
        ),
        (
            "{id:\"minecraft:diamond_sword\",count:1,components:{\"minecraft:damage\":12}}",
            "{id:\"minecraft:diamond_sword\",Count:1b,tag:{Damage:12}}",
        ),
        (
            "{id:\"minecraft:diamond_sword\",count:1,components:{\"minecraft:unbreakable\":{}}}",
            "{id:\"minecraft:diamond_sword\",Count:1b,tag:{Unbreakable:1b}}",
        ),
        (
            "{id:\"minecraft:leather_helmet\",count:1,components:{\"minecraft:dyed_color\":{rgb:255}}}",
            "{id:\"minecraft:leather_helmet\",Count:1b,tag:{display:{color:255}}}",
        ),
    ];
    for (modern, legacy) in pairs {
        assert_eq!(
            hand_content(modern),
            hand_content(legacy),
            "{modern} should equal {legacy}"
        );
    }
}

#[test]
fn dropped_item_component_is_a_warning_naming_it() {
    let mut v = base();
    set(
        &mut v,
        "/nodes/hand/item_stack_snbt",
        json!("{id:\"minecraft:stick\",count:1,components:{\"minecraft:rarity\":\"epic\"}}"),
    );
    let report = parse_emote_value(&v);
    assert!(
        report.file.is_some(),
        "a dropped component must not refuse the file:\n{}",
        describe(&report.problems)
    );
    assert!(
        report.problems.iter().any(|p| !p.is_error()
            && p.pointer == "/nodes/hand/item_stack_snbt"
            && p.message.contains("minecraft:rarity")),
        "expected a warning naming the component:\n{}",
        describe(&report.problems)
    );
}

// ---------------------------------------------------------------------------
// Several errors in one file
// ---------------------------------------------------------------------------

#[test]
fn one_file_with_several_errors_reports_every_one() {
    let mut v = base();
    set(&mut v, "/id", json!("Bad Id"));
    set(&mut v, "/metadata/name", json!(""));
    set(&mut v, "/settings/rotation_deadzone", json!(400));
    set(&mut v, "/settings/playback/loop_delay", json!("3t"));
    set(&mut v, "/nodes/block/transform/scale", json!([1, 1]));
    set(&mut v, "/nodes/hand/parent", json!("ghost"));
    set(&mut v, "/nodes/label/entity_nbt", json!("{Pos:[0d,0d,0d]}"));
    set(
        &mut v,
        "/timeline/tracks/hand/rotation/2/time",
        json!("50t"),
    );
    set(
        &mut v,
        "/timeline/tracks/label/visible/0/easing",
        json!("linear"),
    );
    set(
        &mut v,
        "/timeline/events/stop/0/commands/0",
        json!("/say bye"),
    );
    set(&mut v, "/timeline/events/timeline/1/time", json!("45t"));
    set(&mut v, "/unknown", json!(true));
    let expected = [
        ("/id", "namespace:path"),
        ("/metadata/name", "must not be empty"),
        ("/settings/rotation_deadzone", "from 0 to 180"),
        ("/settings/playback/loop_delay", "must be 0t in `once` mode"),
        ("/nodes/block/transform/scale", "three finite numbers"),
        ("/nodes/hand/parent", "not a node of this file"),
        ("/nodes/label/entity_nbt", "may not set `Pos`"),
        (
            "/timeline/tracks/hand/rotation/2/time",
            "past the timeline duration",
        ),
        (
            "/timeline/tracks/label/visible/0/easing",
            "do not support `easing`",
        ),
        (
            "/timeline/events/stop/0/commands/0",
            "do not start with `/`",
        ),
        (
            "/timeline/events/timeline/1/time",
            "before the end of the timeline",
        ),
        ("/unknown", "unknown field"),
    ];
    let report = parse_emote_value(&v);
    assert!(report.file.is_none());
    let missing: Vec<String> = expected
        .iter()
        .filter(|(p, m)| !has_error(&report, p, m))
        .map(|(p, m)| format!("{p}: {m}"))
        .collect();
    assert!(
        missing.is_empty(),
        "not reported:\n{}\nproblems:\n{}",
        missing.join("\n"),
        describe(&report.problems)
    );
    assert!(
        errors(&report).len() >= expected.len(),
        "expected at least {} errors:\n{}",
        expected.len(),
        describe(&report.problems)
    );
}

#[test]
fn json_text_with_several_errors_reports_every_one() {
    let mut v = base();
    set(&mut v, "/schema_version", json!(3));
    set(
        &mut v,
        "/nodes/block/block_state_snbt",
        json!("{Name:\"minecraft:nope\"}"),
    );
    set(&mut v, "/timeline/tracks/hand/rotation/0/time", json!("3t"));
    let report = emoted::format::parse_emote_json(&serde_json::to_string_pretty(&v).expect("json"));
    for (p, m) in [
        ("/schema_version", "must be 4"),
        ("/nodes/block/block_state_snbt", "unknown block"),
        (
            "/timeline/tracks/hand/rotation/0/time",
            "first keyframe must be at 0t",
        ),
    ] {
        assert!(
            has_error(&report, p, m),
            "{p}: {m} not reported:\n{}",
            describe(&report.problems)
        );
    }
}

// ---------------------------------------------------------------------------
// Found bugs (each test shows one; remove the ignore once fixed)
// ---------------------------------------------------------------------------

#[test]

fn type_of_the_wrong_kind_is_reported_at_type() {
    let mut v = base();
    set(&mut v, "/type", json!(4));
    let report = parse_emote_value(&v);
    assert!(report.file.is_none());
    assert!(
        errors(&report).iter().any(|p| p.pointer == "/type"),
        "expected an error at /type:\n{}",
        describe(&report.problems)
    );
    assert!(
        !errors(&report)
            .iter()
            .any(|p| p.message.contains("missing required field `type`")),
        "`type` is present, not missing:\n{}",
        describe(&report.problems)
    );
}

#[test]

fn range_checks_apply_to_the_written_number() {
    let mut failures = Vec::new();
    for (pointer, value, fragment) in [
        (
            "/settings/rotation_deadzone",
            json!(180.000001),
            "from 0 to 180",
        ),
        (
            "/settings/rotation_deadzone",
            json!(-1e-50),
            "from 0 to 180",
        ),
        (
            "/settings/player/stop_conditions/movement_distance",
            json!(-1e-50),
            "positive distance",
        ),
    ] {
        let mut v = base();
        set(&mut v, pointer, value.clone());
        let report = parse_emote_value(&v);
        if !has_error(&report, pointer, fragment) {
            failures.push(format!(
                "{pointer} = {value} accepted:\n{}",
                describe(&report.problems)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]

fn a_parent_cycle_is_reported_once() {
    let mut v = base();
    remove(&mut v, "/nodes/body/space");
    set(&mut v, "/nodes/body/parent", json!("hand"));
    let report = parse_emote_value(&v);
    let cycles: Vec<String> = errors(&report)
        .iter()
        .filter(|p| p.message.contains("cycle"))
        .map(|p| p.to_string())
        .collect();
    assert_eq!(
        cycles.len(),
        1,
        "one cycle, reported {} times:\n{}",
        cycles.len(),
        cycles.join("\n")
    );
}

#[test]

fn step_with_any_easing_is_refused() {
    let mut v = base();
    set(
        &mut v,
        "/timeline/tracks/hand/rotation/1/easing",
        json!("linear"),
    );
    let report = parse_emote_value(&v);
    assert!(
        has_error(&report, "/timeline/tracks/hand/rotation/1/easing", "step"),
        "expected step + easing to be refused:\n{}",
        describe(&report.problems)
    );
}
