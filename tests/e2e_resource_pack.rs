//! emoted's resource pack as a player and a downloader meet it: a real
//! server offers a real mineflayer client the pack at join with a 40-hex
//! SHA-1, a plain HTTP GET of the offered URL gets bytes with exactly that
//! SHA-1, and each answer has its effect: accepting keeps the player,
//! declining gets the chat line, declining a required pack is a kick, a
//! failed download gets its own chat line, and a client that never answers
//! breaks nothing. A reload that changes the emotes serves a new pack
//! under a new URL and offers it again.

mod common;

use std::fs;
use std::time::Duration;

use common::{http_get, http_request, run_all, sha1_hex, split_http_url, BotRun, Server, TempDir};
use serde_json::json;

const DECLINED: &str = "You declined emoted's resource pack";
const FAILED: &str = "emoted's resource pack could not be downloaded";
const KICKED: &str = "This server requires its resource pack";

fn is_sha1(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The one offer the bot got, checked: a 40-hex SHA-1 at the end of an
/// URL on the pack server's port.
fn the_offer(run: &BotRun, server: &Server) -> (String, String) {
    let offers = run.pack_offers();
    assert_eq!(offers.len(), 1, "one offer at join: {}", run.describe());
    let offer = offers[0];
    assert!(is_sha1(&offer.hash), "a 40-hex SHA-1: {offer:?}");
    let port = server.pack_address().port();
    assert_eq!(
        offer.url,
        format!("http://127.0.0.1:{port}/pack/{}.zip", offer.hash)
    );
    (offer.url.clone(), offer.hash.clone())
}

fn pack_lines<'a>(run: &'a BotRun, fragment: &str) -> Vec<&'a str> {
    run.chat()
        .into_iter()
        .filter(|l| l.contains(fragment))
        .collect()
}

#[test]
fn the_offered_url_serves_the_pack_and_each_answer_has_its_effect() {
    let mut server = Server::start();
    let plan = |name: &str, mode: &str| {
        server
            .bot(name)
            .resource_pack(mode)
            .wait_spawn()
            .wait_for_since_start(json!({"event": "resource_pack"}), 1, 10_000)
    };
    let runs = run_all(vec![
        plan("accepter", "accept")
            .wait_for_since_start(
                json!({"event": "resource_pack_answer", "result": "loaded"}),
                1,
                10_000,
            )
            .chat("/emote play example:wave")
            .wait_ms(1000)
            .disconnect(),
        plan("decliner", "decline")
            .wait_for_since_start(
                json!({"event": "chat", "text_contains": DECLINED}),
                1,
                10_000,
            )
            .wait_ms(1000)
            .disconnect(),
        plan("silent", "ignore")
            .chat("/emote play example:wave")
            .wait_ms(1500)
            .disconnect(),
    ]);
    for run in &runs {
        run.assert_ok();
    }
    let [accepter, decliner, silent] = &runs[..] else {
        unreachable!()
    };

    // The offer, and the pack at its URL with exactly that SHA-1.
    let (url, sha1) = the_offer(accepter, &server);
    for run in [decliner, silent] {
        assert_eq!(the_offer(run, &server), (url.clone(), sha1.clone()));
    }
    let offer = accepter.pack_offers()[0];
    assert!(!offer.forced, "optional by default");
    assert!(
        offer.prompt.as_deref().is_some_and(|p| p.contains("skin")),
        "{offer:?}"
    );
    let answer = http_get(&url);
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.header("content-type"), Some("application/zip"));
    assert_eq!(
        answer.header("content-length"),
        Some(answer.body.len().to_string().as_str())
    );
    assert!(!answer.body.is_empty());
    assert_eq!(
        sha1_hex(&answer.body),
        sha1,
        "the bytes have the offered SHA-1"
    );
    // They are emoted's pack: a zip whose pack.mcmeta says format 15
    // (1.20.1), with the skin shader in it.
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(answer.body.clone())).expect("a zip");
    let mut mcmeta = String::new();
    std::io::Read::read_to_string(
        &mut zip.by_name("pack.mcmeta").expect("pack.mcmeta"),
        &mut mcmeta,
    )
    .expect("text");
    let mcmeta: serde_json::Value = serde_json::from_str(&mcmeta).expect("JSON");
    assert_eq!(mcmeta["pack"]["pack_format"], 15, "{mcmeta}");
    assert!(zip
        .by_name("assets/minecraft/shaders/core/rendertype_entity_translucent.vsh")
        .is_ok());

    // The accepting client downloaded the same bytes and loaded them.
    let downloads = accepter.pack_downloads();
    assert_eq!(downloads.len(), 1, "{}", accepter.describe());
    assert_eq!(downloads[0].http_status, Some(200));
    assert_eq!(downloads[0].sha1.as_deref(), Some(sha1.as_str()));
    assert_eq!(accepter.pack_answers(), ["accepted", "loaded"]);
    // Loaded: one line, which says where to turn when the parts look wrong.
    let lines = pack_lines(accepter, "resource pack");
    assert_eq!(lines.len(), 1, "{:?}", accepter.chat());
    assert!(lines[0].contains("/emote parts off"), "{}", lines[0]);

    // Declining: exactly one line saying why and what the player sees.
    assert_eq!(decliner.pack_answers(), ["declined"]);
    let lines = pack_lines(decliner, DECLINED);
    assert_eq!(lines.len(), 1, "{:?}", decliner.chat());
    assert!(lines[0].contains("heads"), "{}", lines[0]);
    assert_eq!(decliner.kicked(), None);

    // Never answering: nothing said, nothing broken.
    assert!(silent.pack_answers().is_empty());
    assert!(
        pack_lines(silent, "resource pack").is_empty(),
        "{:?}",
        silent.chat()
    );

    // Anything but the current pack's path, and anything but GET or HEAD.
    let (address, path) = split_http_url(&url);
    let head = http_request(address, "HEAD", &path);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    for (method, path, status) in [
        (
            "GET",
            format!("/pack/{}.zip", sha1_hex(b"another pack")),
            404,
        ),
        ("GET", "/".to_owned(), 404),
        ("GET", format!("/{sha1}.zip"), 404),
        ("POST", path.clone(), 405),
        ("DELETE", path.clone(), 405),
    ] {
        assert_eq!(
            http_request(address, method, &path).status,
            status,
            "{method} {path}"
        );
    }

    assert!(server.log().contains("accepter loaded the resource pack"));
    assert!(server.log().contains("decliner declined the resource pack"));
    server.assert_log_clean();
}

