//! Fuzz target `legacy`: the bytes of an older emoted file (schema 1 or
//! schema 3), which `emoted convert` upgrades to schema 4.
//!
//! The entry point is [`emoted::import::legacy::convert`]. The contract is
//! no panic: bad input gives an `Err` that renders as a message.
#![no_main]

use emoted::import::legacy::convert;
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
