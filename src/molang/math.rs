//! `math.*`: every Bedrock math function, angles in degrees, and the
//! deterministic random source behind `math.random*` and `math.die_roll*`.
//!
//! Errors are 0 (molang-notes.md §2): a function whose result is NaN (a
//! domain error such as `math.sqrt(-1)` or `math.mod(5, 0)`) or a pole
//! (`math.ln(0)`) gives 0. Overflow (`math.exp(1000)`) stays infinite, and
//! the caller stops playback on a non-finite result.

use super::ease::{ease_unit, Ease};
use std::f64::consts::PI;

/// The most dice `math.die_roll*` rolls (like `loop`, so that one call is
/// bounded).
pub const MAX_DICE: f64 = 1024.0;

/// Deterministic random numbers for `math.random*` and `math.die_roll*`,
/// seeded per playback (`emoted sample --seed`). SplitMix64: tiny state, no
/// allocation, the same sequence on every platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MolangRng(u64);

impl MolangRng {
    /// A generator whose sequence depends only on `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform float in `[0, 1)`.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A number in `0..bound` (a `bound` of 0 counts as 1), from 32 random
    /// bits by Lemire's multiply-shift: no modulo, and a bias below
    /// `bound / 2^32`, nothing for the small bounds it serves (Sequence
    /// step weights, `@r`, `sort=random`). The one generator behind Molang,
    /// Sequence step choice and selectors.
    pub fn below(&mut self, bound: u32) -> u32 {
        ((u64::from(self.next_u64() as u32) * u64::from(bound.max(1))) >> 32) as u32
    }
}

/// One-argument functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Variants are the `math.` names.
pub(crate) enum Math1 {
    Abs,
    Sin,
    Cos,
    Asin,
    Acos,
    Atan,
    Ceil,
    Floor,
    Trunc,
    Round,
    Exp,
    Ln,
    Sqrt,
    HermiteBlend,
    MinAngle,
    Sign,
}

/// Two-argument functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]

pub(crate) enum Math2 {
    Atan2,
    CopySign,
    Max,
    Min,
    Mod,
    Pow,
    Random,
    RandomInteger,
}

/// Three-argument functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]

pub(crate) enum Math3 {
    Clamp,
    Lerp,
    LerpRotate,
    InverseLerp,
    DieRoll,
    DieRollInteger,
    Ease(Ease),
}

/// A `math.` name resolved: a constant or a function of known arity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MathName {
    /// `math.pi`.
    Pi,
    /// A one-argument function.
    One(Math1),
    /// A two-argument function.
    Two(Math2),
    /// A three-argument function.
    Three(Math3),
}

impl MathName {
    /// The function or constant named `name` (without `math.`, lowercase).
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        use MathName::{One, Three, Two};
        Some(match name {
            "pi" => Self::Pi,
            "abs" => One(Math1::Abs),
            "sin" => One(Math1::Sin),
            "cos" => One(Math1::Cos),
            "asin" => One(Math1::Asin),
            "acos" => One(Math1::Acos),
            "atan" => One(Math1::Atan),
            "ceil" => One(Math1::Ceil),
            "floor" => One(Math1::Floor),
            "trunc" => One(Math1::Trunc),
            "round" => One(Math1::Round),
            "exp" => One(Math1::Exp),
            "ln" => One(Math1::Ln),
            "sqrt" => One(Math1::Sqrt),
            "hermite_blend" => One(Math1::HermiteBlend),
            "min_angle" => One(Math1::MinAngle),
            "sign" => One(Math1::Sign),
            "atan2" => Two(Math2::Atan2),
            "copy_sign" => Two(Math2::CopySign),
            "max" => Two(Math2::Max),
            "min" => Two(Math2::Min),
            "mod" => Two(Math2::Mod),
            "pow" => Two(Math2::Pow),
            "random" => Two(Math2::Random),
            "random_integer" => Two(Math2::RandomInteger),
            "clamp" => Three(Math3::Clamp),
            "lerp" => Three(Math3::Lerp),
            "lerprotate" => Three(Math3::LerpRotate),
            "inverse_lerp" => Three(Math3::InverseLerp),
            "die_roll" => Three(Math3::DieRoll),
            "die_roll_integer" => Three(Math3::DieRollInteger),
            _ => Three(Math3::Ease(Ease::from_name(name)?)),
        })
    }
}

/// NaN (a domain error) becomes 0.
fn checked(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x
    }
}

fn to_radians(deg: f64) -> f64 {
    deg * (PI / 180.0)
}

