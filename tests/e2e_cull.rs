//! View-range culling with real clients: a player 75 blocks from an emote
//! (inside the chunk view, past the displays' 64-block view range) gets
//! nothing for it; walking into range, it gets the displays with the pose
//! the emote is at. With `display_view_scale = 5.0` the same player gets
//! them where it stands.

mod common;

use common::{BotRun, Server, TempDir};
use serde_json::json;

/// A looping emote of block and item displays, all with the default view
/// range.
const EMOTE: &str = "example:guitar";

/// The watcher's spot while the emote starts: chunk 5, so the dancer's
/// chunk 0 is in its 10-chunk view, and 74.5 blocks from that chunk.
const FAR_X: f64 = 90.0;
/// Where it walks to: 4.5 blocks from the dancer's chunk.
const NEAR_X: f64 = 20.0;

fn displays_in(emote_file: &str) -> usize {
    let path = common::crate_root().join("emotes").join(emote_file);
    let text = std::fs::read_to_string(path).expect("the bundled emote");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    json["nodes"]
        .as_object()
        .expect("nodes")
        .values()
        .filter(|n| n["type"] != "anchor")
        .count()
}

/// A watcher (operator) goes far, starts the emote on the dancer, waits,
/// then comes near. Returns the watcher's run; step 7 is the walk in.
fn watch(display_view_scale: f64) -> BotRun {
    let dir = TempDir::new("cull");
    let config = dir.write(
        "emoted.toml",
        &format!(
            "[permissions]\noperators = [\"watcher\"]\n[emotes]\ndisplay_view_scale = {display_view_scale}\n"
        ),
    );
    let config = config.to_string_lossy().into_owned();
    let mut server = Server::start_with_args(&["emotes"], &["--config", &config]);
    let dancer = server
        .bot("dancer")
        .wait_spawn()
        .wait_ms(12_000)
        .disconnect()
        .spawn();
    let watcher = server
        .bot("watcher")
        .wait_spawn() // 0
        .wait_for_since_start(
            json!({"event": "spawn_entity", "username": "dancer"}),
            1,
            10_000,
        ) // 1
        .chat(&format!("/tp {FAR_X} 65 8")) // 2
        .wait_for(json!({"event": "teleport", "x": FAR_X + 0.5}), 1, 5000) // 3
        .chat(&format!("/emote play {EMOTE} dancer")) // 4
        .wait_for(
            json!({"event": "chat", "text_contains": format!("Playing {EMOTE} on dancer")}),
            1,
            5000,
        ) // 5
        .wait_ms(2500) // 6
        .chat(&format!("/tp {NEAR_X} 65 8")) // 7
        .wait_for(json!({"event": "teleport", "x": NEAR_X + 0.5}), 1, 5000) // 8
        .wait_ms(1500) // 9
        .disconnect()
        .run();
    watcher.assert_ok();
    dancer.wait().assert_ok();
    server.assert_log_clean();
    watcher
}

fn display_spawns(events: &[common::Event]) -> usize {
    events
        .iter()
        .filter(|e| {
            matches!(e, common::Event::SpawnEntity(s)
                if s.entity_type.as_deref().is_some_and(|t| t.ends_with("_display")))
        })
        .count()
}

#[test]
fn a_player_past_the_view_range_gets_nothing_until_it_comes_near() {
    let watcher = watch(1.0);
    let expected = displays_in("guitar.json");
    let before_walk: usize = (0..7).map(|i| display_spawns(watcher.during_step(i))).sum();
    assert_eq!(
        before_walk,
        0,
        "displays reached a viewer past their range:\n{}",
        watcher.describe()
    );
    let ids = watcher.display_ids();
    assert_eq!(ids.len(), expected, "{}", watcher.describe());
    // They arrive with the pose the emote is at (a shown node has a
    // non-zero scale), not the hidden pose displays spawn with.
    let shown = ids
        .iter()
        .filter(|id| {
            watcher.metadata_of(**id).first().is_some_and(|m| {
                m.vec3("scale")
                    .is_some_and(|s| s.iter().any(|c| c.abs() > 1e-6))
            })
        })
        .count();
    assert!(shown > 0, "{}", watcher.describe());
    // And they keep moving: updates after the spawn.
    let updates: usize = ids.iter().map(|id| watcher.metadata_of(*id).len()).sum();
    assert!(updates > ids.len(), "{}", watcher.describe());
}

#[test]
fn a_larger_view_scale_reaches_the_far_player() {
    let watcher = watch(5.0);
    let expected = displays_in("guitar.json");
    let before_walk: usize = (0..7).map(|i| display_spawns(watcher.during_step(i))).sum();
    assert_eq!(before_walk, expected, "{}", watcher.describe());
}
