//! The `idle` table of an emote group: after how long a quiet player plays
//! an idle emote, and which ([`crate::playback::idle`] has the clock and
//! the picking; [`crate::server::idle`] the server side).
//!
//! ```toml
//! [[permissions.emote_groups]]
//! node = "emote.play.vip"            # optional, as for any emote group
//! idle = { delay = "300s", emotes = ["example:sit", "example:sit_*"] }
//!
//! [[permissions.emote_groups]]       # no `emotes`: this group only sets idle
//! idle = { delay = "120s", weights = [
//!     { id = "example:sit", weight = 60 },
//!     { id = "example:wave", weight = 40 },
//! ] }
//! ```
//!
//! - `delay`: a time as emote files write it (`"300s"`, `"20t"`, `"1d"`,
//!   or a bare number of ticks, quoted or not), at least
//!   [`MIN_IDLE_DELAY_TICKS`]. Default: `"300s"`.
//! - `emotes`: ids, or `*` globs (`"example:sit_*"`) standing for every
//!   loaded id they match, all with equal chance. The reference server
//!   takes Java regular expressions here; emoted takes the same globs as
//!   the group's own `emotes`.
//! - `weights`: exact ids with whole-number weights of at least 1 that add
//!   up to 100; globs are refused here (a weight per pattern would be
//!   ambiguous once the pattern matches several ids).
//!
//! Exactly one of `emotes` and `weights` is set. The ids need not be in the
//! group's `emotes` (idle-only emotes), need not be loaded (they are
//! resolved at each attempt), and a group that only sets `idle` may leave
//! its `emotes` out. A player gets the rule of the first group, top to
//! bottom, that has `idle` and whose `node` they hold (or that has none).

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use super::{check_pattern, RuleError};
use crate::format::time::{parse_time, ticks_from_number, TICKS_PER_SECOND};
use crate::format::EmoteId;
use crate::playback::idle::{IdleCandidates, IdleRule, WEIGHT_TOTAL};

/// The shortest idle delay accepted (1 s): shorter would start emotes in
/// the pauses of someone typing or looking around.
pub const MIN_IDLE_DELAY_TICKS: u32 = TICKS_PER_SECOND;

/// The default idle delay, five minutes (`"300s"`).
pub const DEFAULT_IDLE_DELAY: &str = "300s";

/// `idle = { … }` in an emote group, as written.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdleSetting {
    /// Quiet time before an idle emote starts, and between repeats.
    /// Default: [`DEFAULT_IDLE_DELAY`].
    #[serde(default = "default_delay")]
    pub delay: IdleDelay,
    /// Ids or globs, equal chance. Default: none.
    #[serde(default)]
    pub emotes: Vec<String>,
    /// Exact ids with weights that add up to 100. Default: none.
    #[serde(default)]
    pub weights: Vec<WeightedIdle>,
}

/// One `{ id = "…", weight = N }` entry of `weights`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightedIdle {
    /// The emote id (no globs).
    pub id: String,
    /// Its share of 100.
    pub weight: u32,
}

/// A `delay` as written: a time string or a bare number of ticks.
#[derive(Clone, Debug, PartialEq)]
pub enum IdleDelay {
    /// `"300s"`, `"20t"`, `"6000"`.
    Text(String),
    /// `6000` (ticks).
    Ticks(f64),
}

fn default_delay() -> IdleDelay {
    IdleDelay::Text(DEFAULT_IDLE_DELAY.to_owned())
}

impl<'de> Deserialize<'de> for IdleDelay {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DelayVisitor;
        impl Visitor<'_> for DelayVisitor {
            type Value = IdleDelay;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a time such as \"300s\" or \"20t\", or a number of ticks")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<IdleDelay, E> {
                Ok(IdleDelay::Text(text.to_owned()))
            }
            fn visit_i64<E: de::Error>(self, ticks: i64) -> Result<IdleDelay, E> {
                Ok(IdleDelay::Ticks(ticks as f64))
            }
            fn visit_u64<E: de::Error>(self, ticks: u64) -> Result<IdleDelay, E> {
                Ok(IdleDelay::Ticks(ticks as f64))
            }
            fn visit_f64<E: de::Error>(self, ticks: f64) -> Result<IdleDelay, E> {
                Ok(IdleDelay::Ticks(ticks))
            }
        }
        deserializer.deserialize_any(DelayVisitor)
    }
}

