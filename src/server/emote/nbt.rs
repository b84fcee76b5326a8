//! Writing what a playback's NBT tracks changed
//! ([`crate::playback::session::nbt`]) to its display entities, on the
//! tick the playback advanced (the system runs right after
//! `advance_emotes`): only the fields that changed are written, so a
//! key sends the metadata it changes and nothing else (and a display made
//! to glow by a command keeps glowing until a key changes `Glowing`).
//!
//! A node's content goes back to what it was spawned with when no key of
//! the cycle replaces it. A skin-bound node's pack-drawn twin takes the
//! changed fields its role leaves free (shadow, culling box, glow, and the
//! view range within the twin's cap); its billboard, brightness, item and
//! display context stay the pack's.

use valence::ecs::system::EntityCommands;
use valence::entity::display::{
    Billboard, Brightness, GlowColorOverride, Height, ShadowRadius, ShadowStrength, ViewRange,
    Width,
};
use valence::entity::entity::Flags;
use valence::prelude::*;

use super::active::*;
use super::displays::text_components;
use crate::format::nbt_track::NbtState;
use crate::format::node::{ItemContent, NodeKind};
use crate::pack::ids::TWIN_MAX_VIEW_RANGE;

/// Writes every playback's NBT changes of this tick to its displays (and
/// their twins). A playback that ended this tick has no displays left.
pub(super) fn write_nbt_changes(mut commands: Commands, mut playbacks: Query<&mut ActiveEmote>) {
    for mut playback in &mut playbacks {
        if playback.state.nbt.has_changes() {
            write_changes_of(&mut commands, &mut playback);
        }
    }
}

/// Writes one playback's changes.
fn write_changes_of(commands: &mut Commands, playback: &mut ActiveEmote) {
    let ActiveEmote {
        state,
        displays,
        pack_twins,
        ..
    } = playback;
    for change in state.nbt.take_changes() {
        let Some(kind) = state.union.kinds.get(change.union) else {
            continue;
        };
        let targets = [
            (displays.get(change.union).copied().flatten(), false),
            (
                pack_twins
                    .get(change.union)
                    .and_then(Option::as_ref)
                    .map(|twin| twin.entity),
                true,
            ),
        ];
        for (entity, twin) in targets {
            if let Some(mut entity) = entity.and_then(|e| commands.get_entity(e)) {
                write_changed(&mut entity, kind, &change.before, &change.after, twin);
            }
        }
    }
}

/// Inserts the components of the fields that differ between `before` and
/// `after` on a display drawing `kind` (`twin`: its pack-drawn twin).
fn write_changed(
    entity: &mut EntityCommands<'_, '_, '_>,
    kind: &NodeKind,
    before: &NbtState,
    after: &NbtState,
    twin: bool,
) {
    let (b, a) = (&before.fields, &after.fields);
    if b.view_range != a.view_range {
        let view_range = if twin {
            a.view_range.min(TWIN_MAX_VIEW_RANGE)
        } else {
            a.view_range
        };
        entity.insert(ViewRange(view_range));
    }
    if b.shadow_radius != a.shadow_radius {
        entity.insert(ShadowRadius(a.shadow_radius));
    }
    if b.shadow_strength != a.shadow_strength {
        entity.insert(ShadowStrength(a.shadow_strength));
    }
    if b.width != a.width {
        entity.insert(Width(a.width));
    }
    if b.height != a.height {
        entity.insert(Height(a.height));
    }
    if b.glow_color_override != a.glow_color_override {
        entity.insert(GlowColorOverride(a.glow_color_override));
    }
    if b.glowing != a.glowing {
        entity.insert(Flags(if a.glowing { 0x40 } else { 0 }));
    }
    if twin {
        return;
    }
    if b.billboard != a.billboard {
        entity.insert(Billboard(a.billboard.protocol_id()));
    }
    if b.brightness != a.brightness {
        entity.insert(Brightness(a.protocol_brightness()));
    }
    match kind {
        NodeKind::Anchor => {}
        NodeKind::Item {
            content, context, ..
        } => {
            if before.item != after.item {
                // Validation keeps keys from changing a held item or a
                // skin's head: only a fixed stack is replaced.
                if let ItemContent::Stack(own) = content {
                    let stack = after.item.clone().unwrap_or_else(|| own.clone());
                    entity.insert(valence::entity::item_display::Item(stack));
                }
            }
            if before.item_display != after.item_display {
                let context = after.item_display.unwrap_or(*context);
                entity.insert(valence::entity::item_display::ItemDisplay(
                    context.protocol_id() as i8,
                ));
            }
        }
        NodeKind::Block { state, .. } => {
            if before.block_state != after.block_state {
                let state = after.block_state.unwrap_or(*state);
                entity.insert(valence::entity::block_display::BlockState(state));
            }
        }
        NodeKind::Text { text, .. } => {
            if b.text != a.text {
                entity.insert(text_components(&a.text));
            }
            if before.text != after.text {
                let text = after.text.clone().unwrap_or_else(|| text.clone());
                entity.insert(valence::entity::text_display::Text(text));
            }
        }
    }
}
