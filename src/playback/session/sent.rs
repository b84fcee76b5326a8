//! What the viewers of each distance band were sent of each display
//! ([`crate::playback::schedule::bands`]).
//!
//! Each band's viewers get their own plan's updates, so each band has its
//! own last target and its own update in flight per node. Updates that are
//! not planned (a node per tick, a solver's, a jump to a new place) go to
//! every band alike. [`SentBands::send`] records an update for a set of
//! bands and hands the server one [`NodeUpdate`] per distinct previous
//! state, so the server can leave out the fields each band's viewers
//! already have and encode the rest once for every band that shares them.

use glam::Vec3;

use super::NodeUpdate;
use crate::anim::DisplayTransform;
use crate::playback::playing::InFlight;
use crate::playback::schedule::{bands_of, BandMask, DISPLAY_BANDS};

/// Per node, per band: the target last sent and the update in flight.
#[derive(Clone, Debug, Default)]
pub struct SentBands {
    last: Vec<[Option<DisplayTransform>; DISPLAY_BANDS]>,
    last_duration: Vec<[u32; DISPLAY_BANDS]>,
    flight: Vec<[Option<InFlight>; DISPLAY_BANDS]>,
}

/// The previous duration of a band that was sent nothing.
pub const UNKNOWN_DURATION: u32 = u32::MAX;

/// What a display shows before its first update: hidden at the origin (its
/// spawn fields).
pub const UNSENT: DisplayTransform = DisplayTransform {
    scale: Vec3::ZERO,
    ..DisplayTransform::IDENTITY
};

