//! A cursor over untrusted bytes, and the one error every reader returns.

/// Why bytes could not be read: where (the byte offset into the packet)
/// and the rule they broke.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}: {rule}")]
pub struct WireError {
    /// The offset of the first byte that broke the rule.
    pub offset: usize,
    /// The rule.
    pub rule: String,
}

/// Reads big-endian numbers and sized strings, never past the end.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Added to offsets in errors (the payload's place in its packet).
    base: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`, which start at offset `base` of the packet.
    pub(crate) fn new(bytes: &'a [u8], base: usize) -> Self {
        Reader { bytes, at: 0, base }
    }

    /// The offset (in the packet) of the next byte.
    pub(crate) fn offset(&self) -> usize {
        self.base + self.at
    }

    /// Bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// An error at the next byte.
    pub(crate) fn error(&self, rule: impl Into<String>) -> WireError {
        WireError {
            offset: self.offset(),
            rule: rule.into(),
        }
    }

    /// The next `n` bytes; `what` names them when they are missing.
    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], WireError> {
        if n > self.remaining() {
            return Err(self.error(format!(
                "{what} needs {n} bytes, {} are left",
                self.remaining()
            )));
        }
        let slice = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(slice)
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8, WireError> {
        Ok(self.take(1, what)?[0])
    }

    pub(crate) fn bool(&mut self, what: &str) -> Result<bool, WireError> {
        Ok(self.u8(what)? != 0)
    }

    pub(crate) fn i32(&mut self, what: &str) -> Result<i32, WireError> {
        let b = self.take(4, what)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn i64(&mut self, what: &str) -> Result<i64, WireError> {
        let b = self.take(8, what)?;
        let mut a = [0; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    pub(crate) fn f32(&mut self, what: &str) -> Result<f32, WireError> {
        Ok(f32::from_bits(self.i32(what)? as u32))
    }

    /// A count of things of at least `min_bytes` each, checked against
    /// what is left so nothing is allocated for bytes that are not there.
    pub(crate) fn count(&mut self, what: &str, min_bytes: usize) -> Result<usize, WireError> {
        let at = self.offset();
        let n = self.i32(what)?;
        let n = usize::try_from(n).map_err(|_| WireError {
            offset: at,
            rule: format!("{what} is negative ({n})"),
        })?;
        if n.saturating_mul(min_bytes.max(1)) > self.remaining() {
            return Err(WireError {
                offset: at,
                rule: format!(
                    "{what} is {n}, more than the {} bytes left can hold",
                    self.remaining()
                ),
            });
        }
        Ok(n)
    }

    /// An `i32` byte length and that many bytes of UTF-8.
    pub(crate) fn string(&mut self, what: &str) -> Result<String, WireError> {
        let n = self.count(what, 1)?;
        let at = self.offset();
        let bytes = self.take(n, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| WireError {
            offset: at,
            rule: format!("{what} is not UTF-8"),
        })
    }
}

/// Writes big-endian numbers and sized strings.
pub(crate) fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub(crate) fn put_i64(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub(crate) fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_bits().to_be_bytes());
}

/// A length-prefixed UTF-8 string (lengths past `i32::MAX` are cut there;
/// nothing this server writes comes near).
pub(crate) fn put_string(out: &mut Vec<u8>, s: &str) {
    let len = s.len().min(i32::MAX as usize);
    put_i32(out, len as i32);
    out.extend_from_slice(&s.as_bytes()[..len]);
}
