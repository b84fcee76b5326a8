//! A converted Blockbench model plays for a real client (mineflayer), the
//! way an admin sets it up: `emoted convert textured_5x.bbmodel -o
//! emotes/textured.json`, the server started on that folder, a player
//! runs `/emote play converted:textured_5x`. A viewer who loaded the pack
//! sees item displays of paper whose CustomModelData are exactly the
//! numbers the served pack's `paper.json` overrides name (the textured
//! cubes), plus the untextured cube's block display; and the pack fetched
//! over HTTP from the offered URL holds those models and the PNG the
//! .bbmodel embeds.

mod common;

use std::collections::BTreeSet;
use std::io::{Cursor, Read};
use std::process::Command;

use base64::Engine;
use common::{http_get, sha1_hex, Server, TempDir};
use serde_json::{json, Value};

const FIXTURE: &str = "tests/fixtures/import/blockbench/textured_5x.bbmodel";
const FOLDER: &str = "imported/converted/textured_5x";

fn entry(zip: &[u8], name: &str) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(Cursor::new(zip)).expect("a zip");
    let mut file = archive
        .by_name(name)
        .unwrap_or_else(|e| panic!("{name} in the served pack: {e}"));
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).expect("read");
    bytes
}

fn fixture_png() -> Vec<u8> {
    let text = std::fs::read_to_string(FIXTURE).expect("fixture");
    let model: Value = serde_json::from_str(&text).expect("JSON");
    let uri = model["textures"][0]["source"].as_str().expect("source");
    base64::engine::general_purpose::STANDARD
        .decode(uri.trim_start_matches("data:image/png;base64,"))
        .expect("base64")
}

#[test]
fn a_converted_blockbench_model_plays_with_its_item_models_from_the_served_pack() {
    let dir = TempDir::new("imported-models");
    let out = dir.path().join("emotes/textured.json");
    let convert = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["convert", FIXTURE, "-o"])
        .arg(&out)
        .output()
        .expect("run emoted convert");
    assert!(
        convert.status.success(),
        "{}",
        String::from_utf8_lossy(&convert.stderr)
    );

    let mut server = Server::start_with(&[dir.path().join("emotes")]);
    let viewer = server
        .bot("carol")
        .resource_pack("accept")
        .wait_spawn()
        .wait_for_since_start(
            json!({"event": "resource_pack_answer", "result": "loaded"}),
            1,
            10_000,
        )
        .wait_ms(4000)
        .disconnect()
        .spawn();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let player = server
        .bot("alice")
        .wait_spawn()
        .chat("/emote play converted:textured_5x")
        .wait_ms(2500)
        .disconnect()
        .run();
    let viewer = viewer.wait();
    player.assert_ok();
    viewer.assert_ok();

    // The pack the viewer was offered, fetched as its client did.
    let offers = viewer.pack_offers();
    assert_eq!(offers.len(), 1, "{}", viewer.describe());
    let answer = http_get(&offers[0].url);
    assert_eq!(answer.status, 200);
    assert_eq!(sha1_hex(&answer.body), offers[0].hash);
    let zip = answer.body;
    let paper: Value =
        serde_json::from_slice(&entry(&zip, "assets/minecraft/models/item/paper.json"))
            .expect("paper.json");
    let overridden: BTreeSet<i64> = paper["overrides"]
        .as_array()
        .expect("overrides")
        .iter()
        .map(|o| {
            let model = o["model"].as_str().expect("model id");
            let path = model.replacen("emoted:", "assets/emoted/models/", 1) + ".json";
            let body: Value = serde_json::from_slice(&entry(&zip, &path)).expect("model");
            assert_eq!(
                body["textures"]["0"],
                format!("emoted:item/{FOLDER}/quadrants").as_str()
            );
            o["predicate"]["custom_model_data"]
                .as_i64()
                .expect("number")
        })
        .collect();
    assert_eq!(overridden.len(), 2, "the body and head cubes");
    assert_eq!(
        entry(
            &zip,
            &format!("assets/emoted/textures/item/{FOLDER}/quadrants.png")
        ),
        fixture_png()
    );

    // What the viewer saw: paper item displays carrying those numbers.
    let mut seen = BTreeSet::new();
    for display in viewer.spawned_of("item_display") {
        let fields = viewer.merged_fields(display.entity_id);
        let Some(item) = fields.get("item") else {
            continue;
        };
        if item["id"] == "minecraft:paper" {
            let number = item["nbt"]["CustomModelData"]
                .as_i64()
                .unwrap_or_else(|| panic!("CustomModelData on {item}"));
            seen.insert(number);
        }
    }
    assert_eq!(seen, overridden, "{}", viewer.describe());
    let blocks: Vec<String> = viewer
        .spawned_of("block_display")
        .iter()
        .filter_map(|d| {
            let fields = viewer.merged_fields(d.entity_id);
            fields
                .get("block_state")?
                .get("name")?
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert!(
        blocks.iter().any(|b| b == "minecraft:white_concrete"),
        "the untextured badge: {blocks:?}"
    );
    server.assert_log_clean();
}
