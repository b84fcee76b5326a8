//! The Molang lexer: a pure function from a source string to tokens with
//! byte spans (naga's `consume_token` shape).
//!
//! Names are lowercased here (Molang is case-insensitive outside strings);
//! a dotted name such as `Query.Anim_Time` is one [`Token::Name`].

use super::{MolangError, Span};

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Token {
    /// A number literal (`12`, `1.5`, `.5`, `2.5e2`, `1.5f`), always finite and non-negative.
    Number(f64),
    /// A string literal's contents (case kept, no escapes).
    String(String),
    /// A name, lowercased, possibly dotted (`v.x`, `math.sin`, `loop`).
    Name(String),
    /// A punctuation or operator token.
    Punct(Punct),
}

/// Operators and punctuation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Punct {
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `;`
    Semicolon,
    /// `?`
    Question,
    /// `??`
    QuestionQuestion,
    /// `:`
    Colon,
    /// `=`
    Assign,
    /// `==`
    Eq,
    /// `!=`
    NotEq,
    /// `<`
    Less,
    /// `<=`
    LessEq,
    /// `>`
    Greater,
    /// `>=`
    GreaterEq,
    /// `&&`
    AndAnd,
    /// `||`
    OrOr,
    /// `!`
    Bang,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `->`
    Arrow,
}

impl Punct {
    /// The token as written.
    pub(crate) fn text(self) -> &'static str {
        match self {
            Self::LParen => "(",
            Self::RParen => ")",
            Self::LBrace => "{",
            Self::RBrace => "}",
            Self::LBracket => "[",
            Self::RBracket => "]",
            Self::Comma => ",",
            Self::Semicolon => ";",
            Self::Question => "?",
            Self::QuestionQuestion => "??",
            Self::Colon => ":",
            Self::Assign => "=",
            Self::Eq => "==",
            Self::NotEq => "!=",
            Self::Less => "<",
            Self::LessEq => "<=",
            Self::Greater => ">",
            Self::GreaterEq => ">=",
            Self::AndAnd => "&&",
            Self::OrOr => "||",
            Self::Bang => "!",
            Self::Plus => "+",
            Self::Minus => "-",
            Self::Star => "*",
            Self::Slash => "/",
            Self::Arrow => "->",
        }
    }
}

impl Token {
    /// How an error message names this token.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Number(n) => format!("the number `{n}`"),
            Self::String(s) => format!("the string '{s}'"),
            Self::Name(n) => format!("`{n}`"),
            Self::Punct(p) => format!("`{}`", p.text()),
        }
    }
}

/// A token and where it is.
pub(crate) type TokenSpan = (Token, Span);

/// Splits `source` into tokens. Whitespace separates tokens and is dropped.
pub(crate) fn tokenize(source: &str) -> Result<Vec<TokenSpan>, MolangError> {
    let mut tokens = Vec::new();
    let mut rest = source;
    loop {
        let trimmed = rest.trim_start();
        let start = source.len() - trimmed.len();
        if trimmed.is_empty() {
            return Ok(tokens);
        }
        let (token, len) = consume_token(trimmed, start)?;
        tokens.push((token, span(start, start + len)));
        rest = &trimmed[len..];
    }
}

fn span(start: usize, end: usize) -> Span {
    Span {
        start: u32::try_from(start).unwrap_or(u32::MAX),
        end: u32::try_from(end).unwrap_or(u32::MAX),
    }
}

/// Reads one token from the start of `input` (which starts with no
/// whitespace and sits at byte `offset` of the source). Returns the token and
/// its length in bytes.
fn consume_token(input: &str, offset: usize) -> Result<(Token, usize), MolangError> {
    let bytes = input.as_bytes();
    let first = match input.chars().next() {
        Some(c) => c,
        None => {
            return Err(MolangError::UnexpectedToken {
                expected: "a token",
                found: "end of input".into(),
                span: span(offset, offset),
            })
        }
    };
    let second = bytes.get(1).copied();
    let punct = |p: Punct, len: usize| Ok((Token::Punct(p), len));
    // The first character starts `two` when `next` follows it, else is `one`.
    let one_or_two = |next: u8, two: Punct, one: Punct| {
        if second == Some(next) {
            punct(two, 2)
        } else {
            punct(one, 1)
        }
    };
    match first {
        '0'..='9' => number(input, offset),
        '.' if second.is_some_and(|b| b.is_ascii_digit()) => number(input, offset),
        'a'..='z' | 'A'..='Z' | '_' => Ok(name(input)),
        '\'' => match input[1..].find('\'') {
            Some(end) => Ok((Token::String(input[1..1 + end].to_string()), end + 2)),
            None => Err(MolangError::UnterminatedString {
                span: span(offset, offset + input.len()),
            }),
        },
        '(' => punct(Punct::LParen, 1),
        ')' => punct(Punct::RParen, 1),
        '{' => punct(Punct::LBrace, 1),
        '}' => punct(Punct::RBrace, 1),
        '[' => punct(Punct::LBracket, 1),
        ']' => punct(Punct::RBracket, 1),
        ',' => punct(Punct::Comma, 1),
        ';' => punct(Punct::Semicolon, 1),
        ':' => punct(Punct::Colon, 1),
        '+' => punct(Punct::Plus, 1),
        '*' => punct(Punct::Star, 1),
        '/' => punct(Punct::Slash, 1),
        '?' => one_or_two(b'?', Punct::QuestionQuestion, Punct::Question),
        '=' => one_or_two(b'=', Punct::Eq, Punct::Assign),
        '!' => one_or_two(b'=', Punct::NotEq, Punct::Bang),
        '<' => one_or_two(b'=', Punct::LessEq, Punct::Less),
        '>' => one_or_two(b'=', Punct::GreaterEq, Punct::Greater),
        '-' => one_or_two(b'>', Punct::Arrow, Punct::Minus),
        '&' if second == Some(b'&') => punct(Punct::AndAnd, 2),
        '|' if second == Some(b'|') => punct(Punct::OrOr, 2),
        other => Err(MolangError::UnexpectedCharacter {
            found: other,
            span: span(offset, offset + other.len_utf8()),
        }),
    }
}

