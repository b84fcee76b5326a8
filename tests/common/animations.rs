//! Emote files the tests write: the smallest valid Animation that plays
//! for a player, whose timeline events or Molang a test supplies.

use serde_json::{json, Value};

/// A standalone schema 4 Animation with no cooldown, no stop condition and
/// no tracks: one text label over the player's head (text: its id), played
/// in `mode` (`once`, `loop`, `server_sync`...) over `duration_ticks`, with
/// the given `molang` object and timeline `events` array.
pub fn label_animation(
    id: &str,
    mode: &str,
    duration_ticks: u32,
    molang: Value,
    events: Value,
) -> Value {
    json!({
        "type": "animation",
        "schema_version": 4,
        "id": id,
        "metadata": {"name": id, "description": "Written by a test."},
        "settings": {
            "standalone": true,
            "cooldown": "0t",
            "rotation_deadzone": 50,
            "player": {
                "hidden": false,
                "stop_conditions": {
                    "movement_distance": 0,
                    "jump": false,
                    "submerge": false,
                    "ride": false,
                    "damage": false,
                    "attack": false,
                    "game_mode_change": false
                }
            },
            "playback": {"mode": mode, "loop_delay": "0t"}
        },
        "molang": molang,
        "nodes": {
            "label": {
                "type": "text_display",
                "space": "initiator",
                "text": {"text": id},
                "transform": {"position": [0, 2.2, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}
            }
        },
        "timeline": {
            "duration": format!("{duration_ticks}t"),
            "tracks": {},
            "events": {"timeline": events}
        }
    })
}
