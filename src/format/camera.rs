//! `metadata.emoted.camera` in an Animation: the camera the server flies
//! for the emoting player (issue 29), in the file's units (blocks,
//! degrees, ticks). Under `metadata.emoted`, so the file stays valid for
//! every schema 4 server.
//!
//! ```json
//! "metadata": {"name": "Bow", "emoted": {"camera": {"shots": [
//!   {"at": "0t", "shot": "keyed", "node": "camera"},
//!   {"at": "2s", "shot": "orbit", "duration": "1s", "radius": 4, "height": 0.5, "from": -40, "to": 40},
//!   {"at": "3s", "shot": "crane", "duration": "1s", "height": [0.5, 3], "target": "head"}
//! ]}}}
//! ```
//!
//! - `camera: false`: never a camera for this emote; absent (or `true`):
//!   the server's default shot.
//! - Each shot (seed 004's shots, their parameters and defaults): `at`
//!   (when it starts, on the Animation's timeline; the first at `0t`
//!   unless written; each later than the one before), `shot`, `duration`
//!   (at least 1t; required for the shots that move: a sweeping `orbit`,
//!   `dolly`, `crane` and `path`), `target`
//!   (`"initiator"`, the default, or a node id: the camera looks at the
//!   node's origin), `offset` (`[x, y, z]` blocks added to the target, in
//!   its frame; default `[0, 1.2, 0]`, the chest of a player whose feet
//!   are the target) and `ease` (one of the track easings; default
//!   `ease_in_out_sine`, seed 004's `smooth`). A shot holds its last pose
//!   until the next starts.
//! - `fov` and `roll` are refused: a server cannot set a vanilla client's
//!   field of view, and a camera entity has no roll.

use serde_json::Value;
use valence::math::Vec3;

use super::problem::{field, index, JsonPointer, Problems};
use super::read::{self, Obj};
use super::track::Easing;

/// What an Animation asks of the emote camera.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum CameraSetting {
    /// Nothing written: the server's default shot.
    #[default]
    ServerDefault,
    /// `false`: no camera for this emote.
    Off,
    /// The shots written, in order of `at`.
    Shots(Vec<CameraShot>),
}

/// One shot as written.
#[derive(Clone, Debug, PartialEq)]
pub struct CameraShot {
    /// When it starts, ticks from the emote's start.
    pub at_ticks: u32,
    /// How long it moves.
    pub duration_ticks: u32,
    /// Whom or what it looks at.
    pub target: ShotTarget,
    /// Added to the target, in its frame (blocks).
    pub offset_blocks: Vec3,
    /// How its time fraction is eased.
    pub ease: Easing,
    /// The move and its parameters.
    pub kind: ShotKind,
}

/// What a shot frames.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShotTarget {
    /// The emoting player (the initiator's root).
    Initiator,
    /// A node of the Animation, by id.
    Node(String),
}

/// A shot's move (seed 004), in blocks and degrees; bearings are measured
/// from the target's front, turning right.
#[derive(Clone, Debug, PartialEq)]
pub enum ShotKind {
    /// `orbit`: `radius` (4) and `height` (0.5). With `from` or `to`
    /// (−40 and 40 when one is left out) it sweeps between those
    /// bearings over its duration; with neither, the player steers it with
    /// the mouse, from bearing 0 (the server's default shot).
    Orbit {
        /// Horizontal distance.
        radius_blocks: f32,
        /// Height above the target.
        height_blocks: f32,
        /// The bearings at the start and at the end (`None`: steered).
        sweep_degrees: Option<[f32; 2]>,
    },
    /// `follow`: behind the target `distance` (4) and `height` (1.5)
    /// above it, turning with the body.
    Follow {
        /// Horizontal distance behind.
        distance_blocks: f32,
        /// Height above the target.
        height_blocks: f32,
    },
    /// `keyed`: the camera is `node`, an anchor of the Animation (its
    /// origin is the eye, its +Z the look), keyed like any node.
    Keyed {
        /// The anchor's id.
        node: String,
    },
    /// `dolly`: `distance` `[far, near]` (required), `angle` (0), `height` (0.5).
    Dolly {
        /// The bearing.
        angle_degrees: f32,
        /// Height above the target.
        height_blocks: f32,
        /// Distance at the start.
        far_blocks: f32,
        /// Distance at the end.
        near_blocks: f32,
    },
    /// `crane`: `height` `[low, high]` (required), `distance` (4), `angle` (0).
    Crane {
        /// The bearing.
        angle_degrees: f32,
        /// Horizontal distance.
        distance_blocks: f32,
        /// Height at the start.
        low_blocks: f32,
        /// Height at the end.
        high_blocks: f32,
    },
    /// `fixed`: `position` `[x, y, z]` in the target's frame (required),
    /// looking at the target.
    Fixed {
        /// The eye in the target's frame.
        position_blocks: Vec3,
    },
    /// `path`: `points`, one or more `[x, y, z]` in the target's frame.
    Path {
        /// The points.
        points_blocks: Vec<Vec3>,
    },
}

/// Which shot a file names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ShotName {
    Orbit,
    Follow,
    Fixed,
    Keyed,
    Dolly,
    Crane,
    Path,
}

