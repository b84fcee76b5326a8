//! Blend-space weights: how much each clip of a 1D or 2D blend plays for
//! the parameter values of this tick.
//!
//! - **1D**: the value is clamped to the first and last thresholds; the two
//!   clips around it share the weight linearly (`0.25` of the way from one
//!   threshold to the next gives `0.75` and `0.25`). At a threshold its clip
//!   plays alone.
//! - **2D, gradient band** (seed 004): each clip `i` at `pᵢ` gets
//!   `hᵢ = max(0, min over j ≠ i of 1 − (p − pᵢ)·(pⱼ − pᵢ) / |pⱼ − pᵢ|²)`,
//!   the smallest of its "bands" towards every other clip, then the weights
//!   are divided by their sum. At a clip's position that clip gets 1 and
//!   every other 0; the clip nearest to `p` always gets at least ½ before
//!   normalising, so the sum is never 0.

use glam::Vec2;

/// Writes the weights of a 1D blend with strictly increasing `thresholds`
/// at `value` into `out` (one per threshold).
pub fn line_weights(thresholds: &[f32], value: f32, out: &mut [f32]) {
    out.fill(0.0);
    let (Some(first), Some(last)) = (thresholds.first(), thresholds.last()) else {
        return;
    };
    if value <= *first || thresholds.len() == 1 {
        out[0] = 1.0;
        return;
    }
    if value >= *last {
        out[thresholds.len() - 1] = 1.0;
        return;
    }
    for i in 0..thresholds.len() - 1 {
        let (low, high) = (thresholds[i], thresholds[i + 1]);
        if value <= high {
            let toward_high = (value - low) / (high - low);
            out[i] = 1.0 - toward_high;
            out[i + 1] = toward_high;
            return;
        }
    }
}

/// Writes the gradient-band weights of a 2D blend with distinct `positions`
/// at `point` into `out` (one per position), normalised to sum to 1.
pub fn plane_weights(positions: &[Vec2], point: Vec2, out: &mut [f32]) {
    let mut total = 0.0;
    for (i, (pi, slot)) in positions.iter().zip(out.iter_mut()).enumerate() {
        let to_point = point - *pi;
        let mut band = f32::INFINITY;
        for (j, pj) in positions.iter().enumerate() {
            if i == j {
                continue;
            }
            let edge = *pj - *pi;
            band = band.min(1.0 - to_point.dot(edge) / edge.dot(edge));
        }
        let h = if band.is_finite() { band.max(0.0) } else { 1.0 };
        *slot = h;
        total += h;
    }
    if total > 0.0 {
        for w in out.iter_mut().take(positions.len()) {
            *w /= total;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_between_and_beyond_its_thresholds() {
        // thresholds:  0 ──── 2 ──────── 6
        let t = [0.0, 2.0, 6.0];
        let mut w = [0.0; 3];
        for (value, expected) in [
            (-1.0, [1.0, 0.0, 0.0]),
            (0.0, [1.0, 0.0, 0.0]),
            (0.5, [0.75, 0.25, 0.0]),
            (2.0, [0.0, 1.0, 0.0]),
            (3.0, [0.0, 0.75, 0.25]),
            (6.0, [0.0, 0.0, 1.0]),
            (9.0, [0.0, 0.0, 1.0]),
        ] {
            line_weights(&t, value, &mut w);
            assert_eq!(w, expected, "at {value}");
        }
    }

    #[test]
    fn a_plane_at_its_clips_and_between_them() {
        let p = [
            Vec2::ZERO,
            Vec2::new(1.0, 0.0),
            Vec2::new(-1.0, 0.0),
            Vec2::new(0.0, 1.0),
        ];
        let mut w = [0.0; 4];
        plane_weights(&p, Vec2::new(0.0, 1.0), &mut w);
        assert_eq!(w, [0.0, 0.0, 0.0, 1.0]);
        // Halfway to the right: idle and right share it.
        plane_weights(&p, Vec2::new(0.5, 0.0), &mut w);
        assert!(
            (w[0] - 0.5).abs() < 1e-6 && (w[1] - 0.5).abs() < 1e-6,
            "{w:?}"
        );
        assert!(w[2].abs() < 1e-6 && w[3].abs() < 1e-6, "{w:?}");
    }
}
