//! `emoted check` on `metadata.icon` (the emote wheel's icon), run as a
//! real process: a bad icon is one `FILE: /metadata/icon: message` line and
//! exit 1; an item id and item SNBT are accepted.

mod common;

use std::process::Command;

use common::TempDir;
use serde_json::{json, Value};

/// The bundled wave with `icon` in its metadata (or none).
fn wave_with_icon(icon: Option<Value>) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes/wave.json");
    let mut wave: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the wave")).expect("JSON");
    if let Some(icon) = icon {
        wave["metadata"]["icon"] = icon;
    }
    serde_json::to_string_pretty(&wave).expect("JSON")
}

/// Runs `emoted check FILE` from a folder with no configuration; the exit
/// code and standard output.
fn check(dir: &TempDir, contents: &str) -> (Option<i32>, String, String) {
    let file = dir.write("emotes/wave.json", contents);
    let output = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(dir.path())
        .arg("check")
        .arg(&file)
        .output()
        .expect("run emoted check");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        file.display().to_string(),
    )
}

#[test]
fn a_bad_icon_is_refused_at_its_pointer_and_good_ones_pass() {
    let dir = TempDir::new("check-icon");
    for (icon, rule) in [
        (
            json!("minecraft:wand_of_waving"),
            "unknown item `minecraft:wand_of_waving`",
        ),
        (json!(12), "must be an item id"),
        (
            json!("{id:\"minecraft:stick\",count:0}"),
            "metadata `icon`:",
        ),
    ] {
        let (code, stdout, file) = check(&dir, &wave_with_icon(Some(icon.clone())));
        assert_eq!(code, Some(1), "{icon}: {stdout}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 1, "{icon}: {stdout}");
        let prefix = format!("{file}: /metadata/icon: ");
        assert!(lines[0].starts_with(&prefix), "{icon}: {}", lines[0]);
        assert!(lines[0].contains(rule), "{icon}: {}", lines[0]);
    }
    for icon in [
        None,
        Some(json!("golden_apple")),
        Some(json!("{id:\"minecraft:player_head\",Count:1b}")),
    ] {
        let (code, stdout, _) = check(&dir, &wave_with_icon(icon.clone()));
        assert_eq!(code, Some(0), "{icon:?}: {stdout}");
        assert_eq!(stdout, "", "{icon:?}");
    }
}
