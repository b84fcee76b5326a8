//! emoted's own command dispatcher for emote events.
//!
//! Events are queued by the playback systems as [`EmoteCommandEvent`]s (the
//! command text, who runs it and from where) and run here, in [`Update`]
//! after [`EmotePlaybackSet`]. A command is parsed once into a typed
//! [`ParsedCommand`] (the parse of each event text is cached; function lines
//! are parsed when the function is loaded) and then run against the world.
//!
//! # What runs
//! Targets are [`Selector`]s: `@s @p @a @r @e` with `limit sort distance name
//! type gamemode x y z dx dy dz`, or player names (see [`super::selector`]).
//! `@s` is the source: the player, the display node's entity, nobody for the
//! server. Positions are `x y z` with `~` (relative to the event origin) or
//! `^` (local to the source's facing: a player source's look, yaw 0 pitch 0
//! for the server and nodes); as in vanilla, a whole number without a `.` in
//! `x` or `z` means the block's centre (`+0.5`).
//!
//! - `say <message>`: chat to every player, as `[Name] message` (`Server`,
//!   the player's name, or the node id).
//! - `tellraw <targets> <json text>`.
//! - `title <targets> title|subtitle|actionbar <json text>`, `title <targets>
//!   clear|reset`, `title <targets> times <fade in> <stay> <fade out>` (ticks,
//!   or with a `t`/`s`/`d` unit).
//! - `data merge entity <target> {…}`: `Glowing` and `glow_color_override`
//!   on the selected display entities (players are left alone).
//! - `particle <name> [params] [x y z] [dx dy dz] [speed] [count]
//!   [force|normal] [viewers]`: every no-parameter particle of 1.20.1 by name
//!   (`heart`, `minecraft:flame`, `end_rod`…), plus `dust r g b size`,
//!   `dust_color_transition r g b size r g b`, `sculk_charge roll`, `shriek
//!   delay`, `block`/`block_marker`/`falling_dust <block>` (a block name, no
//!   properties) and `item <item>` (an item name, no NBT). `vibration` and
//!   unknown names are refused. Defaults are vanilla's: at the origin, no
//!   spread, speed 0, count 0. Without `viewers` the particle goes to every
//!   player who sees the chunk (valence's layer particle); `force` sets the
//!   long-distance flag.
//! - `playsound <sound> <source> <targets> [x y z] [volume] [pitch]
//!   [min volume]`: any sound identifier (resource-pack sounds too: it is
//!   sent by name), to each target player as vanilla does (out of range:
//!   skipped, or moved next to the player at `min volume` when that is set).
//! - `stopsound <targets> [source|*] [sound]`.
//! - `tp`/`teleport`: `<x y z> [yaw pitch]` (the source player),
//!   `<targets> <x y z> [yaw pitch]`, `<targets> <entity>` and `<entity>`.
//!   Players are moved by setting their `Position` (and `Look` when a
//!   rotation is given; `~` there is relative to the source's rotation).
//! - `gamemode <survival|creative|adventure|spectator> [targets]` (default
//!   the source player).
//! - `function <namespace:path>`: the lines of a datapack `.mcfunction` (see
//!   [`super::functions`]) run through this dispatcher with the same source
//!   and origin, nested at most [`MAX_FUNCTION_DEPTH`] deep.
//!
//! # A bounded tick
//!
//! The commands one playback's events run in one tick are capped at
//! `[emotes] max_commands_per_tick` (default
//! [`crate::server::config::DEFAULT_MAX_COMMANDS_PER_TICK`]), every line of
//! every `function` they call counted, `function` itself included. The
//! command that would go past the cap does not run, nor does anything after
//! it that tick, and the playback is stopped with the reason (a chat line to
//! the player and a warning in the log), as a Molang failure stops it.
//! Commands with no playback behind them (none today) are not capped.
//! - `emote play <id> [player]` and `emote stop [player]`: a
//!   [`PlayEmoteRequest`] (never bypassing `standalone` and cooldowns) or a
//!   [`StopEmoteRequest`]. Without a target they act on the source player
//!   (for a node source: the player whose emote owns the node). A player or
//!   node source may target other players only when that player has
//!   operator level [`MANAGE_OP_LEVEL`], as when typing the command; the
//!   server may target anyone.
//!
//! # What is refused
//! At parse time (one warning per command text): any other command (the
//! list is [`KNOWN_COMMANDS`], checked at load), `data` other than `data
//! merge entity`, `emote` other than `play`/`stop`, unknown particles,
//! `#tag` functions, selector arguments emoted cannot test (`tag`, `scores`,
//! `team`…) and malformed arguments. At run time: moving display entities
//! with `tp` (displays stay where their emote placed them), `tp`,
//! `gamemode` or `emote` without a target from the server, a destination
//! entity that matches nothing, `emote` on other players without
//! permission, and a missing or refused function. Each run-time failure
//! is logged once per command text and message as a warning; nothing here
//! panics. A selector that matches nobody is not a failure (e.g. `@a[distance=..16]`
//! with nobody near).
//!
//! The permission level of a `player` source is not otherwise checked:
//! commands come from emote files, which only the server's admin installs.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use valence::entity::display::GlowColorOverride;
use valence::entity::entity::Flags;
use valence::entity::EntityKind;
use valence::ident::Ident;
use valence::op_level::OpLevel;
use valence::prelude::bevy_ecs::system::SystemParam;
use valence::prelude::*;
use valence::protocol::packets::play::{PlaySoundS2c, StopSoundS2c};
use valence::protocol::sound::{SoundCategory, SoundId};
use valence::protocol::WritePacket;

pub use crate::format::event::KNOWN_COMMANDS;
use crate::format::EmoteId;
use crate::server::config::{Config, DEFAULT_MAX_COMMANDS_PER_TICK};
use crate::server::events::{
    CommandSource, EmoteCommandEvent, EmoteDisplay, EmotePlaybackSet, EndReason, PlayEmoteRequest,
    StopEmoteRequest,
};
use crate::server::functions::{self, EmoteFunctions, FunctionState};
use crate::server::selector::{
    self, parse_target, Candidate, SelectContext, Selector, SelectorError, SelectorRng,
};

/// How deep `function` calls may nest (a function calling itself stops here).
pub const MAX_FUNCTION_DEPTH: u32 = 16;

/// Operator level a player (or a node's player) needs for `emote play/stop`
/// on other players from an event: vanilla's game-master level, the level
/// at which a player may do the same by typing the command.
pub const MANAGE_OP_LEVEL: u8 = 2;

/// Distinct run-time warnings remembered, so each is logged once.
const MAX_REPORTED: usize = 4096;

/// Why an event command could not be parsed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// Nothing to run.
    #[error("a command must not be empty")]
    Empty,
    /// Not one of [`KNOWN_COMMANDS`].
    #[error("unknown command `{name}`; emoted runs: {known}")]
    Unknown {
        /// The first word.
        name: String,
        /// The commands emoted runs.
        known: String,
    },
    /// A bad target.
    #[error(transparent)]
    Selector(#[from] SelectorError),
    /// A required argument is missing.
    #[error("`{command}` is missing {what}. Usage: {usage}")]
    Missing {
        /// The command.
        command: &'static str,
        /// What is missing.
        what: &'static str,
        /// How to write it.
        usage: &'static str,
    },
    /// Text after the last argument.
    #[error("`{command}` has too many arguments: unexpected `{found}`. Usage: {usage}")]
    TooMany {
        /// The command.
        command: &'static str,
        /// The extra text.
        found: String,
        /// How to write it.
        usage: &'static str,
    },
    /// An argument of the wrong kind.
    #[error("`{command}`: `{found}` is not {expected}")]
    Invalid {
        /// The command.
        command: &'static str,
        /// The argument as written.
        found: String,
        /// What was expected.
        expected: &'static str,
    },
    /// `^` mixed with `~` or numbers.
    #[error(
        "`{found}`: local coordinates (^) cannot be mixed with world coordinates (~ or numbers)"
    )]
    MixedCoordinates {
        /// The three coordinates.
        found: String,
    },
    /// A particle emoted does not know.
    #[error("unknown particle `{name}`; use a 1.20.1 particle name such as heart, flame, note, cloud, end_rod, happy_villager or dust")]
    UnknownParticle {
        /// The name as written.
        name: String,
    },
    /// A JSON text component that does not parse.
    #[error("invalid JSON text `{json}`: {message}")]
    Text {
        /// The JSON.
        json: String,
        /// serde's message.
        message: String,
    },
    /// Bad SNBT in `data merge`.
    #[error("invalid SNBT in `data merge`: {message}")]
    Snbt {
        /// The SNBT parser's message.
        message: String,
    },
    /// A form of a known command that emoted does not run.
    #[error("{what} is not supported: {hint}")]
    Unsupported {
        /// The form.
        what: String,
        /// What to do instead.
        hint: &'static str,
    },
}

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
    #[error("the playback ran its {0} commands for this tick")]
    OverBudget(u32),
}

