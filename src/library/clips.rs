//! `.anim` clips as emotes: a clip an admin drops into `emotes/` (or a
//! datapack's `data/<namespace>/emotes/`) plays with `/emote play` like a
//! schema 4 file, drawn with display entities for vanilla players and as
//! bones for modded ones.
//!
//! # The model
//! A clip is seed 000's body clip, played alone on the player's body from
//! tick 0, as a track of weight 1 over the rest pose (so its joint
//! weights, its mask and `additive` apply as [`crate::anim::layers`]
//! says). Loading turns it into a schema 4 Animation on emoted's humanoid
//! rig ([`crate::import::humanoid`]): the clip is sampled at every tick of
//! one cycle, each joint's pose becomes that joint's
//! [`JointFrame`], and the rig's tracks are
//! thinned back to within 0.01 block and 0.25° (the body's tolerance,
//! [`crate::import::keys::Tolerances::BODY`]). From there it is an
//! Animation like any other: compiled, given its bone form for modded
//! viewers, and played by the same engine.
//!
//! - **Axes.** A clip's joints turn in the body's own frame as Blockbench
//!   and seed 001 show it: +X right, +Y up, −Z forward, angles in the
//!   right-handed sense, so `rightArm` turned +90° about X points forward.
//!   emoted's player frame faces +Z with the right hand at −X: half a turn
//!   about Y (`C`). A joint's rotation `q` becomes `C·q·C⁻¹` (the axis's
//!   x and z negated) and its offset `(x, y, z)` becomes `(−x, y, −z)`.
//!   Each joint turns about the vanilla model's pivot (neck, shoulders,
//!   hips; the torso at the neck), as seed 001's body does.
//! - **Joints.** `head`, `torso`, the arms and the legs move those parts;
//!   `root` moves the whole body (feet at the origin). `cape`, the wings
//!   and the spin joints have no part on the rig (a warning). Scale does
//!   not carry over: the player's parts keep their size (a warning).
//! - **Time.** One cycle is `length / speed` seconds of track time (twice
//!   that for `pingpong`, which becomes a loop that runs back), rounded to
//!   whole ticks; the clip is stretched by less than half a tick so the
//!   cycle ends exactly on a tick, and a loop's last tick is its first.
//!   `loop` and `pingpong` loop, `once` plays once, `hold` holds the last
//!   pose until stopped.
//! - **Cues.** Each sound becomes a command event at its tick (every pass,
//!   for `pingpong`): `playsound SOUND player @a ~ ~ ~ VOLUME PITCH` run by
//!   the server at the player, a sound id without a namespace taken as
//!   `minecraft:`. Events and plays have nothing on the server to run
//!   them (a warning each). Markers are named times for scripts, and
//!   `autoplay` and `priority` mean nothing for a clip that plays alone:
//!   they are read and pass in silence.
//! - **Refused.** A `view` clip (a body's animator refuses it), a clip
//!   with no joint on the player's body, and one whose cycle is longer
//!   than a schema 4 timeline.
//!
//! **Ids.** A clip has no id inside it. One in a datapack's
//! `data/<namespace>/emotes/<path>.anim` is `<namespace>:<path>`; any
//! other is `clip:<name>`, its file name without `.anim`. Upper case
//! becomes lower case and any other character outside `a-z 0-9 _ - .`
//! becomes `_`, so `Big Wave.anim` is `clip:big_wave`. Its `name` (the
//! wheel, tab completion) is the file name. Two clips with one id are both
//! refused, as two files sharing an id are.

use std::path::{Component, Path};
use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use serde_json::{json, Map, Value};

use super::{bone_form, CompiledAnimation, Parsed};
use crate::anim::bones::{BodyJoint as PlayerJoint, JointFrame};
use crate::anim::clip::CompiledClip;
use crate::anim::layers::{blend_joint, JointPose};
use crate::format::clip::{read_clip_file, BodyJoint, ClipFile, ClipSpace, LoopMode};
use crate::format::settings::PlaybackMode;
use crate::format::{parse_emote_value, AnimationFile, EmoteFile, Problem, MAX_TIMELINE_TICKS};
use crate::import::humanoid::{humanoid_animation, BodyClip, BodyPose, Imported};

/// Ticks per second of track time.
const TICKS_PER_SEC: f32 = 20.0;

