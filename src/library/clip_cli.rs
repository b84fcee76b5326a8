//! What `emoted check` does with `.retarget` maps, and what `emoted
//! sample` does with `.anim` clips. Clips themselves are emotes: the
//! library loads and checks them beside schema 4 files
//! ([`super::clips`]).
//!
//! `check` finds retarget maps by extension in the folders it is given
//! ([`super::discover::retarget_files`]) and prints each problem as
//! `FILE: /pointer: message`, warnings too (as `warning: …`); only errors
//! count against the exit code. `sample` reads one clip and prints one JSON
//! line per tick; a tick is 1/20 s of track time, turned into clip time by
//! the clip's speed and loop mode ([`CompiledClip::clip_time`]). Each
//! line lists the joints that play (not muted, in the mask, not kept off),
//! by the name they play on, with the channels they have (a channel the
//! joint lacks is left out: it leaves the joint alone) and their weight.
//! `sample` over several clips ([`sample_layered`]) plays them together
//! on one body and prints each joint as the layering leaves it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::discover::is_retarget_path;
use crate::anim::clip::CompiledClip;
use crate::anim::layers::{blend_joint, fade_factor, JointPose, TrackOnJoint};
use crate::format::clip::{read_clip_file, read_retarget_file};

/// Track seconds per tick.
const SECS_PER_TICK: f32 = 1.0 / 20.0;

/// The outcome of checking retarget maps.
#[derive(Clone, Debug, Default)]
pub struct RetargetCheckReport {
    /// Retarget maps read.
    pub file_count: usize,
    /// Maps without errors.
    pub valid_count: usize,
    /// Maps with at least one error.
    pub refused_count: usize,
    /// Errors over all maps.
    pub error_count: usize,
    /// `FILE: /pointer: message` lines, in path order.
    pub lines: Vec<String>,
}

impl RetargetCheckReport {
    /// `, N retarget maps valid` for `check`'s summary, or nothing when no
    /// map was read.
    pub fn summary(&self) -> String {
        match self.file_count {
            0 => String::new(),
            _ => format!(", {} retarget maps valid", self.valid_count),
        }
    }
}

/// True for a path `check` gives to the retarget reader rather than the
/// library: an existing file named `*.retarget`.
pub fn is_retarget_file(path: &Path) -> bool {
    path.is_file() && is_retarget_path(path)
}

/// Checks every retarget map in `roots` (files, or folders searched
/// recursively); other files and missing paths are left to the library.
pub fn check_retarget_maps(roots: &[PathBuf]) -> RetargetCheckReport {
    let mut report = RetargetCheckReport::default();
    for root in roots {
        let found = if root.is_dir() {
            super::discover::retarget_files(root).unwrap_or_else(|e| {
                report.error_count += 1;
                report
                    .lines
                    .push(format!("{}: : cannot read: {e}", root.display()));
                Vec::new()
            })
        } else if is_retarget_file(root) {
            vec![root.clone()]
        } else {
            Vec::new()
        };
        for path in found {
            let problems = read_retarget_file(&path).problems;
            report.file_count += 1;
            let errors = problems.iter().filter(|p| p.is_error()).count();
            report.error_count += errors;
            if errors == 0 {
                report.valid_count += 1;
            } else {
                report.refused_count += 1;
            }
            report
                .lines
                .extend(problems.iter().map(|p| format!("{}: {p}", path.display())));
        }
    }
    report
}

/// One line of `emoted sample` for a clip.
#[derive(Clone, Debug, Serialize)]
pub struct ClipSampleLine {
    /// The tick sampled.
    pub tick: u32,
    /// Each playing joint by the name it plays on.
    pub joints: BTreeMap<String, JointLine>,
}

/// One joint's pose in a [`ClipSampleLine`].
#[derive(Clone, Debug, Serialize)]
pub struct JointLine {
    /// A unit quaternion `[x, y, z, w]`, when the joint has a rotation channel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[f32; 4]>,
    /// The offset from the rest in blocks, when the joint has a position channel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<[f32; 3]>,
    /// The scale, when the joint has a scale channel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<[f32; 3]>,
    /// The joint's weight in the clip.
    pub weight: f32,
}

