//! Fuzz target `emotecraft_json`: the bytes of an Emotecraft JSON emote
//! (PlayerAnimator's keyframes), as `emoted convert` reads them.
//!
//! The entry point is [`emoted::import::emotecraft_json::convert`]: the
//! JSON read into keyframes, then built into a schema 4 Animation on the
//! humanoid rig and read back. The contract is no panic: bad input gives
//! an `Err` that renders as a message.
#![no_main]

use emoted::import::emotecraft_json::convert;
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
