//! What a camera films: who gets one and with which shots
//! ([`wanted_shots`]), and the scene its flight sees each tick
//! ([`frame_of`]): the player's body, the other participant's in a matched
//! two-player Sequence, the rig's reach, the nodes and the world's blocks.

use glam::{IVec3, Mat4, Quat, Vec3};
use valence::prelude::*;

use crate::format::camera::{CameraSetting, CameraShot};
use crate::format::node::Participant;
use crate::format::EmoteFile;
use crate::playback::camera::clearance::SolidBlocks;
use crate::playback::camera::flight::{Flight, FlightFrame, LookDegrees, Scene};
use crate::playback::camera::shot::Framing;
use crate::server::combat::can_be_hurt;
use crate::server::config::Config;
use crate::server::emote::ActiveEmote;
use crate::server::idle::IdleWatch;
use crate::server::storage::PlayerChoices;

/// The world's blocks as the camera sees them: anything opaque or with a
/// collision shape stops it.
pub(super) struct LayerBlocks<'a>(pub &'a ChunkLayer);

impl SolidBlocks for LayerBlocks<'_> {
    fn is_solid(&self, block: IVec3) -> bool {
        self.0
            .block(BlockPos::new(block.x, block.y, block.z))
            .is_some_and(|b| b.state.is_opaque() || b.state.collision_shapes().len() > 0)
    }
}

/// What a player is, for [`wanted_shots`].
pub(super) struct Player<'a> {
    /// Their game mode.
    pub mode: GameMode,
    /// Their stored choices.
    pub choices: Option<&'a PlayerChoices>,
    /// Their idle clock.
    pub idle: Option<&'a IdleWatch>,
    /// A modded client (it moves its own camera).
    pub modded: bool,
    /// Their part in the playback.
    pub role: Participant,
}

/// The shots `player`'s camera flies for `playback`, `None` when it flies
/// none. A partner's camera flies the default shot (the two-shot) unless
/// the emote refuses cameras: the written shots are the initiator's.
pub(super) fn wanted_shots(
    config: &Config,
    playback: &ActiveEmote,
    player: &Player<'_>,
) -> Option<Vec<CameraShot>> {
    let camera = &config.camera;
    let refused = !camera.enabled
        || player.modded
        || (!camera.allow_in_pvp && can_be_hurt(player.mode))
        || player.choices.is_some_and(|c| c.camera_off)
        || player.idle.is_some_and(|w| w.clock().plays_idle_emote());
    // A controller is walked in: the player keeps their own view.
    if refused || matches!(playback.file(), EmoteFile::Controller(_)) {
        return None;
    }
    match (&playback.file().metadata().camera, player.role) {
        (CameraSetting::Off, _) => None,
        (CameraSetting::ServerDefault, _) | (_, Participant::Partner) => Some(Vec::new()),
        (CameraSetting::Shots(shots), Participant::Initiator) => Some(shots.clone()),
    }
}

/// A player's look as the flight reads it.
pub(super) fn look_degrees(look: &Look) -> LookDegrees {
    LookDegrees {
        yaw: look.yaw,
        pitch: look.pitch,
    }
}

/// A participant's root in the world as a framing: the feet and the yaw.
fn framing_of(root: Mat4) -> Framing {
    let forward = root.z_axis.truncate();
    Framing {
        target: root.w_axis.truncate(),
        frame_yaw_radians: (-forward.x).atan2(forward.z),
    }
}

/// The camera's frame this tick for `role` in `playback`.
pub(super) fn frame_of(
    flight: &mut Flight,
    ticks: u32,
    playback: &ActiveEmote,
    role: Participant,
    look: &Look,
    blocks: &LayerBlocks<'_>,
) -> FlightFrame {
    let state = &playback.state;
    let root = state.root_position().as_vec3();
    let yaw_radians = state.root_yaw_degrees().to_radians();
    let turn = Quat::from_rotation_y(-yaw_radians);
    let to_world = Mat4::from_rotation_translation(turn, root);
    let initiator = framing_of(to_world * state.roots.initiator);
    let partner = state
        .roots
        .partner
        .filter(|_| state.partner_matched)
        .map(|partner| framing_of(to_world * partner));
    let (body, other_body) = match (role, partner) {
        (Participant::Partner, Some(partner)) => (partner, Some(initiator)),
        (_, partner) => (initiator, partner),
    };
    let world_of = |union: usize| -> Option<Mat4> {
        let matrix = state.frame.get(union)?.as_ref()?;
        Some(to_world * *matrix)
    };
    let aim = body.target + Vec3::Y;
    let rig_reach_blocks = (0..state.union.len())
        .filter_map(world_of)
        .map(|world| world.w_axis.truncate().distance(aim))
        // With a partner, their half of the rig is the two-shot's.
        .filter(|reach| other_body.is_none() || *reach <= 3.0)
        .fold(0.0f32, f32::max);
    let node_matrix = |id: &str| -> Option<Mat4> { Some(to_world * state.node_in_frame(id)?) };
    let scene = Scene {
        body,
        other_body,
        look: look_degrees(look),
        rig_reach_blocks,
        node_matrix: &node_matrix,
        blocks,
    };
    flight.step(ticks, &scene)
}
