//! A camera in flight: where the emote camera of one player is at each
//! tick, from the emote's shots (or the steered orbit when it writes
//! none), the player's look, the body and the world's blocks.
//!
//! # The steered orbit
//! The default shot circles the body and the player steers it with the
//! mouse. It starts in front of the body (bearing 0, so the player sees
//! their own face) a little above it, and from then on:
//! - the **bearing** is the start bearing plus how far the player's look
//!   turned since the camera started (turn the mouse right and the camera
//!   goes round to the body's right, as vanilla's front view does when
//!   the head turns), wrapped to a half turn either way;
//! - the **elevation** is the start elevation plus how far the look
//!   pitched since the start (look down and the camera rises), kept
//!   within [`MIN_ELEVATION_DEGREES`] and [`MAX_ELEVATION_DEGREES`];
//! - both ease toward those values by [`FlightSettings::steer_per_tick`]
//!   of the gap each tick (a 90° turn of the mouse is 86° of bearing
//!   after 5 ticks at the default 0.45), so a twitch of the mouse does not
//!   shake the picture;
//! - the **distance** frames the whole rig: at least
//!   [`FlightSettings::distance_blocks`], farther when the pose reaches
//!   out (a rig whose farthest node is `r` from the aim point is seen from
//!   `r / tan 30°`, so it fits a 70° field of view with room to spare),
//!   at most [`FlightSettings::max_distance_blocks`].
//!
//! **Two players.** In a matched two-player Sequence, when the other
//! participant stands within [`TWO_SHOT_MAX_BLOCKS`], the default shot
//! frames both (a two-shot): it circles the point between them, its
//! bearing 0 side-on to the line that joins them (on the side the player
//! faces), backing off until both fit; farther apart, each player's
//! camera orbits their own body.
//!
//! The `follow` default shot ([`DefaultShot::Follow`]) is the same orbit
//! held behind the body and [`FOLLOW_ELEVATION_DEGREES`] above it: it
//! turns with the body, and the mouse steers nothing.
//!
//! # Keeping out of blocks
//! Every shot's eye is pulled in along the line from its target
//! ([`super::clearance::clear_eye`]) and stops short of the first solid
//! block. When that leaves the camera closer than
//! [`FlightSettings::min_distance_blocks`] (a wall right behind the
//! wanted eye), the eye turns round the target by 30° steps, nearest
//! first, to the first bearing with room; with no room anywhere (a player
//! in a one-block hole) it rises straight up as far as it can.

use std::f32::consts::{PI, TAU};

use glam::{Mat4, Quat, Vec3};

use super::clearance::{clear_eye, SolidBlocks};
use super::director::shot_at;
use super::shot::{Framing, Shot};
use super::{look_at, look_direction, CameraPose};
use crate::format::camera::{CameraShot, ShotKind, ShotTarget};

/// How one written shot flies.
#[derive(Clone, Debug)]
enum Move {
    /// A function of its eased time: [`Shot::pose`].
    Procedural(Shot),
    /// An orbit the player steers (radius and height, blocks).
    Steered {
        radius_blocks: f32,
        height_blocks: f32,
    },
    /// The world transform of an anchor node.
    Keyed { node: String },
}

impl Move {
    fn of(kind: &ShotKind) -> Move {
        match (Shot::procedural(kind), kind) {
            (Some(shot), _) => Move::Procedural(shot),
            (None, ShotKind::Keyed { node }) => Move::Keyed { node: node.clone() },
            (
                None,
                ShotKind::Orbit {
                    radius_blocks,
                    height_blocks,
                    ..
                },
            ) => Move::Steered {
                radius_blocks: *radius_blocks,
                height_blocks: *height_blocks,
            },
            // Every other kind is procedural.
            (None, _) => Move::Steered {
                radius_blocks: 4.0,
                height_blocks: 0.5,
            },
        }
    }
}

/// The lowest elevation a steered orbit goes to, degrees (below the aim
/// point, looking up at the body).
pub const MIN_ELEVATION_DEGREES: f32 = -20.0;

/// The highest elevation a steered orbit goes to, degrees.
pub const MAX_ELEVATION_DEGREES: f32 = 75.0;

/// The shot of an emote that writes none (`[camera] default_shot`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefaultShot {
    /// In front of the body, steered round it with the mouse (the module
    /// guide's steered orbit).
    #[default]
    Orbit,
    /// Behind the body and [`FOLLOW_ELEVATION_DEGREES`] above it, turning
    /// with the body; the mouse steers nothing.
    Follow,
}

