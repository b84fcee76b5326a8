//! Where a playback is on its timeline, tick by tick, for each mode.
//!
//! `D` is the duration and `L` the loop delay, both in ticks; `e` counts the
//! server ticks since the playback began (0 on its first tick).
//!
//! | mode | timeline position | ends |
//! |---|---|---|
//! | `once` | `min(e, D)` | after the tick that shows `D` |
//! | `hold` | `min(e, D)`, then holds `D` | when stopped |
//! | `loop`, `L = 0` | `e mod D` (the next cycle's 0 replaces `D`) | when stopped |
//! | `loop`, `L > 0` | `e mod (D + L)`, holding `D` during the delay | when stopped |
//! | `server_sync` | like `loop`, on the wall-clock tick `unix_ms / 50` instead of `e` | when stopped |
//!
//! A cycle **starts** at position 0 (and on the first tick of any playback,
//! even a `server_sync` one that joins mid-cycle): the caller opens a fresh
//! Molang session and runs `molang.initialize`. A cycle **completes** when the
//! timeline reaches `D` (`loop` events fire; `q.loop_count` counts completed
//! cycles). While a playback holds a pose (the end of `hold`, a loop delay),
//! the timeline is not advancing: no `molang.tick`, no timeline events.

use std::ops::RangeInclusive;

use crate::format::settings::PlaybackMode;

/// What one server tick of a playback does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockStep {
    /// The timeline position to sample, `0..=D`.
    pub position_ticks: u32,
    /// Completed cycles (`q.loop_count`).
    pub loop_count: u32,
    /// A new cycle began: fresh Molang session and `molang.initialize`.
    pub cycle_started: bool,
    /// The timeline advanced this tick: run `molang.tick`.
    pub advancing: bool,
    /// Timeline events whose time lies in this range fire now.
    pub timeline_events: Option<RangeInclusive<u32>>,
    /// A cycle completed this tick: run the `loop` events.
    pub loop_completed: bool,
    /// The playback ends after this tick (only `once`).
    pub finished: bool,
}

/// The timeline clock of one playback.
#[derive(Clone, Debug)]
pub struct Clock {
    mode: PlaybackMode,
    duration_ticks: u32,
    loop_delay_ticks: u32,
    elapsed_ticks: u64,
    /// (cycle, position) of the previous step, for event ranges.
    last: Option<(u64, u32)>,
}

impl Clock {
    /// A clock for a timeline of `duration_ticks` (at least 1).
    pub fn new(mode: PlaybackMode, duration_ticks: u32, loop_delay_ticks: u32) -> Self {
        let loop_delay_ticks = match mode {
            PlaybackMode::Once | PlaybackMode::Hold => 0,
            PlaybackMode::Loop | PlaybackMode::ServerSync => loop_delay_ticks,
        };
        Self {
            mode,
            duration_ticks: duration_ticks.max(1),
            loop_delay_ticks,
            elapsed_ticks: 0,
            last: None,
        }
    }

    /// The server ticks this playback has run.
    pub fn elapsed_ticks(&self) -> u64 {
        self.elapsed_ticks
    }

    /// Advances one server tick. `wall_tick` (`unix_ms / 50`) is only read in
    /// `server_sync` mode.
    pub fn step(&mut self, wall_tick: u64) -> ClockStep {
        let e = self.elapsed_ticks;
        self.elapsed_ticks += 1;
        let d = self.duration_ticks;
        match self.mode {
            PlaybackMode::Once | PlaybackMode::Hold => {
                let position = e.min(u64::from(d)) as u32;
                let advancing = e <= u64::from(d);
                let step = ClockStep {
                    position_ticks: position,
                    loop_count: 0,
                    cycle_started: e == 0,
                    advancing,
                    timeline_events: advancing.then_some(position..=position),
                    loop_completed: false,
                    finished: self.mode == PlaybackMode::Once && e >= u64::from(d),
                };
                self.last = Some((0, position));
                step
            }
            PlaybackMode::Loop => self.cyclic_step(e, e == 0),
            PlaybackMode::ServerSync => self.cyclic_step(wall_tick, e == 0),
        }
    }

