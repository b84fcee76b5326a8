//! Blockbench `.bbmodel` projects (format 4.x and 5.x) into schema 4 scene
//! Animations, one per Blockbench animation, whose nodes are the model's
//! groups, cubes, locators and null objects.
//!
//! # The model
//! A `.bbmodel` is already in the space the Bedrock reader converts into
//! (Blockbench's display space: three.js, Y up, px), so this reader
//! shares everything after parsing with [`crate::import::bedrock`]:
//!
//! 1. **Outliner** ([`model`]): groups (5.0's `groups[]` plus a uuid
//!    skeleton, or 4.x's inline groups) become bones at their `origin`
//!    with their rotation (ZYX); cubes become cube nodes at their `origin`
//!    over `from`…`to` grown by `inflate`; locators and null objects
//!    anchors at their `position`; meshes and other elements are dropped
//!    with a note.
//! 2. **Animations** ([`animation`]): animators by uuid, else by name
//!    (ignoring case), legacy `bones`; keyframes with linear, step,
//!    catmull-rom or bezier interpolation and pre/post data points, values
//!    as numbers or Molang; a file older than 5.0 has position x and
//!    rotation x/y negated, as Blockbench 5 does on load.
//! 3. **Evaluation, composition and baking**: the Bedrock reader's
//!    [`curves`](crate::import::bedrock::curves),
//!    [`rig`](crate::import::bedrock::rig) (additive to rest, Euler summed
//!    and composed ZYX, half a turn about Y into the player's frame) and
//!    [`bake`](crate::import::bedrock::bake). Bezier segments are solved
//!    exactly, not by Blockbench's 201 samples (see `curves`).
//!
//! # Effects
//! The `effects` animator's keyframes become server commands at their
//! tick: a sound → `playsound <effect> master @a ~ ~ ~`; a particle →
//! `particle <effect> ~ ~ ~` when the effect is a Java particle that needs
//! no arguments ([`JAVA_PARTICLES`], with or without `minecraft:`), else a
//! note; a timeline script → each of its lines that is a `/command`,
//! other lines (Molang) dropped with a note.
//!
//! # Refused
//! `"<lz>"`-compressed files (Blockbench backups) and format versions
//! newer than 5.0, each with an error saying what to do.
//!
//! # Textures
//! Embedded PNG textures and the cubes' face UVs (per face or box UV)
//! are read by [`faces`]; the scene builder draws a textured cube as an
//! item display whose item model the emote carries in its `resources`
//! ([`crate::import::scene`], "Cubes"). A cube whose texture is not
//! embedded is drawn untextured, with a note.

pub mod animation;
pub mod faces;
pub mod model;

use serde_json::{Map, Value};

use self::animation::{read_animations, Clip, Effect, LoopMode};
use self::model::read_model;
use crate::format::settings::PlaybackMode;
use crate::import::bedrock::bake::{bake, tick_of, ClipSource};
use crate::import::bedrock::values::Expressions;
use crate::import::bedrock::ClipScene;
use crate::import::humanoid::Imported;
use crate::import::scene::{scene_animation_noted, SceneEvent};
use crate::import::{ConvertOptions, ImportError, Note};

/// The newest format this reader knows.
pub const NEWEST_FORMAT: Version = Version(5, 0);

/// Java 1.20.1 particles that take no arguments, so `particle NAME ~ ~ ~`
/// is a whole command.
pub const JAVA_PARTICLES: &[&str] = &[
    "ambient_entity_effect",
    "angry_villager",
    "ash",
    "bubble",
    "bubble_column_up",
    "bubble_pop",
    "campfire_cosy_smoke",
    "campfire_signal_smoke",
    "cherry_leaves",
    "cloud",
    "composter",
    "crimson_spore",
    "crit",
    "current_down",
    "damage_indicator",
    "dolphin",
    "dragon_breath",
    "dripping_dripstone_lava",
    "dripping_dripstone_water",
    "dripping_honey",
    "dripping_lava",
    "dripping_obsidian_tear",
    "dripping_water",
    "effect",
    "egg_crack",
    "elder_guardian",
    "electric_spark",
    "enchant",
    "enchanted_hit",
    "end_rod",
    "entity_effect",
    "explosion",
    "explosion_emitter",
    "falling_dripstone_lava",
    "falling_dripstone_water",
    "falling_honey",
    "falling_lava",
    "falling_nectar",
    "falling_obsidian_tear",
    "falling_spore_blossom",
    "falling_water",
    "firework",
    "fishing",
    "flame",
    "flash",
    "glow",
    "glow_squid_ink",
    "happy_villager",
    "heart",
    "instant_effect",
    "item_slime",
    "item_snowball",
    "landing_honey",
    "landing_lava",
    "landing_obsidian_tear",
    "large_smoke",
    "lava",
    "mycelium",
    "nautilus",
    "note",
    "poof",
    "portal",
    "rain",
    "reverse_portal",
    "scrape",
    "sculk_charge_pop",
    "sculk_soul",
    "small_flame",
    "smoke",
    "sneeze",
    "snowflake",
    "sonic_boom",
    "soul",
    "soul_fire_flame",
    "spit",
    "splash",
    "spore_blossom_air",
    "squid_ink",
    "sweep_attack",
    "totem_of_undying",
    "underwater",
    "warped_spore",
    "wax_off",
    "wax_on",
    "white_ash",
    "witch",
];

