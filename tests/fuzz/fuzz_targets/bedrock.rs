//! Fuzz target `bedrock`: the bytes of a Bedrock (GeckoLib) animation file
//! or geometry file, as `emoted convert` reads them.
//!
//! The entry point is [`emoted::import::bedrock::convert`], with no
//! geometry file (the bare rig the animation names). The same bytes, when
//! they are JSON, are also read as a geometry file
//! ([`emoted::import::bedrock::geometry::read_geometry`], which `convert`
//! reaches only through a path). The contract is no panic: bad input gives
//! an `Err` that renders as a message.
#![no_main]

use emoted::import::bedrock::convert;
use emoted::import::bedrock::geometry::read_geometry;
use libfuzzer_sys::fuzz_target;

mod import_input;

fuzz_target!(|bytes: &[u8]| {
    import_input::check(convert(bytes, &import_input::options()));
    if let Ok(json) = serde_json::from_slice::<serde_json::Value>(bytes) {
        let mut notes = Vec::new();
        import_input::check(read_geometry(&json, "input.geo.json#", &mut notes));
    }
});
