//! The pack-drawn parts of the player's own body, packet by packet, as a
//! real client that loaded emoted's resource pack receives them, and the
//! player's way out, `/emote parts off`.
//!
//! The pack's shader reads a part's slice id k from how far below the
//! camera it is drawn (`512·k` blocks). So, from a twin's very first
//! metadata on: it is never drawn (scale other than 0) as anything but a
//! `player_head` with its slice's `CustomModelData`; every change of
//! window k takes effect with interpolation duration 0 (interpolated, the
//! client would draw it sweeping through the other slices' windows); and
//! its view range is at most 0.78, so no client draws it from 256 blocks
//! away; and it carries the brightness by which the shader tells it from
//! a bystander.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{BotRun, Server, TempDir};
use serde_json::Value;

/// `CustomModelData` of slice 0 (`pack::ids::CUSTOM_MODEL_DATA_BASE`).
const MODEL_DATA_BASE: i64 = 0x45_4D00;

/// `pack::shader::twin_brightness_packed()`: block light 1, sky light 15.
const TWIN_BRIGHTNESS: i64 = (1 << 4) | (15 << 20);

/// `pack::ids::TWIN_MAX_VIEW_RANGE`.
const TWIN_MAX_VIEW_RANGE: f64 = 0.78;

/// The slice window a translation's height is in: `round(−y / 512)`.
fn window_of(fields: &BTreeMap<String, Value>) -> i64 {
    let y = fields
        .get("translation")
        .and_then(|t| t[1].as_f64())
        .unwrap_or(0.0);
    (-y / 512.0).round() as i64
}

fn model_data(fields: &BTreeMap<String, Value>) -> Option<i64> {
    fields.get("item")?["nbt"]["CustomModelData"].as_i64()
}

fn is_player_head(fields: &BTreeMap<String, Value>) -> bool {
    fields
        .get("item")
        .is_some_and(|i| i["id"] == "minecraft:player_head")
}

/// A display's scale as the client holds it (vanilla's default is 1).
fn drawn(fields: &BTreeMap<String, Value>) -> bool {
    match fields.get("scale").and_then(Value::as_array) {
        Some(scale) => scale.iter().any(|s| s.as_f64().unwrap_or(1.0) != 0.0),
        None => true,
    }
}

/// Every item display that showed a `player_head` to `run`, with its
/// metadata fields merged packet by packet (state after each packet).
fn head_histories(run: &BotRun) -> BTreeMap<i32, Vec<BTreeMap<String, Value>>> {
    let mut out = BTreeMap::new();
    for spawned in run.spawned_of("item_display") {
        let mut state = BTreeMap::new();
        let mut history = Vec::new();
        for packet in run.metadata_of(spawned.entity_id) {
            for (name, value) in &packet.fields {
                state.insert(name.clone(), value.clone());
            }
            history.push(state.clone());
        }
        if history.iter().any(is_player_head) {
            out.insert(spawned.entity_id, history);
        }
    }
    out
}

/// `name`, with the pack, types `lines`, then watches a bow that bower
/// plays once `name`'s pack has loaded; what `name` received.
fn watch_a_bow(server: &Server, name: &str, lines: &[&str]) -> BotRun {
    let mut plan = server
        .bot(name)
        .resource_pack("accept")
        .wait_spawn()
        .wait_ms(300);
    for line in lines {
        plan = plan.chat(line).wait_ms(200);
    }
    let watcher = plan.watch_hidden_emote_of("bower").spawn();
    let loaded = format!("{name} loaded the resource pack");
    assert!(
        server.wait_for_log(&loaded, Duration::from_secs(30)),
        "{}",
        server.log()
    );
    // What was typed is in before the bow starts.
    std::thread::sleep(Duration::from_millis(800));
    server
        .bot("bower")
        .wait_spawn()
        .wait_ms(500)
        .chat("/emote play example:bow")
        .wait_ms(1500)
        .chat("/emote stop")
        .wait_ms(800)
        .disconnect()
        .run()
        .assert_ok();
    let watcher = watcher.wait();
    watcher.assert_ok();
    watcher
}

