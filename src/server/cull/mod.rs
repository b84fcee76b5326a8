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
//! - **One cell per column.** Splitting a column's playbacks over several
//!   cells would cost every viewer two layers more to read each tick (split
//!   four ways, 300 players 4 blocks apart took a tick 2 to 3 ms longer).
//!   The byte budget does not need it: a viewer may get part of a cell's
//!   playbacks in one band and the rest in another (below).
//!
//! # Distance bands
//!
//! The scheduler plans each cycle at four tolerances
//! ([`crate::playback::schedule::bands`]); a playback's band-`k` updates
//! are encoded once and appended to band `k`'s stream of the display's
//! cell ([`crate::server::display_bands`]). A viewer sees a cell's own
//! layer (spawns, despawns, every field but the transformation) and is
//! copied, each tick, the cell's updates in the bands it gets
//! ([`CellBands`](crate::server::display_bands::CellBands), kept per
//! viewer in [`ViewerCells`]): the band its distance to the cell's chunk
//! column allows (`[emotes] tolerance_near_blocks`, 8 by default: band 0
//! within 16 blocks, band 1 from 16, band 2 from 32, band 3 from 64),
//! unless the budget moved some of them. The distance to the column's nearest point is never more than
//! the distance to a display in it, so a viewer never gets a coarser band
//! than its distance allows. A display's spawn fields are band 0's pose,
//! for a viewer of any band; one arriving in the middle of its band's
//! update is caught up as below. The updates are copied right after
//! valence's own client updates, so a display's spawn always comes first.
//!
//! A viewer whose band changes (it walked, or the budget moved it) is sent
//! nothing extra: until each display's next update in its new band, it
//! draws what its old band sent, within that band's tolerance while the
//! old update runs and then held. Sending each display's pose at every
//! change would cost as much as spawning the cell again; the budget changes
//! a viewer's bands at most once a second, and keeps them while it can.
//!
//! # The byte budget
//!
//! Every [`BUDGET_PERIOD_TICKS`] the bytes written to each band stream are
//! turned into bytes a second ([`BandTraffic`]), and each viewer's bands
//! are checked against `[emotes] viewer_bytes_per_second`. A viewer whose
//! cells at their distance bands cost more is moved, farthest cell first,
//! to the coarsest band until it is 10 % under the budget; its nearest
//! [`NEAREST_KEPT_EMOTES`] playbacks never are. Where those end inside a
//! cell (a crowd on one spot), the cell is split for that viewer: its
//! playbacks in entity order, the first ones kept, the rest movable. A
//! cell's playbacks are all at the distance of its chunk column, so which
//! of them count as nearest is a choice; the entity order is the same for
//! every viewer, which keeps the split two copies of shared bytes. The
//! cost of a split cell is reckoned by its share of playbacks. A viewer
//! stays demoted until its distance bands alone would cost under 80 % of
//! the budget. The budget is spent on display updates only (spawns,
//! sounds and chat are not counted), and it is a target, not a cap: a
//! crowd whose coarsest plans cost more than the budget is still sent
//! them.
//!
//! # Arrivals
//!
//! A viewer that comes into reach of many cells at once (it joined,
//! teleported, walked into a crowd, loaded the pack) would be sent every
//! display of them in one tick: 16,000 spawns, about 4 MB, for a crowd
//! of 1,000, and valence's buffer for that client keeps the size of its
//! largest tick. So the cells new to a viewer are shown nearest first, at
//! most `[emotes] viewer_spawns_per_tick` displays a tick; the rest wait,
//! and the viewer is checked again each tick until none does. A cell is
//! one layer, which valence spawns whole, so the nearest new cell always
//! comes, however large: a crowd in one chunk column still arrives in one
//! tick. A nearer cell is never left waiting behind a farther one that
//! fits. Displays spawned in a cell the viewer already sees (an emote
//! starting) are not counted: they come as the emotes start.

use std::collections::HashMap;

use valence::client::{FlushPacketsSet, UpdateClientsSet};
use valence::entity::display::ViewRange;
use valence::layer::UpdateLayersPreClientSet;
use valence::prelude::*;
use valence::ChunkPos;

use crate::server::config::Config;
use crate::server::display_bands::BandStreams;
use crate::server::events::{BoneDrawn, DisplayAudience, EmoteDisplay};

mod arrivals;
mod catch_up;
mod deliver;
mod viewers;

use catch_up::{finish_catch_ups, start_catch_ups, CatchUps};
pub use deliver::ViewerCells;
use deliver::{send_band_updates, track_new_viewers};
use viewers::{measure_band_traffic, show_cells_in_range};
pub use viewers::{BandTraffic, BUDGET_PERIOD_TICKS, NEAREST_KEPT_EMOTES};

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
            .init_resource::<BandStreams>()
            .init_resource::<BandTraffic>()
            .add_systems(
                PostUpdate,
                (
                    (
                        finish_catch_ups,
                        retire_empty_cells,
                        assign_display_cells,
                        track_new_viewers,
                        apply_deferred,
                        measure_band_traffic,
                        show_cells_in_range,
                    )
                        .chain()
                        .before(UpdateLayersPreClientSet),
                    (send_band_updates, start_catch_ups)
                        .chain()
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

/// One cell's layer and how long it has been empty (its band streams are
/// in [`BandStreams`]).
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
    mut streams: ResMut<BandStreams>,
    layers: Query<&EntityLayer>,
    mut clients: Query<(&mut VisibleEntityLayers, Option<&mut ViewerCells>), With<Client>>,
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
            streams.remove(cell.layer);
            for (mut visible, viewer_cells) in &mut clients {
                if visible.0.contains(&cell.layer) {
                    visible.0.remove(&cell.layer);
                }
                if let Some(mut viewer_cells) = viewer_cells {
                    viewer_cells.forget(cell.layer);
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

/// What cell assignment gets of one display.
type PlacementItem<'a> = (
    &'a Position,
    Mut<'a, EntityLayerId>,
    Option<&'a ViewRange>,
    Option<&'a DisplayAudience>,
    Option<&'a BoneDrawn>,
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
    mut streams: ResMut<BandStreams>,
    server: Res<Server>,
    config: Res<Config>,
    mut displays: ParamSet<(MovedDisplays, AllDisplays)>,
) {
    let reassign_all = config.is_changed();
    let (scale, view_distance) = reach_settings(&config);
    let view_blocks = chunk_view_reach_blocks(view_distance);
    // Bands and the budget choose per viewer, so they need cells.
    let banded =
        config.emotes.tolerance_near_blocks > 0.0 || config.emotes.viewer_bytes_per_second > 0;
    let mut assign = |(position, mut layer_id, view_range, audience, bone_drawn): PlacementItem| {
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
        let layer = if !banded && key.for_everyone() && key.reach_blocks(scale) >= view_blocks {
            // Nothing to cull: the world's layer sends it by chunk view.
            world
        } else {
            match cells.by_key.get(&key) {
                Some(cell) => cell.layer,
                None => {
                    let layer = commands.spawn(EntityLayer::new(&server)).id();
                    streams.insert(layer, key.chunk);
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
        displays.p1().iter_mut().for_each(&mut assign);
    } else {
        displays.p0().iter_mut().for_each(&mut assign);
    }
}

/// The farthest a point of a chunk column in a client's chunk view can be
/// from the client, horizontally: the view's radius in chunks plus the
/// client's own chunk, corner to corner.
pub fn chunk_view_reach_blocks(view_distance_chunks: u8) -> f64 {
    (f64::from(view_distance_chunks) + 1.0) * 16.0 * std::f64::consts::SQRT_2
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
