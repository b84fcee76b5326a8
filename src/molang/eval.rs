//! Evaluation: a tree walk over the compiled arena. No allocation, no
//! failure: runtime errors are 0, and `break`/`continue`/`return` travel as
//! the `Err` side of a `Result`.

use super::ast::BinaryOp;
use super::math::{eval1, eval2, eval3, MolangRng};
use super::program::{ItemQuestion, Node, NodeId, Program, SlotArg, Value, NO_NODE};
use super::query::{Function, ItemSlot, QueryContext};
use super::Symbols;

/// The most iterations one `loop` runs (molang-notes.md, anchor-molang.md):
/// larger counts are clamped, not failed.
pub const MAX_LOOP_ITERATIONS: u32 = 1024;

/// One Molang session: the `v.*` values of one playback cycle (unset reads
/// 0) and scratch space for `t.*`. Allocates only in [`Session::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    variables: Vec<Value>,
    temps: Vec<Value>,
}

impl Session {
    /// A fresh session (every variable unset) sized for every program
    /// compiled with `symbols` so far: make sessions after compiling.
    pub fn new(symbols: &Symbols) -> Self {
        Self {
            variables: vec![Value::Unset; symbols.variable_count()],
            temps: vec![Value::Unset; symbols.max_temp_count()],
        }
    }

    /// Unsets every variable (a new cycle), keeping the memory.
    pub fn reset(&mut self) {
        self.variables.fill(Value::Unset);
        self.temps.fill(Value::Unset);
    }

    /// Sets `v.*` in `slot` (see [`Symbols::slot`]); out-of-range slots are ignored.
    pub fn set_variable(&mut self, slot: usize, value: f64) {
        if let Some(v) = self.variables.get_mut(slot) {
            *v = Value::Num(value);
        }
    }

    /// The number in `slot`: 0 when unset, out of range, or a string.
    pub fn variable(&self, slot: usize) -> f64 {
        self.variables.get(slot).map_or(0.0, |v| v.number())
    }

    /// Whether `slot` has been assigned this session.
    pub fn is_set(&self, slot: usize) -> bool {
        matches!(
            self.variables.get(slot),
            Some(Value::Num(_) | Value::Str(_))
        )
    }

    /// The string id in `slot` when it holds a string (see [`Symbols::string`]).
    pub fn variable_string(&self, slot: usize) -> Option<u32> {
        match self.variables.get(slot) {
            Some(Value::Str(id)) => Some(*id),
            _ => None,
        }
    }
}

impl Program {
    /// Runs the program and returns its value: the expression's result, or
    /// for a program with `;` the value of the `return` that ran (0 if
    /// none). Runtime errors are 0; a non-finite result is returned as it is
    /// (the caller stops playback). Never allocates.
    ///
    /// `t.*` starts unset on every call. Variables or temporaries the
    /// session has no room for (a session made before this program was
    /// compiled) read as unset and drop writes.
    pub fn eval(&self, session: &mut Session, queries: &QueryContext, rng: &mut MolangRng) -> f64 {
        let temps = (self.temp_count as usize).min(session.temps.len());
        if let Some(t) = session.temps.get_mut(..temps) {
            t.fill(Value::Unset);
        }
        let mut machine = Machine {
            program: self,
            variables: &mut session.variables,
            temps: &mut session.temps,
            queries,
            rng,
        };
        match machine.eval(self.root) {
            Ok(_) if self.complex => 0.0,
            Ok(v) | Err(Flow::Return(v)) => v.number(),
            Err(Flow::Break | Flow::Continue) => 0.0,
        }
    }
}

/// Control flow leaving an expression early.
enum Flow {
    Break,
    Continue,
    Return(Value),
}

type Step = Result<Value, Flow>;

struct Machine<'a> {
    program: &'a Program,
    variables: &'a mut [Value],
    temps: &'a mut [Value],
    queries: &'a QueryContext,
    rng: &'a mut MolangRng,
}

fn flag(b: bool) -> Value {
    Value::Num(if b { 1.0 } else { 0.0 })
}

fn truthy(v: Value) -> bool {
    v.number() != 0.0
}

