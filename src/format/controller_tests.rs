//! Controller files: what a valid one reads as, every validation rule with
//! its pointer (one valid and one refused case each), and the checks
//! against the library's Animations.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::controller::{
    check_references, parse_controller_value, Blending, Comparison, ControllerFile, LayerWeight,
    Motion, ParameterKind, Target, Test, BUILTIN_PARAMETERS, DEFAULT_CROSSFADE_TICKS,
};
use super::ident::EmoteId;

/// A small valid controller: a base layer blending idle and walk by speed,
/// a jump on the trigger, and a masked wave layer.
fn valid() -> Value {
    json!({
        "type": "controller",
        "schema_version": 4,
        "id": "test:walk",
        "metadata": {"name": "Walk", "author": "tests"},
        "parameters": {"waving": {"type": "float", "default": 1}, "mood": "int",
                       "grounded": {"type": "bool", "default": false}},
        "layers": [
            {"name": "base", "default_state": "move",
             "states": {
                 "move": {"blend": {"parameter": "speed", "clips": [
                     {"clip": "test:idle", "threshold": 0}, {"clip": "test:walk", "threshold": 4}]},
                     "events": [{"time": 0, "commands": ["playsound minecraft:block.stone.step player @a"]}]},
                 "jump": {"clip": "test:jump", "loop": false},
                 "strafe": {"blend_2d": {"x": "strafe", "y": "forward", "clips": [
                     {"clip": "test:idle", "position": [0, 0]}, {"clip": "test:walk", "position": [0, 1]},
                     {"clip": "test:jump", "position": [1, 0]}]}}
             },
             "transitions": [
                 {"from": "any", "to": "jump", "when": ["jump", "grounded"], "crossfade": "2t"},
                 {"from": "jump", "to": "move", "exit_time": 0.9, "offset": 0.5, "interruptible": true},
                 {"from": "move", "to": "strafe", "when": "strafe > 0.1"}
             ]},
            {"name": "wave", "weight_parameter": "waving", "blending": "additive",
             "mask": ["arm_r", {"node": "hand_r", "weight": 0.5}],
             "default_state": "wave", "states": {"wave": {"clip": "test:wave"}}}
        ]
    })
}

fn read(doc: &Value) -> ControllerFile {
    let (file, problems) = parse_controller_value(doc);
    match file {
        Some(f) => f,
        None => panic!("refused: {:?}", problems.as_slice()),
    }
}

/// The problems of `valid()` changed by `change`, as `pointer: message`.
fn errors(change: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut doc = valid();
    change(&mut doc);
    let (file, problems) = parse_controller_value(&doc);
    assert!(file.is_none(), "not refused: {doc}");
    problems
        .as_slice()
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// Asserts that `change` is refused with one problem at `pointer` whose
/// message contains `message`.
fn refused(change: impl FnOnce(&mut Value), pointer: &str, message: &str) {
    let found = errors(change);
    assert!(
        found
            .iter()
            .any(|p| p.starts_with(&format!("{pointer}: ")) && p.contains(message)),
        "expected `{pointer}: …{message}…`, found {found:#?}"
    );
}

#[test]
fn a_valid_controller_reads_with_its_defaults() {
    let file = read(&valid());
    assert_eq!(file.id.as_str(), "test:walk");
    assert_eq!(file.metadata.name, "Walk");
    assert!(file.metadata.extra.contains_key("author"));
    // Built-ins first, in their order, then the declared ones by name.
    assert_eq!(file.parameters.len(), BUILTIN_PARAMETERS.len() + 2);
    let grounded = file.parameter_index("grounded").expect("built-in");
    assert_eq!(
        file.parameters[grounded].kind,
        ParameterKind::Bool { default: false }
    );
    assert!(file.parameters[grounded].builtin);
    let mood = file.parameter_index("mood").expect("declared");
    assert_eq!(
        file.parameters[mood].kind,
        ParameterKind::Int { default: 0 }
    );
    let base = &file.layers[0];
    let names: Vec<&str> = base.states.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["jump", "move", "strafe"]);
    assert_eq!(base.default_state, 1);
    assert_eq!(base.weight, LayerWeight::Fixed(1.0));
    assert_eq!(base.blending, Blending::Override);
    let jump = &base.states[0];
    assert!(!jump.looping);
    assert_eq!(jump.speed, 1.0);
    assert!(matches!(base.states[1].motion, Motion::Blend1d { ref clips, .. } if clips.len() == 2));
    assert_eq!(base.states[1].events.len(), 1);
    let [to_jump, to_move, to_strafe] = base.transitions.as_slice() else {
        panic!("three transitions")
    };
    assert_eq!(
        (to_jump.from, to_jump.to, to_jump.crossfade_ticks),
        (None, Target::State(0), 2)
    );
    assert_eq!(to_jump.conditions[0].test, Test::Fired);
    assert_eq!(to_jump.conditions[1].test, Test::IsTrue);
    assert_eq!(to_jump.exit_time, None);
    assert_eq!(
        (to_move.exit_time, to_move.offset, to_move.interruptible),
        (Some(0.9), 0.5, true)
    );
    assert_eq!(to_move.crossfade_ticks, DEFAULT_CROSSFADE_TICKS);
    assert_eq!(
        to_strafe.conditions[0].test,
        Test::Compare(Comparison::Greater, 0.1)
    );
    let wave = &file.layers[1];
    assert_eq!(wave.blending, Blending::Additive);
    assert!(
        matches!(wave.weight, LayerWeight::Parameter(p) if file.parameters[p].name == "waving")
    );
    let mask = wave.mask.as_ref().expect("masked");
    assert_eq!((mask[1].node.as_str(), mask[1].weight), ("hand_r", 0.5));
    assert_eq!(mask[1].pointer, "/layers/1/mask/1/node");
}

