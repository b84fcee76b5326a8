//! Entity selectors for emote event commands: `@s`, `@p`, `@a`, `@r`, `@e`
//! and player names, with the common `[…]` arguments.
//!
//! A target is parsed once into a typed [`Selector`] (errors are
//! [`SelectorError`]s that quote what was wrong) and resolved each time the
//! command runs with [`Selector::select`] against a snapshot of the world
//! ([`Candidate`]s), so the resolution rules are plain functions that the
//! tests drive without a server.
//!
//! | selector | picks | default sort, limit |
//! |---|---|---|
//! | `@s` | the source: the player, the display node's entity, nobody for the server | — |
//! | `@p` | players | nearest to the origin, 1 |
//! | `@a` | players | arbitrary, all |
//! | `@r` | players | random, 1 |
//! | `@e` | players and emoted's display entities | arbitrary, all |
//! | `Name` | the online player with that name (any case) | — |
//!
//! Arguments, as in vanilla 1.20.1:
//! - `limit=N` (N ≥ 1) and `sort=nearest|furthest|random|arbitrary` (not on `@s`);
//! - `distance=R` where R is `5`, `..5`, `1..` or `2..4` (blocks, never negative);
//! - `x=`, `y=`, `z=` move the centre of `distance` and sorting away from the
//!   event origin; `dx=`, `dy=`, `dz=` select a box from that centre, which
//!   contains an entity when its position lies in `[min, max + 1]` on each
//!   axis (vanilla tests the entity's hit box; emoted tests its position);
//! - `name=N` / `name=!N` (quoted names allowed; one positive name);
//! - `type=T` / `type=!T` on `@s` and `@e` only (`player`, `item_display`,
//!   `block_display`, `text_display` or any other vanilla entity type, which
//!   simply matches nothing here; no `#tags`);
//! - `gamemode=M` / `gamemode=!M` (only players match a `gamemode` filter).
//!
//! `tag`, `team`, `scores`, `level`, `x_rotation`, `y_rotation`, `nbt`,
//! `advancements` and `predicate` are refused with a clear error: emoted
//! keeps no scoreboard, tags or advancements. UUIDs as targets are refused too.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use valence::entity::EntityKind;
use valence::prelude::{DVec3, Entity, GameMode};

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
    fn accepts(&self, actual: &T) -> bool {
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
    fn is_player(&self) -> bool {
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

/// A small random generator for `@r` and `sort=random` (SplitMix64).
#[derive(Clone, Debug)]
pub struct SelectorRng(u64);

impl SelectorRng {
    /// A generator with a fixed seed (tests).
    pub fn seeded(seed: u64) -> Self {
        Self(seed)
    }

    /// A generator seeded from the standard library's per-process randomness.
    pub fn from_entropy() -> Self {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(0x5eed);
        Self(hasher.finish())
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Parses one target at the start of `text` and returns it with the rest
/// (leading whitespace removed).
pub fn parse_target(text: &str) -> Result<(Selector, &str), SelectorError> {
    let text = text.trim_start();
    if text.is_empty() {
        return Err(SelectorError::Missing);
    }
    if let Some(after_at) = text.strip_prefix('@') {
        let kind_char = after_at.chars().next();
        let base = match kind_char {
            Some('s') => SelectorBase::Source,
            Some('p') => SelectorBase::Nearest,
            Some('a') => SelectorBase::AllPlayers,
            Some('r') => SelectorBase::Random,
            Some('e') => SelectorBase::Entities,
            _ => {
                let found: String = text.chars().take_while(|c| !c.is_whitespace()).collect();
                return Err(SelectorError::UnknownSelector { found });
            }
        };
        let mut selector = Selector::new(base, "");
        let mut end = 2;
        if after_at[1..].starts_with('[') {
            end = 3 + parse_arguments(&text[3..], &mut selector, text)?;
        }
        selector.text = text[..end].to_owned();
        let rest = &text[end..];
        if rest.chars().next().is_some_and(|c| !c.is_whitespace()) {
            let found: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
            return Err(SelectorError::Trailing {
                selector: selector.text,
                found,
            });
        }
        selector.check_applicable()?;
        return Ok((selector, rest.trim_start()));
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    let name = &text[..end];
    let valid = (1..=16).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !valid {
        return Err(SelectorError::InvalidName {
            found: name.to_owned(),
        });
    }
    Ok((
        Selector::new(SelectorBase::Player(name.to_owned()), name),
        text[end..].trim_start(),
    ))
}

/// Parses a whole string as one target.
impl std::str::FromStr for Selector {
    type Err = SelectorError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (selector, rest) = parse_target(text)?;
        if rest.is_empty() {
            Ok(selector)
        } else {
            Err(SelectorError::Trailing {
                selector: selector.text,
                found: rest.to_owned(),
            })
        }
    }
}

/// A raw `key=value` value.
struct RawValue {
    text: String,
    negated: bool,
}

/// Reads `key=value,…]` (the text after `[`); returns the length consumed,
/// `]` included.
fn parse_arguments(
    args: &str,
    selector: &mut Selector,
    whole: &str,
) -> Result<usize, SelectorError> {
    let bytes = args.as_bytes();
    let mut i = 0;
    let malformed = |problem: String| SelectorError::Malformed {
        selector: whole.split_whitespace().next().unwrap_or(whole).to_owned(),
        problem,
    };
    let unclosed = || SelectorError::Unclosed {
        selector: whole.to_owned(),
    };
    let skip_ws = |i: &mut usize| {
        while *i < bytes.len() && bytes[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    let mut first = true;
    loop {
        skip_ws(&mut i);
        match bytes.get(i) {
            None => return Err(unclosed()),
            Some(b']') => return Ok(i + 1),
            Some(b',') if !first => {
                i += 1;
                skip_ws(&mut i);
            }
            Some(_) if !first => {
                return Err(malformed(format!(
                    "expected `,` or `]` at `{}`",
                    &args[i..].chars().take(12).collect::<String>()
                )))
            }
            Some(_) => {}
        }
        first = false;
        let key_start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || b"_.+-".contains(&bytes[i])) {
            i += 1;
        }
        let key = &args[key_start..i];
        if key.is_empty() {
            if bytes.get(i).is_none() {
                return Err(unclosed());
            }
            return Err(malformed(format!(
                "expected an argument name at `{}`",
                &args[i..].chars().take(12).collect::<String>()
            )));
        }
        skip_ws(&mut i);
        if bytes.get(i) != Some(&b'=') {
            if bytes.get(i).is_none() {
                return Err(unclosed());
            }
            return Err(malformed(format!("expected `=` after `{key}`")));
        }
        i += 1;
        skip_ws(&mut i);
        let negated = bytes.get(i) == Some(&b'!');
        if negated {
            i += 1;
            skip_ws(&mut i);
        }
        let text = match bytes.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                i += 1;
                let mut out = String::new();
                let mut chars = args[i..].char_indices();
                let mut closed = false;
                while let Some((off, c)) = chars.next() {
                    match c {
                        '\\' => match chars.next() {
                            Some((_, e)) => out.push(e),
                            None => break,
                        },
                        c if c == q as char => {
                            i += off + 1;
                            closed = true;
                            break;
                        }
                        c => out.push(c),
                    }
                }
                if !closed {
                    return Err(unclosed());
                }
                out
            }
            _ => {
                let start = i;
                while i < bytes.len()
                    && !b",]".contains(&bytes[i])
                    && !bytes[i].is_ascii_whitespace()
                {
                    i += 1;
                }
                args[start..i].to_owned()
            }
        };
        apply_argument(selector, key, RawValue { text, negated })?;
    }
}

fn invalid(key: &str, value: &RawValue, expected: &'static str) -> SelectorError {
    SelectorError::InvalidValue {
        key: key.to_owned(),
        value: if value.negated {
            format!("!{}", value.text)
        } else {
            value.text.clone()
        },
        expected,
    }
}

fn not_negatable(key: &str, value: &RawValue) -> Result<(), SelectorError> {
    if value.negated {
        Err(SelectorError::NotApplicable {
            key: key.to_owned(),
            why: format!("`{key}` cannot be negated with `!`"),
        })
    } else {
        Ok(())
    }
}

fn duplicate(key: &str) -> SelectorError {
    SelectorError::NotApplicable {
        key: key.to_owned(),
        why: format!("`{key}` is given twice"),
    }
}

fn apply_argument(
    selector: &mut Selector,
    key: &str,
    value: RawValue,
) -> Result<(), SelectorError> {
    match key {
        "limit" => {
            not_negatable(key, &value)?;
            if selector.limit.is_some() {
                return Err(duplicate(key));
            }
            let n = value
                .text
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| invalid(key, &value, "a whole number of at least 1"))?;
            selector.limit = Some(n);
        }
        "sort" => {
            not_negatable(key, &value)?;
            if selector.sort.is_some() {
                return Err(duplicate(key));
            }
            selector.sort = Some(match value.text.as_str() {
                "nearest" => Sort::Nearest,
                "furthest" => Sort::Furthest,
                "random" => Sort::Random,
                "arbitrary" => Sort::Arbitrary,
                _ => return Err(invalid(key, &value, "nearest, furthest, random or arbitrary")),
            });
        }
        "distance" => {
            not_negatable(key, &value)?;
            if selector.distance.is_some() {
                return Err(duplicate(key));
            }
            let range = parse_range(&value.text).ok_or_else(|| {
                invalid(
                    key,
                    &value,
                    "a distance or range of blocks such as 5, ..5, 1.. or 2..4 (never negative, min ≤ max)",
                )
            })?;
            selector.distance = Some(range);
        }
        "x" | "y" | "z" | "dx" | "dy" | "dz" => {
            not_negatable(key, &value)?;
            let axis = match key.as_bytes()[key.len() - 1] {
                b'x' => 0,
                b'y' => 1,
                _ => 2,
            };
            let slot = if key.len() == 1 {
                &mut selector.center[axis]
            } else {
                &mut selector.volume[axis]
            };
            if slot.is_some() {
                return Err(duplicate(key));
            }
            let v = value
                .text
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| invalid(key, &value, "a number of blocks (no ~ or ^ in selectors)"))?;
            *slot = Some(v);
        }
        "name" => {
            if !value.negated && selector.names.iter().any(|f| !f.negated) {
                return Err(duplicate(key));
            }
            selector.names.push(Filter {
                value: value.text,
                negated: value.negated,
            });
        }
        "type" => {
            if value.text.starts_with('#') {
                return Err(SelectorError::Unsupported {
                    key: key.to_owned(),
                    why: "entity type tags (#…) are not supported; name the type",
                });
            }
            let kind = entity_kind(&value.text).ok_or_else(|| {
                invalid(
                    key,
                    &value,
                    "an entity type such as player, item_display, block_display or text_display",
                )
            })?;
            if !value.negated && selector.types.iter().any(|f| !f.negated) {
                return Err(duplicate(key));
            }
            selector.types.push(Filter {
                value: kind,
                negated: value.negated,
            });
        }
        "gamemode" => {
            let mode = game_mode(&value.text).ok_or_else(|| {
                invalid(key, &value, "survival, creative, adventure or spectator")
            })?;
            if !value.negated && selector.game_modes.iter().any(|f| !f.negated) {
                return Err(duplicate(key));
            }
            selector.game_modes.push(Filter {
                value: mode,
                negated: value.negated,
            });
        }
        "tag" => {
            return Err(SelectorError::Unsupported {
                key: key.to_owned(),
                why: "emoted keeps no entity tags; select by name, type, gamemode or distance",
            })
        }
        "team" | "scores" | "level" | "x_rotation" | "y_rotation" | "nbt" | "advancements"
        | "predicate" => {
            return Err(SelectorError::Unsupported {
                key: key.to_owned(),
                why: "emoted has no scoreboard, teams, levels, rotations, NBT, advancements or predicates to test",
            })
        }
        _ => {
            return Err(SelectorError::UnknownArgument {
                key: key.to_owned(),
            })
        }
    }
    Ok(())
}

/// Parses `5`, `..5`, `1..`, `2..4` (non-negative, min ≤ max).
pub fn parse_range(text: &str) -> Option<DistanceRange> {
    let number = |s: &str| -> Option<Option<f64>> {
        if s.is_empty() {
            return Some(None);
        }
        let v = s
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)?;
        Some(Some(v))
    };
    let range = match text.split_once("..") {
        Some((lo, hi)) => {
            let (min, max) = (number(lo)?, number(hi)?);
            if min.is_none() && max.is_none() {
                return None;
            }
            DistanceRange { min, max }
        }
        None => {
            let v = number(text)??;
            DistanceRange {
                min: Some(v),
                max: Some(v),
            }
        }
    };
    match (range.min, range.max) {
        (Some(a), Some(b)) if a > b => None,
        _ => Some(range),
    }
}

