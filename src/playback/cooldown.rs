//! Cooldowns per player and emote, counted from the tick a playback begins
//! successfully (the specification's rule).

use std::collections::HashMap;
use std::hash::Hash;

/// Remembers when each (player, emote) may play again.
#[derive(Clone, Debug)]
pub struct Cooldowns<P, E> {
    ready_at_tick: HashMap<(P, E), u64>,
}

impl<P, E> Default for Cooldowns<P, E> {
    fn default() -> Self {
        Self {
            ready_at_tick: HashMap::new(),
        }
    }
}

impl<P: Hash + Eq + Clone, E: Hash + Eq + Clone> Cooldowns<P, E> {
    /// Ticks left before `player` may play `emote` again (0 when ready).
    pub fn remaining_ticks(&self, player: &P, emote: &E, now_tick: u64) -> u64 {
        self.ready_at_tick
            .get(&(player.clone(), emote.clone()))
            .map_or(0, |&ready| ready.saturating_sub(now_tick))
    }

    /// Records that a playback began now; `cooldown_ticks` 0 records nothing.
    pub fn start(&mut self, player: P, emote: E, now_tick: u64, cooldown_ticks: u32) {
        if cooldown_ticks > 0 {
            self.ready_at_tick
                .insert((player, emote), now_tick + u64::from(cooldown_ticks));
        }
    }

    /// Forgets cooldowns that have run out (call now and then to bound memory).
    pub fn prune(&mut self, now_tick: u64) {
        self.ready_at_tick.retain(|_, &mut ready| ready > now_tick);
    }

    /// Forgets every cooldown of one player (e.g. when they leave).
    pub fn forget_player(&mut self, player: &P) {
        self.ready_at_tick.retain(|(p, _), _| p != player);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_from_start_per_player_and_emote() {
        let mut c: Cooldowns<u8, &str> = Cooldowns::default();
        assert_eq!(c.remaining_ticks(&1, &"wave", 100), 0);
        c.start(1, "wave", 100, 40);
        assert_eq!(c.remaining_ticks(&1, &"wave", 100), 40);
        assert_eq!(c.remaining_ticks(&1, &"wave", 139), 1);
        assert_eq!(c.remaining_ticks(&1, &"wave", 140), 0);
        assert_eq!(
            c.remaining_ticks(&2, &"wave", 100),
            0,
            "other players are free"
        );
        assert_eq!(
            c.remaining_ticks(&1, &"bow", 100),
            0,
            "other emotes are free"
        );
        c.start(1, "bow", 100, 0);
        assert_eq!(c.remaining_ticks(&1, &"bow", 100), 0);
        c.prune(140);
        assert!(c.ready_at_tick.is_empty());
    }
}
