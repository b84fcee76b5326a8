//! `emoted check` on `nbt` tracks, run as a real process: each broken rule
//! is a `FILE: /timeline/tracks/NODE/nbt/...: message` line at the pointer
//! of the offending key, and exit 1; the fixture itself passes.
//!
//! Every case is a variant of `tests/fixtures/nbt_tracks/flowers.json` in
//! a file of its own, all checked by one run.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::TempDir;
use serde_json::{json, Value};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/nbt_tracks/flowers.json"
);

fn flowers() -> Value {
    serde_json::from_str(&std::fs::read_to_string(FIXTURE).expect("the fixture")).expect("JSON")
}

/// One broken variant: a patch, and the line it must give.
struct Case {
    name: &'static str,
    patch: fn(&mut Value),
    pointer: &'static str,
    message: &'static str,
}

fn nbt(v: &mut Value) -> &mut Value {
    &mut v["timeline"]["tracks"]["flower"]["nbt"]
}

const CASES: &[Case] = &[
    Case {
        name: "transformation",
        patch: |v| {
            nbt(v)[1]["value"] = json!(
                "{Glowing:1b,transformation:{translation:[0f,1f,0f],left_rotation:[0f,0f,0f,1f],scale:[1f,1f,1f],right_rotation:[0f,0f,0f,1f]}}"
            )
        },
        pointer: "/timeline/tracks/flower/nbt/1/value",
        message: "an nbt track may not set `transformation`: playback owns identity, position, transformation, interpolation and passengers",
    },
    Case {
        name: "passengers",
        patch: |v| nbt(v)[2]["value"] = json!("{Passengers:[{id:\"minecraft:pig\"}]}"),
        pointer: "/timeline/tracks/flower/nbt/2/value",
        message: "may not set `Passengers`",
    },
    Case {
        name: "item on a participant-hand node",
        patch: |v| {
            v["nodes"]["held"] = json!({
                "type": "item_display", "parent": "body", "item_display": "fixed",
                "item_source": {"type": "participant_hand", "arm": "right"},
                "transform": {"position": [0, 1, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}
            });
            v["timeline"]["tracks"]["held"] = json!({"nbt": [
                {"time": "0t", "value": "{Glowing:0b}"},
                {"time": "5t", "value": "{item:{id:'minecraft:diamond',count:1}}"}
            ]});
        },
        pointer: "/timeline/tracks/held/nbt/1/value",
        message: "an nbt track may not change `item`: a participant-hand node shows what the participant holds",
    },
    Case {
        name: "anchor with nbt",
        patch: |v| {
            v["timeline"]["tracks"]["body"] = json!({"nbt": [{"time": "0t", "value": "{Glowing:1b}"}]})
        },
        pointer: "/timeline/tracks/body/nbt",
        message: "anchor nodes cannot have an `nbt` track: they create no entity",
    },
    Case {
        name: "first key not at 0t",
        patch: |v| nbt(v)[0]["time"] = json!("1t"),
        pointer: "/timeline/tracks/flower/nbt/0/time",
        message: "the first keyframe must be at 0t, found 1t",
    },
    Case {
        name: "unsorted times",
        patch: |v| nbt(v)[2]["time"] = json!("5t"),
        pointer: "/timeline/tracks/flower/nbt/2/time",
        message: "keyframe times must strictly increase: 5t follows 10t",
    },
    Case {
        name: "select with one option",
        patch: |v| nbt(v)[0]["value"]["options"] = json!(["{item:{id:'minecraft:poppy',count:1},Glowing:0b}"]),
        pointer: "/timeline/tracks/flower/nbt/0/value/options",
        message: "`options` must be an array of at least 2 compound SNBT strings, found 1 option(s)",
    },
    Case {
        name: "select that does not compile",
        patch: |v| nbt(v)[0]["value"]["select"] = json!("math.mod(q.loop_count, "),
        pointer: "/timeline/tracks/flower/nbt/0/value/select",
        message: "Molang: ",
    },
    Case {
        name: "select with an unknown query",
        patch: |v| nbt(v)[0]["value"]["select"] = json!("q.loop_cuont"),
        pointer: "/timeline/tracks/flower/nbt/0/value/select",
        message: "loop_cuont",
    },
    Case {
        name: "option not a compound",
        patch: |v| nbt(v)[0]["value"]["options"][1] = json!("\"minecraft:dandelion\""),
        pointer: "/timeline/tracks/flower/nbt/0/value/options/1",
        message: "SNBT must be a compound",
    },
    Case {
        name: "later key adds a field",
        patch: |v| nbt(v)[1]["value"] = json!("{Glowing:1b,billboard:\"fixed\"}"),
        pointer: "/timeline/tracks/flower/nbt/1/value",
        message: "keys after 0t may not add top-level fields the 0t key did not declare: `billboard` (the 0t key declares `Glowing`, `item`)",
    },
    Case {
        name: "options with different fields",
        patch: |v| nbt(v)[0]["value"]["options"][2] = json!("{item:{id:'minecraft:blue_orchid',count:1}}"),
        pointer: "/timeline/tracks/flower/nbt/0/value/options/2",
        message: "every option of the 0t key must declare the same top-level fields: option 2 declares `item`, option 0 declares `Glowing`, `item`",
    },
];

#[test]
fn every_broken_nbt_rule_is_a_line_at_its_key_and_the_fixture_passes() {
    let dir = TempDir::new("check-nbt");
    let mut files: Vec<(PathBuf, &Case)> = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let mut v = flowers();
        v["id"] = json!(format!("test:nbt_case_{i}"));
        (case.patch)(&mut v);
        let path = dir.write(&format!("case_{i}.json"), &v.to_string());
        files.push((path, case));
    }
    let output = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(dir.path())
        .arg("check")
        .arg(FIXTURE)
        .args(files.iter().map(|(path, _)| path))
        .output()
        .expect("run emoted check");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        !stdout.contains("flowers.json"),
        "the fixture is valid: {stdout}"
    );
    let mut failures = Vec::new();
    for (path, case) in &files {
        let prefix = format!("{}: {}: ", path.display(), case.pointer);
        let found = stdout
            .lines()
            .any(|line| line.starts_with(&prefix) && line[prefix.len()..].contains(case.message));
        if !found {
            failures.push(format!(
                "`{}`: no line `{prefix}…{}…`",
                case.name, case.message
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n--- stdout ---\n{stdout}",
        failures.join("\n")
    );
}
