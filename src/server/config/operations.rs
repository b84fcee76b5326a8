//! `[rcon]` and `[metrics]`: the two ports an admin's tools talk to. Both
//! are off by default and read at start-up only (a reload does not move a
//! listener or change the RCON password).

use std::net::SocketAddr;

use serde::Deserialize;

/// RCON's usual port, on loopback.
pub const DEFAULT_RCON_LISTEN: ([u8; 4], u16) = ([127, 0, 0, 1], 25575);
/// The metrics port, on loopback (the port Prometheus exporters of
/// Minecraft servers commonly use).
pub const DEFAULT_METRICS_LISTEN: ([u8; 4], u16) = ([127, 0, 0, 1], 9225);

/// `[rcon]`: the Source RCON protocol ([`crate::server::operator::rcon`]).
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RconSection {
    /// Listen at all. Default false.
    pub enabled: bool,
    /// Where. Default `127.0.0.1:25575`: RCON sends its password in clear
    /// text, so it belongs on loopback or a private network.
    pub listen: SocketAddr,
    /// The password clients log in with. While empty, RCON stays off even
    /// when enabled (and the start-up log says so).
    pub password: String,
}

impl Default for RconSection {
    fn default() -> Self {
        Self {
            enabled: false,
            listen: SocketAddr::from(DEFAULT_RCON_LISTEN),
            password: String::new(),
        }
    }
}

// By hand, so the password never reaches a log.
impl std::fmt::Debug for RconSection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RconSection")
            .field("enabled", &self.enabled)
            .field("listen", &self.listen)
            .field(
                "password",
                &if self.password.is_empty() {
                    "(empty)"
                } else {
                    "(set)"
                },
            )
            .finish()
    }
}

impl RconSection {
    /// True when RCON listens: enabled, with a password.
    pub fn is_on(&self) -> bool {
        self.enabled && !self.password.is_empty()
    }

    /// What the admin should hear at start-up about this section.
    pub fn startup_warning(&self) -> Option<String> {
        if self.enabled && self.password.is_empty() {
            return Some(
                "rcon.enabled is true but rcon.password is empty: RCON stays off until a password is set"
                    .to_owned(),
            );
        }
        if self.is_on() && !self.listen.ip().is_loopback() {
            return Some(format!(
                "RCON listens on {} beyond loopback: its password and commands cross the network unencrypted; \
                 keep the port behind a firewall or on a private network",
                self.listen
            ));
        }
        None
    }
}

/// `[metrics]`: Prometheus text at `GET /metrics`
/// ([`crate::server::metrics`]).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsSection {
    /// Serve the metrics. Default false.
    pub enabled: bool,
    /// Where. Default `127.0.0.1:9225`.
    pub listen: SocketAddr,
}

impl Default for MetricsSection {
    fn default() -> Self {
        Self {
            enabled: false,
            listen: SocketAddr::from(DEFAULT_METRICS_LISTEN),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcon_is_on_only_with_a_password_and_says_why_not() {
        let mut rcon = RconSection {
            enabled: true,
            ..RconSection::default()
        };
        assert!(!rcon.is_on());
        assert!(rcon
            .startup_warning()
            .is_some_and(|w| w.contains("password is empty")));
        rcon.password = "hunter2".to_owned();
        assert!(rcon.is_on());
        assert_eq!(rcon.startup_warning(), None);
        rcon.listen = "0.0.0.0:25575".parse().expect("address");
        assert!(rcon
            .startup_warning()
            .is_some_and(|w| w.contains("beyond loopback")));
    }

    #[test]
    fn the_password_never_shows_in_debug_output() {
        let rcon = RconSection {
            password: "hunter2".to_owned(),
            ..RconSection::default()
        };
        let shown = format!("{rcon:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("(set)"), "{shown}");
    }
}
