//! Fuzz target `emotecraft_json`: the bytes of an Emotecraft JSON emote
//! (PlayerAnimator's keyframes), as `emoted convert` reads them.
//!
//! The entry point is [`emoted::import::emotecraft_json::convert`]: the
//! JSON read into keyframes, then built into a schema 4 Animation on the
//! humanoid rig and read back. The contract is no panic: bad input gives
//! an `Err` that renders as a message.
#![no_main]

use emoted::import::emotecraft_json::convert;
use libfuzzer_sys::fuzz_target;

mod import_input;

fuzz_target!(|bytes: &[u8]| {
    import_input::check(convert(bytes, &import_input::options()));
});