/// The elevation of the `follow` shot, degrees.
pub const FOLLOW_ELEVATION_DEGREES: f32 = 20.0;

/// The farthest apart two participants of a Sequence are framed together
/// (a two-shot), blocks; farther, each camera orbits its own player.
pub const TWO_SHOT_MAX_BLOCKS: f32 = 8.0;

/// How a camera flies, from `[camera]` in the configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlightSettings {
    /// The shot of an emote that writes none.
    pub default_shot: DefaultShot,
    /// The steered orbit's distance from its aim point, blocks (the
    /// least: a wide pose takes it farther).
    pub distance_blocks: f32,
    /// The farthest any camera framing a rig goes, blocks.
    pub max_distance_blocks: f32,
    /// The closest a camera comes to its target when blocks are in the
    /// way, blocks.
    pub min_distance_blocks: f32,
    /// How far short of a solid block the eye stops, blocks.
    pub margin_blocks: f32,
    /// The steered orbit's aim point above the feet, blocks.
    pub aim_height_blocks: f32,
    /// The steered orbit's elevation when it starts, degrees.
    pub start_elevation_degrees: f32,
    /// The share of the gap to the player's steering closed each tick
    /// (0 to 1).
    pub steer_per_tick: f32,
}

impl Default for FlightSettings {
    fn default() -> Self {
        Self {
            default_shot: DefaultShot::Orbit,
            distance_blocks: 4.0,
            max_distance_blocks: 7.0,
            min_distance_blocks: 1.0,
            margin_blocks: 0.3,
            aim_height_blocks: 1.0,
            start_elevation_degrees: 10.0,
            steer_per_tick: 0.45,
        }
    }
}

/// A look, degrees, in Minecraft's sense (positive yaw turns right,
/// positive pitch looks down).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LookDegrees {
    /// Yaw.
    pub yaw: f32,
    /// Pitch.
    pub pitch: f32,
}

/// What the server sees of the body and the world each tick.
pub struct Scene<'a, B: SolidBlocks> {
    /// The body: the emote's root (feet) and its yaw.
    pub body: Framing,
    /// The other participant of a two-player Sequence, when matched: their
    /// root (feet) and yaw.
    pub other_body: Option<Framing>,
    /// The player's look now.
    pub look: LookDegrees,
    /// How far the shown nodes reach from the aim point, blocks (the
    /// steered orbit backs off to frame them).
    pub rig_reach_blocks: f32,
    /// A node's transform in the world, by id (`None`: no such node, or
    /// hidden).
    pub node_matrix: &'a dyn Fn(&str) -> Option<Mat4>,
    /// The world's blocks.
    pub blocks: &'a B,
}

/// Where the camera is this tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlightFrame {
    /// The eye and its look.
    pub pose: CameraPose,
    /// This tick starts a later shot: the camera jumps here.
    pub cut: bool,
    /// The written shot filming (`None`: the server's default shot).
    pub shot_index: Option<usize>,
}

/// One player's camera, from its start to its release.
#[derive(Clone, Debug)]
pub struct Flight {
    settings: FlightSettings,
    /// The emote's shots, in order (empty: the steered orbit).
    shots: Vec<CameraShot>,
    /// How each flies.
    moves: Vec<Move>,
    /// The look when the camera started.
    start_look: LookDegrees,
    /// The steered orbit's bearing and elevation now, radians.
    bearing_radians: f32,
    elevation_radians: f32,
    /// Its distance now, blocks.
    distance_blocks: f32,
}

impl Flight {
    /// A camera starting now with the player looking `look`: the emote's
    /// `shots`, or the steered orbit when there are none.
    pub fn new(shots: Vec<CameraShot>, look: LookDegrees, settings: FlightSettings) -> Flight {
        let moves = shots.iter().map(|s| Move::of(&s.kind)).collect();
        let (bearing_radians, elevation_degrees) = match settings.default_shot {
            DefaultShot::Orbit => (0.0, settings.start_elevation_degrees),
            DefaultShot::Follow => (PI, FOLLOW_ELEVATION_DEGREES),
        };
        Flight {
            settings,
            shots,
            moves,
            start_look: look,
            bearing_radians,
            elevation_radians: elevation_degrees.to_radians(),
            distance_blocks: settings.distance_blocks,
        }
    }

