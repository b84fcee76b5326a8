//! Target text into a [`Selector`]: the base, then `[key=value,...]`
//! arguments with vanilla's rules for each.

use valence::entity::EntityKind;

use super::types::*;
use crate::server::syntax::game_mode::parse_game_mode;

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
pub(super) struct RawValue {
    pub(super) text: String,
    pub(super) negated: bool,
}

/// Reads `key=value,…]` (the text after `[`); returns the length consumed,
/// `]` included.
pub(super) fn parse_arguments(
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

pub(super) fn invalid(key: &str, value: &RawValue, expected: &'static str) -> SelectorError {
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

pub(super) fn not_negatable(key: &str, value: &RawValue) -> Result<(), SelectorError> {
    if value.negated {
        Err(SelectorError::NotApplicable {
            key: key.to_owned(),
            why: format!("`{key}` cannot be negated with `!`"),
        })
    } else {
        Ok(())
    }
}

pub(super) fn duplicate(key: &str) -> SelectorError {
    SelectorError::NotApplicable {
        key: key.to_owned(),
        why: format!("`{key}` is given twice"),
    }
}

/// Adds the filter `key=value` (or `key=!value`) to `filters`: `name`,
/// `type` and `gamemode` take any number of negated values but one plain
/// value at most.
fn push_filter<T>(
    filters: &mut Vec<Filter<T>>,
    key: &str,
    value: T,
    negated: bool,
) -> Result<(), SelectorError> {
    if !negated && filters.iter().any(|f| !f.negated) {
        return Err(duplicate(key));
    }
    filters.push(Filter { value, negated });
    Ok(())
}

pub(super) fn apply_argument(
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
            push_filter(&mut selector.names, key, value.text, value.negated)?;
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
            push_filter(&mut selector.types, key, kind, value.negated)?;
        }
        "gamemode" => {
            let mode = parse_game_mode(&value.text).ok_or_else(|| {
                invalid(key, &value, "survival, creative, adventure or spectator")
            })?;
            push_filter(&mut selector.game_modes, key, mode, value.negated)?;
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
