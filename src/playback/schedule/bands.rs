//! Distance bands: the tolerance as an error on screen, not in blocks.
//!
//! A display drawn 0.01 block off at arm's length is off by the same angle
//! at the viewer as one drawn 0.04 block off 32 blocks away. So the
//! scheduler plans every cycle at [`DISPLAY_BANDS`] tolerances, the
//! configured one times 1, 2, 4 and 8 ([`band_tolerance`]), and each viewer
//! is sent the plan of the band its distance allows ([`band_for_distance`]):
//! the configured tolerance holds within `near_blocks` (8 by default), and
//! beyond it the tolerance may grow in proportion to the distance, so the
//! angle at the viewer stays what it is at `near_blocks`. A band is used
//! only from the distance where its whole factor is allowed (band `k` from
//! `2^k × near_blocks` on), so a viewer never gets a coarser plan than its
//! distance allows.
//!
//! The server encodes each band's updates once and shares them between the
//! viewers of that band (`server::cull`); a viewer over its byte budget may
//! be moved to a coarser band than its distance gives, farthest emotes
//! first.

use super::Tolerance;

/// How many tolerance bands each cycle is planned at.
pub const DISPLAY_BANDS: usize = 4;

/// A set of bands, bit `k` for band `k`.
pub type BandMask = u8;

/// Every band.
pub const EVERY_BAND: BandMask = (1 << DISPLAY_BANDS) - 1;

/// The coarsest band.
pub const COARSEST_BAND: usize = DISPLAY_BANDS - 1;

/// Band `band`'s tolerance: `base` times `2^band` on both measures (the
/// angle is capped at 45°, a tolerance's largest).
pub fn band_tolerance(base: Tolerance, band: usize) -> Tolerance {
    let factor = band_factor(band);
    Tolerance {
        translation_blocks: base.translation_blocks * factor,
        rotation_degrees: (base.rotation_degrees * factor).min(45.0),
    }
}

/// The factor band `band` multiplies the tolerance by.
pub fn band_factor(band: usize) -> f32 {
    (1u32 << band.min(COARSEST_BAND)) as f32
}

/// The coarsest band a viewer `distance_blocks` from a display may be sent:
/// band `k` once the distance is at least `2^k × near_blocks`, so its
/// factor never exceeds `distance / near_blocks`. A `near_blocks` of 0
/// turns bands off (every viewer gets band 0).
pub fn band_for_distance(distance_blocks: f64, near_blocks: f64) -> usize {
    if near_blocks <= 0.0 || !distance_blocks.is_finite() {
        return 0;
    }
    let mut band = 0;
    while band < COARSEST_BAND && distance_blocks >= near_blocks * f64::from(2u32 << band) {
        band += 1;
    }
    band
}

/// The bands of `mask`, finest first.
pub fn bands_of(mask: BandMask) -> impl Iterator<Item = usize> {
    (0..DISPLAY_BANDS).filter(move |band| mask & (1 << band) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_band_is_used_only_where_its_whole_factor_is_allowed() {
        let near = 8.0;
        for (distance, band) in [
            (0.0, 0),
            (8.0, 0),
            (15.9, 0),
            (16.0, 1),
            (31.9, 1),
            (32.0, 2),
            (64.0, 3),
            (500.0, 3),
        ] {
            assert_eq!(band_for_distance(distance, near), band, "at {distance}");
        }
        // The factor never exceeds distance / near (nor 1 within near).
        for tenth in 0..1000 {
            let distance = f64::from(tenth) / 10.0;
            let band = band_for_distance(distance, near);
            let allowed = (distance / near).max(1.0);
            assert!(f64::from(band_factor(band)) <= allowed, "at {distance}");
        }
        assert_eq!(band_for_distance(1000.0, 0.0), 0, "bands off");
        assert_eq!(band_for_distance(f64::NAN, 8.0), 0);
    }

    #[test]
    fn band_tolerances_double_and_the_angle_is_capped() {
        let base = Tolerance::default();
        assert_eq!(band_tolerance(base, 0), base);
        let coarsest = band_tolerance(base, COARSEST_BAND);
        assert_eq!(coarsest.translation_blocks, 0.08);
        assert_eq!(coarsest.rotation_degrees, 4.0);
        let wide = Tolerance {
            translation_blocks: 0.5,
            rotation_degrees: 30.0,
        };
        assert_eq!(band_tolerance(wide, 2).rotation_degrees, 45.0);
        assert_eq!(bands_of(0b1010).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(bands_of(EVERY_BAND).count(), DISPLAY_BANDS);
    }
}