    /// True when the player's mouse steers this camera (at some time).
    pub fn is_steered(&self) -> bool {
        match self.moves.is_empty() {
            true => self.settings.default_shot == DefaultShot::Orbit,
            false => self.moves.iter().any(|m| matches!(m, Move::Steered { .. })),
        }
    }

    /// True when a shot needs the nodes' current transforms (a keyed
    /// camera, or a shot aimed at a node).
    pub fn needs_nodes(&self) -> bool {
        self.moves.iter().any(|m| matches!(m, Move::Keyed { .. }))
            || self
                .shots
                .iter()
                .any(|s| matches!(s.target, ShotTarget::Node(_)))
    }

    /// The camera at `tick` (the Animation's timeline position).
    pub fn step<B: SolidBlocks>(&mut self, tick: u32, scene: &Scene<'_, B>) -> FlightFrame {
        let Some(at) = shot_at(&self.shots, tick) else {
            let mode = self.settings.default_shot;
            let orbit = self.default_orbit(scene);
            return FlightFrame {
                pose: self.steered(scene, orbit, mode, None),
                cut: false,
                shot_index: None,
            };
        };
        let target = match &at.shot.target {
            ShotTarget::Initiator => None,
            ShotTarget::Node(id) => (scene.node_matrix)(id).map(|m| m.w_axis.truncate()),
        }
        .unwrap_or(scene.body.target);
        let framing = Framing {
            target,
            frame_yaw_radians: scene.body.frame_yaw_radians,
        };
        let aim = framing.to_world(at.shot.offset_blocks);
        let (index, eased, cut) = (at.index, at.eased_fraction, at.cut);
        let pose = match self.moves.get(index).cloned() {
            Some(Move::Procedural(shot)) => {
                let framing = Framing {
                    target: aim,
                    ..framing
                };
                let wanted = shot.pose(&framing, eased);
                let eye = self.clear(aim, wanted.eye, scene.blocks);
                if eye == wanted.eye {
                    wanted
                } else {
                    CameraPose::looking_at(eye, aim)
                }
            }
            Some(Move::Keyed { node }) => match (scene.node_matrix)(&node) {
                Some(matrix) => {
                    let eye = matrix.w_axis.truncate();
                    let forward = matrix.transform_vector3(Vec3::Z);
                    let (yaw_radians, pitch_radians) = look_at(eye, eye + forward);
                    CameraPose {
                        eye: self.clear(aim, eye, scene.blocks),
                        yaw_radians,
                        pitch_radians,
                    }
                }
                // A hidden or missing node: the default orbit meanwhile.
                None => self.steered(scene, Orbit::round(aim, scene), DefaultShot::Orbit, None),
            },
            Some(Move::Steered {
                radius_blocks,
                height_blocks,
            }) => self.steered(
                scene,
                Orbit::round(aim, scene),
                DefaultShot::Orbit,
                Some((radius_blocks, height_blocks)),
            ),
            None => self.steered(scene, Orbit::round(aim, scene), DefaultShot::Orbit, None),
        };
        FlightFrame {
            pose,
            cut,
            shot_index: Some(index),
        }
    }

    /// The default shot's orbit: round the body, or a two-shot of both
    /// participants when the other is near (see the module guide).
    fn default_orbit<B: SolidBlocks>(&self, scene: &Scene<'_, B>) -> Orbit {
        let up = Vec3::Y * self.settings.aim_height_blocks;
        let own = scene.body;
        let Some(other) = scene.other_body else {
            return Orbit::round(own.target + up, scene);
        };
        let line = other.target - own.target;
        let apart = Vec3::new(line.x, 0.0, line.z).length();
        if apart > TWO_SHOT_MAX_BLOCKS || apart <= f32::EPSILON {
            return Orbit::round(own.target + up, scene);
        }
        // Side-on to the line between them, on the side the player faces.
        let mut side = Vec3::Y.cross(line).normalize();
        if side.dot(super::facing(own.frame_yaw_radians)) < 0.0 {
            side = -side;
        }
        Orbit {
            aim: own.target + line * 0.5 + up,
            frame_yaw_radians: (-side.x).atan2(side.z),
            reach_blocks: scene.rig_reach_blocks.max(apart * 0.5 + 1.0),
        }
    }

