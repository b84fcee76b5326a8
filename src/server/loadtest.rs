//! `emoted loadtest`: the server's own tick, in-process, with N playbacks
//! seen by M viewers and every packet really encoded (and compressed at the
//! threshold a real connection uses), but no sockets.
//!
//! The method follows the published stress test of the leading Java
//! implementation (`anchor-server-behaviour.md`, "Performance"), so the
//! figures compare:
//! - `max(N, M)` clients join the default flat world through valence's own
//!   client code, each with a connection that only counts the bytes it is
//!   given; all of them stand at the spawn, so every client views every
//!   display (the worst case), unless `--spacing-blocks` spreads them on a
//!   grid (then view-range culling, [`crate::server::cull`], leaves out
//!   what is out of range);
//! - N of them play an emote: with `--emote`, that one; otherwise a mix of
//!   the bundled looping emotes with at least 7 displays, each picked with
//!   a chance proportional to its display count (so the mix averages about
//!   15 displays per playback, as the anchor's 1,760 displays at N = 100),
//!   shuffled with a fixed seed;
//! - the playbacks start over the first 60 ticks (one every few ticks), so
//!   they are at different timeline positions; then T ticks are measured;
//! - each measured tick is one whole `App::update` (every system of the
//!   server, not only the emote part); the report gives the mean, p50 and
//!   p99 in milliseconds, and the bytes each viewer received per second;
//! - `--per-tick` sends every changed node every tick with a one-tick
//!   interpolation (what a naive server does), the baseline for the same
//!   run.
//!
//! Keep-alives are disabled (no client would answer them), and the wall
//! clock `server_sync` emotes follow is the tick counter (ticks run back to
//! back here, far faster than 50 ms, so the real clock would hold them
//! still); everything else runs as in `emoted serve`.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use valence::client::{ClientBundle, ClientBundleArgs, ClientConnection, ReceivedPacket};
use valence::keepalive::KeepaliveSettings;
use valence::network::NetworkPlugin;
use valence::prelude::*;
use valence::protocol::bytes::BytesMut;
use valence::protocol::PacketEncoder;

use crate::format::settings::PlaybackMode;
use crate::format::{EmoteFile, EmoteId};
use crate::library::Library;
use crate::playback::StepRng;
use crate::server::app::EmotePlugins;
use crate::server::config::Config;
use crate::server::emote::{DisplayUpdatePolicy, SimulatedWallClock};
use crate::server::emote_library::EmoteFolders;
use crate::server::events::{EmoteDisplay, PlayEmoteRequest};

/// Ticks over which the playbacks start, before measuring.
pub const WARMUP_TICKS: u32 = 60;
/// The compression threshold of a real connection (valence's default).
const COMPRESSION_THRESHOLD: u32 = 256;

/// What to run (`emoted loadtest`'s flags).
#[derive(Clone, Debug, clap::Args)]
pub struct LoadtestOptions {
    /// Playbacks (N).
    #[arg(long, default_value_t = 100)]
    pub playbacks: usize,
    /// Viewers (M).
    #[arg(long, default_value_t = 100)]
    pub viewers: usize,
    /// Measured ticks (T).
    #[arg(long, default_value_t = 200)]
    pub ticks: u32,
    /// Play this emote in every playback instead of the bundled mix.
    #[arg(long)]
    pub emote: Option<String>,
    /// Send every changed node every tick (the naive baseline).
    #[arg(long)]
    pub per_tick: bool,
    /// Seed of the shuffle.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stand the clients on a square grid this many blocks apart, client 0
    /// at the spawn (0: all at the spawn, where every client views every
    /// display: the worst case).
    #[arg(long, default_value_t = 0.0)]
    pub spacing_blocks: f64,
    /// `emotes.display_view_scale` for the run (view-range culling; 5.0
    /// reaches every client in chunk view).
    #[arg(long, default_value_t = 1.0)]
    pub display_view_scale: f64,
    /// `emotes.display_tolerance_blocks` for the run.
    #[arg(long, default_value_t = 0.01)]
    pub tolerance_blocks: f32,
    /// `emotes.display_tolerance_degrees` for the run.
    #[arg(long, default_value_t = 0.5)]
    pub tolerance_degrees: f32,
    /// Also report the viewers' bytes by packet kind
    /// (`bytes_by_packet`, per viewer per second).
    #[arg(long)]
    pub breakdown: bool,
    /// Folders (or files) to load emotes from (default: emotes/ and
    /// datapacks/).
    #[arg(long = "emotes")]
    pub emote_roots: Vec<PathBuf>,
}

