//! Emotecraft's `emotecraft:emote` channel as the end-to-end tests speak
//! it: packets built and read by this file's own code, from
//! `protocol-notes.md` §3, not by the server's codec.

use serde_json::json;

pub use super::plugin_messages::*;
use super::Plan;

pub const CHANNEL: &str = "emotecraft:emote";

/// One packet: i32 version, u8 purpose, u8 count, then (u8 id, u8 version,
/// i32 size, bytes) each.
pub fn packet(purpose: u8, subs: &[(u8, u8, Vec<u8>)]) -> Vec<u8> {
    let mut b = 8_i32.to_be_bytes().to_vec();
    b.push(purpose);
    b.push(subs.len() as u8);
    for (id, version, payload) in subs {
        b.push(*id);
        b.push(*version);
        b.extend((payload.len() as i32).to_be_bytes());
        b.extend(payload);
    }
    b
}

/// A packet read back: (purpose, [(id, version, payload)]).
pub type Unpacked = (u8, Vec<(u8, u8, Vec<u8>)>);

/// (purpose, [(id, version, payload)]) of a packet.
pub fn unpack(bytes: &[u8]) -> Unpacked {
    assert_eq!(&bytes[..4], &8_i32.to_be_bytes(), "version 8");
    let (purpose, count) = (bytes[4], bytes[5]);
    let mut at = 6;
    let mut subs = Vec::new();
    for _ in 0..count {
        let (id, version) = (bytes[at], bytes[at + 1]);
        let size = i32::from_be_bytes(bytes[at + 2..at + 6].try_into().expect("4")) as usize;
        subs.push((id, version, bytes[at + 6..at + 6 + size].to_vec()));
        at += 6 + size;
    }
    assert_eq!(at, bytes.len(), "nothing after the last sub-packet");
    (purpose, subs)
}

/// A client's CONFIG: the versions map {0: 2, 1: 1, 8: 8, 10: 1}.
pub fn client_config() -> Vec<u8> {
    let mut map = 4_i32.to_be_bytes().to_vec();
    map.extend([0, 2, 1, 1, 8, 8, 10, 1]);
    packet(8, &[(8, 8, map)])
}

/// A STREAM: an emote sub-packet (start tick 0 and made-up animation
/// bytes the server must pass untouched), and a player sub-packet naming
/// nobody in particular (a repeat target, which the server replaces).
pub fn client_stream() -> Vec<u8> {
    let mut emote = 0_i32.to_be_bytes().to_vec();
    emote.extend([0xde, 0xad, 0xbe, 0xef, 1, 2, 3]);
    let mut target = vec![0xff; 16];
    target.push(0);
    packet(1, &[(0, 2, emote), (1, 1, target)])
}

pub fn send(plan: Plan, bytes: &[u8]) -> Plan {
    plan.step(json!({"send_plugin": {"channel": CHANNEL, "hex": hex(bytes)}}))
}

/// One axis of a decoded animation: enabled, then (tick, value, ease) keys.
pub type DecodedAxis = (bool, Vec<(i32, f32, u8)>);

/// A decoded AnimationBinary v2 (protocol-notes §3.3): the header's
/// (begin, end, stop, looped), the parts by name with their axes, and the
/// emote's UUID as hex.
pub struct Decoded {
    pub begin_tick: i32,
    pub end_tick: i32,
    pub stop_tick: i32,
    pub looped: bool,
    pub return_tick: i32,
    pub parts: Vec<(String, Vec<DecodedAxis>)>,
    pub uuid_hex: String,
}

