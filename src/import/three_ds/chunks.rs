//! The chunk walker: `.3ds` chunks as offsets into the input, and a field
//! cursor that reads a chunk's data without ever reading past its end.
//!
//! # The model
//! A chunk is `u16 id, u32 length` (little-endian; the length counts the
//! 6-byte header), then its own data, then its children. The walker never
//! copies: a [`Chunk`] is the id and the byte range it covers, checked
//! when its header is read (length at least 6, inside its parent, depth
//! and count within [`Limits`]). Its children are visited with a
//! [`Siblings`] cursor, one header at a time, so a walker goes only where
//! its caller descends, and a chunk it does not know is skipped by its
//! length without a byte of it being read. The depth cap bounds any
//! caller that recurses; the chunk count bounds the work a file of many
//! tiny chunks can cause.
//!
//! [`Fields`] reads a chunk's data: numbers, vectors, NUL-terminated
//! strings and counts, each checked against the bytes left in the chunk.
//! A count is checked against those bytes (`count × smallest item`)
//! before the caller allocates anything for it.

use glam::Vec3;

use super::{Place, ReadError};

/// The size of a chunk header: `u16 id, u32 length`.
pub const HEADER_BYTES: usize = 6;

/// How much the reader accepts before refusing a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest input, in bytes (64 MiB by default; keyframer files are
    /// kilobytes, whole scenes with meshes a few megabytes).
    pub max_file_bytes: usize,
    /// The deepest nesting, the main chunk being depth 1 (32 by default;
    /// real files nest about 6 deep).
    pub max_depth: usize,
    /// The most chunk headers read in one file (1,000,000 by default).
    pub max_chunks: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file_bytes: 64 * 1024 * 1024,
            max_depth: 32,
            max_chunks: 1_000_000,
        }
    }
}

/// One chunk: its id and the bytes it covers in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The chunk id.
    pub id: u16,
    /// The offset of its header.
    pub offset: usize,
    /// The offset just past its last byte.
    pub end: usize,
    /// Its depth: 1 for the top-level chunk.
    pub depth: usize,
}

impl Chunk {
    /// The offset of its first data byte.
    pub fn body_offset(&self) -> usize {
        self.offset + HEADER_BYTES
    }
}

/// A cursor over the chunks one after another in a byte range (a chunk's
/// children, or the file's top level).
#[derive(Clone, Debug)]
pub struct Siblings {
    at: usize,
    end: usize,
    depth: usize,
    parent: Place,
}

/// Reads chunk headers from the input, counting them against [`Limits`].
#[derive(Debug)]
pub struct Walker<'a> {
    bytes: &'a [u8],
    limits: Limits,
    chunk_count: usize,
}

impl<'a> Walker<'a> {
    /// A walker over `bytes`; refuses an input over
    /// [`Limits::max_file_bytes`].
    pub fn new(bytes: &'a [u8], limits: Limits) -> Result<Walker<'a>, ReadError> {
        if bytes.len() > limits.max_file_bytes {
            return Err(ReadError::TooLarge {
                offset: limits.max_file_bytes,
                size_bytes: bytes.len(),
                max_bytes: limits.max_file_bytes,
            });
        }
        Ok(Walker {
            bytes,
            limits,
            chunk_count: 0,
        })
    }

    /// The chunks at the top level of the input (trailing bytes past the
    /// first chunk are the caller's to ignore or read).
    pub fn top_level(&self) -> Siblings {
        Siblings {
            at: 0,
            end: self.bytes.len(),
            depth: 1,
            parent: Place::File,
        }
    }

    /// The children of `chunk`, which start `data_bytes` bytes into its
    /// body, after its own fixed data (clamped to its end: a chunk whose
    /// data fills it has no children).
    pub fn children(&self, chunk: &Chunk, data_bytes: usize) -> Siblings {
        Siblings {
            at: chunk
                .body_offset()
                .saturating_add(data_bytes)
                .min(chunk.end),
            end: chunk.end,
            depth: chunk.depth + 1,
            parent: Place::Chunk(chunk.id),
        }
    }

    /// The next chunk in `siblings`, or `None` at their end. The chunk's
    /// header is checked; its contents are not read.
    pub fn next(&mut self, siblings: &mut Siblings) -> Result<Option<Chunk>, ReadError> {
        if siblings.at >= siblings.end {
            return Ok(None);
        }
        let offset = siblings.at;
        let left_bytes = siblings.end - offset;
        let header = self
            .bytes
            .get(offset..offset + HEADER_BYTES)
            .filter(|_| left_bytes >= HEADER_BYTES);
        let Some(header) = header else {
            return Err(ReadError::TruncatedHeader {
                offset,
                left_bytes,
                parent: siblings.parent,
            });
        };
        let id = u16::from_le_bytes([header[0], header[1]]);
        let length = u32::from_le_bytes([header[2], header[3], header[4], header[5]]);
        self.chunk_count += 1;
        if self.chunk_count > self.limits.max_chunks {
            return Err(ReadError::TooManyChunks {
                offset,
                count: self.chunk_count,
                max_chunks: self.limits.max_chunks,
            });
        }
        if siblings.depth > self.limits.max_depth {
            return Err(ReadError::TooDeep {
                offset,
                id,
                depth: siblings.depth,
                max_depth: self.limits.max_depth,
            });
        }
        let length_bytes = usize::try_from(length).unwrap_or(usize::MAX);
        if length_bytes < HEADER_BYTES {
            return Err(ReadError::ShortChunk { offset, id, length });
        }
        if length_bytes > left_bytes {
            return Err(ReadError::PastParent {
                offset,
                id,
                length,
                parent: siblings.parent,
                parent_end: siblings.end,
            });
        }
        let end = offset + length_bytes;
        siblings.at = end;
        Ok(Some(Chunk {
            id,
            offset,
            end,
            depth: siblings.depth,
        }))
    }

    /// A cursor over `chunk`'s data, from its first byte to its end.
    pub fn fields(&self, chunk: &Chunk) -> Fields<'a> {
        Fields {
            bytes: self.bytes,
            at: chunk.body_offset().min(chunk.end),
            end: chunk.end,
            chunk: chunk.id,
        }
    }
}

