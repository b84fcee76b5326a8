//! Controller files: emotes you can walk in (issue 32, seed 004's model in
//! emoted's own schema).
//!
//! # The model
//! A controller does not hold keyframes. It is a state machine over
//! Animations that other files define, driven by **parameters** the server
//! feeds every tick (how fast the player moves, whether they are on the
//! ground, a jump) and that events or `/emote set` change:
//!
//! - **Parameters** are float, int, bool or trigger. The built-in ones
//!   ([`BUILTIN_PARAMETERS`]) always exist; a file may declare one of them
//!   again, with the same type, to give it another default. A trigger is
//!   armed by the server and stays armed until a transition consumes it or
//!   for 5 ticks (0.25 s).
//! - **Layers** are evaluated from the first (the base) to the last; each
//!   later one overrides the pose under it, or adds to it
//!   (`"blending": "additive"`), by a fixed `weight` or a `weight_parameter`,
//!   optionally only on the nodes its `mask` names.
//! - Each layer is one state machine: **states** play one clip, a 1D blend
//!   on one parameter (clips at increasing `threshold`s) or a 2D blend on two
//!   parameters (clips at `position`s, gradient-band weights). Blended clips
//!   share one normalized time, so feet stay in sync.
//! - **Transitions** go from a state (or `"any"`, checked first) to a state
//!   when all their `when` conditions hold ([`condition`]) and, if they have
//!   one, once the state reached its `exit_time`; they crossfade over
//!   `crossfade` ticks, start the destination at `offset`, and may be cut by a
//!   later transition when `interruptible`.
//! - **Events** run commands at normalized times of a state, as timeline
//!   events do.
//!
//! ```json
//! {"type": "controller", "schema_version": 4, "id": "example:walk_wave",
//!  "metadata": {"name": "Walk and wave"},
//!  "parameters": {"waving": {"type": "float", "default": 1}},
//!  "layers": [
//!   {"name": "base", "default_state": "move",
//!    "states": {
//!      "move": {"blend": {"parameter": "speed", "clips": [
//!        {"clip": "example:idle", "threshold": 0}, {"clip": "example:walk", "threshold": 4.3}]}},
//!      "jump": {"clip": "example:jump", "loop": false}},
//!    "transitions": [
//!      {"from": "any", "to": "jump", "when": ["jump", "grounded"], "crossfade": "2t"},
//!      {"from": "jump", "to": "move", "exit_time": 0.9}]},
//!   {"name": "wave", "weight_parameter": "waving", "mask": ["arm_r"],
//!    "default_state": "wave", "states": {"wave": {"clip": "example:wave"}}}]}
//! ```
//!
//! Reading checks everything the file alone can tell ([`parse_controller_value`]);
//! the clips and mask nodes belong to other files, so [`check_references`]
//! checks them once the library knows its Animations. Names are resolved to
//! indices while reading: a [`ControllerFile`] is valid by construction.
//!
//! Choices where seed 004 is silent: the defaults (`crossfade` 5 ticks, at
//! most 200; `speed` 1, at most 10; `loop` true; `blending` override; layer
//! weight 1); a transition without conditions leaves at the end of the clip
//! (`exit_time` 1); the first layer may not be additive (nothing is under it
//! but the rest pose); a 1D blend needs two clips and a 2D blend three.

pub mod condition;
mod layer;
mod references;
mod state;

use serde_json::Value;

pub use condition::{Comparison, Condition, Test};
pub use references::{check_references, ClipLookup};

use super::animation::{finish_document, read_header, read_metadata, Metadata};
use super::event::CommandEvent;
use super::ident::EmoteId;
use super::problem::{field, JsonPointer, Problems, Root};
use super::read::{self, Obj};
use super::settings::read_controller_settings;
pub use super::settings::ControllerSettings;

/// How long a trigger stays armed when no transition consumes it: 0.25 s.
pub const TRIGGER_TICKS: u32 = 5;
/// The longest `crossfade`: 10 s.
pub const MAX_CROSSFADE_TICKS: u32 = 200;
/// The `crossfade` of a transition that does not give one: 0.25 s.
pub const DEFAULT_CROSSFADE_TICKS: u32 = 5;
/// The fastest state `speed`.
pub const MAX_STATE_SPEED: f32 = 10.0;
/// The name `from` uses for "whatever state the layer is in".
pub const ANY_STATE: &str = "any";
/// The name `to` uses for "the emote ends".
pub const EXIT_STATE: &str = "exit";

/// The type of a parameter and its value when the controller starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParameterKind {
    /// A number.
    Float {
        /// The starting value.
        default: f32,
    },
    /// A whole number.
    Int {
        /// The starting value.
        default: i32,
    },
    /// True or false.
    Bool {
        /// The starting value.
        default: bool,
    },
    /// Armed by an event, consumed by a transition or gone after
    /// [`TRIGGER_TICKS`]; starts unarmed.
    Trigger,
}

