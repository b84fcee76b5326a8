//! Commands: `/emote` (alias `/e`), `/gamemode` and `/tp` (alias
//! `/teleport`): the command tree the client uses for suggestions, the
//! server-side parser, permission checks, per-player rate limits, and the
//! answers to tab completion.
//!
//! valence 0.2.0-alpha.1 has no command framework, so the tree is sent on
//! join (`CommandTreeS2c`, again when the player's permissions change),
//! commands arrive as `CommandExecutionC2s`, and the argument nodes use
//! `ask_server` suggestions that are answered from the emote library and the
//! player list (`RequestCommandCompletionsC2s` → `CommandSuggestionsS2c`).
//!
//! Who may run what comes from [`crate::server::permissions`], resolved
//! from the live [`Config`] for every command (a hot reload applies at
//! once):
//!
//! | command | needs |
//! |---|---|
//! | `/emote play <id>` | what [`PlayerPermissions::may_play`] says |
//! | `/emote stop` | `emote.default` |
//! | `/emote list`, `/emote info <id>` | nothing (the list shows what you may play) |
//! | `/emote play <id> <player>`, `/emote stop <player>`, `/emote reload` | `emote.manage` |
//! | `/gamemode <mode> [player]` | `minecraft.command.gamemode` |
//! | `/tp ...` | `minecraft.command.teleport` |
//!
//! Operators (level 2 and up, as vanilla requires for `/gamemode` and
//! `/tp`) hold every node. The admin commands have their own nodes rather
//! than `emote.manage` so that an emote moderator need not be able to fly.
//!
//! Every command and every completion request first spends from the
//! player's rate limit (`[commands]` in the configuration, governor's GCRA):
//! a command over the limit is refused with "Slow down", a completion
//! request over it is dropped.

use std::borrow::Cow;
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
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
use crate::server::config::{CommandsSection, Config};
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::{EndReason, PlayEmoteRequest, ReloadRequest, StopEmoteRequest};
use crate::server::permissions::{
    PlayerIdentity, PlayerPermissions, EMOTE_DEFAULT, EMOTE_MANAGE, GAMEMODE, TELEPORT,
};
use crate::server::syntax::parse_plain_number;
pub use crate::server::syntax::{game_mode_name, parse_game_mode};

/// Emotes per page of `/emote list`.
pub const LIST_PAGE_SIZE: usize = 10;
/// Operator level from which a player holds every node, `emote.manage`
/// included (the same as [`crate::server::permissions::OPERATOR_LEVEL`]).
pub const MANAGE_OP_LEVEL: u8 = crate::server::permissions::OPERATOR_LEVEL;
/// Operator level given to the players named in `permissions.operators`.
pub const LISTED_OPERATOR_LEVEL: u8 = 3;
/// The farthest `/tp` goes from the origin on x and z (vanilla's world border).
pub const MAX_HORIZONTAL: f64 = 30_000_000.0;
/// The farthest `/tp` goes from y 0 (vanilla's limit).
pub const MAX_VERTICAL: f64 = 20_000_000.0;

/// Sends the command tree, runs commands and answers tab completion.
pub struct EmoteCommandsPlugin;

impl Plugin for EmoteCommandsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CommandRateLimits>()
            // Registered by the reload plugin too; here so commands work without it.
            .add_event::<ReloadRequest>()
            .add_systems(
                Update,
                (
                    apply_operator_list,
                    send_command_trees,
                    handle_commands,
                    answer_completions,
                    forget_rate_limits_of_leavers,
                )
                    .chain()
                    .before(crate::server::events::EmotePlaybackSet),
            );
    }
}

/// A parsed command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `/emote ...`
    Emote(EmoteCommand),
    /// `/gamemode <mode> [player]`
    GameMode {
        /// The new game mode.
        mode: GameMode,
        /// Another player; `None` is the sender.
        target: Option<String>,
    },
    /// `/tp ...`
    Teleport(TeleportCommand),
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

/// A parsed `/tp` command.
#[derive(Clone, Debug, PartialEq)]
pub enum TeleportCommand {
    /// `/tp <player>` (the sender goes to the player) or
    /// `/tp <player> <destination player>`.
    ToPlayer {
        /// Who moves; `None` is the sender.
        target: Option<String>,
        /// The player to go to.
        destination: String,
    },
    /// `/tp <x> <y> <z>` or `/tp <player> <x> <y> <z>`.
    ToPosition {
        /// Who moves; `None` is the sender.
        target: Option<String>,
        /// x, y, z.
        position: [Coordinate; 3],
    },
}

