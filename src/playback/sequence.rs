//! Resolving a Sequence's steps into the segments a playback runs, before
//! it runs them (`anchor-sequence-format.md` §4, §6, §9).
//!
//! ```text
//! steps:    [sit_down] [idle_a|idle_b|continue|break ×6, transition 5t] [wait 1s] [stand_up, 4t]
//! segments: Play(sit_down) Play(idle_b,5t) Play(idle_a,5t) Play(idle_b,5t) Wait(20) Play(stand_up,4t)
//!                          └─ rep 0 ──────┘└ rep 1 ───────┘ rep 2 = continue, rep 3 = break
//! ```
//!
//! Rules, and the choices where the spec is silent:
//! - every repetition of a step picks again; a weighted array is picked by
//!   weight, a bare array uniformly;
//! - when a step has more than one real Animation candidate, the Animation
//!   picked last **in this step** is left out of the next pick and the
//!   other weights share its chance (the exclusion does not carry across
//!   steps); control ids are never excluded;
//! - `emote:continue` uses up the repetition and plays nothing (no
//!   transition, no loop delay); `emote:break` ends the step;
//! - a `loop` Animation's `loop_delay` is held between two cycles of the
//!   same step (as a wait), never after the step's last cycle;
//! - `transition` runs before every real Animation the step plays, except
//!   the very first segment of a playback with no pose before it.
//!
//! The random source is a small seeded generator so tests (and the server,
//! seeded per playback) are reproducible.

use crate::format::sequence::{Candidate, EmoteChoice, Step};
use crate::format::EmoteId;
use crate::molang::MolangRng;

/// The seeded generator that picks steps: the same SplitMix64 as Molang's
/// `math.random` ([`MolangRng`]), with a bounded draw.
#[derive(Clone, Debug)]
pub struct StepRng(MolangRng);

impl StepRng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(MolangRng::new(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform number in `0..bound` (`bound` ≥ 1): [`MolangRng::below`].
    pub fn below(&mut self, bound: u32) -> u32 {
        self.0.below(bound)
    }
}

/// One resolved piece of a Sequence's playback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// One full cycle of an Animation.
    Play {
        /// Index of the step it came from (in its step list).
        step: usize,
        /// Zero-based repetition of that step.
        repetition: u32,
        /// The Animation.
        animation: EmoteId,
        /// Ticks moving the shared nodes from the previous pose first.
        transition_ticks: u32,
    },
    /// Hold the previous pose (a `wait` step, or a loop delay).
    Hold {
        /// Index of the step it came from.
        step: usize,
        /// How long.
        ticks: u32,
    },
}

impl Segment {
    /// Ticks this segment lasts, given each Animation's duration. A cycle
    /// shows ticks `0..=D`, so it lasts `D + 1` server ticks.
    pub fn length_ticks(&self, duration_of: impl Fn(&EmoteId) -> u32) -> u32 {
        match self {
            Segment::Play {
                animation,
                transition_ticks,
                ..
            } => transition_ticks + duration_of(animation) + 1,
            Segment::Hold { ticks, .. } => *ticks,
        }
    }
}

/// What [`resolve`] needs to know of each referenced Animation.
pub trait AnimationInfo {
    /// The loop delay between cycles for a `loop` Animation; `None` for
    /// other modes.
    fn loop_delay_ticks(&self, id: &EmoteId) -> Option<u32>;
}

impl<F: Fn(&EmoteId) -> Option<u32>> AnimationInfo for F {
    fn loop_delay_ticks(&self, id: &EmoteId) -> Option<u32> {
        self(id)
    }
}

/// What one pick gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Play this Animation.
    Animation(EmoteId),
    /// `emote:continue`.
    Continue,
    /// `emote:break`.
    Break,
}