/// A `.bbmodel` format version, `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32);

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// Why a `.bbmodel` gave no emote. Every message names the JSON pointer
/// and the rule.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BlockbenchError {
    /// The bytes are not JSON.
    #[error("/: not valid JSON ({message}); a .bbmodel is a JSON file")]
    Json {
        /// The parser's words, with line and column.
        message: String,
    },
    /// A compressed backup.
    #[error("/: this .bbmodel is compressed (it starts with `<lz>`, as Blockbench's backups do); open it in Blockbench and save it as a project, which writes plain JSON")]
    Compressed,
    /// A format newer than this reader knows.
    #[error("/meta/format_version: format {found} is newer than {NEWEST_FORMAT}, the newest this importer reads; save the project from a Blockbench that writes {NEWEST_FORMAT}")]
    TooNew {
        /// The version the file gives.
        found: String,
    },
    /// A value does not have the shape the format gives it.
    #[error("{pointer}: {rule}")]
    Shape {
        /// Where.
        pointer: String,
        /// The rule it breaks.
        rule: String,
    },
    /// The project has no animations.
    #[error(
        "/animations: the project has no animations; animate it in Blockbench's Animate tab first"
    )]
    NoAnimations,
    /// `--clip` names no animation of the project.
    #[error("/animations: no animation is named `{clip}`; the project has {available}")]
    NoSuchClip {
        /// What was asked for.
        clip: String,
        /// The names there are.
        available: String,
    },
    /// The scene could not be built.
    #[error(transparent)]
    Import(#[from] ImportError),
}

/// `bytes`, a `.bbmodel`, as one schema 4 Animation per animation (or
/// only `options.clip`); ids as the Bedrock reader gives them.
pub fn convert(bytes: &[u8], options: &ConvertOptions) -> Result<Vec<Imported>, BlockbenchError> {
    let (clips, shared) = evaluate(bytes, options)?;
    let mut out = Vec::with_capacity(clips.len());
    for (clip, clip_notes) in clips {
        let source_notes = shared.iter().cloned().chain(clip_notes).collect();
        out.push(scene_animation_noted(&clip, source_notes)?);
    }
    Ok(out)
}

/// The scene clips [`convert`] builds (the source's own evaluation at
/// every tick), each with its notes, plus the notes about the model.
pub fn evaluate(
    bytes: &[u8],
    options: &ConvertOptions,
) -> Result<(Vec<ClipScene>, Vec<Note>), BlockbenchError> {
    let text = String::from_utf8_lossy(bytes);
    if text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with("<lz>")
    {
        return Err(BlockbenchError::Compressed);
    }
    let json: Value = serde_json::from_slice(bytes).map_err(|e| BlockbenchError::Json {
        message: e.to_string(),
    })?;
    let Some(root) = json.as_object() else {
        return Err(shape("/", "a .bbmodel is a JSON object"));
    };
    let version = version(root)?;
    let mut shared = Vec::new();
    let model = read_model(root, version, &mut shared)?;
    let mut expressions = Expressions::new();
    let clips = read_animations(root, &model, version, &mut expressions, &mut shared)?;
    if clips.is_empty() {
        return Err(BlockbenchError::NoAnimations);
    }
    let chosen = choose(&clips, options.clip.as_deref())?;
    let several = clips.len() > 1;
    let mut out = Vec::new();
    for clip in chosen {
        let mut notes = Vec::new();
        let events = events(&clip.effects, &mut notes);
        let source = ClipSource {
            id: options.id(several.then_some(clip.name.as_str())),
            name: clip.name.clone(),
            format: "Blockbench",
            pointer: &clip.pointer,
            length_secs: clip.length_secs,
            mode: match clip.mode {
                LoopMode::Once => PlaybackMode::Once,
                LoopMode::Loop => PlaybackMode::Loop,
                LoopMode::Hold => PlaybackMode::Hold,
            },
            animated: &clip.animated,
            expressions: &expressions,
            events,
        };
        let mut scene = bake(&model.rig, source, &mut notes)?;
        scene.textures = model.textures.clone();
        out.push((scene, notes));
    }
    Ok((out, shared))
}

