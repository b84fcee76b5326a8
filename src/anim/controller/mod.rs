//! The controller engine: a validated
//! [`ControllerFile`](crate::format::controller::ControllerFile) compiled
//! once, then stepped one tick at a time for each player who plays it.
//!
//! # The model
//! [`CompiledController::compile`] resolves every clip to its cycle length
//! (the library knows the Animations) and groups the transitions by the
//! state they leave. [`ControllerRuntime`] is one playing copy: the
//! parameter values ([`Parameters`]) and, per layer, the state it is in,
//! that state's normalized time and the crossfade under way. Each
//! [`ControllerRuntime::step`] does, for each layer from the base up:
//!
//! 1. **Transitions.** Unless a crossfade that is not interruptible is under
//!    way, the any-state transitions are tried, then those of the current
//!    state, each in file order; the first whose conditions all hold and
//!    whose exit time is reached fires, and consumes the triggers it tested
//!    (so a later layer no longer sees them). An any-state transition never
//!    fires into the state the layer is already in.
//! 2. **Time.** The current state's normalized time advances by
//!    `speed × speed_parameter / cycle` where `cycle` is the clips' lengths
//!    blended by this tick's weights (seed 004: the clips of a blend share
//!    one normalized time, so a walk and a run put their feet down
//!    together). The state being faded out keeps playing; a crossfade that
//!    was interrupted freezes the mix that was on screen and fades that out.
//! 3. **Events** of the current state whose normalized time was crossed
//!    (`[before, after)`, every cycle for a looping state) are reported.
//! 4. **Output.** Each layer lists `(clip, weight, normalized time)`; the
//!    weights add up to 1 within the layer. A crossfade of `D` ticks gives
//!    the destination `k / D` on the `k`-th step after it fired.
//!
//! Sampling the clips is the sampler's job
//! ([`crate::playback::controlled`]); [`mix::BodyMixer`] then lays the
//! layers on the body by weight, mask and blending.

mod blend;
mod machine;
pub mod mix;
#[cfg(test)]
mod mix_tests;
mod params;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use glam::Vec2;

pub use blend::{line_weights, plane_weights};
pub use params::{ParameterError, ParameterValue, Parameters};

use crate::format::controller::{
    Blending, ControllerFile, LayerWeight, Motion, Parameter, StateEvent, Transition,
};
use crate::format::ident::EmoteId;

/// Why a controller could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ControllerError {
    /// A state plays an Animation the library does not have (run
    /// `check_references` when loading to report it with its pointer).
    #[error("controller `{controller}` plays `{clip}`, which is not a loaded Animation: load it or fix the clip id")]
    UnknownClip {
        /// The controller's id.
        controller: EmoteId,
        /// The missing Animation.
        clip: EmoteId,
    },
}

/// An index into [`CompiledController::clips`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClipId(pub usize);

/// One masked node of a layer and its share of the layer.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskWeight {
    /// The node id.
    pub node: String,
    /// In `[0, 1]`.
    pub weight: f32,
}

/// How a state's clips are weighted.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Shape {
    /// One clip.
    Single,
    /// A 1D blend on a parameter.
    Line {
        parameter: usize,
        thresholds: Vec<f32>,
    },
    /// A 2D blend on two parameters.
    Plane {
        x: usize,
        y: usize,
        positions: Vec<Vec2>,
    },
}

/// A state, ready to play.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CompiledState {
    pub(crate) name: String,
    pub(crate) clips: Vec<ClipId>,
    pub(crate) cycle_ticks: Vec<f32>,
    pub(crate) shape: Shape,
    pub(crate) speed: f32,
    pub(crate) speed_parameter: Option<usize>,
    pub(crate) looping: bool,
    pub(crate) events: Vec<StateEvent>,
}

impl CompiledState {
    /// This tick's cycle length in ticks (the clips' lengths blended by
    /// their weights, at least 1) and playback rate (`speed` times its
    /// parameter, negative values counting as 0); `weights` is scratch.
    pub(crate) fn pace(&self, parameters: &Parameters, weights: &mut Vec<f32>) -> (f32, f32) {
        self.weights(parameters, weights);
        let cycle: f32 = weights
            .iter()
            .zip(&self.cycle_ticks)
            .map(|(w, c)| w * c)
            .sum();
        let speed = self.speed
            * self
                .speed_parameter
                .map_or(1.0, |p| parameters.number(p).max(0.0));
        (cycle.max(1.0), speed)
    }

    /// Writes this tick's clip weights into `out` (resized to the clips).
    pub(crate) fn weights(&self, parameters: &Parameters, out: &mut Vec<f32>) {
        out.clear();
        out.resize(self.clips.len(), 0.0);
        match &self.shape {
            Shape::Single => out[0] = 1.0,
            Shape::Line {
                parameter,
                thresholds,
            } => line_weights(thresholds, parameters.number(*parameter), out),
            Shape::Plane { x, y, positions } => plane_weights(
                positions,
                Vec2::new(parameters.number(*x), parameters.number(*y)),
                out,
            ),
        }
    }
}

/// A layer, ready to play.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CompiledLayer {
    pub(crate) weight: LayerWeight,
    pub(crate) mask: Option<Arc<[MaskWeight]>>,
    pub(crate) blending: Blending,
    pub(crate) default_state: usize,
    pub(crate) states: Vec<CompiledState>,
    pub(crate) transitions: Vec<Transition>,
    /// Indices into `transitions`: the any-state ones, in file order.
    pub(crate) from_any: Vec<usize>,
    /// Indices into `transitions` by the state they leave, in file order.
    pub(crate) from_state: Vec<Vec<usize>>,
}