impl ParameterKind {
    /// `float`, `int`, `bool` or `trigger`.
    pub fn type_name(self) -> &'static str {
        match self {
            ParameterKind::Float { .. } => "float",
            ParameterKind::Int { .. } => "int",
            ParameterKind::Bool { .. } => "bool",
            ParameterKind::Trigger => "trigger",
        }
    }

    /// `a float`, `an int`, … for messages.
    pub(crate) fn described(self) -> &'static str {
        match self {
            ParameterKind::Float { .. } => "a float",
            ParameterKind::Int { .. } => "an int",
            ParameterKind::Bool { .. } => "a bool",
            ParameterKind::Trigger => "a trigger",
        }
    }

    /// True for float and int: usable as a number (blends, weights, speeds).
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            ParameterKind::Float { .. } | ParameterKind::Int { .. }
        )
    }
}

/// The parameters the server feeds from the live player every tick, with
/// their types and starting values. They exist in every controller.
pub const BUILTIN_PARAMETERS: [(&str, ParameterKind); 10] = [
    ("speed", ParameterKind::Float { default: 0.0 }),
    ("forward", ParameterKind::Float { default: 0.0 }),
    ("strafe", ParameterKind::Float { default: 0.0 }),
    ("grounded", ParameterKind::Bool { default: true }),
    ("sneaking", ParameterKind::Bool { default: false }),
    ("sprinting", ParameterKind::Bool { default: false }),
    ("jump", ParameterKind::Trigger),
    ("look_yaw", ParameterKind::Float { default: 0.0 }),
    ("look_pitch", ParameterKind::Float { default: 0.0 }),
    ("in_water", ParameterKind::Bool { default: false }),
];

/// One parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// The name conditions and blends use.
    pub name: String,
    /// Type and starting value.
    pub kind: ParameterKind,
    /// True for one of [`BUILTIN_PARAMETERS`] (fed by the server).
    pub builtin: bool,
}

/// How a layer meets the pose under it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Blending {
    /// Replaces it, by the layer's weight.
    #[default]
    Override,
    /// Adds to it, scaled by the layer's weight.
    Additive,
}

/// How much of a layer is applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LayerWeight {
    /// A fixed weight in `[0, 1]`.
    Fixed(f32),
    /// A numeric parameter's value (index into
    /// [`ControllerFile::parameters`]), clamped to `[0, 1]`.
    Parameter(usize),
}

/// One node a layer's mask names.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskNode {
    /// A node id of the clips (checked by [`check_references`]).
    pub node: String,
    /// How much of the layer this node takes, in `[0, 1]` (default 1).
    pub weight: f32,
    /// Where the node id is written, for [`check_references`].
    pub pointer: String,
}

/// An Animation a state plays.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipRef {
    /// The Animation's emote id (checked by [`check_references`]).
    pub id: EmoteId,
    /// Where it is written, for [`check_references`].
    pub pointer: String,
}

/// A clip of a 1D blend.
#[derive(Clone, Debug, PartialEq)]
pub struct ThresholdClip {
    /// The clip.
    pub clip: ClipRef,
    /// The parameter value where it plays alone; increasing along the list.
    pub threshold: f32,
}

/// A clip of a 2D blend.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionedClip {
    /// The clip.
    pub clip: ClipRef,
    /// The `(x, y)` parameter values where it plays alone; all distinct.
    pub position: [f32; 2],
}

/// What a state plays.
#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    /// One clip.
    Clip(ClipRef),
    /// Clips along one numeric parameter, at least two.
    Blend1d {
        /// The parameter (index into [`ControllerFile::parameters`]).
        parameter: usize,
        /// The clips by increasing threshold.
        clips: Vec<ThresholdClip>,
    },
    /// Clips on the plane of two numeric parameters, at least three.
    Blend2d {
        /// The x parameter.
        x: usize,
        /// The y parameter.
        y: usize,
        /// The clips at distinct positions.
        clips: Vec<PositionedClip>,
    },
}

impl Motion {
    /// Every clip this motion plays, in file order.
    pub fn clips(&self) -> Vec<&ClipRef> {
        match self {
            Motion::Clip(c) => vec![c],
            Motion::Blend1d { clips, .. } => clips.iter().map(|c| &c.clip).collect(),
            Motion::Blend2d { clips, .. } => clips.iter().map(|c| &c.clip).collect(),
        }
    }
}

/// Commands run when a state's normalized time reaches `time`.
#[derive(Clone, Debug, PartialEq)]
pub struct StateEvent {
    /// Normalized time in `[0, 1)`.
    pub time: f32,
    /// What runs (the player or the server as source, the root as origin).
    pub event: CommandEvent,
}

