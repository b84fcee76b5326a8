//! Viewers that arrive while display updates are in flight ("Arriving
//! mid-stretch" in the module docs): right after valence spawned a cell's
//! displays for them, each display with an update of their band in flight
//! for two or more ticks more is set to that update's start, and on the
//! next tick sent the update again, started as many ticks ago as it was
//! sent. A display with no update in flight is spawned with band 0's last
//! target, whatever the viewer's band: sending each its band's target
//! would be a packet per display for every viewer arriving in a coarser
//! band (a crowd whose budget puts a new cell in band 3 would get 1.6 GB in
//! one tick at 1,000 players), so such a viewer draws band 0's pose until
//! its band's next update.

use valence::client::Client;
use valence::entity::tracked_data::TrackedData;
use valence::entity::EntityId;
use valence::prelude::*;
use valence::protocol::packets::play::EntityTrackerUpdateS2c;
use valence::protocol::{RawBytes, VarInt, WritePacket};
use valence::{ChunkPos, ChunkView};

use super::DisplayCells;
use crate::anim::DisplayTransform;
use crate::server::display_bands::CellBands;
use crate::server::emote::{append_changed, ActiveEmote};
use crate::server::events::EmoteDisplay;

/// Viewers that arrive while display updates are in flight.
#[derive(Resource, Debug, Default)]
pub(super) struct CatchUps {
    /// Clients given a cell layer this tick: the client, the cell's layer
    /// and the bands the client gets its playbacks in.
    pub(super) arrived: Vec<(Entity, Entity, CellBands)>,
    /// Displays sent their stretch's start this tick, for the second
    /// packet on the next.
    started: Vec<CatchUp>,
}

/// One display being caught up for one viewer.
#[derive(Clone, Copy, Debug)]
struct CatchUp {
    client: Entity,
    display: Entity,
    owner: Entity,
    band: usize,
    sent_tick: i64,
}

/// Writes one display-transformation metadata packet (every field) to
/// `client`.
fn write_transformation(
    client: &mut Client,
    entity_id: i32,
    transform: &DisplayTransform,
    start_interpolation: i32,
    duration_ticks: i32,
) {
    let mut data = TrackedData::default();
    append_changed(
        &mut data,
        transform,
        None,
        start_interpolation,
        Some(duration_ticks),
    );
    if let Some(metadata) = data.update_data() {
        client.write_packet(&EntityTrackerUpdateS2c {
            entity_id: VarInt(entity_id),
            metadata: RawBytes(metadata),
        });
    }
}

/// Right after valence spawned a cell's displays for the clients that
/// arrived this tick: each display with an update of the client's band in
/// flight for two or more ticks more is set to that update's start, with no
/// interpolation.
pub(super) fn start_catch_ups(
    mut catch_ups: ResMut<CatchUps>,
    cells: Res<DisplayCells>,
    server: Res<Server>,
    layers: Query<&EntityLayer>,
    displays: Query<(&EmoteDisplay, &EntityId)>,
    playbacks: Query<&ActiveEmote>,
    mut clients: Query<(&mut Client, &Position, &ViewDistance)>,
) {
    let now = server.current_tick();
    let catch_ups = &mut *catch_ups;
    for (client_entity, layer, bands) in catch_ups.arrived.drain(..) {
        let (Some(key), Ok(layer)) = (cells.key_of(layer), layers.get(layer)) else {
            continue;
        };
        let Ok((mut client, position, view_distance)) = clients.get_mut(client_entity) else {
            continue;
        };
        // valence spawns only what is in the client's chunk view.
        let view = ChunkView::new(ChunkPos::from_pos(position.0), view_distance.get());
        if !view.contains(key.chunk) {
            continue;
        }
        for display in layer.entities_at(key.chunk) {
            let Ok((tag, id)) = displays.get(display) else {
                continue;
            };
            let Ok(playback) = playbacks.get(tag.owner) else {
                continue;
            };
            let band = bands.band_of(tag.owner);
            let Some(flight) = playback.in_flight_of(display, band) else {
                continue;
            };
            if flight.remaining_ticks(now) < 2 {
                continue;
            }
            write_transformation(&mut client, id.get(), &flight.from, 0, 0);
            catch_ups.started.push(CatchUp {
                client: client_entity,
                display,
                owner: tag.owner,
                band,
                sent_tick: flight.sent_tick,
            });
        }
    }
}

/// The tick after [`start_catch_ups`], before this tick's updates are
/// copied to clients: the update in flight again, started as many ticks
/// ago as it was sent (a negative `start_interpolation`), so the client
/// interpolates from the stretch's start exactly as every other viewer of
/// its band. An update replaced meanwhile (the player turned, the emote
/// stopped) is left to the shared updates.
pub(super) fn finish_catch_ups(
    mut catch_ups: ResMut<CatchUps>,
    server: Res<Server>,
    ids: Query<&EntityId, Without<Despawned>>,
    playbacks: Query<&ActiveEmote>,
    mut clients: Query<&mut Client>,
) {
    let now = server.current_tick();
    for catch_up in catch_ups.started.drain(..) {
        let Ok(id) = ids.get(catch_up.display) else {
            continue;
        };
        let Some(flight) = playbacks
            .get(catch_up.owner)
            .ok()
            .and_then(|p| p.in_flight_of(catch_up.display, catch_up.band))
            .filter(|f| f.sent_tick == catch_up.sent_tick && f.remaining_ticks(now) > 0)
        else {
            continue;
        };
        let Ok(mut client) = clients.get_mut(catch_up.client) else {
            continue;
        };
        let running = i32::try_from(now - flight.sent_tick).unwrap_or(i32::MAX);
        let duration = i32::try_from(flight.duration_ticks).unwrap_or(i32::MAX);
        write_transformation(&mut client, id.get(), &flight.to, -running, duration);
    }
}
