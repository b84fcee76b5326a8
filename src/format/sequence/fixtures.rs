//! Sequence pieces for tests, here and in `playback::sequence`.

use super::{AnimationRef, EmoteChoice, Step};
use crate::format::EmoteId;

/// A reference to `id`, found at no particular pointer.
pub(crate) fn reference(id: &str) -> AnimationRef {
    AnimationRef {
        id: EmoteId::parse(id).expect("id"),
        pointer: String::new(),
    }
}

/// A step that plays `id` `repeat` times, each repetition after a
/// `transition_ticks` transition.
pub(crate) fn play(id: &str, repeat: u32, transition_ticks: u32) -> Step {
    Step::Play {
        emote: EmoteChoice::Single(reference(id)),
        repeat,
        transition_ticks,
    }
}
