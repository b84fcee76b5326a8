//! NBT tracks at runtime: which keys a tick applies, and which option a
//! selector's value picks. There is no NBT here: a key's compounds stay in
//! the file's [`NbtKey`](crate::format::nbt_track::NbtKey) list, and this
//! names them by key and option index (the model is on
//! [`crate::format::nbt_track`]).
//!
//! Keys are events, not samples: each applies once per cycle, in order.
//!
//! ```text
//!   keys:       k0 (0t) ──────── k1 (10t) ──── k2 (15t)
//!   position p: every key with time ≤ p not applied yet this cycle
//!   p = 0..9    k0 at 0
//!   p = 10      k1
//!   p = 12 as the first tick (a late start): k0, then k1, in order
//!   new cycle   (or p before the last position): from k0 again
//! ```
//!
//! A position that goes back without a new cycle (a `server_sync` wall
//! clock that stepped over the start of a cycle) counts as a new cycle:
//! the keys are applied from the first again, as from a late start.

use std::ops::Range;

use super::track::ExprId;

/// How a key picks the compound it applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NbtChoice {
    /// Its one compound (option 0).
    Fixed,
    /// The option an expression's value names.
    Select {
        /// The selector.
        expr: ExprId,
        /// How many options it chooses from (at least 2).
        option_count: u32,
    },
}

/// A compiled NBT track: key times and how each key chooses.
#[derive(Clone, Debug, PartialEq)]
pub struct NbtTrack {
    times_ticks: Vec<u32>,
    choices: Vec<NbtChoice>,
}

/// Where a playback is in one node's NBT track this cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NbtCursor {
    /// Keys applied so far this cycle.
    applied: usize,
    /// The position of the last tick, to see it go back.
    last_position_ticks: Option<u32>,
}

/// The keys one tick applies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DueKeys {
    /// The cycle starts again: drop what the earlier keys built first.
    pub restart: bool,
    /// The keys to apply, in order (empty: none).
    pub keys: Range<usize>,
}

impl NbtTrack {
    /// A track from `(tick, choice)` pairs in strictly increasing time
    /// (validated at load).
    pub fn new(keys: &[(u32, NbtChoice)]) -> Self {
        Self {
            times_ticks: keys.iter().map(|k| k.0).collect(),
            choices: keys.iter().map(|k| k.1).collect(),
        }
    }

    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.times_ticks.len()
    }

    /// The tick of key `key`.
    pub fn time_ticks(&self, key: usize) -> u32 {
        self.times_ticks.get(key).copied().unwrap_or(0)
    }

    /// How key `key` chooses.
    pub fn choice(&self, key: usize) -> NbtChoice {
        self.choices.get(key).copied().unwrap_or(NbtChoice::Fixed)
    }

    /// The keys due on a tick at timeline `position_ticks`, moving `cursor`
    /// past them. `cycle_started`: this tick begins a cycle (a fresh
    /// Molang session), so the keys start again from the first.
    pub fn due(&self, cursor: &mut NbtCursor, position_ticks: u32, cycle_started: bool) -> DueKeys {
        let went_back = cursor
            .last_position_ticks
            .is_some_and(|last| position_ticks < last);
        let restart = cycle_started || went_back;
        if restart {
            cursor.applied = 0;
        }
        cursor.last_position_ticks = Some(position_ticks);
        let from = cursor.applied;
        let to = from + self.times_ticks[from..].partition_point(|&t| t <= position_ticks);
        cursor.applied = to;
        DueKeys {
            restart,
            keys: from..to,
        }
    }
}

/// A selector's value that names no option: playback stops.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error(
    "an nbt selector gave {value}, not a whole number from 0 to {} (its {option_count} options), so the emote stops",
    option_count.saturating_sub(1)
)]
pub struct BadSelection {
    /// What the selector returned.
    pub value: f64,
    /// How many options it had.
    pub option_count: u32,
}

