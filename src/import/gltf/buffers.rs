//! The bytes of the buffers an animation reads, resolved without the
//! `gltf` crate's `import` feature (which would bring an image decoder).
//!
//! A buffer is one of:
//! - the GLB's BIN chunk: `buffers[0]` with no `uri`, in a GLB file;
//! - a `data:` URI with base64 content (`data:application/octet-stream;base64,…`);
//! - a relative file (percent-encoded, `/`-separated) under
//!   [`ConvertOptions::base_dir`]: absolute paths, `..`, other schemes
//!   (`http:`) and paths that leave the folder through a link are refused.
//!
//! Every buffer is held to [`MAX_INPUT_BYTES`] and all of them together
//! too, and each must hold at least its `byteLength` (the BIN chunk may be
//! up to 3 bytes longer, its padding); only the first `byteLength` bytes
//! are used.

use std::borrow::Cow;
use std::path::{Component, Path};

use ::gltf::json::Root;
use base64::Engine;

use super::{GltfError, MAX_INPUT_BYTES};
use crate::import::ConvertOptions;

/// The resolved buffers, by index; `None` for one no accessor read needs.
#[derive(Debug, Default)]
pub struct Buffers<'a> {
    data: Vec<Option<Cow<'a, [u8]>>>,
}

impl<'a> Buffers<'a> {
    /// Resolves the buffers whose indices `needed` lists (others stay
    /// unread). `blob` is the GLB's BIN chunk.
    pub fn resolve(
        root: &Root,
        needed: &[usize],
        blob: Option<&'a [u8]>,
        options: &ConvertOptions,
    ) -> Result<Buffers<'a>, GltfError> {
        let mut data: Vec<Option<Cow<'a, [u8]>>> = vec![None; root.buffers.len()];
        let mut total_bytes = 0u64;
        for &index in needed {
            let pointer = format!("/buffers/{index}");
            let Some(buffer) = root.buffers.get(index) else {
                return Err(GltfError::Invalid {
                    pointer,
                    rule: format!("there are only {} buffers", root.buffers.len()),
                });
            };
            if data.get(index).is_some_and(Option::is_some) {
                continue;
            }
            let bytes: Cow<'a, [u8]> = match buffer.uri.as_deref() {
                None => match (index, blob) {
                    (0, Some(blob)) => Cow::Borrowed(blob),
                    _ => {
                        return Err(GltfError::Invalid {
                            pointer: format!("{pointer}/uri"),
                            rule: "a buffer without a uri is the GLB's BIN chunk, which only buffer 0 of a GLB file with a BIN chunk can be".to_owned(),
                        })
                    }
                },
                Some(uri) if uri.starts_with("data:") => {
                    Cow::Owned(data_uri(uri, &format!("{pointer}/uri"))?)
                }
                Some(uri) => Cow::Owned(file(uri, &format!("{pointer}/uri"), options)?),
            };
            let declared = buffer.byte_length.0;
            if (bytes.len() as u64) < declared {
                return Err(GltfError::Invalid {
                    pointer: format!("{pointer}/byteLength"),
                    rule: format!(
                        "the buffer says it holds {declared} bytes but its data has {}",
                        bytes.len()
                    ),
                });
            }
            total_bytes = total_bytes.saturating_add(declared);
            if total_bytes > MAX_INPUT_BYTES as u64 {
                return Err(GltfError::TooLarge {
                    place: pointer,
                    size_bytes: total_bytes,
                    max_bytes: MAX_INPUT_BYTES as u64,
                });
            }
            // `declared` is at most `bytes.len()`, so this only cuts padding.
            let used = match bytes {
                Cow::Borrowed(b) => Cow::Borrowed(b.get(..declared as usize).unwrap_or(b)),
                Cow::Owned(mut b) => {
                    b.truncate(declared as usize);
                    Cow::Owned(b)
                }
            };
            if let Some(slot) = data.get_mut(index) {
                *slot = Some(used);
            }
        }
        Ok(Buffers { data })
    }

    /// Buffer `index`'s bytes, if it was resolved.
    pub fn get(&self, index: usize) -> Option<&[u8]> {
        self.data.get(index).and_then(|d| d.as_deref())
    }
}

