//! Running parsed commands against the world: the `Dispatcher` system
//! parameter, the per-playback command cap of a tick, `function` nesting,
//! and the warnings a failed command leaves in the log (each once).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use valence::entity::display::GlowColorOverride;
use valence::entity::entity::Flags;
use valence::entity::EntityKind;
use valence::ident::Ident;
use valence::op_level::OpLevel;
use valence::prelude::bevy_ecs::system::SystemParam;
use valence::prelude::*;
use valence::protocol::packets::play::StopSoundS2c;

mod effects;

use effects::HeardSounds;

use super::functions::{EmoteFunctions, FunctionState};
use super::parse::*;
use crate::server::config::Config;
use crate::server::events::{
    ActionBarShownEvent, CommandSource, EmoteCommandEvent, EmoteDisplay, EndReason,
    PlayEmoteRequest, SetParameterRequest, StopEmoteRequest,
};
use crate::server::framed::FramedPacket;
use crate::server::syntax::selector::{
    Candidate, SelectContext, Selector, SelectorBase, SelectorRng,
};
use crate::server::syntax::{CommandError, Destination, Facing};

/// How deep `function` calls may nest (a function calling itself stops here).
pub const MAX_FUNCTION_DEPTH: u32 = 16;

/// Operator level a player (or a node's player) needs for `emote play/stop`
/// on other players from an event: vanilla's game-master level, the level
/// at which a player may do the same by typing the command.
pub const MANAGE_OP_LEVEL: u8 = 2;

/// Distinct run-time warnings remembered, so each is logged once.
pub(super) const MAX_REPORTED: usize = 4096;

/// Why a parsed command could not run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RunError {
    /// A command that acts on "the source player" ran from the server.
    #[error("`{command}` without a target needs a player source; the server has no player (name a target)")]
    NoSourcePlayer {
        /// The command name.
        command: &'static str,
    },
    /// `tp` selected display entities.
    #[error("display entities are not teleported: they stay where their emote placed them (`tp` moves players only)")]
    TeleportDisplay,
    /// `tp <targets> <entity>` found no destination.
    #[error("no entity matched the destination `{0}`")]
    NoDestination(String),
    /// `emote play/stop` on other players without permission.
    #[error("only operators (level {level}) may play or stop emotes on other players; this event's player is not one")]
    EmotePermission {
        /// The level needed.
        level: u8,
    },
    /// `function` named a function that is not loaded.
    #[error("unknown function `{0}`: no datapack has data/<namespace>/functions/<path>.mcfunction for it")]
    UnknownFunction(String),
    /// `function` named a function whose file was refused at load.
    #[error("function `{0}` was refused when it was loaded (see the earlier warnings)")]
    RefusedFunction(String),
    /// Too deep a chain of `function` calls.
    #[error("function `{0}` nests deeper than {MAX_FUNCTION_DEPTH} calls; stopped there")]
    TooDeep(String),
    /// No world to show particles in.
    #[error("there is no world (chunk layer) to show the particle in")]
    NoWorld,
    /// The playback's commands for this tick are used up.
    #[error("the playback ran all the commands it may run this tick")]
    OverBudget,
}

/// How many more commands the event being run may run this tick.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CommandBudget {
    /// `None`: no cap (no playback behind the event).
    left: Option<u32>,
    /// A command was refused for want of budget.
    exhausted: bool,
}

impl CommandBudget {
    /// Takes one command; false when none is left.
    pub(super) fn take(&mut self) -> bool {
        match &mut self.left {
            None => true,
            Some(0) => {
                self.exhausted = true;
                false
            }
            Some(n) => {
                *n -= 1;
                true
            }
        }
    }
}

/// Run-time warnings already logged, so each is logged once.
#[derive(Resource, Default)]
pub(super) struct ReportedCommands(HashSet<String>);