    /// The steered orbit's (or `follow`'s) pose this tick round `orbit`,
    /// and its state moved on; `written` is a written orbit's radius and
    /// height (the default's distance frames the rig instead).
    fn steered<B: SolidBlocks>(
        &mut self,
        scene: &Scene<'_, B>,
        orbit: Orbit,
        mode: DefaultShot,
        written: Option<(f32, f32)>,
    ) -> CameraPose {
        let aim = orbit.aim;
        let s = &self.settings;
        let start_elevation = match written {
            Some((radius, height)) => height.atan2(radius),
            None => s.start_elevation_degrees.to_radians(),
        };
        let (turned, wanted_elevation) = match mode {
            DefaultShot::Orbit => {
                let pitched = (scene.look.pitch - self.start_look.pitch).to_radians();
                (
                    wrap_radians((scene.look.yaw - self.start_look.yaw).to_radians()),
                    (start_elevation + pitched).clamp(
                        MIN_ELEVATION_DEGREES.to_radians(),
                        MAX_ELEVATION_DEGREES.to_radians(),
                    ),
                )
            }
            DefaultShot::Follow => (PI, FOLLOW_ELEVATION_DEGREES.to_radians()),
        };
        let ease = s.steer_per_tick.clamp(0.0, 1.0);
        self.bearing_radians =
            wrap_radians(self.bearing_radians + wrap_radians(turned - self.bearing_radians) * ease);
        self.elevation_radians += (wanted_elevation - self.elevation_radians) * ease;
        let wanted_distance = match written {
            Some((radius, height)) => (radius * radius + height * height).sqrt(),
            None => {
                let framing_distance = orbit.reach_blocks.max(0.0) / 30f32.to_radians().tan();
                framing_distance
                    .max(s.distance_blocks)
                    .min(s.max_distance_blocks.max(s.min_distance_blocks))
            }
        };
        self.distance_blocks += (wanted_distance - self.distance_blocks) * ease;
        // Bearing 0 is in front of the body, looking back at it: the eye
        // is along the body's facing turned by the bearing.
        let outward = look_direction(
            orbit.frame_yaw_radians + self.bearing_radians,
            -self.elevation_radians,
        );
        let wanted = aim + outward * self.distance_blocks;
        CameraPose::looking_at(self.clear(aim, wanted, scene.blocks), aim)
    }

    /// The eye nearest `wanted` with nothing solid between it and
    /// `target` and at least the least distance from it (see the module
    /// guide).
    fn clear<B: SolidBlocks>(&self, target: Vec3, wanted: Vec3, blocks: &B) -> Vec3 {
        let s = &self.settings;
        let eye = clear_eye(target, wanted, blocks, s.margin_blocks);
        let wanted_distance = wanted.distance(target);
        let least = s.min_distance_blocks.min(wanted_distance);
        if eye.distance(target) + 1e-4 >= least {
            return eye;
        }
        let arm = wanted - target;
        for step in 1..=6 {
            for sign in [1.0, -1.0] {
                let turn = Quat::from_rotation_y(sign * step as f32 * PI / 6.0);
                let turned = clear_eye(target, target + turn * arm, blocks, s.margin_blocks);
                if turned.distance(target) + 1e-4 >= least {
                    return turned;
                }
            }
        }
        clear_eye(
            target,
            target + Vec3::Y * wanted_distance,
            blocks,
            s.margin_blocks,
        )
    }
}

/// What a steered orbit circles: its aim point, the yaw its bearing 0
/// faces, and how far what it frames reaches from the aim.
#[derive(Clone, Copy, Debug)]
struct Orbit {
    aim: Vec3,
    frame_yaw_radians: f32,
    reach_blocks: f32,
}

impl Orbit {
    /// Round `aim`, in the body's frame, framing the rig.
    fn round<B: SolidBlocks>(aim: Vec3, scene: &Scene<'_, B>) -> Orbit {
        Orbit {
            aim,
            frame_yaw_radians: scene.body.frame_yaw_radians,
            reach_blocks: scene.rig_reach_blocks,
        }
    }
}

/// An angle wrapped into `(−π, π]`.
fn wrap_radians(angle: f32) -> f32 {
    if !angle.is_finite() {
        return 0.0;
    }
    let wrapped = (angle + PI).rem_euclid(TAU) - PI;
    if wrapped <= -PI {
        wrapped + TAU
    } else {
        wrapped
    }
}

#[cfg(test)]
#[path = "flight_tests.rs"]
mod tests;
