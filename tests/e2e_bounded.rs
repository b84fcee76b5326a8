//! One emote file cannot stall the server: with real clients, an event
//! that calls a 100,000-line function runs no more than the configured
//! number of commands in its tick and stops its playback with the reason;
//! a `molang.tick` of three nested loops (each within Bedrock's 1,024) is
//! stopped at its operation budget while another player's commands are
//! answered at once.

mod common;

use common::{label_animation, BotRun, Event, Server, TempDir};
use serde_json::{json, Value};

#[test]
fn a_huge_function_runs_only_the_configured_commands_and_stops_its_emote() {
    let dir = TempDir::new("bounded-commands");
    dir.write(
        "pack/pack.mcmeta",
        r#"{"pack": {"pack_format": 15, "description": "a runaway function"}}"#,
    );
    let flood = label_animation(
        "e2e:flood",
        "loop",
        40,
        json!({}),
        json!([{
            "time": "2t",
            "source": {"type": "player"},
            "origin": {"type": "root"},
            "commands": ["function e2e:flood"]
        }]),
    );
    dir.write("pack/data/e2e/emotes/flood.json", &flood.to_string());
    let lines = "particle minecraft:flame ~ ~1 ~ 0 0 0 0 1\n".repeat(100_000);
    dir.write("pack/data/e2e/functions/flood.mcfunction", &lines);
    let config = dir.write("emoted.toml", "[emotes]\nmax_commands_per_tick = 100\n");
    let pack = dir.path().join("pack");
    let mut server =
        Server::start_with_args(&[pack.as_path()], &["--config", &config.to_string_lossy()]);

    let run = server
        .bot("Alice")
        .record_packets(&["world_particles"])
        .wait_spawn()
        .chat("/emote play e2e:flood")
        .wait_for(
            json!({"event": "chat", "text_contains": "Emote stopped"}),
            1,
            8000,
        )
        .wait_ms(3000)
        .chat("/emote list")
        .wait_for(
            json!({"event": "chat", "text_contains": "e2e:flood"}),
            1,
            5000,
        )
        .disconnect()
        .run();
    run.assert_ok();
    // `function` is the first of the 100; 99 of its lines run, then the cap.
    assert_eq!(
        run.packets_named("world_particles").len(),
        99,
        "{}",
        run.describe()
    );
    let stopped = run
        .chat_containing("Emote stopped")
        .first()
        .map_or("", |(_, text)| *text);
    assert!(
        stopped.contains("more than 100 commands in one tick"),
        "the player is told why: {stopped}"
    );
    assert!(
        server
            .log()
            .contains("stopped Alice's emote e2e:flood: its events ran more than 100 commands"),
        "one line in the log:\n{}",
        server.log()
    );
    assert!(server.is_running());
}

/// The latency of each `/emote list` the plan sent: from the step that
/// sent it to the first reply line after it, in milliseconds.
fn list_latencies_ms(run: &BotRun) -> Vec<u64> {
    let mut out = Vec::new();
    for (i, event) in run.events.iter().enumerate() {
        let Event::Step { t, step, .. } = event else {
            continue;
        };
        if step.get("chat").and_then(Value::as_str) != Some("/emote list") {
            continue;
        }
        let reply = run.events[i..].iter().find_map(|e| match e {
            Event::Chat { t: at, text, .. } if text.contains("e2e:nested") => Some(*at),
            _ => None,
        });
        if let Some(at) = reply {
            out.push(at - t);
        }
    }
    out
}

#[test]
fn a_nested_loop_program_is_stopped_at_its_budget_and_others_are_answered() {
    let dir = TempDir::new("bounded-molang");
    let nested = label_animation(
        "e2e:nested",
        "loop",
        40,
        json!({"tick": "loop(1024, {loop(1024, {loop(16, {v.x = v.x + 1;});});});"}),
        json!([]),
    );
    dir.write("emotes/nested.json", &nested.to_string());
    let emotes = dir.path().join("emotes");
    let mut server = Server::start_with(&[emotes.as_path()]);

    // Bob asks for the list every 400 ms while Alice starts the emote.
    let mut bob = server.bot("Bob").timeout_ms(30000).wait_spawn();
    for _ in 0..10 {
        bob = bob
            .chat("/emote list")
            .wait_for(
                json!({"event": "chat", "text_contains": "e2e:nested"}),
                1,
                15000,
            )
            .wait_ms(400);
    }
    let bob = bob.disconnect().spawn();
    let alice = server
        .bot("Alice")
        .wait_spawn()
        .wait_ms(300)
        .chat("/emote play e2e:nested")
        .wait_for(
            json!({"event": "chat", "text_contains": "Emote stopped"}),
            1,
            10000,
        )
        .wait_ms(500)
        .disconnect()
        .run();
    let bob = bob.wait();
    alice.assert_ok();
    bob.assert_ok();

    let stopped = alice
        .chat_containing("Emote stopped")
        .first()
        .map_or("", |(_, text)| *text);
    assert!(
        stopped.contains("Molang operations"),
        "the player is told why: {stopped}"
    );
    assert!(
        server.log().contains("stopped Alice's emote e2e:nested"),
        "one line in the log:\n{}",
        server.log()
    );
    // Bob's commands span Alice's start and the time after the stop (the
    // two clients' clocks are the same machine's).
    let alice_stop = alice.clock_unix_ms().unwrap_or(0)
        + alice
            .chat_containing("Emote stopped")
            .first()
            .map_or(0, |(t, _)| *t);
    let bob_last = bob.clock_unix_ms().unwrap_or(0)
        + bob
            .chat_containing("e2e:nested")
            .last()
            .map_or(0, |(t, _)| *t);
    assert!(
        bob_last > alice_stop + 1000,
        "Bob was still answered well after the stop (recovered): {bob_last} vs {alice_stop}"
    );
    let latencies = list_latencies_ms(&bob);
    assert_eq!(
        latencies.len(),
        10,
        "every command answered: {}",
        bob.describe()
    );
    assert!(
        latencies.iter().all(|&ms| ms <= 250),
        "Bob's commands are answered within 250 ms while Alice's emote starts: {latencies:?}"
    );
    assert!(server.is_running());
}
