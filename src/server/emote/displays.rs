//! The display entities of a playback: spawning each node's entity with
//! its fields, the items held in the player's hands, and the player's
//! head on skin-bound parts.

use valence::entity::block_display::BlockDisplayEntityBundle;
use valence::entity::display::{
    Billboard, Brightness, GlowColorOverride, Height, Scale, ShadowRadius, ShadowStrength,
    ViewRange, Width,
};
use valence::entity::entity::Flags;
use valence::entity::item_display::ItemDisplayEntityBundle;
use valence::entity::text_display::{
    Background, LineWidth, TextDisplayEntityBundle, TextDisplayFlags, TextOpacity,
};
use valence::inventory::HeldItem;
use valence::math::Vec3;
use valence::nbt::{Compound, Value};
use valence::prelude::*;

use super::active::*;
use super::advance::*;
use super::duo_state::*;
use crate::format::display_fields::{DisplayFields, TextFields};
use crate::format::node::{Arm, ItemContent, ItemDisplayContext, NodeKind};
use crate::pack::ids::TWIN_MAX_VIEW_RANGE;
use crate::pack::models::SLICE_DISPLAY_MODE;
use crate::pack::profile::SkinProfile;
use crate::pack::shader::twin_brightness_packed;
use crate::pack::skin_uv::Slice;
use crate::server::events::{DisplayAudience, EmoteDisplay};
use crate::server::skin::{skin_of, PackSlices, PlayerSkin};

/// How a display entity is drawn: as the file says, or as the pack-drawn
/// part of a skin-bound node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DisplayRole {
    /// As the file says, for the viewers of `audience`.
    AsWritten(DisplayAudience),
    /// A skin-bound node drawn through the resource pack: a `player_head`
    /// in the pack models' display mode ([`SLICE_DISPLAY_MODE`]), billboard
    /// fixed (the shader needs the offset straight down), for viewers who
    /// loaded the pack. Its item is set when it is dressed.
    PackPart,
}

pub(super) fn spawn_display(
    commands: &mut Commands,
    kind: &NodeKind,
    layer: Entity,
    root: DVec3,
    owner: Entity,
    role: DisplayRole,
) -> Option<Entity> {
    let position = Position(root);
    let layer = EntityLayerId(layer);
    // Until the first tick sends the sampled pose, the display is drawn at scale 0.
    let hidden = Scale(Vec3::ZERO);
    let tag = EmoteDisplay { owner };
    let (mut entity, common) = match kind {
        NodeKind::Anchor => return None,
        NodeKind::Item {
            content,
            context,
            common,
            ..
        } => {
            let stack = match content {
                ItemContent::Stack(stack) => stack.clone(),
                // The participant's held item is not followed yet: the node shows nothing.
                ItemContent::ParticipantHand(_) => ItemStack::new(ItemKind::Air, 1, None),
            };
            let context_id = match role {
                DisplayRole::PackPart => pack_part_context_id(),
                DisplayRole::AsWritten(_) => context.protocol_id() as i8,
            };
            let bundle = ItemDisplayEntityBundle {
                item_display_item: valence::entity::item_display::Item(stack),
                item_display_item_display: valence::entity::item_display::ItemDisplay(context_id),
                ..Default::default()
            };
            (commands.spawn(bundle), common)
        }
        NodeKind::Block { state, common } => {
            let bundle = BlockDisplayEntityBundle {
                block_display_block_state: valence::entity::block_display::BlockState(*state),
                ..Default::default()
            };
            (commands.spawn(bundle), common)
        }
        NodeKind::Text { text, common } => {
            let bundle = TextDisplayEntityBundle {
                text_display_text: valence::entity::text_display::Text(text.clone()),
                ..Default::default()
            };
            (commands.spawn(bundle), common)
        }
    };
    // Every kind is placed, hidden and tagged alike (replacing the bundle's
    // default layer, position and scale).
    entity.insert((layer, position, hidden, tag));
    let audience = match role {
        DisplayRole::AsWritten(audience) => audience,
        DisplayRole::PackPart => DisplayAudience::WithPack,
    };
    if audience != DisplayAudience::Everyone {
        entity.insert(audience);
    }
    // Without `entity_nbt` the bundles' defaults are vanilla's already.
    if common.fields != DisplayFields::default() {
        entity.insert(display_components(&common.fields));
        if matches!(kind, NodeKind::Text { .. }) {
            entity.insert(text_components(&common.fields.text));
        }
    }
    if role == DisplayRole::PackPart {
        // The shader needs the offset straight down, the slice's window
        // must hold wherever a client can draw it from, and the twin
        // brightness is how the shader tells a twin from a bystander
        // (it replaces the file's brightness: see `pack::shader`).
        entity.insert((
            Billboard(0),
            ViewRange(common.fields.view_range.min(TWIN_MAX_VIEW_RANGE)),
            Brightness(twin_brightness_packed()),
        ));
    }
    Some(entity.id())
}

