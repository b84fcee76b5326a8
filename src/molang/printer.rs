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
    let open = |out: &mut String| {
        if !top {
            out.push('(');
        }
    };
    let close = |out: &mut String| {
        if !top {
            out.push(')');
        }
    };
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
            open(out);
            out.push(match op {
                UnaryOp::Negate => '-',
                UnaryOp::Not => '!',
            });
            expr(a, out, false);
            close(out);
        }
        ExprKind::Binary(op, a, b) => {
            open(out);
            expr(a, out, false);
            out.push(' ');
            out.push_str(op.text());
            out.push(' ');
            expr(b, out, false);
            close(out);
        }
        ExprKind::Conditional(c, a, b) => {
            open(out);
            expr(c, out, false);
            out.push_str(" ? ");
            expr(a, out, false);
            if let Some(b) = b {
                out.push_str(" : ");
                expr(b, out, false);
            }
            close(out);
        }
        ExprKind::Assign(n, v) => {
            open(out);
            name(n, out);
            out.push_str(" = ");
            expr(v, out, false);
            close(out);
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
            open(out);
            out.push_str("return");
            if let Some(v) = value {
                out.push(' ');
                expr(v, out, false);
            }
            close(out);
        }
        ExprKind::Break => out.push_str("break"),
        ExprKind::Continue => out.push_str("continue"),
        ExprKind::This => out.push_str("this"),
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
