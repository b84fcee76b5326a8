//! Per-player rate limits for commands and tab completion (governor's
//! GCRA token buckets).

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use valence::prelude::*;

use crate::server::config::CommandsSection;

/// A rate: so many per second on average, `burst` at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimit {
    /// Average per second; 0 (or less) means no limit.
    pub per_second: f64,
    /// How many may come at once.
    pub burst: u32,
}

impl RateLimit {
    /// The command limit of `[commands]`.
    pub fn commands(section: &CommandsSection) -> Self {
        Self {
            per_second: section.rate_per_second,
            burst: section.burst,
        }
    }

    /// The tab-completion limit of `[commands]`.
    pub fn completions(section: &CommandsSection) -> Self {
        Self {
            per_second: section.completions_per_second,
            burst: section.completion_burst,
        }
    }

    /// governor's quota; `None` when there is no limit.
    pub(super) fn quota(self) -> Option<Quota> {
        if !self.per_second.is_finite() || self.per_second <= 0.0 {
            return None;
        }
        let period = Duration::from_secs_f64(1.0 / self.per_second);
        let burst = NonZeroU32::new(self.burst.max(1))?;
        Quota::with_period(period).map(|q| q.allow_burst(burst))
    }
}

/// One token bucket (a GCRA rate limiter) and the limit it was made for.
pub struct Bucket<C: Clock = DefaultClock> {
    pub(super) limit: RateLimit,
    pub(super) clock: C,
    pub(super) limiter: Option<RateLimiter<NotKeyed, InMemoryState, C, NoOpMiddleware<C::Instant>>>,
}

impl<C: Clock + Clone> Bucket<C> {
    /// A full bucket for `limit`, timed by `clock`.
    pub fn new(limit: RateLimit, clock: C) -> Self {
        let limiter = limit
            .quota()
            .map(|q| RateLimiter::direct_with_clock(q, clock.clone()));
        Self {
            limit,
            clock,
            limiter,
        }
    }

    /// The limit this bucket enforces.
    pub fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Takes one token, or says how long until one is there.
    pub fn take(&self) -> Result<(), Duration> {
        match &self.limiter {
            None => Ok(()),
            Some(limiter) => limiter
                .check()
                .map_err(|not_until| not_until.wait_time_from(self.clock.now())),
        }
    }
}

/// One player's buckets.
pub(super) struct PlayerBuckets {
    pub(super) commands: Bucket,
    pub(super) completions: Bucket,
}

/// Every online player's command and completion rate limits. A bucket is
/// made on the player's first request and made again (full) when a reload
/// changes its limit; it is forgotten when the player leaves.
#[derive(Resource, Default)]
pub struct CommandRateLimits {
    pub(super) players: HashMap<Entity, PlayerBuckets>,
}

impl CommandRateLimits {
    pub(super) fn buckets(
        &mut self,
        player: Entity,
        section: &CommandsSection,
    ) -> &mut PlayerBuckets {
        let commands = RateLimit::commands(section);
        let completions = RateLimit::completions(section);
        let buckets = self.players.entry(player).or_insert_with(|| PlayerBuckets {
            commands: Bucket::new(commands, DefaultClock::default()),
            completions: Bucket::new(completions, DefaultClock::default()),
        });
        if buckets.commands.limit() != commands {
            buckets.commands = Bucket::new(commands, DefaultClock::default());
        }
        if buckets.completions.limit() != completions {
            buckets.completions = Bucket::new(completions, DefaultClock::default());
        }
        buckets
    }
}

pub(super) fn forget_rate_limits_of_leavers(
    mut removed: RemovedComponents<Client>,
    mut limits: ResMut<CommandRateLimits>,
) {
    for entity in removed.iter() {
        limits.players.remove(&entity);
    }
}

/// The "Slow down" message for a player over the command limit.
pub fn slow_down_message(limit: RateLimit, wait: Duration) -> String {
    format!(
        "Slow down: you may run {} commands a second ({} at once). Try again in {:.1} s.",
        limit.per_second,
        limit.burst,
        wait.as_secs_f64().max(0.1)
    )
}
