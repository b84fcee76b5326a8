//! An admin's own resource pack, read so that [`super::merge`] can put it
//! into emoted's: a 1.20.1 client takes one server pack only, so merging is
//! the only way a server keeps its own pack next to emoted's.
//!
//! `resource_pack.merge` names it: a `.zip` file, or a folder with
//! `pack.mcmeta` at its root (the layout a client's `resourcepacks/` folder
//! takes). Reading is pure file work, no valence, and refuses rather than
//! trusts:
//!
//! - **Caps** ([`MergeLimits`]): how many files and folders, how many bytes
//!   one file may decompress to, and how many all of them together (which
//!   also caps the zip file itself). Sizes are checked twice: the size an
//!   entry declares, then the bytes it really gives, read through a limit,
//!   so a zip that lies about its sizes (a zip bomb) stops at the cap. A
//!   zip's entry count is read from its end record before the zip crate
//!   indexes it, so a central directory of millions of entries is refused
//!   before it costs memory.
//! - **Paths**: every entry must be a plain relative path with `/` between
//!   names (the rule of [`super::ResourcePack::add_file`]): no `..`, no
//!   absolute path or drive letter, no backslash, no empty part. Symlink
//!   and encrypted zip entries, file names in a folder that are not UTF-8,
//!   and a path given twice are refused too.
//! - **A pack**: `pack.mcmeta` must be at the root. A zip of the pack's
//!   folder (rather than of its contents) is the usual mistake, and the
//!   error says so.
//!
//! Every error names the admin's file, the entry and the rule broken
//! ([`AdminPackError`]).

use std::collections::BTreeMap;
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};

use zip::result::ZipError;
use zip::ZipArchive;

/// The default [`MergeLimits::max_entry_count`].
pub const MAX_ENTRY_COUNT: usize = 30_000;

/// The default [`MergeLimits::max_file_bytes`]: 64 MiB, larger than any
/// texture or sound a client loads well.
pub const MAX_FILE_BYTES: u64 = 64 * MIB;

/// The default [`MergeLimits::max_total_bytes`]: 200 MiB, so that the
/// merged pack stays under the 250 MiB a 1.20.1 client downloads at most.
pub const MAX_TOTAL_BYTES: u64 = 200 * MIB;

/// How deep a folder pack may nest folders (a link loop stops here).
pub const MAX_FOLDER_DEPTH: usize = 32;

const MIB: u64 = 1024 * 1024;

/// The name of a pack's metadata file, at its root.
pub const PACK_MCMETA: &str = "pack.mcmeta";

/// How much of an admin's pack is read at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergeLimits {
    /// Files and folders (zip entries), `pack.mcmeta` included.
    pub max_entry_count: usize,
    /// Bytes one file may hold once decompressed.
    pub max_file_bytes: u64,
    /// Bytes all files may hold together once decompressed; a zip file
    /// larger than this is refused unread.
    pub max_total_bytes: u64,
}

impl Default for MergeLimits {
    fn default() -> Self {
        MergeLimits {
            max_entry_count: MAX_ENTRY_COUNT,
            max_file_bytes: MAX_FILE_BYTES,
            max_total_bytes: MAX_TOTAL_BYTES,
        }
    }
}

