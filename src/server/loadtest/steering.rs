//! `--cameras` and `--looks`: the playing clients move their mouse as
//! players do. With `--cameras` each steers its emote camera, sending
//! every tick the look packet a vanilla client sends while seated, turning
//! a quarter turn a second; with `--looks` each looks around. The packets
//! go into valence's own event stream, so its movement handling takes
//! them (after the join's position is confirmed, as a client confirms
//! it) and nothing comes back to the client but what the camera sends.

use std::time::Instant;

use valence::event_loop::PacketEvent;
use valence::prelude::*;
use valence::protocol::bytes::Bytes;
use valence::protocol::packets::play::{LookAndOnGroundC2s, TeleportConfirmC2s};
use valence::protocol::{Encode, Packet, VarInt};
use valence::teleport::TeleportState;

use crate::server::camera::EmoteCamera;

/// How far each steering player turns per tick, degrees (a quarter turn a
/// second).
pub(super) const TURN_DEGREES_PER_TICK: f32 = 4.5;

fn packet_event<P: Packet + Encode>(client: Entity, packet: &P) -> Option<PacketEvent> {
    let mut data = Vec::new();
    packet.encode(&mut data).ok()?;
    Some(PacketEvent {
        client,
        timestamp: Instant::now(),
        id: P::ID,
        data: Bytes::from(data),
    })
}

/// Confirms every position the server sent `clients` (valence ignores a
/// client's movement until it has).
pub(super) fn confirm_positions(app: &mut App, clients: &[Entity]) {
    for client in clients {
        let Some(state) = app.world.get::<TeleportState>(*client) else {
            continue;
        };
        let (pending, next) = (state.pending_teleports(), state.teleport_id_counter());
        for id in next.wrapping_sub(pending)..next {
            let confirm = TeleportConfirmC2s {
                teleport_id: VarInt(id as i32),
            };
            if let Some(event) = packet_event(*client, &confirm) {
                app.world.send_event(event);
            }
        }
    }
}

/// Sends each of `clients` its look for measured tick `tick`.
pub(super) fn steer(app: &mut App, clients: &[Entity], tick: u32) {
    let yaw = (tick as f32 * TURN_DEGREES_PER_TICK).rem_euclid(360.0) - 180.0;
    for client in clients {
        let look = LookAndOnGroundC2s {
            yaw,
            pitch: 10.0,
            on_ground: true,
        };
        if let Some(event) = packet_event(*client, &look) {
            app.world.send_event(event);
        }
    }
}

/// `--looks`: each of `clients` looks where a player looking around
/// would at measured tick `tick` (yaw ±45° every 4 s, pitch ±15° every
/// 3 s, round facing +Z).
pub(super) fn look_around(app: &mut App, clients: &[Entity], tick: u32) {
    let phase = |period_ticks: f32| (tick as f32 / period_ticks * std::f32::consts::TAU).sin();
    let look = LookAndOnGroundC2s {
        yaw: 45.0 * phase(80.0),
        pitch: 15.0 * phase(60.0),
        on_ground: true,
    };
    for client in clients {
        if let Some(event) = packet_event(*client, &look) {
            app.world.send_event(event);
        }
    }
}

/// The cameras the players see through.
pub(super) fn flying(app: &mut App) -> usize {
    app.world
        .query::<&EmoteCamera>()
        .iter(&app.world)
        .filter(|camera| camera.is_handed_over())
        .count()
}
