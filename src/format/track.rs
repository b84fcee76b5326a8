//! Timeline tracks: vector keyframes (position, rotation, scale) and
//! visibility keyframes (the ordering rules every track shares are in
//! `format::keyframes`; NBT keyframes are read in [`super::nbt_track`]).

use serde_json::Value;
use valence::math::Vec3;

use super::keyframes::{molang_string, read_keys, KeyObject};
use super::nbt_track::NbtKey;
use super::problem::{index, JsonPointer, Problems};
use super::read;

/// How a segment goes from one key to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Hold the key's outgoing value until the next key.
    Step,
    /// Lerp (position, scale) or slerp (rotation), reshaped by the easing.
    Linear,
}

/// The 31 easings: `linear` and ten Penner families in three variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Easing {
    Linear,
    InSine,
    OutSine,
    InOutSine,
    InQuad,
    OutQuad,
    InOutQuad,
    InCubic,
    OutCubic,
    InOutCubic,
    InQuart,
    OutQuart,
    InOutQuart,
    InQuint,
    OutQuint,
    InOutQuint,
    InExpo,
    OutExpo,
    InOutExpo,
    InCirc,
    OutCirc,
    InOutCirc,
    InBack,
    OutBack,
    InOutBack,
    InElastic,
    OutElastic,
    InOutElastic,
    InBounce,
    OutBounce,
    InOutBounce,
}

impl Easing {
    /// Every easing with the name files use.
    pub const ALL: [(&'static str, Easing); 31] = [
        ("linear", Easing::Linear),
        ("ease_in_sine", Easing::InSine),
        ("ease_out_sine", Easing::OutSine),
        ("ease_in_out_sine", Easing::InOutSine),
        ("ease_in_quad", Easing::InQuad),
        ("ease_out_quad", Easing::OutQuad),
        ("ease_in_out_quad", Easing::InOutQuad),
        ("ease_in_cubic", Easing::InCubic),
        ("ease_out_cubic", Easing::OutCubic),
        ("ease_in_out_cubic", Easing::InOutCubic),
        ("ease_in_quart", Easing::InQuart),
        ("ease_out_quart", Easing::OutQuart),
        ("ease_in_out_quart", Easing::InOutQuart),
        ("ease_in_quint", Easing::InQuint),
        ("ease_out_quint", Easing::OutQuint),
        ("ease_in_out_quint", Easing::InOutQuint),
        ("ease_in_expo", Easing::InExpo),
        ("ease_out_expo", Easing::OutExpo),
        ("ease_in_out_expo", Easing::InOutExpo),
        ("ease_in_circ", Easing::InCirc),
        ("ease_out_circ", Easing::OutCirc),
        ("ease_in_out_circ", Easing::InOutCirc),
        ("ease_in_back", Easing::InBack),
        ("ease_out_back", Easing::OutBack),
        ("ease_in_out_back", Easing::InOutBack),
        ("ease_in_elastic", Easing::InElastic),
        ("ease_out_elastic", Easing::OutElastic),
        ("ease_in_out_elastic", Easing::InOutElastic),
        ("ease_in_bounce", Easing::InBounce),
        ("ease_out_bounce", Easing::OutBounce),
        ("ease_in_out_bounce", Easing::InOutBounce),
    ];

    /// The name files use.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, e)| *e == self)
            .map_or("linear", |(n, _)| n)
    }
}

/// One component of a vector key: a number or a Molang expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Component {
    /// A fixed number.
    Number(f32),
    /// A Molang expression evaluated when the key is sampled.
    Molang(String),
}

/// Three components: numbers, Molang, or a mix.
pub type VectorValue = [Component; 3];

/// The value of a vector key.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyValue {
    /// One value for both the incoming and the outgoing segment.
    Single(VectorValue),
    /// A discontinuity: the incoming segment ends at `pre`, the outgoing one starts at `post`.
    Jump {
        /// Where the segment arriving at this key ends.
        pre: VectorValue,
        /// Where the segment leaving this key starts.
        post: VectorValue,
    },
}

impl KeyValue {
    /// The value the segment leaving this key starts from.
    pub fn outgoing(&self) -> &VectorValue {
        match self {
            KeyValue::Single(v) | KeyValue::Jump { post: v, .. } => v,
        }
    }

    /// The value the segment arriving at this key ends on.
    pub fn incoming(&self) -> &VectorValue {
        match self {
            KeyValue::Single(v) | KeyValue::Jump { pre: v, .. } => v,
        }
    }
}

/// One key of a position, rotation or scale track.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorKey {
    /// When, in ticks after the cycle starts.
    pub time_ticks: u32,
    /// The value (or pre/post pair).
    pub value: KeyValue,
    /// The segment from this key to the next (`Linear` on the last key, unused).
    pub interpolation: Interpolation,
    /// The easing of that segment (`Linear` for step segments and the last key).
    pub easing: Easing,
}

/// A value of a visibility key.
#[derive(Clone, Debug, PartialEq)]
pub enum VisibilityValue {
    /// Shown or hidden.
    Fixed(bool),
    /// A Molang expression: zero hides, any other finite result shows.
    Molang(String),
}

/// One key of a visibility track (always stepped).
#[derive(Clone, Debug, PartialEq)]
pub struct VisibilityKey {
    /// When, in ticks after the cycle starts.
    pub time_ticks: u32,
    /// Shown, hidden, or computed.
    pub value: VisibilityValue,
}

