//! Fuzz target `emotecraft_packet`: one plugin message a modded client sends
//! on `emotecraft:emote` (Emotecraft's binary protocol, networking
//! version 8).
//!
//! The framing is read as the server reads it
//! ([`emoted::modded::emotecraft::EmotePacket::read`] with
//! [`emoted::modded::emotecraft::MAX_FROM_CLIENT_BYTES`]); then each
//! sub-packet goes to its own reader: the emote (start tick and animation
//! binary, [`emoted::modded::emotecraft::animation::read_emote`]), the
//! player, the versions map, the stopped emote's UUID and the FILE header.
//! A packet that reads is relayed as the server relays it (the sender's
//! UUID put in, the start tick moved, written again).
//!
//! An emote that reads is drawn for vanilla players as the server's
//! private `server::modded::draw::import` draws it: the same refusals
//! (nsfw, no moving part, a cycle over 1,200 ticks), then
//! [`emoted::import::playeranimator::import_bone_animation`], compiling and
//! the bone form. The contract is no panic: bad bytes give a `WireError`.
#![no_main]

use emoted::import::playeranimator::import_bone_animation;
use emoted::library::{bone_form, CompiledAnimation};
use emoted::modded::emotecraft::animation::{read_emote, BoneAnimation};
use emoted::modded::emotecraft::file::read_header;
use emoted::modded::emotecraft::{
    read_discovery, read_player, read_stop, EmotePacket, MAX_FROM_CLIENT_BYTES, SUB_DISCOVERY,
    SUB_EMOTE, SUB_HEADER, SUB_PLAYER, SUB_STOP,
};
use libfuzzer_sys::fuzz_target;
use uuid::Uuid;

/// The longest cycle the server draws for vanilla players
/// (`server::modded::draw::MAX_DRAWN_TICKS`, in a private module).
const MAX_DRAWN_TICKS: i32 = 1200;

/// The UUID the relay puts in as the sender's.
const SENDER: Uuid = Uuid::from_u128(0x069a_79f4_44e9_4726_a5be_fca9_0e38_aaf5);

/// Draws `animation` for vanilla players, as the server does (module docs).
fn draw(animation: &BoneAnimation) {
    if animation.nsfw {
        return;
    }
    let moves = animation.parts.iter().any(|part| {
        part.axes
            .iter()
            .any(|axis| axis.enabled && !axis.keyframes.is_empty())
    });
    let cycle_ticks = animation
        .end_tick
        .saturating_sub(animation.begin_tick.min(0));
    if !moves || cycle_ticks > MAX_DRAWN_TICKS {
        return;
    }
    let id = format!("emotecraft:player/{}", SENDER.simple());
    let Ok(imported) = import_bone_animation(animation, &id, serde_json::Map::new()) else {
        return;
    };
    if let Ok(compiled) = CompiledAnimation::compile(&imported.file) {
        let _ = bone_form(&compiled, &imported.file);
    }
}

fuzz_target!(|bytes: &[u8]| {
    let mut packet = match EmotePacket::read(bytes, MAX_FROM_CLIENT_BYTES) {
        Ok(packet) => packet,
        Err(error) => {
            let _ = error.to_string();
            return;
        }
    };
    for sub in &packet.subs {
        match sub.id {
            SUB_EMOTE => match read_emote(&sub.payload, 0) {
                Ok((_start_tick, animation)) => draw(&animation),
                Err(error) => {
                    let _ = error.to_string();
                }
            },
            SUB_PLAYER => {
                let _ = read_player(&sub.payload);
            }
            SUB_DISCOVERY => {
                let _ = read_discovery(&sub.payload);
            }
            SUB_STOP => {
                let _ = read_stop(&sub.payload);
            }
            SUB_HEADER => {
                let _ = read_header(&sub.payload);
            }
            _ => {}
        }
    }
    let _ = packet.start_tick();
    packet.set_player(SENDER, false);
    packet.set_start_tick(20);
    let _ = packet.fits_a_client();
    let _ = packet.write();
});
