//! The plugin in a headless valence app with a mock client: the offer at
//! join, every answer, the kick, the re-offer after a reload, bad packets;
//! and the HTTP server over a real socket.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::Duration;

use valence::keepalive::KeepaliveSettings;
use valence::network::NetworkPlugin;
use valence::prelude::*;
use valence::protocol::packets::play::{
    DisconnectS2c, GameMessageS2c, ResourcePackSendS2c, ResourcePackStatusC2s,
};
use valence::protocol::{packet_id, Encode, Packet, PacketSide, PacketState, VarInt};
use valence::testing::{create_mock_client, MockClientHelper};
use valence::ServerSettings;

use super::*;
use crate::library::Library;
use crate::server::resource_pack::pack::sha1_hex;

/// A server with the plugin, its HTTP server on a free port, and one mock
/// client that has joined (and been offered the pack).
struct Scenario {
    app: App,
    client: Entity,
    helper: MockClientHelper,
}

impl Scenario {
    fn new(required: bool) -> Scenario {
        Scenario::serving(required, None)
    }

    /// [`Scenario::new`] with a [`ServedPackOverride`] from the start.
    fn serving(required: bool, overridden: Option<ServedPack>) -> Scenario {
        let mut config = Config::default();
        config.resource_pack.listen = "127.0.0.1:0".parse().expect("address");
        config.resource_pack.required = required;
        let mut app = App::new();
        app.insert_resource(KeepaliveSettings {
            period: Duration::MAX,
        })
        .insert_resource(ServerSettings {
            compression_threshold: None,
            ..Default::default()
        })
        .insert_resource(config);
        if let Some(pack) = overridden {
            app.insert_resource(ServedPackOverride(pack));
        }
        app.add_plugins(DefaultPlugins.build().disable::<NetworkPlugin>())
            .add_plugins(ResourcePackPlugin);
        app.update(); // start-up: the server binds, the first pack is built
        let layer = LayerBundle::new(
            ident!("overworld"),
            app.world.resource::<DimensionTypeRegistry>(),
            app.world.resource::<BiomeRegistry>(),
            app.world.resource::<Server>(),
        );
        let layer = app.world.spawn(layer).id();
        let (mut bundle, helper) = create_mock_client("alice");
        bundle.player.layer.0 = layer;
        bundle.visible_chunk_layer.0 = layer;
        bundle.visible_entity_layers.0.insert(layer);
        let client = app.world.spawn(bundle).id();
        app.update(); // the join, and the offer
        Scenario {
            app,
            client,
            helper,
        }
    }

    fn answer(&mut self, status: ResourcePackStatusC2s) {
        self.helper.send(&status);
        self.app.update();
    }

    fn status(&self) -> Option<PackStatus> {
        self.app.world.get::<PackStatus>(self.client).copied()
    }

    fn server(&self) -> PackServer {
        self.app.world.resource::<PackServer>().clone()
    }
}

#[test]
fn a_joining_player_is_offered_the_current_pack_once() {
    let mut s = Scenario::new(false);
    let frames = s.helper.collect_received();
    frames.assert_count::<ResourcePackSendS2c>(1);
    let sent = frames.first::<ResourcePackSendS2c>();
    let pack = s.server().current().expect("built");
    let port = s.server().bound().port();
    assert_ne!(port, 0, "the real port");
    assert_eq!(
        sent.url,
        format!("http://127.0.0.1:{port}/pack/{}.zip", pack.sha1_hex())
    );
    assert_eq!(sent.hash, pack.sha1_hex());
    assert_eq!(sent.hash.len(), 40);
    assert!(!sent.forced);
    assert!(sent.prompt_message.is_some());
    assert_eq!(s.status(), Some(PackStatus::Offered));
    let offer = s.app.world.get::<PackOffer>(s.client).expect("offer");
    assert_eq!(offer.url, sent.url);

    s.app.update();
    s.helper
        .collect_received()
        .assert_count::<ResourcePackSendS2c>(0);
}

#[test]
fn accepting_and_loading_keeps_the_player_with_nothing_said() {
    let mut s = Scenario::new(true);
    s.helper.clear_received();
    s.answer(ResourcePackStatusC2s::Accepted);
    assert_eq!(s.status(), Some(PackStatus::Accepted));
    s.answer(ResourcePackStatusC2s::SuccessfullyLoaded);
    assert_eq!(s.status(), Some(PackStatus::Loaded));
    let frames = s.helper.collect_received();
    frames.assert_count::<GameMessageS2c>(0);
    frames.assert_count::<DisconnectS2c>(0);
    assert!(s.app.world.get::<Client>(s.client).is_some());
}

