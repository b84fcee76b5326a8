//! Plugin messages and players as a bot saw them, for the channel tests:
//! bytes as hex, the messages on one channel, a player's UUID, the
//! skin-bound displays.

use super::{BotRun, Event};

/// `bytes` as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex back to bytes.
pub fn unhex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// Every plugin message `run`'s bot got on `channel`, in order.
pub fn messages(run: &BotRun, channel: &str) -> Vec<Vec<u8>> {
    run.events
        .iter()
        .filter_map(|e| match e {
            Event::PluginMessage {
                channel: c, hex, ..
            } if c == channel => Some(unhex(hex)),
            _ => None,
        })
        .collect()
}

/// Every plugin message `run`'s bot got on `channel`, with the Unix
/// milliseconds it came at, in order.
pub fn timed_messages(run: &BotRun, channel: &str) -> Vec<(u64, Vec<u8>)> {
    run.events
        .iter()
        .filter_map(|e| match e {
            Event::PluginMessage { t, channel: c, hex } if c == channel => {
                Some((run.unix_ms(*t), unhex(hex)))
            }
            _ => None,
        })
        .collect()
}

/// The UUID (hex, no dashes) of the player `name` as `run`'s bot saw them spawn.
pub fn uuid_seen_by(run: &BotRun, name: &str) -> String {
    run.spawned()
        .iter()
        .find(|s| s.username.as_deref() == Some(name))
        .map(|s| s.uuid.replace('-', ""))
        .unwrap_or_else(|| panic!("{} saw {name}", run.username))
}

/// The ids of the `player_head` item displays (skin-bound parts) `run` saw.
pub fn skin_displays(run: &BotRun) -> Vec<i32> {
    run.spawned_of("item_display")
        .iter()
        .map(|s| s.entity_id)
        .filter(|id| run.merged_fields(*id)["item"]["id"] == "minecraft:player_head")
        .collect()
}
