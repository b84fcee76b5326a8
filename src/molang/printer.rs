//! Prints a syntax tree back to Molang source in canonical form: short
//! prefixes (`v.`, `q.`), lowercase names, and parentheses around every
//! compound operand, so that parsing the output gives the same tree.

use std::fmt::Write as _;

use super::ast::{Ast, Expr, ExprKind, Name, UnaryOp};

/// The canonical source text of `ast`.
pub fn print(ast: &Ast) -> String {
    let mut out = String::new();
    for (i, statement) in ast.statements.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        expr(statement, &mut out, true);
        if ast.complex {
            out.push(';');
        }
    }
    out
}

/// The canonical source text of one expression.
pub fn print_expr(e: &Expr) -> String {
    let mut out = String::new();
    expr(e, &mut out, true);
    out
}

fn name(n: &Name, out: &mut String) {
    out.push_str(n.namespace.short());
    out.push('.');
    out.push_str(&n.path);
}

/// Writes `e`; `top` leaves off the parentheses a compound expression would
/// otherwise get.
fn expr(e: &Expr, out: &mut String, top: bool) {
    let parenthesized = !top
        && matches!(
            e.kind,
            ExprKind::Unary(..)
                | ExprKind::Binary(..)
                | ExprKind::Conditional(..)
                | ExprKind::Assign(..)
                | ExprKind::Return(..)
        );
    if parenthesized {
        out.push('(');
    }
    match &e.kind {
        ExprKind::Number(n) => {
            let _ = write!(out, "{n}");
        }
        ExprKind::String(s) => {
            out.push('\'');
            out.push_str(s);
            out.push('\'');
        }
        ExprKind::Name(n) => name(n, out),
        ExprKind::Call(n, args) => {
            name(n, out);
            out.push('(');
            list(args, out);
            out.push(')');
        }
        ExprKind::Unary(op, a) => {
            out.push(match op {
                UnaryOp::Negate => '-',
                UnaryOp::Not => '!',
            });
            expr(a, out, false);
        }
        ExprKind::Binary(op, a, b) => {
            expr(a, out, false);
            out.push(' ');
            out.push_str(op.text());
            out.push(' ');
            expr(b, out, false);
        }
        ExprKind::Conditional(c, a, b) => {
            expr(c, out, false);
            out.push_str(" ? ");
            expr(a, out, false);
            if let Some(b) = b {
                out.push_str(" : ");
                expr(b, out, false);
            }
        }
        ExprKind::Assign(n, v) => {
            name(n, out);
            out.push_str(" = ");
            expr(v, out, false);
        }
        ExprKind::Block(statements) => {
            out.push('{');
            for statement in statements {
                out.push(' ');
                expr(statement, out, true);
                out.push(';');
            }
            out.push_str(" }");
        }
        ExprKind::Loop(count, body) => {
            out.push_str("loop(");
            expr(count, out, true);
            out.push_str(", ");
            expr(body, out, true);
            out.push(')');
        }
        ExprKind::ForEach(variable, array, body) => {
            out.push_str("for_each(");
            name(variable, out);
            out.push_str(", ");
            expr(array, out, true);
            out.push_str(", ");
            expr(body, out, true);
            out.push(')');
        }
        ExprKind::Return(value) => {
            out.push_str("return");
            if let Some(v) = value {
                out.push(' ');
                expr(v, out, false);
            }
        }
        ExprKind::Break => out.push_str("break"),
        ExprKind::Continue => out.push_str("continue"),
        ExprKind::This => out.push_str("this"),
    }
    if parenthesized {
        out.push(')');
    }
}

fn list(args: &[Expr], out: &mut String) {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        expr(a, out, true);
    }
}