/// The protocol id of [`SLICE_DISPLAY_MODE`], the mode the pack's slice
/// models define their transform for.
fn pack_part_context_id() -> i8 {
    ItemDisplayContext::ALL
        .iter()
        .find(|(name, _)| *name == SLICE_DISPLAY_MODE)
        .map_or(0, |(_, context)| context.protocol_id() as i8)
}

/// The entity components of a node's display fields (decoded from its
/// `entity_nbt` by `format`).
pub(super) fn display_components(fields: &DisplayFields) -> impl Bundle {
    (
        Billboard(fields.billboard.protocol_id()),
        Brightness(fields.protocol_brightness()),
        ViewRange(fields.view_range),
        ShadowRadius(fields.shadow_radius),
        ShadowStrength(fields.shadow_strength),
        Width(fields.width),
        Height(fields.height),
        GlowColorOverride(fields.glow_color_override),
        Flags(if fields.glowing { 0x40 } else { 0 }),
    )
}

/// The entity components of a text display's own fields.
pub(super) fn text_components(text: &TextFields) -> impl Bundle {
    (
        LineWidth(text.line_width),
        Background(text.background_argb),
        TextOpacity(text.text_opacity),
        TextDisplayFlags(text.protocol_flags()),
    )
}

/// Shows in each `participant_hand` display the item its participant holds
/// now (right arm: the selected hotbar slot; left arm: the off hand), and
/// follows it when it changes.
#[allow(clippy::type_complexity)]
pub(super) fn follow_held_items(
    mut initiators: Query<(&mut ActiveEmote, &Inventory, &HeldItem)>,
    others: Query<(&Inventory, &HeldItem), Without<ActiveEmote>>,
    mut items: Query<&mut valence::entity::item_display::Item>,
) {
    for (mut playback, inventory, held) in &mut initiators {
        let playback = &mut *playback;
        let partner = playback
            .duo
            .as_ref()
            .and_then(Duo::partner)
            .and_then(|p| others.get(p).ok());
        for hand in &mut playback.hands {
            let (inventory, held) = match (hand.partner, partner) {
                (true, Some(p)) => p,
                _ => (inventory, held),
            };
            let slot = match hand.arm {
                Arm::Right => held.slot(),
                Arm::Left => OFF_HAND_SLOT,
            };
            // The player inventory has 46 slots; `slot` panics past them.
            if slot >= inventory.slot_count() {
                continue;
            }
            let stack = inventory
                .slot(slot)
                .cloned()
                .unwrap_or_else(|| ItemStack::new(ItemKind::Air, 1, None));
            if hand.shown.as_ref() == Some(&stack) {
                continue;
            }
            let Some(entity) = playback.displays.get(hand.union).copied().flatten() else {
                continue;
            };
            if let Ok(mut item) = items.get_mut(entity) {
                item.0 = stack.clone();
                hand.shown = Some(stack);
            }
        }
    }
}

/// The players whose skins the heads wear: name, UUID, worn skin and
/// login properties.
pub(super) type WearerQuery<'w, 's> = Query<
    'w,
    's,
    (
        &'static Username,
        &'static UniqueId,
        Option<&'static PlayerSkin>,
        Option<&'static valence::client::Properties>,
    ),
>;

/// Who a skin-bound display wears: name, UUID and skin.
pub(super) struct Wearer {
    name: String,
    uuid: Uuid,
    profile: SkinProfile,
}

impl Wearer {
    /// `player` as their heads wear them, if they are online. A host app
    /// without `SkinPlugin` gets the skin that plugin would give.
    pub(super) fn of(
        player: Entity,
        players: &WearerQuery,
        config: &crate::server::config::Config,
    ) -> Option<Wearer> {
        let (name, uuid, worn, properties) = players.get(player).ok()?;
        let profile = match worn {
            Some(worn) => worn.0.clone(),
            None => skin_of(uuid.0, properties, &config.skins),
        };
        Some(Wearer {
            name: name.0.clone(),
            uuid: uuid.0,
            profile,
        })
    }

    /// The whole head (the fallback display's item).
    pub(super) fn head(&self) -> ItemStack {
        player_head(&self.name, self.uuid, &self.profile, None)
    }

    /// A pack-drawn twin's item and slice id: the head with the
    /// `CustomModelData` of the slice `slice` needs for this skin (slim or
    /// classic), or of the whole part when the pack has no id for that
    /// slice (the pack lists those at build); `None` when it has neither.
    pub(super) fn twin_head(
        &self,
        slice: &crate::pack::slices::NodeSlice,
        table: &crate::pack::ids::SliceTable,
    ) -> Option<(ItemStack, crate::pack::ids::SliceId)> {
        let wanted = slice.slice(self.profile.slim);
        let id = table
            .id(wanted)
            .or_else(|| table.id(Slice::full(wanted.part(), wanted.slim())))?;
        let item = player_head(
            &self.name,
            self.uuid,
            &self.profile,
            Some(id.custom_model_data()),
        );
        Some((item, id))
    }
}

