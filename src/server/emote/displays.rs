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
use crate::format::node::{Arm, ItemContent, NodeKind, Participant};
use crate::server::events::EmoteDisplay;

pub(super) fn spawn_display(
    commands: &mut Commands,
    kind: &NodeKind,
    layer: Entity,
    root: DVec3,
    owner: Entity,
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
            let bundle = ItemDisplayEntityBundle {
                item_display_item: valence::entity::item_display::Item(stack),
                item_display_item_display: valence::entity::item_display::ItemDisplay(
                    context.protocol_id() as i8,
                ),
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
    // Without `entity_nbt` the bundles' defaults are vanilla's already.
    if common.fields != DisplayFields::default() {
        entity.insert(display_components(&common.fields));
        if matches!(kind, NodeKind::Text { .. }) {
            entity.insert(text_components(&common.fields.text));
        }
    }
    Some(entity.id())
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

/// Dresses skin-bound item displays in their participant's head: a
/// `player_head` whose `SkullOwner` is the participant (name, UUID and, in
/// online mode, the signed skin textures), set when the playback starts and
/// again when a partner matches. Partner-bound nodes keep the file's item
/// until then. How the head is cut into body parts is the resource pack's
/// business (`skin-binding-notes.md`); this picks whose skin it is.
#[allow(clippy::type_complexity)]
pub(super) fn dress_skins(
    mut initiators: Query<(Entity, &mut ActiveEmote)>,
    players: Query<(&Username, &UniqueId, Option<&valence::client::Properties>)>,
    mut items: Query<&mut valence::entity::item_display::Item>,
) {
    for (initiator, mut playback) in &mut initiators {
        if playback.skins.is_empty() {
            continue;
        }
        let partner = playback.duo.as_ref().and_then(Duo::partner);
        if playback.skins_dressed == Some((initiator, partner)) {
            continue;
        }
        playback.skins_dressed = Some((initiator, partner));
        for &(union, participant) in &playback.skins {
            let who = match participant {
                Participant::Initiator => Some(initiator),
                Participant::Partner => partner,
            };
            let Some((name, uuid, properties)) = who.and_then(|w| players.get(w).ok()) else {
                continue;
            };
            let Some(Some(entity)) = playback.displays.get(union).copied() else {
                continue;
            };
            if let Ok(mut item) = items.get_mut(entity) {
                item.0 = player_head(&name.0, uuid.0, properties);
            }
        }
    }
}

/// A `player_head` stack for a player (1.20.1 `SkullOwner`).
pub(super) fn player_head(
    name: &str,
    uuid: Uuid,
    properties: Option<&valence::client::Properties>,
) -> ItemStack {
    let bits = uuid.as_u128();
    let id: Vec<i32> = (0..4)
        .map(|i| (bits >> (96 - 32 * i)) as u32 as i32)
        .collect();
    let mut owner = Compound::new();
    owner.insert("Name", Value::String(name.to_owned()));
    owner.insert("Id", Value::IntArray(id));
    if let Some(textures) = properties.and_then(|p| p.textures()) {
        let mut texture = Compound::new();
        texture.insert("Value", Value::String(textures.value.clone()));
        if let Some(signature) = &textures.signature {
            texture.insert("Signature", Value::String(signature.clone()));
        }
        let mut props = Compound::new();
        props.insert(
            "textures",
            Value::List(valence::nbt::List::Compound(vec![texture])),
        );
        owner.insert("Properties", Value::Compound(props));
    }
    let mut tag = Compound::new();
    tag.insert("SkullOwner", Value::Compound(owner));
    ItemStack::new(ItemKind::PlayerHead, 1, Some(tag))
}
