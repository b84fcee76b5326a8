//! The bone animation an emote sub-packet carries (PlayerAnimator's
//! `AnimationBinary`, version 2): a header of ticks and flags, then each
//! body part's axes as keyframe lists, then the emote's UUID.
//!
//! ```text
//! i32 beginTick, i32 endTick, i32 stopTick, u8 isLooped, i32 returnTick,
//! u8 isEasingBefore, u8 nsfw, u8 keyframeSize (9)
//! i32 partCount, per part: string name, then its axes
//!     x, y, z, pitch, yaw, roll [, bendAxis, bend when the part bends]:
//!     u8 enabled, i32 count, count × (i32 tick, f32 value, u8 ease)
//! i64 uuidMsb, i64 uuidLsb
//! ```
//!
//! Every part bends but `head`, `leftItem` and `rightItem` (a part with a
//! name this server does not know bends, as PlayerAnimator reads it).
//! Angles are radians; limb offsets are model pixels with +y down.
//! A `keyframeSize` above 9 is a later format's longer keyframe: the extra
//! bytes of each are skipped. The emote sub-packet's payload is an `i32`
//! start tick followed by this ([`read_emote`], [`emote_payload`]).

use uuid::Uuid;

use super::bytes::*;

/// The binary's version this server reads and writes.
pub const ANIMATION_BINARY_VERSION: u8 = 2;
/// Bytes of one keyframe in version 2: tick, value, ease.
pub const KEYFRAME_BYTES: usize = 9;
/// Axes of a part that does not bend: x, y, z, pitch, yaw, roll.
pub const RIGID_AXES: usize = 6;
/// Axes of a part that bends: the six, the bend's axis and the bend.
pub const BENDING_AXES: usize = 8;

/// PlayerAnimator's standard parts.
pub const STANDARD_PARTS: [&str; 9] = [
    "head",
    "body",
    "torso",
    "rightArm",
    "leftArm",
    "rightLeg",
    "leftLeg",
    "leftItem",
    "rightItem",
];

/// Whether a part has the bend axes.
pub fn part_bends(name: &str) -> bool {
    !matches!(name, "head" | "leftItem" | "rightItem")
}

/// One keyframe of one axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Keyframe {
    /// When, in ticks from the emote's start.
    pub tick: i32,
    /// The value: radians for angles, pixels (limbs) or blocks (`body`)
    /// for offsets.
    pub value: f32,
    /// The easing into it: PlayerAnimator's ease id (0 linear, 1
    /// constant, 6–35 the in/out/in-out families); unknown ids play linear.
    pub ease: u8,
}

/// One axis of a part.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Axis {
    /// Whether the axis is animated at all.
    pub enabled: bool,
    /// Its keyframes, as written.
    pub keyframes: Vec<Keyframe>,
}

/// One body part and its axes ([`RIGID_AXES`] or [`BENDING_AXES`] of them,
/// by [`part_bends`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// The part's name (`rightArm`...).
    pub name: String,
    /// x, y, z, pitch, yaw, roll, then the bend's axis and the bend.
    pub axes: Vec<Axis>,
}

impl Part {
    /// A part with every axis off.
    pub fn still(name: &str) -> Part {
        let axes = if part_bends(name) {
            BENDING_AXES
        } else {
            RIGID_AXES
        };
        Part {
            name: name.to_owned(),
            axes: vec![Axis::default(); axes],
        }
    }
}

/// A whole bone animation.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneAnimation {
    /// The first tick.
    pub begin_tick: i32,
    /// The last tick of the cycle.
    pub end_tick: i32,
    /// The tick at which a stopped emote has faded out.
    pub stop_tick: i32,
    /// Whether it loops.
    pub is_looped: bool,
    /// Where a loop goes back to.
    pub return_tick: i32,
    /// Whether a keyframe's easing shapes the stretch before it (else the
    /// one after).
    pub easing_before: bool,
    /// Flagged not safe for work.
    pub nsfw: bool,
    /// The parts.
    pub parts: Vec<Part>,
    /// The emote's UUID (what a STOP names).
    pub uuid: Uuid,
}

