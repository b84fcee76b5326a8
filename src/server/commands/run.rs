//! Running a typed command: permissions, the rate limit, and each
//! command's answer.

use valence::event_loop::PacketEvent;
use valence::op_level::OpLevel;
use valence::prelude::*;
use valence::protocol::packets::play::CommandExecutionC2s;

use super::list::{page_text, Listed};
use super::parse::*;
use super::rate::*;
use crate::format::{EmoteFile, EmoteId};
use crate::library::Library;
use crate::server::config::Config;
use crate::server::emote::EmoteCooldowns;
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::{
    EndReason, OnOffChoiceRequest, OpenWheelRequest, PlayEmoteRequest, ReloadRequest,
    SetParameterRequest, StopEmoteRequest,
};
use crate::server::permissions::{
    PlayerIdentity, PlayerPermissions, EMOTE_DEFAULT, EMOTE_MANAGE, GAMEMODE, TELEPORT,
};
use crate::server::syntax::selector::{
    Candidate, SelectContext, Selector, SelectorBase, SelectorRng,
};
use crate::server::syntax::{
    game_mode_name, Destination, Facing, GameModeCommand, TeleportCommand,
};

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
        &'static Look,
    ),
>;

/// Who typed a command, and from where: what `@s`, `~` and `^` resolve
/// against.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sender {
    /// The player.
    pub(super) entity: Entity,
    /// Its position.
    pub(super) origin: DVec3,
    /// Its look.
    pub(super) facing: Facing,
}

/// The random numbers for `@r` and `sort=random` in typed commands.
pub(super) struct CommandRng(SelectorRng);

impl Default for CommandRng {
    fn default() -> Self {
        Self(SelectorRng::from_entropy())
    }
}

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
    mut wheel: EventWriter<OpenWheelRequest>,
    mut choices: EventWriter<OnOffChoiceRequest>,
    mut set: EventWriter<SetParameterRequest>,
    mut rng: Local<CommandRng>,
    cooldowns: Option<Res<EmoteCooldowns>>,
    server: Res<Server>,
) {
    let config: &Config = &config;
    let now_tick = u64::try_from(server.current_tick()).unwrap_or(0);
    for packet in packets.iter() {
        let Some(pkt) = packet.decode::<CommandExecutionC2s>() else {
            continue;
        };
        let sender = packet.client;
        let Ok((_, _, username, op, position, _, uuid, look)) = players.get(sender) else {
            continue;
        };
        let name = username.0.clone();
        let uuid = uuid.0;
        let level = op.map_or(0, |o| o.get());
        let from = Sender {
            entity: sender,
            origin: position.0,
            facing: Facing::from(look),
        };

        let bucket = &limits.buckets(uuid, &config.commands).commands;
        let reply = if let Err(wait) = bucket.take() {
            Some(slow_down_message(bucket.limit(), wait).color(Color::RED))
        } else {
            let identity = PlayerIdentity { name: &name, uuid };
            let perms = PlayerPermissions::resolve(&config.permissions, identity, level);
            match parse_command(pkt.command) {
                Err(e) => Some(e.to_string().color(Color::RED)),
                Ok(command) => {
                    let mut run = AdminRun {
                        sender: from,
                        perms: &perms,
                        players: &mut players,
                        rng: &mut rng.0,
                    };
                    // The sender's cooldowns, for the list's hover.
                    let cooldown_left = |id: &EmoteId| {
                        cooldowns
                            .as_ref()
                            .map_or(0, |c| c.0.remaining_ticks(&uuid, id, now_tick))
                    };
                    match command {
                        Command::Emote(command) => run_emote(
                            command,
                            sender,
                            &perms,
                            config,
                            &library.0,
                            run.players,
                            &cooldown_left,
                            &mut play,
                            &mut stop,
                            &mut reload,
                            &mut wheel,
                            &mut choices,
                            &mut set,
                        ),
                        Command::GameMode(command) => {
                            Some(run.gamemode(command).unwrap_or_else(|refused| refused))
                        }
                        Command::Teleport(command) => {
                            Some(run.teleport(command).unwrap_or_else(|refused| refused))
                        }
                    }
                }
            }
        };
        if let (Some(text), Ok((_, mut client, ..))) = (reply, players.get_mut(sender)) {
            client.send_chat_message(text);
        }
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
    cooldown_left: &dyn Fn(&EmoteId) -> u64,
    play: &mut EventWriter<PlayEmoteRequest>,
    stop: &mut EventWriter<StopEmoteRequest>,
    reload: &mut EventWriter<ReloadRequest>,
    wheel: &mut EventWriter<OpenWheelRequest>,
    choices: &mut EventWriter<OnOffChoiceRequest>,
    set: &mut EventWriter<SetParameterRequest>,
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
                    match perms.play_request(sender, emote, library) {
                        Ok(request) => {
                            play.send(request);
                            None
                        }
                        Err(denied) => Some(denied.to_string().color(Color::RED)),
                    }
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
                        .map(|(_, _, u, op, _, _, unique, _)| {
                            let player = PlayerIdentity {
                                name: &u.0,
                                uuid: unique.0,
                            };
                            let level = op.map_or(0, |o| o.get());
                            config.permissions.cooldown_multiplier_of(player, level, &id)
                        })
                        .unwrap_or(1.0);
                    play.send(PlayEmoteRequest {
                        client: target,
                        emote,
                        bypass: true,
                        cooldown_multiplier: multiplier,
                        quiet: false,
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
                // The target is told who stopped it (the sender's own name
                // is their own stop).
                let reason = match players.get(sender) {
                    Ok(_) if target == sender => EndReason::Stopped,
                    Ok((_, _, by, ..)) => EndReason::StoppedBy { name: by.0.clone() },
                    Err(_) => EndReason::StoppedByCommand,
                };
                stop.send(StopEmoteRequest {
                    client: target,
                    reason,
                });
                None
            }
            None => Some(no_such_player(&name)),
        },
        EmoteCommand::Set { .. } if !perms.has(EMOTE_DEFAULT) && !manager => Some(
            format!(
                "You may not set emote parameters: it needs the permission node {EMOTE_DEFAULT}."
            )
            .color(Color::RED),
        ),
        EmoteCommand::Set { parameter, value } => {
            // The walking plugin answers (it sees the playback).
            set.send(SetParameterRequest {
                client: sender,
                parameter,
                value,
                typed: true,
            });
            None
        }
        EmoteCommand::List { page } => Some(list_page(library, page, perms, cooldown_left)),
        EmoteCommand::Info { id } => Some(info(library, &id, perms)),
        EmoteCommand::Wheel => {
            wheel.send(OpenWheelRequest { client: sender });
            None
        }
        // Every player may choose what they see; the storage plugin answers.
        EmoteCommand::Choose { choice, on } => {
            choices.send(OnOffChoiceRequest {
                client: sender,
                choice,
                on,
            });
            None
        }
        EmoteCommand::Reload if !manager => Some(needs(EMOTE_MANAGE, "Reloading emotes")),
        EmoteCommand::Reload => {
            reload.send(ReloadRequest {
                requested_by: Some(sender),
            });
            None
        }
    }
}

