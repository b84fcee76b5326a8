//! A test-only `.3ds` writer: chunk bytes built from the documented
//! layout (module guides of [`super::chunks`], [`super::tracks`] and
//! [`super::keyframer`]), so tests can make any file, valid or not.

use super::tracks::Spline;

/// A chunk: `u16 id`, `u32 length` (6 + body), then `body`.
pub(crate) fn chunk(id: u16, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(6 + body.len());
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&(6 + body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// A chunk whose body is its children, one after another.
pub(crate) fn parent(id: u16, children: &[Vec<u8>]) -> Vec<u8> {
    chunk(id, &children.concat())
}

/// `0x4D4D` main holding `0xB000` keyframer holding `children`.
pub(crate) fn file(children: &[Vec<u8>]) -> Vec<u8> {
    parent(0x4D4D, &[parent(0xB000, children)])
}

/// `0xB030` node id.
pub(crate) fn node_id(id: u16) -> Vec<u8> {
    chunk(0xB030, &id.to_le_bytes())
}

/// `0xB010` node header: name, flags 1, flags 2, parent id.
pub(crate) fn node_header(name: &str, flags1: u16, parent_id: u16) -> Vec<u8> {
    let mut body = name.as_bytes().to_vec();
    body.push(0);
    body.extend_from_slice(&flags1.to_le_bytes());
    body.extend_from_slice(&0u16.to_le_bytes());
    body.extend_from_slice(&parent_id.to_le_bytes());
    chunk(0xB010, &body)
}

/// Three floats.
pub(crate) fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// `0xB013` pivot.
pub(crate) fn pivot(p: [f32; 3]) -> Vec<u8> {
    chunk(0xB013, &floats(&p))
}

/// One key: frame, spline flags with a bit for each non-zero parameter,
/// those parameters in order, then `value`.
pub(crate) fn key(frame: i32, spline: Spline, value: &[f32]) -> Vec<u8> {
    let params = [
        (Spline::TENSION, spline.tension),
        (Spline::CONTINUITY, spline.continuity),
        (Spline::BIAS, spline.bias),
        (Spline::EASE_TO, spline.ease_to),
        (Spline::EASE_FROM, spline.ease_from),
    ];
    let bits = params
        .iter()
        .filter(|(_, v)| *v != 0.0)
        .fold(0u16, |b, (bit, _)| b | bit);
    let mut out = frame.to_le_bytes().to_vec();
    out.extend_from_slice(&bits.to_le_bytes());
    for (_, v) in params.iter().filter(|(_, v)| *v != 0.0) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&floats(value));
    out
}

/// A track chunk: flags, 8 zero bytes, the key count, the keys.
pub(crate) fn track(id: u16, flags: u16, keys: &[Vec<u8>]) -> Vec<u8> {
    let mut body = flags.to_le_bytes().to_vec();
    body.extend_from_slice(&[0; 8]);
    body.extend_from_slice(&(keys.len() as u32).to_le_bytes());
    body.extend_from_slice(&keys.concat());
    chunk(id, &body)
}

/// A linear key (continuity −1) of `value`.
pub(crate) fn linear(frame: i32, value: &[f32]) -> Vec<u8> {
    let spline = Spline {
        continuity: -1.0,
        ..Spline::default()
    };
    key(frame, spline, value)
}

/// A Catmull-Rom key (no parameters) of `value`.
pub(crate) fn plain(frame: i32, value: &[f32]) -> Vec<u8> {
    key(frame, Spline::default(), value)
}
