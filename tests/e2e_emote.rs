//! Real 1.20.1 clients (mineflayer) play bundled emotes on a running
//! `emoted serve`: the display entities they receive, their content, their
//! transformations compared with `emoted sample`, another player watching,
//! stop conditions, cooldowns, disconnects, and malformed commands.

mod common;

use common::{display_updates, follows_sample, sampled, BotRun, Server};
use serde_json::{json, Value};

/// The bundled guitar: a looping emote with block, item and text displays.
const GUITAR: &str = "example:guitar";
const GUITAR_FILE: &str = "emotes/guitar.json";

fn guitar_json() -> Value {
    let text = std::fs::read_to_string(format!("{}/{GUITAR_FILE}", env!("CARGO_MANIFEST_DIR")))
        .expect("bundled guitar");
    serde_json::from_str(&text).expect("json")
}

#[test]
fn playing_an_emote_spawns_its_displays_with_the_sampled_poses() {
    let mut server = Server::start();
    let run = server
        .bot("alice")
        .wait_spawn()
        .look(0.0, 0.0)
        .wait_ms(200)
        .chat(&format!("/emote play {GUITAR}"))
        .wait_ms(1500)
        .chat("/emote stop")
        .wait_ms(400)
        .disconnect()
        .run();
    run.assert_ok();

    // The display entities match the file's display nodes, by type and content.
    let file = guitar_json();
    let nodes = file["nodes"].as_object().expect("nodes");
    let count = |ty: &str| nodes.values().filter(|n| n["type"] == ty).count();
    for ty in ["item_display", "block_display", "text_display"] {
        assert_eq!(
            run.spawned_of(ty).len(),
            count(ty),
            "{ty}: {}",
            run.describe()
        );
    }
    assert!(run.spawned_of("item_display").len() + run.spawned_of("block_display").len() > 0);
    for spawned in run.spawned_of("block_display") {
        let fields = run.merged_fields(spawned.entity_id);
        let name = fields["block_state"]["name"]
            .as_str()
            .expect("a block state")
            .to_owned();
        let expected = nodes
            .values()
            .filter_map(|n| n["block_state_snbt"].as_str())
            .any(|snbt| snbt.contains(&format!("\"{name}\"")));
        assert!(expected, "block {name} is not in {GUITAR_FILE}");
    }
    for spawned in run.spawned_of("item_display") {
        let fields = run.merged_fields(spawned.entity_id);
        let id = fields["item"]["id"].as_str().expect("an item").to_owned();
        assert!(
            nodes
                .values()
                .filter_map(|n| n["item_stack_snbt"].as_str())
                .any(|s| s.contains(&format!("\"{id}\""))),
            "item {id} is not in {GUITAR_FILE}"
        );
    }
    for spawned in run.spawned_of("text_display") {
        let fields = run.merged_fields(spawned.entity_id);
        let text = fields["text"].as_str().expect("a text").to_owned();
        assert!(
            nodes
                .values()
                .any(|n| n["text"].to_string().contains(&text)),
            "text {text:?}"
        );
    }

    // Every transformation received is the sampled pose at some tick, in order,
    // for one of the file's display nodes (the bot faced yaw 0, so the root is not turned).
    let sample = sampled(GUITAR_FILE, 40);
    let mut moving = 0;
    let mut stretched = 0;
    for spawned in run.spawned().iter().filter(|s| {
        s.entity_type
            .as_deref()
            .is_some_and(|t| t.ends_with("_display"))
    }) {
        let updates = display_updates(&run, spawned.entity_id);
        // A node that does not move gets its pose once and nothing more.
        assert!(
            !updates.is_empty(),
            "entity {} got no transformation",
            spawned.entity_id
        );
        if updates.len() >= 3 {
            moving += 1;
        }
        if run
            .metadata_of(spawned.entity_id)
            .iter()
            .any(|m| m.int("interpolation_duration").is_some_and(|d| d > 1))
        {
            stretched += 1;
        }
        let matching: Vec<&String> = sample
            .iter()
            .filter(|(id, poses)| {
                nodes[id.as_str()]["type"].as_str() == spawned.entity_type.as_deref()
                    && follows_sample(&updates, poses)
            })
            .map(|(id, _)| id)
            .collect();
        assert!(
            !matching.is_empty(),
            "entity {} ({:?}) matches no node's sampled poses",
            spawned.entity_id,
            spawned.entity_type
        );
        // Each update re-arms the client's interpolation: start 0, and the
        // duration the client holds (sent when it changes, kept after) is
        // at least one tick: one for per-tick motion, longer for a stretch
        // the client interpolates by itself (the scheduler).
        // Only changed fields are sent, so the spawn packet's and earlier
        // values carry over.
        let mut duration = None;
        for meta in run.metadata_of(spawned.entity_id) {
            duration = meta.int("interpolation_duration").or(duration);
            if let Some(start) = meta.int("start_interpolation") {
                assert_eq!(start, 0);
                assert!(duration.is_some_and(|d| d >= 1), "{duration:?}");
            } else {
                assert!(
                    meta.vec3("translation").is_none() || duration.is_none(),
                    "a transformation changed without re-arming the interpolation"
                );
            }
        }
    }

    assert!(moving >= 2, "only {moving} displays were animated");
    // The scheduler sent some motion as one update over several ticks.
    assert!(stretched >= 1, "no update covered more than one tick");

    // `/emote stop` removes every display.
    let destroyed = run.destroyed();
    for spawned in run.spawned().iter().filter(|s| {
        s.entity_type
            .as_deref()
            .is_some_and(|t| t.ends_with("_display"))
    }) {
        assert!(
            destroyed.contains(&spawned.entity_id),
            "entity {} was not destroyed",
            spawned.entity_id
        );
    }
    assert!(
        run.action_bar().contains(&"Guitar · /emote stop"),
        "{:?}",
        run.action_bar()
    );
    server.assert_log_clean();
}

