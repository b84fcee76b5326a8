//! Who may do what: permission nodes, player groups and emote groups, read
//! from `[permissions]` in `config/emoted.toml`.
//!
//! This module is pure (no valence types): the command handler resolves a
//! [`PlayerPermissions`] from the live configuration each time a player runs
//! a command or asks for suggestions, so a hot reload applies at once.
//!
//! # The model
//!
//! - **Nodes** are dotted names such as `emote.default`. A granted node may
//!   end in (or contain) `*`, which matches any run of characters:
//!   `emote.play.*` grants `emote.play.vip`, `*` grants everything.
//! - **Every player** holds [`PermissionsSection::default_nodes`]
//!   (`["emote.default"]` out of the box).
//! - **Player groups** (`[permissions.groups.<name>]`) grant `nodes` to the
//!   `players` listed by name (ASCII case-insensitive). A node written
//!   `-node` *denies* it; a denial beats every grant (default nodes
//!   included), so `nodes = ["-emote.default"]` mutes a group.
//! - **Operators** (operator level ≥ [`OPERATOR_LEVEL`], or a name in
//!   `operators`) hold every node; denials do not apply to them.
//! - **Emote groups** (`[[permissions.emote_groups]]`, in order) match emote
//!   ids by glob patterns (`example:*`). A group may require a `node` to
//!   play its emotes, may set a `cooldown_multiplier`, and may set an
//!   `idle` rule ([`idle`]); a group with an idle rule may leave `emotes`
//!   empty.
//!
//! # Playing an emote ([`PlayerPermissions::may_play`])
//!
//! | order | condition | result |
//! |---:|---|---|
//! | 1 | the player holds `emote.bypass` | allowed (no further checks, no cooldown) |
//! | 2 | the emote is not standalone and the player lacks `emote.manage` | refused |
//! | 3 | emote groups matching the id require nodes | allowed when the player holds **any** of them |
//! | 4 | otherwise | allowed when the player holds `emote.default` |
//!
//! A required node *replaces* `emote.default` for the emotes it covers, so a
//! VIP-only emote can be given to a group that lacks the default node.
//!
//! # Cooldowns ([`PlayerPermissions::cooldown_multiplier`])
//!
//! As in the reference server, emote groups are read top to bottom; the
//! first one that matches the id, sets `cooldown_multiplier`, and is held by
//! the player (it has no `node`, or the player holds it) gives the factor.
//! Otherwise the emote's own cooldown applies unchanged (factor 1).
//!
//! # Idle emotes ([`PlayerPermissions::idle_rule`])
//!
//! The same order: the first emote group that has `idle` and is held by
//! the player gives their idle rule. Idle emotes skip the access check
//! (they need not be in any group's `emotes`), not the others.

pub mod idle;

use std::collections::BTreeMap;

use serde::Deserialize;
use uuid::Uuid;

use crate::format::EmoteId;
use crate::library::{Library, LoadedEmote};
use crate::server::events::PlayEmoteRequest;
pub use idle::IdleSetting;

/// Play standalone emotes on yourself and stop your own.
pub const EMOTE_DEFAULT: &str = "emote.default";
/// Reload, play or stop emotes for other players, play non-standalone emotes.
pub const EMOTE_MANAGE: &str = "emote.manage";
/// Skip access checks and cooldowns.
pub const EMOTE_BYPASS: &str = "emote.bypass";
/// `/gamemode` (the node name LuckPerms users know from vanilla).
pub const GAMEMODE: &str = "minecraft.command.gamemode";
/// `/tp`.
pub const TELEPORT: &str = "minecraft.command.teleport";

/// Operator level from which a player holds every node (vanilla's
/// "game master" level, which `/gamemode` and `/tp` need there).
pub const OPERATOR_LEVEL: u8 = 2;

