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

use std::sync::Arc;

use valence::prelude::*;

use crate::pack::ids::SliceTable;
use crate::pack::profile::{SkinProfile, SkinSource};
use crate::server::config::Config;

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

/// The slices of the pack served now, by id, and the pack's SHA-1: a
/// skin-bound display shows slice k to the viewers who loaded that pack.
/// Absent while no pack is served (`resource_pack.enabled = false`): then
/// every viewer sees heads.
#[derive(Resource, Clone, Debug)]
pub struct PackSlices {
    table: Arc<SliceTable>,
    sha1_hex: String,
}

impl PackSlices {
    /// The slices of the pack whose SHA-1 is `sha1_hex`.
    pub fn new(table: SliceTable, sha1_hex: &str) -> PackSlices {
        PackSlices {
            table: Arc::new(table),
            sha1_hex: sha1_hex.to_owned(),
        }
    }

    /// The table.
    pub fn table(&self) -> &SliceTable {
        &self.table
    }

    /// The SHA-1 of the pack that draws them.
    pub fn sha1_hex(&self) -> &str {
        &self.sha1_hex
    }
}

fn resolve_joined_skins(
    mut commands: Commands,
    config: Res<Config>,
    joined: Query<
        (
            Entity,
            &Username,
            &UniqueId,
            Option<&valence::client::Properties>,
        ),
        Added<Client>,
    >,
) {
    if joined.is_empty() {
        return;
    }
    let configured = config.skins.configured();
    for (player, name, uuid, properties) in &joined {
        let textures = properties
            .and_then(|p| p.textures())
            .map(|t| (t.value.as_str(), t.signature.as_deref()));
        let profile = SkinProfile::resolve(uuid.0, textures, configured.as_ref());
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
