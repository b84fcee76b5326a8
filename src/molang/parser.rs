//! The Molang parser: precedence climbing over the lexer's tokens.
//!
//! Precedence, loosest first (Bedrock's current rules, molang-notes.md §1):
//!
//! | level | operators | associativity |
//! |---|---|---|
//! | statement | `return x` | |
//! | assignment | `=` | right |
//! | 1 | `??` | right |
//! | 2 | `c ? a : b`, `c ? a` | right |
//! | 3 | `\|\|` | left |
//! | 4 | `&&` | left |
//! | 5 | `==` `!=` | left |
//! | 6 | `<` `<=` `>` `>=` | left |
//! | 7 | `+` `-` | left |
//! | 8 | `*` `/` | left |
//! | 9 | prefix `!` `-` | |
//!
//! The middle of `c ? a : b` is a full expression (it may assign or
//! `return`, as in `(v.x > 5) ? return 1;`); the else branch is parsed at the
//! conditional's level, so `a ? b : c ? d : e` is `a ? b : (c ? d : e)`, and
//! may also be an assignment or `return`.
//!
//! Trees deeper than [`MAX_DEPTH`] are refused so that the compiler and the
//! evaluator, which recurse, have a bounded stack.

use super::ast::{Ast, BinaryOp, Expr, ExprKind, Name, Namespace, UnaryOp};
use super::lexer::{tokenize, Punct, Token, TokenSpan};
use super::{MolangError, Span};

/// The deepest expression tree accepted (a chain `1+1+…` of this many terms
/// is already far beyond anything an emote needs).
pub const MAX_DEPTH: u32 = 128;

/// How deep the parser itself may recurse (parentheses count here but make
/// no tree nodes).
const MAX_RECURSION: u32 = 2 * MAX_DEPTH;

const COALESCE_BP: u8 = 1;
const CONDITIONAL_BP: u8 = 2;

/// Parses a whole source string.
pub fn parse(source: &str) -> Result<Ast, MolangError> {
    let tokens = tokenize(source)?;
    let end = u32::try_from(source.len()).unwrap_or(u32::MAX);
    let mut parser = Parser {
        tokens,
        pos: 0,
        end: Span { start: end, end },
        recursion: 0,
    };
    parser.program()
}

/// An expression and the depth of its tree.
struct Parsed {
    expr: Expr,
    depth: u32,
}

