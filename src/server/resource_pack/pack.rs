//! The pack as served: its bytes and their SHA-1, and the one function that
//! makes it from the loaded emotes and the admin's pack ([`current_pack`]),
//! the seam where the pack builder plugs in.

use std::path::Path;

use hyper::body::Bytes;
use sha1::{Digest, Sha1};

use crate::library::Library;
use crate::pack::admin_pack::{AdminPack, MergeLimits};
use crate::pack::ids::SliceTable;
use crate::pack::merge::MergeConflict;
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

/// What [`current_pack`] made: the pack to serve, the table that numbers
/// its slices (the server gives each skin-bound display its id from it) and
/// what merging the admin's pack met.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackBuild {
    /// The pack to serve.
    pub pack: ServedPack,
    /// The slice ids it draws.
    pub table: SliceTable,
    /// The paths both packs had and who won each (empty without an admin
    /// pack, or when it could not be read).
    pub conflicts: Vec<MergeConflict>,
    /// Why the admin's pack could not be read: then emoted's pack is served
    /// alone, or with the admin's pack as it was last read
    /// ([`current_pack_keeping`]).
    pub merge_error: Option<String>,
}

/// The pack for the emotes now loaded ([`crate::pack::ResourcePack`]: the
/// `player_head` models and the skin shader for the slices they need, the
/// item models and textures emotes bring ([`crate::pack::imported`], a
/// collision between two emotes' numbers logged as an error naming both
/// files), and `pack.mcmeta`), merged with the admin's pack at `merge` when one is
/// configured ([`crate::pack::merge`]). Called at start-up and after every
/// reload, and served under its new SHA-1 when it differs from the last.
/// The admin's pack is read again each time, so a changed one takes effect
/// with the next reload; one that cannot be read is an error in the log
/// (and in [`PackBuild::merge_error`]), and emoted's pack is built alone,
/// never no pack at all. The build is deterministic, so the same emotes and
/// the same admin pack give the same URL.
pub fn current_pack(library: &Library, merge: Option<&Path>) -> Result<PackBuild, PackError> {
    current_pack_keeping(library, merge, None).0
}

/// [`current_pack`], keeping a good admin pack through a bad edit: when the
/// admin's pack at `merge` cannot be read now and `last_good` was read from
/// the same path before, `last_good` is merged instead (the error is still
/// logged and in [`PackBuild::merge_error`]), so players are not offered a
/// pack without the admin's files because of a half-written zip. Also
/// returns the admin pack merged (or meant to be, when the build failed),
/// to pass as `last_good` next time.
pub fn current_pack_keeping(
    library: &Library,
    merge: Option<&Path>,
    last_good: Option<AdminPack>,
) -> (Result<PackBuild, PackError>, Option<AdminPack>) {
    let mut merge_error = None;
    let admin = merge.and_then(
        |path| match AdminPack::read(path, &MergeLimits::default()) {
            Ok(admin) => Some(admin),
            Err(e) => {
                merge_error = Some(e.to_string());
                match last_good.filter(|kept| kept.source() == path) {
                    Some(kept) => {
                        tracing::error!(
                            "resource pack: {e}. Keeping the admin pack read from there before"
                        );
                        Some(kept)
                    }
                    None => {
                        tracing::error!("resource pack: {e}. Serving emoted's pack without it");
                        None
                    }
                }
            }
        },
    );
    let merged = admin.clone();
    let built = match ResourcePack::build_for_library(library, admin) {
        Ok(built) => built,
        Err(e) => return (Err(e), merged),
    };
    for warning in built.table.left_out_warnings() {
        tracing::warn!("resource pack: {warning}");
    }
    for collision in &built.collisions {
        tracing::error!("resource pack: {collision}");
    }
    let build = PackBuild {
        pack: ServedPack::new(built.built.zip_bytes),
        table: built.table,
        conflicts: built.conflicts,
        merge_error,
    };
    (Ok(build), merged)
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
        let build = current_pack(&bundled, None).expect("builds");
        let a = build.pack.clone();
        assert_eq!(
            build,
            current_pack(&bundled, None).expect("builds"),
            "same emotes, same pack"
        );
        assert!(build.conflicts.is_empty() && build.merge_error.is_none());
        assert_eq!(a.sha1_hex().len(), 40);
        assert!(a.sha1_hex().bytes().all(|b| b.is_ascii_hexdigit()));
        // The bundled emotes cut skin parts into slices; no emotes, none.
        let empty = current_pack(&Library::default(), None)
            .expect("builds")
            .pack;
        assert_ne!(a.sha1_hex(), empty.sha1_hex(), "other emotes, other pack");
        assert_eq!(&a.bytes()[..4], b"PK\x03\x04", "a zip file");
    }
}
