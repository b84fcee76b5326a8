//! Spreading a viewer's arrivals over ticks ("Arrivals" in the module
//! docs): the cells a viewer newly comes into reach of are shown nearest
//! first, at most `[emotes] viewer_spawns_per_tick` displays a tick.

/// What one viewer may still be spawned this tick, through the cells it is
/// newly shown, taken nearest cell first.
///
/// The first cell is always shown, however many displays it holds: a cell
/// is one entity layer, and valence spawns a layer whole. Once a cell is
/// refused every farther one waits too, so a viewer's arrivals come in
/// order of distance even where a farther cell would have fitted.
#[derive(Clone, Copy, Debug)]
pub(super) struct SpawnBudget {
    /// Displays still allowed this tick; `None`: no limit.
    left_displays: Option<usize>,
    /// True until a cell is shown this tick.
    nothing_shown: bool,
    /// True once a cell was refused this tick.
    refused: bool,
}

impl SpawnBudget {
    /// A tick's budget of `displays_per_tick` displays (0: no limit).
    pub(super) fn new(displays_per_tick: u32) -> Self {
        Self {
            left_displays: (displays_per_tick > 0)
                .then(|| usize::try_from(displays_per_tick).unwrap_or(usize::MAX)),
            nothing_shown: true,
            refused: false,
        }
    }

    /// Whether the next nearest new cell, holding `displays` displays, is
    /// shown this tick (and if so, takes them from the budget).
    pub(super) fn admit(&mut self, displays: usize) -> bool {
        let Some(left) = self.left_displays else {
            return true;
        };
        let fits = !self.refused && (self.nothing_shown || displays <= left);
        if fits {
            self.left_displays = Some(left.saturating_sub(displays));
            self.nothing_shown = false;
        } else {
            self.refused = true;
        }
        fits
    }

    /// True when a cell was refused, so the viewer has cells waiting.
    pub(super) fn refused(&self) -> bool {
        self.refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_shown_nearest_first_until_the_budget_is_spent() {
        let mut budget = SpawnBudget::new(20);
        assert!(budget.admit(16));
        assert!(budget.admit(4), "exactly the budget");
        assert!(!budget.admit(1), "nothing left");
        assert!(budget.refused());
        // A new tick.
        let mut budget = SpawnBudget::new(20);
        assert!(budget.admit(16));
        assert!(!budget.admit(16));
        assert!(
            !budget.admit(2),
            "a farther cell that would fit waits behind a nearer one"
        );
    }

    #[test]
    fn the_first_cell_comes_whole_however_large() {
        let mut budget = SpawnBudget::new(20);
        assert!(budget.admit(16_000));
        assert!(budget.admit(0), "an empty cell costs nothing");
        assert!(!budget.admit(1), "nothing left after it");
        assert!(budget.refused());
    }

    #[test]
    fn no_limit_shows_everything() {
        let mut budget = SpawnBudget::new(0);
        assert!((0..1000).all(|_| budget.admit(10_000)));
        assert!(!budget.refused());
        let mut budget = SpawnBudget::new(20);
        assert!(budget.admit(3) && budget.admit(3));
        assert!(!budget.refused());
    }
}
