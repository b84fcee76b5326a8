//! Stopping the server as an admin does: SIGTERM, or `stop` typed on the
//! console, while a player plays an emote ends it, tells the player with
//! vanilla's shutdown message, exits 0 within 5 s with one log line, and a
//! favourite toggled just before is there after a restart on the same
//! store. The server list shows `[server] motd`.

mod common;

use std::time::Duration;

use common::{status_ping, Server, TempDir};

#[test]
fn sigterm_ends_the_emotes_tells_the_players_and_exits_clean() {
    stop_while_dancing(false, "SIGTERM", |server| server.signal("TERM"));
}

#[test]
fn the_consoles_stop_ends_the_emotes_tells_the_players_and_exits_clean() {
    stop_while_dancing(true, "the console's stop", |server| {
        server.console("stop");
        assert!(
            server.wait_for_log("Stopping the server", Duration::from_secs(5)),
            "the console answers: {}",
            server.log()
        );
    });
}

/// Dave favourites an emote, dances, and `stop` (named `reason` in the log)
/// stops the server (started with a console when `console`).
fn stop_while_dancing(console: bool, reason: &str, stop: impl FnOnce(&mut common::Server)) {
    let data = TempDir::new("shutdown-store");
    let folder = data.path().join("data");
    let folder_arg = folder.to_string_lossy().into_owned();
    let dir = TempDir::new("shutdown-config");
    let config = dir.write("emoted.toml", "[server]\nmotd = \"Emotes by the lake\"\n");
    let config = config.to_string_lossy().into_owned();
    let args = [
        "--data-folder",
        folder_arg.as_str(),
        "--config",
        config.as_str(),
    ];
    let emotes = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let mut server = if console {
        Server::start_with_console(&[emotes], &args)
    } else {
        Server::start_with_args(&[emotes], &args)
    };
    let status = status_ping(server.port).expect("a status").to_string();
    assert!(status.contains("Emotes by the lake"), "{status}");
    // Dave favourites the Bow on the wheel (right-click, ring slot 4), then
    // dances (a loop) until the server stops.
    let dave = server
        .bot("dave")
        .wait_spawn()
        .chat("/emote")
        .wait_wheel_items(3000)
        .click_wheel(4, 1, 0)
        .wait_wheel_items(3000)
        .wait_ms(200)
        .close_wheel()
        .wait_ms(200)
        .play_until_kicked("example:dance")
        .spawn();
    // Joined, favourited and dancing by then (the bot needs about 3 s).
    std::thread::sleep(Duration::from_secs(7));
    let asked = std::time::Instant::now();
    stop(&mut server);
    let (exit, _) = server
        .wait_exit(Duration::from_secs(10))
        .expect("the server exits after the stop");
    let took = asked.elapsed();
    assert!(exit.success(), "exit status {exit}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
    let log = server.log();
    assert!(
        log.contains(&format!(
            "stopping ({reason}): 1 players told, 1 playbacks ending"
        )),
        "{log}"
    );
    assert!(log.contains("emoted stopped in"), "{log}");
    assert!(log.contains("the player store closed"), "{log}");
    let dave = dave.wait();
    dave.assert_ok();
    assert_eq!(dave.kicked(), Some("Server closed"), "{}", dave.describe());
    // The dance's displays reached dave before the stop.
    assert!(!dave.display_ids().is_empty());

    // Restarted on the same store: the favourite is there.
    let server = Server::start_with_args(&[emotes], &args);
    let again = server
        .bot("dave")
        .wait_spawn()
        .chat("/emote")
        .wait_wheel_items(3000)
        .close_wheel()
        .wait_ms(200)
        .disconnect()
        .run();
    again.assert_ok();
    let title = again.windows_opened()[0].title.clone().unwrap_or_default();
    assert!(title.contains("Favourites 1/1"), "{title}");
}
