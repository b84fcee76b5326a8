//! Compiling a validated Animation for playback: its rig (nodes and tracks)
//! and every Molang string, checked and compiled once at load.
//!
//! Molang errors are file problems like any other: the pointer is the JSON
//! string's, and the message carries the character span inside it.

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
    /// Track expressions, indexed by [`ExprId`].
    pub expressions: Vec<Program>,
    /// `molang.initialize`, run when a cycle begins.
    pub initialize: Option<Program>,
    /// `molang.tick`, run every tick before the tracks.
    pub tick: Option<Program>,
}

struct TrackCompiler<'a> {
    symbols: &'a mut Symbols,
    expressions: Vec<Program>,
}

impl ExprCompiler for TrackCompiler<'_> {
    type Error = Problem;

    fn compile(&mut self, source: &str, pointer: &str) -> Result<ExprId, Problem> {
        let program =
            molang::compile(source, CompileContext::Track, self.symbols).map_err(|e| {
                Problem::error(pointer, format!("Molang: {}", molang::describe(&e, source)))
            })?;
        self.expressions.push(program);
        Ok(ExprId(self.expressions.len() as u32 - 1))
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
        };
        let rig = Rig::build(file, &mut compiler);
        let expressions = compiler.expressions;
        match rig {
            Ok(rig) if problems.is_empty() => Ok(Self {
                rig,
                symbols,
                expressions,
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

    /// Fresh per-playback Molang state for this Animation.
    pub fn new_molang_state(&self, seed: u64) -> MolangState {
        MolangState {
            session: Session::new(&self.symbols),
            rng: MolangRng::new(seed),
            queries: QueryContext {
                anim_length_secs: f64::from(self.rig.duration_ticks) / 20.0,
                ..QueryContext::default()
            },
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
        let mut evaluator = Evaluator {
            animation: self,
            state,
        };
        pose.sample(&self.rig, position_ticks as f32, &mut evaluator)
    }
}

impl CompiledAnimation {
    /// The evaluator tracks use for this Animation's Molang components.
    pub fn evaluator<'a>(&'a self, state: &'a mut MolangState) -> impl ExprEvaluator + 'a {
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
#[derive(Debug)]
pub struct MolangState {
    /// `v.*` and `t.*` values.
    pub session: Session,
    /// `math.random*`.
    pub rng: MolangRng,
    /// What queries read; the server fills `player` each tick.
    pub queries: QueryContext,
}

struct Evaluator<'a> {
    animation: &'a CompiledAnimation,
    state: &'a mut MolangState,
}

impl ExprEvaluator for Evaluator<'_> {
    fn evaluate(&mut self, expr: ExprId, key_frame_lerp_time: f32) -> f32 {
        let Some(program) = self.animation.expressions.get(expr.0 as usize) else {
            return 0.0;
        };
        self.state.queries.key_frame_lerp_time = f64::from(key_frame_lerp_time);
        let value = program.eval(
            &mut self.state.session,
            &self.state.queries,
            &mut self.state.rng,
        );
        self.state.queries.key_frame_lerp_time = 0.0;
        value as f32
    }
}
