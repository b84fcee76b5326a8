//! A tick of a controller playback: the machines step, the clips they
//! show are mixed onto the body, the events they crossed are queued, and a
//! transition to `exit` ends the playback. The body clip's own clock only
//! counts ticks (its events never run).

use super::advance::{PlaybackEnd, TickOutcome};
use super::due::DueCommand;
use super::PlaybackState;
use crate::anim::SampleError;
use crate::playback::controlled::Motion;

impl PlaybackState {
    /// Feeds the player's motion to a controller playback (nothing for
    /// other emotes).
    pub fn observe_motion(&mut self, motion: &Motion) {
        if let Some(controller) = &mut self.controller {
            controller.observe(motion);
        }
    }

    /// One tick of a controller playback.
    pub(super) fn advance_controller(
        &mut self,
        wall: u64,
        due: &mut Vec<DueCommand>,
    ) -> TickOutcome {
        let failed = |e: SampleError| TickOutcome {
            end: Some(match e {
                SampleError::MolangBudgetExceeded { .. } => PlaybackEnd::OverBudget(e.to_string()),
                _ => PlaybackEnd::Failed(e.to_string()),
            }),
            cycle_completed: None,
        };
        let Some(controller) = self.controller.as_mut() else {
            return TickOutcome::default();
        };
        let roots = self.roots;
        let step = self.current.clock.step(wall);
        let stepped = match controller.step(&self.current.compiled, &mut self.current.pose) {
            Ok(stepped) => stepped,
            Err(e) => return failed(e),
        };
        if let Some(live) = &mut self.current.live {
            live.solve(&self.current.compiled, &mut self.current.pose, &roots);
        }
        self.current.frame_of_pose(&roots, &mut self.frame);
        self.position_ticks = Some(step.position_ticks);
        if let Some(controller) = &self.controller {
            self.queue_events(controller.fired_events().map(|e| &e.event), due);
        }
        TickOutcome {
            end: stepped.exited.then_some(PlaybackEnd::Finished),
            cycle_completed: Some(false),
        }
    }
}
