//! emoted's own command dispatcher for emote events.
//!
//! Events are queued by the playback systems as [`EmoteCommandEvent`]s (the
//! command text, who runs it and from where) and run here. Today it runs:
//! - `say <message>`: chat to every player, as `[Name] message` (`Server`
//!   for the server source, the player's name for a player source, the node
//!   id for a display node);
//! - `tellraw <targets> <json text>`;
//! - `title <targets> title|subtitle|actionbar <json text>` and `title <targets> clear|reset`;
//! - `data merge entity @s {…}` from a display-node source: `Glowing` and
//!   `glow_color_override`.
//!
//! Targets are `@s` (the source: the player, or nobody for the server and a
//! node), `@a`, `@p` (nearest to the origin), `@r` and player names;
//! selector arguments in `[…]` are not read yet. `particle`, `playsound`,
//! `stopsound`, `tp`, `gamemode`, `function` and `emote` are accepted at load
//! but not run yet: each is logged once per command text at debug level.

use std::collections::HashSet;

use valence::entity::display::GlowColorOverride;
use valence::entity::entity::Flags;
use valence::prelude::*;

/// Who runs an event command.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandSource {
    /// A player, with that player's own permissions.
    Player(Entity),
    /// The server console.
    Server,
    /// A display node: `@s` is its entity.
    Node {
        /// The node id (the name `say` uses).
        id: String,
        /// Its display entity.
        entity: Entity,
    },
}

/// One command to run, with its context.
#[derive(Event, Clone, Debug)]
pub struct EmoteCommandEvent {
    /// Who runs it.
    pub source: CommandSource,
    /// Where `~ ~ ~` is, in world coordinates.
    pub origin: DVec3,
    /// The command text, without a leading `/`.
    pub command: String,
}

/// A command parsed far enough to run it.
#[derive(Clone, Debug, PartialEq)]
pub enum ParsedCommand {
    /// `say`.
    Say(String),
    /// `tellraw`.
    Tellraw {
        /// The target selector or name.
        targets: String,
        /// The message.
        text: Text,
    },
    /// `title … title|subtitle|actionbar`.
    Title {
        /// The target selector or name.
        targets: String,
        /// Which line.
        kind: TitleKind,
        /// The text.
        text: Text,
    },
    /// `title … clear|reset`.
    ClearTitle {
        /// The target selector or name.
        targets: String,
    },
    /// `data merge entity @s {…}`.
    MergeData {
        /// The target (only `@s` is run).
        target: String,
        /// `Glowing`, if given.
        glowing: Option<bool>,
        /// `glow_color_override`, if given.
        glow_color: Option<i32>,
    },
    /// A command that is valid but not run yet.
    NotRunYet(String),
}

/// The lines of `title`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TitleKind {
    /// The big title.
    Title,
    /// The line under it.
    Subtitle,
    /// Above the hotbar.
    ActionBar,
}

fn split_word(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], text[i..].trim_start()),
        None => (text, ""),
    }
}

/// Splits off a target: a name or a selector with optional `[…]` arguments.
fn split_target(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    if text.starts_with('@') {
        if let Some(open) = text.find('[').filter(|&i| i == 2) {
            if let Some(close) = text[open..].find(']') {
                let end = open + close + 1;
                return (&text[..end], text[end..].trim_start());
            }
        }
    }
    split_word(text)
}

fn parse_text(json: &str) -> Result<Text, String> {
    serde_json::from_str::<Text>(json).map_err(|e| format!("invalid JSON text `{json}`: {e}"))
}