#[test]
fn a_required_pack_kicks_a_decliner_and_keeps_an_accepter() {
    let dir = TempDir::new("pack-required");
    let config = dir.write("emoted.toml", "[resource_pack]\nrequired = true\n");
    let config = config.to_string_lossy().into_owned();
    let mut server = Server::start_with_args(&["emotes"], &["--config", &config]);
    let runs = run_all(vec![
        // The kick can come before the chunks: no wait_spawn.
        server.bot("refuser").resource_pack("decline").wait_end(),
        server
            .bot("keeper")
            .resource_pack("accept")
            .wait_spawn()
            .wait_for_since_start(
                json!({"event": "resource_pack_answer", "result": "loaded"}),
                1,
                10_000,
            )
            .wait_ms(1500)
            .disconnect(),
    ]);
    let [refuser, keeper] = &runs[..] else {
        unreachable!()
    };
    refuser.assert_ok();
    keeper.assert_ok();
    for run in [refuser, keeper] {
        the_offer(run, &server);
        assert!(run.pack_offers()[0].forced, "offered as required");
    }
    let reason = refuser
        .kicked()
        .unwrap_or_else(|| panic!("kicked: {}", refuser.describe()));
    assert!(reason.contains(KICKED), "{reason}");
    assert_eq!(keeper.kicked(), None);
    assert_eq!(keeper.pack_answers(), ["accepted", "loaded"]);
    assert!(server
        .log()
        .contains("refuser declined the resource pack, which is required"));
    server.assert_log_clean();
}

#[test]
fn a_pack_players_cannot_reach_gets_the_failed_line() {
    // public_url points where nothing listens: the client's download fails.
    let dir = TempDir::new("pack-unreachable");
    let nowhere = common::free_port();
    let config = dir.write(
        "emoted.toml",
        &format!("[resource_pack]\nrequired = true\npublic_url = \"http://127.0.0.1:{nowhere}\"\n"),
    );
    let config = config.to_string_lossy().into_owned();
    let mut server = Server::start_with_args(&["emotes"], &["--config", &config]);
    let run = server
        .bot("faraway")
        .resource_pack("accept")
        .wait_spawn()
        .wait_for_since_start(json!({"event": "chat", "text_contains": FAILED}), 1, 20_000)
        .wait_ms(1000)
        .disconnect()
        .run();
    run.assert_ok();
    let offers = run.pack_offers();
    assert_eq!(offers.len(), 1);
    assert!(offers[0]
        .url
        .starts_with(&format!("http://127.0.0.1:{nowhere}/pack/")));
    assert_eq!(run.pack_answers(), ["accepted", "failed_download"]);
    assert_eq!(pack_lines(&run, FAILED).len(), 1, "{:?}", run.chat());
    assert_eq!(run.kicked(), None, "a failed download is no refusal");
    assert!(server
        .log()
        .contains("faraway could not download or apply the resource pack"));
    server.assert_log_clean();
}

#[test]
fn a_reload_serves_the_new_pack_under_a_new_url_and_offers_it_again() {
    let emotes = TempDir::new("pack-reload");
    let source = |name: &str| format!("{}/emotes/{name}", env!("CARGO_MANIFEST_DIR"));
    fs::copy(source("heart.json"), emotes.path().join("heart.json")).expect("copy");
    let mut server = Server::start_with(&[emotes.path()]);
    let bot = server
        .bot("stayer")
        .resource_pack("accept")
        .wait_spawn()
        .wait_for_since_start(
            json!({"event": "resource_pack_answer", "result": "loaded"}),
            1,
            10_000,
        )
        .wait_for(json!({"event": "resource_pack"}), 1, 20_000)
        .wait_for_since_start(
            json!({"event": "resource_pack_answer", "result": "loaded"}),
            2,
            10_000,
        )
        .disconnect()
        .spawn();
    assert!(
        server.wait_for_log("stayer loaded the resource pack", Duration::from_secs(30)),
        "{}",
        server.log()
    );
    // A new emote whose skin-bound nodes cut the body into slices: the
    // watcher reloads, and the pack gains their models and shader entries.
    fs::copy(source("bow.json"), emotes.path().join("bow.json")).expect("copy");
    let run = bot.wait();
    run.assert_ok();
    let offers = run.pack_offers();
    assert_eq!(offers.len(), 2, "{}", run.describe());
    assert_ne!(offers[0].hash, offers[1].hash, "a new pack");
    assert_ne!(offers[0].url, offers[1].url, "under a new URL");
    let downloads = run.pack_downloads();
    assert_eq!(downloads.len(), 2);
    assert_eq!(downloads[1].sha1.as_deref(), Some(offers[1].hash.as_str()));
    let new = http_get(&offers[1].url);
    assert_eq!(new.status, 200);
    assert_eq!(sha1_hex(&new.body), offers[1].hash);
    assert_eq!(http_get(&offers[0].url).status, 404, "the old pack is gone");
    server.assert_log_clean();
}