#[test]
fn every_twin_is_born_dressed_jumps_between_windows_and_is_never_drawn_from_afar() {
    let mut server = Server::start();
    let watcher = watch_a_bow(&server, "watcher", &[]);

    let twins = head_histories(&watcher);
    assert!(
        twins.len() >= 6,
        "the bow's body parts: {}",
        watcher.describe()
    );
    let mut moved_down = 0;
    for (id, history) in &twins {
        let mut window = 0;
        let mut windows_seen = Vec::new();
        for (index, state) in history.iter().enumerate() {
            if drawn(state) {
                assert!(
                    is_player_head(state) && model_data(state).is_some(),
                    "twin {id}, packet {index}: drawn undressed: {state:?}"
                );
                // The brightness the shader knows twins by.
                assert_eq!(
                    state.get("brightness").and_then(Value::as_i64),
                    Some(TWIN_BRIGHTNESS),
                    "twin {id}, packet {index}: {state:?}"
                );
            }
            let now = window_of(state);
            if now != window {
                let duration = state
                    .get("interpolation_duration")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                assert_eq!(
                    duration, 0,
                    "twin {id}, packet {index}: window {window} → {now} interpolated: {state:?}"
                );
                windows_seen.push(now);
                window = now;
            }
            let view_range = state
                .get("view_range")
                .and_then(Value::as_f64)
                .unwrap_or(1.0);
            assert!(
                view_range <= TWIN_MAX_VIEW_RANGE + 1e-6,
                "twin {id}, packet {index}: view range {view_range}"
            );
        }
        // The window it ends in is its slice's.
        let last = history.last().expect("at least one packet");
        let k = model_data(last).expect("dressed") - MODEL_DATA_BASE;
        assert!((0..48).contains(&k), "twin {id}: slice {k}");
        assert_eq!(window, k, "twin {id} in its slice's window: {last:?}");
        // Straight to its window (slice 0, the head, is drawn in place).
        let expected: Vec<i64> = (k > 0).then_some(k).into_iter().collect();
        assert_eq!(windows_seen, expected, "twin {id}'s windows");
        moved_down += usize::from(k > 0);
    }
    assert!(moved_down >= 5, "the parts below the head: {moved_down}");
    server.assert_log_clean();
}

#[test]
fn emote_parts_off_shows_heads_after_a_restart_too_and_on_brings_parts_back() {
    let data = TempDir::new("twins-parts");
    let folder = data.path().join("data");
    let folder_arg = folder.to_string_lossy().into_owned();
    let args = ["--data-folder", folder_arg.as_str()];
    let roots = ["emotes", "datapacks"];

    let parts_of = |run: &BotRun| -> (usize, usize) {
        let heads = head_histories(run);
        let parts = heads
            .values()
            .filter(|h| h.last().and_then(model_data).is_some())
            .count();
        (parts, heads.len() - parts)
    };

    // Heads, chosen: the answer says so.
    let mut server = Server::start_with_args(&roots, &args);
    let chooser = watch_a_bow(&server, "chooser", &["/emote parts off", "/emote parts"]);
    let said: Vec<&str> = chooser.chat();
    assert!(
        said.iter().any(|l| l.contains("You now see heads")),
        "{said:?}"
    );
    assert!(
        said.iter().any(|l| l.contains("You see heads")),
        "asked again: {said:?}"
    );
    let (parts, heads) = parts_of(&chooser);
    assert_eq!(parts, 0, "no body parts after /emote parts off");
    assert!(heads >= 6, "the bow's heads: {}", chooser.describe());
    server.assert_log_clean();
    drop(server);

    // After a restart on the same store: still heads, nothing typed.
    let mut server = Server::start_with_args(&roots, &args);
    let returner = watch_a_bow(&server, "chooser", &[]);
    let (parts, heads) = parts_of(&returner);
    assert_eq!(parts, 0, "heads are kept: {}", returner.describe());
    assert!(heads >= 6);
    server.assert_log_clean();
    drop(server);

    // `/emote parts on`: the parts again.
    let mut server = Server::start_with_args(&roots, &args);
    let back = watch_a_bow(&server, "chooser", &["/emote parts on"]);
    let (parts, _) = parts_of(&back);
    assert!(parts >= 6, "parts again: {}", back.describe());
    server.assert_log_clean();
}
