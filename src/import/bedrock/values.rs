//! Keyframe values as both formats write them: a number, a numeric
//! string, or a Molang expression, compiled once with emoted's own
//! [`crate::molang`] and read at every sampled tick.
//!
//! # Molang in a keyframe
//! - `q.anim_time` and `q.life_time` are the animation's time in seconds
//!   (the emote is sampled from its start, so both agree),
//!   `q.anim_length` its length; trigonometry takes degrees, as in
//!   Bedrock.
//! - A `q.` name emoted does not know is read as 0 (the expression is
//!   compiled again with that name replaced by `0`), with a note. Other
//!   known queries read emoted's defaults (a player standing still,
//!   alive, on the ground), with a note: the motion is baked, so it cannot
//!   follow the player.
//! - A `v.`/`c.` name the expression does not set itself is unset and
//!   reads 0, with a note; `v.` assignments persist from one evaluation to
//!   the next, in sampling order (time order, every channel of a tick).
//! - An expression emoted cannot compile at all (`this`, `->`, a syntax
//!   error) is the axis's default value, with a note quoting the error.
//! - A non-finite result reads 0, and so does an expression whose loops
//!   run past the runtime's per-tick operation budget.

use std::collections::BTreeSet;

use serde_json::Value;

use super::curves::{Resolve, Scalar};
use crate::import::Note;
use crate::molang::{
    compile, describe, parser, CompileContext, Expr, ExprKind, MolangError, MolangRng, Namespace,
    Program, QueryContext, Session, Symbols, DEFAULT_OP_BUDGET,
};

/// How many unknown queries one expression may have replaced.
const MAX_REPLACEMENTS: usize = 16;
/// Queries that read the animation's clock.
const TIME_QUERIES: &[&str] = &[
    "anim_time",
    "life_time",
    "anim_time_ticks",
    "anim_length",
    "delta_time",
];

/// Every Molang expression of one source file, compiled against one
/// symbol table (so `v.` names are shared the way one entity shares them).
#[derive(Debug, Default)]
pub struct Expressions {
    symbols: Symbols,
    programs: Vec<Program>,
    sources: Vec<String>,
}

impl Expressions {
    /// No expressions yet.
    pub fn new() -> Expressions {
        Expressions::default()
    }

    /// How many distinct expressions were compiled.
    pub fn len(&self) -> usize {
        self.programs.len()
    }

    /// True when no expression was compiled.
    pub fn is_empty(&self) -> bool {
        self.programs.is_empty()
    }

    /// `value` (a number, a numeric string, an empty string or null for
    /// `default`, or Molang) as a [`Scalar`]; notes for every lossy step
    /// at `pointer`. `None` when it is neither a number nor a string.
    pub fn scalar(
        &mut self,
        value: &Value,
        default: f64,
        pointer: &str,
        notes: &mut Vec<Note>,
    ) -> Option<Scalar> {
        match value {
            Value::Number(n) => Some(Scalar::Number(n.as_f64().unwrap_or(default))),
            Value::String(text) => Some(self.text(text, default, pointer, notes)),
            Value::Null => Some(Scalar::Number(default)),
            _ => None,
        }
    }

    /// A string value (module guide).
    pub fn text(
        &mut self,
        text: &str,
        default: f64,
        pointer: &str,
        notes: &mut Vec<Note>,
    ) -> Scalar {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Scalar::Number(default);
        }
        if let Ok(n) = trimmed.parse::<f64>() {
            if n.is_finite() {
                return Scalar::Number(n);
            }
        }
        if let Some(index) = self.sources.iter().position(|s| s == trimmed) {
            return Scalar::Molang { index, sign: 1.0 };
        }
        let mut source = trimmed.to_owned();
        for _ in 0..MAX_REPLACEMENTS {
            match compile(&source, CompileContext::Program, &mut self.symbols) {
                Ok(program) => {
                    note_reads(&source, pointer, notes);
                    self.programs.push(program);
                    self.sources.push(trimmed.to_owned());
                    return Scalar::Molang {
                        index: self.programs.len() - 1,
                        sign: 1.0,
                    };
                }
                Err(MolangError::UnknownQuery { name, span }) => {
                    let (start, end) = (span.start as usize, span.end as usize);
                    if source.get(start..end).is_none() || start >= end {
                        break;
                    }
                    notes.push(Note::new(
                        pointer,
                        format!(
                            "`q.{name}` is not a query emoted knows; it reads 0 in `{trimmed}`"
                        ),
                    ));
                    source.replace_range(start..end, "0");
                }
                Err(error) => {
                    notes.push(Note::new(
                        pointer,
                        format!(
                            "`{trimmed}` is not Molang emoted can run ({}); the value is {default}",
                            describe(&error, &source)
                        ),
                    ));
                    return Scalar::Number(default);
                }
            }
        }
        notes.push(Note::new(
            pointer,
            format!("`{trimmed}` is not Molang emoted can run; the value is {default}"),
        ));
        Scalar::Number(default)
    }

    /// An evaluator for sampling an animation `length_secs` long.
    pub fn evaluator(&self, length_secs: f64) -> Evaluator<'_> {
        let queries = QueryContext {
            anim_length_secs: length_secs,
            ..QueryContext::default()
        };
        let mut session = Session::new(&self.symbols);
        session.set_op_budget(DEFAULT_OP_BUDGET);
        Evaluator {
            programs: &self.programs,
            session,
            queries,
            rng: MolangRng::new(0),
        }
    }
}

