//! View-range culling: a viewer farther than a display's view range gets
//! nothing for it, no spawn and no updates.
//!
//! The vanilla client draws a display entity only while the camera is within
//! `view_range × 64 × Entity Distance` blocks of the entity's position (the
//! anchor, not the transformed model). valence sends an entity to every
//! client whose chunk view holds its chunk (10 chunks, 160 blocks, by
//! default), so past 64 blocks most display packets are drawn by nobody.
//!
//! # How
//!
//! Display entities are moved out of their world's entity layer into a
//! **cell**: an entity layer of their own for the displays of one chunk
//! column with one view range (`view_range` bits, so a node with a custom
//! range gets its own cell). A client sees a cell's layer while
//!
//! - it sees the world's entity layer the display was spawned in (so
//!   culling only ever removes what the client would get without it), and
//! - the horizontal distance from the client to the cell's chunk column is
//!   at most `view_range × 64 × display_view_scale` blocks
//!   ([`crate::server::config::EmotesSection::display_view_scale`]).
//!
//! valence does the rest: a layer that becomes visible spawns its displays
//! with their current fields (the pose of the update in flight, so a viewer
//! that walks into range sees the emote at once), a layer that stops being
//! visible despawns them, and a layer's updates are encoded once and shared
//! by every client that sees it.
//!
//! # Choices
//!
//! - **Chunk granularity.** The distance is measured to the nearest point of
//!   the display's chunk column, so a display reaches a little past its
//!   range (at most a chunk diagonal, 23 blocks), never short of it. Height
//!   is ignored for the same reason.
//! - **Entity Distance.** The server cannot know a client's Entity Distance
//!   setting. The default scale 1.0 matches the game's default; a client set
//!   above it sees emote displays only to the default distance. Admins who
//!   want every client served set `display_view_scale = 5.0` (the slider's
//!   top), which costs the bandwidth culling saves.
//! - **Moving viewers.** A client's cells are recomputed when it moves, when
//!   a cell appears or goes, and when the configuration changes; a client
//!   standing still costs nothing per tick. A reload that changes
//!   `display_view_scale` (or the view distance) moves every display to
//!   where the new reach puts it.
//! - **Nothing to cull.** A display whose reach covers the whole chunk view
//!   (`display_view_scale = 5.0` with the default view distance) stays in
//!   its world's layer: a cell would cost each client a layer to read every
//!   tick and leave nothing out.
//! - **Arriving mid-stretch.** The scheduler sends one update for a stretch
//!   of motion the client interpolates over several ticks, and valence
//!   spawns a display for a newly arrived viewer with the fields of the
//!   latest update. A new viewer would snap to the stretch's *end* and wait
//!   there for the next update. So a viewer that gets a cell while an update
//!   of it is in flight with two or more ticks to go is sent, right after
//!   the spawn, the stretch's start with no interpolation, and on the next
//!   tick the update again with a negative `start_interpolation` (the ticks
//!   it has been running): from then on it draws what every other viewer
//!   draws. The cost is two small packets per display for that one viewer.
//! - **Two audiences.** A skin-bound node has a display drawn through
//!   emoted's resource pack and a fallback head
//!   ([`DisplayAudience`]); each goes to a cell of its own audience, and a
//!   client sees the cells of the one its [`PackStatus`] says (loaded: the
//!   pack-drawn parts; anything else: the heads), unless its player chose
//!   heads (`/emote parts off`, [`PlayerChoices::sees_parts`]). Such displays are always
//!   in a cell, even where nothing is culled, and a client whose pack
//!   status or parts choice changes is checked again at once.
//! - **Bones instead of displays.** A display marked [`BoneDrawn`] (a part
//!   of the initiator's body in a playback modded viewers see in bones,
//!   [`crate::server::emote`]'s `bone_view`) goes to a cell of its own
//!   that bone viewers ([`BoneViewer`]) never see; it is always in a cell,
//!   and a client that becomes a bone viewer (its CONFIG comes after its
//!   join) is checked again at once.
//! - **Empty cells** are kept for [`CELL_RETIRE_TICKS`] (an emote that loops
//!   or replays in the same spot reuses its cell), then despawned.

