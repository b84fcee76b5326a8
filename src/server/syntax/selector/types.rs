//! What a parsed target is: the base (`@s @p @a @r @e`, a name), its
//! filters, sort and limit, the candidates it picks from, and the errors.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use valence::entity::EntityKind;
use valence::prelude::{DVec3, Entity, GameMode};

use crate::molang::MolangRng;

/// Why a target could not be parsed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SelectorError {
    /// Nothing where a target was expected.
    #[error("missing target: expected a player name or a selector (@s, @p, @a, @r, @e)")]
    Missing,
    /// `@` followed by something other than `s p a r e`.
    #[error("unknown selector `{found}`: use @s, @p, @a, @r or @e")]
    UnknownSelector {
        /// What followed the `@`.
        found: String,
    },
    /// Not a valid player name (1 to 16 of `A-Z a-z 0-9 _`).
    #[error("`{found}` is neither a player name (1 to 16 letters, digits or _) nor a selector (@s, @p, @a, @r, @e)")]
    InvalidName {
        /// The text.
        found: String,
    },
    /// The `[` was never closed.
    #[error("selector `{selector}` is missing its closing `]`")]
    Unclosed {
        /// The selector text up to the end.
        selector: String,
    },
    /// Text right after a selector, e.g. `@ax`.
    #[error(
        "unexpected `{found}` right after selector `{selector}`; put a space between arguments"
    )]
    Trailing {
        /// The selector.
        selector: String,
        /// What followed it.
        found: String,
    },
    /// A `key` without `=value`, or a missing `,` between arguments.
    #[error("malformed selector arguments in `{selector}`: {problem}")]
    Malformed {
        /// The selector text.
        selector: String,
        /// What was expected.
        problem: String,
    },
    /// A key vanilla does not know.
    #[error("unknown selector argument `{key}`; emoted reads limit, sort, distance, name, type, gamemode, x, y, z, dx, dy, dz")]
    UnknownArgument {
        /// The key.
        key: String,
    },
    /// A vanilla key emoted does not support.
    #[error("selector argument `{key}` is not supported: {why}")]
    Unsupported {
        /// The key.
        key: String,
        /// Why, for the author.
        why: &'static str,
    },
    /// A key that this selector cannot take (e.g. `limit` on `@s`, `type` on `@a`),
    /// or a second positive `name`/`type`/`gamemode`.
    #[error("selector argument `{key}` is not allowed here: {why}")]
    NotApplicable {
        /// The key.
        key: String,
        /// Why.
        why: String,
    },
    /// A value that does not fit the key.
    #[error("invalid value `{value}` for selector argument `{key}`: expected {expected}")]
    InvalidValue {
        /// The key.
        key: String,
        /// The value as written.
        value: String,
        /// What the key takes.
        expected: &'static str,
    },
}

/// Which selector, or a player name.
#[derive(Clone, Debug, PartialEq)]
pub enum SelectorBase {
    /// `@s`.
    Source,
    /// `@p`.
    Nearest,
    /// `@a`.
    AllPlayers,
    /// `@r`.
    Random,
    /// `@e`.
    Entities,
    /// A player name.
    Player(String),
}

/// `sort=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    /// Closest to the centre first.
    Nearest,
    /// Farthest first.
    Furthest,
    /// Shuffled.
    Random,
    /// In the world's order (players first, then displays).
    Arbitrary,
}

/// A `min..max` range of blocks; either end may be open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceRange {
    /// Inclusive lower bound.
    pub min: Option<f64>,
    /// Inclusive upper bound.
    pub max: Option<f64>,
}

impl DistanceRange {
    /// True when `d` lies in the range.
    pub fn contains(&self, d: f64) -> bool {
        self.min.is_none_or(|m| d >= m) && self.max.is_none_or(|m| d <= m)
    }
}

/// A filter value with an optional leading `!`.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter<T> {
    /// The value.
    pub value: T,
    /// `!value`: entities that do **not** match.
    pub negated: bool,
}

impl<T: PartialEq> Filter<T> {
    pub(super) fn accepts(&self, actual: &T) -> bool {
        (self.value == *actual) != self.negated
    }
}

/// A parsed target.
#[derive(Clone, Debug, PartialEq)]
pub struct Selector {
    /// The text it was parsed from (for messages).
    pub text: String,
    /// `@s`, `@p`… or a name.
    pub base: SelectorBase,
    /// `limit=`.
    pub limit: Option<usize>,
    /// `sort=`.
    pub sort: Option<Sort>,
    /// `distance=`.
    pub distance: Option<DistanceRange>,
    /// `x= y= z=`: the centre, per axis (the event origin where absent).
    pub center: [Option<f64>; 3],
    /// `dx= dy= dz=`: a box from the centre (absent axes are 0).
    pub volume: [Option<f64>; 3],
    /// `name=`.
    pub names: Vec<Filter<String>>,
    /// `type=`.
    pub types: Vec<Filter<EntityKind>>,
    /// `gamemode=`.
    pub game_modes: Vec<Filter<GameMode>>,
}

/// One entity a selector may pick: a snapshot of what the filters read.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The entity.
    pub entity: Entity,
    /// Its type ([`EntityKind::PLAYER`] for players).
    pub kind: EntityKind,
    /// Players: the username.
    pub name: Option<String>,
    /// Where it is.
    pub position: DVec3,
    /// Players: the game mode.
    pub game_mode: Option<GameMode>,
}

impl Candidate {
    /// A player: `entity` called `name`, standing at `position`, in `game_mode`.
    pub fn player(entity: Entity, name: &str, position: DVec3, game_mode: GameMode) -> Self {
        Self {
            entity,
            kind: EntityKind::PLAYER,
            name: Some(name.to_owned()),
            position,
            game_mode: Some(game_mode),
        }
    }

    pub(super) fn is_player(&self) -> bool {
        self.kind == EntityKind::PLAYER
    }
}

/// Where and for whom a selector is resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelectContext {
    /// `@s`: the source's entity, if it has one.
    pub source: Option<Entity>,
    /// The event origin (`~ ~ ~`).
    pub origin: DVec3,
}

/// The random generator for `@r` and `sort=random`: Molang's SplitMix64
/// ([`MolangRng`]), the one generator the crate has.
#[derive(Clone, Debug)]
pub struct SelectorRng(MolangRng);

impl SelectorRng {
    /// A generator with a fixed seed (tests).
    pub fn seeded(seed: u64) -> Self {
        Self(MolangRng::new(seed))
    }

    /// A generator seeded from the standard library's per-process randomness.
    pub fn from_entropy() -> Self {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(0x5eed);
        Self::seeded(hasher.finish())
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (`n > 0`; candidates never number 2^32).
    pub fn below(&mut self, n: usize) -> usize {
        self.0.below(u32::try_from(n).unwrap_or(u32::MAX)) as usize
    }
}
