//! `[storage]`: where per-player state that survives a restart lives (the
//! favourites and wheel order of issue 15, later features' state). The
//! store itself is [`crate::store`]; [`crate::server::storage`] opens it.

use std::path::PathBuf;

use serde::Deserialize;

/// The default data folder, relative to the server's working directory.
pub const DEFAULT_DATA_FOLDER: &str = "data";

/// `[storage]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StorageSection {
    /// The folder that holds `players.sqlite3`, relative to the server's
    /// working directory (as `emotes.folders` are); made when missing.
    /// Empty: nothing is stored, favourites last until the player leaves.
    /// Read at start-up only (a reload does not move the database).
    /// Default: [`DEFAULT_DATA_FOLDER`].
    pub data_folder: PathBuf,
}

impl Default for StorageSection {
    fn default() -> Self {
        Self {
            data_folder: PathBuf::from(DEFAULT_DATA_FOLDER),
        }
    }
}

impl StorageSection {
    /// The data folder, `None` when storage is turned off (empty).
    pub fn data_folder(&self) -> Option<&std::path::Path> {
        (!self.data_folder.as_os_str().is_empty()).then_some(self.data_folder.as_path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_folder_turns_storage_off() {
        assert_eq!(
            StorageSection::default().data_folder(),
            Some(std::path::Path::new("data"))
        );
        let off = StorageSection {
            data_folder: PathBuf::new(),
        };
        assert_eq!(off.data_folder(), None);
    }
}