/// The shot names, for messages and parsing.
const SHOT_NAMES: [(&str, ShotName); 7] = [
    ("orbit", ShotName::Orbit),
    ("follow", ShotName::Follow),
    ("fixed", ShotName::Fixed),
    ("keyed", ShotName::Keyed),
    ("dolly", ShotName::Dolly),
    ("crane", ShotName::Crane),
    ("path", ShotName::Path),
];

/// The fields every shot may have.
const COMMON_FIELDS: [&str; 6] = ["at", "shot", "duration", "target", "offset", "ease"];

/// The most shots one emote may have.
pub const MAX_SHOTS: usize = 64;

/// The most points a path may have.
pub const MAX_PATH_POINTS: usize = 256;

/// The Animation's node ids, and which of them are anchors.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeIds<'a> {
    /// Every node.
    pub all: &'a [&'a str],
    /// The anchors.
    pub anchors: &'a [&'a str],
}

/// Reads `camera` (at `pointer`) of an Animation with `nodes`.
pub(crate) fn read_camera(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    nodes: NodeIds<'_>,
) -> CameraSetting {
    match value {
        Value::Bool(false) => return CameraSetting::Off,
        Value::Bool(true) => return CameraSetting::ServerDefault,
        _ => {}
    }
    let Some(mut camera) = Obj::new(value, pointer, problems, "`camera`") else {
        return CameraSetting::ServerDefault;
    };
    let mut shots = Vec::new();
    if let Some((list, list_pointer)) = camera.req("shots", problems) {
        match list.as_array() {
            Some(items) if !items.is_empty() && items.len() <= MAX_SHOTS => {
                for (i, item) in items.iter().enumerate() {
                    let at = index(&list_pointer, i);
                    let earliest = shots.last().map_or(0, |s: &CameraShot| s.at_ticks + 1);
                    if let Some(shot) = read_shot(item, &at, problems, nodes, earliest) {
                        shots.push(shot);
                    }
                }
            }
            _ => problems.error(
                &list_pointer,
                format!("camera `shots` must be an array of 1 to {MAX_SHOTS} shots"),
            ),
        }
    }
    camera.finish(problems, &["shots"]);
    CameraSetting::Shots(shots)
}

