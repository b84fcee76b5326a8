//! A real Minecraft 1.20.1 client (mineflayer, tests/client/bot.js) joins a
//! running `emoted serve` over TCP: the spawn point, the game mode, the
//! world under its feet, chat, a clean disconnect, and two players seeing
//! each other (the entity-tracking path the emote tests build on).

mod common;

use common::{status_ping, Event, Server, PROTOCOL_1_20_1};
use serde_json::json;

const SPAWN: [f64; 3] = [0.5, 65.0, 0.5];

fn assert_near(actual: [f64; 3], expected: [f64; 3], tolerance: f64, what: &str) {
    for i in 0..3 {
        assert!(
            (actual[i] - expected[i]).abs() <= tolerance,
            "{what}: {actual:?} is not within {tolerance} of {expected:?}"
        );
    }
}

#[test]
fn a_bot_joins_spawns_on_smooth_stone_chats_and_leaves() {
    let mut server = Server::start();

    let status = status_ping(server.port).expect("server list ping");
    assert_eq!(
        status["version"]["protocol"],
        json!(PROTOCOL_1_20_1),
        "{status}"
    );

    let run = server
        .bot("alice")
        .wait_spawn()
        .block_below()
        .chat("hello from alice")
        .wait_ms(300)
        .disconnect()
        .run();
    run.assert_ok();

    let login = run.login().expect("a login packet");
    assert_eq!(login.game_mode.as_deref(), Some("survival"), "{login:?}");
    assert_eq!(login.dimension, "minecraft:overworld");

    let spawn = run.spawn().expect("a spawn event");
    assert_near([spawn.x, spawn.y, spawn.z], SPAWN, 0.01, "spawn position");
    assert_eq!(spawn.game_mode.as_deref(), Some("survival"));

    let blocks = run.blocks();
    assert_eq!(blocks.len(), 1, "{}", run.describe());
    assert_eq!([blocks[0].x, blocks[0].y, blocks[0].z], [0, 64, 0]);
    assert_eq!(
        blocks[0].name.as_deref(),
        Some("minecraft:smooth_stone"),
        "the block under the spawn point"
    );

    assert_eq!(run.kicked(), None, "{}", run.describe());
    assert!(
        run.events
            .iter()
            .all(|e| !matches!(e, Event::Error { .. } | Event::Fail { .. })),
        "{}",
        run.describe()
    );
    let end = run
        .events
        .iter()
        .find_map(|e| match e {
            Event::End { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .expect("the connection ended");
    assert_eq!(end.as_deref(), Some("disconnect.quitting"));

    // The server has seen the chat and the disconnect and is still fine.
    std::thread::sleep(std::time::Duration::from_millis(300));
    server.assert_log_clean();
    status_ping(server.port).expect("the server still answers after the bot left");
}

#[test]
fn two_bots_see_each_other_spawn() {
    let mut server = Server::start();
    let plan = |me: &str| {
        server
            .bot(me)
            .wait_spawn()
            .wait_for_since_start(json!({"event": "spawn_entity", "type": "player"}), 1, 15000)
            .wait_ms(1000)
            .disconnect()
    };
    let runs = common::run_all(vec![plan("alice"), plan("bob")]);
    for (run, other) in runs.iter().zip(["bob", "alice"]) {
        run.assert_ok();
        let spawn = run.spawn().expect("a spawn event");
        assert_near(
            [spawn.x, spawn.y, spawn.z],
            SPAWN,
            0.01,
            "own spawn position",
        );
        let players = run.spawned_of("player");
        assert_eq!(players.len(), 1, "{} saw: {players:?}", run.username);
        let p = players[0];
        assert_eq!(p.packet, "named_entity_spawn");
        assert_eq!(
            p.username.as_deref(),
            Some(other),
            "{} saw {p:?}",
            run.username
        );
        assert_near([p.x, p.y, p.z], SPAWN, 0.01, "the other player's position");
        // The other player is a different entity from our own.
        assert_ne!(Some(p.entity_id), spawn.entity_id);
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    server.assert_log_clean();
}

/// Vanilla servers send the player's health at join, and mineflayer (like
/// other clients) only fires its `spawn` event once it arrives.
#[test]
fn the_server_sends_health_at_join() {
    let server = Server::start();
    let run = server
        .bot("carol")
        .wait_spawn()
        .wait_for_since_start(json!({"event": "health"}), 1, 3000)
        .disconnect()
        .run();
    run.assert_ok();
    assert!(run
        .events
        .iter()
        .any(|e| matches!(e, Event::Health { health, .. } if *health > 0.0)));
}