impl ReportedCommands {
    pub(super) fn warn(&mut self, command: &str, message: &str) {
        if self.0.len() >= MAX_REPORTED {
            self.0.clear();
        }
        if self.0.insert(format!("{command}\u{0}{message}")) {
            tracing::warn!("emote command `{command}` failed: {message}");
        }
    }
}

/// Event command texts parsed before (cleared when it grows large).
#[derive(Resource, Default)]
pub(super) struct ParseCache(HashMap<String, Result<Arc<ParsedCommand>, CommandError>>);

/// The random numbers for `@r` and `sort=random`.
#[derive(Resource)]
pub(super) struct DispatchRng(pub(super) SelectorRng);

/// Who runs a command and from where, while it runs.
#[derive(Clone, Debug)]
pub(super) struct Context<'a> {
    source: &'a CommandSource,
    origin: DVec3,
    /// `function` nesting.
    depth: u32,
}

pub(super) type PlayerData = (
    Entity,
    &'static mut Client,
    &'static Username,
    &'static mut Position,
    &'static mut Look,
    &'static mut GameMode,
    &'static VisibleChunkLayer,
    Option<&'static OpLevel>,
);

pub(super) type DisplayData = (
    Entity,
    &'static Position,
    &'static EntityKind,
    &'static EntityLayerId,
    &'static EmoteDisplay,
    &'static mut Flags,
    &'static mut GlowColorOverride,
);

/// Everything a command may read or change.
#[derive(SystemParam)]
pub(super) struct Dispatcher<'w, 's> {
    players: Query<'w, 's, PlayerData, With<Client>>,
    displays: Query<'w, 's, DisplayData, Without<Client>>,
    layers: Query<'w, 's, (Entity, &'static mut ChunkLayer)>,
    play: EventWriter<'w, PlayEmoteRequest>,
    stop: EventWriter<'w, StopEmoteRequest>,
    set: EventWriter<'w, SetParameterRequest>,
    action_bars: EventWriter<'w, ActionBarShownEvent>,
    functions: Res<'w, EmoteFunctions>,
    reported: ResMut<'w, ReportedCommands>,
    cache: ResMut<'w, ParseCache>,
    rng: ResMut<'w, DispatchRng>,
    budget: Local<'s, CommandBudget>,
    server: Res<'w, Server>,
    candidates: Local<'s, CandidateCache>,
    heard: Local<'s, HeardSounds>,
}

/// The entities selectors choose from, built once for the commands of a
/// tick (1,000 players are 1,000 names copied) and again after a command
/// that moves players or changes their game mode.
#[derive(Default)]
pub(super) struct CandidateCache {
    players: Option<Vec<Candidate>>,
    everyone: Option<Vec<Candidate>>,
}

impl CandidateCache {
    /// Forgets what was built: players moved or changed.
    fn clear(&mut self) {
        self.players = None;
        self.everyone = None;
    }
}

pub(super) fn run_emote_commands(
    mut events: EventReader<EmoteCommandEvent>,
    mut dispatcher: Dispatcher,
    config: Res<Config>,
) {
    let cap = config.emotes.max_commands_per_tick;
    dispatcher.candidates.clear();
    // Commands each playback may still run this tick; playbacks stopped for
    // the cap.
    let mut left: HashMap<Entity, u32> = HashMap::new();
    let mut stopped: HashSet<Entity> = HashSet::new();
    for event in events.iter() {
        if event
            .playback
            .is_some_and(|player| stopped.contains(&player))
        {
            continue;
        }
        *dispatcher.budget = CommandBudget {
            left: event
                .playback
                .map(|player| *left.entry(player).or_insert(cap)),
            exhausted: false,
        };
        let parsed = dispatcher.parse_cached(&event.command);
        let context = Context {
            source: &event.source,
            origin: event.origin,
            depth: 0,
        };
        match parsed {
            Ok(command) => dispatcher.run_reporting(&event.command, &command, &context),
            Err(e) => dispatcher.reported.warn(&event.command, &e.to_string()),
        }
        let (Some(player), Some(remaining)) = (event.playback, dispatcher.budget.left) else {
            continue;
        };
        left.insert(player, remaining);
        if dispatcher.budget.exhausted {
            stopped.insert(player);
            dispatcher.stop.send(StopEmoteRequest {
                client: player,
                reason: EndReason::Failed(format!(
                    "its events ran more than {cap} commands in one tick \
                     (emotes.max_commands_per_tick)"
                )),
            });
        }
    }
    dispatcher.deliver_heard();
}

/// The players (and, unless `only_players`, the displays) a selector
/// chooses from.
fn candidates(
    players: &Query<PlayerData, With<Client>>,
    displays: &Query<DisplayData, Without<Client>>,
    only_players: bool,
) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = players
        .iter()
        .map(|(entity, _, name, position, _, mode, ..)| {
            Candidate::player(entity, &name.0, position.0, *mode)
        })
        .collect();
    if !only_players {
        out.extend(
            displays
                .iter()
                .map(|(entity, position, kind, ..)| Candidate {
                    entity,
                    kind: *kind,
                    name: None,
                    position: position.0,
                    game_mode: None,
                }),
        );
    }
    out
}

