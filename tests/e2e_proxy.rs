//! Behind a proxy, with real clients that forward exactly as BungeeCord and
//! Velocity do (tests/client/bot.js, "proxy forwarding"): forwarded players
//! get the forwarded UUID, address and textures and play emotes others see;
//! a direct connection, malformed forwarding, a wrong Velocity secret, an
//! ordinary client, a silent one and an unsupported forwarding version are
//! each refused at login with their sentence and a log line; an operator
//! listed by UUID gets operator rights only when the proxy vouches for that
//! UUID.

mod common;

use common::{run_all, BotRun, Event, Plan, Server, TempDir};
use serde_json::{json, Value};

const ADMIN_UUID: &str = "5a0ed1d8-3c4b-4e1a-9f3e-1d2c3b4a5f60";
const ALEX_UUID: &str = "069a79f444e94726a5befca90e38aaf5";
const STEVE_UUID: &str = "853c80ef3c3749fdaa49938b674adae6";
const OTHER_UUID: &str = "1f2e3d4c5b6a49788796a5b4c3d2e1f0";
/// A skin property as the session server signs it (the value is base64
/// JSON; the test only checks it arrives unchanged).
const TEXTURES: &str = "eyJ0ZXh0dXJlcyI6eyJTS0lOIjp7InVybCI6Imh0dHA6Ly90ZXh0dXJlcy5taW5lY3JhZnQubmV0L3RleHR1cmUvMSJ9fX0=";

const BUNGEE_REFUSAL: &str =
    "If you wish to use IP forwarding, please enable it in your BungeeCord config as well!";

fn start(mode_lines: &str) -> (Server, TempDir) {
    let dir = TempDir::new("proxy-config");
    let config =
        format!("[server]\n{mode_lines}\n\n[permissions]\noperators = [\"{ADMIN_UUID}\"]\n");
    let path = dir.write("emoted.toml", &config);
    let path = path.to_string_lossy().into_owned();
    (
        Server::start_with_args(&["emotes"], &["--config", &path]),
        dir,
    )
}

fn textures() -> Value {
    json!([{"name": "textures", "value": TEXTURES, "signature": "c2lnbmVk"}])
}

/// Every string in a recorded packet, flattened (for "did X arrive").
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        Value::Object(o) => o.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

fn packet_strings(run: &BotRun, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for data in run.packets_named(name) {
        strings(data, &mut out);
    }
    out
}

fn dashed(uuid: &str) -> String {
    let u = uuid.replace('-', "");
    format!(
        "{}-{}-{}-{}-{}",
        &u[0..8],
        &u[8..12],
        &u[12..16],
        &u[16..20],
        &u[20..32]
    )
}

/// The player plays the guitar while a second one watches for its block
/// display; then an operator by UUID changes game mode.
fn forwarded_players(server: &Server, alex: Value, steve: Value, admin: Value) -> Vec<BotRun> {
    let alex = server
        .bot("Alex")
        .forwarding(alex)
        .record_packets(&["success", "player_info"])
        .wait_spawn()
        .wait_ms(1500)
        .chat("/emote play example:guitar")
        .wait_ms(2500)
        .disconnect();
    let steve = server
        .bot("Steve")
        .forwarding(steve)
        .wait_spawn()
        .wait_for(
            json!({"event": "spawn_entity", "type": "block_display"}),
            1,
            10000,
        )
        .disconnect();
    let admin = server
        .bot("Admin")
        .forwarding(admin)
        .wait_spawn()
        .chat("/gamemode creative")
        .wait_for(
            json!({"event": "game_mode", "game_mode": "creative"}),
            1,
            5000,
        )
        .disconnect();
    run_all(vec![alex, steve, admin])
}

fn assert_forwarded_alex(server: &Server, alex: &BotRun, ip: &str) {
    alex.assert_ok();
    let success = packet_strings(alex, "success");
    assert!(
        success.iter().any(|s| s.replace('-', "") == ALEX_UUID),
        "the login success carries the forwarded UUID: {success:?}"
    );
    let players = packet_strings(alex, "player_info");
    assert!(
        players.iter().any(|s| s == TEXTURES),
        "the player list carries the forwarded textures: {}",
        alex.describe()
    );
    let line = format!("Alex ({}) logged in from {ip}", dashed(ALEX_UUID));
    assert!(
        server.log().contains(&line),
        "log names the forwarded address:\n{}",
        server.log()
    );
}

/// A client that must be refused at login with `message`: it never gets
/// into the game, so it can run no command.
fn assert_refused(run: &BotRun, message: &str) {
    assert_eq!(run.kicked(), Some(message), "{}", run.describe());
    assert!(run.login().is_none(), "never logged in: {}", run.describe());
    assert!(
        !run.chat().iter().any(|c| c.contains("Unknown")),
        "{}",
        run.describe()
    );
}

