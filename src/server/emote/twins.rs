//! The pack-drawn twins of skin-bound displays.
//!
//! A skin-bound node is drawn two ways: as the whole head of its
//! participant (the display spawned with the playback, which every viewer
//! sees while nobody can see the other way) and, for viewers whose client
//! loaded emoted's resource pack, as the body part the pack cuts from that
//! head (its twin, a [`PackTwin`]). Twins are added by [`add_pack_twins`]
//! once a pack is served **and** some player has loaded it: a server where
//! nobody has the pack (or a load test) pays nothing for them. From then on
//! the fallback is for viewers without the pack only
//! ([`DisplayAudience::WithoutPack`]), and the culling cells keep the two
//! audiences apart.
//!
//! # Born right
//! The pack's shader reads a twin's slice id k from how far below the
//! camera it is drawn (`512·k` blocks), so a twin must never be drawn
//! between two windows, and never as the bare head it is made of:
//! - A twin whose wearer is online is **born dressed**: its first metadata
//!   already carries the head with its slice's `CustomModelData` and the
//!   node's pose as last sent (not its fallback's, which is turned to face
//!   the rig: the twin's model turns the skull itself) moved down by
//!   `512·k`, with interpolation duration 0. A node never sent yet is born
//!   at scale 0 in its window.
//! - A twin whose wearer is not known yet (a partner not matched) is born
//!   at scale 0 and gets no update until [`super::displays::dress_skins`]
//!   dresses it, which shows it at once (duration 0).
//! - Every later change of k (a new pack, another partner) is a jump with
//!   duration 0; updates within a window are the node's own, moved down
//!   ([`super::send::write_updates`]).
//! - Its brightness is the twin brightness
//!   ([`crate::pack::shader::twin_brightness_packed`], block light 1 and
//!   sky light 15, whatever the file says): the shader moves back and
//!   remaps only geometry that carries it, so bystanders are drawn as
//!   they are. A twin is therefore lit as under open sky (day and night
//!   still apply), never darker in a cave.
//! - Its view range is at most 0.78, whatever the file says
//!   ([`crate::pack::ids::TWIN_MAX_VIEW_RANGE`]), so no client draws it from 256 blocks away or more, where the
//!   shader would read another window.

use valence::entity::display::Translation;
use valence::entity::display::{InterpolationDuration, LeftRotation, RightRotation, Scale};
use valence::prelude::*;

use super::active::*;
use super::displays::*;
use super::duo_state::Duo;
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
    players: WearerQuery,
    config: Res<crate::server::config::Config>,
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
        let partner = playback.duo.as_ref().and_then(Duo::partner);
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
            let dressed = match (
                skin.worn_by(owner, partner)
                    .and_then(|w| Wearer::of(w, &players, &config)),
                slices.as_ref(),
            ) {
                (Some(wearer), Some(slices)) => wearer.twin_head(&skin.slice, slices.table()),
                _ => None,
            };
            let mut twin = PackTwin {
                entity,
                offset_blocks: 0.0,
                dressed: false,
            };
            if let Some((head, id)) = dressed {
                twin.offset_blocks = id.offset_blocks();
                twin.dressed = true;
                // The node's pose as last sent (this tick's updates are in),
                // or scale 0 in its window until its first update.
                let last_sent = playback.state.sent.last(skin.union, 0);
                let moved = twin.placed(last_sent);
                commands.entity(entity).insert((
                    valence::entity::item_display::Item(head),
                    Translation(moved.translation),
                    LeftRotation(moved.left_rotation),
                    Scale(moved.scale),
                    RightRotation(moved.right_rotation),
                    InterpolationDuration(0),
                ));
            }
            commands
                .entity(fallback)
                .insert(DisplayAudience::WithoutPack);
            if playback.bone_drawn && skin.participant == Participant::Initiator {
                commands.entity(entity).insert(BoneDrawn);
            }
            twins[skin.union] = Some(twin);
        }
        playback.pack_twins = twins;
        playback.skins_dressed = None;
    }
}