/// A name: identifier segments joined by `.`, lowercased.
fn name(input: &str) -> (Token, usize) {
    let bytes = input.as_bytes();
    let mut len = 0;
    loop {
        // One identifier segment.
        while bytes
            .get(len)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            len += 1;
        }
        // A dot continues the name only when a segment follows it.
        let continues = bytes.get(len) == Some(&b'.')
            && bytes
                .get(len + 1)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
        if !continues {
            break;
        }
        len += 1;
    }
    (Token::Name(input[..len].to_ascii_lowercase()), len)
}

/// A number: digits, an optional fraction, an optional exponent, an optional `f`.
fn number(input: &str, offset: usize) -> Result<(Token, usize), MolangError> {
    let bytes = input.as_bytes();
    let digits = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut len = digits(0);
    if bytes.get(len) == Some(&b'.') {
        len = digits(len + 1);
    }
    let mantissa_end = len;
    if matches!(bytes.get(len), Some(b'e' | b'E')) {
        let mut exp = len + 1;
        if matches!(bytes.get(exp), Some(b'+' | b'-')) {
            exp += 1;
        }
        if bytes.get(exp).is_some_and(u8::is_ascii_digit) {
            len = digits(exp);
        }
    }
    let literal_end = len;
    if matches!(bytes.get(len), Some(b'f' | b'F')) {
        len += 1;
    }
    let text = &input[..literal_end];
    // `1.` and `.5` are fine for Rust's parser; `1.e3` is not, so mend it.
    let parsed = if mantissa_end > 0 && bytes.get(mantissa_end - 1) == Some(&b'.') {
        let mut mended = String::with_capacity(text.len() + 1);
        mended.push_str(&text[..mantissa_end]);
        mended.push('0');
        mended.push_str(&text[mantissa_end..]);
        mended.parse::<f64>()
    } else {
        text.parse::<f64>()
    };
    match parsed {
        Ok(value) if value.is_finite() => Ok((Token::Number(value), len)),
        _ => Err(MolangError::InvalidNumber {
            text: input[..len].to_string(),
            span: span(offset, offset + len),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<Token> {
        match tokenize(source) {
            Ok(tokens) => tokens.into_iter().map(|(t, _)| t).collect(),
            Err(e) => panic!("{source}: {e}"),
        }
    }

    #[test]
    fn numbers_in_every_form() {
        for (source, value) in [
            ("12", 12.0),
            ("0012", 12.0),
            ("1.5", 1.5),
            (".5", 0.5),
            ("1.", 1.0),
            ("2.5e2", 250.0),
            ("2.5E-1", 0.25),
            ("1.5f", 1.5),
            ("3F", 3.0),
            ("1.e2", 100.0),
        ] {
            assert_eq!(kinds(source), vec![Token::Number(value)], "{source}");
        }
    }

    #[test]
    fn names_are_lowercased_and_dotted() {
        assert_eq!(
            kinds("Query.Anim_Time"),
            vec![Token::Name("query.anim_time".into())]
        );
        assert_eq!(kinds("v.x.y"), vec![Token::Name("v.x.y".into())]);
        // A dot not followed by a name is not part of the name.
        assert!(tokenize("v.").is_err());
    }

    #[test]
    fn strings_keep_case_and_spaces() {
        assert_eq!(kinds("'A b'"), vec![Token::String("A b".into())]);
        assert_eq!(kinds("''"), vec![Token::String(String::new())]);
    }

    #[test]
    fn spans_are_byte_ranges() {
        let tokens = tokenize("  v.x >= 'é'").unwrap_or_default();
        let spans: Vec<(u32, u32)> = tokens.iter().map(|(_, s)| (s.start, s.end)).collect();
        assert_eq!(spans, vec![(2, 5), (6, 8), (9, 13)]);
    }

    #[test]
    fn errors_have_spans() {
        assert_eq!(
            tokenize("1 + 'abc"),
            Err(MolangError::UnterminatedString {
                span: Span { start: 4, end: 8 }
            })
        );
        assert_eq!(
            tokenize("1 # 2"),
            Err(MolangError::UnexpectedCharacter {
                found: '#',
                span: Span { start: 2, end: 3 }
            })
        );
        assert!(matches!(
            tokenize("1e999"),
            Err(MolangError::InvalidNumber { .. })
        ));
        assert!(matches!(
            tokenize("a & b"),
            Err(MolangError::UnexpectedCharacter { .. })
        ));
    }
}