/// Reads the clip at `path` as the schema 4 Animation it plays as (module
/// docs), with its problems; `None` when it is refused.
pub fn read_clip_animation(path: &Path) -> (Vec<Problem>, Option<AnimationFile>) {
    let report = read_clip_file(path);
    let mut problems = report.problems;
    let Some(clip) = report.file else {
        return (problems, None);
    };
    let id = clip_id(path);
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| id.clone());
    match clip_animation(&clip, &id, &name, &mut problems) {
        Ok(file) => (problems, Some(file)),
        Err(problem) => {
            problems.push(problem);
            (problems, None)
        }
    }
}

/// Reads the clip at `path` and builds its emote (module docs).
pub(super) fn read_clip_emote(path: &Path) -> (Vec<Problem>, Option<Parsed>) {
    let (mut problems, file) = read_clip_animation(path);
    let Some(file) = file else {
        return (problems, None);
    };
    let compiled = match CompiledAnimation::compile(&file) {
        Ok(compiled) => compiled,
        Err(mut errors) => {
            problems.append(&mut errors);
            return (problems, None);
        }
    };
    let bones = match bone_form(&compiled, &file) {
        Ok(form) => form.map(Arc::new),
        Err(e) => {
            problems.push(Problem::warning(
                "/joints",
                format!("no bone form for modded clients (they see the displays): {e}"),
            ));
            None
        }
    };
    let file = Arc::new(EmoteFile::Animation(file));
    (problems, Some((file, Some(Arc::new(compiled)), bones)))
}

/// The emote id of the clip at `path` (module docs).
pub fn clip_id(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let stem = |file: &str| file.strip_suffix(".anim").unwrap_or(file).to_owned();
    // .../<pack>/data/<namespace>/emotes/<path>.anim, pack.mcmeta beside data.
    for (i, part) in parts.iter().enumerate() {
        let is_pack_data = part == "data"
            && parts.get(i + 2).is_some_and(|e| e == "emotes")
            && parts.len() > i + 3
            && path
                .ancestors()
                .nth(parts.len() - i)
                .is_some_and(|pack| pack.join("pack.mcmeta").is_file());
        if is_pack_data {
            let namespace = id_part(&parts[i + 1]);
            let mut rest: Vec<String> = parts[i + 3..].to_vec();
            if let Some(last) = rest.last_mut() {
                *last = stem(last);
            }
            let rest: Vec<String> = rest.iter().map(|p| id_part(p)).collect();
            return format!("{namespace}:{}", rest.join("/"));
        }
    }
    let file = parts.last().map(|f| stem(f)).unwrap_or_default();
    format!("clip:{}", id_part(&file))
}

/// `text` with upper case lowered and every character outside
/// `a-z 0-9 _ - .` made `_`; never empty.
fn id_part(text: &str) -> String {
    let out: String = text
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || "_-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        "_".to_owned()
    } else {
        out
    }
}

/// The player part a clip joint moves (`None`: the root, or no part).
fn player_joint(joint: BodyJoint) -> Option<PlayerJoint> {
    Some(match joint {
        BodyJoint::Head => PlayerJoint::Head,
        BodyJoint::Torso => PlayerJoint::Torso,
        BodyJoint::RightArm => PlayerJoint::RightArm,
        BodyJoint::LeftArm => PlayerJoint::LeftArm,
        BodyJoint::RightLeg => PlayerJoint::RightLeg,
        BodyJoint::LeftLeg => PlayerJoint::LeftLeg,
        _ => return None,
    })
}

/// A turn in the clip's frame as the same turn in the player's (`C·q·C⁻¹`,
/// `C` half a turn about Y).
pub fn player_rotation(clip_rotation: Quat) -> Quat {
    Quat::from_xyzw(
        -clip_rotation.x,
        clip_rotation.y,
        -clip_rotation.z,
        clip_rotation.w,
    )
}

/// An offset in the clip's frame in the player's (`C·p`).
pub fn player_offset(clip_offset: Vec3) -> Vec3 {
    Vec3::new(-clip_offset.x, clip_offset.y, -clip_offset.z)
}

/// How a clip's cycle plays as a schema 4 timeline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipCycle {
    /// The cycle in whole ticks.
    pub duration_ticks: u32,
    /// Track seconds per tick of the timeline (1/20, stretched by under
    /// half a tick over the cycle).
    pub secs_per_tick: f32,
    /// The schema 4 mode.
    pub mode: PlaybackMode,
}