#[test]
fn a_transition_without_conditions_leaves_at_the_end() {
    let mut doc = valid();
    doc["layers"][0]["transitions"][1]
        .as_object_mut()
        .expect("object")
        .remove("exit_time");
    assert_eq!(read(&doc).layers[0].transitions[1].exit_time, Some(1.0));
}

#[test]
fn the_header_and_top_level_fields() {
    refused(
        |d| d["type"] = json!("animation"),
        "/type",
        "must be \"controller\"",
    );
    refused(|d| d["id"] = json!("Walk"), "/id", "namespace:path");
    refused(
        |d| d["metadata"] = json!({}),
        "/metadata",
        "missing required field `name`",
    );
    refused(
        |d| d["settings"] = json!({"playback": {"mode": "loop"}}),
        "/settings/playback",
        "a controller has no `playback`",
    );
    refused(
        |d| d["settings"] = json!({"cooldown": "-1s"}),
        "/settings/cooldown",
        "cooldown",
    );
    refused(
        |d| d["states"] = json!({}),
        "/states",
        "unknown field `states`",
    );
}

#[test]
fn parameters_are_checked() {
    refused(
        |d| d["parameters"]["x"] = json!("double"),
        "/parameters/x",
        "is not one of: float, int, bool, trigger",
    );
    refused(
        |d| d["parameters"]["Bad"] = json!("float"),
        "/parameters/Bad",
        "must start with a-z",
    );
    refused(
        |d| d["parameters"]["x"] = json!({"type": "int", "default": 1.5}),
        "/parameters/x/default",
        "whole number",
    );
    refused(
        |d| d["parameters"]["x"] = json!({"type": "bool", "default": 1}),
        "/parameters/x/default",
        "true or false",
    );
    refused(
        |d| d["parameters"]["x"] = json!({"type": "trigger", "default": true}),
        "/parameters/x/default",
        "starts unarmed",
    );
    refused(
        |d| d["parameters"]["x"] = json!({"type": "float", "min": 0}),
        "/parameters/x/min",
        "unknown field",
    );
    refused(
        |d| d["parameters"]["jump"] = json!("bool"),
        "/parameters/jump",
        "built-in trigger",
    );
}

