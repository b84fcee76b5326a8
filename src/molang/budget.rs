//! The operation budget at compile time: each loop body's weight (what one
//! iteration is charged) and each program's worst case. The model is in
//! the module docs ("The operation budget"); the charging is in `eval`.

use super::eval::loop_iterations;
use super::math::{dice, Math3};
use super::program::{Node, NodeId, Program, Slot, SlotArg, NO_NODE};
use super::MAX_LOOP_ITERATIONS;

/// The operations a playback's Molang may use in one tick unless the
/// server says otherwise (`molang_budget_ops` in `emoted.toml`): 50,000.
/// A release build runs that many loop-body operations in about 0.15 ms
/// (`loop(125, {loop(100, {v.x = v.x + 1;});})`, 50,375 operations, took
/// 151 µs in a criterion bench built like `molang_eval`'s, on a 2-core
/// development machine: about 3 ns an operation), so even a few dozen
/// playbacks spending all of it every tick leave most of the 50 ms tick.
/// No bundled emote uses a loop.
pub const DEFAULT_OP_BUDGET: u64 = 50_000;

/// An evaluation stopped because a loop iteration would have gone past the
/// session's operation budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Molang ran out of its budget of {budget_ops} operations (a loop would have gone past it); use fewer or shorter loops")]
pub struct BudgetExceeded {
    /// The budget the session was given ([`Session::set_op_budget`](super::Session::set_op_budget)).
    pub budget_ops: u64,
}

/// Fills in every loop's body weight and the program's worst case, in one
/// pass over the arena (children come before their parents).
pub(crate) fn weigh_loops(program: &mut Program) {
    let count = program.nodes.len();
    // Per node: its weight inside a loop body, and the most operations one
    // evaluation of it can be charged.
    let mut weights = vec![0u64; count];
    let mut worst = vec![0u64; count];
    for index in 0..count {
        let Some(&node) = program.nodes.get(index) else {
            break;
        };
        let at = |values: &[u64], child: NodeId| {
            debug_assert!((child as usize) < index, "a child after its parent");
            values.get(child as usize).copied().unwrap_or(0)
        };
        let (weight, charged) = match node {
            Node::Loop(count, body, _) => {
                let body_weight = u32::try_from(at(&weights, body)).unwrap_or(u32::MAX);
                let iterations = match program.nodes.get(count as usize) {
                    Some(Node::Const(n)) => loop_iterations(*n),
                    _ => MAX_LOOP_ITERATIONS,
                };
                let per_iteration = u64::from(body_weight).saturating_add(at(&worst, body));
                let charged = at(&worst, count)
                    .saturating_add(per_iteration.saturating_mul(u64::from(iterations)));
                if let Some(slot) = program.nodes.get_mut(index) {
                    *slot = Node::Loop(count, body, body_weight);
                }
                // Inside an outer body a loop weighs 1 plus its count: its
                // iterations are charged by itself.
                (1 + at(&weights, count), charged)
            }
            _ => {
                let mut weight = own_weight(&program.nodes, node);
                let mut charged = 0u64;
                children(node, &program.lists, |child| {
                    weight = weight.saturating_add(at(&weights, child));
                    charged = charged.saturating_add(at(&worst, child));
                });
                (weight, charged)
            }
        };
        if let (Some(w), Some(c)) = (weights.get_mut(index), worst.get_mut(index)) {
            *w = weight;
            *c = charged;
        }
    }
    program.worst_case_ops = worst.get(program.root as usize).copied().unwrap_or(0);
}

/// A node's own weight: 1, plus the dice of a die roll (its constant count,
/// or every die it may roll) and the item ids `q.is_item_name_any`
/// compares.
fn own_weight(nodes: &[Node], node: Node) -> u64 {
    match node {
        Node::Math3(Math3::DieRoll | Math3::DieRollInteger, count, _, _) => {
            let dice = match nodes.get(count as usize) {
                Some(Node::Const(n)) => dice(*n),
                _ => super::MAX_DICE as u32,
            };
            1 + u64::from(dice)
        }
        Node::ItemNameAny(_, _, len) => 1 + u64::from(len),
        _ => 1,
    }
}

