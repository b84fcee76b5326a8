//! Tick-rate reporting: every [`REPORT_EVERY_TICKS`] ticks the server logs
//! how many ticks per second it kept over the interval and how long its
//! longest tick took, so an admin (and the real-socket load test) can see
//! whether it holds 20 tps.
//!
//! A line looks like
//! `tick stats: 200 ticks in 10.01 s (19.98 tps), mean 1.20 ms, max 3.40 ms`.
//! The mean and max are the time from the start of one `Update` to its end
//! (the emote systems and everything else in that schedule); the tps is
//! wall-clock ticks over the interval.

use std::time::{Duration, Instant};

use valence::prelude::*;

/// Ticks between two reports.
pub const REPORT_EVERY_TICKS: u32 = 200;

/// Logs the tick rate and tick times.
pub struct TickStatsPlugin;

impl Plugin for TickStatsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TickStats>()
            .add_systems(First, tick_started)
            .add_systems(Last, tick_ended);
    }
}

/// What the current interval has seen.
#[derive(Resource, Debug)]
struct TickStats {
    interval_start: Instant,
    tick_start: Instant,
    ticks: u32,
    busy: Duration,
    longest: Duration,
}

impl Default for TickStats {
    fn default() -> Self {
        let now = Instant::now();
        Self {
            interval_start: now,
            tick_start: now,
            ticks: 0,
            busy: Duration::ZERO,
            longest: Duration::ZERO,
        }
    }
}

fn tick_started(mut stats: ResMut<TickStats>) {
    stats.tick_start = Instant::now();
}

fn tick_ended(mut stats: ResMut<TickStats>) {
    let took = stats.tick_start.elapsed();
    stats.ticks += 1;
    stats.busy += took;
    stats.longest = stats.longest.max(took);
    if stats.ticks >= REPORT_EVERY_TICKS {
        let seconds = stats.interval_start.elapsed().as_secs_f64();
        tracing::info!(
            "tick stats: {} ticks in {:.2} s ({:.2} tps), mean {:.2} ms, max {:.2} ms",
            stats.ticks,
            seconds,
            f64::from(stats.ticks) / seconds.max(1e-9),
            stats.busy.as_secs_f64() * 1000.0 / f64::from(stats.ticks),
            stats.longest.as_secs_f64() * 1000.0
        );
        *stats = TickStats::default();
    }
}