impl SentBands {
    /// Nothing sent yet to `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        Self {
            last: vec![[None; DISPLAY_BANDS]; nodes],
            last_duration: vec![[UNKNOWN_DURATION; DISPLAY_BANDS]; nodes],
            flight: vec![[None; DISPLAY_BANDS]; nodes],
        }
    }

    /// The target last sent to band `band`'s viewers of node `union`.
    pub fn last(&self, union: usize, band: usize) -> Option<DisplayTransform> {
        self.last.get(union)?.get(band).copied().flatten()
    }

    /// The update of more than one tick band `band`'s viewers may still be
    /// interpolating for node `union` (for viewers that arrive in the
    /// middle of it).
    pub fn flight(&self, union: usize, band: usize) -> Option<InFlight> {
        self.flight.get(union)?.get(band).copied().flatten()
    }

    /// What band `band`'s viewers draw of node `union` at server tick
    /// `now`.
    pub fn drawn_at(&self, union: usize, band: usize, now: i64) -> Option<DisplayTransform> {
        match self.flight(union, band) {
            Some(flight) if flight.remaining_ticks(now) > 0 => {
                let done = (now - flight.sent_tick) as f32 / flight.duration_ticks.max(1) as f32;
                Some(flight.from.interpolate(&flight.to, done.clamp(0.0, 1.0)))
            }
            Some(flight) => Some(flight.to),
            None => self.last(union, band),
        }
    }

    /// The bands of `mask` whose last target for `union` is not
    /// `transform`.
    pub fn differing(
        &self,
        union: usize,
        mask: BandMask,
        transform: &DisplayTransform,
    ) -> BandMask {
        bands_of(mask)
            .filter(|&band| self.last(union, band).as_ref() != Some(transform))
            .fold(0, |out, band| out | (1 << band))
    }

    /// Records `transform` over `duration_ticks` as sent at tick `now` to
    /// the bands of `mask`, each interpolating from what it draws now, and
    /// pushes the updates onto `out`: one per distinct previous target, so
    /// bands that had the same get one update.
    pub fn send(
        &mut self,
        union: usize,
        mask: BandMask,
        transform: DisplayTransform,
        duration_ticks: u32,
        now: i64,
        out: &mut Vec<NodeUpdate>,
    ) {
        if union >= self.last.len() {
            return;
        }
        let first_pushed = out.len();
        for band in bands_of(mask) {
            let previous = self.last(union, band);
            let previous_duration_ticks = self.last_duration[union][band];
            self.last_duration[union][band] = duration_ticks;
            // Where the interpolation starts matters only to an update
            // that interpolates.
            self.flight[union][band] = (duration_ticks > 1).then(|| InFlight {
                from: self.drawn_at(union, band, now).unwrap_or(UNSENT),
                to: transform,
                sent_tick: now,
                duration_ticks,
            });
            self.last[union][band] = Some(transform);
            match out[first_pushed..].iter_mut().find(|update| {
                update.previous == previous
                    && update.previous_duration_ticks == previous_duration_ticks
            }) {
                Some(shared) => shared.bands |= 1 << band,
                None => out.push(NodeUpdate {
                    union,
                    transform,
                    duration_ticks,
                    bands: 1 << band,
                    previous,
                    previous_duration_ticks,
                }),
            }
        }
    }

    /// Forgets every band's update in flight for `union` (the node was
    /// moved with no interpolation).
    pub fn land(&mut self, union: usize) {
        if let Some(flights) = self.flight.get_mut(union) {
            *flights = [None; DISPLAY_BANDS];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playback::schedule::EVERY_BAND;

    fn at(x: f32) -> DisplayTransform {
        DisplayTransform {
            translation: Vec3::new(x, 0.0, 0.0),
            ..DisplayTransform::IDENTITY
        }
    }

    #[test]
    fn bands_with_the_same_previous_target_share_one_update() {
        let mut sent = SentBands::new(1);
        let mut out = Vec::new();
        sent.send(0, EVERY_BAND, at(1.0), 1, 0, &mut out);
        assert_eq!(out.len(), 1, "nothing sent before: one update");
        assert_eq!(out[0].bands, EVERY_BAND);
        assert_eq!(out[0].previous, None);
        out.clear();
        // Bands 0 and 1 move on; 2 and 3 keep their target.
        sent.send(0, 0b0011, at(2.0), 4, 1, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(sent.last(0, 0), Some(at(2.0)));
        assert_eq!(sent.last(0, 3), Some(at(1.0)));
        out.clear();
        sent.send(0, EVERY_BAND, at(3.0), 1, 5, &mut out);
        assert_eq!(out.len(), 2, "two previous targets: two updates");
        assert_eq!(out[0].bands, 0b0011);
        assert_eq!(out[0].previous, Some(at(2.0)));
        assert_eq!(out[1].bands, 0b1100);
        assert_eq!(out[1].previous, Some(at(1.0)));
        assert_eq!(sent.differing(0, EVERY_BAND, &at(3.0)), 0);
        assert_eq!(sent.differing(0, EVERY_BAND, &at(4.0)), EVERY_BAND);
    }

    #[test]
    fn a_band_in_flight_is_drawn_part_way_and_the_next_update_starts_there() {
        let mut sent = SentBands::new(1);
        let mut out = Vec::new();
        sent.send(0, 0b0001, at(0.0), 1, 0, &mut out);
        sent.send(0, 0b0001, at(4.0), 4, 1, &mut out);
        let flight = sent.flight(0, 0).expect("in flight");
        assert_eq!(flight.from, at(0.0));
        assert_eq!(sent.drawn_at(0, 0, 3), Some(at(2.0)));
        assert_eq!(sent.drawn_at(0, 0, 9), Some(at(4.0)));
        assert_eq!(sent.flight(0, 1), None, "band 1 got nothing");
        sent.send(0, 0b0001, at(8.0), 2, 3, &mut out);
        assert_eq!(sent.flight(0, 0).map(|f| f.from), Some(at(2.0)));
        sent.land(0);
        assert_eq!(sent.flight(0, 0), None);
        assert_eq!(sent.last(0, 0), Some(at(8.0)));
        // Out of range: nothing.
        sent.send(7, EVERY_BAND, at(1.0), 1, 0, &mut out);
        assert_eq!(sent.last(7, 0), None);
    }
}
