//! A real 1.20.1 client (mineflayer) plays an emote whose timeline events
//! run emoted's own commands: `playsound`, `particle`, `function` (from a
//! datapack, nested, and one that recurses until the depth limit), `tp`,
//! `gamemode`, `stopsound` and `emote stop`; the client must receive each
//! effect as a packet.

mod common;

use common::{label_animation, Event, Server, TempDir};
use serde_json::{json, Value};

const EMOTE_ID: &str = "e2e:dispatch";

/// One timeline event from the player, at its feet.
fn player_event(time: &str, commands: &[&str]) -> Value {
    json!({
        "time": time,
        "source": {"type": "player"},
        "origin": {"type": "root"},
        "commands": commands,
    })
}

fn emote_file() -> Value {
    let events = json!([
        player_event("2t", &[
            "playsound minecraft:block.note_block.bell player @s ~ ~ ~ 1 1.5",
            "particle minecraft:heart ~ ~2 ~ 0.3 0.3 0.3 0 5",
        ]),
        {
            "time": "4t",
            "source": {"type": "server"},
            "origin": {"type": "root"},
            "commands": ["function e2e:greet", "function e2e:forever"]
        },
        player_event("6t", &["tp @s ~ ~ ~2", "gamemode creative"]),
        player_event("8t", &["stopsound @a player"]),
        player_event("10t", &["emote stop"]),
    ]);
    label_animation(EMOTE_ID, "once", 80, json!({}), events)
}

/// A datapack with the emote and its functions, in a fresh folder.
fn datapack() -> TempDir {
    let dir = TempDir::new("dispatch");
    dir.write(
        "pack/pack.mcmeta",
        r#"{"pack": {"pack_format": 15, "description": "e2e dispatch"}}"#,
    );
    dir.write(
        "pack/data/e2e/emotes/dispatch.json",
        &serde_json::to_string_pretty(&emote_file()).expect("json"),
    );
    dir.write(
        "pack/data/e2e/functions/greet.mcfunction",
        "# Greets everyone, then calls another function.\n\nsay Hello from a function\nfunction e2e:inner/nested\n",
    );
    dir.write(
        "pack/data/e2e/functions/inner/nested.mcfunction",
        "say nested hello\n",
    );
    dir.write(
        "pack/data/e2e/functions/forever.mcfunction",
        "function e2e:forever\n",
    );
    dir
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 0.01)
}

#[test]
fn event_commands_reach_the_client() {
    let pack = datapack();
    let check = std::process::Command::new(env!("CARGO_BIN_EXE_emoted"))
        .arg("check")
        .arg(pack.path())
        .output()
        .expect("emoted check runs");
    assert!(
        check.status.success(),
        "the test datapack is not valid:\n{}",
        String::from_utf8_lossy(&check.stdout)
    );

    let mut server = Server::start_with(&[pack.path()]);
    let run = server
        .bot("conductor")
        .record_packets(&["sound_effect", "world_particles", "stop_sound"])
        .wait_spawn()
        .chat(&format!("/emote play {EMOTE_ID}"))
        .wait_for(
            json!({"event": "game_mode", "game_mode": "creative"}),
            1,
            10_000,
        )
        .wait_for(
            json!({"event": "action_bar", "text": format!("{EMOTE_ID} stopped: a command stopped it")}),
            1,
            10_000,
        )
        .wait_ms(300)
        .disconnect()
        .run();
    run.assert_ok();
    let spawn = run.spawn().expect("spawned").clone();

    // playsound: sent by name to the player, at its feet (1/8 block units).
    let sounds = run.packets_named("sound_effect");
    let bell = sounds
        .iter()
        .find(|d| d.to_string().contains("block.note_block.bell"))
        .unwrap_or_else(|| panic!("no bell sound: {sounds:?}\n{}", run.describe()));
    assert!(close(bell["volume"].as_f64(), 1.0), "{bell}");
    assert!(close(bell["pitch"].as_f64(), 1.5), "{bell}");
    assert!(
        close(bell["x"].as_f64().map(|x| x / 8.0), spawn.x.floor())
            || close(bell["x"].as_f64().map(|x| x / 8.0), spawn.x),
        "{bell}"
    );

    // particle: a heart (1.20.1 id 38) two blocks above the feet, five of them.
    let particles = run.packets_named("world_particles");
    let heart = particles
        .iter()
        .find(|d| d["particleId"].as_i64() == Some(38))
        .unwrap_or_else(|| panic!("no heart particle: {particles:?}"));
    assert!(close(heart["y"].as_f64(), spawn.y + 2.0), "{heart}");
    assert!(close(heart["x"].as_f64(), spawn.x), "{heart}");
    assert_eq!(heart["particles"].as_i64(), Some(5), "{heart}");

    // function: the datapack's lines ran, nested too, from the server.
    let chat = run.chat().join("\n");
    assert!(chat.contains("[Server] Hello from a function"), "{chat}");
    assert!(chat.contains("[Server] nested hello"), "{chat}");
    let hello = chat.find("Hello from a function").unwrap_or(0);
    let nested = chat.find("nested hello").unwrap_or(0);
    assert!(hello < nested, "the lines run in order: {chat}");

    // tp @s ~ ~ ~2: a position packet two blocks south of where the emote began.
    let moved = run.events.iter().any(|e| {
        matches!(e, Event::Teleport { x, y, z, .. }
            if (x - spawn.x).abs() < 0.01 && (y - spawn.y).abs() < 0.01 && (z - (spawn.z + 2.0)).abs() < 0.01)
    });
    assert!(moved, "no teleport to z+2:\n{}", run.describe());

    // gamemode creative arrived (the plan waited for it); stopsound too.
    assert!(
        !run.packets_named("stop_sound").is_empty(),
        "no stop_sound packet"
    );

    // emote stop from the event ended the playback early (the timeline is 80t).
    assert!(
        run.action_bar()
            .iter()
            .any(|t| *t == format!("{EMOTE_ID} stopped: a command stopped it")),
        "{:?}",
        run.action_bar()
    );

    // The self-calling function hit the depth limit: one warning, no panic.
    assert!(
        server.wait_for_log("nests deeper than 16", std::time::Duration::from_secs(5)),
        "{}",
        server.log()
    );
    let warnings: Vec<String> = server
        .log_lines_at("WARN")
        .into_iter()
        .filter(|l| l.contains("emote command"))
        .collect();
    assert_eq!(
        warnings.len(),
        1,
        "only the depth limit warns: {warnings:#?}"
    );
    server.assert_log_clean();
}
