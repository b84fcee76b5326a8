//! The GLB container, read without trusting a byte.
//!
//! A GLB file is a 12-byte header (`magic` "glTF", `version` 2, `length`
//! the whole file's size), then chunks: a `u32` data length, a `u32` type
//! and the data, padded to 4 bytes. The first chunk is the JSON (type
//! "JSON"), the optional second the binary buffer (type "BIN\0"); chunks of
//! other types are skipped, as the specification asks. All numbers are
//! little-endian.
//!
//! The `gltf` crate's own GLB reader subtracts the header size from the
//! declared length without a check (a declared length under 12 underflows:
//! a panic in debug builds) and refuses unknown chunk types, so emoted
//! splits the container itself and hands the crate only the JSON.
//! Chunks follow each other and each takes at least its 8-byte header, so
//! the walk cannot loop; [`MAX_CHUNKS`] bounds it all the same.

use super::GltfError;

/// The GLB magic, "glTF" read as a little-endian `u32`.
pub const GLB_MAGIC: [u8; 4] = *b"glTF";
/// The JSON chunk type.
const JSON_CHUNK: [u8; 4] = *b"JSON";
/// The binary chunk type.
const BIN_CHUNK: [u8; 4] = *b"BIN\0";
/// The header's size in bytes.
const HEADER_BYTES: usize = 12;
/// A chunk header's size in bytes.
const CHUNK_HEADER_BYTES: usize = 8;
/// The most chunks a GLB may have (two are defined; the rest are skipped).
pub const MAX_CHUNKS: usize = 1024;

/// A GLB split into its JSON and binary chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Glb<'a> {
    /// The JSON chunk's data, padding included.
    pub json: &'a [u8],
    /// Where the JSON chunk's data starts in the input.
    pub json_offset: usize,
    /// The binary chunk's data, if there is one.
    pub bin: Option<&'a [u8]>,
}

/// Whether `bytes` starts like a GLB file.
pub fn is_glb(bytes: &[u8]) -> bool {
    bytes.starts_with(&GLB_MAGIC)
}

/// The little-endian `u32` at `offset`, or the truncation error naming it.
fn u32_at(bytes: &[u8], offset: usize, what: &'static str) -> Result<u32, GltfError> {
    let field = offset
        .checked_add(4)
        .and_then(|end| bytes.get(offset..end))
        .ok_or(GltfError::GlbTruncated {
            offset,
            what,
            needed_bytes: 4,
            left_bytes: bytes.len().saturating_sub(offset),
        })?;
    let mut word = [0u8; 4];
    word.copy_from_slice(field);
    Ok(u32::from_le_bytes(word))
}

/// Splits a GLB file (which starts with [`GLB_MAGIC`]) into its chunks.
pub fn split(bytes: &[u8]) -> Result<Glb<'_>, GltfError> {
    if !is_glb(bytes) {
        return Err(GltfError::GlbTruncated {
            offset: 0,
            what: "the \"glTF\" magic",
            needed_bytes: 4,
            left_bytes: bytes.len(),
        });
    }
    let version = u32_at(bytes, 4, "the header's version")?;
    if version != 2 {
        return Err(GltfError::GlbVersion { offset: 4, version });
    }
    let declared = u32_at(bytes, 8, "the header's length")? as usize;
    if declared != bytes.len() {
        return Err(GltfError::GlbLength {
            offset: 8,
            declared_bytes: declared,
            actual_bytes: bytes.len(),
        });
    }

    let mut json: Option<(usize, &[u8])> = None;
    let mut bin = None;
    let mut offset = HEADER_BYTES;
    let mut index = 0usize;
    while offset < bytes.len() {
        if index >= MAX_CHUNKS {
            return Err(GltfError::GlbChunk {
                offset,
                rule: format!("a GLB file has at most {MAX_CHUNKS} chunks; this one has more"),
            });
        }
        let length = u32_at(bytes, offset, "a chunk's length")? as usize;
        let kind_offset = offset + 4;
        let kind = kind_offset
            .checked_add(4)
            .and_then(|end| bytes.get(kind_offset..end))
            .ok_or(GltfError::GlbTruncated {
                offset: kind_offset,
                what: "a chunk's type",
                needed_bytes: 4,
                left_bytes: bytes.len().saturating_sub(kind_offset),
            })?;
        let data_offset = offset + CHUNK_HEADER_BYTES;
        if !length.is_multiple_of(4) {
            return Err(GltfError::GlbChunk {
                offset,
                rule: format!("chunk {index} is {length} bytes long; chunk data is padded to a multiple of 4 bytes"),
            });
        }
        let left = bytes.len() - data_offset;
        let data = bytes
            .get(data_offset..data_offset.saturating_add(length))
            .filter(|_| length <= left)
            .ok_or_else(|| GltfError::GlbChunk {
                offset,
                rule: format!(
                    "chunk {index} says it holds {length} bytes but only {left} are left in the file"
                ),
            })?;
        match (index, kind) {
            (0, k) if k == JSON_CHUNK => json = Some((data_offset, data)),
            (0, _) => {
                return Err(GltfError::GlbChunk {
                    offset: kind_offset,
                    rule: format!(
                        "the first chunk must be the JSON chunk (type \"JSON\"), not {}",
                        chunk_kind(kind)
                    ),
                })
            }
            (1, k) if k == BIN_CHUNK => bin = Some(data),
            (_, k) if k == JSON_CHUNK || k == BIN_CHUNK => {
                return Err(GltfError::GlbChunk {
                    offset: kind_offset,
                    rule: format!(
                        "chunk {index} is a second {} chunk; a GLB has one JSON chunk first and at most one BIN chunk second",
                        chunk_kind(kind)
                    ),
                })
            }
            // Unknown chunk types are skipped, as the specification asks.
            _ => {}
        }
        offset = data_offset + length;
        index += 1;
    }
    let Some((json_offset, json)) = json else {
        return Err(GltfError::GlbTruncated {
            offset: HEADER_BYTES,
            what: "the JSON chunk",
            needed_bytes: CHUNK_HEADER_BYTES,
            left_bytes: bytes.len().saturating_sub(HEADER_BYTES),
        });
    };
    Ok(Glb {
        json,
        json_offset,
        bin,
    })
}

/// A chunk type for a message: its text when printable, else its hex.
fn chunk_kind(kind: &[u8]) -> String {
    let printable = kind.iter().all(|&b| b == 0 || b.is_ascii_graphic());
    if printable {
        let text: String = kind
            .iter()
            .map(|&b| {
                if b == 0 {
                    "\\0".to_owned()
                } else {
                    char::from(b).to_string()
                }
            })
            .collect();
        format!("\"{text}\"")
    } else {
        let hex: Vec<String> = kind.iter().map(|b| format!("{b:02x}")).collect();
        format!("0x{}", hex.concat())
    }
}
