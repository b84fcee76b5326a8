//! What an admin's tools use, with a real client online: the operator's
//! commands on the console (standard input) and over RCON (a client
//! written here from the Source RCON protocol, not the server's codec),
//! and the Prometheus metrics (parsed here as the text format says). An
//! operator's stop hands the emote camera back as every other end does.
//! `stop` from the console is in `e2e_shutdown`.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{assert_handed_back, free_port, http_request, the_camera, Server, TempDir};
use serde_json::json;

const PASSWORD: &str = "correct horse";

/// An RCON client: little-endian length, id, type, payload, two zeros.
struct Rcon(TcpStream);

impl Rcon {
    fn connect(port: u16) -> Rcon {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("RCON accepts");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        Rcon(stream)
    }

    fn send(&mut self, id: i32, kind: i32, payload: &str) {
        let mut bytes = ((payload.len() + 10) as i32).to_le_bytes().to_vec();
        bytes.extend(id.to_le_bytes());
        bytes.extend(kind.to_le_bytes());
        bytes.extend(payload.as_bytes());
        bytes.extend([0, 0]);
        self.0.write_all(&bytes).expect("sent");
    }

    /// One packet: (id, type, payload); `None` when the server closed.
    fn receive(&mut self) -> Option<(i32, i32, String)> {
        let mut length = [0u8; 4];
        self.0.read_exact(&mut length).ok()?;
        let length = i32::from_le_bytes(length) as usize;
        assert!((10..=4096).contains(&length), "length {length}");
        let mut body = vec![0u8; length];
        self.0.read_exact(&mut body).expect("the whole packet");
        let word = |at: usize| i32::from_le_bytes(body[at..at + 4].try_into().expect("4 bytes"));
        assert_eq!(&body[length - 2..], &[0, 0], "two zero bytes end it");
        let payload = String::from_utf8(body[8..length - 2].to_vec()).expect("text");
        Some((word(0), word(4), payload))
    }

    /// Logs in; the id the server answers with (−1: refused).
    fn login(&mut self, id: i32, password: &str) -> i32 {
        self.send(id, 3, password);
        let (answer_id, kind, _) = self.receive().expect("an answer to the login");
        assert_eq!(kind, 2, "SERVERDATA_AUTH_RESPONSE");
        answer_id
    }

    /// Runs a command; its answer (one packet: these are short).
    fn command(&mut self, id: i32, line: &str) -> String {
        self.send(id, 2, line);
        let (answer_id, kind, text) = self.receive().expect("an answer");
        assert_eq!((answer_id, kind), (id, 0), "{text}");
        text
    }
}

