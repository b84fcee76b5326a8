//! Metrics for Prometheus: `GET /metrics` on `[metrics] listen`, off
//! unless `[metrics] enabled`.
//!
//! The names follow what Minecraft server dashboards already read
//! (`minecraft_players_online`, `minecraft_tps`,
//! `minecraft_tick_duration_seconds`), then emoted's own (`emoted_…`); the
//! full list with their meaning is in [`render`]. No metric has a
//! per-player label: a server's series stay few whoever joins.
//!
//! Three kinds of source, all readable off the tick so a scrape never
//! waits for it:
//! - **counters** that features add to as things happen
//!   ([`ServerCounters`], shared with the resource pack's HTTP server);
//! - **gauges** this plugin samples at the end of every tick while the
//!   endpoint is on ([`Gauges`]: players, playbacks, display entities,
//!   emotes loaded, tps);
//! - **the tick histogram** ([`TickHistogram`]): the time from the start
//!   of `First` to the end of `Last`, the tick's work without the sleep
//!   before the next one.
//!
//! `emoted_bytes_sent_total{kind="display_updates"}` is measured from
//! valence's own encoding: each tick, every emote display whose metadata
//! changed adds its encoded update (packet id, entity id, metadata, length
//! prefix; before compression) once for each client that sees the
//! display's layer (see [`crate::server::cull`]). Spawns, despawns and
//! moves are not in it.

pub mod http;
pub mod render;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use valence::entity::tracked_data::TrackedData;
use valence::entity::{ClearEntityChangesSet, EntityId, EntityLayerId, UpdateTrackedDataSet};
use valence::prelude::*;

use crate::server::config::Config;
use crate::server::counters::{SentKind, ServerCounters};
use crate::server::emote::ActiveEmote;
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::EmoteDisplay;
use crate::server::runtime::NetworkRuntime;

pub use http::MetricsServer;

/// The tick histogram's buckets, in seconds (a 20 tps tick has 50 ms).
pub const TICK_BUCKETS_SECONDS: [f64; 10] =
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0];

/// What the plugin samples each tick, shared with the endpoint.
#[derive(Resource, Clone, Debug, Default)]
pub struct Gauges(Arc<GaugeValues>);

/// The inside of [`Gauges`].
#[derive(Debug, Default)]
pub struct GaugeValues {
    players_online: AtomicU64,
    playbacks_active: AtomicU64,
    display_entities: AtomicU64,
    emotes_loaded: AtomicU64,
    /// `f64` bits.
    tps: AtomicU64,
}

impl Gauges {
    /// Players on the server.
    pub fn players_online(&self) -> u64 {
        self.0.players_online.load(Ordering::Relaxed)
    }
    /// Emotes playing.
    pub fn playbacks_active(&self) -> u64 {
        self.0.playbacks_active.load(Ordering::Relaxed)
    }
    /// Emote display entities.
    pub fn display_entities(&self) -> u64 {
        self.0.display_entities.load(Ordering::Relaxed)
    }
    /// Emotes in the library.
    pub fn emotes_loaded(&self) -> u64 {
        self.0.emotes_loaded.load(Ordering::Relaxed)
    }
    /// Ticks per second over the last second (0 before the first second).
    pub fn tps(&self) -> f64 {
        f64::from_bits(self.0.tps.load(Ordering::Relaxed))
    }
}

/// How long ticks took: counts per bucket, their sum and number.
#[derive(Resource, Clone, Debug, Default)]
pub struct TickHistogram(Arc<Mutex<TickCounts>>);

/// The inside of [`TickHistogram`].
#[derive(Debug, Default, Clone)]
pub struct TickCounts {
    /// Ticks at or under each of [`TICK_BUCKETS_SECONDS`] (not cumulative).
    in_bucket: [u64; TICK_BUCKETS_SECONDS.len()],
    count: u64,
    sum_seconds: f64,
}

impl TickHistogram {
    /// Adds one tick that took `took`.
    pub fn observe(&self, took: Duration) {
        let seconds = took.as_secs_f64();
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bucket) = TICK_BUCKETS_SECONDS.iter().position(|le| seconds <= *le) {
            counts.in_bucket[bucket] += 1;
        }
        counts.count += 1;
        counts.sum_seconds += seconds;
    }

    /// The counts at one moment: the buckets, the count and the sum of a
    /// scrape all come from the same ticks.
    pub fn snapshot(&self) -> TickCounts {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl TickCounts {
    /// Ticks at or under each bucket's bound, cumulative as Prometheus
    /// wants them.
    pub fn cumulative_counts(&self) -> Vec<u64> {
        let mut total = 0;
        self.in_bucket
            .iter()
            .map(|n| {
                total += n;
                total
            })
            .collect()
    }

    /// Ticks observed.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Their total time.
    pub fn sum_seconds(&self) -> f64 {
        self.sum_seconds
    }
}

/// The metrics (module docs).
pub struct MetricsPlugin;

impl Plugin for MetricsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ServerCounters>()
            .init_resource::<Gauges>()
            .init_resource::<TickHistogram>()
            .init_resource::<TickClock>()
            .add_systems(PostStartup, start_metrics_server)
            .add_systems(First, tick_started.run_if(metrics_enabled))
            .add_systems(Last, (sample_gauges, tick_ended).run_if(metrics_enabled))
            .add_systems(
                PostUpdate,
                count_display_updates
                    .run_if(metrics_enabled)
                    .after(UpdateTrackedDataSet)
                    .before(ClearEntityChangesSet),
            );
    }
}

