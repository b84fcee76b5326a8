//! `emoted pack -o FILE.zip` run as a real process: the zip it writes opens,
//! has `pack.mcmeta` with `pack_format` 15, the models and the shader, and
//! the SHA-1 it prints is the file's; a second run writes the same bytes.

use std::fs;
use std::io::{Cursor, Read};
use std::path::PathBuf;
use std::process::Command;

use sha1::{Digest, Sha1};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pack_cli");
    fs::create_dir_all(&dir).expect("create the scratch dir");
    dir.join(format!("{}-{name}", std::process::id()))
}

struct Run {
    success: bool,
    stdout: String,
    stderr: String,
}

fn pack(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("pack")
        .args(args)
        .output()
        .expect("run emoted pack");
    Run {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn entry(zip: &[u8], name: &str) -> String {
    let mut archive = zip::ZipArchive::new(Cursor::new(zip)).expect("the file is a zip");
    let mut file = archive
        .by_name(name)
        .unwrap_or_else(|e| panic!("{name} in the zip: {e}"));
    let mut text = String::new();
    file.read_to_string(&mut text).expect("UTF-8");
    text
}

fn hex(bytes: &[u8]) -> String {
    Sha1::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn writes_the_pack_for_the_bundled_emotes_and_prints_its_sha1() {
    let out = scratch("bundled.zip");
    let out_text = out.to_string_lossy().into_owned();
    let run = pack(&["-o", &out_text]);
    assert!(
        run.success,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );

    let bytes = fs::read(&out).expect("the zip was written");
    let line = run.stdout.trim_end();
    let (sha1, path) = line.split_once("  ").expect("`SHA1  PATH`");
    assert_eq!(path, out_text);
    assert_eq!(sha1.len(), 40, "{line}");
    assert_eq!(sha1, hex(&bytes));

    let meta: serde_json::Value =
        serde_json::from_str(&entry(&bytes, "pack.mcmeta")).expect("pack.mcmeta is JSON");
    assert_eq!(meta["pack"]["pack_format"], 15);

    let head: serde_json::Value = serde_json::from_str(&entry(
        &bytes,
        "assets/minecraft/models/item/player_head.json",
    ))
    .expect("player_head.json is JSON");
    let models: Vec<&str> = head["overrides"]
        .as_array()
        .expect("overrides")
        .iter()
        .filter_map(|o| o["model"].as_str())
        .collect();
    // The bundled bow cuts the body in two halves of equal Y scale.
    for model in [
        "emoted:item/skin/head",
        "emoted:item/skin/right_arm_slim",
        "emoted:item/skin/body_0_6",
        "emoted:item/skin/body_6_12",
    ] {
        assert!(models.contains(&model), "{model} in {models:?}");
        let file = format!(
            "assets/emoted/models/item/skin/{}.json",
            model.trim_start_matches("emoted:item/skin/")
        );
        assert!(entry(&bytes, &file).contains("builtin/entity"), "{file}");
    }
    let vsh = entry(
        &bytes,
        "assets/minecraft/shaders/core/rendertype_entity_translucent.vsh",
    );
    assert!(vsh.contains(&format!("#define SLICE_COUNT {}", models.len())));

    // Same emotes, same bytes.
    let again = scratch("again.zip");
    let run = pack(&["--output", &again.to_string_lossy()]);
    assert!(run.success, "{}", run.stderr);
    assert_eq!(fs::read(&again).expect("written"), bytes);
    let _ = fs::remove_file(out);
    let _ = fs::remove_file(again);
}

#[test]
fn an_emote_folder_without_skins_gives_the_whole_parts_only() {
    let folder = scratch("no-skins");
    fs::create_dir_all(&folder).expect("create");
    let out = scratch("whole.zip");
    let run = pack(&[
        "-o",
        &out.to_string_lossy(),
        "--emotes",
        &folder.to_string_lossy(),
    ]);
    assert!(run.success, "{}", run.stderr);
    let bytes = fs::read(&out).expect("written");
    let vsh = entry(
        &bytes,
        "assets/minecraft/shaders/core/rendertype_entity_translucent.vsh",
    );
    assert!(vsh.contains("#define SLICE_COUNT 8"), "{vsh}");
    let _ = fs::remove_file(out);
    let _ = fs::remove_dir_all(folder);
}

#[test]
fn an_unwritable_output_fails_with_a_message() {
    let out = scratch("missing-dir").join("deeper").join("x.zip");
    let run = pack(&["-o", &out.to_string_lossy()]);
    assert!(!run.success);
    assert!(run.stderr.contains("cannot write"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
}
