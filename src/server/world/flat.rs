//! The default world: a flat grass plain with a stone spawn area and a pool
//! of water, so that every stop condition can be tried by hand. Players
//! join on the stone square, at [`FLAT_SPAWN`].

use std::ops::RangeInclusive;

use valence::prelude::*;

use super::{add_join_systems, WorldSpawn};

/// The y of the grass surface; players stand on `SURFACE_Y + 1`.
pub const SURFACE_Y: i32 = 64;
/// Chunks loaded around the origin, in each direction.
const CHUNK_RADIUS: i32 = 6;
/// Where players join: the middle of the stone square's centre block.
pub const FLAT_SPAWN: WorldSpawn = WorldSpawn(DVec3::new(0.5, SURFACE_Y as f64 + 1.0, 0.5));

/// Builds the flat world and puts joining players in it.
pub struct FlatWorldPlugin;

impl Plugin for FlatWorldPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(FLAT_SPAWN)
            .add_systems(Startup, build_flat_world);
        add_join_systems(app);
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
