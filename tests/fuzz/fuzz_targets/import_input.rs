//! What the importer targets (`bedrock`, `blockbench`, `emotecraft_json`,
//! `gltf`, `legacy`, `three_ds`) share: the options `emoted convert` would
//! be given for a file read from memory, and the contract they check.

use emoted::import::ConvertOptions;

/// What `emoted convert` would be told for a file `input` read from
/// memory: the default namespace, no folder to look in for the files it
/// names, every animation.
pub fn options() -> ConvertOptions {
    ConvertOptions {
        stem: "input".to_owned(),
        ..ConvertOptions::default()
    }
}

/// The contract: no panic. Bad input gives an `Err` that renders as a
/// message, rendered here as `emoted convert` prints it.
pub fn check<T, E: std::fmt::Display>(converted: Result<T, E>) {
    if let Err(error) = converted {
        let _ = error.to_string();
    }
}