/// Picks one candidate of `choice`, leaving out `last` when the choice has
/// more than one real Animation.
pub fn pick(choice: &EmoteChoice, last: Option<&EmoteId>, rng: &mut StepRng) -> Pick {
    let list = match choice {
        EmoteChoice::Single(reference) => return Pick::Animation(reference.id.clone()),
        EmoteChoice::Random(list) => list,
    };
    let real = list
        .iter()
        .filter(|(c, _)| matches!(c, Candidate::Animation(_)))
        .count();
    let excluded = |candidate: &Candidate| match (candidate, last) {
        (Candidate::Animation(r), Some(last)) => real > 1 && r.id == *last,
        _ => false,
    };
    let total: u32 = list
        .iter()
        .filter(|(c, _)| !excluded(c))
        .map(|(_, w)| *w)
        .sum();
    let mut ticket = rng.below(total.max(1));
    for (candidate, weight) in list.iter().filter(|(c, _)| !excluded(c)) {
        if ticket < *weight {
            return match candidate {
                Candidate::Animation(r) => Pick::Animation(r.id.clone()),
                Candidate::Continue => Pick::Continue,
                Candidate::Break => Pick::Break,
            };
        }
        ticket -= weight;
    }
    // Only reachable with all weights 0, which validation refuses.
    Pick::Break
}

