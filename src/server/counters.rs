//! What the server counts for its metrics, shared by the features that
//! count and the metrics plugin that shows them
//! ([`crate::server::metrics`]). This module depends on no feature, so any
//! feature may count here without importing another.
//!
//! [`ServerCounters`] is a resource holding an `Arc` of atomics: tasks off
//! the tick (the resource pack's HTTP server) keep a clone and count
//! without waiting for the tick, and the metrics endpoint reads them
//! without stopping it. Counters only go up; what is sampled each tick
//! (players online, playbacks) is the metrics plugin's own.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use valence::prelude::*;

/// What a sent byte carried, for `emoted_bytes_sent_total{kind}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SentKind {
    /// Metadata updates of emote display entities (their transformation,
    /// interpolation, visibility), counted once for every client that
    /// receives them.
    DisplayUpdates,
    /// Resource pack downloads (the body of each 200 answer to a GET).
    ResourcePack,
}

impl SentKind {
    /// Every kind, in the order they are shown.
    pub const ALL: [SentKind; 2] = [SentKind::DisplayUpdates, SentKind::ResourcePack];

    /// The label value.
    pub fn label(self) -> &'static str {
        match self {
            SentKind::DisplayUpdates => "display_updates",
            SentKind::ResourcePack => "resource_pack",
        }
    }
}

/// How a reload ended, for `emoted_reloads_total{result}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReloadResult {
    /// Every file and the configuration were taken.
    Ok,
    /// Something was refused (a file kept at its last good version, or the
    /// configuration kept).
    Errors,
}

/// The counters (module docs).
#[derive(Resource, Clone, Debug, Default)]
pub struct ServerCounters(Arc<Counters>);

/// The inside of [`ServerCounters`].
#[derive(Debug, Default)]
pub struct Counters {
    bytes_sent: [AtomicU64; SentKind::ALL.len()],
    reloads_ok: AtomicU64,
    reloads_with_errors: AtomicU64,
    pack_downloads: AtomicU64,
    molang_budget_stops: AtomicU64,
    plugin_messages_dropped: Mutex<BTreeMap<(&'static str, &'static str), u64>>,
}

impl ServerCounters {
    /// Counts `bytes` sent of `kind`.
    pub fn sent(&self, kind: SentKind, bytes: u64) {
        self.0.bytes_sent[kind as usize].fetch_add(bytes, Ordering::Relaxed);
    }

    /// Counts a reload.
    pub fn reloaded(&self, result: ReloadResult) {
        let counter = match result {
            ReloadResult::Ok => &self.0.reloads_ok,
            ReloadResult::Errors => &self.0.reloads_with_errors,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a resource pack download.
    pub fn pack_downloaded(&self) {
        self.0.pack_downloads.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a playback stopped because its Molang ran out of its budget.
    pub fn molang_budget_stopped(&self) {
        self.0.molang_budget_stops.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a plugin message dropped on `channel` for `reason` (a short
    /// word: `rate`, `malformed`).
    pub fn plugin_message_dropped(&self, channel: &'static str, reason: &'static str) {
        let mut dropped = self
            .0
            .plugin_messages_dropped
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *dropped.entry((channel, reason)).or_insert(0) += 1;
    }

    /// The bytes of `kind` sent so far.
    pub fn bytes_sent(&self, kind: SentKind) -> u64 {
        self.0.bytes_sent[kind as usize].load(Ordering::Relaxed)
    }

    /// Reloads so far that ended so.
    pub fn reloads(&self, result: ReloadResult) -> u64 {
        match result {
            ReloadResult::Ok => self.0.reloads_ok.load(Ordering::Relaxed),
            ReloadResult::Errors => self.0.reloads_with_errors.load(Ordering::Relaxed),
        }
    }

    /// Resource pack downloads so far.
    pub fn pack_downloads(&self) -> u64 {
        self.0.pack_downloads.load(Ordering::Relaxed)
    }

    /// Playbacks stopped by the Molang budget so far.
    pub fn molang_budget_stops(&self) -> u64 {
        self.0.molang_budget_stops.load(Ordering::Relaxed)
    }

    /// Dropped plugin messages so far, by (channel, reason).
    pub fn plugin_messages_dropped(&self) -> Vec<((&'static str, &'static str), u64)> {
        let dropped = self
            .0
            .plugin_messages_dropped
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        dropped.iter().map(|(k, v)| (*k, *v)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_add_up_by_kind_and_label() {
        let counters = ServerCounters::default();
        let shared = counters.clone();
        shared.sent(SentKind::ResourcePack, 1000);
        counters.sent(SentKind::ResourcePack, 24);
        counters.sent(SentKind::DisplayUpdates, 7);
        assert_eq!(counters.bytes_sent(SentKind::ResourcePack), 1024);
        assert_eq!(counters.bytes_sent(SentKind::DisplayUpdates), 7);
        counters.reloaded(ReloadResult::Errors);
        assert_eq!(
            (
                counters.reloads(ReloadResult::Ok),
                counters.reloads(ReloadResult::Errors)
            ),
            (0, 1)
        );
        counters.plugin_message_dropped("emotecraft:emote", "rate");
        counters.plugin_message_dropped("emotecraft:emote", "rate");
        counters.plugin_message_dropped("emoted:animation", "malformed");
        assert_eq!(
            counters.plugin_messages_dropped(),
            [
                (("emotecraft:emote", "rate"), 2),
                (("emoted:animation", "malformed"), 1)
            ]
        );
    }
}
