//! `emoted check` on controllers, run as a real process on a copy of the
//! bundled `emotes/walk_wave/` with one mistake at a time: an unknown clip,
//! state, parameter or mask node is refused with its JSON pointer and the
//! closest known name; a clip that does not pose the body is refused at
//! its reference; the clips stay loaded.

mod common;

use std::fs;
use std::process::Command;

use serde_json::{json, Value};

use common::TempDir;

const CONTROLLER: &str = "walk_wave.json";

/// The bundled walk_wave folder in a scratch folder, its controller
/// changed by `change`; the lines `emoted check` prints, and its exit code.
fn check_with(change: impl FnOnce(&mut Value)) -> (Option<i32>, Vec<String>) {
    check_with_extra(change, &[])
}

/// [`check_with`], with `extra` files (name, JSON) beside the others.
fn check_with_extra(
    change: impl FnOnce(&mut Value),
    extra: &[(&str, Value)],
) -> (Option<i32>, Vec<String>) {
    let mut change = Some(change);
    let dir = TempDir::new("check-controller");
    for (name, doc) in extra {
        dir.write(name, &serde_json::to_string_pretty(doc).expect("JSON"));
    }
    let bundled = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("emotes/walk_wave");
    for entry in fs::read_dir(&bundled).expect("the bundled folder") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .to_string();
        let text = fs::read_to_string(&path).expect("readable");
        if name == CONTROLLER {
            let mut doc: Value = serde_json::from_str(&text).expect("JSON");
            if let Some(change) = change.take() {
                change(&mut doc);
            }
            dir.write(&name, &serde_json::to_string_pretty(&doc).expect("JSON"));
        } else {
            dir.write(&name, &text);
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .arg("check")
        .arg(dir.path())
        .output()
        .expect("emoted check runs");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    (out.status.code(), lines)
}

/// Asserts that the only problem is `pointer: …message…` in the controller.
fn refused(change: impl FnOnce(&mut Value), pointer: &str, message: &str) {
    let (code, lines) = check_with(change);
    assert_eq!(code, Some(1), "{lines:#?}");
    let problems: Vec<&String> = lines.iter().filter(|l| l.contains(": /")).collect();
    assert_eq!(problems.len(), 1, "{lines:#?}");
    let line = problems[0];
    assert!(
        line.contains(&format!("{CONTROLLER}: {pointer}: ")) && line.contains(message),
        "expected `{CONTROLLER}: {pointer}: …{message}…`, found {line}"
    );
}

#[test]
fn the_bundled_controllers_check_clean() {
    let (code, lines) = check_with(|_| {});
    assert_eq!(code, Some(0), "{lines:#?}");
}

#[test]
fn an_unknown_clip_is_refused_with_the_closest_animation() {
    refused(
        |d| d["layers"][0]["states"]["move"]["blend"]["clips"][1]["clip"] = json!("example:wakl"),
        "/layers/0/states/move/blend/clips/1/clip",
        "`example:wakl`, which is not a loaded Animation; did you mean `example:walk`?",
    );
}

#[test]
fn an_unknown_state_is_refused_with_the_closest_state() {
    refused(
        |d| d["layers"][0]["transitions"][1]["to"] = json!("mvoe"),
        "/layers/0/transitions/1/to",
        "unknown state `mvoe`",
    );
    refused(
        |d| d["layers"][0]["default_state"] = json!("sneek"),
        "/layers/0/default_state",
        "did you mean `sneak`?",
    );
}

#[test]
fn an_unknown_parameter_is_refused_with_the_closest_parameter() {
    refused(
        |d| d["layers"][0]["transitions"][1]["when"] = json!("grounde"),
        "/layers/0/transitions/1/when",
        "unknown parameter `grounde`; did you mean `grounded`?",
    );
    refused(
        |d| d["layers"][1]["weight_parameter"] = json!("wavng"),
        "/layers/1/weight_parameter",
        "did you mean `waving`?",
    );
}

#[test]
fn an_unknown_mask_node_is_refused_with_the_closest_node() {
    refused(
        |d| d["layers"][1]["mask"] = json!(["shoulder_rr"]),
        "/layers/1/mask/0",
        "mask node `shoulder_rr` is not a node of any clip this controller plays; did you mean `shoulder_r`?",
    );
}

#[test]
fn a_clip_on_another_body_is_refused_at_its_reference() {
    // The walk with a tail: a node the body (the idle's nodes) lacks.
    let walk = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("emotes/walk_wave/walk.json");
    let mut tailed: Value =
        serde_json::from_str(&fs::read_to_string(walk).expect("the walk")).expect("JSON");
    tailed["id"] = json!("example:tailed_walk");
    tailed["nodes"]["tail"] = json!({"type": "anchor", "parent": "hips",
        "transform": {"position": [0, 0, -0.2], "rotation": [0, 0, 0], "scale": [1, 1, 1]}});
    let (code, lines) = check_with_extra(
        |d| {
            d["layers"][0]["states"]["move"]["blend"]["clips"][1]["clip"] =
                json!("example:tailed_walk")
        },
        &[("tailed_walk.json", tailed)],
    );
    assert_eq!(code, Some(1), "{lines:#?}");
    let line = lines
        .iter()
        .find(|l| l.contains("/layers/0/states/move/blend/clips/1/clip: "))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(
        line.contains(
            "node `tail` of `example:tailed_walk` is not a node of the body `example:stand_idle`"
        ),
        "{line}"
    );
    // The tailed walk itself is a valid Animation and stays.
    assert!(
        !lines.iter().any(|l| l.contains("tailed_walk.json: /")),
        "{lines:#?}"
    );
}