#[test]
fn rcon_and_the_console_run_the_operators_commands() {
    let rcon_port = free_port();
    let dir = TempDir::new("operator-config");
    let config = dir.write(
        "emoted.toml",
        &format!(
            "[rcon]\nenabled = true\nlisten = \"127.0.0.1:{rcon_port}\"\npassword = \"{PASSWORD}\"\n"
        ),
    );
    let config = config.to_string_lossy().into_owned();
    let emotes = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let mut server = Server::start_with_console(&[emotes], &["--config", config.as_str()]);
    assert!(
        server.wait_for_log(
            &format!("RCON listening on 127.0.0.1:{rcon_port}"),
            Duration::from_secs(5)
        ),
        "{}",
        server.log()
    );
    // Alex waits for what the operators do to them: a chat line from the
    // console and an emote from RCON.
    let alex = server
        .bot("alex")
        .record_packets(&["camera"])
        .wait_spawn()
        // Counted from the plan's start: the console may speak before the
        // bot's spawn step has finished.
        .wait_for_since_start(
            json!({"event": "chat", "text_contains": "[Server] hello from the console"}),
            1,
            20_000,
        )
        .wait_for_since_start(
            json!({"event": "spawn_entity", "type": "item_display"}),
            1,
            20_000,
        )
        // Long enough for RCON's stop and the camera's hand-back.
        .wait_ms(4000)
        .disconnect()
        .spawn();

    // A wrong password is refused, and logged with the address.
    let mut intruder = Rcon::connect(rcon_port);
    assert_eq!(intruder.login(5, "hunter2"), -1);
    assert!(server.wait_for_log("RCON: failed login from 127.0.0.1", Duration::from_secs(5)));
    // Without logging in, a command is refused the same way.
    intruder.send(6, 2, "list");
    assert_eq!(intruder.receive().map(|(id, ..)| id), Some(-1));

    let mut admin = Rcon::connect(rcon_port);
    assert_eq!(admin.login(11, PASSWORD), 11, "the right password is taken");
    let online = "There are 1 of a max of 20 players online: alex";
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut list = admin.command(12, "list");
    while list != online && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        list = admin.command(12, "list");
    }
    assert_eq!(list, online);

    // The console: its answers on standard output.
    server.console("list");
    assert!(
        server.wait_for_log(online, Duration::from_secs(5)),
        "{}",
        server.log()
    );
    server.console("say hello from the console");
    assert!(server.wait_for_log(
        "the console ran: say hello from the console",
        Duration::from_secs(5)
    ));
    server.console("emote info example:wave");
    assert!(
        server.wait_for_log("(example:wave)", Duration::from_secs(5)),
        "the console prints the emote's info: {}",
        server.log()
    );
    server.console("emote play example:wave");
    assert!(server.wait_for_log("name a player", Duration::from_secs(5)));
    server.console("fly away");
    assert!(server.wait_for_log("Unknown command `fly`", Duration::from_secs(5)));

    // A packet over the protocol's 4,096 bytes closes that connection...
    let mut oversized = Rcon::connect(rcon_port);
    oversized
        .0
        .write_all(&5000i32.to_le_bytes())
        .expect("sent the length");
    let _ = oversized.0.write_all(&[b'x'; 64]);
    assert_eq!(oversized.receive(), None, "the server closed it");
    assert!(server.wait_for_log(
        "over the protocol's 4096 bytes; connection closed",
        Duration::from_secs(5)
    ));
    // ... and the server plays on: RCON plays an emote for alex.
    assert_eq!(
        admin.command(13, "emote play example:wave alex"),
        "Playing example:wave on alex."
    );
    assert_eq!(
        admin.command(14, "emote play example:nothing alex"),
        "Unknown emote `example:nothing`. Try emote list."
    );
    // Once the camera flies, RCON's stop ends the emote like any other end.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        admin.command(16, "emote stop alex"),
        "Stopping alex's emote."
    );
    let alex = alex.wait();
    alex.assert_ok();
    assert_handed_back(&alex, the_camera(&alex));
    // The end goes on the action bar, naming who stopped it.
    assert!(
        alex.events.iter().any(|e| matches!(
            e,
            common::Event::ActionBar { text: Some(t), .. } if t.contains("Server stopped it")
        )),
        "alex is told who stopped it: {}",
        alex.describe()
    );
    assert_eq!(
        alex.chat_containing("[Server] hello from the console")
            .len(),
        1,
        "{}",
        alex.describe()
    );
    assert!(!alex.display_ids().is_empty(), "the emote reached alex");
    assert!(admin.command(15, "emote list").contains("example:wave: "));
    server.assert_log_clean();
}

#[test]
fn rcon_stays_off_without_a_password() {
    let rcon_port = free_port();
    let dir = TempDir::new("operator-nopass");
    let config = dir.write(
        "emoted.toml",
        &format!("[rcon]\nenabled = true\nlisten = \"127.0.0.1:{rcon_port}\"\n"),
    );
    let config = config.to_string_lossy().into_owned();
    let emotes = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let server = Server::start_with_args(&[emotes], &["--config", config.as_str()]);
    assert!(
        server.log().contains("rcon.password is empty"),
        "{}",
        server.log()
    );
    assert!(
        TcpStream::connect(("127.0.0.1", rcon_port)).is_err(),
        "nothing listens on the RCON port"
    );
}