/// One coordinate of `/tp`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coordinate {
    /// A number. Whole x and z numbers are block coordinates and already
    /// point at the block's centre (`3` is stored as 3.5), as in vanilla.
    Absolute(f64),
    /// `~` or `~N`: N blocks from the sender's own position (as in vanilla,
    /// also when another player is teleported).
    Relative(f64),
}

impl Coordinate {
    /// The coordinate, given the sender's value on this axis.
    pub fn resolve(self, base: f64) -> f64 {
        match self {
            Coordinate::Absolute(v) => v,
            Coordinate::Relative(offset) => base + offset,
        }
    }
}

/// Why a command line could not be parsed, as the player reads it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Nothing but spaces.
    #[error("Type a command, e.g. /emote list.")]
    Empty,
    /// Not a command this server has.
    #[error("Unknown command `/{name}`. Commands here: /emote (or /e), /gamemode, /tp.")]
    UnknownCommand {
        /// The first word.
        name: String,
    },
    /// `/emote` alone.
    #[error("{EMOTE_USAGE}")]
    EmoteUsage,
    /// `/emote <something else>`.
    #[error("Unknown subcommand `{name}`. {EMOTE_USAGE}")]
    UnknownSubcommand {
        /// The second word.
        name: String,
    },
    /// A required argument is missing.
    #[error("Missing {what}. Usage: {usage}")]
    Missing {
        /// What is missing.
        what: &'static str,
        /// The command's usage.
        usage: &'static str,
    },
    /// Arguments after the last one the command takes.
    #[error("Too many arguments. Usage: {usage}")]
    TooManyArguments {
        /// The command's usage.
        usage: &'static str,
    },
    /// `/emote list` with something that is not a page.
    #[error("`{found}` is not a page number (1, 2, ...).")]
    BadPage {
        /// As typed.
        found: String,
    },
    /// `/gamemode` with something that is not a game mode.
    #[error("`{found}` is not a game mode: use survival, creative, adventure or spectator.")]
    BadGameMode {
        /// As typed.
        found: String,
    },
    /// `/tp` with something that is not a coordinate.
    #[error("`{found}` is not a coordinate: use a number, `~` (where you are) or `~N` (N blocks from there).")]
    BadCoordinate {
        /// As typed.
        found: String,
    },
    /// `^` coordinates (relative to where the sender looks).
    #[error("Local coordinates (`{found}`) are not supported here; use numbers or `~`.")]
    LocalCoordinate {
        /// As typed.
        found: String,
    },
}

const EMOTE_USAGE: &str =
    "Usage: /emote play <id> [player] | stop [player] | list [page] | info <id> | reload";
const GAMEMODE_USAGE: &str = "/gamemode <survival|creative|adventure|spectator> [player]";
const TP_USAGE: &str =
    "/tp <x> <y> <z> | /tp <player> | /tp <player> <x> <y> <z> | /tp <player> <destination>";

/// Parses a command line (without the leading `/`).
pub fn parse_command(line: &str) -> Result<Command, CommandError> {
    let mut words = line.split_whitespace();
    let Some(name) = words.next() else {
        return Err(CommandError::Empty);
    };
    let args: Vec<&str> = words.collect();
    match name {
        "emote" | "e" => parse_emote(&args).map(Command::Emote),
        "gamemode" => parse_gamemode(&args),
        "tp" | "teleport" => parse_teleport(&args).map(Command::Teleport),
        _ => Err(CommandError::UnknownCommand {
            name: name.to_owned(),
        }),
    }
}

fn parse_emote(words: &[&str]) -> Result<EmoteCommand, CommandError> {
    let Some((sub, args)) = words.split_first() else {
        return Err(CommandError::EmoteUsage);
    };
    let too_many = |usage| Err(CommandError::TooManyArguments { usage });
    let missing_id = |usage| {
        Err(CommandError::Missing {
            what: "emote id",
            usage,
        })
    };
    let owned = |s: &&str| (*s).to_owned();
    Ok(match *sub {
        "play" => match args {
            [id] => EmoteCommand::Play {
                id: owned(id),
                target: None,
            },
            [id, player] => EmoteCommand::Play {
                id: owned(id),
                target: Some(owned(player)),
            },
            [] => return missing_id("/emote play <id> [player]"),
            _ => return too_many("/emote play <id> [player]"),
        },
        "stop" => match args {
            [] => EmoteCommand::Stop { target: None },
            [player] => EmoteCommand::Stop {
                target: Some(owned(player)),
            },
            _ => return too_many("/emote stop [player]"),
        },
        "list" => match args {
            [] => EmoteCommand::List { page: 1 },
            [page] => match page.parse::<usize>() {
                Ok(p) if p >= 1 => EmoteCommand::List { page: p },
                _ => return Err(CommandError::BadPage { found: owned(page) }),
            },
            _ => return too_many("/emote list [page]"),
        },
        "info" => match args {
            [id] => EmoteCommand::Info { id: owned(id) },
            [] => return missing_id("/emote info <id>"),
            _ => return too_many("/emote info <id>"),
        },
        "reload" if args.is_empty() => EmoteCommand::Reload,
        "reload" => return too_many("/emote reload"),
        other => {
            return Err(CommandError::UnknownSubcommand {
                name: other.to_owned(),
            })
        }
    })
}

