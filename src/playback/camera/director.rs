//! Which of an emote's shots films a tick, and how far into it.
//!
//! Shots are in order of their start (`at`, as
//! [`crate::format::camera`] keeps them). At a tick of the emote's cycle:
//! - before the first shot starts, the first shot holds its start;
//! - a shot moves over its duration, its time fraction eased by its
//!   `ease`, then holds its end until the next shot starts;
//! - the tick a later shot starts is a **cut**: the camera jumps there
//!   (the server swaps camera entities so the client does not glide from
//!   the old shot's pose to the new one).

use crate::format::camera::CameraShot;

/// The shot of one tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShotAt<'a> {
    /// The shot.
    pub shot: &'a CameraShot,
    /// Its index among the emote's shots.
    pub index: usize,
    /// Its eased time fraction, in `[0, 1]` for every easing that stays
    /// there (`back` and `elastic` overshoot on purpose).
    pub eased_fraction: f32,
    /// True on the tick a shot after the first starts: a cut.
    pub cut: bool,
}

/// The shot that films `tick` (ticks from the cycle's start); `None` when
/// there are no shots.
pub fn shot_at(shots: &[CameraShot], tick: u32) -> Option<ShotAt<'_>> {
    let first = shots.first()?;
    let index = shots.iter().rposition(|s| s.at_ticks <= tick).unwrap_or(0);
    let shot = shots.get(index).unwrap_or(first);
    let elapsed = tick.saturating_sub(shot.at_ticks);
    let linear = if shot.duration_ticks == 0 {
        1.0
    } else {
        (elapsed as f32 / shot.duration_ticks as f32).min(1.0)
    };
    Some(ShotAt {
        shot,
        index,
        eased_fraction: shot.ease.apply(linear),
        cut: index > 0 && tick == shot.at_ticks,
    })
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::format::camera::{ShotKind, ShotTarget};
    use crate::format::track::Easing;

    fn shot(at_ticks: u32, duration_ticks: u32) -> CameraShot {
        CameraShot {
            at_ticks,
            duration_ticks,
            target: ShotTarget::Initiator,
            offset_blocks: Vec3::ZERO,
            ease: Easing::Linear,
            kind: ShotKind::Fixed {
                position_blocks: Vec3::Z,
            },
        }
    }

    #[test]
    fn each_tick_gets_its_shot_moving_then_holding_and_cuts_where_a_shot_starts() {
        let shots = [shot(10, 20), shot(40, 10)];
        let at = |tick| shot_at(&shots, tick).expect("a shot");
        // Before the first: the first holds its start.
        assert_eq!(
            (at(0).index, at(0).eased_fraction, at(0).cut),
            (0, 0.0, false)
        );
        assert_eq!(
            (at(10).index, at(10).cut),
            (0, false),
            "the first is no cut"
        );
        assert!((at(20).eased_fraction - 0.5).abs() < 1e-6);
        // It holds its end until the next starts.
        assert_eq!(at(30).eased_fraction, 1.0);
        assert_eq!((at(39).index, at(39).eased_fraction), (0, 1.0));
        assert_eq!(
            (at(40).index, at(40).eased_fraction, at(40).cut),
            (1, 0.0, true)
        );
        assert!(!at(41).cut);
        assert_eq!((at(500).index, at(500).eased_fraction), (1, 1.0));
        assert_eq!(shot_at(&[], 5), None);
    }

    #[test]
    fn the_fraction_is_eased() {
        let mut eased = shot(0, 20);
        eased.ease = Easing::InQuad;
        let at = shot_at(std::slice::from_ref(&eased), 10).expect("a shot");
        assert!((at.eased_fraction - 0.25).abs() < 1e-6, "{at:?}");
    }
}
