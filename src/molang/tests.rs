//! Evaluation tables (evalexpr style): one row per operator, precedence rule,
//! statement form, math function and query; then the compile errors with
//! their rendered spans.

use super::*;

/// Evaluates `source` as a root program with default queries.
fn run(source: &str) -> f64 {
    run_with(source, &QueryContext::default())
}

/// Compiles `source` into `symbols`; panics with the rendered error.
fn compiled(source: &str, context: CompileContext, symbols: &mut Symbols) -> Program {
    match compile(source, context, symbols) {
        Ok(p) => p,
        Err(e) => panic!("{source}: {}", describe(&e, source)),
    }
}

/// Compiles `sources` in order against one symbol table; returns the
/// programs, the table and a fresh session for it.
fn compile_session<const N: usize>(
    sources: [(&str, CompileContext); N],
) -> ([Program; N], Symbols, Session) {
    let mut symbols = Symbols::new();
    let programs = sources.map(|(source, context)| compiled(source, context, &mut symbols));
    let session = Session::new(&symbols);
    (programs, symbols, session)
}

fn run_with(source: &str, queries: &QueryContext) -> f64 {
    let mut symbols = Symbols::new();
    let program = compiled(source, CompileContext::Program, &mut symbols);
    let mut session = Session::new(&symbols);
    program.eval(&mut session, queries, &mut MolangRng::new(1))
}