#[test]
fn another_player_sees_the_emote_and_sees_it_vanish_when_the_player_leaves() {
    let mut server = Server::start();
    let bob = server
        .bot("bob")
        .wait_spawn()
        .wait_for_since_start(
            json!({"event": "spawn_entity", "type": "block_display"}),
            1,
            20_000,
        )
        .wait_for(json!({"event": "entity_destroy"}), 1, 20_000)
        .wait_ms(300)
        .disconnect()
        .spawn();
    let alice = server
        .bot("alice")
        .wait_spawn()
        .wait_for_since_start(
            json!({"event": "spawn_entity", "username": "bob"}),
            1,
            20_000,
        )
        .wait_ms(300)
        .chat(&format!("/emote play {GUITAR}"))
        .wait_ms(1000)
        .disconnect()
        .run();
    alice.assert_ok();
    let bob = bob.wait();
    bob.assert_ok();
    let displays: Vec<i32> = bob.display_ids();
    let expected = guitar_json()["nodes"]
        .as_object()
        .expect("nodes")
        .values()
        .filter(|n| n["type"] != "anchor")
        .count();
    assert_eq!(displays.len(), expected, "{}", bob.describe());
    let destroyed = bob.destroyed();
    for id in &displays {
        assert!(
            destroyed.contains(id),
            "display {id} left behind after alice disconnected: {}",
            bob.describe()
        );
    }
    server.assert_log_clean();
}

#[test]
fn jumping_stops_an_emote_that_asks_for_it() {
    let mut server = Server::start();
    let run = server
        .bot("jumper")
        .wait_spawn()
        .chat(&format!("/emote play {GUITAR}"))
        .wait_ms(800)
        .set_control("jump", true)
        .wait_ms(600)
        .clear_controls()
        .wait_ms(300)
        .disconnect()
        .run();
    run.assert_ok();
    assert!(
        run.action_bar().iter().any(|t| t.contains("you jumped")),
        "no jump stop message: {:?}",
        run.action_bar()
    );
    let spawned = run.spawned_of("block_display");
    assert!(!spawned.is_empty());
    let destroyed = run.destroyed();
    assert!(spawned.iter().all(|s| destroyed.contains(&s.entity_id)));
    server.assert_log_clean();
}

