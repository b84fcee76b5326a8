//! An existing world (issue 31): `[world] path` names a world the test
//! writes itself (tests/common/anvil.rs: a level.dat and a region file in
//! the 1.20.1 format), and a real client joins it.
//!
//! The world: a floating platform of gold blocks at y = 100 with the spawn
//! block above its middle (8, 101, 8), a diamond block in the next chunk
//! east, bedrock at the world's bottom (y = -64) under the spawn, a small
//! emerald platform 400 blocks east (beyond the view distance from the
//! spawn), and nothing else: the region file holds only those chunks, and
//! the regions around it have no file at all.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::anvil::{garbage, TestWorld};
use common::{BotRun, Plan, Server, TempDir};
use serde_json::json;

const SPAWN: [i32; 3] = [8, 101, 8];

/// Writes the world described above to `<dir>/world`, and a configuration
/// that names it to `<dir>/emoted.toml`; returns the world folder and the
/// configuration.
fn built_spawn_world(dir: &TempDir) -> (PathBuf, String) {
    let folder = dir.path().join("world");
    TestWorld::new(SPAWN)
        .fill([2, 100, 2], [13, 100, 13], "minecraft:gold_block")
        .set([20, 90, 3], "minecraft:diamond_block")
        .set([8, -64, 8], "minecraft:bedrock")
        .fill([399, 80, 7], [401, 80, 9], "minecraft:emerald_block")
        .write(&folder);
    // The builder may teleport (to walk 400 blocks would take a while).
    let config = dir.write(
        "emoted.toml",
        &format!(
            "[world]\npath = {}\n[permissions.groups.builders]\nplayers = [\"builder\"]\n\
             nodes = [\"minecraft.command.teleport\"]\n",
            json!(folder.to_string_lossy())
        ),
    );
    (folder, config.to_string_lossy().into_owned())
}

/// A client joins, lets the chunks around it arrive, and says where it
/// stands and what blocks it sees.
fn join_and_look(server: &Server) -> Plan {
    server
        .bot("builder")
        .wait_spawn()
        .wait_ms(2000)
        .position()
        .block_below()
        .block_at(20, 90, 3)
        .block_at(8, -64, 8)
        .block_at(88, 100, 88)
        .block_at(-40, 100, 8)
}

/// The client stands on the gold platform at the spawn.
fn assert_stands_on_the_spawn(run: &BotRun) {
    run.assert_ok();
    let spawn = run.spawn().expect("a spawn event");
    assert_eq!(
        [spawn.x, spawn.y, spawn.z],
        [8.5, 101.0, 8.5],
        "joined in the middle of the spawn block"
    );
    let position = run
        .events
        .iter()
        .find_map(|e| match e {
            common::Event::BotPosition(p) => Some(p.clone()),
            _ => None,
        })
        .expect("a bot_position event");
    assert!(
        (position.y - 101.0).abs() < 1e-6 && position.on_ground,
        "stands on the platform's top, y = 101: {position:?}\n{}",
        run.describe()
    );
    let below = run.blocks()[0];
    assert_eq!([below.x, below.y, below.z], [8, 100, 8]);
    assert_eq!(
        below.name.as_deref(),
        Some("minecraft:gold_block"),
        "{}",
        run.describe()
    );
}

/// The name of the block the client reported at `at`.
fn block_name(run: &BotRun, at: [i32; 3]) -> Option<String> {
    run.blocks()
        .into_iter()
        .find(|b| [b.x, b.y, b.z] == at)
        .and_then(|b| b.name.clone())
}

