//! The phase machine: one tick of a playback, and the start of each
//! segment (a transition into its first pose when the Sequence asks for
//! one).

use std::collections::VecDeque;

use glam::Mat4;

use super::due::{queue_group, DueCommand, EventGroup};
use super::PlaybackState;
use crate::anim::DisplayTransform;
use crate::format::sequence::Step;
use crate::playback::playing::{Phase, PlayMode, Playing, SpaceRoots};
use crate::playback::sequence::{self, Segment, StepRng};

/// Why a playback ended on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlaybackEnd {
    /// The last segment finished.
    Finished,
    /// Molang failed: a non-finite value.
    Failed(String),
    /// Molang ran out of its operation budget (counted apart in the
    /// server's metrics).
    OverBudget(String),
}

/// What one tick of the phase machine did besides updating the frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TickOutcome {
    /// The playback ends (its last pose is still drawn this tick when it
    /// finished).
    pub end: Option<PlaybackEnd>,
    /// The timeline ran this tick; `true` when the current cycle completed
    /// (a two-player offer's cycle decides when a timeout may fire).
    pub cycle_completed: Option<bool>,
}

impl PlaybackState {
    /// The seed of the next segment.
    fn segment_seed(&mut self) -> u64 {
        self.segments_started += 1;
        self.seed
            .wrapping_add(self.segments_started.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// One tick at wall tick `wall`: updates [`Self::frame`] and pushes the
    /// commands due onto `due`.
    pub fn advance(&mut self, wall: u64, due: &mut Vec<DueCommand>) -> TickOutcome {
        self.position_ticks = None;
        self.cycle_started = false;
        let mut outcome = TickOutcome::default();
        match &mut self.phase {
            Phase::Hold { left_ticks } => {
                *left_ticks = left_ticks.saturating_sub(1);
                if *left_ticks == 0 && !self.start_next_segment() {
                    outcome.end = Some(PlaybackEnd::Finished);
                } else if matches!(self.phase, Phase::Hold { .. }) {
                    // A held pose still follows the look.
                    self.current.resolve(&mut self.frame, &self.roots);
                }
            }
            Phase::Transition {
                from,
                to,
                done_ticks,
                total_ticks,
            } => {
                *done_ticks += 1;
                let t = *done_ticks as f32 / (*total_ticks).max(1) as f32;
                for ((slot, from), to) in self.frame.iter_mut().zip(from.iter()).zip(to.iter()) {
                    // Only nodes shown on both sides move; visibility
                    // changes when the transition ends.
                    if let (Some(a), Some(b)) = (from, to) {
                        *slot = Some(a.interpolate(b, t).to_matrix());
                    }
                }
                if *done_ticks >= *total_ticks {
                    self.phase = Phase::Timeline;
                }
            }
            Phase::Timeline if self.controller.is_some() => {
                outcome = self.advance_controller(wall, due);
            }
            Phase::Timeline => {
                outcome = self.advance_timeline(wall, due);
            }
        }
        outcome
    }

    /// A tick of the current Animation's timeline.
    fn advance_timeline(&mut self, wall: u64, due: &mut Vec<DueCommand>) -> TickOutcome {
        let failed = |e: crate::anim::SampleError| TickOutcome {
            end: Some(match e {
                crate::anim::SampleError::MolangBudgetExceeded { .. } => {
                    PlaybackEnd::OverBudget(e.to_string())
                }
                _ => PlaybackEnd::Failed(e.to_string()),
            }),
            cycle_completed: None,
        };
        let roots = self.roots;
        self.stale_pose = None;
        let step = match self.current.advance_clock(wall) {
            Ok(step) => step,
            Err(e) => return failed(e),
        };
        // A planned cycle of a position-pure Animation needs no pose on its
        // quiet ticks: the client draws the plan. Cycle starts (which
        // plan), events (node origins), ends (transitions) and the first
        // tick sample as usual.
        // A plan still being joined streams some nodes: it samples.
        let quiet = self
            .schedule
            .as_ref()
            .is_some_and(|schedule| schedule.joining.is_none())
            && self.current.live.is_none()
            && self.current.is_position_pure()
            && !step.cycle_started
            && !step.loop_completed
            && !step.finished
            && self
                .current
                .events_in(step.timeline_events.as_ref())
                .next()
                .is_none()
            && self.current.clock.elapsed_ticks() > 1;
        if quiet {
            self.stale_pose = Some((step.position_ticks, roots));
            // The NBT selectors get this tick's budget, as after sampling.
            self.current.molang.session.refill_ops();
        } else if let Err(e) =
            self.current
                .sample(step.position_ticks, step.advancing, &mut self.frame, &roots)
        {
            return failed(e);
        }
        // NBT keys are events at their ticks: applied on quiet ticks too.
        if let Err(e) = self.apply_nbt(step.position_ticks, step.cycle_started) {
            return failed(e);
        }
        self.position_ticks = Some(step.position_ticks);
        self.cycle_started = step.cycle_started;
        if self.current.clock.elapsed_ticks() == 1 {
            queue_group(self, EventGroup::Start, due);
        }
        let timeline_events = self.current.events_in(step.timeline_events.as_ref());
        self.queue_events(timeline_events, due);
        let cycle_done = step.loop_completed || (step.finished && self.current.loops_in_sequence);
        if cycle_done {
            queue_group(self, EventGroup::Loop, due);
        }
        let mut outcome = TickOutcome {
            end: None,
            cycle_completed: Some(step.loop_completed),
        };
        if step.finished {
            // The outgoing segment's `stop` runs before the next one's `start`.
            self.fire_stop(due);
            if !self.start_next_segment() {
                outcome.end = Some(PlaybackEnd::Finished);
            }
        }
        outcome
    }

    /// Plays a two-player branch (`matched` or `timeout`) after the offer:
    /// its steps are resolved now and the first one transitions from the
    /// offer's pose. `false` when the branch picked nothing to play.
    pub fn begin_branch(&mut self, steps: &[Step], roots: SpaceRoots) -> bool {
        self.roots = roots;
        let animations = &self.animations;
        let loop_delay = |reference: &crate::format::EmoteId| {
            animations
                .get(reference)?
                .compiled
                .runtime
                .loop_delay_between_cycles()
        };
        let mut rng = StepRng::new(self.seed ^ 0x5EED_0FB7_A4C4);
        let segments = sequence::resolve(steps, &loop_delay, &mut rng, true);
        self.queue = VecDeque::from(segments);
        self.start_next_segment()
    }

    /// Starts the next segment; `false` when there is none left.
    pub fn start_next_segment(&mut self) -> bool {
        self.refresh_pose();
        loop {
            let Some(segment) = self.queue.pop_front() else {
                return false;
            };
            match segment {
                Segment::Hold { ticks, .. } => {
                    self.phase = Phase::Hold { left_ticks: ticks };
                    return true;
                }
                Segment::Play {
                    animation,
                    transition_ticks,
                    ..
                } => {
                    let Some(playable) = self.animations.get(&animation).cloned() else {
                        continue; // cannot happen: every reference was looked up at start
                    };
                    let seed = self.segment_seed();
                    let mut next = Playing::new(
                        animation,
                        &playable,
                        &self.union.ids,
                        PlayMode::OneCycle,
                        seed,
                    );
                    next.set_live_inputs(&self.live_inputs);
                    // Matched participants stay where they were placed.
                    if !self.partner_matched {
                        self.yaw
                            .set_deadzone(next.runtime().rotation_deadzone_degrees);
                    }
                    self.phase = if transition_ticks > 0 {
                        let to = next.preview_first_frame(self.union.len(), &self.roots);
                        Phase::Transition {
                            from: split(&self.frame),
                            to: split(&to),
                            done_ticks: 0,
                            total_ticks: transition_ticks,
                        }
                    } else {
                        Phase::Timeline
                    };
                    self.current = next;
                    return true;
                }
            }
        }
    }
}

/// Root-frame matrices as display transformations.
fn split(frame: &[Option<Mat4>]) -> Vec<Option<DisplayTransform>> {
    frame
        .iter()
        .map(|m| m.map(|m| DisplayTransform::from_matrix(&m)))
        .collect()
}
