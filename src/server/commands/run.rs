//! Running a typed command: permissions, the rate limit, and each
//! command's answer.

use valence::event_loop::PacketEvent;
use valence::op_level::OpLevel;
use valence::prelude::*;
use valence::protocol::packets::play::CommandExecutionC2s;

use super::parse::*;
use super::rate::*;
use crate::format::{EmoteFile, EmoteId};
use crate::library::Library;
use crate::server::config::Config;
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::{EndReason, PlayEmoteRequest, ReloadRequest, StopEmoteRequest};
use crate::server::permissions::{
    PlayerIdentity, PlayerPermissions, EMOTE_DEFAULT, EMOTE_MANAGE, GAMEMODE, TELEPORT,
};
pub(super) use crate::server::syntax::game_mode_name;

/// Emotes per page of `/emote list`.
pub const LIST_PAGE_SIZE: usize = 10;
/// Operator level from which a player holds every node, `emote.manage`
/// included (the same as [`crate::server::permissions::OPERATOR_LEVEL`]).
pub const MANAGE_OP_LEVEL: u8 = crate::server::permissions::OPERATOR_LEVEL;

/// The farthest `/tp` goes from the origin on x and z (vanilla's world border).
pub const MAX_HORIZONTAL: f64 = 30_000_000.0;
/// The farthest `/tp` goes from y 0 (vanilla's limit).
pub const MAX_VERTICAL: f64 = 20_000_000.0;

pub(super) fn needs(node: &str, action: &str) -> Text {
    format!("{action} needs operator permission (operator level 2 or the node {node}).")
        .color(Color::RED)
}

/// The players' query of the command handler.
pub(super) type Players<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut Client,
        &'static Username,
        Option<&'static OpLevel>,
        &'static mut Position,
        &'static mut GameMode,
        &'static UniqueId,
    ),
>;

/// The online player called `name` (ASCII case-insensitive).
pub(super) fn find_player(players: &Players, name: &str) -> Option<Entity> {
    players
        .iter()
        .find(|(_, _, u, ..)| u.0.eq_ignore_ascii_case(name))
        .map(|(e, ..)| e)
}

