//! Fuzz target `anim_clip`: the bytes of an `.anim` clip (versions 1 to 3)
//! or a `.retarget` file, as an admin drops them into `emotes/`.
//!
//! The bytes are read as a retarget file
//! ([`emoted::format::clip::parse_retarget_bytes`]) and as a clip
//! ([`emoted::format::clip::parse_clip_bytes`]); a clip that reads is
//! built into the schema 4 Animation it plays as
//! ([`emoted::library::clips::clip_animation`], with the id a fixed fake
//! path gives), compiled, and given its bone form, as the library's
//! private `clips::read_clip_emote` does from a path. The contract is no
//! panic: bad input gives problems.
#![no_main]

use std::path::Path;

use emoted::format::clip::{parse_clip_bytes, parse_retarget_bytes};
use emoted::library::clips::{clip_animation, clip_id};
use emoted::library::{bone_form, CompiledAnimation};
use libfuzzer_sys::fuzz_target;

/// Where the clip is said to be (only its id and name come from it).
const FAKE_PATH: &str = "emotes/fuzz/input.anim";

fuzz_target!(|bytes: &[u8]| {
    let _ = parse_retarget_bytes(bytes);
    let report = parse_clip_bytes(bytes);
    let mut problems = report.problems;
    let Some(clip) = report.file else {
        return;
    };
    let id = clip_id(Path::new(FAKE_PATH));
    if let Ok(animation) = clip_animation(&clip, &id, "input", &mut problems) {
        if let Ok(compiled) = CompiledAnimation::compile(&animation) {
            let _ = bone_form(&compiled, &animation);
        }
    }
});
