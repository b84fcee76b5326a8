//! A converted Blockbench model in the pack, through the real binary:
//! `emoted convert textured_5x.bbmodel -o DIR/emotes/textured.json`, then
//! `emoted pack --emotes DIR/emotes`. The zip holds each textured cube's
//! item model (one element, the cube's face UVs, its texture named by
//! resource location), the PNG exactly as the .bbmodel embeds it, and a
//! `paper.json` whose overrides name those models by the CustomModelData
//! the emote's displays carry, in ascending order. The untextured cube
//! stays a block display. `emoted check` passes the converted file, and a
//! file whose texture was broken is refused with its pointer.

use std::fs;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use serde_json::Value;

const FIXTURE: &str = "tests/fixtures/import/blockbench/textured_5x.bbmodel";

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("pack_imported_cli")
        .join(format!("{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create the scratch dir");
    dir
}

fn emoted(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("run emoted");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn entry(zip: &[u8], name: &str) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(Cursor::new(zip)).expect("a zip");
    let mut file = archive
        .by_name(name)
        .unwrap_or_else(|e| panic!("{name} in the zip: {e}"));
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).expect("read");
    bytes
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("JSON")
}

/// The PNG the fixture embeds as `textures[0]`.
fn fixture_png() -> Vec<u8> {
    let model: Value = json(&fs::read(FIXTURE).expect("fixture"));
    let uri = model["textures"][0]["source"].as_str().expect("source");
    let encoded = uri
        .strip_prefix("data:image/png;base64,")
        .expect("data URI");
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .expect("base64")
}

fn convert(dir: &Path) -> Value {
    let out = dir.join("emotes/textured.json");
    let (ok, _, stderr) = emoted(&["convert", FIXTURE, "-o", &out.to_string_lossy()]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("/elements/2: the cube is drawn as `badge_cube`, an untextured"),
        "{stderr}"
    );
    json(&fs::read(&out).expect("converted"))
}

/// The CustomModelData in a display's item SNBT.
fn model_data(node: &Value) -> i64 {
    let snbt = node["item_stack_snbt"].as_str().expect("item SNBT");
    assert!(snbt.starts_with("{id:\"minecraft:paper\""), "{snbt}");
    let tail = snbt
        .split("CustomModelData:")
        .nth(1)
        .expect("CustomModelData");
    tail.trim_end_matches('}').parse().expect("a number")
}

#[test]
fn the_pack_holds_the_converted_models_textures_and_overrides() {
    let dir = scratch("pack");
    let emote = convert(&dir);
    let (ok, stdout, stderr) = emoted(&["check", &dir.join("emotes").to_string_lossy()]);
    assert!(ok, "{stdout}{stderr}");

    let zip_path = dir.join("pack.zip");
    let (ok, _, stderr) = emoted(&[
        "pack",
        "-o",
        &zip_path.to_string_lossy(),
        "--emotes",
        &dir.join("emotes").to_string_lossy(),
        "--no-merge",
    ]);
    assert!(ok, "{stderr}");
    assert!(
        !stderr.contains("CustomModelData"),
        "no collision: {stderr}"
    );
    let zip = fs::read(&zip_path).expect("the pack");

    let folder = "imported/converted/textured_5x";
    assert_eq!(
        entry(
            &zip,
            &format!("assets/emoted/textures/item/{folder}/quadrants.png")
        ),
        fixture_png(),
        "the texture is the embedded PNG, byte for byte"
    );
    let paper = json(&entry(&zip, "assets/minecraft/models/item/paper.json"));
    assert_eq!(paper["textures"]["layer0"], "minecraft:item/paper");
    let overrides = paper["overrides"].as_array().expect("overrides");
    let numbers: Vec<i64> = overrides
        .iter()
        .map(|o| {
            o["predicate"]["custom_model_data"]
                .as_i64()
                .expect("number")
        })
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
    assert_eq!(overrides.len(), 2, "body and head; the badge is untextured");

    for (cube, north_uv) in [
        ("body_cube", [0.0, 0.0, 8.0, 8.0]),
        ("head_cube", [4.0, 4.0, 8.0, 8.0]),
    ] {
        let node = &emote["nodes"][cube];
        assert_eq!(node["type"], "item_display", "{cube}");
        assert_eq!(node["transform"]["rotation"][1], 180.0, "{cube}");
        let number = model_data(node);
        let chosen = overrides
            .iter()
            .find(|o| o["predicate"]["custom_model_data"] == number)
            .unwrap_or_else(|| panic!("an override for {cube}'s {number}"));
        let id = format!("emoted:item/{folder}/{cube}");
        assert_eq!(chosen["model"], id.as_str());
        let model = json(&entry(
            &zip,
            &format!("assets/emoted/models/item/{folder}/{cube}.json"),
        ));
        assert_eq!(
            model["textures"]["0"],
            format!("emoted:item/{folder}/quadrants").as_str()
        );
        let element = &model["elements"][0];
        assert_eq!(element["from"], serde_json::json!([0.0, 0.0, 0.0]));
        assert_eq!(element["to"], serde_json::json!([16.0, 16.0, 16.0]));
        let uv: Vec<f64> = element["faces"]["north"]["uv"]
            .as_array()
            .expect("uv")
            .iter()
            .map(|v| v.as_f64().expect("number"))
            .collect();
        assert_eq!(uv, north_uv, "{cube}");
    }
    // The body's east face keeps its rotation; its down face (texture null) is not drawn.
    let body = json(&entry(
        &zip,
        &format!("assets/emoted/models/item/{folder}/body_cube.json"),
    ));
    assert_eq!(body["elements"][0]["faces"]["east"]["rotation"], 90);
    assert!(body["elements"][0]["faces"].get("down").is_none());
    assert_eq!(emote["nodes"]["badge_cube"]["type"], "block_display");
}

#[test]
fn a_broken_texture_refuses_the_file_with_its_pointer() {
    let dir = scratch("broken");
    let mut emote = convert(&dir);
    emote["metadata"]["emoted"]["resources"]["textures"]["quadrants"] =
        Value::String("data:image/png;base64,AAAA".to_owned());
    let path = dir.join("emotes/textured.json");
    fs::write(&path, emote.to_string()).expect("write");
    let (ok, stdout, _) = emoted(&["check", &path.to_string_lossy()]);
    assert!(!ok, "{stdout}");
    assert!(
        stdout.contains("/metadata/emoted/resources/textures/quadrants: the texture is not a PNG"),
        "{stdout}"
    );
}
