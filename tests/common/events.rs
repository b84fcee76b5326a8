//! What the test client printed: its events, parsed.

use std::collections::BTreeMap;
use std::process::ExitStatus;

use serde::Deserialize;
use serde_json::Value;

use super::{PackDownload, PackOffer};

// ------------------------------------------------------------------ events

/// What one bot.js run printed.
#[derive(Debug)]
pub struct BotRun {
    pub username: String,
    pub plan: Value,
    pub status: ExitStatus,
    /// Killed by the Rust side after the plan's timeout plus 15 s.
    pub killed: bool,
    pub events: Vec<Event>,
    /// Lines on stdout that were not events (mineflayer's own prints).
    pub other_output: Vec<String>,
    pub stderr: String,
}

impl BotRun {
    /// Panics (with every event) unless the plan ran to the end.
    pub fn assert_ok(&self) -> &BotRun {
        assert!(
            self.status.success() && matches!(self.events.last(), Some(Event::Done { .. })),
            "bot {} failed ({}{}):\n{}",
            self.username,
            self.status,
            if self.killed {
                ", killed after its timeout"
            } else {
                ""
            },
            self.describe()
        );
        self
    }

    /// Every event, one a line, and stderr: for assertion messages.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for e in &self.events {
            s.push_str(&format!("{e:?}\n"));
        }
        for l in &self.other_output {
            s.push_str(&format!("(stdout) {l}\n"));
        }
        if !self.stderr.is_empty() {
            s.push_str(&format!("(stderr) {}\n", self.stderr));
        }
        s
    }

    /// The failure message, if the plan failed.
    pub fn failure(&self) -> Option<&str> {
        self.events.iter().find_map(|e| match e {
            Event::Fail { message, .. } => Some(message.as_str()),
            _ => None,
        })
    }

    /// Events emitted after step `index` started and before the next step.
    pub fn during_step(&self, index: usize) -> &[Event] {
        let start = self
            .events
            .iter()
            .position(|e| matches!(e, Event::Step { index: i, .. } if *i == index))
            .map(|p| p + 1)
            .unwrap_or(self.events.len());
        let end = self.events[start..]
            .iter()
            .position(|e| matches!(e, Event::Step { .. }))
            .map(|p| start + p)
            .unwrap_or(self.events.len());
        &self.events[start..end]
    }

    /// Events emitted from step `index` on.
    pub fn since_step(&self, index: usize) -> &[Event] {
        let start = self
            .events
            .iter()
            .position(|e| matches!(e, Event::Step { index: i, .. } if *i == index))
            .unwrap_or(self.events.len());
        &self.events[start..]
    }

    pub fn login(&self) -> Option<&Login> {
        self.events.iter().find_map(|e| match e {
            Event::Login(l) => Some(l),
            _ => None,
        })
    }

    /// The `spawn` event from `wait_spawn`.
    pub fn spawn(&self) -> Option<&Spawn> {
        self.events.iter().find_map(|e| match e {
            Event::Spawn(s) => Some(s),
            _ => None,
        })
    }

    pub fn blocks(&self) -> Vec<&Block> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Block(b) => Some(b),
                _ => None,
            })
            .collect()
    }

    /// Chat box lines (system and player chat), as plain text.
    pub fn chat(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Chat { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The data of every recorded packet called `name` (see
    /// `Plan::record_packets`), in order.
    pub fn packets_named(&self, name: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Packet { name: n, data, .. } if n == name => Some(data),
                _ => None,
            })
            .collect()
    }

    /// The bytes received of each packet named in `names` (see
    /// `Plan::count_bytes`), added up; panics without a count.
    pub fn bytes_of(&self, names: &[&str]) -> u64 {
        let by_name = self
            .events
            .iter()
            .find_map(|e| match e {
                Event::PacketBytes { by_name, .. } => Some(by_name),
                _ => None,
            })
            .expect("a packet_bytes line (Plan::count_bytes)");
        names.iter().filter_map(|n| by_name.get(*n)).sum()
    }

    /// Chat box lines that contain `fragment`, with the `t` each arrived at.
    pub fn chat_containing(&self, fragment: &str) -> Vec<(u64, &str)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Chat { t, text, .. } if text.contains(fragment) => Some((*t, text.as_str())),
                _ => None,
            })
            .collect()
    }

    /// Action bar texts.
    pub fn action_bar(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ActionBar { text, .. } => text.as_deref(),
                _ => None,
            })
            .collect()
    }

    /// Every entity spawn (players included).
    pub fn spawned(&self) -> Vec<&SpawnEntity> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::SpawnEntity(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    /// Entity spawns of one type ("item_display", "player", ...).
    /// Ids of every display entity (item, block, text) this bot saw spawn.
    pub fn display_ids(&self) -> Vec<i32> {
        self.spawned()
            .iter()
            .filter(|s| {
                s.entity_type
                    .as_deref()
                    .is_some_and(|t| t.ends_with("_display"))
            })
            .map(|s| s.entity_id)
            .collect()
    }

    pub fn spawned_of(&self, entity_type: &str) -> Vec<&SpawnEntity> {
        self.spawned()
            .into_iter()
            .filter(|s| s.entity_type.as_deref() == Some(entity_type))
            .collect()
    }

    /// Every metadata packet for one entity, in order.
    pub fn metadata_of(&self, entity_id: i32) -> Vec<&EntityMetadata> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::EntityMetadata(m) if m.entity_id == entity_id => Some(m),
                _ => None,
            })
            .collect()
    }

    /// The entity's metadata fields merged in arrival order (the client's
    /// view of the entity at the end of the run).
    pub fn merged_fields(&self, entity_id: i32) -> BTreeMap<String, Value> {
        let mut out = BTreeMap::new();
        for m in self.metadata_of(entity_id) {
            for (k, v) in &m.fields {
                out.insert(k.clone(), v.clone());
            }
        }
        out
    }

    /// Every entity id destroyed.
    pub fn destroyed(&self) -> Vec<i32> {
        self.events
            .iter()
            .flat_map(|e| match e {
                Event::EntityDestroy { entity_ids, .. } => entity_ids.clone(),
                _ => Vec::new(),
            })
            .collect()
    }

    pub fn tab_completes(&self) -> Vec<&TabComplete> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::TabComplete(t) => Some(t),
                _ => None,
            })
            .collect()
    }

    /// The wall clock (Unix milliseconds) at this run's `t` = 0.
    pub fn clock_unix_ms(&self) -> Option<u64> {
        self.events.iter().find_map(|e| match e {
            Event::Clock { unix_ms, .. } => Some(*unix_ms),
            _ => None,
        })
    }

    /// This run's `t` as Unix milliseconds (needs the clock line).
    pub fn unix_ms(&self, t: u64) -> u64 {
        self.clock_unix_ms().expect("a clock line") + t
    }

    /// The Unix milliseconds each step of the plan started at, by index.
    pub fn step_unix_ms(&self) -> Vec<u64> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Step { t, .. } => Some(self.unix_ms(*t)),
                _ => None,
            })
            .collect()
    }

    pub fn kicked(&self) -> Option<&str> {
        self.events.iter().find_map(|e| match e {
            Event::Kicked { reason, .. } => Some(reason.as_deref().unwrap_or("")),
            _ => None,
        })
    }
}

