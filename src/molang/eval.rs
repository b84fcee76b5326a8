//! Evaluation: a tree walk over the compiled arena. No allocation, no
//! failure: runtime errors are 0, and `break`/`continue`/`return` travel as
//! the `Err` side of a `Result`.

use super::ast::BinaryOp;
use super::math::{eval1, eval2, eval3, MolangRng};
use super::program::{ItemQuestion, Node, NodeId, Program, Slot, SlotArg, Value, NO_NODE};
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
            nodes: &self.nodes,
            program: self,
            variables: &mut session.variables,
            temps: &mut session.temps,
            queries,
            rng,
            returned: Value::Unset,
        };
        match machine.num(self.root) {
            Ok(_) if self.complex => 0.0,
            Ok(v) => v,
            Err(Flow::Return) => machine.returned.number(),
            Err(Flow::Break | Flow::Continue) => 0.0,
        }
    }
}

/// Control flow leaving an expression early. A `return`'s value waits in
/// [`Machine::returned`], which keeps `Result<f64, Flow>` in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Break,
    Continue,
    Return,
}

type Step<T> = Result<T, Flow>;

struct Machine<'a> {
    nodes: &'a [Node],
    program: &'a Program,
    variables: &'a mut [Value],
    temps: &'a mut [Value],
    queries: &'a QueryContext,
    rng: &'a mut MolangRng,
    returned: Value,
}

#[inline]
fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

