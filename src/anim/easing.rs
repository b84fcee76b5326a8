//! The 30 Penner easings (as easings.net defines them) plus `linear`.
//!
//! An easing reshapes a segment's time fraction `u` in `[0, 1]`; `back` and
//! `elastic` leave `[0, 1]` on purpose (overshoot), and the sampler then
//! extrapolates the lerp or slerp.

use std::f32::consts::PI;

use crate::format::track::Easing;

const BACK_C1: f32 = 1.70158;
const BACK_C2: f32 = BACK_C1 * 1.525;
const BACK_C3: f32 = BACK_C1 + 1.0;
const ELASTIC_C4: f32 = 2.0 * PI / 3.0;
const ELASTIC_C5: f32 = 2.0 * PI / 4.5;

impl Easing {
    /// The eased fraction for `u` in `[0, 1]` (values outside are clamped).
    pub fn apply(self, u: f32) -> f32 {
        let x = u.clamp(0.0, 1.0);
        match self {
            Easing::Linear => x,
            Easing::InSine => 1.0 - (x * PI / 2.0).cos(),
            Easing::OutSine => (x * PI / 2.0).sin(),
            Easing::InOutSine => -((PI * x).cos() - 1.0) / 2.0,
            Easing::InQuad => x * x,
            Easing::OutQuad => 1.0 - (1.0 - x) * (1.0 - x),
            Easing::InOutQuad => in_out_power(x, 2),
            Easing::InCubic => x.powi(3),
            Easing::OutCubic => 1.0 - (1.0 - x).powi(3),
            Easing::InOutCubic => in_out_power(x, 3),
            Easing::InQuart => x.powi(4),
            Easing::OutQuart => 1.0 - (1.0 - x).powi(4),
            Easing::InOutQuart => in_out_power(x, 4),
            Easing::InQuint => x.powi(5),
            Easing::OutQuint => 1.0 - (1.0 - x).powi(5),
            Easing::InOutQuint => in_out_power(x, 5),
            Easing::InExpo => {
                if x == 0.0 {
                    0.0
                } else {
                    2f32.powf(10.0 * x - 10.0)
                }
            }
            Easing::OutExpo => {
                if x == 1.0 {
                    1.0
                } else {
                    1.0 - 2f32.powf(-10.0 * x)
                }
            }
            Easing::InOutExpo => {
                if x == 0.0 || x == 1.0 {
                    x
                } else if x < 0.5 {
                    2f32.powf(20.0 * x - 10.0) / 2.0
                } else {
                    (2.0 - 2f32.powf(-20.0 * x + 10.0)) / 2.0
                }
            }
            Easing::InCirc => 1.0 - (1.0 - x * x).max(0.0).sqrt(),
            Easing::OutCirc => (1.0 - (x - 1.0) * (x - 1.0)).max(0.0).sqrt(),
            Easing::InOutCirc => {
                if x < 0.5 {
                    (1.0 - (1.0 - (2.0 * x).powi(2)).max(0.0).sqrt()) / 2.0
                } else {
                    ((1.0 - (-2.0 * x + 2.0).powi(2)).max(0.0).sqrt() + 1.0) / 2.0
                }
            }
            Easing::InBack => BACK_C3 * x.powi(3) - BACK_C1 * x * x,
            Easing::OutBack => 1.0 + BACK_C3 * (x - 1.0).powi(3) + BACK_C1 * (x - 1.0).powi(2),
            Easing::InOutBack => {
                if x < 0.5 {
                    ((2.0 * x).powi(2) * ((BACK_C2 + 1.0) * 2.0 * x - BACK_C2)) / 2.0
                } else {
                    ((2.0 * x - 2.0).powi(2) * ((BACK_C2 + 1.0) * (x * 2.0 - 2.0) + BACK_C2) + 2.0)
                        / 2.0
                }
            }
            Easing::InElastic => {
                if x == 0.0 || x == 1.0 {
                    x
                } else {
                    -(2f32.powf(10.0 * x - 10.0)) * ((x * 10.0 - 10.75) * ELASTIC_C4).sin()
                }
            }
            Easing::OutElastic => {
                if x == 0.0 || x == 1.0 {
                    x
                } else {
                    2f32.powf(-10.0 * x) * ((x * 10.0 - 0.75) * ELASTIC_C4).sin() + 1.0
                }
            }
            Easing::InOutElastic => {
                if x == 0.0 || x == 1.0 {
                    x
                } else if x < 0.5 {
                    -(2f32.powf(20.0 * x - 10.0) * ((20.0 * x - 11.125) * ELASTIC_C5).sin()) / 2.0
                } else {
                    (2f32.powf(-20.0 * x + 10.0) * ((20.0 * x - 11.125) * ELASTIC_C5).sin()) / 2.0
                        + 1.0
                }
            }
            Easing::InBounce => 1.0 - out_bounce(1.0 - x),
            Easing::OutBounce => out_bounce(x),
            Easing::InOutBounce => {
                if x < 0.5 {
                    (1.0 - out_bounce(1.0 - 2.0 * x)) / 2.0
                } else {
                    (1.0 + out_bounce(2.0 * x - 1.0)) / 2.0
                }
            }
        }
    }
}

/// `ease_in_out_*` for the polynomial families: `2^(n-1)·x^n`, mirrored.
fn in_out_power(x: f32, n: i32) -> f32 {
    if x < 0.5 {
        2f32.powi(n - 1) * x.powi(n)
    } else {
        1.0 - (-2.0 * x + 2.0).powi(n) / 2.0
    }
}

fn out_bounce(x: f32) -> f32 {
    const N1: f32 = 7.5625;
    const D1: f32 = 2.75;
    if x < 1.0 / D1 {
        N1 * x * x
    } else if x < 2.0 / D1 {
        let x = x - 1.5 / D1;
        N1 * x * x + 0.75
    } else if x < 2.5 / D1 {
        let x = x - 2.25 / D1;
        N1 * x * x + 0.9375
    } else {
        let x = x - 2.625 / D1;
        N1 * x * x + 0.984375
    }
}

#[cfg(test)]
mod tests {
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