pub fn decode_animation(bytes: &[u8]) -> Decoded {
    let mut at = 0;
    let i32_at = |at: &mut usize| {
        let v = i32::from_be_bytes(bytes[*at..*at + 4].try_into().expect("4"));
        *at += 4;
        v
    };
    let (begin_tick, end_tick, stop_tick) = (i32_at(&mut at), i32_at(&mut at), i32_at(&mut at));
    let looped = bytes[at] == 1;
    at += 1;
    let return_tick = i32_at(&mut at);
    assert_eq!(
        bytes[at], 0,
        "isEasingBefore is false (what value_at reads)"
    );
    let keyframe_size = bytes[at + 2] as usize;
    at += 3;
    assert_eq!(keyframe_size, 9, "version 2 keyframes");
    let part_count = i32_at(&mut at);
    let mut parts = Vec::new();
    for _ in 0..part_count {
        let len = i32_at(&mut at) as usize;
        let name = String::from_utf8(bytes[at..at + len].to_vec()).expect("utf-8");
        at += len;
        let axis_count = if matches!(name.as_str(), "head" | "leftItem" | "rightItem") {
            6
        } else {
            8
        };
        let mut axes = Vec::new();
        for _ in 0..axis_count {
            let enabled = bytes[at] == 1;
            at += 1;
            let count = i32_at(&mut at);
            let mut keys = Vec::new();
            for _ in 0..count {
                let tick = i32_at(&mut at);
                let value = f32::from_be_bytes(bytes[at..at + 4].try_into().expect("4"));
                keys.push((tick, value, bytes[at + 4]));
                at += 5; // the value and the ease byte
            }
            axes.push((enabled, keys));
        }
        parts.push((name, axes));
    }
    let uuid_hex = hex(&bytes[at..at + 16]);
    assert_eq!(at + 16, bytes.len(), "the UUID ends the binary");
    Decoded {
        begin_tick,
        end_tick,
        stop_tick,
        looped,
        return_tick,
        parts,
        uuid_hex,
    }
}

/// PlayerAnimator's ease `id` at `f` (protocol-notes §3.3's ids; the
/// curves as easings.net defines them).
pub fn ease(id: u8, f: f32) -> f32 {
    use std::f32::consts::PI;
    // Each family's "in" curve; out and in-out are made from it.
    let ease_in = |family: u8, x: f32| -> f32 {
        match family {
            0 => 1.0 - (x * PI / 2.0).cos(), // sine
            1 => x.powi(3),                  // cubic
            2 => x.powi(2),                  // quad
            3 => x.powi(4),                  // quart
            4 => x.powi(5),                  // quint
            5 if x == 0.0 => 0.0,            // expo
            5 => 2_f32.powf(10.0 * x - 10.0),
            6 => 1.0 - (1.0 - x * x).max(0.0).sqrt(), // circ
            7 => 2.70158 * x.powi(3) - 1.70158 * x * x, // back
            8 if x == 0.0 || x == 1.0 => x,           // elastic
            8 => -(2_f32.powf(10.0 * x - 10.0)) * ((x * 10.0 - 10.75) * 2.0 * PI / 3.0).sin(),
            _ => 1.0 - bounce_out(1.0 - x), // bounce
        }
    };
    fn bounce_out(x: f32) -> f32 {
        let (n, d) = (7.5625, 2.75);
        if x < 1.0 / d {
            n * x * x
        } else if x < 2.0 / d {
            let x = x - 1.5 / d;
            n * x * x + 0.75
        } else if x < 2.5 / d {
            let x = x - 2.25 / d;
            n * x * x + 0.9375
        } else {
            let x = x - 2.625 / d;
            n * x * x + 0.984375
        }
    }
    if id == 0 {
        return f;
    }
    assert!(
        (6..=35).contains(&id) && id != 34,
        "ease {id} is not one a server writes"
    );
    let (family, direction) = ((id - 6) / 3, (id - 6) % 3);
    match (family, direction) {
        (_, 0) => ease_in(family, f),
        (_, 1) => 1.0 - ease_in(family, 1.0 - f),
        // In-out back and elastic have their own constants on easings.net.
        (7, _) => {
            let c = 1.70158 * 1.525;
            if f < 0.5 {
                (2.0 * f).powi(2) * ((c + 1.0) * 2.0 * f - c) / 2.0
            } else {
                ((2.0 * f - 2.0).powi(2) * ((c + 1.0) * (f * 2.0 - 2.0) + c) + 2.0) / 2.0
            }
        }
        (8, _) if f == 0.0 || f == 1.0 => f,
        (8, _) => {
            let s = ((20.0 * f - 11.125) * 2.0 * PI / 4.5).sin();
            if f < 0.5 {
                -(2_f32.powf(20.0 * f - 10.0) * s) / 2.0
            } else {
                2_f32.powf(-20.0 * f + 10.0) * s / 2.0 + 1.0
            }
        }
        _ if f < 0.5 => ease_in(family, 2.0 * f) / 2.0,
        _ => 1.0 - ease_in(family, 2.0 - 2.0 * f) / 2.0,
    }
}

