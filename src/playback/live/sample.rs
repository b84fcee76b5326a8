//! `emoted sample` and `emoted preview` with the live inputs a server
//! would feed the solvers: `--look YAW,PITCH` (the participant's look
//! relative to the body, Minecraft's sense), `--reach NODE=X,Y,Z` (an
//! effector for NODE at a point of the emote's space) and `--path
//! "TICK:X,Y,Z,YAW;..."` (the body moving through the world, linear
//! between the ticks given, held before the first and after the last),
//! and for controllers `--param NAME=VALUE@TICK` (a parameter's value from
//! a tick on, [`crate::playback::controlled::sample`]).
//! With none of them, and a file without solvers, the samples are
//! exactly [`sample_ticks`]'.

use glam::{Affine3A, Quat, Vec3};

use super::{LiveInputs, LiveRig, ParticipantInputs};
use crate::anim::solve::LookAngles;
use crate::anim::SampleError;
use crate::library::sample::{sample_ticks, sample_ticks_with, SampleLine};
use crate::library::CompiledAnimation;
use crate::playback::roots::SpaceRoots;

/// One point of a `--path`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathKey {
    /// The tick it is reached at.
    pub tick: u32,
    /// The body's feet, blocks.
    pub position: Vec3,
    /// The body's Minecraft yaw, degrees.
    pub yaw_degrees: f32,
}

/// The live inputs of a sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SampleInputs {
    /// `--look`: yaw and pitch in degrees.
    pub look_degrees: Option<[f32; 2]>,
    /// `--reach`: node id and point.
    pub reach: Vec<(String, Vec3)>,
    /// `--path`, by tick.
    pub path: Vec<PathKey>,
    /// `--param`, in the order given (controllers only).
    pub params: Vec<ParamKey>,
}

/// One `--param NAME=VALUE@TICK`: a controller parameter's value at a
/// tick (`true`/`false` read as 1/0).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamKey {
    /// The parameter.
    pub name: String,
    /// Its value there.
    pub value: f32,
    /// The tick.
    pub tick: u32,
}

impl SampleInputs {
    /// True when none is given.
    pub fn is_empty(&self) -> bool {
        self.look_degrees.is_none()
            && self.reach.is_empty()
            && self.path.is_empty()
            && self.params.is_empty()
    }

    /// The body's place in the world at `tick` (root frame → world).
    pub fn body_at(&self, tick: u32) -> Affine3A {
        let place = |p: Vec3, yaw: f32| {
            Affine3A::from_rotation_translation(Quat::from_rotation_y(-yaw.to_radians()), p)
        };
        let Some(first) = self.path.first() else {
            return Affine3A::IDENTITY;
        };
        if tick <= first.tick {
            return place(first.position, first.yaw_degrees);
        }
        for pair in self.path.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if tick <= b.tick {
                let f = (tick - a.tick) as f32 / (b.tick - a.tick).max(1) as f32;
                let yaw = a.yaw_degrees + (b.yaw_degrees - a.yaw_degrees) * f;
                return place(a.position.lerp(b.position, f), yaw);
            }
        }
        let last = self.path[self.path.len() - 1];
        place(last.position, last.yaw_degrees)
    }
}

/// Why the live inputs of a sample are refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SampleInputError {
    /// `--look` is not two numbers.
    #[error("--look takes YAW,PITCH in degrees, such as 40,0; found `{0}`")]
    Look(String),
    /// `--reach` is not `NODE=X,Y,Z`.
    #[error("--reach takes NODE=X,Y,Z in blocks, such as hand_r=-0.3,1.2,0.5; found `{0}`")]
    Reach(String),
    /// `--reach` names a node the Animation lacks, or one without a
    /// parent and grandparent.
    #[error("--reach: `{0}` is not a node with a parent and a grandparent in this Animation (a chain ends at it)")]
    ReachNode(String),
    /// `--param` is not `NAME=VALUE@TICK`.
    #[error("--param takes NAME=VALUE@TICK, such as speed=4@20 or sneaking=true@10; found `{0}`")]
    Param(String),
    /// A `--param` the controller refuses (an unknown name), or a
    /// controller that cannot play.
    #[error("--param: {0}")]
    ParamRefused(String),
    /// `--param` on something that is not a controller.
    #[error("--param sets a controller's parameters, and this file is not a controller")]
    ParamNotController,
    /// `--path` is not `TICK:X,Y,Z,YAW;...` in rising ticks.
    #[error("--path takes \"TICK:X,Y,Z,YAW;...\" with rising ticks, such as \"0:0,0,0,0;20:0,0,3,0\"; found `{0}`")]
    Path(String),
}

fn numbers<const N: usize>(text: &str) -> Option<[f32; N]> {
    let parts: Vec<f32> = text
        .split(',')
        .map(|p| p.trim().parse::<f32>().ok().filter(|v| v.is_finite()))
        .collect::<Option<_>>()?;
    parts.try_into().ok()
}

/// Reads `--look YAW,PITCH`.
pub fn parse_look(text: &str) -> Result<[f32; 2], SampleInputError> {
    numbers::<2>(text).ok_or_else(|| SampleInputError::Look(text.to_owned()))
}

