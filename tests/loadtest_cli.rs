//! `emoted loadtest` as DESIGN.md fixes it: one JSON line with the tick
//! times, the bytes per viewer and the displays, for both update policies,
//! and the pack downloads run against emoted's own pack server.
//! (The figures themselves are measured in release builds for the README;
//! this checks the tool works and that scheduling really sends less.)

use std::process::Command;

use serde_json::Value;

fn loadtest(extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "loadtest",
            "--playbacks",
            "6",
            "--viewers",
            "8",
            "--ticks",
            "60",
        ])
        .args(extra)
        .output()
        .expect("emoted runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().expect("one line");
    serde_json::from_str(line).expect("a JSON line")
}

#[test]
fn the_report_has_every_field_and_scheduling_sends_fewer_bytes() {
    let scheduled = loadtest(&[]);
    let per_tick = loadtest(&["--per-tick"]);
    for report in [&scheduled, &per_tick] {
        assert_eq!(report["playbacks"], 6);
        assert_eq!(report["viewers"], 8);
        assert_eq!(report["ticks"], 60);
        for field in [
            "mspt_mean",
            "mspt_p50",
            "mspt_p99",
            "bytes_per_viewer_per_s",
        ] {
            assert!(
                report[field].as_f64().is_some_and(|v| v > 0.0),
                "{field}: {report}"
            );
        }
        assert!(report["mspt_p99"].as_f64() >= report["mspt_p50"].as_f64());
        // The default mix averages well over 7 displays per playback.
        assert!(
            report["entities"].as_u64().is_some_and(|n| n >= 6 * 7),
            "{report}"
        );
    }
    assert_eq!(scheduled["per_tick"], false);
    assert_eq!(per_tick["per_tick"], true);
    let bytes = |r: &Value| r["bytes_per_viewer_per_s"].as_f64().unwrap_or(0.0);
    assert!(
        bytes(&scheduled) < bytes(&per_tick),
        "scheduled {scheduled} against per-tick {per_tick}"
    );
}

#[test]
fn pack_downloads_run_against_the_real_pack_server_during_the_ticks() {
    let out = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "loadtest",
            "--playbacks",
            "5",
            "--viewers",
            "5",
            "--ticks",
            "40",
            "--pack-downloads",
            "4",
            "--pack-bytes",
            "65536",
        ])
        .output()
        .expect("emoted runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value =
        serde_json::from_str(stdout.lines().last().expect("one line")).expect("a JSON line");
    assert_eq!(report["ticks"], 40);
    assert!(
        report["mspt_p99"].as_f64().is_some_and(|v| v > 0.0),
        "{report}"
    );
    let downloads = &report["pack_downloads"];
    assert_eq!(downloads["clients"], 4, "{report}");
    assert_eq!(downloads["pack_bytes"], 65536, "{report}");
    assert_eq!(downloads["failures"], 0, "{report}");
    let completed = downloads["completed"].as_u64().unwrap_or(0);
    assert!(completed > 0, "{report}");
    assert_eq!(
        downloads["bytes"].as_u64(),
        Some(completed * 65536),
        "{report}"
    );
    // The served pack is the sized one, from emoted's own server.
    assert!(
        stderr.contains("(65536 bytes), set by ServedPackOverride"),
        "{stderr}"
    );

    // Without the flag there is no pack server and no such object.
    assert!(loadtest(&[]).get("pack_downloads").is_none());
}

#[test]
fn bad_arguments_are_refused_with_a_message() {
    let out = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["loadtest", "--playbacks", "1", "--emote", "example:nope"])
        .output()
        .expect("emoted runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("example:nope"));

    for (args, says) in [
        (&["--pack-downloads", "1000"][..], "--pack-downloads"),
        (
            &["--pack-downloads", "1", "--pack-bytes", "0"][..],
            "--pack-bytes",
        ),
        // --pack-bytes alone: nothing would download it.
        (&["--pack-bytes", "1000"][..], "--pack-downloads"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_emoted"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["loadtest", "--playbacks", "1", "--ticks", "1"])
            .args(args)
            .output()
            .expect("emoted runs");
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn open_wheels_opens_a_wheel_for_every_viewer_and_sends_them() {
    let plain = loadtest(&[]);
    let wheels = loadtest(&["--open-wheels"]);
    assert_eq!(wheels["wheels_open"], 8, "{wheels}");
    assert!(plain.get("wheels_open").is_none(), "{plain}");
    // Each viewer gets its window again and again: more bytes than without.
    let bytes = |r: &Value| r["bytes_per_viewer_per_s"].as_f64().unwrap_or(0.0);
    assert!(bytes(&wheels) > bytes(&plain), "{wheels} against {plain}");
}

#[test]
fn cameras_fly_for_every_player_and_their_moves_are_counted() {
    // The guitar: no body, so no head turning to face a camera's eye.
    let without = loadtest(&["--emote", "example:guitar", "--breakdown"]);
    let with = loadtest(&["--emote", "example:guitar", "--cameras", "--breakdown"]);
    assert!(without.get("cameras_flying").is_none(), "{without}");
    // Six players play, each steering its own camera.
    assert_eq!(with["cameras_flying"], 6, "{with}");
    // Each camera goes to its player alone: the displays cost the same,
    // and the camera's moves come on top.
    assert_eq!(
        with["bytes_by_packet"]["EntityTrackerUpdateS2c"],
        without["bytes_by_packet"]["EntityTrackerUpdateS2c"],
        "{with}\n{without}"
    );
    let bytes = |r: &Value| r["bytes_per_viewer_per_s"].as_f64().expect("bytes");
    assert!(bytes(&with) > bytes(&without) + 100.0, "{with}\n{without}");
}