/// Dresses skin-bound item displays in their participant's skin, when the
/// playback starts, when a partner matches and when a new pack is served.
///
/// - The fallback (every viewer when no pack is served, else those without
///   it) is a `player_head` whose `SkullOwner` is the participant: name,
///   UUID and the textures of their [`PlayerSkin`].
/// - The pack-drawn twin is the same head with the `CustomModelData` of its
///   slice id k ([`Wearer::twin_head`]), moved `512·k` blocks down. A twin
///   is born dressed when its wearer is known ([`super::twins`]); one that
///   was not (a partner not matched yet) stays at scale 0 until it is
///   dressed here, and is then shown at once. Whenever k changes (a new
///   pack, another partner) the twin jumps to its new offset with
///   interpolation duration 0: interpolated, the client would draw it
///   cycling through the other slices' windows, far from the body.
///
/// Partner-bound nodes keep the file's item until the partner matches.
#[allow(clippy::type_complexity)]
pub(super) fn dress_skins(
    mut initiators: Query<(Entity, &mut ActiveEmote)>,
    players: WearerQuery,
    slices: Option<Res<PackSlices>>,
    config: Res<crate::server::config::Config>,
    mut items: Query<&mut valence::entity::item_display::Item>,
    mut displays: super::send::DisplayQuery,
) {
    let new_pack = slices.as_ref().is_some_and(|s| s.is_changed());
    for (initiator, mut playback) in &mut initiators {
        if playback.skins.is_empty() {
            continue;
        }
        let partner = playback.duo.as_ref().and_then(Duo::partner);
        if playback.skins_dressed == Some((initiator, partner)) && !new_pack {
            continue;
        }
        let playback = &mut *playback;
        // Dressed once every display was found (they are spawned through
        // commands, so a display may appear a tick after its playback).
        let mut complete = true;
        for skin in &playback.skins {
            let wearer = skin
                .worn_by(initiator, partner)
                .and_then(|w| Wearer::of(w, &players, &config));
            let Some(wearer) = wearer else {
                continue;
            };
            if let Some(Some(entity)) = playback.displays.get(skin.union).copied() {
                match items.get_mut(entity) {
                    Ok(mut item) => item.0 = wearer.head(),
                    Err(_) => complete = false,
                }
            }
            let (Some(twin), Some(slices)) = (
                playback
                    .pack_twins
                    .get_mut(skin.union)
                    .and_then(Option::as_mut),
                slices.as_ref(),
            ) else {
                continue;
            };
            let Some((head, id)) = wearer.twin_head(&skin.slice, slices.table()) else {
                continue;
            };
            let Ok(mut item) = items.get_mut(twin.entity) else {
                complete = false;
                continue;
            };
            item.0 = head;
            let offset_blocks = id.offset_blocks();
            if offset_blocks != twin.offset_blocks || !twin.dressed {
                twin.offset_blocks = offset_blocks;
                twin.dressed = true;
                // Shown (or moved to its new window) at once, as a twin is
                // born (`PackTwin::placed`), never interpolated.
                let last_sent = playback.state.sent.last(skin.union, 0);
                let moved = twin.placed(last_sent);
                super::send::write_transform(&mut displays, twin.entity, &moved, 0);
            }
        }
        if complete {
            playback.skins_dressed = Some((initiator, partner));
        }
    }
}

/// A `player_head` stack wearing `profile` (1.20.1 `SkullOwner`), with
/// `CustomModelData` when given.
pub(super) fn player_head(
    name: &str,
    uuid: Uuid,
    profile: &SkinProfile,
    custom_model_data: Option<i32>,
) -> ItemStack {
    let bits = uuid.as_u128();
    let id: Vec<i32> = (0..4)
        .map(|i| (bits >> (96 - 32 * i)) as u32 as i32)
        .collect();
    let mut owner = Compound::new();
    owner.insert("Name", Value::String(name.to_owned()));
    owner.insert("Id", Value::IntArray(id));
    let mut texture = Compound::new();
    texture.insert("Value", Value::String(profile.textures_value.clone()));
    if let Some(signature) = &profile.signature {
        texture.insert("Signature", Value::String(signature.clone()));
    }
    let mut props = Compound::new();
    props.insert(
        "textures",
        Value::List(valence::nbt::List::Compound(vec![texture])),
    );
    owner.insert("Properties", Value::Compound(props));
    let mut tag = Compound::new();
    tag.insert("SkullOwner", Value::Compound(owner));
    if let Some(data) = custom_model_data {
        tag.insert("CustomModelData", Value::Int(data));
    }
    ItemStack::new(ItemKind::PlayerHead, 1, Some(tag))
}
