//! From a rig and its channels to a [`SceneClip`], shared by the Bedrock
//! and `.bbmodel` readers: the timeline's length in ticks, every node's
//! local transform at every tick, and the notes for what resampling does.
//!
//! Tick `t` shows source time `min(t / 20 s, length)`: a length that is no
//! whole number of ticks is rounded to the nearest tick (at least 1), and
//! the last tick shows the source's last moment.

use serde_json::{json, Map};

use super::curves::{Channel, Interpolation};
use super::rig::{to_player, NodeChannels, Rig};
use super::values::Expressions;
use crate::format::settings::PlaybackMode;
use crate::format::MAX_TIMELINE_TICKS;
use crate::import::scene::{SceneClip, SceneEvent};
use crate::import::{ImportError, Note};

/// Ticks per second.
pub const TICKS_PER_SEC: f64 = 20.0;

/// What a clip needs besides its rig.
pub struct ClipSource<'a> {
    /// The emote id.
    pub id: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.source` (`Bedrock`, `Blockbench`).
    pub format: &'static str,
    /// Where the source has the animation.
    pub pointer: &'a str,
    /// Its length, seconds.
    pub length_secs: f64,
    /// How it plays.
    pub mode: PlaybackMode,
    /// Node `i`'s channels.
    pub animated: &'a [Option<NodeChannels>],
    /// The expressions its values name.
    pub expressions: &'a Expressions,
    /// Commands at their ticks.
    pub events: Vec<SceneEvent>,
}

/// The timeline's length for `length_secs`: rounded to the nearest tick,
/// at least 1, at most [`MAX_TIMELINE_TICKS`]; notes when it changed.
pub fn duration_ticks(
    length_secs: f64,
    pointer: &str,
    notes: &mut Vec<Note>,
) -> Result<u32, ImportError> {
    let exact = length_secs * TICKS_PER_SEC;
    let rounded = exact.round();
    if rounded > f64::from(MAX_TIMELINE_TICKS) {
        return Err(ImportError::TooLong {
            pointer: pointer.to_owned(),
            ticks: rounded as i64,
            max_ticks: MAX_TIMELINE_TICKS,
        });
    }
    let ticks = (rounded as u32).max(1);
    if (exact - f64::from(ticks)).abs() > 1e-6 {
        notes.push(Note::new(
            pointer,
            format!("the animation lasts {length_secs} s ({exact:.3} ticks); the emote lasts {ticks} ticks"),
        ));
    }
    Ok(ticks)
}

/// The tick the source time `time_secs` falls on.
pub fn tick_of(time_secs: f64) -> u32 {
    (time_secs * TICKS_PER_SEC)
        .round()
        .clamp(0.0, f64::from(u32::MAX)) as u32
}

/// `source` sampled at every tick on `rig`.
pub fn bake(
    rig: &Rig,
    source: ClipSource<'_>,
    notes: &mut Vec<Note>,
) -> Result<SceneClip, ImportError> {
    let duration = duration_ticks(source.length_secs, source.pointer, notes)?;
    let looping = matches!(source.mode, PlaybackMode::Loop | PlaybackMode::ServerSync);
    let mut values = source.expressions.evaluator(source.length_secs);
    let frames: Vec<_> = (0..=duration)
        .map(|tick| {
            let time = (f64::from(tick) / TICKS_PER_SEC).min(source.length_secs);
            values.set_time_secs(time);
            rig.pose(source.animated, time, looping, &mut values)
        })
        .collect();
    let mut metadata = Map::new();
    metadata.insert("name".to_owned(), json!(source.name));
    metadata.insert("source".to_owned(), json!(source.format));
    Ok(SceneClip {
        id: source.id,
        metadata,
        duration_ticks: duration,
        mode: source.mode,
        loop_delay_ticks: 0,
        to_player: to_player(),
        nodes: rig.scene_nodes(&frames),
        events: source.events,
        textures: Vec::new(),
    })
}

/// Notes for what resampling does to `channel` at `pointer`: curves
/// schema 4 cannot write, Molang, jumps.
pub fn note_channel(channel: &Channel, rotation: bool, pointer: &str, notes: &mut Vec<Note>) {
    if channel.is_empty() {
        return;
    }
    let mut kinds: Vec<&str> = channel
        .interpolations()
        .into_iter()
        .filter(|i| matches!(i, Interpolation::CatmullRom | Interpolation::Bezier))
        .map(Interpolation::name)
        .collect();
    if rotation && channel.keys().len() > 1 {
        kinds.push("Euler angles (interpolated per axis, composed ZYX)");
    }
    let molang = channel.keys().iter().any(|k| {
        k.points.iter().any(|p| {
            p.iter()
                .any(|s| matches!(s, super::curves::Scalar::Molang { .. }))
        })
    });
    if molang {
        kinds.push("Molang");
    }
    if !kinds.is_empty() {
        notes.push(Note::new(
            pointer,
            format!("{} resampled at 20 tps", kinds.join(", ")),
        ));
    }
    for key in channel.keys().iter().filter(|k| !k.is_single()) {
        notes.push(Note::new(
            pointer,
            format!(
                "the jump at {} s (pre ≠ post) plays across one tick",
                key.time_secs
            ),
        ));
    }
}
