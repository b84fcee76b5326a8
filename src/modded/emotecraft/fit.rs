//! The fewest PlayerAnimator keys for one sampled axis: each key carries
//! the ease of the stretch that leaves it (the binary's `isEasingBefore`
//! is false), and a stretch may use any of the easings PlayerAnimator and
//! schema 4 share, so an emote keyed with `ease_in_out_sine` comes out
//! with about the keys its file has, not one every few ticks.
//!
//! # How
//! Greedy from the first sample: the stretch from key `a` ends at the
//! farthest tick (at most [`MAX_STRETCH_TICKS`] on) for which some easing
//! in [`FIT_EASES`] (linear first) stays within the tolerance of every
//! sample it spans; that tick is the next key. The easings are PlayerAnimator's ids for Penner's
//! curves, evaluated by emoted's own implementation
//! ([`crate::molang::ease`]), the curves easings.net defines, as
//! PlayerAnimator's are. Two ids are never written: 1 (constant, a jump
//! the sampled motion never needs) and 34, which PlayerAnimator plays as
//! out-back rather than out-bounce.

use super::animation::Keyframe;
use crate::molang::ease::{ease_unit, Ease, EaseDirection, EaseFamily};

/// The easings a stretch may use, by PlayerAnimator id, tried in order
/// (linear, then the families emote files use most).
pub const FIT_EASES: [u8; 29] = [
    0, 8, 6, 7, 14, 12, 13, 11, 9, 10, 17, 15, 16, 20, 18, 19, 29, 27, 28, 26, 24, 25, 23, 21, 22,
    32, 30, 31, 35,
];

/// The longest stretch one key may cover (bounds the fitting's work).
pub const MAX_STRETCH_TICKS: usize = 400;

/// PlayerAnimator's ease `id` as a Penner curve: `None` for linear (0)
/// and for the ids this server never writes (1 and 34, see the module
/// docs), which read as linear here.
pub fn ease_of_id(id: u8) -> Option<Ease> {
    use EaseDirection::{In, InOut, Out};
    use EaseFamily::*;
    let (family, direction) = match id {
        6 => (Sine, In),
        7 => (Sine, Out),
        8 => (Sine, InOut),
        9 => (Cubic, In),
        10 => (Cubic, Out),
        11 => (Cubic, InOut),
        12 => (Quad, In),
        13 => (Quad, Out),
        14 => (Quad, InOut),
        15 => (Quart, In),
        16 => (Quart, Out),
        17 => (Quart, InOut),
        18 => (Quint, In),
        19 => (Quint, Out),
        20 => (Quint, InOut),
        21 => (Expo, In),
        22 => (Expo, Out),
        23 => (Expo, InOut),
        24 => (Circ, In),
        25 => (Circ, Out),
        26 => (Circ, InOut),
        27 => (Back, In),
        28 => (Back, Out),
        29 => (Back, InOut),
        30 => (Elastic, In),
        31 => (Elastic, Out),
        32 => (Elastic, InOut),
        33 => (Bounce, In),
        35 => (Bounce, InOut),
        _ => return None,
    };
    Some(Ease { family, direction })
}

/// The eased fraction of PlayerAnimator ease `id` at `f` in `[0, 1]`.
pub fn eased(id: u8, f: f32) -> f32 {
    ease_of_id(id).map_or(f, |ease| ease_unit(ease, f))
}

/// The fewest keys (module docs) whose stretches stay within `tolerance`
/// of every sample; sample `i` is tick `i`. A constant axis is one key.
pub fn fit_keys(values: &[f32], tolerance: f32) -> Vec<Keyframe> {
    fit_keys_with(values, tolerance, &[])
}

/// [`fit_keys`], with a key at every tick `i` where `required[i]` is set
/// (a tick past its end counts as not set): no stretch spans one, so
/// the keys give exactly the sample there. [`super::composite`] asks for
/// them where the axes read together stray.
pub fn fit_keys_with(values: &[f32], tolerance: f32, required: &[bool]) -> Vec<Keyframe> {
    let key = |i: usize, ease: u8| Keyframe {
        tick: i32::try_from(i).unwrap_or(i32::MAX),
        value: values[i],
        ease,
    };
    let Some(last) = values.len().checked_sub(1) else {
        return Vec::new();
    };
    let is_required = |i: usize| required.get(i).copied().unwrap_or(false);
    let any_required = (1..last).any(is_required);
    if !any_required && values.iter().all(|v| (v - values[0]).abs() <= tolerance) {
        return vec![key(0, 0)];
    }
    let mut keys = Vec::new();
    let mut from = 0;
    while from < last {
        // The farthest end some easing fits, looked for from far to near
        // (a stretch that fits to 14 may fit to no tick from 8 to 13: the
        // first half of an in-out curve is no whole curve); a one-tick
        // stretch always fits linearly. A far end that does not fit is
        // refused at its first sample out of tolerance, so this costs
        // about a check per easing per tick. No stretch goes past a
        // required key.
        let farthest = (from + 1..(from + MAX_STRETCH_TICKS).min(last))
            .find(|&i| is_required(i))
            .unwrap_or((from + MAX_STRETCH_TICKS).min(last));
        let (to, ease) = (from + 2..=farthest)
            .rev()
            .find_map(|to| {
                FIT_EASES
                    .iter()
                    .find(|&&id| stretch_fits(values, from, to, id, tolerance))
                    .map(|&id| (to, id))
            })
            .unwrap_or((from + 1, 0));
        keys.push(key(from, ease));
        from = to;
    }
    keys.push(key(last, 0));
    keys
}

