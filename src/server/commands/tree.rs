//! The command tree each player is sent (only what they may run), and
//! operator levels from `permissions.operators`.

use valence::op_level::OpLevel;
use valence::prelude::*;
use valence::protocol::packets::play::command_tree_s2c::{
    Node, NodeData, Parser, StringArg, Suggestion,
};
use valence::protocol::packets::play::CommandTreeS2c;
use valence::protocol::{VarInt, WritePacket};

use crate::server::config::Config;
use crate::server::permissions::{PlayerIdentity, PlayerPermissions, GAMEMODE, TELEPORT};

/// Operator level given to the players named in `permissions.operators`.
pub const LISTED_OPERATOR_LEVEL: u8 = 3;

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
pub(super) struct TreeBuilder {
    pub(super) nodes: Vec<Node<'static>>,
}

impl TreeBuilder {
    pub(super) fn add(
        &mut self,
        parent: Option<usize>,
        data: NodeData<'static>,
        executable: bool,
    ) -> usize {
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

    pub(super) fn literal(&mut self, parent: usize, name: &'static str, executable: bool) -> usize {
        self.add(Some(parent), NodeData::Literal { name }, executable)
    }

    pub(super) fn argument(
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

    pub(super) fn alias(&mut self, parent: usize, name: &'static str, target: usize) {
        let alias = self.literal(parent, name, false);
        self.nodes[alias].redirect_node = Some(VarInt(target as i32));
    }
}

pub(super) fn command_tree(admin: SentCommandTree) -> CommandTreeS2c<'static> {
    // `/gamemode` and `/tp` take players by name or selector
    // (`@a[distance=..5]`): declared as vanilla declares them, so a vanilla
    // client colours a selector as valid.
    let players = || Parser::Entity {
        single: false,
        only_players: true,
    };
    let one_player = || Parser::Entity {
        single: true,
        only_players: true,
    };
    let mut t = TreeBuilder::default();
    let root = t.add(None, NodeData::Root, false);

    let emote = t.literal(root, "emote", true);
    let play = t.literal(emote, "play", false);
    let play_id = t.argument(play, "emote", Parser::ResourceLocation, true);
    // `/emote play` and `/emote stop` take a player's name only.
    let word = || Parser::String(StringArg::SingleWord);
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
    let parts = t.literal(emote, "parts", true);
    t.literal(parts, "on", true);
    t.literal(parts, "off", true);
    let camera = t.literal(emote, "camera", true);
    t.literal(camera, "on", true);
    t.literal(camera, "off", true);
    t.literal(emote, "reload", true);
    t.alias(root, "e", emote);
    t.literal(root, "emotes", true);

    if admin.gamemode {
        let gamemode = t.literal(root, "gamemode", false);
        let mode = t.argument(gamemode, "gamemode", Parser::GameMode, false);
        t.argument(mode, "targets", players(), true);
    }
    if admin.teleport {
        let tp = t.literal(root, "tp", false);
        t.argument(tp, "location", Parser::Vec3, false);
        let target = t.argument(tp, "targets", players(), true);
        t.argument(target, "location", Parser::Vec3, false);
        t.argument(target, "destination", one_player(), true);
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
pub(super) fn apply_operator_list(
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
pub(super) fn send_command_trees(
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
