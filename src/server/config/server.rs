//! `[server]`: where players connect, how they are authenticated, how
//! many at once, and what the server list shows. Read at start-up only (a
//! reload keeps the section as started).

use std::net::SocketAddr;

use serde::Deserialize;

use super::Config;

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
    /// The line under the server in players' server lists.
    pub motd: String,
}

impl Config {
    /// The start-up line that says where players connect, and how.
    pub fn listening_line(&self) -> String {
        let mode = match self.server.connection_mode {
            ConnectionModeSetting::Offline => "offline mode: no Mojang authentication",
            ConnectionModeSetting::Online => "online mode",
            ConnectionModeSetting::Bungeecord => {
                "BungeeCord forwarding: players come through the proxy"
            }
            ConnectionModeSetting::Velocity => {
                "Velocity forwarding: players come through the proxy"
            }
        };
        format!(
            "players connect to {} ({mode}), {} at once",
            self.server.address, self.server.max_players
        )
    }
}

impl Default for ServerSection {
    fn default() -> Self {
        Self {
            address: SocketAddr::from(([0, 0, 0, 0], 25565)),
            connection_mode: ConnectionModeSetting::Offline,
            velocity_secret: String::new(),
            max_players: 20,
            view_distance: 10,
            motd: "An emoted server".to_owned(),
        }
    }
}
