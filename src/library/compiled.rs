//! Compiling a validated Animation for playback: its rig (nodes and tracks)
//! and every Molang string, checked and compiled once at load.
//!
//! Molang errors are file problems like any other: the pointer is the JSON
//! string's, and the message carries the character span inside it.

use std::collections::HashMap;

use crate::anim::{ExprCompiler, ExprEvaluator, ExprId, Pose, Rig, SampleError};
use crate::format::{AnimationFile, Problem};
use crate::molang::{self, CompileContext, MolangRng, Program, QueryContext, Session, Symbols};

/// An Animation ready to play: the rig, the Molang programs and their symbols.
#[derive(Debug)]
pub struct CompiledAnimation {
    /// Nodes and compiled tracks.
    pub rig: Rig,
    /// Variable names shared by all programs of this Animation.
    pub symbols: Symbols,
    /// Track expressions, indexed by [`ExprId`]. Identical deterministic
    /// sources share one entry.
    pub expressions: Vec<Program>,
    /// Per expression: true when it draws no random numbers, so its value
    /// within one sampling pass depends only on `q.key_frame_lerp_time`
    /// (tracks may not assign `v.*`, and `t.*` starts unset on every call)
    /// and may be reused.
    pub reusable: Vec<bool>,
    /// `molang.initialize`, run when a cycle begins.
    pub initialize: Option<Program>,
    /// `molang.tick`, run every tick before the tracks.
    pub tick: Option<Program>,
}

struct TrackCompiler<'a> {
    symbols: &'a mut Symbols,
    expressions: Vec<Program>,
    /// Deterministic sources compiled so far (a repeated `"math.sin(...)"`
    /// in x, y and z of both keys compiles, and evaluates, once).
    shared: HashMap<String, ExprId>,
}

impl ExprCompiler for TrackCompiler<'_> {
    type Error = Problem;

    fn compile(&mut self, source: &str, pointer: &str) -> Result<ExprId, Problem> {
        if let Some(id) = self.shared.get(source) {
            return Ok(*id);
        }
        let program =
            molang::compile(source, CompileContext::Track, self.symbols).map_err(|e| {
                Problem::error(pointer, format!("Molang: {}", molang::describe(&e, source)))
            })?;
        let id = ExprId(self.expressions.len() as u32);
        if program.is_deterministic() {
            self.shared.insert(source.to_owned(), id);
        }
        self.expressions.push(program);
        Ok(id)
    }
}

impl CompiledAnimation {
    /// Compiles `file`; returns every Molang problem, each at its pointer.
    pub fn compile(file: &AnimationFile) -> Result<Self, Vec<Problem>> {
        let mut symbols = Symbols::new();
        let mut problems = Vec::new();
        // Root programs first: they define the v.* variables tracks read.
        let mut root = |source: &Option<String>, pointer: &str, symbols: &mut Symbols| {
            source.as_ref().and_then(|src| {
                molang::compile(src, CompileContext::Program, symbols)
                    .map_err(|e| {
                        problems.push(Problem::error(
                            pointer,
                            format!("Molang: {}", molang::describe(&e, src)),
                        ))
                    })
                    .ok()
            })
        };
        let initialize = root(&file.molang.initialize, "/molang/initialize", &mut symbols);
        let tick = root(&file.molang.tick, "/molang/tick", &mut symbols);
        let mut compiler = TrackCompiler {
            symbols: &mut symbols,
            expressions: Vec::new(),
            shared: HashMap::new(),
        };
        let rig = Rig::build(file, &mut compiler);
        let expressions = compiler.expressions;
        let reusable = expressions.iter().map(Program::is_deterministic).collect();
        match rig {
            Ok(rig) if problems.is_empty() => Ok(Self {
                rig,
                symbols,
                expressions,
                reusable,
                initialize,
                tick,
            }),
            Ok(_) => Err(problems),
            Err(mut track_problems) => {
                problems.append(&mut track_problems);
                Err(problems)
            }
        }
    }

