//! From a syntax tree to a [`Program`]: names resolved to slots and query
//! enums, arities and assignment rules checked, all once at load.

use std::collections::HashMap;

use super::ast::{Ast, Expr, ExprKind, Name, Namespace, UnaryOp};
use super::math::MathName;
use super::program::{ItemQuestion, Node, NodeId, Program, SlotArg, NO_NODE};
use super::query::{Function, ItemSlot, Scalar};
use super::{MolangError, Span};

/// Where a source string runs, which decides what it may assign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompileContext {
    /// The root `molang.initialize` / `molang.tick` programs: may assign
    /// `v.*` and `t.*`.
    Program,
    /// A track component, visibility value or NBT selector: may read `v.*`
    /// and assign only `t.*`.
    Track,
}

/// The `v.*` names of one Animation, shared by all its programs and resolved
/// to slots at compile time, plus the Animation's interned string literals.
///
/// Compile every program of the Animation with the same `Symbols`, then make
/// [`Session`](super::Session)s from it.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    variables: Vec<String>,
    variable_slots: HashMap<String, usize>,
    strings: Vec<Box<str>>,
    string_ids: HashMap<Box<str>, u32>,
    max_temp_count: usize,
}

impl Symbols {
    /// No names yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many distinct `v.*` names the compiled programs use.
    pub fn variable_count(&self) -> usize {
        self.variables.len()
    }

    /// The slot of a variable, written `x`, `v.x` or `variable.x` (any case);
    /// `None` when no compiled program mentions it.
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.variable_slots.get(&variable_key(name)).copied()
    }

    /// The slot of a variable, adding it when new (same spellings as [`Self::slot`]).
    pub fn slot_or_insert(&mut self, name: &str) -> usize {
        let key = variable_key(name);
        if let Some(slot) = self.variable_slots.get(&key) {
            return *slot;
        }
        let slot = self.variables.len();
        self.variables.push(key.clone());
        self.variable_slots.insert(key, slot);
        slot
    }

    /// The name (without `v.`) of the variable in `slot`.
    pub fn variable_name(&self, slot: usize) -> Option<&str> {
        self.variables.get(slot).map(String::as_str)
    }

    /// The most `t.*` temporaries any compiled program uses.
    pub fn max_temp_count(&self) -> usize {
        self.max_temp_count
    }

    /// The text of an interned string literal.
    pub fn string(&self, id: u32) -> Option<&str> {
        self.strings.get(id as usize).map(|s| &**s)
    }

    fn intern_string(&mut self, text: &str) -> u32 {
        if let Some(id) = self.string_ids.get(text) {
            return *id;
        }
        let id = u32::try_from(self.strings.len()).unwrap_or(u32::MAX);
        self.strings.push(text.into());
        self.string_ids.insert(text.into(), id);
        id
    }
}

/// `v.x`, `variable.x`, `x` (any case) → `x`.
fn variable_key(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    for prefix in ["variable.", "v."] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            return rest.to_string();
        }
    }
    lower
}

/// Compiles a parsed tree.
pub(crate) fn compile_ast(
    ast: &Ast,
    context: CompileContext,
    symbols: &mut Symbols,
) -> Result<Program, MolangError> {
    let mut compiler = Compiler {
        symbols,
        context,
        nodes: Vec::new(),
        lists: Vec::new(),
        texts: Vec::new(),
        temps: HashMap::new(),
        loop_depth: 0,
    };
    let root = if ast.complex {
        compiler.block(&ast.statements)?
    } else {
        match ast.statements.first() {
            Some(e) => compiler.expr(e)?,
            None => compiler.push(Node::Const(0.0)),
        }
    };
    let temp_count = compiler.temps.len();
    let symbols = compiler.symbols;
    symbols.max_temp_count = symbols.max_temp_count.max(temp_count);
    let mut program = Program {
        nodes: compiler.nodes,
        lists: compiler.lists,
        texts: compiler.texts,
        root,
        complex: ast.complex,
        temp_count: u32::try_from(temp_count).unwrap_or(u32::MAX),
        worst_case_ops: 0,
    };
    super::budget::weigh_loops(&mut program);
    Ok(program)
}

