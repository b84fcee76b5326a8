//! The 30 Penner easings (as easings.net defines them) plus `linear`.
//!
//! An easing reshapes a segment's time fraction `u` in `[0, 1]`; `back` and
//! `elastic` leave `[0, 1]` on purpose (overshoot), and the sampler then
//! extrapolates the lerp or slerp.

use crate::format::track::Easing;
use crate::molang::ease::{ease_unit, Ease, EaseDirection, EaseFamily};

impl Easing {
    /// The eased fraction for `u` in `[0, 1]` (values outside are clamped),
    /// computed by the one implementation Molang's `math.ease_*` uses too
    /// ([`crate::molang::ease`]), in `f32`.
    pub fn apply(self, u: f32) -> f32 {
        let x = u.clamp(0.0, 1.0);
        match self.curve() {
            Some(ease) => ease_unit(ease, x),
            None => x,
        }
    }

    /// The family and direction of a Penner easing; `None` for `linear`.
    #[inline]
    pub fn curve(self) -> Option<Ease> {
        use EaseDirection::{In, InOut, Out};
        use EaseFamily::*;
        let (family, direction) = match self {
            Easing::Linear => return None,
            Easing::InSine => (Sine, In),
            Easing::OutSine => (Sine, Out),
            Easing::InOutSine => (Sine, InOut),
            Easing::InQuad => (Quad, In),
            Easing::OutQuad => (Quad, Out),
            Easing::InOutQuad => (Quad, InOut),
            Easing::InCubic => (Cubic, In),
            Easing::OutCubic => (Cubic, Out),
            Easing::InOutCubic => (Cubic, InOut),
            Easing::InQuart => (Quart, In),
            Easing::OutQuart => (Quart, Out),
            Easing::InOutQuart => (Quart, InOut),
            Easing::InQuint => (Quint, In),
            Easing::OutQuint => (Quint, Out),
            Easing::InOutQuint => (Quint, InOut),
            Easing::InExpo => (Expo, In),
            Easing::OutExpo => (Expo, Out),
            Easing::InOutExpo => (Expo, InOut),
            Easing::InCirc => (Circ, In),
            Easing::OutCirc => (Circ, Out),
            Easing::InOutCirc => (Circ, InOut),
            Easing::InBack => (Back, In),
            Easing::OutBack => (Back, Out),
            Easing::InOutBack => (Back, InOut),
            Easing::InElastic => (Elastic, In),
            Easing::OutElastic => (Elastic, Out),
            Easing::InOutElastic => (Elastic, InOut),
            Easing::InBounce => (Bounce, In),
            Easing::OutBounce => (Bounce, Out),
            Easing::InOutBounce => (Bounce, InOut),
        };
        Some(Ease { family, direction })
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::PI;

    use super::*;

    const EPS: f32 = 1e-5;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < EPS
    }

    #[test]
    fn every_easing_starts_at_zero_and_ends_at_one() {
        for (name, easing) in Easing::ALL {
            assert!(
                close(easing.apply(0.0), 0.0),
                "{name} at 0: {}",
                easing.apply(0.0)
            );
            assert!(
                close(easing.apply(1.0), 1.0),
                "{name} at 1: {}",
                easing.apply(1.0)
            );
        }
    }

    /// Values at several points, from the easings.net formulas written out by hand.
    #[test]
    fn values_match_the_formulas() {
        let s2 = std::f32::consts::SQRT_2;
        let cases: &[(Easing, f32, f32)] = &[
            (Easing::Linear, 0.3, 0.3),
            (Easing::InSine, 0.5, 1.0 - s2 / 2.0),
            (Easing::OutSine, 0.5, s2 / 2.0),
            (Easing::InOutSine, 0.25, (1.0 - s2 / 2.0) / 2.0),
            (Easing::InQuad, 0.5, 0.25),
            (Easing::OutQuad, 0.5, 0.75),
            (Easing::InOutQuad, 0.25, 0.125),
            (Easing::InOutQuad, 0.75, 0.875),
            (Easing::InCubic, 0.5, 0.125),
            (Easing::OutCubic, 0.5, 0.875),
            (Easing::InOutCubic, 0.25, 0.0625),
            (Easing::InQuart, 0.5, 0.0625),
            (Easing::OutQuart, 0.5, 0.9375),
            (Easing::InOutQuart, 0.25, 0.03125),
            (Easing::InQuint, 0.5, 0.03125),
            (Easing::OutQuint, 0.5, 0.96875),
            (Easing::InOutQuint, 0.75, 0.984375),
            (Easing::InExpo, 0.5, 1.0 / 32.0),
            (Easing::OutExpo, 0.5, 1.0 - 1.0 / 32.0),
            (Easing::InOutExpo, 0.25, 1.0 / 64.0),
            (Easing::InCirc, 0.6, 0.2),
            (Easing::OutCirc, 0.4, 0.8),
            (Easing::InOutCirc, 0.3, 0.1),
            // back: c3·x³ − c1·x² at 0.5 = 2.70158/8 − 1.70158/4
            (Easing::InBack, 0.5, 2.70158 / 8.0 - 1.70158 / 4.0),
            (Easing::OutBack, 0.5, 1.0 - 2.70158 / 8.0 + 1.70158 / 4.0),
            (
                Easing::InOutBack,
                0.25,
                (0.25 * (3.5949095 * 0.5 - 2.5949095)) / 2.0,
            ),
            // elastic: −2^(−5)·sin((5 − 10.75)·2π/3) at 0.5
            (
                Easing::InElastic,
                0.5,
                -(2f32.powi(-5)) * ((-5.75f32) * 2.0 * PI / 3.0).sin(),
            ),
            (
                Easing::OutElastic,
                0.5,
                2f32.powi(-5) * ((4.25f32) * 2.0 * PI / 3.0).sin() + 1.0,
            ),
            (
                Easing::InOutElastic,
                0.25,
                -(2f32.powi(-5) * ((-6.125f32) * 2.0 * PI / 4.5).sin()) / 2.0,
            ),
            // bounce: 7.5625·x² below 1/2.75
            (Easing::OutBounce, 0.2, 7.5625 * 0.04),
            (
                Easing::OutBounce,
                0.5,
                7.5625 * (0.5 - 1.5 / 2.75f32).powi(2) + 0.75,
            ),
            (Easing::InBounce, 0.8, 1.0 - 7.5625 * 0.04),
            (
                Easing::InOutBounce,
                0.25,
                (1.0 - (7.5625 * (0.5 - 1.5 / 2.75f32).powi(2) + 0.75)) / 2.0,
            ),
        ];
        for &(easing, u, expected) in cases {
            let got = easing.apply(u);
            assert!(
                close(got, expected),
                "{} at {u}: got {got}, expected {expected}",
                easing.name()
            );
        }
    }

    #[test]
    fn in_out_variants_are_symmetric() {
        for (name, easing) in Easing::ALL {
            if !name.starts_with("ease_in_out_") {
                continue;
            }
            for i in 0..=10 {
                let u = i as f32 / 10.0;
                let a = easing.apply(u);
                let b = 1.0 - easing.apply(1.0 - u);
                assert!(
                    (a - b).abs() < 1e-4,
                    "{name} is not point-symmetric at {u}: {a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn back_and_elastic_overshoot() {
        assert!(Easing::InBack.apply(0.3) < 0.0);
        assert!(Easing::OutBack.apply(0.7) > 1.0);
        assert!(Easing::OutElastic.apply(0.1) > 1.0);
    }
}
