//! emoted's own channel, `emoted:animation` (issue 16), for client mods
//! other than Emotecraft: the server's bone-drawn emotes as Bedrock
//! animation JSON, the format GeckoLib and Blockbench read
//! (`../shared/specs/protocol-notes.md` §4).
//!
//! # The model
//!
//! A client mod says it reads the channel with a HELLO naming the highest
//! version it reads; the server answers with the version both speak and
//! its two size caps, and from then on sends a PLAY when a player near the
//! client starts one of the server's body emotes (the same emotes
//! Emotecraft players get as bones, [`crate::library::bones`]) and a STOP
//! when it ends. A PLAY carries one whole Bedrock animation file
//! ([`bedrock_json`]) and the name of the animation in it, plus how many
//! ticks of it have already played, so a client that arrives while a
//! player emotes joins at the right moment. The client draws it on the
//! player's model itself; the server hides that player's skin-bound
//! displays from it, as from an Emotecraft client.
//!
//! # The bytes
//!
//! Every number is big-endian. Every message starts with the same two
//! bytes: `u8 version` (1) and `u8 kind`. A HELLO is always sent as
//! version 1, whatever the client reads, so every server can read it.
//!
//! | kind | direction | after the two header bytes |
//! |---|---|---|
//! | 0 HELLO | client → server | `u8` the highest version the client reads (1 or more) |
//! | 0 HELLO | server → client | `u8` the version both speak, `u32` the most bytes a client's message may have (32768), `u32` the most bytes a server's message may have (1048576) |
//! | 1 PLAY | server → client | 16 bytes the player's UUID, 16 bytes the animation's UUID, `i32` ticks already played, `u16` byte length + UTF-8 animation name, `u32` byte length + UTF-8 JSON |
//! | 2 STOP | server → client | 16 bytes the player's UUID, 16 bytes the animation's UUID |
//!
//! A UUID is its 16 bytes, most significant first (Java's
//! `getMostSignificantBits` then `getLeastSignificantBits`). The
//! animation's UUID is the one Emotecraft's STREAM names for the same emote
//! ([`crate::modded::emotecraft::bones::emote_uuid`]): a STOP names the PLAY
//! it ends. The ticks already played are 0 at the start and count on past
//! the animation's length for a loop (the client takes them modulo the
//! length, `animation_length · 20`). The name is the one key of the JSON's
//! `animations` object (`animation.emoted.<namespace>.<path>`).
//!
//! A PLAY for a player who plays an animation already replaces it; the
//! server sends a STOP first only when the animation's UUID changes. A
//! controller's body (a loop of its blend, sent again as the blend moves)
//! arrives as PLAYs of one UUID, one after another.
//!
//! A message over its direction's cap ([`MAX_FROM_CLIENT_BYTES`],
//! [`MAX_TO_CLIENT_BYTES`]) is refused whole, and so is one of another
//! version, another kind, a length past the end or over the cap, text that
//! is not UTF-8, or bytes after the end ([`ChannelError`], each with the
//! byte offset). The server drops such a message from a client with one
//! log line and keeps the client.

mod json;
mod wire;

pub use json::{bedrock_bone_name, bedrock_json, ANGLE_TOLERANCE_DEGREES, OFFSET_TOLERANCE_PX};
pub use wire::{AnimationC2s, AnimationS2c, ChannelError, PlayAnimationS2c};

/// The channel's name.
pub const CHANNEL: &str = "emoted:animation";

/// The one version of the channel there is.
pub const VERSION: u8 = 1;

/// The most bytes a client's message may have: 32 KiB.
pub const MAX_FROM_CLIENT_BYTES: usize = 32 * 1024;

/// The most bytes a message to a client may have: 1 MiB.
pub const MAX_TO_CLIENT_BYTES: usize = 1 << 20;

/// The kind byte of a HELLO.
pub const KIND_HELLO: u8 = 0;
/// The kind byte of a PLAY.
pub const KIND_PLAY: u8 = 1;
/// The kind byte of a STOP.
pub const KIND_STOP: u8 = 2;
