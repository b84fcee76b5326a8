//! Track chunks (`0xB020`–`0xB029`): their flags and keys as read, put in
//! frame order, with relative rotations made absolute.
//!
//! # Layout
//! A track chunk is `u16 flags`, 8 bytes nobody has decoded, `u32` key
//! count, then the keys. A key is `i32 frame`, `u16` spline flags, then
//! one `f32` for each set bit, in this order: tension (bit 0), continuity
//! (bit 1), bias (bit 2), ease to (bit 3), ease from (bit 4); higher bits
//! carry nothing and are ignored. Then the value: three floats for
//! position and scale, an angle in radians and a three-float axis for
//! rotation, nothing for hide. Bytes after the last key are ignored, as
//! lib3ds ignores them.
//!
//! # What the reader makes of the keys
//! - **Ranges.** Tension, continuity and bias must be in `[−1, 1]`, ease
//!   to and ease from in `[0, 1]`, as 3D Studio writes them; every number
//!   must be finite. Anything else is refused at its offset.
//! - **Order.** Keys are sorted by frame (stably, so keys of one frame
//!   stay in file order). Of several keys at one frame the **last in the
//!   file wins**: it is the one lib3ds shows at that frame (lib3ds 1.3
//!   also replaces a key when another is inserted at its frame; assimp
//!   keeps the first). A rotation key is relative, so dropping one would
//!   turn everything after it: duplicate rotation keys are instead
//!   combined into one key that makes both turns (the later after the
//!   earlier) with the last one's spline parameters.
//! - **Rotation.** A key's turn is `angle` about `axis` taken the lib3ds
//!   way: the quaternion with half-angle `−angle/2`, a turn of `−angle`
//!   in the right-handed sense (assimp negates `w`, the same turn). A
//!   zero axis (shorter than 1e-6) makes the key no turn at all, as in
//!   lib3ds (assimp turns about Y instead). Keys are relative: the
//!   orientation at key k is `q_k = r_k · q_{k−1}` (`q_0 = r_0`), the
//!   lib3ds order, kept in [`RotationTrack::absolute`]. assimp composes
//!   the other way (`q_{k−1} · r_k`); the two agree when the keys turn
//!   about one axis.
//! - **Scale.** A scale key with a component of exactly 0 has that
//!   component made 1, as assimp does (such keys come from broken
//!   exporters; a zero scale cannot be inverted for the mesh).

use glam::{Quat, Vec3};

use super::chunks::{Chunk, Fields, Walker};
use super::ReadError;

/// The position track chunk.
pub const POSITION_TRACK: u16 = 0xB020;
/// The rotation track chunk.
pub const ROTATION_TRACK: u16 = 0xB021;
/// The scale track chunk.
pub const SCALE_TRACK: u16 = 0xB022;
/// The hide track chunk.
pub const HIDE_TRACK: u16 = 0xB029;

/// The bytes of a key before its spline parameters and value.
const KEY_HEADER_BYTES: usize = 6;
/// An axis shorter than this is no axis.
const ZERO_AXIS: f32 = 1e-6;

/// A track's flag word. lib3ds and 3dsinfo.txt disagree on the low bits;
/// the reader takes lib3ds's reading (bit 0 repeat, bit 1 smooth), the one
/// its evaluation, which this module follows, is written for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrackFlags(pub u16);

impl TrackFlags {
    /// Bit 0: after the last key the track starts again from the first.
    pub const REPEAT: u16 = 0x0001;
    /// Bit 1: the first and last keys' tangents see the keys across the
    /// loop (the track is a closed curve).
    pub const SMOOTH: u16 = 0x0002;

    /// Whether [`TrackFlags::REPEAT`] is set.
    pub fn repeat(self) -> bool {
        self.0 & Self::REPEAT != 0
    }

    /// Whether [`TrackFlags::SMOOTH`] is set.
    pub fn smooth(self) -> bool {
        self.0 & Self::SMOOTH != 0
    }
}

