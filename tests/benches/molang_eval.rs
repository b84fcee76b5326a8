//! Molang evaluation: one compiled program evaluated per iteration, as a
//! track component or `molang.tick` is each tick.
//!
//! `cargo bench --bench main -- molang`

use std::hint::black_box;

use criterion::{criterion_group, Criterion};
use emoted::molang::{compile, CompileContext, MolangRng, Program, QueryContext, Session, Symbols};

/// The typical track component (STYLE.md's benchmark).
const TYPICAL: &str = "math.sin(q.anim_time * 90) * 5";

/// A 10-statement `molang.tick` program: variables, temps, queries,
/// conditionals and math.
const TEN_STATEMENTS: &str = "\
v.spin = q.anim_time * v.spin_speed; \
v.caption_visible = q.anim_time >= 0.5; \
t.phase = math.floor(q.anim_time * 2); \
v.blink = math.abs(math.cos(t.phase * 90)) > 0.5; \
v.bob = math.sin(q.anim_time * 360) * 0.15 + 0.2; \
t.lean = math.clamp(q.ground_speed * 4, 0, 30); \
v.lean = q.is_sneaking ? t.lean * 0.5 : t.lean; \
v.drift = math.lerp(v.drift ?? 0, math.random(-0.25, 0.25), 0.1); \
v.spin_speed = v.spin_speed ?? 180; \
v.hand = math.lerprotate(v.hand ?? 0, q.body_y_rotation, q.delta_time * 4);";

fn bench_one(c: &mut Criterion, name: &str, source: &str, context: CompileContext) {
    let mut symbols = Symbols::new();
    let program: Program = match compile(source, context, &mut symbols) {
        Ok(p) => p,
        Err(e) => panic!("{source}: {e}"),
    };
    let mut session = Session::new(&symbols);
    let mut queries = QueryContext::default();
    let mut rng = MolangRng::new(1);
    let mut tick = 0u32;
    c.bench_function(name, |b| {
        b.iter(|| {
            tick = tick.wrapping_add(1);
            queries.anim_time_secs = f64::from(tick % 200) * 0.05;
            black_box(program.eval(&mut session, black_box(&queries), &mut rng))
        })
    });
}

/// The typical expression written in Rust, with the same per-iteration
/// set-up: the floor the interpreter is measured against.
fn native_baseline(c: &mut Criterion) {
    let mut queries = QueryContext::default();
    let mut tick = 0u32;
    c.bench_function("molang_eval/typical_expression_native_rust", |b| {
        b.iter(|| {
            tick = tick.wrapping_add(1);
            queries.anim_time_secs = f64::from(tick % 200) * 0.05;
            let q = black_box(&queries);
            black_box((q.anim_time_secs * 90.0).to_radians().sin() * 5.0)
        })
    });
}

/// Nested loops of about 50,000 operations (just over the default per-tick
/// budget), evaluated with a budget of twice the default refilled every
/// iteration, as a playback refills it every tick: what a tick of loops as
/// heavy as the budget allows costs, budget bookkeeping included.
const BUDGET_SIZED_LOOPS: &str = "loop(125, {loop(100, {v.x = v.x + 1;});});";

fn budgeted_loops(c: &mut Criterion) {
    let mut symbols = Symbols::new();
    let program = match compile(BUDGET_SIZED_LOOPS, CompileContext::Program, &mut symbols) {
        Ok(p) => p,
        Err(e) => panic!("{BUDGET_SIZED_LOOPS}: {e}"),
    };
    let mut session = Session::new(&symbols);
    let queries = QueryContext::default();
    let mut rng = MolangRng::new(1);
    c.bench_function("molang_eval/budget_sized_loops", |b| {
        b.iter(|| {
            session.set_op_budget(emoted::molang::DEFAULT_OP_BUDGET * 2);
            black_box(program.eval(&mut session, black_box(&queries), &mut rng))
        })
    });
}

fn molang_eval(c: &mut Criterion) {
    budgeted_loops(c);
    native_baseline(c);
    bench_one(
        c,
        "molang_eval/typical_expression",
        TYPICAL,
        CompileContext::Track,
    );
    bench_one(
        c,
        "molang_eval/ten_statement_program",
        TEN_STATEMENTS,
        CompileContext::Program,
    );
}

criterion_group!(benches, molang_eval);