/// Reads a version-2 animation binary; `base` is its offset in the packet
/// (for the errors). Bytes after the UUID are an error.
pub fn read_animation(bytes: &[u8], base: usize) -> Result<BoneAnimation, WireError> {
    let mut r = Reader::new(bytes, base);
    let begin_tick = r.i32("beginTick")?;
    let end_tick = r.i32("endTick")?;
    let stop_tick = r.i32("stopTick")?;
    let is_looped = r.bool("isLooped")?;
    let return_tick = r.i32("returnTick")?;
    let easing_before = r.bool("isEasingBefore")?;
    let nsfw = r.bool("nsfw")?;
    let at = r.offset();
    let keyframe_bytes = usize::from(r.u8("keyframeSize")?);
    if keyframe_bytes < KEYFRAME_BYTES {
        return Err(WireError {
            offset: at,
            rule: format!(
                "keyframeSize {keyframe_bytes} is under the {KEYFRAME_BYTES} bytes a keyframe has"
            ),
        });
    }
    // A part is at least its name's length and six empty axes.
    let count = r.count("partCount", 4 + RIGID_AXES * 5)?;
    let mut parts = Vec::with_capacity(count);
    for _ in 0..count {
        let name = r.string("a part name")?;
        let axes = if part_bends(&name) {
            BENDING_AXES
        } else {
            RIGID_AXES
        };
        let mut part = Part {
            name,
            axes: Vec::with_capacity(axes),
        };
        for _ in 0..axes {
            let enabled = r.bool("an axis's enabled flag")?;
            let n = r.count("a keyframe count", keyframe_bytes)?;
            let mut keyframes = Vec::with_capacity(n);
            for _ in 0..n {
                let tick = r.i32("a keyframe tick")?;
                let value = r.f32("a keyframe value")?;
                let ease = r.u8("a keyframe ease")?;
                r.take(keyframe_bytes - KEYFRAME_BYTES, "a keyframe")?;
                keyframes.push(Keyframe { tick, value, ease });
            }
            part.axes.push(Axis { enabled, keyframes });
        }
        parts.push(part);
    }
    let msb = r.i64("the emote's UUID")? as u64;
    let lsb = r.i64("the emote's UUID")? as u64;
    if r.remaining() > 0 {
        return Err(r.error(format!("{} bytes follow the emote's UUID", r.remaining())));
    }
    Ok(BoneAnimation {
        begin_tick,
        end_tick,
        stop_tick,
        is_looped,
        return_tick,
        easing_before,
        nsfw,
        parts,
        uuid: Uuid::from_u64_pair(msb, lsb),
    })
}

/// The version-2 bytes of `animation`. A part is written with the axes
/// its name has ([`part_bends`]): missing ones as disabled, extra ones
/// left out, so what is written always reads back.
pub fn write_animation(animation: &BoneAnimation) -> Vec<u8> {
    let mut out = Vec::new();
    put_i32(&mut out, animation.begin_tick);
    put_i32(&mut out, animation.end_tick);
    put_i32(&mut out, animation.stop_tick);
    out.push(u8::from(animation.is_looped));
    put_i32(&mut out, animation.return_tick);
    out.push(u8::from(animation.easing_before));
    out.push(u8::from(animation.nsfw));
    out.push(KEYFRAME_BYTES as u8);
    put_i32(&mut out, animation.parts.len() as i32);
    let off = Axis::default();
    for part in &animation.parts {
        put_string(&mut out, &part.name);
        let axes = if part_bends(&part.name) {
            BENDING_AXES
        } else {
            RIGID_AXES
        };
        for index in 0..axes {
            let axis = part.axes.get(index).unwrap_or(&off);
            out.push(u8::from(axis.enabled));
            put_i32(&mut out, axis.keyframes.len() as i32);
            for k in &axis.keyframes {
                put_i32(&mut out, k.tick);
                put_f32(&mut out, k.value);
                out.push(k.ease);
            }
        }
    }
    let (msb, lsb) = animation.uuid.as_u64_pair();
    put_i64(&mut out, msb as i64);
    put_i64(&mut out, lsb as i64);
    out
}

/// Reads an emote sub-packet's payload: the start tick and the animation.
/// `base` is the payload's offset in the packet.
pub fn read_emote(payload: &[u8], base: usize) -> Result<(i32, BoneAnimation), WireError> {
    let mut r = Reader::new(payload, base);
    let start_tick = r.i32("the start tick")?;
    let rest = &payload[4..];
    Ok((start_tick, read_animation(rest, base + 4)?))
}

/// An emote sub-packet's payload.
pub fn emote_payload(start_tick: i32, animation: &BoneAnimation) -> Vec<u8> {
    let mut out = Vec::new();
    put_i32(&mut out, start_tick);
    out.extend(write_animation(animation));
    out
}