fn parse_gamemode(args: &[&str]) -> Result<Command, CommandError> {
    let (mode, target) = match args {
        [] => {
            return Err(CommandError::Missing {
                what: "game mode",
                usage: GAMEMODE_USAGE,
            })
        }
        [mode] => (mode, None),
        [mode, player] => (mode, Some((*player).to_owned())),
        _ => {
            return Err(CommandError::TooManyArguments {
                usage: GAMEMODE_USAGE,
            })
        }
    };
    let mode = parse_game_mode(mode).ok_or_else(|| CommandError::BadGameMode {
        found: (*mode).to_owned(),
    })?;
    Ok(Command::GameMode { mode, target })
}

fn parse_teleport(args: &[&str]) -> Result<TeleportCommand, CommandError> {
    let owned = |s: &&str| (*s).to_owned();
    match args {
        [] => Err(CommandError::Missing {
            what: "destination",
            usage: TP_USAGE,
        }),
        [destination] => Ok(TeleportCommand::ToPlayer {
            target: None,
            destination: owned(destination),
        }),
        [a, b] if looks_like_coordinate(a) && looks_like_coordinate(b) => {
            Err(CommandError::Missing {
                what: "z coordinate",
                usage: TP_USAGE,
            })
        }
        [target, destination] => Ok(TeleportCommand::ToPlayer {
            target: Some(owned(target)),
            destination: owned(destination),
        }),
        [x, y, z] => Ok(TeleportCommand::ToPosition {
            target: None,
            position: parse_position(x, y, z)?,
        }),
        [target, x, y, z] => Ok(TeleportCommand::ToPosition {
            target: Some(owned(target)),
            position: parse_position(x, y, z)?,
        }),
        _ => Err(CommandError::TooManyArguments { usage: TP_USAGE }),
    }
}

fn looks_like_coordinate(word: &str) -> bool {
    word.starts_with(['~', '^', '-', '+', '.']) || word.starts_with(|c: char| c.is_ascii_digit())
}

fn parse_position(x: &str, y: &str, z: &str) -> Result<[Coordinate; 3], CommandError> {
    Ok([
        parse_coordinate(x, true)?,
        parse_coordinate(y, false)?,
        parse_coordinate(z, true)?,
    ])
}

/// One `/tp` coordinate; `centre` puts whole numbers at the block's centre
/// (vanilla does so for x and z).
pub fn parse_coordinate(word: &str, centre: bool) -> Result<Coordinate, CommandError> {
    if word.starts_with('^') {
        return Err(CommandError::LocalCoordinate {
            found: word.to_owned(),
        });
    }
    let bad = || CommandError::BadCoordinate {
        found: word.to_owned(),
    };
    // Only plain decimal numbers: no `inf`, `NaN` or exponents.
    let number = |text: &str| parse_plain_number(text).ok_or_else(bad);
    if let Some(offset) = word.strip_prefix('~') {
        let offset = if offset.is_empty() {
            0.0
        } else {
            number(offset)?
        };
        return Ok(Coordinate::Relative(offset));
    }
    let value = number(word)?;
    let whole = !word.contains('.');
    Ok(Coordinate::Absolute(if centre && whole {
        value + 0.5
    } else {
        value
    }))
}

/// Which admin commands the tree offers a player (vanilla only sends the
/// commands a player may run).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SentCommandTree {
    /// `/gamemode` is in the tree.
    pub gamemode: bool,
    /// `/tp` and `/teleport` are in the tree.
    pub teleport: bool,
}

/// Builds a command tree node by node.
#[derive(Default)]
struct TreeBuilder {
    nodes: Vec<Node<'static>>,
}

impl TreeBuilder {
    fn add(&mut self, parent: Option<usize>, data: NodeData<'static>, executable: bool) -> usize {
        let index = self.nodes.len();
        self.nodes.push(Node {
            children: Vec::new(),
            data,
            executable,
            redirect_node: None,
        });
        if let Some(parent) = parent {
            self.nodes[parent].children.push(VarInt(index as i32));
        }
        index
    }

    fn literal(&mut self, parent: usize, name: &'static str, executable: bool) -> usize {
        self.add(Some(parent), NodeData::Literal { name }, executable)
    }

