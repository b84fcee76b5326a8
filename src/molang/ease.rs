//! The Penner easings (as easings.net defines them), written once for
//! both precisions: Molang's `math.ease_*` evaluates them in `f64`, and
//! keyframe easings ([`crate::anim`]) in `f32`. Each family has its "in"
//! curve; "out" is the in curve mirrored (`1 − in(1 − t)`) and "in-out"
//! its two halves, except back and elastic, whose in-out curves use other
//! constants (easings.net). `t` is not clamped: keyframe easing clamps it
//! first, Molang passes what the program computed.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// What the easing formulas need of a float type.
pub trait EaseFloat:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// `value` in this precision.
    fn of(value: f64) -> Self;
    /// The sine (radians).
    fn sin(self) -> Self;
    /// The cosine (radians).
    fn cos(self) -> Self;
    /// The square root.
    fn sqrt(self) -> Self;
    /// `2^self`.
    fn exp2(self) -> Self;
}

/// Implements [`EaseFloat`] for a primitive float type with its own methods.
macro_rules! impl_ease_float {
    ($($float:ty),*) => {$(
        impl EaseFloat for $float {
            fn of(value: f64) -> Self {
                value as $float
            }
            fn sin(self) -> Self {
                <$float>::sin(self)
            }
            fn cos(self) -> Self {
                <$float>::cos(self)
            }
            fn sqrt(self) -> Self {
                <$float>::sqrt(self)
            }
            fn exp2(self) -> Self {
                <$float>::exp2(self)
            }
        }
    )*};
}

impl_ease_float!(f32, f64);

/// A `math.ease_*` curve: a family and a direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ease {
    /// The curve family.
    pub family: EaseFamily,
    /// In, out or in-out.
    pub direction: EaseDirection,
}

/// The ten easing families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EaseFamily {
    /// `t²`.
    Quad,
    /// `t³`.
    Cubic,
    /// `t⁴`.
    Quart,
    /// `t⁵`.
    Quint,
    /// A quarter sine wave.
    Sine,
    /// `2^(10t − 10)`.
    Expo,
    /// A quarter circle.
    Circ,
    /// Bounces at the far end.
    Bounce,
    /// Backs up past the start before it goes (overshoots).
    Back,
    /// A decaying spring (overshoots).
    Elastic,
}

/// Which end of the curve eases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EaseDirection {
    /// Slow at the start.
    In,
    /// Slow at the end.
    Out,
    /// Slow at both ends.
    InOut,
}

impl Ease {
    /// The curve called `ease_<in|out|in_out>_<family>` (the names Molang's
    /// `math.ease_*` and the schema 4 keyframe easings share).
    pub fn from_name(name: &str) -> Option<Ease> {
        let rest = name.strip_prefix("ease_")?;
        let (direction, family) = if let Some(f) = rest.strip_prefix("in_out_") {
            (EaseDirection::InOut, f)
        } else if let Some(f) = rest.strip_prefix("in_") {
            (EaseDirection::In, f)
        } else if let Some(f) = rest.strip_prefix("out_") {
            (EaseDirection::Out, f)
        } else {
            return None;
        };
        let family = match family {
            "quad" => EaseFamily::Quad,
            "cubic" => EaseFamily::Cubic,
            "quart" => EaseFamily::Quart,
            "quint" => EaseFamily::Quint,
            "sine" => EaseFamily::Sine,
            "expo" => EaseFamily::Expo,
            "circ" => EaseFamily::Circ,
            "bounce" => EaseFamily::Bounce,
            "back" => EaseFamily::Back,
            "elastic" => EaseFamily::Elastic,
            _ => return None,
        };
        Some(Ease { family, direction })
    }
}

/// The curve `ease` at `t`: 0 at `t` = 0 and 1 at `t` = 1.
#[inline]
pub fn ease_unit<F: EaseFloat>(ease: Ease, t: F) -> F {
    let one = F::of(1.0);
    let two = F::of(2.0);
    match ease.direction {
        EaseDirection::In => ease_in(ease.family, t),
        EaseDirection::Out => one - ease_in(ease.family, one - t),
        EaseDirection::InOut if ease.family == EaseFamily::Back => back_in_out(t),
        EaseDirection::InOut if ease.family == EaseFamily::Elastic => elastic_in_out(t),
        EaseDirection::InOut => {
            if t < F::of(0.5) {
                ease_in(ease.family, two * t) / two
            } else {
                one - ease_in(ease.family, two - two * t) / two
            }
        }
    }
}

/// The "in" curve of each family; "out" and "in-out" are built from it.
#[inline]
fn ease_in<F: EaseFloat>(family: EaseFamily, t: F) -> F {
    let one = F::of(1.0);
    let zero = F::of(0.0);
    let back = F::of(1.70158);
    match family {
        EaseFamily::Quad => t * t,
        EaseFamily::Cubic => t * t * t,
        EaseFamily::Quart => t * t * t * t,
        EaseFamily::Quint => t * t * t * t * t,
        EaseFamily::Sine => one - (t * F::of(std::f64::consts::FRAC_PI_2)).cos(),
        EaseFamily::Expo if t == zero => zero,
        EaseFamily::Expo => (F::of(10.0) * t - F::of(10.0)).exp2(),
        EaseFamily::Circ => one - (one - t * t).sqrt(),
        EaseFamily::Bounce => one - bounce_out(one - t),
        EaseFamily::Back => t * t * ((back + one) * t - back),
        EaseFamily::Elastic if t == zero || t == one => t,
        EaseFamily::Elastic => {
            let c4 = F::of(2.0 * std::f64::consts::PI / 3.0);
            -(F::of(10.0) * t - F::of(10.0)).exp2() * ((F::of(10.0) * t - F::of(10.75)) * c4).sin()
        }
    }
}

/// Back in-out overshoots by a larger constant than back in (easings.net).
fn back_in_out<F: EaseFloat>(t: F) -> F {
    let (one, two) = (F::of(1.0), F::of(2.0));
    let c2 = F::of(1.70158 * 1.525);
    if t < F::of(0.5) {
        let u = two * t;
        u * u * ((c2 + one) * u - c2) / two
    } else {
        let u = two * t - two;
        (u * u * ((c2 + one) * u + c2) + two) / two
    }
}

/// Elastic in-out uses a longer period than elastic in (easings.net).
fn elastic_in_out<F: EaseFloat>(t: F) -> F {
    let (zero, one, two) = (F::of(0.0), F::of(1.0), F::of(2.0));
    let c5 = F::of(2.0 * std::f64::consts::PI / 4.5);
    let twenty = F::of(20.0);
    if t == zero || t == one {
        t
    } else if t < F::of(0.5) {
        -((twenty * t - F::of(10.0)).exp2() * ((twenty * t - F::of(11.125)) * c5).sin()) / two
    } else {
        (-twenty * t + F::of(10.0)).exp2() * ((twenty * t - F::of(11.125)) * c5).sin() / two + one
    }
}

fn bounce_out<F: EaseFloat>(t: F) -> F {
    let n = F::of(7.5625);
    let d = F::of(2.75);
    if t < F::of(1.0) / d {
        n * t * t
    } else if t < F::of(2.0) / d {
        let t = t - F::of(1.5) / d;
        n * t * t + F::of(0.75)
    } else if t < F::of(2.5) / d {
        let t = t - F::of(2.25) / d;
        n * t * t + F::of(0.9375)
    } else {
        let t = t - F::of(2.625) / d;
        n * t * t + F::of(0.984375)
    }
}
