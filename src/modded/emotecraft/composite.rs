//! Keys for axes a viewer reads together.
//!
//! PlayerAnimator interpolates every axis on its own, but a viewer sees
//! some of them only together: the three angles as one turn of the part,
//! the bend's axis and angle as one bend. Thinning each axis within its
//! own tolerance ([`super::fit`]) does not bound what the viewer sees:
//! near gimbal lock three angles each within tolerance can make a turn many
//! degrees off, and a bend's axis matters more the larger the bend is.
//!
//! So [`fit_group`] thins each axis of a group, then evaluates the thinned
//! axes together at every tick, as the viewer will, and measures that
//! against the sampled pose with the group's own measure. Where a run of
//! ticks strays past the tolerance it asks every axis for a key at the
//! run's worst tick (no stretch may span it) and thins again, until no
//! tick strays. An axis left at rest (disabled: the viewer shows its
//! vanilla value) is switched on when keys on the others cannot bring a
//! tick back. With a key on every tick of every axis the group gives the
//! samples themselves, so the loop ends.

use super::animation::Keyframe;
use super::fit::{fit_keys_with, value_at};

/// One group of axes to thin together.
pub struct Group<'a> {
    /// Each axis's sample per tick (every axis the same length).
    pub values: &'a [Vec<f32>],
    /// Whether each axis is sent; a disabled one reads as `rest`.
    pub enabled: Vec<bool>,
    /// Each axis's value when disabled.
    pub rest: &'a [f32],
    /// How far one axis's stretch may stray from its samples.
    pub axis_tolerance: f32,
    /// How far the group read together may stray, in `stray`'s unit.
    pub group_tolerance: f64,
}

/// Each axis's keys (empty for a disabled axis) and which axes are
/// enabled. `stray(tick, values)` measures the group's values read
/// together at `tick` against that tick's sampled pose.
pub fn fit_group(
    group: Group<'_>,
    stray: impl Fn(usize, &[f32]) -> f64,
) -> (Vec<Vec<Keyframe>>, Vec<bool>) {
    let Group {
        values,
        mut enabled,
        rest,
        axis_tolerance,
        group_tolerance,
    } = group;
    let tick_count = values.first().map_or(0, Vec::len);
    let mut required = vec![false; tick_count];
    loop {
        let keys: Vec<Vec<Keyframe>> = values
            .iter()
            .zip(&enabled)
            .map(|(v, on)| {
                if *on {
                    fit_keys_with(v, axis_tolerance, &required)
                } else {
                    Vec::new()
                }
            })
            .collect();
        let strays: Vec<f64> = (0..tick_count)
            .map(|tick| {
                let read: Vec<f32> = keys
                    .iter()
                    .zip(rest)
                    .map(|(k, r)| {
                        if k.is_empty() {
                            *r
                        } else {
                            value_at(k, i32::try_from(tick).unwrap_or(i32::MAX))
                        }
                    })
                    .collect();
                stray(tick, &read)
            })
            .collect();
        let mut changed = false;
        let mut tick = 0;
        while tick < tick_count {
            if strays[tick] <= group_tolerance {
                tick += 1;
                continue;
            }
            // A run of straying ticks: a key at its worst one not keyed yet.
            let end = (tick..tick_count)
                .find(|&t| strays[t] <= group_tolerance)
                .unwrap_or(tick_count);
            let worst = (tick..end)
                .filter(|&t| !required[t])
                .max_by(|&a, &b| strays[a].total_cmp(&strays[b]));
            if let Some(worst) = worst {
                required[worst] = true;
                changed = true;
            }
            tick = end;
        }
        if !changed {
            if strays.iter().all(|s| *s <= group_tolerance) || enabled.iter().all(|on| *on) {
                return (keys, enabled);
            }
            // Keyed wherever it strays and still off: a disabled axis.
            enabled.iter_mut().for_each(|on| *on = true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_that_strays_between_keys_gets_more_of_them() {
        // Two axes, each a straight line within 0.1 of its samples, but
        // read together (their sum) the wobble adds up past 0.15.
        let a: Vec<f32> = (0..=20)
            .map(|i| i as f32 + 0.09 * (i as f32).sin())
            .collect();
        let b: Vec<f32> = (0..=20).map(|i| 0.09 * (i as f32).sin()).collect();
        let values = vec![a.clone(), b.clone()];
        let stray =
            |tick: usize, read: &[f32]| f64::from((read[0] + read[1] - a[tick] - b[tick]).abs());
        let alone = (0..=20)
            .map(|t| stray(t, &[a[0] + t as f32, 0.0]))
            .fold(0.0, f64::max);
        assert!(alone > 0.15, "{alone}");
        let (keys, enabled) = fit_group(
            Group {
                values: &values,
                enabled: vec![true, true],
                rest: &[0.0, 0.0],
                axis_tolerance: 0.1,
                group_tolerance: 0.15,
            },
            stray,
        );
        assert_eq!(enabled, [true, true]);
        for t in 0..=20 {
            let read = [value_at(&keys[0], t), value_at(&keys[1], t)];
            assert!(stray(t as usize, &read) <= 0.15, "tick {t}");
        }
    }

    #[test]
    fn an_axis_at_rest_is_switched_on_when_the_others_cannot_make_up_for_it() {
        // The second axis stays within 0.1 of rest, so it starts off; the
        // group wants both within 0.05 read together.
        let a: Vec<f32> = (0..=10).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..=10).map(|i| 0.08 * (i % 2) as f32).collect();
        let values = vec![a.clone(), b.clone()];
        let (keys, enabled) = fit_group(
            Group {
                values: &values,
                enabled: vec![true, false],
                rest: &[0.0, 0.0],
                axis_tolerance: 0.1,
                group_tolerance: 0.05,
            },
            |tick, read| f64::from((read[0] - a[tick]).abs() + (read[1] - b[tick]).abs()),
        );
        assert_eq!(enabled, [true, true]);
        assert!(!keys[1].is_empty());
    }
}
