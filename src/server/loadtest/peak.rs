//! The load test's peak: the most bytes one viewer was sent in one tick.
//!
//! valence writes a tick's packets into each client's own buffer (a
//! `BytesMut`), and a buffer keeps its capacity: its allocation is reused
//! once the connection has written the bytes out, and it doubles when a
//! tick's bytes outgrow the tail the previous tick left. So a client holds
//! two to four times the largest tick it was sent, and that figure, times
//! the viewers, is the floor under the server's resident memory for a
//! crowd (which of the two depends on the order of the tick sizes, so two
//! runs with the same largest tick can differ by half). It is reported
//! beside the mean bytes a second so that a crowd's peaks stay visible.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::Serialize;

/// The largest tick seen so far, over the viewers' byte counters.
#[derive(Debug)]
pub(super) struct LargestTick {
    /// Each viewer's count after the previous observed tick.
    previous_bytes: Vec<u64>,
    /// Each viewer's largest tick so far.
    viewer_largest_bytes: Vec<u64>,
    /// The figure so far.
    largest: TickPeak,
}

/// The most bytes one viewer received in one tick, and when.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct TickPeak {
    /// The bytes.
    pub bytes: u64,
    /// The tick, counted from the first tick of the warm-up (0), in which
    /// the playbacks start.
    pub tick: u32,
    /// How many viewers received at least half as many bytes in a tick of
    /// their own at some point (so whether one viewer or the crowd peaks).
    pub viewers_over_half: usize,
}

impl LargestTick {
    /// Starts from the counters' current values.
    pub(super) fn new(counters: &[Arc<AtomicU64>]) -> Self {
        Self {
            previous_bytes: counters.iter().map(|c| c.load(Ordering::Relaxed)).collect(),
            viewer_largest_bytes: vec![0; counters.len()],
            largest: TickPeak::default(),
        }
    }

    /// Takes the tick that just ran, numbered `tick`.
    pub(super) fn observe(&mut self, counters: &[Arc<AtomicU64>], tick: u32) {
        let viewers = self
            .previous_bytes
            .iter_mut()
            .zip(&mut self.viewer_largest_bytes);
        for ((previous, viewer_largest), counter) in viewers.zip(counters) {
            let now = counter.load(Ordering::Relaxed);
            let bytes = now.saturating_sub(*previous);
            *previous = now;
            *viewer_largest = (*viewer_largest).max(bytes);
            if bytes > self.largest.bytes {
                self.largest.bytes = bytes;
                self.largest.tick = tick;
            }
        }
    }

    /// The figure.
    pub(super) fn finish(self) -> TickPeak {
        let half = self.largest.bytes / 2;
        TickPeak {
            viewers_over_half: self
                .viewer_largest_bytes
                .iter()
                .filter(|b| **b >= half && **b > 0)
                .count(),
            ..self.largest
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_tick_is_one_viewers_delta_not_a_total() {
        let counters: Vec<Arc<AtomicU64>> = (0..3).map(|_| Arc::new(AtomicU64::new(100))).collect();
        let mut largest = LargestTick::new(&counters);
        counters[0].fetch_add(10, Ordering::Relaxed);
        counters[1].fetch_add(40, Ordering::Relaxed);
        largest.observe(&counters, 0);
        counters[0].fetch_add(30, Ordering::Relaxed);
        counters[2].fetch_add(25, Ordering::Relaxed);
        largest.observe(&counters, 1);
        counters[1].fetch_add(5, Ordering::Relaxed);
        largest.observe(&counters, 2);
        let peak = largest.finish();
        // Viewer 1's 40 in tick 0; viewers 0 (30) and 2 (25) reach half.
        assert_eq!(peak.bytes, 40);
        assert_eq!(peak.tick, 0);
        assert_eq!(peak.viewers_over_half, 3);
    }
}
