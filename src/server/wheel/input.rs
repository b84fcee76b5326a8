//! What players do to the wheel: open it with sneak + F, click it, close it.
//!
//! # Clicks
//!
//! | click | over | does |
//! |---|---|---|
//! | left | an emote | plays it (joins a nearby open offer of a two-player Sequence) and closes |
//! | right | an emote | makes it a favourite, or no longer one |
//! | number key 1–8 | an emote | swaps it with the emote in that place of the ring (clockwise from the top), in the player's wheel order |
//! | left or right | the stop button | stops the player's emote and closes |
//! | left or right | an arrow, the star, the book | turns to that page |
//! | anything else | anywhere | nothing |
//!
//! Every click, whatever it was, is answered with the whole window again
//! ([`WheelWindow::resync`]), so nothing leaves the window and nothing
//! stays on the cursor: shift-clicks, number keys, the off-hand key,
//! drags, double-clicks, throws and clicks outside all change nothing.
//!
//! # Sneak + F
//!
//! The swap-hands key sends a player action (valence 0.2.0-alpha.1 does
//! not swap hands for it, so there is nothing to cancel: held items stay
//! where they are). Pressed while the player sneaks, it opens the wheel.
//! Shift and F pressed in the same client tick may reach the server as F
//! first: a start of sneaking up to [`SNEAK_GRACE_TICKS`] after an F also
//! opens it. Inside an open screen F is a click (number-key mode, button
//! 40) and changes nothing.

use std::collections::HashMap;

use valence::entity::entity::Flags;
use valence::event_loop::PacketEvent;
use valence::op_level::OpLevel;
use valence::prelude::*;
use valence::protocol::packets::play::click_slot_c2s::ClickMode;
use valence::protocol::packets::play::player_action_c2s::PlayerAction;
use valence::protocol::packets::play::{ClickSlotC2s, CloseHandledScreenC2s, PlayerActionC2s};

use super::book::{SlotAction, RING_SLOTS, WINDOW_SLOTS};
use super::icons::IconCache;
use super::window::{close, WheelWindow, WHEEL_WINDOW_ID};
use crate::server::config::Config;
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::{EndReason, OpenWheelRequest, PlayEmoteRequest, StopEmoteRequest};
use crate::server::permissions::{PlayerIdentity, PlayerPermissions};
use crate::server::storage::{PlayerChoices, PlayerStoreResource};
use crate::store::OnOffChoice;

/// Ticks after an F during which a start of sneaking still opens the wheel.
pub const SNEAK_GRACE_TICKS: i64 = 2;

/// Opens the wheel for sneak + F (see the module docs).
pub(super) fn open_on_sneak_and_swap(
    mut packets: EventReader<PacketEvent>,
    mut sneaks: EventReader<SneakEvent>,
    players: Query<&Flags, Without<WheelWindow>>,
    server: Res<Server>,
    mut waiting: Local<HashMap<Entity, i64>>,
    mut open: EventWriter<OpenWheelRequest>,
) {
    let now = server.current_tick();
    for packet in packets.iter() {
        let Some(action) = packet.decode::<PlayerActionC2s>() else {
            continue;
        };
        if action.action != PlayerAction::SwapItemWithOffhand {
            continue;
        }
        match players.get(packet.client) {
            Ok(flags) if flags.sneaking() => open.send(OpenWheelRequest {
                client: packet.client,
            }),
            Ok(_) => {
                waiting.insert(packet.client, now);
            }
            Err(_) => {}
        }
    }
    for sneak in sneaks.iter() {
        if sneak.state != SneakState::Start {
            continue;
        }
        if let Some(pressed) = waiting.remove(&sneak.client) {
            if now - pressed <= SNEAK_GRACE_TICKS && players.contains(sneak.client) {
                open.send(OpenWheelRequest {
                    client: sneak.client,
                });
            }
        }
    }
    waiting.retain(|_, pressed| now - *pressed <= SNEAK_GRACE_TICKS);
}

/// The players whose clicks the wheel reads.
type Clickers<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut Client,
        &'static Username,
        &'static UniqueId,
        Option<&'static OpLevel>,
        Option<&'static mut PlayerChoices>,
        &'static Inventory,
        &'static CursorItem,
        Option<&'static mut WheelWindow>,
    ),
>;

/// What a click leaves of the window.
enum After {
    /// Send it again as it is now.
    Resync,
    /// Reopen it (its title changed).
    Reopen,
    /// Close it.
    Close,
}