/// An axis's value at `tick` as PlayerAnimator plays keys whose header
/// says `isEasingBefore` is false: each stretch eased by the ease of the
/// key it leaves, the ends held.
pub fn value_at(keys: &[(i32, f32, u8)], tick: i32) -> f32 {
    let first = keys.first().expect("a key");
    if tick <= first.0 {
        return first.1;
    }
    for pair in keys.windows(2) {
        let ((t0, v0, e0), (t1, v1, _)) = (pair[0], pair[1]);
        if tick <= t1 {
            return v0 + (v1 - v0) * ease(e0, (tick - t0) as f32 / (t1 - t0) as f32);
        }
    }
    keys.last().expect("a key").1
}

/// An axis's value at `tick` as PlayerAnimator plays a whole animation
/// (its `KeyframeAnimationPlayer`, read for behaviour, written here from
/// that reading): the key in force is the last one at or before the tick
/// (of several at one tick, the last); the next one is the key after it,
/// or, past the last, a made-up key (one cycle on toward the first key
/// at or after `returnTick` when looped; the last value held to
/// `endTick` when not); each stretch is eased by the ease of the key it
/// leaves. `rest` is the vanilla model's value: a disabled axis shows it,
/// and the made-up keys before the first one start from it. Ticks from 0
/// to `endTick` of the first cycle.
pub fn playeranimator_value(animation: &Decoded, axis: &DecodedAxis, rest: f32, tick: i32) -> f32 {
    let (enabled, keys) = axis;
    if !*enabled {
        return rest;
    }
    let begin = animation.begin_tick.max(0);
    let end = animation.end_tick.max(begin + 1);
    let stop = if animation.stop_tick <= end {
        end + 3
    } else {
        animation.stop_tick
    };
    let last_at = |t: i32| keys.iter().rposition(|k| k.0 <= t);
    let pos = last_at(tick);
    let before = match pos {
        None if tick < begin => (0, rest, 8),
        None if tick < end => (begin, rest, 8),
        None => (end, rest, 8),
        Some(p) => {
            let k = keys[p];
            if !animation.looped && tick >= end && p == keys.len() - 1 && k.0 < end {
                (end, k.1, k.2)
            } else {
                k
            }
        }
    };
    let after_of = |pos: Option<usize>| -> (i32, f32, u8) {
        let next = pos.map_or(0, |p| p + 1);
        if let Some(k) = keys.get(next) {
            return *k;
        }
        if animation.looped {
            return (end + 1, rest, 8);
        }
        if tick < end {
            if let Some(last) = keys.last() {
                return (end, last.1, last.2);
            }
        }
        if tick >= end {
            (stop, rest, 8)
        } else if tick >= begin {
            (end, rest, 8)
        } else {
            (begin, rest, 8)
        }
    };
    let mut after = after_of(pos);
    if animation.looped && after.0 > end {
        after = after_of(last_at(animation.return_tick - 1));
    }
    let (mut from, mut to) = (before.0, after.0);
    if from >= to {
        let cycle = end - animation.return_tick + 1;
        if tick < from {
            from -= cycle;
        } else {
            to += cycle;
        }
    }
    if from == to {
        return before.1;
    }
    let f = (tick - from) as f32 / (to - from) as f32;
    before.1 + (after.1 - before.1) * ease(before.2, f)
}
