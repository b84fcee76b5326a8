//! `emoted loadtest` as DESIGN.md fixes it: one JSON line with the tick
//! times, the bytes per viewer and the displays, for both update policies.
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
fn bad_arguments_are_refused_with_a_message() {
    let out = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["loadtest", "--playbacks", "1", "--emote", "example:nope"])
        .output()
        .expect("emoted runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("example:nope"));
}