#[test]
fn a_second_play_inside_the_cooldown_is_refused() {
    let mut server = Server::start();
    let run = server
        .bot("eager")
        .wait_spawn()
        .chat("/emote play example:heart")
        .wait_ms(400)
        .chat("/emote stop")
        .wait_ms(200)
        .chat("/emote play example:heart")
        .wait_ms(400)
        .disconnect()
        .run();
    run.assert_ok();
    let chat = run.chat();
    assert!(chat.iter().any(|c| c.contains("on cooldown")), "{chat:?}");
    // Only the first play spawned anything: example:heart has three text displays.
    assert_eq!(
        run.spawned_of("text_display").len(),
        3,
        "{}",
        run.describe()
    );
    server.assert_log_clean();
}

#[test]
fn suggestions_and_malformed_commands_get_clear_answers() {
    let mut server = Server::start();
    let run = server
        .bot("typist")
        .wait_spawn()
        .tab_complete("/emote play example:gu")
        .tab_complete("/emote ")
        .chat("/emote")
        .chat("/emote dance")
        .chat("/emote play")
        .chat("/emote play not-an-id")
        .chat("/emote play example:nope")
        .chat("/emote play example:sit_down")
        .chat("/emote list zero")
        .chat("/emote list 99")
        .chat("/emote play example:wave someone")
        .chat("/emote reload")
        .chat("/emote stop")
        .chat("/emote info example:guitar")
        .chat(&format!("/emote {}", "x".repeat(200)))
        .wait_ms(600)
        .disconnect()
        .run();
    run.assert_ok();
    let completions = run.tab_completes();
    assert_eq!(completions.len(), 2, "{}", run.describe());
    assert!(
        completions[0].matches.iter().any(|m| m == GUITAR),
        "{:?}",
        completions[0].matches
    );
    assert!(completions[0]
        .matches
        .iter()
        .all(|m| m.starts_with("example:gu")));
    // play, stop, list, info, parts, camera, reload.
    assert_eq!(
        completions[1].matches.len(),
        7,
        "{:?}",
        completions[1].matches
    );
    assert!(completions[1].matches.iter().any(|m| m == "parts"));
    assert!(completions[1].matches.iter().any(|m| m == "camera"));
    let chat = run.chat().join("\n");
    for needle in [
        "Usage: /emote",
        "Unknown subcommand `dance`",
        "Missing emote id",
        "is not an emote id",
        "Unknown emote `example:nope`",
        "not a standalone emote",
        "not a page number",
        "There are only",
        "only play emotes on yourself",
        "needs operator permission",
        "not playing an emote",
        "Guitar (example:guitar)",
    ] {
        assert!(chat.contains(needle), "missing `{needle}` in chat:\n{chat}");
    }
    server.assert_log_clean();
}

/// The time (ms since the bot started) of the first action-bar text containing `needle`.
fn action_bar_at(run: &BotRun, needle: &str) -> Option<u64> {
    run.events.iter().find_map(|e| match e {
        common::Event::ActionBar {
            t,
            text: Some(text),
            ..
        } if text.contains(needle) => Some(*t),
        _ => None,
    })
}

#[test]
fn command_events_run_at_their_ticks() {
    let mut server = Server::start();
    // example:heart: `title @s actionbar ❤ ❤ ❤` from the player at 10t (500 ms).
    let run = server
        .bot("lover")
        .wait_spawn()
        .chat("/emote play example:heart")
        .wait_ms(1500)
        .disconnect()
        .run();
    run.assert_ok();
    let started = action_bar_at(&run, "Heart · /emote stop").expect("the play feedback");
    let hearts = action_bar_at(&run, "❤ ❤ ❤").expect("the 10t title event");
    let delay = hearts - started;
    // 10 ticks are 500 ms; a loaded CI machine may stretch ticks, never shrink them.
    assert!(
        (350..=2500).contains(&delay),
        "the 10t event came {delay} ms after the start"
    );

    // example:reference: a start title from the player; on stop a tellraw to
    // the player and a `say` from the server that everyone sees.
    let watcher = server
        .bot("watcher")
        .wait_spawn()
        .wait_for(
            json!({"event": "chat", "text_contains": "reference emote has finished"}),
            1,
            20_000,
        )
        .disconnect()
        .spawn();
    let run = server
        .bot("referee")
        .wait_spawn()
        .wait_for_since_start(
            json!({"event": "spawn_entity", "username": "watcher"}),
            1,
            20_000,
        )
        .wait_ms(300)
        .chat("/emote play example:reference")
        .wait_ms(800)
        .chat("/emote stop")
        .wait_ms(500)
        .disconnect()
        .run();
    run.assert_ok();
    assert!(
        action_bar_at(&run, "Reference emote started").is_some(),
        "{:?}",
        run.action_bar()
    );
    let chat = run.chat().join("\n");
    assert!(chat.contains("Reference emote stopped"), "{chat}");
    assert!(
        chat.contains("[Server] The reference emote has finished."),
        "{chat}"
    );
    let watcher = watcher.wait();
    watcher.assert_ok();
    assert!(
        watcher
            .chat()
            .iter()
            .all(|c| !c.contains("Reference emote stopped")),
        "tellraw @s reached only the player"
    );
    server.assert_log_clean();
}

