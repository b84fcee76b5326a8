//! Fuzz target `gltf`: the bytes of a glTF 2.0 file, `.gltf` JSON or `.glb`,
//! as `emoted convert` reads them.
//!
//! The entry point is [`emoted::import::gltf::convert`], from memory: a
//! buffer that names another file is not read (there is no folder), a
//! `data:` buffer is. The contract is no panic: bad input gives an `Err`
//! that renders as a message.
#![no_main]

use emoted::import::gltf::convert;
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