/// How many more commands the event being run may run this tick.
#[derive(Clone, Copy, Debug, Default)]
struct CommandBudget {
    /// `None`: no cap (no playback behind the event).
    left: Option<u32>,
    /// A command was refused for want of budget.
    exhausted: bool,
}

impl CommandBudget {
    /// Takes one command; false when none is left.
    fn take(&mut self) -> bool {
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

/// A command parsed far enough to run it.
#[derive(Clone, Debug, PartialEq)]
pub enum ParsedCommand {
    /// `say`.
    Say(String),
    /// `tellraw`.
    Tellraw {
        /// Who reads it.
        targets: Selector,
        /// The message.
        text: Text,
    },
    /// `title`.
    Title {
        /// Who sees it.
        targets: Selector,
        /// What to do.
        action: TitleAction,
    },
    /// `data merge entity <target> {…}`.
    MergeData {
        /// The displays to change.
        target: Selector,
        /// `Glowing`, if given.
        glowing: Option<bool>,
        /// `glow_color_override`, if given.
        glow_color: Option<i32>,
    },
    /// `particle`.
    Particle(ParticleCommand),
    /// `playsound`.
    PlaySound(PlaySoundCommand),
    /// `stopsound`.
    StopSound {
        /// Whose sounds.
        targets: Selector,
        /// Only this category (`None` for all, or `*`).
        category: Option<SoundCategory>,
        /// Only this sound.
        sound: Option<Ident<String>>,
    },
    /// `tp` / `teleport`.
    Teleport {
        /// Who moves (`@s` when not written).
        targets: Selector,
        /// Where to.
        destination: Destination,
    },
    /// `gamemode`.
    GameMode {
        /// The new mode.
        mode: GameMode,
        /// Who (`@s` when not written).
        targets: Selector,
    },
    /// `function <id>`.
    Function(String),
    /// `emote play <id> [player]`.
    EmotePlay {
        /// The emote.
        emote: EmoteId,
        /// Who plays it (`None`: the source player).
        target: Option<Selector>,
    },
    /// `emote stop [player]`.
    EmoteStop {
        /// Whose emote (`None`: the source player).
        target: Option<Selector>,
    },
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

/// What `title` does.
#[derive(Clone, Debug, PartialEq)]
pub enum TitleAction {
    /// Shows a text.
    Show(TitleKind, Text),
    /// `clear`.
    Clear,
    /// `reset`.
    Reset,
    /// `times`, in ticks.
    Times {
        /// Fade in.
        fade_in: i32,
        /// Stay.
        stay: i32,
        /// Fade out.
        fade_out: i32,
    },
}

/// One coordinate of a world position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldCoord {
    /// The number (the offset when relative).
    pub value: f64,
    /// `~`: added to the origin's coordinate.
    pub relative: bool,
}

/// A position argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coordinates {
    /// `x y z` with numbers and `~`.
    World([WorldCoord; 3]),
    /// `^left ^up ^forward`.
    Local([f64; 3]),
}

/// The rotation commands run with: Minecraft degrees (yaw 0 faces +Z).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Facing {
    /// Yaw in degrees.
    pub yaw: f32,
    /// Pitch in degrees (90 is down).
    pub pitch: f32,
}

impl Coordinates {
    /// `~ ~ ~`.
    pub const HERE: Coordinates = Coordinates::World(
        [WorldCoord {
            value: 0.0,
            relative: true,
        }; 3],
    );

    /// The world position for an event at `origin` run with `facing`.
    pub fn resolve(&self, origin: DVec3, facing: Facing) -> DVec3 {
        match self {
            Coordinates::World(c) => {
                let axis = |i: usize, o: f64| {
                    if c[i].relative {
                        o + c[i].value
                    } else {
                        c[i].value
                    }
                };
                DVec3::new(axis(0, origin.x), axis(1, origin.y), axis(2, origin.z))
            }
            Coordinates::Local([left, up, forwards]) => {
                // Vanilla's LocalCoordinates, in f64.
                let yaw = (f64::from(facing.yaw) + 90.0).to_radians();
                let pitch = f64::from(facing.pitch);
                let (f, f1) = (yaw.cos(), yaw.sin());
                let (f2, f3) = ((-pitch).to_radians().cos(), (-pitch).to_radians().sin());
                let (f4, f5) = (
                    (-pitch + 90.0).to_radians().cos(),
                    (-pitch + 90.0).to_radians().sin(),
                );
                let forward = DVec3::new(f * f2, f3, f1 * f2);
                let upward = DVec3::new(f * f4, f5, f1 * f4);
                let leftward = -forward.cross(upward);
                origin + forward * *forwards + upward * *up + leftward * *left
            }
        }
    }
}

/// A rotation argument (`yaw pitch`, `~` relative to the source's facing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rotation {
    /// Yaw.
    pub yaw: WorldCoord,
    /// Pitch.
    pub pitch: WorldCoord,
}

impl Rotation {
    fn resolve(&self, facing: Facing) -> Facing {
        let pick = |c: WorldCoord, base: f32| {
            if c.relative {
                base + c.value as f32
            } else {
                c.value as f32
            }
        };
        Facing {
            yaw: pick(self.yaw, facing.yaw),
            pitch: pick(self.pitch, facing.pitch).clamp(-90.0, 90.0),
        }
    }
}

/// Where `tp` sends its targets.
#[derive(Clone, Debug, PartialEq)]
pub enum Destination {
    /// A position, optionally with a rotation.
    Position(Coordinates, Option<Rotation>),
    /// The position of one entity.
    Entity(Selector),
}

/// `particle`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleCommand {
    /// The particle and its parameters.
    pub particle: Particle,
    /// Where.
    pub position: Coordinates,
    /// The spread (or direction when `count` is 0).
    pub delta: Vec3,
    /// Speed.
    pub speed: f32,
    /// How many (0: one, moving along `delta`).
    pub count: i32,
    /// `force`: seen from far away.
    pub force: bool,
    /// Only these players see it (`None`: everyone who sees the chunk).
    pub viewers: Option<Selector>,
}

/// `playsound`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaySoundCommand {
    /// The sound identifier.
    pub sound: Ident<String>,
    /// The volume slider it follows.
    pub category: SoundCategory,
    /// Who hears it.
    pub targets: Selector,
    /// Where.
    pub position: Coordinates,
    /// Volume (≥ 0; above 1 is heard farther away).
    pub volume: f32,
    /// Pitch (0 to 2).
    pub pitch: f32,
    /// The volume for targets out of range (0: they do not hear it).
    pub min_volume: f32,
}

// ------------------------------------------------------------------ parsing

/// The words of a command, read left to right.
struct Words<'a> {
    command: &'static str,
    usage: &'static str,
    rest: &'a str,
}

impl<'a> Words<'a> {
    fn new(command: &'static str, usage: &'static str, rest: &'a str) -> Self {
        Self {
            command,
            usage,
            rest: rest.trim_start(),
        }
    }

    fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    fn peek(&self) -> Option<&'a str> {
        self.rest.split_whitespace().next()
    }

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let end = self
            .rest
            .find(char::is_whitespace)
            .unwrap_or(self.rest.len());
        let word = &self.rest[..end];
        self.rest = self.rest[end..].trim_start();
        Some(word)
    }

    fn require(&mut self, what: &'static str) -> Result<&'a str, CommandError> {
        self.next().ok_or(CommandError::Missing {
            command: self.command,
            what,
            usage: self.usage,
        })
    }

    fn missing(&self, what: &'static str) -> CommandError {
        CommandError::Missing {
            command: self.command,
            what,
            usage: self.usage,
        }
    }

    fn invalid(&self, found: &str, expected: &'static str) -> CommandError {
        CommandError::Invalid {
            command: self.command,
            found: found.to_owned(),
            expected,
        }
    }

    fn target(&mut self) -> Result<Selector, CommandError> {
        if self.rest.is_empty() {
            return Err(self.missing("a target"));
        }
        let (selector, rest) = parse_target(self.rest)?;
        self.rest = rest;
        Ok(selector)
    }

    fn number<T: std::str::FromStr>(
        &mut self,
        what: &'static str,
        expected: &'static str,
    ) -> Result<T, CommandError> {
        let word = self.require(what)?;
        word.parse::<T>().map_err(|_| self.invalid(word, expected))
    }

    fn finite(&mut self, what: &'static str) -> Result<f32, CommandError> {
        let word = self.require(what)?;
        word.parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.invalid(word, "a number"))
    }

    fn coordinates(&mut self) -> Result<Coordinates, CommandError> {
        let mut words = [""; 3];
        for word in &mut words {
            *word = self.require("a position (x y z)")?;
        }
        parse_coordinates(words).map_err(|e| match e {
            CoordError::Mixed => CommandError::MixedCoordinates {
                found: words.join(" "),
            },
            CoordError::Bad(w) => self.invalid(&w, "a coordinate (a number, ~, ~N, ^ or ^N)"),
        })
    }

    fn finish(&self) -> Result<(), CommandError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(CommandError::TooMany {
                command: self.command,
                found: self.rest.to_owned(),
                usage: self.usage,
            })
        }
    }
}

/// A coordinate problem (turned into a [`CommandError`] with context).
#[derive(Debug, PartialEq)]
enum CoordError {
    Mixed,
    Bad(String),
}

/// True when `word` starts like a coordinate (`~`, `^`, a number).
fn looks_like_coordinate(word: &str) -> bool {
    word.starts_with(['~', '^', '-', '+', '.']) || word.starts_with(|c: char| c.is_ascii_digit())
}

/// Parses three coordinate words: numbers and `~N`, or all `^N`. Whole
/// numbers in `x` and `z` are block centres (`+0.5`), as in vanilla.
fn parse_coordinates(words: [&str; 3]) -> Result<Coordinates, CoordError> {
    let number = |s: &str, w: &str| -> Result<f64, CoordError> {
        if s.is_empty() {
            return Ok(0.0);
        }
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| CoordError::Bad(w.to_owned()))
    };
    let local = words.iter().filter(|w| w.starts_with('^')).count();
    if local == 3 {
        let mut out = [0.0; 3];
        for (o, w) in out.iter_mut().zip(words) {
            *o = number(&w[1..], w)?;
        }
        return Ok(Coordinates::Local(out));
    }
    if local > 0 {
        return Err(CoordError::Mixed);
    }
    let mut out = [WorldCoord {
        value: 0.0,
        relative: false,
    }; 3];
    for (i, w) in words.iter().enumerate() {
        out[i] = parse_world_coord(w, i != 1)?;
    }
    Ok(Coordinates::World(out))
}

fn parse_world_coord(w: &str, center: bool) -> Result<WorldCoord, CoordError> {
    if let Some(offset) = w.strip_prefix('~') {
        let value = if offset.is_empty() {
            0.0
        } else {
            offset
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| CoordError::Bad(w.to_owned()))?
        };
        return Ok(WorldCoord {
            value,
            relative: true,
        });
    }
    let mut value = w
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| CoordError::Bad(w.to_owned()))?;
    if center && !w.contains('.') {
        value += 0.5;
    }
    Ok(WorldCoord {
        value,
        relative: false,
    })
}

fn parse_text(json: &str) -> Result<Text, CommandError> {
    serde_json::from_str::<Text>(json).map_err(|e| CommandError::Text {
        json: json.to_owned(),
        message: e.to_string(),
    })
}

/// A time in ticks: `20`, `20t`, `1s`, `1d`.
fn parse_ticks(word: &str) -> Option<i32> {
    let (number, scale) = match word.as_bytes().last()? {
        b't' => (&word[..word.len() - 1], 1.0),
        b's' => (&word[..word.len() - 1], 20.0),
        b'd' => (&word[..word.len() - 1], 24000.0),
        _ => (word, 1.0),
    };
    let ticks = number.parse::<f64>().ok()? * scale;
    (ticks.is_finite() && (0.0..=f64::from(i32::MAX)).contains(&ticks))
        .then(|| ticks.round() as i32)
}

/// A `minecraft:` resource name (namespace optional): `heart`, `minecraft:stone`.
fn vanilla_name(name: &str) -> Option<&str> {
    match name.split_once(':') {
        Some(("minecraft", path)) => Some(path),
        Some(_) => None,
        None => Some(name),
    }
}

/// The 1.20.1 particles that take no parameters, by name.
const SIMPLE_PARTICLES: &[(&str, Particle)] = &[
    ("ambient_entity_effect", Particle::AmbientEntityEffect),
    ("angry_villager", Particle::AngryVillager),
    ("bubble", Particle::Bubble),
    ("cloud", Particle::Cloud),
    ("crit", Particle::Crit),
    ("damage_indicator", Particle::DamageIndicator),
    ("dragon_breath", Particle::DragonBreath),
    ("dripping_lava", Particle::DrippingLava),
    ("falling_lava", Particle::FallingLava),
    ("landing_lava", Particle::LandingLava),
    ("dripping_water", Particle::DrippingWater),
    ("falling_water", Particle::FallingWater),
    ("effect", Particle::Effect),
    ("elder_guardian", Particle::ElderGuardian),
    ("enchanted_hit", Particle::EnchantedHit),
    ("enchant", Particle::Enchant),
    ("end_rod", Particle::EndRod),
    ("entity_effect", Particle::EntityEffect),
    ("explosion_emitter", Particle::ExplosionEmitter),
    ("explosion", Particle::Explosion),
    ("sonic_boom", Particle::SonicBoom),
    ("firework", Particle::Firework),
    ("fishing", Particle::Fishing),
    ("flame", Particle::Flame),
    ("cherry_leaves", Particle::CherryLeaves),
    ("sculk_soul", Particle::SculkSoul),
    ("sculk_charge_pop", Particle::SculkChargePop),
    ("soul_fire_flame", Particle::SoulFireFlame),
    ("soul", Particle::Soul),
    ("flash", Particle::Flash),
    ("happy_villager", Particle::HappyVillager),
    ("composter", Particle::Composter),
    ("heart", Particle::Heart),
    ("instant_effect", Particle::InstantEffect),
    ("item_slime", Particle::ItemSlime),
    ("item_snowball", Particle::ItemSnowball),
    ("large_smoke", Particle::LargeSmoke),
    ("lava", Particle::Lava),
    ("mycelium", Particle::Mycelium),
    ("note", Particle::Note),
    ("poof", Particle::Poof),
    ("portal", Particle::Portal),
    ("rain", Particle::Rain),
    ("smoke", Particle::Smoke),
    ("sneeze", Particle::Sneeze),
    ("spit", Particle::Spit),
    ("squid_ink", Particle::SquidInk),
    ("sweep_attack", Particle::SweepAttack),
    ("totem_of_undying", Particle::TotemOfUndying),
    ("underwater", Particle::Underwater),
    ("splash", Particle::Splash),
    ("witch", Particle::Witch),
    ("bubble_pop", Particle::BubblePop),
    ("current_down", Particle::CurrentDown),
    ("bubble_column_up", Particle::BubbleColumnUp),
    ("nautilus", Particle::Nautilus),
    ("dolphin", Particle::Dolphin),
    ("campfire_cosy_smoke", Particle::CampfireCosySmoke),
    ("campfire_signal_smoke", Particle::CampfireSignalSmoke),
    ("dripping_honey", Particle::DrippingHoney),
    ("falling_honey", Particle::FallingHoney),
    ("landing_honey", Particle::LandingHoney),
    ("falling_nectar", Particle::FallingNectar),
    ("falling_spore_blossom", Particle::FallingSporeBlossom),
    ("ash", Particle::Ash),
    ("crimson_spore", Particle::CrimsonSpore),
    ("warped_spore", Particle::WarpedSpore),
    ("spore_blossom_air", Particle::SporeBlossomAir),
    ("dripping_obsidian_tear", Particle::DrippingObsidianTear),
    ("falling_obsidian_tear", Particle::FallingObsidianTear),
    ("landing_obsidian_tear", Particle::LandingObsidianTear),
    ("reverse_portal", Particle::ReversePortal),
    ("white_ash", Particle::WhiteAsh),
    ("small_flame", Particle::SmallFlame),
    ("snowflake", Particle::Snowflake),
    ("dripping_dripstone_lava", Particle::DrippingDripstoneLava),
    ("falling_dripstone_lava", Particle::FallingDripstoneLava),
    ("dripping_dripstone_water", Particle::DrippingDripstoneWater),
    ("falling_dripstone_water", Particle::FallingDripstoneWater),
    ("glow_squid_ink", Particle::GlowSquidInk),
    ("glow", Particle::Glow),
    ("wax_on", Particle::WaxOn),
    ("wax_off", Particle::WaxOff),
    ("electric_spark", Particle::ElectricSpark),
    ("scrape", Particle::Scrape),
    ("egg_crack", Particle::EggCrack),
];