    /// True when every cycle of every playback samples the same poses: each
    /// Molang program is [`Program::is_cycle_invariant`] (the session is
    /// fresh at every cycle).
    pub fn is_cycle_invariant(&self) -> bool {
        self.initialize
            .iter()
            .chain(&self.tick)
            .chain(&self.expressions)
            .all(Program::is_cycle_invariant)
    }

    /// True when the pose at a timeline position is the same whatever ticks
    /// were sampled before it in the cycle: [`Self::is_cycle_invariant`],
    /// no `molang.tick` program, and no track expression writes a variable
    /// (`molang.initialize` may: it runs at every cycle start).
    pub fn is_position_pure(&self) -> bool {
        self.is_cycle_invariant()
            && self.tick.is_none()
            && !self.expressions.iter().any(Program::writes_variables)
    }

    /// Fresh per-playback Molang state for this Animation.
    pub fn new_molang_state(&self, seed: u64) -> MolangState {
        MolangState {
            session: Session::new(&self.symbols),
            rng: MolangRng::new(seed),
            queries: QueryContext {
                anim_length_secs: f64::from(self.rig.duration_ticks) / 20.0,
                ..QueryContext::default()
            },
            reuse: vec![Reuse::default(); self.expressions.len()],
            pass: 1,
        }
    }

    /// Starts a cycle: a fresh session, `q.delta_time` 0, then `molang.initialize`.
    pub fn begin_cycle(&self, state: &mut MolangState, loop_count: u32) -> Result<(), SampleError> {
        state.session.reset();
        state.queries.loop_count = f64::from(loop_count);
        state.queries.delta_time_secs = 0.0;
        state.queries.key_frame_lerp_time = 0.0;
        if let Some(program) = &self.initialize {
            let value = program.eval(&mut state.session, &state.queries, &mut state.rng);
            check_finite(value, "molang.initialize")?;
        }
        state.queries.delta_time_secs = 0.05;
        Ok(())
    }

    /// One tick at timeline `position_ticks`: `molang.tick` (when `advancing`),
    /// then every track sampled into `pose`.
    pub fn step(
        &self,
        state: &mut MolangState,
        position_ticks: u32,
        advancing: bool,
        pose: &mut Pose,
    ) -> Result<(), SampleError> {
        state.queries.anim_time_secs = f64::from(position_ticks) / 20.0;
        state.queries.key_frame_lerp_time = 0.0;
        if advancing {
            if let Some(program) = &self.tick {
                let value = program.eval(&mut state.session, &state.queries, &mut state.rng);
                check_finite(value, "molang.tick")?;
            }
        }
        pose.sample(&self.rig, position_ticks as f32, &mut self.evaluator(state))
    }
}

impl CompiledAnimation {
    /// The evaluator tracks use for this Animation's Molang components,
    /// for one sampling pass: deterministic expressions are evaluated once
    /// per pass and lerp time, so make a new evaluator whenever variables
    /// or queries change (every tick).
    pub fn evaluator<'a>(&'a self, state: &'a mut MolangState) -> impl ExprEvaluator + 'a {
        state.pass = state.pass.wrapping_add(1).max(1);
        Evaluator {
            animation: self,
            state,
        }
    }
}

fn check_finite(value: f64, what: &str) -> Result<(), SampleError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(SampleError::NonFiniteTransform {
            node: what.to_owned(),
        })
    }
}

/// The Molang state of one playback: variables, random source and queries.
/// A clone continues exactly as the original would (the server samples a
/// cycle ahead on a clone to plan display updates).
#[derive(Clone, Debug)]
pub struct MolangState {
    /// `v.*` and `t.*` values.
    pub session: Session,
    /// `math.random*`.
    pub rng: MolangRng,
    /// What queries read; the server fills `player` each tick.
    pub queries: QueryContext,
    /// Per expression: the last value computed, and when.
    reuse: Vec<Reuse>,
    /// The current sampling pass (never 0, so a fresh [`Reuse`] never matches).
    pass: u32,
}

