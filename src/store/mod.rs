//! Per-player state that survives a restart, in one SQLite file.
//!
//! # The model
//!
//! - **One file**, `<data folder>/players.sqlite3`, opened once by the
//!   server ([`PlayerStore::open`]). It holds what players choose and
//!   expect to find again: their favourite emotes and their wheel order
//!   (issue 15), whether they see emoted's body parts or heads (`/emote
//!   parts`), whether their emotes fly a camera (`/emote camera`), and
//!   later features' state (each adds a migration).
//! - **A schema version** in SQLite's own `user_version`. Opening runs the
//!   [`MIGRATIONS`] the file has not had yet, each in a transaction, so a
//!   file is always at one version. A file from a newer emoted (a version
//!   past [`SCHEMA_VERSION`]) is left alone and refused
//!   ([`StoreError::Newer`]): the server then runs without persistence
//!   rather than damage it.
//! - **A missing or corrupt file is recreated.** A file SQLite cannot read
//!   as a database, or whose integrity check fails, is moved aside to
//!   `players.sqlite3.corrupt-<unix seconds>` and a new one is made; the
//!   warning says where the old one went ([`Opened::warnings`]). Nothing
//!   else is affected: the state starts empty.
//! - **Players by UUID** (the hyphenated text form), emotes by id text.
//!   Ids of emotes that are gone stay stored: a reload may bring them back,
//!   and the wheel shows only what is loaded.
//!
//! Everything here is plain SQLite through `rusqlite`; the server calls it
//! from its tick, so each call is one small statement on a local file.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use uuid::Uuid;

/// The file's name inside the data folder.
pub const FILE_NAME: &str = "players.sqlite3";

/// The schema version this build writes: the number of [`MIGRATIONS`].
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// The migrations, in order: entry `i` takes a file from version `i` to
/// `i + 1`. Append, never edit: files in the field have run the old ones.
pub const MIGRATIONS: &[&str] = &[
    // 1: favourites and the wheel order.
    "CREATE TABLE favourite (
         player_uuid TEXT NOT NULL,
         emote_id TEXT NOT NULL,
         added_unix_ms INTEGER NOT NULL,
         PRIMARY KEY (player_uuid, emote_id)
     );
     CREATE TABLE wheel_slot (
         player_uuid TEXT NOT NULL,
         position INTEGER NOT NULL,
         emote_id TEXT NOT NULL,
         PRIMARY KEY (player_uuid, position)
     );",
    // 2: whether a player sees emoted's body parts or heads (`/emote parts`).
    "CREATE TABLE parts_choice (
         player_uuid TEXT NOT NULL PRIMARY KEY,
         parts_shown INTEGER NOT NULL
     );",
    // 3: whether a player's emotes fly a camera (`/emote camera`).
    "CREATE TABLE camera_choice (
         player_uuid TEXT NOT NULL PRIMARY KEY,
         camera_on INTEGER NOT NULL
     );",
];

/// A player's choice between on (the default) and off, one table each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnOffChoice {
    /// `/emote parts`: emoted's body parts (on) or heads (off).
    Parts,
    /// `/emote camera`: the emote camera flies for the player's emotes.
    Camera,
}

impl OnOffChoice {
    /// Its table and the column that holds it (names written here, never
    /// taken from input).
    fn table_and_column(self) -> (&'static str, &'static str) {
        match self {
            OnOffChoice::Parts => ("parts_choice", "parts_shown"),
            OnOffChoice::Camera => ("camera_choice", "camera_on"),
        }
    }
}