    fn argument(
        &mut self,
        parent: usize,
        name: &'static str,
        parser: Parser<'static>,
        ask_server: bool,
    ) -> usize {
        let suggestion = ask_server.then_some(Suggestion::AskServer);
        self.add(
            Some(parent),
            NodeData::Argument {
                name,
                parser,
                suggestion,
            },
            true,
        )
    }

    fn alias(&mut self, parent: usize, name: &'static str, target: usize) {
        let alias = self.literal(parent, name, false);
        self.nodes[alias].redirect_node = Some(VarInt(target as i32));
    }
}

fn command_tree(admin: SentCommandTree) -> CommandTreeS2c<'static> {
    let word = || Parser::String(StringArg::SingleWord);
    let mut t = TreeBuilder::default();
    let root = t.add(None, NodeData::Root, false);

    let emote = t.literal(root, "emote", false);
    let play = t.literal(emote, "play", false);
    let play_id = t.argument(play, "emote", Parser::ResourceLocation, true);
    t.argument(play_id, "player", word(), true);
    let stop = t.literal(emote, "stop", true);
    t.argument(stop, "player", word(), true);
    let list = t.literal(emote, "list", true);
    let page = Parser::Integer {
        min: Some(1),
        max: None,
    };
    t.argument(list, "page", page, false);
    let info = t.literal(emote, "info", false);
    t.argument(info, "emote", Parser::ResourceLocation, true);
    t.literal(emote, "reload", true);
    t.alias(root, "e", emote);

    if admin.gamemode {
        let gamemode = t.literal(root, "gamemode", false);
        let mode = t.argument(gamemode, "gamemode", Parser::GameMode, false);
        t.argument(mode, "player", word(), true);
    }
    if admin.teleport {
        let tp = t.literal(root, "tp", false);
        t.argument(tp, "location", Parser::Vec3, false);
        let target = t.argument(tp, "player", word(), true);
        t.argument(target, "location", Parser::Vec3, false);
        t.argument(target, "destination", word(), true);
        t.alias(root, "teleport", tp);
    }
    CommandTreeS2c {
        commands: t.nodes,
        root_index: VarInt(root as i32),
    }
}

/// Marks a player whose operator level comes from `permissions.operators`,
/// so that a reload removing the name takes the level back (and only then).
#[derive(Component, Clone, Copy, Debug)]
pub struct ListedOperator;

/// Gives the players named in `permissions.operators` operator level 3 when
/// they join and whenever the configuration changes; a player dropped from
/// the list goes back to level 0.
#[allow(clippy::type_complexity)]
fn apply_operator_list(
    mut commands: Commands,
    config: Res<Config>,
    mut players: Query<(
        Entity,
        Ref<Client>,
        &Username,
        &UniqueId,
        &mut OpLevel,
        Option<&ListedOperator>,
    )>,
) {
    let everyone = config.is_changed();
    for (entity, client, name, uuid, mut level, listed_before) in &mut players {
        if !everyone && !client.is_added() {
            continue;
        }
        let identity = PlayerIdentity {
            name: &name.0,
            uuid: uuid.0,
        };
        let listed = identity.is_listed(&config.permissions.operators);
        match (listed, listed_before.is_some()) {
            (true, false) => {
                if level.get() < LISTED_OPERATOR_LEVEL {
                    level.set(LISTED_OPERATOR_LEVEL);
                }
                commands.entity(entity).insert(ListedOperator);
            }
            (false, true) => {
                level.set(0);
                commands.entity(entity).remove::<ListedOperator>();
            }
            _ => {}
        }
    }
}

/// Sends each player the tree of the commands they may run: at join, and
/// again when their operator level or the configuration changes it.
#[allow(clippy::type_complexity)]
fn send_command_trees(
    mut commands: Commands,
    config: Res<Config>,
    mut clients: Query<(
        Entity,
        &mut Client,
        &Username,
        &UniqueId,
        Option<Ref<OpLevel>>,
        Option<&SentCommandTree>,
    )>,
) {
    let config_changed = config.is_changed();
    let config: &Config = &config;
    for (entity, mut client, name, uuid, op, sent) in &mut clients {
        let op_changed = op.as_ref().is_some_and(|o| o.is_changed());
        if sent.is_some() && !config_changed && !op_changed {
            continue;
        }
        let level = op.map_or(0, |o| o.get());
        let identity = PlayerIdentity {
            name: &name.0,
            uuid: uuid.0,
        };
        let perms = PlayerPermissions::resolve(&config.permissions, identity, level);
        let tree = SentCommandTree {
            gamemode: perms.has(GAMEMODE),
            teleport: perms.has(TELEPORT),
        };
        if sent != Some(&tree) {
            client.write_packet(&command_tree(tree));
            commands.entity(entity).insert(tree);
        }
    }
}

