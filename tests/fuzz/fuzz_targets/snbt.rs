//! Fuzz target `snbt`: the SNBT text of a display node's content and
//! `entity_nbt` (and of `nbt` track keys, which go through the same
//! readers), as text.
//!
//! Each reader of [`emoted::format::snbt`] is given the text: the plain
//! compound reader, `entity_nbt` for each of the three display kinds, an
//! item stack and a block state. The `nbt` track reader itself
//! (`format::nbt_track::read_nbt_track`) is `pub(crate)`; it is reached
//! through the `emote_json` target, whose seeds hold `nbt` tracks. The
//! contract is no panic: bad text gives an `Err` with a message.
#![no_main]

use emoted::format::snbt::{block_state, entity_nbt, item_stack, parse_compound, DisplayKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let _ = parse_compound(text);
    for kind in [DisplayKind::Item, DisplayKind::Block, DisplayKind::Text] {
        let _ = entity_nbt(text, kind);
    }
    let _ = item_stack(text);
    let _ = block_state(text);
});
