//! Running operator lines in the tick (see the module docs of
//! [`crate::server::operator`]).

use tokio::sync::oneshot;
use uuid::Uuid;
use valence::op_level::OpLevel;
use valence::prelude::*;

use super::parse::{parse_operator_command, OperatorCommand, OPERATOR_HELP};
use super::{OperatorInbox, OperatorSource};
use crate::format::content::plain_text;
use crate::format::{EmoteFile, EmoteId};
use crate::server::commands::{emote_info, EmoteCommand};
use crate::server::config::Config;
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::{
    EndReason, PlayEmoteRequest, ReloadFinishedEvent, ReloadRequest, StopEmoteRequest,
};
use crate::server::permissions::{PlayerIdentity, PlayerPermissions};
use crate::server::shutdown::ShutdownRequests;

/// The name the server goes by when an operator's command reaches players
/// (`[Server] hello`, "Server stopped it").
pub const SERVER_NAME: &str = "Server";

/// The console's operator level: vanilla's console has level 4.
const CONSOLE_OP_LEVEL: u8 = 4;

/// Answers owed for reloads the console or RCON asked for.
#[derive(Resource, Default)]
pub(super) struct PendingReloads(Vec<oneshot::Sender<String>>);

/// The online players, as the operator's commands see them.
type OnlinePlayers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut Client,
        &'static Username,
        &'static UniqueId,
        Option<&'static OpLevel>,
    ),
>;

/// Runs every line waiting in the [`OperatorInbox`] and answers it (a
/// reload answers in [`answer_reloads`], once it has run).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_operator_lines(
    inbox: Res<OperatorInbox>,
    mut players: OnlinePlayers,
    library: Res<EmoteLibrary>,
    config: Res<Config>,
    shutdown: Option<Res<ShutdownRequests>>,
    mut pending: ResMut<PendingReloads>,
    mut play: EventWriter<PlayEmoteRequest>,
    mut stop: EventWriter<StopEmoteRequest>,
    mut reload: EventWriter<ReloadRequest>,
) {
    for line in inbox.drain() {
        tracing::info!("{} ran: {}", line.source, line.text.trim());
        let answer = match parse_operator_command(&line.text) {
            Err(error) => error.to_string(),
            Ok(OperatorCommand::Help) => OPERATOR_HELP.to_owned(),
            Ok(OperatorCommand::List) => list_players(&players, config.server.max_players),
            Ok(OperatorCommand::Say { message }) => {
                let said = format!("[{SERVER_NAME}] {message}");
                for (_, mut client, ..) in &mut players {
                    client.send_chat_message(said.clone());
                }
                said
            }
            Ok(OperatorCommand::Reload) => {
                reload.send(ReloadRequest { requested_by: None });
                pending.0.push(line.reply);
                continue;
            }
            Ok(OperatorCommand::Stop) => match &shutdown {
                Some(requests) => {
                    requests.request(&format!("{}'s stop", line.source));
                    "Stopping the server".to_owned()
                }
                None => {
                    "This server is stopped by the game that runs it, not from here.".to_owned()
                }
            },
            Ok(OperatorCommand::Emote(command)) => {
                run_emote(command, &players, &library, &config, &mut play, &mut stop)
            }
        };
        if line.source != OperatorSource::Console {
            tracing::debug!("answered {}: {answer}", line.source);
        }
        // The sender may have gone (an RCON client that hung up).
        let _ = line.reply.send(answer);
    }
}

/// Answers the reloads the console or RCON asked for with the report of
/// the reload that ran after the request (a file-watcher reload that runs
/// in the same tick reports the same files).
pub(super) fn answer_reloads(
    mut finished: EventReader<ReloadFinishedEvent>,
    mut pending: ResMut<PendingReloads>,
) {
    let Some(report) = finished.iter().last() else {
        return;
    };
    let text = report.lines.join("\n");
    for reply in pending.0.drain(..) {
        let _ = reply.send(text.clone());
    }
}

/// Vanilla's answer to `list`.
fn list_players(players: &OnlinePlayers, max_players: usize) -> String {
    let mut names: Vec<&str> = players
        .iter()
        .map(|(_, _, name, ..)| name.0.as_str())
        .collect();
    names.sort_unstable_by_key(|name| name.to_ascii_lowercase());
    format!(
        "There are {} of a max of {max_players} players online: {}",
        names.len(),
        names.join(", ")
    )
}

