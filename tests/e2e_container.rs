//! emoted in a container, built and run as an admin would where no
//! registry can be reached: Debian's Docker engine (installed with apt),
//! a daemon of the test's own on the host's network, a Debian base made
//! with debootstrap and `docker import`, docker/Dockerfile.prebuilt with
//! the binary cargo built for the tests. A real client joins through the
//! host's loopback, downloads the pack the container serves and dances;
//! `docker stop` then ends it cleanly: the player is told, the container
//! exits 0 with the shutdown line. See tests/common/container.rs for the
//! daemon, its clean-up and the cache in target/container-cache/.
//!
//! Skipped, with a line saying why, only where the daemon cannot start.

mod common;

use std::fs;
use std::thread;
use std::time::{Duration, Instant};

use common::container::{copy_tree, Container, Docker};
use common::{crate_root, free_port, http_get, sha1_hex, Plan};
use serde_json::json;

#[test]
fn the_prebuilt_image_serves_a_real_client_and_stops_clean() {
    let Some(docker) = Docker::start() else {
        return;
    };
    let base = docker.base_image();

    // What the file copies, as an admin's `docker build .` sends it
    // (the repository's .dockerignore), with the test's binary as BINARY.
    let context = docker.scratch("context");
    fs::copy(env!("CARGO_BIN_EXE_emoted"), context.join("emoted")).expect("copy the binary");
    for folder in ["emotes", "datapacks", "config"] {
        copy_tree(&crate_root().join(folder), &context.join(folder));
    }
    let image = format!("emoted-test:{}", std::process::id());
    docker.build(
        &crate_root().join("docker/Dockerfile.prebuilt"),
        &context,
        &[("BASE_IMAGE", base.as_str()), ("BINARY", "emoted")],
        &image,
    );

    // Loopback ports of its own, set through the environment (the image
    // listens for the pack on 0.0.0.0:25580).
    let started = Instant::now();
    let (port, pack_port) = (free_port(), free_port());
    let container = docker.run_detached(
        &image,
        &[
            ("EMOTED__SERVER__ADDRESS", format!("127.0.0.1:{port}")),
            (
                "EMOTED__RESOURCE_PACK__LISTEN",
                format!("127.0.0.1:{pack_port}"),
            ),
            (
                "EMOTED__RESOURCE_PACK__PUBLIC_URL",
                format!("http://127.0.0.1:{pack_port}"),
            ),
        ],
    );
    container.wait_ready(port);
    docker.phase("container start", started.elapsed());

    // Not root, and the data folder is the image's volume.
    let pid = container.inspect("{{.State.Pid}}");
    let status = fs::read_to_string(format!("/proc/{pid}/status")).expect("the process's status");
    let uid = status.lines().find(|l| l.starts_with("Uid:")).unwrap_or("");
    assert_eq!(
        uid.split_whitespace().nth(1),
        Some("10001"),
        "runs as emoted: {uid}"
    );
    let mounts = container.inspect("{{range .Mounts}}{{.Type}} {{.Destination}};{{end}}");
    assert_eq!(mounts, "volume /srv/emoted/data;");

    // Dave joins, accepts the pack, and dances until the container stops.
    let run_started = Instant::now();
    let dave = Plan::new(port, "dave")
        .resource_pack("accept")
        .wait_spawn()
        .wait_for(
            json!({"event": "resource_pack_answer", "result": "loaded"}),
            1,
            10_000,
        )
        .play_until_kicked("example:dance")
        .spawn();
    // The pack answers over the host's loopback, as the start-up line
    // names it.
    let pack = pack_named_in(&container);
    let answer = http_get(&format!("http://127.0.0.1:{pack_port}/pack/{pack}.zip"));
    assert_eq!(answer.status, 200);
    assert_eq!(sha1_hex(&answer.body), pack);
    // Joined, pack loaded and dancing by then (the bot needs about 3 s).
    thread::sleep(Duration::from_secs(7));
    let took = container.stop();
    let exit_code = container.inspect("{{.State.ExitCode}}");
    let dave = dave.wait();
    docker.phase("run (join, dance, stop)", run_started.elapsed());
    let log = container.log();

    assert_eq!(exit_code, "0", "docker stop ended it cleanly; log:\n{log}");
    assert!(
        took < Duration::from_secs(5),
        "stopped in {took:?}, well within docker stop's 10 s"
    );
    for line in [
        "options from the environment: EMOTED__RESOURCE_PACK__LISTEN, \
         EMOTED__RESOURCE_PACK__PUBLIC_URL, EMOTED__SERVER__ADDRESS",
        "player choices are kept in data/players.sqlite3",
        "stopping (SIGTERM): 1 players told, 1 playbacks ending",
        "emoted stopped in",
        "the player store closed",
    ] {
        assert!(log.contains(line), "no {line:?} in the log:\n{log}");
    }
    assert!(
        !log.contains('\u{1b}'),
        "NO_COLOR: plain lines for docker logs"
    );
    dave.assert_ok();
    assert_eq!(dave.kicked(), Some("Server closed"), "{}", dave.describe());
    assert!(!dave.display_ids().is_empty(), "the dance reached dave");
    let offers = dave.pack_offers();
    assert_eq!(offers.len(), 1, "{}", dave.describe());
    let url = &offers[0].url;
    assert!(
        url.starts_with(&format!("http://127.0.0.1:{pack_port}/pack/")),
        "the offered URL is public_url's: {url}"
    );
    let download = &dave.pack_downloads()[0];
    assert_eq!(download.http_status, Some(200), "{download:?}");
    assert_eq!(download.sha1.as_deref(), Some(offers[0].hash.as_str()));
    eprintln!(
        "container test ({} storage): {}",
        docker.driver(),
        docker.phases()
    );
}

/// docker/Dockerfile (from source, which no machine here can build: it
/// pulls the Rust image) and docker/Dockerfile.prebuilt (built above) run
/// the same stage: what the test above checks holds for both.
#[test]
fn the_two_dockerfiles_share_their_run_stage() {
    let run_stage = |file: &str| -> Vec<String> {
        let text = fs::read_to_string(crate_root().join("docker").join(file)).expect("read");
        let marker = text.find("# ---- run stage ----").expect("the marker");
        text[marker..]
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("ARG "))
            .filter(|l| !(l.starts_with("COPY ") && l.ends_with(" /usr/local/bin/emoted")))
            .map(str::to_owned)
            .collect()
    };
    let from_source = run_stage("Dockerfile");
    assert_eq!(from_source, run_stage("Dockerfile.prebuilt"));
    for needed in [
        "EXPOSE 25565/tcp 25580/tcp",
        "VOLUME [\"/srv/emoted/data\"]",
        "USER 10001:10001",
    ] {
        assert!(from_source.iter().any(|l| l == needed), "{needed}");
    }
}

/// The SHA-1 of the pack in the start-up line "resource pack <sha1> (N
/// bytes) for M emotes", waiting up to 10 s for it.
fn pack_named_in(container: &Container) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log = container.log();
        let sha1 = log
            .lines()
            .filter_map(|line| line.split_once("resource pack ").map(|(_, rest)| rest))
            .filter_map(|rest| rest.split_whitespace().next())
            .find(|word| word.len() == 40 && word.bytes().all(|b| b.is_ascii_hexdigit()));
        if let Some(sha1) = sha1 {
            return sha1.to_owned();
        }
        assert!(Instant::now() < deadline, "no pack line in the log:\n{log}");
        thread::sleep(Duration::from_millis(100));
    }
}