/// The per-tick sampling runs only while the endpoint is on (the counters
/// features add to cost an atomic add and always count).
fn metrics_enabled(config: Res<Config>) -> bool {
    config.metrics.enabled
}

/// When the current tick started, and the last second's tick count.
#[derive(Resource, Debug)]
struct TickClock {
    tick_start: Instant,
    second_start: Instant,
    ticks_this_second: u32,
}

impl Default for TickClock {
    fn default() -> Self {
        let now = Instant::now();
        Self {
            tick_start: now,
            second_start: now,
            ticks_this_second: 0,
        }
    }
}

fn tick_started(mut clock: ResMut<TickClock>) {
    clock.tick_start = Instant::now();
}

fn tick_ended(mut clock: ResMut<TickClock>, histogram: Res<TickHistogram>, gauges: Res<Gauges>) {
    let now = Instant::now();
    histogram.observe(now - clock.tick_start);
    clock.ticks_this_second += 1;
    let elapsed = now - clock.second_start;
    if elapsed >= Duration::from_secs(1) {
        let tps = f64::from(clock.ticks_this_second) / elapsed.as_secs_f64();
        gauges.0.tps.store(tps.to_bits(), Ordering::Relaxed);
        clock.ticks_this_second = 0;
        clock.second_start = now;
    }
}

fn sample_gauges(
    gauges: Res<Gauges>,
    clients: Query<(), With<Client>>,
    playbacks: Query<(), With<ActiveEmote>>,
    displays: Query<(), With<EmoteDisplay>>,
    library: Option<Res<EmoteLibrary>>,
) {
    let values = &gauges.0;
    let count = |n: usize| n as u64;
    values
        .players_online
        .store(count(clients.iter().count()), Ordering::Relaxed);
    values
        .playbacks_active
        .store(count(playbacks.iter().count()), Ordering::Relaxed);
    values
        .display_entities
        .store(count(displays.iter().count()), Ordering::Relaxed);
    values
        .emotes_loaded
        .store(count(library.map_or(0, |l| l.0.len())), Ordering::Relaxed);
}

/// Bytes of the metadata packet that carries `metadata` for `entity_id`,
/// before compression: length prefix, packet id, entity id, metadata.
fn metadata_packet_bytes(entity_id: i32, metadata: &[u8]) -> u64 {
    let body = 1 + varint_len(entity_id) + metadata.len();
    (varint_len(body as i32) + body) as u64
}

fn varint_len(value: i32) -> usize {
    let mut bits = value as u32;
    let mut len = 1;
    while bits >= 0x80 {
        bits >>= 7;
        len += 1;
    }
    len
}

fn count_display_updates(
    displays: Query<(&TrackedData, &EntityLayerId, &EntityId), With<EmoteDisplay>>,
    viewers: Query<&VisibleEntityLayers, With<Client>>,
    counters: Res<ServerCounters>,
    mut per_layer: Local<std::collections::HashMap<Entity, u64>>,
) {
    per_layer.clear();
    let mut counted_viewers = false;
    let mut bytes = 0;
    for (tracked, layer, id) in &displays {
        let Some(update) = tracked.update_data() else {
            continue;
        };
        // Who sees which layer, once a tick and only when needed.
        if !counted_viewers {
            counted_viewers = true;
            for visible in &viewers {
                for layer in &visible.0 {
                    *per_layer.entry(*layer).or_insert(0) += 1;
                }
            }
        }
        let receivers = per_layer.get(&layer.0).copied().unwrap_or(0);
        bytes += receivers * metadata_packet_bytes(id.get(), update);
    }
    if bytes > 0 {
        counters.sent(SentKind::DisplayUpdates, bytes);
    }
}

/// Starts the endpoint when `[metrics]` turns it on.
fn start_metrics_server(
    mut commands: Commands,
    config: Res<Config>,
    runtime: Option<Res<NetworkRuntime>>,
    counters: Res<ServerCounters>,
    gauges: Res<Gauges>,
    histogram: Res<TickHistogram>,
) {
    if !config.metrics.enabled {
        return;
    }
    let runtime = match runtime {
        Some(shared) => shared.clone(),
        None => match NetworkRuntime::small("emoted-metrics", 1) {
            Ok(own) => own,
            Err(e) => {
                tracing::error!("metrics not served: no runtime for them: {e}");
                return;
            }
        },
    };
    let sources = http::Sources {
        counters: counters.clone(),
        gauges: gauges.clone(),
        ticks: histogram.clone(),
    };
    match http::start(config.metrics.listen, &runtime, sources) {
        Ok(server) => {
            tracing::info!("metrics at http://{}/metrics", server.bound);
            commands.insert_resource(server);
        }
        Err(e) => tracing::error!(
            "cannot serve metrics on {}: {e}; the server runs without them",
            config.metrics.listen
        ),
    }
}

#[cfg(test)]
mod tests;
