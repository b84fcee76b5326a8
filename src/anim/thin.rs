//! Thinning a curve sampled at every tick back to the fewest keys that
//! stay close to it, for anything that resamples motion (the modded
//! clients' keyframes, [`crate::modded`], and the importers that end in
//! schema 4).
//!
//! The rule is greedy from the first sample: a kept key reaches as far as
//! it can while the interpolation between it and the next kept key stays
//! within the caller's tolerance of every sample in between (`fits`), so
//! the first and the last sample are always kept. The caller decides what
//! "interpolation" and "within" mean: a straight line for one number, a
//! lerp for a position, a slerp for a rotation.

/// The indices of the samples to keep out of `count`, in order: always 0
/// and `count − 1`, and between them the farthest next index `b` from each
/// kept `a` for which `fits(a, b)` holds (`fits` checks the samples
/// strictly between `a` and `b`; it is only asked about `b ≥ a + 2`).
/// Empty for no samples.
pub fn kept_indices(count: usize, mut fits: impl FnMut(usize, usize) -> bool) -> Vec<usize> {
    let Some(last) = count.checked_sub(1) else {
        return Vec::new();
    };
    let mut kept = vec![0];
    let mut from = 0;
    while from < last {
        let mut to = from + 1;
        while to < last && fits(from, to + 1) {
            to += 1;
        }
        kept.push(to);
        from = to;
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
    fn a_segment_stops_at_the_first_index_that_does_not_fit() {
        // Spans may not reach past index 3 from 0: 0..3 is kept, then 3..5.
        let kept = kept_indices(6, |a, b| a >= 3 || b <= 3);
        assert_eq!(kept, [0, 3, 5]);
    }
}