/// A rate: so many per second on average, `burst` at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimit {
    /// Average per second; 0 (or less) means no limit.
    pub per_second: f64,
    /// How many may come at once.
    pub burst: u32,
}

impl RateLimit {
    /// The command limit of `[commands]`.
    pub fn commands(section: &CommandsSection) -> Self {
        Self {
            per_second: section.rate_per_second,
            burst: section.burst,
        }
    }

    /// The tab-completion limit of `[commands]`.
    pub fn completions(section: &CommandsSection) -> Self {
        Self {
            per_second: section.completions_per_second,
            burst: section.completion_burst,
        }
    }

    /// governor's quota; `None` when there is no limit.
    fn quota(self) -> Option<Quota> {
        if !self.per_second.is_finite() || self.per_second <= 0.0 {
            return None;
        }
        let period = Duration::from_secs_f64(1.0 / self.per_second);
        let burst = NonZeroU32::new(self.burst.max(1))?;
        Quota::with_period(period).map(|q| q.allow_burst(burst))
    }
}

/// One token bucket (a GCRA rate limiter) and the limit it was made for.
pub struct Bucket<C: Clock = DefaultClock> {
    limit: RateLimit,
    clock: C,
    limiter: Option<RateLimiter<NotKeyed, InMemoryState, C, NoOpMiddleware<C::Instant>>>,
}

impl<C: Clock + Clone> Bucket<C> {
    /// A full bucket for `limit`, timed by `clock`.
    pub fn new(limit: RateLimit, clock: C) -> Self {
        let limiter = limit
            .quota()
            .map(|q| RateLimiter::direct_with_clock(q, clock.clone()));
        Self {
            limit,
            clock,
            limiter,
        }
    }

    /// The limit this bucket enforces.
    pub fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Takes one token, or says how long until one is there.
    pub fn take(&self) -> Result<(), Duration> {
        match &self.limiter {
            None => Ok(()),
            Some(limiter) => limiter
                .check()
                .map_err(|not_until| not_until.wait_time_from(self.clock.now())),
        }
    }
}

/// One player's buckets.
struct PlayerBuckets {
    commands: Bucket,
    completions: Bucket,
}

/// Every online player's command and completion rate limits. A bucket is
/// made on the player's first request and made again (full) when a reload
/// changes its limit; it is forgotten when the player leaves.
#[derive(Resource, Default)]
pub struct CommandRateLimits {
    players: HashMap<Entity, PlayerBuckets>,
}

impl CommandRateLimits {
    fn buckets(&mut self, player: Entity, section: &CommandsSection) -> &mut PlayerBuckets {
        let commands = RateLimit::commands(section);
        let completions = RateLimit::completions(section);
        let buckets = self.players.entry(player).or_insert_with(|| PlayerBuckets {
            commands: Bucket::new(commands, DefaultClock::default()),
            completions: Bucket::new(completions, DefaultClock::default()),
        });
        if buckets.commands.limit() != commands {
            buckets.commands = Bucket::new(commands, DefaultClock::default());
        }
        if buckets.completions.limit() != completions {
            buckets.completions = Bucket::new(completions, DefaultClock::default());
        }
        buckets
    }
}

fn forget_rate_limits_of_leavers(
    mut removed: RemovedComponents<Client>,
    mut limits: ResMut<CommandRateLimits>,
) {
    for entity in removed.iter() {
        limits.players.remove(&entity);
    }
}

/// The "Slow down" message for a player over the command limit.
pub fn slow_down_message(limit: RateLimit, wait: Duration) -> String {
    format!(
        "Slow down: you may run {} commands a second ({} at once). Try again in {:.1} s.",
        limit.per_second,
        limit.burst,
        wait.as_secs_f64().max(0.1)
    )
}

fn needs(node: &str, action: &str) -> Text {
    format!("{action} needs operator permission (operator level 2 or the node {node}).")
        .color(Color::RED)
}

/// The players' query of the command handler.
type Players<'w, 's> = Query<
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
fn find_player(players: &Players, name: &str) -> Option<Entity> {
    players
        .iter()
        .find(|(_, _, u, ..)| u.0.eq_ignore_ascii_case(name))
        .map(|(e, ..)| e)
}

fn no_such_player(name: &str) -> Text {
    format!("No player named `{name}` is online.").color(Color::RED)
}

