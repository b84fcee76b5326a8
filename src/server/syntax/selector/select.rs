//! Picking the entities a [`Selector`] names from the candidates, as
//! vanilla orders and limits them.

use valence::entity::EntityKind;
use valence::prelude::{DVec3, Entity};

use super::types::*;

impl Selector {
    pub(super) fn new(base: SelectorBase, text: &str) -> Self {
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

    pub(super) fn check_applicable(&self) -> Result<(), SelectorError> {
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

    /// True for a plain `@a`: every player, wherever it is, in any order.
    pub fn selects_every_player(&self) -> bool {
        self.base == SelectorBase::AllPlayers
            && self.limit.is_none()
            && self.sort.is_none()
            && self.distance.is_none()
            && self.center.iter().all(Option::is_none)
            && self.volume.iter().all(Option::is_none)
            && self.names.is_empty()
            && self.types.is_empty()
            && self.game_modes.is_empty()
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
