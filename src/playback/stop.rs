//! The seven stop conditions, tested against what the server observed of a
//! player during one tick. Detecting the observations (vanilla's jump test,
//! eyes in water, damage...) is the server's job; deciding is here.

use crate::format::settings::StopConditions;

/// What happened to a participant this tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlayerObservation {
    /// Feet position (x, z) in blocks.
    pub horizontal_position: [f64; 2],
    /// The player jumped (vanilla: left the ground moving up with the jump velocity).
    pub jumped: bool,
    /// The eyes are in water.
    pub eyes_in_water: bool,
    /// The player rides an entity.
    pub riding: bool,
    /// The player took damage.
    pub damaged: bool,
    /// The player attacked an entity.
    pub attacked: bool,
    /// The player's game mode changed.
    pub game_mode_changed: bool,
}

/// Why a playback stopped by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// Moved past `movement_distance` (horizontally, from the start).
    Moved,
    /// Jumped.
    Jumped,
    /// Eyes went under water.
    Submerged,
    /// Started riding.
    Rode,
    /// Took damage.
    Damaged,
    /// Attacked.
    Attacked,
    /// Game mode changed.
    GameModeChanged,
}

impl StopReason {
    /// A short phrase for chat and logs, told to the player it happened to
    /// ("you moved").
    pub fn describe(self) -> &'static str {
        self.phrases().0
    }

    /// The same phrase told to the other player of a two-player Sequence
    /// ("your partner moved").
    pub fn describe_partner(self) -> &'static str {
        self.phrases().1
    }

    /// (To the player it happened to, to their partner): one line per
    /// condition, so that the two phrases cannot drift apart.
    fn phrases(self) -> (&'static str, &'static str) {
        match self {
            StopReason::Moved => ("you moved", "your partner moved"),
            StopReason::Jumped => ("you jumped", "your partner jumped"),
            StopReason::Submerged => ("you went under water", "your partner went under water"),
            StopReason::Rode => ("you started riding", "your partner started riding"),
            StopReason::Damaged => ("you were hit", "your partner was hit"),
            StopReason::Attacked => ("you attacked", "your partner attacked"),
            StopReason::GameModeChanged => {
                ("your game mode changed", "your partner's game mode changed")
            }
        }
    }
}

/// Checks one participant against an emote's stop conditions.
#[derive(Clone, Copy, Debug)]
pub struct StopMonitor {
    conditions: StopConditions,
    start: [f64; 2],
}

impl StopMonitor {
    /// Starts watching a participant standing at `start` (x, z).
    pub fn new(conditions: StopConditions, start: [f64; 2]) -> Self {
        Self { conditions, start }
    }

    /// The first condition met this tick, in the order the file lists them.
    pub fn check(&self, seen: &PlayerObservation) -> Option<StopReason> {
        let c = &self.conditions;
        let dx = seen.horizontal_position[0] - self.start[0];
        let dz = seen.horizontal_position[1] - self.start[1];
        let limit = f64::from(c.movement_distance_blocks);
        if limit > 0.0 && dx * dx + dz * dz > limit * limit {
            return Some(StopReason::Moved);
        }
        [
            (c.jump && seen.jumped, StopReason::Jumped),
            (c.submerge && seen.eyes_in_water, StopReason::Submerged),
            (c.ride && seen.riding, StopReason::Rode),
            (c.damage && seen.damaged, StopReason::Damaged),
            (c.attack && seen.attacked, StopReason::Attacked),
            (
                c.game_mode_change && seen.game_mode_changed,
                StopReason::GameModeChanged,
            ),
        ]
        .into_iter()
        .find_map(|(hit, reason)| hit.then_some(reason))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_on(distance: f32) -> StopConditions {
        StopConditions {
            movement_distance_blocks: distance,
            jump: true,
            submerge: true,
            ride: true,
            damage: true,
            attack: true,
            game_mode_change: true,
        }
    }

    #[test]
    fn movement_is_horizontal_from_the_start() {
        let m = StopMonitor::new(all_on(1.0), [10.0, 10.0]);
        let at = |x, z| PlayerObservation {
            horizontal_position: [x, z],
            ..Default::default()
        };
        assert_eq!(m.check(&at(10.9, 10.0)), None);
        assert_eq!(m.check(&at(10.6, 10.6)), None);
        assert_eq!(m.check(&at(10.8, 10.8)), Some(StopReason::Moved));
        let off = StopMonitor::new(all_on(0.0), [0.0, 0.0]);
        assert_eq!(
            off.check(&at(100.0, 0.0)),
            None,
            "0 disables the distance check"
        );
    }

    #[test]
    fn each_flag_stops_only_when_enabled() {
        // Each observation flag, and the reason it stops a playback for.
        type Flag = fn(&mut PlayerObservation) -> &mut bool;
        let flags: [(Flag, StopReason); 6] = [
            (|o| &mut o.jumped, StopReason::Jumped),
            (|o| &mut o.eyes_in_water, StopReason::Submerged),
            (|o| &mut o.riding, StopReason::Rode),
            (|o| &mut o.damaged, StopReason::Damaged),
            (|o| &mut o.attacked, StopReason::Attacked),
            (|o| &mut o.game_mode_changed, StopReason::GameModeChanged),
        ];
        let seen = flags.map(|(flag, reason)| {
            let mut observation = PlayerObservation::default();
            *flag(&mut observation) = true;
            (observation, reason)
        });
        let on = StopMonitor::new(all_on(0.0), [0.0, 0.0]);
        let off = StopMonitor::new(StopConditions::default(), [0.0, 0.0]);
        for (observation, reason) in seen {
            assert_eq!(on.check(&observation), Some(reason));
            assert_eq!(off.check(&observation), None);
        }
    }
}
