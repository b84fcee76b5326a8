//! Fuzz target `emote_json`: the bytes of a file an admin drops into
//! `emotes/` or ships in a datapack (a schema 4 Animation or Sequence, or a
//! controller).
//!
//! The reader is [`emoted::format::parse_emote_bytes`], the step
//! `read_emote_file` takes after reading the disk. An Animation it accepts
//! then goes through the two steps the library runs at load (its private
//! `read_and_compile`, which takes a path): compiling, and the bone form
//! modded clients are sent. Every problem is rendered as `emoted check`
//! prints it. The contract is no panic: bad input gives problems.
#![no_main]

use emoted::format::{parse_emote_bytes, EmoteFile};
use emoted::library::{bone_form, CompiledAnimation};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let report = parse_emote_bytes(bytes);
    for problem in &report.problems {
        let _ = problem.to_string();
    }
    if let Some(EmoteFile::Animation(animation)) = &report.file {
        match CompiledAnimation::compile(animation) {
            Ok(compiled) => {
                let _ = bone_form(&compiled, animation);
            }
            Err(problems) => {
                for problem in &problems {
                    let _ = problem.to_string();
                }
            }
        }
    }
});