/// A key's Kochanek–Bartels parameters; those the file leaves out are 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spline {
    /// How tight the curve is at the key, −1 to 1 (1: no tangent).
    pub tension: f32,
    /// How sharp the corner is, −1 to 1 (−1: straight lines meet there).
    pub continuity: f32,
    /// Which side the curve leans to, −1 to 1 (1: overshoots after).
    pub bias: f32,
    /// How much the motion slows coming into the key, 0 to 1.
    pub ease_to: f32,
    /// How much the motion slows leaving the key, 0 to 1.
    pub ease_from: f32,
}

impl Spline {
    /// Bit 0 of a key's spline flags: a tension follows.
    pub const TENSION: u16 = 0x01;
    /// Bit 1: a continuity follows.
    pub const CONTINUITY: u16 = 0x02;
    /// Bit 2: a bias follows.
    pub const BIAS: u16 = 0x04;
    /// Bit 3: an ease to follows.
    pub const EASE_TO: u16 = 0x08;
    /// Bit 4: an ease from follows.
    pub const EASE_FROM: u16 = 0x10;
}

/// One key: a frame, its spline parameters and its value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key<V> {
    /// The key's frame.
    pub frame: i32,
    /// Its spline parameters.
    pub spline: Spline,
    /// Its value: a position or a scale, a relative turn, or `()` for a
    /// hide toggle.
    pub value: V,
}

/// A track: flags and keys in strictly increasing frame order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Track<V> {
    /// The track's flags.
    pub flags: TrackFlags,
    /// Its keys, sorted by frame, one per frame.
    pub keys: Vec<Key<V>>,
}

/// A rotation track: relative turns (as unit quaternions) and the
/// absolute orientation at each key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RotationTrack {
    /// The keys; each value is the key's turn relative to the key before.
    pub track: Track<Quat>,
    /// The orientation at each key: `absolute[k] = keys[k].value ·
    /// absolute[k − 1]`, `absolute[0] = keys[0].value`.
    pub absolute: Vec<Quat>,
}

/// What a track chunk's values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ValueKind {
    Position,
    Scale,
    Rotation,
    Hide,
}

impl ValueKind {
    fn bytes(self) -> usize {
        match self {
            ValueKind::Position | ValueKind::Scale => 12,
            ValueKind::Rotation => 16,
            ValueKind::Hide => 0,
        }
    }
}

/// Reads a position track chunk.
pub fn read_position(walker: &Walker<'_>, chunk: &Chunk) -> Result<Track<Vec3>, ReadError> {
    read_track(walker, chunk, ValueKind::Position, |f| f.vec3("a position"))
        .map(|(flags, keys)| last_key_wins(flags, keys))
}

/// Reads a scale track chunk; a zero component becomes 1.
pub fn read_scale(walker: &Walker<'_>, chunk: &Chunk) -> Result<Track<Vec3>, ReadError> {
    let (flags, keys) = read_track(walker, chunk, ValueKind::Scale, |f| {
        let v = f.vec3("a scale")?;
        Ok(Vec3::select(v.cmpeq(Vec3::ZERO), Vec3::ONE, v))
    })?;
    Ok(last_key_wins(flags, keys))
}

/// Reads a hide track chunk.
pub fn read_hide(walker: &Walker<'_>, chunk: &Chunk) -> Result<Track<()>, ReadError> {
    read_track(walker, chunk, ValueKind::Hide, |_| Ok(()))
        .map(|(flags, keys)| last_key_wins(flags, keys))
}

