//! Fuzz target `three_ds`: the bytes of a 3D Studio `.3ds` file, whose
//! keyframer `emoted convert` reads.
//!
//! The entry point is [`emoted::import::three_ds::convert::convert`] at
//! the default frame rate: the chunk walk, the keyframer's tracks, their
//! evaluation and the schema 4 Animation built from them. The contract is
//! no panic: bad input gives an `Err` that renders as a message.
#![no_main]

use emoted::import::three_ds::convert::convert;
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
    if let Err(error) = convert(bytes, &options(), None) {
        let _ = error.to_string();
    }
});
