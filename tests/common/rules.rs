//! The helpers of the table-driven rule tests (tests/animation_rules.rs,
//! tests/sequence_rules.rs): JSON pointer edits on a base file, the
//! invalid and valid cases, and how problems are described and found.

use emoted::format::{FileReport, Problem};
use serde_json::Value;

pub fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

pub fn split(pointer: &str) -> (&str, String) {
    let i = pointer
        .rfind('/')
        .unwrap_or_else(|| panic!("test bug: `{pointer}` is not a JSON pointer with a parent"));
    (&pointer[..i], unescape(&pointer[i + 1..]))
}

/// Sets the value at `pointer`; the parent must exist. On an array the last
/// token is an index (replace) or the array length / `-` (append).
pub fn set(v: &mut Value, pointer: &str, new: Value) {
    let (parent, token) = split(pointer);
    match v.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.insert(token, new);
        }
        Some(Value::Array(items)) => {
            if token == "-" || token == items.len().to_string() {
                items.push(new);
            } else {
                let i: usize = token.parse().expect("test bug: array index");
                items[i] = new;
            }
        }
        _ => panic!("test bug: set `{pointer}`: no object or array at `{parent}`"),
    }
}

/// Removes the value at `pointer`; it must exist.
pub fn remove(v: &mut Value, pointer: &str) {
    let (parent, token) = split(pointer);
    let removed = match v.pointer_mut(parent) {
        Some(Value::Object(map)) => map.remove(&token).is_some(),
        Some(Value::Array(items)) => {
            let i: usize = token.parse().expect("test bug: array index");
            i < items.len() && {
                items.remove(i);
                true
            }
        }
        _ => false,
    };
    assert!(removed, "test bug: remove `{pointer}`: nothing there");
}

/// One invalid variant of the base file.
pub struct Case {
    pub name: &'static str,
    pub patch: fn(&mut Value),
    /// The exact JSON pointer of the expected error.
    pub pointer: &'static str,
    /// A fragment of the message that names the rule.
    pub message: &'static str,
}

/// One valid variant of the base file, with an optional check of what was read.
pub struct Valid<F> {
    pub name: &'static str,
    pub patch: fn(&mut Value),
    pub check: fn(&F) -> Result<(), String>,
}

pub fn no_check<F>(_: &F) -> Result<(), String> {
    Ok(())
}

pub fn describe(problems: &[Problem]) -> String {
    if problems.is_empty() {
        return "  (no problems)".to_owned();
    }
    problems
        .iter()
        .map(|p| format!("  {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn errors(report: &FileReport) -> Vec<&Problem> {
    report.problems.iter().filter(|p| p.is_error()).collect()
}

pub fn has_error(report: &FileReport, pointer: &str, fragment: &str) -> bool {
    errors(report)
        .iter()
        .any(|p| p.pointer == pointer && p.message.contains(fragment))
}

pub fn assert_unique_names<'a>(names: impl Iterator<Item = &'a str>) {
    let mut seen = std::collections::HashSet::new();
    for n in names {
        assert!(seen.insert(n), "test bug: duplicate case name `{n}`");
    }
}

pub fn expect_eq<T: PartialEq + std::fmt::Debug>(
    what: &str,
    found: T,
    expected: T,
) -> Result<(), String> {
    if found == expected {
        Ok(())
    } else {
        Err(format!("{what}: expected {expected:?}, found {found:?}"))
    }
}