#[test]
fn declining_gets_one_chat_line_and_no_kick_when_optional() {
    let mut s = Scenario::new(false);
    s.helper.clear_received();
    s.answer(ResourcePackStatusC2s::Declined);
    assert_eq!(s.status(), Some(PackStatus::Declined));
    let frames = s.helper.collect_received();
    frames.assert_count::<GameMessageS2c>(1);
    let line = frames.first::<GameMessageS2c>();
    assert!(format!("{:?}", line.chat).contains("declined"), "{line:?}");
    frames.assert_count::<DisconnectS2c>(0);
}

#[test]
fn a_failed_download_gets_one_chat_line_and_no_kick_even_when_required() {
    let mut s = Scenario::new(true);
    s.helper.clear_received();
    s.answer(ResourcePackStatusC2s::Accepted);
    s.answer(ResourcePackStatusC2s::FailedDownload);
    assert_eq!(s.status(), Some(PackStatus::Failed));
    let frames = s.helper.collect_received();
    frames.assert_count::<GameMessageS2c>(1);
    frames.assert_count::<DisconnectS2c>(0);
    assert!(s.app.world.get::<Client>(s.client).is_some());
}

#[test]
fn declining_a_required_pack_kicks_with_the_reason() {
    let mut s = Scenario::new(true);
    s.helper.clear_received();
    s.answer(ResourcePackStatusC2s::Declined);
    let frames = s.helper.collect_received();
    frames.assert_count::<DisconnectS2c>(1);
    let kick = frames.first::<DisconnectS2c>();
    assert!(
        format!("{:?}", kick.reason).contains("requires"),
        "{kick:?}"
    );
    assert!(
        s.app.world.get::<Client>(s.client).is_some(),
        "the message goes out before the connection closes"
    );
    for _ in 0..=KICK_GRACE_TICKS {
        s.app.update();
    }
    assert!(
        s.app.world.get::<Client>(s.client).is_none(),
        "disconnected"
    );
}

/// A status packet whose body is a VarInt no status has.
#[derive(Debug)]
struct BadStatus;

impl Packet for BadStatus {
    const ID: i32 = packet_id::RESOURCE_PACK_STATUS_C2S;
    const NAME: &'static str = "BadStatus";
    const SIDE: PacketSide = PacketSide::Serverbound;
    const STATE: PacketState = PacketState::Play;
}

impl Encode for BadStatus {
    fn encode(&self, w: impl Write) -> anyhow::Result<()> {
        VarInt(9).encode(w)
    }
}

#[test]
fn unexpected_and_malformed_answers_change_nothing() {
    let mut s = Scenario::new(true);
    s.answer(ResourcePackStatusC2s::SuccessfullyLoaded);
    assert_eq!(s.status(), Some(PackStatus::Loaded));
    s.helper.clear_received();
    for status in [
        ResourcePackStatusC2s::Accepted,
        ResourcePackStatusC2s::Declined,
        ResourcePackStatusC2s::FailedDownload,
    ] {
        s.answer(status);
    }
    s.helper.send(&BadStatus);
    s.app.update();
    assert_eq!(s.status(), Some(PackStatus::Loaded));
    let offer = s.app.world.get::<PackOffer>(s.client).expect("offer");
    assert_eq!(offer.unexpected_answer_count, 3);
    let frames = s.helper.collect_received();
    frames.assert_count::<DisconnectS2c>(0);
    frames.assert_count::<GameMessageS2c>(0);
}

#[test]
fn a_reload_that_changes_the_pack_offers_it_again_except_to_decliners() {
    let bundled = [PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/emotes"
    ))];
    for decline in [false, true] {
        let mut s = Scenario::new(false);
        if decline {
            s.answer(ResourcePackStatusC2s::Declined);
        } else {
            s.answer(ResourcePackStatusC2s::SuccessfullyLoaded);
        }
        let old = s.server().current().expect("built");
        s.helper.clear_received();
        s.app.world.resource_mut::<EmoteLibrary>().0 = Library::load(&bundled).library;
        s.app.update();
        let new = s.server().current().expect("rebuilt");
        assert_ne!(old.sha1_hex(), new.sha1_hex());
        let frames = s.helper.collect_received();
        if decline {
            frames.assert_count::<ResourcePackSendS2c>(0);
            assert_eq!(s.status(), Some(PackStatus::Declined));
        } else {
            frames.assert_count::<ResourcePackSendS2c>(1);
            assert_eq!(frames.first::<ResourcePackSendS2c>().hash, new.sha1_hex());
            assert_eq!(s.status(), Some(PackStatus::Offered));
        }
        // A library change that keeps the pack offers nothing.
        s.helper.clear_received();
        s.app.world.resource_mut::<EmoteLibrary>().0 = Library::load(&bundled).library;
        s.app.update();
        s.helper
            .collect_received()
            .assert_count::<ResourcePackSendS2c>(0);
    }
}

