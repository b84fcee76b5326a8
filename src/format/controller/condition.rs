//! A transition's `when` conditions: one small string each.
//!
//! The grammar is deliberately tiny, so that a condition reads like the
//! sentence it stands for and every mistake has one clear message:
//!
//! | written          | holds when                                   | parameter types |
//! |------------------|----------------------------------------------|-----------------|
//! | `grounded`       | the bool is true                             | bool            |
//! | `!grounded`      | the bool is false                            | bool            |
//! | `jump`           | the trigger is armed (and consumes it)       | trigger         |
//! | `speed > 0.1`    | the comparison holds (`<` `<=` `>` `>=` `==` `!=`) | float, int |
//!
//! Parsing (`parse`) only looks at the text; `resolve` then checks the
//! name and the type against the controller's parameters, with a
//! did-you-mean for an unknown name.

use super::{Parameter, ParameterKind};
use crate::format::problem::{JsonPointer, Problems};
use crate::format::read;

/// How a numeric parameter is compared with a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// `<`
    Less,
    /// `<=`
    LessOrEqual,
    /// `>`
    Greater,
    /// `>=`
    GreaterOrEqual,
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
}

impl Comparison {
    /// The operators as written, longest first so `<=` is not read as `<`.
    const WRITTEN: [(&'static str, Comparison); 6] = [
        ("<=", Comparison::LessOrEqual),
        (">=", Comparison::GreaterOrEqual),
        ("==", Comparison::Equal),
        ("!=", Comparison::NotEqual),
        ("<", Comparison::Less),
        (">", Comparison::Greater),
    ];

    /// True when `value <op> operand` holds.
    pub fn holds(self, value: f32, operand: f32) -> bool {
        match self {
            Comparison::Less => value < operand,
            Comparison::LessOrEqual => value <= operand,
            Comparison::Greater => value > operand,
            Comparison::GreaterOrEqual => value >= operand,
            Comparison::Equal => value == operand,
            Comparison::NotEqual => value != operand,
        }
    }
}

/// What a condition asks of its parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Test {
    /// A bool is true (`grounded`).
    IsTrue,
    /// A bool is false (`!grounded`).
    IsFalse,
    /// A trigger is armed (`jump`); the transition that fires consumes it.
    Fired,
    /// A float or int compared with a number (`speed > 0.1`).
    Compare(Comparison, f32),
}

/// One resolved condition of a transition.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Condition {
    /// Index into [`ControllerFile::parameters`](super::ControllerFile::parameters).
    pub parameter: usize,
    /// What must hold.
    pub test: Test,
}

/// A condition as written, before its name is looked up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Written<'a> {
    /// `name` or `!name` (`negated`).
    Bare { name: &'a str, negated: bool },
    /// `name op number`.
    Compare {
        name: &'a str,
        op: Comparison,
        operand: f32,
    },
}

/// True for a parameter name: a lowercase letter or `_`, then lowercase
/// letters, digits and `_`.
pub(crate) fn is_parameter_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Reads the syntax of one condition.
pub(crate) fn parse(text: &str) -> Result<Written<'_>, String> {
    let text = text.trim();
    let shape = || {
        format!(
            "cannot read condition `{text}`: write `name`, `!name` or `name OP number` \
             with OP one of < <= > >= == !="
        )
    };
    if let Some((at, op)) = Comparison::WRITTEN
        .iter()
        .filter_map(|(written, op)| text.find(written).map(|at| (at, (*written, *op))))
        .min_by_key(|(at, (written, _))| (*at, std::cmp::Reverse(written.len())))
    {
        let name = text[..at].trim();
        let number = text[at + op.0.len()..].trim();
        if !is_parameter_name(name) {
            return Err(shape());
        }
        let operand = number
            .parse::<f32>()
            .ok()
            .filter(|n| n.is_finite())
            .ok_or_else(|| format!("`{number}` in condition `{text}` is not a finite number"))?;
        return Ok(Written::Compare {
            name,
            op: op.1,
            operand,
        });
    }
    let (name, negated) = match text.strip_prefix('!') {
        Some(rest) => (rest.trim(), true),
        None => (text, false),
    };
    if is_parameter_name(name) {
        Ok(Written::Bare { name, negated })
    } else {
        Err(shape())
    }
}

