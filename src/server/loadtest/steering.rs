//! `--cameras`, `--looks` and `--walk`: the playing clients move their
//! mouse, or walk, as players do. With `--cameras` each steers its emote camera, sending
//! every tick the look packet a vanilla client sends while seated, turning
//! a quarter turn a second; with `--looks` each looks around. The packets
//! go into valence's own event stream, so its movement handling takes
//! them (after the join's position is confirmed, as a client confirms
//! it) and nothing comes back to the client but what the camera sends.
//! With `--arrive` the viewers that do not play wait away from the crowd
//! ([`send_away`]) and come back at once ([`bring_back`]).

use std::time::Instant;

use valence::event_loop::PacketEvent;
use valence::prelude::*;
use valence::protocol::bytes::Bytes;
use valence::protocol::packets::play::{FullC2s, LookAndOnGroundC2s, TeleportConfirmC2s};
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

/// `--walk`'s circle: its radius, blocks.
pub(super) const WALK_RADIUS_BLOCKS: f64 = 3.0;
/// `--walk`'s speed, blocks a second (a vanilla walk).
pub(super) const WALK_BLOCKS_PER_SECOND: f64 = 4.3;

/// Where `--walk` starts a client standing at `feet`: its circle lies
/// inside the chunk it stands in (centred in it), so the measure is the
/// walking emote's and not the streaming of chunks a walk into another
/// chunk costs every client.
pub(super) fn walk_start(feet: DVec3) -> DVec3 {
    let chunk = |v: f64| (v / 16.0).floor() * 16.0 + 8.0;
    DVec3::new(
        chunk(feet.x) + 0.5,
        feet.y,
        chunk(feet.z) + 0.5 + WALK_RADIUS_BLOCKS,
    )
}

/// `--walk`: each of `clients` (starting at the point given with it,
/// [`walk_start`]) is where a player walking round its circle is at measured tick
/// `tick`, facing where it goes.
pub(super) fn walk(app: &mut App, clients: &[(Entity, DVec3)], tick: u32) {
    let radians_per_tick = WALK_BLOCKS_PER_SECOND / 20.0 / WALK_RADIUS_BLOCKS;
    let angle = f64::from(tick) * radians_per_tick;
    // Round the circle counter-clockwise seen from above; the heading is
    // its tangent (Minecraft yaw: 0 faces +Z, 90 faces −X).
    let offset = DVec3::new(angle.sin(), 0.0, angle.cos() - 1.0) * WALK_RADIUS_BLOCKS;
    let heading = DVec3::new(angle.cos(), 0.0, -angle.sin());
    let yaw = (-heading.x).atan2(heading.z).to_degrees() as f32;
    for (client, center) in clients {
        let step = FullC2s {
            position: *center + offset,
            yaw,
            pitch: 0.0,
            on_ground: true,
        };
        if let Some(event) = packet_event(*client, &step) {
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

/// How far `--arrive`'s viewers wait from their places, blocks east: past
/// any display's reach and the chunk view.
const AWAY_BLOCKS: f64 = 1000.0;

/// Moves `clients` [`AWAY_BLOCKS`] east of where they stand; where they
/// stood, for [`bring_back`].
pub(super) fn send_away(app: &mut App, clients: &[Entity]) -> Vec<(Entity, DVec3)> {
    clients
        .iter()
        .filter_map(|client| {
            let mut position = app.world.get_mut::<Position>(*client)?;
            let place = position.0;
            position.0.x += AWAY_BLOCKS;
            Some((*client, place))
        })
        .collect()
}

/// Puts each client back where [`send_away`] found it (as a teleport: the
/// server moves it).
pub(super) fn bring_back(app: &mut App, away: &[(Entity, DVec3)]) {
    for (client, place) in away {
        if let Some(mut position) = app.world.get_mut::<Position>(*client) {
            position.0 = *place;
        }
    }
}