/// Reads a particle name and its parameters.
fn parse_particle(words: &mut Words) -> Result<Particle, CommandError> {
    let name = words.require("a particle name")?;
    let unknown = || CommandError::UnknownParticle {
        name: name.to_owned(),
    };
    let path = vanilla_name(name).ok_or_else(unknown)?;
    if let Some((_, p)) = SIMPLE_PARTICLES.iter().find(|(n, _)| *n == path) {
        return Ok(p.clone());
    }
    let color = |words: &mut Words| -> Result<Vec3, CommandError> {
        Ok(Vec3::new(
            words.finite("a red value")?,
            words.finite("a green value")?,
            words.finite("a blue value")?,
        ))
    };
    Ok(match path {
        "dust" => {
            let rgb = color(words)?;
            Particle::Dust {
                rgb,
                scale: words.finite("a dust size")?,
            }
        }
        "dust_color_transition" => {
            let from_rgb = color(words)?;
            let scale = words.finite("a dust size")?;
            Particle::DustColorTransition {
                from_rgb,
                scale,
                to_rgb: color(words)?,
            }
        }
        "sculk_charge" => Particle::SculkCharge {
            roll: words.finite("a roll angle")?,
        },
        "shriek" => Particle::Shriek {
            delay: words.number("a delay", "a whole number of ticks")?,
        },
        "block" | "block_marker" | "falling_dust" => {
            let block = words.require("a block name")?;
            let kind = vanilla_name(block)
                .filter(|b| !b.contains('['))
                .and_then(BlockKind::from_str)
                .ok_or_else(|| words.invalid(block, "a block name (without [properties])"))?;
            let state = kind.to_state();
            match path {
                "block" => Particle::Block(state),
                "block_marker" => Particle::BlockMarker(state),
                _ => Particle::FallingDust(state),
            }
        }
        "item" => {
            let item = words.require("an item name")?;
            let kind = vanilla_name(item)
                .and_then(ItemKind::from_str)
                .ok_or_else(|| words.invalid(item, "an item name (without NBT)"))?;
            Particle::Item(Some(ItemStack::new(kind, 1, None)))
        }
        "vibration" => {
            return Err(CommandError::Unsupported {
                what: "the `vibration` particle".to_owned(),
                hint: "it needs a destination block or entity; use another particle",
            })
        }
        _ => return Err(unknown()),
    })
}

fn parse_sound_category(word: &str) -> Option<SoundCategory> {
    Some(match word {
        "master" => SoundCategory::Master,
        "music" => SoundCategory::Music,
        "record" => SoundCategory::Record,
        "weather" => SoundCategory::Weather,
        "block" => SoundCategory::Block,
        "hostile" => SoundCategory::Hostile,
        "neutral" => SoundCategory::Neutral,
        "player" => SoundCategory::Player,
        "ambient" => SoundCategory::Ambient,
        "voice" => SoundCategory::Voice,
        _ => return None,
    })
}

const SOUND_CATEGORIES: &str = "a sound source (master, music, record, weather, block, hostile, neutral, player, ambient or voice)";

fn parse_sound_id(words: &Words, word: &str) -> Result<Ident<String>, CommandError> {
    Ident::new(word).map(|i| i.to_string_ident()).map_err(|_| {
        words.invalid(
            word,
            "a sound identifier such as minecraft:block.note_block.bell",
        )
    })
}

/// Validates a function id: `namespace:path` (namespace defaults to `minecraft`).
pub fn parse_function_id(word: &str) -> Result<String, CommandError> {
    if word.starts_with('#') {
        return Err(CommandError::Unsupported {
            what: format!("function tag `{word}`"),
            hint: "name one function (namespace:path)",
        });
    }
    Ident::new(word)
        .map(|i| i.as_str().to_owned())
        .map_err(|_| CommandError::Invalid {
            command: "function",
            found: word.to_owned(),
            expected: "a function id (namespace:path, lowercase)",
        })
}

/// Parses one event command.
pub fn parse_event_command(command: &str) -> Result<ParsedCommand, CommandError> {
    let command = command.trim();
    let (name, rest) = match command.find(char::is_whitespace) {
        Some(i) => (&command[..i], &command[i..]),
        None => (command, ""),
    };
    match name {
        "" => Err(CommandError::Empty),
        "say" => Ok(ParsedCommand::Say(rest.trim().to_owned())),
        "tellraw" => {
            let mut w = Words::new("tellraw", "tellraw <targets> <json text>", rest);
            let targets = w.target()?;
            if w.is_empty() {
                return Err(w.missing("a JSON text"));
            }
            Ok(ParsedCommand::Tellraw {
                targets,
                text: parse_text(w.rest)?,
            })
        }
        "title" => parse_title(rest),
        "data" => {
            let mut w = Words::new("data", "data merge entity <target> {…}", rest);
            if w.next() != Some("merge") || w.next() != Some("entity") {
                return Err(CommandError::Unsupported {
                    what: format!("`{command}`"),
                    hint: "only `data merge entity <target> {…}` is supported",
                });
            }
            let target = w.target()?;
            if w.is_empty() {
                return Err(w.missing("an SNBT compound"));
            }
            let compound = crate::format::snbt::parse_compound(w.rest)
                .map_err(|message| CommandError::Snbt { message })?;
            let number = |key: &str| compound.get(key).and_then(crate::format::snbt::as_int);
            Ok(ParsedCommand::MergeData {
                target,
                glowing: number("Glowing").map(|v| v != 0),
                glow_color: number("glow_color_override").map(|v| v as i32),
            })
        }
        "particle" => parse_particle_command(rest),
        "playsound" => parse_playsound(rest),
        "stopsound" => {
            let mut w = Words::new("stopsound", "stopsound <targets> [source|*] [sound]", rest);
            let targets = w.target()?;
            let category = match w.next() {
                None | Some("*") => None,
                Some(word) => Some(
                    parse_sound_category(word).ok_or_else(|| w.invalid(word, SOUND_CATEGORIES))?,
                ),
            };
            let sound = match w.next() {
                None => None,
                Some(word) => Some(parse_sound_id(&w, word)?),
            };
            w.finish()?;
            Ok(ParsedCommand::StopSound {
                targets,
                category,
                sound,
            })
        }
        "tp" | "teleport" => parse_teleport(rest),
        "gamemode" => {
            let mut w = Words::new("gamemode", "gamemode <mode> [targets]", rest);
            let word = w.require("a game mode")?;
            let mode = selector::game_mode(word).ok_or_else(|| {
                w.invalid(
                    word,
                    "a game mode (survival, creative, adventure or spectator)",
                )
            })?;
            let targets = if w.is_empty() {
                Selector::source()
            } else {
                w.target()?
            };
            w.finish()?;
            Ok(ParsedCommand::GameMode { mode, targets })
        }
        "function" => {
            let mut w = Words::new("function", "function <namespace:path>", rest);
            let id = parse_function_id(w.require("a function id")?)?;
            if !w.is_empty() {
                return Err(CommandError::Unsupported {
                    what: "function arguments (macros)".to_owned(),
                    hint: "1.20.1 functions take no arguments",
                });
            }
            Ok(ParsedCommand::Function(id))
        }
        "emote" => {
            let mut w = Words::new(
                "emote",
                "emote play <id> [player] | emote stop [player]",
                rest,
            );
            match w.require("`play` or `stop`")? {
                "play" => {
                    let word = w.require("an emote id")?;
                    let emote = EmoteId::parse(word)
                        .map_err(|_| w.invalid(word, "an emote id (namespace:path)"))?;
                    let target = if w.is_empty() {
                        None
                    } else {
                        Some(w.target()?)
                    };
                    w.finish()?;
                    Ok(ParsedCommand::EmotePlay { emote, target })
                }
                "stop" => {
                    let target = if w.is_empty() {
                        None
                    } else {
                        Some(w.target()?)
                    };
                    w.finish()?;
                    Ok(ParsedCommand::EmoteStop { target })
                }
                other => Err(CommandError::Unsupported {
                    what: format!("`emote {other}`"),
                    hint: "events run only `emote play <id> [player]` and `emote stop [player]`",
                }),
            }
        }
        other => Err(CommandError::Unknown {
            name: other.to_owned(),
            known: KNOWN_COMMANDS.join(", "),
        }),
    }
}