/// Resolves linear `steps` (no `await_partner`; such a step is skipped)
/// into segments. `after_pose` says whether a pose precedes the first
/// segment (a two-player branch after its offer): then the first
/// Animation's transition runs too.
pub fn resolve(
    steps: &[Step],
    info: &dyn AnimationInfo,
    rng: &mut StepRng,
    after_pose: bool,
) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    for (step_index, step) in steps.iter().enumerate() {
        match step {
            Step::Wait { duration_ticks } => out.push(Segment::Hold {
                step: step_index,
                ticks: *duration_ticks,
            }),
            Step::Play {
                emote,
                repeat,
                transition_ticks,
            } => {
                let mut last: Option<EmoteId> = None;
                for repetition in 0..*repeat {
                    let animation = match pick(emote, last.as_ref(), rng) {
                        Pick::Animation(id) => id,
                        Pick::Continue => continue,
                        Pick::Break => break,
                    };
                    // The loop delay sits between two cycles of this step.
                    if let Some(previous) = &last {
                        if let Some(delay) = info.loop_delay_ticks(previous).filter(|d| *d > 0) {
                            if matches!(out.last(), Some(Segment::Play { step, .. }) if *step == step_index)
                            {
                                out.push(Segment::Hold {
                                    step: step_index,
                                    ticks: delay,
                                });
                            }
                        }
                    }
                    let has_pose_before = after_pose || !out.is_empty();
                    out.push(Segment::Play {
                        step: step_index,
                        repetition,
                        animation: animation.clone(),
                        transition_ticks: if has_pose_before {
                            *transition_ticks
                        } else {
                            0
                        },
                    });
                    last = Some(animation);
                }
            }
            Step::AwaitPartner { .. } => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::sequence::fixtures::{play, reference};

    fn id(s: &str) -> EmoteId {
        EmoteId::parse(s).expect("id")
    }

    fn weighted(list: &[(&str, u32)]) -> EmoteChoice {
        EmoteChoice::Random(
            list.iter()
                .map(|(name, w)| {
                    let candidate = match *name {
                        "emote:continue" => Candidate::Continue,
                        "emote:break" => Candidate::Break,
                        other => Candidate::Animation(reference(other)),
                    };
                    (candidate, *w)
                })
                .collect(),
        )
    }

    fn no_loops(_: &EmoteId) -> Option<u32> {
        None
    }

    #[test]
    fn weights_are_honoured_within_two_percent_over_ten_thousand_draws() {
        // With no exclusion (a single real candidate plus controls).
        let choice = weighted(&[("a:x", 60), ("emote:continue", 30), ("emote:break", 10)]);
        let mut rng = StepRng::new(42);
        let mut counts = [0u32; 3];
        for _ in 0..10_000 {
            match pick(&choice, None, &mut rng) {
                Pick::Animation(_) => counts[0] += 1,
                Pick::Continue => counts[1] += 1,
                Pick::Break => counts[2] += 1,
            }
        }
        for (count, expected) in counts.iter().zip([6_000.0, 3_000.0, 1_000.0]) {
            let share = f64::from(*count);
            assert!(
                (share - expected).abs() <= 200.0,
                "{counts:?} against 60/30/10 %"
            );
        }
    }

    #[test]
    fn the_last_pick_is_left_out_and_the_rest_share_its_chance() {
        // 50/30/20: after `a`, the next pick is b:c = 30:20 = 60%:40%.
        let choice = weighted(&[("a:a", 50), ("a:b", 30), ("a:c", 20)]);
        let mut rng = StepRng::new(7);
        let last = id("a:a");
        let mut b = 0u32;
        for _ in 0..10_000 {
            match pick(&choice, Some(&last), &mut rng) {
                Pick::Animation(p) if p == id("a:b") => b += 1,
                Pick::Animation(p) => assert_eq!(p, id("a:c"), "the last pick came again"),
                other => panic!("{other:?}"),
            }
        }
        assert!(
            (f64::from(b) - 6_000.0).abs() <= 200.0,
            "b picked {b} times"
        );
    }

    #[test]
    fn no_animation_is_picked_twice_in_a_row_within_a_step() {
        let steps = vec![Step::Play {
            emote: weighted(&[("a:a", 1), ("a:b", 1), ("a:c", 1)]),
            repeat: 500,
            transition_ticks: 0,
        }];
        let segments = resolve(&steps, &no_loops, &mut StepRng::new(1), false);
        assert_eq!(segments.len(), 500);
        for pair in segments.windows(2) {
            let (Segment::Play { animation: a, .. }, Segment::Play { animation: b, .. }) =
                (&pair[0], &pair[1])
            else {
                panic!("{pair:?}");
            };
            assert_ne!(a, b);
        }
    }

    #[test]
    fn a_single_candidate_may_repeat_and_transitions_skip_the_first_segment() {
        let steps = vec![
            play("a:x", 3, 4),
            Step::Wait { duration_ticks: 10 },
            play("a:y", 1, 2),
        ];
        let segments = resolve(&steps, &no_loops, &mut StepRng::new(0), false);
        let play = |step, repetition, name: &str, transition_ticks| Segment::Play {
            step,
            repetition,
            animation: id(name),
            transition_ticks,
        };
        assert_eq!(
            segments,
            vec![
                play(0, 0, "a:x", 0),
                play(0, 1, "a:x", 4),
                play(0, 2, "a:x", 4),
                Segment::Hold { step: 1, ticks: 10 },
                play(2, 0, "a:y", 2),
            ]
        );
        // After an offer pose, even the first segment transitions.
        let branch = resolve(&steps, &no_loops, &mut StepRng::new(0), true);
        assert_eq!(branch[0], play(0, 0, "a:x", 4));
    }

    #[test]
    fn continue_plays_nothing_and_break_ends_the_step() {
        let always = |name: &str| Step::Play {
            emote: weighted(&[("a:x", 1), (name, 1_000_000)]),
            repeat: 4,
            transition_ticks: 0,
        };
        let tail = play("a:z", 1, 0);
        let mut rng = StepRng::new(3);
        let with_continue = resolve(
            &[always("emote:continue"), tail.clone()],
            &no_loops,
            &mut rng,
            false,
        );
        let with_break = resolve(&[always("emote:break"), tail], &no_loops, &mut rng, false);
        // Almost surely only controls were picked: the step adds nothing.
        for segments in [&with_continue, &with_break] {
            assert_eq!(segments.len(), 1, "{segments:?}");
            assert!(
                matches!(&segments[0], Segment::Play { animation, .. } if *animation == id("a:z"))
            );
        }
    }

    #[test]
    fn a_loop_animation_holds_its_delay_between_cycles_of_a_step() {
        let steps = vec![play("a:loop", 3, 0)];
        let loops = |i: &EmoteId| (i.as_str() == "a:loop").then_some(5);
        let segments = resolve(&steps, &loops, &mut StepRng::new(0), false);
        let kinds: Vec<bool> = segments
            .iter()
            .map(|s| matches!(s, Segment::Play { .. }))
            .collect();
        assert_eq!(kinds, vec![true, false, true, false, true]);
        assert_eq!(segments[1], Segment::Hold { step: 0, ticks: 5 });
        assert_eq!(segments[0].length_ticks(|_| 20), 21);
    }

    #[test]
    fn the_generator_is_reproducible_and_spreads() {
        let mut a = StepRng::new(9);
        let mut b = StepRng::new(9);
        let draws: Vec<u32> = (0..1000).map(|_| a.below(10)).collect();
        assert_eq!(draws, (0..1000).map(|_| b.below(10)).collect::<Vec<_>>());
        for value in 0..10 {
            let n = draws.iter().filter(|d| **d == value).count();
            assert!((60..=140).contains(&n), "{value}: {n}");
        }
    }
}
