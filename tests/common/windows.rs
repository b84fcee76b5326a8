//! Windows as the test client saw them (`window_open`, `window_items`,
//! `window_slot`, `window_close` events), plans that click them, and the
//! emote wheel's layout as a player reads it.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{json, Value};

use super::{BotRun, Event, Plan};

/// The emote wheel's window id.
pub const WHEEL_WINDOW: u8 = 117;
/// Slots of the wheel's own part (a 9×5 chest); the player's 36 follow.
pub const WHEEL_SLOTS: usize = 45;

/// A window the server opened.
#[derive(Debug, Clone, Deserialize)]
pub struct WindowOpen {
    pub t: u64,
    pub window_id: u8,
    /// The window type's registry id (generic_9x5 is 4).
    pub type_id: i64,
    pub title: Option<String>,
    pub json: Value,
}

/// One slot's stack, as a player reads it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WindowStack {
    /// `minecraft:...`.
    pub id: Option<String>,
    pub count: i64,
    /// The display name, plain.
    pub name: Option<String>,
    /// The lore lines, plain.
    pub lore: Vec<Option<String>>,
    /// An enchantment glint.
    pub glint: bool,
}

impl WindowStack {
    /// The lore as one string.
    pub fn lore_text(&self) -> String {
        self.lore
            .iter()
            .flatten()
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A whole window's contents.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "RawWindowItems")]
pub struct WindowItems {
    pub t: u64,
    pub window_id: u8,
    pub state_id: i64,
    pub slot_count: usize,
    /// The slots that hold something, by index.
    pub slots: BTreeMap<usize, WindowStack>,
    /// The cursor.
    pub carried: Option<WindowStack>,
}

/// `window_items` as bot.js prints it: the slots keyed by their index as
/// JSON text.
#[derive(Deserialize)]
struct RawWindowItems {
    t: u64,
    window_id: u8,
    state_id: i64,
    slot_count: usize,
    slots: BTreeMap<String, WindowStack>,
    carried: Option<WindowStack>,
}

impl From<RawWindowItems> for WindowItems {
    fn from(raw: RawWindowItems) -> Self {
        WindowItems {
            t: raw.t,
            window_id: raw.window_id,
            state_id: raw.state_id,
            slot_count: raw.slot_count,
            slots: raw
                .slots
                .into_iter()
                .map(|(k, v)| (k.parse().expect("bot.js keys slots by number"), v))
                .collect(),
            carried: raw.carried,
        }
    }
}

impl WindowItems {
    /// The stack in `slot`.
    pub fn slot(&self, slot: usize) -> Option<&WindowStack> {
        self.slots.get(&slot)
    }

    /// The player's part (the slots after the window's own `own` slots),
    /// by player inventory slot (9–44).
    pub fn player_part(&self, own: usize) -> BTreeMap<usize, WindowStack> {
        self.slots
            .iter()
            .filter(|(i, _)| **i >= own)
            .map(|(i, s)| (i - own + 9, s.clone()))
            .collect()
    }

    /// The stack whose name contains `name`, and its slot.
    pub fn named(&self, name: &str) -> Option<(usize, &WindowStack)> {
        self.slots
            .iter()
            .find(|(_, s)| s.name.as_deref().is_some_and(|n| n.contains(name)))
            .map(|(i, s)| (*i, s))
    }
}

/// One slot of a window.
#[derive(Debug, Clone, Deserialize)]
pub struct WindowSlot {
    pub t: u64,
    pub window_id: i64,
    pub state_id: i64,
    pub slot: i64,
    pub item: Option<WindowStack>,
}

impl BotRun {
    /// Every window the server opened.
    pub fn windows_opened(&self) -> Vec<&WindowOpen> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::WindowOpen(w) => Some(w),
                _ => None,
            })
            .collect()
    }

    /// Every `window_items` of window `id`, in order.
    pub fn window_items(&self, id: u8) -> Vec<&WindowItems> {
        window_items_in(&self.events, id)
    }

    /// How many times the server closed a window.
    pub fn windows_closed(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::WindowClose { .. }))
            .count()
    }

    /// Every `set_slot` the bot received.
    pub fn window_slots(&self) -> Vec<&WindowSlot> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::WindowSlot(w) => Some(w),
                _ => None,
            })
            .collect()
    }
}

/// The `window_items` of window `id` among `events`.
pub fn window_items_in(events: &[Event], id: u8) -> Vec<&WindowItems> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::WindowItems(w) if w.window_id == id => Some(w),
            _ => None,
        })
        .collect()
}

impl Plan {
    /// Clicks `slot` of the wheel with `mode` and `button`, claiming what a
    /// vanilla client would guess (see bot.js `click_window`).
    pub fn click_wheel(self, slot: i16, button: i8, mode: u8) -> Plan {
        self.step(json!({"click_window": {"slot": slot, "button": button, "mode": mode}}))
    }

    /// Clicks the wheel claiming `changed` slots and a `cursor` stack, as a
    /// client that lies about what a click did.
    pub fn click_wheel_claiming(
        self,
        slot: i16,
        button: i8,
        mode: u8,
        changed: Value,
        cursor: Value,
    ) -> Plan {
        self.step(json!({"click_window": {
            "slot": slot, "button": button, "mode": mode,
            "changed": changed, "cursor": cursor
        }}))
    }

    /// Closes the wheel (Escape).
    pub fn close_wheel(self) -> Plan {
        self.step(json!({"close_window": WHEEL_WINDOW}))
    }

    /// Waits for the next contents of the wheel.
    pub fn wait_wheel_items(self, timeout_ms: u64) -> Plan {
        self.wait_for(
            json!({"event": "window_items", "window_id": WHEEL_WINDOW}),
            1,
            timeout_ms,
        )
    }
}
