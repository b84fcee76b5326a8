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
//!   run;
//! - `--pack-downloads K` serves the resource pack as `emoted serve` does
//!   (the real plugin and HTTP server, on loopback) with `--pack-bytes`
//!   bytes in it, and K clients download it again and again while the
//!   ticks are measured ([`downloads`]); without it the pack is not served
//!   at all;
//! - `--open-wheels` has every viewer open the emote wheel on every
//!   measured tick ([`crate::server::wheel`]);
//! - `--modded-fraction F` makes that share of the viewers Emotecraft
//!   clients and reports their bytes apart ([`modded`]);
//! - `--cameras` flies the emote camera of every playing client, each
//!   steering it with its look (`steering`); without it there is none.
//! - `--looks` has every playing client look around (`steering`), so the
//!   heads of emotes with a look-at follow their mouse.
//! - `--walk` has every playing client walk round a small circle at
//!   walking speed while it plays (`steering`): with a controller
//!   (`--emote example:walk_wave`) the bodies walk with them.
//! - `--arrive` keeps the viewers that do not play away from the crowd
//!   until the first measured tick, when they all teleport into it
//!   (`steering`): the largest tick is their arrival, spread by
//!   `--viewer-spawns-per-tick` ([`crate::server::cull`], "Arrivals").
//!
//! Keep-alives are disabled (no client would answer them), and the wall
//! clock `server_sync` emotes follow is the tick counter (ticks run back to
//! back here, far faster than 50 ms, so the real clock would hold them
//! still); everything else runs as in `emoted serve`.
//!
//! The files: this one has the options, the report and the run;
//! [`clients`] the headless server and the counting connections (which the
//! in-process server tests use too); [`downloads`] the pack downloaders.

pub mod clients;
pub mod downloads;
pub mod modded;
mod options;
mod peak;
mod steering;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use hyper::Uri;
use serde::Serialize;
use valence::prelude::*;

pub use self::clients::{
    headless_app, headless_app_serving_pack, join_client, join_counting_client,
    join_counting_client_with, PacketBreakdown,
};
use self::downloads::{sized_pack, PackDownloadReport, PackDownloads};
use self::modded::{make_modded, modded_viewers, ModdedReport, SplitCounters};
pub use self::options::LoadtestOptions;
use self::peak::LargestTick;
pub use self::peak::TickPeak;
use crate::format::settings::PlaybackMode;
use crate::format::{EmoteFile, EmoteId};
use crate::library::Library;
use crate::playback::StepRng;
use crate::server::config::Config;
use crate::server::emote::DisplayUpdatePolicy;
use crate::server::events::{EmoteDisplay, OpenWheelRequest, PlayEmoteRequest};
use crate::server::resource_pack::http::MAX_CONNECTIONS;
use crate::server::resource_pack::url::pack_path;
use crate::server::resource_pack::PackServer;
use crate::server::wheel::WheelWindow;

/// Ticks over which the playbacks start, before measuring.
pub const WARMUP_TICKS: u32 = 60;

/// `--pack-bytes`' default: 1 MiB, about a pack with a few textures.
pub const DEFAULT_PACK_BYTES: u64 = 1 << 20;

/// The largest `--pack-bytes` (256 MiB).
pub const MAX_PACK_BYTES: u64 = 256 << 20;

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
    /// The most bytes one viewer was sent in one tick, from the first
    /// warm-up tick to the last measured one ([`peak`]).
    pub largest_tick: TickPeak,
    /// Display entities alive at the end.
    pub entities: usize,
    /// Whether the naive per-tick policy ran.
    pub per_tick: bool,
    /// With `--breakdown`: bytes per viewer per second by packet kind
    /// (valence's packet names; `compressed` for packets over the
    /// compression threshold, whose kind is not read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_by_packet: Option<BTreeMap<String, f64>>,
    /// With `--pack-downloads`: what the pack downloads did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pack_downloads: Option<PackDownloadReport>,
    /// With `--open-wheels`: the players with a wheel open at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wheels_open: Option<usize>,
    /// With `--modded-fraction` above 0: the modded and vanilla viewers'
    /// bytes apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modded: Option<ModdedReport>,
    /// With `--cameras`: the players seeing through a camera at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cameras_flying: Option<usize>,
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
    /// A modded fraction out of range.
    #[error("--modded-fraction must be from 0 to 1, found {0}")]
    ModdedFraction(f64),
    /// A display option out of its range (the message names the
    /// configuration option the flag sets).
    #[error("{0} (set by --display-view-scale, --tolerance-blocks or --tolerance-degrees)")]
    DisplayOption(String),
    /// A pack download option out of its range.
    #[error(
        "--pack-downloads must be at most {MAX_CONNECTIONS} (the pack server's connection \
         limit) and --pack-bytes from 1 to {MAX_PACK_BYTES}; found {clients} and {bytes}"
    )]
    PackDownloadOption {
        /// `--pack-downloads`.
        clients: usize,
        /// `--pack-bytes`.
        bytes: u64,
    },
    /// The pack server or its clients could not start.
    #[error("cannot run the pack downloads: {reason}")]
    PackDownloads {
        /// What went wrong, and where to look.
        reason: String,
    },
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
            EmoteFile::Sequence(_) | EmoteFile::Controller(_) => 1,
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