/// The bytes of a base64 `data:` URI.
fn data_uri(uri: &str, pointer: &str) -> Result<Vec<u8>, GltfError> {
    let Some((header, payload)) = uri.split_once(',') else {
        return Err(GltfError::Invalid {
            pointer: pointer.to_owned(),
            rule: "a data URI has a `,` between its media type and its data".to_owned(),
        });
    };
    if !header.ends_with(";base64") {
        return Err(GltfError::Invalid {
            pointer: pointer.to_owned(),
            rule: "only base64 data URIs (`data:…;base64,…`) hold buffers".to_owned(),
        });
    }
    let decoded_bytes = (payload.len() as u64 / 4).saturating_mul(3);
    if decoded_bytes > MAX_INPUT_BYTES as u64 {
        return Err(GltfError::TooLarge {
            place: pointer.to_owned(),
            size_bytes: decoded_bytes,
            max_bytes: MAX_INPUT_BYTES as u64,
        });
    }
    base64::engine::general_purpose::STANDARD
        .decode(payload.trim_end())
        .map_err(|e| GltfError::Invalid {
            pointer: pointer.to_owned(),
            rule: format!("the data URI is not valid base64: {e}"),
        })
}

/// The bytes of the relative file `uri` under the options' folder.
fn file(uri: &str, pointer: &str, options: &ConvertOptions) -> Result<Vec<u8>, GltfError> {
    let refuse = |rule: String| GltfError::Invalid {
        pointer: pointer.to_owned(),
        rule,
    };
    let decoded = percent_decode(uri).ok_or_else(|| {
        refuse(format!(
            "`{uri}` has a broken percent escape or is not UTF-8"
        ))
    })?;
    let scheme = decoded
        .split_once(':')
        .is_some_and(|(s, _)| !s.is_empty() && !s.contains('/'));
    let relative = Path::new(&decoded);
    let escapes = relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    if scheme || escapes || decoded.starts_with('/') || decoded.starts_with('\\') {
        return Err(refuse(format!(
            "`{uri}` is not a relative path inside the glTF's folder; emoted reads only data: URIs and files beside the glTF (no `..`, no absolute paths, no URLs)"
        )));
    }
    let Some(base) = options.base_dir.as_deref() else {
        return Err(refuse(format!(
            "`{uri}` names a file, but the glTF was given without its folder; convert the file from disk or embed the buffer (GLB or a data URI)"
        )));
    };
    let path = base.join(relative);
    let io = |e: std::io::Error| refuse(format!("`{}` cannot be read: {e}", path.display()));
    let inside = match (base.canonicalize(), path.canonicalize()) {
        (Ok(base), Ok(full)) => full.starts_with(base),
        (_, Err(e)) => return Err(io(e)),
        (Err(e), _) => return Err(io(e)),
    };
    if !inside {
        return Err(refuse(format!(
            "`{uri}` leads outside the glTF's folder (through a link); emoted reads only files beside the glTF"
        )));
    }
    let size_bytes = std::fs::metadata(&path).map_err(io)?.len();
    if size_bytes > MAX_INPUT_BYTES as u64 {
        return Err(GltfError::TooLarge {
            place: pointer.to_owned(),
            size_bytes,
            max_bytes: MAX_INPUT_BYTES as u64,
        });
    }
    std::fs::read(&path).map_err(io)
}

/// `text` with `%XX` escapes decoded, or `None` when an escape is broken
/// or the result is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn percent_escapes_decode_and_broken_ones_are_refused() {
        assert_eq!(percent_decode("a%20b.bin").as_deref(), Some("a b.bin"));
        assert_eq!(percent_decode("plain.bin").as_deref(), Some("plain.bin"));
        assert_eq!(percent_decode("bad%2"), None);
        assert_eq!(percent_decode("bad%zz"), None);
        assert_eq!(percent_decode("%ff"), None);
    }
}
