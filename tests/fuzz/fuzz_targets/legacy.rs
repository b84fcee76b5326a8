//! Fuzz target `legacy`: the bytes of an older emoted file (schema 1 or
//! schema 3), which `emoted convert` upgrades to schema 4.
//!
//! The entry point is [`emoted::import::legacy::convert`]. The contract is
//! no panic: bad input gives an `Err` that renders as a message.
#![no_main]

use emoted::import::legacy::convert;
use libfuzzer_sys::fuzz_target;

mod import_input;

fuzz_target!(|bytes: &[u8]| {
    import_input::check(convert(bytes, &import_input::options()));
});
