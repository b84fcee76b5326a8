//! Fuzz target `molang`: a Molang expression or program, as text (what an
//! emote file's `molang` programs, track values and selectors hold).
//!
//! The text is parsed ([`emoted::molang::parser::parse`]) and printed back,
//! then compiled ([`emoted::molang::compile`]) as a root program and as a
//! track, and what compiles is evaluated once with
//! [`emoted::molang::Program::try_eval`] under the operation budget a
//! playback has ([`emoted::molang::DEFAULT_OP_BUDGET`]), so a loop ends
//! within it. Every error is rendered with [`emoted::molang::describe`],
//! which slices the source at the error's span. The contract is no panic.
#![no_main]

use emoted::molang::{
    compile, describe, parser, printer, CompileContext, MolangRng, QueryContext, Session, Symbols,
    DEFAULT_OP_BUDGET,
};
use libfuzzer_sys::fuzz_target;

/// The random seed of every evaluation, so that a crash replays.
const RNG_SEED: u64 = 7;

fuzz_target!(|bytes: &[u8]| {
    let Ok(source) = std::str::from_utf8(bytes) else {
        return;
    };
    match parser::parse(source) {
        Ok(ast) => {
            let _ = printer::print(&ast);
        }
        Err(error) => {
            let _ = describe(&error, source);
        }
    }
    for context in [CompileContext::Program, CompileContext::Track] {
        let mut symbols = Symbols::new();
        match compile(source, context, &mut symbols) {
            Ok(program) => {
                let _ = program.worst_case_ops();
                let mut session = Session::new(&symbols);
                session.set_op_budget(DEFAULT_OP_BUDGET);
                let queries = QueryContext::default();
                let mut rng = MolangRng::new(RNG_SEED);
                let _ = program.try_eval(&mut session, &queries, &mut rng);
            }
            Err(error) => {
                let _ = describe(&error, source);
            }
        }
    }
});
