//! The camera's entities and the packets that hand the player's view to
//! it and back.
//!
//! - **The camera** is an invisible, silent armour stand without gravity,
//!   in the player's private entity layer. The 1.20.1 client moves a
//!   living entity to each position it is sent over three ticks (its
//!   `lerpTo`), and draws the camera from the entity's eye,
//!   [`CAMERA_EYE_HEIGHT_BLOCKS`] above its feet; a full-size stand's eye
//!   is close to a player's (1.62), so the view does not sink or rise
//!   while the client eases its eye height on the switch.
//! - **The seat** is an invisible marker armour stand (no size, so its
//!   rider sits [`SEAT_RIDER_DROP_BLOCKS`] below it) placed so that the
//!   seated player stays exactly where they stood. A riding client sends
//!   its look and its inputs every tick whatever its camera; an unseated
//!   one with another entity as its camera sends nothing.
//! - **Handing over**: seat, then Set Camera naming the stand, sent the
//!   tick after both were spawned (the client takes a camera entity only
//!   once it knows it), then a game event that tells that client alone it
//!   spectates. A 1.20.1 client draws its own hand (and hotbar) whenever
//!   its camera type is first person, whatever entity it looks through,
//!   but never in spectator mode; the server's `GameMode`, which
//!   everything else reads (combat, the tab list), stays what it was.
//!   While the client believes it spectates, its number keys open the
//!   spectator menu (whose teleports the server ignores) and its hearts
//!   are hidden. **Handing back**: Set Camera naming the player (id 0:
//!   valence tells each client its own entity is 0), the seat emptied, the
//!   real game mode told again (and the abilities resent, as the client's
//!   switch changed them), before valence writes the two entities'
//!   removal at the end of the tick (a removed camera entity would leave
//!   the view frozen where it was).

use valence::entity::armor_stand::{ArmorStandEntityBundle, ArmorStandFlags};
use valence::entity::entity::{Flags, NoGravity, Silent};
use valence::entity::{HeadYaw, Look};
use valence::prelude::*;
use valence::protocol::packets::play::game_state_change_s2c::GameEventKind;
use valence::protocol::packets::play::{
    EntityPassengersSetS2c, GameStateChangeS2c, SetCameraEntityS2c,
};
use valence::protocol::{VarInt, WritePacket};

use crate::playback::camera::CameraPose;

/// How far above an armour stand's feet the client puts its eye (1.975 ×
/// 0.9).
pub const CAMERA_EYE_HEIGHT_BLOCKS: f64 = 1.7775;

/// How far below a marker armour stand the client seats a player (a
/// player's riding offset, −0.35; the marker's own is 0).
pub const SEAT_RIDER_DROP_BLOCKS: f64 = 0.35;

/// The entity id a client knows itself by (valence's choice).
const OWN_ENTITY_ID: i32 = 0;

/// Entity flag: invisible.
const INVISIBLE: i8 = 0x20;

/// Armour stand flag: marker (no size, no hitbox).
const MARKER: i8 = 0x10;

/// On the camera and the seat: whose they are (a safety net removes them
/// when their owner no longer flies a camera).
#[derive(Component, Clone, Copy, Debug)]
pub struct CameraPart {
    /// The player.
    pub owner: Entity,
}

/// Where a camera entity stands for its eye to be at the pose's.
pub fn camera_feet(pose: &CameraPose) -> DVec3 {
    pose.eye.as_dvec3() - DVec3::Y * CAMERA_EYE_HEIGHT_BLOCKS
}

/// The pose's look in valence's degrees.
pub fn camera_look(pose: &CameraPose) -> Look {
    Look {
        yaw: pose.yaw_radians.to_degrees(),
        pitch: pose.pitch_radians.to_degrees(),
    }
}

/// An invisible armour stand in `layer`: `marker` for the seat.
fn stand(layer: Entity, feet: DVec3, look: Look, marker: bool) -> ArmorStandEntityBundle {
    ArmorStandEntityBundle {
        layer: EntityLayerId(layer),
        position: Position(feet),
        look,
        head_yaw: HeadYaw(look.yaw),
        entity_flags: Flags(INVISIBLE),
        entity_no_gravity: NoGravity(true),
        entity_silent: Silent(true),
        armor_stand_armor_stand_flags: ArmorStandFlags(if marker { MARKER } else { 0 }),
        ..Default::default()
    }
}