/// `[permissions]`: who may do what (see [`crate::server::permissions`]
/// for how the rules combine).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PermissionsSection {
    /// Player names made operators (level 3) when they join, or at once
    /// when a reload adds them; a reload that removes a name takes the
    /// level back. Operators hold every node. Default: none.
    pub operators: Vec<String>,
    /// Nodes every player holds. Default: `["emote.default"]`.
    pub default_nodes: Vec<String>,
    /// `[permissions.groups.<name>]`: nodes granted to players by name
    /// (`-node` denies one). Default: none.
    pub groups: BTreeMap<String, PlayerGroup>,
    /// `[[permissions.emote_groups]]`, in order: emotes matched by id
    /// pattern, with an optional required node and cooldown multiplier.
    /// Default: none.
    pub emote_groups: Vec<EmoteGroup>,
    /// Emote ids (exact, `namespace:name`) that stay loaded but that only
    /// players with `emote.bypass` may play: hidden from everyone else's
    /// wheel, list and completion, refused to their commands, and never
    /// picked as their idle emote. A Sequence may still play a disabled
    /// Animation. Default: none.
    pub disabled: Vec<String>,
}

impl Default for PermissionsSection {
    fn default() -> Self {
        Self {
            disabled: Vec::new(),
            operators: Vec::new(),
            default_nodes: vec![EMOTE_DEFAULT.to_owned()],
            groups: BTreeMap::new(),
            emote_groups: Vec::new(),
        }
    }
}

impl PermissionsSection {
    /// The cooldown factor of emote `id` for `player` at `op_level`
    /// ([`PlayerPermissions::cooldown_multiplier`]), for an emote someone
    /// else starts for them.
    pub fn cooldown_multiplier_of(&self, player: PlayerIdentity, op_level: u8, id: &str) -> f32 {
        PlayerPermissions::resolve(self, player, op_level).cooldown_multiplier(id)
    }

    /// Whether `id` is in [`Self::disabled`].
    pub fn is_disabled(&self, id: &str) -> bool {
        self.disabled.iter().any(|d| d == id)
    }
}

/// `[permissions.groups.<name>]`: nodes granted to players by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlayerGroup {
    /// Player names (ASCII case-insensitive).
    pub players: Vec<String>,
    /// Nodes granted; `-node` denies one.
    pub nodes: Vec<String>,
}

/// `[[permissions.emote_groups]]`: emotes matched by id pattern.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EmoteGroup {
    /// Id patterns: an exact id, or a glob where `*` matches any run of
    /// characters (`example:*`, `*:dance_*`).
    pub emotes: Vec<String>,
    /// A node needed to play these emotes (e.g. `emote.play.vip`); unset:
    /// the emotes stay under `emote.default`.
    pub node: Option<String>,
    /// Factor applied to these emotes' cooldowns (0 removes them, 2 doubles
    /// them); unset: this group does not change cooldowns.
    pub cooldown_multiplier: Option<f32>,
    /// The idle emotes of the players who hold this group ([`idle`]);
    /// unset: this group sets none.
    pub idle: Option<IdleSetting>,
}

/// A `[permissions]` rule that cannot be used; each names its option.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RuleError {
    /// A node name with characters nodes do not use.
    #[error("{option}: `{node}` is not a permission node: use a-z, 0-9, _ and - in dot-separated parts (e.g. \"emote.play.vip\"), `*` as a wildcard when granting, and a leading `-` to deny")]
    BadNode {
        /// Where it was found, e.g. `permissions.groups.vip.nodes`.
        option: String,
        /// The node as written.
        node: String,
    },
    /// A `disabled` entry that is not an emote id.
    #[error("permissions.disabled: `{id}` is not an emote id (namespace:name)")]
    BadDisabledId {
        /// The entry as written.
        id: String,
    },
    /// An emote pattern that can never match an emote id.
    #[error("{option}: `{pattern}` matches no emote id: {reason}")]
    BadPattern {
        /// Where it was found.
        option: String,
        /// The pattern as written.
        pattern: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A player name that cannot be a player's.
    #[error("{option}: `{name}` is neither a player name (1 to 16 letters, digits or _) nor a UUID (8-4-4-4-12 hex digits, or 32 without dashes)")]
    BadPlayerName {
        /// Where it was found.
        option: String,
        /// The name as written.
        name: String,
    },
    /// A negative or non-finite multiplier.
    #[error(
        "{option}: the cooldown multiplier must be a finite number of at least 0, found {value}"
    )]
    BadMultiplier {
        /// Where it was found.
        option: String,
        /// The value.
        value: f32,
    },
    /// An emote group that matches nothing.
    #[error("{option}: an emote group needs at least one pattern in `emotes`, or an `idle` rule (a group may exist for its idle emotes alone)")]
    EmptyEmoteGroup {
        /// Where it was found.
        option: String,
    },
    /// An `idle` rule that cannot be used ([`idle`]).
    #[error("{option}: {reason}")]
    BadIdle {
        /// Where it was found, e.g. `permissions.emote_groups[1].idle.delay`.
        option: String,
        /// What is wrong and what to write instead.
        reason: String,
    },
}

