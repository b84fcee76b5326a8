//! The pack as served: its bytes and their SHA-1, and the one function that
//! makes it from the loaded emotes ([`current_pack`]), the seam where the
//! pack builder plugs in.

use hyper::body::Bytes;
use sha1::{Digest, Sha1};

use crate::library::Library;

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

/// The pack for the emotes now loaded; called at start-up and after every
/// reload that changed the library, and served under its new SHA-1 when it
/// differs from the last.
///
/// **Placeholder until the pack builder is merged.** The pack builder
/// (`crate::pack`: `ResourcePack` built from the library into a zip with
/// `pack.mcmeta`, the `player_head` models and the skin shader) replaces
/// this body with its zip bytes, `ServedPack::new(built.zip_bytes)`; nothing
/// else in the server changes. Until then the bytes are **not a zip**: a
/// short text naming the loaded emote ids in order, so they are
/// deterministic, change when the set of emotes changes, and have a real
/// SHA-1 that the URL, the offer and a client's check agree on.
pub fn current_pack(library: &Library) -> ServedPack {
    let mut text = String::from(
        "emoted resource pack placeholder: not a zip yet (the pack builder replaces it)\n",
    );
    for (id, _) in library.iter() {
        text.push_str(&id.to_string());
        text.push('\n');
    }
    ServedPack::new(text.into_bytes())
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
    fn the_placeholder_is_deterministic_and_follows_the_emotes() {
        let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
        let bundled = Library::load(&[root]).library;
        assert!(!bundled.is_empty());
        let a = current_pack(&bundled);
        assert_eq!(a, current_pack(&bundled), "same emotes, same pack");
        assert_eq!(a.sha1_hex().len(), 40);
        assert!(a.sha1_hex().bytes().all(|b| b.is_ascii_hexdigit()));
        let empty = current_pack(&Library::default());
        assert_ne!(a.sha1_hex(), empty.sha1_hex(), "other emotes, other pack");
        let text = String::from_utf8(a.bytes().to_vec()).expect("text");
        let (first, _) = bundled.iter().next().expect("an emote");
        assert!(text.contains(&first.to_string()), "{text}");
    }
}