/// Reads little-endian fields from one chunk, never past its end.
#[derive(Clone, Debug)]
pub struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
    end: usize,
    chunk: u16,
}

impl<'a> Fields<'a> {
    /// The offset of the next byte.
    pub fn offset(&self) -> usize {
        self.at
    }

    /// The bytes left in the chunk.
    pub fn remaining(&self) -> usize {
        self.end.saturating_sub(self.at)
    }

    /// The next `n` bytes; `what` names them when they are not there.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ReadError> {
        let slice = (n <= self.remaining())
            .then(|| self.bytes.get(self.at..self.at + n))
            .flatten();
        let Some(slice) = slice else {
            return Err(ReadError::Truncated {
                offset: self.at,
                what,
                needed_bytes: n,
                left_bytes: self.remaining(),
                chunk: self.chunk,
            });
        };
        self.at += n;
        Ok(slice)
    }

    /// A `u16`.
    pub fn u16(&mut self, what: &'static str) -> Result<u16, ReadError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// A `u32`.
    pub fn u32(&mut self, what: &'static str) -> Result<u32, ReadError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// An `i32`.
    pub fn i32(&mut self, what: &'static str) -> Result<i32, ReadError> {
        let b = self.take(4, what)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A finite `f32` (NaN and infinities are refused).
    pub fn f32(&mut self, what: &'static str) -> Result<f32, ReadError> {
        let offset = self.at;
        let value = f32::from_bits(self.u32(what)?);
        if !value.is_finite() {
            return Err(ReadError::NotFinite {
                offset,
                what,
                value,
            });
        }
        Ok(value)
    }

    /// A finite `f32` within `min..=max`.
    pub fn f32_in(&mut self, what: &'static str, min: f32, max: f32) -> Result<f32, ReadError> {
        let offset = self.at;
        let value = self.f32(what)?;
        if !(min..=max).contains(&value) {
            return Err(ReadError::OutOfRange {
                offset,
                what,
                value,
                min,
                max,
            });
        }
        Ok(value)
    }

    /// Three finite `f32`s.
    pub fn vec3(&mut self, what: &'static str) -> Result<Vec3, ReadError> {
        Ok(Vec3::new(self.f32(what)?, self.f32(what)?, self.f32(what)?))
    }

    /// A NUL-terminated string, its bytes read as Latin-1 (3D Studio names
    /// are 8-bit text; Latin-1 gives every byte one character, so no name
    /// is refused or changed by decoding).
    pub fn cstring(&mut self, what: &'static str) -> Result<String, ReadError> {
        let offset = self.at;
        let rest = self.bytes.get(self.at..self.end).unwrap_or_default();
        let Some(nul) = rest.iter().position(|&b| b == 0) else {
            return Err(ReadError::Unterminated {
                offset,
                what,
                chunk: self.chunk,
            });
        };
        let text = rest.get(..nul).unwrap_or_default();
        self.at += nul + 1;
        Ok(text.iter().map(|&b| char::from(b)).collect())
    }

    /// A `u32` count of items of at least `each_bytes` bytes, refused when
    /// that many cannot fit in the bytes left, so the caller may reserve
    /// room for them.
    pub fn count(&mut self, what: &'static str, each_bytes: usize) -> Result<usize, ReadError> {
        let offset = self.at;
        let count = self.u32(what)?;
        let items = usize::try_from(count).unwrap_or(usize::MAX);
        if items.saturating_mul(each_bytes.max(1)) > self.remaining() {
            return Err(ReadError::CountTooLarge {
                offset,
                what,
                count,
                each_bytes,
                left_bytes: self.remaining(),
                chunk: self.chunk,
            });
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk of `body` (the writer's, kept here so the walker's tests
    /// need nothing above it).
    fn chunk(id: u16, body: &[u8]) -> Vec<u8> {
        let mut out = id.to_le_bytes().to_vec();
        out.extend_from_slice(&(HEADER_BYTES as u32 + body.len() as u32).to_le_bytes());
        out.extend_from_slice(body);
        out
    }

    /// Walks every chunk below `siblings`, descending into each one
    /// (a test walker that treats every chunk as a container).
    fn walk_all(walker: &mut Walker<'_>, mut siblings: Siblings) -> Result<usize, ReadError> {
        let mut seen = 0;
        while let Some(c) = walker.next(&mut siblings)? {
            seen += 1;
            let inner = walker.children(&c, 0);
            seen += walk_all(walker, inner)?;
        }
        Ok(seen)
    }

    #[test]
    fn a_chunk_covers_its_header_and_body_and_children_follow_its_data() {
        // 0x1000 of 6 + 2 + 6 = 14 bytes: 2 data bytes, then a 6-byte child.
        let child = chunk(0x2000, &[]);
        let mut body = vec![0xAA, 0xBB];
        body.extend_from_slice(&child);
        let bytes = chunk(0x1000, &body);
        let mut walker = Walker::new(&bytes, Limits::default()).expect("small");
        let mut top = walker.top_level();
        let c = walker.next(&mut top).expect("valid").expect("one chunk");
        assert_eq!((c.id, c.offset, c.end, c.depth), (0x1000, 0, 14, 1));
        let mut kids = walker.children(&c, 2);
        let k = walker.next(&mut kids).expect("valid").expect("a child");
        assert_eq!((k.id, k.offset, k.end, k.depth), (0x2000, 8, 14, 2));
        assert_eq!(walker.next(&mut kids), Ok(None));
        assert_eq!(walker.next(&mut top), Ok(None));
    }

    #[test]
    fn a_length_below_six_is_refused_at_its_header() {
        // A child at byte 6 says 5 bytes: it could never be stepped over.
        let bytes = chunk(0x1000, &[0x00, 0x20, 5, 0, 0, 0]);
        let mut walker = Walker::new(&bytes, Limits::default()).expect("small");
        let mut top = walker.top_level();
        let c = walker.next(&mut top).expect("valid").expect("one");
        let inner = walker.children(&c, 0);
        let err = walk_all(&mut walker, inner).expect_err("short");
        assert_eq!(
            err,
            ReadError::ShortChunk {
                offset: 6,
                id: 0x2000,
                length: 5
            }
        );
    }

    #[test]
    fn a_child_past_its_parents_end_is_refused_at_the_child() {
        // Parent of 6 + 8 bytes; its child at byte 6 claims 9 bytes, one
        // more than the 8 left.
        let mut body = chunk(0x2000, &[1, 2]);
        body[2] = 9;
        let bytes = chunk(0x1000, &body);
        let mut walker = Walker::new(&bytes, Limits::default()).expect("small");
        let top = walker.top_level();
        let err = walk_all(&mut walker, top).expect_err("past");
        assert_eq!(
            err,
            ReadError::PastParent {
                offset: 6,
                id: 0x2000,
                length: 9,
                parent: Place::Chunk(0x1000),
                parent_end: 14
            }
        );
    }

    #[test]
    fn nesting_deeper_than_the_cap_is_refused_at_the_first_chunk_too_deep() {
        // 40 empty chunks, each inside the one before: chunk k (depth k+1)
        // starts at byte 6k. With a cap of 32, chunk 32 (depth 33) at byte
        // 192 is the first refused.
        let mut bytes = chunk(0x3000, &[]);
        for _ in 0..39 {
            bytes = chunk(0x3000, &bytes);
        }
        let mut walker = Walker::new(&bytes, Limits::default()).expect("small");
        let top = walker.top_level();
        let err = walk_all(&mut walker, top).expect_err("deep");
        assert_eq!(
            err,
            ReadError::TooDeep {
                offset: 192,
                id: 0x3000,
                depth: 33,
                max_depth: 32
            }
        );
    }

    #[test]
    fn more_chunks_than_the_cap_are_refused_at_the_first_one_over() {
        // A parent with 5 empty children; with room for 4 chunks in all,
        // the 4th child (the 5th chunk) at byte 6 + 3·6 = 24 is refused.
        let mut body = Vec::new();
        for _ in 0..5 {
            body.extend_from_slice(&chunk(0x2000, &[]));
        }
        let bytes = chunk(0x1000, &body);
        let limits = Limits {
            max_chunks: 4,
            ..Limits::default()
        };
        let mut walker = Walker::new(&bytes, limits).expect("small");
        let top = walker.top_level();
        let err = walk_all(&mut walker, top).expect_err("many");
        assert_eq!(
            err,
            ReadError::TooManyChunks {
                offset: 24,
                count: 5,
                max_chunks: 4
            }
        );
    }

    #[test]
    fn a_file_over_the_size_cap_is_refused_before_anything_is_read() {
        let bytes = vec![0u8; 101];
        let limits = Limits {
            max_file_bytes: 100,
            ..Limits::default()
        };
        let err = Walker::new(&bytes, limits).expect_err("large");
        assert_eq!(err.offset(), 100);
        assert!(Walker::new(&bytes[..100], limits).is_ok());
    }

    #[test]
    fn a_truncated_header_names_where_it_starts_and_what_is_left() {
        let bytes = [0x4D, 0x4D, 6, 0];
        let mut walker = Walker::new(&bytes, Limits::default()).expect("small");
        let mut top = walker.top_level();
        assert_eq!(
            walker.next(&mut top),
            Err(ReadError::TruncatedHeader {
                offset: 0,
                left_bytes: 4,
                parent: Place::File
            })
        );
    }

    #[test]
    fn fields_stop_at_the_chunk_end_and_check_strings_and_counts() {
        // Chunk body: "ab\0", u32 count 3, then 8 bytes; 3 items of 4 bytes
        // need 12. The chunk is followed by more bytes, which must not be
        // read as if they were its own.
        let mut body = b"ab\0".to_vec();
        body.extend_from_slice(&3u32.to_le_bytes());
        body.extend_from_slice(&[0; 8]);
        let mut bytes = chunk(0x1000, &body);
        bytes.extend_from_slice(&[0xFF; 16]);
        let mut walker = Walker::new(&bytes, Limits::default()).expect("small");
        let c = walker
            .next(&mut walker.top_level())
            .expect("valid")
            .expect("one");
        let mut fields = walker.fields(&c);
        assert_eq!(fields.cstring("name"), Ok("ab".to_owned()));
        let err = fields.count("key count", 4).expect_err("too many");
        assert_eq!(err.offset(), 9);
        let mut fields = walker.fields(&c);
        fields.take(3, "name").expect("there");
        fields.take(4, "count").expect("there");
        fields.take(8, "items").expect("there");
        assert_eq!(
            fields.u16("more"),
            Err(ReadError::Truncated {
                offset: 21,
                what: "more",
                needed_bytes: 2,
                left_bytes: 0,
                chunk: 0x1000
            })
        );
        // A string whose NUL would only come after the chunk's end.
        let bytes = chunk(0x1000, b"abc");
        let c = Chunk {
            id: 0x1000,
            offset: 0,
            end: bytes.len(),
            depth: 1,
        };
        let walker = Walker::new(&bytes, Limits::default()).expect("small");
        assert_eq!(
            walker.fields(&c).cstring("name"),
            Err(ReadError::Unterminated {
                offset: 6,
                what: "name",
                chunk: 0x1000
            })
        );
    }

    #[test]
    fn a_non_finite_number_is_refused_where_it_is() {
        let bytes = chunk(0x1000, &f32::NAN.to_le_bytes());
        let mut walker = Walker::new(&bytes, Limits::default()).expect("small");
        let c = walker
            .next(&mut walker.top_level())
            .expect("valid")
            .expect("one");
        let err = walker.fields(&c).f32("tension").expect_err("NaN");
        assert_eq!(err.offset(), 6);
        assert!(matches!(
            err,
            ReadError::NotFinite {
                what: "tension",
                ..
            }
        ));
    }
}
