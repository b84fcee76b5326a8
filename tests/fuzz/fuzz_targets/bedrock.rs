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
    if let Ok(json) = serde_json::from_slice::<serde_json::Value>(bytes) {
        let mut notes = Vec::new();
        if let Err(error) = read_geometry(&json, "input.geo.json#", &mut notes) {
            let _ = error.to_string();
        }
    }
});