fn check_table(rows: &[(&str, f64)]) {
    let mut failures = Vec::new();
    for (source, expected) in rows {
        let got = run(source);
        let close = (got - expected).abs() <= 1e-9 * expected.abs().max(1.0);
        if !close {
            failures.push(format!("{source}: expected {expected}, got {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn operators() {
    check_table(&[
        ("1 + 2", 3.0),
        ("5 - 7", -2.0),
        ("3 * 4", 12.0),
        ("10 / 4", 2.5),
        ("-3", -3.0),
        ("- -3", 3.0),
        ("!0", 1.0),
        ("!5", 0.0),
        ("!!5", 1.0),
        ("1 < 2", 1.0),
        ("2 < 2", 0.0),
        ("2 <= 2", 1.0),
        ("3 > 2", 1.0),
        ("2 > 2", 0.0),
        ("2 >= 2", 1.0),
        ("2 == 2", 1.0),
        ("2 == 3", 0.0),
        ("2 != 3", 1.0),
        ("2 != 2", 0.0),
        ("1 && 2", 1.0),
        ("1 && 0", 0.0),
        ("0 || 0", 0.0),
        ("0 || 3", 1.0),
        ("1 ? 2 : 3", 2.0),
        ("0 ? 2 : 3", 3.0),
        ("1 ? 5", 5.0),
        ("0 ? 5", 0.0),
        ("1 + 2 ?? 5", 3.0),
        ("v.missing ?? 7", 7.0),
        ("t.missing ?? 8", 8.0),
        ("c.missing ?? 9", 9.0),
        ("v.unset + 1", 1.0),
        ("true + true", 2.0),
        ("false", 0.0),
        ("TRUE", 1.0),
    ]);
}

#[test]
fn precedence_and_associativity() {
    check_table(&[
        ("1 + 2 * 3", 7.0),
        ("(1 + 2) * 3", 9.0),
        ("10 / 4 * 2", 5.0),
        ("8 / 4 / 2", 1.0),
        ("10 - 4 - 3", 3.0),
        ("10 - 4 + 3", 9.0),
        ("2 * -(3 + 1)", -8.0),
        ("-2 * 3", -6.0),
        ("!0 + 1", 2.0),
        ("!1 * 5", 0.0),
        // Comparisons are left-associative: (3 > 2) > 1 is 1 > 1.
        ("3 > 2 > 1", 0.0),
        ("1 < 2 == 1", 1.0),
        ("2 == 2 < 3", 0.0),
        ("1 + 1 == 2", 1.0),
        // && binds tighter than || (since 1.18.20).
        ("1 || 0 && 0", 1.0),
        ("0 && 1 || 1", 1.0),
        ("0 || 1 && 0", 0.0),
        ("1 == 1 && 2 == 2", 1.0),
        // The conditional is right-associative and looser than ||.
        ("0 ? 2 : 0 ? 3 : 4", 4.0),
        ("1 ? 0 ? 3 : 4 : 5", 4.0),
        ("0 || 1 ? 7 : 8", 7.0),
        ("1 ? 2 : 3 + 10", 2.0),
        ("0 ? 2 : 3 + 10", 13.0),
        // ?? is looser than the conditional.
        ("v.x ?? 1 ? 2 : 3", 2.0),
        ("0 ? 1 : v.x ?? 6", 6.0),
        ("v.a ?? v.b ?? 4", 4.0),
        // Assignment yields the value and is right-associative.
        ("v.a = (v.b = 3) + 1; return v.a + v.b;", 7.0),
        ("v.a = v.b = 2; return v.a * v.b;", 4.0),
        ("v.a = 1 + 2", 3.0),
    ]);
}

#[test]
fn short_circuit_and_branches_run_once() {
    check_table(&[
        ("0 && (v.x = 5); 1 || (v.y = 6); return v.x + v.y;", 0.0),
        ("1 && (v.x = 5); 0 || (v.y = 6); return v.x + v.y;", 11.0),
        ("1 ? (v.a = 1) : (v.b = 2); return v.a * 10 + v.b;", 10.0),
        ("0 ? (v.a = 1) : (v.b = 2); return v.a * 10 + v.b;", 2.0),
        ("v.x = 1; v.x ?? (v.y = 9); return v.y;", 0.0),
        ("v.spawn ?? { v.t = 5; }; return v.t;", 5.0),
    ]);
}

#[test]
fn statements_and_programs() {
    check_table(&[
        // A complex expression is 0 without `return`.
        ("1 + 1;", 0.0),
        ("v.a = 1; v.a + 2;", 0.0),
        ("v.a = 1; return v.a + 2;", 3.0),
        ("return 4; return 5;", 4.0),
        ("return;", 0.0),
        (";;return 2;;", 2.0),
        ("t.a = 2; t.b = t.a * 3; return t.b;", 6.0),
        ("Variable.X = 2; return V.x + variable.x;", 4.0),
        ("temp.y = 3; return t.Y;", 3.0),
        ("v.loc.x = 4; return v.loc.x;", 4.0),
        ("{ v.a = 1; v.b = 2 }; return v.a + v.b;", 3.0),
        ("{ }; return 1;", 1.0),
        ("return { v.a = 3; } + v.a;", 3.0),
        ("(1 > 0) ? { v.a = 2; v.b = 3; }; return v.a + v.b;", 5.0),
        ("(1 > 0) ? return 8; return 9;", 8.0),
        ("(1 < 0) ? return 8; return 9;", 9.0),
        ("v.x = 1 ? 2 : 3; return v.x;", 2.0),
        ("1 ? v.x = 4 : v.x = 5; return v.x;", 4.0),
        ("0 ? v.x = 4 : v.x = 5; return v.x;", 5.0),
        ("v.neg = -2; return 8 / v.neg;", -4.0),
        ("'abc' == 'abc'", 1.0),
        ("'abc' == 'ABC'", 0.0),
        ("'a b' != 'ab'", 1.0),
        ("'a' == 1", 0.0),
        // A string held in a variable reads as 0 in arithmetic (the failed
        // conversion is the error); a literal there is a compile error.
        ("v.s = 'idle'; return v.s + 1;", 1.0),
        ("v.s = 'idle'; return v.s == 'idle';", 1.0),
        ("v.s = 'idle'; return v.s;", 0.0),
    ]);
}

#[test]
fn loops() {
    check_table(&[
        // The docs' Fibonacci loop.
        (
            "v.x = 0; v.y = 1; loop(10, { t.x = v.x + v.y; v.x = v.y; v.y = t.x; }); return v.y;",
            89.0,
        ),
        (
            "v.x = 1; v.y = 1; loop(10, { t.x = v.x + v.y; v.x = v.y; v.y = t.x; }); return v.y;",
            144.0,
        ),
        ("v.i = 0; loop(10, { v.i = v.i + 1; (v.i >= 4) ? break; }); return v.i;", 4.0),
        (
            "v.i = 0; v.s = 0; loop(10, { v.i = v.i + 1; (math.mod(v.i, 2) == 0) ? continue; v.s = v.s + v.i; }); return v.s;",
            25.0,
        ),
        // Nested loops: break leaves only the inner one.
        (
            "v.n = 0; loop(3, { loop(10, { v.n = v.n + 1; (v.n >= 100) ? break; break; }); }); return v.n;",
            3.0,
        ),
        ("loop(2000, { v.c = (v.c ?? 0) + 1; }); return v.c;", 1024.0),
        ("loop(2.9, { v.c = v.c + 1; }); return v.c;", 2.0),
        ("loop(-5, { v.c = v.c + 1; }); return v.c;", 0.0),
        (
            "v.r = 0; loop(5, { v.r = v.r + 1; (v.r == 3) ? return v.r * 100; }); return -1;",
            300.0,
        ),
        ("for_each(t.e, 5, { v.hit = 1; }); return 7 + v.hit;", 7.0),
        ("loop(3, v.k = v.k + 2); return v.k;", 6.0),
    ]);
}

#[test]
fn math_functions() {
    use std::f64::consts::PI;
    check_table(&[
        ("math.abs(-3.5)", 3.5),
        ("math.sin(90) + math.cos(180)", 0.0),
        ("math.sin(30)", 0.5),
        ("math.cos(60)", 0.5),
        ("math.asin(1)", 90.0),
        ("math.acos(0)", 90.0),
        ("math.atan(1)", 45.0),
        ("math.atan2(1, 1)", 45.0),
        ("math.atan2(1, -1)", 135.0),
        ("math.ceil(-2.5)", -2.0),
        ("math.floor(-2.5)", -3.0),
        ("math.trunc(-2.7)", -2.0),
        (
            "math.trunc(-2.7) + math.floor(-2.5) + math.ceil(-2.5)",
            -7.0,
        ),
        ("math.round(2.5)", 3.0),
        ("math.round(-2.5)", -3.0),
        ("math.round(2.4)", 2.0),
        ("math.clamp(5, 0, 3)", 3.0),
        ("math.clamp(-1, 0, 3)", 0.0),
        ("math.clamp(2, 0, 3)", 2.0),
        ("math.copy_sign(3, -1)", -3.0),
        ("math.copy_sign(-3, 2)", 3.0),
        ("math.copy_sign(3, 0)", 3.0),
        ("math.exp(0)", 1.0),
        ("math.exp(1)", std::f64::consts::E),
        ("math.ln(math.exp(2))", 2.0),
        ("math.ln(0)", 0.0),
        ("math.ln(-1)", 0.0),
        ("math.pow(2, 10)", 1024.0),
        ("math.pow(0, -1)", 0.0),
        ("math.pow(-8, 0.5)", 0.0),
        ("math.sqrt(16)", 4.0),
        ("math.sqrt(-1)", 0.0),
        ("math.sqrt(-1) + 1", 1.0),
        ("math.hermite_blend(0.5)", 0.5),
        ("math.hermite_blend(0.25)", 0.15625),
        ("math.inverse_lerp(0, 10, 2.5)", 0.25),
        ("math.inverse_lerp(5, 5, 1)", 0.0),
        ("math.lerp(0, 10, 0.25)", 2.5),
        ("math.lerp(0, 10, 1.5)", 15.0),
        ("math.lerprotate(10, 350, 0.25)", 5.0),
        ("math.lerprotate(90, 0, 0.25)", 67.5),
        ("math.lerprotate(350, 10, 0.5)", 360.0),
        ("math.max(2, 7)", 7.0),
        ("math.min(2, 7)", 2.0),
        ("math.min_angle(190)", -170.0),
        ("math.min_angle(180)", -180.0),
        ("math.min_angle(-540)", -180.0),
        ("math.min_angle(-180)", -180.0),
        ("math.min_angle(179)", 179.0),
        ("math.min_angle(725)", 5.0),
        ("math.mod(7, 3)", 1.0),
        ("math.mod(-7, 3)", -1.0),
        ("math.mod(7.5, 2)", 1.5),
        ("math.mod(5, 0) + 1", 1.0),
        ("math.pi", PI),
        ("MATH.PI * 2", 2.0 * PI),
        ("math.random(2, 2)", 2.0),
        ("math.random_integer(4, 4)", 4.0),
        ("math.die_roll(3, 2, 2)", 6.0),
        ("math.die_roll_integer(3, 2, 2)", 6.0),
        ("math.die_roll(5000, 1, 1)", 1024.0),
        ("math.die_roll(-1, 1, 1)", 0.0),
        ("math.sign(5)", 1.0),
        ("math.sign(-5)", -1.0),
        ("math.sign(0)", -1.0),
        ("1 / 0", 0.0),
        ("0 / 0", 0.0),
        ("1 / 0 + 2", 2.0),
    ]);
}

#[test]
fn easing_functions_hit_their_ends_and_known_points() {
    let families = [
        "quad", "cubic", "quart", "quint", "sine", "expo", "circ", "bounce", "back", "elastic",
    ];
    for family in families {
        for direction in ["in", "out", "in_out"] {
            let f = format!("math.ease_{direction}_{family}");
            check_table(&[
                (format!("{f}(2, 12, 0)").as_str(), 2.0),
                (format!("{f}(2, 12, 1)").as_str(), 12.0),
            ]);
        }
    }
    check_table(&[
        ("math.ease_in_quad(0, 1, 0.5)", 0.25),
        ("math.ease_out_quad(0, 1, 0.5)", 0.75),
        ("math.ease_in_out_quad(0, 1, 0.25)", 0.125),
        ("math.ease_in_cubic(0, 1, 0.5)", 0.125),
        ("math.ease_out_cubic(0, 1, 0.5)", 0.875),
        ("math.ease_in_out_cubic(0, 1, 0.25)", 0.0625),
        ("math.ease_in_quart(0, 1, 0.5)", 0.0625),
        ("math.ease_in_out_quart(0, 1, 0.75)", 0.96875),
        ("math.ease_in_quint(0, 1, 0.5)", 0.03125),
        ("math.ease_out_quint(0, 1, 0.5)", 0.96875),
        (
            "math.ease_in_sine(0, 1, 0.5)",
            1.0 - (std::f64::consts::FRAC_PI_4).cos(),
        ),
        ("math.ease_in_out_sine(0, 1, 0.5)", 0.5),
        ("math.ease_in_expo(0, 1, 0.5)", 2f64.powi(-5)),
        ("math.ease_out_expo(0, 1, 0.5)", 1.0 - 2f64.powi(-5)),
        ("math.ease_in_circ(0, 1, 0.6)", 0.2),
        ("math.ease_out_circ(0, 1, 0.4)", 0.8),
        ("math.ease_in_bounce(0, 1, 0.25)", 0.02734375),
        ("math.ease_out_bounce(0, 1, 0.5)", 0.765625),
        ("math.ease_in_out_bounce(0, 1, 0.5)", 0.5),
        (
            "math.ease_in_back(0, 1, 0.5)",
            0.25 * (2.70158 * 0.5 - 1.70158),
        ),
        ("math.ease_in_out_back(0, 1, 0.5)", 0.5),
        (
            "math.ease_in_elastic(0, 1, 0.5)",
            -(2f64.powi(-5)) * ((5.0f64 - 10.75) * (2.0 * std::f64::consts::PI / 3.0)).sin(),
        ),
        ("math.ease_in_out_elastic(0, 1, 0.5)", 0.5),
        ("math.ease_in_quad(10, 20, 0.5)", 12.5),
    ]);
}

#[test]
fn random_is_seeded_inclusive_and_bounded() {
    let ([program, float], _, mut session) = compile_session([
        ("math.random_integer(1, 3)", CompileContext::Program),
        ("math.random(-2, 5)", CompileContext::Program),
    ]);
    let q = QueryContext::default();
    let mut rng = MolangRng::new(42);
    let mut counts = [0u32; 3];
    for _ in 0..30_000 {
        let v = program.eval(&mut session, &q, &mut rng);
        assert!(v == 1.0 || v == 2.0 || v == 3.0, "{v}");
        counts[(v - 1.0) as usize] += 1;
        let f = float.eval(&mut session, &q, &mut rng);
        assert!((-2.0..5.0).contains(&f), "{f}");
    }
    for c in counts {
        assert!((9_000..11_000).contains(&c), "{counts:?}");
    }
    // Same seed, same sequence.
    let a: Vec<f64> = {
        let mut rng = MolangRng::new(9);
        (0..5)
            .map(|_| float.eval(&mut session, &q, &mut rng))
            .collect()
    };
    let b: Vec<f64> = {
        let mut rng = MolangRng::new(9);
        (0..5)
            .map(|_| float.eval(&mut session, &q, &mut rng))
            .collect()
    };
    assert_eq!(a, b);
}

#[test]
fn queries_read_the_context() {
    let mut q = QueryContext {
        anim_time_secs: 1.25,
        anim_length_secs: 4.0,
        delta_time_secs: 0.05,
        loop_count: 2.0,
        key_frame_lerp_time: 0.5,
        ..QueryContext::default()
    };
    q.player.position = [1.0, 64.0, -3.0];
    q.player.position_delta = [0.1, 0.0, 0.0];
    q.player.movement_direction = [1.0, 0.0, 0.0];
    q.player.health = 7.0;
    q.player.is_sneaking = true;
    q.player.items[ItemSlot::MainHand.index()] = ItemState {
        id: "minecraft:crossbow".into(),
        charged: true,
    };
    q.player.items[ItemSlot::Head.index()] = ItemState {
        id: "minecraft:diamond_helmet".into(),
        charged: false,
    };
    q.player.scores = vec![("kills".into(), 12.0)];
    let rows: &[(&str, f64)] = &[
        ("q.anim_time", 1.25),
        ("query.anim_time()", 1.25),
        ("q.life_time", 1.25),
        ("q.anim_time_ticks", 25.0),
        ("q.anim_length", 4.0),
        ("q.delta_time", 0.05),
        ("q.loop_count", 2.0),
        ("q.key_frame_lerp_time", 0.5),
        (
            "Query.Anim_Time + MATH.SIN(90) + q.life_time + q.delta_time",
            3.55,
        ),
        ("q.health", 7.0),
        ("q.max_health", 20.0),
        ("q.is_sneaking", 1.0),
        ("q.is_on_ground", 1.0),
        ("q.is_alive", 1.0),
        ("q.is_emoting", 1.0),
        ("q.is_swimming", 0.0),
        ("q.head_x_rotation(0)", 0.0),
        ("q.position(1)", 64.0),
        ("q.position(2)", -3.0),
        ("q.position(3)", 0.0),
        ("q.position_delta(0)", 0.1),
        ("q.movement_direction(0)", 1.0),
        ("q.is_item_equipped", 1.0),
        ("q.is_item_equipped()", 1.0),
        ("q.is_item_equipped('off_hand')", 0.0),
        ("q.is_item_equipped(1)", 0.0),
        ("q.is_item_equipped('slot.armor.head')", 1.0),
        ("q.is_item_equipped(q.anim_time - 1.25)", 1.0),
        ("q.is_item_equipped(7 * q.anim_time)", 0.0),
        ("q.item_is_charged", 1.0),
        ("q.item_is_charged('slot.weapon.offhand')", 0.0),
        (
            "q.is_item_name_any('main_hand', 'minecraft:bow', 'minecraft:crossbow')",
            1.0,
        ),
        ("q.is_item_name_any('slot.weapon', 'minecraft:bow')", 0.0),
        ("q.is_item_name_any(1, 'minecraft:crossbow')", 0.0),
        ("q.scoreboard('kills')", 12.0),
        ("q.scoreboard('deaths')", 0.0),
        ("q.any(2, 1, 2, 3)", 1.0),
        ("q.any(5, 1, 2, 3)", 0.0),
        ("q.any('a', 'b', 'a')", 1.0),
        ("q.any(1, '1')", 0.0),
        ("q.all(2, 2, 2)", 1.0),
        ("q.all(2, 2, 3)", 0.0),
        ("q.approx_eq(1, 1.00000001)", 1.0),
        ("q.approx_eq(1, 1.001)", 0.0),
        ("q.approx_eq(1000000, 1000000.01)", 1.0),
        ("q.in_range(2, 1, 3)", 1.0),
        ("q.in_range(3, 1, 3)", 1.0),
        ("q.in_range(4, 1, 3)", 0.0),
        ("q.count(1, 2, 3)", 3.0),
        ("q.count()", 0.0),
    ];
    let mut failures = Vec::new();
    for (source, expected) in rows {
        let got = run_with(source, &q);
        if (got - expected).abs() > 1e-9 {
            failures.push(format!("{source}: expected {expected}, got {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every scalar query compiles, and writing then reading it round-trips.
    for (name, query) in ScalarQuery::NAMES {
        let mut ctx = QueryContext::default();
        query.write(&mut ctx, 1.0);
        assert_eq!(run_with(&format!("q.{name}"), &ctx), 1.0, "q.{name}");
    }
    // No initiator: every player query is 0.
    let absent = QueryContext {
        player: PlayerState::absent(),
        ..QueryContext::default()
    };
    for (name, query) in ScalarQuery::NAMES {
        if !matches!(query, ScalarQuery::DeltaTime) {
            assert_eq!(run_with(&format!("q.{name}"), &absent), 0.0, "q.{name}");
        }
    }
}

#[test]
fn variables_persist_in_the_session_and_temps_do_not() {
    let ([tick, read], symbols, mut session) = compile_session([
        (
            "v.n = v.n + 1; t.k = (t.k ?? 0) + 1; return t.k;",
            CompileContext::Program,
        ),
        ("v.n * 10", CompileContext::Track),
    ]);
    let q = QueryContext::default();
    let mut rng = MolangRng::new(0);
    for _ in 0..3 {
        assert_eq!(tick.eval(&mut session, &q, &mut rng), 1.0);
    }
    assert_eq!(read.eval(&mut session, &q, &mut rng), 30.0);
    let slot = symbols.slot("variable.N").unwrap_or(usize::MAX);
    assert_eq!(symbols.slot("v.n"), Some(slot));
    assert_eq!(session.variable(slot), 3.0);
    assert!(session.is_set(slot));
    session.set_variable(slot, 5.0);
    assert_eq!(read.eval(&mut session, &q, &mut rng), 50.0);
    session.reset();
    assert!(!session.is_set(slot));
    assert_eq!(read.eval(&mut session, &q, &mut rng), 0.0);
    assert_eq!(symbols.variable_count(), 1);
}

#[test]
fn non_finite_results_are_returned() {
    assert_eq!(run("math.exp(1000)"), f64::INFINITY);
    assert!(run("math.exp(1000) - math.exp(1000)").is_nan());
}

/// Compiles `source` and renders the error.
fn error(source: &str, context: CompileContext) -> String {
    match compile(source, context, &mut Symbols::new()) {
        Ok(_) => panic!("{source}: compiled"),
        Err(e) => describe(&e, source),
    }
}

#[test]
fn compile_errors_render_with_character_spans() {
    use CompileContext::{Program as P, Track as T};
    let rows: &[(&str, CompileContext, &str)] = &[
        ("1 +", P, "expected an expression, found end of input at character 3 (end of input)"),
        ("1 + )", P, "expected an expression, found `)` at characters 4..5: `)`"),
        ("(1 + 2", P, "expected `)`, found end of input at character 6 (end of input)"),
        ("1 2", P, "expected `;` or an operator, found the number `2` at characters 2..3: `2`"),
        ("v.x = 1; v.x", P, "the last statement needs a `;` (a program with `;` gets its value from `return`, e.g. `return t.a;`) at characters 9..12: `v.x`"),
        ("q.anim_tme * 2", P, "unknown query `q.anim_tme` at characters 0..10: `q.anim_tme`"),
        ("é + q.nope", P, "unexpected character `é` at characters 0..1: `é`"),
        ("'é' == q.nope", P, "unknown query `q.nope` at characters 7..13: `q.nope`"),
        ("math.sine(1)", P, "unknown math function `math.sine` at characters 0..9: `math.sine`"),
        ("math.sin(1, 2)", P, "`math.sin` takes 1 argument, found 2 at characters 0..14: `math.sin(1, 2)`"),
        ("math.sin", P, "`math.sin` is a function: call it with arguments, e.g. `math.sin(0)` at characters 0..8: `math.sin`"),
        ("q.anim_time = 1", P, "`q.anim_time` is read-only: only `v.` and `t.` names can be assigned at characters 0..11: `q.anim_time`"),
        ("q.nope = 1", P, "unknown query `q.nope` at characters 0..6: `q.nope`"),
        ("c.x = 1", P, "`c.x` is read-only: only `v.` and `t.` names can be assigned at characters 0..3: `c.x`"),
        ("t.a = 1; v.b = t.a;", T, "a track value may read `v.b` but not assign it: assign `v.` in `molang.initialize` or `molang.tick`, or use a `t.` temporary at characters 9..12: `v.b`"),
        ("1 + 2 = 3", P, "only `v.` and `t.` names can be assigned with `=` at characters 0..5: `1 + 2`"),
        ("foo + 1", P, "`foo` is not a Molang name: names start with `v.`, `t.`, `c.`, `q.` or `math.` (or `variable.`, `temp.`, `context.`, `query.`) at characters 0..3: `foo`"),
        ("break;", P, "`break` must be inside `loop` or `for_each` at characters 0..5: `break`"),
        ("this * 2", P, "`this` is not supported by emoted at characters 0..4: `this`"),
        ("v.a->q.x", P, "the arrow operator `->` is not supported by emoted at characters 3..5: `->`"),
        ("'abc", P, "this string has no closing `'` at characters 0..4: `'abc`"),
        ("q.scoreboard(v.x)", P, "argument of `q.scoreboard` must be a string literal such as 'minecraft:bow' at characters 13..16: `v.x`"),
        ("q.is_item_equipped('belt')", P, "unknown item slot `belt`: use main_hand, off_hand, slot.weapon, slot.weapon.mainhand, slot.weapon.offhand, slot.armor.head, slot.armor.chest, slot.armor.legs, slot.armor.feet, 0 or 1 at characters 19..25: `'belt'`"),
        ("q.position", P, "`q.position` is a function: call it with arguments, e.g. `q.position(0)` at characters 0..10: `q.position`"),
        ("q.anim_time(1)", P, "`q.anim_time` takes no arguments, found 1 at characters 0..14: `q.anim_time(1)`"),
        ("q.in_range(1, 2)", P, "`q.in_range` takes 3 arguments, found 2 at characters 0..16: `q.in_range(1, 2)`"),
        ("'text' + 1", P, "a string cannot be an operand of `+`: strings can only be compared with `==` and `!=` or passed to query functions at characters 0..6: `'text'`"),
        ("math.abs('a')", P, "a string cannot be an operand of `math.abs`: strings can only be compared with `==` and `!=` or passed to query functions at characters 9..12: `'a'`"),
        ("for_each(q.x, 1, 2)", P, "the first argument of `for_each` must be a `t.` (or, in programs, `v.`) variable at characters 9..12: `q.x`"),
    ];
    let mut failures = Vec::new();
    for (source, context, expected) in rows {
        let got = error(source, *context);
        if got != *expected {
            failures.push(format!(
                "{source}\n  expected: {expected}\n  got:      {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn tracks_may_read_variables_and_assign_temps() {
    let mut symbols = Symbols::new();
    assert!(compile(
        "t.a = v.speed * 2; return t.a;",
        CompileContext::Track,
        &mut symbols
    )
    .is_ok());
    assert_eq!(symbols.slot("speed"), Some(0));
}

#[test]
fn depth_and_length_limits_are_errors_not_crashes() {
    let deep_parens = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    assert!(matches!(
        compile(&deep_parens, CompileContext::Program, &mut Symbols::new()),
        Err(MolangError::TooDeep { .. })
    ));
    let long_chain = vec!["1"; 5000].join("+");
    assert!(matches!(
        compile(&long_chain, CompileContext::Program, &mut Symbols::new()),
        Err(MolangError::TooDeep { .. })
    ));
    let negations = format!("{}1", "-".repeat(8000));
    assert!(matches!(
        compile(&negations, CompileContext::Program, &mut Symbols::new()),
        Err(MolangError::TooDeep { .. })
    ));
    // At the limit it compiles and evaluates.
    let ok_chain = vec!["1"; parser::MAX_DEPTH as usize].join("+");
    assert_eq!(run(&ok_chain), f64::from(parser::MAX_DEPTH));
    let too_long = "1+".repeat(8200) + "1";
    assert!(matches!(
        compile(&too_long, CompileContext::Program, &mut Symbols::new()),
        Err(MolangError::TooLong { .. })
    ));
}

#[test]
fn standalone_evaluation_for_the_cli() {
    let sets = [("v.x".to_string(), 2.0), ("variable.Y".to_string(), 3.0)];
    assert_eq!(evaluate_standalone("v.x * v.y", &sets), Ok(6.0));
    assert_eq!(
        evaluate_standalone("q.anim_time * 2", &[("q.anim_time".into(), 1.5)]),
        Ok(3.0)
    );
    assert_eq!(evaluate_standalone("v.z = 4; return v.z;", &[]), Ok(4.0));
    assert!(evaluate_standalone("q.nope", &[])
        .is_err_and(|e| e.contains("unknown query `q.nope` at characters 0..6")));
    assert!(evaluate_standalone("1", &[("x.y".into(), 1.0)]).is_err());
}

#[test]
fn printed_trees_reparse_to_the_same_tree() {
    for source in [
        "1 + 2 * 3",
        "v.a = (v.b = 3) + 1; return v.a + v.b;",
        "1 ? 0 ? 3 : 4 : 5",
        "v.a_ok ?? 1",
        "loop(3, { t.x = t.x + 1; (t.x > 1) ? break; }); return t.x;",
        "for_each(t.e, q.count(1), { continue; });",
        "-(-2) - -3 * !q.is_moving",
        "q.is_item_name_any('main_hand', 'minecraft:bow') && 'a' != 'b'",
        "(1 > 0) ? return; return 2.5e-7;",
    ] {
        let Ok(ast) = parser::parse(source) else {
            continue;
        };
        let printed = printer::print(&ast);
        let reparsed = parser::parse(&printed).unwrap_or_else(|e| panic!("{printed}: {e}"));
        assert_eq!(
            ast.without_spans(),
            reparsed.without_spans(),
            "{source} -> {printed}"
        );
    }
}

#[test]
fn compiled_nodes_stay_small() {
    // The evaluator copies nodes out of the arena; keep them two words.
    assert!(
        std::mem::size_of::<super::program::Node>() <= 16,
        "{}",
        std::mem::size_of::<super::program::Node>()
    );
}

#[test]
fn cycle_invariance_is_about_randomness_and_what_a_program_reads() {
    let invariant = |src: &str| {
        compiled(src, CompileContext::Program, &mut Symbols::new()).is_cycle_invariant()
    };
    assert!(invariant("math.sin(q.anim_time * 90) * 5"));
    assert!(invariant("v.x = q.anim_time; return v.x * 2;"));
    assert!(invariant(
        "q.key_frame_lerp_time + q.anim_length + q.delta_time"
    ));
    assert!(!invariant("math.random(0, 1)"));
    assert!(!invariant("math.die_roll(2, 1, 6)"));
    assert!(!invariant("q.loop_count * 0.1"));
    assert!(!invariant("q.life_time"));
    assert!(!invariant("q.head_y_rotation"));
}