/// One state of a layer.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// Its name (unique in its layer, never `any`).
    pub name: String,
    /// What it plays.
    pub motion: Motion,
    /// A playback rate in `[0, 10]`.
    pub speed: f32,
    /// A numeric parameter multiplying `speed` (negative values count as 0).
    pub speed_parameter: Option<usize>,
    /// Whether the state repeats; a state that does not holds its last frame.
    pub looping: bool,
    /// Events by time.
    pub events: Vec<StateEvent>,
}

/// Where a transition goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A state of its layer (index into [`Layer::states`]).
    State(usize),
    /// `"exit"`: the emote ends on the tick the transition fires (its
    /// `stop` ends as any other end does; the crossfade is not used).
    Exit,
}

/// One transition of a layer.
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    /// The state it leaves (index into [`Layer::states`]); `None` for any.
    pub from: Option<usize>,
    /// The state it enters, or the end of the emote.
    pub to: Target,
    /// All must hold.
    pub conditions: Vec<Condition>,
    /// The crossfade length, `0..=200` ticks.
    pub crossfade_ticks: u32,
    /// The normalized time in `[0, 1]` the state must reach first.
    pub exit_time: Option<f32>,
    /// Where the destination starts, normalized, in `[0, 1)`.
    pub offset: f32,
    /// Whether a later transition may cut into its crossfade.
    pub interruptible: bool,
}

/// One layer: a state machine and how its pose is applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    /// Its name (unique in the file).
    pub name: String,
    /// How much of it is applied.
    pub weight: LayerWeight,
    /// `None`: the whole body; otherwise the nodes it applies to.
    pub mask: Option<Vec<MaskNode>>,
    /// Override or additive.
    pub blending: Blending,
    /// The state it starts in (index into `states`).
    pub default_state: usize,
    /// The states, by name.
    pub states: Vec<State>,
    /// The transitions, in file order.
    pub transitions: Vec<Transition>,
}

/// A validated controller file.
#[derive(Clone, Debug, PartialEq)]
pub struct ControllerFile {
    /// The emote id.
    pub id: EmoteId,
    /// Name, description, extras.
    pub metadata: Metadata,
    /// Who may pick it, its cooldown, deadzone and what it does to the player.
    pub settings: ControllerSettings,
    /// The built-in parameters, then the declared ones by name.
    pub parameters: Vec<Parameter>,
    /// The layers, base first.
    pub layers: Vec<Layer>,
}

impl ControllerFile {
    /// The clip whose nodes are the body every clip poses: the first clip
    /// of the base layer's default state.
    pub fn body_clip(&self) -> Option<&ClipRef> {
        let base = self.layers.first()?;
        let state = base.states.get(base.default_state)?;
        state.motion.clips().first().copied()
    }

    /// Every clip reference, in file order (repeats included).
    pub fn clips(&self) -> impl Iterator<Item = &ClipRef> + '_ {
        self.layers
            .iter()
            .flat_map(|l| &l.states)
            .flat_map(|s| s.motion.clips())
    }

    /// The index of the parameter called `name`.
    pub fn parameter_index(&self, name: &str) -> Option<usize> {
        self.parameters.iter().position(|p| p.name == name)
    }
}

/// Reads a controller file from parsed JSON.
pub fn parse_controller_value(value: &Value) -> (Option<ControllerFile>, Problems) {
    let mut problems = Problems::new();
    let file = read_controller(value, &mut problems);
    (file, problems)
}

/// Reads a controller from parsed JSON, recording every problem.
pub(crate) fn read_controller(root: &Value, problems: &mut Problems) -> Option<ControllerFile> {
    let mut obj = Obj::new(root, &Root, problems, "a controller file")?;
    let id = read_header(&mut obj, problems, "controller");
    let metadata = read_metadata(&mut obj, problems);
    let settings = match obj.opt("settings") {
        Some((v, p)) => read_controller_settings(v, &p, problems),
        None => ControllerSettings::default(),
    };
    let parameters = match obj.opt("parameters") {
        Some((v, p)) => read_parameters(v, &p, problems),
        None => builtins(),
    };
    let layers = match obj.req("layers", problems) {
        Some((v, p)) => layer::read_layers(v, &p, problems, &parameters),
        None => Vec::new(),
    };
    finish_document(obj, problems, &["settings", "parameters", "layers"]);
    if problems.has_errors() {
        return None;
    }
    Some(ControllerFile {
        id: id?,
        metadata,
        settings,
        parameters,
        layers,
    })
}

fn builtins() -> Vec<Parameter> {
    BUILTIN_PARAMETERS
        .iter()
        .map(|(name, kind)| Parameter {
            name: (*name).to_owned(),
            kind: *kind,
            builtin: true,
        })
        .collect()
}

