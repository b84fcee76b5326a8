//! The Molang syntax tree, as parsed: names are canonical (lowercase, aliases
//! expanded to one [`Namespace`]) and every node has its [`Span`].
//!
//! Parentheses leave no node, and `true`/`false` become numbers, so
//! [`print`](super::printer::print) followed by [`parse`](super::parser::parse)
//! gives back the same tree (spans aside; see [`Ast::without_spans`]).

use super::Span;

/// A parsed source string.
#[derive(Clone, Debug, PartialEq)]
pub struct Ast {
    /// The statements. A simple expression has exactly one.
    pub statements: Vec<Expr>,
    /// True when the source is a *complex* expression (statements ending in
    /// `;`), whose value is 0 unless a `return` runs; false for a single
    /// expression, whose value is the result.
    pub complex: bool,
}

/// One expression and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Its byte range in the source.
    pub span: Span,
}

/// The kinds of expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A number literal (non-negative: `-1` is [`UnaryOp::Negate`] of `1`).
    Number(f64),
    /// A string literal's contents.
    String(String),
    /// A variable, query or constant: `v.x`, `q.anim_time`, `math.pi`.
    Name(Name),
    /// A call: `q.position(0)`, `math.sin(x)`. `q.anim_time()` is a call
    /// with no arguments.
    Call(Name, Vec<Expr>),
    /// `!a`, `-a`.
    Unary(UnaryOp, Box<Expr>),
    /// `a op b`, including `&&`, `||` and `??`.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`, or `c ? a` (no else: 0 when `c` is false).
    Conditional(Box<Expr>, Box<Expr>, Option<Box<Expr>>),
    /// `name = value`.
    Assign(Name, Box<Expr>),
    /// `{ s1; s2; }`.
    Block(Vec<Expr>),
    /// `loop(count, body)`.
    Loop(Box<Expr>, Box<Expr>),
    /// `for_each(variable, array, body)`.
    ForEach(Name, Box<Expr>, Box<Expr>),
    /// `return value` (`return` alone returns 0).
    Return(Option<Box<Expr>>),
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `this` (parsed, refused by the compiler).
    This,
}

/// A name's namespace, aliases resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Namespace {
    /// `v.` / `variable.`
    Variable,
    /// `t.` / `temp.`
    Temp,
    /// `c.` / `context.`
    Context,
    /// `q.` / `query.`
    Query,
    /// `math.`
    Math,
}

impl Namespace {
    /// The short prefix, without the dot.
    pub fn short(self) -> &'static str {
        match self {
            Self::Variable => "v",
            Self::Temp => "t",
            Self::Context => "c",
            Self::Query => "q",
            Self::Math => "math",
        }
    }

    /// The namespace of a prefix (short or long form, lowercase).
    pub fn from_prefix(prefix: &str) -> Option<Self> {
        Some(match prefix {
            "v" | "variable" => Self::Variable,
            "t" | "temp" => Self::Temp,
            "c" | "context" => Self::Context,
            "q" | "query" => Self::Query,
            "math" => Self::Math,
            _ => return None,
        })
    }
}

/// A canonical name: `q.anim_time` is `Name { namespace: Query, path: "anim_time" }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    /// The namespace.
    pub namespace: Namespace,
    /// Everything after the prefix's dot, lowercase (`loc.x` for `v.loc.x`).
    pub path: String,
    /// Where the name is.
    pub span: Span,
}

impl Name {
    /// The canonical spelling, e.g. `q.anim_time`.
    pub fn canonical(&self) -> String {
        format!("{}.{}", self.namespace.short(), self.path)
    }
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-a`
    Negate,
    /// `!a`: 1 when `a` is 0, else 0.
    Not,
}

/// Infix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `*`
    Mul,
    /// `/` (dividing by 0 gives 0)
    Div,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<`
    Less,
    /// `<=`
    LessEq,
    /// `>`
    Greater,
    /// `>=`
    GreaterEq,
    /// `==`
    Eq,
    /// `!=`
    NotEq,
    /// `&&` (short-circuits)
    And,
    /// `||` (short-circuits)
    Or,
    /// `??`: the right side when the left is an unset variable.
    Coalesce,
}

impl BinaryOp {
    /// The operator as written.
    pub fn text(self) -> &'static str {
        match self {
            Self::Mul => "*",
            Self::Div => "/",
            Self::Add => "+",
            Self::Sub => "-",
            Self::Less => "<",
            Self::LessEq => "<=",
            Self::Greater => ">",
            Self::GreaterEq => ">=",
            Self::Eq => "==",
            Self::NotEq => "!=",
            Self::And => "&&",
            Self::Or => "||",
            Self::Coalesce => "??",
        }
    }
}

impl Ast {
    /// The same tree with every span set to `0..0`, for comparing trees
    /// parsed from different text.
    pub fn without_spans(&self) -> Ast {
        Ast {
            statements: self.statements.iter().map(Expr::without_spans).collect(),
            complex: self.complex,
        }
    }
}

impl Expr {
    /// The same expression with every span set to `0..0`.
    pub fn without_spans(&self) -> Expr {
        let boxed = |e: &Expr| Box::new(e.without_spans());
        let list = |es: &[Expr]| es.iter().map(Expr::without_spans).collect();
        let kind = match &self.kind {
            ExprKind::Number(n) => ExprKind::Number(*n),
            ExprKind::String(s) => ExprKind::String(s.clone()),
            ExprKind::Name(n) => ExprKind::Name(n.without_span()),
            ExprKind::Call(n, args) => ExprKind::Call(n.without_span(), list(args)),
            ExprKind::Unary(op, a) => ExprKind::Unary(*op, boxed(a)),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, boxed(a), boxed(b)),
            ExprKind::Conditional(c, a, b) => {
                ExprKind::Conditional(boxed(c), boxed(a), b.as_deref().map(boxed))
            }
            ExprKind::Assign(n, v) => ExprKind::Assign(n.without_span(), boxed(v)),
            ExprKind::Block(s) => ExprKind::Block(list(s)),
            ExprKind::Loop(c, b) => ExprKind::Loop(boxed(c), boxed(b)),
            ExprKind::ForEach(n, a, b) => ExprKind::ForEach(n.without_span(), boxed(a), boxed(b)),
            ExprKind::Return(v) => ExprKind::Return(v.as_deref().map(boxed)),
            ExprKind::Break => ExprKind::Break,
            ExprKind::Continue => ExprKind::Continue,
            ExprKind::This => ExprKind::This,
        };
        Expr {
            kind,
            span: Span::default(),
        }
    }
}

impl Name {
    fn without_span(&self) -> Name {
        Name {
            span: Span::default(),
            ..self.clone()
        }
    }
}
