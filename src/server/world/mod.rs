//! The world players join, and where in it.
//!
//! There are two, and `[world] path` chooses
//! ([`WorldSection`]):
//! - **the flat world** ([`flat`], the default): a grass plain built in
//!   memory at start-up, with a stone spawn square and a pool, so that
//!   every emote and stop condition can be tried on a fresh install with no
//!   world to find. The tests rely on its exact shape;
//! - **an existing world** ([`anvil`]): the overworld of a Java Edition
//!   world saved by Minecraft 1.18 to 1.20.1, read with valence_anvil,
//!   read-only, its chunks loaded around the players as they move, so that
//!   an admin can put emoted under the spawn they built.
//!
//! Either is one layer (a chunk layer and an entity layer in one entity)
//! and a [`WorldSpawn`] resource; the same join system puts every new
//! client in that layer at that spawn, in survival, with the configured
//! view distance. [`WorldPlugin`] is the one in
//! [`EmotePlugins`](crate::server::EmotePlugins): the flat world unless it
//! was made from a configuration that names a world. The world is opened
//! (and refused, with the file named) before the server starts
//! ([`WorldPlugin::open`]), never while players are on it; a reload does
//! not move it.

pub mod anvil;
pub mod flat;
pub mod level;

#[cfg(test)]
mod tests;

use valence::prelude::*;
use valence::protocol::packets::play::HealthUpdateS2c;
use valence::protocol::{VarInt, WritePacket};

use crate::server::config::{Config, WorldSection};
pub use anvil::{AnvilWorld, AnvilWorldPlugin};
pub use flat::{FlatWorldPlugin, FLAT_SPAWN, SURFACE_Y};
pub use level::WorldError;

/// Where players join (and respawn): their feet's position.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct WorldSpawn(pub DVec3);

impl Default for WorldSpawn {
    /// The flat world's, [`FLAT_SPAWN`].
    fn default() -> Self {
        FLAT_SPAWN
    }
}

impl WorldSpawn {
    /// The block the feet are in, as a respawn point names it.
    pub fn block(&self) -> BlockPos {
        BlockPos::new(
            self.0.x.floor() as i32,
            self.0.y.floor() as i32,
            self.0.z.floor() as i32,
        )
    }
}

/// The world of [`EmotePlugins`](crate::server::EmotePlugins): the flat
/// one by default; `emoted serve` replaces it with the one its
/// configuration names (`EmotePlugins.set(WorldPlugin::open(...)?)`).
#[derive(Default)]
pub enum WorldPlugin {
    /// [`FlatWorldPlugin`].
    #[default]
    Flat,
    /// [`AnvilWorldPlugin`] on this world.
    Anvil(AnvilWorld),
}

impl WorldPlugin {
    /// The world `[world]` names, opened and checked
    /// ([`AnvilWorld::open`]), or the flat world when it names none.
    pub fn open(section: &WorldSection) -> Result<WorldPlugin, WorldError> {
        match section.path() {
            Some(folder) => AnvilWorld::open(folder).map(WorldPlugin::Anvil),
            None => Ok(WorldPlugin::Flat),
        }
    }
}

impl Plugin for WorldPlugin {
    fn build(&self, app: &mut App) {
        match self {
            WorldPlugin::Flat => app.add_plugins(FlatWorldPlugin),
            WorldPlugin::Anvil(world) => app.add_plugins(AnvilWorldPlugin::new(world.clone())),
        };
    }
}

/// The systems every world has: new clients put in the world's layer at
/// its [`WorldSpawn`], the entities of those who left removed.
fn add_join_systems(app: &mut App) {
    app.add_systems(Update, (place_new_players, despawn_disconnected_clients));
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
    spawn: Res<WorldSpawn>,
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
        pos.set(spawn.0);
        *game_mode = GameMode::Survival;
    }
}
