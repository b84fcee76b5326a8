//! Replaying what a headless client was sent as a 1.20.1 client draws it:
//! a connection that keeps every frame with the test's tick, a decoder of
//! display metadata packets, and the client's interpolation of a
//! display's translation and rotations.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use valence::client::{ClientConnection, ReceivedPacket};
use valence::math::{Quat, Vec3};
use valence::protocol::bytes::BytesMut;
use valence::protocol::packets::play::{EntitySpawnS2c, EntityTrackerUpdateS2c};
use valence::protocol::Packet;

/// What one client was sent in each tick, with the tick (whole frames).
pub type Frames = Arc<Mutex<Vec<(u64, Vec<u8>)>>>;

/// Keeps every frame a client is sent, with the test's tick counter.
pub struct Capture {
    /// The test's tick counter.
    pub tick: Arc<AtomicU64>,
    /// Every frame sent, with the tick it was sent on.
    pub frames: Frames,
}

/// Joins client `index` to `app` on a [`Capture`] stamped with `tick`;
/// the client and what it will be sent.
pub fn join_captured(
    app: &mut valence::prelude::App,
    index: usize,
    tick: &Arc<AtomicU64>,
) -> (valence::prelude::Entity, Frames) {
    let frames = Frames::default();
    let connection = Capture {
        tick: Arc::clone(tick),
        frames: Arc::clone(&frames),
    };
    let client = emoted::server::loadtest::join_client(app, index, Box::new(connection));
    (client, frames)
}

impl ClientConnection for Capture {
    fn try_send(&mut self, bytes: BytesMut) -> anyhow::Result<()> {
        let tick = self.tick.load(Ordering::Relaxed);
        if let Ok(mut frames) = self.frames.lock() {
            // A tick may be sent in several writes that split a packet
            // (the stream is what counts): one buffer per tick, which
            // ends where a packet does.
            match frames.last_mut() {
                Some((last_tick, last)) if *last_tick == tick => last.extend_from_slice(&bytes),
                _ => frames.push((tick, bytes.to_vec())),
            }
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

/// One metadata packet's display fields: start (8), duration (9),
/// translation (10), left (12) and right rotation (13), when present.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fields {
    /// `start_interpolation`.
    pub start: Option<i32>,
    /// `interpolation_duration`.
    pub duration: Option<i32>,
    /// `translation`.
    pub translation: Option<Vec3>,
    /// `left_rotation`.
    pub left_rotation: Option<Quat>,
    /// `right_rotation`.
    pub right_rotation: Option<Quat>,
}

/// What a client draws of a display's transformation (its scale aside).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawnPose {
    /// The translation.
    pub translation: Vec3,
    /// The left rotation.
    pub left_rotation: Quat,
    /// The right rotation.
    pub right_rotation: Quat,
}

impl DrawnPose {
    const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        left_rotation: Quat::IDENTITY,
        right_rotation: Quat::IDENTITY,
    };

    /// As 1.20.1 interpolates a transformation: translation lerped,
    /// rotations slerped.
    fn interpolate(&self, to: &Self, progress: f32) -> Self {
        Self {
            translation: self.translation.lerp(to.translation, progress),
            left_rotation: self.left_rotation.slerp(to.left_rotation, progress),
            right_rotation: self.right_rotation.slerp(to.right_rotation, progress),
        }
    }

    /// The whole rotation (scale is uniform in these tests).
    pub fn rotation(&self) -> Quat {
        self.left_rotation * self.right_rotation
    }
}

/// A quaternion at `at` (x, y, z, w, as JOML writes it).
fn quat_at(bytes: &[u8], at: &mut usize) -> Option<Quat> {
    let (x, y, z, w) = (
        f32_at(bytes, at)?,
        f32_at(bytes, at)?,
        f32_at(bytes, at)?,
        f32_at(bytes, at)?,
    );
    Some(Quat::from_xyzw(x, y, z, w))
}

/// Every uncompressed packet in `frames` (from its packet id on), with
/// its tick. Frames are small (uncompressed: data length 0); a compressed
/// one is skipped.
fn packets(frames: &[(u64, Vec<u8>)]) -> impl Iterator<Item = (u64, &[u8])> {
    frames.iter().flat_map(|(tick, buffer)| {
        let mut at = 0;
        std::iter::from_fn(move || {
            while at < buffer.len() {
                let length = var_int(buffer, &mut at)?;
                let end = at + length as usize;
                let frame = &buffer[at..end.min(buffer.len())];
                at = end;
                let mut p = 0;
                if var_int(frame, &mut p) == Some(0) {
                    return Some((*tick, &frame[p..]));
                }
            }
            None
        })
    })
}