use std::collections::HashMap;

use valence::client::{FlushPacketsSet, UpdateClientsSet};
use valence::entity::display::ViewRange;
use valence::entity::tracked_data::TrackedData;
use valence::entity::EntityId;
use valence::layer::UpdateLayersPreClientSet;
use valence::prelude::*;
use valence::protocol::packets::play::EntityTrackerUpdateS2c;
use valence::protocol::{RawBytes, VarInt, WritePacket};
use valence::{ChunkPos, ChunkView};

use crate::anim::DisplayTransform;
use crate::server::config::Config;
use crate::server::emote::ActiveEmote;
use crate::server::events::{BoneDrawn, BoneViewer, DisplayAudience, EmoteDisplay};
use crate::server::resource_pack::PackStatus;
use crate::server::storage::PlayerChoices;

/// Blocks per unit of a display's `view_range`, as the vanilla client
/// multiplies it.
pub const VIEW_RANGE_BLOCKS: f64 = 64.0;

/// Ticks an empty cell is kept before its layer is despawned.
pub const CELL_RETIRE_TICKS: u32 = 200;

/// Culls display entities by view range (see the module docs).
pub struct DisplayCullPlugin;

impl Plugin for DisplayCullPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<DisplayCells>()
            .init_resource::<CatchUps>()
            .add_systems(
                PostUpdate,
                (
                    (
                        finish_catch_ups,
                        retire_empty_cells,
                        assign_display_cells,
                        apply_deferred,
                        show_cells_in_range,
                    )
                        .chain()
                        .before(UpdateLayersPreClientSet),
                    start_catch_ups
                        .after(UpdateClientsSet)
                        .before(FlushPacketsSet),
                ),
            );
    }
}

/// What a cell holds: displays of one world, one chunk column, one view
/// range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CellKey {
    /// The world's entity layer the displays were spawned in.
    pub world: Entity,
    /// The chunk column of the displays' positions.
    pub chunk: ChunkPos,
    /// The displays' `view_range`, as bits.
    pub view_range_bits: u32,
    /// Which viewers the displays are for.
    pub audience: DisplayAudience,
    /// True for displays bone viewers draw with bones ([`BoneDrawn`]).
    pub bone_drawn: bool,
}

impl CellKey {
    /// Whether a viewer that has (or has not) loaded the pack, and is (or
    /// is not) a bone viewer, sees the cell's displays.
    pub fn admits(&self, pack_loaded: bool, bone_viewer: bool) -> bool {
        self.audience.admits(pack_loaded) && !(self.bone_drawn && bone_viewer)
    }

    /// Whether every viewer sees the displays (so they need no cell when
    /// nothing is culled).
    fn for_everyone(&self) -> bool {
        self.audience == DisplayAudience::Everyone && !self.bone_drawn
    }

    /// How far from the chunk column a client may be to see the cell, in
    /// blocks.
    pub fn reach_blocks(&self, scale: f64) -> f64 {
        f64::from(f32::from_bits(self.view_range_bits).max(0.0)) * VIEW_RANGE_BLOCKS * scale
    }

    /// The horizontal distance from `position` to the nearest point of the
    /// cell's chunk column, squared.
    pub fn distance_squared(&self, position: DVec3) -> f64 {
        let axis = |at: f64, chunk: i32| {
            let low = f64::from(chunk) * 16.0;
            (low - at).max(at - (low + 16.0)).max(0.0)
        };
        let dx = axis(position.x, self.chunk.x);
        let dz = axis(position.z, self.chunk.z);
        dx * dx + dz * dz
    }
}

/// One cell's layer and how long it has been empty.
#[derive(Clone, Copy, Debug)]
struct Cell {
    layer: Entity,
    empty_ticks: u32,
}

/// The cells, by what they hold and by their layer.
#[derive(Resource, Debug, Default)]
pub struct DisplayCells {
    by_key: HashMap<CellKey, Cell>,
    by_layer: HashMap<Entity, CellKey>,
    /// True when cells appeared or went this tick: every client is checked.
    changed: bool,
}

