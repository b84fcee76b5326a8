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

mod parse;
mod select;
#[cfg(test)]
mod tests;
mod types;

pub use parse::{entity_kind, parse_range, parse_target};
pub use types::{
    Candidate, DistanceRange, Filter, SelectContext, Selector, SelectorBase, SelectorError,
    SelectorRng, Sort,
};
