//! The rotation deadzone: a display root follows its player's yaw only when
//! the player has turned further than the deadzone from where the root faces,
//! then turns to the player's yaw over 3 ticks.
//!
//! `0` follows every change at once (no interpolation); `180` never turns
//! (a yaw difference is at most 180°). Where the specification is silent we
//! turn to the player's **current** yaw, not only by the excess.

/// Ticks a root takes to turn to a new yaw.
pub const TURN_TICKS: u32 = 3;

/// Follows a player's yaw through the deadzone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct YawFollower {
    deadzone_degrees: f32,
    /// The yaw the root shows now.
    current_degrees: f32,
    /// The turn in progress: from, to, ticks done.
    turn: Option<(f32, f32, u32)>,
}

/// The signed difference `to − from`, wrapped into `(−180, 180]`.
pub fn yaw_difference(from: f32, to: f32) -> f32 {
    let d = (to - from).rem_euclid(360.0);
    if d > 180.0 {
        d - 360.0
    } else {
        d
    }
}

impl YawFollower {
    /// A root facing `start_yaw_degrees`.
    pub fn new(deadzone_degrees: f32, start_yaw_degrees: f32) -> Self {
        Self {
            deadzone_degrees,
            current_degrees: start_yaw_degrees,
            turn: None,
        }
    }

    /// Changes the deadzone (a Sequence's next step brings its own); a turn
    /// in progress finishes.
    pub fn set_deadzone(&mut self, deadzone_degrees: f32) {
        self.deadzone_degrees = deadzone_degrees;
    }

    /// The root's yaw now.
    pub fn yaw_degrees(&self) -> f32 {
        self.current_degrees
    }

    /// True while a turn is being interpolated.
    pub fn is_turning(&self) -> bool {
        self.turn.is_some()
    }

    /// Advances one tick with the player's yaw; returns the root's yaw.
    pub fn step(&mut self, player_yaw_degrees: f32) -> f32 {
        let target = match self.turn {
            Some((_, to, _)) => to,
            None => self.current_degrees,
        };
        let gap = yaw_difference(target, player_yaw_degrees).abs();
        if self.deadzone_degrees <= 0.0 {
            self.current_degrees = player_yaw_degrees;
            self.turn = None;
            return self.current_degrees;
        }
        if gap > self.deadzone_degrees {
            self.turn = Some((self.current_degrees, player_yaw_degrees, 0));
        }
        if let Some((from, to, done)) = self.turn {
            let done = done + 1;
            let fraction = done as f32 / TURN_TICKS as f32;
            self.current_degrees = from + yaw_difference(from, to) * fraction;
            self.turn = (done < TURN_TICKS).then_some((from, to, done));
            if self.turn.is_none() {
                self.current_degrees = to;
            }
        }
        self.current_degrees
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_wrap() {
        assert_eq!(yaw_difference(170.0, -170.0), 20.0);
        assert_eq!(yaw_difference(-170.0, 170.0), -20.0);
        assert_eq!(yaw_difference(0.0, 180.0), 180.0);
        assert_eq!(yaw_difference(10.0, 370.0), 0.0);
    }

    #[test]
    fn inside_the_deadzone_nothing_turns() {
        let mut f = YawFollower::new(50.0, 0.0);
        for yaw in [10.0, -30.0, 49.0, -50.0] {
            assert_eq!(f.step(yaw), 0.0);
        }
    }

    #[test]
    fn past_the_deadzone_it_turns_over_three_ticks() {
        let mut f = YawFollower::new(50.0, 0.0);
        assert!((f.step(90.0) - 30.0).abs() < 1e-4);
        assert!((f.step(90.0) - 60.0).abs() < 1e-4);
        assert!((f.step(90.0) - 90.0).abs() < 1e-4);
        assert!(!f.is_turning());
        assert_eq!(
            f.step(100.0),
            90.0,
            "back inside the deadzone of the new heading"
        );
    }

    #[test]
    fn turns_the_short_way_across_the_seam() {
        let mut f = YawFollower::new(10.0, 170.0);
        f.step(-170.0);
        f.step(-170.0);
        assert!((yaw_difference(f.step(-170.0), -170.0)).abs() < 1e-4);
    }

    #[test]
    fn zero_follows_at_once_and_180_never_turns() {
        let mut zero = YawFollower::new(0.0, 0.0);
        assert_eq!(zero.step(33.0), 33.0);
        let mut never = YawFollower::new(180.0, 0.0);
        assert_eq!(never.step(180.0), 0.0);
        assert_eq!(never.step(-179.0), 0.0);
    }
}
