//! `/emote` (alias `/e`): the command tree the client uses for suggestions,
//! the server-side parser, and the answers to tab completion.
//!
//! valence 0.2.0-alpha.1 has no command framework, so the tree is sent on
//! join (`CommandTreeS2c`), commands arrive as `CommandExecutionC2s`, and the
//! argument nodes use `ask_server` suggestions that are answered from the
//! emote library (`RequestCommandCompletionsC2s` → `CommandSuggestionsS2c`).
//!
//! Out of the box every player may play standalone emotes on themself and
//! stop their own; playing for others, stopping others and reloading need
//! operator level 2 (the permission file comes with the configuration).

use std::borrow::Cow;

use valence::event_loop::PacketEvent;
use valence::op_level::OpLevel;
use valence::prelude::*;
use valence::protocol::packets::play::command_suggestions_s2c::CommandSuggestionsMatch;
use valence::protocol::packets::play::command_tree_s2c::{
    Node, NodeData, Parser, StringArg, Suggestion,
};
use valence::protocol::packets::play::{
    CommandExecutionC2s, CommandSuggestionsS2c, CommandTreeS2c, RequestCommandCompletionsC2s,
};
use valence::protocol::{VarInt, WritePacket};

use crate::format::{EmoteFile, EmoteId};
use crate::library::Library;
use crate::server::emote::{EndReason, PlayEmoteRequest, StopEmoteRequest};
use crate::server::reload::ReloadRequest;
use crate::server::EmoteLibrary;

/// Emotes per page of `/emote list`.
pub const LIST_PAGE_SIZE: usize = 10;
/// Operator level needed for other players, and for reloading.
pub const MANAGE_OP_LEVEL: u8 = 2;

/// Sends the command tree, runs `/emote` and answers tab completion.
pub struct EmoteCommandsPlugin;

impl Plugin for EmoteCommandsPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            Update,
            (send_command_tree, handle_commands, answer_completions)
                .before(crate::server::emote::EmotePlaybackSet),
        );
    }
}

/// A parsed `/emote` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmoteCommand {
    /// `/emote play <id> [player]`
    Play {
        /// The emote id as typed.
        id: String,
        /// Another player to play it on.
        target: Option<String>,
    },
    /// `/emote stop [player]`
    Stop {
        /// Another player to stop.
        target: Option<String>,
    },
    /// `/emote list [page]` (pages from 1)
    List {
        /// The page.
        page: usize,
    },
    /// `/emote info <id>`
    Info {
        /// The emote id as typed.
        id: String,
    },
    /// `/emote reload`
    Reload,
}

const USAGE: &str =
    "Usage: /emote play <id> [player] | stop [player] | list [page] | info <id> | reload";

/// Parses a command line (without the leading `/`). `Ok(None)` means the
/// command is not `/emote` at all.
pub fn parse_command(line: &str) -> Result<Option<EmoteCommand>, String> {
    let mut words = line.split_whitespace();
    match words.next() {
        Some("emote" | "e") => {}
        _ => return Ok(None),
    }
    let sub = words.next();
    let args: Vec<&str> = words.collect();
    let too_many = |usage: &str| Err(format!("Too many arguments. Usage: {usage}"));
    let command = match sub {
        Some("play") => match args.as_slice() {
            [id] => EmoteCommand::Play {
                id: (*id).to_owned(),
                target: None,
            },
            [id, player] => EmoteCommand::Play {
                id: (*id).to_owned(),
                target: Some((*player).to_owned()),
            },
            [] => return Err("Missing emote id. Usage: /emote play <id> [player]".to_owned()),
            _ => return too_many("/emote play <id> [player]"),
        },
        Some("stop") => match args.as_slice() {
            [] => EmoteCommand::Stop { target: None },
            [player] => EmoteCommand::Stop {
                target: Some((*player).to_owned()),
            },
            _ => return too_many("/emote stop [player]"),
        },
        Some("list") => match args.as_slice() {
            [] => EmoteCommand::List { page: 1 },
            [page] => match page.parse::<usize>() {
                Ok(p) if p >= 1 => EmoteCommand::List { page: p },
                _ => return Err(format!("`{page}` is not a page number (1, 2, ...).")),
            },
            _ => return too_many("/emote list [page]"),
        },
        Some("info") => match args.as_slice() {
            [id] => EmoteCommand::Info {
                id: (*id).to_owned(),
            },
            [] => return Err("Missing emote id. Usage: /emote info <id>".to_owned()),
            _ => return too_many("/emote info <id>"),
        },
        Some("reload") if args.is_empty() => EmoteCommand::Reload,
        Some("reload") => return too_many("/emote reload"),
        Some(other) => return Err(format!("Unknown subcommand `{other}`. {USAGE}")),
        None => return Err(USAGE.to_owned()),
    };
    Ok(Some(command))
}

