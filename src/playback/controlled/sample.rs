//! `emoted sample` of a controller: its body posed tick by tick as a
//! server would pose it, with the parameters `--param NAME=VALUE@TICK`
//! gives and the motion a `--path` implies.
//!
//! # The inputs
//! - **`--param`**: a number parameter is linear between the ticks given
//!   and held before the first and after the last; a bool takes each key's
//!   value from its tick on; a trigger fires on each key's tick.
//! - **`--path`**: the body's feet and yaw over time. On every tick the
//!   move since the last tick gives the built-ins `speed`, `forward` and
//!   `strafe` (blocks per second, in the body's frame), unless `--param`
//!   sets them.
//!
//! The clips are the Animations loaded from the controller file's own
//! folder (and its subfolders), as a server loads `emotes/`. The lines are
//! those of an Animation's samples, plus `states`: the state of each
//! layer, base first. Tick 0 is the first step of the machines, so every
//! state's time has already moved one tick of its cycle there.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use glam::Vec3;

use super::{ControlledBody, Motion};
use crate::anim::controller::CompiledController;
use crate::anim::Pose;
use crate::format::controller::{ControllerFile, ParameterKind};
use crate::format::EmoteFile;
use crate::library::sample::{sample_line, SampleLine};
use crate::library::Library;
use crate::playback::live::sample::{LiveSampleError, ParamKey, SampleInputError, SampleInputs};

/// Samples the controller `file` (loaded in `library`) at `ticks`.
pub fn sample_controller(
    library: &Library,
    file: &ControllerFile,
    ticks: &[u32],
    seed: u64,
    inputs: &SampleInputs,
) -> Result<Vec<SampleLine>, LiveSampleError> {
    let Some(&last) = ticks.iter().max() else {
        return Ok(Vec::new());
    };
    let refused = |text: String| LiveSampleError::Input(SampleInputError::ParamRefused(text));
    let clip = |id: &crate::format::EmoteId| library.get(id.as_str())?.compiled.clone();
    let body = file
        .body_clip()
        .and_then(|r| clip(&r.id))
        .ok_or_else(|| refused("the controller's body clip is not loaded".into()))?;
    let compiled = CompiledController::compile(file, |id| Some(clip(id)?.rig.duration_ticks))
        .map_err(|e| refused(e.to_string()))?;
    let mut controlled = ControlledBody::new(
        Arc::new(compiled),
        &body,
        clip,
        seed,
        crate::molang::DEFAULT_OP_BUDGET,
    )
    .map_err(|e| refused(e.to_string()))?;
    for key in &inputs.params {
        let known = file.parameter_index(&key.name).is_some();
        if !known {
            return Err(refused(format!(
                "`{}` is not a parameter of `{}`{}",
                key.name,
                file.id,
                crate::format::controller::condition::suggestion(&key.name, &file.parameters)
            )));
        }
    }
    let mut pose = Pose::new(&body.rig);
    let mut by_tick: BTreeMap<u32, SampleLine> = BTreeMap::new();
    for tick in 0..=last {
        controlled.observe(&motion_at(inputs, tick));
        for parameter in &file.parameters {
            if let Some(value) = param_at(&inputs.params, &parameter.name, parameter.kind, tick) {
                controlled
                    .set_parameter(&parameter.name, value)
                    .map_err(|e| refused(e.to_string()))?;
            }
        }
        controlled.step(&body, &mut pose)?;
        if ticks.contains(&tick) {
            let mut line = sample_line(tick, &body.rig, &pose);
            line.states = Some(
                (0..controlled.output().layers.len())
                    .map(|l| controlled.state_name(l).unwrap_or_default().to_owned())
                    .collect(),
            );
            by_tick.insert(tick, line);
        }
    }
    Ok(ticks
        .iter()
        .filter_map(|t| by_tick.get(t).cloned())
        .collect())
}

/// The built-in motion a `--path` gives at `tick` (standing still without one).
fn motion_at(inputs: &SampleInputs, tick: u32) -> Motion {
    if inputs.path.is_empty() || tick == 0 {
        return Motion::default();
    }
    let now = inputs.body_at(tick);
    let before = inputs.body_at(tick - 1);
    // The body's yaw from where it faces (+Z at yaw 0, −X at 90).
    let facing = now.matrix3 * Vec3::Z;
    let yaw = (-facing.x).atan2(facing.z).to_degrees();
    Motion::between(
        Vec3::from(before.translation).as_dvec3(),
        Vec3::from(now.translation).as_dvec3(),
        yaw,
    )
}

/// The value `--param` gives `name` at `tick`, if any: see the module docs.
fn param_at(keys: &[ParamKey], name: &str, kind: ParameterKind, tick: u32) -> Option<f32> {
    let mut mine: Vec<&ParamKey> = keys.iter().filter(|k| k.name == name).collect();
    mine.sort_by_key(|k| k.tick);
    match kind {
        ParameterKind::Trigger => mine.iter().any(|k| k.tick == tick).then_some(1.0),
        ParameterKind::Bool { .. } => mine.iter().rev().find(|k| k.tick <= tick).map(|k| k.value),
        ParameterKind::Float { .. } | ParameterKind::Int { .. } => {
            let first = mine.first()?;
            if tick <= first.tick {
                return Some(first.value);
            }
            for pair in mine.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                if tick <= b.tick {
                    let f = (tick - a.tick) as f32 / (b.tick - a.tick).max(1) as f32;
                    return Some(a.value + (b.value - a.value) * f);
                }
            }
            mine.last().map(|k| k.value)
        }
    }
}

/// `emoted sample` of the controller at `path`: its folder is loaded as a
/// library; on failure, the lines to print, each naming the file.
pub fn sample_controller_file(
    path: &Path,
    ticks: &[u32],
    seed: u64,
    inputs: &SampleInputs,
) -> Result<Vec<SampleLine>, Vec<String>> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let report = Library::load(&[folder.to_path_buf()]);
    let same = |other: &Path| {
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        canonical(other) == canonical(path)
    };
    let problems: Vec<String> = report
        .files
        .iter()
        .filter(|f| same(&f.path) && f.has_errors())
        .flat_map(|f| {
            f.problems
                .iter()
                .map(|p| format!("{}: {p}", path.display()))
        })
        .collect();
    if !problems.is_empty() {
        return Err(problems);
    }
    let Some(file) = report.library.iter().find_map(|(_, e)| match &*e.file {
        EmoteFile::Controller(c) if same(&e.path) => Some(c.clone()),
        _ => None,
    }) else {
        return Err(vec![format!(
            "{}: not loaded as a controller",
            path.display()
        )]);
    };
    sample_controller(&report.library, &file, ticks, seed, inputs)
        .map_err(|e| vec![format!("{}: {e}", path.display())])
}
