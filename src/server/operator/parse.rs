//! Operator lines into [`OperatorCommand`]s. The words are the ones players
//! type (`emote …` is read by the chat command's own parser), with or
//! without a leading `/`, as vanilla's console takes them.

use crate::server::commands::{parse_emote, EmoteCommand};
use crate::server::syntax::{split_command, CommandError, Words};

/// What `help` answers.
pub const OPERATOR_HELP: &str = "Commands: list · say <message> · reload · stop · \
emote play <id> <player> · emote stop <player> · emote list · emote info <id> · emote reload · help";

/// The commands the console and RCON run.
const OPERATOR_COMMANDS: &str = "list, say, reload, stop, emote, help";

/// A parsed operator line.
#[derive(Clone, Debug, PartialEq)]
pub enum OperatorCommand {
    /// `help`: what the console runs.
    Help,
    /// `list`: who is online.
    List,
    /// `say <message>`: chat to every player as `[Server] message`.
    Say {
        /// The message, as typed.
        message: String,
    },
    /// `reload` (or `emote reload`): emotes and configuration.
    Reload,
    /// `stop`: the clean shutdown.
    Stop,
    /// `emote …`, as a player types it.
    Emote(EmoteCommand),
}

/// Parses one line from the console or RCON.
pub fn parse_operator_command(line: &str) -> Result<OperatorCommand, CommandError> {
    let line = line.trim();
    let line = line.strip_prefix('/').unwrap_or(line);
    let (name, rest) = split_command(line, "list")?;
    let no_arguments = |usage: &'static str, command: OperatorCommand| {
        Words::new(usage, rest).finish().map(|()| command)
    };
    match name.to_ascii_lowercase().as_str() {
        "help" | "?" => no_arguments("help", OperatorCommand::Help),
        "list" => no_arguments("list", OperatorCommand::List),
        "reload" => no_arguments("reload", OperatorCommand::Reload),
        "stop" => no_arguments("stop", OperatorCommand::Stop),
        "say" => {
            let message = rest.trim();
            if message.is_empty() {
                return Err(CommandError::Missing {
                    what: "the message",
                    usage: "say <message>",
                });
            }
            Ok(OperatorCommand::Say {
                message: message.to_owned(),
            })
        }
        "emote" | "e" => match parse_emote(rest)? {
            EmoteCommand::Reload => Ok(OperatorCommand::Reload),
            command => Ok(OperatorCommand::Emote(command)),
        },
        _ => Err(CommandError::UnknownCommand {
            name: name.to_owned(),
            known: OPERATOR_COMMANDS.to_owned(),
        }),
    }
}
