//! Plans for the test client (tests/client/bot.js) and running them.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::*;

// ------------------------------------------------------------------ plans

/// A plan for `tests/client/bot.js`: who joins where, and the steps to run.
/// See tests/client/README.md for every step.
#[derive(Clone, Debug)]
pub struct Plan {
    json: Value,
}

impl Plan {
    pub fn new(port: u16, username: &str) -> Plan {
        Plan {
            json: json!({
                "host": "127.0.0.1",
                "port": port,
                "username": username,
                "version": "1.20.1",
                "timeout_ms": 30000,
                "steps": [],
            }),
        }
    }

    /// The plan as JSON.
    pub fn to_json(&self) -> &Value {
        &self.json
    }

    /// Any step, as JSON.
    pub fn step(mut self, step: Value) -> Plan {
        self.json["steps"].as_array_mut().unwrap().push(step);
        self
    }

    /// Connect as a proxy would forward this player (see "proxy forwarding"
    /// in tests/client/bot.js): `{"mode":"bungeecord",...}`,
    /// `{"mode":"velocity",...}` and the variants there.
    pub fn forwarding(mut self, forwarding: Value) -> Plan {
        self.json["forwarding"] = forwarding;
        self
    }

    /// What the client does with an offered resource pack: "ignore" (the
    /// default: never answers), "decline", or "accept" (downloads it, checks
    /// the SHA-1, answers loaded or failed_download, as vanilla does).
    pub fn resource_pack(mut self, mode: &str) -> Plan {
        self.json["resource_pack"] = json!(mode);
        self
    }

    /// The whole plan's timeout (default 30 s).
    pub fn timeout_ms(mut self, ms: u64) -> Plan {
        self.json["timeout_ms"] = json!(ms);
        self
    }

    /// Also emit `{"event":"packet","name":..,"data":..}` for these packets
    /// (minecraft-data 1.20.1 names, e.g. "sound_effect").
    pub fn record_packets(mut self, names: &[&str]) -> Plan {
        self.json["record_packets"] = json!(names);
        self
    }

    /// Also emit, when the plan ends, `{"event":"packet_bytes","by_name":..}`:
    /// the bytes received by packet name (uncompressed, ids included).
    pub fn count_bytes(mut self) -> Plan {
        self.json["count_bytes"] = json!(true);
        self
    }

    /// Prints no entity, block, window or plugin-message events (steps
    /// still wait for them): for crowds of bots in long runs.
    pub fn quiet(mut self) -> Plan {
        self.json["quiet"] = json!(true);
        self
    }

    pub fn wait_spawn(self) -> Plan {
        self.step(json!({"wait_spawn": true}))
    }
    pub fn wait_ms(self, ms: u64) -> Plan {
        self.step(json!({"wait_ms": ms}))
    }
    /// Waits until `count` events match `pattern` (see README), by default
    /// counting from the start of this step.
    pub fn wait_for(self, pattern: Value, count: usize, timeout_ms: u64) -> Plan {
        self.step(json!({"wait_for": pattern, "count": count, "timeout_ms": timeout_ms}))
    }
    /// Like `wait_for`, counting every event since the plan started.
    pub fn wait_for_since_start(self, pattern: Value, count: usize, timeout_ms: u64) -> Plan {
        self.step(json!({"wait_for": pattern, "count": count, "timeout_ms": timeout_ms, "since_start": true}))
    }
    pub fn chat(self, text: &str) -> Plan {
        self.step(json!({"chat": text}))
    }
    pub fn tab_complete(self, text: &str) -> Plan {
        self.step(json!({"tab_complete": text}))
    }
    /// Yaw and pitch in Minecraft degrees (yaw 0 = south/+z, 90 = west/-x;
    /// pitch 90 = straight down).
    pub fn look(self, yaw: f64, pitch: f64) -> Plan {
        self.step(json!({"look": {"yaw": yaw, "pitch": pitch}}))
    }
    /// Walks in a straight line to (x, z) (y is ignored).
    pub fn move_to(self, x: f64, y: f64, z: f64) -> Plan {
        self.step(json!({"move_to": [x, y, z]}))
    }
    /// [`Plan::move_to`], stopping within `tolerance` blocks of (x, z).
    pub fn move_to_within(self, x: f64, y: f64, z: f64, tolerance: f64) -> Plan {
        self.step(json!({"move_to": [x, y, z], "tolerance": tolerance}))
    }
    /// Joins the handshake `initiator` offers nearby: waits for the offer's
    /// chat line, plays `example:handshake`, and waits for the match.
    pub fn join_handshake(self, initiator: &str) -> Plan {
        self.wait_for(
            json!({"event": "chat", "text_contains": "offers Handshake"}),
            1,
            20_000,
        )
        .wait_ms(300)
        .chat("/emote play example:handshake")
        .wait_for(
            json!({"event": "action_bar", "text_contains": format!("Handshake with {initiator}")}),
            1,
            10_000,
        )
    }
    /// Plays emote `id`, waits until its first display reaches the bot,
    /// then stays until the server closes the connection (a stop).
    pub fn play_until_kicked(self, id: &str) -> Plan {
        self.chat(&format!("/emote play {id}"))
            .wait_for(
                json!({"event": "spawn_entity", "type": "item_display"}),
                1,
                10_000,
            )
            .wait_end()
    }
    /// mineflayer controls: forward, back, left, right, jump, sprint, sneak.
    pub fn set_control(self, control: &str, state: bool) -> Plan {
        self.step(json!({"set_control": {control: state}}))
    }
    pub fn clear_controls(self) -> Plan {
        self.step(json!({"clear_controls": true}))
    }
    pub fn swing(self) -> Plan {
        self.step(json!({"swing": "right"}))
    }
    pub fn set_slot(self, slot: u16, item: &str) -> Plan {
        self.step(json!({ "set_slot": {"slot": slot, "item": item} }))
    }
    pub fn attack(self, username: &str) -> Plan {
        self.step(json!({ "attack": username }))
    }
    pub fn swap_hands(self) -> Plan {
        self.step(json!({"swap_hands": true}))
    }
    /// Emits a `block` event for the block at (x, y, z).
    pub fn block_at(self, x: i32, y: i32, z: i32) -> Plan {
        self.step(json!({"block_at": [x, y, z]}))
    }
    /// Emits a `block` event for the block under the bot's feet.
    pub fn block_below(self) -> Plan {
        self.step(json!({"block_at": "below"}))
    }
    /// Emits a `bot_position` event.
    pub fn position(self) -> Plan {
        self.step(json!({"position": true}))
    }
    /// Waits for the server to close the connection (a kick).
    /// Records the bot's own position every `every_ms` from this step on.
    pub fn track_position(self, every_ms: u64) -> Plan {
        self.step(json!({ "track_position": every_ms }))
    }