fn read_shot(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    nodes: NodeIds<'_>,
    earliest_ticks: u32,
) -> Option<CameraShot> {
    let (node_ids, anchor_ids) = (nodes.all, nodes.anchors);
    let mut obj = Obj::new(value, pointer, problems, "a camera shot")?;
    for refused in ["fov", "roll"] {
        obj.forbid(
            refused,
            problems,
            &format!("a server camera has no `{refused}`: a vanilla client keeps its own field of view and a camera entity does not roll"),
        );
    }
    let at_ticks = match obj.opt("at") {
        Some((v, p)) => {
            let at = read::time(v, &p, problems, "shot `at`", 0)?;
            if at < earliest_ticks {
                problems.error(
                    &p,
                    format!(
                        "shot `at` must come after the shot before it: {at}t is not after {}t",
                        earliest_ticks.saturating_sub(1)
                    ),
                );
                return None;
            }
            at
        }
        None if earliest_ticks == 0 => 0,
        None => {
            problems.error(pointer, "missing required field `at` (only the first shot may leave it out, starting at 0t)");
            return None;
        }
    };
    let which = obj.req_one_of("shot", problems, "`shot`", &SHOT_NAMES)?;
    let sweeps = obj.opt("from").is_some() || obj.opt("to").is_some();
    let moves = match which {
        ShotName::Orbit => sweeps,
        ShotName::Dolly | ShotName::Crane | ShotName::Path => true,
        ShotName::Follow | ShotName::Fixed | ShotName::Keyed => false,
    };
    let duration_ticks = match obj.opt("duration") {
        Some((v, p)) => read::time(v, &p, problems, "shot `duration`", 1)?,
        None if !moves => 1,
        None => {
            problems.error(
                pointer,
                "missing required field `duration` (a shot that moves needs one)",
            );
            return None;
        }
    };
    let target = match obj.opt("target") {
        None => ShotTarget::Initiator,
        Some((v, p)) => {
            let name = read::string(v, &p, problems, "shot `target`")?;
            if name == "initiator" {
                ShotTarget::Initiator
            } else if node_ids.contains(&name) {
                ShotTarget::Node(name.to_owned())
            } else {
                problems.error(&p, format!("shot `target` `{name}` is neither `initiator` nor a node of this Animation"));
                return None;
            }
        }
    };
    let offset_blocks = match obj.opt("offset") {
        None => Vec3::new(0.0, 1.2, 0.0),
        Some((v, p)) => read::vec3(v, &p, problems, "shot `offset`")?,
    };
    let ease = match obj.opt("ease") {
        None => Easing::InOutSine,
        Some((v, p)) => read::one_of(v, &p, problems, "shot `ease`", &Easing::ALL)?,
    };
    let (kind, own): (ShotKind, &[&str]) = match which {
        ShotName::Orbit => {
            let radius_blocks = number(&mut obj, problems, "radius", 4.0)?;
            let height_blocks = number(&mut obj, problems, "height", 0.5)?;
            let sweep_degrees = if sweeps {
                Some([
                    number(&mut obj, problems, "from", -40.0)?,
                    number(&mut obj, problems, "to", 40.0)?,
                ])
            } else {
                None
            };
            (
                ShotKind::Orbit {
                    radius_blocks,
                    height_blocks,
                    sweep_degrees,
                },
                &["radius", "height", "from", "to"],
            )
        }
        ShotName::Follow => (
            ShotKind::Follow {
                distance_blocks: number(&mut obj, problems, "distance", 4.0)?,
                height_blocks: number(&mut obj, problems, "height", 1.5)?,
            },
            &["distance", "height"],
        ),
        ShotName::Keyed => {
            let (v, p) = obj.req("node", problems)?;
            let node = read::string(v, &p, problems, "shot `node`")?;
            if !anchor_ids.contains(&node) {
                let what = if node_ids.contains(&node) {
                    "is a node but not an anchor: only an anchor can carry the camera"
                } else {
                    "is not a node of this Animation"
                };
                problems.error(&p, format!("shot `node` `{node}` {what}"));
                return None;
            }
            (
                ShotKind::Keyed {
                    node: node.to_owned(),
                },
                &["node"],
            )
        }
        ShotName::Dolly => {
            let angle_degrees = number(&mut obj, problems, "angle", 0.0)?;
            let height_blocks = number(&mut obj, problems, "height", 0.5)?;
            let [far_blocks, near_blocks] = pair(&mut obj, "distance", problems)?;
            (
                ShotKind::Dolly {
                    angle_degrees,
                    height_blocks,
                    far_blocks,
                    near_blocks,
                },
                &["distance", "angle", "height"],
            )
        }
        ShotName::Crane => {
            let angle_degrees = number(&mut obj, problems, "angle", 0.0)?;
            let distance_blocks = number(&mut obj, problems, "distance", 4.0)?;
            let [low_blocks, high_blocks] = pair(&mut obj, "height", problems)?;
            (
                ShotKind::Crane {
                    angle_degrees,
                    distance_blocks,
                    low_blocks,
                    high_blocks,
                },
                &["height", "distance", "angle"],
            )
        }
        ShotName::Fixed => {
            let (v, p) = obj.req("position", problems)?;
            let position_blocks = read::vec3(v, &p, problems, "shot `position`")?;
            (ShotKind::Fixed { position_blocks }, &["position"])
        }
        ShotName::Path => {
            let (v, p) = obj.req("points", problems)?;
            (
                ShotKind::Path {
                    points_blocks: points(v, &p, problems)?,
                },
                &["points"],
            )
        }
    };
    let allowed: Vec<&str> = COMMON_FIELDS
        .iter()
        .chain(own)
        .copied()
        .chain(["fov", "roll"])
        .collect();
    obj.finish(problems, &allowed);
    Some(CameraShot {
        at_ticks,
        duration_ticks,
        target,
        offset_blocks,
        ease,
        kind,
    })
}

/// An optional finite number, `default` when absent.
fn number(obj: &mut Obj<'_>, problems: &mut Problems, key: &str, default: f32) -> Option<f32> {
    match obj.opt(key) {
        None => Some(default),
        Some((v, p)) => read::finite_number(v, &p, problems, &format!("shot `{key}`")),
    }
}

/// A required `[a, b]` of finite numbers.
fn pair(obj: &mut Obj<'_>, key: &str, problems: &mut Problems) -> Option<[f32; 2]> {
    let (v, p) = obj.req(key, problems)?;
    let what = format!("shot `{key}`");
    if v.as_array().map(Vec::len) != Some(2) {
        problems.error(
            &p,
            format!("{what} must be an array of two finite numbers [from, to]"),
        );
        return None;
    }
    read::finite_numbers::<2>(v, &p, problems, &what)
}

/// A path's points: 1 to [`MAX_PATH_POINTS`] `[x, y, z]`.
fn points(value: &Value, pointer: &dyn JsonPointer, problems: &mut Problems) -> Option<Vec<Vec3>> {
    let items = value
        .as_array()
        .filter(|a| !a.is_empty() && a.len() <= MAX_PATH_POINTS);
    let Some(items) = items else {
        problems.error(
            pointer,
            format!("shot `points` must be an array of 1 to {MAX_PATH_POINTS} points [x, y, z]"),
        );
        return None;
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        out.push(read::vec3(
            item,
            &index(pointer, i),
            problems,
            "a path point",
        )?);
    }
    Some(out)
}

/// Reads `metadata.emoted.camera` of a whole Animation document, if the
/// file has one.
pub(crate) fn read_document_camera(
    root: &Value,
    problems: &mut Problems,
    nodes: NodeIds<'_>,
) -> CameraSetting {
    let Some(value) = root.pointer("/metadata/emoted/camera") else {
        return CameraSetting::ServerDefault;
    };
    let metadata = field(&super::problem::Root, "metadata");
    let emoted = field(&metadata, "emoted");
    let camera = field(&emoted, "camera");
    read_camera(value, &camera, problems, nodes)
}