/// Answers clicks on the wheel and its closing (see the module docs).
#[allow(clippy::too_many_arguments)]
pub(super) fn handle_wheel_clicks(
    mut packets: EventReader<PacketEvent>,
    mut commands: Commands,
    library: Res<EmoteLibrary>,
    config: Res<Config>,
    store: Res<PlayerStoreResource>,
    mut icons: ResMut<IconCache>,
    mut players: Clickers,
    mut play: EventWriter<PlayEmoteRequest>,
    mut stop: EventWriter<StopEmoteRequest>,
) {
    for packet in packets.iter() {
        if let Some(closed) = packet.decode::<CloseHandledScreenC2s>() {
            if closed.window_id as u8 == WHEEL_WINDOW_ID {
                if let Some(mut player) = commands.get_entity(packet.client) {
                    player.remove::<WheelWindow>();
                }
            }
            continue;
        }
        let Some(click) = packet.decode::<ClickSlotC2s>() else {
            continue;
        };
        if click.window_id != WHEEL_WINDOW_ID {
            continue;
        }
        let Ok((mut client, name, uuid, op, choices, inventory, cursor, window)) =
            players.get_mut(packet.client)
        else {
            continue;
        };
        let Some(mut window) = window else {
            // A click on a wheel already closed: the client's view of it
            // no longer matters, and valence has resynced its inventory.
            continue;
        };
        let slot = usize::try_from(click.slot_idx)
            .ok()
            .filter(|&s| s < WINDOW_SLOTS);
        let action = slot.map_or(SlotAction::Nothing, |s| window.book.action(window.page, s));
        let after = match (click.mode, click.button, action) {
            (ClickMode::Click, 0, SlotAction::Emote(index)) => {
                let emote = &window.book.emotes()[index];
                let perms = PlayerPermissions::resolve(
                    &config.permissions,
                    PlayerIdentity {
                        name: &name.0,
                        uuid: uuid.0,
                    },
                    op.map_or(0, |o| o.get()),
                );
                match perms.play_request(packet.client, emote.id.clone(), &library.0) {
                    Ok(request) => play.send(request),
                    Err(denied) => client.send_chat_message(denied.to_string().color(Color::RED)),
                }
                After::Close
            }
            (ClickMode::Click, 1, SlotAction::Emote(index)) => match choices {
                Some(mut choices) => {
                    let id = window.book.emotes()[index].id.clone();
                    let now = choices.toggle_favourite(uuid.0, &id, &store);
                    let page = window.page;
                    window.page = window.book.set_favourite(index, now, page);
                    window.redraw(&mut icons);
                    if window.page == page {
                        After::Resync
                    } else {
                        After::Reopen
                    }
                }
                None => After::Resync,
            },
            (ClickMode::Hotbar, key @ 0..=7, SlotAction::Emote(_)) => {
                let from = slot.and_then(|s| RING_SLOTS.iter().position(|&r| r == s));
                let page = window.page;
                if let (Some(from), Some(mut choices)) = (from, choices) {
                    if window.book.swap_on_page(page, from, key as usize) {
                        let order = window.book.order_to_store(&choices.wheel_order);
                        choices.set_wheel_order(uuid.0, order, &store);
                        window.redraw(&mut icons);
                    }
                }
                After::Resync
            }
            (ClickMode::Click, 0 | 1, SlotAction::Stop) => {
                stop.send(StopEmoteRequest {
                    client: packet.client,
                    reason: EndReason::Stopped,
                });
                After::Close
            }
            (ClickMode::Click, 0 | 1, SlotAction::ToggleCamera) => {
                if let Some(mut choices) = choices {
                    let on = !choices.is_on(OnOffChoice::Camera);
                    choices.set_on(uuid.0, OnOffChoice::Camera, on, &store);
                    window.book.set_camera(Some(on));
                    window.redraw(&mut icons);
                }
                After::Resync
            }
            (ClickMode::Click, 0 | 1, SlotAction::Page(to)) => {
                window.page = to;
                window.redraw(&mut icons);
                After::Reopen
            }
            _ => After::Resync,
        };
        match after {
            After::Resync => window.resync(&mut client, inventory, cursor),
            After::Reopen => window.open(&mut client, inventory, cursor),
            After::Close => {
                // The resync first takes back what the click put on the
                // client's cursor, then the window goes.
                window.resync(&mut client, inventory, cursor);
                close(&mut client);
                commands.entity(packet.client).remove::<WheelWindow>();
            }
        }
    }
}
