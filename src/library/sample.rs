//! `emoted sample`: what the engine computes for an Animation at given ticks.
//!
//! The playback mode is ignored: the timeline runs once from tick 0, with
//! `molang.initialize` at tick 0 and `molang.tick` on every tick (tick 0
//! included) before the tracks, so `v.*` state builds up exactly as in a
//! real playback. Ticks past the duration hold the final pose. Molang
//! randomness comes from `--seed` (0 by default).
//!
//! A node with an `nbt` track also has `nbt`: the compound its keys have
//! merged so far, as SNBT (selectors evaluated once, when their key
//! applies, as in a playback; the node's own `entity_nbt` and content are
//! not included). Nodes without one, and every node of an Animation
//! without NBT tracks, have no `nbt` field.

use std::collections::BTreeMap;

use serde::Serialize;

use valence::nbt::snbt::to_snbt_string;
use valence::nbt::{Compound, Value};

use super::{CompiledAnimation, MolangState, NbtEvent, NbtPlayhead};
use crate::anim::{Pose, SampleError};

/// One node in a sample line.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct NodeSample {
    /// Shown at this tick.
    pub visible: bool,
    /// Local position.
    pub position: [f32; 3],
    /// Local rotation, a unit quaternion `[x, y, z, w]`.
    pub rotation: [f32; 4],
    /// Local scale.
    pub scale: [f32; 3],
    /// Composed transform in the root's frame, column-major.
    pub matrix: [f32; 16],
    /// What the node's NBT keys merged so far, as SNBT (nodes with an
    /// `nbt` track only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nbt: Option<String>,
}

/// Where the emote camera is at a sampled tick: the camera a player
/// standing at the origin and facing +Z (the emote's space) would see
/// through, looking straight ahead, in open air.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CameraSample {
    /// The eye, blocks.
    pub eye: [f32; 3],
    /// The look's yaw, degrees (Minecraft's: 0 along +Z, positive right).
    pub yaw_degrees: f32,
    /// The look's pitch, degrees (positive down).
    pub pitch_degrees: f32,
    /// The written shot filming (index in `metadata.emoted.camera.shots`).
    pub shot: Option<usize>,
    /// This tick starts a later shot.
    pub cut: bool,
}

/// One line of `emoted sample` output.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SampleLine {
    /// The tick sampled.
    pub tick: u32,
    /// Every node by id.
    pub nodes: BTreeMap<String, NodeSample>,
    /// The emote camera, for an Animation that writes its shots (filled
    /// by the playback's camera, which flies over these samples).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub camera: Option<CameraSample>,
    /// For a controller: the state each layer is in, base first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states: Option<Vec<String>>,
}

/// The line of `rig` posed as `pose` at `tick`.
pub fn sample_line(tick: u32, rig: &crate::anim::rig::Rig, pose: &Pose) -> SampleLine {
    let nodes = rig
        .nodes
        .iter()
        .zip(&pose.nodes)
        .map(|(node, p)| {
            (
                node.id.clone(),
                NodeSample {
                    visible: p.visible,
                    position: p.position.to_array(),
                    rotation: p.rotation.to_array(),
                    scale: p.scale.to_array(),
                    matrix: valence::math::Mat4::from(p.matrix).to_cols_array(),
                    nbt: None,
                },
            )
        })
        .collect();
    SampleLine {
        tick,
        nodes,
        camera: None,
        states: None,
    }
}

/// Samples `animation` at each of `ticks` (any order; output follows it).
pub fn sample_ticks(
    animation: &CompiledAnimation,
    ticks: &[u32],
    seed: u64,
) -> Result<Vec<SampleLine>, SampleError> {
    sample_ticks_with(animation, ticks, seed, &mut |_, _| {})
}

/// [`sample_ticks`], with `after_step(tick, pose)` called on every tick's
/// pose before it is recorded (where playback's solvers bend it).
pub fn sample_ticks_with(
    animation: &CompiledAnimation,
    ticks: &[u32],
    seed: u64,
    after_step: &mut dyn FnMut(u32, &mut Pose),
) -> Result<Vec<SampleLine>, SampleError> {
    let Some(&last) = ticks.iter().max() else {
        return Ok(Vec::new());
    };
    let mut state = animation.new_molang_state(seed);
    let mut pose = Pose::new(&animation.rig);
    let mut by_tick: BTreeMap<u32, SampleLine> = BTreeMap::new();
    animation.begin_cycle(&mut state, 0)?;
    let duration = animation.rig.duration_ticks;
    let mut nbt = SampledNbt::new(animation, seed);
    for tick in 0..=last {
        let position = tick.min(duration);
        animation.step(&mut state, position, tick <= duration, &mut pose)?;
        after_step(tick, &mut pose);
        nbt.step(animation, &mut state, position, tick == 0)?;
        if ticks.contains(&tick) {
            let mut line = sample_line(tick, &animation.rig, &pose);
            for ((node, _), nbt) in animation
                .rig
                .nodes
                .iter()
                .zip(&pose.nodes)
                .zip(&nbt.compounds)
            {
                if let (Some(sample), Some(compound)) = (line.nodes.get_mut(&node.id), nbt) {
                    sample.nbt = Some(to_snbt_string(&Value::Compound(compound.clone())));
                }
            }
            by_tick.insert(tick, line);
        }
    }
    Ok(ticks
        .iter()
        .filter_map(|t| by_tick.get(t).cloned())
        .collect())
}

/// The compounds the NBT keys built, per rig node with a track.
struct SampledNbt {
    playhead: NbtPlayhead,
    compounds: Vec<Option<Compound>>,
    events: Vec<NbtEvent>,
}

impl SampledNbt {
    fn new(animation: &CompiledAnimation, seed: u64) -> Self {
        Self {
            playhead: NbtPlayhead::new(animation, seed),
            compounds: animation
                .rig
                .nodes
                .iter()
                .map(|n| n.nbt.as_ref().map(|_| Compound::new()))
                .collect(),
            events: Vec::new(),
        }
    }

    /// Applies the keys due at `position`: each chosen compound's fields
    /// replace the ones before (the merge of `format::nbt_track`).
    fn step(
        &mut self,
        animation: &CompiledAnimation,
        state: &mut MolangState,
        position: u32,
        cycle_started: bool,
    ) -> Result<(), SampleError> {
        self.events.clear();
        self.playhead
            .step(animation, state, position, cycle_started, &mut self.events)?;
        for event in &self.events {
            match *event {
                NbtEvent::Restart { rig_node } => self.compounds[rig_node] = Some(Compound::new()),
                NbtEvent::Apply {
                    rig_node,
                    key,
                    option,
                } => {
                    let patch = animation
                        .runtime
                        .nodes
                        .get(rig_node)
                        .and_then(|n| n.nbt.get(key))
                        .and_then(|k| k.value.options().get(option));
                    if let (Some(Some(compound)), Some(patch)) =
                        (self.compounds.get_mut(rig_node), patch)
                    {
                        for (field, value) in patch.compound.iter() {
                            compound.insert(field.clone(), value.clone());
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
