//! What the server feeds a playback's solvers each tick
//! ([`crate::playback::live`]): each participant's look and the points
//! they may face, in the world, turned here into the emote frame and into
//! looks relative to each body.

use glam::{Affine3A, DVec3, Mat4, Quat, Vec3};

use super::PlaybackState;
use crate::anim::solve::{Effector, LookAngles, LookSource};
use crate::playback::deadzone::yaw_difference;
use crate::playback::live::{LiveInputs, ParticipantInputs};

/// What the server sees of one participant, in the world.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WorldView {
    /// Their look's yaw, Minecraft degrees (0 faces +Z, 90 faces −X).
    pub look_yaw_degrees: f32,
    /// Their look's pitch, degrees (positive down).
    pub look_pitch_degrees: f32,
    /// A point their look-at faces whatever its source: the eye of the
    /// emote camera filming them.
    pub face_point: Option<DVec3>,
    /// The eyes of the nearest other player.
    pub nearest_eyes: Option<DVec3>,
}

impl PlaybackState {
    /// True when the Animation playing now has solvers to feed.
    pub fn has_solvers(&self) -> bool {
        self.current.live.is_some()
    }

    /// True when an Animation it may play reaches for the other
    /// participant with IK (a handshake), so a small offset from the
    /// placement is closed by the arms ([`crate::playback::partner::settle`]).
    pub fn reaches_for_partner(&self) -> bool {
        self.animations.values().any(|a| {
            a.compiled
                .runtime
                .solvers
                .ik
                .iter()
                .any(|ik| matches!(ik.effector, Effector::Partner(_)))
        })
    }

    /// True when its look-at faces the nearest player (the server then
    /// looks for one).
    pub fn looks_at_nearest_player(&self) -> bool {
        matches!(
            self.current.runtime().solvers.look_at,
            Some((_, LookSource::NearestPlayer))
        )
    }

    /// The emote frame in the world, as the springs see it: turned by the
    /// root's yaw now, about where the root stands (springs need the
    /// world's turns and motion, not its coordinates, which `f32` would
    /// round to 1/16 of a block a million blocks out).
    pub fn emote_to_world(&self) -> Affine3A {
        Affine3A::from_quat(Quat::from_rotation_y(-self.root_yaw_degrees().to_radians()))
    }

    /// Feeds the solvers this tick's views of the initiator and (once
    /// matched) the partner.
    pub fn observe_live(&mut self, initiator: &WorldView, partner: Option<&WorldView>) {
        let to_world = self.emote_to_world();
        let turn_back = Quat::from_rotation_y(self.root_yaw_degrees().to_radians());
        let root_yaw = self.root_yaw_degrees();
        let inputs = |view: &WorldView, root: Option<Mat4>| -> ParticipantInputs {
            let Some(root) = root else {
                return ParticipantInputs::default();
            };
            let facing = LookAngles::towards(root.transform_vector3(Vec3::Z));
            let body_yaw = root_yaw + facing.yaw.to_degrees();
            let point = |p: DVec3| turn_back * (p - self.root).as_vec3();
            ParticipantInputs {
                look: Some(LookAngles::from_degrees(
                    yaw_difference(body_yaw, view.look_yaw_degrees),
                    view.look_pitch_degrees,
                )),
                face_point: view.face_point.map(point),
                nearest_eyes: view.nearest_eyes.map(point),
            }
        };
        self.live_inputs = LiveInputs {
            emote_to_world: to_world,
            initiator: inputs(initiator, Some(self.roots.initiator)),
            partner: partner.map_or_else(ParticipantInputs::default, |view| {
                inputs(view, self.roots.partner)
            }),
            reach: Vec::new(),
        };
        self.current.set_live_inputs(&self.live_inputs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_wrap_and_yaws_follow_minecraft() {
        assert_eq!(yaw_difference(0.0, 190.0), -170.0);
        assert_eq!(yaw_difference(0.0, -190.0), 170.0);
        let yaw_of = |direction: Vec3| LookAngles::towards(direction).yaw.to_degrees();
        assert!((yaw_of(Vec3::NEG_X) - 90.0).abs() < 1e-4);
        assert!(yaw_of(Vec3::Z).abs() < 1e-4);
    }
}
