//! `emoted pack -o FILE.zip` run as a real process: the zip it writes opens,
//! has `pack.mcmeta` with `pack_format` 15, the models and the shader, and
//! the SHA-1 it prints is the file's; a second run writes the same bytes.
//! With an admin's pack (`--merge`, or `resource_pack.merge` in `--config`)
//! the zip is the merged one and the conflicts are listed; a bad admin pack
//! fails with its entry named. `emoted check --config` lists the same
//! conflicts.

use std::fs;
use std::io::{Cursor, Read, Write};
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
    emoted("pack", args)
}

/// `emoted pack -o OUT` with `flags`.
fn pack_into(out: &std::path::Path, flags: &[&str]) -> Run {
    let out = out.to_string_lossy();
    let mut args = vec!["-o", &out];
    args.extend_from_slice(flags);
    pack(&args)
}

fn emoted(command: &str, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg(command)
        .args(args)
        .output()
        .expect("run emoted");
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
    let run = pack_into(&out, &["--emotes", &folder.to_string_lossy()]);
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

const PLAYER_HEAD: &str = "assets/minecraft/models/item/player_head.json";
const VSH: &str = "assets/minecraft/shaders/core/rendertype_entity_translucent.vsh";
const TEXTURE: &str = "assets/minecraft/textures/block/stone.png";

/// Writes a zip of `entries` at `path`, as an admin's tool would.
fn write_zip(path: &std::path::Path, entries: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        zip.start_file(*name, zip::write::SimpleFileOptions::DEFAULT)
            .expect("entry");
        zip.write_all(bytes).expect("write");
    }
    fs::write(path, zip.finish().expect("zip").into_inner()).expect("write the zip");
}

/// An admin's pack with an icon, a texture, a shader of ours and a
/// `player_head` model with one override of its own.
fn admin_zip(name: &str) -> PathBuf {
    let path = scratch(name);
    let head = serde_json::json!({
        "parent": "minecraft:item/template_skull",
        "overrides": [{"predicate": {"custom_model_data": 7}, "model": "admin:item/crown"}]
    });
    write_zip(
        &path,
        &[
            (
                "pack.mcmeta",
                br#"{"pack":{"pack_format":15,"description":"Admin pack"}}"#,
            ),
            ("pack.png", b"PNG icon"),
            (TEXTURE, b"admin stone"),
            (VSH, b"admin shader"),
            (PLAYER_HEAD, &serde_json::to_vec(&head).expect("json")),
        ],
    );
    path
}

#[test]
fn merges_the_admins_pack_and_lists_the_conflicts() {
    let admin = admin_zip("admin.zip");
    let out = scratch("merged.zip");
    let run = pack_into(&out, &["--merge", &admin.to_string_lossy()]);
    assert!(run.success, "{}", run.stderr);
    let bytes = fs::read(&out).expect("written");
    let (sha1, _) = run
        .stdout
        .trim_end()
        .split_once("  ")
        .expect("`SHA1  PATH`");
    assert_eq!(sha1, hex(&bytes));

    assert_eq!(entry(&bytes, TEXTURE), "admin stone");
    assert_eq!(entry(&bytes, "pack.png"), "PNG icon", "their icon");
    assert!(entry(&bytes, VSH).contains("TWIN_UV2"), "our shader won");
    let meta: serde_json::Value =
        serde_json::from_str(&entry(&bytes, "pack.mcmeta")).expect("JSON");
    assert_eq!(meta["pack"]["pack_format"], 15);
    assert_eq!(meta["pack"]["description"], "Admin pack + emoted");
    let head: serde_json::Value = serde_json::from_str(&entry(&bytes, PLAYER_HEAD)).expect("JSON");
    let overrides = head["overrides"].as_array().expect("overrides");
    assert_eq!(
        overrides[0]["model"], "admin:item/crown",
        "theirs first (7)"
    );
    assert!(overrides.len() > 8, "ours follow: {}", overrides.len());
    assert!(overrides
        .iter()
        .any(|o| o["model"] == "emoted:item/skin/body_0_6"));

    for line in [
        format!("emoted pack: merge conflict: {PLAYER_HEAD}: merged: "),
        format!("emoted pack: merge conflict: {VSH}: emoted's kept: "),
        "emoted pack: merge conflict: pack.mcmeta: merged: ".to_owned(),
    ] {
        assert_has_line(&run.stderr, &line);
    }
    assert!(
        run.stderr.contains("(paths in both packs: 3)"),
        "{}",
        run.stderr
    );

    // The configuration's `resource_pack.merge` gives the same pack, as the
    // server serves it; and `--no-merge` none.
    let config = scratch("merge.toml");
    fs::write(
        &config,
        format!(
            "[resource_pack]\nmerge = {}\n",
            toml_string(&admin.to_string_lossy())
        ),
    )
    .expect("write the config");
    let again = scratch("merged-again.zip");
    let run = pack_into(&again, &["--config", &config.to_string_lossy()]);
    assert!(run.success, "{}", run.stderr);
    assert_eq!(fs::read(&again).expect("written"), bytes);
    let alone = scratch("alone.zip");
    let run = pack_into(
        &alone,
        &["--config", &config.to_string_lossy(), "--no-merge"],
    );
    assert!(run.success, "{}", run.stderr);
    assert!(!run.stderr.contains("merge conflict"), "{}", run.stderr);
    assert_ne!(fs::read(&alone).expect("written"), bytes);

    // `emoted check` reads the same configuration and lists the conflicts.
    let check = emoted("check", &["emotes", "--config", &config.to_string_lossy()]);
    assert!(check.success, "{}\n{}", check.stdout, check.stderr);
    assert_has_line(
        &check.stdout,
        &format!("{}: {VSH}: emoted's kept: ", admin.display()),
    );
    assert!(
        check.stderr.contains("(paths in both packs: 3)"),
        "{}",
        check.stderr
    );
    for file in [admin, out, config, again, alone] {
        let _ = fs::remove_file(file);
    }
}

/// Fails unless a line of `text` starts with `prefix`.
fn assert_has_line(text: &str, prefix: &str) {
    assert!(
        text.lines().any(|l| l.starts_with(prefix)),
        "no line starts with {prefix:?} in:\n{text}"
    );
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[test]
fn a_bad_admin_pack_fails_with_the_entry_and_the_rule() {
    let evil = scratch("evil.zip");
    write_zip(
        &evil,
        &[
            ("pack.mcmeta", br#"{"pack":{"pack_format":15}}"#),
            ("../evil", b"x"),
        ],
    );
    let out = scratch("never.zip");
    let run = pack_into(&out, &["--merge", &evil.to_string_lossy()]);
    assert!(!run.success);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("entry `../evil` is refused: it has a `..` part"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&*evil.to_string_lossy()),
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "nothing written");
    let missing = scratch("missing.zip");
    let run = pack_into(&out, &["--merge", &missing.to_string_lossy()]);
    assert!(!run.success);
    assert!(
        run.stderr.contains("cannot read the admin pack"),
        "{}",
        run.stderr
    );
    let _ = fs::remove_file(evil);
}
