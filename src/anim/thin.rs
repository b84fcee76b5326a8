//! Thinning a curve sampled at every tick back to the fewest keys that
//! stay close to it, for anything that resamples motion (the modded
//! clients' keyframes, [`crate::modded`], and the importers that end in
//! schema 4).
//!
//! The rule is greedy from the first sample: a kept key reaches as far as
//! it can find while the interpolation between it and the next kept key
//! stays within the caller's tolerance of every sample in between
//! (`fits`), so the first and the last sample are always kept. The reach
//! is found by doubling the span until it no longer fits, then halving
//! between the last span that fit and the first that did not, so a long
//! still or straight stretch costs `O(n log n)` checks instead of `O(n²)`
//! (a ten-minute clip thins in milliseconds). Every kept span is one that
//! was checked and fits. The caller decides what "interpolation" and
//! "within" mean: a straight line for one number, a lerp for a position,
//! a slerp for a rotation.

/// The indices of the samples to keep out of `count`, in order: always 0
/// and `count − 1`, and between them, from each kept `a`, the farthest
/// `b` the doubling and halving search finds for which `fits(a, b)` holds
/// (`fits` checks the samples strictly between `a` and `b`; it is only
/// asked about `b ≥ a + 2`). Empty for no samples.
pub fn kept_indices(count: usize, mut fits: impl FnMut(usize, usize) -> bool) -> Vec<usize> {
    let Some(last) = count.checked_sub(1) else {
        return Vec::new();
    };
    let mut kept = vec![0];
    let mut from = 0;
    while from < last {
        // `reach` fits (one step always does); `fails`, when known, does not.
        let mut reach = from + 1;
        let mut fails = None;
        let mut step = 2usize;
        while reach < last {
            let probe = from.saturating_add(step).min(last);
            if fits(from, probe) {
                reach = probe;
                step = step.saturating_mul(2);
            } else {
                fails = Some(probe);
                break;
            }
        }
        if let Some(mut fails) = fails {
            while fails - reach > 1 {
                let middle = reach + (fails - reach) / 2;
                if fits(from, middle) {
                    reach = middle;
                } else {
                    fails = middle;
                }
            }
        }
        kept.push(reach);
        from = reach;
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_samples_keep_nothing_and_one_sample_keeps_itself() {
        assert!(kept_indices(0, |_, _| true).is_empty());
        assert_eq!(kept_indices(1, |_, _| true), [0]);
        assert_eq!(kept_indices(2, |_, _| true), [0, 1]);
    }

    #[test]
    fn a_curve_that_always_fits_keeps_its_ends_and_one_that_never_fits_keeps_all() {
        assert_eq!(kept_indices(6, |_, _| true), [0, 5]);
        assert_eq!(kept_indices(4, |_, _| false), [0, 1, 2, 3]);
    }

    #[test]
    fn a_long_still_stretch_is_checked_a_logarithmic_number_of_times() {
        // 10,001 samples that always fit: spans 2, 4, 8... up to the end,
        // about 14 checks, not 10,000.
        let mut checks = 0;
        let kept = kept_indices(10_001, |_, _| {
            checks += 1;
            true
        });
        assert_eq!(kept, [0, 10_000]);
        assert!(checks <= 15, "{checks} checks");
    }

    #[test]
    fn a_segment_stops_at_the_first_index_that_does_not_fit() {
        // Spans may not reach past index 3 from 0: 0..3 is kept, then 3..5.
        let kept = kept_indices(6, |a, b| a >= 3 || b <= 3);
        assert_eq!(kept, [0, 3, 5]);
    }
}