/// What can go wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The data folder cannot be made.
    #[error("cannot create the data folder {folder}: {source}")]
    Folder {
        /// The folder.
        folder: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A corrupt file cannot be moved aside.
    #[error("cannot move the unreadable {file} aside: {source}")]
    MoveAside {
        /// The file.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file was written by a newer emoted.
    #[error("{file} has schema version {found}, newer than this emoted's {SCHEMA_VERSION}: left as it is; players' favourites are not kept until emoted is updated")]
    Newer {
        /// The file.
        file: PathBuf,
        /// Its version.
        found: u32,
    },
    /// SQLite refused an operation.
    #[error("{file}: {source}")]
    Sqlite {
        /// The file.
        file: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
}

/// The open store.
#[derive(Debug)]
pub struct PlayerStore {
    connection: Connection,
    file: PathBuf,
}

/// A store just opened, and what an admin should hear about it.
#[derive(Debug)]
pub struct Opened {
    /// The store.
    pub store: PlayerStore,
    /// One line each: a file recreated, and where the old one went.
    pub warnings: Vec<String>,
}

impl PlayerStore {
    /// Opens (or creates) `<data_folder>/players.sqlite3` and brings it to
    /// [`SCHEMA_VERSION`] (see the module docs).
    pub fn open(data_folder: &Path) -> Result<Opened, StoreError> {
        std::fs::create_dir_all(data_folder).map_err(|source| StoreError::Folder {
            folder: data_folder.to_path_buf(),
            source,
        })?;
        let file = data_folder.join(FILE_NAME);
        let mut warnings = Vec::new();
        let store = match Self::open_file(&file) {
            Ok(store) => store,
            Err(StoreError::Sqlite { source, .. }) if file.exists() => {
                let aside = aside_path(&file);
                std::fs::rename(&file, &aside).map_err(|source| StoreError::MoveAside {
                    file: file.clone(),
                    source,
                })?;
                warnings.push(format!(
                    "{} could not be read ({source}); it was moved to {} and a new, empty one \
                     was made: players' favourites and wheel order start over",
                    file.display(),
                    aside.display()
                ));
                Self::open_file(&file)?
            }
            Err(e) => return Err(e),
        };
        Ok(Opened { store, warnings })
    }

    /// Opens `file`, checks it and runs the migrations it lacks.
    fn open_file(file: &Path) -> Result<PlayerStore, StoreError> {
        let sqlite = |source| StoreError::Sqlite {
            file: file.to_path_buf(),
            source,
        };
        let mut connection = Connection::open(file).map_err(sqlite)?;
        let check: String = connection
            .query_row("PRAGMA quick_check", [], |row| row.get(0))
            .map_err(sqlite)?;
        if check != "ok" {
            return Err(sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
                Some(format!("integrity check: {check}")),
            )));
        }
        let found: u32 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(sqlite)?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::Newer {
                file: file.to_path_buf(),
                found,
            });
        }
        for (index, migration) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            let transaction = connection.transaction().map_err(sqlite)?;
            transaction.execute_batch(migration).map_err(sqlite)?;
            transaction
                .pragma_update(None, "user_version", index as u32 + 1)
                .map_err(sqlite)?;
            transaction.commit().map_err(sqlite)?;
        }
        Ok(PlayerStore {
            connection,
            file: file.to_path_buf(),
        })
    }

    /// The file's path.
    pub fn file(&self) -> &Path {
        &self.file
    }

    fn sqlite(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            file: self.file.clone(),
            source,
        }
    }

    /// A player's favourite emotes, in the order they were added.
    pub fn favourites(&self, player: Uuid) -> Result<Vec<String>, StoreError> {
        self.emote_ids(
            "SELECT emote_id FROM favourite WHERE player_uuid = ?1 \
             ORDER BY added_unix_ms, emote_id",
            player,
        )
    }

    /// The emote ids `sql` selects for `player` (its one parameter).
    fn emote_ids(&self, sql: &str, player: Uuid) -> Result<Vec<String>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(sql)
            .map_err(|e| self.sqlite(e))?;
        let rows = statement
            .query_map(params![player.to_string()], |row| row.get(0))
            .map_err(|e| self.sqlite(e))?;
        rows.collect::<Result<Vec<String>, _>>()
            .map_err(|e| self.sqlite(e))
    }

    /// Makes `emote` a favourite of `player`, or no longer one; returns
    /// whether it is a favourite now.
    pub fn toggle_favourite(&self, player: Uuid, emote: &str) -> Result<bool, StoreError> {
        let player = player.to_string();
        let removed = self
            .connection
            .execute(
                "DELETE FROM favourite WHERE player_uuid = ?1 AND emote_id = ?2",
                params![player, emote],
            )
            .map_err(|e| self.sqlite(e))?;
        if removed > 0 {
            return Ok(false);
        }
        self.connection
            .execute(
                "INSERT INTO favourite (player_uuid, emote_id, added_unix_ms) VALUES (?1, ?2, ?3)",
                params![player, emote, unix_ms()],
            )
            .map_err(|e| self.sqlite(e))?;
        Ok(true)
    }

    /// A player's wheel order: the emote ids in their slots, first to last
    /// (empty: the default order).
    pub fn wheel_order(&self, player: Uuid) -> Result<Vec<String>, StoreError> {
        self.emote_ids(
            "SELECT emote_id FROM wheel_slot WHERE player_uuid = ?1 ORDER BY position",
            player,
        )
    }

    /// Replaces a player's wheel order with `emotes`, first to last.
    pub fn set_wheel_order(&mut self, player: Uuid, emotes: &[String]) -> Result<(), StoreError> {
        let player = player.to_string();
        let transaction = self
            .connection
            .transaction()
            .map_err(|source| StoreError::Sqlite {
                file: self.file.clone(),
                source,
            })?;
        let result = (|| {
            transaction.execute(
                "DELETE FROM wheel_slot WHERE player_uuid = ?1",
                params![player],
            )?;
            for (position, emote) in emotes.iter().enumerate() {
                transaction.execute(
                    "INSERT INTO wheel_slot (player_uuid, position, emote_id) VALUES (?1, ?2, ?3)",
                    params![player, position as i64, emote],
                )?;
            }
            transaction.commit()
        })();
        result.map_err(|source| StoreError::Sqlite {
            file: self.file.clone(),
            source,
        })
    }

    /// A player's on/off choice: on (the default for a player who never
    /// chose) or off.
    pub fn choice(&self, player: Uuid, choice: OnOffChoice) -> Result<bool, StoreError> {
        let (table, column) = choice.table_and_column();
        self.connection
            .query_row(
                &format!("SELECT {column} FROM {table} WHERE player_uuid = ?1"),
                params![player.to_string()],
                |row| row.get::<_, i64>(0),
            )
            .optional()
            .map(|stored| stored.is_none_or(|on| on != 0))
            .map_err(|e| self.sqlite(e))
    }

    /// Stores a player's on/off choice.
    pub fn set_choice(
        &mut self,
        player: Uuid,
        choice: OnOffChoice,
        on: bool,
    ) -> Result<(), StoreError> {
        let (table, column) = choice.table_and_column();
        self.connection
            .execute(
                &format!(
                    "INSERT INTO {table} (player_uuid, {column}) VALUES (?1, ?2)
                     ON CONFLICT (player_uuid) DO UPDATE SET {column} = excluded.{column}"
                ),
                params![player.to_string(), i64::from(on)],
            )
            .map(|_| ())
            .map_err(|e| self.sqlite(e))
    }

    /// The file's schema version (for tests and `emoted check`).
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        self.connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .optional()
            .map(|v| v.unwrap_or(0))
            .map_err(|e| self.sqlite(e))
    }
}

/// Where an unreadable file is moved: `<file>.corrupt-<unix seconds>`.
fn aside_path(file: &Path) -> PathBuf {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut name = file.as_os_str().to_owned();
    name.push(format!(".corrupt-{seconds}"));
    PathBuf::from(name)
}

fn unix_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Test only: SQLite's own switches for a store that can no longer be
/// written, as on a read-only or full disk.
#[cfg(test)]
impl PlayerStore {
    /// Every write from now on fails as on a read-only disk
    /// (`SQLITE_READONLY`).
    pub(crate) fn refuse_writes_for_test(&self) {
        let _ = self.connection.execute_batch("PRAGMA query_only = ON;");
    }

    /// The file may not grow past the pages it has: a write that needs a
    /// new page fails as on a full disk (`SQLITE_FULL`).
    pub(crate) fn fill_disk_for_test(&self) {
        let pages: i64 = self
            .connection
            .query_row("PRAGMA page_count", [], |row| row.get(0))
            .unwrap_or(1);
        let _ = self
            .connection
            .execute_batch(&format!("PRAGMA max_page_count = {pages};"));
    }
}

#[cfg(test)]
mod tests;