fn command_tree() -> CommandTreeS2c<'static> {
    let literal = |name: &'static str, children: Vec<i32>, executable: bool| Node {
        children: children.into_iter().map(VarInt).collect(),
        data: NodeData::Literal { name },
        executable,
        redirect_node: None,
    };
    let argument = |name: &'static str, parser: Parser<'static>, children: Vec<i32>| Node {
        children: children.into_iter().map(VarInt).collect(),
        data: NodeData::Argument {
            name,
            parser,
            suggestion: Some(Suggestion::AskServer),
        },
        executable: true,
        redirect_node: None,
    };
    let word = || Parser::String(StringArg::SingleWord);
    let nodes = vec![
        /* 0 */
        Node {
            children: vec![VarInt(1), VarInt(12)],
            data: NodeData::Root,
            executable: false,
            redirect_node: None,
        },
        /* 1 */ literal("emote", vec![2, 3, 4, 5, 6], false),
        /* 2 */ literal("play", vec![7], false),
        /* 3 */ literal("stop", vec![9], true),
        /* 4 */ literal("list", vec![10], true),
        /* 5 */ literal("info", vec![11], false),
        /* 6 */ literal("reload", vec![], true),
        /* 7 */ argument("emote", Parser::ResourceLocation, vec![8]),
        /* 8 */ argument("player", word(), vec![]),
        /* 9 */ argument("player", word(), vec![]),
        /* 10 */
        Node {
            children: vec![],
            data: NodeData::Argument {
                name: "page",
                parser: Parser::Integer {
                    min: Some(1),
                    max: None,
                },
                suggestion: None,
            },
            executable: true,
            redirect_node: None,
        },
        /* 11 */ argument("emote", Parser::ResourceLocation, vec![]),
        /* 12 */
        Node {
            children: vec![],
            data: NodeData::Literal { name: "e" },
            executable: false,
            redirect_node: Some(VarInt(1)),
        },
    ];
    CommandTreeS2c {
        commands: nodes,
        root_index: VarInt(0),
    }
}

fn send_command_tree(mut clients: Query<&mut Client, Added<Client>>) {
    for mut client in &mut clients {
        client.write_packet(&command_tree());
    }
}

fn is_manager(op: Option<&OpLevel>) -> bool {
    op.is_some_and(|o| o.get() >= MANAGE_OP_LEVEL)
}