impl Dispatcher<'_, '_> {
    pub(super) fn parse_cached(&mut self, text: &str) -> Result<Arc<ParsedCommand>, CommandError> {
        if let Some(hit) = self.cache.0.get(text) {
            return hit.clone();
        }
        if self.cache.0.len() >= MAX_REPORTED {
            self.cache.0.clear();
        }
        let parsed = parse_event_command(text).map(Arc::new);
        self.cache.0.insert(text.to_owned(), parsed.clone());
        parsed
    }

    pub(super) fn run_reporting(&mut self, text: &str, command: &ParsedCommand, context: &Context) {
        match self.run(command, context) {
            // The playback is stopped for it, with its own message.
            Ok(()) | Err(RunError::OverBudget) => {}
            Err(e) => self.reported.warn(text, &e.to_string()),
        }
    }

    /// The facing commands run with: a player source's look, else yaw 0 pitch 0.
    pub(super) fn facing(&self, source: &CommandSource) -> Facing {
        match source {
            CommandSource::Player(e) => self
                .players
                .get(*e)
                .map(|p| Facing::from(p.4))
                .unwrap_or_default(),
            _ => Facing::default(),
        }
    }

    /// The player acting for `emote play/stop`: the player, or a node's owner.
    pub(super) fn acting_player(&self, source: &CommandSource) -> Option<Entity> {
        match source {
            CommandSource::Player(e) => Some(*e),
            CommandSource::Node { entity, .. } => {
                self.displays.get(*entity).ok().map(|d| d.4.owner)
            }
            CommandSource::Server => None,
        }
    }

    pub(super) fn select(&mut self, selector: &Selector, context: &Context) -> Vec<Entity> {
        let only_players = selector.only_players();
        let cache = &mut *self.candidates;
        let slot = if only_players {
            &mut cache.players
        } else {
            &mut cache.everyone
        };
        let candidates =
            slot.get_or_insert_with(|| candidates(&self.players, &self.displays, only_players));
        let select_context = SelectContext {
            source: context.source.entity(),
            origin: context.origin,
        };
        selector.select(&select_context, candidates, &mut self.rng.0)
    }

    /// The players among the selected entities.
    pub(super) fn select_players(&mut self, selector: &Selector, context: &Context) -> Vec<Entity> {
        let mut picked = self.select(selector, context);
        picked.retain(|e| self.players.contains(*e));
        picked
    }

