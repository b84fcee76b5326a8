//! Evaluation: a tree walk over the compiled arena. No allocation, no
//! failure: runtime errors are 0, and `break`/`continue`/`return` (and a
//! loop that would overrun the session's operation budget) travel as the
//! `Err` side of a `Result`.

use super::ast::BinaryOp;
use super::math::{eval1, eval2, eval3, MolangRng};
use super::program::{ItemQuestion, Node, NodeId, Program, Slot, SlotArg, Value, NO_NODE};
use super::query::{Function, ItemSlot, QueryContext};
use super::{BudgetExceeded, Symbols};

/// The most iterations one `loop` runs (molang-notes.md, anchor-molang.md):
/// larger counts are clamped, not failed.
pub const MAX_LOOP_ITERATIONS: u32 = 1024;

/// How many times a `loop` whose count evaluated to `count` iterates:
/// truncated, 0 to [`MAX_LOOP_ITERATIONS`] (NaN is 0).
#[inline]
pub(crate) fn loop_iterations(count: f64) -> u32 {
    if count > 0.0 {
        count.min(f64::from(MAX_LOOP_ITERATIONS)) as u32
    } else {
        0
    }
}

/// One Molang session: the `v.*` values of one playback cycle (unset reads
/// 0), scratch space for `t.*`, and the operation budget the evaluations
/// share (unlimited until [`Session::set_op_budget`]; see the module docs,
/// "The operation budget"). Allocates only in [`Session::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    variables: Vec<Value>,
    temps: Vec<Value>,
    /// The budget last set (`u64::MAX`: unlimited).
    op_budget: u64,
    /// What is left of it.
    ops_left: u64,
    /// True once a loop stopped an evaluation for want of operations.
    out_of_ops: bool,
}

impl Session {
    /// A fresh session (every variable unset) sized for every program
    /// compiled with `symbols` so far: make sessions after compiling.
    pub fn new(symbols: &Symbols) -> Self {
        Self {
            variables: vec![Value::Unset; symbols.variable_count()],
            temps: vec![Value::Unset; symbols.max_temp_count()],
            op_budget: u64::MAX,
            ops_left: u64::MAX,
            out_of_ops: false,
        }
    }

    /// Gives the evaluations that follow `ops` operations to share (a
    /// playback refills it every tick) and clears [`Self::is_out_of_ops`].
    /// `u64::MAX` is no limit, the default.
    pub fn set_op_budget(&mut self, ops: u64) {
        self.op_budget = ops;
        self.ops_left = ops;
        self.out_of_ops = false;
    }

    /// Gives back the whole budget last set (a new tick) and clears
    /// [`Self::is_out_of_ops`].
    pub fn refill_ops(&mut self) {
        self.ops_left = self.op_budget;
        self.out_of_ops = false;
    }

    /// The budget last given with [`Self::set_op_budget`] (`u64::MAX`: none).
    pub fn op_budget(&self) -> u64 {
        self.op_budget
    }

    /// The operations charged since the budget was last set.
    pub fn ops_used(&self) -> u64 {
        self.op_budget - self.ops_left
    }

    /// True when an evaluation since the budget was last set stopped
    /// because a loop iteration would have gone past it.
    pub fn is_out_of_ops(&self) -> bool {
        self.out_of_ops
    }

    /// Unsets every variable (a new cycle), keeping the memory. The
    /// operation budget is left as it is.
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
    /// NaN when a loop ran out of the session's operation budget (then
    /// [`Session::is_out_of_ops`] is true); [`Program::try_eval`] says so
    /// in its type.
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
            ops_left: session.ops_left,
        };
        let result = machine.num(self.root);
        session.ops_left = machine.ops_left;
        match result {
            Ok(_) if self.complex => 0.0,
            Ok(v) => v,
            Err(Flow::Return) => machine.returned.number(),
            Err(Flow::Break | Flow::Continue) => 0.0,
            Err(Flow::OutOfOps) => {
                session.out_of_ops = true;
                f64::NAN
            }
        }
    }

    /// [`Program::eval`], failing when a loop iteration would go past what
    /// is left of the session's operation budget: evaluation stops there
    /// (assignments already made stay) and [`Session::is_out_of_ops`]
    /// becomes true. Loop-free programs never fail.
    pub fn try_eval(
        &self,
        session: &mut Session,
        queries: &QueryContext,
        rng: &mut MolangRng,
    ) -> Result<f64, BudgetExceeded> {
        // `eval` (the hot path) keeps returning a bare f64: whether this
        // evaluation ran out is the flag it sets, kept apart from earlier ones.
        let earlier = std::mem::replace(&mut session.out_of_ops, false);
        let value = self.eval(session, queries, rng);
        if session.out_of_ops {
            return Err(BudgetExceeded {
                budget_ops: session.op_budget,
            });
        }
        session.out_of_ops = earlier;
        Ok(value)
    }
}

/// Control flow leaving an expression early. A `return`'s value waits in
/// [`Machine::returned`], which keeps `Result<f64, Flow>` in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Break,
    Continue,
    Return,
    /// A loop iteration would have gone past the operation budget: leaves
    /// every loop and ends the evaluation.
    OutOfOps,
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
    /// The session's budget left (written back when the evaluation ends);
    /// only loops touch it.
    ops_left: u64,
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
            Node::Loop(count, body, weight) => self.run_loop(count, body, weight)?,
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

    /// Runs `body` up to `count` times, charging `weight` operations
    /// before each iteration.
    #[inline(never)]
    fn run_loop(&mut self, count: NodeId, body: NodeId, weight: u32) -> Step<Value> {
        let iterations = loop_iterations(self.num(count)?);
        let weight = u64::from(weight);
        for _ in 0..iterations {
            self.ops_left = match self.ops_left.checked_sub(weight) {
                Some(left) => left,
                None => return Err(Flow::OutOfOps),
            };
            match self.eval(body) {
                Ok(_) | Err(Flow::Continue) => {}
                Err(Flow::Break) => break,
                Err(flow @ (Flow::Return | Flow::OutOfOps)) => return Err(flow),
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
