//! Fuzz target `admin_pack`: the bytes of the admin's own resource pack zip
//! (`resource_pack.merge`), which emoted reads and merges into its pack.
//!
//! The entry point is [`emoted::pack::admin_pack::AdminPack::from_zip_bytes`]
//! with the default caps, under a fixed fake path. A pack that reads is
//! merged ([`emoted::pack::ResourcePack::merge`]) into emoted's own pack
//! for an empty slice table (built once), which parses the admin's
//! `pack.mcmeta` and player-head models, and its `pack.mcmeta` is written
//! again. The contract is no panic: bad bytes give an `AdminPackError`
//! that renders as a message.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use emoted::pack::admin_pack::{AdminPack, MergeLimits};
use emoted::pack::ids::SliceTable;
use emoted::pack::ResourcePack;
use libfuzzer_sys::fuzz_target;

/// Where the zip is said to be (only error messages name it).
const FAKE_PATH: &str = "config/admin_pack.zip";

/// emoted's own pack, built once: the merge works on a copy of it.
fn ours() -> &'static ResourcePack {
    static OURS: OnceLock<ResourcePack> = OnceLock::new();
    OURS.get_or_init(|| ResourcePack::new(&SliceTable::default()))
}

fuzz_target!(|bytes: &[u8]| {
    let theirs =
        match AdminPack::from_zip_bytes(Path::new(FAKE_PATH), bytes, &MergeLimits::default()) {
            Ok(theirs) => theirs,
            Err(error) => {
                let _ = error.to_string();
                return;
            }
        };
    let mut merged = ours().clone();
    for conflict in merged.merge(theirs) {
        let _ = conflict.to_string();
    }
    let _ = merged.pack_mcmeta();
});
