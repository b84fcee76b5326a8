//! The validated `.anim` clip, as read from a file (the offline side; the
//! sampler in `anim::clip` compiles it).

use std::collections::BTreeMap;

use glam::{Quat, Vec3};
use serde_json::Value;

pub use crate::molang::ease::{EaseDirection, EaseFamily};

use super::joints::BodyJoint;

/// A validated `.anim` clip of either layout. Version 1 poses are turned
/// into the same per-joint curves as versions 2 and 3 when read.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipFile {
    /// The `version` the file gave (1, 2 or 3), or the layout's own
    /// (1 for `keyframes`, 3 for `joints`) when it gave none.
    pub version: u32,
    /// `length` in seconds; the last key, marker, event, sound or play when left out.
    pub length_secs: f32,
    /// What happens at the end.
    pub loop_mode: LoopMode,
    /// `speed`, > 0 (1 when left out).
    pub speed: f32,
    /// `autoplay`.
    pub autoplay: bool,
    /// `priority` as a number (a level name is turned into its number).
    pub priority: f32,
    /// `mask`: the joint names that move (`None`: every joint).
    pub mask: Option<Vec<String>>,
    /// `blend`.
    pub blend: ClipBlend,
    /// `space`.
    pub space: ClipSpace,
    /// `euler`: the order the three angles of a rotation key are put together in.
    pub euler: EulerOrder,
    /// `skeleton`, kept as written (an object); emoted does not apply it yet.
    pub skeleton: Option<Value>,
    /// `retarget`: clip joint name to body joint name (`""` keeps the joint off a body).
    pub retarget: BTreeMap<String, String>,
    /// The joints, in the file's (sorted) order.
    pub joints: Vec<ClipJoint>,
    /// `markers`, sorted by time.
    pub markers: Vec<Marker>,
    /// `events`, sorted by time.
    pub events: Vec<ClipEvent>,
    /// `sounds`, sorted by time.
    pub sounds: Vec<ClipSound>,
    /// `plays`, sorted by time.
    pub plays: Vec<ClipPlay>,
}

/// The `loop` field (`looped` in version 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoopMode {
    /// Stops at the end (the playhead clamps).
    #[default]
    Once,
    /// Starts over.
    Loop,
    /// Stays on the last frame until stopped.
    Hold,
    /// Runs back from the end and forth again.
    PingPong,
}

/// The `blend` field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClipBlend {
    /// Replaces the pose under it by the weight.
    #[default]
    Normal,
    /// Adds to the pose after every normal track.
    Additive,
}

/// The `space` field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClipSpace {
    /// A body clip.
    #[default]
    Body,
    /// A view-model clip (a body's animator refuses it).
    View,
}

/// The order three Euler angles are put together in: `Yxz` is
/// `q = qy · qx · qz` (the letters left to right are the factors left to
/// right), the convention `anim::euler` uses for schema 4's XYZ.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EulerOrder {
    Xyz,
    Xzy,
    #[default]
    Yxz,
    Yzx,
    Zxy,
    Zyx,
}

impl EulerOrder {
    /// Every order with its name in files.
    pub const ALL: [(&'static str, EulerOrder); 6] = [
        ("xyz", EulerOrder::Xyz),
        ("xzy", EulerOrder::Xzy),
        ("yxz", EulerOrder::Yxz),
        ("yzx", EulerOrder::Yzx),
        ("zxy", EulerOrder::Zxy),
        ("zyx", EulerOrder::Zyx),
    ];

    /// The axes (0 = x, 1 = y, 2 = z) in the order of the factors.
    pub fn axes(self) -> [usize; 3] {
        match self {
            EulerOrder::Xyz => [0, 1, 2],
            EulerOrder::Xzy => [0, 2, 1],
            EulerOrder::Yxz => [1, 0, 2],
            EulerOrder::Yzx => [1, 2, 0],
            EulerOrder::Zxy => [2, 0, 1],
            EulerOrder::Zyx => [2, 1, 0],
        }
    }

    /// The quaternion of angles in degrees, put together in this order.
    pub fn quat_from_degrees(self, degrees: Vec3) -> Quat {
        let radians = degrees * (std::f32::consts::PI / 180.0);
        self.axes()
            .iter()
            .fold(Quat::IDENTITY, |q, &axis| q * axis_turn(axis, radians))
    }
}

/// The turn about axis `axis` (0, 1, 2) by `radians[axis]`.
fn axis_turn(axis: usize, radians: Vec3) -> Quat {
    match axis {
        0 => Quat::from_rotation_x(radians.x),
        1 => Quat::from_rotation_y(radians.y),
        _ => Quat::from_rotation_z(radians.z),
    }
}

/// Where a clip joint plays on a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JointTarget {
    /// On this body joint (through `retarget`, else by name).
    Body(BodyJoint),
    /// `retarget` gave `""`: kept off a body.
    Off,
    /// No body joint has this name: it plays only on a model's joint of the
    /// clip's name (a warning when read).
    Unmatched,
}

/// One joint's curves and track settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipJoint {
    /// The joint's name in the clip.
    pub name: String,
    /// Where it plays on a body.
    pub target: JointTarget,
    /// The `rotation` channel.
    pub rotation: Option<RotationChannel>,
    /// The `position` channel: offsets from the rest, in blocks.
    pub position: Option<Vec<Key<Vec3>>>,
    /// The `scale` channel.
    pub scale: Option<Vec<Key<Vec3>>>,
    /// The joint's weight: one number (versions 2 and 3), or keyed per
    /// pose (version 1, `[w, w, w]` values).
    pub weight: JointWeight,
    /// `muted`: the track does not play.
    pub muted: bool,
    /// Curve modifiers on `rotation` (Euler keys only).
    pub rotation_modifiers: Vec<Modifier>,
    /// Curve modifiers on `position`.
    pub position_modifiers: Vec<Modifier>,
}