/// Parses one event command.
pub fn parse_event_command(command: &str) -> Result<ParsedCommand, String> {
    let (name, rest) = split_word(command);
    match name {
        "say" => Ok(ParsedCommand::Say(rest.to_owned())),
        "tellraw" => {
            let (targets, json) = split_target(rest);
            Ok(ParsedCommand::Tellraw {
                targets: targets.to_owned(),
                text: parse_text(json)?,
            })
        }
        "title" => {
            let (targets, rest) = split_target(rest);
            let (action, json) = split_word(rest);
            let kind = match action {
                "title" => TitleKind::Title,
                "subtitle" => TitleKind::Subtitle,
                "actionbar" => TitleKind::ActionBar,
                "clear" | "reset" => {
                    return Ok(ParsedCommand::ClearTitle {
                        targets: targets.to_owned(),
                    })
                }
                "times" => return Ok(ParsedCommand::NotRunYet(command.to_owned())),
                other => return Err(format!("unknown title action `{other}`")),
            };
            Ok(ParsedCommand::Title {
                targets: targets.to_owned(),
                kind,
                text: parse_text(json)?,
            })
        }
        "data" => {
            let (merge, rest) = split_word(rest);
            let (entity, rest) = split_word(rest);
            let (target, snbt) = split_target(rest);
            if merge != "merge" || entity != "entity" {
                return Err("only `data merge entity <target> {…}` is supported".to_owned());
            }
            let compound = crate::format::snbt::parse_compound(snbt)?;
            let number = |key: &str| compound.get(key).and_then(crate::format::snbt::as_int);
            Ok(ParsedCommand::MergeData {
                target: target.to_owned(),
                glowing: number("Glowing").map(|v| v != 0),
                glow_color: number("glow_color_override").map(|v| v as i32),
            })
        }
        _ => Ok(ParsedCommand::NotRunYet(command.to_owned())),
    }
}

/// Runs queued emote event commands.
pub struct EmoteDispatchPlugin;

impl Plugin for EmoteDispatchPlugin {
    fn build(&self, app: &mut App) {
        app.add_event::<EmoteCommandEvent>()
            .init_resource::<ReportedCommands>()
            .add_systems(
                Update,
                run_emote_commands.after(crate::server::emote::EmotePlaybackSet),
            );
    }
}

/// Command texts already logged as not run, so each is logged once.
#[derive(Resource, Default)]
struct ReportedCommands(HashSet<String>);

fn resolve_targets(
    targets: &str,
    source: &CommandSource,
    origin: DVec3,
    players: &Query<(Entity, &mut Client, &Username, &Position)>,
) -> Vec<Entity> {
    let selector = targets.get(..2).unwrap_or(targets);
    match selector {
        "@s" => match source {
            CommandSource::Player(e) => vec![*e],
            _ => Vec::new(),
        },
        "@a" | "@e" => players.iter().map(|(e, ..)| e).collect(),
        "@p" => players
            .iter()
            .min_by(|a, b| {
                let da = a.3 .0.distance_squared(origin);
                let db = b.3 .0.distance_squared(origin);
                da.total_cmp(&db)
            })
            .map(|(e, ..)| vec![e])
            .unwrap_or_default(),
        "@r" => {
            let all: Vec<Entity> = players.iter().map(|(e, ..)| e).collect();
            if all.is_empty() {
                Vec::new()
            } else {
                let i = (origin.x.to_bits() ^ origin.z.to_bits()) as usize % all.len();
                vec![all[i]]
            }
        }
        _ => players
            .iter()
            .filter(|(_, _, name, _)| name.0.eq_ignore_ascii_case(targets))
            .map(|(e, ..)| e)
            .collect(),
    }
}