/// Runs a load test and returns its report.
pub fn run(options: &LoadtestOptions) -> Result<LoadtestReport, LoadtestError> {
    if options.playbacks == 0 || options.viewers == 0 || options.ticks == 0 {
        return Err(LoadtestError::Empty);
    }
    if !(0.0..=1000.0).contains(&options.spacing_blocks) {
        return Err(LoadtestError::Spacing(options.spacing_blocks));
    }
    if !(0.0..=1.0).contains(&options.modded_fraction) {
        return Err(LoadtestError::ModdedFraction(options.modded_fraction));
    }
    let serve_pack = options.pack_downloads > 0;
    if options.pack_downloads > MAX_CONNECTIONS
        || !(1..=MAX_PACK_BYTES).contains(&options.pack_bytes)
    {
        return Err(LoadtestError::PackDownloadOption {
            clients: options.pack_downloads,
            bytes: options.pack_bytes,
        });
    }
    // The configuration's defaults with the flags' display options, without
    // the display cap (the stress test goes past 2,000 displays on purpose).
    let mut config = Config::default();
    config.emotes.display_view_scale = options.display_view_scale;
    config.emotes.max_active_display_entities = usize::MAX;
    config.emotes.display_tolerance_blocks = options.tolerance_blocks;
    config.emotes.display_tolerance_degrees = options.tolerance_degrees;
    config.emotes.tolerance_near_blocks = options.tolerance_near_blocks;
    config.emotes.viewer_bytes_per_second = options.viewer_bytes_per_second;
    config.emotes.viewer_spawns_per_tick = options.viewer_spawns_per_tick;
    config.camera.enabled = options.cameras;
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
    let mut app = if serve_pack {
        // The range was checked above: at most 256 MiB.
        let pack = sized_pack(options.pack_bytes as usize);
        headless_app_serving_pack(roots, policy, pack)
    } else {
        headless_app(roots, policy)
    };
    let pack_url = serve_pack.then(|| served_pack_url(&app)).transpose()?;
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

    let mut split = (options.modded_fraction > 0.0).then(|| {
        let modded = modded_viewers(options.viewers, options.modded_fraction);
        for (entity, _) in entities.iter().zip(&modded).filter(|(_, m)| **m) {
            make_modded(&mut app, *entity);
        }
        app.update(); // their CONFIG answer's effects
        SplitCounters::new(modded, &counters)
    });

    let players: Vec<Entity> = entities.iter().take(options.playbacks).copied().collect();
    let arrivals = if options.arrive {
        let away = steering::send_away(
            &mut app,
            &entities[options.playbacks..options.viewers.max(options.playbacks)],
        );
        app.update(); // gone: their chunks and players go
        away
    } else {
        Vec::new()
    };
    if options.cameras || options.looks || options.walk {
        steering::confirm_positions(&mut app, &players);
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
    let mut largest_tick = LargestTick::new(&counters[..options.viewers]);
    for tick in 0..WARMUP_TICKS {
        while next < starts.len() && starts[next].0 <= tick {
            let (_, client, emote) = &starts[next];
            app.world.send_event(PlayEmoteRequest {
                client: *client,
                emote: emote.clone(),
                bypass: true,
                cooldown_multiplier: 1.0,
                quiet: false,
            });
            next += 1;
        }
        app.update();
        largest_tick.observe(&counters[..options.viewers], tick);
    }

    let viewer_bytes = |counters: &[Arc<AtomicU64>]| -> u64 {
        counters
            .iter()
            .take(options.viewers)
            .map(|c| c.load(Ordering::Relaxed))
            .sum()
    };
    let before = viewer_bytes(&counters);
    if let Some(split) = &mut split {
        split.start_measuring(&counters);
    }
    if let Some(map) = &breakdown {
        if let Ok(mut map) = map.lock() {
            map.clear();
        }
    }
    let downloads = match pack_url {
        Some(url) => Some(
            PackDownloads::start(url, options.pack_bytes, options.pack_downloads).map_err(|e| {
                LoadtestError::PackDownloads {
                    reason: format!("no runtime for the downloading clients: {e}"),
                }
            })?,
        ),
        None => None,
    };
    let walkers: Vec<(Entity, DVec3)> = players
        .iter()
        .filter_map(|p| Some((*p, steering::walk_start(app.world.get::<Position>(*p)?.0))))
        .collect();
    let mut tick_ms = Vec::with_capacity(options.ticks as usize);
    steering::bring_back(&mut app, &arrivals);
    for tick in 0..options.ticks {
        if options.walk {
            steering::walk(&mut app, &walkers, tick);
        }
        if options.cameras {
            steering::steer(&mut app, &players, tick);
        } else if options.looks {
            steering::look_around(&mut app, &players, tick);
        }
        if options.open_wheels {
            for client in entities.iter().take(options.viewers) {
                app.world.send_event(OpenWheelRequest { client: *client });
            }
        }
        let start = Instant::now();
        app.update();
        tick_ms.push(start.elapsed().as_secs_f64() * 1000.0);
        largest_tick.observe(&counters[..options.viewers], WARMUP_TICKS + tick);
    }
    let pack_downloads = downloads.map(PackDownloads::finish);
    let sent = viewer_bytes(&counters) - before;
    let displays = app
        .world
        .query_filtered::<(), With<EmoteDisplay>>()
        .iter(&app.world)
        .count();

    let wheels_open = options.open_wheels.then(|| {
        app.world
            .query_filtered::<(), With<WheelWindow>>()
            .iter(&app.world)
            .count()
    });
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
        largest_tick: largest_tick.finish(),
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
        pack_downloads,
        wheels_open,
        modded: split.map(|s| s.finish(&counters, options.modded_fraction, seconds)),
        cameras_flying: options.cameras.then(|| steering::flying(&mut app)),
    })
}