    fn cyclic_step(&mut self, t: u64, first: bool) -> ClockStep {
        let d = u64::from(self.duration_ticks);
        let l = u64::from(self.loop_delay_ticks);
        let period = d + l;
        let cycle = t / period;
        let within = t % period;
        let position = within.min(d) as u32;
        let advancing = within <= d && !(l == 0 && within == d);
        // The cycle that just ended reached D: at `within == D` with a delay,
        // or when the next cycle begins without one.
        let loop_completed = !first && if l == 0 { within == 0 } else { within == d };
        let cycle_started = first || within == 0;
        let timeline_events = if !advancing {
            None
        } else {
            match self.last {
                // Joining (or resuming) mid-cycle: only what is due now.
                _ if first => Some(position..=position),
                Some((last_cycle, last_pos)) if last_cycle == cycle && last_pos < position => {
                    Some(last_pos + 1..=position)
                }
                Some((last_cycle, _)) if last_cycle == cycle => None,
                _ => Some(0..=position),
            }
        };
        self.last = Some((cycle, position));
        ClockStep {
            position_ticks: position,
            // server_sync counts cycles since it joined, not since the epoch.
            loop_count: if self.mode == PlaybackMode::Loop {
                cycle as u32
            } else {
                0
            },
            cycle_started,
            advancing,
            timeline_events,
            loop_completed,
            finished: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(clock: &mut Clock, ticks: u64, wall_start: u64) -> Vec<ClockStep> {
        (0..ticks).map(|i| clock.step(wall_start + i)).collect()
    }

    #[test]
    fn once_plays_zero_to_duration_then_finishes() {
        let steps = run(&mut Clock::new(PlaybackMode::Once, 3, 0), 4, 0);
        let positions: Vec<u32> = steps.iter().map(|s| s.position_ticks).collect();
        assert_eq!(positions, vec![0, 1, 2, 3]);
        assert!(steps[0].cycle_started && !steps[1].cycle_started);
        assert_eq!(steps.iter().filter(|s| s.finished).count(), 1);
        assert!(steps[3].finished);
        assert_eq!(steps[2].timeline_events, Some(2..=2));
    }

    #[test]
    fn hold_stops_advancing_at_the_end() {
        let steps = run(&mut Clock::new(PlaybackMode::Hold, 2, 0), 6, 0);
        let positions: Vec<u32> = steps.iter().map(|s| s.position_ticks).collect();
        assert_eq!(positions, vec![0, 1, 2, 2, 2, 2]);
        assert!(steps[2].advancing && !steps[3].advancing);
        assert!(steps[4].timeline_events.is_none());
        assert!(steps.iter().all(|s| !s.finished));
    }

    #[test]
    fn loop_without_delay_wraps_and_counts() {
        let steps = run(&mut Clock::new(PlaybackMode::Loop, 3, 0), 7, 0);
        let positions: Vec<u32> = steps.iter().map(|s| s.position_ticks).collect();
        assert_eq!(positions, vec![0, 1, 2, 0, 1, 2, 0]);
        let completed: Vec<usize> = steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.loop_completed)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(completed, vec![3, 6]);
        assert_eq!(steps[4].loop_count, 1);
        assert!(steps[3].cycle_started && steps[3].timeline_events == Some(0..=0));
    }

    #[test]
    fn loop_delay_holds_the_final_pose() {
        // D = 2, L = 3: positions 0 1 2 | 2 2 2 (delay, holding) | 0 ...
        let steps = run(&mut Clock::new(PlaybackMode::Loop, 2, 3), 8, 0);
        let positions: Vec<u32> = steps.iter().map(|s| s.position_ticks).collect();
        assert_eq!(positions, vec![0, 1, 2, 2, 2, 0, 1, 2]);
        let advancing: Vec<bool> = steps.iter().map(|s| s.advancing).collect();
        assert_eq!(
            advancing,
            vec![true, true, true, false, false, true, true, true]
        );
        assert!(steps[2].loop_completed && steps[7].loop_completed);
        assert_eq!(steps.iter().filter(|s| s.loop_completed).count(), 2);
        assert!(steps[5].cycle_started);
    }

    #[test]
    fn server_sync_follows_the_wall_clock() {
        // Two playbacks started at different moments agree on the position.
        let mut a = Clock::new(PlaybackMode::ServerSync, 10, 0);
        let mut b = Clock::new(PlaybackMode::ServerSync, 10, 0);
        for wall in 1_000..1_005 {
            a.step(wall);
        }
        for wall in 1_005..1_020 {
            let sa = a.step(wall);
            let sb = b.step(wall);
            assert_eq!(sa.position_ticks, sb.position_ticks);
            assert_eq!(sa.position_ticks as u64, wall % 10);
        }
    }

    #[test]
    fn server_sync_joining_mid_cycle_fires_only_current_events() {
        let mut clock = Clock::new(PlaybackMode::ServerSync, 10, 5);
        let first = clock.step(1_012); // 1_012 mod 15 = 7
        assert_eq!(first.position_ticks, 7);
        assert!(first.cycle_started);
        assert_eq!(first.timeline_events, Some(7..=7));
        // A skipped wall tick (server lag) still fires the events in between.
        let next = clock.step(1_014);
        assert_eq!(next.timeline_events, Some(8..=9));
    }
}
