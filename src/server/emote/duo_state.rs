//! The state two-player Sequences keep: the offer and match on the
//! initiator's playback, the partner's marker, and the joins of a tick.

use std::collections::HashSet;

use crate::format::sequence::Participants;

use valence::prelude::*;

use crate::format::sequence::Step;
use crate::playback::session::TwoPlayerPlan;

/// Two-player state of a playback (on the initiator's [`ActiveEmote`](super::ActiveEmote)).
#[derive(Clone, Debug)]
pub struct Duo {
    pub(super) participants: Participants,
    pub(super) timeout_ticks: u32,
    pub(super) waited_ticks: u32,
    pub(super) matched: Vec<Step>,
    pub(super) timeout: Vec<Step>,
    pub(super) state: DuoState,
    /// The offer completed a cycle this tick (set by the playback).
    pub(crate) offer_cycle_ended: bool,
}

/// Where a two-player playback is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DuoState {
    /// The offer plays; a joiner may be reserved.
    Offering { reserved: Option<Entity> },
    /// Both play the `matched` branch.
    Matched { partner: Entity },
    /// Nobody joined: the `timeout` branch plays.
    Alone,
}

impl Duo {
    /// A fresh offer of `plan`.
    pub(crate) fn new(plan: TwoPlayerPlan) -> Self {
        Self {
            participants: plan.participants,
            timeout_ticks: plan.timeout_ticks,
            waited_ticks: 0,
            matched: plan.matched,
            timeout: plan.timeout,
            state: DuoState::Offering { reserved: None },
            offer_cycle_ended: false,
        }
    }

    /// True once a partner matched.
    pub fn is_matched(&self) -> bool {
        matches!(self.state, DuoState::Matched { .. })
    }

    /// The matched partner.
    pub fn partner(&self) -> Option<Entity> {
        match self.state {
            DuoState::Matched { partner } => Some(partner),
            _ => None,
        }
    }

    /// Where the playback is, as its players are told.
    pub fn stage(&self) -> DuoStage {
        match self.state {
            DuoState::Offering { reserved } => DuoStage::Waiting {
                ticks_left: self.timeout_ticks.saturating_sub(self.waited_ticks),
                joining: reserved,
            },
            DuoState::Matched { partner } => DuoStage::Matched { partner },
            DuoState::Alone => DuoStage::NobodyJoined,
        }
    }

    /// Whether the offer is open: nobody has joined or been reserved yet.
    pub(crate) fn is_open(&self) -> bool {
        self.state == DuoState::Offering { reserved: None }
    }
}

/// Where a two-player Sequence is, for what its players are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuoStage {
    /// The offer plays and waits for a partner.
    Waiting {
        /// Ticks until the offer times out.
        ticks_left: u32,
        /// A player who joined and waits for the offer's cycle to end.
        joining: Option<Entity>,
    },
    /// Both play the matched branch.
    Matched {
        /// The partner.
        partner: Entity,
    },
    /// Nobody joined in time: the timeout branch plays.
    NobodyJoined,
}

/// On the partner of a matched two-player playback.
#[derive(Component, Clone, Copy, Debug)]
pub struct EmotePartner {
    /// The initiator, whose [`ActiveEmote`](super::ActiveEmote) plays for both.
    pub initiator: Entity,
    pub(super) restore_layer: Option<Entity>,
}

/// Play requests taken by [`join_offers`](super::duo::join_offers) this tick (the playback start
/// skips them).
#[derive(Resource, Default, Debug)]
pub struct JoinedThisTick(pub HashSet<Entity>);