/// Reads a rotation track chunk and makes its turns absolute.
pub fn read_rotation(walker: &Walker<'_>, chunk: &Chunk) -> Result<RotationTrack, ReadError> {
    let (flags, keys) = read_track(walker, chunk, ValueKind::Rotation, |f| {
        let angle_radians = f.f32("a rotation angle")?;
        let axis = f.vec3("a rotation axis")?;
        Ok(relative_turn(angle_radians, axis))
    })?;
    let mut sorted: Vec<Key<Quat>> = Vec::with_capacity(keys.len());
    for key in sorted_stably(keys) {
        match sorted.last_mut() {
            Some(last) if last.frame == key.frame => {
                last.value = (key.value * last.value).normalize();
                last.spline = key.spline;
            }
            _ => sorted.push(key),
        }
    }
    let mut absolute = Vec::with_capacity(sorted.len());
    let mut q = Quat::IDENTITY;
    for key in &sorted {
        q = (key.value * q).normalize();
        absolute.push(q);
    }
    Ok(RotationTrack {
        track: Track {
            flags,
            keys: sorted,
        },
        absolute,
    })
}

/// The turn of one rotation key: `−angle` about `axis` (lib3ds's
/// half-angle `−angle/2`), or none for a zero axis.
pub fn relative_turn(angle_radians: f32, axis: Vec3) -> Quat {
    let length = axis.length();
    if !length.is_finite() || length < ZERO_AXIS {
        return Quat::IDENTITY;
    }
    Quat::from_axis_angle(axis / length, -angle_radians).normalize()
}

/// The flags and keys of a track chunk, in file order.
fn read_track<V>(
    walker: &Walker<'_>,
    chunk: &Chunk,
    kind: ValueKind,
    mut value: impl FnMut(&mut Fields<'_>) -> Result<V, ReadError>,
) -> Result<(TrackFlags, Vec<Key<V>>), ReadError> {
    let mut f = walker.fields(chunk);
    let flags = TrackFlags(f.u16("the track flags")?);
    f.take(8, "the track header")?;
    let count = f.count("the key count", KEY_HEADER_BYTES + kind.bytes())?;
    let mut keys = Vec::with_capacity(count);
    for _ in 0..count {
        let frame = f.i32("a key's frame")?;
        let spline = read_spline(&mut f)?;
        let value = value(&mut f)?;
        keys.push(Key {
            frame,
            spline,
            value,
        });
    }
    Ok((flags, keys))
}

/// A key's spline flag word and the parameters it says follow.
fn read_spline(f: &mut Fields<'_>) -> Result<Spline, ReadError> {
    let bits = f.u16("a key's spline flags")?;
    let mut spline = Spline::default();
    if bits & Spline::TENSION != 0 {
        spline.tension = f.f32_in("a key's tension", -1.0, 1.0)?;
    }
    if bits & Spline::CONTINUITY != 0 {
        spline.continuity = f.f32_in("a key's continuity", -1.0, 1.0)?;
    }
    if bits & Spline::BIAS != 0 {
        spline.bias = f.f32_in("a key's bias", -1.0, 1.0)?;
    }
    if bits & Spline::EASE_TO != 0 {
        spline.ease_to = f.f32_in("a key's ease to", 0.0, 1.0)?;
    }
    if bits & Spline::EASE_FROM != 0 {
        spline.ease_from = f.f32_in("a key's ease from", 0.0, 1.0)?;
    }
    Ok(spline)
}

/// `keys` sorted by frame, keys of one frame in file order.
fn sorted_stably<V>(mut keys: Vec<Key<V>>) -> Vec<Key<V>> {
    keys.sort_by_key(|k| k.frame);
    keys
}

/// A track of `keys` sorted by frame, keeping the last of each frame.
fn last_key_wins<V>(flags: TrackFlags, keys: Vec<Key<V>>) -> Track<V> {
    let mut sorted: Vec<Key<V>> = Vec::with_capacity(keys.len());
    for key in sorted_stably(keys) {
        match sorted.last_mut() {
            Some(last) if last.frame == key.frame => *last = key,
            _ => sorted.push(key),
        }
    }
    Track {
        flags,
        keys: sorted,
    }
}
