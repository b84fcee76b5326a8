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
use valence::testing::{create_mock_client, MockClientHelper, PacketFrames};
use valence::ServerSettings;

use super::*;
use crate::library::Library;
use crate::pack::merge::Winner;
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
        let mut config = Scenario::config();
        config.resource_pack.required = required;
        Scenario::start(config, overridden)
    }

    /// The default configuration with the pack served on a free port.
    fn config() -> Config {
        let mut config = Config::default();
        config.resource_pack.listen = "127.0.0.1:0".parse().expect("address");
        config
    }

    fn start(config: Config, overridden: Option<ServedPack>) -> Scenario {
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

    /// A reload: the configuration changes, and ticks run until the pack
    /// built off the tick is served.
    fn reload(&mut self) {
        self.app.world.resource_mut::<Config>().set_changed();
        self.app.update();
        self.wait_for_the_build();
    }

    /// Runs ticks until no pack build runs (what it made is served then).
    fn wait_for_the_build(&mut self) {
        for _ in 0..2000 {
            if !self.app.world.resource::<PackBuilder>().is_building() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
            self.app.update();
        }
        panic!("the rebuild did not end in 10 s");
    }

    fn answer(&mut self, status: ResourcePackStatusC2s) {
        self.helper.send(&status);
        self.app.update();
    }

    /// Forgets what the client received, gives `answers` one tick each,
    /// and returns what the client received meanwhile, asserting how many
    /// chat lines and kicks were among it.
    fn answer_all(
        &mut self,
        answers: &[ResourcePackStatusC2s],
        chat_lines: usize,
        kicks: usize,
    ) -> PacketFrames {
        self.helper.clear_received();
        for answer in answers {
            self.answer(*answer);
        }
        let frames = self.helper.collect_received();
        frames.assert_count::<GameMessageS2c>(chat_lines);
        frames.assert_count::<DisconnectS2c>(kicks);
        frames
    }

    /// The SHA-1 of the pack the client was offered since the last look,
    /// if any (more than one offer fails the test).
    fn offered_since(&mut self) -> Option<String> {
        let frames = self.helper.collect_received();
        let offers = frames
            .0
            .iter()
            .filter(|f| f.id == ResourcePackSendS2c::ID)
            .count();
        assert!(offers <= 1, "{offers} offers at once");
        (offers == 1).then(|| frames.first::<ResourcePackSendS2c>().hash.to_owned())
    }

    /// Puts the bundled emotes in the library and runs ticks until the
    /// pack is rebuilt (a reload).
    fn load_bundled_emotes(&mut self) {
        let bundled = [PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/emotes"
        ))];
        self.app.world.resource_mut::<EmoteLibrary>().0 = Library::load(&bundled).library;
        self.app.update();
        self.wait_for_the_build();
    }

    /// True while the client's entity is there (not yet disconnected).
    fn is_connected(&self) -> bool {
        self.app.world.get::<Client>(self.client).is_some()
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
fn each_answer_moves_the_status_and_says_what_it_should() {
    use ResourcePackStatusC2s::{Accepted, Declined, FailedDownload, SuccessfullyLoaded};
    // (required, answers, chat lines, what a chat line says, status after)
    let cases: [(bool, &[ResourcePackStatusC2s], usize, &str, PackStatus); 4] = [
        // Accepting keeps the player, with nothing said; loading says
        // once where to turn when the parts look wrong.
        (true, &[Accepted], 0, "", PackStatus::Accepted),
        (
            true,
            &[Accepted, SuccessfullyLoaded],
            1,
            "/emote parts off",
            PackStatus::Loaded,
        ),
        // Declining an optional pack: one chat line, no kick.
        (false, &[Declined], 1, "declined", PackStatus::Declined),
        // A failed download: one chat line, no kick even when required.
        (true, &[Accepted, FailedDownload], 1, "", PackStatus::Failed),
    ];
    for (required, answers, chat_lines, says, status) in cases {
        let mut s = Scenario::new(required);
        let frames = s.answer_all(answers, chat_lines, 0);
        assert_eq!(s.status(), Some(status), "{answers:?}");
        if chat_lines > 0 {
            let line = frames.first::<GameMessageS2c>();
            assert!(format!("{:?}", line.chat).contains(says), "{line:?}");
        }
        assert!(s.is_connected(), "{answers:?}");
    }
}

#[test]
fn declining_a_required_pack_kicks_with_the_reason() {
    let mut s = Scenario::new(true);
    let frames = s.answer_all(&[ResourcePackStatusC2s::Declined], 0, 1);
    let kick = frames.first::<DisconnectS2c>();
    assert!(
        format!("{:?}", kick.reason).contains("requires"),
        "{kick:?}"
    );
    assert!(
        s.is_connected(),
        "the message goes out before the connection closes"
    );
    for _ in 0..=KICK_GRACE_TICKS {
        s.app.update();
    }
    assert!(!s.is_connected(), "disconnected");
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
    for decline in [false, true] {
        let mut s = Scenario::new(false);
        if decline {
            s.answer(ResourcePackStatusC2s::Declined);
        } else {
            s.answer(ResourcePackStatusC2s::SuccessfullyLoaded);
        }
        let old = s.server().current().expect("built");
        s.helper.clear_received();
        s.load_bundled_emotes();
        let new = s.server().current().expect("rebuilt");
        assert_ne!(old.sha1_hex(), new.sha1_hex());
        let offered = s.offered_since();
        if decline {
            assert_eq!(offered, None);
            assert_eq!(s.status(), Some(PackStatus::Declined));
        } else {
            assert_eq!(offered.as_deref(), Some(new.sha1_hex()));
            assert_eq!(s.status(), Some(PackStatus::Offered));
            // The new pack loads: the player was told about the parts
            // with the first one, and is not told again.
            let frames = s.answer_all(&[ResourcePackStatusC2s::SuccessfullyLoaded], 0, 0);
            frames.assert_count::<GameMessageS2c>(0);
            assert_eq!(s.status(), Some(PackStatus::Loaded));
        }
        // A library change that keeps the pack offers nothing.
        s.helper.clear_received();
        s.load_bundled_emotes();
        assert_eq!(s.offered_since(), None);
    }
}

#[test]
fn an_override_is_served_from_the_start_and_a_new_one_is_offered_again() {
    let first = ServedPack::new(vec![7u8; 3000]);
    let mut s = Scenario::serving(false, Some(first.clone()));
    assert_eq!(s.server().current(), Some(first.clone()));
    assert_eq!(s.offered_since().as_deref(), Some(first.sha1_hex()));
    let port = s.server().bound().port();
    let path = url::pack_path(first.sha1_hex());
    let (status, _, body) = exchange(port, &format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n"));
    assert_eq!(status, 200);
    assert_eq!(body, first.bytes().to_vec());

    // A library change keeps the override.
    s.load_bundled_emotes();
    assert_eq!(s.server().current(), Some(first));
    assert_eq!(s.offered_since(), None);

    let second = ServedPack::new(vec![8u8; 10]);
    s.app.insert_resource(ServedPackOverride(second.clone()));
    s.app.update();
    assert_eq!(s.server().current(), Some(second.clone()));
    assert_eq!(s.offered_since().as_deref(), Some(second.sha1_hex()));
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

/// A zip of `entries`, written where the admin's pack is configured.
fn write_admin_zip(path: &std::path::Path, entries: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        zip.start_file(*name, zip::write::SimpleFileOptions::DEFAULT)
            .expect("entry");
        zip.write_all(bytes).expect("write");
    }
    let bytes = zip.finish().expect("zip").into_inner();
    std::fs::write(path, bytes).expect("write the admin pack");
}

/// The text of `name` in the zip `bytes`.
fn zip_entry(bytes: &[u8], name: &str) -> String {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
    let mut file = archive.by_name(name).expect(name);
    let mut text = String::new();
    file.read_to_string(&mut text).expect("UTF-8");
    text
}

#[test]
fn the_admins_pack_is_served_inside_ours_and_read_again_on_reload() {
    const MCMETA: &[u8] = br#"{"pack":{"pack_format":15,"description":"Ours"}}"#;
    const TEXTURE: &str = "assets/minecraft/textures/block/stone.png";
    const VSH: &str = "assets/minecraft/shaders/core/rendertype_entity_translucent.vsh";
    let dir = std::env::temp_dir().join(format!("emoted-pack-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let admin = dir.join("admin.zip");
    write_admin_zip(
        &admin,
        &[
            ("pack.mcmeta", MCMETA),
            (TEXTURE, b"stone 1"),
            (VSH, b"their shader"),
        ],
    );
    let mut config = Scenario::config();
    config.resource_pack.merge = admin.clone();
    let mut s = Scenario::start(config, None);

    let report = s.app.world.resource::<PackMergeReport>().clone();
    assert_eq!(report.source.as_deref(), Some(admin.as_path()));
    assert_eq!(report.error, None);
    let winners: Vec<(&str, Winner)> = report
        .conflicts
        .iter()
        .map(|c| (c.path.as_str(), c.winner))
        .collect();
    assert_eq!(
        winners,
        [(VSH, Winner::Ours), ("pack.mcmeta", Winner::Merged)]
    );

    // What a client downloads has their texture and our shader.
    let first = s.server().current().expect("built");
    assert_eq!(s.offered_since().as_deref(), Some(first.sha1_hex()));
    let port = s.server().bound().port();
    let path = url::pack_path(first.sha1_hex());
    let (status, _, body) = exchange(port, &format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n"));
    assert_eq!(status, 200);
    assert_eq!(sha1_hex(&body), first.sha1_hex());
    assert_eq!(zip_entry(&body, TEXTURE), "stone 1");
    assert!(zip_entry(&body, VSH).contains("TWIN_UV2"), "our shader");
    assert!(zip_entry(&body, "pack.mcmeta").contains("Ours + emoted"));

    // A changed admin pack is read by the next reload (which changes the
    // configuration) and offered again.
    write_admin_zip(&admin, &[("pack.mcmeta", MCMETA), (TEXTURE, b"stone 2")]);
    s.reload();
    let second = s.server().current().expect("rebuilt");
    assert_ne!(second.sha1_hex(), first.sha1_hex());
    assert_eq!(s.offered_since().as_deref(), Some(second.sha1_hex()));
    assert_eq!(zip_entry(second.bytes(), TEXTURE), "stone 2");

    // One that cannot be read now (a half-copied zip): the error is kept,
    // and the pack read before stays merged; nothing new is offered.
    std::fs::write(&admin, b"not a zip").expect("write");
    s.reload();
    let report = s.app.world.resource::<PackMergeReport>().clone();
    let error = report.error.expect("an error");
    assert!(
        error.contains("admin.zip") && error.contains("not a zip"),
        "{error}"
    );
    assert_eq!(s.server().current(), Some(second.clone()), "the last good");
    assert_eq!(s.offered_since(), None);

    // A newly configured path that cannot be read: emoted's pack alone.
    let other = dir.join("other.zip");
    std::fs::write(&other, b"not a zip either").expect("write");
    s.app.world.resource_mut::<Config>().resource_pack.merge = other;
    s.reload();
    let alone = current_pack(&s.app.world.resource::<EmoteLibrary>().0, None)
        .expect("builds")
        .pack;
    assert_eq!(s.server().current(), Some(alone));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rebuild_runs_off_the_tick_and_the_old_pack_is_served_meanwhile() {
    const MCMETA: &[u8] = br#"{"pack":{"pack_format":15,"description":"Big"}}"#;
    let dir = std::env::temp_dir().join(format!("emoted-pack-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let admin = dir.join("big.zip");
    // 16 MiB that do not compress (xorshift): reading and deflating them
    // again takes the build far longer than a tick's few microseconds.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let noise: Vec<u8> = (0..16 << 20)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    write_admin_zip(
        &admin,
        &[
            ("pack.mcmeta", MCMETA),
            ("assets/minecraft/textures/noise.png", &noise),
        ],
    );
    let mut config = Scenario::config();
    config.resource_pack.merge = admin;
    let mut s = Scenario::start(config, None);
    let first = s
        .server()
        .current()
        .expect("built at start-up, in the tick");
    s.offered_since();

    s.app.world.resource_mut::<Config>().set_changed();
    s.app.update();
    assert!(
        s.app.world.resource::<PackBuilder>().is_building(),
        "the tick returned while the pack builds"
    );
    assert_eq!(
        s.server().current(),
        Some(first.clone()),
        "the old one meanwhile"
    );
    s.wait_for_the_build();
    // The same emotes and the same admin pack: the same pack, not offered again.
    assert_eq!(s.server().current(), Some(first));
    assert_eq!(s.offered_since(), None);
    let _ = std::fs::remove_dir_all(&dir);
}
