//! Molang: the expression language of Animation programs and track values.
//!
//! Source strings are [parsed](parser::parse) with spans, [`compile`]d once
//! at load into an immutable [`Program`], and evaluated each tick with
//! [`Program::eval`] against a per-playback [`Session`], the tick's
//! [`QueryContext`] and a seeded [`MolangRng`], without allocating.
//!
//! ```
//! use emoted::molang::{compile, CompileContext, MolangRng, QueryContext, Session, Symbols};
//!
//! let mut symbols = Symbols::new();
//! let init = compile("v.speed = 90;", CompileContext::Program, &mut symbols).unwrap();
//! let track = compile("math.sin(q.anim_time * v.speed) * 5", CompileContext::Track, &mut symbols).unwrap();
//! let mut session = Session::new(&symbols);
//! let mut rng = MolangRng::new(7);
//! let mut queries = QueryContext::default();
//! init.eval(&mut session, &queries, &mut rng);
//! queries.anim_time_secs = 1.0;
//! assert!((track.eval(&mut session, &queries, &mut rng) - 5.0).abs() < 1e-12);
//! ```
//!
//! # The language (Bedrock's current rules; molang-notes.md, anchor-molang.md)
//! - Numbers are `f64`; `true`/`false` are 1/0; literals may be `0012`,
//!   `.5`, `2.5e2`, `1.5f`. Strings are `'single quoted'`, no escapes,
//!   compared case-sensitively with `==`/`!=` only.
//! - Names are case-insensitive; `variable.`/`temp.`/`context.`/`query.` are
//!   `v.`/`t.`/`c.`/`q.`. A dotted path such as `v.loc.x` is one flat name.
//! - Precedence, tightest first: `!` and unary `-`; `*` `/`; `+` `-`;
//!   `<` `<=` `>` `>=`; `==` `!=`; `&&`; `||`; `?:` and binary `?`
//!   (right-associative); `??`; `=`; `return` (see [`parser`]).
//! - A single expression's value is its result. A program with `;` runs its
//!   statements and is worth 0 unless `return` runs; its last statement must
//!   end in `;` too (inside `{}` the last `;` may be left out).
//! - `{}` blocks, `loop(count, body)` (count truncated, at most
//!   [`MAX_LOOP_ITERATIONS`]), `break`, `continue`; `for_each` compiles but
//!   iterates zero times (emoted has no arrays). Blocks, loops and
//!   `for_each` are worth 0; an assignment is worth the assigned value.
//! - Unset `v.`/`t.`/`c.` names read 0, and `a ?? b` is `b` exactly when `a`
//!   is an unset name. emoted supplies no `c.` values.
//! - Errors are 0 at the operation that failed: `x / 0`, `math.sqrt(-1)`,
//!   `math.mod(x, 0)`, `math.ln(0)`, a variable holding a string read as a
//!   number. Overflow to infinity is not an error and is returned; playback
//!   stops on it.
//! - Refused at compile time, with the span: syntax errors, unknown `q.`
//!   and `math.` names, wrong argument counts, assigning `q.`/`c.`/`math.`,
//!   assigning `v.` in a track ([`CompileContext::Track`]), `break` outside a
//!   loop, a string literal as an operand of arithmetic, ordering, `!`, `-`,
//!   `&&`, `||` or a math function, `this`, `->`, `[]`.
//!
//! # The operation budget
//! A program is at most [`MAX_SOURCE_CHARS`] long, nested at most
//! [`parser::MAX_DEPTH`] deep, and Molang has no recursion or functions of
//! its own, so a program without loops does a small, bounded amount of work.
//! Only `loop` repeats (`for_each` iterates zero times), and nested loops
//! multiply: `loop(1024, {loop(1024, {loop(16, {v.x = v.x + 1;});});})`
//! is within every loop's cap and still runs about 70 million operations.
//! So only loop iterations are charged: loop-free programs are never
//! charged and pay nothing measurable (the `molang_eval` benches are
//! unchanged; the only bookkeeping is one counter copied in and out).
//!
//! - An **operation** is one compiled node evaluated: a constant, a name,
//!   an arithmetic or logic step, a function call, an assignment, a
//!   statement list. A die roll (`math.die_roll*`) is 1 plus its dice (its
//!   constant count, or [`MAX_DICE`] when computed), and
//!   `q.is_item_name_any` 1 plus its item ids, as they do that much more.
//! - Each iteration of a `loop` is charged, before it runs, its body's
//!   **weight**: the operations in the body, computed once at compile time.
//!   A loop nested in the body weighs 1 plus its count expression there;
//!   its own iterations are charged when it runs.
//! - A [`Session`] holds the budget its evaluations share: unlimited
//!   until [`Session::set_op_budget`] (a playback refills it every tick,
//!   [`DEFAULT_OP_BUDGET`] unless the server is configured otherwise).
//!   When an iteration would cost more than is left, the evaluation ends at
//!   once (like a `return` through every loop; assignments made so far
//!   stay), [`Session::is_out_of_ops`] becomes true, [`Program::try_eval`]
//!   returns [`BudgetExceeded`] and [`Program::eval`] NaN.
//! - [`Program::worst_case_ops`] is the most one evaluation can be charged:
//!   each loop's iterations (a constant count clamped to
//!   [`MAX_LOOP_ITERATIONS`], a computed count as that many) multiplied
//!   through the loops around it, times its body's weight; both branches
//!   of a condition count. `emoted check` warns when it is over
//!   [`DEFAULT_OP_BUDGET`].
//!
//! # Decisions where the sources are silent or disagree
//! - `math.sign(0)` is -1 (the docs: "1 if positive, -1 otherwise");
//!   `math.copy_sign(a, 0)` is |a|; `math.round` breaks ties away from zero.
//! - `math.lerprotate(a, b, t)` is `a + min_angle(b - a) * t`, not wrapped.
//! - `math.lerp` does not clamp; `math.inverse_lerp(a, a, x)` is 0.
//! - Inverse trigonometry returns degrees. `math.random_integer` includes
//!   both ends; `math.die_roll*` rolls at most [`MAX_DICE`] dice.
//! - `math.ease_*` are the standard (easings.net) curves, `t` unclamped.
//! - `q.approx_eq` tolerance: 1e-7 × max(1, |a|, |b|).
//! - Item slot and item id arguments, and scoreboard objectives, must be
//!   literals (so they are checked at load).