#[test]
fn an_override_is_served_from_the_start_and_a_new_one_is_offered_again() {
    let first = ServedPack::new(vec![7u8; 3000]);
    let mut s = Scenario::serving(false, Some(first.clone()));
    assert_eq!(s.server().current(), Some(first.clone()));
    let frames = s.helper.collect_received();
    frames.assert_count::<ResourcePackSendS2c>(1);
    assert_eq!(frames.first::<ResourcePackSendS2c>().hash, first.sha1_hex());
    let port = s.server().bound().port();
    let path = url::pack_path(first.sha1_hex());
    let (status, _, body) = exchange(port, &format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n"));
    assert_eq!(status, 200);
    assert_eq!(body, first.bytes().to_vec());

    // A library change keeps the override.
    let bundled = [PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/emotes"
    ))];
    s.app.world.resource_mut::<EmoteLibrary>().0 = Library::load(&bundled).library;
    s.app.update();
    assert_eq!(s.server().current(), Some(first));
    s.helper
        .collect_received()
        .assert_count::<ResourcePackSendS2c>(0);

    let second = ServedPack::new(vec![8u8; 10]);
    s.app.insert_resource(ServedPackOverride(second.clone()));
    s.app.update();
    assert_eq!(s.server().current(), Some(second.clone()));
    let frames = s.helper.collect_received();
    frames.assert_count::<ResourcePackSendS2c>(1);
    assert_eq!(
        frames.first::<ResourcePackSendS2c>().hash,
        second.sha1_hex()
    );
}

/// One HTTP/1.1 exchange over a real socket: the status code, the headers
/// (lowercase names) and the body.
fn exchange(port: u16, request: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    stream.write_all(request.as_bytes()).expect("send");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let body = raw[split + 4..].to_vec();
    let mut lines = head.lines();
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    (status, headers, body)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn the_http_server_serves_the_pack_and_refuses_the_rest() {
    let s = Scenario::new(false);
    let server = s.server();
    let port = server.bound().port();
    let pack = server.current().expect("built");
    let path = url::pack_path(pack.sha1_hex());

    let (status, headers, body) = exchange(
        port,
        &format!(
            "GET {path} HTTP/1.1\r\nHost: localhost\r\nUser-Agent: Minecraft Java/1.20.1\r\n\r\n"
        ),
    );
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-type"), Some("application/zip"));
    assert_eq!(
        header(&headers, "content-length"),
        Some(pack.size_bytes().to_string().as_str())
    );
    assert_eq!(sha1_hex(&body), pack.sha1_hex());

    let (status, headers, body) = exchange(
        port,
        &format!("HEAD {path} HTTP/1.1\r\nHost: localhost\r\n\r\n"),
    );
    assert_eq!(status, 200);
    assert_eq!(
        header(&headers, "content-length"),
        Some(pack.size_bytes().to_string().as_str())
    );
    assert!(body.is_empty(), "no body for HEAD");

    let other = format!("/pack/{}.zip", sha1_hex(b"an older pack"));
    for (request, want) in [
        (format!("GET {other} HTTP/1.1\r\nHost: x\r\n\r\n"), 404),
        ("GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_owned(), 404),
        (
            format!("POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"),
            405,
        ),
        (
            format!(
                "GET {path} HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
                "a".repeat(http::MAX_REQUEST_HEAD_BYTES)
            ),
            431,
        ),
    ] {
        let (status, _, _) = exchange(port, &request);
        assert_eq!(status, want, "{}", &request[..request.len().min(60)]);
    }
}

#[test]
fn a_disabled_pack_is_neither_served_nor_offered() {
    let mut config = Config::default();
    config.resource_pack.enabled = false;
    let mut app = App::new();
    app.insert_resource(config)
        .add_plugins(DefaultPlugins.build().disable::<NetworkPlugin>())
        .add_plugins(ResourcePackPlugin);
    app.update();
    assert!(app.world.get_resource::<PackServer>().is_none());
}
