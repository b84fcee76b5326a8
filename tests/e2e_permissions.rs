//! Permissions, admin commands and command rate limits with real clients:
//! a player who is not an operator is refused `/emote reload`, `/gamemode`
//! and `/tp` and a VIP-only emote; the VIP group plays it; an operator
//! listed in the configuration changes game mode and teleports; spamming
//! commands gets "Slow down", and reconnecting does not refill the bucket.

mod common;

use std::fs;

use common::{run_all, Event, Server, TempDir};
use serde_json::json;

/// Players stand on the flat world's grass at y 64 + 1 (`world::SURFACE_Y`).
const STAND_Y: f64 = 65.0;

const CONFIG: &str = r#"
[permissions]
operators = ["Admin"]

[permissions.groups.vip]
players = ["Vip"]
nodes = ["emote.play.vip"]

[[permissions.emote_groups]]
emotes = ["example:gui*"]
node = "emote.play.vip"
"#;

#[test]
fn permissions_admin_commands_and_rate_limits_with_real_clients() {
    let dir = TempDir::new("permissions-config");
    let path = dir.path().join("emoted.toml");
    fs::write(&path, CONFIG).expect("write");
    let config = path.to_string_lossy().into_owned();
    let mut server = Server::start_with_args(&["emotes"], &["--config", &config]);

    let mut guest = server
        .bot("Guest")
        .wait_spawn()
        .chat("/emote reload")
        .chat("/gamemode creative")
        .chat("/tp 3 65 3")
        .chat("/emote play example:guitar")
        .tab_complete("/emote play example:gu")
        .wait_ms(300);
    for _ in 0..30 {
        guest = guest.chat("/emote list");
    }
    let guest = guest.wait_ms(600).disconnect();

    let vip = server
        .bot("Vip")
        .wait_spawn()
        .tab_complete("/emote play example:gu")
        .chat("/emote play example:guitar")
        .wait_for(
            json!({"event": "spawn_entity", "type": "block_display"}),
            1,
            5000,
        )
        .chat("/emote stop")
        .wait_ms(300)
        .disconnect();

    let admin = server
        .bot("Admin")
        .wait_spawn()
        .chat("/gamemode creative")
        .wait_for(
            json!({"event": "game_mode", "game_mode": "creative"}),
            1,
            5000,
        )
        .chat("/tp 3 65 3")
        .wait_for(
            json!({"event": "teleport", "x": 3.5, "y": STAND_Y, "z": 3.5}),
            1,
            5000,
        )
        .chat("/tp ~1 ~ ~-2")
        .wait_for(
            json!({"event": "teleport", "x": 4.5, "y": STAND_Y, "z": 1.5}),
            1,
            5000,
        )
        .position()
        .chat("/gamemode flying")
        .chat("/tp Nobody")
        .wait_ms(300)
        .disconnect();

    let runs = run_all(vec![guest, vip, admin]);
    for run in &runs {
        run.assert_ok();
    }
    let (guest, vip, admin) = (&runs[0], &runs[1], &runs[2]);

    // The guest: every refusal names what is missing, nothing happens.
    let chat = guest.chat().join("\n");
    for needle in [
        "Reloading emotes needs operator permission (operator level 2 or the node emote.manage)",
        "/gamemode needs operator permission (operator level 2 or the node minecraft.command.gamemode)",
        "/tp needs operator permission (operator level 2 or the node minecraft.command.teleport)",
        "You may not play `example:guitar`: it needs the permission node emote.play.vip",
        "Slow down:",
    ] {
        assert!(chat.contains(needle), "missing `{needle}` in:\n{chat}");
    }
    assert!(
        !guest
            .events
            .iter()
            .any(|e| matches!(e, Event::GameMode { .. })),
        "{}",
        guest.describe()
    );
    // (The guest may see the VIP's guitar; its own never starts.)
    assert!(
        !guest
            .action_bar()
            .iter()
            .any(|t| t.ends_with("/emote stop")),
        "{}",
        guest.describe()
    );
    let lists = guest
        .chat()
        .iter()
        .filter(|c| c.starts_with("Emotes (page"))
        .count();
    let slowed = guest
        .chat()
        .iter()
        .filter(|c| c.starts_with("Slow down:"))
        .count();
    assert_eq!(lists + slowed, 30, "{chat}");
    assert!(
        slowed >= 10,
        "30 commands at once with a burst of 15: {slowed} refused"
    );
    assert!(
        guest
            .chat()
            .iter()
            .filter(|c| c.starts_with("Emotes (page"))
            .all(|list| !list.contains("example:guitar")),
        "the list hides the VIP emote"
    );
    let completions = guest.tab_completes();
    assert_eq!(completions.len(), 1, "{}", guest.describe());
    assert!(
        completions[0].matches.is_empty(),
        "{:?}",
        completions[0].matches
    );

    // The VIP group may play it (the plan waited for its displays), and
    // sees it in suggestions.
    assert!(vip.action_bar().contains(&"Guitar · /emote stop"));
    assert!(vip.tab_completes()[0]
        .matches
        .iter()
        .any(|m| m == "example:guitar"));

    // The operator from the configuration.
    let chat = admin.chat().join("\n");
    assert!(chat.contains("Game mode set to creative."), "{chat}");
    assert!(
        chat.contains("Teleported you to 3.50, 65.00, 3.50."),
        "{chat}"
    );
    assert!(chat.contains("`flying` is not a game mode"), "{chat}");
    assert!(
        chat.contains("No player named `Nobody` is online."),
        "{chat}"
    );
    let position = admin
        .events
        .iter()
        .find_map(|e| match e {
            Event::BotPosition(p) => Some(p.clone()),
            _ => None,
        })
        .expect("a position");
    assert!(
        (position.x - 4.5).abs() < 0.01 && (position.z - 1.5).abs() < 0.01,
        "{position:?}"
    );
    server.assert_log_clean();
}

/// Slow limits: 5 commands at once, one more every 5 seconds.
const SLOW_CONFIG: &str = r#"
[commands]
rate_per_second = 0.2
burst = 5
"#;

#[test]
fn a_player_who_reconnects_finds_their_command_bucket_as_they_left_it() {
    let dir = TempDir::new("rate-config");
    let path = dir.path().join("emoted.toml");
    fs::write(&path, SLOW_CONFIG).expect("write");
    let config = path.to_string_lossy().into_owned();
    let mut server = Server::start_with_args(&["emotes"], &["--config", &config]);
    let slowed = |run: &common::BotRun| {
        run.chat()
            .iter()
            .filter(|c| c.starts_with("Slow down:"))
            .count()
    };
    let mut first = server.bot("Spammer").wait_spawn();
    for _ in 0..8 {
        first = first.chat("/emote list");
    }
    let first = first.wait_ms(500).disconnect().run();
    first.assert_ok();
    assert!(slowed(&first) >= 3, "{}", first.chat().join("\n"));
    // Back at once: the bucket is still (nearly) empty. A new one would
    // let all three through.
    let mut again = server.bot("Spammer").wait_spawn();
    for _ in 0..3 {
        again = again.chat("/emote list");
    }
    let again = again.wait_ms(500).disconnect().run();
    again.assert_ok();
    assert!(slowed(&again) >= 2, "{}", again.chat().join("\n"));
    server.assert_log_clean();
}
