//! Emotecraft's channel, `emotecraft:emote` (`../shared/specs/protocol-notes.md`
//! §3), networking version 8.
//!
//! # The model
//!
//! One plugin message is one [`EmotePacket`]: a version, a purpose (a
//! STREAM plays an emote, a STOP stops one, a CONFIG trades the versions
//! each side speaks, a FILE puts an emote in the player's wheel) and a set
//! of sub-packets, each an id, a version and a sized payload. Readers skip
//! sub-packets they do not know, so the framing is kept as raw
//! sub-packets ([`SubPacket`]) and each one this server understands has its
//! own reader and writer here: the emote ([`animation::BoneAnimation`],
//! sub-packet 0), the player it is about (1), the versions map (8) and the
//! stopped emote's UUID (10).
//!
//! A server that relays can work on the framing alone: put the player's
//! UUID in sub-packet 1 ([`EmotePacket::set_player`]) and, for a viewer who
//! arrives late, move the emote's start tick ([`EmotePacket::set_start_tick`]),
//! without decoding the animation.
//!
//! All numbers are big-endian (Java's `ByteBuffer`); strings are an `i32`
//! byte length and UTF-8.

pub mod animation;
mod axes;
pub mod bones;
mod bytes;
pub mod composite;
pub mod euler;
pub mod file;
pub mod fit;
mod frame;
pub(crate) mod joint;
#[cfg(test)]
mod tests;

pub use bytes::WireError;
pub use frame::*;

/// The channel's name.
pub const CHANNEL: &str = "emotecraft:emote";

/// The networking version this server speaks; a packet of a later version
/// is refused, as Emotecraft's own reader does.
pub const NETWORKING_VERSION: i32 = 8;

/// The most bytes a client's packet may have (issue 16: 32 KiB; Emotecraft's
/// own default limit is 32,767 bytes).
pub const MAX_FROM_CLIENT_BYTES: usize = 32 * 1024;

/// The most bytes a packet to a client may have (FILE packets carry whole
/// emotes and icons: Emotecraft's server limit, 1 MiB).
pub const MAX_TO_CLIENT_BYTES: usize = 1 << 20;
