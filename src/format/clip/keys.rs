//! Reading a channel: a list of keys `[time, value, interpolation, extra]`.
//!
//! The rules: a time is a finite number of seconds, at least 0, and a key
//! never comes before the one ahead of it; two keys may share a time (a
//! jump), a third may not. `rotation` values are three angles or a
//! quaternion of four numbers (not all zero, normalised here), and one
//! channel holds one kind; `position` and `scale` values are three
//! numbers. A channel holds at most [`MAX_CHANNEL_KEYS`] keys.

use glam::{Quat, Vec3};
use serde_json::Value;

use super::types::{EaseDirection, EaseFamily, Handle, Interpolation, Key, RotationChannel};
use crate::format::problem::{index, JsonPointer, Problems};
use crate::format::read::{self, Obj};

/// The most keys one channel may hold: far more than an editor writes
/// (10,000 keys is a key every frame at 60 fps for nearly three minutes),
/// and a bound on what one clip costs to compile.
pub const MAX_CHANNEL_KEYS: usize = 10_000;

/// The interpolation names and what they are.
pub(crate) const INTERPOLATIONS: [(&str, Interpolation); 14] = [
    ("linear", Interpolation::Linear),
    ("step", Interpolation::Step),
    ("catmullrom", Interpolation::CatmullRom),
    ("bezier", Interpolation::Bezier),
    ("sine", Interpolation::Ease(EaseFamily::Sine)),
    ("quad", Interpolation::Ease(EaseFamily::Quad)),
    ("cubic", Interpolation::Ease(EaseFamily::Cubic)),
    ("quart", Interpolation::Ease(EaseFamily::Quart)),
    ("quint", Interpolation::Ease(EaseFamily::Quint)),
    ("expo", Interpolation::Ease(EaseFamily::Expo)),
    ("circ", Interpolation::Ease(EaseFamily::Circ)),
    ("back", Interpolation::Ease(EaseFamily::Back)),
    ("bounce", Interpolation::Ease(EaseFamily::Bounce)),
    ("elastic", Interpolation::Ease(EaseFamily::Elastic)),
];

/// The `ease` (and version 1 `direction`) names.
pub(crate) const DIRECTIONS: [(&str, EaseDirection); 3] = [
    ("in", EaseDirection::In),
    ("out", EaseDirection::Out),
    ("inOut", EaseDirection::InOut),
];

const KEY_TYPES: [(&str, ()); 5] = [
    ("keyframe", ()),
    ("breakdown", ()),
    ("extreme", ()),
    ("jitter", ()),
    ("hold", ()),
];

const HANDLE_TYPES: [(&str, ()); 5] = [
    ("autoClamped", ()),
    ("auto", ()),
    ("vector", ()),
    ("aligned", ()),
    ("free", ()),
];

/// The direction an easing takes when `ease` is left out: back, bounce
/// and elastic ease out, the rest ease in.
pub fn default_ease(family: EaseFamily) -> EaseDirection {
    match family {
        EaseFamily::Back | EaseFamily::Bounce | EaseFamily::Elastic => EaseDirection::Out,
        _ => EaseDirection::In,
    }
}

