//! A tick of a controller playback: the machines step, the clips they
//! show are mixed onto the body, the events they crossed are queued, and a
//! transition to `exit` ends the playback. The body clip's own clock only
//! counts ticks (its events never run).

use super::advance::{PlaybackEnd, TickOutcome};
use super::due::DueCommand;
use super::PlaybackState;
use crate::anim::SampleError;
use crate::playback::controlled::Motion;

/// How far a walking body may get from its displays' place before they
/// are moved to it, blocks (horizontally; vertically half of it).
pub const REANCHOR_BLOCKS: f32 = 8.0;

impl PlaybackState {
    /// A controller playback's body is at `feet` now: it is drawn there by
    /// carrying the way from the root in every node's transformation
    /// ([`PlaybackState::walk_offset`]). Past [`REANCHOR_BLOCKS`] the root
    /// itself moves to `feet` (returns true: move the displays there), and
    /// this tick's updates snap. Nothing for other emotes.
    pub fn follow_to(&mut self, feet: glam::DVec3) -> bool {
        if self.controller.is_none() {
            return false;
        }
        let offset = (feet - self.root).as_vec3();
        let far = glam::Vec2::new(offset.x, offset.z).length() > REANCHOR_BLOCKS
            || offset.y.abs() > REANCHOR_BLOCKS / 2.0;
        if far {
            self.root = feet;
            self.walk_offset = glam::Vec3::ZERO;
            self.reanchored = true;
        } else {
            self.walk_offset = offset;
        }
        far
    }

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
