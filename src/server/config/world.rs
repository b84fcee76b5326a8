//! `[world]`: which world players join. Without `path`, emoted's own flat
//! world; with it, an existing Minecraft world's overworld, read-only. How
//! each is built and why is [`crate::server::world`]'s guide.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};

/// `[world]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorldSection {
    /// The folder of an existing Java Edition world saved by Minecraft 1.18
    /// to 1.20.1 (the folder that holds `level.dat` and `region/`),
    /// relative to the server's working directory (as
    /// `storage.data_folder` is). Players join at the spawn point of its
    /// `level.dat` and its chunks are loaded around them as they move;
    /// nothing is ever written to it. Unset: the flat world. An empty string
    /// is refused (leave the key out instead). Read at start-up only.
    /// Default: unset.
    #[serde(default, deserialize_with = "non_empty_path")]
    pub path: Option<PathBuf>,
}

impl WorldSection {
    /// The world folder, `None` for the flat world.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

/// Reads `path`, refusing `""` (which would silently mean the working
/// directory).
fn non_empty_path<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<PathBuf>, D::Error> {
    let path = PathBuf::deserialize(deserializer)?;
    if path.as_os_str().is_empty() {
        return Err(serde::de::Error::custom(
            "world.path is empty: name the world's folder, or leave the key out for the flat world",
        ));
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::config::Config;

    fn parse(text: &str) -> Result<Config, String> {
        Config::parse(text, Path::new("emoted.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn the_flat_world_is_the_default_and_the_bundled_file_keeps_it() {
        assert_eq!(parse("").expect("valid").world.path(), None);
        let bundled = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/config/emoted.toml"));
        let config = Config::load(bundled).expect("the bundled config");
        assert_eq!(config.world, WorldSection::default());
    }

    #[test]
    fn a_path_is_read_as_written_and_an_empty_one_is_refused() {
        let config = parse("[world]\npath = \"worlds/lobby\"").expect("valid");
        assert_eq!(config.world.path(), Some(Path::new("worlds/lobby")));
        let err = parse("[world]\npath = \"\"").expect_err("empty");
        assert!(err.contains("world.path is empty"), "{err}");
        let err = parse("[world]\nfolder = \"w\"").expect_err("unknown key");
        assert!(err.contains("folder"), "{err}");
    }
}
