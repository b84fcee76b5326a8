//! Fuzz target `three_ds`: the bytes of a 3D Studio `.3ds` file, whose
//! keyframer `emoted convert` reads.
//!
//! The entry point is [`emoted::import::three_ds::convert::convert`] at
//! the default frame rate: the chunk walk, the keyframer's tracks, their
//! evaluation and the schema 4 Animation built from them. The contract is
//! no panic: bad input gives an `Err` that renders as a message.
#![no_main]

use emoted::import::three_ds::convert::convert;
use libfuzzer_sys::fuzz_target;

mod import_input;

fuzz_target!(|bytes: &[u8]| {
    import_input::check(convert(bytes, &import_input::options(), None));
});
