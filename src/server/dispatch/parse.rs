//! Event command text into [`ParsedCommand`]: the commands emoted runs
//! and their arguments.

use valence::ident::Ident;
use valence::prelude::*;
use valence::protocol::sound::SoundCategory;

use super::particles::*;
pub(super) use crate::format::event::KNOWN_COMMANDS;
use crate::format::EmoteId;
use crate::server::syntax::selector::Selector;
use crate::server::syntax::{
    looks_like_coordinate, parse_gamemode, parse_parameter_value, parse_plain_number,
    parse_teleport, split_command, CommandError, Coordinates, Destination, Rotations, Words,
};

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
    /// `emote set <parameter> <value> [player]`: a parameter of the
    /// controller a player plays.
    EmoteSet {
        /// The parameter.
        parameter: String,
        /// Its value (`true`/`false` are 1/0).
        value: f32,
        /// Whose controller (`None`: the source player).
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

/// Validates a function id: `namespace:path` (namespace defaults to `minecraft`).
pub fn parse_function_id(word: &str) -> Result<String, CommandError> {
    if word.starts_with('#') {
        return Err(CommandError::Unsupported {
            what: format!("Function tag `{word}`"),
            hint: "name one function (namespace:path)",
        });
    }
    Ident::new(word)
        .map(|i| i.as_str().to_owned())
        .map_err(|_| CommandError::Invalid {
            found: word.to_owned(),
            expected: "a function id (namespace:path, lowercase)",
            usage: FUNCTION_USAGE,
        })
}

/// How `tp` is written in an event.
const TP_USAGE: &str =
    "tp <x y z> [yaw pitch] | tp <targets> <x y z> [yaw pitch] | tp [targets] <destination entity>";

/// How `function` is written.
const FUNCTION_USAGE: &str = "function <namespace:path>";

/// Parses one event command.
pub fn parse_event_command(command: &str) -> Result<ParsedCommand, CommandError> {
    let (name, rest) = split_command(command, "say hello")?;
    match name {
        "say" => Ok(ParsedCommand::Say(rest.trim().to_owned())),
        "tellraw" => {
            let mut w = Words::new("tellraw <targets> <json text>", rest);
            let targets = w.target()?;
            if w.is_empty() {
                return Err(w.missing("a JSON text"));
            }
            Ok(ParsedCommand::Tellraw {
                targets,
                text: parse_text(&mut w)?,
            })
        }
        "title" => parse_title(rest),
        "data" => {
            let mut w = Words::new("data merge entity <target> {…}", rest);
            if w.next() != Some("merge") || w.next() != Some("entity") {
                return Err(CommandError::Unsupported {
                    what: format!("`{}`", command.trim()),
                    hint: "only `data merge entity <target> {…}` is supported",
                });
            }
            let target = w.target()?;
            if w.is_empty() {
                return Err(w.missing("an SNBT compound"));
            }
            let compound = crate::format::snbt::parse_compound(w.rest()).map_err(|message| {
                CommandError::Snbt {
                    message,
                    usage: w.usage(),
                }
            })?;
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
            let mut w = Words::new("stopsound <targets> [source|*] [sound]", rest);
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
        "tp" | "teleport" => {
            let mut w = Words::new(TP_USAGE, rest);
            let tp = parse_teleport(&mut w, Rotations::Read)?;
            Ok(ParsedCommand::Teleport {
                targets: tp.targets,
                destination: tp.destination,
            })
        }
        "gamemode" => {
            let mut w = Words::new("gamemode <mode> [targets]", rest);
            let command = parse_gamemode(&mut w)?;
            Ok(ParsedCommand::GameMode {
                mode: command.mode,
                targets: command.targets,
            })
        }
        "function" => {
            let mut w = Words::new(FUNCTION_USAGE, rest);
            let id = parse_function_id(w.require("a function id")?)?;
            if !w.is_empty() {
                return Err(CommandError::Unsupported {
                    what: "Function arguments (macros)".to_owned(),
                    hint: "1.20.1 functions take no arguments",
                });
            }
            Ok(ParsedCommand::Function(id))
        }
        "emote" => {
            let mut w = Words::new(
                "emote play <id> [player] | emote stop [player] | emote set <parameter> <value> [player]",
                rest,
            );
            match w.require("`play`, `stop` or `set`")? {
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
                "set" => {
                    let parameter = w.require("a parameter")?.to_owned();
                    let word = w.require("a value")?;
                    let value = parse_parameter_value(word)
                        .ok_or_else(|| w.invalid(word, "a number, true or false"))?;
                    let target = if w.is_empty() {
                        None
                    } else {
                        Some(w.target()?)
                    };
                    w.finish()?;
                    Ok(ParsedCommand::EmoteSet {
                        parameter,
                        value,
                        target,
                    })
                }
                other => Err(CommandError::Unsupported {
                    what: format!("`emote {other}`"),
                    hint: "events run only `emote play <id> [player]`, `emote stop [player]` and `emote set <parameter> <value> [player]`",
                }),
            }
        }
        other => Err(CommandError::UnknownCommand {
            name: other.to_owned(),
            known: KNOWN_COMMANDS.join(", "),
        }),
    }
}

pub(super) fn parse_title(rest: &str) -> Result<ParsedCommand, CommandError> {
    let usage =
        "title <targets> title|subtitle|actionbar <json> | clear | reset | times <in> <stay> <out>";
    let mut w = Words::new(usage, rest);
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
            TitleAction::Show(kind, parse_text(&mut w)?)
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

pub(super) fn parse_particle_command(rest: &str) -> Result<ParsedCommand, CommandError> {
    let usage =
        "particle <name> [params] [x y z] [dx dy dz] [speed] [count] [force|normal] [viewers]";
    let mut w = Words::new(usage, rest);
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

pub(super) fn parse_playsound(rest: &str) -> Result<ParsedCommand, CommandError> {
    let usage = "playsound <sound> <source> <targets> [x y z] [volume] [pitch] [min volume]";
    let mut w = Words::new(usage, rest);
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

/// The rest of the line as a JSON text component.
pub(super) fn parse_text(words: &mut Words) -> Result<Text, CommandError> {
    let json = words.take_rest();
    serde_json::from_str::<Text>(json).map_err(|e| CommandError::Text {
        json: json.to_owned(),
        message: e.to_string(),
        usage: words.usage(),
    })
}

/// A time in ticks: `20`, `20t`, `1s`, `1d` (a plain number, as everywhere).
pub(super) fn parse_ticks(word: &str) -> Option<i32> {
    let (number, scale) = match word.as_bytes().last()? {
        b't' => (&word[..word.len() - 1], 1.0),
        b's' => (&word[..word.len() - 1], 20.0),
        b'd' => (&word[..word.len() - 1], 24000.0),
        _ => (word, 1.0),
    };
    let ticks = parse_plain_number(number)? * scale;
    (ticks.is_finite() && (0.0..=f64::from(i32::MAX)).contains(&ticks))
        .then(|| ticks.round() as i32)
}
