//! Fuzz target `gltf`: the bytes of a glTF 2.0 file, `.gltf` JSON or `.glb`,
//! as `emoted convert` reads them.
//!
//! The entry point is [`emoted::import::gltf::convert`], from memory: a
//! buffer that names another file is not read (there is no folder), a
//! `data:` buffer is. The contract is no panic: bad input gives an `Err`
//! that renders as a message.
#![no_main]

use emoted::import::gltf::convert;
use libfuzzer_sys::fuzz_target;

mod import_input;

fuzz_target!(|bytes: &[u8]| {
    import_input::check(convert(bytes, &import_input::options()));
});