/// Checks every `[permissions]` rule; the first problem is returned.
pub fn validate_rules(rules: &PermissionsSection) -> Result<(), RuleError> {
    if let Some(id) = rules.disabled.iter().find(|id| EmoteId::parse(id).is_err()) {
        return Err(RuleError::BadDisabledId { id: id.clone() });
    }
    for name in &rules.operators {
        check_player_name("permissions.operators", name)?;
    }
    for node in &rules.default_nodes {
        check_node("permissions.default_nodes", node, false)?;
    }
    for (group, members) in &rules.groups {
        let option = format!("permissions.groups.{group}");
        for name in &members.players {
            check_player_name(&format!("{option}.players"), name)?;
        }
        for node in &members.nodes {
            check_node(&format!("{option}.nodes"), node, true)?;
        }
    }
    for (index, group) in rules.emote_groups.iter().enumerate() {
        // TOML arrays of tables are counted from 1 by people.
        let option = format!("permissions.emote_groups[{}]", index + 1);
        if group.emotes.is_empty() && group.idle.is_none() {
            return Err(RuleError::EmptyEmoteGroup {
                option: format!("{option}.emotes"),
            });
        }
        for pattern in &group.emotes {
            check_pattern(&format!("{option}.emotes"), pattern)?;
        }
        if let Some(node) = &group.node {
            check_node(&format!("{option}.node"), node, false)?;
            if node.contains('*') {
                return Err(RuleError::BadNode {
                    option: format!("{option}.node"),
                    node: node.clone(),
                });
            }
        }
        if let Some(value) = group.cooldown_multiplier {
            if !value.is_finite() || value < 0.0 {
                return Err(RuleError::BadMultiplier {
                    option: format!("{option}.cooldown_multiplier"),
                    value,
                });
            }
        }
        if let Some(idle) = &group.idle {
            idle.rule(&format!("{option}.idle"))?;
        }
    }
    Ok(())
}

fn check_player_name(option: &str, name: &str) -> Result<(), RuleError> {
    let ok = (1..=16).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok || listed_uuid(name).is_some() {
        Ok(())
    } else {
        Err(RuleError::BadPlayerName {
            option: option.to_owned(),
            name: name.to_owned(),
        })
    }
}

/// The UUID a list entry names, when it is one: 36 characters with dashes
/// or 32 hex digits (a player name is at most 16 characters, so the two
/// never overlap).
fn listed_uuid(entry: &str) -> Option<Uuid> {
    let hex = |s: &str| s.bytes().all(|b| b.is_ascii_hexdigit());
    let dashed = entry.len() == 36
        && entry.split('-').map(str::len).eq([8, 4, 4, 4, 12])
        && entry.split('-').all(hex);
    let simple = entry.len() == 32 && hex(entry);
    if dashed || simple {
        Uuid::parse_str(entry).ok()
    } else {
        None
    }
}

/// Who a player is, for the lists of `[permissions]`.
#[derive(Clone, Copy, Debug)]
pub struct PlayerIdentity<'a> {
    /// The player's name.
    pub name: &'a str,
    /// The player's UUID (in offline mode derived from the name; behind a
    /// proxy or in online mode the account's).
    pub uuid: Uuid,
}

impl PlayerIdentity<'_> {
    /// True when `entry` (a name, ASCII case-insensitive, or a UUID) is
    /// this player.
    pub fn is(&self, entry: &str) -> bool {
        match listed_uuid(entry) {
            Some(uuid) => uuid == self.uuid,
            None => entry.eq_ignore_ascii_case(self.name),
        }
    }

    /// True when any entry of `list` is this player.
    pub fn is_listed(&self, list: &[String]) -> bool {
        list.iter().any(|entry| self.is(entry))
    }
}

fn check_node(option: &str, node: &str, may_deny: bool) -> Result<(), RuleError> {
    let bare = match node.strip_prefix('-') {
        Some(rest) if may_deny => rest,
        _ => node,
    };
    let ok = !bare.starts_with('-')
        && bare.split('.').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-*".contains(&b))
        });
    if ok {
        Ok(())
    } else {
        Err(RuleError::BadNode {
            option: option.to_owned(),
            node: node.to_owned(),
        })
    }
}