/// The entity ids of the entities spawned in `frames`, with their tick,
/// in order.
pub fn spawned_ids(frames: &[(u64, Vec<u8>)]) -> Vec<(u64, i32)> {
    packets(frames)
        .filter_map(|(tick, packet)| {
            let mut p = 0;
            (var_int(packet, &mut p)? == EntitySpawnS2c::ID).then_some(())?;
            Some((tick, var_int(packet, &mut p)?))
        })
        .collect()
}

/// The display-field updates for entity `id` in `frames`, in order, with
/// their tick.
pub fn metadata_for(frames: &[(u64, Vec<u8>)], id: i32) -> Vec<(u64, Fields)> {
    let mut out = Vec::new();
    for (tick, frame) in packets(frames) {
        let mut p = 0;
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
                (12, 27) => fields.left_rotation = quat_at(frame, &mut p),
                (13, 27) => fields.right_rotation = quat_at(frame, &mut p),
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
        out.push((tick, fields));
    }
    out
}

/// The translation a 1.20.1 client draws at each tick of `ticks` from these
/// packets (see [`drawn_poses`]).
pub fn drawn(
    packets: &[(u64, Fields)],
    ticks: std::ops::RangeInclusive<u64>,
) -> BTreeMap<u64, Vec3> {
    drawn_poses(packets, ticks)
        .into_iter()
        .map(|(tick, pose)| (tick, pose.translation))
        .collect()
}

/// What a 1.20.1 client draws at each tick of `ticks` from these packets
/// (the first is the spawn's): a packet received on tick `r` that changes
/// the transformation starts interpolating from what was drawn at `r`
/// toward the new one, `start` ticks from `r`, over `duration` ticks (0,
/// or the spawn: at once). Packets of one tick apply together; a field a
/// packet leaves out keeps its last value.
pub fn drawn_poses(
    packets: &[(u64, Fields)],
    ticks: std::ops::RangeInclusive<u64>,
) -> BTreeMap<u64, DrawnPose> {
    let mut from = DrawnPose::IDENTITY;
    let mut to = DrawnPose::IDENTITY;
    let mut start = 0i64;
    let mut duration = 0i32;
    let mut spawned = false;
    let at = |t: i64, from: DrawnPose, to: DrawnPose, start: i64, duration: i32| {
        if duration <= 0 {
            to
        } else {
            from.interpolate(&to, ((t - start) as f32 / duration as f32).clamp(0.0, 1.0))
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
                new_to.translation = tr;
                changed = true;
            }
            if let Some(left) = f.left_rotation {
                new_to.left_rotation = left;
                changed = true;
            }
            if let Some(right) = f.right_rotation {
                new_to.right_rotation = right;
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

/// A 40-tick schema 4 Animation `id` of one stone block display, played in
/// `mode` (`hold`, `loop`, ...), whose position follows `position_keys`
/// (the keyframes of its `position` track, as JSON objects).
pub fn one_block_emote(id: &str, mode: &str, position_keys: &str) -> String {
    one_block_emote_turning(id, mode, position_keys, None)
}

/// [`one_block_emote`], whose rotation also follows `rotation_keys` when
/// given (the keyframes of its `rotation` track, Euler degrees).
pub fn one_block_emote_turning(
    id: &str,
    mode: &str,
    position_keys: &str,
    rotation_keys: Option<&str>,
) -> String {
    let rotation_track =
        rotation_keys.map_or(String::new(), |keys| format!(r#", "rotation": [{keys}]"#));
    format!(
        r#"{{
  "type": "animation",
  "schema_version": 4,
  "id": "{id}",
  "metadata": {{"name": "{id}", "description": "One block display moving."}},
  "settings": {{
    "standalone": true,
    "cooldown": "0t",
    "rotation_deadzone": 45,
    "player": {{
      "hidden": false,
      "stop_conditions": {{
        "movement_distance": 0, "jump": false, "submerge": false, "ride": false,
        "damage": false, "attack": false, "game_mode_change": false
      }}
    }},
    "playback": {{"mode": "{mode}", "loop_delay": "0t"}}
  }},
  "nodes": {{
    "block": {{
      "type": "block_display",
      "space": "initiator",
      "block_state_snbt": "{{Name:\"minecraft:stone\"}}",
      "transform": {{"position": [0, 1, 0], "rotation": [0, 0, 0], "scale": [0.5, 0.5, 0.5]}}
    }}
  }},
  "timeline": {{
    "duration": "40t",
    "tracks": {{"block": {{"position": [{position_keys}]{rotation_track}}}}}
  }}
}}"#
    )
}
