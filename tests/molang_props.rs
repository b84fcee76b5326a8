//! Property tests for the Molang front end: the lexer, parser and compiler
//! never panic on any string, their errors' spans lie inside the source, and
//! printing a tree then parsing it gives the same tree.

use emoted::molang::parser::parse;
use emoted::molang::printer::print;
use emoted::molang::{
    compile, describe, Ast, BinaryOp, CompileContext, Expr, ExprKind, MolangRng, Name, Namespace,
    QueryContext, Session, Span, Symbols, UnaryOp,
};
use proptest::prelude::*;

/// Pieces of Molang, so that random strings often get past the lexer.
const TOKENS: &[&str] = &[
    "1",
    "2.5",
    ".5",
    "1e3",
    "0012",
    "1.5f",
    "'a'",
    "'minecraft:bow'",
    "v.x",
    "t.y",
    "q.anim_time",
    "q.position",
    "math.sin",
    "math.pi",
    "c.z",
    "variable.w",
    "query.health",
    "loop",
    "for_each",
    "return",
    "break",
    "continue",
    "this",
    "true",
    "false",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    "?",
    "??",
    ":",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "&&",
    "||",
    "!",
    "+",
    "-",
    "*",
    "/",
    "->",
    " ",
    "é",
    "#",
    "'",
    ".",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|t| t.concat())
}

fn check_source(source: &str) {
    let mut symbols = Symbols::new();
    for context in [CompileContext::Program, CompileContext::Track] {
        match compile(source, context, &mut symbols) {
            Ok(program) => {
                // Whatever compiles evaluates without panicking.
                let mut session = Session::new(&symbols);
                let _ = program.eval(
                    &mut session,
                    &QueryContext::default(),
                    &mut MolangRng::new(1),
                );
            }
            Err(e) => {
                let span = e.span();
                assert!(span.start <= span.end, "{source:?}: {e:?}");
                assert!(span.end as usize <= source.len(), "{source:?}: {e:?}");
                assert!(
                    source.is_char_boundary(span.start as usize),
                    "{source:?}: {e:?}"
                );
                assert!(
                    source.is_char_boundary(span.end as usize),
                    "{source:?}: {e:?}"
                );
                assert!(!describe(&e, source).is_empty());
            }
        }
    }
    // Whatever parses prints to something that parses to the same tree.
    if let Ok(ast) = parse(source) {
        let printed = print(&ast);
        match parse(&printed) {
            Ok(again) => assert_eq!(
                ast.without_spans(),
                again.without_spans(),
                "{source:?} -> {printed:?}"
            ),
            Err(e) => panic!("{source:?} printed as {printed:?}, which does not parse: {e}"),
        }
    }
}

fn name() -> impl Strategy<Value = Name> {
    let namespace = prop::sample::select(
        &[
            Namespace::Variable,
            Namespace::Temp,
            Namespace::Context,
            Namespace::Query,
            Namespace::Math,
        ][..],
    );
    (namespace, "[a-z_][a-z0-9_]{0,5}(\\.[a-z_][a-z0-9_]{0,3})?").prop_map(|(namespace, path)| {
        Name {
            namespace,
            path,
            span: Span::default(),
        }
    })
}

fn leaf() -> impl Strategy<Value = ExprKind> {
    prop_oneof![
        (0u32..1000).prop_map(|n| ExprKind::Number(f64::from(n))),
        (0.0f64..1e6).prop_map(ExprKind::Number),
        "[a-zA-Z0-9 _:.]{0,8}".prop_map(ExprKind::String),
        name().prop_map(ExprKind::Name),
        Just(ExprKind::Break),
        Just(ExprKind::Continue),
        Just(ExprKind::This),
        Just(ExprKind::Return(None)),
    ]
}

fn expr_of(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn tree() -> impl Strategy<Value = Expr> {
    leaf().prop_map(expr_of).prop_recursive(6, 64, 4, |inner| {
        let binary = prop::sample::select(
            &[
                BinaryOp::Mul,
                BinaryOp::Div,
                BinaryOp::Add,
                BinaryOp::Sub,
                BinaryOp::Less,
                BinaryOp::LessEq,
                BinaryOp::Greater,
                BinaryOp::GreaterEq,
                BinaryOp::Eq,
                BinaryOp::NotEq,
                BinaryOp::And,
                BinaryOp::Or,
                BinaryOp::Coalesce,
            ][..],
        );
        let b = |e: Expr| Box::new(e);
        prop_oneof![
            (
                prop::sample::select(&[UnaryOp::Negate, UnaryOp::Not][..]),
                inner.clone()
            )
                .prop_map(move |(op, a)| ExprKind::Unary(op, b(a))),
            (binary, inner.clone(), inner.clone()).prop_map(move |(op, x, y)| ExprKind::Binary(
                op,
                b(x),
                b(y)
            )),
            (
                inner.clone(),
                inner.clone(),
                prop::option::of(inner.clone())
            )
                .prop_map(move |(c, x, y)| ExprKind::Conditional(b(c), b(x), y.map(b))),
            (name(), inner.clone()).prop_map(move |(n, v)| ExprKind::Assign(n, b(v))),
            (name(), prop::collection::vec(inner.clone(), 0..3))
                .prop_map(|(n, a)| ExprKind::Call(n, a)),
            prop::collection::vec(inner.clone(), 0..3).prop_map(ExprKind::Block),
            (inner.clone(), inner.clone()).prop_map(move |(c, x)| ExprKind::Loop(b(c), b(x))),
            (name(), inner.clone(), inner.clone()).prop_map(move |(n, a, x)| ExprKind::ForEach(
                n,
                b(a),
                b(x)
            )),
            inner
                .clone()
                .prop_map(move |v| ExprKind::Return(Some(b(v)))),
        ]
        .prop_map(expr_of)
    })
}

fn ast() -> impl Strategy<Value = Ast> {
    prop_oneof![
        tree().prop_map(|e| Ast {
            statements: vec![e],
            complex: false,
        }),
        prop::collection::vec(tree(), 1..4).prop_map(|statements| Ast {
            statements,
            complex: true,
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn front_end_never_panics_on_any_string(source in "\\PC{0,80}") {
        check_source(&source);
    }

    #[test]
    fn front_end_never_panics_on_token_soup(source in token_soup()) {
        check_source(&source);
    }

    #[test]
    fn front_end_never_panics_on_any_bytes_as_text(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        check_source(&String::from_utf8_lossy(&bytes));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn printing_then_parsing_gives_the_same_tree(ast in ast()) {
        let printed = print(&ast);
        let parsed = parse(&printed).map_err(|e| TestCaseError::fail(format!("{printed:?}: {e}")))?;
        prop_assert_eq!(ast.without_spans(), parsed.without_spans(), "{}", printed);
    }
}
