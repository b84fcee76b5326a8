//! Molang errors: every one carries the [`Span`] it is about, and
//! [`describe`] renders it as one line with character offsets.

use std::fmt::Write as _;

use super::Span;

/// Something wrong with a Molang source string, found while lexing, parsing
/// or compiling it. Evaluation never fails (runtime errors are 0).
///
/// Every variant holds the byte [`Span`] of the offending text; [`describe`]
/// turns it into character offsets for people.
#[derive(thiserror::Error, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MolangError {
    /// A character that starts no Molang token.
    #[error("unexpected character `{found}`")]
    UnexpectedCharacter {
        /// The character.
        found: char,
        /// Where it is.
        span: Span,
    },
    /// A string literal with no closing `'`.
    #[error("this string has no closing `'`")]
    UnterminatedString {
        /// From the opening quote to the end of the source.
        span: Span,
    },
    /// A number literal that is malformed or too large to be finite.
    #[error("`{text}` is not a valid finite number")]
    InvalidNumber {
        /// The literal as written.
        text: String,
        /// Where it is.
        span: Span,
    },
    /// The parser wanted one thing and found another.
    #[error("expected {expected}, found {found}")]
    UnexpectedToken {
        /// What would have been valid here, e.g. "`)`".
        expected: &'static str,
        /// What was there, e.g. "`;`" or "end of input".
        found: String,
        /// Where the unexpected token is.
        span: Span,
    },
    /// A name with a namespace Molang-in-emoted does not have.
    #[error("`{name}` is not a Molang name: names start with `v.`, `t.`, `c.`, `q.` or `math.` (or `variable.`, `temp.`, `context.`, `query.`)")]
    UnknownName {
        /// The name as written (lowercased).
        name: String,
        /// Where it is.
        span: Span,
    },
    /// A language feature Molang has but emoted does not support.
    #[error("{construct} is not supported by emoted")]
    Unsupported {
        /// The construct, e.g. "the arrow operator `->`".
        construct: &'static str,
        /// Where it is.
        span: Span,
    },
    /// The expression nests deeper than the evaluator allows.
    #[error("the expression nests more than {limit} levels deep: split it into statements with `t.` temporaries")]
    TooDeep {
        /// The limit.
        limit: u32,
        /// The innermost part that went over.
        span: Span,
    },
    /// The source is longer than [`MAX_SOURCE_CHARS`](super::MAX_SOURCE_CHARS).
    #[error("a Molang string may have at most {limit} characters, found {found}")]
    TooLong {
        /// Characters in the source.
        found: usize,
        /// The limit.
        limit: usize,
        /// The part past the limit.
        span: Span,
    },
    /// In a program with `;`, the last statement must end with `;` too.
    #[error("the last statement needs a `;` (a program with `;` gets its value from `return`, e.g. `return t.a;`)")]
    MissingSemicolon {
        /// The unterminated last statement.
        span: Span,
    },
    /// The left side of `=` is not a variable.
    #[error("only `v.` and `t.` names can be assigned with `=`")]
    InvalidAssignmentTarget {
        /// The left side.
        span: Span,
    },
    /// Assignment to `q.`, `c.` or `math.`.
    #[error("`{name}` is read-only: only `v.` and `t.` names can be assigned")]
    AssignToReadOnly {
        /// The target (canonical spelling).
        name: String,
        /// The assignment target.
        span: Span,
    },
    /// A track or selector assigns `v.`: only the root programs may.
    #[error("a track value may read `{name}` but not assign it: assign `v.` in `molang.initialize` or `molang.tick`, or use a `t.` temporary")]
    AssignVariableInTrack {
        /// The variable (canonical spelling).
        name: String,
        /// The assignment target.
        span: Span,
    },
    /// `q.` name not in emoted's query list.
    #[error("unknown query `q.{name}`")]
    UnknownQuery {
        /// The query name without `q.`.
        name: String,
        /// Where it is.
        span: Span,
    },
    /// `math.` name not in the math library.
    #[error("unknown math function `math.{name}`")]
    UnknownMathFunction {
        /// The function name without `math.`.
        name: String,
        /// Where it is.
        span: Span,
    },
    /// A function called with the wrong number of arguments.
    #[error("`{function}` takes {expected}, found {found}")]
    WrongArgumentCount {
        /// The function (canonical spelling).
        function: String,
        /// How many it takes, in words (e.g. "2 arguments", "1 to 2 arguments").
        expected: &'static str,
        /// How many were given.
        found: usize,
        /// The call.
        span: Span,
    },
    /// A function name used without its argument list.
    #[error("`{function}` is a function: call it with arguments, e.g. `{function}(0)`")]
    MissingArguments {
        /// The function (canonical spelling).
        function: String,
        /// The name.
        span: Span,
    },
    /// An argument must be a string literal (a scoreboard objective, an item id).
    #[error("argument of `{function}` must be a string literal such as 'minecraft:bow'")]
    ExpectedStringLiteral {
        /// The function (canonical spelling).
        function: String,
        /// The argument.
        span: Span,
    },
    /// An item slot selector emoted does not know.
    #[error("unknown item slot `{name}`: use main_hand, off_hand, slot.weapon, slot.weapon.mainhand, slot.weapon.offhand, slot.armor.head, slot.armor.chest, slot.armor.legs, slot.armor.feet, 0 or 1")]
    UnknownItemSlot {
        /// The selector as written.
        name: String,
        /// Where it is.
        span: Span,
    },
    /// A string literal used as a number (`'a' + 1`; an error since Bedrock 1.17.40).
    #[error("a string cannot be an operand of `{operator}`: strings can only be compared with `==` and `!=` or passed to query functions")]
    StringOperand {
        /// The operator or function, e.g. "+" or "math.sin".
        operator: String,
        /// The string.
        span: Span,
    },
    /// `break` or `continue` outside `loop`/`for_each`.
    #[error("`{keyword}` must be inside `loop` or `for_each`")]
    OutsideLoop {
        /// `break` or `continue`.
        keyword: &'static str,
        /// Where it is.
        span: Span,
    },
    /// The first argument of `for_each` is not an assignable variable.
    #[error("the first argument of `for_each` must be a `t.` (or, in programs, `v.`) variable")]
    InvalidForEachVariable {
        /// The argument.
        span: Span,
    },
}