impl Default for LoadtestOptions {
    /// The command line's defaults.
    fn default() -> Self {
        Self {
            playbacks: 100,
            viewers: 100,
            ticks: 200,
            emote: None,
            per_tick: false,
            seed: 1,
            spacing_blocks: 0.0,
            display_view_scale: 1.0,
            tolerance_blocks: 0.01,
            tolerance_degrees: 0.5,
            breakdown: false,
            emote_roots: Vec::new(),
        }
    }
}

/// The one JSON line `emoted loadtest` prints (DESIGN.md), plus what was sent.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LoadtestReport {
    /// N.
    pub playbacks: usize,
    /// M.
    pub viewers: usize,
    /// T.
    pub ticks: u32,
    /// Mean milliseconds per tick.
    pub mspt_mean: f64,
    /// Median milliseconds per tick.
    pub mspt_p50: f64,
    /// 99th percentile milliseconds per tick.
    pub mspt_p99: f64,
    /// Bytes each viewer received per second, on average.
    pub bytes_per_viewer_per_s: f64,
    /// Display entities alive at the end.
    pub entities: usize,
    /// Whether the naive per-tick policy ran.
    pub per_tick: bool,
    /// With `--breakdown`: bytes per viewer per second by packet kind
    /// (valence's packet names; `compressed` for packets over the
    /// compression threshold, whose kind is not read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_by_packet: Option<BTreeMap<String, f64>>,
}

/// Why a load test could not run.
#[derive(Debug, thiserror::Error)]
pub enum LoadtestError {
    /// No emote to play.
    #[error("no emote to play: {0}")]
    NoEmote(String),
    /// Nothing to do.
    #[error("--playbacks, --viewers and --ticks must be at least 1")]
    Empty,
    /// A spacing out of range.
    #[error("--spacing-blocks must be from 0 to 1000, found {0}")]
    Spacing(f64),
    /// A display option out of its range (the message names the
    /// configuration option the flag sets).
    #[error("{0} (set by --display-view-scale, --tolerance-blocks or --tolerance-degrees)")]
    DisplayOption(String),
}

/// Wire bytes by packet kind, shared by the connections that count them.
pub type PacketBreakdown = Mutex<BTreeMap<&'static str, u64>>;

/// A connection that counts what the server sends and never receives.
struct CountingConnection {
    bytes: Arc<AtomicU64>,
    breakdown: Option<Arc<PacketBreakdown>>,
}

impl ClientConnection for CountingConnection {
    fn try_send(&mut self, bytes: BytesMut) -> anyhow::Result<()> {
        self.bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if let Some(breakdown) = &self.breakdown {
            if let Ok(mut map) = breakdown.lock() {
                add_frames(&bytes, &mut map);
            }
        }
        Ok(())
    }

    fn try_recv(&mut self) -> anyhow::Result<Option<ReceivedPacket>> {
        Ok(None)
    }

    fn len(&self) -> usize {
        0
    }
}

