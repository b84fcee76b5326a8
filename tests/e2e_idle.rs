//! Idle emotes with real clients, on a server whose only emote group plays
//! the bundled sit after 2 s of quiet: it does not start at half the
//! delay, it starts after it, and moving or looking around stops it (the
//! displays go, the player reads why); a player who already plays an emote
//! keeps it however long they stand still.

mod common;

use common::{BotRun, Event, Server, SpawnEntity, TempDir};
use serde_json::json;

/// The test configuration: every player's idle emote is the sit, after 2 s.
const CONFIG: &str = r#"
[[permissions.emote_groups]]
idle = { delay = "2s", emotes = ["example:sit"] }
"#;

/// Display entities spawned at `spot` (x and z of the player's feet).
fn displays_at<'a>(
    events: impl IntoIterator<Item = &'a Event>,
    spot: [f64; 2],
) -> Vec<&'a SpawnEntity> {
    events
        .into_iter()
        .filter_map(|e| match e {
            Event::SpawnEntity(s) => Some(s),
            _ => None,
        })
        .filter(|s| {
            s.entity_type
                .as_deref()
                .is_some_and(|t| t.ends_with("_display"))
        })
        .filter(|s| (s.x - spot[0]).abs() < 1.0 && (s.z - spot[1]).abs() < 1.0)
        .collect()
}

/// Asserts the idle sit started at `spot` after step `quiet_step` (during
/// which nothing spawned there), was stopped with `reason` in the action
/// bar, and left no display behind.
fn assert_idle_stopped(run: &BotRun, quiet_step: usize, spot: [f64; 2], reason: &str) {
    run.assert_ok();
    assert!(
        displays_at(run.during_step(quiet_step), spot).is_empty(),
        "an idle emote started before its delay: {}",
        run.describe()
    );
    let spawned = displays_at(run.since_step(quiet_step + 1), spot);
    assert!(
        spawned
            .iter()
            .filter(|s| s.entity_type.as_deref() == Some("block_display"))
            .count()
            >= 3,
        "the sit (chair, cushion, lantern) never spawned: {}",
        run.describe()
    );
    let destroyed = run.destroyed();
    assert!(
        spawned.iter().all(|s| destroyed.contains(&s.entity_id)),
        "displays left behind: {}",
        run.describe()
    );
    let bar = run.action_bar();
    assert!(
        bar.iter().any(|t| t.contains(reason)),
        "no `{reason}` in the action bar: {bar:?}"
    );
}

#[test]
fn an_idle_emote_starts_after_the_delay_and_stops_when_the_player_moves_or_looks() {
    let dir = TempDir::new("idle-config");
    let config = dir.write("emoted.toml", CONFIG);
    let config = config.to_string_lossy().into_owned();
    let emotes = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let mut server = Server::start_with_args(&[emotes], &["--config", &config]);
    let playing = json!({"event": "action_bar", "text_contains": "Sit · /emote stop"});

    // Stands still, then walks off.
    let sitter = server
        .bot("sitter")
        .wait_spawn() // 0
        .move_to(-2.5, 65.0, -6.5) // 1
        .wait_ms(1000) // 2: half the delay
        .wait_for(playing.clone(), 1, 8000) // 3
        .wait_ms(500)
        .set_control("forward", true)
        .wait_for_since_start(
            json!({"event": "action_bar", "text_contains": "stopped: you moved"}),
            1,
            5000,
        )
        .clear_controls()
        .wait_ms(300)
        .disconnect()
        .spawn();
    // Stands still, then turns its head: only idle emotes stop for that.
    let looker = server
        .bot("looker")
        .wait_spawn() // 0
        .move_to(-2.5, 65.0, 6.5) // 1
        .wait_ms(1000) // 2
        .wait_for(playing.clone(), 1, 8000) // 3
        .wait_ms(500)
        .look(90.0, 0.0)
        .wait_for_since_start(
            json!({"event": "action_bar", "text_contains": "you looked around"}),
            1,
            5000,
        )
        .wait_ms(300)
        .disconnect()
        .spawn();
    // Plays the looping guitar and stands still past the delay.
    let busy = server
        .bot("busy")
        .wait_spawn() // 0
        .move_to(4.5, 65.0, -6.5) // 1
        .chat("/emote play example:guitar") // 2
        .wait_ms(800) // 3
        .wait_ms(3200) // 4: the delay and more, standing still
        .disconnect()
        .run();

    assert_idle_stopped(&sitter.wait(), 2, [-2.5, -6.5], "Sit stopped: you moved");
    assert_idle_stopped(
        &looker.wait(),
        2,
        [-2.5, 6.5],
        "Sit stopped: you looked around",
    );

    busy.assert_ok();
    let spot = [4.5, -6.5];
    let guitar = displays_at(busy.during_step(3), spot);
    assert!(
        !guitar.is_empty(),
        "the guitar never started: {}",
        busy.describe()
    );
    let quiet = busy.during_step(4);
    assert!(
        displays_at(quiet, spot).is_empty(),
        "something spawned over the guitar: {}",
        busy.describe()
    );
    let destroyed: Vec<i32> = quiet
        .iter()
        .flat_map(|e| match e {
            Event::EntityDestroy { entity_ids, .. } => entity_ids.clone(),
            _ => Vec::new(),
        })
        .collect();
    assert!(
        guitar.iter().all(|s| !destroyed.contains(&s.entity_id)),
        "the guitar was replaced or stopped: {}",
        busy.describe()
    );
    assert!(
        !quiet
            .iter()
            .any(|e| matches!(e, Event::ActionBar { text: Some(t), .. } if t.contains("Sit · /emote stop"))),
        "an idle emote started: {}",
        busy.describe()
    );
    server.assert_log_clean();
}
