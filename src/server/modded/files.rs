//! The server's emotes in a modded player's own wheel: right after a
//! modded client's CONFIG, it gets one FILE packet
//! ([`crate::modded::emotecraft::file`]) for each Animation with a bone
//! form that this player may play themself (what `/emote list` shows them),
//! named and described as the file's `metadata` says. Picked from the
//! mod's wheel, it plays on their client and reaches the modded players
//! around them through the relay.
//!
//! Choices:
//! - Only a client whose CONFIG says it reads the FILE header (sub-packet
//!   0x11) gets them; an older or stripped-down client is not sent what it
//!   cannot show.
//! - Sequences are not sent: their steps' bone forms would need stitching
//!   into one emote, and a two-player one cannot be played alone.
//! - A FILE over the 1 MiB a client accepts is left out with a log line.
//! - The files are sent once per CONFIG; a reload or a permission change
//!   reaches the mod's wheel at the player's next join.

use valence::ident::ident;
use valence::op_level::OpLevel;
use valence::prelude::*;

use super::{BoneAnimations, EmotecraftClient};
use crate::format::EmoteFile;
use crate::modded::emotecraft::file::{file_packet, EmoteHeader};
use crate::modded::emotecraft::{MAX_TO_CLIENT_BYTES, SUB_HEADER};
use crate::server::config::Config;
use crate::server::emote_library::EmoteLibrary;
use crate::server::permissions::PlayerPermissions;

/// A client that just answered CONFIG.
type NewModded = (
    &'static mut Client,
    &'static Username,
    &'static UniqueId,
    Option<&'static OpLevel>,
    &'static EmotecraftClient,
);

/// Sends FILE packets to clients that just answered CONFIG (module docs).
pub(super) fn send_emote_files(
    config: Res<Config>,
    library: Res<EmoteLibrary>,
    mut animations: ResMut<BoneAnimations>,
    mut modded: Query<NewModded, Added<EmotecraftClient>>,
) {
    for (mut client, username, uuid, op, emotecraft) in &mut modded {
        if !emotecraft
            .versions
            .iter()
            .any(|(id, v)| *id == SUB_HEADER && *v >= 1)
        {
            continue;
        }
        let perms = PlayerPermissions::of_player(&config.permissions, username, uuid, op);
        for (id, loaded) in perms.playable(&library.0) {
            let EmoteFile::Animation(file) = &*loaded.file else {
                continue;
            };
            let Some(animation) = animations.get(&library, id) else {
                continue;
            };
            let text = |s: &str| (!s.is_empty()).then(|| s.to_owned());
            let header = EmoteHeader {
                name: text(&file.metadata.name),
                description: text(&file.metadata.description),
                author: None,
            };
            let bytes = file_packet(&animation, &header).write();
            if bytes.len() > MAX_TO_CLIENT_BYTES {
                tracing::warn!(
                    "{id}: its FILE for {}'s Emotecraft wheel is {} bytes, over the {MAX_TO_CLIENT_BYTES} a client accepts; left out",
                    username.0,
                    bytes.len()
                );
                continue;
            }
            client.send_custom_payload(ident!("emotecraft:emote"), &bytes);
        }
    }
}
