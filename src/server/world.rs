//! The default world: a flat grass plain with a stone spawn area and a pool
//! of water, so that every stop condition can be tried by hand.

use std::ops::RangeInclusive;

use valence::prelude::*;

use crate::server::config::Config;
use valence::protocol::packets::play::HealthUpdateS2c;
use valence::protocol::{VarInt, WritePacket};

/// The y of the grass surface; players stand on `SURFACE_Y + 1`.
pub const SURFACE_Y: i32 = 64;
/// Chunks loaded around the origin, in each direction.
const CHUNK_RADIUS: i32 = 6;

/// Builds the flat world and puts joining players in it.
pub struct FlatWorldPlugin;

impl Plugin for FlatWorldPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, build_flat_world)
            .add_systems(Update, (place_new_players, despawn_disconnected_clients));
    }
}

fn build_flat_world(
    mut commands: Commands,
    server: Res<Server>,
    dimensions: Res<DimensionTypeRegistry>,
    biomes: Res<BiomeRegistry>,
) {
    let mut layer = LayerBundle::new(ident!("overworld"), &dimensions, &biomes, &server);
    for cz in -CHUNK_RADIUS..CHUNK_RADIUS {
        for cx in -CHUNK_RADIUS..CHUNK_RADIUS {
            layer.chunk.insert_chunk([cx, cz], UnloadedChunk::new());
        }
    }
    let extent = CHUNK_RADIUS * 16;
    // Each area, in order (a later one overwrites an earlier): x and z
    // ranges, then the block at each height from the surface down.
    let areas: [(RangeInclusive<i32>, RangeInclusive<i32>, &[BlockState]); 3] = [
        // The plain.
        (
            -extent..=extent - 1,
            -extent..=extent - 1,
            &[
                BlockState::GRASS_BLOCK,
                BlockState::DIRT,
                BlockState::DIRT,
                BlockState::BEDROCK,
            ],
        ),
        // A smooth stone spawn square.
        (-4..=4, -4..=4, &[BlockState::SMOOTH_STONE]),
        // A pool two blocks deep east of spawn, so eyes can go under water.
        (
            8..=14,
            -3..=3,
            &[BlockState::WATER, BlockState::WATER, BlockState::SAND],
        ),
    ];
    for (xs, zs, column) in areas {
        for z in zs {
            for x in xs.clone() {
                for (depth, block) in (0..).zip(column) {
                    layer.chunk.set_block([x, SURFACE_Y - depth, z], *block);
                }
            }
        }
    }
    commands.spawn(layer);
}

#[allow(clippy::type_complexity)]
fn place_new_players(
    mut clients: Query<
        (
            &mut EntityLayerId,
            &mut VisibleChunkLayer,
            &mut VisibleEntityLayers,
            &mut Position,
            &mut GameMode,
            &mut Client,
            &mut ViewDistance,
        ),
        Added<Client>,
    >,
    layers: Query<Entity, (With<ChunkLayer>, With<EntityLayer>)>,
    config: Res<Config>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    for (
        mut layer_id,
        mut visible_chunk_layer,
        mut visible_entity_layers,
        mut pos,
        mut game_mode,
        mut client,
        mut view_distance,
    ) in &mut clients
    {
        view_distance.set(config.server.view_distance);
        // Operator levels from `permissions.operators` are given (and taken
        // back on reload) by `commands::apply_operator_list`.
        // valence sends no health at join; vanilla clients (and mineflayer's
        // `spawn` event) wait for it.
        client.write_packet(&HealthUpdateS2c {
            health: 20.0,
            food: VarInt(20),
            food_saturation: 5.0,
        });
        layer_id.0 = layer;
        visible_chunk_layer.0 = layer;
        visible_entity_layers.0.insert(layer);
        pos.set([0.5, f64::from(SURFACE_Y) + 1.0, 0.5]);
        *game_mode = GameMode::Survival;
    }
}
