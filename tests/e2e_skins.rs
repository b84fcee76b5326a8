//! The player's own body, as two real viewers see it: while the bundled
//! bow plays, a mineflayer viewer that loaded emoted's resource pack gets
//! `player_head` item displays carrying the bower's profile with at least
//! six distinct body-part `CustomModelData` values, each moved `512·k`
//! blocks down for the shader; a viewer that declined the pack gets whole
//! heads instead (no model data, not moved), and neither gets the other's
//! displays. The bower is hidden from both while it plays and comes back
//! after.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use base64::Engine;
use common::{BotRun, Server};
use serde_json::Value;

/// `CustomModelData` of slice 0 (`pack::ids::CUSTOM_MODEL_DATA_BASE`).
const MODEL_DATA_BASE: i64 = 0x45_4D00;

/// The 1.20.1 `SkullOwner.Id` of a dashed UUID: four big-endian ints.
fn uuid_ints(uuid: &str) -> Vec<i64> {
    let hex: String = uuid.chars().filter(|c| *c != '-').collect();
    (0..4)
        .map(|i| i64::from(u32::from_str_radix(&hex[8 * i..8 * i + 8], 16).expect("hex") as i32))
        .collect()
}

/// Every player-head item display a viewer saw: entity id and its merged
/// fields.
fn heads(run: &BotRun) -> Vec<(i32, BTreeMap<String, Value>)> {
    run.spawned_of("item_display")
        .into_iter()
        .map(|s| (s.entity_id, run.merged_fields(s.entity_id)))
        .filter(|(_, fields)| fields["item"]["id"] == "minecraft:player_head")
        .collect()
}

fn watcher_plan(server: &Server, name: &str, pack: &str) -> common::RunningBot {
    server
        .bot(name)
        .resource_pack(pack)
        .wait_spawn()
        .watch_hidden_emote_of("bower")
        .spawn()
}

#[test]
fn viewers_with_the_pack_see_the_bowers_body_and_the_others_see_heads() {
    let mut server = Server::start();
    let watcher = watcher_plan(&server, "watcher", "accept");
    let decliner = watcher_plan(&server, "decliner", "decline");
    for line in [
        "watcher loaded the resource pack",
        "decliner declined the resource pack",
    ] {
        assert!(
            server.wait_for_log(line, Duration::from_secs(30)),
            "{line}: {}",
            server.log()
        );
    }
    let bower = server
        .bot("bower")
        .wait_spawn()
        .wait_ms(500)
        .chat("/emote play example:bow")
        .wait_ms(1200)
        .chat("/emote stop")
        .wait_ms(800)
        .disconnect()
        .run();
    bower.assert_ok();
    let watcher = watcher.wait();
    watcher.assert_ok();
    let decliner = decliner.wait();
    decliner.assert_ok();

    for viewer in [&watcher, &decliner] {
        // Hidden while it plays, back after: two spawns, the first destroyed.
        let spawns: Vec<_> = viewer
            .spawned()
            .into_iter()
            .filter(|s| s.username.as_deref() == Some("bower"))
            .collect();
        assert_eq!(spawns.len(), 2, "{}", viewer.describe());
        assert!(viewer.destroyed().contains(&spawns[0].entity_id));
        // Every head wears the bower: name, UUID and a skin texture.
        let uuid = uuid_ints(&spawns[0].uuid);
        let heads = heads(viewer);
        assert!(heads.len() >= 6, "{}", viewer.describe());
        for (id, fields) in &heads {
            let owner = &fields["item"]["nbt"]["SkullOwner"];
            assert_eq!(owner["Name"], "bower", "display {id}: {owner}");
            let ids: Vec<i64> = owner["Id"]
                .as_array()
                .expect("Id")
                .iter()
                .filter_map(Value::as_i64)
                .collect();
            assert_eq!(ids, uuid, "display {id}");
            let value = owner["Properties"]["textures"][0]["Value"]
                .as_str()
                .expect("a textures value");
            let textures: Value = serde_json::from_slice(
                &base64::engine::general_purpose::STANDARD
                    .decode(value)
                    .expect("base64"),
            )
            .expect("JSON");
            let url = textures["textures"]["SKIN"]["url"]
                .as_str()
                .expect("a skin");
            assert!(
                url.starts_with("http://textures.minecraft.net/texture/"),
                "an offline player wears their default skin: {url}"
            );
        }
    }

    // The viewer with the pack: body parts, each moved down 512·k blocks.
    let mut parts = BTreeSet::new();
    for (id, fields) in heads(&watcher) {
        let data = fields["item"]["nbt"]["CustomModelData"]
            .as_i64()
            .unwrap_or_else(|| panic!("display {id} is a part: {fields:?}"));
        let k = data - MODEL_DATA_BASE;
        assert!((0..48).contains(&k), "display {id}: model data {data}");
        assert_eq!(
            fields["item_display"], 2,
            "thirdperson_righthand, as the models"
        );
        let y = fields["translation"][1].as_f64().expect("a translation");
        let expected = -512.0 * k as f64;
        assert!(
            (y - expected).abs() < 4.0,
            "display {id}: slice {k} at y {y}, expected about {expected}"
        );
        parts.insert(k);
    }
    assert!(
        parts.len() >= 6,
        "at least six distinct parts: {parts:?}\n{}",
        watcher.describe()
    );

    // The viewer without it: whole heads, where the file puts them.
    for (id, fields) in heads(&decliner) {
        assert!(
            fields["item"]["nbt"].get("CustomModelData").is_none(),
            "display {id}: {fields:?}"
        );
        let y = fields["translation"][1].as_f64().unwrap_or(0.0);
        assert!(y.abs() < 4.0, "display {id} in place: {y}");
    }
    server.assert_log_clean();
}