#[test]
fn layers_are_checked() {
    refused(|d| d["layers"] = json!([]), "/layers", "at least one layer");
    refused(|d| d["layers"] = json!({}), "/layers", "must be an array");
    refused(
        |d| d["layers"][1]["name"] = json!("base"),
        "/layers/1/name",
        "`base` is used twice",
    );
    refused(
        |d| d["layers"][1]["weight"] = json!(0.5),
        "/layers/1/weight_parameter",
        "not both",
    );
    refused(
        |d| d["layers"][0]["weight"] = json!(1.5),
        "/layers/0/weight",
        "must lie in [0, 1]",
    );
    refused(
        |d| d["layers"][1]["weight_parameter"] = json!("wavin"),
        "/layers/1/weight_parameter",
        "unknown parameter `wavin`; did you mean `waving`?",
    );
    refused(
        |d| d["layers"][1]["weight_parameter"] = json!("jump"),
        "/layers/1/weight_parameter",
        "`jump` is a trigger",
    );
    refused(
        |d| d["layers"][1]["mask"] = json!([]),
        "/layers/1/mask",
        "at least one node",
    );
    refused(
        |d| d["layers"][1]["mask"] = json!(["arm_r", "arm_r"]),
        "/layers/1/mask/1",
        "listed twice",
    );
    refused(
        |d| d["layers"][1]["mask"] = json!([{"node": "arm_r", "weight": 2}]),
        "/layers/1/mask/0/weight",
        "must lie in [0, 1]",
    );
    refused(
        |d| d["layers"][1]["blending"] = json!("multiply"),
        "/layers/1/blending",
        "is not one of: override, additive",
    );
    refused(
        |d| d["layers"][0]["blending"] = json!("additive"),
        "/layers/0/blending",
        "cannot be additive",
    );
    refused(
        |d| d["layers"][0]["default_state"] = json!("moves"),
        "/layers/0/default_state",
        "unknown state `moves`; did you mean `move`?",
    );
    refused(
        |d| d["layers"][1]["states"] = json!({}),
        "/layers/1/states",
        "at least one state",
    );
}

#[test]
fn states_are_checked() {
    let jump = "/layers/0/states/jump";
    refused(
        |d| d["layers"][0]["states"]["any"] = json!({"clip": "test:idle"}),
        "/layers/0/states/any",
        "reserved",
    );
    refused(
        |d| d["layers"][0]["states"]["jump"] = json!({"loop": false}),
        jump,
        "plays one of",
    );
    refused(
        |d| d["layers"][0]["states"]["jump"]["blend"] = json!({}),
        &format!("{jump}/blend"),
        "exactly one of",
    );
    refused(
        |d| d["layers"][0]["states"]["jump"]["clip"] = json!("Jump"),
        &format!("{jump}/clip"),
        "emote id",
    );
    refused(
        |d| d["layers"][0]["states"]["jump"]["speed"] = json!(11),
        &format!("{jump}/speed"),
        "[0, 10]",
    );
    refused(
        |d| d["layers"][0]["states"]["jump"]["speed_parameter"] = json!("sped"),
        &format!("{jump}/speed_parameter"),
        "did you mean `speed`?",
    );
    refused(
        |d| {
            d["layers"][0]["states"]["jump"]["events"] =
                json!([{"time": 1, "commands": ["say hi"]}])
        },
        &format!("{jump}/events/0/time"),
        "[0, 1)",
    );
    refused(
        |d| {
            d["layers"][0]["states"]["jump"]["events"] =
                json!([{"time": 0.5, "commands": ["kill @a"]}])
        },
        &format!("{jump}/events/0/commands/0"),
        "unknown command `kill`",
    );
    refused(
        |d| {
            d["layers"][0]["states"]["jump"]["events"] =
                json!([{"time": 0.5, "commands": ["say a"]}, {"time": 0.2, "commands": ["say b"]}])
        },
        &format!("{jump}/events/1/time"),
        "ordered by time",
    );
}