#[test]
fn a_client_stands_on_the_built_spawn_of_an_existing_world() {
    let dir = TempDir::new("world-built");
    let (folder, config) = built_spawn_world(&dir);
    let mut server = Server::start_with_args(&["emotes"], &["--config", &config]);
    let run = join_and_look(&server)
        .chat("/tp 400 81 8")
        .wait_ms(2000)
        .block_below()
        .disconnect()
        .run();
    assert_stands_on_the_spawn(&run);
    // The other chunk of the region file, and a section far below.
    assert_eq!(
        block_name(&run, [20, 90, 3]).as_deref(),
        Some("minecraft:diamond_block")
    );
    assert_eq!(
        block_name(&run, [8, -64, 8]).as_deref(),
        Some("minecraft:bedrock")
    );
    // A chunk the region file does not hold, and one whose region file does
    // not exist: sent empty, not left for the client to wait on.
    for at in [[88, 100, 88], [-40, 100, 8]] {
        assert_eq!(
            block_name(&run, at).as_deref(),
            Some("minecraft:air"),
            "{at:?}: {}",
            run.describe()
        );
    }
    // Chunks far from the spawn load as the player gets there.
    let landed = run
        .blocks()
        .last()
        .copied()
        .expect("the block under the bot");
    assert_eq!(
        landed.name.as_deref(),
        Some("minecraft:emerald_block"),
        "{}",
        run.describe()
    );
    let log = server.log();
    assert!(
        log.contains(&format!(
            "world \"emoted test world\": {}, read-only; players join at its spawn (8, 101, 8)",
            folder.display()
        )),
        "{log}"
    );
    assert!(
        server.log_lines_at("WARN").is_empty(),
        "missing chunks and region files are no warning:\n{log}"
    );
    server.assert_log_clean();
}

#[test]
fn a_corrupt_region_file_is_named_once_and_the_player_still_joins() {
    let dir = TempDir::new("world-corrupt");
    let (folder, config) = built_spawn_world(&dir);
    // West of the spawn, in view: every chunk of it fails.
    let corrupt = folder.join("region").join("r.-1.0.mca");
    std::fs::write(&corrupt, garbage(12_000)).expect("write the garbage");
    let mut server = Server::start_with_args(&["emotes"], &["--config", &config]);
    let run = join_and_look(&server).disconnect().run();
    assert_stands_on_the_spawn(&run);
    // A chunk of the corrupt file arrives empty.
    assert_eq!(
        block_name(&run, [-40, 100, 8]).as_deref(),
        Some("minecraft:air")
    );
    let named: Vec<String> = server
        .log()
        .lines()
        .filter(|l| l.contains("r.-1.0.mca"))
        .map(str::to_owned)
        .collect();
    assert_eq!(named.len(), 1, "one line names the file: {named:#?}");
    let line = &named[0];
    assert!(line.contains(" WARN "), "{line}");
    assert!(
        line.contains(&format!("{}: chunk (", corrupt.display()))
            && line.contains(") did not load: ")
            && line.contains("it is left empty"),
        "{line}"
    );
    // The server plays on: a second player joins and stands on the spawn.
    let again = join_and_look(&server).disconnect().run();
    assert_stands_on_the_spawn(&again);
    server.assert_log_clean();
}

/// Runs `emoted serve` on `config` and returns its exit status and
/// standard error, or panics when it is still running after 30 s.
fn serve_until_exit(config: &Path) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["serve", "--address", "127.0.0.1:0", "--config"])
        .arg(config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start emoted");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("emoted serve started although its world cannot be opened");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("its output");
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_world_without_level_dat_stops_the_start_naming_the_file() {
    let dir = TempDir::new("world-missing");
    let folder = dir.path().join("world");
    std::fs::create_dir_all(folder.join("region")).expect("a region folder only");
    let config = dir.write(
        "emoted.toml",
        &format!("[world]\npath = {}\n", json!(folder.to_string_lossy())),
    );
    let (status, stderr) = serve_until_exit(&config);
    assert!(!status.success(), "{stderr}");
    let expected = format!(
        "emoted: cannot open the world: {}: not found",
        folder.join("level.dat").display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert_eq!(
        stderr.lines().filter(|l| !l.trim().is_empty()).count(),
        1,
        "one error: {stderr}"
    );
}