#[allow(clippy::too_many_arguments)]
fn handle_commands(
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
fn is_standalone(file: &EmoteFile) -> bool {
    match file {
        EmoteFile::Animation(a) => a.settings.standalone,
        EmoteFile::Sequence(_) => true,
    }
}

#[allow(clippy::too_many_arguments)]
fn run_emote(
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

fn run_gamemode(
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

fn run_teleport(
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

fn list_page(library: &Library, page: usize, perms: &PlayerPermissions) -> Text {
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

fn info(library: &Library, id: &str, perms: &PlayerPermissions) -> Text {
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
        ["emote" | "e"] => ["play", "stop", "list", "info", "reload"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        ["emote" | "e", "play" | "info"] => library
            .iter()
            .filter(|(id, e)| perms.may_play(id.as_str(), is_standalone(&e.file)).is_ok())
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

fn answer_completions(
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
        let bucket = &limits.buckets(packet.client, &config.commands).completions;
        if bucket.take().is_err() {
            continue;
        }
        let players: Vec<&str> = names.iter().map(|u| u.0.as_str()).collect();
        let Ok((mut client, username, uuid, op)) = clients.get_mut(packet.client) else {
            continue;
        };
        let identity = PlayerIdentity {
            name: &username.0,
            uuid: uuid.0,
        };
        let perms =
            PlayerPermissions::resolve(&config.permissions, identity, op.map_or(0, |o| o.get()));
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use governor::clock::FakeRelativeClock;

    use super::*;

    /// A player known by name only (UUID nil), for the name-list rules.
    fn named(name: &str) -> PlayerIdentity<'_> {
        PlayerIdentity {
            name,
            uuid: Uuid::nil(),
        }
    }
    use crate::server::config::PermissionsSection;

    fn emote(line: &str) -> Result<EmoteCommand, CommandError> {
        match parse_command(line)? {
            Command::Emote(c) => Ok(c),
            other => panic!("{line}: not an emote command: {other:?}"),
        }
    }

    #[test]
    fn parses_every_emote_subcommand() {
        assert_eq!(
            emote("emote play example:wave"),
            Ok(EmoteCommand::Play {
                id: "example:wave".into(),
                target: None
            })
        );
        assert_eq!(
            emote("e play example:wave Steve"),
            Ok(EmoteCommand::Play {
                id: "example:wave".into(),
                target: Some("Steve".into())
            })
        );
        assert_eq!(emote("emote stop"), Ok(EmoteCommand::Stop { target: None }));
        assert_eq!(emote("emote list"), Ok(EmoteCommand::List { page: 1 }));
        assert_eq!(emote("emote list 3"), Ok(EmoteCommand::List { page: 3 }));
        assert_eq!(
            emote("emote info a:b"),
            Ok(EmoteCommand::Info { id: "a:b".into() })
        );
        assert_eq!(emote("emote reload"), Ok(EmoteCommand::Reload));
    }

    #[test]
    fn parses_gamemode() {
        assert_eq!(
            parse_command("gamemode creative"),
            Ok(Command::GameMode {
                mode: GameMode::Creative,
                target: None
            })
        );
        assert_eq!(
            parse_command("gamemode Spectator Alex"),
            Ok(Command::GameMode {
                mode: GameMode::Spectator,
                target: Some("Alex".into())
            })
        );
        for mode in [
            GameMode::Survival,
            GameMode::Creative,
            GameMode::Adventure,
            GameMode::Spectator,
        ] {
            assert_eq!(parse_game_mode(game_mode_name(mode)), Some(mode));
        }
    }

    #[test]
    fn parses_teleport() {
        use Coordinate::{Absolute, Relative};
        assert_eq!(
            parse_command("tp 3 65 3"),
            Ok(Command::Teleport(TeleportCommand::ToPosition {
                target: None,
                position: [Absolute(3.5), Absolute(65.0), Absolute(3.5)]
            })),
            "whole x and z point at the block centre, y stays"
        );
        assert_eq!(
            parse_command("teleport Alex ~ ~2.5 -0.25"),
            Ok(Command::Teleport(TeleportCommand::ToPosition {
                target: Some("Alex".into()),
                position: [Relative(0.0), Relative(2.5), Absolute(-0.25)]
            }))
        );
        assert_eq!(
            parse_command("tp ~-1 ~ ~+1"),
            Ok(Command::Teleport(TeleportCommand::ToPosition {
                target: None,
                position: [Relative(-1.0), Relative(0.0), Relative(1.0)]
            }))
        );
        assert_eq!(
            parse_command("tp Alex"),
            Ok(Command::Teleport(TeleportCommand::ToPlayer {
                target: None,
                destination: "Alex".into()
            }))
        );
        assert_eq!(
            parse_command("tp Alex Steve"),
            Ok(Command::Teleport(TeleportCommand::ToPlayer {
                target: Some("Alex".into()),
                destination: "Steve".into()
            }))
        );
        assert_eq!(Relative(2.0).resolve(64.0), 66.0);
        assert_eq!(Absolute(2.0).resolve(64.0), 2.0);
    }

    #[test]
    fn malformed_commands_say_what_is_wrong() {
        for (line, needle) in [
            ("", "Type a command"),
            ("   ", "Type a command"),
            ("fly", "Unknown command `/fly`"),
            ("emote", "Usage: /emote"),
            ("emote dance", "Unknown subcommand `dance`"),
            ("emote play", "Missing emote id"),
            ("emote play a:b c d", "Too many arguments"),
            ("emote stop a b", "Too many arguments"),
            ("emote list zero", "not a page number"),
            ("emote list 0", "not a page number"),
            ("emote list -1", "not a page number"),
            ("emote list 99999999999999999999999", "not a page number"),
            ("emote list 1 2", "Too many arguments"),
            ("emote info", "Missing emote id"),
            ("emote info a:b c", "Too many arguments"),
            ("emote reload now", "Too many arguments"),
            ("gamemode", "Missing game mode"),
            ("gamemode flying", "`flying` is not a game mode"),
            ("gamemode 1", "`1` is not a game mode"),
            ("gamemode creative Alex Steve", "Too many arguments"),
            ("tp", "Missing destination"),
            ("tp 3 65", "Missing z coordinate"),
            ("tp ~ ~", "Missing z coordinate"),
            ("tp 1 2 x", "`x` is not a coordinate"),
            ("tp 1 2 3 4 5", "Too many arguments"),
            ("tp Alex 1 2 3 4", "Too many arguments"),
            ("tp NaN 1 2", "`NaN` is not a coordinate"),
            ("tp inf 1 2", "`inf` is not a coordinate"),
            ("tp 1e400 1 2", "`1e400` is not a coordinate"),
            ("tp 1 ~x 2", "`~x` is not a coordinate"),
            ("tp 1 ~~ 2", "`~~` is not a coordinate"),
            ("tp 1 - 2", "`-` is not a coordinate"),
            ("tp 1.2.3 1 2", "`1.2.3` is not a coordinate"),
            ("tp ^ ^ ^1", "Local coordinates"),
            ("tp Alex 1 2 ^", "Local coordinates"),
        ] {
            let err = parse_command(line).expect_err(line).to_string();
            assert!(err.contains(needle), "{line:?}: {err}");
        }
    }

    proptest::proptest! {
        #[test]
        fn parsing_never_panics(line in "\\PC{0,64}") {
            let _ = parse_command(&line);
        }

        #[test]
        fn teleport_parsing_never_panics(
            words in proptest::collection::vec("[~^0-9.+eE-]{0,6}|[a-z]{1,4}", 0..6)
        ) {
            let _ = parse_command(&format!("tp {}", words.join(" ")));
        }
    }

    #[test]
    fn rate_limits_allow_a_burst_then_the_rate() {
        let clock = FakeRelativeClock::default();
        let limit = RateLimit {
            per_second: 5.0,
            burst: 3,
        };
        let bucket = Bucket::new(limit, clock.clone());
        for i in 0..3 {
            assert_eq!(bucket.take(), Ok(()), "burst token {i}");
        }
        let wait = bucket.take().expect_err("the burst is spent");
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_millis(200),
            "{wait:?}"
        );
        clock.advance(Duration::from_millis(200));
        assert_eq!(bucket.take(), Ok(()), "one token per 200 ms");
        assert!(bucket.take().is_err());
        clock.advance(Duration::from_secs(10));
        for _ in 0..3 {
            assert_eq!(bucket.take(), Ok(()), "the bucket refills to the burst");
        }
        assert!(bucket.take().is_err(), "but no further");

        let message = slow_down_message(limit, wait);
        assert!(message.starts_with("Slow down:"), "{message}");
    }

    #[test]
    fn a_zero_rate_means_no_limit() {
        let bucket = Bucket::new(
            RateLimit {
                per_second: 0.0,
                burst: 1,
            },
            FakeRelativeClock::default(),
        );
        for _ in 0..1000 {
            assert_eq!(bucket.take(), Ok(()));
        }
    }

    #[test]
    fn the_configured_limits_are_used_and_replaced_on_reload() {
        let mut limits = CommandRateLimits::default();
        let player = Entity::from_raw(7);
        let mut section = CommandsSection {
            burst: 2,
            ..CommandsSection::default()
        };
        let buckets = limits.buckets(player, &section);
        assert!(buckets.commands.take().is_ok() && buckets.commands.take().is_ok());
        assert!(buckets.commands.take().is_err());
        assert!(buckets.completions.take().is_ok(), "a separate bucket");
        section.burst = 4;
        let buckets = limits.buckets(player, &section);
        assert_eq!(buckets.commands.limit().burst, 4);
        assert!(
            buckets.commands.take().is_ok(),
            "a new limit, a full bucket"
        );
    }

    fn bundled_library() -> Library {
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
        Library::load(&[root]).library
    }

    #[test]
    fn suggestions_complete_the_last_word() {
        let rules = PermissionsSection::default();
        let player = PlayerPermissions::resolve(&rules, named("Steve"), 0);
        let op = PlayerPermissions::resolve(&rules, named("Admin"), 2);
        let library = Library::default();
        let (start, m) = suggest("/emote pl", &library, &[], &player);
        assert_eq!((start, m), (7, vec!["play".to_owned()]));
        let (start, m) = suggest("/emote ", &library, &[], &player);
        assert_eq!(start, 7);
        assert_eq!(m.len(), 5);
        let (_, m) = suggest("/emote play x:y ", &library, &["Alex"], &player);
        assert!(m.is_empty(), "players are only suggested to managers");
        let (start, m) = suggest("/emote play x:y A", &library, &["Alex", "Bob"], &op);
        assert_eq!((start, m), (16, vec!["Alex".to_owned()]));
        let (_, m) = suggest("/gamemode creative ", &library, &["Alex"], &player);
        assert!(m.is_empty(), "no /gamemode for players");
        let (_, m) = suggest("/gamemode creative ", &library, &["Alex"], &op);
        assert_eq!(m, ["Alex"]);
        let (_, m) = suggest("/tp B", &library, &["Alex", "Bob"], &op);
        assert_eq!(m, ["Bob"]);
        let (_, m) = suggest("/tp ~ ", &library, &["Alex"], &op);
        assert!(m.is_empty(), "after a coordinate come coordinates");
        let (_, m) = suggest("/tp Alex ", &library, &["Alex", "Bob"], &op);
        assert_eq!(m.len(), 2);
        let (_, m) = suggest("/tp ", &library, &["Alex"], &player);
        assert!(m.is_empty());
    }

    #[test]
    fn suggestions_and_the_list_only_offer_what_the_player_may_play() {
        let library = bundled_library();
        assert!(library.get("example:guitar").is_some(), "bundled emotes");
        let rules: PermissionsSection = toml::from_str(
            r#"
            [groups.vip]
            players = ["Vip"]
            nodes = ["emote.play.vip"]
            [[emote_groups]]
            emotes = ["example:gui*"]
            node = "emote.play.vip"
            "#,
        )
        .expect("rules");
        let steve = PlayerPermissions::resolve(&rules, named("Steve"), 0);
        let vip = PlayerPermissions::resolve(&rules, named("Vip"), 0);
        let op = PlayerPermissions::resolve(&rules, named("Admin"), 2);

        let (_, m) = suggest("/emote play ", &library, &[], &steve);
        assert!(!m.iter().any(|id| id == "example:guitar"), "{m:?}");
        assert!(
            !m.iter().any(|id| id == "example:sit_down"),
            "non-standalone"
        );
        assert!(m.iter().any(|id| id == "example:heart"), "{m:?}");
        let (_, m) = suggest("/emote play example:gu", &library, &[], &vip);
        assert_eq!(m, ["example:guitar"]);
        let (_, m) = suggest("/emote play ", &library, &[], &op);
        assert_eq!(m.len(), library.len(), "operators may play everything");

        let list = |perms: &PlayerPermissions| {
            (1..=5)
                .map(|page| list_page(&library, page, perms).to_string())
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert!(!list(&steve).contains("example:guitar"));
        assert!(list(&vip).contains("example:guitar"));
        assert!(list(&op).contains("example:sit_down"));
        let guitar = info(&library, "example:guitar", &steve).to_string();
        assert!(guitar.contains("emote.play.vip"), "{guitar}");
    }

    #[test]
    fn the_tree_encodes_with_and_without_admin_commands() {
        use valence::protocol::Encode;
        let mut sizes = Vec::new();
        for (gamemode, teleport) in [(false, false), (true, false), (true, true)] {
            let tree = command_tree(SentCommandTree { gamemode, teleport });
            for node in &tree.commands {
                for child in &node.children {
                    assert!((child.0 as usize) < tree.commands.len());
                }
            }
            let mut buf = Vec::new();
            tree.encode(&mut buf).expect("encodes");
            sizes.push(buf.len());
        }
        assert!(sizes[0] > 20 && sizes[0] < sizes[1] && sizes[1] < sizes[2]);
    }
}
