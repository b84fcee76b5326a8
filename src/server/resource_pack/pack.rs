//! The pack as served: its bytes and their SHA-1, and the one function that
//! makes it from the loaded emotes ([`current_pack`]), the seam where the
//! pack builder plugs in.

use hyper::body::Bytes;
use sha1::{Digest, Sha1};

use crate::library::Library;
use crate::pack::ids::SliceTable;
use crate::pack::{PackError, ResourcePack};

/// One version of the resource pack, as the HTTP server sends it and as
/// players are offered it: the file's bytes and the SHA-1 of exactly those
/// bytes (40 lowercase hex digits), which names it in the URL and which the
/// client checks after downloading. Cheap to clone (the bytes are shared).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedPack {
    bytes: Bytes,
    sha1_hex: String,
}

impl ServedPack {
    /// The pack made of these bytes; the SHA-1 is computed here, so it always
    /// belongs to the bytes served.
    pub fn new(bytes: impl Into<Bytes>) -> ServedPack {
        let bytes = bytes.into();
        let sha1_hex = sha1_hex(&bytes);
        ServedPack { bytes, sha1_hex }
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The file's size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// The SHA-1 of [`ServedPack::bytes`], 40 lowercase hex digits.
    pub fn sha1_hex(&self) -> &str {
        &self.sha1_hex
    }
}

/// The SHA-1 of `bytes` as 40 lowercase hex digits.
pub fn sha1_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha1::digest(bytes))
}

/// The pack for the emotes now loaded ([`crate::pack::ResourcePack`]: the
/// `player_head` models and the skin shader for the slices they need, and
/// `pack.mcmeta`), called at start-up and after every reload that changed
/// the library, and served under its new SHA-1 when it differs from the
/// last. The build is deterministic, so the same emotes give the same URL.
/// The slice table numbers the slices the pack draws: the server gives each
/// skin-bound display its id from it.
pub fn current_pack(library: &Library) -> Result<(ServedPack, SliceTable), PackError> {
    let (built, table) = ResourcePack::build_for_library(library)?;
    for warning in table.left_out_warnings() {
        tracing::warn!("resource pack: {warning}");
    }
    Ok((ServedPack::new(built.zip_bytes), table))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sha1_is_of_the_bytes_in_lowercase_hex() {
        // FIPS 180 test vector.
        assert_eq!(
            ServedPack::new(&b"abc"[..]).sha1_hex(),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        let empty = ServedPack::new(Vec::new());
        assert_eq!(empty.sha1_hex(), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(empty.size_bytes(), 0);
    }

    #[test]
    fn the_pack_is_a_deterministic_zip_that_follows_the_emotes() {
        let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
        let bundled = Library::load(&[root]).library;
        assert!(!bundled.is_empty());
        let (a, table) = current_pack(&bundled).expect("builds");
        assert_eq!(
            (a.clone(), table),
            current_pack(&bundled).expect("builds"),
            "same emotes, same pack"
        );
        assert_eq!(a.sha1_hex().len(), 40);
        assert!(a.sha1_hex().bytes().all(|b| b.is_ascii_hexdigit()));
        // The bundled emotes cut skin parts into slices; no emotes, none.
        let (empty, _) = current_pack(&Library::default()).expect("builds");
        assert_ne!(a.sha1_hex(), empty.sha1_hex(), "other emotes, other pack");
        assert_eq!(&a.bytes()[..4], b"PK\x03\x04", "a zip file");
    }
}