impl DisplayCells {
    /// How many cells exist.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// True when there is no cell.
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// Every cell, with its layer.
    pub fn iter(&self) -> impl Iterator<Item = (CellKey, Entity)> + '_ {
        self.by_key.iter().map(|(key, cell)| (*key, cell.layer))
    }

    /// The cell whose layer is `layer`.
    pub fn key_of(&self, layer: Entity) -> Option<CellKey> {
        self.by_layer.get(&layer).copied()
    }
}

fn retire_empty_cells(
    mut commands: Commands,
    mut cells: ResMut<DisplayCells>,
    layers: Query<&EntityLayer>,
    mut clients: Query<&mut VisibleEntityLayers, With<Client>>,
) {
    let cells = &mut *cells;
    let mut retired = Vec::new();
    for (key, cell) in &mut cells.by_key {
        let empty = layers
            .get(cell.layer)
            .map_or(true, |layer| layer.entities_at(key.chunk).next().is_none());
        cell.empty_ticks = if empty { cell.empty_ticks + 1 } else { 0 };
        if cell.empty_ticks >= CELL_RETIRE_TICKS {
            retired.push(*key);
        }
    }
    for key in retired {
        if let Some(cell) = cells.by_key.remove(&key) {
            cells.by_layer.remove(&cell.layer);
            for mut visible in &mut clients {
                if visible.0.contains(&cell.layer) {
                    visible.0.remove(&cell.layer);
                }
            }
            if let Some(mut layer) = commands.get_entity(cell.layer) {
                layer.insert(Despawned);
            }
            cells.changed = true;
        }
    }
}

/// What cell assignment reads and writes of a display.
type CellPlacement = (
    &'static Position,
    &'static mut EntityLayerId,
    Option<&'static ViewRange>,
    Option<&'static DisplayAudience>,
    Option<&'static BoneDrawn>,
);

/// Displays new this tick, or moved.
type MovedDisplays<'w, 's> = Query<
    'w,
    's,
    CellPlacement,
    (
        With<EmoteDisplay>,
        Without<Despawned>,
        Or<(
            Added<EmoteDisplay>,
            Changed<Position>,
            Changed<DisplayAudience>,
            Added<BoneDrawn>,
        )>,
    ),
>;

/// Every display (after a configuration change).
type AllDisplays<'w, 's> = Query<'w, 's, CellPlacement, (With<EmoteDisplay>, Without<Despawned>)>;

/// `emotes.display_view_scale` and `server.view_distance`, read without
/// copying the configuration.
fn reach_settings(config: &Config) -> (f64, u8) {
    (
        config.emotes.display_view_scale,
        config.server.view_distance,
    )
}

/// Puts displays that are new or moved (every display, when the
/// configuration changed) into the cell of their position, or into their
/// world's layer when their reach covers the chunk view.
fn assign_display_cells(
    mut commands: Commands,
    mut cells: ResMut<DisplayCells>,
    server: Res<Server>,
    config: Res<Config>,
    mut displays: ParamSet<(MovedDisplays, AllDisplays)>,
) {
    let reassign_all = config.is_changed();
    let (scale, view_distance) = reach_settings(&config);
    let view_blocks = chunk_view_reach_blocks(view_distance);
    let mut assign = |position: &Position,
                      layer_id: &mut EntityLayerId,
                      view_range: Option<&ViewRange>,
                      audience: Option<&DisplayAudience>,
                      bone_drawn: Option<&BoneDrawn>| {
        // The world: the layer it was spawned in, or its cell's world.
        let world = cells.key_of(layer_id.0).map_or(layer_id.0, |key| key.world);
        let key = CellKey {
            world,
            chunk: ChunkPos::from_pos(position.0),
            view_range_bits: view_range.map_or(1.0, |v| v.0).to_bits(),
            audience: audience.copied().unwrap_or_default(),
            bone_drawn: bone_drawn.is_some(),
        };
        // A display for some viewers only is always in a cell: the
        // world's layer would show it to everyone.
        let layer = if key.for_everyone() && key.reach_blocks(scale) >= view_blocks {
            // Nothing to cull: the world's layer sends it by chunk view.
            world
        } else {
            match cells.by_key.get(&key) {
                Some(cell) => cell.layer,
                None => {
                    let layer = commands.spawn(EntityLayer::new(&server)).id();
                    cells.by_key.insert(
                        key,
                        Cell {
                            layer,
                            empty_ticks: 0,
                        },
                    );
                    cells.by_layer.insert(layer, key);
                    cells.changed = true;
                    layer
                }
            }
        };
        if layer_id.0 != layer {
            layer_id.0 = layer;
        }
    };
    if reassign_all {
        for (position, mut layer_id, view_range, audience, bones) in &mut displays.p1() {
            assign(position, &mut layer_id, view_range, audience, bones);
        }
    } else {
        for (position, mut layer_id, view_range, audience, bones) in &mut displays.p0() {
            assign(position, &mut layer_id, view_range, audience, bones);
        }
    }
}

