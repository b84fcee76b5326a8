//! `config/emoted.toml` as an admin uses it: a bad file stops the server with
//! the option named, the display-entity cap refuses a playback before it
//! spawns anything, and an operator's `/emote reload` keeps the last good
//! version of a file that broke.

mod common;

use std::fs;
use std::process::Command;

use common::{Server, TempDir};
use serde_json::json;

#[test]
fn a_bad_config_stops_the_server_naming_the_option() {
    let dir = TempDir::new("bad-config");
    let path = dir.path().join("emoted.toml");
    for (text, option) in [
        ("[server]\nview_distance = 99\n", "server.view_distance"),
        ("[emotes]\nmax_displays = 3\n", "max_displays"),
    ] {
        fs::write(&path, text).expect("write");
        let out = Command::new(env!("CARGO_BIN_EXE_emoted"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["serve", "--config"])
            .arg(&path)
            .output()
            .expect("runs");
        assert!(!out.status.success(), "{text}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(option), "{text}: {stderr}");
    }
}

#[test]
fn the_display_cap_refuses_before_spawning() {
    let dir = TempDir::new("cap-config");
    let path = dir.path().join("emoted.toml");
    fs::write(&path, "[emotes]\nmax_active_display_entities = 3\n").expect("write");
    let config = path.to_string_lossy().into_owned();
    let mut server = Server::start_with_args(&["emotes"], &["--config", &config]);
    let run = server
        .bot("crowded")
        .wait_spawn()
        .chat("/emote play example:guitar")
        .chat("/emote play example:heart")
        .wait_ms(600)
        .disconnect()
        .run();
    run.assert_ok();
    let chat = run.chat().join("\n");
    assert!(chat.contains("too many emote entities"), "{chat}");
    // The guitar (7 displays) never spawned; the heart (3 displays) fits.
    assert!(
        run.spawned_of("block_display").is_empty(),
        "{}",
        run.describe()
    );
    assert_eq!(
        run.spawned_of("text_display").len(),
        3,
        "{}",
        run.describe()
    );
    server.assert_log_clean();
}

#[test]
fn an_operator_reload_keeps_the_last_good_version_of_a_broken_file() {
    let emotes = TempDir::new("reload-emotes");
    let heart = emotes.path().join("heart.json");
    fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/emotes/heart.json"),
        &heart,
    )
    .expect("copy");
    let dir = TempDir::new("reload-config");
    let config = dir.path().join("emoted.toml");
    fs::write(&config, "[permissions]\noperators = [\"Admin\"]\n").expect("write");
    let config = config.to_string_lossy().into_owned();
    let mut server = Server::start_with_args(&[emotes.path()], &["--config", &config]);

    // The file breaks after the server loaded it.
    let text = fs::read_to_string(&heart).expect("read");
    fs::write(&heart, text.replace("\"duration\"", "\"durration\"")).expect("write");

    let run = server
        .bot("admin")
        .wait_spawn()
        .chat("/emote reload")
        .wait_ms(300)
        .chat("/emote play example:heart")
        .wait_ms(600)
        .disconnect()
        .run();
    run.assert_ok();
    let chat = run.chat().join("\n");
    assert!(chat.contains("1 kept at their last good version"), "{chat}");
    assert!(
        chat.contains("heart.json: /timeline/durration: unknown field `durration`"),
        "{chat}"
    );
    assert_eq!(
        run.spawned_of("text_display").len(),
        3,
        "the old heart still plays: {}",
        run.describe()
    );

    // A player who is not an operator may not reload.
    let run = server
        .bot("guest")
        .wait_spawn()
        .chat("/emote reload")
        .wait_ms(300)
        .disconnect()
        .run();
    assert!(run
        .chat()
        .iter()
        .any(|c| c.contains("needs operator permission")));
    server.assert_log_clean();
}

#[test]
fn the_file_watcher_stops_playbacks_of_a_changed_file_and_the_rest_play_on() {
    let emotes = TempDir::new("watch-emotes");
    for name in ["guitar.json", "prop_juggle.json"] {
        fs::copy(
            format!("{}/emotes/{name}", env!("CARGO_MANIFEST_DIR")),
            emotes.path().join(name),
        )
        .expect("copy");
    }
    let mut server = Server::start_with(&[emotes.path()]);
    let changed = server
        .bot("changed")
        .wait_spawn()
        .chat("/emote play example:guitar")
        .wait_for(
            json!({"event": "action_bar", "text_contains": "its file changed"}),
            1,
            30_000,
        )
        .wait_ms(300)
        .disconnect()
        .spawn();
    // Plays away from spawn so its own displays can be told apart.
    let steady = server
        .bot("steady")
        .wait_spawn()
        .move_to(-6.5, 65.0, -6.5)
        .chat("/emote play example:prop_juggle")
        .wait_ms(14_000)
        .disconnect()
        .spawn();
    // Both are playing by now; an admin edits the guitar's description.
    std::thread::sleep(std::time::Duration::from_secs(5));
    let guitar = emotes.path().join("guitar.json");
    let text = fs::read_to_string(&guitar).expect("read");
    fs::write(
        &guitar,
        text.replacen("\"description\": \"", "\"description\": \"Retuned. ", 1),
    )
    .expect("write");

    let changed = changed.wait();
    changed.assert_ok();
    let spawned = changed.spawned_of("block_display");
    assert!(!spawned.is_empty(), "{}", changed.describe());
    let destroyed = changed.destroyed();
    assert!(
        spawned.iter().all(|s| destroyed.contains(&s.entity_id)),
        "the changed emote left displays: {}",
        changed.describe()
    );
    let steady = steady.wait();
    steady.assert_ok();
    let own: Vec<i32> = steady
        .spawned()
        .iter()
        .filter(|s| {
            s.x < -3.0
                && s.entity_type
                    .as_deref()
                    .is_some_and(|t| t.ends_with("_display"))
        })
        .map(|s| s.entity_id)
        .collect();
    assert!(!own.is_empty(), "{}", steady.describe());
    let destroyed = steady.destroyed();
    assert!(
        own.iter().all(|id| !destroyed.contains(id)),
        "the unchanged emote was stopped: {}",
        steady.describe()
    );
    assert!(
        !steady.action_bar().iter().any(|t| t.contains("stopped")),
        "{:?}",
        steady.action_bar()
    );
    server.assert_log_clean();
}