struct Compiler<'a> {
    symbols: &'a mut Symbols,
    context: CompileContext,
    nodes: Vec<Node>,
    lists: Vec<NodeId>,
    texts: Vec<Box<str>>,
    temps: HashMap<String, u32>,
    loop_depth: u32,
}

fn id(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Compiler<'_> {
    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        id(self.nodes.len() - 1)
    }

    /// Compiles `items` into a child list; returns (start, len).
    fn list(&mut self, items: &[Expr]) -> Result<(u32, u32), MolangError> {
        let ids = items
            .iter()
            .map(|e| self.expr(e))
            .collect::<Result<Vec<_>, _>>()?;
        let start = id(self.lists.len());
        self.lists.extend(ids);
        Ok((start, id(items.len())))
    }

    fn block(&mut self, statements: &[Expr]) -> Result<NodeId, MolangError> {
        let (start, len) = self.list(statements)?;
        Ok(self.push(Node::Block(start, len)))
    }

    /// The number a node always has, when it is a constant.
    fn constant(&self, id: NodeId) -> Option<f64> {
        match self.nodes.get(id as usize) {
            Some(Node::Const(n)) => Some(*n),
            _ => None,
        }
    }

    /// Folds a pure operation on constants into a constant, and gives an
    /// arithmetic operation with one constant side its own node (one
    /// dispatch fewer per evaluation). The orphaned constant children stay
    /// in the arena unused.
    fn fold(&self, node: Node) -> Node {
        use super::ast::BinaryOp as B;
        use super::math::{Math2, Math3};
        let k = |id| self.constant(id);
        // Throw-away generator: folded functions are never random.
        let mut rng = super::MolangRng::new(0);
        match node {
            Node::Neg(a) => k(a).map_or(node, |a| Node::Const(-a)),
            Node::Not(a) => k(a).map_or(node, |a| Node::Const(if a == 0.0 { 1.0 } else { 0.0 })),
            Node::Binary(B::Eq | B::NotEq, ..) => node,
            Node::Binary(op, a, b) => match (k(a), k(b)) {
                (Some(a), Some(b)) => Node::Const(super::eval::arithmetic(op, a, b)),
                (None, Some(b)) => match self.nodes.get(a as usize) {
                    Some(Node::Scalar(q)) => Node::ScalarK(op, *q, b),
                    _ => Node::BinaryK(op, a, b),
                },
                (Some(a), None) => Node::KBinary(op, a, b),
                (None, None) => node,
            },
            Node::Math1(f, a) => k(a).map_or(node, |a| Node::Const(super::math::eval1(f, a))),
            Node::Math2(Math2::Random | Math2::RandomInteger, ..) => node,
            Node::Math2(f, a, b) => match (k(a), k(b)) {
                (Some(a), Some(b)) => Node::Const(super::math::eval2(f, a, b, &mut rng)),
                _ => node,
            },
            Node::Math3(Math3::DieRoll | Math3::DieRollInteger, ..) => node,
            Node::Math3(f, a, b, c) => match (k(a), k(b), k(c)) {
                (Some(a), Some(b), Some(c)) => {
                    Node::Const(super::math::eval3(f, a, b, c, &mut rng))
                }
                _ => node,
            },
            _ => node,
        }
    }

    fn temp_slot(&mut self, path: &str) -> u32 {
        let next = id(self.temps.len());
        *self.temps.entry(path.to_string()).or_insert(next)
    }

    fn text(&mut self, text: &str) -> u32 {
        self.texts.push(text.into());
        id(self.texts.len() - 1)
    }

    fn expr(&mut self, e: &Expr) -> Result<NodeId, MolangError> {
        let node = match &e.kind {
            ExprKind::Number(n) => Node::Const(*n),
            ExprKind::String(s) => Node::Str(self.symbols.intern_string(s)),
            ExprKind::Name(name) => return self.name(name),
            ExprKind::Call(name, args) => return self.call(name, args, e.span),
            ExprKind::Unary(op, a) => {
                not_string(a, if *op == UnaryOp::Negate { "-" } else { "!" })?;
                let a = self.expr(a)?;
                match op {
                    UnaryOp::Negate => Node::Neg(a),
                    UnaryOp::Not => Node::Not(a),
                }
            }
            ExprKind::Binary(op, a, b) => {
                use super::ast::BinaryOp as B;
                if !matches!(op, B::Eq | B::NotEq | B::Coalesce) {
                    not_string(a, op.text())?;
                    not_string(b, op.text())?;
                }
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                match op {
                    B::And => Node::And(a, b),
                    B::Or => Node::Or(a, b),
                    B::Coalesce => Node::Coalesce(a, b),
                    _ => Node::Binary(*op, a, b),
                }
            }
            ExprKind::Conditional(c, a, b) => {
                let c = self.expr(c)?;
                let a = self.expr(a)?;
                let b = match b {
                    Some(b) => self.expr(b)?,
                    None => NO_NODE,
                };
                Node::Cond(c, a, b)
            }
            ExprKind::Assign(target, value) => {
                let value = self.expr(value)?;
                match self.assignable(target)? {
                    Target::Variable(slot) => Node::SetVar(slot, value),
                    Target::Temp(slot) => Node::SetTemp(slot, value),
                }
            }
            ExprKind::Block(statements) => return self.block(statements),
            ExprKind::Loop(count, body) => {
                let count = self.expr(count)?;
                self.loop_depth += 1;
                let body = self.expr(body);
                self.loop_depth -= 1;
                Node::Loop(count, body?, 0)
            }
            ExprKind::ForEach(variable, array, body) => {
                if variable.namespace != Namespace::Temp
                    && variable.namespace != Namespace::Variable
                {
                    return Err(MolangError::InvalidForEachVariable {
                        span: variable.span,
                    });
                }
                self.assignable(variable)?;
                let array = self.expr(array)?;
                self.loop_depth += 1;
                let body = self.expr(body);
                self.loop_depth -= 1;
                body?;
                Node::ForEach(array)
            }
            ExprKind::Return(value) => match value {
                Some(v) => Node::Return(self.expr(v)?),
                None => Node::Return(NO_NODE),
            },
            ExprKind::Break | ExprKind::Continue => {
                if self.loop_depth == 0 {
                    let keyword = if e.kind == ExprKind::Break {
                        "break"
                    } else {
                        "continue"
                    };
                    return Err(MolangError::OutsideLoop {
                        keyword,
                        span: e.span,
                    });
                }
                if e.kind == ExprKind::Break {
                    Node::Break
                } else {
                    Node::Continue
                }
            }
            ExprKind::This => {
                return Err(MolangError::Unsupported {
                    construct: "`this`",
                    span: e.span,
                })
            }
        };
        let node = self.fold(node);
        Ok(self.push(node))
    }

    /// Checks that `target` may be assigned here and resolves its slot.
    fn assignable(&mut self, target: &Name) -> Result<Target, MolangError> {
        match target.namespace {
            Namespace::Variable if self.context == CompileContext::Track => {
                Err(MolangError::AssignVariableInTrack {
                    name: target.canonical(),
                    span: target.span,
                })
            }
            Namespace::Variable => Ok(Target::Variable(id(self
                .symbols
                .slot_or_insert(&target.path)))),
            Namespace::Temp => Ok(Target::Temp(self.temp_slot(&target.path))),
            Namespace::Query | Namespace::Context | Namespace::Math => {
                // An unknown query is reported as unknown first.
                if target.namespace == Namespace::Query
                    && Scalar::from_name(&target.path).is_none()
                    && Function::from_name(&target.path).is_none()
                {
                    return Err(MolangError::UnknownQuery {
                        name: target.path.clone(),
                        span: target.span,
                    });
                }
                Err(MolangError::AssignToReadOnly {
                    name: target.canonical(),
                    span: target.span,
                })
            }
        }
    }

    fn name(&mut self, name: &Name) -> Result<NodeId, MolangError> {
        let node = match name.namespace {
            Namespace::Variable => Node::Var(id(self.symbols.slot_or_insert(&name.path))),
            Namespace::Temp => Node::Temp(self.temp_slot(&name.path)),
            Namespace::Context => Node::Context,
            Namespace::Query => {
                if let Some(q) = Scalar::from_name(&name.path) {
                    Node::Scalar(q)
                } else if let Some(f) = Function::from_name(&name.path) {
                    if f.arity().0 > 0 {
                        return Err(MolangError::MissingArguments {
                            function: name.canonical(),
                            span: name.span,
                        });
                    }
                    return self.query_function(f, name, &[], name.span);
                } else {
                    return Err(MolangError::UnknownQuery {
                        name: name.path.clone(),
                        span: name.span,
                    });
                }
            }
            Namespace::Math => match MathName::from_name(&name.path) {
                Some(MathName::Pi) => Node::Const(std::f64::consts::PI),
                Some(_) => {
                    return Err(MolangError::MissingArguments {
                        function: name.canonical(),
                        span: name.span,
                    })
                }
                None => {
                    return Err(MolangError::UnknownMathFunction {
                        name: name.path.clone(),
                        span: name.span,
                    })
                }
            },
        };
        Ok(self.push(node))
    }

    fn call(&mut self, name: &Name, args: &[Expr], span: Span) -> Result<NodeId, MolangError> {
        let wrong_count = |expected: &'static str| MolangError::WrongArgumentCount {
            function: name.canonical(),
            expected,
            found: args.len(),
            span,
        };
        match name.namespace {
            Namespace::Query => {
                if let Some(q) = Scalar::from_name(&name.path) {
                    let accepted =
                        args.is_empty() || (args.len() == 1 && q.takes_ignored_argument());
                    if !accepted {
                        return Err(wrong_count(if q.takes_ignored_argument() {
                            "0 or 1 argument"
                        } else {
                            "no arguments"
                        }));
                    }
                    // Still check the ignored argument.
                    for a in args {
                        self.expr(a)?;
                    }
                    return Ok(self.push(Node::Scalar(q)));
                }
                let Some(f) = Function::from_name(&name.path) else {
                    return Err(MolangError::UnknownQuery {
                        name: name.path.clone(),
                        span: name.span,
                    });
                };
                let (min, max, words) = f.arity();
                if args.len() < min || args.len() > max {
                    return Err(wrong_count(words));
                }
                self.query_function(f, name, args, span)
            }
            Namespace::Math => {
                let Some(m) = MathName::from_name(&name.path) else {
                    return Err(MolangError::UnknownMathFunction {
                        name: name.path.clone(),
                        span: name.span,
                    });
                };
                let (needed, words) = match m {
                    MathName::Pi => (0, "no arguments (it is a constant: write `math.pi`)"),
                    MathName::One(_) => (1, "1 argument"),
                    MathName::Two(_) => (2, "2 arguments"),
                    MathName::Three(_) => (3, "3 arguments"),
                };
                if args.len() != needed {
                    return Err(wrong_count(words));
                }
                for a in args {
                    not_string(a, &name.canonical())?;
                }
                let ids = args
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let arg = |i: usize| ids.get(i).copied().unwrap_or(NO_NODE);
                let node = match m {
                    MathName::Pi => Node::Const(std::f64::consts::PI),
                    MathName::One(f) => Node::Math1(f, arg(0)),
                    MathName::Two(f) => Node::Math2(f, arg(0), arg(1)),
                    MathName::Three(f) => Node::Math3(f, arg(0), arg(1), arg(2)),
                };
                let node = self.fold(node);
                Ok(self.push(node))
            }
            Namespace::Variable | Namespace::Temp | Namespace::Context => {
                Err(MolangError::Unsupported {
                    construct: "calling a variable",
                    span,
                })
            }
        }
    }

    fn query_function(
        &mut self,
        f: Function,
        name: &Name,
        args: &[Expr],
        span: Span,
    ) -> Result<NodeId, MolangError> {
        let node = match f {
            Function::Any | Function::All | Function::ApproxEq => {
                let (start, len) = self.list(args)?;
                Node::Compare(f, start, len)
            }
            Function::Count => {
                let (start, len) = self.list(args)?;
                Node::Count(start, len)
            }
            Function::InRange => match args {
                [v, lo, hi] => Node::InRange(self.expr(v)?, self.expr(lo)?, self.expr(hi)?),
                _ => return Err(self.count_error(name, "3 arguments", args.len(), span)),
            },
            Function::Position | Function::PositionDelta | Function::MovementDirection => {
                let which = match f {
                    Function::Position => 0,
                    Function::PositionDelta => 1,
                    _ => 2,
                };
                match args {
                    [axis] => Node::Axis(which, self.expr(axis)?),
                    _ => return Err(self.count_error(name, "1 argument", args.len(), span)),
                }
            }
            Function::IsItemEquipped | Function::ItemIsCharged => {
                let question = if f == Function::IsItemEquipped {
                    ItemQuestion::Equipped
                } else {
                    ItemQuestion::Charged
                };
                let slot = match args.first() {
                    Some(a) => self.slot(a)?,
                    None => SlotArg::fixed(ItemSlot::MainHand),
                };
                Node::Item(question, slot)
            }
            Function::IsItemNameAny => {
                let Some((slot, ids)) = args.split_first() else {
                    return Err(self.count_error(name, "a slot and at least 1 item id", 0, span));
                };
                let slot = self.slot(slot)?;
                let start = id(self.texts.len());
                for item in ids {
                    let ExprKind::String(text) = &item.kind else {
                        return Err(MolangError::ExpectedStringLiteral {
                            function: name.canonical(),
                            span: item.span,
                        });
                    };
                    self.text(text);
                }
                Node::ItemNameAny(slot, start, id(ids.len()))
            }
            Function::Scoreboard => match args {
                [Expr {
                    kind: ExprKind::String(objective),
                    ..
                }] => Node::Scoreboard(self.text(objective)),
                [other] => {
                    return Err(MolangError::ExpectedStringLiteral {
                        function: name.canonical(),
                        span: other.span,
                    })
                }
                _ => return Err(self.count_error(name, "1 argument", args.len(), span)),
            },
        };
        Ok(self.push(node))
    }

    fn count_error(
        &self,
        name: &Name,
        expected: &'static str,
        found: usize,
        span: Span,
    ) -> MolangError {
        MolangError::WrongArgumentCount {
            function: name.canonical(),
            expected,
            found,
            span,
        }
    }

    /// An item slot argument: a selector string, 0 or 1, or an expression.
    fn slot(&mut self, arg: &Expr) -> Result<SlotArg, MolangError> {
        match &arg.kind {
            ExprKind::String(s) => {
                ItemSlot::from_selector(s)
                    .map(SlotArg::fixed)
                    .ok_or_else(|| MolangError::UnknownItemSlot {
                        name: s.clone(),
                        span: arg.span,
                    })
            }
            ExprKind::Number(n) => ItemSlot::from_number(*n)
                .map(SlotArg::fixed)
                .ok_or_else(|| MolangError::UnknownItemSlot {
                    name: n.to_string(),
                    span: arg.span,
                }),
            _ => Ok(SlotArg::dynamic(self.expr(arg)?)),
        }
    }
}

/// Refuses a string literal where a number is needed.
fn not_string(operand: &Expr, operator: &str) -> Result<(), MolangError> {
    match operand.kind {
        ExprKind::String(_) => Err(MolangError::StringOperand {
            operator: operator.to_string(),
            span: operand.span,
        }),
        _ => Ok(()),
    }
}

enum Target {
    Variable(u32),
    Temp(u32),
}
