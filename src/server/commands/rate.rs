//! Per-player rate limits for commands and tab completion (governor's
//! GCRA token buckets), keyed by the player's UUID: a player who leaves
//! and comes back finds their buckets as they left them, so reconnecting
//! does not refill them. The buckets of a player who is gone are
//! forgotten once they would be full again (`burst / rate` seconds after
//! their last use), when keeping them could no longer refuse anything.

use std::collections::{HashMap, HashSet};
use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use uuid::Uuid;
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

    /// How long an empty bucket takes to be full again (zero without a
    /// limit).
    pub fn refill_time(self) -> Duration {
        if !self.per_second.is_finite() || self.per_second <= 0.0 {
            return Duration::ZERO;
        }
        Duration::from_secs_f64(f64::from(self.burst.max(1)) / self.per_second)
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
    /// When either was last asked for.
    last_used: Instant,
}

impl PlayerBuckets {
    /// Whether both would be full again at `now`.
    fn refilled(&self, now: Instant) -> bool {
        let refill = self
            .commands
            .limit()
            .refill_time()
            .max(self.completions.limit().refill_time());
        now.saturating_duration_since(self.last_used) >= refill
    }
}

/// Every player's command and completion rate limits, by UUID (module
/// docs). A bucket is made on the player's first request and made again
/// (full) when a reload changes its limit.
#[derive(Resource, Default)]
pub struct CommandRateLimits {
    pub(super) players: HashMap<Uuid, PlayerBuckets>,
}

impl CommandRateLimits {
    pub(super) fn buckets(
        &mut self,
        player: Uuid,
        section: &CommandsSection,
    ) -> &mut PlayerBuckets {
        let commands = RateLimit::commands(section);
        let completions = RateLimit::completions(section);
        let buckets = self.players.entry(player).or_insert_with(|| PlayerBuckets {
            commands: Bucket::new(commands, DefaultClock::default()),
            completions: Bucket::new(completions, DefaultClock::default()),
            last_used: Instant::now(),
        });
        buckets.last_used = Instant::now();
        if buckets.commands.limit() != commands {
            buckets.commands = Bucket::new(commands, DefaultClock::default());
        }
        if buckets.completions.limit() != completions {
            buckets.completions = Bucket::new(completions, DefaultClock::default());
        }
        buckets
    }

    /// Forgets the buckets of players not `online` that would be full
    /// again at `now`.
    pub(super) fn forget_refilled(&mut self, online: &HashSet<Uuid>, now: Instant) {
        self.players
            .retain(|player, buckets| online.contains(player) || !buckets.refilled(now));
    }
}

/// How often the buckets of players who left are looked at: once a second.
const FORGET_EVERY_TICKS: i64 = 20;

/// Forgets the buckets of players who left, once full again (module docs).
pub(super) fn forget_rate_limits_of_leavers(
    server: Res<Server>,
    mut limits: ResMut<CommandRateLimits>,
    online: Query<&UniqueId, With<Client>>,
) {
    if server.current_tick() % FORGET_EVERY_TICKS != 0 || limits.players.is_empty() {
        return;
    }
    let online: HashSet<Uuid> = online.iter().map(|id| id.0).collect();
    limits.forget_refilled(&online, Instant::now());
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
