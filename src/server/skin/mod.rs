//! Skins, as the server's features share them: each player's
//! [`PlayerSkin`] (set at join by [`SkinPlugin`]), and the [`PackSlices`]
//! the served pack draws (set by the resource pack feature whenever it
//! serves a new pack). The emote displays read both: a skin-bound display
//! wears its participant's skin, and viewers whose client loaded the pack
//! see it cut into the part it plays.
//!
//! The rules (which texture, slim or not, the client's default skin for a
//! UUID) are [`crate::pack::profile`]'s; this module only feeds them the
//! login's properties, the UUID and `[skins]`.

use valence::client::Properties;
use valence::prelude::*;

use crate::pack::ids::SliceTable;
use crate::pack::profile::{SkinProfile, SkinSource};
use crate::server::config::{Config, SkinsSection};

/// Gives every player who joins a [`PlayerSkin`].
pub struct SkinPlugin;

impl Plugin for SkinPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Config>()
            .add_systems(PreUpdate, resolve_joined_skins);
    }
}

/// The skin a player's skin-bound displays wear.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct PlayerSkin(pub SkinProfile);

/// The slices of the pack served now, by id: a skin-bound display shows
/// slice k to the viewers who loaded that pack. Absent while no pack is
/// served (`resource_pack.enabled = false`): then every viewer sees heads.
#[derive(Resource, Clone, Debug)]
pub struct PackSlices {
    table: SliceTable,
}

impl PackSlices {
    /// The slices of the pack served now.
    pub fn new(table: SliceTable) -> PackSlices {
        PackSlices { table }
    }

    /// The table.
    pub fn table(&self) -> &SliceTable {
        &self.table
    }
}

/// The skin a player with this UUID and these login properties wears, as
/// [`SkinProfile::resolve`] decides with `[skins]`: what [`SkinPlugin`]
/// gives each player at join.
pub fn skin_of(uuid: Uuid, properties: Option<&Properties>, skins: &SkinsSection) -> SkinProfile {
    let textures = properties
        .and_then(|p| p.textures())
        .map(|t| (t.value.as_str(), t.signature.as_deref()));
    SkinProfile::resolve(uuid, textures, skins.configured().as_ref())
}

fn resolve_joined_skins(
    mut commands: Commands,
    config: Res<Config>,
    joined: Query<(Entity, &Username, &UniqueId, Option<&Properties>), Added<Client>>,
) {
    if joined.is_empty() {
        return;
    }
    for (player, name, uuid, properties) in &joined {
        let profile = skin_of(uuid.0, properties, &config.skins);
        match profile.source {
            SkinSource::Login => {}
            SkinSource::Configured => {
                tracing::debug!("{name} has no skin texture: wearing skins.default_skin_url")
            }
            SkinSource::Default(default) => tracing::debug!(
                "{name} has no skin texture: wearing the default skin {}{} for their UUID",
                default.name,
                if default.slim { " (slim)" } else { "" }
            ),
        }
        commands.entity(player).insert(PlayerSkin(profile));
    }
}