/// A time in seconds: a finite number, at least 0.
pub(crate) fn seconds(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<f32> {
    read::number_in_range(
        value,
        pointer,
        problems,
        what,
        0.0..=f64::MAX,
        "must be at least 0 seconds",
    )
}

/// Checks that `times` never go back and that no three are equal;
/// `key_pointer(i)` is where key `i`'s time is.
pub(crate) fn check_times(
    times: &[Option<f32>],
    problems: &mut Problems,
    key_pointer: &dyn Fn(usize, &mut Problems, String),
) {
    let mut previous: Option<f32> = None;
    let mut run = 0;
    for (i, time) in times.iter().enumerate() {
        let Some(time) = *time else {
            previous = None;
            continue;
        };
        match previous {
            Some(p) if time < p => key_pointer(
                i,
                problems,
                format!("key times must not decrease: {time}s follows {p}s"),
            ),
            Some(p) if time == p => {
                run += 1;
                if run >= 2 {
                    key_pointer(
                        i,
                        problems,
                        format!(
                            "at most two keys may share a time (a jump): a third key at {time}s"
                        ),
                    );
                }
            }
            _ => run = 0,
        }
        previous = Some(time);
    }
}

/// A value read from a key.
enum KeyValue {
    Vector(Vec3),
    Quaternion(Quat),
}

impl KeyValue {
    fn vector(&self) -> Option<Vec3> {
        match self {
            KeyValue::Vector(v) => Some(*v),
            KeyValue::Quaternion(_) => None,
        }
    }

    fn quaternion(&self) -> Option<Quat> {
        match self {
            KeyValue::Quaternion(q) => Some(*q),
            KeyValue::Vector(_) => None,
        }
    }
}

/// The keys with the values `pick` takes; `None` when one is of the other kind.
fn values_as<W>(keys: &[Key<KeyValue>], pick: fn(&KeyValue) -> Option<W>) -> Option<Vec<Key<W>>> {
    keys.iter()
        .map(|k| pick(&k.value).map(|v| with_value(k, v)))
        .collect()
}

/// Reads a `position` or `scale` channel.
pub(crate) fn read_vec_channel(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<Vec<Key<Vec3>>> {
    let keys = read_keys(value, pointer, problems, what, false)?;
    values_as(&keys, KeyValue::vector)
}

/// Reads a `rotation` channel of Euler angles or quaternions.
pub(crate) fn read_rotation_channel(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<RotationChannel> {
    let keys = read_keys(value, pointer, problems, "rotation", true)?;
    let quaternions = keys.first()?.value.quaternion().is_some();
    let mut ok = true;
    for (i, key) in keys.iter().enumerate() {
        if key.value.quaternion().is_some() != quaternions {
            let key_pointer = index(pointer, i);
            problems.error(
                &index(&key_pointer, 1),
                "quaternion keys ([x, y, z, w]) and Euler keys ([x, y, z]) cannot share a channel",
            );
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    if quaternions {
        values_as(&keys, KeyValue::quaternion).map(RotationChannel::Quaternion)
    } else {
        values_as(&keys, KeyValue::vector).map(RotationChannel::Euler)
    }
}

/// A finite number above 0 (`unit` follows the 0 in the message).
pub(crate) fn positive(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    unit: &str,
) -> Option<f32> {
    let n = read::finite_number(value, pointer, problems, what)?;
    if n > 0.0 {
        return Some(n);
    }
    problems.error(pointer, format!("{what} must be above 0{unit}, found {n}"));
    None
}

fn with_value<V, W>(key: &Key<V>, value: W) -> Key<W> {
    Key {
        time_secs: key.time_secs,
        value,
        interpolation: key.interpolation,
        ease: key.ease,
        handle_in: key.handle_in,
        handle_out: key.handle_out,
    }
}

/// Reads every key of a channel; `None` when any is broken.
fn read_keys(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    quaternions_allowed: bool,
) -> Option<Vec<Key<KeyValue>>> {
    let Some(items) = value.as_array() else {
        problems.error(
            pointer,
            format!(
                "`{what}` must be a list of keys [time, value, interpolation, extra], found {}",
                read::kind_of(value)
            ),
        );
        return None;
    };
    if items.is_empty() {
        problems.error(pointer, format!("`{what}` must have at least one key"));
        return None;
    }
    if items.len() > MAX_CHANNEL_KEYS {
        problems.error(
            pointer,
            format!(
                "a channel may have at most {MAX_CHANNEL_KEYS} keys, found {}",
                items.len()
            ),
        );
        return None;
    }
    let mut keys = Vec::with_capacity(items.len());
    let mut times = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        let key = read_key(
            item,
            &index(pointer, i),
            problems,
            what,
            quaternions_allowed,
        );
        times.push(key.as_ref().map(|k| k.time_secs));
        match key {
            Some(k) => keys.push(k),
            None => ok = false,
        }
    }
    let before = problems.error_count();
    check_times(&times, problems, &|i, problems, message| {
        problems.error(&index(&index(pointer, i), 0), message)
    });
    (ok && problems.error_count() == before).then_some(keys)
}

fn read_key(
    item: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    quaternions_allowed: bool,
) -> Option<Key<KeyValue>> {
    let parts = match item.as_array() {
        Some(parts) if (2..=4).contains(&parts.len()) => parts,
        _ => {
            problems.error(
                pointer,
                "a key must be [time, value] with an optional interpolation and extra",
            );
            return None;
        }
    };
    let time = parts
        .first()
        .and_then(|t| seconds(t, &index(pointer, 0), problems, "a key's time"));
    let value = parts
        .get(1)
        .and_then(|v| key_value(v, &index(pointer, 1), problems, what, quaternions_allowed));
    let interpolation = match parts.get(2) {
        Some(v) => read::one_of(
            v,
            &index(pointer, 2),
            problems,
            "interpolation",
            &INTERPOLATIONS,
        ),
        None => Some(Interpolation::Linear),
    };
    let mut ease = match interpolation {
        Some(Interpolation::Ease(family)) => default_ease(family),
        _ => EaseDirection::In,
    };
    let (mut handle_in, mut handle_out) = (None, None);
    let mut extra_ok = true;
    if let Some(extra) = parts.get(3) {
        let ep = index(pointer, 3);
        match Obj::new(extra, &ep, problems, "a key's extra") {
            Some(mut obj) => {
                let before = problems.error_count();
                if let Some((v, p)) = obj.opt("in") {
                    handle_in = handle(v, &p, problems, "in");
                }
                if let Some((v, p)) = obj.opt("out") {
                    handle_out = handle(v, &p, problems, "out");
                }
                if let Some((v, p)) = obj.opt("ease") {
                    if let Some(d) = read::one_of(v, &p, problems, "`ease`", &DIRECTIONS) {
                        ease = d;
                    }
                }
                if let Some((v, p)) = obj.opt("type") {
                    read::one_of(v, &p, problems, "key `type`", &KEY_TYPES);
                }
                for side in ["left", "right"] {
                    if let Some((v, p)) = obj.opt(side) {
                        read::one_of(
                            v,
                            &p,
                            problems,
                            &format!("handle type `{side}`"),
                            &HANDLE_TYPES,
                        );
                    }
                }
                obj.finish(problems, &["in", "out", "ease", "type", "left", "right"]);
                extra_ok = problems.error_count() == before;
            }
            None => extra_ok = false,
        }
    }
    if !extra_ok {
        return None;
    }
    Some(Key {
        time_secs: time?,
        value: value?,
        interpolation: interpolation?,
        ease,
        handle_in,
        handle_out,
    })
}

fn key_value(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    quaternions_allowed: bool,
) -> Option<KeyValue> {
    let len = value.as_array().map(Vec::len);
    if quaternions_allowed && len == Some(4) {
        let q = quaternion(value, pointer, problems, "a rotation key")?;
        return Some(KeyValue::Quaternion(q));
    }
    if quaternions_allowed && len != Some(3) {
        problems.error(
            pointer,
            "a rotation key must be [x, y, z] degrees or an [x, y, z, w] quaternion",
        );
        return None;
    }
    read::vec3(value, pointer, problems, &format!("a `{what}` key")).map(KeyValue::Vector)
}

/// Four finite numbers, not all zero, normalised.
pub(crate) fn quaternion(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
) -> Option<Quat> {
    if value.as_array().map(Vec::len) != Some(4) {
        problems.error(pointer, format!("{what} must be [x, y, z, w]"));
        return None;
    }
    let out = read::finite_numbers::<4>(value, pointer, problems, what)?;
    let q = Quat::from_array(out);
    let length = q.length();
    if !(length > 1e-6 && length.is_finite()) {
        problems.error(
            pointer,
            format!("{what} must not be all zeros (no rotation is [0, 0, 0, 1])"),
        );
        return None;
    }
    Some(q / length)
}

/// A bezier handle `[dt, dv]`: `dt` <= 0 for `in`, >= 0 for `out`; `dv` one
/// number or three.
fn handle(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    side: &str,
) -> Option<Handle> {
    let Some([dt, dv]) = value
        .as_array()
        .map(Vec::as_slice)
        .and_then(|s| <&[Value; 2]>::try_from(s).ok())
    else {
        problems.error(pointer, format!("handle `{side}` must be [dt, dv]"));
        return None;
    };
    let dtp = index(pointer, 0);
    let dt_secs = read::finite_number(dt, &dtp, problems, "a handle's dt");
    let dt_secs = dt_secs.and_then(|t| {
        let wrong = (side == "in" && t > 0.0) || (side == "out" && t < 0.0);
        if wrong {
            let rule = if side == "in" {
                "at most 0 (it points back)"
            } else {
                "at least 0 (it points ahead)"
            };
            problems.error(
                &dtp,
                format!("handle `{side}`'s dt must be {rule}, found {t}"),
            );
            return None;
        }
        Some(t)
    });
    let dvp = index(pointer, 1);
    let dv = match dv {
        Value::Number(_) => {
            read::finite_number(dv, &dvp, problems, "a handle's dv").map(Vec3::splat)
        }
        _ => read::vec3(
            dv,
            &dvp,
            problems,
            "a handle's dv (one number or [dx, dy, dz])",
        ),
    };
    Some(Handle {
        dt_secs: dt_secs?,
        dv: dv?,
    })
}