/// Why an admin's pack was refused. Each message names the file, the entry
/// where there is one, and the rule.
#[derive(Debug, thiserror::Error)]
pub enum AdminPackError {
    /// The file or folder could not be read.
    #[error(
        "cannot read the admin pack {path}: {source}; check resource_pack.merge (a relative \
         path starts at the server's working directory)"
    )]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The zip could not be opened.
    #[error("{path} is not a zip file emoted can read ({source}); give a .zip file or a folder")]
    Zip {
        /// The file.
        path: PathBuf,
        /// The zip reader's error.
        source: ZipError,
    },
    /// An entry breaks a rule (its path, its kind, its size).
    #[error("{path}: entry `{entry}` {rule}")]
    Entry {
        /// The admin's pack.
        path: PathBuf,
        /// The entry's path inside it.
        entry: String,
        /// The rule it breaks.
        rule: String,
    },
    /// More files and folders than [`MergeLimits::max_entry_count`].
    #[error(
        "{path} has more than {limit} files and folders, the cap on an admin pack; leave out \
         what clients do not need"
    )]
    TooManyEntries {
        /// The admin's pack.
        path: PathBuf,
        /// The cap.
        limit: usize,
    },
    /// The zip file is larger than [`MergeLimits::max_total_bytes`].
    #[error("{path} is {size_bytes} bytes, over the {} cap on an admin pack", size_text(*.limit_bytes))]
    FileTooLarge {
        /// The zip file.
        path: PathBuf,
        /// Its size.
        size_bytes: u64,
        /// The cap.
        limit_bytes: u64,
    },
    /// The files hold more than [`MergeLimits::max_total_bytes`] together.
    #[error(
        "{path}: the files up to `{entry}` hold more than {}, the cap on an admin pack \
         (uncompressed)", size_text(*.limit_bytes)
    )]
    TotalTooLarge {
        /// The admin's pack.
        path: PathBuf,
        /// The entry that went over the cap.
        entry: String,
        /// The cap.
        limit_bytes: u64,
    },
    /// No `pack.mcmeta` at the root.
    #[error("{path} has no pack.mcmeta at its root{hint}")]
    NoMcmeta {
        /// The admin's pack.
        path: PathBuf,
        /// Where one was found instead, if it was (starts with `; `).
        hint: String,
    },
}

/// An admin's pack as read: `pack.mcmeta` and the other files by path, all
/// within [`MergeLimits`] and the path rules (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdminPack {
    source: PathBuf,
    pack_mcmeta: Vec<u8>,
    files: BTreeMap<String, Vec<u8>>,
}