impl Machine<'_> {
    #[inline]
    fn node(&self, id: NodeId) -> Node {
        self.nodes
            .get(id as usize)
            .copied()
            .unwrap_or(Node::Const(0.0))
    }

    fn list_item(&self, start: u32, index: u32) -> NodeId {
        self.program
            .lists
            .get(start as usize + index as usize)
            .copied()
            .unwrap_or(NO_NODE)
    }

    #[inline]
    fn truthy(&mut self, id: NodeId) -> Step<bool> {
        Ok(self.num(id)? != 0.0)
    }

    /// The node's value as a number (the hot path: no [`Value`] for the
    /// arithmetic, math and query nodes).
    fn num(&mut self, id: NodeId) -> Step<f64> {
        Ok(match self.node(id) {
            Node::Const(n) => n,
            Node::Scalar(q) => q.read(self.queries),
            Node::Var(slot) => self
                .variables
                .get(slot as usize)
                .map_or(0.0, |v| v.number()),
            Node::Temp(slot) => self.temps.get(slot as usize).map_or(0.0, |v| v.number()),
            Node::Math1(f, a) => eval1(f, self.num(a)?),
            Node::Math2(f, a, b) => {
                let (a, b) = (self.num(a)?, self.num(b)?);
                eval2(f, a, b, self.rng)
            }
            Node::Math3(f, a, b, c) => {
                let (a, b, c) = (self.num(a)?, self.num(b)?, self.num(c)?);
                eval3(f, a, b, c, self.rng)
            }
            Node::Neg(a) => -self.num(a)?,
            Node::Not(a) => flag(!self.truthy(a)?),
            Node::Binary(BinaryOp::Eq, a, b) => flag(equal(self.eval(a)?, self.eval(b)?)),
            Node::Binary(BinaryOp::NotEq, a, b) => flag(!equal(self.eval(a)?, self.eval(b)?)),
            Node::Binary(op, a, b) => {
                let (a, b) = (self.num(a)?, self.num(b)?);
                arithmetic(op, a, b)
            }
            Node::BinaryK(op, a, k) => arithmetic(op, self.num(a)?, k),
            Node::ScalarK(op, q, k) => arithmetic(op, q.read(self.queries), k),
            Node::KBinary(op, k, b) => arithmetic(op, k, self.num(b)?),
            Node::And(a, b) => flag(self.truthy(a)? && self.truthy(b)?),
            Node::Or(a, b) => flag(self.truthy(a)? || self.truthy(b)?),
            Node::Cond(c, a, b) => {
                if self.truthy(c)? {
                    self.num(a)?
                } else if b == NO_NODE {
                    0.0
                } else {
                    self.num(b)?
                }
            }
            _ => self.eval(id)?.number(),
        })
    }

    /// The node's value, strings and unset included.
    fn eval(&mut self, id: NodeId) -> Step<Value> {
        Ok(match self.node(id) {
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
            Node::Coalesce(a, b) => match self.eval(a)? {
                Value::Unset => self.eval(b)?,
                v => v,
            },
            Node::Cond(c, a, b) => {
                if self.truthy(c)? {
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
                    self.eval(self.list_item(start, i))?;
                }
                Value::Num(0.0)
            }
            Node::Loop(count, body) => self.run_loop(count, body)?,
            Node::ForEach(array) => {
                self.eval(array)?;
                Value::Num(0.0)
            }
            Node::Return(v) => {
                self.returned = if v == NO_NODE {
                    Value::Num(0.0)
                } else {
                    self.eval(v)?
                };
                return Err(Flow::Return);
            }
            Node::Break => return Err(Flow::Break),
            Node::Continue => return Err(Flow::Continue),
            Node::Compare(f, start, len) => Value::Num(self.compare(f, start, len)?),
            Node::Count(start, len) => {
                for i in 0..len {
                    self.eval(self.list_item(start, i))?;
                }
                Value::Num(f64::from(len))
            }
            Node::InRange(v, lo, hi) => {
                let (v, lo, hi) = (self.num(v)?, self.num(lo)?, self.num(hi)?);
                Value::Num(flag(lo <= v && v <= hi))
            }
            Node::Axis(which, axis) => Value::Num(self.axis(which, axis)?),
            Node::Item(question, slot) => Value::Num(self.item(question, slot)?),
            Node::ItemNameAny(slot, start, len) => {
                Value::Num(self.item_name_any(slot, start, len)?)
            }
            Node::Scoreboard(text) => {
                let objective = self.program.texts.get(text as usize).map_or("", |s| &**s);
                Value::Num(self.queries.player.score(objective))
            }
            Node::Const(_)
            | Node::Scalar(_)
            | Node::Math1(..)
            | Node::Math2(..)
            | Node::Math3(..)
            | Node::Neg(_)
            | Node::Not(_)
            | Node::Binary(..)
            | Node::BinaryK(..)
            | Node::ScalarK(..)
            | Node::KBinary(..)
            | Node::And(..)
            | Node::Or(..) => Value::Num(self.num(id)?),
        })
    }

    #[inline(never)]
    fn run_loop(&mut self, count: NodeId, body: NodeId) -> Step<Value> {
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
                Err(Flow::Return) => return Err(Flow::Return),
            }
        }
        Ok(Value::Num(0.0))
    }

    #[inline(never)]
    fn axis(&mut self, which: u8, axis: NodeId) -> Step<f64> {
        let axis = self.num(axis)?;
        let p = &self.queries.player;
        let vector = match which {
            0 => &p.position,
            1 => &p.position_delta,
            _ => &p.movement_direction,
        };
        Ok(if axis == 0.0 {
            vector[0]
        } else if axis == 1.0 {
            vector[1]
        } else if axis == 2.0 {
            vector[2]
        } else {
            0.0
        })
    }

    fn slot(&mut self, slot: SlotArg) -> Step<Option<ItemSlot>> {
        Ok(match slot.unpack() {
            Slot::Fixed(s) => Some(s),
            Slot::Dynamic(id) => ItemSlot::from_number(self.num(id)?),
        })
    }

    #[inline(never)]
    fn item(&mut self, question: ItemQuestion, slot: SlotArg) -> Step<f64> {
        let Some(slot) = self.slot(slot)? else {
            return Ok(0.0);
        };
        let item = self.queries.player.item(slot);
        Ok(flag(match question {
            ItemQuestion::Equipped => item.is_present(),
            ItemQuestion::Charged => item.charged,
        }))
    }

    #[inline(never)]
    fn item_name_any(&mut self, slot: SlotArg, start: u32, len: u32) -> Step<f64> {
        let Some(slot) = self.slot(slot)? else {
            return Ok(0.0);
        };
        let item = self.queries.player.item(slot);
        let start = start as usize;
        let ids = self
            .program
            .texts
            .get(start..start + len as usize)
            .unwrap_or(&[]);
        Ok(flag(
            item.is_present() && ids.iter().any(|id| **id == *item.id),
        ))
    }

    /// `q.any`, `q.all`, `q.approx_eq`: the first argument against the rest.
    #[inline(never)]
    fn compare(&mut self, f: Function, start: u32, len: u32) -> Step<f64> {
        if len == 0 {
            return Ok(0.0);
        }
        let value = self.eval(self.list_item(start, 0))?;
        let mut any = false;
        let mut all = true;
        for i in 1..len {
            let candidate = self.eval(self.list_item(start, i))?;
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

/// Arithmetic and ordering (a string operand has already read as 0).
#[inline(always)]
pub(crate) fn arithmetic(op: BinaryOp, a: f64, b: f64) -> f64 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        // Dividing by zero is an error: 0.
        BinaryOp::Div => {
            if b == 0.0 {
                0.0
            } else {
                a / b
            }
        }
        BinaryOp::Less => flag(a < b),
        BinaryOp::LessEq => flag(a <= b),
        BinaryOp::Greater => flag(a > b),
        BinaryOp::GreaterEq => flag(a >= b),
        // Handled by their own nodes.
        BinaryOp::Eq | BinaryOp::NotEq | BinaryOp::And | BinaryOp::Or | BinaryOp::Coalesce => 0.0,
    }
}