#[test]
fn blends_are_checked() {
    let blend = "/layers/0/states/move/blend";
    refused(
        |d| d["layers"][0]["states"]["move"]["blend"]["parameter"] = json!("sped"),
        &format!("{blend}/parameter"),
        "unknown parameter `sped`; did you mean `speed`?",
    );
    refused(
        |d| d["layers"][0]["states"]["move"]["blend"]["parameter"] = json!("jump"),
        &format!("{blend}/parameter"),
        "`jump` is a trigger",
    );
    refused(
        |d| d["layers"][0]["states"]["move"]["blend"]["parameter"] = json!("grounded"),
        &format!("{blend}/parameter"),
        "`grounded` is a bool",
    );
    refused(
        |d| d["layers"][0]["states"]["move"]["blend"]["clips"][1]["threshold"] = json!(0),
        &format!("{blend}/clips/1/threshold"),
        "strictly increase",
    );
    refused(
        |d| {
            d["layers"][0]["states"]["move"]["blend"]["clips"] =
                json!([{"clip": "test:idle", "threshold": 0}])
        },
        &format!("{blend}/clips"),
        "at least 2 clips",
    );
    let plane = "/layers/0/states/strafe/blend_2d";
    refused(
        |d| {
            d["layers"][0]["states"]["strafe"]["blend_2d"]["clips"]
                .as_array_mut()
                .expect("array")
                .truncate(2)
        },
        &format!("{plane}/clips"),
        "at least 3 clips",
    );
    refused(
        |d| d["layers"][0]["states"]["strafe"]["blend_2d"]["clips"][2]["position"] = json!([0, 1]),
        &format!("{plane}/clips/2/position"),
        "must be distinct",
    );
    refused(
        |d| d["layers"][0]["states"]["strafe"]["blend_2d"]["clips"][2]["position"] = json!([0]),
        &format!("{plane}/clips/2/position"),
        "two finite numbers",
    );
    refused(
        |d| d["layers"][0]["states"]["strafe"]["blend_2d"]["y"] = json!("strafe"),
        &format!("{plane}/y"),
        "two different parameters",
    );
    refused(
        |d| d["layers"][0]["states"]["strafe"]["blend_2d"]["x"] = json!("strafee"),
        &format!("{plane}/x"),
        "did you mean `strafe`?",
    );
}

#[test]
fn transitions_are_checked() {
    let t = |i: usize| format!("/layers/0/transitions/{i}");
    refused(
        |d| d["layers"][0]["transitions"][1]["from"] = json!("jumps"),
        &format!("{}/from", t(1)),
        "unknown state `jumps`; did you mean `jump`?",
    );
    refused(
        |d| d["layers"][0]["transitions"][1]["to"] = json!("mov"),
        &format!("{}/to", t(1)),
        "unknown state `mov`; did you mean `move`?",
    );
    refused(
        |d| d["layers"][0]["transitions"][1]["to"] = json!("any"),
        &format!("{}/to", t(1)),
        "only for `from`",
    );
    refused(
        |d| d["layers"][0]["transitions"][0]["when"] = json!([]),
        &t(0),
        "needs a `when` condition",
    );
    refused(
        |d| d["layers"][0]["transitions"][0]["when"][1] = json!("grunded"),
        &format!("{}/when/1", t(0)),
        "unknown parameter `grunded`; did you mean `grounded`?",
    );
    refused(
        |d| d["layers"][0]["transitions"][0]["when"][0] = json!("jump > 0"),
        &format!("{}/when/0", t(0)),
        "`jump` is a trigger and cannot be compared",
    );
    refused(
        |d| d["layers"][0]["transitions"][0]["when"][0] = json!("!jump"),
        &format!("{}/when/0", t(0)),
        "not `!jump`",
    );
    refused(
        |d| d["layers"][0]["transitions"][0]["when"][0] = json!("speed"),
        &format!("{}/when/0", t(0)),
        "`speed` is a float: compare it",
    );
    refused(
        |d| d["layers"][0]["transitions"][0]["when"][0] = json!("speed >"),
        &format!("{}/when/0", t(0)),
        "not a finite number",
    );
    refused(
        |d| d["layers"][0]["transitions"][0]["when"] = json!(3),
        &format!("{}/when", t(0)),
        "condition string or an array",
    );
    refused(
        |d| d["layers"][0]["transitions"][0]["crossfade"] = json!("11s"),
        &format!("{}/crossfade", t(0)),
        "at most 200t",
    );
    refused(
        |d| d["layers"][0]["transitions"][0]["crossfade"] = json!(-1),
        &format!("{}/crossfade", t(0)),
        "`crossfade`",
    );
    refused(
        |d| d["layers"][0]["transitions"][1]["exit_time"] = json!(1.5),
        &format!("{}/exit_time", t(1)),
        "[0, 1]",
    );
    refused(
        |d| d["layers"][0]["transitions"][1]["offset"] = json!(1),
        &format!("{}/offset", t(1)),
        "[0, 1)",
    );
    refused(
        |d| d["layers"][0]["transitions"][1]["interruptible"] = json!("yes"),
        &format!("{}/interruptible", t(1)),
        "true or false",
    );
    refused(
        |d| d["layers"][0]["transitions"][1]["duration"] = json!(3),
        &format!("{}/duration", t(1)),
        "unknown field `duration`",
    );
}