#[allow(clippy::too_many_arguments)]
fn handle_commands(
    mut packets: EventReader<PacketEvent>,
    mut clients: Query<(Entity, &mut Client, &Username, Option<&OpLevel>)>,
    library: Res<EmoteLibrary>,
    mut play: EventWriter<PlayEmoteRequest>,
    mut stop: EventWriter<StopEmoteRequest>,
    mut reload: EventWriter<ReloadRequest>,
) {
    for packet in packets.iter() {
        let Some(pkt) = packet.decode::<CommandExecutionC2s>() else {
            continue;
        };
        let parsed = parse_command(pkt.command);
        let manager = clients
            .get(packet.client)
            .is_ok_and(|(_, _, _, op)| is_manager(op));
        let find_player =
            |name: &str, clients: &Query<(Entity, &mut Client, &Username, Option<&OpLevel>)>| {
                clients
                    .iter()
                    .find(|(_, _, u, _)| u.0.eq_ignore_ascii_case(name))
                    .map(|(e, ..)| e)
            };
        let reply: Option<Text> = match parsed {
            Ok(None) => Some(
                format!(
                    "Unknown command `/{}`. {USAGE}",
                    pkt.command.split_whitespace().next().unwrap_or("")
                )
                .color(Color::RED),
            ),
            Err(message) => Some(message.color(Color::RED)),
            Ok(Some(EmoteCommand::Play { id, target })) => match EmoteId::parse(&id) {
                Err(_) => Some(
                    format!("`{id}` is not an emote id (namespace:name). Try /emote list.")
                        .color(Color::RED),
                ),
                Ok(emote) => match target {
                    None => {
                        play.send(PlayEmoteRequest {
                            client: packet.client,
                            emote,
                            bypass: false,
                        });
                        None
                    }
                    Some(_) if !manager => {
                        Some("You may only play emotes on yourself.".color(Color::RED))
                    }
                    Some(name) => match find_player(&name, &clients) {
                        Some(target) => {
                            play.send(PlayEmoteRequest {
                                client: target,
                                emote,
                                bypass: true,
                            });
                            Some(format!("Playing {id} on {name}.").color(Color::GRAY))
                        }
                        None => {
                            Some(format!("No player named `{name}` is online.").color(Color::RED))
                        }
                    },
                },
            },
            Ok(Some(EmoteCommand::Stop { target: None })) => {
                stop.send(StopEmoteRequest {
                    client: packet.client,
                    reason: EndReason::Stopped,
                });
                None
            }
            Ok(Some(EmoteCommand::Stop { target: Some(_) })) if !manager => {
                Some("You may only stop your own emote.".color(Color::RED))
            }
            Ok(Some(EmoteCommand::Stop { target: Some(name) })) => {
                match find_player(&name, &clients) {
                    Some(target) => {
                        stop.send(StopEmoteRequest {
                            client: target,
                            reason: EndReason::Stopped,
                        });
                        None
                    }
                    None => Some(format!("No player named `{name}` is online.").color(Color::RED)),
                }
            }
            Ok(Some(EmoteCommand::List { page })) => Some(list_page(&library.0, page, manager)),
            Ok(Some(EmoteCommand::Info { id })) => Some(info(&library.0, &id)),
            Ok(Some(EmoteCommand::Reload)) if !manager => {
                Some("Reloading emotes needs operator permission.".color(Color::RED))
            }
            Ok(Some(EmoteCommand::Reload)) => {
                reload.send(ReloadRequest {
                    requested_by: Some(packet.client),
                });
                None
            }
        };
        if let (Some(text), Ok((_, mut client, _, _))) = (reply, clients.get_mut(packet.client)) {
            client.send_chat_message(text);
        }
    }
}

fn list_page(library: &Library, page: usize, manager: bool) -> Text {
    let visible: Vec<(&EmoteId, &EmoteFile)> = library
        .iter()
        .map(|(id, e)| (id, &*e.file))
        .filter(|(_, f)| manager || playable_by_players(f))
        .collect();
    let pages = visible.len().div_ceil(LIST_PAGE_SIZE).max(1);
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

fn playable_by_players(file: &EmoteFile) -> bool {
    match file {
        EmoteFile::Animation(a) => a.settings.standalone,
        EmoteFile::Sequence(_) => true,
    }
}

fn info(library: &Library, id: &str) -> Text {
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
            "Sequence, {} steps{}",
            s.steps.len(),
            if s.is_two_player() {
                ", for two players"
            } else {
                ""
            }
        ),
    };
    format!("{} ({id}): {}\n{detail}", meta.name, meta.description).color(Color::GOLD)
}