/// A track expression's value kept for the rest of a sampling pass.
#[derive(Clone, Copy, Debug, Default)]
struct Reuse {
    pass: u32,
    lerp_time_bits: u32,
    value: f32,
}

struct Evaluator<'a> {
    animation: &'a CompiledAnimation,
    state: &'a mut MolangState,
}

impl ExprEvaluator for Evaluator<'_> {
    fn evaluate(&mut self, expr: ExprId, key_frame_lerp_time: f32) -> f32 {
        let index = expr.0 as usize;
        let Some(program) = self.animation.expressions.get(index) else {
            return 0.0;
        };
        let reusable = self.animation.reusable.get(index).copied().unwrap_or(false);
        if reusable {
            if let Some(kept) = self.state.reuse.get(index) {
                if kept.pass == self.state.pass
                    && kept.lerp_time_bits == key_frame_lerp_time.to_bits()
                {
                    return kept.value;
                }
            }
        }
        self.state.queries.key_frame_lerp_time = f64::from(key_frame_lerp_time);
        let value = program.eval(
            &mut self.state.session,
            &self.state.queries,
            &mut self.state.rng,
        );
        self.state.queries.key_frame_lerp_time = 0.0;
        let value = value as f32;
        if reusable {
            if let Some(kept) = self.state.reuse.get_mut(index) {
                *kept = Reuse {
                    pass: self.state.pass,
                    lerp_time_bits: key_frame_lerp_time.to_bits(),
                    value,
                };
            }
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{parse_emote_json, EmoteFile};

    fn compiled(position: &str) -> CompiledAnimation {
        let text = format!(
            r#"{{"type":"animation","schema_version":4,"id":"test:reuse","metadata":{{"name":"T"}},"settings":{{}},
            "nodes":{{"a":{{"type":"item_display","space":"initiator","item_stack_snbt":"{{id:\"minecraft:stick\",count:1}}","item_display":"fixed","transform":{{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}}}}}},
            "timeline":{{"duration":"10t","tracks":{{"a":{{"position":[{{"time":"0t","value":{position}}}]}}}}}}}}"#
        );
        let report = parse_emote_json(&text);
        let Some(EmoteFile::Animation(file)) = report.file else {
            panic!("invalid test file: {:?}", report.problems);
        };
        CompiledAnimation::compile(&file).expect("compiles")
    }

    #[test]
    fn identical_deterministic_sources_share_one_expression() {
        let animation = compiled(r#"["q.anim_time * 2", "q.anim_time * 2", "q.anim_time * 3"]"#);
        assert_eq!(animation.expressions.len(), 2);
        assert_eq!(animation.reusable, vec![true, true]);
    }

    #[test]
    fn random_sources_stay_separate_and_draw_separately() {
        let animation = compiled(r#"["math.random(0, 1)", "math.random(0, 1)", 0]"#);
        assert_eq!(animation.expressions.len(), 2);
        assert_eq!(animation.reusable, vec![false, false]);
        let mut state = animation.new_molang_state(3);
        let mut pose = Pose::new(&animation.rig);
        animation.begin_cycle(&mut state, 0).expect("finite");
        animation
            .step(&mut state, 0, true, &mut pose)
            .expect("finite");
        let p = pose.nodes[0].position;
        assert_ne!(p.x, p.y, "two random components drew the same number");
    }

    #[test]
    fn a_kept_value_lasts_one_pass_only() {
        let animation = compiled(r#"[0, "q.anim_time * 20", 0]"#);
        let mut state = animation.new_molang_state(0);
        let mut pose = Pose::new(&animation.rig);
        animation.begin_cycle(&mut state, 0).expect("finite");
        for tick in 0..=10 {
            animation
                .step(&mut state, tick, true, &mut pose)
                .expect("finite");
            assert_eq!(pose.nodes[0].position.y, tick as f32, "tick {tick}");
        }
    }
}
