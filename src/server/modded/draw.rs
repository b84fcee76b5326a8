//! A modded player's own emotes, drawn for vanilla players: the STREAM a
//! modded player sends (an emote from their Emotecraft wheel) is relayed
//! to the modded players around as it came, and also imported
//! ([`crate::import::playeranimator`]) into a schema 4 Animation on the
//! humanoid rig, wearing that player's skin, which plays on them like a
//! server emote. Its displays are bone-drawn
//! ([`crate::server::emote`]'s `bone_view`), so only vanilla viewers get
//! them; modded viewers see the player's own model, moved by the relayed
//! STREAM. The player's STOP stops it.
//!
//! # Choices
//! - **Ids.** The imported emote is `emotecraft:player/<uuid>`, one per
//!   player, held in [`ClientEmotes`] (not the file library, so nothing that
//!   follows the files is rebuilt) and forgotten when its playback ends. It
//!   plays with the bypass of an operator's emote: no cooldown, no
//!   permission check (the player could play it on their own client
//!   anyway; what the server adds is that vanilla players see it).
//! - **From the start.** It starts at tick 0 when the STREAM comes, whatever
//!   start tick the STREAM names.
//! - **Stop conditions** are those of the server's body emotes (moving,
//!   jumping, damage...), the moves after which Emotecraft's client stops
//!   its own emote too.
//! - **Not drawn**, only relayed, with one log line: an emote marked nsfw
//!   (vanilla players cannot say whether they want it), one that moves no
//!   part (a still body in the player's place would hide them for
//!   nothing), one whose cycle is
//!   longer than [`MAX_DRAWN_TICKS`], one that does not read, and any STREAM
//!   within [`DRAW_EVERY_TICKS`] of the player's last drawn one (importing
//!   samples every tick of the emote: this bounds what one client can make
//!   the server do).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};
use uuid::Uuid;
use valence::prelude::*;

use crate::format::{EmoteFile, EmoteId};
use crate::import::playeranimator::import_bone_animation;
use crate::library::{bone_form, CompiledAnimation, LoadedEmote};
use crate::modded::emotecraft::animation::BoneAnimation;
use crate::server::emote::ActiveEmote;
use crate::server::emote_library::ClientEmotes;
use crate::server::events::{EmoteEndedEvent, EndReason, PlayEmoteRequest, StopEmoteRequest};

/// The longest emote cycle drawn for vanilla players: one minute.
pub const MAX_DRAWN_TICKS: i32 = 1200;

/// A player's STREAMs are drawn at most once in this many ticks.
pub const DRAW_EVERY_TICKS: i64 = 20;

/// What the relay asks of this module for one message.
#[derive(Clone, Debug)]
pub(super) enum ClientEmoteMessage {
    /// A STREAM of `animation` from `player` (their UUID and name).
    Stream {
        player: Entity,
        uuid: Uuid,
        name: String,
        animation: Box<BoneAnimation>,
    },
    /// A STOP from `player`.
    Stop { player: Entity, uuid: Uuid },
}

/// The messages the relay read this tick, for [`draw_client_emotes`].
#[derive(Resource, Default, Debug)]
pub(super) struct ClientEmoteInbox(pub(super) Vec<ClientEmoteMessage>);

/// When each player's last STREAM was drawn (server ticks).
#[derive(Resource, Default, Debug)]
pub(super) struct LastDrawn(HashMap<Entity, i64>);

/// The id a player's own emote plays under.
pub fn client_emote_id(player: Uuid) -> Option<EmoteId> {
    EmoteId::parse(&format!("emotecraft:player/{}", player.simple())).ok()
}

/// Imports `animation` as `id` and compiles it (module docs), or says why
/// it is not drawn.
fn import(animation: &BoneAnimation, id: &EmoteId, name: &str) -> Result<LoadedEmote, String> {
    if animation.nsfw {
        return Err("it is marked nsfw".into());
    }
    let moves = animation.parts.iter().any(|part| {
        part.axes
            .iter()
            .any(|axis| axis.enabled && !axis.keyframes.is_empty())
    });
    if !moves {
        return Err("it moves no part".into());
    }
    let cycle = animation
        .end_tick
        .saturating_sub(animation.begin_tick.min(0));
    if cycle > MAX_DRAWN_TICKS {
        return Err(format!(
            "it lasts {cycle} ticks, over the {MAX_DRAWN_TICKS} drawn"
        ));
    }
    let mut metadata = Map::new();
    metadata.insert("name".into(), Value::String(format!("{name}'s emote")));
    metadata.insert(
        "description".into(),
        Value::String(format!(
            "{name}'s own Emotecraft emote, drawn for vanilla players."
        )),
    );
    let imported =
        import_bone_animation(animation, id.as_str(), metadata).map_err(|e| e.to_string())?;
    let compiled = CompiledAnimation::compile(&imported.file).map_err(|problems| {
        problems
            .first()
            .map_or_else(|| "it does not compile".to_owned(), |p| p.to_string())
    })?;
    let bones = bone_form(&compiled, &imported.file)
        .map_err(|e| e.to_string())?
        .map(Arc::new);
    Ok(LoadedEmote {
        file: Arc::new(EmoteFile::Animation(imported.file)),
        compiled: Some(Arc::new(compiled)),
        bones,
        path: PathBuf::from(format!("<{name}'s Emotecraft STREAM>")),
    })
}

/// Starts and stops the players' own emotes for vanilla viewers (module
/// docs).
#[allow(clippy::too_many_arguments)]
pub(super) fn draw_client_emotes(
    mut inbox: ResMut<ClientEmoteInbox>,
    mut client_emotes: ResMut<ClientEmotes>,
    mut last_drawn: ResMut<LastDrawn>,
    server: Res<Server>,
    playing: Query<&ActiveEmote>,
    mut play: EventWriter<PlayEmoteRequest>,
    mut stop: EventWriter<StopEmoteRequest>,
    mut ended: EventReader<EmoteEndedEvent>,
) {
    for end in ended.iter() {
        if client_emotes.0.remove(&end.emote).is_some() {
            tracing::debug!("forgot {}", end.emote);
        }
    }
    let now = server.current_tick();
    for message in inbox.0.drain(..) {
        match message {
            ClientEmoteMessage::Stream {
                player,
                uuid,
                name,
                animation,
            } => {
                let Some(id) = client_emote_id(uuid) else {
                    continue;
                };
                let last = last_drawn.0.get(&player).copied();
                if last.is_some_and(|at| now - at < DRAW_EVERY_TICKS) {
                    tracing::info!(
                        "{name}: an Emotecraft emote within a second of the last one is relayed, not drawn for vanilla players"
                    );
                    continue;
                }
                last_drawn.0.retain(|_, at| now - *at < DRAW_EVERY_TICKS);
                last_drawn.0.insert(player, now);
                match import(&animation, &id, &name) {
                    Ok(emote) => {
                        client_emotes.0.insert(emote);
                        play.send(PlayEmoteRequest {
                            client: player,
                            emote: id,
                            bypass: true,
                            cooldown_multiplier: 1.0,
                            quiet: false,
                        });
                    }
                    Err(why) => tracing::info!(
                        "{name}: an Emotecraft emote is relayed but not drawn for vanilla players: {why}"
                    ),
                }
            }
            ClientEmoteMessage::Stop { player, uuid } => {
                let Some(id) = client_emote_id(uuid) else {
                    continue;
                };
                if playing.get(player).is_ok_and(|a| *a.emote() == id) {
                    stop.send(StopEmoteRequest {
                        client: player,
                        reason: EndReason::Stopped,
                    });
                }
            }
        }
    }
}
