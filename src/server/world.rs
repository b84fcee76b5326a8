//! The default world: a flat grass plain with a stone spawn area and a pool
//! of water, so that every stop condition can be tried by hand.

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
    for z in -extent..extent {
        for x in -extent..extent {
            layer
                .chunk
                .set_block([x, SURFACE_Y - 3, z], BlockState::BEDROCK);
            layer
                .chunk
                .set_block([x, SURFACE_Y - 2, z], BlockState::DIRT);
            layer
                .chunk
                .set_block([x, SURFACE_Y - 1, z], BlockState::DIRT);
            layer
                .chunk
                .set_block([x, SURFACE_Y, z], BlockState::GRASS_BLOCK);
        }
    }
    // A smooth stone spawn square.
    for z in -4..=4 {
        for x in -4..=4 {
            layer
                .chunk
                .set_block([x, SURFACE_Y, z], BlockState::SMOOTH_STONE);
        }
    }
    // A pool two blocks deep east of spawn, so eyes can go under water.
    for z in -3..=3 {
        for x in 8..=14 {
            layer.chunk.set_block([x, SURFACE_Y, z], BlockState::WATER);
            layer
                .chunk
                .set_block([x, SURFACE_Y - 1, z], BlockState::WATER);
            layer
                .chunk
                .set_block([x, SURFACE_Y - 2, z], BlockState::SAND);
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