/// The option a selector's `value` names: a finite whole number from 0 to
/// `option_count - 1`, else [`BadSelection`].
pub fn select_option(value: f64, option_count: u32) -> Result<u32, BadSelection> {
    let whole = value.is_finite() && value.fract() == 0.0;
    if whole && value >= 0.0 && value < f64::from(option_count) {
        Ok(value as u32)
    } else {
        Err(BadSelection {
            value,
            option_count,
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// k0 at 0t, k1 at 10t (a selector), k2 at 15t.
    fn track() -> NbtTrack {
        NbtTrack::new(&[
            (0, NbtChoice::Fixed),
            (
                10,
                NbtChoice::Select {
                    expr: ExprId(0),
                    option_count: 3,
                },
            ),
            (15, NbtChoice::Fixed),
        ])
    }

    fn run(track: &NbtTrack, ticks: &[(u32, bool)]) -> Vec<DueKeys> {
        let mut cursor = NbtCursor::default();
        ticks
            .iter()
            .map(|&(position, started)| track.due(&mut cursor, position, started))
            .collect()
    }

    fn due(restart: bool, keys: Range<usize>) -> DueKeys {
        DueKeys { restart, keys }
    }

    #[test]
    fn each_key_applies_once_at_its_tick() {
        // t = k − 1, k, k + 1 around each key, then the end held.
        let ticks: Vec<(u32, bool)> = (0..=20).map(|t| (t, t == 0)).collect();
        let steps = run(&track(), &ticks);
        let applied: Vec<(u32, Range<usize>)> = steps
            .iter()
            .zip(&ticks)
            .filter(|(d, _)| !d.keys.is_empty())
            .map(|(d, (t, _))| (*t, d.keys.clone()))
            .collect();
        assert_eq!(applied, [(0, 0..1), (10, 1..2), (15, 2..3)]);
        assert!(steps[0].restart && !steps[1].restart);
        assert_eq!(steps[9], due(false, 1..1));
        assert_eq!(steps[11], due(false, 2..2));
    }

    #[test]
    fn a_held_end_applies_nothing_more() {
        let steps = run(
            &track(),
            &[(0, true), (15, false), (15, false), (15, false)],
        );
        assert_eq!(steps[1], due(false, 1..3));
        assert_eq!(steps[2], due(false, 3..3));
        assert_eq!(steps[3], due(false, 3..3));
    }

    #[test]
    fn a_late_start_applies_every_earlier_key_in_order() {
        let steps = run(&track(), &[(12, true), (13, false), (15, false)]);
        assert_eq!(steps[0], due(true, 0..2));
        assert_eq!(steps[1], due(false, 2..2));
        assert_eq!(steps[2], due(false, 2..3));
    }

    #[test]
    fn every_cycle_starts_again_from_the_first_key() {
        // A loop of 20: ..., 19, 0 (a new cycle), 1, ...
        let steps = run(&track(), &[(0, true), (19, false), (0, true), (1, false)]);
        assert_eq!(steps[1], due(false, 1..3));
        assert_eq!(steps[2], due(true, 0..1));
        assert_eq!(steps[3], due(false, 1..1));
    }

    #[test]
    fn a_position_that_goes_back_restarts_the_cycle() {
        // A server_sync wall clock that skipped the tick of position 0.
        let steps = run(&track(), &[(17, true), (19, false), (1, false)]);
        assert_eq!(steps[2], due(true, 0..1));
    }

    #[test]
    fn a_selector_must_name_an_option() {
        assert_eq!(select_option(0.0, 3), Ok(0));
        assert_eq!(select_option(2.0, 3), Ok(2));
        for bad in [3.0, -1.0, 0.5, f64::NAN, f64::INFINITY, -0.25] {
            let error = select_option(bad, 3).expect_err("no option");
            assert_eq!(error.value.to_bits(), bad.to_bits());
            assert_eq!(error.option_count, 3);
        }
        assert_eq!(
            BadSelection {
                value: 3.0,
                option_count: 3
            }
            .to_string(),
            "an nbt selector gave 3, not a whole number from 0 to 2 (its 3 options), so the emote stops"
        );
    }

    proptest! {
        /// Whatever the positions, a cycle applies every key at most once,
        /// in order, and only keys whose time has come.
        #[test]
        fn keys_apply_in_order_at_most_once_per_cycle(
            positions in proptest::collection::vec((0u32..=20, proptest::bool::weighted(0.1)), 1..60)
        ) {
            let track = track();
            let mut cursor = NbtCursor::default();
            let mut applied_this_cycle = 0;
            for (i, &(position, started)) in positions.iter().enumerate() {
                let due = track.due(&mut cursor, position, started || i == 0);
                if due.restart {
                    applied_this_cycle = 0;
                }
                prop_assert_eq!(due.keys.start, applied_this_cycle);
                for key in due.keys.clone() {
                    prop_assert!(track.time_ticks(key) <= position);
                }
                applied_this_cycle = due.keys.end;
                // Every key due by now has been applied.
                let expected = (0..track.key_count()).filter(|&k| track.time_ticks(k) <= position).count();
                prop_assert_eq!(applied_this_cycle, expected);
            }
        }
    }
}