/// Calls `f` with every child `node` evaluates (loops included).
fn children(node: Node, lists: &[NodeId], mut f: impl FnMut(NodeId)) {
    let mut one = |id: NodeId| {
        if id != NO_NODE {
            f(id);
        }
    };
    let slot = |slot: SlotArg, one: &mut dyn FnMut(NodeId)| {
        if let Slot::Dynamic(id) = slot.unpack() {
            one(id);
        }
    };
    match node {
        Node::Const(_)
        | Node::Str(_)
        | Node::Var(_)
        | Node::Temp(_)
        | Node::Context
        | Node::Scalar(_)
        | Node::ScalarK(..)
        | Node::Break
        | Node::Continue
        | Node::Scoreboard(_) => {}
        Node::Math1(_, a)
        | Node::Neg(a)
        | Node::Not(a)
        | Node::BinaryK(_, a, _)
        | Node::KBinary(_, _, a)
        | Node::SetVar(_, a)
        | Node::SetTemp(_, a)
        | Node::ForEach(a)
        | Node::Return(a)
        | Node::Axis(_, a) => one(a),
        Node::Math2(_, a, b)
        | Node::Binary(_, a, b)
        | Node::And(a, b)
        | Node::Or(a, b)
        | Node::Coalesce(a, b)
        | Node::Loop(a, b, _) => {
            one(a);
            one(b);
        }
        Node::Math3(_, a, b, c) | Node::Cond(a, b, c) | Node::InRange(a, b, c) => {
            one(a);
            one(b);
            one(c);
        }
        Node::Block(start, len) | Node::Compare(_, start, len) | Node::Count(start, len) => {
            let start = start as usize;
            for &id in lists.get(start..start + len as usize).unwrap_or(&[]) {
                one(id);
            }
        }
        Node::Item(_, s) | Node::ItemNameAny(s, _, _) => slot(s, &mut one),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::{compile, CompileContext, MolangRng, QueryContext, Session, Symbols};
    use super::*;

    fn program(source: &str) -> (Program, Symbols) {
        let mut symbols = Symbols::new();
        match compile(source, CompileContext::Program, &mut symbols) {
            Ok(p) => (p, symbols),
            Err(e) => panic!("{source}: {e}"),
        }
    }

    /// A session for `symbols` that may spend `budget_ops` operations.
    fn budgeted(symbols: &Symbols, budget_ops: u64) -> Session {
        let mut session = Session::new(symbols);
        session.set_op_budget(budget_ops);
        session
    }

    /// Evaluates `program` once in `session`, with default queries and a
    /// generator seeded with `seed`, stopping where the budget runs out.
    fn try_eval_once(
        program: &Program,
        session: &mut Session,
        seed: u64,
    ) -> Result<f64, BudgetExceeded> {
        program.try_eval(session, &QueryContext::default(), &mut MolangRng::new(seed))
    }

    /// Evaluates `program` once in `session`, with default queries (NaN
    /// where the budget runs out).
    fn eval_once(program: &Program, session: &mut Session) -> f64 {
        program.eval(session, &QueryContext::default(), &mut MolangRng::new(1))
    }

    /// Evaluates `source` with `budget` ops; returns the result and the session.
    fn run(source: &str, budget: u64) -> (Result<f64, BudgetExceeded>, Session) {
        let (program, symbols) = program(source);
        let mut session = budgeted(&symbols, budget);
        (try_eval_once(&program, &mut session, 1), session)
    }

    const NESTED: &str = "loop(1024, {loop(1024, {loop(16, {v.x = v.x + 1;});});});";

    #[test]
    fn loop_free_programs_cost_nothing() {
        for source in [
            "math.sin(q.anim_time * 90) * 5",
            "v.a = 1; v.b = v.a ? 2 : 3; return v.b;",
            "math.die_roll(1024, 1, 6)",
        ] {
            let (program, _) = program(source);
            assert_eq!(program.worst_case_ops(), 0, "{source}");
            let (result, session) = run(source, 0);
            assert!(
                result.is_ok(),
                "{source}: a loop-free program needs no budget"
            );
            assert_eq!(session.ops_used(), 0);
            assert!(!session.is_out_of_ops());
        }
    }

    #[test]
    fn each_iteration_costs_its_bodys_weight() {
        // Body `{v.x = v.x + 1;}`: block, assignment, `+ 1`, `v.x`: 4.
        let (result, session) = run("loop(10, {v.x = v.x + 1;}); return v.x;", 1000);
        assert_eq!(result, Ok(10.0));
        assert_eq!(session.ops_used(), 40);
        let (program, _) = program("loop(10, {v.x = v.x + 1;}); return v.x;");
        assert_eq!(program.worst_case_ops(), 40);
        // A nested loop weighs 1 plus its count in the outer body, and its
        // own iterations are charged by itself: 3 × (block + loop + `5`)
        // + 3 × 5 × 4.
        let (result, session) = run("loop(3, {loop(5, {v.x = v.x + 1;});}); return v.x;", 1000);
        assert_eq!(result, Ok(15.0));
        assert_eq!(session.ops_used(), 3 * 3 + 3 * 5 * 4);
        // Break stops the charging.
        let (result, session) = run(
            "loop(100, {v.i = v.i + 1; (v.i >= 2) ? break;}); return v.i;",
            1000,
        );
        assert_eq!(result, Ok(2.0));
        assert!(session.ops_used() < 40, "{}", session.ops_used());
    }

    #[test]
    fn running_out_ends_the_evaluation_and_is_recorded() {
        let (result, session) = run("loop(10, {v.x = v.x + 1;}); v.after = 1; return v.x;", 20);
        assert_eq!(result, Err(BudgetExceeded { budget_ops: 20 }));
        assert!(session.is_out_of_ops());
        assert_eq!(session.ops_used(), 20);
        assert_eq!(session.variable(0), 5.0, "five iterations fit in 20 ops");
        assert!(!session.is_set(1), "nothing after the loop runs");
        // `eval` gives NaN; a refill clears the flag.
        let (program, symbols) = program(NESTED);
        let mut session = budgeted(&symbols, DEFAULT_OP_BUDGET);
        assert!(eval_once(&program, &mut session).is_nan());
        assert!(session.is_out_of_ops());
        assert!(session.ops_used() <= DEFAULT_OP_BUDGET);
        session.set_op_budget(10);
        assert!(!session.is_out_of_ops());
        assert_eq!(session.ops_used(), 0);
    }

    #[test]
    fn sessions_are_unlimited_by_default() {
        let (program, symbols) =
            program("loop(1024, {loop(1024, {v.x = v.x + 1;});}); return v.x;");
        let mut session = Session::new(&symbols);
        assert_eq!(eval_once(&program, &mut session), 1024.0 * 1024.0);
        assert_eq!(session.op_budget(), u64::MAX);
        assert!(!session.is_out_of_ops());
    }

    #[test]
    fn worst_cases_multiply_through_the_nesting() {
        // Innermost body 4; middle body block + loop + 16 = 3; outer the same.
        let (nested, _) = program(NESTED);
        assert_eq!(nested.worst_case_ops(), 1024 * (3 + 1024 * (3 + 16 * 4)));
        assert!(nested.worst_case_ops() > DEFAULT_OP_BUDGET);
        for (source, expected) in [
            // A computed count may be the most.
            ("loop(v.n, {v.x = v.x + 1;});", 1024 * 4),
            // Clamped, truncated, none.
            ("loop(5000, {v.x = v.x + 1;});", 1024 * 4),
            ("loop(2.9, {v.x = v.x + 1;});", 2 * 4),
            ("loop(-1, {v.x = v.x + 1;});", 0),
            // Both branches count (block, `?:`, `v.c`, two blocks of two);
            // a die roll weighs 1 plus its dice (block, assignment, three
            // arguments).
            ("loop(2, {v.c ? {v.x = 1;} : {v.y = 2;};});", 2 * 9),
            ("loop(2, {v.x = math.die_roll(3, 1, 6);});", 2 * (5 + 4)),
            (
                "loop(2, {v.x = math.die_roll(v.n, 1, 6);});",
                2 * (5 + 1025),
            ),
            // for_each never iterates.
            ("for_each(t.e, 5, { v.hit = 1; });", 0),
        ] {
            let (p, _) = program(source);
            assert_eq!(p.worst_case_ops(), expected, "{source}");
        }
        // Deep nesting saturates instead of overflowing.
        let deep = "loop(1024, {".repeat(8) + "v.x = 1;" + &"});".repeat(8);
        assert_eq!(program(&deep).0.worst_case_ops(), u64::MAX);
    }

    /// A random statement for a loop body: a leaf (counting, break,
    /// continue, return, a die roll) or a nested loop.
    fn statement() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("v.x = v.x + 1;".to_owned()),
            Just("v.i = v.i + 1;".to_owned()),
            Just("(v.i > 3) ? break;".to_owned()),
            Just("(math.mod(v.x, 3) == 0) ? continue;".to_owned()),
            Just("(v.x > 40) ? return v.x;".to_owned()),
            Just("v.r = math.die_roll(2, 1, 6);".to_owned()),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| a_loop(inner.boxed()))
    }

    /// `loop(count, {body})` with a constant or computed count.
    fn a_loop(body: BoxedStrategy<String>) -> impl Strategy<Value = String> {
        (
            prop_oneof![
                (0u32..6).prop_map(|n| n.to_string()),
                Just("math.mod(v.i, 4)".to_owned()),
                Just("math.mod(v.x, 5)".to_owned())
            ],
            prop::collection::vec(body, 1..4),
        )
            .prop_map(|(count, body)| format!("loop({count}, {{{}}});", body.concat()))
    }

    proptest! {
        #[test]
        fn runtime_charges_never_exceed_the_worst_case(
            statements in prop::collection::vec(a_loop(statement().boxed()), 1..4),
            start in 0.0f64..6.0,
        ) {
            let source = format!("v.i = {start}; {}", statements.concat());
            let (program, symbols) = program(&source);
            let mut session = budgeted(&symbols, u64::MAX);
            prop_assert!(try_eval_once(&program, &mut session, 3).is_ok());
            prop_assert!(session.ops_used() <= program.worst_case_ops(),
                "{source}: used {}, worst case {}", session.ops_used(), program.worst_case_ops());
            // A budget of the worst case is always enough; one less than
            // what was used never is.
            let used = session.ops_used();
            let mut again = budgeted(&symbols, program.worst_case_ops());
            prop_assert!(try_eval_once(&program, &mut again, 3).is_ok());
            if used > 0 {
                let mut short = budgeted(&symbols, used - 1);
                prop_assert!(try_eval_once(&program, &mut short, 3).is_err());
            }
        }
    }
}