#[test]
fn a_hidden_player_disappears_for_others_and_comes_back() {
    let mut server = Server::start();
    // example:bow sets player.hidden: the watcher sees the bower's player entity
    // go while the skinned displays stand in for it, then come back.
    let watcher = server
        .bot("watcher")
        .wait_spawn()
        .wait_for_since_start(
            json!({"event": "spawn_entity", "username": "bower"}),
            1,
            20_000,
        )
        .wait_for(json!({"event": "entity_destroy"}), 1, 20_000)
        .wait_for(
            json!({"event": "spawn_entity", "username": "bower"}),
            1,
            20_000,
        )
        .disconnect()
        .spawn();
    let run = server
        .bot("bower")
        .wait_spawn()
        // Play only once the watcher is in, so it sees the whole story.
        .wait_for_since_start(
            json!({"event": "spawn_entity", "username": "watcher"}),
            1,
            20_000,
        )
        .wait_ms(300)
        .chat("/emote play example:bow")
        .wait_ms(800)
        .chat("/emote stop")
        .wait_ms(800)
        .disconnect()
        .run();
    run.assert_ok();
    let watcher = watcher.wait();
    watcher.assert_ok();
    let bower_spawns: Vec<i32> = watcher
        .spawned()
        .iter()
        .filter(|s| s.username.as_deref() == Some("bower"))
        .map(|s| s.entity_id)
        .collect();
    assert_eq!(bower_spawns.len(), 2, "{}", watcher.describe());
    assert!(
        watcher.destroyed().contains(&bower_spawns[0]),
        "the hidden player was removed for the watcher"
    );
    assert!(
        !watcher.spawned_of("item_display").is_empty(),
        "the watcher saw the emote's displays"
    );
    server.assert_log_clean();
}

#[test]
fn a_participant_hand_display_shows_and_follows_the_held_item() {
    let dir = common::TempDir::new("hand-config");
    let config = dir.write("emoted.toml", "[permissions]\noperators = [\"holder\"]\n");
    let config = config.to_string_lossy().into_owned();
    let emotes = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let mut server = Server::start_with_args(&[emotes], &["--config", &config]);
    let run = server
        .bot("holder")
        .wait_spawn()
        .chat("/gamemode creative")
        .wait_ms(400)
        .set_slot(36, "diamond")
        .wait_ms(400)
        .chat("/emote play example:wave")
        .wait_ms(600)
        .set_slot(36, "emerald")
        .wait_ms(700)
        .disconnect()
        .run();
    run.assert_ok();
    // example:wave's hand node shows the main-hand item: first the diamond,
    // then, once it changes, the emerald.
    let shown: Vec<String> = run
        .spawned_of("item_display")
        .iter()
        .flat_map(|s| run.metadata_of(s.entity_id))
        .filter_map(|m| m.fields.get("item")?.get("id")?.as_str().map(str::to_owned))
        .filter(|id| id == "minecraft:diamond" || id == "minecraft:emerald")
        .collect();
    assert_eq!(
        shown,
        vec![
            "minecraft:diamond".to_owned(),
            "minecraft:emerald".to_owned()
        ],
        "{}",
        run.describe()
    );
    server.assert_log_clean();
}