impl MolangError {
    /// The byte range in the source this error is about.
    pub fn span(&self) -> Span {
        match self {
            Self::UnexpectedCharacter { span, .. }
            | Self::UnterminatedString { span }
            | Self::InvalidNumber { span, .. }
            | Self::UnexpectedToken { span, .. }
            | Self::UnknownName { span, .. }
            | Self::Unsupported { span, .. }
            | Self::TooDeep { span, .. }
            | Self::TooLong { span, .. }
            | Self::MissingSemicolon { span }
            | Self::InvalidAssignmentTarget { span }
            | Self::AssignToReadOnly { span, .. }
            | Self::AssignVariableInTrack { span, .. }
            | Self::UnknownQuery { span, .. }
            | Self::UnknownMathFunction { span, .. }
            | Self::WrongArgumentCount { span, .. }
            | Self::MissingArguments { span, .. }
            | Self::ExpectedStringLiteral { span, .. }
            | Self::UnknownItemSlot { span, .. }
            | Self::StringOperand { span, .. }
            | Self::OutsideLoop { span, .. }
            | Self::InvalidForEachVariable { span } => *span,
        }
    }
}

/// The longest snippet [`describe`] quotes, in characters.
const SNIPPET_CHARS: usize = 40;

/// Renders `error` as one line: "message at characters A..B: `snippet`".
///
/// `A..B` are **character** offsets (0-based, end exclusive) into `source`,
/// so they match what an editor shows for the JSON string; an empty span
/// reads "at character A (end of input)" or "at character A". Long snippets
/// are cut with `…`. A span that does not fit `source` is clamped, never a
/// panic.
pub fn describe(error: &MolangError, source: &str) -> String {
    let span = error.span();
    let start = floor_char_boundary(source, span.start as usize);
    let end = floor_char_boundary(source, (span.end as usize).max(start));
    let start_chars = source[..start].chars().count();
    let snippet = &source[start..end];
    let snippet_chars = snippet.chars().count();
    let mut out = error.to_string();
    if snippet.is_empty() {
        let _ = write!(out, " at character {start_chars}");
        if start >= source.len() {
            out.push_str(" (end of input)");
        }
        return out;
    }
    let _ = write!(
        out,
        " at characters {start_chars}..{}: `",
        start_chars + snippet_chars
    );
    if snippet_chars > SNIPPET_CHARS {
        out.extend(snippet.chars().take(SNIPPET_CHARS - 1));
        out.push('…');
    } else {
        out.push_str(snippet);
    }
    out.push('`');
    out
}

/// The largest char boundary of `s` at or below `index` (clamped to its length).
fn floor_char_boundary(s: &str, index: usize) -> usize {
    let mut i = index.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