/// Reads one `--reach NODE=X,Y,Z`.
pub fn parse_reach(text: &str) -> Result<(String, Vec3), SampleInputError> {
    let bad = || SampleInputError::Reach(text.to_owned());
    let (node, point) = text.split_once('=').ok_or_else(bad)?;
    let node = node.trim();
    if node.is_empty() {
        return Err(bad());
    }
    Ok((
        node.to_owned(),
        Vec3::from_array(numbers::<3>(point).ok_or_else(bad)?),
    ))
}

/// Reads one `--param NAME=VALUE@TICK`.
pub fn parse_param(text: &str) -> Result<ParamKey, SampleInputError> {
    let bad = || SampleInputError::Param(text.to_owned());
    let (name, rest) = text.split_once('=').ok_or_else(bad)?;
    let (value, tick) = rest.rsplit_once('@').ok_or_else(bad)?;
    let name = name.trim();
    if name.is_empty() {
        return Err(bad());
    }
    let value = match value.trim() {
        "true" => 1.0,
        "false" => 0.0,
        number => number
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(bad)?,
    };
    Ok(ParamKey {
        name: name.to_owned(),
        value,
        tick: tick.trim().parse().map_err(|_| bad())?,
    })
}

/// A whole `--path`, its keys in rising ticks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyPath(pub Vec<PathKey>);

/// Reads `--path "TICK:X,Y,Z,YAW;..."`.
pub fn parse_path(text: &str) -> Result<BodyPath, SampleInputError> {
    let bad = || SampleInputError::Path(text.to_owned());
    let mut keys: Vec<PathKey> = Vec::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (tick, rest) = part.split_once(':').ok_or_else(bad)?;
        let tick: u32 = tick.trim().parse().map_err(|_| bad())?;
        let [x, y, z, yaw] = numbers::<4>(rest).ok_or_else(bad)?;
        if keys.last().is_some_and(|k| k.tick >= tick) {
            return Err(bad());
        }
        keys.push(PathKey {
            tick,
            position: Vec3::new(x, y, z),
            yaw_degrees: yaw,
        });
    }
    if keys.is_empty() {
        return Err(bad());
    }
    Ok(BodyPath(keys))
}

/// Samples `animation` at `ticks` as [`sample_ticks`] does, with its
/// solvers fed `inputs` on every tick from 0.
pub fn sample_ticks_live(
    animation: &CompiledAnimation,
    ticks: &[u32],
    seed: u64,
    inputs: &SampleInputs,
) -> Result<Vec<SampleLine>, LiveSampleError> {
    let mut reach = Vec::with_capacity(inputs.reach.len());
    for (node, point) in &inputs.reach {
        let end = animation
            .rig
            .node_index(node)
            .filter(|&i| crate::anim::solve::TwoBoneChain::of_end(&animation.rig, i).is_some())
            .ok_or_else(|| SampleInputError::ReachNode(node.clone()))?;
        reach.push((end, *point));
    }
    let solvers = &animation.runtime.solvers;
    if !solvers.is_active() && reach.is_empty() {
        return Ok(sample_ticks(animation, ticks, seed)?);
    }
    let look = inputs
        .look_degrees
        .map(|[yaw, pitch]| LookAngles::from_degrees(yaw, pitch));
    let mut live = LiveRig::new(LiveInputs::default());
    let lines = sample_ticks_with(animation, ticks, seed, &mut |tick, pose| {
        live.inputs = LiveInputs {
            emote_to_world: inputs.body_at(tick),
            initiator: ParticipantInputs {
                look,
                ..ParticipantInputs::default()
            },
            partner: ParticipantInputs::default(),
            reach: reach.clone(),
        };
        live.solve(animation, pose, &SpaceRoots::SOLO);
    })?;
    Ok(lines)
}

/// Either a refused input or a playback that would stop.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LiveSampleError {
    /// A live input is refused.
    #[error(transparent)]
    Input(#[from] SampleInputError),
    /// Sampling stopped (Molang): the playback would stop.
    #[error(transparent)]
    Sample(#[from] SampleError),
}

/// The live inputs as `emoted sample` and `emoted preview` take them.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LiveArgs {
    /// The participant's look relative to the body, degrees (positive yaw
    /// turns right, positive pitch looks down).
    #[arg(long, value_name = "YAW,PITCH", value_parser = parse_look, allow_hyphen_values = true)]
    pub look: Option<[f32; 2]>,
    /// An IK effector for NODE at a point of the emote's space, blocks
    /// (repeatable).
    #[arg(long, value_name = "NODE=X,Y,Z", value_parser = parse_reach, allow_hyphen_values = true)]
    pub reach: Vec<(String, Vec3)>,
    /// The body moving through the world: its feet and yaw at given ticks,
    /// linear between them.
    #[arg(long, value_name = "TICK:X,Y,Z,YAW;...", value_parser = parse_path, allow_hyphen_values = true)]
    pub path: Option<BodyPath>,
    /// A controller parameter's value from a tick on (repeatable; numbers
    /// are linear between the ticks given, bools step, a trigger fires at
    /// its tick).
    #[arg(long = "param", value_name = "NAME=VALUE@TICK", value_parser = parse_param, allow_hyphen_values = true)]
    pub params: Vec<ParamKey>,
}

impl LiveArgs {
    /// The inputs these arguments give.
    pub fn inputs(&self) -> SampleInputs {
        SampleInputs {
            look_degrees: self.look,
            reach: self.reach.clone(),
            path: self.path.clone().unwrap_or_default().0,
            params: self.params.clone(),
        }
    }
}