fn run_emote_commands(
    mut events: EventReader<EmoteCommandEvent>,
    mut players: Query<(Entity, &mut Client, &Username, &Position)>,
    mut displays: Query<(&mut Flags, &mut GlowColorOverride)>,
    mut reported: ResMut<ReportedCommands>,
) {
    for event in events.iter() {
        let parsed = match parse_event_command(&event.command) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!("emote command `{}` failed: {e}", event.command);
                continue;
            }
        };
        match parsed {
            ParsedCommand::Say(message) => {
                let name = match &event.source {
                    CommandSource::Server => "Server".to_owned(),
                    CommandSource::Player(e) => players
                        .get(*e)
                        .map_or_else(|_| "Player".to_owned(), |(_, _, u, _)| u.0.clone()),
                    CommandSource::Node { id, .. } => id.clone(),
                };
                for (_, mut client, _, _) in &mut players {
                    client.send_chat_message(format!("[{name}] {message}"));
                }
            }
            ParsedCommand::Tellraw { targets, text } => {
                for target in resolve_targets(&targets, &event.source, event.origin, &players) {
                    if let Ok((_, mut client, _, _)) = players.get_mut(target) {
                        client.send_chat_message(text.clone());
                    }
                }
            }
            ParsedCommand::Title {
                targets,
                kind,
                text,
            } => {
                for target in resolve_targets(&targets, &event.source, event.origin, &players) {
                    if let Ok((_, mut client, _, _)) = players.get_mut(target) {
                        match kind {
                            TitleKind::Title => client.set_title(text.clone()),
                            TitleKind::Subtitle => client.set_subtitle(text.clone()),
                            TitleKind::ActionBar => client.set_action_bar(text.clone()),
                        }
                    }
                }
            }
            ParsedCommand::ClearTitle { targets } => {
                for target in resolve_targets(&targets, &event.source, event.origin, &players) {
                    if let Ok((_, mut client, _, _)) = players.get_mut(target) {
                        client.clear_title();
                    }
                }
            }
            ParsedCommand::MergeData {
                target,
                glowing,
                glow_color,
            } => {
                let entity = match (&event.source, target.as_str()) {
                    (CommandSource::Node { entity, .. }, "@s") => *entity,
                    _ => continue,
                };
                if let Ok((mut flags, mut glow)) = displays.get_mut(entity) {
                    if let Some(on) = glowing {
                        flags.0 = if on { flags.0 | 0x40 } else { flags.0 & !0x40 };
                    }
                    if let Some(color) = glow_color {
                        glow.0 = color;
                    }
                }
            }
            ParsedCommand::NotRunYet(text) => {
                if reported.0.insert(text.clone()) {
                    tracing::debug!("emote command not run yet: `{text}`");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_commands_it_runs() {
        assert_eq!(
            parse_event_command("say hi there"),
            Ok(ParsedCommand::Say("hi there".into()))
        );
        match parse_event_command(r#"title @s actionbar {"text":"Woo!","bold":true}"#) {
            Ok(ParsedCommand::Title { targets, kind, .. }) => {
                assert_eq!(targets, "@s");
                assert_eq!(kind, TitleKind::ActionBar);
            }
            other => panic!("{other:?}"),
        }
        match parse_event_command(r#"tellraw @a[distance=..5] {"text":"x"}"#) {
            Ok(ParsedCommand::Tellraw { targets, .. }) => assert_eq!(targets, "@a[distance=..5]"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            parse_event_command("data merge entity @s {Glowing:1b,glow_color_override:16766720}"),
            Ok(ParsedCommand::MergeData {
                target: "@s".into(),
                glowing: Some(true),
                glow_color: Some(16766720)
            })
        );
        assert!(matches!(
            parse_event_command("particle minecraft:heart ~ ~ ~"),
            Ok(ParsedCommand::NotRunYet(_))
        ));
    }

    #[test]
    fn malformed_commands_are_errors_not_panics() {
        for bad in [
            "tellraw @s {",
            "title @s sideways {}",
            "data get entity @s",
            "data merge entity @s {",
        ] {
            assert!(parse_event_command(bad).is_err(), "{bad}");
        }
        assert!(
            parse_event_command("").is_ok(),
            "an empty command is NotRunYet (refused at load anyway)"
        );
    }

    #[test]
    fn every_bundled_event_command_parses() {
        let dirs = [
            concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"),
            concat!(env!("CARGO_MANIFEST_DIR"), "/datapacks"),
        ];
        let mut count = 0;
        for dir in dirs {
            for path in
                crate::library::discover::emote_files(std::path::Path::new(dir)).expect("walk")
            {
                if let Some(crate::format::EmoteFile::Animation(a)) =
                    crate::format::read_emote_file(&path).file
                {
                    let ev = &a.timeline.events;
                    let all = ev
                        .start
                        .iter()
                        .chain(ev.on_loop.iter())
                        .chain(ev.stop.iter())
                        .chain(ev.timeline.iter().map(|t| &t.event));
                    for event in all {
                        for command in &event.commands {
                            count += 1;
                            assert!(
                                parse_event_command(command).is_ok(),
                                "{}: {command}",
                                path.display()
                            );
                        }
                    }
                }
            }
        }
        assert!(count > 20, "{count}");
    }
}