/// The farthest a point of a chunk column in a client's chunk view can be
/// from the client, horizontally: the view's radius in chunks plus the
/// client's own chunk, corner to corner.
pub fn chunk_view_reach_blocks(view_distance_chunks: u8) -> f64 {
    (f64::from(view_distance_chunks) + 1.0) * 16.0 * std::f64::consts::SQRT_2
}

/// What cell visibility reads and writes of a client.
type Viewer = (
    Entity,
    Ref<'static, Position>,
    &'static mut VisibleEntityLayers,
    Option<Ref<'static, PackStatus>>,
    Option<Ref<'static, BoneViewer>>,
    Option<Ref<'static, PlayerChoices>>,
);

fn show_cells_in_range(
    mut cells: ResMut<DisplayCells>,
    mut catch_ups: ResMut<CatchUps>,
    config: Res<Config>,
    mut clients: Query<Viewer, With<Client>>,
) {
    let everyone = cells.changed || config.is_changed();
    cells.changed = false;
    if cells.by_key.is_empty() {
        return;
    }
    let (scale, _) = reach_settings(&config);
    for (client, position, mut visible, pack, bone_viewer, choices) in &mut clients {
        // `/emote parts off` shows heads, as to a viewer without the pack.
        let pack_changed = pack.as_ref().is_some_and(|p| p.is_changed())
            || choices.as_ref().is_some_and(|c| c.is_changed());
        let became_bone_viewer = bone_viewer.as_ref().is_some_and(|b| b.is_added());
        if !everyone && !position.is_changed() && !pack_changed && !became_bone_viewer {
            continue;
        }
        let pack_loaded =
            PlayerChoices::sees_parts(choices.as_deref(), pack.is_some_and(|p| p.is_loaded()));
        let bone_viewer = bone_viewer.is_some();
        for (key, cell) in &cells.by_key {
            let reach = key.reach_blocks(scale);
            let wanted = key.admits(pack_loaded, bone_viewer)
                && visible.0.contains(&key.world)
                && key.distance_squared(position.0) <= reach * reach;
            if wanted != visible.0.contains(&cell.layer) {
                if wanted {
                    visible.0.insert(cell.layer);
                    catch_ups.arrived.push((client, cell.layer));
                } else {
                    visible.0.remove(&cell.layer);
                }
            }
        }
    }
}

/// Viewers that arrive while display updates are in flight
/// (see "Arriving mid-stretch" in the module docs).
#[derive(Resource, Debug, Default)]
struct CatchUps {
    /// Clients given a cell layer this tick, and the layer.
    arrived: Vec<(Entity, Entity)>,
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
    sent_tick: i64,
}