fn check_pattern(option: &str, pattern: &str) -> Result<(), RuleError> {
    let bad = |reason: &str| RuleError::BadPattern {
        option: option.to_owned(),
        pattern: pattern.to_owned(),
        reason: reason.to_owned(),
    };
    if pattern.contains('*') {
        let allowed = pattern
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-./:*".contains(&b));
        if !allowed {
            return Err(bad(
                "ids use a-z, 0-9, _ - . / and one colon; `*` is the only wildcard",
            ));
        }
        Ok(())
    } else {
        EmoteId::parse(pattern).map(|_| ()).map_err(|e| bad(&e))
    }
}

pub use crate::format::ident::glob_matches;

/// Why a player may not play an emote, as they read it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayDenied {
    /// Non-standalone emotes play inside Sequences; playing one directly is
    /// a management action.
    #[error("`{id}` is not a standalone emote; it only plays inside Sequences (playing it directly needs {EMOTE_MANAGE}).")]
    NotStandalone {
        /// The emote.
        id: String,
    },
    /// The emote is in `permissions.disabled`.
    #[error("`{id}` is disabled on this server.")]
    Disabled {
        /// The emote.
        id: String,
    },
    /// The player lacks the node (or every one of the nodes) the emote needs.
    #[error("You may not play `{id}`: it needs the permission node {}.", nodes.join(" or "))]
    MissingNode {
        /// The emote.
        id: String,
        /// The nodes, any one of which would do.
        nodes: Vec<String>,
    },
}

/// What one player holds, resolved from the rules at one moment.
#[derive(Clone, Debug)]
pub struct PlayerPermissions<'a> {
    rules: &'a PermissionsSection,
    operator: bool,
    granted: Vec<&'a str>,
    denied: Vec<&'a str>,
}

impl<'a> PlayerPermissions<'a> {
    /// Resolves the nodes of a connected player from their components.
    pub fn of_player(
        rules: &'a PermissionsSection,
        username: &valence::prelude::Username,
        uuid: &valence::prelude::UniqueId,
        op: Option<&valence::op_level::OpLevel>,
    ) -> Self {
        let identity = PlayerIdentity {
            name: &username.0,
            uuid: uuid.0,
        };
        Self::resolve(rules, identity, op.map_or(0, |o| o.get()))
    }

    /// Resolves the nodes of `player`, whose operator level is `op_level`.
    pub fn resolve(rules: &'a PermissionsSection, player: PlayerIdentity, op_level: u8) -> Self {
        let operator = op_level >= OPERATOR_LEVEL || player.is_listed(&rules.operators);
        let mut granted: Vec<&str> = rules.default_nodes.iter().map(String::as_str).collect();
        let mut denied = Vec::new();
        for group in rules.groups.values() {
            if !player.is_listed(&group.players) {
                continue;
            }
            for node in &group.nodes {
                match node.strip_prefix('-') {
                    Some(node) => denied.push(node),
                    None => granted.push(node.as_str()),
                }
            }
        }
        Self {
            rules,
            operator,
            granted,
            denied,
        }
    }

    /// True for operators (who hold every node).
    pub fn is_operator(&self) -> bool {
        self.operator
    }

    /// True when the player holds `node`.
    pub fn has(&self, node: &str) -> bool {
        if self.operator {
            return true;
        }
        let matches = |set: &[&str]| set.iter().any(|p| glob_matches(p, node));
        matches(&self.granted) && !matches(&self.denied)
    }

    /// True when cooldowns and access checks are skipped (`emote.bypass`).
    pub fn bypasses(&self) -> bool {
        self.has(EMOTE_BYPASS)
    }