/// `meta.format_version` (or the older `meta.format`): refused when newer
/// than [`NEWEST_FORMAT`]; a file without one is read as 4.0.
fn version(root: &Map<String, Value>) -> Result<Version, BlockbenchError> {
    let meta = root.get("meta");
    let field = meta
        .and_then(|m| m.get("format_version"))
        .or_else(|| meta.and_then(|m| m.get("format")));
    let text = match field {
        None => return Ok(Version(4, 0)),
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => {
            return Err(shape(
                "/meta/format_version",
                "the format version is a string such as \"5.0\"",
            ))
        }
    };
    let mut parts = text.split('.').map(|p| p.trim().parse::<u32>());
    let found = match (parts.next(), parts.next()) {
        (Some(Ok(major)), Some(Ok(minor))) => Version(major, minor),
        (Some(Ok(major)), None) => Version(major, 0),
        _ => {
            return Err(shape(
                "/meta/format_version",
                &format!("`{text}` is not a format version such as \"5.0\""),
            ))
        }
    };
    let newer_patch = found == NEWEST_FORMAT && parts.any(|p| p.map_or(true, |n| n > 0));
    if found > NEWEST_FORMAT || newer_patch {
        return Err(BlockbenchError::TooNew { found: text });
    }
    Ok(found)
}

/// The clips to convert: all, or the one `wanted` names.
fn choose<'a>(clips: &'a [Clip], wanted: Option<&str>) -> Result<Vec<&'a Clip>, BlockbenchError> {
    let Some(wanted) = wanted else {
        return Ok(clips.iter().collect());
    };
    clips
        .iter()
        .find(|c| c.name == wanted)
        .or_else(|| clips.iter().find(|c| c.name.eq_ignore_ascii_case(wanted)))
        .map(|c| vec![c])
        .ok_or_else(|| BlockbenchError::NoSuchClip {
            clip: wanted.to_owned(),
            available: clips
                .iter()
                .map(|c| format!("`{}`", c.name))
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// True when `effect` names a Java particle `particle` runs without
/// arguments.
pub fn is_java_particle(effect: &str) -> bool {
    JAVA_PARTICLES.contains(&effect.strip_prefix("minecraft:").unwrap_or(effect))
}

/// Effect keyframes as commands where one exists (module guide).
fn events(effects: &[Effect], notes: &mut Vec<Note>) -> Vec<SceneEvent> {
    let mut out = Vec::new();
    for effect in effects {
        let mut commands = Vec::new();
        match effect.channel.as_str() {
            "sound" if !effect.effect.is_empty() => {
                commands.push(format!("playsound {} master @a ~ ~ ~", effect.effect));
            }
            "particle" if is_java_particle(&effect.effect) => {
                commands.push(format!("particle {} ~ ~ ~", effect.effect));
            }
            "particle" => notes.push(Note::new(
                effect.pointer.clone(),
                format!("particle `{}` is not a Java particle the `particle` command takes without arguments; dropped", effect.effect),
            )),
            "timeline" => {
                for line in effect.script.lines().map(str::trim).filter(|l| !l.is_empty()) {
                    match line.strip_prefix('/') {
                        Some(command) => commands.push(command.trim().to_owned()),
                        None => notes.push(Note::new(
                            effect.pointer.clone(),
                            format!("timeline Molang `{line}` is dropped: an emote's timeline runs commands"),
                        )),
                    }
                }
            }
            other => notes.push(Note::new(
                effect.pointer.clone(),
                format!("a `{other}` effect without an effect name is dropped"),
            )),
        }
        if !commands.is_empty() {
            out.push(SceneEvent {
                tick: tick_of(effect.time_secs),
                source: effect.pointer.clone(),
                commands,
            });
        }
    }
    out
}

/// A [`BlockbenchError::Shape`].
pub(crate) fn shape(pointer: &str, rule: &str) -> BlockbenchError {
    BlockbenchError::Shape {
        pointer: pointer.to_owned(),
        rule: rule.to_owned(),
    }
}

#[cfg(test)]
mod tests;
