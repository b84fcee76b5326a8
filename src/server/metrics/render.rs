//! The Prometheus text exposition format (version 0.0.4): for each metric
//! a `# HELP` and a `# TYPE` line, then its samples, `name{label="value"}
//! number`, one a line; a histogram as cumulative `_bucket{le=…}` samples
//! ending with `+Inf`, then `_sum` and `_count`.

use std::fmt::Write;

use super::{Gauges, TickHistogram, TICK_BUCKETS_SECONDS};
use crate::server::counters::{ReloadResult, SentKind, ServerCounters};

/// Every metric, as Prometheus text.
pub fn render(counters: &ServerCounters, gauges: &Gauges, ticks: &TickHistogram) -> String {
    let mut text = String::with_capacity(4096);
    let plain = |value: String| vec![(String::new(), value)];
    metric(
        &mut text,
        "minecraft_players_online",
        "gauge",
        "Players on the server.",
        &plain(gauges.players_online().to_string()),
    );
    metric(
        &mut text,
        "minecraft_tps",
        "gauge",
        "Ticks per second over the last second (20 when the server keeps up).",
        &plain(number(gauges.tps())),
    );
    let ticks = ticks.snapshot();
    let mut buckets: Vec<(String, String)> = TICK_BUCKETS_SECONDS
        .iter()
        .zip(ticks.cumulative_counts())
        .map(|(le, count)| (format!("{{le=\"{}\"}}", number(*le)), count.to_string()))
        .collect();
    buckets.push(("{le=\"+Inf\"}".to_owned(), ticks.count().to_string()));
    let histogram = "minecraft_tick_duration_seconds";
    let _ = writeln!(
        text,
        "# HELP {histogram} How long each tick's work took (not the wait for the next tick)."
    );
    let _ = writeln!(text, "# TYPE {histogram} histogram");
    for (labels, value) in &buckets {
        let _ = writeln!(text, "{histogram}_bucket{labels} {value}");
    }
    let _ = writeln!(text, "{histogram}_sum {}", number(ticks.sum_seconds()));
    let _ = writeln!(text, "{histogram}_count {}", ticks.count());
    metric(
        &mut text,
        "emoted_playbacks_active",
        "gauge",
        "Emotes playing now (a two-player Sequence counts once).",
        &plain(gauges.playbacks_active().to_string()),
    );
    metric(
        &mut text,
        "emoted_display_entities",
        "gauge",
        "Display entities emotes have in the world now.",
        &plain(gauges.display_entities().to_string()),
    );
    metric(
        &mut text,
        "emoted_emotes_loaded",
        "gauge",
        "Animations and Sequences in the library.",
        &plain(gauges.emotes_loaded().to_string()),
    );
    let sent: Vec<(String, String)> = SentKind::ALL
        .iter()
        .map(|kind| {
            (
                format!("{{kind=\"{}\"}}", kind.label()),
                counters.bytes_sent(*kind).to_string(),
            )
        })
        .collect();
    metric(
        &mut text,
        "emoted_bytes_sent_total",
        "counter",
        "Bytes emoted sent, by what they carried (display_updates: display metadata packets, once per receiving client, before compression; resource_pack: pack downloads).",
        &sent,
    );
    let reloads: Vec<(String, String)> =
        [(ReloadResult::Ok, "ok"), (ReloadResult::Errors, "errors")]
            .iter()
            .map(|(result, label)| {
                (
                    format!("{{result=\"{label}\"}}"),
                    counters.reloads(*result).to_string(),
                )
            })
            .collect();
    metric(
        &mut text,
        "emoted_reloads_total",
        "counter",
        "Reloads of the emotes and configuration (errors: something was refused and kept at its last good version).",
        &reloads,
    );
    metric(
        &mut text,
        "emoted_pack_downloads_total",
        "counter",
        "Resource pack downloads served.",
        &plain(counters.pack_downloads().to_string()),
    );
    metric(
        &mut text,
        "emoted_molang_budget_stops_total",
        "counter",
        "Playbacks stopped because their Molang ran out of its operation budget.",
        &plain(counters.molang_budget_stops().to_string()),
    );
    let dropped: Vec<(String, String)> = counters
        .plugin_messages_dropped()
        .into_iter()
        .map(|((channel, reason), count)| {
            (
                format!("{{channel=\"{channel}\",reason=\"{reason}\"}}"),
                count.to_string(),
            )
        })
        .collect();
    metric(
        &mut text,
        "emoted_plugin_messages_dropped_total",
        "counter",
        "Plugin messages from modded clients dropped (rate: over the per-second limit; malformed: unreadable).",
        &dropped,
    );
    text
}

/// One metric: its help, its type and its samples (`labels` with their
/// braces, or empty).
fn metric(text: &mut String, name: &str, kind: &str, help: &str, samples: &[(String, String)]) {
    let _ = writeln!(text, "# HELP {name} {help}");
    let _ = writeln!(text, "# TYPE {name} {kind}");
    for (labels, value) in samples {
        let _ = writeln!(text, "{name}{labels} {value}");
    }
}

/// A number as Prometheus writes it (`+Inf`, `NaN`, or the shortest
/// decimal that reads back).
fn number(value: f64) -> String {
    if value.is_nan() {
        "NaN".to_owned()
    } else if value.is_infinite() {
        if value > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else {
        format!("{value}")
    }
}