mod ast;
mod budget;
mod compile;
pub mod ease;
mod error;
mod eval;
mod lexer;
mod math;
pub mod parser;
pub mod printer;
mod program;
mod query;
#[cfg(test)]
mod tests;

pub use ast::{Ast, BinaryOp, Expr, ExprKind, Name, Namespace, UnaryOp};
pub use budget::{BudgetExceeded, DEFAULT_OP_BUDGET};
pub use compile::{CompileContext, Symbols};
pub use error::{describe, MolangError};
pub use eval::{Session, MAX_LOOP_ITERATIONS};
pub use math::{MolangRng, MAX_DICE};
pub use program::Program;
pub use query::{ItemSlot, ItemState, PlayerState, QueryContext, Scalar as ScalarQuery};

/// The longest source string, in characters (the format layer checks it
/// too; [`compile`] refuses longer strings itself).
pub const MAX_SOURCE_CHARS: usize = 16_384;

/// A byte range `start..end` in a Molang source string.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// Parses and compiles `source`, resolving `v.*` names to slots in
/// `symbols`. The one place Molang errors come from.
pub fn compile(
    source: &str,
    context: CompileContext,
    symbols: &mut Symbols,
) -> Result<Program, MolangError> {
    let chars = source.chars().count();
    if chars > MAX_SOURCE_CHARS {
        let cut = source
            .char_indices()
            .nth(MAX_SOURCE_CHARS)
            .map_or(source.len(), |(i, _)| i);
        return Err(MolangError::TooLong {
            found: chars,
            limit: MAX_SOURCE_CHARS,
            span: Span {
                start: u32::try_from(cut).unwrap_or(u32::MAX),
                end: u32::try_from(source.len()).unwrap_or(u32::MAX),
            },
        });
    }
    let ast = parser::parse(source)?;
    compile::compile_ast(&ast, context, symbols)
}

/// Evaluates one expression or program for `emoted molang EXPR [--set NAME=VALUE]`.
///
/// Compiled as a root program (it may assign `v.*`). `sets` are applied
/// first: `v.x`/`variable.x` set a variable, and any scalar query name
/// (`q.anim_time`, `query.health`, `q.is_sneaking`...) sets what that query
/// reads. Queries otherwise read [`QueryContext::default`] (time 0, a player
/// standing still, alive, full health); randomness uses seed 0. Errors are
/// the [`describe`] line.
pub fn evaluate_standalone(source: &str, sets: &[(String, f64)]) -> Result<f64, String> {
    let mut symbols = Symbols::new();
    let program =
        compile(source, CompileContext::Program, &mut symbols).map_err(|e| describe(&e, source))?;
    let mut queries = QueryContext::default();
    let mut variables = Vec::new();
    for (name, value) in sets {
        let lower = name.trim().to_ascii_lowercase();
        let (prefix, rest) = lower.split_once('.').unwrap_or(("", &lower));
        match Namespace::from_prefix(prefix) {
            Some(Namespace::Variable) if !rest.is_empty() => {
                variables.push((symbols.slot_or_insert(rest), *value));
            }
            Some(Namespace::Query) => match query::Scalar::from_name(rest) {
                Some(q) => q.write(&mut queries, *value),
                None => return Err(format!("`--set {name}`: unknown scalar query `q.{rest}`")),
            },
            _ => {
                return Err(format!(
                    "`--set {name}`: set `v.NAME` (or `variable.NAME`) or a query such as `q.anim_time`"
                ))
            }
        }
    }
    let mut session = Session::new(&symbols);
    for (slot, value) in variables {
        session.set_variable(slot, value);
    }
    let mut rng = MolangRng::new(0);
    Ok(program.eval(&mut session, &queries, &mut rng))
}