/// One JSON line from bot.js. Every event also has `t`, milliseconds since
/// bot.js started. Events a newer bot.js adds come out as `Unknown`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The first line: the wall clock (Unix milliseconds) at `t` = 0.
    Clock {
        t: u64,
        unix_ms: u64,
    },
    /// A step is starting.
    Step {
        t: u64,
        index: usize,
        step: Value,
    },
    /// The login (join game) packet.
    Login(Login),
    /// A server position packet (teleport), as received.
    Teleport {
        t: u64,
        x: f64,
        y: f64,
        z: f64,
        yaw: f64,
        pitch: f64,
        flags: i64,
        teleport_id: i64,
    },
    /// `wait_spawn` finished: the bot is in the world.
    Spawn(Spawn),
    Health {
        t: u64,
        health: f64,
        food: i64,
        saturation: f64,
    },
    /// Game mode changed (game_state_change).
    GameMode {
        t: u64,
        game_mode: Option<String>,
        game_mode_id: f64,
    },
    /// A chat box line; kind is "system" or "chat".
    Chat {
        t: u64,
        kind: String,
        text: String,
        json: Value,
    },
    ActionBar {
        t: u64,
        text: Option<String>,
        json: Value,
    },
    Title {
        t: u64,
        text: Option<String>,
        json: Value,
    },
    Subtitle {
        t: u64,
        text: Option<String>,
        json: Value,
    },
    SpawnEntity(SpawnEntity),
    EntityMetadata(EntityMetadata),
    EntityDestroy {
        t: u64,
        entity_ids: Vec<i32>,
    },
    /// entity_teleport, rel_entity_move, entity_move_look or entity_look,
    /// with the absolute position and look the client now has.
    EntityMove {
        t: u64,
        packet: String,
        entity_id: i32,
        #[serde(rename = "type")]
        entity_type: Option<String>,
        x: Option<f64>,
        y: Option<f64>,
        z: Option<f64>,
        yaw: Option<f64>,
        pitch: Option<f64>,
    },
    EntityHeadRotation {
        t: u64,
        entity_id: i32,
        head_yaw: f64,
    },
    SetPassengers {
        t: u64,
        entity_id: i32,
        passengers: Vec<i32>,
    },
    /// The command tree as paths: "emote play <id>"; a redirect is "e -> emote".
    CommandTree {
        t: u64,
        paths: Vec<String>,
    },
    /// The bytes received by packet name (the plan's count_bytes).
    PacketBytes {
        t: u64,
        by_name: std::collections::BTreeMap<String, u64>,
    },
    /// A packet named in the plan's record_packets.
    Packet {
        t: u64,
        name: String,
        data: Value,
    },
    TabComplete(TabComplete),
    Block(Block),
    BotPosition(BotPosition),
    Kicked {
        t: u64,
        reason: Option<String>,
        json: Value,
        logged_in: bool,
    },
    /// The server offered a resource pack (see tests/common/pack.rs).
    ResourcePack(PackOffer),
    /// The plan's `"resource_pack": "accept"` downloaded the offered pack.
    ResourcePackDownload(PackDownload),
    /// The client answered an offer: "accepted", "loaded", "declined",
    /// "failed_download".
    ResourcePackAnswer {
        t: u64,
        result: String,
    },
    Error {
        t: u64,
        message: String,
    },
    /// The connection ended.
    End {
        t: u64,
        reason: Option<String>,
    },
    /// The plan ran to the end (always the last line then).
    Done {
        t: u64,
    },
    /// The plan failed (always the last line then).
    Fail {
        t: u64,
        message: String,
    },
    /// The server opened a window (open_window).
    WindowOpen(super::WindowOpen),
    /// A whole window's contents (window_items).
    WindowItems(super::WindowItems),
    /// One slot of a window (set_slot).
    WindowSlot(super::WindowSlot),
    /// A plugin message from the server (custom_payload), its bytes as hex.
    PluginMessage {
        t: u64,
        channel: String,
        hex: String,
    },
    /// The server closed the window (close_window).
    WindowClose {
        t: u64,
        window_id: u8,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Login {
    pub t: u64,
    pub entity_id: i32,
    pub game_mode: Option<String>,
    pub game_mode_id: i64,
    pub dimension: String,
    pub world_name: String,
    pub view_distance: i64,
    pub is_flat: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Spawn {
    pub t: u64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub yaw: f64,
    pub pitch: f64,
    pub on_ground: bool,
    pub entity_id: Option<i32>,
    pub game_mode: Option<String>,
    /// From update_health; None if the server sent none yet.
    pub health: Option<f64>,
    /// Whether mineflayer's own 'spawn' event fired (it needs a health update).
    pub mineflayer_spawn: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SpawnEntity {
    pub t: u64,
    /// "spawn_entity" or "named_entity_spawn" (players).
    pub packet: String,
    pub entity_id: i32,
    pub uuid: String,
    /// minecraft-data 1.20.1 name without namespace: "item_display", "player".
    #[serde(rename = "type")]
    pub entity_type: Option<String>,
    pub type_id: i64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// Degrees (sent as 1/256 turns).
    pub yaw: f64,
    pub pitch: f64,
    pub head_yaw: Option<f64>,
    pub data: Option<i64>,
    /// Players: the name from the player list.
    pub username: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct EntityMetadata {
    pub t: u64,
    pub entity_id: i32,
    /// The type from the entity's spawn; None if it was never spawned.
    #[serde(rename = "type")]
    pub entity_type: Option<String>,
    /// The bot's own player entity.
    #[serde(rename = "self")]
    pub is_self: bool,
    pub entries: Vec<MetadataEntry>,
    /// Named entries, decoded: see tests/client/README.md.
    pub fields: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MetadataEntry {
    pub key: u8,
    /// minecraft-data's type name: "vector3", "quaternion", "int", "byte", ...
    #[serde(rename = "type")]
    pub value_type: String,
    pub name: Option<String>,
    /// As decoded by minecraft-protocol.
    pub value: Value,
}

impl EntityMetadata {
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.fields.get(name)
    }
    /// translation, scale: [x, y, z].
    pub fn vec3(&self, name: &str) -> Option<[f64; 3]> {
        let a = self.fields.get(name)?.as_array()?;
        Some([
            a.first()?.as_f64()?,
            a.get(1)?.as_f64()?,
            a.get(2)?.as_f64()?,
        ])
    }
    /// left_rotation, right_rotation: [x, y, z, w].
    pub fn quat(&self, name: &str) -> Option<[f64; 4]> {
        let a = self.fields.get(name)?.as_array()?;
        Some([
            a.first()?.as_f64()?,
            a.get(1)?.as_f64()?,
            a.get(2)?.as_f64()?,
            a.get(3)?.as_f64()?,
        ])
    }
    pub fn int(&self, name: &str) -> Option<i64> {
        self.fields.get(name)?.as_i64()
    }
    pub fn float(&self, name: &str) -> Option<f64> {
        self.fields.get(name)?.as_f64()
    }
    /// text (plain), custom_name.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.fields.get(name)?.as_str()
    }
    /// The item of an item_display: "minecraft:stick".
    pub fn item_id(&self) -> Option<&str> {
        self.fields.get("item")?.get("id")?.as_str()
    }
    /// The block of a block_display: "minecraft:stone".
    pub fn block_name(&self) -> Option<&str> {
        self.fields.get("block_state")?.get("name")?.as_str()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct TabComplete {
    pub t: u64,
    pub text: String,
    pub transaction_id: i64,
    /// No reply within the step's timeout (5 s unless timeout_ms is set).
    pub timed_out: bool,
    pub start: Option<i64>,
    pub length: Option<i64>,
    pub matches: Vec<String>,
    pub tooltips: Vec<Option<String>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Block {
    pub t: u64,
    pub x: i32,
    pub y: i32,
    pub z: i32,
    /// "minecraft:smooth_stone"; None if the chunk is not loaded.
    pub name: Option<String>,
    pub state_id: Option<i64>,
    pub properties: Option<Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BotPosition {
    pub t: u64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub yaw: f64,
    pub pitch: f64,
    pub on_ground: bool,
}
