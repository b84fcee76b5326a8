//! Imported models as pack files: paths, overrides and collisions.

use std::path::Path;

use serde_json::json;

use super::*;
use crate::format::resources::{png_data_uri, MODEL_DATA_RANGE};

/// A 1×1 PNG.
fn png() -> Vec<u8> {
    lodepng::encode32(&[10u8, 20, 30, 255], 1, 1).expect("encodes")
}

/// An Animation `id` whose one display shows model `model` numbered
/// `number`, textured with `skin`.
fn emote(id: &str, model: &str, number: i32) -> serde_json::Value {
    let t = json!({"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]});
    json!({
        "type": "animation", "schema_version": 4, "id": id,
        "metadata": {"name": id, "emoted": {"resources": {
            "textures": {"skin": png_data_uri(&png())},
            "models": {model: {"custom_model_data": number, "textures": {"0": "skin"},
                "elements": [{"from": [0, 0, 0], "to": [16, 16, 16],
                              "faces": {"up": {"uv": [0, 0, 16, 16], "texture": "#0"}}}]}}
        }}},
        "settings": {"standalone": true, "cooldown": "0t", "playback": {"mode": "once", "loop_delay": "0t"}},
        "nodes": {
            "root": {"type": "anchor", "space": "initiator", "transform": t.clone()},
            "box": {"type": "item_display", "parent": "root", "item_display": "none", "transform": t,
                    "item_stack_snbt": format!("{{id:\"minecraft:paper\",Count:1b,tag:{{CustomModelData:{number}}}}}")}
        },
        "timeline": {"duration": "10t"}
    })
}

fn library(dir: &Path, emotes: &[serde_json::Value]) -> Library {
    std::fs::create_dir_all(dir).expect("mkdir");
    for (i, value) in emotes.iter().enumerate() {
        std::fs::write(dir.join(format!("e{i}.json")), value.to_string()).expect("write");
    }
    let report = Library::load(&[dir.to_path_buf()]);
    assert_eq!(report.error_count(), 0, "{:?}", report.lines());
    report.library
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("emoted-imported-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn models_textures_and_ascending_overrides() {
    let dir = temp("paths");
    let high = MODEL_DATA_RANGE.start + 900;
    let low = MODEL_DATA_RANGE.start + 5;
    let lib = library(
        &dir,
        &[
            emote("a:fox/wave", "tail_cube", high),
            emote("b:cat", "ear_cube", low),
        ],
    );
    let models = imported_models(&lib);
    assert!(models.collisions.is_empty());
    let paths: Vec<&str> = models.files.iter().map(|(p, _)| p.as_str()).collect();
    for path in [
        "assets/emoted/textures/item/imported/a/fox/wave/skin.png",
        "assets/emoted/models/item/imported/a/fox/wave/tail_cube.json",
        "assets/emoted/textures/item/imported/b/cat/skin.png",
        "assets/emoted/models/item/imported/b/cat/ear_cube.json",
        BASE_ITEM_MODEL_PATH,
    ] {
        assert!(paths.contains(&path), "{path} in {paths:?}");
    }
    let file = |path: &str| {
        let bytes = &models.files.iter().find(|(p, _)| p == path).expect(path).1;
        serde_json::from_slice::<Value>(bytes).expect("json")
    };
    let tail = file("assets/emoted/models/item/imported/a/fox/wave/tail_cube.json");
    assert_eq!(
        tail["textures"]["0"],
        "emoted:item/imported/a/fox/wave/skin"
    );
    assert_eq!(tail["elements"][0]["faces"]["up"]["texture"], "#0");
    let paper = file(BASE_ITEM_MODEL_PATH);
    assert_eq!(paper["parent"], "minecraft:item/generated");
    assert_eq!(paper["textures"]["layer0"], "minecraft:item/paper");
    assert_eq!(
        paper["overrides"],
        json!([
            {"predicate": {"custom_model_data": low}, "model": "emoted:item/imported/b/cat/ear_cube"},
            {"predicate": {"custom_model_data": high}, "model": "emoted:item/imported/a/fox/wave/tail_cube"},
        ])
    );
    let png_bytes = &models
        .files
        .iter()
        .find(|(p, _)| p.ends_with("cat/skin.png"))
        .expect("png")
        .1;
    assert_eq!(png_bytes, &png());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_number_two_emotes_use_is_reported_with_both_files() {
    let dir = temp("collision");
    let number = MODEL_DATA_RANGE.start + 42;
    let lib = library(
        &dir,
        &[emote("z:late", "b", number), emote("a:early", "a", number)],
    );
    let models = imported_models(&lib);
    assert_eq!(models.collisions.len(), 1);
    let collision = &models.collisions[0];
    assert_eq!(collision.kept.emote, "a:early", "the first by id keeps it");
    assert_eq!(collision.left_out.emote, "z:late");
    let line = collision.to_string();
    assert!(
        line.contains("e1.json") && line.contains("e0.json"),
        "{line}"
    );
    assert!(line.contains(&number.to_string()), "{line}");
    assert_eq!(models.overrides.len(), 1);
    assert_eq!(
        models.overrides.get(&number).map(String::as_str),
        Some("emoted:item/imported/a/early/a")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_library_without_imported_models_adds_no_file() {
    assert_eq!(
        imported_models(&Library::default()),
        ImportedModels::default()
    );
}