fn refused_plan(server: &Server, name: &str, forwarding: Option<Value>) -> Plan {
    let plan = server.bot(name).timeout_ms(15000);
    let plan = match forwarding {
        Some(f) => plan.forwarding(f),
        None => plan,
    };
    plan.wait_spawn().chat("/gamemode creative")
}

#[test]
fn bungeecord_mode_admits_forwarded_players_and_refuses_the_rest() {
    let (mut server, _dir) = start("connection_mode = \"bungeecord\"");
    let bungee = |ip: &str, uuid: &str, properties: Option<Value>| {
        let mut f = json!({"mode": "bungeecord", "ip": ip, "uuid": uuid});
        if let Some(p) = properties {
            f["properties"] = p;
        }
        f
    };
    let runs = forwarded_players(
        &server,
        bungee("203.0.113.7", ALEX_UUID, Some(textures())),
        bungee("203.0.113.8", STEVE_UUID, None),
        bungee("203.0.113.9", ADMIN_UUID, Some(json!([]))),
    );
    assert_forwarded_alex(&server, &runs[0], "203.0.113.7");
    runs[1].assert_ok();
    runs[2].assert_ok();

    let raw = |address: String| json!({"mode": "bungeecord_raw", "address": address});
    let refused = run_all(vec![
        // Straight to the backend port, as the operator's name.
        refused_plan(&server, "Admin", None),
        refused_plan(
            &server,
            "Mallory",
            Some(raw("localhost\u{0}203.0.113.5\u{0}not-a-uuid".into())),
        ),
        refused_plan(
            &server,
            "Eve",
            Some(raw(format!(
                "localhost\u{0}203.0.113.5\u{0}{OTHER_UUID}\u{0}{{\"textures\":1}}"
            ))),
        ),
        refused_plan(
            &server,
            "Trudy",
            Some(raw(format!("localhost\u{0}300.1.1.1\u{0}{OTHER_UUID}"))),
        ),
    ]);
    for run in &refused {
        assert_refused(run, BUNGEE_REFUSAL);
    }
    for name in ["Admin", "Mallory", "Eve", "Trudy"] {
        let line = format!("refused the bungeecord login of `{name}` from 127.0.0.1");
        assert!(
            server.log().contains(&line),
            "one warning with the address for {name}:\n{}",
            server.log()
        );
    }

    // The operator's name forwarded with another UUID holds nothing.
    let impostor = server
        .bot("Admin")
        .forwarding(bungee("203.0.113.10", OTHER_UUID, None))
        .wait_spawn()
        .chat("/gamemode creative")
        .wait_ms(1000)
        .disconnect()
        .run();
    impostor.assert_ok();
    assert!(
        !impostor
            .events
            .iter()
            .any(|e| matches!(e, Event::GameMode { game_mode: Some(m), .. } if m == "creative")),
        "{}",
        impostor.describe()
    );
    assert!(server.is_running(), "the server keeps running");
}

#[test]
fn velocity_mode_verifies_the_secret_and_says_why_it_refuses() {
    let (mut server, _dir) = start("connection_mode = \"velocity\"\nvelocity_secret = \"s3cret\"");
    let velocity = |ip: &str, uuid: &str, secret: &str| json!({"mode": "velocity", "secret": secret, "ip": ip, "uuid": uuid, "properties": textures()});
    let runs = forwarded_players(
        &server,
        velocity("198.51.100.4", ALEX_UUID, "s3cret"),
        velocity("198.51.100.5", STEVE_UUID, "s3cret"),
        velocity("198.51.100.6", ADMIN_UUID, "s3cret"),
    );
    assert_forwarded_alex(&server, &runs[0], "198.51.100.4");
    runs[1].assert_ok();
    runs[2].assert_ok();

    let mut future = velocity("198.51.100.7", OTHER_UUID, "s3cret");
    future["version"] = json!(9);
    let refused = run_all(vec![
        refused_plan(
            &server,
            "Admin",
            Some(velocity("198.51.100.6", ADMIN_UUID, "wrong")),
        ),
        refused_plan(&server, "Plain", None),
        refused_plan(&server, "Quiet", Some(json!({"mode": "velocity_silent"}))),
        refused_plan(&server, "Future", Some(future)),
    ]);
    assert_refused(&refused[0], "Unable to verify player details.");
    assert_refused(
        &refused[1],
        "This server requires you to connect with Velocity.",
    );
    assert_refused(
        &refused[2],
        "This server requires you to connect with Velocity.",
    );
    assert_refused(
        &refused[3],
        "Unsupported forwarding version 9, wanted up to 4.",
    );
    for name in ["Admin", "Plain", "Quiet", "Future"] {
        let line = format!("refused the velocity login of `{name}` from 127.0.0.1");
        assert!(
            server.log().contains(&line),
            "one warning with the address for {name}:\n{}",
            server.log()
        );
    }
    assert!(server.is_running(), "the server keeps running");
}
