//! `config/emoted.toml`: every option with its default (the bundled file
//! lists them all, commented).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use valence::prelude::*;

/// Why a configuration file was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The TOML is malformed, or an option has a bad name or value.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the option.
        message: String,
    },
}

/// How players are authenticated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionModeSetting {
    /// No authentication; UUIDs from names.
    #[default]
    Offline,
    /// Mojang authentication.
    Online,
    /// BungeeCord (or Velocity legacy) forwarding.
    Bungeecord,
    /// Velocity modern forwarding with `velocity_secret`.
    Velocity,
}

/// `[server]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerSection {
    /// Listen address.
    pub address: SocketAddr,
    /// Authentication.
    pub connection_mode: ConnectionModeSetting,
    /// Velocity's forwarding secret.
    pub velocity_secret: String,
    /// Players allowed at once.
    pub max_players: usize,
    /// Chunks sent around each player.
    pub view_distance: u8,
}

impl Default for ServerSection {
    fn default() -> Self {
        Self {
            address: SocketAddr::from(([0, 0, 0, 0], 25565)),
            connection_mode: ConnectionModeSetting::Offline,
            velocity_secret: String::new(),
            max_players: 20,
            view_distance: 10,
        }
    }
}

/// `[emotes]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EmotesSection {
    /// Emote folders or files.
    pub folders: Vec<PathBuf>,
    /// Display entities all playbacks may have together.
    pub max_active_display_entities: usize,
}

impl Default for EmotesSection {
    fn default() -> Self {
        Self {
            folders: vec![PathBuf::from("emotes"), PathBuf::from("datapacks")],
            max_active_display_entities: 2000,
        }
    }
}

/// `[permissions]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PermissionsSection {
    /// Player names made operators (level 3) when they join.
    pub operators: Vec<String>,
}

/// The whole configuration.
#[derive(Resource, Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `[server]`.
    pub server: ServerSection,
    /// `[emotes]`.
    pub emotes: EmotesSection,
    /// `[permissions]`.
    pub permissions: PermissionsSection,
}

impl Config {
    /// Parses and checks TOML text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let config: Config =
            toml::from_str(text).map_err(|e| invalid(e.to_string().trim().to_owned()))?;
        if !(2..=32).contains(&config.server.view_distance) {
            return Err(invalid(format!(
                "server.view_distance must be from 2 to 32 chunks, found {}",
                config.server.view_distance
            )));
        }
        if config.server.connection_mode == ConnectionModeSetting::Velocity
            && config.server.velocity_secret.is_empty()
        {
            return Err(invalid(
                "server.velocity_secret must be set when server.connection_mode is \"velocity\""
                    .to_owned(),
            ));
        }
        if config.server.max_players == 0 {
            return Err(invalid("server.max_players must be at least 1".to_owned()));
        }
        Ok(config)
    }

    /// Reads a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_file_holds_the_defaults() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/config/emoted.toml"));
        let bundled = Config::load(path).expect("bundled config");
        let defaults = Config::default();
        assert_eq!(bundled.server.address, defaults.server.address);
        assert_eq!(
            bundled.server.connection_mode,
            defaults.server.connection_mode
        );
        assert_eq!(bundled.server.max_players, defaults.server.max_players);
        assert_eq!(bundled.server.view_distance, defaults.server.view_distance);
        assert_eq!(bundled.emotes.folders, defaults.emotes.folders);
        assert_eq!(
            bundled.emotes.max_active_display_entities,
            defaults.emotes.max_active_display_entities
        );
        assert_eq!(
            bundled.permissions.operators,
            defaults.permissions.operators
        );
    }

    #[test]
    fn bad_options_are_named() {
        let p = Path::new("emoted.toml");
        for (text, needle) in [
            ("[server]\nview_distance = 99", "server.view_distance"),
            (
                "[server]\nconnection_mode = \"velocity\"",
                "velocity_secret",
            ),
            ("[server]\nadress = \"0.0.0.0:1\"", "adress"),
            ("[server]\naddress = \"nowhere\"", "address"),
            (
                "[emotes]\nmax_active_display_entities = -1",
                "max_active_display_entities",
            ),
            ("[server\n", "emoted.toml"),
        ] {
            let err = Config::parse(text, p).expect_err(text).to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
        let ok = Config::parse("[server]\naddress = \"127.0.0.1:25570\"", p).expect("valid");
        assert_eq!(ok.server.address.port(), 25570);
        assert_eq!(
            ok.emotes.max_active_display_entities, 2000,
            "unset options keep their defaults"
        );
    }
}