/// Spawns a camera at `pose` in the player's private `layer` (a cut's
/// fresh one: the client jumps to it instead of gliding).
pub fn spawn_camera(
    commands: &mut Commands,
    layer: Entity,
    owner: Entity,
    pose: &CameraPose,
) -> Entity {
    commands
        .spawn((
            stand(layer, camera_feet(pose), camera_look(pose), false),
            CameraPart { owner },
        ))
        .id()
}

/// Spawns the camera at `pose` and the seat under a player standing at
/// `feet`, both in the player's private `layer`; returns (camera, seat).
pub fn spawn_camera_and_seat(
    commands: &mut Commands,
    layer: Entity,
    owner: Entity,
    pose: &CameraPose,
    feet: DVec3,
    player_look: Look,
) -> (Entity, Entity) {
    let part = CameraPart { owner };
    let camera = spawn_camera(commands, layer, owner, pose);
    let seat = commands
        .spawn((stand(layer, seat_position(feet), player_look, true), part))
        .id();
    (camera, seat)
}

/// Where the seat goes for a player whose feet are at `feet`.
pub fn seat_position(feet: DVec3) -> DVec3 {
    feet + DVec3::Y * SEAT_RIDER_DROP_BLOCKS
}

/// Puts the player on the seat.
pub fn seat(client: &mut Client, seat_id: i32) {
    client.write_packet(&EntityPassengersSetS2c {
        entity_id: VarInt(seat_id),
        passengers: vec![VarInt(OWN_ENTITY_ID)],
    });
}

/// Empties the seat.
pub fn unseat(client: &mut Client, seat_id: i32) {
    client.write_packet(&EntityPassengersSetS2c {
        entity_id: VarInt(seat_id),
        passengers: Vec::new(),
    });
}

/// Seats the player, hands their view to the camera and tells their
/// client alone that it spectates (no hand, no hotbar).
pub fn hand_over(client: &mut Client, seat_id: i32, camera_id: i32) {
    seat(client, seat_id);
    look_through(client, camera_id);
    tell_game_mode(client, GameMode::Spectator);
}

/// Has the client look through another camera entity (a cut).
pub fn look_through(client: &mut Client, camera_id: i32) {
    client.write_packet(&SetCameraEntityS2c {
        entity_id: VarInt(camera_id),
    });
}

/// Hands the player's view back, empties the seat and gives the client
/// back the player's real game mode `mode` (the caller then removes both
/// entities and has the abilities sent again).
pub fn hand_back(client: &mut Client, seat_id: i32, mode: GameMode) {
    client.write_packet(&SetCameraEntityS2c {
        entity_id: VarInt(OWN_ENTITY_ID),
    });
    unseat(client, seat_id);
    tell_game_mode(client, mode);
}

/// The client's own idea of its game mode (the server's `GameMode`, what
/// everything else reads, does not change).
fn tell_game_mode(client: &mut Client, mode: GameMode) {
    let id = match mode {
        GameMode::Survival => 0.0,
        GameMode::Creative => 1.0,
        GameMode::Adventure => 2.0,
        GameMode::Spectator => 3.0,
    };
    client.write_packet(&GameStateChangeS2c {
        kind: GameEventKind::ChangeGameMode,
        value: id,
    });
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    #[test]
    fn the_camera_stands_an_eye_height_below_the_pose_and_looks_its_way() {
        let pose = CameraPose {
            eye: Vec3::new(1.0, 66.0, -2.0),
            yaw_radians: std::f32::consts::FRAC_PI_2,
            pitch_radians: -0.5,
        };
        let feet = camera_feet(&pose);
        assert!((feet.y - (66.0 - CAMERA_EYE_HEIGHT_BLOCKS)).abs() < 1e-9);
        assert_eq!((feet.x, feet.z), (1.0, -2.0));
        let look = camera_look(&pose);
        assert!((look.yaw - 90.0).abs() < 1e-4);
        assert!((look.pitch - -0.5f32.to_degrees()).abs() < 1e-4);
    }
}