/// A vanilla game mode name, in any ASCII case (see [`crate::server::syntax`]).
pub fn game_mode(name: &str) -> Option<GameMode> {
    crate::server::syntax::parse_game_mode(name)
}

/// The entity type called `name` (`player`, `minecraft:item_display`…).
pub fn entity_kind(name: &str) -> Option<EntityKind> {
    let path = match name.split_once(':') {
        Some(("minecraft", path)) => path,
        Some(_) => return None,
        None => name,
    };
    if path.is_empty() {
        return None;
    }
    let key = format!("entity.minecraft.{path}");
    // EntityKind ids are small and dense (about 125 in 1.20.1).
    (0..512)
        .map(EntityKind::new)
        .find(|k| k.translation_key() == Some(key.as_str()))
}

impl Selector {
    fn new(base: SelectorBase, text: &str) -> Self {
        Self {
            text: text.to_owned(),
            base,
            limit: None,
            sort: None,
            distance: None,
            center: [None; 3],
            volume: [None; 3],
            names: Vec::new(),
            types: Vec::new(),
            game_modes: Vec::new(),
        }
    }

    /// `@s`, for commands whose target defaults to the source.
    pub fn source() -> Self {
        Self::new(SelectorBase::Source, "@s")
    }

    fn check_applicable(&self) -> Result<(), SelectorError> {
        let not_here = |key: &str, why: &str| {
            Err(SelectorError::NotApplicable {
                key: key.to_owned(),
                why: why.to_owned(),
            })
        };
        if self.base == SelectorBase::Source {
            if self.limit.is_some() {
                return not_here("limit", "@s is always one entity at most");
            }
            if self.sort.is_some() {
                return not_here("sort", "@s is always one entity at most");
            }
        }
        if matches!(
            self.base,
            SelectorBase::Nearest | SelectorBase::AllPlayers | SelectorBase::Random
        ) && !self.types.is_empty()
        {
            return not_here(
                "type",
                "@p, @a and @r only select players; use @e[type=…] for other entities",
            );
        }
        Ok(())
    }