/// Parses `text` and resolves it against `parameters`, recording every
/// problem at `pointer`.
pub(crate) fn resolve(
    text: &str,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    parameters: &[Parameter],
) -> Option<Condition> {
    let written = match parse(text) {
        Ok(w) => w,
        Err(e) => {
            problems.error(pointer, e);
            return None;
        }
    };
    let name = match written {
        Written::Bare { name, .. } | Written::Compare { name, .. } => name,
    };
    let index = super::parameter_index(parameters, name, pointer, problems, "condition")?;
    let kind = parameters[index].kind;
    let test = match (written, kind) {
        (Written::Bare { negated: false, .. }, ParameterKind::Bool { .. }) => Test::IsTrue,
        (Written::Bare { negated: true, .. }, ParameterKind::Bool { .. }) => Test::IsFalse,
        (Written::Bare { negated: false, .. }, ParameterKind::Trigger) => Test::Fired,
        (Written::Bare { negated: true, .. }, ParameterKind::Trigger) => {
            problems.error(
                pointer,
                format!("`{name}` is a trigger: a condition can only test that it fired (`{name}`), not `!{name}`"),
            );
            return None;
        }
        (Written::Bare { .. }, _) => {
            problems.error(
                pointer,
                format!(
                    "`{name}` is {}: compare it with a number, e.g. `{name} > 0.1`",
                    kind.described()
                ),
            );
            return None;
        }
        (Written::Compare { op, operand, .. }, kind) if kind.is_numeric() => {
            Test::Compare(op, operand)
        }
        (Written::Compare { .. }, _) => {
            problems.error(
                pointer,
                format!(
                    "`{name}` is {} and cannot be compared with a number: write `{name}`{}",
                    kind.described(),
                    if matches!(kind, ParameterKind::Bool { .. }) {
                        format!(" or `!{name}`")
                    } else {
                        String::new()
                    }
                ),
            );
            return None;
        }
    };
    Some(Condition {
        parameter: index,
        test,
    })
}

/// Reads a did-you-mean for `name` among `parameters`.
pub(crate) fn suggestion(name: &str, parameters: &[Parameter]) -> String {
    read::did_you_mean(name, parameters.iter().map(|p| p.name.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar() {
        assert_eq!(
            parse("grounded"),
            Ok(Written::Bare {
                name: "grounded",
                negated: false
            })
        );
        assert_eq!(
            parse(" ! sneaking "),
            Ok(Written::Bare {
                name: "sneaking",
                negated: true
            })
        );
        assert_eq!(
            parse("speed>=0.5"),
            Ok(Written::Compare {
                name: "speed",
                op: Comparison::GreaterOrEqual,
                operand: 0.5
            })
        );
        assert_eq!(
            parse("mode != -2"),
            Ok(Written::Compare {
                name: "mode",
                op: Comparison::NotEqual,
                operand: -2.0
            })
        );
        assert!(parse("speed > fast").is_err());
        assert!(parse("speed and jump").is_err());
        assert!(parse("").is_err());
        assert!(parse("Speed").is_err());
    }

    #[test]
    fn comparisons_hold() {
        assert!(Comparison::Less.holds(0.0, 0.1));
        assert!(!Comparison::Less.holds(0.1, 0.1));
        assert!(Comparison::LessOrEqual.holds(0.1, 0.1));
        assert!(Comparison::Greater.holds(0.2, 0.1));
        assert!(Comparison::GreaterOrEqual.holds(0.1, 0.1));
        assert!(Comparison::Equal.holds(2.0, 2.0));
        assert!(Comparison::NotEqual.holds(2.0, 3.0));
    }
}