impl AdminPack {
    /// Reads the pack at `path`: a folder, or else a zip file.
    pub fn read(path: &Path, limits: &MergeLimits) -> Result<AdminPack, AdminPackError> {
        let read_error = |source| AdminPackError::Read {
            path: path.to_path_buf(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(read_error)?;
        if meta.is_dir() {
            return AdminPack::from_folder(path, limits);
        }
        if meta.len() > limits.max_total_bytes {
            return Err(AdminPackError::FileTooLarge {
                path: path.to_path_buf(),
                size_bytes: meta.len(),
                limit_bytes: limits.max_total_bytes,
            });
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| {
                file.take(limits.max_total_bytes + 1)
                    .read_to_end(&mut bytes)
            })
            .map_err(read_error)?;
        AdminPack::from_zip_bytes(path, &bytes, limits)
    }

    /// Reads a zip held in memory; `source` names it in errors.
    pub fn from_zip_bytes(
        source: &Path,
        bytes: &[u8],
        limits: &MergeLimits,
    ) -> Result<AdminPack, AdminPackError> {
        let mut reader = Reader::new(source, limits);
        let size_bytes = bytes.len() as u64;
        if size_bytes > limits.max_total_bytes {
            return Err(AdminPackError::FileTooLarge {
                path: source.to_path_buf(),
                size_bytes,
                limit_bytes: limits.max_total_bytes,
            });
        }
        if declared_entry_count(bytes).is_some_and(|n| n > limits.max_entry_count) {
            return Err(reader.too_many());
        }
        let zip_error = |source_error| AdminPackError::Zip {
            path: source.to_path_buf(),
            source: source_error,
        };
        let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(zip_error)?;
        if archive.len() > limits.max_entry_count {
            return Err(reader.too_many());
        }
        for index in 0..archive.len() {
            let name = match archive.name_for_index(index) {
                Some(Ok(name)) => name.into_owned(),
                _ => format!("#{index}"),
            };
            let mut file = archive.by_index(index).map_err(|e| {
                reader.entry_error(
                    &name,
                    format!("cannot be read: {e}; re-zip it with deflate and no password"),
                )
            })?;
            reader.count_entry()?;
            if file.is_dir() {
                reader.check_path(&name, name.trim_end_matches('/'))?;
                continue;
            }
            if file.is_symlink() {
                return Err(reader.entry_error(&name, "is a symlink; put the file itself in"));
            }
            reader.check_path(&name, &name)?;
            let bytes = reader.read_file(&name, file.size(), &mut file)?;
            reader.add(name, bytes)?;
        }
        reader.finish()
    }

    /// Reads a folder pack, its files in sorted order.
    pub fn from_folder(root: &Path, limits: &MergeLimits) -> Result<AdminPack, AdminPackError> {
        let mut reader = Reader::new(root, limits);
        reader.walk(root, "", 0)?;
        reader.finish()
    }

    /// The file or folder the pack was read from.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// Its `pack.mcmeta`, as written.
    pub fn pack_mcmeta(&self) -> &[u8] {
        &self.pack_mcmeta
    }

    /// Every file's path but `pack.mcmeta`, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// The file at `path`, if the pack has it.
    pub fn file(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }

    /// How many files it has besides `pack.mcmeta`.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// `pack.mcmeta` and the other files, for the merge.
    pub(super) fn into_parts(self) -> (Vec<u8>, BTreeMap<String, Vec<u8>>) {
        (self.pack_mcmeta, self.files)
    }
}

/// What a zip's end-of-central-directory record says about its entry count,
/// read before the zip crate indexes every entry; `usize::MAX` for a zip64
/// count (a pack within the caps never needs one), `None` when no record is
/// found (the zip crate then says what is wrong).
fn declared_entry_count(bytes: &[u8]) -> Option<usize> {
    const RECORD: usize = 22;
    const SIGNATURE: &[u8] = b"PK\x05\x06";
    // The record ends the file, after a comment of at most 65,535 bytes.
    let earliest = bytes.len().saturating_sub(RECORD + usize::from(u16::MAX));
    let last_start = bytes.len().checked_sub(RECORD)?;
    let start = (earliest..=last_start)
        .rev()
        .find(|&at| bytes.get(at..at + 4) == Some(SIGNATURE))?;
    let field = bytes.get(start + 10..start + 12)?;
    match u16::from_le_bytes([field[0], field[1]]) {
        u16::MAX => Some(usize::MAX),
        count => Some(usize::from(count)),
    }
}

/// The rules applied to each entry, whatever the pack's kind.
struct Reader<'a> {
    source: &'a Path,
    limits: &'a MergeLimits,
    entry_count: usize,
    total_bytes: u64,
    pack_mcmeta: Option<Vec<u8>>,
    files: BTreeMap<String, Vec<u8>>,
}

impl<'a> Reader<'a> {
    fn new(source: &'a Path, limits: &'a MergeLimits) -> Reader<'a> {
        Reader {
            source,
            limits,
            entry_count: 0,
            total_bytes: 0,
            pack_mcmeta: None,
            files: BTreeMap::new(),
        }
    }

    fn entry_error(&self, entry: &str, rule: impl Into<String>) -> AdminPackError {
        AdminPackError::Entry {
            path: self.source.to_path_buf(),
            entry: entry.to_owned(),
            rule: rule.into(),
        }
    }

    fn too_many(&self) -> AdminPackError {
        AdminPackError::TooManyEntries {
            path: self.source.to_path_buf(),
            limit: self.limits.max_entry_count,
        }
    }

    fn count_entry(&mut self) -> Result<(), AdminPackError> {
        self.entry_count += 1;
        if self.entry_count > self.limits.max_entry_count {
            return Err(self.too_many());
        }
        Ok(())
    }

    /// Checks `path`, the pack path of the entry named `entry` (a zip's
    /// folder entry ends in `/`, its path does not).
    fn check_path(&self, entry: &str, path: &str) -> Result<(), AdminPackError> {
        match super::path_problem(path) {
            Some(reason) => Err(self.entry_error(entry, format!("is refused: {reason}"))),
            None => Ok(()),
        }
    }