    /// True when the selector can only ever pick players (`@p @a @r`, names,
    /// or `type=player`).
    pub fn only_players(&self) -> bool {
        !matches!(self.base, SelectorBase::Source | SelectorBase::Entities)
            || self
                .types
                .iter()
                .any(|f| !f.negated && f.value == EntityKind::PLAYER)
    }

    /// The entities this selector picks among `candidates`, in order.
    pub fn select(
        &self,
        context: &SelectContext,
        candidates: &[Candidate],
        rng: &mut SelectorRng,
    ) -> Vec<Entity> {
        let center = DVec3::new(
            self.center[0].unwrap_or(context.origin.x),
            self.center[1].unwrap_or(context.origin.y),
            self.center[2].unwrap_or(context.origin.z),
        );
        let volume = self.volume.iter().any(Option::is_some).then(|| {
            let d = DVec3::new(
                self.volume[0].unwrap_or(0.0),
                self.volume[1].unwrap_or(0.0),
                self.volume[2].unwrap_or(0.0),
            );
            let a = center;
            let b = center + d;
            (a.min(b), a.max(b) + DVec3::ONE)
        });
        let mut picked: Vec<&Candidate> = candidates
            .iter()
            .filter(|c| match &self.base {
                SelectorBase::Source => Some(c.entity) == context.source,
                SelectorBase::Nearest | SelectorBase::AllPlayers | SelectorBase::Random => {
                    c.is_player()
                }
                SelectorBase::Entities => true,
                SelectorBase::Player(name) => {
                    c.is_player()
                        && c.name
                            .as_deref()
                            .is_some_and(|n| n.eq_ignore_ascii_case(name))
                }
            })
            .filter(|c| {
                self.distance
                    .is_none_or(|r| r.contains(c.position.distance(center)))
            })
            .filter(|c| {
                volume
                    .is_none_or(|(lo, hi)| c.position.cmpge(lo).all() && c.position.cmple(hi).all())
            })
            .filter(|c| {
                self.names.iter().all(|f| {
                    let matches = c.name.as_deref() == Some(f.value.as_str());
                    matches != f.negated
                })
            })
            .filter(|c| self.types.iter().all(|f| f.accepts(&c.kind)))
            .filter(|c| {
                self.game_modes.is_empty()
                    || c.game_mode
                        .is_some_and(|m| self.game_modes.iter().all(|f| f.accepts(&m)))
            })
            .collect();
        let (default_sort, default_limit) = match self.base {
            SelectorBase::Nearest => (Sort::Nearest, Some(1)),
            SelectorBase::Random => (Sort::Random, Some(1)),
            _ => (Sort::Arbitrary, None),
        };
        let distance = |c: &Candidate| c.position.distance_squared(center);
        match self.sort.unwrap_or(default_sort) {
            Sort::Arbitrary => {}
            Sort::Nearest => picked.sort_by(|a, b| distance(a).total_cmp(&distance(b))),
            Sort::Furthest => picked.sort_by(|a, b| distance(b).total_cmp(&distance(a))),
            Sort::Random => {
                for i in (1..picked.len()).rev() {
                    picked.swap(i, rng.below(i + 1));
                }
            }
        }
        if let Some(limit) = self.limit.or(default_limit) {
            picked.truncate(limit);
        }
        picked.into_iter().map(|c| c.entity).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Selector {
        match text.parse::<Selector>() {
            Ok(s) => s,
            Err(e) => panic!("{text}: {e}"),
        }
    }

    fn error(text: &str) -> String {
        match text.parse::<Selector>() {
            Ok(s) => panic!("{text} parsed as {s:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn parses_bases_and_names() {
        assert_eq!(parse("@s").base, SelectorBase::Source);
        assert_eq!(parse("@p").base, SelectorBase::Nearest);
        assert_eq!(parse("@a").base, SelectorBase::AllPlayers);
        assert_eq!(parse("@r").base, SelectorBase::Random);
        assert_eq!(parse("@e").base, SelectorBase::Entities);
        assert_eq!(parse("@e[]").base, SelectorBase::Entities);
        assert_eq!(
            parse("Steve_1").base,
            SelectorBase::Player("Steve_1".into())
        );
        let (s, rest) = parse_target("  @a[distance=..5] {\"text\":\"x\"}").expect("parses");
        assert_eq!(s.text, "@a[distance=..5]");
        assert_eq!(rest, "{\"text\":\"x\"}");
        let (s, rest) = parse_target("alex ~ ~ ~").expect("parses");
        assert_eq!(s.base, SelectorBase::Player("alex".into()));
        assert_eq!(rest, "~ ~ ~");
    }

    #[test]
    fn parses_arguments() {
        let s = parse("@e[ limit = 3 , sort=furthest,distance=1..4.5,name=!\"Bob, the ]\",type=!player,gamemode=creative,x=1,dy=-2.5]");
        assert_eq!(s.limit, Some(3));
        assert_eq!(s.sort, Some(Sort::Furthest));
        assert_eq!(
            s.distance,
            Some(DistanceRange {
                min: Some(1.0),
                max: Some(4.5)
            })
        );
        assert_eq!(
            s.names,
            vec![Filter {
                value: "Bob, the ]".into(),
                negated: true
            }]
        );
        assert_eq!(
            s.types,
            vec![Filter {
                value: EntityKind::PLAYER,
                negated: true
            }]
        );
        assert_eq!(
            s.game_modes,
            vec![Filter {
                value: GameMode::Creative,
                negated: false
            }]
        );
        assert_eq!(s.center, [Some(1.0), None, None]);
        assert_eq!(s.volume, [None, Some(-2.5), None]);
        assert_eq!(
            parse("@e[type=minecraft:item_display]").types[0].value,
            EntityKind::ITEM_DISPLAY
        );
        assert_eq!(
            parse("@s[type=text_display]").types[0].value,
            EntityKind::TEXT_DISPLAY
        );
        assert_eq!(parse("@e[type=!player,type=!block_display]").types.len(), 2);
    }

    #[test]
    fn ranges() {
        let r = |min, max| Some(DistanceRange { min, max });
        assert_eq!(parse_range("..5"), r(None, Some(5.0)));
        assert_eq!(parse_range("1.."), r(Some(1.0), None));
        assert_eq!(parse_range("2..4"), r(Some(2.0), Some(4.0)));
        assert_eq!(parse_range("3"), r(Some(3.0), Some(3.0)));
        assert_eq!(parse_range(".5..1.5"), r(Some(0.5), Some(1.5)));
        for bad in ["", "..", "4..2", "-1", "..-1", "a", "1...2", "1..2..3"] {
            assert_eq!(parse_range(bad), None, "{bad}");
        }
    }

    #[test]
    fn refuses_bad_selectors_with_clear_messages() {
        let cases = [
            ("", "missing target"),
            ("@x", "unknown selector `@x`"),
            ("@", "unknown selector `@`"),
            ("@ax", "unexpected `x` right after selector `@a`"),
            ("@e[limit=2", "missing its closing `]`"),
            ("@e[limit]", "expected `=` after `limit`"),
            ("@e[limit=1 sort=nearest]", "expected `,` or `]`"),
            (
                "@e[limit=0]",
                "invalid value `0` for selector argument `limit`",
            ),
            ("@e[limit=!2]", "`limit` cannot be negated"),
            ("@s[limit=1]", "`limit` is not allowed here: @s"),
            ("@s[sort=nearest]", "`sort` is not allowed here"),
            ("@a[type=player]", "@p, @a and @r only select players"),
            ("@e[sort=closest]", "nearest, furthest, random or arbitrary"),
            ("@e[distance=-1..]", "never negative"),
            ("@e[distance=5..2]", "min ≤ max"),
            (
                "@e[type=dragonfly]",
                "invalid value `dragonfly` for selector argument `type`",
            ),
            ("@e[type=#minecraft:raiders]", "type tags"),
            (
                "@e[gamemode=hardcore]",
                "survival, creative, adventure or spectator",
            ),
            ("@e[name=a,name=b]", "`name` is given twice"),
            (
                "@e[tag=dancer]",
                "`tag` is not supported: emoted keeps no entity tags",
            ),
            ("@e[scores={a=1}]", "`scores` is not supported"),
            ("@e[colour=red]", "unknown selector argument `colour`"),
            ("@e[x=~1]", "no ~ or ^ in selectors"),
            ("@e[name=\"open]", "missing its closing `]`"),
            ("no-dashes", "neither a player name"),
            ("a_name_that_is_far_too_long", "neither a player name"),
            ("@a extra", "unexpected `extra`"),
        ];
        for (text, needle) in cases {
            let message = error(text);
            assert!(message.contains(needle), "{text}: {message}");
        }
    }

    fn world() -> Vec<Candidate> {
        let player = |i: u32, name: &str, x: f64, mode| Candidate {
            entity: Entity::from_raw(i),
            kind: EntityKind::PLAYER,
            name: Some(name.into()),
            position: DVec3::new(x, 0.0, 0.0),
            game_mode: Some(mode),
        };
        let display = |i: u32, kind, x: f64| Candidate {
            entity: Entity::from_raw(i),
            kind,
            name: None,
            position: DVec3::new(x, 1.0, 0.0),
            game_mode: None,
        };
        vec![
            player(1, "Alice", 0.0, GameMode::Survival),
            player(2, "Bob", 10.0, GameMode::Creative),
            player(3, "Carol", -3.0, GameMode::Survival),
            display(10, EntityKind::ITEM_DISPLAY, 0.5),
            display(11, EntityKind::TEXT_DISPLAY, 20.0),
        ]
    }

    fn ids(selector: &str, source: Option<u32>, origin_x: f64) -> Vec<u32> {
        let context = SelectContext {
            source: source.map(Entity::from_raw),
            origin: DVec3::new(origin_x, 0.0, 0.0),
        };
        parse(selector)
            .select(&context, &world(), &mut SelectorRng::seeded(7))
            .into_iter()
            .map(|e| e.index())
            .collect()
    }

    #[test]
    fn resolves_against_the_world() {
        assert_eq!(ids("@s", Some(2), 0.0), vec![2]);
        assert_eq!(ids("@s", Some(10), 0.0), vec![10], "a node source");
        assert_eq!(ids("@s", None, 0.0), Vec::<u32>::new(), "the server");
        assert_eq!(ids("@s[type=player]", Some(10), 0.0), Vec::<u32>::new());
        assert_eq!(ids("@a", None, 0.0), vec![1, 2, 3]);
        assert_eq!(ids("@p", None, 9.0), vec![2]);
        assert_eq!(ids("@p", None, -2.0), vec![3]);
        assert_eq!(ids("@p[limit=2]", None, -2.0), vec![3, 1]);
        assert_eq!(ids("@a[sort=furthest,limit=1]", None, 0.0), vec![2]);
        assert_eq!(ids("@e", None, 0.0), vec![1, 2, 3, 10, 11]);
        assert_eq!(ids("@e[type=!player]", None, 0.0), vec![10, 11]);
        assert_eq!(ids("@e[type=item_display]", None, 0.0), vec![10]);
        assert_eq!(ids("@e[distance=..1.5]", None, 0.0), vec![1, 10]);
        assert_eq!(ids("@a[distance=3]", None, 0.0), vec![3]);
        assert_eq!(ids("@a[distance=5..]", None, 0.0), vec![2]);
        assert_eq!(ids("@a[x=10,distance=..1]", None, 0.0), vec![2]);
        assert_eq!(ids("@e[x=-1,y=0,z=0,dx=2,dy=1]", None, 0.0), vec![1, 10]);
        assert_eq!(
            ids("@a[name=bob]", None, 0.0),
            Vec::<u32>::new(),
            "name= is exact"
        );
        assert_eq!(ids("@a[name=Bob]", None, 0.0), vec![2]);
        assert_eq!(ids("@a[name=!Bob,name=!Alice]", None, 0.0), vec![3]);
        assert_eq!(ids("bob", None, 0.0), vec![2], "player names ignore case");
        assert_eq!(ids("Nobody", None, 0.0), Vec::<u32>::new());
        assert_eq!(ids("@a[gamemode=survival]", None, 0.0), vec![1, 3]);
        assert_eq!(
            ids("@e[gamemode=!survival]", None, 0.0),
            vec![2],
            "only players"
        );
        let random = ids("@r", None, 0.0);
        assert_eq!(random.len(), 1);
        assert!([1, 2, 3].contains(&random[0]));
        let mut shuffled = ids("@a[sort=random]", None, 0.0);
        shuffled.sort_unstable();
        assert_eq!(shuffled, vec![1, 2, 3]);
    }

    #[test]
    fn random_picks_every_player_eventually() {
        let context = SelectContext {
            source: None,
            origin: DVec3::ZERO,
        };
        let selector = parse("@r");
        let mut rng = SelectorRng::from_entropy();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            seen.extend(selector.select(&context, &world(), &mut rng));
        }
        assert_eq!(seen.len(), 3);
    }

    #[test]
    fn only_players() {
        assert!(parse("@a").only_players());
        assert!(parse("Bob").only_players());
        assert!(parse("@e[type=player]").only_players());
        assert!(!parse("@e").only_players());
        assert!(!parse("@s").only_players());
    }
}
