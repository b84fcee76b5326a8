//! Fuzz target `animation_channel`: one plugin message on
//! `emoted:animation`, emoted's own channel for modded clients.
//!
//! The server reads a client's message with
//! [`emoted::modded::animation_channel::AnimationC2s::read`]; a mod reads
//! the server's with [`emoted::modded::animation_channel::AnimationS2c::read`],
//! which is given the same bytes. A message that reads is written again.
//! The contract is no panic: bad bytes give a `ChannelError` that renders
//! as a message.
#![no_main]

use emoted::modded::animation_channel::{AnimationC2s, AnimationS2c};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    match AnimationC2s::read(bytes) {
        Ok(message) => {
            let _ = message.write();
        }
        Err(error) => {
            let _ = error.to_string();
        }
    }
    match AnimationS2c::read(bytes) {
        Ok(message) => {
            let _ = message.write();
        }
        Err(error) => {
            let _ = error.to_string();
        }
    }
});
