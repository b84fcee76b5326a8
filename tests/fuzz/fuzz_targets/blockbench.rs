//! Fuzz target `blockbench`: the bytes of a Blockbench `.bbmodel` (4.x or
//! 5.x), as `emoted convert` reads them.
//!
//! The entry point is [`emoted::import::blockbench::convert`]: the model
//! and its animations read, evaluated tick by tick and built into schema 4
//! Animations. The contract is no panic: bad input gives an `Err` that
//! renders as a message.
#![no_main]

use emoted::import::blockbench::convert;
use emoted::import::ConvertOptions;
use libfuzzer_sys::fuzz_target;

/// What `emoted convert` would be told for a file `input` read from
/// memory: the default namespace, no folder to look in for the files it
/// names, every animation.
fn options() -> ConvertOptions {
    ConvertOptions {
        stem: "input".to_owned(),
        ..ConvertOptions::default()
    }
}

fuzz_target!(|bytes: &[u8]| {
    if let Err(error) = convert(bytes, &options()) {
        let _ = error.to_string();
    }
});