const PARAMETER_TYPES: [(&str, u8); 4] = [("float", 0), ("int", 1), ("bool", 2), ("trigger", 3)];

fn read_parameters(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Vec<Parameter> {
    let mut parameters = builtins();
    let Some(obj) = Obj::new(value, pointer, problems, "`parameters`") else {
        return parameters;
    };
    for (name, v) in obj.entries() {
        let p = field(pointer, name);
        if !condition::is_parameter_name(name) {
            problems.error(
                &p,
                format!(
                    "parameter name `{name}` must start with a-z or _ and use only a-z, 0-9 and _"
                ),
            );
            continue;
        }
        let Some(kind) = read_parameter(v, &p, problems) else {
            continue;
        };
        match parameters.iter_mut().find(|q| q.name == *name) {
            Some(builtin) if builtin.kind.type_name() != kind.type_name() => problems.error(
                &p,
                format!(
                    "`{name}` is a built-in {} parameter fed by the server; declare it as {} or pick another name",
                    builtin.kind.type_name(),
                    builtin.kind.type_name()
                ),
            ),
            Some(builtin) => builtin.kind = kind,
            None => parameters.push(Parameter {
                name: name.clone(),
                kind,
                builtin: false,
            }),
        }
    }
    parameters
}

/// One parameter: `"float"` or `{"type": "float", "default": 0.5}`.
fn read_parameter(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<ParameterKind> {
    let (ty, default) = match value {
        Value::String(_) => (
            read::one_of(value, pointer, problems, "parameter type", &PARAMETER_TYPES)?,
            None,
        ),
        _ => {
            let mut obj = Obj::new(value, pointer, problems, "a parameter")?;
            let ty = obj.req_one_of("type", problems, "parameter type", &PARAMETER_TYPES);
            let default = obj.opt("default");
            obj.finish(problems, &["type", "default"]);
            (ty?, default)
        }
    };
    let Some((v, p)) = default else {
        return Some(match ty {
            0 => ParameterKind::Float { default: 0.0 },
            1 => ParameterKind::Int { default: 0 },
            2 => ParameterKind::Bool { default: false },
            _ => ParameterKind::Trigger,
        });
    };
    match ty {
        0 => read::finite_number(v, &p, problems, "a float `default`")
            .map(|default| ParameterKind::Float { default }),
        1 => match v.as_i64().and_then(|n| i32::try_from(n).ok()) {
            Some(default) => Some(ParameterKind::Int { default }),
            None => {
                problems.error(
                    &p,
                    format!("an int `default` must be a whole number, found {v}"),
                );
                None
            }
        },
        2 => read::boolean(v, &p, problems, "a bool `default`")
            .map(|default| ParameterKind::Bool { default }),
        _ => {
            problems.error(&p, "a trigger has no `default`: it starts unarmed");
            None
        }
    }
}

/// Looks `name` up among `parameters`, recording an unknown one (with the
/// closest name) at `pointer`.
pub(crate) fn parameter_index(
    parameters: &[Parameter],
    name: &str,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<usize> {
    let found = parameters.iter().position(|p| p.name == name);
    if found.is_none() {
        problems.error(
            pointer,
            format!(
                "{what} names unknown parameter `{name}`{}",
                condition::suggestion(name, parameters)
            ),
        );
    }
    found
}

/// A parameter used as a number: known, and float or int.
pub(super) fn numeric_parameter(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    parameters: &[Parameter],
    what: &str,
) -> Option<usize> {
    let name = read::nonempty_string(value, pointer, problems, what)?;
    let found = parameter_index(parameters, name, pointer, problems, what)?;
    let kind = parameters[found].kind;
    if !kind.is_numeric() {
        problems.error(
            pointer,
            format!(
                "{what} must be a float or int parameter, and `{name}` is {}",
                kind.described()
            ),
        );
        return None;
    }
    Some(found)
}

pub(super) fn state_index(
    names: &[&str],
    name: &str,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<usize> {
    let found = names.iter().position(|n| *n == name);
    if found.is_none() {
        problems.error(
            pointer,
            format!(
                "{what} names unknown state `{name}`{}",
                read::did_you_mean(name, names.iter().copied())
            ),
        );
    }
    found
}

/// A number in `[0, 1]`, or in `[0, 1)` when `below_one`: weights and
/// normalized times.
pub(super) fn unit_number(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    below_one: bool,
) -> Option<f32> {
    let rule = if below_one {
        "must lie in [0, 1)"
    } else {
        "must lie in [0, 1]"
    };
    let n = read::number_in_range(value, pointer, problems, what, 0.0..=1.0, rule)?;
    if below_one && n >= 1.0 {
        problems.error(pointer, format!("{what} {rule}, found {value}"));
        return None;
    }
    Some(n)
}