/// Prometheus text, checked line by line: every sample is
/// `name{labels} number` under a `# TYPE` of its metric. The samples, by
/// `name{labels}`.
fn parse_prometheus(text: &str) -> std::collections::BTreeMap<String, f64> {
    let mut samples = std::collections::BTreeMap::new();
    let mut typed = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut words = rest.split(' ');
            typed = words.next().expect("a name").to_owned();
            let kind = words.next().expect("a type");
            assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').expect("name and value");
        let name = series.split('{').next().expect("a name");
        assert!(
            name.starts_with(&typed),
            "{name} is not under its TYPE ({typed})"
        );
        if let Some(labels) = series.strip_prefix(name) {
            if !labels.is_empty() {
                assert!(labels.starts_with('{') && labels.ends_with('}'), "{line}");
            }
        }
        let value: f64 = match value {
            "+Inf" => f64::INFINITY,
            other => other
                .parse()
                .unwrap_or_else(|_| panic!("not a number: {line}")),
        };
        samples.insert(series.to_owned(), value);
    }
    samples
}

#[test]
fn the_metrics_show_the_player_and_the_emote_they_play() {
    let metrics_port = free_port();
    let dir = TempDir::new("metrics-config");
    let config = dir.write(
        "emoted.toml",
        &format!("[metrics]\nenabled = true\nlisten = \"127.0.0.1:{metrics_port}\"\n"),
    );
    let config = config.to_string_lossy().into_owned();
    let emotes = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let mut server = Server::start_with_args(&[emotes], &["--config", config.as_str()]);
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], metrics_port));
    let scrape = || {
        let answer = http_request(address, "GET", "/metrics");
        assert_eq!(answer.status, 200);
        assert_eq!(
            answer.header("content-type"),
            Some("text/plain; version=0.0.4; charset=utf-8")
        );
        parse_prometheus(&String::from_utf8_lossy(&answer.body))
    };
    // The endpoint may answer before the first tick has ended.
    let mut before = scrape();
    let deadline = Instant::now() + Duration::from_secs(10);
    while before["minecraft_tick_duration_seconds_count"] == 0.0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        before = scrape();
    }
    assert_eq!(before["minecraft_players_online"], 0.0);
    assert!(before["emoted_emotes_loaded"] >= 20.0, "{before:?}");

    let dancer = server
        .bot("dancer")
        .wait_spawn()
        .chat("/emote play example:dance")
        .wait_for(
            json!({"event": "spawn_entity", "type": "item_display"}),
            1,
            10_000,
        )
        .wait_ms(6000)
        .disconnect()
        .spawn();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut samples = before.clone();
    while Instant::now() < deadline {
        samples = scrape();
        // tps is measured over whole seconds: wait for the first.
        if samples["emoted_playbacks_active"] == 1.0
            && samples["emoted_bytes_sent_total{kind=\"display_updates\"}"] > 0.0
            && samples["minecraft_tps"] > 0.0
            && samples["minecraft_tick_duration_seconds_count"] > 20.0
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_eq!(samples["minecraft_players_online"], 1.0, "{samples:?}");
    assert_eq!(samples["emoted_playbacks_active"], 1.0, "{samples:?}");
    assert!(samples["emoted_display_entities"] >= 1.0, "{samples:?}");
    assert!(
        samples["emoted_bytes_sent_total{kind=\"display_updates\"}"] > 0.0,
        "the dance's updates reached the dancer: {samples:?}"
    );
    assert!(samples["minecraft_tps"] > 10.0, "{samples:?}");
    let ticks = samples["minecraft_tick_duration_seconds_count"];
    assert!(ticks > 20.0, "{samples:?}");
    assert_eq!(
        samples["minecraft_tick_duration_seconds_bucket{le=\"+Inf\"}"],
        ticks
    );
    assert_eq!(http_request(address, "GET", "/").status, 404);
    dancer.wait().assert_ok();
    server.assert_log_clean();
}
