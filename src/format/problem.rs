//! Problems found while reading a file: where (a JSON pointer) and which rule.

use std::fmt;

/// How bad a [`Problem`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The file still loads; something in it is ignored or approximated
    /// (for example an item component a 1.20.1 client cannot show).
    Warning,
    /// The file is refused.
    Error,
}

/// One rule broken at one place in a file.
///
/// `pointer` is an RFC 6901 JSON pointer into the file (`""` is the whole
/// document); `message` names the rule, in words an admin can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Whether the file is refused because of this problem.
    pub severity: Severity,
    /// Where in the file, as a JSON pointer such as `/timeline/tracks/hand/rotation/1/time`.
    pub pointer: String,
    /// Which rule was broken, e.g. `keyframe times must strictly increase: 10t follows 10t`.
    pub message: String,
}

impl Problem {
    /// An error at `pointer`.
    pub fn error(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    /// A warning at `pointer`.
    pub fn warning(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    /// True when this problem refuses the file.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Problem {
    /// Formats as `/pointer: message` (warnings get a `warning: ` prefix on the message).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.severity {
            Severity::Error => write!(f, "{}: {}", self.pointer, self.message),
            Severity::Warning => write!(f, "{}: warning: {}", self.pointer, self.message),
        }
    }
}

/// Collects the problems of one file while it is read.
#[derive(Debug, Default, Clone)]
pub struct Problems {
    list: Vec<Problem>,
}

impl Problems {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an error at `pointer` (rendered now, as problems are rare).
    pub fn error<P: JsonPointer + ?Sized>(&mut self, pointer: &P, message: impl Into<String>) {
        self.list.push(Problem::error(pointer.render(), message));
    }

    /// Records a warning at `pointer`.
    pub fn warning<P: JsonPointer + ?Sized>(&mut self, pointer: &P, message: impl Into<String>) {
        self.list.push(Problem::warning(pointer.render(), message));
    }

    /// Records an already built problem.
    pub fn push(&mut self, problem: Problem) {
        self.list.push(problem);
    }

    /// True when at least one error (not a warning) was recorded.
    pub fn has_errors(&self) -> bool {
        self.list.iter().any(Problem::is_error)
    }

    /// The number of errors recorded so far.
    pub fn error_count(&self) -> usize {
        self.list.iter().filter(|p| p.is_error()).count()
    }

    /// Every problem, in the order found.
    pub fn into_vec(self) -> Vec<Problem> {
        self.list
    }

    /// Every problem, in the order found.
    pub fn as_slice(&self) -> &[Problem] {
        &self.list
    }
}

/// A place in a JSON document, rendered as an RFC 6901 pointer only when a
/// problem is recorded. Readers pass these down instead of strings, so a
/// valid file costs no pointer allocations at all.
pub trait JsonPointer {
    /// Appends the rendered pointer to `out`.
    fn write_to(&self, out: &mut String);

    /// The rendered pointer, e.g. `/nodes/hand/transform`.
    fn render(&self) -> String {
        let mut out = String::new();
        self.write_to(&mut out);
        out
    }
}

impl JsonPointer for str {
    fn write_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl JsonPointer for String {
    fn write_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

/// The whole document (`""`).
#[derive(Clone, Copy, Debug)]
pub struct Root;

impl JsonPointer for Root {
    fn write_to(&self, _out: &mut String) {}
}

/// A member of an object: `base` + `/key`.
#[derive(Clone, Copy)]
pub struct Field<'a> {
    base: &'a dyn JsonPointer,
    key: &'a str,
}

impl JsonPointer for Field<'_> {
    fn write_to(&self, out: &mut String) {
        self.base.write_to(out);
        push_token(out, self.key);
    }
}

/// An element of an array: `base` + `/index`.
#[derive(Clone, Copy)]
pub struct Index<'a> {
    base: &'a dyn JsonPointer,
    index: usize,
}

impl JsonPointer for Index<'_> {
    fn write_to(&self, out: &mut String) {
        self.base.write_to(out);
        out.push('/');
        out.push_str(&self.index.to_string());
    }
}

/// The pointer to member `key` of the object at `base`.
pub fn field<'a>(base: &'a dyn JsonPointer, key: &'a str) -> Field<'a> {
    Field { base, key }
}

/// The pointer to element `index` of the array at `base`.
pub fn index(base: &dyn JsonPointer, index: usize) -> Index<'_> {
    Index { base, index }
}

/// Appends one reference token, escaping `~` and `/` (RFC 6901).
fn push_token(out: &mut String, token: &str) {
    out.push('/');
    for ch in token.chars() {
        match ch {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// Appends one reference token to a rendered JSON pointer.
pub fn join_pointer(base: &str, token: &str) -> String {
    let mut out = base.to_owned();
    push_token(&mut out, token);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(join_pointer("", "nodes"), "/nodes");
        assert_eq!(join_pointer("/nodes", "a/b~c"), "/nodes/a~1b~0c");
        let nodes = field(&Root, "nodes");
        assert_eq!(field(&nodes, "a/b~c").render(), "/nodes/a~1b~0c");
        assert_eq!(index(&field(&nodes, "k"), 3).render(), "/nodes/k/3");
    }

    #[test]
    fn display_names_pointer_and_rule() {
        let p = Problem::error("/id", "must be a lowercase namespace:path identifier");
        assert_eq!(
            p.to_string(),
            "/id: must be a lowercase namespace:path identifier"
        );
        let w = Problem::warning("/x", "ignored");
        assert_eq!(w.to_string(), "/x: warning: ignored");
    }
}