/// Reads [`Scalar`]s at one time of one animation.
pub struct Evaluator<'a> {
    programs: &'a [Program],
    session: Session,
    queries: QueryContext,
    rng: MolangRng,
}

impl Evaluator<'_> {
    /// Sets the time expressions read (`q.anim_time`, `q.life_time`),
    /// seconds. Each time is one tick: the loop budget is refilled.
    pub fn set_time_secs(&mut self, time_secs: f64) {
        self.queries.anim_time_secs = time_secs;
        self.session.refill_ops();
    }
}

impl Resolve for Evaluator<'_> {
    fn resolve(&mut self, scalar: Scalar) -> f64 {
        match scalar {
            Scalar::Number(n) => n,
            Scalar::Molang { index, sign } => {
                let value = self.programs.get(index).map_or(0.0, |p| {
                    p.eval(&mut self.session, &self.queries, &mut self.rng)
                });
                if value.is_finite() {
                    value * sign
                } else {
                    0.0
                }
            }
        }
    }
}

/// Notes for the names `source` reads that the emote cannot supply.
fn note_reads(source: &str, pointer: &str, notes: &mut Vec<Note>) {
    let Ok(ast) = parser::parse(source) else {
        return;
    };
    let mut names = Names::default();
    for statement in &ast.statements {
        names.walk(statement);
    }
    for (prefix, path) in &names.read {
        let name = format!("{prefix}.{path}");
        let set_here = names.assigned.contains(&(*prefix, path.clone()));
        if (*prefix == "v" || *prefix == "c") && !set_here {
            notes.push(Note::new(
                pointer,
                format!("`{name}` is never set here, so it reads 0"),
            ));
        } else if *prefix == "q" && !TIME_QUERIES.contains(&path.as_str()) {
            notes.push(Note::new(
                pointer,
                format!("`{name}` reads emoted's default (a player standing still): the motion is baked and does not follow the player"),
            ));
        }
    }
}

/// The names an expression reads and assigns, as (short prefix, path).
#[derive(Default)]
struct Names {
    read: BTreeSet<(&'static str, String)>,
    assigned: BTreeSet<(&'static str, String)>,
}

impl Names {
    fn walk(&mut self, expr: &Expr) {
        match &expr.kind {
            ExprKind::Name(name) => {
                self.read
                    .insert((name.namespace.short(), name.path.clone()));
            }
            ExprKind::Call(name, args) => {
                if name.namespace == Namespace::Query {
                    self.read
                        .insert((name.namespace.short(), name.path.clone()));
                }
                args.iter().for_each(|a| self.walk(a));
            }
            ExprKind::Unary(_, a) | ExprKind::Return(Some(a)) => self.walk(a),
            ExprKind::Binary(_, a, b) | ExprKind::Loop(a, b) | ExprKind::ForEach(_, a, b) => {
                self.walk(a);
                self.walk(b);
            }
            ExprKind::Conditional(c, a, b) => {
                self.walk(c);
                self.walk(a);
                if let Some(b) = b {
                    self.walk(b);
                }
            }
            ExprKind::Assign(name, value) => {
                self.assigned
                    .insert((name.namespace.short(), name.path.clone()));
                self.walk(value);
            }
            ExprKind::Block(items) => items.iter().for_each(|a| self.walk(a)),
            _ => {}
        }
    }
}
