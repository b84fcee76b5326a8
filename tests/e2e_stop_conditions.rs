//! The stop conditions with real clients: walking past the distance, eyes
//! in the pool, hitting and being hit (the default server's melee PvP), and
//! a game mode change. Each bot plays the bundled looping guitar, whose file
//! turns every condition on, and must see its own emote end with the
//! condition's reason and every display it got destroyed.

mod common;

use common::{BotRun, Event, Server, TempDir};
use serde_json::json;

const GUITAR: &str = "example:guitar";

/// Asserts the bot's own emote (its displays spawned at `spot`, x and z)
/// stopped for `reason` and every one of those displays was destroyed.
fn assert_stopped_by(run: &BotRun, reason: &str, spot: [f64; 2]) {
    run.assert_ok();
    let bar = run.action_bar();
    assert!(
        bar.iter().any(|t| t.contains(reason)),
        "no `{reason}` stop in the action bar: {bar:?}\n{}",
        run.describe()
    );
    let spawned: Vec<_> = run
        .spawned_of("block_display")
        .into_iter()
        .filter(|s| (s.x - spot[0]).abs() < 0.7 && (s.z - spot[1]).abs() < 0.7)
        .collect();
    assert!(
        !spawned.is_empty(),
        "the emote never started: {}",
        run.describe()
    );
    let destroyed = run.destroyed();
    assert!(
        spawned.iter().all(|s| destroyed.contains(&s.entity_id)),
        "displays left behind: {}",
        run.describe()
    );
}

#[test]
fn each_condition_stops_the_emote_that_asks_for_it() {
    let dir = TempDir::new("stop-config");
    // No emote camera: it seats the player (no walking) and makes clicks
    // do nothing. These are the conditions of a player who plays without
    // one; e2e_camera has the jump key of a seated one.
    let config = dir.write(
        "emoted.toml",
        "[permissions]\noperators = [\"Moder\"]\n[camera]\nenabled = false\n",
    );
    let config = config.to_string_lossy().into_owned();
    let emotes = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let mut server = Server::start_with_args(&[emotes], &["--config", &config]);

    // Walks 3 blocks west after starting (the guitar allows 0.2).
    let walker = server
        .bot("walker")
        .wait_spawn()
        .move_to(-2.5, 65.0, -6.5)
        .chat(&format!("/emote play {GUITAR}"))
        .wait_ms(800)
        .move_to(-5.5, 65.0, -6.5)
        .wait_ms(600)
        .disconnect()
        .spawn();
    // Stands in the pool (two blocks deep) and then plays: eyes under water.
    let swimmer = server
        .bot("swimmer")
        .wait_spawn()
        .move_to(11.5, 65.0, 0.5)
        .wait_ms(1500)
        .chat(&format!("/emote play {GUITAR}"))
        .wait_ms(1200)
        .disconnect()
        .spawn();
    // An operator who switches to creative mid-emote.
    let moder = server
        .bot("moder")
        .wait_spawn()
        .move_to(-2.5, 65.0, 6.5)
        .chat(&format!("/emote play {GUITAR}"))
        .wait_ms(800)
        .chat("/gamemode creative")
        .wait_ms(800)
        .disconnect()
        .spawn();
    // The victim plays and waits to be hit; the hitter plays too, so hitting
    // stops the hitter's emote ("attacked") and the victim's ("damage").
    let victim = server
        .bot("victim")
        .wait_spawn()
        .move_to(4.5, 65.0, -6.5)
        .look(90.0, 0.0)
        .chat(&format!("/emote play {GUITAR}"))
        .wait_for(
            json!({"event": "action_bar", "text_contains": "stopped"}),
            1,
            20_000,
        )
        .wait_ms(300)
        .disconnect()
        .spawn();
    let hitter = server
        .bot("hitter")
        .wait_spawn()
        .move_to(2.5, 65.0, -6.5)
        .wait_for_since_start(
            json!({"event": "spawn_entity", "username": "victim"}),
            1,
            20_000,
        )
        .wait_ms(1500)
        .chat(&format!("/emote play {GUITAR}"))
        .wait_ms(800)
        .attack("victim")
        .wait_ms(800)
        .disconnect()
        .run();

    assert_stopped_by(&hitter, "Guitar stopped: you attacked", [2.5, -6.5]);
    assert_stopped_by(&victim.wait(), "Guitar stopped: you were hit", [4.5, -6.5]);
    assert_stopped_by(&walker.wait(), "you moved", [-2.5, -6.5]);
    assert_stopped_by(&swimmer.wait(), "you went under water", [11.5, 0.5]);
    let moder = moder.wait();
    assert!(
        moder
            .events
            .iter()
            .any(|e| matches!(e, Event::GameMode { game_mode: Some(m), .. } if m == "creative")),
        "no game mode change arrived: {}",
        moder.describe()
    );
    assert_stopped_by(&moder, "your game mode changed", [-2.5, 6.5]);
    server.assert_log_clean();
}
