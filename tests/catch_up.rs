//! A viewer that arrives in the middle of a scheduled stretch draws what the
//! viewers who were there all along draw.
//!
//! The real server runs in-process (the `emoted loadtest` harness). A test
//! emote slides one block display 4 blocks in 40 ticks, which the scheduler
//! sends as a single 40-tick update. The watcher stands past the display's
//! view range, steps into range 15 ticks into the slide, and both clients'
//! packets are decoded and replayed through the 1.20.1 client's
//! interpolation: from the tick after the watcher's arrival on, both draw
//! the same translation. Without the catch-up packets the watcher would
//! snap to the slide's end and wait there (the test checks that this is
//! what the spawn alone would show).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use emoted::format::EmoteId;
use emoted::server::emote::{ActiveEmote, DisplayUpdatePolicy};
use emoted::server::events::PlayEmoteRequest;
use emoted::server::loadtest::{headless_app, join_client};
use valence::client::{ClientConnection, ReceivedPacket};
use valence::entity::EntityId;
use valence::math::Vec3;
use valence::prelude::*;
use valence::protocol::bytes::BytesMut;
use valence::protocol::packets::play::EntityTrackerUpdateS2c;
use valence::protocol::Packet;

const SLIDE: &str = r#"{
  "type": "animation",
  "schema_version": 4,
  "id": "test:slide",
  "metadata": {"name": "Slide", "description": "One block slides 4 blocks in 40 ticks."},
  "settings": {
    "standalone": true,
    "cooldown": "0t",
    "rotation_deadzone": 45,
    "player": {
      "hidden": false,
      "stop_conditions": {
        "movement_distance": 0, "jump": false, "submerge": false, "ride": false,
        "damage": false, "attack": false, "game_mode_change": false
      }
    },
    "playback": {"mode": "hold", "loop_delay": "0t"}
  },
  "nodes": {
    "block": {
      "type": "block_display",
      "space": "initiator",
      "block_state_snbt": "{Name:\"minecraft:stone\"}",
      "transform": {"position": [0, 1, 0], "rotation": [0, 0, 0], "scale": [0.5, 0.5, 0.5]}
    }
  },
  "timeline": {
    "duration": "40t",
    "tracks": {
      "block": {
        "position": [
          {"time": "0t", "value": [0, 1, 0], "interpolation": "linear"},
          {"time": "40t", "value": [4, 1, 0]}
        ]
      }
    }
  }
}"#;

/// Keeps every frame a client is sent, with the test's tick counter.
struct Capture {
    tick: Arc<AtomicU64>,
    frames: Arc<Mutex<Vec<(u64, Vec<u8>)>>>,
}

impl ClientConnection for Capture {
    fn try_send(&mut self, bytes: BytesMut) -> anyhow::Result<()> {
        let tick = self.tick.load(Ordering::Relaxed);
        if let Ok(mut frames) = self.frames.lock() {
            frames.push((tick, bytes.to_vec()));
        }
        Ok(())
    }

    fn try_recv(&mut self) -> anyhow::Result<Option<ReceivedPacket>> {
        Ok(None)
    }

    fn len(&self) -> usize {
        0
    }
}