impl IdleSetting {
    /// Checks the rule and makes it ready to use; `option` names the table
    /// in messages (`permissions.emote_groups[2].idle`).
    pub fn rule(&self, option: &str) -> Result<IdleRule, RuleError> {
        let bad = |key: &str, reason: String| RuleError::BadIdle {
            option: format!("{option}{key}"),
            reason,
        };
        let delay_ticks = match &self.delay {
            IdleDelay::Text(text) => parse_time(text, MIN_IDLE_DELAY_TICKS),
            IdleDelay::Ticks(ticks) => ticks_from_number(*ticks, MIN_IDLE_DELAY_TICKS),
        }
        .map_err(|e| bad(".delay", e.to_string()))?;
        let candidates = match (self.emotes.is_empty(), self.weights.is_empty()) {
            (true, true) => {
                return Err(bad(
                    "",
                    "an idle rule needs `emotes` (ids or patterns, equal chance) or `weights` \
                     (ids with weights adding up to 100)"
                        .to_owned(),
                ))
            }
            (false, false) => {
                return Err(bad(
                    "",
                    "set either `emotes` (equal chance) or `weights`, not both".to_owned(),
                ))
            }
            (false, true) => {
                for pattern in &self.emotes {
                    check_pattern(&format!("{option}.emotes"), pattern)?;
                }
                IdleCandidates::Equal(self.emotes.clone())
            }
            (true, false) => IdleCandidates::Weighted(self.weighted(option)?),
        };
        Ok(IdleRule {
            delay_ticks,
            candidates,
        })
    }

