//! Compiling a validated Animation for playback: its rig (nodes and tracks)
//! and every Molang string, checked and compiled once at load.
//!
//! Molang errors are file problems like any other: the pointer is the JSON
//! string's, and the message carries the character span inside it. A
//! program whose [worst case](Program::worst_case_ops) is over
//! [`molang::DEFAULT_OP_BUDGET`] gets a warning at its pointer: the file
//! loads, and a playback stops if it ever gets that far (see
//! [`MolangState::budget_ops`]).

use std::collections::HashMap;

use crate::anim::{ExprCompiler, ExprEvaluator, ExprId, Pose, Rig, SampleError};
use crate::format::{AnimationFile, Problem};
use crate::library::runtime::AnimationRuntime;
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
    /// What playback reads of the file besides the rig and Molang.
    pub runtime: AnimationRuntime,
    /// Warnings found while compiling (programs that may run past
    /// [`molang::DEFAULT_OP_BUDGET`]), each at its program's pointer.
    pub warnings: Vec<Problem>,
}

struct TrackCompiler<'a> {
    symbols: &'a mut Symbols,
    expressions: Vec<Program>,
    /// Deterministic sources compiled so far (a repeated `"math.sin(...)"`
    /// in x, y and z of both keys compiles, and evaluates, once).
    shared: HashMap<String, ExprId>,
    /// Budget warnings, at every pointer of a program that may overrun.
    warnings: Vec<Problem>,
}

impl ExprCompiler for TrackCompiler<'_> {
    type Error = Problem;

    fn compile(&mut self, source: &str, pointer: &str) -> Result<ExprId, Problem> {
        if let Some(id) = self.shared.get(source) {
            if let Some(program) = self.expressions.get(id.0 as usize) {
                self.warnings.extend(budget_warning(program, pointer));
            }
            return Ok(*id);
        }
        let program =
            molang::compile(source, CompileContext::Track, self.symbols).map_err(|e| {
                Problem::error(pointer, format!("Molang: {}", molang::describe(&e, source)))
            })?;
        self.warnings.extend(budget_warning(&program, pointer));
        let id = ExprId(self.expressions.len() as u32);
        if program.is_deterministic() {
            self.shared.insert(source.to_owned(), id);
        }
        self.expressions.push(program);
        Ok(id)
    }
}