struct Parser {
    tokens: Vec<TokenSpan>,
    pos: usize,
    /// The empty span at the end of the source.
    end: Span,
    recursion: u32,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(t, _)| t)
    }

    fn peek_span(&self) -> Span {
        self.tokens.get(self.pos).map_or(self.end, |(_, s)| *s)
    }

    fn peek_punct(&self) -> Option<Punct> {
        match self.peek() {
            Some(Token::Punct(p)) => Some(*p),
            _ => None,
        }
    }

    fn peek_keyword(&self, keyword: &str) -> bool {
        matches!(self.peek(), Some(Token::Name(n)) if n == keyword)
    }

    fn bump(&mut self) -> Span {
        let span = self.peek_span();
        self.pos += 1;
        span
    }

    fn unexpected(&self, expected: &'static str) -> MolangError {
        MolangError::UnexpectedToken {
            expected,
            found: self
                .peek()
                .map_or_else(|| "end of input".to_string(), Token::describe),
            span: self.peek_span(),
        }
    }

    fn expect(&mut self, punct: Punct, expected: &'static str) -> Result<Span, MolangError> {
        if self.peek_punct() == Some(punct) {
            Ok(self.bump())
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// Counts one level of parser recursion; [`Self::leave`] undoes it.
    fn enter(&mut self) -> Result<(), MolangError> {
        self.recursion += 1;
        if self.recursion > MAX_RECURSION {
            return Err(MolangError::TooDeep {
                limit: MAX_DEPTH,
                span: self.peek_span(),
            });
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.recursion = self.recursion.saturating_sub(1);
    }

    /// Builds a node one level above its deepest child.
    fn node(&self, kind: ExprKind, span: Span, child_depth: u32) -> Result<Parsed, MolangError> {
        let depth = child_depth + 1;
        if depth > MAX_DEPTH {
            return Err(MolangError::TooDeep {
                limit: MAX_DEPTH,
                span,
            });
        }
        Ok(Parsed {
            expr: Expr { kind, span },
            depth,
        })
    }

    fn program(&mut self) -> Result<Ast, MolangError> {
        let mut statements = Vec::new();
        let mut complex = false;
        while self.peek().is_some() {
            if self.peek_punct() == Some(Punct::Semicolon) {
                self.bump();
                complex = true;
                continue;
            }
            let statement = self.expr()?.expr;
            match self.peek_punct() {
                Some(Punct::Semicolon) => {
                    self.bump();
                    complex = true;
                }
                None if self.peek().is_none() => {
                    if complex {
                        return Err(MolangError::MissingSemicolon {
                            span: statement.span,
                        });
                    }
                }
                _ => return Err(self.unexpected("`;` or an operator")),
            }
            statements.push(statement);
        }
        if statements.is_empty() {
            return Err(self.unexpected("an expression"));
        }
        Ok(Ast {
            statements,
            complex,
        })
    }

    /// A full expression: `return x`, an assignment, or an operator expression.
    fn expr(&mut self) -> Result<Parsed, MolangError> {
        self.enter()?;
        let result = self.expr_inner(COALESCE_BP);
        self.leave();
        result
    }

    /// An expression whose operators bind at least as tightly as `min_bp`,
    /// or a `return`/assignment (which have no binding power of their own).
    fn expr_inner(&mut self, min_bp: u8) -> Result<Parsed, MolangError> {
        if self.peek_keyword("return") {
            let start = self.bump();
            let ends_here = match self.peek() {
                None => true,
                Some(Token::Punct(p)) => matches!(
                    p,
                    Punct::Semicolon | Punct::RParen | Punct::RBrace | Punct::Comma | Punct::Colon
                ),
                Some(_) => false,
            };
            if ends_here {
                return self.node(ExprKind::Return(None), start, 0);
            }
            let value = self.expr()?;
            let span = join(start, value.expr.span);
            return self.node(
                ExprKind::Return(Some(Box::new(value.expr))),
                span,
                value.depth,
            );
        }
        let lhs = self.binary(min_bp)?;
        if self.peek_punct() != Some(Punct::Assign) {
            return Ok(lhs);
        }
        let ExprKind::Name(name) = lhs.expr.kind else {
            return Err(MolangError::InvalidAssignmentTarget {
                span: lhs.expr.span,
            });
        };
        self.bump();
        // Right-associative: `v.a = v.b = 3`.
        let value = if min_bp > COALESCE_BP {
            self.enter()?;
            let value = self.expr_inner(min_bp);
            self.leave();
            value?
        } else {
            self.expr()?
        };
        let span = join(name.span, value.expr.span);
        self.node(
            ExprKind::Assign(name, Box::new(value.expr)),
            span,
            value.depth,
        )
    }

    /// Precedence climbing over the infix operators and the conditional.
    fn binary(&mut self, min_bp: u8) -> Result<Parsed, MolangError> {
        let mut lhs = self.unary()?;
        while let Some(punct) = self.peek_punct() {
            if punct == Punct::Question {
                if CONDITIONAL_BP < min_bp {
                    break;
                }
                self.bump();
                let then = self.expr()?;
                let (otherwise, depth) = if self.peek_punct() == Some(Punct::Colon) {
                    self.bump();
                    self.enter()?;
                    let otherwise = self.expr_inner(CONDITIONAL_BP);
                    self.leave();
                    let otherwise = otherwise?;
                    let depth = otherwise.depth;
                    (Some(otherwise.expr), depth)
                } else {
                    (None, 0)
                };
                let end = otherwise.as_ref().map_or(then.expr.span, |e| e.span);
                let span = join(lhs.expr.span, end);
                let depth = lhs.depth.max(then.depth).max(depth);
                lhs = self.node(
                    ExprKind::Conditional(
                        Box::new(lhs.expr),
                        Box::new(then.expr),
                        otherwise.map(Box::new),
                    ),
                    span,
                    depth,
                )?;
                continue;
            }
            let Some((op, bp)) = infix(punct) else {
                break;
            };
            if bp < min_bp {
                break;
            }
            self.bump();
            // `??` is right-associative, the rest left-associative.
            let next_bp = if op == BinaryOp::Coalesce { bp } else { bp + 1 };
            self.enter()?;
            let rhs = self.binary(next_bp);
            self.leave();
            let rhs = rhs?;
            let span = join(lhs.expr.span, rhs.expr.span);
            let depth = lhs.depth.max(rhs.depth);
            lhs = self.node(
                ExprKind::Binary(op, Box::new(lhs.expr), Box::new(rhs.expr)),
                span,
                depth,
            )?;
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Parsed, MolangError> {
        let op = match self.peek_punct() {
            Some(Punct::Minus) => UnaryOp::Negate,
            Some(Punct::Bang) => UnaryOp::Not,
            _ => return self.postfix(),
        };
        let start = self.bump();
        self.enter()?;
        let operand = self.unary();
        self.leave();
        let operand = operand?;
        let span = join(start, operand.expr.span);
        self.node(
            ExprKind::Unary(op, Box::new(operand.expr)),
            span,
            operand.depth,
        )
    }

    fn postfix(&mut self) -> Result<Parsed, MolangError> {
        let primary = self.primary()?;
        match self.peek_punct() {
            Some(Punct::Arrow) => Err(MolangError::Unsupported {
                construct: "the arrow operator `->`",
                span: self.peek_span(),
            }),
            Some(Punct::LBracket) => Err(MolangError::Unsupported {
                construct: "array indexing `[ ]`",
                span: self.peek_span(),
            }),
            _ => Ok(primary),
        }
    }

    fn primary(&mut self) -> Result<Parsed, MolangError> {
        let span = self.peek_span();
        let Some(token) = self.peek().cloned() else {
            return Err(self.unexpected("an expression"));
        };
        match token {
            Token::Number(n) => {
                self.bump();
                self.node(ExprKind::Number(n), span, 0)
            }
            Token::String(s) => {
                self.bump();
                self.node(ExprKind::String(s), span, 0)
            }
            Token::Punct(Punct::LParen) => {
                self.bump();
                let inner = self.expr()?;
                self.expect(Punct::RParen, "`)`")?;
                Ok(inner)
            }
            Token::Punct(Punct::LBrace) => self.block(),
            Token::Punct(_) => Err(self.unexpected("an expression")),
            Token::Name(name) => self.name_expr(name, span),
        }
    }

    fn block(&mut self) -> Result<Parsed, MolangError> {
        let start = self.bump();
        let mut statements = Vec::new();
        let mut depth = 0;
        loop {
            match self.peek_punct() {
                Some(Punct::RBrace) => break,
                Some(Punct::Semicolon) => {
                    self.bump();
                    continue;
                }
                _ => {}
            }
            if self.peek().is_none() {
                return Err(self.unexpected("`}`"));
            }
            let statement = self.expr()?;
            depth = depth.max(statement.depth);
            statements.push(statement.expr);
            match self.peek_punct() {
                Some(Punct::Semicolon) => {
                    self.bump();
                }
                Some(Punct::RBrace) => break,
                _ => return Err(self.unexpected("`;` or `}`")),
            }
        }
        let end = self.bump();
        self.node(ExprKind::Block(statements), join(start, end), depth)
    }

    fn name_expr(&mut self, name: String, span: Span) -> Result<Parsed, MolangError> {
        match name.as_str() {
            "true" | "false" => {
                self.bump();
                let value = if name == "true" { 1.0 } else { 0.0 };
                return self.node(ExprKind::Number(value), span, 0);
            }
            "this" => {
                self.bump();
                return self.node(ExprKind::This, span, 0);
            }
            "break" => {
                self.bump();
                return self.node(ExprKind::Break, span, 0);
            }
            "continue" => {
                self.bump();
                return self.node(ExprKind::Continue, span, 0);
            }
            "loop" => return self.loop_expr(),
            "for_each" => return self.for_each(),
            _ => {}
        }
        let name = self.qualified(name, span)?;
        if self.peek_punct() != Some(Punct::LParen) {
            return self.node(ExprKind::Name(name), span, 0);
        }
        self.bump();
        let mut args = Vec::new();
        let mut depth = 0;
        if self.peek_punct() != Some(Punct::RParen) {
            loop {
                let arg = self.expr()?;
                depth = depth.max(arg.depth);
                args.push(arg.expr);
                if self.peek_punct() == Some(Punct::Comma) {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        let end = self.expect(Punct::RParen, "`,` or `)`")?;
        self.node(ExprKind::Call(name, args), join(span, end), depth)
    }

    /// Consumes a name token and splits off its namespace.
    fn qualified(&mut self, name: String, span: Span) -> Result<Name, MolangError> {
        let namespace = name
            .split_once('.')
            .and_then(|(prefix, rest)| Some((Namespace::from_prefix(prefix)?, rest)));
        match namespace {
            Some((namespace, path)) if !path.is_empty() => {
                self.bump();
                Ok(Name {
                    namespace,
                    path: path.to_string(),
                    span,
                })
            }
            _ => Err(MolangError::UnknownName { name, span }),
        }
    }

    fn loop_expr(&mut self) -> Result<Parsed, MolangError> {
        let start = self.bump();
        self.expect(Punct::LParen, "`(` after `loop`")?;
        let count = self.expr()?;
        self.expect(Punct::Comma, "`,` between the count and the body of `loop`")?;
        let body = self.expr()?;
        let end = self.expect(Punct::RParen, "`)` after the body of `loop`")?;
        let depth = count.depth.max(body.depth);
        self.node(
            ExprKind::Loop(Box::new(count.expr), Box::new(body.expr)),
            join(start, end),
            depth,
        )
    }

    fn for_each(&mut self) -> Result<Parsed, MolangError> {
        let start = self.bump();
        self.expect(Punct::LParen, "`(` after `for_each`")?;
        let variable_span = self.peek_span();
        let variable = match self.peek().cloned() {
            Some(Token::Name(name)) => self.qualified(name, variable_span)?,
            _ => {
                return Err(MolangError::InvalidForEachVariable {
                    span: variable_span,
                })
            }
        };
        self.expect(Punct::Comma, "`,` after the variable of `for_each`")?;
        let array = self.expr()?;
        self.expect(
            Punct::Comma,
            "`,` between the array and the body of `for_each`",
        )?;
        let body = self.expr()?;
        let end = self.expect(Punct::RParen, "`)` after the body of `for_each`")?;
        let depth = array.depth.max(body.depth);
        self.node(
            ExprKind::ForEach(variable, Box::new(array.expr), Box::new(body.expr)),
            join(start, end),
            depth,
        )
    }
}

/// The binary operator of a token and its binding power.
fn infix(punct: Punct) -> Option<(BinaryOp, u8)> {
    Some(match punct {
        Punct::QuestionQuestion => (BinaryOp::Coalesce, COALESCE_BP),
        Punct::OrOr => (BinaryOp::Or, 3),
        Punct::AndAnd => (BinaryOp::And, 4),
        Punct::Eq => (BinaryOp::Eq, 5),
        Punct::NotEq => (BinaryOp::NotEq, 5),
        Punct::Less => (BinaryOp::Less, 6),
        Punct::LessEq => (BinaryOp::LessEq, 6),
        Punct::Greater => (BinaryOp::Greater, 6),
        Punct::GreaterEq => (BinaryOp::GreaterEq, 6),
        Punct::Plus => (BinaryOp::Add, 7),
        Punct::Minus => (BinaryOp::Sub, 7),
        Punct::Star => (BinaryOp::Mul, 8),
        Punct::Slash => (BinaryOp::Div, 8),
        _ => return None,
    })
}

fn join(a: Span, b: Span) -> Span {
    Span {
        start: a.start.min(b.start),
        end: a.end.max(b.end),
    }
}
