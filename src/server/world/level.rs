//! An existing world's `level.dat`, and everything that stops a world from
//! opening ([`WorldError`]).
//!
//! `level.dat` is one gzip-compressed NBT compound whose `Data` compound
//! holds the world's settings. emoted reads three things from it:
//! - the spawn point, `Data.SpawnX`, `SpawnY` and `SpawnZ` (ints: the block
//!   the player's feet are in, as vanilla stores it); players join in the
//!   middle of that block, at its bottom;
//! - `Data.DataVersion`, the version of Minecraft that last saved the world
//!   (2860 is 1.18, [`MAX_DATA_VERSION`] 1.20.1): chunks saved before 1.18
//!   are in a format valence cannot read, so such a world is refused;
//! - `Data.LevelName`, for the start-up line.
//!
//! Everything else (game rules, time, weather, the player data) is left
//! alone: emoted plays the world's blocks, not its game.

use std::io::Read;
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use valence_nbt::{Compound, Value};

/// The data version of Minecraft 1.18, the first to save chunks in the
/// format valence reads (sections from y = -64, `block_states` palettes).
pub const MIN_DATA_VERSION: i32 = 2860;
/// The data version of Minecraft 1.20.1, the version emoted speaks.
pub const MAX_DATA_VERSION: i32 = 3465;
/// The most a `level.dat` may unpack to; a real one is a few KiB.
pub const MAX_LEVEL_DAT_BYTES: u64 = 16 * 1024 * 1024;

/// Why an existing world cannot be opened. Each message names the file or
/// folder and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// `[world] path` names nothing, or a file.
    #[error(
        "{}: no such folder: world.path must name an existing world's folder (the one \
         holding level.dat and region/)",
        path.display()
    )]
    NoFolder {
        /// The configured folder.
        path: PathBuf,
    },
    /// The folder has no `level.dat`.
    #[error(
        "{}: not found: a world's folder holds its level.dat; does world.path name the \
         world's own folder?",
        path.display()
    )]
    NoLevelDat {
        /// Where `level.dat` should be.
        path: PathBuf,
    },
    /// `level.dat` exists but cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `level.dat` is not gzip, or its gzip stream is damaged (a truncated
    /// copy, for one).
    #[error(
        "{}: cannot unpack: {source} (a level.dat is gzip-compressed NBT; the file is \
         damaged or is not one)",
        path.display()
    )]
    Unpack {
        /// The file.
        path: PathBuf,
        /// The decompressor's error.
        source: std::io::Error,
    },
    /// `level.dat` unpacks to more than [`MAX_LEVEL_DAT_BYTES`].
    #[error(
        "{}: unpacks to more than {MAX_LEVEL_DAT_BYTES} bytes: not a level.dat",
        path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// The unpacked bytes are not one NBT compound.
    #[error("{}: not valid NBT: {message}", path.display())]
    Nbt {
        /// The file.
        path: PathBuf,
        /// The NBT reader's message.
        message: String,
    },
    /// A field the spawn point needs is missing or has the wrong type.
    #[error(
        "{}: {field} is missing or not an integer: players join at the spawn point \
         Data.SpawnX, Data.SpawnY, Data.SpawnZ",
        path.display()
    )]
    MissingSpawn {
        /// The file.
        path: PathBuf,
        /// The missing field's path, e.g. `Data.SpawnY`.
        field: &'static str,
    },
    /// The world was last saved before 1.18.
    #[error(
        "{}: saved by a Minecraft older than 1.18 ({}): its chunks are in a format emoted \
         cannot read; open the world once in Minecraft 1.18 to 1.20.1 to upgrade it",
        path.display(),
        match data_version {
            Some(version) => format!("data version {version}"),
            None => "no Data.DataVersion".to_owned(),
        }
    )]
    TooOld {
        /// The file.
        path: PathBuf,
        /// `Data.DataVersion`, absent before 1.9.
        data_version: Option<i32>,
    },
    /// The world folder has no `region` folder, so no chunks at all.
    #[error(
        "{}: no such folder: a world's chunks are in its region folder, and without one \
         players would fall through an empty world",
        path.display()
    )]
    NoRegionFolder {
        /// Where the region folder should be.
        path: PathBuf,
    },
    /// The region file that holds the spawn cannot be opened as the region
    /// reader opens it.
    #[error(
        "{}: cannot be opened for reading and writing: {source}. valence's region reader \
         opens region files so (emoted never writes to them): give the server's user \
         write permission on the region files",
        path.display()
    )]
    SpawnRegion {
        /// The region file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// What emoted reads from a world's `level.dat`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelDat {
    /// The spawn block, `[Data.SpawnX, Data.SpawnY, Data.SpawnZ]`.
    pub spawn_block: [i32; 3],
    /// `Data.DataVersion`: which Minecraft last saved the world.
    pub data_version: i32,
    /// `Data.LevelName`, when there is one.
    pub level_name: Option<String>,
}