/// The permissions the console holds: an operator's, every node.
fn console_permissions(config: &Config) -> PlayerPermissions<'_> {
    PlayerPermissions::resolve(
        &config.permissions,
        PlayerIdentity {
            name: SERVER_NAME,
            uuid: Uuid::nil(),
        },
        CONSOLE_OP_LEVEL,
    )
}

/// The online player called `name` (any case).
fn find_player(players: &OnlinePlayers, name: &str) -> Option<(Entity, String)> {
    players
        .iter()
        .find(|(_, _, username, ..)| username.0.eq_ignore_ascii_case(name))
        .map(|(entity, _, username, ..)| (entity, username.0.clone()))
}

/// `emote …` from the server: always for a named player.
fn run_emote(
    command: EmoteCommand,
    players: &OnlinePlayers,
    library: &EmoteLibrary,
    config: &Config,
    play: &mut EventWriter<PlayEmoteRequest>,
    stop: &mut EventWriter<StopEmoteRequest>,
) -> String {
    let no_player = |name: &str| format!("No player named `{name}` is online.");
    match command {
        EmoteCommand::Play { id, target: None } => format!(
            "The server has no body to play on: name a player, e.g. emote play {id} <player>."
        ),
        EmoteCommand::Play {
            id,
            target: Some(name),
        } => {
            let Ok(emote) = EmoteId::parse(&id) else {
                return format!("`{id}` is not an emote id (namespace:name). Try emote list.");
            };
            if library.0.get(emote.as_str()).is_none() {
                return format!("Unknown emote `{id}`. Try emote list.");
            }
            let Some((target, name)) = find_player(players, &name) else {
                return no_player(&name);
            };
            // The target's own cooldown multiplier, for its next turn.
            let multiplier = players
                .get(target)
                .map(|(_, _, username, unique, op)| {
                    let player = PlayerIdentity {
                        name: &username.0,
                        uuid: unique.0,
                    };
                    let level = op.map_or(0, |o| o.get());
                    config
                        .permissions
                        .cooldown_multiplier_of(player, level, &id)
                })
                .unwrap_or(1.0);
            play.send(PlayEmoteRequest {
                client: target,
                emote,
                bypass: true,
                cooldown_multiplier: multiplier,
                quiet: false,
            });
            format!("Playing {id} on {name}.")
        }
        EmoteCommand::Stop { target: None } => {
            "The server plays no emote: name a player, e.g. emote stop <player>.".to_owned()
        }
        EmoteCommand::Stop { target: Some(name) } => {
            let Some((target, name)) = find_player(players, &name) else {
                return no_player(&name);
            };
            stop.send(StopEmoteRequest {
                client: target,
                reason: EndReason::StoppedBy {
                    name: SERVER_NAME.to_owned(),
                },
            });
            format!("Stopping {name}'s emote.")
        }
        EmoteCommand::List { .. } => list_emotes(library),
        EmoteCommand::Info { id } => {
            plain_text(&emote_info(&library.0, &id, &console_permissions(config)))
        }
        EmoteCommand::Reload => {
            // Parsed as `OperatorCommand::Reload`; kept for completeness.
            "Use reload.".to_owned()
        }
        EmoteCommand::Set { .. } => {
            "That sets a parameter of the controller a player plays; the server plays none (events run `emote set <parameter> <value> [player]`).".to_owned()
        }
        EmoteCommand::Wheel | EmoteCommand::Choose { .. } => {
            "That is a player's own choice; the server has no wheel or view of its own.".to_owned()
        }
    }
}

/// Every loaded emote, one a line (the console scrolls: no pages).
fn list_emotes(library: &EmoteLibrary) -> String {
    let mut entries: Vec<(&str, String)> = library
        .0
        .iter()
        .map(|(id, loaded)| {
            let kind = match &*loaded.file {
                EmoteFile::Animation(_) => "Animation",
                EmoteFile::Sequence(_) => "Sequence",
                EmoteFile::Controller(_) => "Controller",
            };
            let name = &loaded.file.metadata().name;
            (id.as_str(), format!("{id}: {name} ({kind})"))
        })
        .collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut text = format!("{} emotes loaded:", entries.len());
    for (_, entry) in entries {
        text.push_str("\n  ");
        text.push_str(&entry);
    }
    text
}