/// One `/gamemode` or `/tp` being run: who typed it, what they may do,
/// and the online players its targets are picked from.
pub(super) struct AdminRun<'a, 'w, 's> {
    /// Who typed it.
    pub(super) sender: Sender,
    /// What the sender may do.
    pub(super) perms: &'a PlayerPermissions<'a>,
    /// The online players.
    pub(super) players: &'a mut Players<'w, 's>,
    /// For `@r` and `sort=random`.
    pub(super) rng: &'a mut SelectorRng,
}

impl AdminRun<'_, '_, '_> {
    /// The online players `selector` picks for the sender, or the answer
    /// when it picks nobody.
    pub(super) fn select(&mut self, selector: &Selector) -> Result<Vec<Entity>, Text> {
        let candidates: Vec<Candidate> = self
            .players
            .iter()
            .map(|(entity, _, name, _, position, mode, ..)| {
                Candidate::player(entity, &name.0, position.0, *mode)
            })
            .collect();
        let context = SelectContext {
            source: Some(self.sender.entity),
            origin: self.sender.origin,
        };
        let picked = selector.select(&context, &candidates, self.rng);
        if !picked.is_empty() {
            return Ok(picked);
        }
        Err(match &selector.base {
            SelectorBase::Player(name) => no_such_player(name),
            _ => format!("No player matches `{}`.", selector.text).color(Color::RED),
        })
    }

    /// The targets of a command that needs `node`, or why there are none.
    pub(super) fn targets(
        &mut self,
        node: &str,
        action: &str,
        selector: &Selector,
    ) -> Result<Vec<Entity>, Text> {
        if !self.perms.has(node) {
            return Err(needs(node, action));
        }
        self.select(selector)
    }

    /// "you" for the sender alone, a player's name for one other, else a count.
    pub(super) fn who(&self, targets: &[Entity]) -> String {
        match targets {
            [one] if *one == self.sender.entity => "you".to_owned(),
            [one] => self
                .players
                .get(*one)
                .map_or_else(|_| "1 player".to_owned(), |p| p.2 .0.clone()),
            many => format!("{} players", many.len()),
        }
    }

    /// `/gamemode`: the reply to the sender, or why not.
    pub(super) fn gamemode(&mut self, command: GameModeCommand) -> Result<Text, Text> {
        let targets = self.targets(GAMEMODE, "/gamemode", &command.targets)?;
        let mode_name = game_mode_name(command.mode);
        let changed = format!("Game mode set to {mode_name}.").color(Color::GRAY);
        for &target in &targets {
            let Ok((_, mut client, .., mut game_mode, _, _)) = self.players.get_mut(target) else {
                continue;
            };
            if *game_mode != command.mode {
                *game_mode = command.mode;
            }
            if target != self.sender.entity {
                client.send_chat_message(changed.clone());
            }
        }
        let whom = self.who(&targets);
        Ok(match targets.len() {
            _ if whom == "you" => changed,
            1 => format!("Set {whom}'s game mode to {mode_name}.").color(Color::GRAY),
            _ => format!("Set the game mode of {whom} to {mode_name}.").color(Color::GRAY),
        })
    }

    /// `/tp`: the reply to the sender, or why not.
    pub(super) fn teleport(&mut self, command: TeleportCommand) -> Result<Text, Text> {
        let targets = self.targets(TELEPORT, "/tp", &command.targets)?;
        let destination = match &command.destination {
            // Typed `/tp` reads no rotation.
            Destination::Position(coordinates, _) => {
                coordinates.resolve(self.sender.origin, self.sender.facing)
            }
            Destination::Entity(selector) => {
                // The first player picked (`select` picks at least one).
                let to = self.select(selector)?[0];
                let (.., position, _, _, _) = self
                    .players
                    .get(to)
                    .map_err(|_| no_such_player(&selector.text))?;
                position.0
            }
        };
        if destination.x.abs() > MAX_HORIZONTAL
            || destination.z.abs() > MAX_HORIZONTAL
            || destination.y.abs() > MAX_VERTICAL
        {
            return Err(format!(
                "Cannot teleport to {:.1}, {:.1}, {:.1}: x and z must be within ±{MAX_HORIZONTAL}, y within ±{MAX_VERTICAL}.",
                destination.x, destination.y, destination.z
            )
            .color(Color::RED));
        }
        for &target in &targets {
            if let Ok((.., mut position, _, _, _)) = self.players.get_mut(target) {
                position.0 = destination;
            }
        }
        Ok(format!(
            "Teleported {} to {:.2}, {:.2}, {:.2}.",
            self.who(&targets),
            destination.x,
            destination.y,
            destination.z
        )
        .color(Color::GRAY))
    }
}

