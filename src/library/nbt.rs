//! Playing an Animation's NBT tracks: the keys each tick applies, with
//! their selectors evaluated once, when the key is applied (the model is on
//! [`crate::format::nbt_track`]; which keys are due, on
//! [`crate::anim::nbt`]).
//!
//! [`NbtPlayhead::step`] runs after the tick's pose was sampled (or would
//! have been: a scheduled tick that skips sampling still steps it), so a
//! selector reads the `v.*` that `molang.initialize` and this tick's
//! `molang.tick` left, and shares the tick's operation budget. It is
//! evaluated as at its key's time: `q.anim_time` is the key's (also for the
//! earlier keys a late start applies), `q.key_frame_lerp_time` 0. Its
//! random numbers come from a stream of its own, seeded from the playback's
//! seed, so choosing an option never changes what the tracks draw (nor the
//! cycle the scheduler planned on a copy).

use super::{CompiledAnimation, MolangState};
use crate::anim::nbt::{select_option, NbtChoice, NbtCursor};
use crate::anim::{ExprId, SampleError};
use crate::molang::MolangRng;

/// Mixed into the playback's seed for the selectors' own random stream.
const SELECTOR_SEED: u64 = 0x6E62_745F_7365_6C65;

/// What a tick's NBT keys did to one rig node, in the order it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NbtEvent {
    /// A cycle starts again for this node: drop what its keys built.
    Restart {
        /// The rig node.
        rig_node: usize,
    },
    /// Merge option `option` of key `key` of this node's track
    /// ([`crate::library::runtime::RuntimeNode::nbt`]).
    Apply {
        /// The rig node.
        rig_node: usize,
        /// The key's index in the track.
        key: usize,
        /// The option chosen (0 for a fixed compound).
        option: usize,
    },
}

/// Where one playback of an Animation is in its NBT tracks: a cursor per
/// rig node and the selectors' random stream. A clone continues exactly as
/// the original would.
#[derive(Clone, Debug)]
pub struct NbtPlayhead {
    cursors: Vec<NbtCursor>,
    rng: MolangRng,
}

impl NbtPlayhead {
    /// The start of a playback of `animation` seeded with `seed`.
    pub fn new(animation: &CompiledAnimation, seed: u64) -> Self {
        Self {
            cursors: vec![NbtCursor::default(); animation.rig.nodes.len()],
            rng: MolangRng::new(seed ^ SELECTOR_SEED),
        }
    }

    /// The keys due on a tick at `position_ticks` (`cycle_started`: the
    /// tick began a cycle), with their options chosen, pushed onto
    /// `events`. A selector that names no option, gives a non-finite value
    /// or runs out of the tick's operations stops the playback.
    pub fn step(
        &mut self,
        animation: &CompiledAnimation,
        molang: &mut MolangState,
        position_ticks: u32,
        cycle_started: bool,
        events: &mut Vec<NbtEvent>,
    ) -> Result<(), SampleError> {
        for (rig_node, node) in animation.rig.nodes.iter().enumerate() {
            let (Some(track), Some(cursor)) = (&node.nbt, self.cursors.get_mut(rig_node)) else {
                continue;
            };
            let due = track.due(cursor, position_ticks, cycle_started);
            if due.restart {
                events.push(NbtEvent::Restart { rig_node });
            }
            for key in due.keys {
                let option = match track.choice(key) {
                    NbtChoice::Fixed => 0,
                    NbtChoice::Select { expr, option_count } => {
                        let time_ticks = track.time_ticks(key);
                        let value =
                            eval_selector(animation, molang, &mut self.rng, expr, time_ticks)
                                .map_err(|budget_ops| SampleError::MolangBudgetExceeded {
                                    program: format!(
                                        "the nbt selector at {time_ticks}t of node `{}`",
                                        node.id
                                    ),
                                    budget_ops,
                                })?;
                        select_option(value, option_count).map_err(|source| {
                            SampleError::BadNbtSelection {
                                node: node.id.clone(),
                                time_ticks,
                                source,
                            }
                        })? as usize
                    }
                };
                events.push(NbtEvent::Apply {
                    rig_node,
                    key,
                    option,
                });
            }
        }
        Ok(())
    }
}