impl LevelDat {
    /// Reads and checks the `level.dat` at `path`.
    pub fn read(path: &Path) -> Result<LevelDat, WorldError> {
        let bytes = std::fs::read(path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => WorldError::NoLevelDat {
                path: path.to_path_buf(),
            },
            _ => WorldError::Read {
                path: path.to_path_buf(),
                source,
            },
        })?;
        LevelDat::parse(&bytes, path)
    }

    /// Unpacks and checks a `level.dat`'s bytes; `path` is only used in
    /// errors.
    pub fn parse(gzipped: &[u8], path: &Path) -> Result<LevelDat, WorldError> {
        let path_buf = || path.to_path_buf();
        let mut nbt = Vec::new();
        GzDecoder::new(gzipped)
            .take(MAX_LEVEL_DAT_BYTES + 1)
            .read_to_end(&mut nbt)
            .map_err(|source| WorldError::Unpack {
                path: path_buf(),
                source,
            })?;
        if nbt.len() as u64 > MAX_LEVEL_DAT_BYTES {
            return Err(WorldError::TooLarge { path: path_buf() });
        }
        let mut slice = nbt.as_slice();
        let (root, _name) = Compound::from_binary(&mut slice).map_err(|e| WorldError::Nbt {
            path: path_buf(),
            message: e.to_string(),
        })?;
        let Some(Value::Compound(data)) = root.get("Data") else {
            return Err(WorldError::MissingSpawn {
                path: path_buf(),
                field: "Data",
            });
        };
        let int = |key: &str| match data.get(key) {
            Some(Value::Int(value)) => Some(*value),
            _ => None,
        };
        let mut spawn_block = [0; 3];
        for (coordinate, field) in spawn_block.iter_mut().zip(SPAWN_FIELDS) {
            *coordinate =
                int(field.trim_start_matches("Data.")).ok_or(WorldError::MissingSpawn {
                    path: path_buf(),
                    field,
                })?;
        }
        let data_version = match int("DataVersion") {
            Some(version) if version >= MIN_DATA_VERSION => version,
            data_version => {
                return Err(WorldError::TooOld {
                    path: path_buf(),
                    data_version,
                })
            }
        };
        let level_name = match data.get("LevelName") {
            Some(Value::String(name)) => Some(name.clone()),
            _ => None,
        };
        Ok(LevelDat {
            spawn_block,
            data_version,
            level_name,
        })
    }

    /// Whether a newer Minecraft than 1.20.1 saved the world: its blocks
    /// added since then fail to load (each such chunk is left empty).
    pub fn is_newer_than_emoted(&self) -> bool {
        self.data_version > MAX_DATA_VERSION
    }
}

/// The spawn point's fields, in x, y, z order, as errors name them.
const SPAWN_FIELDS: [&str; 3] = ["Data.SpawnX", "Data.SpawnY", "Data.SpawnZ"];