impl Machine<'_> {
    fn node(&self, id: NodeId) -> Node {
        self.program
            .nodes
            .get(id as usize)
            .copied()
            .unwrap_or(Node::Const(0.0))
    }

    fn list(&self, start: u32, len: u32) -> &[NodeId] {
        let start = start as usize;
        self.program
            .lists
            .get(start..start + len as usize)
            .unwrap_or(&[])
    }

    #[inline]
    fn num(&mut self, id: NodeId) -> Result<f64, Flow> {
        Ok(self.eval(id)?.number())
    }

    fn eval(&mut self, id: NodeId) -> Step {
        Ok(match self.node(id) {
            Node::Const(n) => Value::Num(n),
            Node::Str(s) => Value::Str(s),
            Node::Var(slot) => self
                .variables
                .get(slot as usize)
                .copied()
                .unwrap_or(Value::Unset),
            Node::Temp(slot) => self
                .temps
                .get(slot as usize)
                .copied()
                .unwrap_or(Value::Unset),
            Node::Context => Value::Unset,
            Node::Scalar(q) => Value::Num(q.read(self.queries)),
            Node::Math1(f, a) => Value::Num(eval1(f, self.num(a)?)),
            Node::Math2(f, a, b) => {
                let (a, b) = (self.num(a)?, self.num(b)?);
                Value::Num(eval2(f, a, b, self.rng))
            }
            Node::Math3(f, a, b, c) => {
                let (a, b, c) = (self.num(a)?, self.num(b)?, self.num(c)?);
                Value::Num(eval3(f, a, b, c, self.rng))
            }
            Node::Neg(a) => Value::Num(-self.num(a)?),
            Node::Not(a) => flag(!truthy(self.eval(a)?)),
            Node::Binary(op, a, b) => {
                let (a, b) = (self.eval(a)?, self.eval(b)?);
                binary(op, a, b)
            }
            Node::And(a, b) => flag(truthy(self.eval(a)?) && truthy(self.eval(b)?)),
            Node::Or(a, b) => flag(truthy(self.eval(a)?) || truthy(self.eval(b)?)),
            Node::Coalesce(a, b) => match self.eval(a)? {
                Value::Unset => self.eval(b)?,
                v => v,
            },
            Node::Cond(c, a, b) => {
                if truthy(self.eval(c)?) {
                    self.eval(a)?
                } else if b == NO_NODE {
                    Value::Num(0.0)
                } else {
                    self.eval(b)?
                }
            }
            Node::SetVar(slot, v) => {
                let v = assigned(self.eval(v)?);
                if let Some(cell) = self.variables.get_mut(slot as usize) {
                    *cell = v;
                }
                v
            }
            Node::SetTemp(slot, v) => {
                let v = assigned(self.eval(v)?);
                if let Some(cell) = self.temps.get_mut(slot as usize) {
                    *cell = v;
                }
                v
            }
            Node::Block(start, len) => {
                for i in 0..len {
                    let statement = self
                        .list(start, len)
                        .get(i as usize)
                        .copied()
                        .unwrap_or(NO_NODE);
                    self.eval(statement)?;
                }
                Value::Num(0.0)
            }
            Node::Loop(count, body) => {
                let count = self.num(count)?;
                let iterations = if count > 0.0 {
                    count.min(f64::from(MAX_LOOP_ITERATIONS)) as u32
                } else {
                    0
                };
                for _ in 0..iterations {
                    match self.eval(body) {
                        Ok(_) | Err(Flow::Continue) => {}
                        Err(Flow::Break) => break,
                        Err(ret @ Flow::Return(_)) => return Err(ret),
                    }
                }
                Value::Num(0.0)
            }
            Node::ForEach(array) => {
                self.eval(array)?;
                Value::Num(0.0)
            }
            Node::Return(v) => {
                let v = if v == NO_NODE {
                    Value::Num(0.0)
                } else {
                    self.eval(v)?
                };
                return Err(Flow::Return(v));
            }
            Node::Break => return Err(Flow::Break),
            Node::Continue => return Err(Flow::Continue),
            Node::Compare(f, start, len) => self.compare(f, start, len)?,
            Node::InRange(v, lo, hi) => {
                let (v, lo, hi) = (self.num(v)?, self.num(lo)?, self.num(hi)?);
                flag(lo <= v && v <= hi)
            }
            Node::Count(start, len) => {
                for i in 0..len {
                    let arg = self
                        .list(start, len)
                        .get(i as usize)
                        .copied()
                        .unwrap_or(NO_NODE);
                    self.eval(arg)?;
                }
                Value::Num(f64::from(len))
            }
            Node::Axis(which, axis) => {
                let axis = self.num(axis)?;
                let p = &self.queries.player;
                let vector = match which {
                    0 => &p.position,
                    1 => &p.position_delta,
                    _ => &p.movement_direction,
                };
                let index = if axis == 0.0 {
                    0
                } else if axis == 1.0 {
                    1
                } else if axis == 2.0 {
                    2
                } else {
                    return Ok(Value::Num(0.0));
                };
                Value::Num(vector[index])
            }
            Node::Item(question, slot) => {
                let Some(slot) = self.slot(slot)? else {
                    return Ok(Value::Num(0.0));
                };
                let item = self.queries.player.item(slot);
                flag(match question {
                    ItemQuestion::Equipped => item.is_present(),
                    ItemQuestion::Charged => item.charged,
                })
            }
            Node::ItemNameAny(slot, start, len) => {
                let Some(slot) = self.slot(slot)? else {
                    return Ok(Value::Num(0.0));
                };
                let item = self.queries.player.item(slot);
                let start = start as usize;
                let ids = self
                    .program
                    .texts
                    .get(start..start + len as usize)
                    .unwrap_or(&[]);
                flag(item.is_present() && ids.iter().any(|id| **id == *item.id))
            }
            Node::Scoreboard(text) => {
                let objective = self.program.texts.get(text as usize).map_or("", |s| &**s);
                Value::Num(self.queries.player.score(objective))
            }
        })
    }

    fn slot(&mut self, slot: SlotArg) -> Result<Option<ItemSlot>, Flow> {
        Ok(match slot {
            SlotArg::Fixed(s) => Some(s),
            SlotArg::Dynamic(id) => ItemSlot::from_number(self.num(id)?),
        })
    }

    /// `q.any`, `q.all`, `q.approx_eq`: the first argument against the rest.
    fn compare(&mut self, f: Function, start: u32, len: u32) -> Step {
        let Some(&first) = self.list(start, len).first() else {
            return Ok(Value::Num(0.0));
        };
        let value = self.eval(first)?;
        let mut any = false;
        let mut all = true;
        for i in 1..len {
            let id = self
                .list(start, len)
                .get(i as usize)
                .copied()
                .unwrap_or(NO_NODE);
            let candidate = self.eval(id)?;
            let same = match f {
                Function::ApproxEq => match (value, candidate) {
                    (Value::Str(_), _) | (_, Value::Str(_)) => false,
                    (a, b) => approx_eq(a.number(), b.number()),
                },
                _ => equal(value, candidate),
            };
            any |= same;
            all &= same;
        }
        Ok(flag(if f == Function::Any { any } else { all }))
    }
}