/// Suggestions for the text typed so far (which starts with `/`): the
/// replaced range (UTF-16 offsets into `text`) and the candidates.
pub fn suggest(
    text: &str,
    library: &Library,
    players: &[&str],
    manager: bool,
) -> (usize, Vec<String>) {
    let line = text.strip_prefix('/').unwrap_or(text);
    let ends_with_space = line.ends_with(' ');
    let words: Vec<&str> = line.split_whitespace().collect();
    let (completed, partial): (&[&str], &str) = if ends_with_space || words.is_empty() {
        (&words[..], "")
    } else {
        (&words[..words.len() - 1], words[words.len() - 1])
    };
    let start = text.encode_utf16().count() - partial.encode_utf16().count();
    let candidates: Vec<String> = match completed {
        ["emote" | "e"] => ["play", "stop", "list", "info", "reload"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        ["emote" | "e", "play"] | ["emote" | "e", "info"] => library
            .iter()
            .filter(|(_, e)| manager || playable_by_players(&e.file))
            .map(|(id, _)| id.to_string())
            .collect(),
        ["emote" | "e", "play", _] | ["emote" | "e", "stop"] if manager => {
            players.iter().map(|p| (*p).to_owned()).collect()
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

fn answer_completions(
    mut packets: EventReader<PacketEvent>,
    mut clients: Query<(&mut Client, Option<&OpLevel>)>,
    names: Query<&Username>,
    library: Res<EmoteLibrary>,
) {
    for packet in packets.iter() {
        let Some(pkt) = packet.decode::<RequestCommandCompletionsC2s>() else {
            continue;
        };
        let players: Vec<&str> = names.iter().map(|u| u.0.as_str()).collect();
        let Ok((mut client, op)) = clients.get_mut(packet.client) else {
            continue;
        };
        let (start, matches) = suggest(pkt.text, &library.0, &players, is_manager(op));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_subcommand() {
        assert_eq!(
            parse_command("emote play example:wave"),
            Ok(Some(EmoteCommand::Play {
                id: "example:wave".into(),
                target: None
            }))
        );
        assert_eq!(
            parse_command("e play example:wave Steve"),
            Ok(Some(EmoteCommand::Play {
                id: "example:wave".into(),
                target: Some("Steve".into())
            }))
        );
        assert_eq!(
            parse_command("emote stop"),
            Ok(Some(EmoteCommand::Stop { target: None }))
        );
        assert_eq!(
            parse_command("emote list"),
            Ok(Some(EmoteCommand::List { page: 1 }))
        );
        assert_eq!(
            parse_command("emote list 3"),
            Ok(Some(EmoteCommand::List { page: 3 }))
        );
        assert_eq!(
            parse_command("emote info a:b"),
            Ok(Some(EmoteCommand::Info { id: "a:b".into() }))
        );
        assert_eq!(
            parse_command("emote reload"),
            Ok(Some(EmoteCommand::Reload))
        );
        assert_eq!(parse_command("gamemode creative"), Ok(None));
    }

    #[test]
    fn malformed_commands_say_what_is_wrong() {
        for (line, needle) in [
            ("emote", "Usage"),
            ("emote dance", "Unknown subcommand `dance`"),
            ("emote play", "Missing emote id"),
            ("emote play a:b c d", "Too many arguments"),
            ("emote list zero", "not a page number"),
            ("emote list 0", "not a page number"),
            ("emote info", "Missing emote id"),
            ("emote reload now", "Too many arguments"),
        ] {
            let err = parse_command(line).expect_err(line);
            assert!(err.contains(needle), "{line}: {err}");
        }
    }

    #[test]
    fn suggestions_complete_the_last_word() {
        let library = Library::default();
        let (start, m) = suggest("/emote pl", &library, &[], false);
        assert_eq!((start, m), (7, vec!["play".to_owned()]));
        let (start, m) = suggest("/emote ", &library, &[], false);
        assert_eq!(start, 7);
        assert_eq!(m.len(), 5);
        let (_, m) = suggest("/emote play x:y ", &library, &["Alex"], false);
        assert!(m.is_empty(), "players are only suggested to managers");
        let (start, m) = suggest("/emote play x:y A", &library, &["Alex", "Bob"], true);
        assert_eq!((start, m), (16, vec!["Alex".to_owned()]));
    }

    #[test]
    fn the_tree_encodes() {
        use valence::protocol::Encode;
        let mut buf = Vec::new();
        command_tree().encode(&mut buf).expect("encodes");
        assert!(buf.len() > 20);
    }
}