/// The clip at `path` sampled at `ticks`, or its problems as
/// `FILE: /pointer: message` lines.
pub fn sample_clip(path: &Path, ticks: &[u32]) -> Result<Vec<ClipSampleLine>, Vec<String>> {
    let report = read_clip_file(path);
    let Some(clip) = report.file else {
        return Err(report
            .problems
            .iter()
            .map(|p| format!("{}: {p}", path.display()))
            .collect());
    };
    let compiled = CompiledClip::compile(&clip, None);
    let mut pose = compiled.new_pose();
    let lines = ticks
        .iter()
        .map(|&tick| {
            compiled.sample_into(compiled.clip_time(tick as f32 * SECS_PER_TICK), &mut pose);
            let joints = compiled
                .joints()
                .iter()
                .zip(pose.samples())
                .filter(|(joint, _)| joint.is_playing())
                .filter_map(|(joint, sample)| {
                    let c = sample.channels;
                    let line = JointLine {
                        rotation: c.rotation.map(|q| q.to_array()),
                        position: c.position.map(|p| p.to_array()),
                        scale: c.scale.map(|s| s.to_array()),
                        weight: sample.weight,
                    };
                    Some((joint.target_name()?.to_owned(), line))
                })
                .collect();
            ClipSampleLine { tick, joints }
        })
        .collect();
    Ok(lines)
}

/// One line of `emoted sample` over several clips layered on one body.
#[derive(Clone, Debug, Serialize)]
pub struct LayeredSampleLine {
    /// The tick sampled.
    pub tick: u32,
    /// Each joint some clip moves, as the layering leaves it.
    pub joints: BTreeMap<String, LayeredJoint>,
}

/// One joint's layered pose in a [`LayeredSampleLine`].
#[derive(Clone, Debug, Serialize)]
pub struct LayeredJoint {
    /// A unit quaternion `[x, y, z, w]`.
    pub rotation: [f32; 4],
    /// The offset from the rest in blocks.
    pub position: [f32; 3],
    /// The scale.
    pub scale: [f32; 3],
}

/// The clips at `paths` played together on one body from tick 0, each a
/// track of weight 1 fading in over `fade_in_secs`, layered by seed 001's
/// rules ([`crate::anim::layers::blend_joint`]: priority groups, weights,
/// masks, additive tracks) over the rest pose, at `ticks`; or every
/// clip's problems.
pub fn sample_layered(
    paths: &[PathBuf],
    ticks: &[u32],
    fade_in_secs: f32,
) -> Result<Vec<LayeredSampleLine>, Vec<String>> {
    let mut clips = Vec::new();
    let mut problems = Vec::new();
    for path in paths {
        let report = read_clip_file(path);
        match report.file {
            Some(clip) => clips.push(CompiledClip::compile(&clip, None)),
            None => problems.extend(
                report
                    .problems
                    .iter()
                    .map(|p| format!("{}: {p}", path.display())),
            ),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut poses: Vec<_> = clips.iter().map(CompiledClip::new_pose).collect();
    let lines = ticks
        .iter()
        .map(|&tick| {
            let secs = tick as f32 * SECS_PER_TICK;
            let fade = fade_factor(secs, fade_in_secs, None, 0.0);
            let mut tracks: BTreeMap<String, Vec<TrackOnJoint>> = BTreeMap::new();
            for (clip, pose) in clips.iter().zip(&mut poses) {
                clip.sample_into(clip.clip_time(secs), pose);
                for (joint, sample) in clip.joints().iter().zip(pose.samples()) {
                    let Some(name) = joint.target_name().filter(|_| joint.is_playing()) else {
                        continue;
                    };
                    tracks
                        .entry(name.to_owned())
                        .or_default()
                        .push(clip.track_on_joint(sample, fade));
                }
            }
            let joints = tracks
                .into_iter()
                .map(|(name, tracks)| {
                    let pose = blend_joint(JointPose::REST, &tracks);
                    let joint = LayeredJoint {
                        rotation: pose.rotation.to_array(),
                        position: pose.position.to_array(),
                        scale: pose.scale.to_array(),
                    };
                    (name, joint)
                })
                .collect();
            LayeredSampleLine { tick, joints }
        })
        .collect();
    Ok(lines)
}