    /// The nodes emote groups require for `id` (any one of them is enough),
    /// in group order, without repeats; empty when `emote.default` covers it.
    pub fn required_nodes(&self, id: &str) -> Vec<&'a str> {
        let mut nodes: Vec<&'a str> = Vec::new();
        for group in &self.rules.emote_groups {
            let Some(node) = &group.node else { continue };
            if group.emotes.iter().any(|p| glob_matches(p, id)) && !nodes.contains(&node.as_str()) {
                nodes.push(node);
            }
        }
        nodes
    }

    /// Whether the player may play the emote `id` on themself; `standalone`
    /// is the emote's `settings.standalone` (Sequences count as standalone).
    pub fn may_play(&self, id: &str, standalone: bool) -> Result<(), PlayDenied> {
        if self.bypasses() {
            return Ok(());
        }
        if self.rules.is_disabled(id) {
            return Err(PlayDenied::Disabled { id: id.to_owned() });
        }
        if !standalone && !self.has(EMOTE_MANAGE) {
            return Err(PlayDenied::NotStandalone { id: id.to_owned() });
        }
        let required = self.required_nodes(id);
        let needed: Vec<&str> = if required.is_empty() {
            vec![EMOTE_DEFAULT]
        } else {
            required
        };
        if needed.iter().any(|n| self.has(n)) {
            Ok(())
        } else {
            Err(PlayDenied::MissingNode {
                id: id.to_owned(),
                nodes: needed.into_iter().map(str::to_owned).collect(),
            })
        }
    }

    /// The factor for the emote's cooldown: from the first emote group that
    /// matches `id`, sets a multiplier and is held by the player; else 1.
    pub fn cooldown_multiplier(&self, id: &str) -> f32 {
        self.rules
            .emote_groups
            .iter()
            .filter(|g| g.node.as_deref().is_none_or(|n| self.has(n)))
            .filter(|g| g.emotes.iter().any(|p| glob_matches(p, id)))
            .find_map(|g| g.cooldown_multiplier)
            .unwrap_or(1.0)
    }

    /// The loaded emotes this player may play themself (what
    /// [`Self::may_play`] allows, with each file's `standalone`), in
    /// library order: what `/emote list`, tab completion and the wheel show.
    pub fn playable<'l>(
        &'l self,
        library: &'l Library,
    ) -> impl Iterator<Item = (&'l EmoteId, &'l LoadedEmote)> + 'l {
        library
            .iter()
            .filter(move |(id, e)| self.may_play(id.as_str(), e.file.is_standalone()).is_ok())
    }

    /// The request that plays `emote` of `library` for `client`, the
    /// player these permissions are of, as they picked it themself (a
    /// command or the wheel), or why [`Self::may_play`] refuses it. An id
    /// that is not loaded counts as standalone and goes on, so that the
    /// playback answers it. The request skips the cooldown and standalone
    /// checks for players who bypass them, and carries the cooldown factor
    /// of their emote groups.
    pub fn play_request(
        &self,
        client: valence::prelude::Entity,
        emote: EmoteId,
        library: &Library,
    ) -> Result<PlayEmoteRequest, PlayDenied> {
        let standalone = library
            .get(emote.as_str())
            .is_none_or(|e| e.file.is_standalone());
        self.may_play(emote.as_str(), standalone)?;
        Ok(PlayEmoteRequest {
            client,
            cooldown_multiplier: self.cooldown_multiplier(emote.as_str()),
            quiet: false,
            emote,
            bypass: self.bypasses() || !standalone,
        })
    }

    /// The player's idle rule: from the first emote group that has `idle`
    /// and is held by the player (it has no `node`, or the player holds
    /// it), with that group's index in `emote_groups`.
    pub fn idle_rule(&self) -> Option<(usize, &'a IdleSetting)> {
        self.rules
            .emote_groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.node.as_deref().is_none_or(|n| self.has(n)))
            .find_map(|(index, g)| Some((index, g.idle.as_ref()?)))
    }
}

/// What the permission tests here and in [`crate::server::commands`] share.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A player known by name only (UUID nil), for the name-list rules.
    pub(crate) fn named(name: &str) -> PlayerIdentity<'_> {
        PlayerIdentity {
            name,
            uuid: Uuid::nil(),
        }
    }

    /// Rules as TOML in which the group `vip` gives the player `Vip` the
    /// node `emote.play.vip`, which the emotes matching `emotes` (a
    /// pattern such as `vip:*`) require.
    pub(crate) fn vip_rules_toml(emotes: &str) -> String {
        format!(
            r#"
            [groups.vip]
            players = ["Vip"]
            nodes = ["emote.play.vip"]
            [[emote_groups]]
            emotes = ["{emotes}"]
            node = "emote.play.vip"
            "#
        )
    }
}

#[cfg(test)]
mod tests;
