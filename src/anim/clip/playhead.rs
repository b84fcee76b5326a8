//! From the time a track has played to the clip's own time, and the
//! markers, events, sounds and plays passed between two such times.
//!
//! The clip runs at `speed` times real time: `s = elapsed · speed`. Then by
//! the loop mode, with `L` the clip's length:
//! - `once` and `hold` clamp `s` to `[0, L]` (the two differ only in what a
//!   player does at the end);
//! - `loop` wraps: `s mod L` (the end is shown as the start of the next cycle);
//! - `pingpong` runs forth and back: `s mod 2L`, read backwards in its
//!   second half.
//!
//! A clip of length 0 stays at 0.
//!
//! Things timed in the clip are passed when the playhead's run through the
//! clip reaches them: a thing at clip time `τ` in cycle `k` happens at
//! `k · L + τ` (`once`/`hold`: only `k = 0`; `pingpong`: forward runs
//! only, at `2kL + τ`, since seed 001 fires them only while a track plays
//! forwards). [`CompiledClip::cues_between`] lists those with
//! `from ≤ time < to`, so consecutive calls over `[a, b)`, `[b, c)` fire
//! each once. Something at `L` in a loop fires at the wrap, together with
//! what is at 0 of the next cycle. One call looks at
//! [`MAX_CUE_CYCLES`] cycles at most (a longer gap fires the last ones).

use super::CompiledClip;
use crate::format::clip::LoopMode;

/// The most cycles of a looping clip one [`CompiledClip::cues_between`]
/// call goes through.
pub const MAX_CUE_CYCLES: u64 = 1000;

/// Something timed in the clip, by its index in the clip's lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cue {
    /// `markers[i]`.
    Marker(usize),
    /// `events[i]`.
    Event(usize),
    /// `sounds[i]`.
    Sound(usize),
    /// `plays[i]`.
    Play(usize),
}

impl CompiledClip {
    /// The clip's time in seconds after a track has played `elapsed_secs`
    /// (by the rules of the module docs; negative counts as 0).
    pub fn clip_time(&self, elapsed_secs: f32) -> f32 {
        let length = self.length_secs;
        let s = (elapsed_secs.max(0.0) * self.speed).max(0.0);
        if length <= 0.0 || !s.is_finite() {
            return 0.0;
        }
        match self.loop_mode {
            LoopMode::Once | LoopMode::Hold => s.min(length),
            LoopMode::Loop => s.rem_euclid(length),
            LoopMode::PingPong => {
                let p = s.rem_euclid(2.0 * length);
                if p <= length {
                    p
                } else {
                    2.0 * length - p
                }
            }
        }
    }

    /// Appends to `out` every cue passed from `from_elapsed_secs` (included)
    /// to `to_elapsed_secs` (left out), track times as for
    /// [`CompiledClip::clip_time`], in the order they happen (at one time:
    /// markers, events, sounds, plays). `out` is not cleared; give it
    /// capacity and nothing is allocated.
    pub fn cues_between(&self, from_elapsed_secs: f32, to_elapsed_secs: f32, out: &mut Vec<Cue>) {
        let from = from_elapsed_secs.max(0.0) * self.speed;
        let to = to_elapsed_secs.max(0.0) * self.speed;
        if to <= from || !to.is_finite() {
            return;
        }
        let length = self.length_secs;
        let period = match self.loop_mode {
            LoopMode::Loop if length > 0.0 => length,
            LoopMode::PingPong if length > 0.0 => 2.0 * length,
            _ => {
                self.cues_of_run(0.0, from, to, out);
                return;
            }
        };
        let first = ((from / period).ceil() as u64).saturating_sub(1);
        let last = (to / period).floor() as u64;
        let first = first.max(last.saturating_sub(MAX_CUE_CYCLES - 1));
        for k in first..=last {
            self.cues_of_run(k as f32 * period, from, to, out);
        }
    }

    /// The cues of one forward run of the clip starting at `start`.
    fn cues_of_run(&self, start: f32, from: f32, to: f32, out: &mut Vec<Cue>) {
        let passed = |time: f32| {
            let at = start + time;
            from <= at && at < to
        };
        // Every list is sorted by time: merge them by time.
        let mut next = [0usize; 4];
        loop {
            let heads = [
                self.markers.get(next[0]).map(|m| m.time_secs),
                self.events.get(next[1]).map(|e| e.time_secs),
                self.sounds.get(next[2]).map(|s| s.time_secs),
                self.plays.get(next[3]).map(|p| p.time_secs),
            ];
            let Some((list, time)) = heads
                .iter()
                .enumerate()
                .filter_map(|(list, t)| t.map(|t| (list, t)))
                .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
            else {
                return;
            };
            let i = next[list];
            next[list] += 1;
            if start + time >= to {
                return;
            }
            if passed(time) {
                out.push(match list {
                    0 => Cue::Marker(i),
                    1 => Cue::Event(i),
                    2 => Cue::Sound(i),
                    _ => Cue::Play(i),
                });
            }
        }
    }
}