#[test]
fn every_problem_of_a_file_is_reported() {
    let found = errors(|d| {
        d["layers"][0]["default_state"] = json!("nope");
        d["layers"][1]["weight"] = json!(-1);
        d["layers"][1]
            .as_object_mut()
            .expect("object")
            .remove("weight_parameter");
    });
    assert_eq!(found.len(), 2, "{found:#?}");
}

/// The library of the tests: four Animations and their nodes.
fn library() -> BTreeMap<EmoteId, Vec<String>> {
    let id = |s: &str| EmoteId::parse(s).expect("id");
    let nodes = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    BTreeMap::from([
        (id("test:idle"), nodes(&["body", "arm_r", "hand_r"])),
        (
            id("test:walk"),
            nodes(&["body", "arm_r", "hand_r", "leg_l"]),
        ),
        (id("test:jump"), nodes(&["body"])),
        (id("test:wave"), nodes(&["arm_r", "hand_r"])),
    ])
}

#[test]
fn references_are_checked_against_the_library() {
    let file = read(&valid());
    assert!(check_references(&file, &library()).as_slice().is_empty());

    let mut doc = valid();
    doc["layers"][0]["states"]["jump"]["clip"] = json!("test:jmup");
    doc["layers"][1]["mask"][0] = json!("arm_l");
    doc["layers"][1]["mask"][1]["node"] = json!("hnd_r");
    let problems: Vec<String> = check_references(&read(&doc), &library())
        .into_vec()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        [
            "/layers/0/states/jump/clip: `clip` names `test:jmup`, which is not a loaded Animation; did you mean `test:jump`?",
            "/layers/1/mask/0: mask node `arm_l` is not a node of any clip this controller plays; did you mean `arm_r`?",
            "/layers/1/mask/1/node: mask node `hnd_r` is not a node of any clip this controller plays; did you mean `hand_r`?",
        ]
    );
}

#[test]
fn the_walk_wave_fixture_reads_and_its_references_hold() {
    let text = include_str!("../../tests/fixtures/controllers/walk_wave.controller.json");
    let doc: Value = serde_json::from_str(text).expect("JSON");
    let file = read(&doc);
    assert_eq!(file.id.as_str(), "example:walk_wave");
    assert_eq!(file.layers.len(), 2);
    let id = |s: &str| EmoteId::parse(s).expect("id");
    let arm = ["right_arm", "right_forearm"].map(String::from).to_vec();
    let body = [
        "body",
        "right_arm",
        "right_forearm",
        "left_leg",
        "right_leg",
    ]
    .map(String::from)
    .to_vec();
    let lookup = BTreeMap::from([
        (id("example:idle"), body.clone()),
        (id("example:walk"), body.clone()),
        (id("example:run"), body.clone()),
        (id("example:jump"), body),
        (id("example:wave"), arm),
    ]);
    let problems = check_references(&file, &lookup);
    assert!(problems.as_slice().is_empty(), "{:?}", problems.as_slice());
}

#[test]
fn settings_are_an_animations_without_playback() {
    let mut doc = valid();
    doc["settings"] = json!({
        "standalone": false,
        "cooldown": "2s",
        "rotation_deadzone": 30,
        "player": {"hidden": true, "stop_conditions": {"submerge": true}}
    });
    let file = read(&doc);
    assert!(!file.settings.standalone);
    assert_eq!(file.settings.cooldown_ticks, 40);
    assert_eq!(file.settings.rotation_deadzone_degrees, 30.0);
    assert!(file.settings.player.hidden);
    let stops = file.settings.player.stop_conditions;
    assert!(stops.submerge);
    assert!(!stops.jump && !stops.damage && stops.movement_distance_blocks == 0.0);
    // Without settings: standalone, nothing stops it but the player.
    let plain = read(&valid());
    assert!(plain.settings.standalone);
    assert_eq!(plain.settings.player.stop_conditions, Default::default());
}

#[test]
fn exit_ends_the_emote_and_is_no_state_name() {
    let mut doc = valid();
    doc["layers"][0]["transitions"][1]["to"] = json!("exit");
    assert_eq!(read(&doc).layers[0].transitions[1].to, Target::Exit);
    refused(
        |d| d["layers"][0]["states"]["exit"] = json!({"clip": "example:idle"}),
        "/layers/0/states/exit",
        "`exit` is reserved",
    );
    refused(
        |d| d["layers"][0]["transitions"][1]["to"] = json!("any"),
        "/layers/0/transitions/1/to",
        "must name a state or `exit`",
    );
}
