use std::time::Duration;

use hyper::{Method, StatusCode};

use super::http::{respond, Sources, CONTENT_TYPE_TEXT};
use super::*;

fn sources() -> Sources {
    Sources {
        counters: ServerCounters::default(),
        gauges: Gauges::default(),
        ticks: TickHistogram::default(),
    }
}

#[test]
fn the_histogram_is_cumulative_and_ends_with_every_tick() {
    let ticks = TickHistogram::default();
    for millis in [0.5, 3.0, 3.0, 40.0, 2000.0] {
        ticks.observe(Duration::from_secs_f64(millis / 1000.0));
    }
    let ticks = ticks.snapshot();
    assert_eq!(ticks.cumulative_counts(), [1, 1, 3, 3, 3, 4, 4, 4, 4, 4]);
    assert_eq!(ticks.count(), 5, "the 2 s tick is only in +Inf");
    assert!((ticks.sum_seconds() - 2.0465).abs() < 1e-9);
}

#[test]
fn the_text_has_every_metric_with_its_type_and_labels() {
    let sources = sources();
    sources.gauges.0.players_online.store(3, Ordering::Relaxed);
    sources
        .gauges
        .0
        .tps
        .store(19.5f64.to_bits(), Ordering::Relaxed);
    sources
        .counters
        .plugin_message_dropped("emotecraft:emote", "rate");
    sources.ticks.observe(Duration::from_millis(2));
    let text = render::render(&sources.counters, &sources.gauges, &sources.ticks);
    for line in [
        "# TYPE minecraft_players_online gauge",
        "minecraft_players_online 3",
        "minecraft_tps 19.5",
        "# TYPE minecraft_tick_duration_seconds histogram",
        "minecraft_tick_duration_seconds_bucket{le=\"0.0025\"} 1",
        "minecraft_tick_duration_seconds_bucket{le=\"+Inf\"} 1",
        "minecraft_tick_duration_seconds_count 1",
        "emoted_playbacks_active 0",
        "emoted_display_entities 0",
        "emoted_emotes_loaded 0",
        "emoted_bytes_sent_total{kind=\"display_updates\"} 0",
        "emoted_bytes_sent_total{kind=\"resource_pack\"} 0",
        "emoted_reloads_total{result=\"ok\"} 0",
        "emoted_reloads_total{result=\"errors\"} 0",
        "# TYPE emoted_pack_downloads_total counter",
        "emoted_molang_budget_stops_total 0",
        "emoted_plugin_messages_dropped_total{channel=\"emotecraft:emote\",reason=\"rate\"} 1",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in\n{text}");
    }
    // Every sample line belongs to the metric of the TYPE line above it.
    let mut current = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            current = rest.split(' ').next().unwrap_or_default().to_owned();
        } else if !line.starts_with('#') {
            assert!(line.starts_with(&current), "{line} after TYPE {current}");
        }
    }
}

#[test]
fn only_get_and_head_of_metrics_are_answered() {
    let sources = sources();
    let answer = respond(&Method::GET, "/metrics", &sources);
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(answer.headers()["content-type"], CONTENT_TYPE_TEXT);
    assert_eq!(
        respond(&Method::HEAD, "/metrics", &sources).status(),
        StatusCode::OK
    );
    assert_eq!(
        respond(&Method::GET, "/", &sources).status(),
        StatusCode::NOT_FOUND
    );
    let post = respond(&Method::POST, "/metrics", &sources);
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(post.headers()["allow"], "GET, HEAD");
}

#[test]
fn a_metadata_packet_counts_its_length_prefix_id_and_entity() {
    // 3 metadata bytes, entity 300 (two VarInt bytes): body 1 + 2 + 3 = 6,
    // one length byte.
    assert_eq!(metadata_packet_bytes(300, &[0, 1, 0xff]), 7);
    assert_eq!(varint_len(127), 1);
    assert_eq!(varint_len(128), 2);
    assert_eq!(varint_len(-1), 5);
}