impl CompiledAnimation {
    /// Compiles `file`; returns every Molang problem, each at its pointer
    /// (with the [warnings](Self::warnings) when there are errors too).
    pub fn compile(file: &AnimationFile) -> Result<Self, Vec<Problem>> {
        let mut symbols = Symbols::new();
        let mut problems = Vec::new();
        let mut warnings = Vec::new();
        // Root programs first: they define the v.* variables tracks read.
        let mut root = |source: &Option<String>, pointer: &str, symbols: &mut Symbols| {
            source.as_ref().and_then(|src| {
                match molang::compile(src, CompileContext::Program, symbols) {
                    Ok(program) => {
                        warnings.extend(budget_warning(&program, pointer));
                        Some(program)
                    }
                    Err(e) => {
                        problems.push(Problem::error(
                            pointer,
                            format!("Molang: {}", molang::describe(&e, src)),
                        ));
                        None
                    }
                }
            })
        };
        let initialize = root(&file.molang.initialize, "/molang/initialize", &mut symbols);
        let tick = root(&file.molang.tick, "/molang/tick", &mut symbols);
        let mut compiler = TrackCompiler {
            symbols: &mut symbols,
            expressions: Vec::new(),
            shared: HashMap::new(),
            warnings: Vec::new(),
        };
        let rig = Rig::build(file, &mut compiler);
        let expressions = compiler.expressions;
        warnings.append(&mut compiler.warnings);
        let reusable = expressions.iter().map(Program::is_deterministic).collect();
        match rig {
            Ok(rig) if problems.is_empty() => Ok(Self {
                runtime: AnimationRuntime::new(file, &rig),
                rig,
                symbols,
                expressions,
                reusable,
                initialize,
                tick,
                warnings,
            }),
            Ok(_) => {
                problems.append(&mut warnings);
                Err(problems)
            }
            Err(mut track_problems) => {
                problems.append(&mut track_problems);
                problems.append(&mut warnings);
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

    /// Fresh per-playback Molang state for this Animation, with
    /// [`molang::DEFAULT_OP_BUDGET`] operations per tick (see
    /// [`MolangState::with_budget_ops`]).
    pub fn new_molang_state(&self, seed: u64) -> MolangState {
        let mut session = Session::new(&self.symbols);
        session.set_op_budget(molang::DEFAULT_OP_BUDGET);
        MolangState {
            session,
            rng: MolangRng::new(seed),
            queries: QueryContext {
                anim_length_secs: f64::from(self.rig.duration_ticks) / 20.0,
                ..QueryContext::default()
            },
            reuse: vec![Reuse::default(); self.expressions.len()],
            pass: 1,
        }
    }

    /// Starts a cycle: a fresh session, `q.delta_time` 0, a full budget,
    /// then `molang.initialize`.
    pub fn begin_cycle(&self, state: &mut MolangState, loop_count: u32) -> Result<(), SampleError> {
        state.session.reset();
        state.session.refill_ops();
        state.queries.loop_count = f64::from(loop_count);
        state.queries.delta_time_secs = 0.0;
        state.queries.key_frame_lerp_time = 0.0;
        if let Some(program) = &self.initialize {
            let value = program
                .try_eval(&mut state.session, &state.queries, &mut state.rng)
                .map_err(|e| out_of_ops("`molang.initialize`", e.budget_ops))?;
            check_finite(value, "molang.initialize")?;
        }
        state.queries.delta_time_secs = 0.05;
        Ok(())
    }

    /// One tick at timeline `position_ticks`: a full budget, `molang.tick`
    /// (when `advancing`), then every track sampled into `pose`. The
    /// programs share the tick's [`MolangState::budget_ops`]; running out
    /// is [`SampleError::MolangBudgetExceeded`].
    pub fn step(
        &self,
        state: &mut MolangState,
        position_ticks: u32,
        advancing: bool,
        pose: &mut Pose,
    ) -> Result<(), SampleError> {
        self.step_at(state, position_ticks as f32, advancing, pose)
    }

    /// [`Self::step`] at a timeline position between ticks (a controller
    /// plays a clip at its normalized time, which rarely falls on a tick).
    pub fn step_at(
        &self,
        state: &mut MolangState,
        position_ticks: f32,
        advancing: bool,
        pose: &mut Pose,
    ) -> Result<(), SampleError> {
        state.session.refill_ops();
        state.queries.anim_time_secs = f64::from(position_ticks) / 20.0;
        state.queries.key_frame_lerp_time = 0.0;
        if advancing {
            if let Some(program) = &self.tick {
                let value = program
                    .try_eval(&mut state.session, &state.queries, &mut state.rng)
                    .map_err(|e| out_of_ops("`molang.tick`", e.budget_ops))?;
                check_finite(value, "molang.tick")?;
            }
        }
        let sampled = pose.sample(&self.rig, position_ticks, &mut self.evaluator(state));
        if state.session.is_out_of_ops() {
            // The expression that ran out gave NaN, which sampling reports
            // at its node.
            let program = match &sampled {
                Err(
                    SampleError::NonFiniteTransform { node }
                    | SampleError::NonFiniteVisibility { node, .. },
                ) => format!("a track expression of node `{node}`"),
                _ => "a track expression".to_owned(),
            };
            return Err(out_of_ops(&program, state.session.op_budget()));
        }
        sampled
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

fn out_of_ops(program: &str, budget_ops: u64) -> SampleError {
    SampleError::MolangBudgetExceeded {
        program: program.to_owned(),
        budget_ops,
    }
}

/// The warning for a program that may run past the default budget.
fn budget_warning(program: &Program, pointer: &str) -> Option<Problem> {
    let worst = program.worst_case_ops();
    let bound = if worst == u64::MAX {
        "more than"
    } else {
        "up to"
    };
    (worst > molang::DEFAULT_OP_BUDGET).then(|| {
        Problem::warning(
            pointer,
            format!(
                "Molang: this program may run {bound} {} operations in one tick, over the \
                 default budget of {} ([emotes] molang_budget_ops): the emote would stop when \
                 it gets there; use fewer or shorter loops",
                grouped(worst),
                grouped(molang::DEFAULT_OP_BUDGET)
            ),
        )
    })
}

/// `17000000` → `17,000,000`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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

/// The Molang state of one playback: variables, random source, queries and
/// the per-tick operation budget. A clone continues exactly as the original
/// would, budget included (the server samples a cycle ahead on a clone to
/// plan display updates).
#[derive(Clone, Debug)]
pub struct MolangState {
    /// `v.*` and `t.*` values, and the operation budget (see
    /// [`Self::budget_ops`]).
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

impl MolangState {
    /// The Molang operations one tick may use, refilled at every
    /// [`CompiledAnimation::step`] and before `molang.initialize` in
    /// [`CompiledAnimation::begin_cycle`]; `molang.tick` and every track
    /// expression of that tick share it (see the [`molang`] docs, "The
    /// operation budget", for what is charged). Default:
    /// [`molang::DEFAULT_OP_BUDGET`].
    pub fn budget_ops(&self) -> u64 {
        self.session.op_budget()
    }

    /// This state with `ops` Molang operations per tick
    /// ([`Self::budget_ops`]), starting now.
    pub fn with_budget_ops(mut self, ops: u64) -> Self {
        self.session.set_op_budget(ops);
        self
    }
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
        compiled_with("{}", position)
    }

    /// One item node with one position key, and the given `molang` object.
    fn compiled_with(molang: &str, position: &str) -> CompiledAnimation {
        let text = format!(
            r#"{{"type":"animation","schema_version":4,"id":"test:reuse","metadata":{{"name":"T"}},"settings":{{}},
            "molang":{molang},
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

    /// Three nested loops, each within Bedrock's cap: ~70 million operations.
    const NESTED: &str = "loop(1024, {loop(1024, {loop(16, {v.x = v.x + 1;});});});";

    /// `n` × 100 iterations of a 4-operation body: a little over `n` × 400.
    fn loops(n: u32) -> String {
        format!("loop({n}, {{loop(100, {{t.x = t.x + 1;}});}});")
    }

    fn budget_error(program: &str, budget_ops: u64) -> Result<(), SampleError> {
        Err(SampleError::MolangBudgetExceeded {
            program: program.to_owned(),
            budget_ops,
        })
    }

    #[test]
    fn a_tick_program_past_the_budget_stops_the_playback_not_the_server() {
        let animation = compiled_with(&format!(r#"{{"tick":"{NESTED}"}}"#), "[0, 0, 0]");
        let mut state = animation.new_molang_state(0);
        assert_eq!(state.budget_ops(), molang::DEFAULT_OP_BUDGET);
        let mut pose = Pose::new(&animation.rig);
        animation.begin_cycle(&mut state, 0).expect("no initialize");
        let result = animation.step(&mut state, 0, true, &mut pose);
        assert_eq!(
            result,
            budget_error("`molang.tick`", molang::DEFAULT_OP_BUDGET)
        );
        let message = result.expect_err("stops").to_string();
        assert!(
            message.contains("`molang.tick` used more than the 50000 Molang operations"),
            "{message}"
        );
    }

    #[test]
    fn initialize_and_track_expressions_are_bounded_too() {
        let animation = compiled_with(
            &format!(r#"{{"initialize":"{}"}}"#, loops(200)),
            "[0, 0, 0]",
        );
        let mut state = animation.new_molang_state(0);
        assert_eq!(
            animation.begin_cycle(&mut state, 0),
            budget_error("`molang.initialize`", molang::DEFAULT_OP_BUDGET)
        );
        // A track component: NaN at its node, reported as the budget.
        let source = format!("{} return t.x;", loops(200));
        let animation = compiled(&format!(r#"["{source}", 0, 0]"#));
        let mut state = animation.new_molang_state(0);
        let mut pose = Pose::new(&animation.rig);
        animation.begin_cycle(&mut state, 0).expect("no initialize");
        assert_eq!(
            animation.step(&mut state, 0, true, &mut pose),
            budget_error("a track expression of node `a`", molang::DEFAULT_OP_BUDGET)
        );
    }

    #[test]
    fn one_tick_shares_one_budget_refilled_every_tick() {
        // 30 × (3 + 100 × 4) = 12,090 operations each: the tick program
        // and the track fit in 20,000 one at a time, not together.
        let tick = format!(r#"{{"tick":"{}"}}"#, loops(30));
        let track = format!(r#"["{} return t.x;", 0, 0]"#, loops(30));
        for (molang, position, fits) in [
            (tick.as_str(), "[0, 0, 0]", true),
            ("{}", track.as_str(), true),
            (tick.as_str(), track.as_str(), false),
        ] {
            let animation = compiled_with(molang, position);
            let mut state = animation.new_molang_state(0).with_budget_ops(20_000);
            let mut pose = Pose::new(&animation.rig);
            animation.begin_cycle(&mut state, 0).expect("no initialize");
            for tick in 0..3 {
                let result = animation.step(&mut state, tick, true, &mut pose);
                assert_eq!(
                    result.is_ok(),
                    fits,
                    "{molang} {position} tick {tick}: {result:?}"
                );
                if !fits {
                    assert_eq!(
                        result,
                        budget_error("a track expression of node `a`", 20_000)
                    );
                    break;
                }
            }
        }
    }

    #[test]
    fn the_budget_can_be_raised_and_clones_keep_it() {
        let animation = compiled_with(&format!(r#"{{"tick":"{}"}}"#, loops(200)), "[0, 0, 0]");
        let mut pose = Pose::new(&animation.rig);
        let mut state = animation.new_molang_state(0).with_budget_ops(100_000);
        animation.begin_cycle(&mut state, 0).expect("no initialize");
        let mut copy = state.clone();
        assert_eq!(copy.budget_ops(), 100_000);
        for state in [&mut state, &mut copy] {
            for tick in 0..3 {
                animation
                    .step(state, tick, true, &mut pose)
                    .expect("fits in 100,000");
            }
        }
        let mut state = state.with_budget_ops(50_000);
        assert_eq!(
            animation.step(&mut state, 3, true, &mut pose),
            budget_error("`molang.tick`", 50_000)
        );
    }

    #[test]
    fn programs_that_may_overrun_are_warned_at_their_pointers() {
        let track = format!(
            r#"["{} return t.x;", "{} return t.x;", 0]"#,
            loops(200),
            loops(200)
        );
        let animation = compiled_with(
            &format!(r#"{{"tick":"{NESTED}","initialize":"{}"}}"#, loops(1)),
            &track,
        );
        let warnings: Vec<(&str, &str)> = animation
            .warnings
            .iter()
            .map(|w| (w.pointer.as_str(), w.message.as_str()))
            .collect();
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(animation.warnings.iter().all(|w| !w.is_error()));
        assert_eq!(warnings[0].0, "/molang/tick");
        assert_eq!(
            warnings[0].1,
            "Molang: this program may run up to 70,257,664 operations in one tick, over the default budget of 50,000 ([emotes] molang_budget_ops): the emote would stop when it gets there; use fewer or shorter loops"
        );
        // The shared source is warned at both components.
        assert_eq!(warnings[1].0, "/timeline/tracks/a/position/0/value/0");
        assert_eq!(warnings[2].0, "/timeline/tracks/a/position/0/value/1");
        assert!(
            warnings[1].1.contains("up to 80,600 operations"),
            "{}",
            warnings[1].1
        );
        assert!(compiled(r#"[0, "q.anim_time * 2", 0]"#).warnings.is_empty());
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999_999), "999,999");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }
}