/// The value `keys` (as [`fit_keys`] makes them: ticks increasing, each
/// key's ease for the stretch that leaves it) give at `tick`: the first
/// key's value before it, the last one's after.
pub fn value_at(keys: &[Keyframe], tick: i32) -> f32 {
    let Some(first) = keys.first() else {
        return 0.0;
    };
    if tick <= first.tick {
        return first.value;
    }
    for pair in keys.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if tick <= b.tick {
            let f = (tick - a.tick) as f32 / (b.tick - a.tick).max(1) as f32;
            return a.value + (b.value - a.value) * eased(a.ease, f);
        }
    }
    keys.last().map_or(0.0, |k| k.value)
}

/// Whether the stretch from sample `a` to sample `b` eased by `id` is
/// within `tolerance` of every sample between.
pub fn stretch_fits(values: &[f32], a: usize, b: usize, id: u8, tolerance: f32) -> bool {
    let span = (b - a) as f32;
    let (from, to) = (values[a], values[b]);
    (a + 1..b).all(|i| {
        let f = eased(id, (i - a) as f32 / span);
        (from + (to - from) * f - values[i]).abs() <= tolerance
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straight_ramp_keeps_its_ends_and_a_corner_keeps_the_corner() {
        let ramp: Vec<f32> = (0..=10).map(|i| i as f32).collect();
        let keys = fit_keys(&ramp, 0.01);
        assert_eq!(keys.iter().map(|k| k.tick).collect::<Vec<_>>(), [0, 10]);
        assert_eq!(keys[0].ease, 0, "linear");
        let corner: Vec<f32> = (0..=10).map(|i| (i.min(4)) as f32).collect();
        let keys = fit_keys(&corner, 0.01);
        assert_eq!(keys.iter().map(|k| k.tick).collect::<Vec<_>>(), [0, 4, 10]);
        assert_eq!(keys[1].value, 4.0);
    }

    #[test]
    fn an_eased_swing_is_its_two_keys_with_the_ease() {
        // 0 → 90 over 20 ticks in-out sine, then back over 20 ticks in
        // quad: (1 − cos(πf))/2 and f².
        let mut values: Vec<f32> = (0..=20)
            .map(|i| 90.0 * (1.0 - (std::f32::consts::PI * i as f32 / 20.0).cos()) / 2.0)
            .collect();
        values.extend((1..=20).map(|i| 90.0 - 90.0 * (i as f32 / 20.0).powi(2)));
        let keys = fit_keys(&values, 0.01);
        let ticks: Vec<i32> = keys.iter().map(|k| k.tick).collect();
        assert_eq!(ticks, [0, 20, 40]);
        assert_eq!(
            (keys[0].ease, keys[1].ease),
            (8, 12),
            "in-out sine, in quad"
        );
    }

    #[test]
    fn every_tick_is_within_tolerance_and_a_constant_axis_is_one_key() {
        assert_eq!(fit_keys(&[2.0; 9], 0.01).len(), 1);
        let wave: Vec<f32> = (0..=80).map(|i| (i as f32 * 0.3).sin()).collect();
        let keys = fit_keys(&wave, 0.01);
        assert!(keys.len() < wave.len(), "{} keys", keys.len());
        for (tick, value) in wave.iter().enumerate() {
            let got = value_at(&keys, tick as i32);
            assert!((got - value).abs() <= 0.011, "{got} at {tick}, not {value}");
        }
    }

    #[test]
    fn a_required_key_splits_the_stretch_that_would_span_it() {
        let ramp: Vec<f32> = (0..=10).map(|i| i as f32).collect();
        let mut required = vec![false; 11];
        required[3] = true;
        required[7] = true;
        let keys = fit_keys_with(&ramp, 0.01, &required);
        let ticks: Vec<i32> = keys.iter().map(|k| k.tick).collect();
        assert_eq!(ticks, [0, 3, 7, 10]);
        // Even a constant axis keeps them.
        let keys = fit_keys_with(&[2.0; 11], 0.01, &required);
        assert_eq!(
            keys.iter().map(|k| k.tick).collect::<Vec<_>>(),
            [0, 3, 7, 10]
        );
        assert_eq!(fit_keys_with(&[2.0; 11], 0.01, &[]).len(), 1);
    }

    #[test]
    fn the_ease_ids_are_playeranimators() {
        assert_eq!(eased(0, 0.25), 0.25);
        assert!((eased(8, 0.25) - (1.0 - (std::f32::consts::PI / 4.0).cos()) / 2.0).abs() < 1e-6);
        assert!((eased(12, 0.5) - 0.25).abs() < 1e-6);
        assert!((eased(10, 0.5) - 0.875).abs() < 1e-6);
        // Unknown and unfitted ids read as linear.
        assert_eq!(eased(1, 0.3), 0.3);
        assert_eq!(eased(200, 0.3), 0.3);
    }
}
