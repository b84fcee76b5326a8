//! `emoted sample`'s camera: the emote camera flown over an Animation's
//! sampled poses, as a player standing at the origin and facing +Z (the
//! emote's own space) would see it, looking straight ahead, in open air.
//!
//! The body is solved with the sample's live inputs first
//! ([`crate::playback::live::sample`]). The flight eases from tick to tick, so every tick from 0 to the last
//! asked is flown, and the lines asked for are picked from them.

use glam::{Mat4, Vec3};

use super::clearance::OpenAir;
use super::flight::{Flight, FlightSettings, LookDegrees, Scene};
use super::shot::Framing;
use std::path::Path;

use crate::format::camera::{CameraSetting, CameraShot};
use crate::format::{read_emote_file, EmoteFile, Problem};
use crate::library::sample::{CameraSample, SampleLine};
use crate::library::CompiledAnimation;
use crate::playback::live::sample::{
    sample_ticks_live, LiveSampleError, SampleInputError, SampleInputs,
};

/// [`sample_ticks_live`] with the camera that flies `shots` in each line
/// (no shots: the lines as [`sample_ticks_live`] gives them).
pub fn sample_ticks_with_camera(
    animation: &CompiledAnimation,
    ticks: &[u32],
    seed: u64,
    shots: &[CameraShot],
    inputs: &SampleInputs,
) -> Result<Vec<SampleLine>, LiveSampleError> {
    if shots.is_empty() {
        return sample_ticks_live(animation, ticks, seed, inputs);
    }
    let Some(&last) = ticks.iter().max() else {
        return Ok(Vec::new());
    };
    let every: Vec<u32> = (0..=last).collect();
    let mut lines = sample_ticks_live(animation, &every, seed, inputs)?;
    let mut flight = Flight::new(
        shots.to_vec(),
        LookDegrees::default(),
        FlightSettings::default(),
    );
    let duration = animation.rig.duration_ticks;
    for line in &mut lines {
        let node_matrix = |id: &str| -> Option<Mat4> {
            line.nodes
                .get(id)
                .map(|node| Mat4::from_cols_array(&node.matrix))
        };
        let frame = flight.step(
            line.tick.min(duration),
            &Scene {
                body: Framing {
                    target: Vec3::ZERO,
                    frame_yaw_radians: 0.0,
                },
                look: LookDegrees::default(),
                other_body: None,
                rig_reach_blocks: 0.0,
                node_matrix: &node_matrix,
                blocks: &OpenAir,
            },
        );
        line.camera = Some(CameraSample {
            eye: frame.pose.eye.to_array(),
            yaw_degrees: frame.pose.yaw_radians.to_degrees(),
            pitch_degrees: frame.pose.pitch_radians.to_degrees(),
            shot: frame.shot_index,
            cut: frame.cut,
        });
    }
    Ok(ticks
        .iter()
        .filter_map(|t| lines.get(*t as usize).cloned())
        .collect())
}

/// `emoted sample FILE`: reads, validates and compiles an Animation and
/// samples it at `ticks` with the live inputs (and its camera, when it
/// writes its shots); on failure, the lines to print, each naming the
/// file.
pub fn sample_file(
    path: &Path,
    ticks: &[u32],
    seed: u64,
    inputs: &SampleInputs,
) -> Result<Vec<SampleLine>, Vec<String>> {
    let named = |problems: &[Problem]| -> Vec<String> {
        problems
            .iter()
            .map(|p| format!("{}: {p}", path.display()))
            .collect()
    };
    let report = read_emote_file(path);
    let Some(file) = report.file else {
        return Err(named(&report.problems));
    };
    let animation = match file {
        EmoteFile::Animation(animation) => animation,
        EmoteFile::Controller(_) => {
            return crate::playback::controlled::sample::sample_controller_file(
                path, ticks, seed, inputs,
            )
        }
        EmoteFile::Sequence(_) => {
            return Err(vec![format!(
                "{}: `sample` takes an Animation or a controller, not a Sequence",
                path.display()
            )])
        }
    };
    if !inputs.params.is_empty() {
        return Err(vec![format!(
            "{}: {}",
            path.display(),
            SampleInputError::ParamNotController
        )]);
    }
    let compiled = CompiledAnimation::compile(&animation).map_err(|p| named(&p))?;
    let shots = match &animation.metadata.camera {
        CameraSetting::Shots(shots) => shots.as_slice(),
        CameraSetting::ServerDefault | CameraSetting::Off => &[],
    };
    sample_ticks_with_camera(&compiled, ticks, seed, shots, inputs).map_err(|e| {
        vec![match e {
            LiveSampleError::Sample(e) => format!("{}: playback would stop: {e}", path.display()),
            LiveSampleError::Input(e) => format!("{}: {e}", path.display()),
        }]
    })
}