    pub fn wait_end(self) -> Plan {
        self.step(json!({"wait_end": true}))
    }
    pub fn disconnect(self) -> Plan {
        self.step(json!({"disconnect": true}))
    }
    /// Watches `player`'s emote that hides them, then leaves: waits for
    /// their spawn, for them to be hidden (a destroy) and to come back,
    /// then 300 ms more, and disconnects.
    pub fn watch_hidden_emote_of(self, player: &str) -> Plan {
        self.wait_for_since_start(
            json!({"event": "spawn_entity", "username": player}),
            1,
            30_000,
        )
        .wait_for(json!({"event": "entity_destroy"}), 1, 20_000)
        .wait_for(
            json!({"event": "spawn_entity", "username": player}),
            1,
            20_000,
        )
        .wait_ms(300)
        .disconnect()
    }

    /// Starts the bot and returns at once; `wait()` for its events.
    pub fn spawn(self) -> RunningBot {
        ensure_client_installed();
        let username = self.json["username"].as_str().unwrap_or("bot").to_owned();
        let timeout = Duration::from_millis(self.json["timeout_ms"].as_u64().unwrap_or(30000))
            + Duration::from_secs(15);
        let mut child = Command::new("node")
            .arg(client_dir().join("bot.js"))
            .arg("-")
            .current_dir(crate_root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run `node` (is Node.js installed?)");
        let plan = serde_json::to_vec(&self.json).unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&plan).expect("write the plan to bot.js");
        drop(stdin);
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let out = thread::spawn(move || {
            let mut s = String::new();
            let _ = stdout.read_to_string(&mut s);
            s
        });
        let err = thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        RunningBot {
            child,
            username,
            plan: self.json,
            deadline: Instant::now() + timeout,
            out,
            err,
        }
    }

    /// Runs the bot to the end.
    pub fn run(self) -> BotRun {
        self.spawn().wait()
    }
}

/// Runs several plans at once and returns their runs in the same order.
pub fn run_all(plans: Vec<Plan>) -> Vec<BotRun> {
    let bots: Vec<RunningBot> = plans.into_iter().map(Plan::spawn).collect();
    bots.into_iter().map(RunningBot::wait).collect()
}

/// A bot.js process that is running.
pub struct RunningBot {
    child: Child,
    username: String,
    plan: Value,
    deadline: Instant,
    out: thread::JoinHandle<String>,
    err: thread::JoinHandle<String>,
}

impl RunningBot {
    /// Whether the bot.js process still runs.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the bot to finish (killing it after the plan's timeout
    /// plus 15 s) and parses its events.
    pub fn wait(mut self) -> BotRun {
        let mut killed = false;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for bot.js") {
                break status;
            }
            if Instant::now() > self.deadline {
                let _ = self.child.kill();
                killed = true;
                break self.child.wait().expect("wait for bot.js");
            }
            thread::sleep(Duration::from_millis(20));
        };
        let stdout = self.out.join().unwrap_or_default();
        let stderr = self.err.join().unwrap_or_default();
        let mut events = Vec::new();
        let mut other_output = Vec::new();
        for line in stdout.lines() {
            if line.starts_with('{') {
                if let Ok(value) = serde_json::from_str::<Value>(line) {
                    match serde_json::from_value::<Event>(value.clone()) {
                        Ok(event) => {
                            events.push(event);
                            continue;
                        }
                        Err(e) => {
                            panic!("bot.js printed an event the tests cannot read ({e}): {line}")
                        }
                    }
                }
            }
            other_output.push(line.to_owned());
        }
        BotRun {
            username: self.username,
            plan: self.plan,
            status,
            killed,
            events,
            other_output,
            stderr,
        }
    }
}