    pub(super) fn run(
        &mut self,
        command: &ParsedCommand,
        context: &Context,
    ) -> Result<(), RunError> {
        if !self.budget.take() {
            return Err(RunError::OverBudget);
        }
        // Batched sounds are heard before anything else changes.
        if !effects::keeps_sounds_pending(command) {
            self.deliver_heard();
        }
        match command {
            ParsedCommand::Say(message) => {
                let name = match context.source {
                    CommandSource::Server => "Server".to_owned(),
                    CommandSource::Player(e) => self
                        .players
                        .get(*e)
                        .map_or_else(|_| "Player".to_owned(), |p| p.2 .0.clone()),
                    CommandSource::Node { id, .. } => id.clone(),
                };
                for mut player in &mut self.players {
                    player.1.send_chat_message(format!("[{name}] {message}"));
                }
            }
            ParsedCommand::Tellraw { targets, text } => {
                for target in self.select_players(targets, context) {
                    if let Ok(mut player) = self.players.get_mut(target) {
                        player.1.send_chat_message(text.clone());
                    }
                }
            }
            ParsedCommand::Title { targets, action } => {
                for target in self.select_players(targets, context) {
                    let Ok(mut player) = self.players.get_mut(target) else {
                        continue;
                    };
                    let client = &mut player.1;
                    match action {
                        TitleAction::Show(TitleKind::Title, text) => client.set_title(text.clone()),
                        TitleAction::Show(TitleKind::Subtitle, text) => {
                            client.set_subtitle(text.clone())
                        }
                        TitleAction::Show(TitleKind::ActionBar, text) => {
                            client.set_action_bar(text.clone());
                            self.action_bars
                                .send(ActionBarShownEvent { client: target });
                        }
                        TitleAction::Clear => client.clear_title(),
                        TitleAction::Reset => client.reset_title(),
                        TitleAction::Times {
                            fade_in,
                            stay,
                            fade_out,
                        } => client.set_title_times(*fade_in, *stay, *fade_out),
                    }
                }
            }
            ParsedCommand::MergeData {
                target,
                glowing,
                glow_color,
            } => {
                for entity in self.select(target, context) {
                    if let Ok(mut display) = self.displays.get_mut(entity) {
                        if let Some(on) = glowing {
                            let flags = &mut display.5 .0;
                            *flags = if *on { *flags | 0x40 } else { *flags & !0x40 };
                        }
                        if let Some(color) = glow_color {
                            display.6 .0 = *color;
                        }
                    }
                }
            }
            ParsedCommand::Particle(particle) => self.run_particle(particle, context)?,
            ParsedCommand::PlaySound(sound) => self.run_playsound(sound, context),
            ParsedCommand::StopSound {
                targets,
                category,
                sound,
            } => {
                let packet = StopSoundS2c {
                    source: *category,
                    sound: sound
                        .as_ref()
                        .map(|s| Ident::new_unchecked(s.as_str().into())),
                };
                let framed = FramedPacket::new(&self.server, &packet);
                for target in self.select_players(targets, context) {
                    if let Ok(mut player) = self.players.get_mut(target) {
                        framed.send_to(&mut player.1);
                    }
                }
            }
            ParsedCommand::Teleport {
                targets,
                destination,
            } => {
                self.run_teleport(targets, destination, context)?;
                self.candidates.clear();
            }
            ParsedCommand::GameMode { mode, targets } => {
                if targets.base == SelectorBase::Source
                    && !matches!(context.source, CommandSource::Player(_))
                    && targets.text == "@s"
                {
                    return Err(RunError::NoSourcePlayer {
                        command: "gamemode",
                    });
                }
                for target in self.select_players(targets, context) {
                    if let Ok(mut player) = self.players.get_mut(target) {
                        if *player.5 != *mode {
                            *player.5 = *mode;
                        }
                    }
                }
                self.candidates.clear();
            }
            ParsedCommand::Function(id) => self.run_function(id, context)?,
            ParsedCommand::EmotePlay { emote, target } => {
                for client in self.emote_targets(target.as_ref(), context, "emote play")? {
                    self.play.send(PlayEmoteRequest {
                        client,
                        emote: emote.clone(),
                        bypass: false,
                        cooldown_multiplier: 1.0,
                        quiet: false,
                    });
                }
            }
            ParsedCommand::EmoteStop { target } => {
                for client in self.emote_targets(target.as_ref(), context, "emote stop")? {
                    self.stop.send(StopEmoteRequest {
                        client,
                        reason: EndReason::StoppedByCommand,
                    });
                }
            }
            ParsedCommand::EmoteSet {
                parameter,
                value,
                target,
            } => {
                for client in self.emote_targets(target.as_ref(), context, "emote set")? {
                    self.set.send(SetParameterRequest {
                        client,
                        parameter: parameter.clone(),
                        value: *value,
                        typed: false,
                    });
                }
            }
        }
        Ok(())
    }