    /// Reads one file that declares `declared_bytes`, never more than the
    /// per-file cap, whatever it declared.
    fn read_file(
        &self,
        entry: &str,
        declared_bytes: u64,
        reader: impl Read,
    ) -> Result<Vec<u8>, AdminPackError> {
        let cap = self.limits.max_file_bytes;
        let over = || {
            self.entry_error(
                entry,
                format!("holds more than {}, the cap on one file", size_text(cap)),
            )
        };
        if declared_bytes > cap {
            return Err(over());
        }
        let mut bytes = Vec::new();
        reader
            .take(cap + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| self.entry_error(entry, format!("cannot be read: {e}")))?;
        if bytes.len() as u64 > cap {
            return Err(over());
        }
        Ok(bytes)
    }

    fn add(&mut self, entry: String, bytes: Vec<u8>) -> Result<(), AdminPackError> {
        self.total_bytes += bytes.len() as u64;
        if self.total_bytes > self.limits.max_total_bytes {
            return Err(AdminPackError::TotalTooLarge {
                path: self.source.to_path_buf(),
                entry,
                limit_bytes: self.limits.max_total_bytes,
            });
        }
        let twice = if entry == PACK_MCMETA {
            self.pack_mcmeta.replace(bytes).is_some()
        } else {
            self.files.insert(entry.clone(), bytes).is_some()
        };
        if twice {
            return Err(self.entry_error(&entry, "is in the pack twice"));
        }
        Ok(())
    }

    /// Reads the folder `dir`, whose pack path is `prefix` (empty at the
    /// root, else ending in `/`).
    fn walk(&mut self, dir: &Path, prefix: &str, depth: usize) -> Result<(), AdminPackError> {
        let read_error = |path: &Path, source| AdminPackError::Read {
            path: path.to_path_buf(),
            source,
        };
        let mut children = std::fs::read_dir(dir)
            .map_err(|e| read_error(dir, e))?
            .map(|child| child.map(|c| c.path()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| read_error(dir, e))?;
        children.sort();
        for child in children {
            let name = child.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
                let lossy = child.file_name().unwrap_or_default().to_string_lossy();
                self.entry_error(&format!("{prefix}{lossy}"), "has a name that is not UTF-8")
            })?;
            let entry = format!("{prefix}{name}");
            self.count_entry()?;
            // Links are followed; the depth cap stops a loop.
            let meta = std::fs::metadata(&child).map_err(|e| read_error(&child, e))?;
            if meta.is_dir() {
                self.check_path(&entry, &entry)?;
                if depth + 1 > MAX_FOLDER_DEPTH {
                    return Err(self.entry_error(
                        &entry,
                        format!("is more than {MAX_FOLDER_DEPTH} folders deep"),
                    ));
                }
                self.walk(&child, &format!("{entry}/"), depth + 1)?;
            } else if meta.is_file() {
                self.check_path(&entry, &entry)?;
                let file = std::fs::File::open(&child).map_err(|e| read_error(&child, e))?;
                let bytes = self.read_file(&entry, meta.len(), file)?;
                self.add(entry, bytes)?;
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<AdminPack, AdminPackError> {
        let Some(pack_mcmeta) = self.pack_mcmeta else {
            let nested = self
                .files
                .keys()
                .filter_map(|path| path.strip_suffix("/pack.mcmeta"))
                .find(|folder| !folder.contains('/'));
            let hint = match nested {
                Some(folder) => format!(
                    "; it has one in `{folder}/`: make that folder's contents the root (for a \
                     zip, zip what is inside the folder, not the folder)"
                ),
                None => String::new(),
            };
            return Err(AdminPackError::NoMcmeta {
                path: self.source.to_path_buf(),
                hint,
            });
        };
        Ok(AdminPack {
            source: self.source.to_path_buf(),
            pack_mcmeta,
            files: self.files,
        })
    }
}

/// `64 MiB` for whole mebibytes, else the bytes.
fn size_text(bytes: u64) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
pub(crate) mod tests;