fn var_int(bytes: &[u8], at: &mut usize) -> Option<i32> {
    let mut value = 0i32;
    for i in 0..5 {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= i32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

fn f32_at(bytes: &[u8], at: &mut usize) -> Option<f32> {
    let raw: [u8; 4] = bytes.get(*at..*at + 4)?.try_into().ok()?;
    *at += 4;
    Some(f32::from_be_bytes(raw))
}

/// One metadata packet's display fields: start (8), duration (9) and
/// translation (10), when present.
#[derive(Clone, Copy, Debug, Default)]
struct Fields {
    start: Option<i32>,
    duration: Option<i32>,
    translation: Option<Vec3>,
}

/// The display-field updates for entity `id` in `frames`, in order, with
/// their tick. Frames are small (uncompressed: data length 0).
fn metadata_for(frames: &[(u64, Vec<u8>)], id: i32) -> Vec<(u64, Fields)> {
    let mut out = Vec::new();
    for (tick, buffer) in frames {
        let mut at = 0;
        while at < buffer.len() {
            let Some(length) = var_int(buffer, &mut at) else {
                break;
            };
            let end = at + length as usize;
            let frame = &buffer[at..end.min(buffer.len())];
            at = end;
            let mut p = 0;
            if var_int(frame, &mut p) != Some(0) {
                continue; // compressed: not a metadata packet here
            }
            if var_int(frame, &mut p) != Some(EntityTrackerUpdateS2c::ID)
                || var_int(frame, &mut p) != Some(id)
            {
                continue;
            }
            let mut fields = Fields::default();
            while let Some(&index) = frame.get(p) {
                p += 1;
                if index == 0xff {
                    break;
                }
                let Some(kind) = var_int(frame, &mut p) else {
                    break;
                };
                match (index, kind) {
                    (8, 1) => fields.start = var_int(frame, &mut p),
                    (9, 1) => fields.duration = var_int(frame, &mut p),
                    (10, 26) => {
                        let (x, y, z) = (
                            f32_at(frame, &mut p),
                            f32_at(frame, &mut p),
                            f32_at(frame, &mut p),
                        );
                        fields.translation = Some(Vec3::new(x.unwrap(), y.unwrap(), z.unwrap()));
                    }
                    (_, 1 | 14) => {
                        var_int(frame, &mut p);
                    }
                    (_, 0) => p += 1,
                    (_, 3) => p += 4,
                    (_, 26) => p += 12,
                    (_, 27) => p += 16,
                    _ => break, // a type these displays do not send
                }
            }
            out.push((*tick, fields));
        }
    }
    out
}

/// The translation a 1.20.1 client draws at each tick of `ticks` from these
/// packets (the first is the spawn's): a packet received on tick `r` starts
/// interpolating from what was drawn at `r` toward its translation,
/// `start` ticks from `r`, over `duration` ticks (0, or the spawn: at
/// once). Packets of one tick apply together.
fn drawn(packets: &[(u64, Fields)], ticks: std::ops::RangeInclusive<u64>) -> BTreeMap<u64, Vec3> {
    let mut from = Vec3::ZERO;
    let mut to = Vec3::ZERO;
    let mut start = 0i64;
    let mut duration = 0i32;
    let mut spawned = false;
    let at = |t: i64, from: Vec3, to: Vec3, start: i64, duration: i32| {
        if duration <= 0 {
            to
        } else {
            from.lerp(to, ((t - start) as f32 / duration as f32).clamp(0.0, 1.0))
        }
    };
    let mut out = BTreeMap::new();
    let mut next = 0;
    for t in 0..=*ticks.end() {
        // Everything received on tick t, applied together (the client
        // rebuilds its render state once per tick).
        let mut changed = false;
        let mut new_to = to;
        let mut new_start = start;
        let mut new_duration = duration;
        while next < packets.len() && packets[next].0 == t {
            let f = packets[next].1;
            if let Some(d) = f.duration {
                new_duration = d;
            }
            if let Some(s) = f.start {
                new_start = t as i64 + i64::from(s);
            }
            if let Some(tr) = f.translation {
                new_to = tr;
                changed = true;
            }
            next += 1;
        }
        if changed {
            // From what was drawn, under the old interpolation; a display
            // with nothing drawn yet (its spawn) or no duration snaps.
            from = at(t as i64, from, to, start, duration);
            to = new_to;
            if new_duration <= 0 || !spawned {
                from = to;
            }
            spawned = true;
        }
        start = new_start;
        duration = new_duration;
        if ticks.contains(&t) {
            out.insert(t, at(t as i64, from, to, start, duration));
        }
    }
    out
}

#[test]
fn a_viewer_arriving_mid_stretch_draws_what_the_others_draw() {
    let dir = std::env::temp_dir().join(format!("emoted-catch-up-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    std::fs::write(dir.join("slide.json"), SLIDE).expect("write");
    let mut app = headless_app(&[dir.clone()], DisplayUpdatePolicy::Scheduled);

    let tick = Arc::new(AtomicU64::new(0));
    let join = |app: &mut App, index| {
        let frames = Arc::new(Mutex::new(Vec::new()));
        let connection = Capture {
            tick: Arc::clone(&tick),
            frames: Arc::clone(&frames),
        };
        (join_client(app, index, Box::new(connection)), frames)
    };
    let (dancer, dancer_frames) = join(&mut app, 0);
    let (watcher, watcher_frames) = join(&mut app, 1);
    let step = |app: &mut App| {
        tick.fetch_add(1, Ordering::Relaxed);
        app.update();
    };
    step(&mut app);
    // Past the display's 64-block reach, inside the chunk view.
    app.world.get_mut::<Position>(watcher).expect("watcher").0.x = 90.5;
    step(&mut app);

    app.world.send_event(PlayEmoteRequest {
        client: dancer,
        emote: EmoteId::parse("test:slide").expect("an id"),
        bypass: true,
        cooldown_multiplier: 1.0,
        quiet: false,
    });
    for _ in 0..15 {
        step(&mut app);
    }
    let display = app
        .world
        .get::<ActiveEmote>(dancer)
        .expect("playing")
        .display_entities()
        .next()
        .expect("one display");
    let id = app.world.get::<EntityId>(display).expect("an id").get();
    assert!(
        metadata_for(&watcher_frames.lock().unwrap(), id).is_empty(),
        "nothing reaches the watcher out of range"
    );

    // In range, 15 ticks into the slide.
    app.world.get_mut::<Position>(watcher).expect("watcher").0.x = 8.5;
    step(&mut app);
    let arrival = tick.load(Ordering::Relaxed);
    for _ in 0..30 {
        step(&mut app);
    }
    let end = tick.load(Ordering::Relaxed);

    let dancer_packets = metadata_for(&dancer_frames.lock().unwrap(), id);
    let watcher_packets = metadata_for(&watcher_frames.lock().unwrap(), id);
    // The dancer got one long update for the slide.
    assert!(
        dancer_packets
            .iter()
            .any(|(_, f)| f.duration.is_some_and(|d| d >= 20)),
        "{dancer_packets:?}"
    );
    // The spawn alone would leave the watcher at the slide's end.
    let spawn_only: Vec<_> = watcher_packets.iter().take(1).copied().collect();
    let everyone = drawn(&dancer_packets, arrival + 1..=end);
    let stale = drawn(&spawn_only, arrival + 1..=end);
    assert!(
        stale[&(arrival + 1)].distance(everyone[&(arrival + 1)]) > 0.5,
        "the test needs an arrival mid-stretch: {stale:?} {everyone:?}"
    );
    // With the catch-up, the watcher draws what the dancer draws.
    let watched = drawn(&watcher_packets, arrival + 1..=end);
    for t in arrival + 1..=end {
        assert!(
            watched[&t].distance(everyone[&t]) < 1e-4,
            "tick {t}: the watcher draws {} where everyone draws {}\nwatcher: {watcher_packets:?}\ndancer: {dancer_packets:?}",
            watched[&t],
            everyone[&t]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