fn parse_title(rest: &str) -> Result<ParsedCommand, CommandError> {
    let usage =
        "title <targets> title|subtitle|actionbar <json> | clear | reset | times <in> <stay> <out>";
    let mut w = Words::new("title", usage, rest);
    let targets = w.target()?;
    let action = match w.require("an action (title, subtitle, actionbar, clear, reset, times)")? {
        kind @ ("title" | "subtitle" | "actionbar") => {
            if w.is_empty() {
                return Err(w.missing("a JSON text"));
            }
            let kind = match kind {
                "title" => TitleKind::Title,
                "subtitle" => TitleKind::Subtitle,
                _ => TitleKind::ActionBar,
            };
            let text = parse_text(w.rest)?;
            w.rest = "";
            TitleAction::Show(kind, text)
        }
        "clear" => TitleAction::Clear,
        "reset" => TitleAction::Reset,
        "times" => {
            let mut time = |what| -> Result<i32, CommandError> {
                let word = w.require(what)?;
                parse_ticks(word)
                    .ok_or_else(|| w.invalid(word, "a time (ticks, or with t, s or d)"))
            };
            TitleAction::Times {
                fade_in: time("a fade-in time")?,
                stay: time("a stay time")?,
                fade_out: time("a fade-out time")?,
            }
        }
        other => {
            return Err(w.invalid(
                other,
                "a title action (title, subtitle, actionbar, clear, reset or times)",
            ))
        }
    };
    w.finish()?;
    Ok(ParsedCommand::Title { targets, action })
}

fn parse_particle_command(rest: &str) -> Result<ParsedCommand, CommandError> {
    let usage =
        "particle <name> [params] [x y z] [dx dy dz] [speed] [count] [force|normal] [viewers]";
    let mut w = Words::new("particle", usage, rest);
    let particle = parse_particle(&mut w)?;
    let mut command = ParticleCommand {
        particle,
        position: Coordinates::HERE,
        delta: Vec3::ZERO,
        speed: 0.0,
        count: 0,
        force: false,
        viewers: None,
    };
    if !w.is_empty() {
        command.position = w.coordinates()?;
    }
    if w.peek().is_some_and(looks_like_coordinate) {
        command.delta = Vec3::new(
            w.finite("a spread dx")?,
            w.finite("a spread dy")?,
            w.finite("a spread dz")?,
        );
    }
    if w.peek().is_some_and(looks_like_coordinate) {
        command.speed = w.finite("a speed")?;
        if command.speed < 0.0 {
            return Err(w.invalid(&command.speed.to_string(), "a speed of at least 0"));
        }
    }
    if w.peek().is_some_and(looks_like_coordinate) {
        command.count = w.number("a count", "a whole number of at least 0")?;
        if command.count < 0 {
            return Err(w.invalid(&command.count.to_string(), "a count of at least 0"));
        }
    }
    // As in vanilla, viewers come only after an explicit `force` or `normal`.
    match w.next() {
        None => {}
        Some(mode @ ("force" | "normal")) => {
            command.force = mode == "force";
            if !w.is_empty() {
                command.viewers = Some(w.target()?);
            }
        }
        Some(other) => return Err(w.invalid(other, "`force` or `normal` (viewers come after it)")),
    }
    w.finish()?;
    Ok(ParsedCommand::Particle(command))
}

fn parse_playsound(rest: &str) -> Result<ParsedCommand, CommandError> {
    let usage = "playsound <sound> <source> <targets> [x y z] [volume] [pitch] [min volume]";
    let mut w = Words::new("playsound", usage, rest);
    let word = w.require("a sound")?;
    let sound = parse_sound_id(&w, word)?;
    let word = w.require("a sound source")?;
    let category = parse_sound_category(word).ok_or_else(|| w.invalid(word, SOUND_CATEGORIES))?;
    let targets = w.target()?;
    let mut command = PlaySoundCommand {
        sound,
        category,
        targets,
        position: Coordinates::HERE,
        volume: 1.0,
        pitch: 1.0,
        min_volume: 0.0,
    };
    if !w.is_empty() {
        command.position = w.coordinates()?;
    }
    let mut bounded =
        |what, lo: f32, hi: f32, expected: &'static str| -> Result<Option<f32>, CommandError> {
            if w.is_empty() {
                return Ok(None);
            }
            let v = w.finite(what)?;
            if (lo..=hi).contains(&v) {
                Ok(Some(v))
            } else {
                Err(w.invalid(&v.to_string(), expected))
            }
        };
    if let Some(v) = bounded("a volume", 0.0, f32::MAX, "a volume of at least 0")? {
        command.volume = v;
    }
    if let Some(v) = bounded("a pitch", 0.0, 2.0, "a pitch from 0 to 2")? {
        command.pitch = v;
    }
    if let Some(v) = bounded("a minimum volume", 0.0, 1.0, "a minimum volume from 0 to 1")? {
        command.min_volume = v;
    }
    w.finish()?;
    Ok(ParsedCommand::PlaySound(command))
}

fn parse_teleport(rest: &str) -> Result<ParsedCommand, CommandError> {
    let usage = "tp <x y z> [yaw pitch] | tp <targets> <x y z> [yaw pitch] | tp [targets] <destination entity>";
    let mut w = Words::new("tp", usage, rest);
    let word_count = w.rest.split_whitespace().count();
    let first = w
        .peek()
        .ok_or_else(|| w.missing("a target or a position"))?;
    // `tp x y z [yaw pitch]` moves the source; a first word that is a
    // coordinate cannot be a player name (those have no ~, ^, - or .), except
    // an all-digit name, which vanilla also reads as a number here.
    let targets = if looks_like_coordinate(first) && matches!(word_count, 3 | 5) {
        Selector::source()
    } else {
        let targets = w.target()?;
        if w.is_empty() {
            // `tp <destination>`: the source goes to that entity.
            return Ok(ParsedCommand::Teleport {
                targets: Selector::source(),
                destination: Destination::Entity(targets),
            });
        }
        if !w.peek().is_some_and(looks_like_coordinate) {
            let destination = w.target()?;
            w.finish()?;
            return Ok(ParsedCommand::Teleport {
                targets,
                destination: Destination::Entity(destination),
            });
        }
        targets
    };
    let position = w.coordinates()?;
    let rotation = if w.is_empty() {
        None
    } else if w.peek() == Some("facing") {
        return Err(CommandError::Unsupported {
            what: "`tp … facing`".to_owned(),
            hint: "give a yaw and pitch instead",
        });
    } else {
        let mut angle = |what| -> Result<WorldCoord, CommandError> {
            let word = w.require(what)?;
            if word.starts_with('^') {
                return Err(w.invalid(word, "an angle in degrees (a number or ~N)"));
            }
            parse_world_coord(word, false)
                .map_err(|_| w.invalid(word, "an angle in degrees (a number or ~N)"))
        };
        Some(Rotation {
            yaw: angle("a yaw")?,
            pitch: angle("a pitch")?,
        })
    };
    w.finish()?;
    Ok(ParsedCommand::Teleport {
        targets,
        destination: Destination::Position(position, rotation),
    })
}

// ------------------------------------------------------------------ running

/// Runs queued emote event commands, and loads the datapack functions they call.
pub struct EmoteDispatchPlugin;

