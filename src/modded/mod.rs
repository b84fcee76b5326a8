//! The wire formats of modded clients' channels, as plain bytes in and
//! out (issue 16). No valence here: the server's glue registers the
//! channels, feeds these readers what clients send, and writes what they
//! return.
//!
//! - [`emotecraft`]: Emotecraft's `emotecraft:emote` channel (networking
//!   version 8, Emotecraft for 1.20.1): the packet framing, its
//!   sub-packets, and the bone animation binary they carry.
//! - [`animation_channel`]: emoted's own `emoted:animation` channel, for
//!   other mods: the server's body emotes as Bedrock animation JSON.
//!
//! Every reader takes untrusted bytes: it checks each length against what
//! is left before it allocates, refuses anything over its cap, and fails
//! with the byte offset and the rule, never a panic.

pub mod animation_channel;
pub mod emotecraft;