impl ClipCycle {
    /// The cycle of `clip`, or the problem that refuses it.
    pub fn of(clip: &ClipFile) -> Result<ClipCycle, Problem> {
        let passes = if clip.loop_mode == LoopMode::PingPong {
            2.0
        } else {
            1.0
        };
        let cycle_secs = clip.length_secs * passes / clip.speed;
        let ticks = (cycle_secs * TICKS_PER_SEC).round();
        if !ticks.is_finite() || ticks > MAX_TIMELINE_TICKS as f32 {
            return Err(Problem::error(
                "/length",
                format!(
                    "one cycle lasts {cycle_secs} s of track time; an emote is at most {} s (10 minutes)",
                    MAX_TIMELINE_TICKS / 20
                ),
            ));
        }
        let duration_ticks = (ticks as u32).max(1);
        Ok(ClipCycle {
            duration_ticks,
            secs_per_tick: if cycle_secs > 0.0 {
                cycle_secs / duration_ticks as f32
            } else {
                1.0 / TICKS_PER_SEC
            },
            mode: match clip.loop_mode {
                LoopMode::Loop | LoopMode::PingPong => PlaybackMode::Loop,
                LoopMode::Once => PlaybackMode::Once,
                LoopMode::Hold => PlaybackMode::Hold,
            },
        })
    }
}

/// The body's pose at each tick of `clip`'s cycle, and the warnings for
/// what does not carry over, or the problem that refuses the clip.
pub fn clip_poses(
    clip: &ClipFile,
    problems: &mut Vec<Problem>,
) -> Result<(ClipCycle, Vec<BodyPose>), Problem> {
    if clip.space == ClipSpace::View {
        return Err(Problem::error(
            "/space",
            "a view clip plays on the view model; a player's body refuses it, so it is not an emote",
        ));
    }
    let cycle = ClipCycle::of(clip)?;
    let compiled = CompiledClip::compile(clip, None);
    let mut moved = false;
    for (joint, written) in compiled.joints().iter().zip(&clip.joints) {
        let pointer = format!("/joints/{}", pointer_token(&written.name));
        if !joint.is_playing() {
            continue;
        }
        match joint.body_joint() {
            Some(BodyJoint::Root) => moved = true,
            Some(body) if player_joint(body).is_some() => moved = true,
            Some(body) => problems.push(Problem::warning(
                pointer,
                format!(
                    "`{}` plays on the body's `{}`, which emoted's humanoid rig has no part for; it stays still",
                    written.name,
                    body.name()
                ),
            )),
            None => problems.push(Problem::warning(
                pointer,
                format!("`{}` is no joint of the player's body; it stays still", written.name),
            )),
        }
        if written.scale.is_some() {
            problems.push(Problem::warning(
                format!("/joints/{}/scale", pointer_token(&written.name)),
                "scale does not carry over to a player's body: its parts keep their size",
            ));
        }
    }
    if !moved {
        return Err(Problem::error(
            "/joints",
            "no joint plays on the player's body (head, torso, arms, legs or root), so the clip cannot be an emote",
        ));
    }
    let mut pose = compiled.new_pose();
    let poses = (0..=cycle.duration_ticks)
        .map(|tick| {
            let elapsed = tick as f32 * cycle.secs_per_tick;
            compiled.sample_into(compiled.clip_time(elapsed), &mut pose);
            let mut body = BodyPose::default();
            for (joint, sample) in compiled.joints().iter().zip(pose.samples()) {
                let Some(target) = joint.body_joint().filter(|_| joint.is_playing()) else {
                    continue;
                };
                let track = compiled.track_on_joint(sample, 1.0);
                let moved = blend_joint(JointPose::REST, &[track]);
                let rotation = player_rotation(moved.rotation).normalize();
                let offset = player_offset(moved.position);
                match player_joint(target) {
                    Some(part) => {
                        body.joints.insert(
                            part,
                            JointFrame {
                                rotation,
                                pivot: part.rest_pivot() + offset,
                                bend: None,
                            },
                        );
                    }
                    None if target == BodyJoint::Root => {
                        body.body = Some(Affine3A::from_rotation_translation(rotation, offset));
                    }
                    None => {}
                }
            }
            body
        })
        .collect();
    Ok((cycle, poses))
}

