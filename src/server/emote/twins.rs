//! The pack-drawn twins of skin-bound displays.
//!
//! A skin-bound node is drawn two ways: as the whole head of its
//! participant (the display spawned with the playback, which every viewer
//! sees while nobody can see the other way) and, for viewers whose client
//! loaded emoted's resource pack, as the body part the pack cuts from that
//! head (its twin, a [`PackTwin`]). Twins are added by [`add_pack_twins`]
//! once a pack is served **and** some player has loaded it: a server where
//! nobody has the pack (or a load test) pays nothing for them. A twin
//! starts from its node's pose as last sent (not its fallback's, which is
//! turned to face the rig: the twin's model turns the skull itself) and
//! then gets every update of the node, moved down by its slice's offset
//! ([`super::send::write_updates`]); [`super::displays::dress_skins`]
//! gives it its head and slice. From then on the fallback is for viewers
//! without the pack only ([`DisplayAudience::WithoutPack`]), and the culling
//! cells keep the two audiences apart.

use valence::entity::display::Translation;
use valence::entity::display::{InterpolationDuration, LeftRotation, RightRotation, Scale};
use valence::prelude::*;

use super::active::*;
use super::displays::*;
use crate::format::node::Participant;
use crate::server::events::{BoneDrawn, DisplayAudience};
use crate::server::resource_pack::PackStatus;
use crate::server::skin::PackSlices;

/// Where a twin goes: its fallback's place and layer.
type FallbackQuery<'w, 's> = Query<'w, 's, (&'static Position, &'static EntityLayerId)>;

/// Gives every playback with skin-bound nodes its twins, once a pack is
/// served and a player has loaded it (see the module docs). A playback
/// whose displays are not spawned yet is done on a later tick.
pub(super) fn add_pack_twins(
    mut commands: Commands,
    slices: Option<Res<PackSlices>>,
    viewers: Query<&PackStatus>,
    mut playbacks: Query<(Entity, &mut ActiveEmote)>,
    fallbacks: FallbackQuery,
) {
    if slices.is_none() || !viewers.iter().any(|status| status.is_loaded()) {
        return;
    }
    for (owner, mut playback) in &mut playbacks {
        if playback.skins.is_empty() || !playback.pack_twins.is_empty() {
            continue;
        }
        let playback = &mut *playback;
        let all_spawned = playback.skins.iter().all(|skin| {
            matches!(playback.displays.get(skin.union), Some(Some(e)) if fallbacks.contains(*e))
        });
        if !all_spawned {
            continue;
        }
        let mut twins = vec![None; playback.displays.len()];
        for skin in &playback.skins {
            let Some(Some(fallback)) = playback.displays.get(skin.union).copied() else {
                continue;
            };
            let Ok((position, layer)) = fallbacks.get(fallback) else {
                continue;
            };
            let Some(kind) = playback.state.union.kinds.get(skin.union) else {
                continue;
            };
            let Some(entity) = spawn_display(
                &mut commands,
                kind,
                layer.0,
                position.0,
                owner,
                DisplayRole::PackPart,
            ) else {
                continue;
            };
            // The node's pose as last sent (this tick's updates are in):
            // a node never sent yet stays at scale 0 until its first update.
            if let Some(Some(pose)) = playback.state.last_sent.get(skin.union) {
                commands.entity(entity).insert((
                    Translation(pose.translation),
                    LeftRotation(pose.left_rotation),
                    Scale(pose.scale),
                    RightRotation(pose.right_rotation),
                    InterpolationDuration(0),
                ));
            }
            commands
                .entity(fallback)
                .insert(DisplayAudience::WithoutPack);
            if playback.bone_drawn && skin.participant == Participant::Initiator {
                commands.entity(entity).insert(BoneDrawn);
            }
            twins[skin.union] = Some(PackTwin {
                entity,
                offset_blocks: 0.0,
            });
        }
        playback.pack_twins = twins;
        playback.skins_dressed = None;
    }
}