    fn weighted(&self, option: &str) -> Result<Vec<(EmoteId, u32)>, RuleError> {
        let bad = |reason: String| RuleError::BadIdle {
            option: format!("{option}.weights"),
            reason,
        };
        let mut entries: Vec<(EmoteId, u32)> = Vec::with_capacity(self.weights.len());
        for entry in &self.weights {
            if entry.id.contains('*') {
                return Err(bad(format!(
                    "`{}` is a pattern: weights take exact ids; put patterns in `emotes`, \
                     where every match has equal chance",
                    entry.id
                )));
            }
            let id = EmoteId::parse(&entry.id).map_err(bad)?;
            if entry.weight == 0 {
                return Err(bad(format!(
                    "`{id}` has weight 0: weights are whole numbers of at least 1 (leave the \
                     id out instead)"
                )));
            }
            if entries.iter().any(|(seen, _)| *seen == id) {
                return Err(bad(format!("`{id}` is listed twice")));
            }
            entries.push((id, entry.weight));
        }
        let total: u64 = entries.iter().map(|(_, w)| u64::from(*w)).sum();
        if total != u64::from(WEIGHT_TOTAL) {
            return Err(bad(format!(
                "the weights add up to {total}; they must add up to {WEIGHT_TOTAL}"
            )));
        }
        Ok(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::named;
    use super::super::{validate_rules, PermissionsSection, PlayerPermissions};
    use super::*;

    fn rule(toml_text: &str) -> Result<IdleRule, String> {
        let setting: IdleSetting = toml::from_str(toml_text).map_err(|e| e.to_string())?;
        setting.rule("idle").map_err(|e| e.to_string())
    }

    fn id(text: &str) -> EmoteId {
        EmoteId::parse(text).expect("id")
    }

    #[test]
    fn both_shapes_and_every_delay_spelling_are_read() {
        let equal = rule("delay = \"2s\"\nemotes = [\"example:sit\", \"example:sit_*\"]");
        assert_eq!(
            equal,
            Ok(IdleRule {
                delay_ticks: 40,
                candidates: IdleCandidates::Equal(vec![
                    "example:sit".into(),
                    "example:sit_*".into()
                ]),
            })
        );
        let weighted = rule(
            "weights = [{ id = \"example:sit\", weight = 60 }, { id = \"example:wave\", weight = 40 }]",
        );
        assert_eq!(
            weighted,
            Ok(IdleRule {
                delay_ticks: 6000,
                candidates: IdleCandidates::Weighted(vec![
                    (id("example:sit"), 60),
                    (id("example:wave"), 40)
                ]),
            }),
            "the delay defaults to 300s"
        );
        for (delay, ticks) in [
            ("\"20t\"", 20),
            ("\"25\"", 25),
            ("30", 30),
            ("\"1.5s\"", 30),
            ("\"1d\"", 24_000),
        ] {
            let read = rule(&format!("delay = {delay}\nemotes = [\"a:b\"]")).expect(delay);
            assert_eq!(read.delay_ticks, ticks, "{delay}");
        }
    }

    #[test]
    fn bad_rules_name_the_option_and_say_what_to_write() {
        for (text, needle) in [
            (
                "delay = \"5 minutes\"\nemotes = [\"a:b\"]",
                "idle.delay: `5 minutes` is not a Minecraft time",
            ),
            (
                "delay = \"10t\"\nemotes = [\"a:b\"]",
                "idle.delay: time must be at least 20t",
            ),
            ("delay = 0\nemotes = [\"a:b\"]", "idle.delay"),
            (
                "delay = true\nemotes = [\"a:b\"]",
                "a time such as \"300s\"",
            ),
            ("delay = \"2s\"", "idle: an idle rule needs `emotes`"),
            (
                "emotes = [\"a:b\"]\nweights = [{ id = \"a:b\", weight = 100 }]",
                "not both",
            ),
            (
                "emotes = [\"Example:Sit\"]",
                "idle.emotes: `Example:Sit` matches no emote id",
            ),
            (
                "weights = [{ id = \"a:*\", weight = 100 }]",
                "idle.weights: `a:*` is a pattern",
            ),
            (
                "weights = [{ id = \"a:b\", weight = 60 }, { id = \"a:c\", weight = 30 }]",
                "idle.weights: the weights add up to 90; they must add up to 100",
            ),
            (
                "weights = [{ id = \"a:b\", weight = 100 }, { id = \"a:c\", weight = 0 }]",
                "weight 0",
            ),
            (
                "weights = [{ id = \"a:b\", weight = 50 }, { id = \"a:b\", weight = 50 }]",
                "listed twice",
            ),
            (
                "weights = [{ id = \"wave\", weight = 100 }]",
                "idle.weights: `wave`",
            ),
            ("weights = [{ id = \"a:b\", weight = -1 }]", "weight"),
            ("emote = [\"a:b\"]", "unknown field `emote`"),
        ] {
            let err = rule(text).expect_err(text);
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn groups_check_their_idle_rule_and_may_exist_for_it_alone() {
        let section: PermissionsSection = toml::from_str(
            r#"
            [[emote_groups]]
            emotes = ["example:*"]
            [[emote_groups]]
            node = "emote.idle.vip"
            idle = { delay = "2s", weights = [{ id = "example:sit", weight = 99 }] }
            "#,
        )
        .expect("toml");
        let err = validate_rules(&section).expect_err("bad sum").to_string();
        assert!(
            err.starts_with("permissions.emote_groups[2].idle.weights: the weights add up to 99"),
            "{err}"
        );
        let idle_only: PermissionsSection =
            toml::from_str("[[emote_groups]]\nidle = { emotes = [\"example:sit\"] }")
                .expect("toml");
        assert_eq!(validate_rules(&idle_only), Ok(()));
        let neither: PermissionsSection =
            toml::from_str("[[emote_groups]]\nnode = \"emote.vip\"").expect("toml");
        let err = validate_rules(&neither).expect_err("empty").to_string();
        assert!(err.contains("or an `idle` rule"), "{err}");
    }

    #[test]
    fn the_first_held_group_with_idle_wins() {
        let section: PermissionsSection = toml::from_str(
            r#"
            [groups.vip]
            players = ["Vip"]
            nodes = ["emote.idle.vip"]
            [[emote_groups]]
            emotes = ["example:*"]
            cooldown_multiplier = 0.5
            [[emote_groups]]
            node = "emote.idle.vip"
            idle = { delay = "60s", emotes = ["example:dance"] }
            [[emote_groups]]
            idle = { delay = "300s", emotes = ["example:sit"] }
            [[emote_groups]]
            idle = { delay = "10s", emotes = ["example:wave"] }
            "#,
        )
        .expect("toml");
        validate_rules(&section).expect("valid");
        let index_of = |name: &str| {
            PlayerPermissions::resolve(&section, named(name), 0)
                .idle_rule()
                .map(|(index, setting)| (index, setting.emotes.clone()))
        };
        assert_eq!(index_of("Vip"), Some((1, vec!["example:dance".to_owned()])));
        assert_eq!(
            index_of("Steve"),
            Some((2, vec!["example:sit".to_owned()])),
            "the VIP group is not held; the first group has no idle"
        );
        assert_eq!(
            PlayerPermissions::resolve(&PermissionsSection::default(), named("Steve"), 0)
                .idle_rule(),
            None
        );
    }
}