/// `clip` as a schema 4 Animation with id `id` and name `name`; warnings
/// go into `problems`.
pub fn clip_animation(
    clip: &ClipFile,
    id: &str,
    name: &str,
    problems: &mut Vec<Problem>,
) -> Result<AnimationFile, Problem> {
    clip_imported(clip, id, name, problems).map(|imported| imported.file)
}

/// [`clip_animation`] with the JSON written and the humanoid rig's notes
/// (what `emoted convert` writes).
pub fn clip_imported(
    clip: &ClipFile,
    id: &str,
    name: &str,
    problems: &mut Vec<Problem>,
) -> Result<Imported, Problem> {
    let (cycle, poses) = clip_poses(clip, problems)?;
    let mut metadata = Map::new();
    metadata.insert("name".to_owned(), Value::String(name.to_owned()));
    let body = BodyClip {
        id: id.to_owned(),
        metadata,
        duration_ticks: cycle.duration_ticks,
        mode: cycle.mode,
        loop_delay_ticks: 0,
        poses,
    };
    let mut imported = humanoid_animation(&body)
        .map_err(|e| Problem::error("", format!("the clip does not convert: {e}")))?;
    let events = cue_events(clip, cycle, problems);
    if events.is_empty() {
        return Ok(imported);
    }
    let mut json = imported.json.clone();
    if let Some(timeline) = json.get_mut("timeline").and_then(Value::as_object_mut) {
        timeline.insert("events".to_owned(), json!({ "timeline": events }));
    }
    match parse_emote_value(&json).file {
        Some(EmoteFile::Animation(file)) => {
            imported.json = json;
            imported.file = file;
        }
        _ => {
            // A sound id the schema 4 reader refuses in a command: the
            // motion still plays, without the sounds.
            problems.push(Problem::warning(
                "/sounds",
                "the sounds do not make valid commands; the clip plays without them",
            ));
        }
    }
    Ok(imported)
}

/// The clip's sounds as timeline command events, and a warning for each
/// event and play (module docs).
fn cue_events(clip: &ClipFile, cycle: ClipCycle, problems: &mut Vec<Problem>) -> Vec<Value> {
    let mut events = Vec::new();
    for (i, sound) in clip.sounds.iter().enumerate() {
        let Some(id) = sound_id(&sound.sound) else {
            problems.push(Problem::warning(
                format!("/sounds/{i}/sound"),
                format!(
                    "`{}` is not a Minecraft sound id; it is not played",
                    sound.sound
                ),
            ));
            continue;
        };
        let track_secs = sound.time_secs / clip.speed;
        let mut passes = vec![track_secs];
        if clip.loop_mode == LoopMode::PingPong {
            passes.push((2.0 * clip.length_secs - sound.time_secs) / clip.speed);
        }
        for secs in passes {
            let tick = (secs / cycle.secs_per_tick).round();
            if !(0.0..cycle.duration_ticks as f32).contains(&tick) {
                continue;
            }
            events.push(json!({
                "time": format!("{}t", tick as u32),
                "source": {"type": "server"},
                "origin": {"type": "root"},
                "commands": [format!(
                    "playsound {id} player @a ~ ~ ~ {} {}",
                    sound.volume, sound.pitch
                )],
            }));
        }
    }
    for (i, _) in clip.events.iter().enumerate() {
        problems.push(Problem::warning(
            format!("/events/{i}"),
            "clip events have nothing on the server to run them; it does not carry over (use a schema 4 file's command events)",
        ));
    }
    for (i, _) in clip.plays.iter().enumerate() {
        problems.push(Problem::warning(
            format!("/plays/{i}"),
            "an emote plays one clip; a play of another does not carry over",
        ));
    }
    events
}

/// `sound` as a resource location (`minecraft:` when it has no namespace),
/// or `None` when it is not one.
fn sound_id(sound: &str) -> Option<String> {
    let id = if sound.contains(':') {
        sound.to_owned()
    } else {
        format!("minecraft:{sound}")
    };
    let (namespace, path) = id.split_once(':')?;
    let ok = |s: &str, extra: &str| {
        !s.is_empty()
            && s.chars().all(|c| {
                c.is_ascii_lowercase()
                    || c.is_ascii_digit()
                    || "_-.".contains(c)
                    || extra.contains(c)
            })
    };
    (ok(namespace, "") && ok(path, "/")).then_some(id)
}

/// `name` escaped as one JSON pointer token.
fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests;
