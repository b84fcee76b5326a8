//! `emoted loadtest --modded-fraction F`: that share of the viewers are
//! modded (Emotecraft) clients, which get the emotes with a bone form as
//! bones and no display copy of the body ([`crate::server::modded`]), and
//! the report gives their bytes and the vanilla viewers' apart.
//!
//! - **Who is modded.** Viewer `i` is when `⌊(i + 1)·F⌋ > ⌊i·F⌋`, which
//!   spreads them evenly through the viewers (F = 0.5: every second one,
//!   starting with viewer 1). Players who play and are not viewers stay
//!   vanilla.
//! - **As if CONFIG came.** A modded viewer is given what the server gives
//!   a client that answered Emotecraft's CONFIG, with a versions map that
//!   does not read FILE headers (`{0: 2, 1: 1, 8: 8, 10: 1}`), so the
//!   counts are of the emotes played, not of the mod's wheel filling up.
//! - **Two spans.** Bytes per second are over the measured ticks, as the
//!   report's `bytes_per_viewer_per_s`. Bytes per viewer are also counted
//!   from just before the first playback starts to the end, so what one
//!   emote costs a viewer from its start (the spawns, a STREAM) to its end
//!   is in the figure: run one playback of a `once` emote with enough
//!   ticks for it to end.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::Serialize;
use valence::prelude::*;

use crate::server::events::BoneViewer;
use crate::server::modded::EmotecraftClient;

/// The versions map a modded viewer of the load test sent.
const VERSIONS: [(u8, u8); 4] = [(0, 2), (1, 1), (8, 8), (10, 1)];

/// The modded viewers' bytes and the vanilla viewers', apart.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ModdedReport {
    /// `--modded-fraction`.
    pub fraction: f64,
    /// How many viewers were modded.
    pub viewers: usize,
    /// Bytes each modded viewer received per second of the measured ticks.
    pub bytes_per_viewer_per_s: f64,
    /// Bytes each vanilla viewer received per second of the measured ticks.
    pub vanilla_bytes_per_viewer_per_s: f64,
    /// Bytes each modded viewer received from just before the first start
    /// to the end.
    pub bytes_per_viewer: f64,
    /// Bytes each vanilla viewer received over the same span.
    pub vanilla_bytes_per_viewer: f64,
}

/// Which of `viewers` viewers are modded at `fraction` (module docs).
pub fn modded_viewers(viewers: usize, fraction: f64) -> Vec<bool> {
    let fraction = fraction.clamp(0.0, 1.0);
    (0..viewers)
        .map(|i| ((i + 1) as f64 * fraction).floor() > (i as f64 * fraction).floor())
        .collect()
}

/// Makes the joined client `entity` a modded one (module docs).
pub fn make_modded(app: &mut App, entity: Entity) {
    if let Some(mut client) = app.world.get_entity_mut(entity) {
        client.insert((
            EmotecraftClient {
                versions: VERSIONS.to_vec(),
            },
            BoneViewer,
        ));
    }
}

/// The viewers' byte counters, split into modded and vanilla.
pub struct SplitCounters {
    modded: Vec<bool>,
    /// Per viewer, the count at the start of each span.
    from_start: Vec<u64>,
    measured: Vec<u64>,
}

impl SplitCounters {
    /// Marks the start of the whole span (before the first playback).
    pub fn new(modded: Vec<bool>, counters: &[Arc<AtomicU64>]) -> Self {
        let now = read(counters, modded.len());
        Self {
            modded,
            measured: now.clone(),
            from_start: now,
        }
    }

    /// Marks the start of the measured ticks.
    pub fn start_measuring(&mut self, counters: &[Arc<AtomicU64>]) {
        self.measured = read(counters, self.modded.len());
    }