fn to_degrees(rad: f64) -> f64 {
    rad * (180.0 / PI)
}

/// Wraps an angle into `[-180, 180)` degrees.
pub(crate) fn min_angle(deg: f64) -> f64 {
    let wrapped = deg - 360.0 * ((deg + 180.0) / 360.0).floor();
    // Rounding can land exactly on 180 for inputs just below it.
    if wrapped >= 180.0 {
        wrapped - 360.0
    } else {
        wrapped
    }
}

/// A one-argument function of `x`.
#[inline(never)]
pub(crate) fn eval1(f: Math1, x: f64) -> f64 {
    checked(match f {
        Math1::Abs => x.abs(),
        Math1::Sin => to_radians(x).sin(),
        Math1::Cos => to_radians(x).cos(),
        Math1::Asin => to_degrees(x.asin()),
        Math1::Acos => to_degrees(x.acos()),
        Math1::Atan => to_degrees(x.atan()),
        Math1::Ceil => x.ceil(),
        Math1::Floor => x.floor(),
        Math1::Trunc => x.trunc(),
        // Ties away from zero (C++ std::round): round(-2.5) = -3.
        Math1::Round => x.round(),
        Math1::Exp => x.exp(),
        Math1::Ln if x == 0.0 => 0.0,
        Math1::Ln => x.ln(),
        Math1::Sqrt => x.sqrt(),
        Math1::HermiteBlend => x * x * (3.0 - 2.0 * x),
        Math1::MinAngle => min_angle(x),
        // The docs: "1 if positive, -1 otherwise", so sign(0) = -1.
        Math1::Sign if x > 0.0 => 1.0,
        Math1::Sign if x.is_nan() => f64::NAN,
        Math1::Sign => -1.0,
    })
}

/// A two-argument function; `rng` feeds the random ones.
#[inline(never)]
pub(crate) fn eval2(f: Math2, a: f64, b: f64, rng: &mut MolangRng) -> f64 {
    checked(match f {
        Math2::Atan2 => to_degrees(a.atan2(b)),
        Math2::CopySign => a.abs().copysign(b),
        Math2::Max => a.max(b),
        Math2::Min => a.min(b),
        // C fmod: the sign of the dividend; mod(x, 0) is NaN, so 0.
        Math2::Mod => a % b,
        Math2::Pow if a == 0.0 && b < 0.0 => 0.0,
        Math2::Pow => a.powf(b),
        Math2::Random => random(a, b, rng),
        Math2::RandomInteger => random_integer(a, b, rng),
    })
}

/// A three-argument function; `rng` feeds the dice.
#[inline(never)]
pub(crate) fn eval3(f: Math3, a: f64, b: f64, c: f64, rng: &mut MolangRng) -> f64 {
    checked(match f {
        // Bounds given the wrong way round clamp to `min` first, then `max`.
        Math3::Clamp => a.max(b).min(c),
        Math3::Lerp => a + (b - a) * c,
        Math3::LerpRotate => a + min_angle(b - a) * c,
        Math3::InverseLerp if a == b => 0.0,
        Math3::InverseLerp => (c - a) / (b - a),
        Math3::DieRoll => {
            let mut sum = 0.0;
            for _ in 0..dice(a) {
                sum += random(b, c, rng);
            }
            sum
        }
        Math3::DieRollInteger => {
            let mut sum = 0.0;
            for _ in 0..dice(a) {
                sum += random_integer(b, c, rng);
            }
            sum
        }
        Math3::Ease(ease) => a + (b - a) * ease_unit(ease, c),
    })
}

/// How many dice `count` means: truncated, 0 to [`MAX_DICE`].
pub(crate) fn dice(count: f64) -> u32 {
    if count.is_nan() {
        return 0;
    }
    count.clamp(0.0, MAX_DICE) as u32
}

/// Uniform in `[lo, hi)` (or `(hi, lo]` when the bounds are swapped).
fn random(lo: f64, hi: f64, rng: &mut MolangRng) -> f64 {
    lo + (hi - lo) * rng.next_unit()
}

/// A uniform integer in `[ceil(min), floor(max)]`, both ends included
/// (Bedrock's docs). Bounds in either order; an empty range gives `ceil(min)`.
fn random_integer(a: f64, b: f64, rng: &mut MolangRng) -> f64 {
    let lo = a.min(b).ceil();
    let hi = a.max(b).floor();
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return lo;
    }
    let pick = (rng.next_unit() * (hi - lo + 1.0)).floor();
    (lo + pick).min(hi)
}