/// What an assignment stores: unset becomes 0 (it was read as 0).
fn assigned(v: Value) -> Value {
    match v {
        Value::Unset => Value::Num(0.0),
        v => v,
    }
}

/// `==` on values: strings by content (interned ids), numbers exactly,
/// unset as 0, a string never equal to a number.
fn equal(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Str(_), _) | (_, Value::Str(_)) => false,
        (a, b) => a.number() == b.number(),
    }
}

/// Within 1e-7, relative to the larger magnitude when above 1.
fn approx_eq(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-7 * a.abs().max(b.abs()).max(1.0)
}

fn binary(op: BinaryOp, a: Value, b: Value) -> Value {
    match op {
        BinaryOp::Eq => return flag(equal(a, b)),
        BinaryOp::NotEq => return flag(!equal(a, b)),
        _ => {}
    }
    // Arithmetic and ordering on a string is an error: 0.
    if matches!(a, Value::Str(_)) || matches!(b, Value::Str(_)) {
        return Value::Num(0.0);
    }
    let (a, b) = (a.number(), b.number());
    match op {
        BinaryOp::Add => Value::Num(a + b),
        BinaryOp::Sub => Value::Num(a - b),
        BinaryOp::Mul => Value::Num(a * b),
        // Dividing by zero is an error: 0.
        BinaryOp::Div => Value::Num(if b == 0.0 { 0.0 } else { a / b }),
        BinaryOp::Less => flag(a < b),
        BinaryOp::LessEq => flag(a <= b),
        BinaryOp::Greater => flag(a > b),
        BinaryOp::GreaterEq => flag(a >= b),
        // Handled by their own nodes.
        BinaryOp::Eq | BinaryOp::NotEq | BinaryOp::And | BinaryOp::Or | BinaryOp::Coalesce => {
            Value::Num(0.0)
        }
    }
}