/// A controller compiled against the library's Animations; shared by every
/// player who plays it.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledController {
    id: EmoteId,
    parameters: Vec<Parameter>,
    clips: Vec<EmoteId>,
    layers: Vec<CompiledLayer>,
}

impl CompiledController {
    /// Compiles `file`, with `cycle_ticks` giving each Animation's cycle
    /// length in ticks (`None`: not loaded).
    pub fn compile(
        file: &ControllerFile,
        cycle_ticks: impl Fn(&EmoteId) -> Option<u32>,
    ) -> Result<Self, ControllerError> {
        let mut clips: Vec<EmoteId> = Vec::new();
        let mut layers = Vec::with_capacity(file.layers.len());
        for layer in &file.layers {
            let mut states = Vec::with_capacity(layer.states.len());
            for state in &layer.states {
                let mut ids = Vec::new();
                let mut lengths = Vec::new();
                for clip in state.motion.clips() {
                    let length =
                        cycle_ticks(&clip.id).ok_or_else(|| ControllerError::UnknownClip {
                            controller: file.id.clone(),
                            clip: clip.id.clone(),
                        })?;
                    let at = match clips.iter().position(|c| *c == clip.id) {
                        Some(at) => at,
                        None => {
                            clips.push(clip.id.clone());
                            clips.len() - 1
                        }
                    };
                    ids.push(ClipId(at));
                    lengths.push(length.max(1) as f32);
                }
                let shape = match &state.motion {
                    Motion::Clip(_) => Shape::Single,
                    Motion::Blend1d { parameter, clips } => Shape::Line {
                        parameter: *parameter,
                        thresholds: clips.iter().map(|c| c.threshold).collect(),
                    },
                    Motion::Blend2d { x, y, clips } => Shape::Plane {
                        x: *x,
                        y: *y,
                        positions: clips.iter().map(|c| Vec2::from_array(c.position)).collect(),
                    },
                };
                states.push(CompiledState {
                    name: state.name.clone(),
                    clips: ids,
                    cycle_ticks: lengths,
                    shape,
                    speed: state.speed,
                    speed_parameter: state.speed_parameter,
                    looping: state.looping,
                    events: state.events.clone(),
                });
            }
            let mut from_state = vec![Vec::new(); states.len()];
            let mut from_any = Vec::new();
            for (i, t) in layer.transitions.iter().enumerate() {
                match t.from.and_then(|s| from_state.get_mut(s)) {
                    Some(list) => list.push(i),
                    None => from_any.push(i),
                }
            }
            layers.push(CompiledLayer {
                weight: layer.weight,
                mask: layer.mask.as_ref().map(|nodes| {
                    nodes
                        .iter()
                        .map(|n| MaskWeight {
                            node: n.node.clone(),
                            weight: n.weight,
                        })
                        .collect()
                }),
                blending: layer.blending,
                default_state: layer.default_state,
                states,
                transitions: layer.transitions.clone(),
                from_any,
                from_state,
            });
        }
        Ok(Self {
            id: file.id.clone(),
            parameters: file.parameters.clone(),
            clips,
            layers,
        })
    }

    /// The controller's emote id.
    pub fn id(&self) -> &EmoteId {
        &self.id
    }

    /// Every Animation the controller plays; [`ClipId`]s index this.
    pub fn clips(&self) -> &[EmoteId] {
        &self.clips
    }

    /// The parameters, in the order [`Parameters`] stores them.
    pub fn parameters(&self) -> &[Parameter] {
        &self.parameters
    }

    /// The number of layers.
    pub fn layer_count(&self) -> usize {
        self.layers.len()
    }

    /// The event a [`FiredEvent`] reports.
    pub fn event(&self, fired: &FiredEvent) -> Option<&StateEvent> {
        self.layers
            .get(fired.layer)?
            .states
            .get(fired.state)?
            .events
            .get(fired.event)
    }

    /// The name of state `state` of layer `layer`.
    pub fn state_name(&self, layer: usize, state: usize) -> Option<&str> {
        let layer = self.layers.get(layer)?;
        layer.states.get(state).map(|s| s.name.as_str())
    }

    pub(crate) fn layer(&self, index: usize) -> &CompiledLayer {
        &self.layers[index]
    }
}

/// One clip to sample this tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipSample {
    /// Which Animation.
    pub clip: ClipId,
    /// Its share of the layer; a layer's samples add up to 1.
    pub weight: f32,
    /// Where in its cycle, in `[0, 1]` (1 only for a finished one-shot).
    pub normalized_time: f32,
}

/// What one layer poses this tick.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LayerOutput {
    /// How much of the layer applies, in `[0, 1]`.
    pub weight: f32,
    /// Override or additive.
    pub blending: Blending,
    /// The nodes it applies to; `None` for the whole body.
    pub mask: Option<Arc<[MaskWeight]>>,
    /// The state it is in (or fading into).
    pub state: usize,
    /// The clips to sample.
    pub samples: Vec<ClipSample>,
}

/// An event a state's normalized time crossed this tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FiredEvent {
    /// The layer.
    pub layer: usize,
    /// The state, in that layer.
    pub state: usize,
    /// The event, in that state (see [`CompiledController::event`]).
    pub event: usize,
}

/// Everything one step produces; reuse it across steps so that stepping
/// does not allocate once it has grown.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ControllerOutput {
    /// One per layer, base first.
    pub layers: Vec<LayerOutput>,
    /// Events crossed this tick, by layer.
    pub events: Vec<FiredEvent>,
    /// A transition to `exit` fired: the emote ends now.
    pub exited: bool,
}

pub use machine::ControllerRuntime;