/// Page `page` (from 1) of the emotes `perms` may play, with the player's
/// cooldowns from `cooldown_left_ticks`; or one red line when there is no
/// such page.
pub(super) fn list_page(
    library: &Library,
    page: usize,
    perms: &PlayerPermissions,
    cooldown_left_ticks: &dyn Fn(&EmoteId) -> u64,
) -> Text {
    let visible: Vec<Listed> = perms
        .playable(library)
        .map(|(id, e)| Listed {
            id,
            file: &e.file,
            cooldown_left_ticks: cooldown_left_ticks(id),
        })
        .collect();
    page_text(&visible, page)
}

/// What `/emote info <id>` answers: the emote's name, description, kind, length
/// and cooldown, and whether `perms` may play it.
pub fn info(library: &Library, id: &str, perms: &PlayerPermissions) -> Text {
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
        EmoteFile::Controller(c) => format!(
            "Controller, {} layers, {} clips, cooldown {} ticks: it plays while you walk, run, sneak and jump",
            c.layers.len(),
            c.clips().map(|r| &r.id).collect::<std::collections::BTreeSet<_>>().len(),
            c.settings.cooldown_ticks
        ),
    };
    let access = match perms.may_play(id, loaded.file.is_standalone()) {
        Ok(()) => String::new(),
        Err(denied) => format!("\n{denied}"),
    };
    format!(
        "{} ({id}): {}\n{detail}{access}",
        meta.name, meta.description
    )
    .color(Color::GOLD)
}
