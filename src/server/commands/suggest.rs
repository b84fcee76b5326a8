//! Tab completion: emote ids, player names and subcommands, only what
//! the player may run.

use std::borrow::Cow;

use valence::event_loop::PacketEvent;
use valence::op_level::OpLevel;
use valence::prelude::*;
use valence::protocol::packets::play::command_suggestions_s2c::CommandSuggestionsMatch;
use valence::protocol::packets::play::{CommandSuggestionsS2c, RequestCommandCompletionsC2s};
use valence::protocol::{VarInt, WritePacket};

use super::rate::*;
use crate::library::Library;
use crate::server::config::Config;
use crate::server::emote_library::EmoteLibrary;
use crate::server::permissions::{PlayerPermissions, EMOTE_MANAGE, GAMEMODE, TELEPORT};
use crate::server::syntax::looks_like_coordinate;

/// Suggestions for the text typed so far (which starts with `/`): the
/// replaced range's start (a UTF-16 offset into `text`) and the candidates.
/// Only what `perms` allows is offered: emotes the player may play, player
/// names where the player may name others.
pub fn suggest(
    text: &str,
    library: &Library,
    players: &[&str],
    perms: &PlayerPermissions,
) -> (usize, Vec<String>) {
    let line = text.strip_prefix('/').unwrap_or(text);
    let ends_with_space = line.ends_with(' ');
    let words: Vec<&str> = line.split_whitespace().collect();
    let (completed, partial): (&[&str], &str) = match words.split_last() {
        Some((last, rest)) if !ends_with_space => (rest, last),
        _ => (&words[..], ""),
    };
    let start = text.encode_utf16().count() - partial.encode_utf16().count();
    let player_names = || players.iter().map(|p| (*p).to_owned()).collect();
    let candidates: Vec<String> = match completed {
        ["emote" | "e"] => ["play", "stop", "list", "info", "parts", "camera", "reload"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        ["emote" | "e", "parts" | "camera"] => vec!["on".to_owned(), "off".to_owned()],
        ["emote" | "e", "play" | "info"] => perms
            .playable(library)
            .map(|(id, _)| id.to_string())
            .collect(),
        ["emote" | "e", "play", _] | ["emote" | "e", "stop"] if perms.has(EMOTE_MANAGE) => {
            player_names()
        }
        ["gamemode", _] if perms.has(GAMEMODE) => player_names(),
        ["tp" | "teleport"] if perms.has(TELEPORT) => player_names(),
        ["tp" | "teleport", first] if perms.has(TELEPORT) && !looks_like_coordinate(first) => {
            player_names()
        }
        _ => Vec::new(),
    };
    let matches = candidates
        .into_iter()
        .filter(|c| {
            c.starts_with(partial)
                || c.split_once(':')
                    .is_some_and(|(_, path)| path.starts_with(partial))
        })
        .collect();
    (start, matches)
}

pub(super) fn answer_completions(
    mut packets: EventReader<PacketEvent>,
    mut clients: Query<(&mut Client, &Username, &UniqueId, Option<&OpLevel>)>,
    names: Query<&Username>,
    library: Res<EmoteLibrary>,
    config: Res<Config>,
    mut limits: ResMut<CommandRateLimits>,
) {
    let config: &Config = &config;
    for packet in packets.iter() {
        let Some(pkt) = packet.decode::<RequestCommandCompletionsC2s>() else {
            continue;
        };
        let Ok((mut client, username, uuid, op)) = clients.get_mut(packet.client) else {
            continue;
        };
        let bucket = &limits.buckets(uuid.0, &config.commands).completions;
        if bucket.take().is_err() {
            continue;
        }
        let players: Vec<&str> = names.iter().map(|u| u.0.as_str()).collect();
        let perms = PlayerPermissions::of_player(&config.permissions, username, uuid, op);
        let (start, matches) = suggest(pkt.text, &library.0, &players, &perms);
        let length = pkt.text.encode_utf16().count().saturating_sub(start);
        client.write_packet(&CommandSuggestionsS2c {
            id: pkt.transaction_id,
            start: VarInt(start as i32),
            length: VarInt(length as i32),
            matches: matches
                .iter()
                .map(|m| CommandSuggestionsMatch {
                    suggested_match: m,
                    tooltip: None::<Cow<'_, Text>>,
                })
                .collect(),
        });
    }
}