pub(super) fn no_such_player(name: &str) -> Text {
    format!("No player named `{name}` is online.").color(Color::RED)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn handle_commands(
    mut packets: EventReader<PacketEvent>,
    mut players: Players,
    library: Res<EmoteLibrary>,
    config: Res<Config>,
    mut limits: ResMut<CommandRateLimits>,
    mut play: EventWriter<PlayEmoteRequest>,
    mut stop: EventWriter<StopEmoteRequest>,
    mut reload: EventWriter<ReloadRequest>,
) {
    let config: &Config = &config;
    for packet in packets.iter() {
        let Some(pkt) = packet.decode::<CommandExecutionC2s>() else {
            continue;
        };
        let sender = packet.client;
        let Ok((_, _, username, op, position, _, uuid)) = players.get(sender) else {
            continue;
        };
        let name = username.0.clone();
        let uuid = uuid.0;
        let level = op.map_or(0, |o| o.get());
        let here = position.0;

        let bucket = &limits.buckets(sender, &config.commands).commands;
        let reply = if let Err(wait) = bucket.take() {
            Some(slow_down_message(bucket.limit(), wait).color(Color::RED))
        } else {
            let identity = PlayerIdentity { name: &name, uuid };
            let perms = PlayerPermissions::resolve(&config.permissions, identity, level);
            match parse_command(pkt.command) {
                Err(e) => Some(e.to_string().color(Color::RED)),
                Ok(Command::Emote(command)) => run_emote(
                    command,
                    sender,
                    &perms,
                    config,
                    &library.0,
                    &players,
                    &mut play,
                    &mut stop,
                    &mut reload,
                ),
                Ok(Command::GameMode { mode, target }) => {
                    run_gamemode(mode, target, sender, &perms, &mut players)
                }
                Ok(Command::Teleport(command)) => {
                    run_teleport(command, sender, here, &perms, &mut players)
                }
            }
        };
        if let (Some(text), Ok((_, mut client, ..))) = (reply, players.get_mut(sender)) {
            client.send_chat_message(text);
        }
    }
}

/// True when players may pick the emote themselves (Sequences count).
pub(super) fn is_standalone(file: &EmoteFile) -> bool {
    match file {
        EmoteFile::Animation(a) => a.settings.standalone,
        EmoteFile::Sequence(_) => true,
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn run_emote(
    command: EmoteCommand,
    sender: Entity,
    perms: &PlayerPermissions,
    config: &Config,
    library: &Library,
    players: &Players,
    play: &mut EventWriter<PlayEmoteRequest>,
    stop: &mut EventWriter<StopEmoteRequest>,
    reload: &mut EventWriter<ReloadRequest>,
) -> Option<Text> {
    let manager = perms.has(EMOTE_MANAGE);
    match command {
        EmoteCommand::Play { id, target } => {
            let Ok(emote) = EmoteId::parse(&id) else {
                return Some(
                    format!("`{id}` is not an emote id (namespace:name). Try /emote list.")
                        .color(Color::RED),
                );
            };
            match target {
                None => {
                    // An unknown id goes on, so the playback side answers it.
                    let standalone = library.get(&id).is_none_or(|e| is_standalone(&e.file));
                    if let Err(denied) = perms.may_play(&id, standalone) {
                        return Some(denied.to_string().color(Color::RED));
                    }
                    play.send(PlayEmoteRequest {
                        client: sender,
                        emote,
                        bypass: perms.bypasses() || !standalone,
                        cooldown_multiplier: perms.cooldown_multiplier(&id),
                    });
                    None
                }
                Some(_) if !manager => Some(
                    format!("You may only play emotes on yourself; playing them for others needs {EMOTE_MANAGE}.")
                        .color(Color::RED),
                ),
                Some(name) => {
                    let Some(target) = find_player(players, &name) else {
                        return Some(no_such_player(&name));
                    };
                    // The target's own cooldown multiplier, for its next turn.
                    let multiplier = players
                        .get(target)
                        .map(|(_, _, u, op, _, _, unique)| {
                            PlayerPermissions::resolve(
                                &config.permissions,
                                PlayerIdentity {
                                    name: &u.0,
                                    uuid: unique.0,
                                },
                                op.map_or(0, |o| o.get()),
                            )
                            .cooldown_multiplier(&id)
                        })
                        .unwrap_or(1.0);
                    play.send(PlayEmoteRequest {
                        client: target,
                        emote,
                        bypass: true,
                        cooldown_multiplier: multiplier,
                    });
                    Some(format!("Playing {id} on {name}.").color(Color::GRAY))
                }
            }
        }
        EmoteCommand::Stop { target: None } if !perms.has(EMOTE_DEFAULT) && !manager => Some(
            format!("You may not stop emotes: it needs the permission node {EMOTE_DEFAULT}.")
                .color(Color::RED),
        ),
        EmoteCommand::Stop { target: None } => {
            stop.send(StopEmoteRequest {
                client: sender,
                reason: EndReason::Stopped,
            });
            None
        }
        EmoteCommand::Stop { target: Some(_) } if !manager => Some(
            format!("You may only stop your own emote; stopping others needs {EMOTE_MANAGE}.")
                .color(Color::RED),
        ),
        EmoteCommand::Stop { target: Some(name) } => match find_player(players, &name) {
            Some(target) => {
                stop.send(StopEmoteRequest {
                    client: target,
                    reason: EndReason::Stopped,
                });
                None
            }
            None => Some(no_such_player(&name)),
        },
        EmoteCommand::List { page } => Some(list_page(library, page, perms)),
        EmoteCommand::Info { id } => Some(info(library, &id, perms)),
        EmoteCommand::Reload if !manager => Some(needs(EMOTE_MANAGE, "Reloading emotes")),
        EmoteCommand::Reload => {
            reload.send(ReloadRequest {
                requested_by: Some(sender),
            });
            None
        }
    }
}

pub(super) fn run_gamemode(
    mode: GameMode,
    target: Option<String>,
    sender: Entity,
    perms: &PlayerPermissions,
    players: &mut Players,
) -> Option<Text> {
    if !perms.has(GAMEMODE) {
        return Some(needs(GAMEMODE, "/gamemode"));
    }
    let target = match &target {
        None => sender,
        Some(name) => match find_player(players, name) {
            Some(e) => e,
            None => return Some(no_such_player(name)),
        },
    };
    let mode_name = game_mode_name(mode);
    let Ok((_, mut client, username, _, _, mut game_mode, _)) = players.get_mut(target) else {
        return None;
    };
    if *game_mode != mode {
        *game_mode = mode;
    }
    let changed = format!("Game mode set to {mode_name}.").color(Color::GRAY);
    if target == sender {
        return Some(changed);
    }
    let who = username.0.clone();
    client.send_chat_message(changed);
    Some(format!("Set {who}'s game mode to {mode_name}.").color(Color::GRAY))
}

pub(super) fn run_teleport(
    command: TeleportCommand,
    sender: Entity,
    here: DVec3,
    perms: &PlayerPermissions,
    players: &mut Players,
) -> Option<Text> {
    if !perms.has(TELEPORT) {
        return Some(needs(TELEPORT, "/tp"));
    }
    let lookup = |players: &Players, name: &Option<String>| match name {
        None => Ok(sender),
        Some(name) => find_player(players, name).ok_or_else(|| no_such_player(name)),
    };
    let (target, destination) = match command {
        TeleportCommand::ToPlayer {
            target,
            destination,
        } => {
            let target = match lookup(players, &target) {
                Ok(t) => t,
                Err(text) => return Some(text),
            };
            let Some(to) = find_player(players, &destination) else {
                return Some(no_such_player(&destination));
            };
            let Ok((.., position, _, _)) = players.get(to) else {
                return None;
            };
            (target, position.0)
        }
        TeleportCommand::ToPosition { target, position } => {
            let target = match lookup(players, &target) {
                Ok(t) => t,
                Err(text) => return Some(text),
            };
            let [x, y, z] = position;
            (
                target,
                DVec3::new(x.resolve(here.x), y.resolve(here.y), z.resolve(here.z)),
            )
        }
    };
    if destination.x.abs() > MAX_HORIZONTAL
        || destination.z.abs() > MAX_HORIZONTAL
        || destination.y.abs() > MAX_VERTICAL
    {
        return Some(
            format!(
                "Cannot teleport to {:.1}, {:.1}, {:.1}: x and z must be within ±{MAX_HORIZONTAL}, y within ±{MAX_VERTICAL}.",
                destination.x, destination.y, destination.z
            )
            .color(Color::RED),
        );
    }
    let Ok((_, _, username, _, mut position, _, _)) = players.get_mut(target) else {
        return None;
    };
    position.0 = destination;
    let who = if target == sender {
        "you".to_owned()
    } else {
        username.0.clone()
    };
    Some(
        format!(
            "Teleported {who} to {:.2}, {:.2}, {:.2}.",
            destination.x, destination.y, destination.z
        )
        .color(Color::GRAY),
    )
}

pub(super) fn list_page(library: &Library, page: usize, perms: &PlayerPermissions) -> Text {
    let visible: Vec<(&EmoteId, &EmoteFile)> = library
        .iter()
        .map(|(id, e)| (id, &*e.file))
        .filter(|(id, f)| perms.may_play(id.as_str(), is_standalone(f)).is_ok())
        .collect();
    if visible.is_empty() {
        return "There are no emotes you may play.".color(Color::GOLD);
    }
    let pages = visible.len().div_ceil(LIST_PAGE_SIZE);
    if page > pages {
        return format!("There are only {pages} pages of emotes.").color(Color::RED);
    }
    let mut lines = vec![format!("Emotes (page {page}/{pages}):")];
    for (id, file) in visible
        .iter()
        .skip((page - 1) * LIST_PAGE_SIZE)
        .take(LIST_PAGE_SIZE)
    {
        lines.push(format!("  {id} - {}", file.metadata().name));
    }
    lines.join("\n").color(Color::GOLD)
}

pub(super) fn info(library: &Library, id: &str, perms: &PlayerPermissions) -> Text {
    let Some(loaded) = library.get(id) else {
        return format!("Unknown emote `{id}`. Try /emote list.").color(Color::RED);
    };
    let meta = loaded.file.metadata();
    let detail = match &*loaded.file {
        EmoteFile::Animation(a) => format!(
            "Animation, {} ticks, {} mode, {} nodes ({} displays), cooldown {} ticks{}",
            a.timeline.duration_ticks,
            a.settings.playback.mode.name(),
            a.nodes.len(),
            a.display_count(),
            a.settings.cooldown_ticks,
            if a.settings.standalone {
                ""
            } else {
                ", used inside Sequences only"
            }
        ),
        EmoteFile::Sequence(s) => format!(
            "Sequence{}, cooldown {} ticks:\n{}",
            if s.is_two_player() {
                " for two players"
            } else {
                ""
            },
            s.settings.cooldown_ticks,
            crate::format::sequence::describe_steps(&s.steps).join("\n")
        ),
    };
    let access = match perms.may_play(id, is_standalone(&loaded.file)) {
        Ok(()) => String::new(),
        Err(denied) => format!("\n{denied}"),
    };
    format!(
        "{} ({id}): {}\n{detail}{access}",
        meta.name, meta.description
    )
    .color(Color::GOLD)
}
