//! When a player's playing bar is sent: a small state machine per player,
//! fed the bar that player should see this tick, with no ECS in it.
//!
//! - A bar the player has not been sent yet (a new playback, a new stage
//!   of a two-player offer, the countdown's next second) goes at once.
//! - The same bar again goes every [`RESEND_TICKS`], because the client
//!   fades an action bar out about three seconds after it came.
//! - After something else showed text on the player's action bar, nothing
//!   is sent for [`HOLD_TICKS`], while the client shows that text in full.
//! - A player who sees no bar this tick is forgotten, so the next bar goes
//!   at once.

use std::collections::HashMap;
use std::hash::Hash;

/// Ticks between two sends of the same bar (one second).
pub(super) const RESEND_TICKS: i64 = 20;

/// Ticks the bar leaves someone else's action bar text on screen: the
/// vanilla client shows an action bar for three seconds, the last one
/// fading out, so the text is read whole and the bar comes back as it
/// fades (a short emote whose own text opens it still shows its bar).
pub(super) const HOLD_TICKS: i64 = 40;

/// Which bar a player sees, as cheap to compare as possible: names are
/// looked up only when a bar is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BarView<E> {
    /// A solo playback.
    Playing,
    /// An open offer, with the seconds until it times out.
    Waiting {
        /// Seconds left (rounded up).
        seconds_left: u32,
    },
    /// The offerer, while `joiner`'s match is pending.
    Joined {
        /// Who joined.
        joiner: E,
    },
    /// The joiner of `initiator`'s offer, while the match is pending.
    Joining {
        /// Whose offer.
        initiator: E,
    },
    /// A matched participant, playing with `other`.
    With {
        /// The other participant.
        other: E,
    },
    /// The timeout branch of an offer nobody joined.
    NobodyJoined,
}

/// What was last sent to one player.
#[derive(Clone, Debug)]
struct Shown<E> {
    view: BarView<E>,
    sent_tick: i64,
    seen_tick: i64,
    /// The emote's name, for the end line after the playback is gone.
    name: String,
}

/// The bars of every player, by player (entities in the server; anything
/// hashable in tests).
#[derive(Debug)]
pub(super) struct Bars<E> {
    shown: HashMap<E, Shown<E>>,
    held_until_tick: HashMap<E, i64>,
}

impl<E> Default for Bars<E> {
    fn default() -> Self {
        Self {
            shown: HashMap::new(),
            held_until_tick: HashMap::new(),
        }
    }
}

impl<E: Copy + Eq + Hash> Bars<E> {
    /// Something else showed text on `player`'s action bar at `now_tick`.
    pub(super) fn hold(&mut self, player: E, now_tick: i64) {
        self.held_until_tick.insert(player, now_tick + HOLD_TICKS);
    }

    /// Whether `player` is held at `now_tick` (see [`Bars::hold`]).
    pub(super) fn is_held(&self, player: E, now_tick: i64) -> bool {
        self.held_until_tick
            .get(&player)
            .is_some_and(|until| now_tick < *until)
    }

    /// `player` should see `view` at `now_tick`: true when it is to be
    /// sent now (the caller sends it and calls [`Bars::sent`]).
    pub(super) fn due(&mut self, player: E, view: BarView<E>, now_tick: i64) -> bool {
        let held = self.is_held(player, now_tick);
        match self.shown.get_mut(&player) {
            Some(shown) => {
                shown.seen_tick = now_tick;
                !held && (shown.view != view || now_tick - shown.sent_tick >= RESEND_TICKS)
            }
            None => !held,
        }
    }

    /// `view` of the emote `name` was sent to `player` at `now_tick`.
    pub(super) fn sent(&mut self, player: E, view: BarView<E>, name: &str, now_tick: i64) {
        let shown = self.shown.entry(player).or_insert_with(|| Shown {
            view,
            sent_tick: now_tick,
            seen_tick: now_tick,
            name: String::new(),
        });
        shown.view = view;
        shown.sent_tick = now_tick;
        shown.seen_tick = now_tick;
        if shown.name != name {
            name.clone_into(&mut shown.name);
        }
    }

    /// The name of the emote last shown to `player`, forgetting the
    /// player's bar (its playback ended).
    pub(super) fn forget(&mut self, player: E) -> Option<String> {
        self.shown.remove(&player).map(|shown| shown.name)
    }

    /// Drops the bars nobody was due to see at `now_tick` and the holds
    /// that are over. Call once a tick, after every [`Bars::due`].
    pub(super) fn end_tick(&mut self, now_tick: i64) {
        self.shown.retain(|_, shown| shown.seen_tick == now_tick);
        self.held_until_tick.retain(|_, until| now_tick < *until);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `ticks` ticks of one player seeing `view` and returns the ticks
    /// a bar was sent on.
    fn sends(bars: &mut Bars<u32>, from: i64, ticks: i64, view: BarView<u32>) -> Vec<i64> {
        let mut out = Vec::new();
        for tick in from..from + ticks {
            if bars.due(1, view, tick) {
                bars.sent(1, view, "Wave", tick);
                out.push(tick);
            }
            bars.end_tick(tick);
        }
        out
    }

    #[test]
    fn a_bar_goes_at_once_then_every_second() {
        let mut bars = Bars::default();
        assert_eq!(
            sends(&mut bars, 100, 61, BarView::Playing),
            [100, 120, 140, 160]
        );
    }

    #[test]
    fn a_new_view_goes_at_once() {
        let mut bars = Bars::default();
        sends(&mut bars, 0, 5, BarView::Waiting { seconds_left: 10 });
        assert_eq!(
            sends(&mut bars, 5, 3, BarView::Waiting { seconds_left: 9 }),
            [5]
        );
        assert_eq!(sends(&mut bars, 8, 3, BarView::With { other: 2 }), [8]);
    }

    #[test]
    fn another_text_holds_the_bar_for_two_seconds() {
        let mut bars = Bars::default();
        sends(&mut bars, 0, 10, BarView::Playing);
        bars.hold(1, 10);
        let sent = sends(&mut bars, 10, 80, BarView::Playing);
        assert_eq!(sent.first(), Some(&(10 + HOLD_TICKS)), "{sent:?}");
        // A hold before the playback starts holds its first bar too.
        let mut bars = Bars::default();
        bars.hold(1, 0);
        assert_eq!(
            sends(&mut bars, 0, HOLD_TICKS + 1, BarView::Playing),
            [HOLD_TICKS]
        );
    }

    #[test]
    fn a_player_without_a_bar_is_forgotten() {
        let mut bars = Bars::default();
        sends(&mut bars, 0, 5, BarView::Playing);
        // Tick 5: nothing plays for the player.
        bars.end_tick(5);
        assert_eq!(sends(&mut bars, 6, 2, BarView::Playing), [6]);
        assert_eq!(bars.forget(1).as_deref(), Some("Wave"));
        assert_eq!(bars.forget(1), None);
        assert_eq!(sends(&mut bars, 8, 2, BarView::Playing), [8]);
    }
}