/// Reads a VarInt at the start of `bytes`: its value and length.
fn read_var_int(bytes: &[u8]) -> Option<(i32, usize)> {
    let mut value = 0i32;
    for (i, byte) in bytes.iter().take(5).enumerate() {
        value |= i32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// Adds the wire size of each compressed-format frame in `bytes` to its
/// packet kind.
fn add_frames(mut bytes: &[u8], map: &mut BTreeMap<&'static str, u64>) {
    while let Some((length, header)) = read_var_int(bytes) {
        let Ok(length) = usize::try_from(length) else {
            return;
        };
        let Some(frame) = bytes.get(header..header + length) else {
            return;
        };
        let kind = match read_var_int(frame) {
            Some((0, used)) => read_var_int(&frame[used..]).map_or("?", |(id, _)| packet_name(id)),
            Some(_) => "compressed",
            None => "?",
        };
        *map.entry(kind).or_default() += (header + length) as u64;
        bytes = &bytes[header + length..];
    }
}

/// The name of a play-state clientbound packet the stress test sees.
fn packet_name(id: i32) -> &'static str {
    use valence::protocol::packets::play::{
        EntitiesDestroyS2c, EntitySpawnS2c, EntityTrackerUpdateS2c, GameMessageS2c,
        OverlayMessageS2c, ParticleS2c, PlaySoundS2c, TitleS2c,
    };
    use valence::protocol::Packet;
    match id {
        EntityTrackerUpdateS2c::ID => EntityTrackerUpdateS2c::NAME,
        EntitySpawnS2c::ID => EntitySpawnS2c::NAME,
        EntitiesDestroyS2c::ID => EntitiesDestroyS2c::NAME,
        PlaySoundS2c::ID => PlaySoundS2c::NAME,
        ParticleS2c::ID => ParticleS2c::NAME,
        GameMessageS2c::ID => GameMessageS2c::NAME,
        OverlayMessageS2c::ID => OverlayMessageS2c::NAME,
        TitleS2c::ID => TitleS2c::NAME,
        _ => "other",
    }
}

/// The emotes the mix picks from, with their weights (display counts).
fn mix(library: &Library, only: Option<&str>) -> Result<Vec<(EmoteId, u32)>, LoadtestError> {
    if let Some(id) = only {
        let loaded = library
            .get(id)
            .ok_or_else(|| LoadtestError::NoEmote(format!("`{id}` is not loaded")))?;
        let id = EmoteId::parse(id).map_err(|_| LoadtestError::NoEmote(id.to_owned()))?;
        let weight = match &*loaded.file {
            EmoteFile::Animation(a) => a.display_count() as u32,
            EmoteFile::Sequence(_) => 1,
        };
        return Ok(vec![(id, weight.max(1))]);
    }
    let list: Vec<(EmoteId, u32)> = library
        .iter()
        .filter_map(|(id, loaded)| match &*loaded.file {
            EmoteFile::Animation(a)
                if a.settings.standalone
                    && a.settings.playback.mode != PlaybackMode::Once
                    && a.display_count() >= 7 =>
            {
                Some((id.clone(), a.display_count() as u32))
            }
            _ => None,
        })
        .collect();
    if list.is_empty() {
        return Err(LoadtestError::NoEmote(
            "no looping standalone emote with 7 or more displays".into(),
        ));
    }
    Ok(list)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// The server as `emoted serve` builds it ([`EmotePlugins`], every schedule
/// on one thread), without the network, the file watcher, the resource pack
/// and tick statistics: clients join with [`join_counting_client`].
/// Keep-alives are off, as no client answers them, and `server_sync` follows
/// the tick counter ([`SimulatedWallClock`]). The startup systems have run.
pub fn headless_app(emote_roots: &[PathBuf], policy: DisplayUpdatePolicy) -> App {
    let mut app = App::new();
    app.insert_resource(KeepaliveSettings {
        period: Duration::from_secs(24 * 3600),
    })
    .insert_resource(EmoteFolders {
        roots: emote_roots.to_vec(),
    })
    .insert_resource(policy)
    .insert_resource(SimulatedWallClock { start_tick: 0 })
    .add_plugins(DefaultPlugins.build().disable::<NetworkPlugin>())
    .add_plugins(
        EmotePlugins
            .build()
            .disable::<crate::server::reload::EmoteReloadPlugin>()
            .disable::<crate::server::resource_pack::ResourcePackPlugin>()
            .disable::<crate::server::tick_stats::TickStatsPlugin>(),
    );
    crate::server::app::run_schedules_on_one_thread(&mut app);
    // Startup: the world and the library.
    app.update();
    app
}

/// Spawns client number `index` (`load<index>`) with a connection that
/// encodes and compresses every packet as a real one would, and only counts
/// the bytes; returns its entity and the counter. It joins on the next
/// update.
pub fn join_counting_client(app: &mut App, index: usize) -> (Entity, Arc<AtomicU64>) {
    join_counting_client_with(app, index, None)
}

/// [`join_counting_client`], also adding each frame's bytes to its packet
/// kind in `breakdown`.
pub fn join_counting_client_with(
    app: &mut App,
    index: usize,
    breakdown: Option<Arc<PacketBreakdown>>,
) -> (Entity, Arc<AtomicU64>) {
    let bytes = Arc::new(AtomicU64::new(0));
    let connection = CountingConnection {
        bytes: Arc::clone(&bytes),
        breakdown,
    };
    (join_client(app, index, Box::new(connection)), bytes)
}

/// Spawns client number `index` (`load<index>`) on `connection`, which gets
/// every packet encoded and compressed (threshold 256) as a real
/// connection would; it joins on the next update. Tests pass a connection
/// that keeps the bytes to read what a client was sent.
pub fn join_client(app: &mut App, index: usize, connection: Box<dyn ClientConnection>) -> Entity {
    let mut enc = PacketEncoder::new();
    enc.set_compression(Some(COMPRESSION_THRESHOLD));
    let bundle = ClientBundle::new(ClientBundleArgs {
        username: format!("load{index}"),
        uuid: Uuid::from_u128(0x10AD_0000_0000_0000_0000_0000_0000_0000 + index as u128),
        ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
        properties: Vec::new(),
        conn: connection,
        enc,
    });
    app.world.spawn(bundle).id()
}

/// Runs a load test and returns its report.
pub fn run(options: &LoadtestOptions) -> Result<LoadtestReport, LoadtestError> {
    if options.playbacks == 0 || options.viewers == 0 || options.ticks == 0 {
        return Err(LoadtestError::Empty);
    }
    if !(0.0..=1000.0).contains(&options.spacing_blocks) {
        return Err(LoadtestError::Spacing(options.spacing_blocks));
    }
    // The configuration's defaults with the flags' display options, without
    // the display cap (the stress test goes past 2,000 displays on purpose).
    let mut config = Config::default();
    config.emotes.display_view_scale = options.display_view_scale;
    config.emotes.max_active_display_entities = usize::MAX;
    config.emotes.display_tolerance_blocks = options.tolerance_blocks;
    config.emotes.display_tolerance_degrees = options.tolerance_degrees;
    config
        .emotes
        .check_display_options()
        .map_err(LoadtestError::DisplayOption)?;
    let default_roots = [PathBuf::from("emotes"), PathBuf::from("datapacks")];
    let roots: &[PathBuf] = if options.emote_roots.is_empty() {
        &default_roots
    } else {
        &options.emote_roots
    };
    let report = Library::load(roots);
    let choices = mix(&report.library, options.emote.as_deref())?;

    let policy = if options.per_tick {
        DisplayUpdatePolicy::PerTick
    } else {
        DisplayUpdatePolicy::Scheduled
    };
    let mut app = headless_app(roots, policy);
    app.insert_resource(config);
    let clients = options.playbacks.max(options.viewers);
    let mut counters = Vec::with_capacity(clients);
    let mut entities = Vec::with_capacity(clients);
    let breakdown = options
        .breakdown
        .then(|| Arc::new(PacketBreakdown::default()));
    for index in 0..clients {
        // Only the viewers' packets are broken down.
        let counted = breakdown.as_ref().filter(|_| index < options.viewers);
        let (entity, bytes) = join_counting_client_with(&mut app, index, counted.cloned());
        entities.push(entity);
        counters.push(bytes);
    }
    // Join: chunks, players, everything a client gets when it arrives.
    app.update();
    if options.spacing_blocks > 0.0 {
        let side = (clients as f64).sqrt().ceil() as usize;
        for (index, entity) in entities.iter().enumerate() {
            let column = (index % side) as f64;
            let row = (index / side) as f64;
            if let Some(mut position) = app.world.get_mut::<Position>(*entity) {
                position.0.x += column * options.spacing_blocks;
                position.0.z += row * options.spacing_blocks;
            }
        }
        // Chunks and players around the new places.
        app.update();
    }

    // Start the playbacks over the warm-up, shuffled with the seed.
    let total_weight: u32 = choices.iter().map(|(_, w)| w).sum();
    let mut rng = StepRng::new(options.seed);
    let mut starts: Vec<(u32, Entity, EmoteId)> = (0..options.playbacks)
        .map(|i| {
            let mut ticket = rng.below(total_weight.max(1));
            let emote = choices
                .iter()
                .find(|(_, w)| {
                    if ticket < *w {
                        true
                    } else {
                        ticket -= w;
                        false
                    }
                })
                .map_or_else(|| choices[0].0.clone(), |(id, _)| id.clone());
            (rng.below(WARMUP_TICKS), entities[i], emote)
        })
        .collect();
    starts.sort_by_key(|(tick, ..)| *tick);
    let mut next = 0;
    for tick in 0..WARMUP_TICKS {
        while next < starts.len() && starts[next].0 <= tick {
            let (_, client, emote) = &starts[next];
            app.world.send_event(PlayEmoteRequest {
                client: *client,
                emote: emote.clone(),
                bypass: true,
                cooldown_multiplier: 1.0,
            });
            next += 1;
        }
        app.update();
    }

    let viewer_bytes = |counters: &[Arc<AtomicU64>]| -> u64 {
        counters
            .iter()
            .take(options.viewers)
            .map(|c| c.load(Ordering::Relaxed))
            .sum()
    };
    let before = viewer_bytes(&counters);
    if let Some(map) = &breakdown {
        if let Ok(mut map) = map.lock() {
            map.clear();
        }
    }
    let mut tick_ms = Vec::with_capacity(options.ticks as usize);
    for _ in 0..options.ticks {
        let start = Instant::now();
        app.update();
        tick_ms.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let sent = viewer_bytes(&counters) - before;
    let displays = app
        .world
        .query_filtered::<(), With<EmoteDisplay>>()
        .iter(&app.world)
        .count();

    let mean = tick_ms.iter().sum::<f64>() / tick_ms.len() as f64;
    tick_ms.sort_by(f64::total_cmp);
    let seconds = f64::from(options.ticks) / 20.0;
    Ok(LoadtestReport {
        playbacks: options.playbacks,
        viewers: options.viewers,
        ticks: options.ticks,
        mspt_mean: mean,
        mspt_p50: percentile(&tick_ms, 50.0),
        mspt_p99: percentile(&tick_ms, 99.0),
        bytes_per_viewer_per_s: sent as f64 / options.viewers as f64 / seconds,
        entities: displays,
        per_tick: options.per_tick,
        bytes_by_packet: breakdown.and_then(|map| {
            let map = map.lock().ok()?;
            let scale = 1.0 / options.viewers as f64 / seconds;
            Some(
                map.iter()
                    .map(|(kind, bytes)| ((*kind).to_owned(), *bytes as f64 * scale))
                    .collect(),
            )
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_counted_by_packet_kind_with_their_headers() {
        use valence::protocol::packets::play::EntityTrackerUpdateS2c;
        use valence::protocol::Packet;
        let id = u8::try_from(EntityTrackerUpdateS2c::ID).expect("a one-byte id");
        let mut bytes = Vec::new();
        // Two uncompressed frames: length, data length 0, id, body.
        bytes.extend_from_slice(&[4, 0, id, 1, 2]);
        bytes.extend_from_slice(&[3, 0, id, 9]);
        // A compressed frame: length 3, data length 300 (a 2-byte VarInt).
        bytes.extend_from_slice(&[3, 0xac, 0x02, 7]);
        // An unknown packet, and a frame cut short (ignored).
        bytes.extend_from_slice(&[2, 0, 0x7f]);
        bytes.extend_from_slice(&[9, 0, id]);
        let mut map = BTreeMap::new();
        add_frames(&bytes, &mut map);
        assert_eq!(map.get(EntityTrackerUpdateS2c::NAME), Some(&9));
        assert_eq!(map.get("compressed"), Some(&4));
        assert_eq!(map.get("other"), Some(&3));
        assert_eq!(map.len(), 3);
    }

    #[test]
    fn percentiles_pick_by_rank() {
        let sorted: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&sorted, 50.0), 51.0);
        assert_eq!(percentile(&sorted, 99.0), 99.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }

    #[test]
    fn the_stress_test_is_not_held_to_the_servers_display_cap() {
        // 90 halos of 24 displays each: past the default cap of 2,000.
        let report = run(&LoadtestOptions {
            playbacks: 90,
            viewers: 1,
            ticks: 1,
            emote: Some("example:halo".into()),
            emote_roots: vec![PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/emotes"
            ))],
            ..LoadtestOptions::default()
        })
        .expect("runs");
        assert_eq!(report.entities, 90 * 24);
        assert!(Config::default().emotes.max_active_display_entities < report.entities);
    }

    #[test]
    fn a_looser_display_tolerance_sends_fewer_bytes() {
        let options = |blocks: f32, degrees: f32| LoadtestOptions {
            playbacks: 10,
            viewers: 2,
            ticks: 200,
            emote: Some("example:dance".into()),
            tolerance_blocks: blocks,
            tolerance_degrees: degrees,
            emote_roots: vec![PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/emotes"
            ))],
            ..LoadtestOptions::default()
        };
        let strict = run(&options(0.01, 0.5)).expect("runs");
        let loose = run(&options(0.05, 2.0)).expect("runs");
        assert!(
            loose.bytes_per_viewer_per_s < 0.8 * strict.bytes_per_viewer_per_s,
            "{loose:?} against {strict:?}"
        );
        assert!(run(&options(0.0, 0.5)).is_err());
    }

    #[test]
    fn the_default_mix_is_looping_emotes_with_seven_or_more_displays() {
        let roots = vec![PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/emotes"
        ))];
        let library = Library::load(&roots).library;
        let list = mix(&library, None).expect("a mix");
        assert!(list.iter().all(|(_, w)| *w >= 7));
        assert!(list.iter().any(|(id, _)| id.as_str() == "example:guitar"));
        assert!(mix(&library, Some("example:nope")).is_err());
    }
}