/// The tracks of one node; a missing channel keeps the node's transform or initial visibility.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeTracks {
    /// Position keys, in blocks.
    pub position: Option<Vec<VectorKey>>,
    /// Rotation keys, XYZ Euler degrees.
    pub rotation: Option<Vec<VectorKey>>,
    /// Scale keys.
    pub scale: Option<Vec<VectorKey>>,
    /// Visibility keys.
    pub visible: Option<Vec<VisibilityKey>>,
    /// NBT keys ([`super::nbt_track`]).
    pub nbt: Option<Vec<NbtKey>>,
}

fn vector_value(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<VectorValue> {
    let Some(items) = value.as_array().filter(|a| a.len() == 3) else {
        problems.error(
            pointer,
            "a key value must be an array of three finite numbers or Molang strings",
        );
        return None;
    };
    let mut out: [Option<Component>; 3] = [None, None, None];
    for (i, item) in items.iter().enumerate() {
        let p = index(pointer, i);
        out[i] = match item {
            Value::String(s) => molang_string(s, &p, problems).map(Component::Molang),
            Value::Number(_) => {
                read::finite_number(item, &p, problems, "a key component").map(Component::Number)
            }
            other => {
                problems.error(
                    &p,
                    format!(
                        "a key component must be a finite number or a Molang string, found {}",
                        read::kind_of(other)
                    ),
                );
                None
            }
        };
    }
    let [a, b, c] = out;
    Some([a?, b?, c?])
}

/// Reads a position, rotation or scale track.
pub(crate) fn read_vector_track(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    channel: &str,
    duration_ticks: Option<u32>,
) -> Option<Vec<VectorKey>> {
    read_keys(
        value,
        pointer,
        problems,
        channel,
        duration_ticks,
        |key, problems| {
            let KeyObject {
                mut obj,
                pointer: key_pointer,
                is_last,
                time_ticks,
            } = key;
            let single = obj.opt("value");
            let pre = obj.opt("pre");
            let post = obj.opt("post");
            let value = match (single, pre, post) {
                (Some((v, p)), None, None) => vector_value(v, &p, problems).map(KeyValue::Single),
                (None, Some((a, pa)), Some((b, pb))) => {
                    let pre = vector_value(a, &pa, problems);
                    let post = vector_value(b, &pb, problems);
                    match (pre, post) {
                        (Some(pre), Some(post)) => Some(KeyValue::Jump { pre, post }),
                        _ => None,
                    }
                }
                (Some(_), _, _) => {
                    problems.error(
                    key_pointer,
                    "a keyframe defines either `value` or both `pre` and `post`, not both forms",
                );
                    None
                }
                (None, None, None) => {
                    problems.error(
                        key_pointer,
                        "a keyframe must define `value`, or both `pre` and `post`",
                    );
                    None
                }
                (None, _, _) => {
                    problems.error(key_pointer, "`pre` and `post` must be given together");
                    None
                }
            };
            let interpolation = obj.opt("interpolation").map(|(v, p)| {
                if is_last {
                    problems.error(
                        &p,
                        "the final keyframe cannot declare `interpolation`: no segment follows it",
                    );
                }
                read::one_of(
                    v,
                    &p,
                    problems,
                    "`interpolation`",
                    &[
                        ("linear", Interpolation::Linear),
                        ("step", Interpolation::Step),
                    ],
                )
            });
            let easing = obj.opt("easing").map(|(v, p)| {
                if is_last {
                    problems.error(
                        &p,
                        "the final keyframe cannot declare `easing`: no segment follows it",
                    );
                }
                (read::one_of(v, &p, problems, "`easing`", &Easing::ALL), p)
            });
            // Left out: linear; given but not understood: `None` (the key fails).
            let interpolation = interpolation.unwrap_or(Some(Interpolation::Linear));
            let easing = match easing {
                Some((Some(e), p)) => {
                    if interpolation == Some(Interpolation::Step) {
                        problems.error(
                        &p,
                        "easing applies to linear segments only; it cannot be combined with `step`",
                    );
                    }
                    Some(e)
                }
                Some((None, _)) => None,
                None => Some(Easing::Linear),
            };
            obj.finish(
                problems,
                &["time", "value", "pre", "post", "interpolation", "easing"],
            );
            Some(VectorKey {
                time_ticks: time_ticks?,
                value: value?,
                interpolation: interpolation?,
                easing: easing?,
            })
        },
    )
}

/// Reads a visibility track.
pub(crate) fn read_visibility_track(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    duration_ticks: Option<u32>,
) -> Option<Vec<VisibilityKey>> {
    read_keys(
        value,
        pointer,
        problems,
        "visible",
        duration_ticks,
        |key, problems| {
            let mut obj = key.obj;
            let value = obj.req("value", problems).and_then(|(v, p)| match v {
                Value::Bool(b) => Some(VisibilityValue::Fixed(*b)),
                Value::String(s) => molang_string(s, &p, problems).map(VisibilityValue::Molang),
                other => {
                    problems.error(
                        &p,
                        format!(
                            "a visibility value must be true, false or a Molang string, found {}",
                            read::kind_of(other)
                        ),
                    );
                    None
                }
            });
            for field in ["interpolation", "easing", "pre", "post"] {
                obj.forbid(
                    field,
                    problems,
                    &format!("visibility tracks are stepped booleans and do not support `{field}`"),
                );
            }
            obj.finish(problems, &["time", "value"]);
            Some(VisibilityKey {
                time_ticks: key.time_ticks?,
                value: value?,
            })
        },
    )
}

/// The node's transform value for a channel, as three fixed components.
pub fn constant_value(v: Vec3) -> VectorValue {
    [
        Component::Number(v.x),
        Component::Number(v.y),
        Component::Number(v.z),
    ]
}