impl Plugin for EmoteDispatchPlugin {
    fn build(&self, app: &mut App) {
        app.add_event::<EmoteCommandEvent>()
            .add_event::<PlayEmoteRequest>()
            .add_event::<StopEmoteRequest>()
            .init_resource::<ReportedCommands>()
            .init_resource::<ParseCache>()
            .init_resource::<EmoteFunctions>()
            .insert_resource(DispatchRng(SelectorRng::from_entropy()))
            .add_systems(Startup, functions::load_functions_at_startup)
            .add_systems(
                Update,
                (
                    functions::reload_functions_on_request,
                    run_emote_commands.after(EmotePlaybackSet),
                ),
            );
    }
}

/// Run-time warnings already logged, so each is logged once.
#[derive(Resource, Default)]
struct ReportedCommands(HashSet<String>);

impl ReportedCommands {
    fn warn(&mut self, command: &str, message: &str) {
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
struct ParseCache(HashMap<String, Result<Arc<ParsedCommand>, CommandError>>);

/// The random numbers for `@r` and `sort=random`.
#[derive(Resource)]
struct DispatchRng(SelectorRng);

/// Who runs a command and from where, while it runs.
#[derive(Clone, Debug)]
struct Context<'a> {
    source: &'a CommandSource,
    origin: DVec3,
    /// `function` nesting.
    depth: u32,
}

type PlayerData = (
    Entity,
    &'static mut Client,
    &'static Username,
    &'static mut Position,
    &'static mut Look,
    &'static mut GameMode,
    &'static VisibleChunkLayer,
    Option<&'static OpLevel>,
);

type DisplayData = (
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
struct Dispatcher<'w, 's> {
    players: Query<'w, 's, PlayerData, With<Client>>,
    displays: Query<'w, 's, DisplayData, Without<Client>>,
    layers: Query<'w, 's, (Entity, &'static mut ChunkLayer)>,
    play: EventWriter<'w, PlayEmoteRequest>,
    stop: EventWriter<'w, StopEmoteRequest>,
    functions: Res<'w, EmoteFunctions>,
    reported: ResMut<'w, ReportedCommands>,
    cache: ResMut<'w, ParseCache>,
    rng: ResMut<'w, DispatchRng>,
    budget: Local<'s, CommandBudget>,
}

fn run_emote_commands(
    mut events: EventReader<EmoteCommandEvent>,
    mut dispatcher: Dispatcher,
    config: Option<Res<Config>>,
) {
    let cap = config.map_or(DEFAULT_MAX_COMMANDS_PER_TICK, |c| {
        c.emotes.max_commands_per_tick
    });
    // Commands each playback ran this tick; playbacks stopped for the cap.
    let mut used: HashMap<Entity, u32> = HashMap::new();
    let mut stopped: HashSet<Entity> = HashSet::new();
    for event in events.iter() {
        if let Some(player) = event.playback {
            if stopped.contains(&player) {
                continue;
            }
            let spent = used.get(&player).copied().unwrap_or(0);
            *dispatcher.budget = CommandBudget {
                left: Some(cap.saturating_sub(spent)),
                exhausted: false,
            };
        } else {
            *dispatcher.budget = CommandBudget::default();
        }
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
        let Some(player) = event.playback else {
            continue;
        };
        let budget = *dispatcher.budget;
        let left = budget.left.unwrap_or(0);
        used.insert(player, cap - left.min(cap));
        if budget.exhausted {
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
}

impl Dispatcher<'_, '_> {
    fn parse_cached(&mut self, text: &str) -> Result<Arc<ParsedCommand>, CommandError> {
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

    fn run_reporting(&mut self, text: &str, command: &ParsedCommand, context: &Context) {
        match self.run(command, context) {
            // The playback is stopped for it, with its own message.
            Ok(()) | Err(RunError::OverBudget(_)) => {}
            Err(e) => self.reported.warn(text, &e.to_string()),
        }
    }

    /// The facing commands run with: a player source's look, else yaw 0 pitch 0.
    fn facing(&self, source: &CommandSource) -> Facing {
        match source {
            CommandSource::Player(e) => self
                .players
                .get(*e)
                .map(|p| Facing {
                    yaw: p.4.yaw,
                    pitch: p.4.pitch,
                })
                .unwrap_or_default(),
            _ => Facing::default(),
        }
    }

    /// The player acting for `emote play/stop`: the player, or a node's owner.
    fn acting_player(&self, source: &CommandSource) -> Option<Entity> {
        match source {
            CommandSource::Player(e) => Some(*e),
            CommandSource::Node { entity, .. } => {
                self.displays.get(*entity).ok().map(|d| d.4.owner)
            }
            CommandSource::Server => None,
        }
    }

    fn candidates(&self, only_players: bool) -> Vec<Candidate> {
        let mut out: Vec<Candidate> = self
            .players
            .iter()
            .map(|(entity, _, name, position, _, mode, ..)| Candidate {
                entity,
                kind: EntityKind::PLAYER,
                name: Some(name.0.clone()),
                position: position.0,
                game_mode: Some(*mode),
            })
            .collect();
        if !only_players {
            out.extend(
                self.displays
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

    fn select(&mut self, selector: &Selector, context: &Context) -> Vec<Entity> {
        let candidates = self.candidates(selector.only_players());
        let select_context = SelectContext {
            source: context.source.entity(),
            origin: context.origin,
        };
        selector.select(&select_context, &candidates, &mut self.rng.0)
    }

    /// The players among the selected entities.
    fn select_players(&mut self, selector: &Selector, context: &Context) -> Vec<Entity> {
        let mut picked = self.select(selector, context);
        picked.retain(|e| self.players.contains(*e));
        picked
    }

    fn run(&mut self, command: &ParsedCommand, context: &Context) -> Result<(), RunError> {
        if !self.budget.take() {
            return Err(RunError::OverBudget(0));
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
                            client.set_action_bar(text.clone())
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
                for target in self.select_players(targets, context) {
                    if let Ok(mut player) = self.players.get_mut(target) {
                        player.1.write_packet(&packet);
                    }
                }
            }
            ParsedCommand::Teleport {
                targets,
                destination,
            } => self.run_teleport(targets, destination, context)?,
            ParsedCommand::GameMode { mode, targets } => {
                if targets.base == selector::SelectorBase::Source
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
            }
            ParsedCommand::Function(id) => self.run_function(id, context)?,
            ParsedCommand::EmotePlay { emote, target } => {
                for client in self.emote_targets(target.as_ref(), context, "emote play")? {
                    self.play.send(PlayEmoteRequest {
                        client,
                        emote: emote.clone(),
                        bypass: false,
                        cooldown_multiplier: 1.0,
                    });
                }
            }
            ParsedCommand::EmoteStop { target } => {
                for client in self.emote_targets(target.as_ref(), context, "emote stop")? {
                    self.stop.send(StopEmoteRequest {
                        client,
                        reason: EndReason::Stopped,
                    });
                }
            }
        }
        Ok(())
    }

    fn run_particle(
        &mut self,
        command: &ParticleCommand,
        context: &Context,
    ) -> Result<(), RunError> {
        let position = command
            .position
            .resolve(context.origin, self.facing(context.source));
        if let Some(viewers) = &command.viewers {
            for viewer in self.select_players(viewers, context) {
                if let Ok(mut player) = self.players.get_mut(viewer) {
                    player.1.play_particle(
                        &command.particle,
                        command.force,
                        position,
                        command.delta,
                        command.speed,
                        command.count,
                    );
                }
            }
            return Ok(());
        }
        // The layer the source is in; the first world for the server.
        let preferred = match context.source {
            CommandSource::Player(e) => self.players.get(*e).ok().map(|p| p.6 .0),
            CommandSource::Node { entity, .. } => self.displays.get(*entity).ok().map(|d| d.3 .0),
            CommandSource::Server => None,
        };
        let layer = preferred
            .filter(|l| self.layers.contains(*l))
            .or_else(|| self.layers.iter().next().map(|(e, _)| e))
            .ok_or(RunError::NoWorld)?;
        let (_, mut chunks) = self.layers.get_mut(layer).map_err(|_| RunError::NoWorld)?;
        chunks.play_particle(
            &command.particle,
            command.force,
            position,
            command.delta,
            command.speed,
            command.count,
        );
        Ok(())
    }

    fn run_playsound(&mut self, command: &PlaySoundCommand, context: &Context) {
        let position = command
            .position
            .resolve(context.origin, self.facing(context.source));
        // Vanilla's PlaySoundCommand: heard within 16 blocks (× volume above 1).
        let range = if command.volume > 1.0 {
            f64::from(command.volume) * 16.0
        } else {
            16.0
        };
        for target in self.select_players(&command.targets, context) {
            let Ok(mut player) = self.players.get_mut(target) else {
                continue;
            };
            let offset = position - player.3 .0;
            let (at, volume) = if offset.length_squared() > range * range {
                if command.min_volume <= 0.0 {
                    continue;
                }
                (
                    player.3 .0 + offset.normalize_or_zero() * 2.0,
                    command.min_volume,
                )
            } else {
                (position, command.volume)
            };
            let seed = self.rng.0.next_u64() as i64;
            player.1.write_packet(&PlaySoundS2c {
                id: SoundId::Direct {
                    id: Ident::new_unchecked(command.sound.as_str().into()),
                    range: None,
                },
                category: command.category,
                position: (at * 8.0).as_ivec3(),
                volume,
                pitch: command.pitch,
                seed,
            });
        }
    }

    fn run_teleport(
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
                    (
                        p.3 .0,
                        Some(Facing {
                            yaw: p.4.yaw,
                            pitch: p.4.pitch,
                        }),
                    )
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

    fn emote_targets(
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

    fn run_function(&mut self, id: &str, context: &Context) -> Result<(), RunError> {
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
                Err(RunError::OverBudget(n)) => return Err(RunError::OverBudget(n)),
                Err(e) => {
                    let text = format!("{} (function {id}, line {})", line.text, line.number);
                    self.reported.warn(&text, &e.to_string());
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::selector::SelectorBase;

    fn parsed(text: &str) -> ParsedCommand {
        match parse_event_command(text) {
            Ok(c) => c,
            Err(e) => panic!("{text}: {e}"),
        }
    }

    fn error(text: &str) -> String {
        match parse_event_command(text) {
            Ok(c) => panic!("{text} parsed as {c:?}"),
            Err(e) => e.to_string(),
        }
    }

    fn here() -> Coordinates {
        Coordinates::HERE
    }

    #[test]
    fn parses_say_tellraw_title_and_data() {
        assert_eq!(
            parsed("say hi there"),
            ParsedCommand::Say("hi there".into())
        );
        match parsed(r#"title @s actionbar {"text":"Woo!","bold":true}"#) {
            ParsedCommand::Title {
                targets,
                action: TitleAction::Show(kind, _),
            } => {
                assert_eq!(targets.base, SelectorBase::Source);
                assert_eq!(kind, TitleKind::ActionBar);
            }
            other => panic!("{other:?}"),
        }
        match parsed(r#"tellraw @a[distance=..5] {"text":"x"}"#) {
            ParsedCommand::Tellraw { targets, .. } => assert_eq!(targets.text, "@a[distance=..5]"),
            other => panic!("{other:?}"),
        }
        match parsed("title @a times 10 2s 0.5s") {
            ParsedCommand::Title { action, .. } => assert_eq!(
                action,
                TitleAction::Times {
                    fade_in: 10,
                    stay: 40,
                    fade_out: 10
                }
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parsed("title Steve reset"),
            ParsedCommand::Title {
                action: TitleAction::Reset,
                ..
            }
        ));
        match parsed("data merge entity @s {Glowing:1b,glow_color_override:16766720}") {
            ParsedCommand::MergeData {
                target,
                glowing,
                glow_color,
            } => {
                assert_eq!(target.base, SelectorBase::Source);
                assert_eq!(glowing, Some(true));
                assert_eq!(glow_color, Some(16766720));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parses_coordinates() {
        let w = |value, relative| WorldCoord { value, relative };
        assert_eq!(parse_coordinates(["~", "~", "~"]), Ok(here()));
        assert_eq!(
            parse_coordinates(["~1", "~-0.5", "~.5"]),
            Ok(Coordinates::World([
                w(1.0, true),
                w(-0.5, true),
                w(0.5, true)
            ]))
        );
        assert_eq!(
            parse_coordinates(["10", "64", "-3"]),
            Ok(Coordinates::World([
                w(10.5, false),
                w(64.0, false),
                w(-2.5, false)
            ])),
            "whole x and z are block centres"
        );
        assert_eq!(
            parse_coordinates(["10.0", "64.25", "~"]),
            Ok(Coordinates::World([
                w(10.0, false),
                w(64.25, false),
                w(0.0, true)
            ]))
        );
        assert_eq!(
            parse_coordinates(["^", "^1", "^-2"]),
            Ok(Coordinates::Local([0.0, 1.0, -2.0]))
        );
        assert_eq!(parse_coordinates(["^", "~", "^"]), Err(CoordError::Mixed));
        assert_eq!(
            parse_coordinates(["~x", "0", "0"]),
            Err(CoordError::Bad("~x".into()))
        );
        assert_eq!(
            parse_coordinates(["1", "nan", "0"]),
            Err(CoordError::Bad("nan".into()))
        );
        assert!(error("tp @s ^ ~ ^").contains("local coordinates (^) cannot be mixed"));
    }

    #[test]
    fn resolves_relative_and_local_coordinates() {
        let origin = DVec3::new(10.0, 64.0, -5.0);
        let at = |text: [&str; 3], yaw, pitch| {
            parse_coordinates(text)
                .expect("parses")
                .resolve(origin, Facing { yaw, pitch })
        };
        assert!(at(["~", "~1", "~-2"], 0.0, 0.0).abs_diff_eq(DVec3::new(10.0, 65.0, -7.0), 1e-9));
        // Yaw 0 faces +Z (south); left is +X (east).
        assert!(at(["^", "^", "^2"], 0.0, 0.0).abs_diff_eq(DVec3::new(10.0, 64.0, -3.0), 1e-9));
        assert!(at(["^1", "^", "^"], 0.0, 0.0).abs_diff_eq(DVec3::new(11.0, 64.0, -5.0), 1e-9));
        assert!(at(["^", "^1", "^"], 0.0, 0.0).abs_diff_eq(DVec3::new(10.0, 65.0, -5.0), 1e-9));
        // Yaw 90 faces -X (west).
        assert!(at(["^", "^", "^1"], 90.0, 0.0).abs_diff_eq(DVec3::new(9.0, 64.0, -5.0), 1e-9));
        // Pitch 90 looks down: forward is -Y.
        assert!(at(["^", "^", "^1"], 0.0, 90.0).abs_diff_eq(DVec3::new(10.0, 63.0, -5.0), 1e-9));
    }

    #[test]
    fn parses_particles() {
        match parsed("particle minecraft:heart ~ ~1 ~ 0.3 0.2 0.3 0 5") {
            ParsedCommand::Particle(p) => {
                assert_eq!(p.particle, Particle::Heart);
                assert_eq!(p.delta, Vec3::new(0.3, 0.2, 0.3));
                assert_eq!(p.count, 5);
                assert!(!p.force);
                assert_eq!(p.viewers, None);
            }
            other => panic!("{other:?}"),
        }
        match parsed("particle flame") {
            ParsedCommand::Particle(p) => {
                assert_eq!(p.particle, Particle::Flame);
                assert_eq!(p.position, here());
                assert_eq!(p.count, 0);
            }
            other => panic!("{other:?}"),
        }
        match parsed("particle dust 1 0.2 0.2 1 ~ ~ ~ 0.6 0.5 0.6 0 25 force @a[distance=..10]") {
            ParsedCommand::Particle(p) => {
                assert_eq!(
                    p.particle,
                    Particle::Dust {
                        rgb: Vec3::new(1.0, 0.2, 0.2),
                        scale: 1.0
                    }
                );
                assert!(p.force);
                assert_eq!(p.count, 25);
                assert!(p.viewers.is_some());
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parsed("particle block minecraft:stone ~ ~ ~"),
            ParsedCommand::Particle(ParticleCommand {
                particle: Particle::Block(_),
                ..
            })
        ));
        assert!(matches!(
            parsed("particle item diamond"),
            ParsedCommand::Particle(ParticleCommand {
                particle: Particle::Item(Some(_)),
                ..
            })
        ));
        for name in [
            "note",
            "cloud",
            "end_rod",
            "happy_villager",
            "totem_of_undying",
        ] {
            assert!(
                parse_event_command(&format!("particle {name}")).is_ok(),
                "{name}"
            );
        }
        let cases = [
            ("particle", "missing a particle name"),
            ("particle sparkles", "unknown particle `sparkles`"),
            ("particle other:heart", "unknown particle `other:heart`"),
            (
                "particle vibration",
                "`vibration` particle is not supported",
            ),
            ("particle dust 1 0", "missing a blue value"),
            (
                "particle block stone[lit=true]",
                "a block name (without [properties])",
            ),
            ("particle heart ~ ~", "missing a position"),
            ("particle heart ~ ~ ~ 0 0 0 -1", "a speed of at least 0"),
            ("particle heart ~ ~ ~ 0 0 0 0 1.5", "a whole number"),
            ("particle heart ~ ~ ~ 0 0 0 0 1 loud", "`force` or `normal`"),
            ("particle heart ~ ~ ~ 0 0 0 0 1 @a", "`force` or `normal`"),
            (
                "particle heart ~ ~ ~ 0 0 0 0 1 force @q",
                "unknown selector `@q`",
            ),
        ];
        for (text, needle) in cases {
            let message = error(text);
            assert!(message.contains(needle), "{text}: {message}");
        }
    }

    #[test]
    fn parses_sounds() {
        match parsed("playsound minecraft:block.note_block.bell player @a ~ ~ ~ 0.5 1.5") {
            ParsedCommand::PlaySound(s) => {
                assert_eq!(s.sound.as_str(), "minecraft:block.note_block.bell");
                assert_eq!(s.category, SoundCategory::Player);
                assert_eq!(s.targets.base, SelectorBase::AllPlayers);
                assert_eq!((s.volume, s.pitch, s.min_volume), (0.5, 1.5, 0.0));
            }
            other => panic!("{other:?}"),
        }
        match parsed("playsound custom.pack:drum master @s") {
            ParsedCommand::PlaySound(s) => {
                assert_eq!(s.sound.as_str(), "custom.pack:drum", "any identifier");
                assert_eq!(s.position, here());
                assert_eq!((s.volume, s.pitch), (1.0, 1.0));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            parsed("stopsound @a[distance=..24] record minecraft:music_disc.cat"),
            ParsedCommand::StopSound {
                targets: "@a[distance=..24]".parse().expect("selector"),
                category: Some(SoundCategory::Record),
                sound: Some(
                    Ident::new("minecraft:music_disc.cat")
                        .expect("ident")
                        .to_string_ident()
                ),
            }
        );
        assert!(matches!(
            parsed("stopsound @s * ambient.cave"),
            ParsedCommand::StopSound {
                category: None,
                sound: Some(_),
                ..
            }
        ));
        let cases = [
            ("playsound", "missing a sound"),
            ("playsound Bad:Sound player @a", "a sound identifier"),
            ("playsound a.b loud @a", "a sound source"),
            ("playsound a.b player", "missing a target"),
            ("playsound a.b player @a ~ ~ ~ 1 3", "a pitch from 0 to 2"),
            (
                "playsound a.b player @a ~ ~ ~ 1 1 1 9",
                "too many arguments",
            ),
            ("stopsound @a weather a.b c", "too many arguments"),
        ];
        for (text, needle) in cases {
            let message = error(text);
            assert!(message.contains(needle), "{text}: {message}");
        }
    }

    #[test]
    fn parses_teleports() {
        match parsed("tp ~ ~ ~2") {
            ParsedCommand::Teleport {
                targets,
                destination: Destination::Position(Coordinates::World(c), None),
            } => {
                assert_eq!(targets.base, SelectorBase::Source);
                assert_eq!(c[2].value, 2.0);
            }
            other => panic!("{other:?}"),
        }
        match parsed("teleport @a[distance=..3] 0 65 0 90 ~") {
            ParsedCommand::Teleport {
                targets,
                destination: Destination::Position(_, Some(rotation)),
            } => {
                assert_eq!(targets.base, SelectorBase::AllPlayers);
                assert_eq!(rotation.yaw.value, 90.0);
                assert!(rotation.pitch.relative);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parsed("tp @p"),
            ParsedCommand::Teleport {
                destination: Destination::Entity(_),
                ..
            }
        ));
        assert!(matches!(
            parsed("tp Alex Steve"),
            ParsedCommand::Teleport {
                destination: Destination::Entity(_),
                ..
            }
        ));
        let cases = [
            ("tp", "missing a target or a position"),
            ("tp ~ ~", "neither a player name"),
            ("tp @s ~ ~ ~ 90", "missing a pitch"),
            ("tp @s ~ ~ ~ facing @p", "`tp … facing` is not supported"),
            ("tp @s ~ ~ ~ 0 0 0", "too many arguments"),
        ];
        for (text, needle) in cases {
            let message = error(text);
            assert!(message.contains(needle), "{text}: {message}");
        }
    }

    #[test]
    fn parses_gamemode_function_and_emote() {
        assert_eq!(
            parsed("gamemode creative"),
            ParsedCommand::GameMode {
                mode: GameMode::Creative,
                targets: Selector::source()
            }
        );
        assert!(matches!(
            parsed("gamemode adventure @a"),
            ParsedCommand::GameMode {
                mode: GameMode::Adventure,
                ..
            }
        ));
        assert_eq!(
            parsed("function example_pack:confetti"),
            ParsedCommand::Function("example_pack:confetti".into())
        );
        assert_eq!(
            parsed("function sub/dir"),
            ParsedCommand::Function("minecraft:sub/dir".into())
        );
        assert_eq!(
            parsed("emote play example:wave"),
            ParsedCommand::EmotePlay {
                emote: EmoteId::parse("example:wave").expect("id"),
                target: None
            }
        );
        assert!(matches!(
            parsed("emote play example:wave @a"),
            ParsedCommand::EmotePlay {
                target: Some(_),
                ..
            }
        ));
        assert_eq!(
            parsed("emote stop"),
            ParsedCommand::EmoteStop { target: None }
        );
        let cases = [
            ("gamemode 1", "a game mode (survival"),
            ("gamemode hardcore @a", "a game mode"),
            ("gamemode creative @a extra", "too many arguments"),
            (
                "function #minecraft:tick",
                "function tag `#minecraft:tick` is not supported",
            ),
            ("function Bad:Id", "a function id"),
            ("function a:b with {x:1}", "macros"),
            ("emote play wave", "an emote id"),
            ("emote list", "`emote list` is not supported"),
            ("emote", "missing `play` or `stop`"),
        ];
        for (text, needle) in cases {
            let message = error(text);
            assert!(message.contains(needle), "{text}: {message}");
        }
    }

    #[test]
    fn malformed_commands_are_errors_not_panics() {
        let cases = [
            ("", "must not be empty"),
            ("kill @a", "unknown command `kill`"),
            ("tellraw @s {", "invalid JSON text"),
            ("tellraw @s", "missing a JSON text"),
            ("title @s sideways {}", "a title action"),
            ("data get entity @s", "only `data merge entity"),
            ("data merge entity @s {", "invalid SNBT"),
            (
                "tellraw @e[tag=x] {\"text\":\"x\"}",
                "`tag` is not supported",
            ),
        ];
        for (text, needle) in cases {
            let message = error(text);
            assert!(message.contains(needle), "{text}: {message}");
        }
        for junk in [
            "@",
            "tp ^",
            "particle dust",
            "playsound : : :",
            "title @a times",
            "\u{0} \u{fffd}",
        ] {
            let _ = parse_event_command(junk);
        }
    }

    #[test]
    fn the_parser_and_the_load_check_agree() {
        // Every command the load check accepts by name is one this parser knows…
        for name in KNOWN_COMMANDS {
            let message = parse_event_command(name).err().map(|e| e.to_string());
            assert!(
                !message.as_deref().unwrap_or("").contains("unknown command"),
                "{name}: {message:?}"
            );
        }
        // …and the other way round.
        for name in ["kill", "give", "execute", "summon", "scoreboard"] {
            assert!(crate::format::event::check_command(name).is_err(), "{name}");
            assert!(error(name).contains("unknown command"), "{name}");
        }
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
                            if let Err(e) = parse_event_command(command) {
                                panic!("{}: {command}: {e}", path.display());
                            }
                        }
                    }
                }
            }
        }
        assert!(count > 20, "{count}");
    }

    #[test]
    fn every_bundled_function_loads() {
        let roots = [std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/datapacks"
        ))];
        let report = functions::load_functions(&roots);
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        assert!(matches!(
            report.functions.get("example_pack:confetti"),
            FunctionState::Loaded(_)
        ));
    }
}