/// Where the headless server serves its pack: `http://127.0.0.1:<port>`
/// and the served pack's path, once the start-up update bound the server
/// and served the pack.
fn served_pack_url(app: &App) -> Result<Uri, LoadtestError> {
    let not_served = || LoadtestError::PackDownloads {
        reason: "the pack server did not start (its reason is in the log above)".into(),
    };
    let server = app
        .world
        .get_resource::<PackServer>()
        .ok_or_else(not_served)?;
    let pack = server.current().ok_or_else(not_served)?;
    format!("http://{}{}", server.bound(), pack_path(pack.sha1_hex()))
        .parse()
        .map_err(|e| LoadtestError::PackDownloads {
            reason: format!("the pack's URL does not parse: {e}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn arriving_viewers_get_the_crowd_spread_by_their_spawn_budget() {
        // 20 halos of 24 displays on a grid 8 blocks apart (nine chunk
        // columns); the 21st client arrives at the first measured tick.
        let options = |spawns_per_tick: u32| LoadtestOptions {
            playbacks: 20,
            viewers: 21,
            ticks: 20,
            emote: Some("example:halo".into()),
            spacing_blocks: 8.0,
            arrive: true,
            viewer_spawns_per_tick: spawns_per_tick,
            emote_roots: vec![PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/emotes"
            ))],
            ..LoadtestOptions::default()
        };
        let at_once = run(&options(0)).expect("runs");
        assert_eq!(at_once.largest_tick.tick, WARMUP_TICKS, "{at_once:?}");
        let spread = run(&options(48)).expect("runs");
        assert!(
            spread.largest_tick.bytes < at_once.largest_tick.bytes,
            "{spread:?} against {at_once:?}"
        );
        // Within the 20 ticks every display came all the same.
        let sent = |r: &LoadtestReport| r.bytes_per_viewer_per_s;
        assert!(
            (sent(&spread) - sent(&at_once)).abs() < 0.05 * sent(&at_once),
            "{spread:?} against {at_once:?}"
        );
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