/// A joint's weight, 0 to 1.
#[derive(Clone, Debug, PartialEq)]
pub enum JointWeight {
    /// The same at every time.
    Constant(f32),
    /// Keyed (version 1 poses): the weight is each value's `x`.
    Keyed(Vec<Key<Vec3>>),
}

/// A rotation channel: Euler angles or quaternions, never both.
#[derive(Clone, Debug, PartialEq)]
pub enum RotationChannel {
    /// `[x, y, z]` degrees, put together in the clip's [`EulerOrder`].
    Euler(Vec<Key<Vec3>>),
    /// `[x, y, z, w]`, normalised when read.
    Quaternion(Vec<Key<Quat>>),
}

/// One key: `[time, value, interpolation, extra]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key<V> {
    /// Seconds from the clip's start, >= 0; keys never go back in time.
    pub time_secs: f32,
    /// The value.
    pub value: V,
    /// How the value travels to the next key.
    pub interpolation: Interpolation,
    /// `ease` for an easing (with its default filled in).
    pub ease: EaseDirection,
    /// The `in` handle (bezier).
    pub handle_in: Option<Handle>,
    /// The `out` handle (bezier).
    pub handle_out: Option<Handle>,
}

/// A key's interpolation to the next key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// A straight line (the default).
    Linear,
    /// Holds, then jumps at the next key.
    Step,
    /// A smooth curve through the keys.
    CatmullRom,
    /// Shaped by this key's out handle and the next key's in handle.
    Bezier,
    /// An easing of this family (direction in [`Key::ease`]).
    Ease(EaseFamily),
}

/// A bezier handle `[dt, dv]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Handle {
    /// Seconds from its key (<= 0 for `in`, >= 0 for `out`).
    pub dt_secs: f32,
    /// How far from the key's value, per axis (one number is all three).
    pub dv: Vec3,
}

/// One curve modifier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Modifier {
    /// What it does.
    pub kind: ModifierKind,
    /// `axis`: 0, 1 or 2; `None` is every axis.
    pub axis: Option<u8>,
    /// `enabled` (true when left out).
    pub enabled: bool,
}

/// A modifier's type and fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ModifierKind {
    /// Repeats the keyed range before the first key and after the last.
    Cycles {
        /// Before the first key.
        before: CycleMode,
        /// After the last key.
        after: CycleMode,
    },
    /// A smooth deterministic wobble.
    Noise {
        /// Seconds per wobble, > 0.
        scale_secs: f32,
        /// Peak to peak.
        strength: f32,
        /// Shifts the wobble in time (in wobbles).
        phase: f32,
        /// Added to the value.
        offset: f32,
    },
    /// Holds the curve on a grid of times.
    Stepped {
        /// The grid's spacing in seconds, > 0.
        step_secs: f32,
        /// Where the grid starts, in seconds.
        offset_secs: f32,
    },
    /// Clamps the value.
    Limits {
        /// The least value, if limited.
        min: Option<f32>,
        /// The greatest value, if limited.
        max: Option<f32>,
    },
    /// Stretches the curve between moving bounds.
    Envelope {
        /// `reference`.
        reference: f32,
        /// `min`, relative to the reference.
        min: f32,
        /// `max`, relative to the reference.
        max: f32,
        /// The points, sorted by time (at most [`ENVELOPE_POINTS`]).
        points: EnvelopePoints,
    },
}

/// The most points an envelope may have (the modifier stays `Copy`).
pub const ENVELOPE_POINTS: usize = 16;

/// An envelope's `[time, min, max]` points, sorted by time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnvelopePoints {
    /// The points; only the first `len` count.
    pub points: [[f32; 3]; ENVELOPE_POINTS],
    /// How many there are.
    pub len: usize,
}

impl EnvelopePoints {
    /// The points that count.
    pub fn as_slice(&self) -> &[[f32; 3]] {
        self.points.get(..self.len).unwrap_or(&[])
    }
}

/// What `cycles` does on one side of the keyed range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CycleMode {
    /// Holds the end key, as without the modifier.
    None,
    /// Repeats the range.
    #[default]
    Repeat,
    /// Repeats it, climbing by the range's change each cycle.
    Offset,
    /// Repeats it, every second cycle backwards.
    Mirror,
}

/// A marker: a name at a time with an optional string value.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// Seconds.
    pub time_secs: f32,
    /// The name.
    pub name: String,
    /// The value.
    pub value: Option<String>,
}

/// Where an event fires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EventSide {
    /// On the server only.
    Server,
    /// On the clients only.
    Client,
    /// On both (the default).
    #[default]
    Both,
}

/// An event: a name at a time with any JSON payload.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipEvent {
    /// Seconds.
    pub time_secs: f32,
    /// The name.
    pub name: String,
    /// The payload (`null` when left out).
    pub payload: Value,
    /// `on`.
    pub on: EventSide,
}

/// A sound the clients play where the rig stands.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipSound {
    /// Seconds.
    pub time_secs: f32,
    /// The sound id.
    pub sound: String,
    /// 0 or more (1 when left out).
    pub volume: f32,
    /// > 0 (1 when left out).
    pub pitch: f32,
}

/// Another clip started on the same animator.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipPlay {
    /// Seconds.
    pub time_secs: f32,
    /// The `res://` path of the `.anim`.
    pub clip: String,
    /// The fade in seconds, >= 0 (0 when left out).
    pub fade_secs: f32,
}