    pub(super) fn run_teleport(
        &mut self,
        targets: &Selector,
        destination: &Destination,
        context: &Context,
    ) -> Result<(), RunError> {
        if targets.text == "@s" && matches!(context.source, CommandSource::Server) {
            return Err(RunError::NoSourcePlayer { command: "tp" });
        }
        let facing = self.facing(context.source);
        let (position, look) = match destination {
            Destination::Position(coordinates, rotation) => (
                coordinates.resolve(context.origin, facing),
                rotation.map(|r| r.resolve(facing)),
            ),
            Destination::Entity(selector) => {
                let found = self.select(selector, context).into_iter().next();
                let Some(found) = found else {
                    return Err(RunError::NoDestination(selector.text.clone()));
                };
                if let Ok(p) = self.players.get(found) {
                    (p.3 .0, Some(Facing::from(p.4)))
                } else if let Ok(d) = self.displays.get(found) {
                    (d.1 .0, None)
                } else {
                    return Err(RunError::NoDestination(selector.text.clone()));
                }
            }
        };
        let mut moved_display = false;
        for target in self.select(targets, context) {
            if let Ok(mut player) = self.players.get_mut(target) {
                player.3 .0 = position;
                if let Some(look) = look {
                    player.4.yaw = look.yaw;
                    player.4.pitch = look.pitch;
                }
            } else {
                moved_display = true;
            }
        }
        if moved_display {
            return Err(RunError::TeleportDisplay);
        }
        Ok(())
    }

    pub(super) fn emote_targets(
        &mut self,
        target: Option<&Selector>,
        context: &Context,
        command: &'static str,
    ) -> Result<Vec<Entity>, RunError> {
        let acting = self.acting_player(context.source);
        let Some(target) = target else {
            return acting
                .map(|p| vec![p])
                .ok_or(RunError::NoSourcePlayer { command });
        };
        let picked = self.select_players(target, context);
        if let Some(acting) = acting {
            let manager = self
                .players
                .get(acting)
                .is_ok_and(|p| p.7.is_some_and(|o| o.get() >= MANAGE_OP_LEVEL));
            if !manager && picked.iter().any(|&p| p != acting) {
                return Err(RunError::EmotePermission {
                    level: MANAGE_OP_LEVEL,
                });
            }
        }
        Ok(picked)
    }

    pub(super) fn run_function(&mut self, id: &str, context: &Context) -> Result<(), RunError> {
        if context.depth >= MAX_FUNCTION_DEPTH {
            return Err(RunError::TooDeep(id.to_owned()));
        }
        let function = match self.functions.get(id) {
            FunctionState::Loaded(f) => Arc::clone(f),
            FunctionState::Refused => return Err(RunError::RefusedFunction(id.to_owned())),
            FunctionState::Missing => return Err(RunError::UnknownFunction(id.to_owned())),
        };
        let inner = Context {
            depth: context.depth + 1,
            ..context.clone()
        };
        for line in &function.lines {
            match self.run(&line.command, &inner) {
                Ok(()) => {}
                Err(RunError::OverBudget) => return Err(RunError::OverBudget),
                Err(e) => {
                    let text = format!("{} (function {id}, line {})", line.text, line.number);
                    self.reported.warn(&text, &e.to_string());
                }
            }
        }
        Ok(())
    }
}
