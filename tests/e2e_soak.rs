//! The issue-4 soak: ten real clients emote in turn for a minute while an
//! operator reloads the emotes twice (once with a file edited, so playbacks
//! of it stop). Afterwards a fresh client must see no display entity at all,
//! and the server log has no error or panic.

mod common;

use std::fs;
use std::time::{Duration, Instant};

use common::{Server, TempDir};

/// Standalone emotes of every playback mode (once, loop, hold, server_sync).
const EMOTES: [&str; 8] = [
    "example:wave",
    "example:guitar",
    "example:heart",
    "example:dance",
    "example:sparkle",
    "example:sit",
    "example:prop_juggle",
    "example:clock_sync",
];

const SOAK: Duration = Duration::from_secs(60);

#[test]
fn ten_players_emote_for_a_minute_through_two_reloads_and_leave_nothing_behind() {
    let emotes = TempDir::new("soak-emotes");
    let bundled = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    // The whole folder, subfolders (`walk_wave/`) included.
    common::container::copy_tree(std::path::Path::new(bundled), emotes.path());
    let dir = TempDir::new("soak-config");
    let config = dir.write("emoted.toml", "[permissions]\noperators = [\"keeper\"]\n");
    let config = config.to_string_lossy().into_owned();
    let mut server = Server::start_with_args(&[emotes.path()], &["--config", &config]);
    let started = Instant::now();

    // Each player, in turn (staggered by 600 ms), plays an emote for 2 to 4
    // seconds, stops it, and moves on to the next, until the minute is up.
    let mut players = Vec::new();
    for index in 0..10usize {
        let mut plan = server
            .bot(&format!("soak{index}"))
            .timeout_ms(120_000)
            .wait_spawn()
            .wait_ms(600 * index as u64);
        let mut elapsed_ms = 600 * index as u64;
        let mut turn = index;
        while elapsed_ms < SOAK.as_millis() as u64 - 5_000 {
            let hold_ms = 2_000 + 700 * (turn % 3) as u64;
            plan = plan
                .chat(&format!("/emote play {}", EMOTES[turn % EMOTES.len()]))
                .wait_ms(hold_ms)
                .chat("/emote stop")
                .wait_ms(400);
            elapsed_ms += hold_ms + 400;
            turn += 3;
        }
        players.push(plan.disconnect().spawn());
    }

    // The operator reloads twice. Between the reloads the guitar's file is
    // edited, so its playbacks stop (the file watcher may get there first)
    // and the rest play on.
    let keeper = server
        .bot("keeper")
        .timeout_ms(120_000)
        .wait_spawn()
        .wait_ms(20_000)
        .chat("/emote reload")
        .wait_ms(22_000)
        .chat("/emote reload")
        .wait_ms(500)
        .disconnect()
        .spawn();
    std::thread::sleep(Duration::from_secs(32).saturating_sub(started.elapsed()));
    let guitar = emotes.path().join("guitar.json");
    let text = fs::read_to_string(&guitar).expect("read");
    fs::write(
        &guitar,
        text.replacen("\"description\": \"", "\"description\": \"Soaked. ", 1),
    )
    .expect("write");

    let keeper = keeper.wait();
    keeper.assert_ok();
    let reloads = keeper
        .chat()
        .iter()
        .filter(|line| line.starts_with("Reloaded "))
        .count();
    assert!(reloads >= 2, "{:?}", keeper.chat());

    for player in players {
        let run = player.wait();
        run.assert_ok();
        assert!(
            !run.spawned_of("item_display").is_empty()
                || !run.spawned_of("block_display").is_empty(),
            "{} saw no emote at all: {}",
            run.username,
            run.describe()
        );
    }
    std::thread::sleep(Duration::from_millis(500));

    // Everyone has left: a newcomer must not receive a single display.
    let observer = server
        .bot("observer")
        .wait_spawn()
        .wait_ms(2_000)
        .disconnect()
        .run();
    observer.assert_ok();
    let left: Vec<_> = observer.display_ids();
    assert!(left.is_empty(), "displays left behind: {left:?}");
    assert!(started.elapsed() >= SOAK, "the soak ended early");
    server.assert_log_clean();
}