    /// The report at the end, with `fraction` and the measured `seconds`.
    pub fn finish(&self, counters: &[Arc<AtomicU64>], fraction: f64, seconds: f64) -> ModdedReport {
        let now = read(counters, self.modded.len());
        let mean = |since: &[u64], modded: bool| {
            let (sum, count) = now
                .iter()
                .zip(since)
                .zip(&self.modded)
                .filter(|(_, m)| **m == modded)
                .fold((0u64, 0usize), |(sum, count), ((n, s), _)| {
                    (sum + n.saturating_sub(*s), count + 1)
                });
            if count == 0 {
                0.0
            } else {
                sum as f64 / count as f64
            }
        };
        ModdedReport {
            fraction,
            viewers: self.modded.iter().filter(|m| **m).count(),
            bytes_per_viewer_per_s: mean(&self.measured, true) / seconds,
            vanilla_bytes_per_viewer_per_s: mean(&self.measured, false) / seconds,
            bytes_per_viewer: mean(&self.from_start, true),
            vanilla_bytes_per_viewer: mean(&self.from_start, false),
        }
    }
}

/// The first `viewers` counters now.
fn read(counters: &[Arc<AtomicU64>], viewers: usize) -> Vec<u64> {
    counters
        .iter()
        .take(viewers)
        .map(|c| c.load(Ordering::Relaxed))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::server::loadtest::{run, LoadtestOptions};

    /// One wave (40 ticks, `once`) from its start to its end, seen by two
    /// vanilla and two modded viewers: the modded ones get the STREAM, the
    /// STOP and the greeting's text display; the vanilla ones the body too.
    /// (Measured: 740 and 5,964 bytes, a ratio of 8.1; the bound is 5 so
    /// that a change in the fitting does not break it, and a body sent as
    /// displays to modded viewers too, a ratio near 1, does.)
    #[test]
    fn a_modded_viewer_gets_a_body_emote_for_a_fraction_of_the_bytes() {
        let report = run(&LoadtestOptions {
            playbacks: 1,
            viewers: 4,
            ticks: 120,
            emote: Some("example:wave".into()),
            modded_fraction: 0.5,
            emote_roots: vec![PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/emotes"
            ))],
            ..LoadtestOptions::default()
        })
        .expect("runs");
        let modded = report.modded.expect("the split");
        assert_eq!(modded.viewers, 2);
        assert!(modded.bytes_per_viewer > 0.0);
        assert!(
            modded.bytes_per_viewer * 5.0 <= modded.vanilla_bytes_per_viewer,
            "{modded:?}"
        );
        let none = LoadtestOptions {
            modded_fraction: 1.5,
            ..LoadtestOptions::default()
        };
        assert!(run(&none).is_err());
    }

    #[test]
    fn modded_viewers_are_spread_evenly() {
        let half = modded_viewers(6, 0.5);
        assert_eq!(half, [false, true, false, true, false, true]);
        assert_eq!(modded_viewers(4, 0.0), [false; 4]);
        assert_eq!(modded_viewers(4, 1.0), [true; 4]);
        // A quarter of 8: two, apart.
        let quarter = modded_viewers(8, 0.25);
        assert_eq!(quarter.iter().filter(|m| **m).count(), 2);
        assert_eq!(quarter[3..5], [true, false]);
    }

    #[test]
    fn the_split_counts_each_side_over_each_span() {
        let counters: Vec<Arc<AtomicU64>> = (0..3).map(|_| Arc::new(AtomicU64::new(0))).collect();
        let mut split = SplitCounters::new(vec![false, true, false], &counters);
        counters[0].store(100, Ordering::Relaxed);
        counters[1].store(10, Ordering::Relaxed);
        counters[2].store(300, Ordering::Relaxed);
        split.start_measuring(&counters);
        counters[0].store(140, Ordering::Relaxed);
        counters[1].store(12, Ordering::Relaxed);
        counters[2].store(360, Ordering::Relaxed);
        let report = split.finish(&counters, 0.5, 2.0);
        assert_eq!(report.viewers, 1);
        // Measured: vanilla (40 + 60) / 2 = 50 bytes over 2 s; modded 2.
        assert_eq!(report.vanilla_bytes_per_viewer_per_s, 25.0);
        assert_eq!(report.bytes_per_viewer_per_s, 1.0);
        // From the start: vanilla (140 + 360) / 2, modded 12.
        assert_eq!(report.vanilla_bytes_per_viewer, 250.0);
        assert_eq!(report.bytes_per_viewer, 12.0);
    }
}