/// The value of selector `expr` of a key at `key_time_ticks`, or the
/// budget it ran out of.
fn eval_selector(
    animation: &CompiledAnimation,
    molang: &mut MolangState,
    rng: &mut MolangRng,
    expr: ExprId,
    key_time_ticks: u32,
) -> Result<f64, u64> {
    let Some(program) = animation.expressions.get(expr.0 as usize) else {
        return Ok(f64::NAN);
    };
    let queries = &mut molang.queries;
    let anim_time_secs = queries.anim_time_secs;
    queries.anim_time_secs = f64::from(key_time_ticks) / 20.0;
    queries.key_frame_lerp_time = 0.0;
    let value = program.try_eval(&mut molang.session, &molang.queries, rng);
    molang.queries.anim_time_secs = anim_time_secs;
    value.map_err(|e| e.budget_ops)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::anim::nbt::BadSelection;
    use crate::format::{parse_emote_value, EmoteFile};

    /// `tests/fixtures/nbt_tracks/flowers.json`: the flower's keys at 0t (a
    /// selector by loop count), 10t and 15t, in a loop of 20.
    fn flowers() -> Value {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/nbt_tracks/flowers.json"
        );
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture")).expect("JSON")
    }

    fn compile(file: &Value) -> CompiledAnimation {
        let report = parse_emote_value(file);
        let Some(EmoteFile::Animation(animation)) = report.file else {
            panic!("invalid: {:?}", report.problems);
        };
        CompiledAnimation::compile(&animation).expect("compiles")
    }

    /// `flowers` with key `key`'s value replaced.
    fn with_key(key: usize, value: Value) -> CompiledAnimation {
        let mut file = flowers();
        file["timeline"]["tracks"]["flower"]["nbt"][key]["value"] = value;
        compile(&file)
    }

    /// The events of the ticks at `positions`, cycle `loop_count`, from
    /// the cycle's first tick.
    fn play_cycle(
        animation: &CompiledAnimation,
        playhead: &mut NbtPlayhead,
        molang: &mut MolangState,
        loop_count: u32,
        positions: impl IntoIterator<Item = u32>,
    ) -> Result<Vec<NbtEvent>, SampleError> {
        animation.begin_cycle(molang, loop_count)?;
        let mut events = Vec::new();
        for (i, position) in positions.into_iter().enumerate() {
            playhead.step(animation, molang, position, i == 0, &mut events)?;
        }
        Ok(events)
    }

    fn flower(animation: &CompiledAnimation) -> usize {
        animation.rig.node_index("flower").expect("the flower")
    }

    fn applied(events: &[NbtEvent]) -> Vec<(usize, usize)> {
        events
            .iter()
            .filter_map(|e| match *e {
                NbtEvent::Apply { key, option, .. } => Some((key, option)),
                NbtEvent::Restart { .. } => None,
            })
            .collect()
    }

    #[test]
    fn the_selector_runs_once_a_cycle_and_each_cycle_again() {
        let animation = compile(&flowers());
        let mut molang = animation.new_molang_state(1);
        let mut playhead = NbtPlayhead::new(&animation, 1);
        for cycle in 0..4 {
            let events =
                play_cycle(&animation, &mut playhead, &mut molang, cycle, 0..20).expect("plays");
            assert_eq!(
                events[0],
                NbtEvent::Restart {
                    rig_node: flower(&animation)
                }
            );
            assert_eq!(
                applied(&events),
                [(0, cycle as usize % 3), (1, 0), (2, 0)],
                "cycle {cycle}"
            );
        }
    }

    #[test]
    fn a_random_selector_draws_once_per_cycle_from_its_own_stream() {
        let animation = with_key(
            0,
            json!({"select": "math.random_integer(0, 2)", "options": [
                "{item:{id:'minecraft:poppy',count:1},Glowing:0b}",
                "{item:{id:'minecraft:dandelion',count:1},Glowing:0b}",
                "{item:{id:'minecraft:blue_orchid',count:1},Glowing:0b}"
            ]}),
        );
        let picks = |seed: u64| -> Vec<usize> {
            let mut molang = animation.new_molang_state(seed);
            let mut playhead = NbtPlayhead::new(&animation, seed);
            let tracks_rng = molang.rng.clone();
            let picks = (0..12)
                .map(|cycle| {
                    let events = play_cycle(&animation, &mut playhead, &mut molang, cycle, 0..20)
                        .expect("plays");
                    let firsts: Vec<usize> = applied(&events)
                        .into_iter()
                        .filter(|(key, _)| *key == 0)
                        .map(|(_, option)| option)
                        .collect();
                    assert_eq!(firsts.len(), 1, "key 0 once in cycle {cycle}");
                    firsts[0]
                })
                .collect();
            assert_eq!(molang.rng, tracks_rng, "the tracks' stream is untouched");
            picks
        };
        let seven = picks(7);
        assert_eq!(seven, picks(7), "the same seed picks the same");
        assert!(
            (0..3).all(|option| seven.contains(&option)),
            "12 cycles pick every option: {seven:?}"
        );
    }

    #[test]
    fn a_late_start_evaluates_every_earlier_key_in_order_as_at_its_time() {
        let mut file = flowers();
        let nbt = &mut file["timeline"]["tracks"]["flower"]["nbt"];
        nbt[0]["value"]["select"] = json!("math.clamp(q.anim_time_ticks, 0, 2)");
        nbt[1]["value"] = json!({"select": "q.anim_time_ticks == 10", "options": ["{Glowing:0b}", "{Glowing:1b}"]});
        let animation = compile(&file);
        let mut molang = animation.new_molang_state(0);
        let mut playhead = NbtPlayhead::new(&animation, 0);
        // A server_sync playback joining at 12: keys 0t and 10t on its
        // first tick, each seeing its own time; 15t three ticks later.
        let events = play_cycle(&animation, &mut playhead, &mut molang, 0, 12..=15).expect("plays");
        assert_eq!(applied(&events), [(0, 0), (1, 1), (2, 0)]);
        assert!(matches!(events[0], NbtEvent::Restart { .. }));
        assert_eq!(
            molang.queries.anim_time_secs, 0.0,
            "restored (no sampling here)"
        );
    }

    #[test]
    fn a_selector_that_names_no_option_stops_the_playback() {
        for (select, value) in [("3", 3.0), ("0.5", 0.5), ("-1", -1.0)] {
            let animation = with_key(
                1,
                json!({"select": select, "options": ["{Glowing:0b}", "{Glowing:1b}", "{}"]}),
            );
            let mut molang = animation.new_molang_state(0);
            let mut playhead = NbtPlayhead::new(&animation, 0);
            let result = play_cycle(&animation, &mut playhead, &mut molang, 0, 0..20);
            let expected = SampleError::BadNbtSelection {
                node: "flower".to_owned(),
                time_ticks: 10,
                source: BadSelection {
                    value,
                    option_count: 3,
                },
            };
            assert_eq!(result, Err(expected), "{select}");
        }
        let animation = with_key(
            1,
            json!({"select": "math.pow(10, 400)", "options": ["{Glowing:0b}", "{Glowing:1b}"]}),
        );
        let mut molang = animation.new_molang_state(0);
        let mut playhead = NbtPlayhead::new(&animation, 0);
        let message = play_cycle(&animation, &mut playhead, &mut molang, 0, 0..20)
            .expect_err("infinite")
            .to_string();
        assert_eq!(
            message,
            "node `flower`, nbt key at 10t: an nbt selector gave inf, not a whole number from 0 to 1 (its 2 options), so the emote stops"
        );
    }

    #[test]
    fn a_selector_shares_the_ticks_budget() {
        let animation = with_key(
            1,
            json!({"select": "loop(100, {t.x = t.x + 1;}); return 0;", "options": ["{Glowing:0b}", "{Glowing:1b}"]}),
        );
        let mut molang = animation.new_molang_state(0).with_budget_ops(100);
        let mut playhead = NbtPlayhead::new(&animation, 0);
        let result = play_cycle(&animation, &mut playhead, &mut molang, 0, 0..20);
        assert_eq!(
            result,
            Err(SampleError::MolangBudgetExceeded {
                program: "the nbt selector at 10t of node `flower`".to_owned(),
                budget_ops: 100,
            })
        );
    }

    proptest::proptest! {
        /// Whatever a selector or an option holds, reading and compiling
        /// accept it or name a problem; neither panics.
        #[test]
        fn any_key_compiles_or_is_refused_without_panicking(
            snbt in "\\{[a-zA-Z_:'\"0-9,\\[\\]{}. ]{0,40}\\}",
            select in "[a-z_.()+ 0-9]{0,16}",
        ) {
            let mut file = flowers();
            file["timeline"]["tracks"]["flower"]["nbt"][0]["value"] =
                json!({"select": select, "options": [snbt, "{}"]});
            if let Some(EmoteFile::Animation(animation)) = parse_emote_value(&file).file {
                let _ = CompiledAnimation::compile(&animation);
            }
        }
    }
}
