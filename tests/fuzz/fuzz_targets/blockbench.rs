//! Fuzz target `blockbench`: the bytes of a Blockbench `.bbmodel` (4.x or
//! 5.x), as `emoted convert` reads them.
//!
//! The entry point is [`emoted::import::blockbench::convert`]: the model
//! and its animations read, evaluated tick by tick and built into schema 4
//! Animations. The contract is no panic: bad input gives an `Err` that
//! renders as a message.
#![no_main]

use emoted::import::blockbench::convert;
use libfuzzer_sys::fuzz_target;

mod import_input;

fuzz_target!(|bytes: &[u8]| {
    import_input::check(convert(bytes, &import_input::options()));
});