/// Writes one display-transformation metadata packet to `client`.
fn write_transformation(
    client: &mut Client,
    entity_id: i32,
    transform: &DisplayTransform,
    start_interpolation: i32,
    duration_ticks: i32,
) {
    // 1.20.1 display indices and type ids (valence's generated ones): 8
    // start_interpolation and 9 interpolation_duration (VarInt, 1), 10
    // translation and 11 scale (Vector3f, 26), 12 left and 13 right
    // rotation (Quaternionf, 27).
    let mut data = TrackedData::default();
    data.append_update_value(8, 1, VarInt(start_interpolation));
    data.append_update_value(9, 1, VarInt(duration_ticks));
    data.append_update_value(10, 26, transform.translation);
    data.append_update_value(11, 26, transform.scale);
    data.append_update_value(12, 27, transform.left_rotation);
    data.append_update_value(13, 27, transform.right_rotation);
    if let Some(metadata) = data.update_data() {
        client.write_packet(&EntityTrackerUpdateS2c {
            entity_id: VarInt(entity_id),
            metadata: RawBytes(metadata),
        });
    }
}

/// Right after valence spawned a cell's displays for the clients that
/// arrived this tick: each display with an update in flight for two or more
/// ticks more is set to that update's start, with no interpolation.
fn start_catch_ups(
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
    for (client_entity, layer) in catch_ups.arrived.drain(..) {
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
            let Some(flight) = playback.in_flight_of(display) else {
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
                sent_tick: flight.sent_tick,
            });
        }
    }
}

/// The tick after [`start_catch_ups`], before this tick's updates are
/// copied to clients: the update in flight again, started as many ticks
/// ago as it was sent (a negative `start_interpolation`), so the client
/// interpolates from the stretch's start exactly as every other viewer.
/// An update replaced meanwhile (the player turned, the emote stopped) is
/// left to the shared updates.
fn finish_catch_ups(
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
            .and_then(|p| p.in_flight_of(catch_up.display))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn key(x: i32, z: i32, view_range: f32) -> CellKey {
        CellKey {
            world: Entity::PLACEHOLDER,
            chunk: ChunkPos::new(x, z),
            view_range_bits: view_range.to_bits(),
            audience: DisplayAudience::Everyone,
            bone_drawn: false,
        }
    }

    #[test]
    fn bone_drawn_cells_are_for_vanilla_viewers_only() {
        let everyone = key(0, 0, 1.0);
        assert!(everyone.admits(false, true) && everyone.admits(true, false));
        let body = CellKey {
            bone_drawn: true,
            ..everyone
        };
        assert!(body.admits(false, false) && body.admits(true, false));
        assert!(!body.admits(false, true) && !body.admits(true, true));
        assert!(!body.for_everyone() && everyone.for_everyone());
        // The pack audience still applies to vanilla viewers.
        let pack_part = CellKey {
            audience: DisplayAudience::WithPack,
            ..body
        };
        assert!(pack_part.admits(true, false) && !pack_part.admits(false, false));
    }

    #[test]
    fn distance_is_to_the_nearest_point_of_the_chunk_column() {
        let cell = key(0, 0, 1.0);
        // Inside, at any height.
        assert_eq!(cell.distance_squared(DVec3::new(3.0, 300.0, 15.9)), 0.0);
        // 10 blocks east of the east edge.
        assert_eq!(cell.distance_squared(DVec3::new(26.0, 64.0, 8.0)), 100.0);
        // 3 west and 4 north of the north-west corner.
        assert_eq!(cell.distance_squared(DVec3::new(-3.0, 0.0, -4.0)), 25.0);
        let far = key(-2, 1, 1.0);
        assert_eq!(far.distance_squared(DVec3::new(-20.0, 0.0, 20.0)), 0.0);
        assert_eq!(far.distance_squared(DVec3::new(-10.0, 0.0, 20.0)), 36.0);
    }

    #[test]
    fn reach_is_the_view_range_in_blocks_times_the_scale() {
        assert_eq!(key(0, 0, 1.0).reach_blocks(1.0), 64.0);
        assert_eq!(key(0, 0, 0.5).reach_blocks(2.0), 64.0);
        assert_eq!(key(0, 0, 1.0).reach_blocks(5.0), 320.0);
        assert_eq!(key(0, 0, -1.0).reach_blocks(1.0), 0.0);
    }
}
