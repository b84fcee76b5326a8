//! `config/emoted.toml`: every option with its default (the bundled file
//! lists them all, commented). `[resource_pack]` is in [`resource_pack`];
//! `EMOTED__<SECTION>__<KEY>` variables set options over the file ([`mod@env`]).

pub mod camera;
pub mod env;
pub mod operations;
pub mod resource_pack;
pub mod server;
pub mod skins;
pub mod storage;
pub mod world;

use std::path::{Path, PathBuf};

use serde::Deserialize;
use valence::prelude::*;

use crate::server::permissions;
pub use crate::server::permissions::PermissionsSection;
pub use camera::CameraSection;
pub use operations::{MetricsSection, RconSection};
pub use resource_pack::ResourcePackSection;
pub use server::{ConnectionModeSetting, ServerSection};
pub use skins::SkinsSection;
pub use storage::StorageSection;
pub use world::WorldSection;

/// The highest `commands.rate_per_second` (and completion rate) accepted.
pub const MAX_RATE_PER_SECOND: f64 = 1000.0;

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
    /// An `EMOTED__…` environment variable was refused ([`mod@env`]).
    #[error(transparent)]
    Environment(#[from] env::EnvError),
}

/// `[emotes]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EmotesSection {
    /// Emote folders or files.
    pub folders: Vec<PathBuf>,
    /// Display entities all playbacks may have together.
    pub max_active_display_entities: usize,
    /// How far display updates reach, as a multiple of each display's
    /// `view_range` × 64 blocks (see [`crate::server::cull`]). The vanilla
    /// client draws a display to `view_range` × 64 × its Entity Distance
    /// setting (50 % to 500 %); 1.0 matches the default setting, 5.0 reaches
    /// every client that could draw it. From 0.5 to 5.0. Default: 1.0.
    pub display_view_scale: f64,
    /// How far, in blocks, a corner of a display's unit cube may be from
    /// where the exact pose puts it while the client interpolates between
    /// updates ([`crate::playback::schedule`]). Larger sends fewer updates.
    /// Above 0, at most 1. Default: 0.01.
    pub display_tolerance_blocks: f32,
    /// How far, in degrees, a display's rotation may be from the exact
    /// pose's while the client interpolates. Above 0, at most 45.
    /// Default: 0.5.
    pub display_tolerance_degrees: f32,
    /// Within this many blocks of a display a viewer gets it drawn within
    /// `display_tolerance_blocks` and `display_tolerance_degrees`; beyond,
    /// the tolerance grows with the distance (twice as far, twice the
    /// tolerance, up to 8 times), so the error on screen stays the same
    /// ([`crate::playback::schedule::bands`]). 0 turns distance bands off.
    /// From 0 to 64. Default: 8.
    pub tolerance_near_blocks: f64,
    /// The display bytes a second one viewer is sent before its farthest
    /// emotes are drawn coarser (see [`crate::server::cull`], "The byte
    /// budget"); the 20 nearest emotes never are. 0: no budget. Default:
    /// 524,288 (512 KiB/s).
    pub viewer_bytes_per_second: u64,
    /// The most displays one viewer is spawned in one tick through cells
    /// it comes into reach of (it joined, teleported, walked into a crowd
    /// or loaded the pack): the rest wait for the next ticks, nearest cell
    /// first (see [`crate::server::cull`], "Arrivals"). A cell comes
    /// whole, so a crowd in one chunk column still comes in one tick. 0:
    /// no limit. Default: [`DEFAULT_VIEWER_SPAWNS_PER_TICK`].
    pub viewer_spawns_per_tick: u32,
    /// Commands one playback's events may run in one tick, every line of a
    /// called `function` counted; past it the playback stops with the
    /// reason (see [`crate::server::dispatch`]). From 1 to 65,536.
    /// Default: [`DEFAULT_MAX_COMMANDS_PER_TICK`].
    pub max_commands_per_tick: u32,
    /// Molang operations one playback may use in one tick, shared by its
    /// `molang.tick` and every track expression (only loop iterations are
    /// charged; see [`crate::molang`], "The operation budget"); past it the
    /// playback stops with the reason. At least [`MIN_MOLANG_BUDGET_OPS`].
    /// Default: [`crate::molang::DEFAULT_OP_BUDGET`].
    pub molang_budget_ops: u64,
}

/// The default of `[emotes] tolerance_near_blocks`: the configured
/// tolerance holds within arm's reach and a few steps.
pub const DEFAULT_TOLERANCE_NEAR_BLOCKS: f64 = 8.0;

/// The default of `[emotes] viewer_bytes_per_second`: 512 KiB/s, a twelfth
/// of a 50 Mbit/s home connection.
pub const DEFAULT_VIEWER_BYTES_PER_SECOND: u64 = 512 * 1024;

/// The default of `[emotes] viewer_spawns_per_tick`: 512 displays, about
/// 130 KB a tick with the bundled emotes (a spawn and its fields are about
/// 250 bytes), so a viewer arriving among 300 emoting players (about 5,000
/// displays) is shown them within half a second, nearest first.
pub const DEFAULT_VIEWER_SPAWNS_PER_TICK: u32 = 512;

/// The lowest `[emotes] molang_budget_ops` accepted: fewer would stop
/// ordinary short loops.
pub const MIN_MOLANG_BUDGET_OPS: u64 = 1000;

/// The default of `[emotes] max_commands_per_tick`: far more than any
/// bundled emote runs in a tick (the busiest runs a handful), few enough
/// that a runaway function costs a fraction of a tick.
pub const DEFAULT_MAX_COMMANDS_PER_TICK: u32 = 256;

impl Default for EmotesSection {
    fn default() -> Self {
        Self {
            folders: vec![PathBuf::from("emotes"), PathBuf::from("datapacks")],
            max_active_display_entities: 2000,
            display_view_scale: 1.0,
            display_tolerance_blocks: 0.01,
            display_tolerance_degrees: 0.5,
            tolerance_near_blocks: DEFAULT_TOLERANCE_NEAR_BLOCKS,
            viewer_bytes_per_second: DEFAULT_VIEWER_BYTES_PER_SECOND,
            viewer_spawns_per_tick: DEFAULT_VIEWER_SPAWNS_PER_TICK,
            max_commands_per_tick: DEFAULT_MAX_COMMANDS_PER_TICK,
            molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
        }
    }
}

impl EmotesSection {
    /// Checks the display options (`display_view_scale`,
    /// `display_tolerance_blocks`, `display_tolerance_degrees`); the error
    /// names the option and its range.
    pub fn check_display_options(&self) -> Result<(), String> {
        if !(0.5..=5.0).contains(&self.display_view_scale) {
            return Err(format!(
                "emotes.display_view_scale must be from 0.5 to 5.0, found {}",
                self.display_view_scale
            ));
        }
        let blocks = self.display_tolerance_blocks;
        if !(blocks > 0.0 && blocks <= 1.0) {
            return Err(format!(
                "emotes.display_tolerance_blocks must be above 0 and at most 1, found {blocks}"
            ));
        }
        let degrees = self.display_tolerance_degrees;
        if !(degrees > 0.0 && degrees <= 45.0) {
            return Err(format!(
                "emotes.display_tolerance_degrees must be above 0 and at most 45, found {degrees}"
            ));
        }
        let near = self.tolerance_near_blocks;
        if !(0.0..=64.0).contains(&near) {
            return Err(format!(
                "emotes.tolerance_near_blocks must be from 0 to 64, found {near}"
            ));
        }
        Ok(())
    }

    /// Checks `molang_budget_ops`; the error names the option and its minimum.
    pub fn check_molang_budget(&self) -> Result<(), String> {
        if self.molang_budget_ops < MIN_MOLANG_BUDGET_OPS {
            return Err(format!(
                "emotes.molang_budget_ops must be at least {MIN_MOLANG_BUDGET_OPS}, found {}",
                self.molang_budget_ops
            ));
        }
        Ok(())
    }
}

/// `[commands]`: how fast one player may run commands. Each player has two
/// token buckets (governor's GCRA): one for commands, one for tab
/// completion requests. A command over the limit is refused with a
/// "Slow down" message; a completion request over the limit gets no answer.
/// Operators are limited too: their clients can misbehave (macros, a stolen
/// account) like anyone's, and the defaults leave plenty of room for a human.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CommandsSection {
    /// Commands a player may run per second, on average; `0` turns command
    /// rate limiting off. Default: 5.
    pub rate_per_second: f64,
    /// Commands a player may run at once before the rate applies. Default: 15.
    pub burst: u32,
    /// Tab-completion requests per second (the client sends one per key
    /// typed in a command argument); `0` turns their limiting off.
    /// Default: 20.
    pub completions_per_second: f64,
    /// Tab-completion requests at once. Default: 40.
    pub completion_burst: u32,
}

impl Default for CommandsSection {
    fn default() -> Self {
        Self {
            rate_per_second: 5.0,
            burst: 15,
            completions_per_second: 20.0,
            completion_burst: 40,
        }
    }
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
    /// `[commands]`.
    pub commands: CommandsSection,
    /// `[resource_pack]`.
    pub resource_pack: ResourcePackSection,
    /// `[skins]`.
    pub skins: SkinsSection,
    /// `[storage]`.
    pub storage: StorageSection,
    /// `[camera]`.
    pub camera: CameraSection,
    /// `[rcon]`.
    pub rcon: RconSection,
    /// `[metrics]`.
    pub metrics: MetricsSection,
    /// `[world]`.
    pub world: WorldSection,
    /// The `EMOTED__…` environment variables applied over the file
    /// ([`mod@env`]), by name; not an option.
    #[serde(skip)]
    pub environment: Vec<String>,
}

impl Config {
    /// What an admin should hear at start-up about how exposed this
    /// configuration is (each a log warning, said once):
    /// - offline mode with operators listed: offline mode authenticates
    ///   nobody, so a listed name (and the UUID derived from it) belongs to
    ///   whoever types it;
    /// - a proxy mode listening beyond loopback: only the proxy may reach
    ///   the port (BungeeCord forwarding is not signed at all);
    /// - a resource pack URL that only this machine can open while players
    ///   are likely elsewhere ([`ResourcePackSection::startup_warning`]).
    pub fn startup_warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        let server = &self.server;
        if server.connection_mode == ConnectionModeSetting::Offline
            && !self.permissions.operators.is_empty()
        {
            warnings.push(format!(
                "offline mode authenticates nobody: anyone who joins under a name listed in \
                 permissions.operators ({}) gets operator rights. Use connection_mode = \
                 \"online\", or a proxy with operators listed by UUID",
                self.permissions.operators.join(", ")
            ));
        }
        let proxy = match server.connection_mode {
            ConnectionModeSetting::Bungeecord => Some("bungeecord"),
            ConnectionModeSetting::Velocity => Some("velocity"),
            _ => None,
        };
        if let Some(mode) = proxy {
            if !server.address.ip().is_loopback() {
                warnings.push(format!(
                    "connection_mode = \"{mode}\" and the server listens on {}, beyond \
                     loopback: firewall this port so that only the proxy can reach it{}",
                    server.address,
                    if mode == "bungeecord" {
                        " (BungeeCord forwarding is not signed: anyone who reaches the port \
                         can claim any player)"
                    } else {
                        ""
                    }
                ));
            }
        }
        warnings.extend(self.resource_pack.startup_warning(proxy));
        warnings.extend(self.rcon.startup_warning());
        warnings
    }
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
        config.emotes.check_display_options().map_err(invalid)?;
        config.emotes.check_molang_budget().map_err(invalid)?;
        if !(1..=65_536).contains(&config.emotes.max_commands_per_tick) {
            return Err(invalid(format!(
                "emotes.max_commands_per_tick must be from 1 to 65536, found {}",
                config.emotes.max_commands_per_tick
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
        permissions::validate_rules(&config.permissions).map_err(|e| invalid(e.to_string()))?;
        config.resource_pack.validate().map_err(invalid)?;
        config.skins.validate().map_err(invalid)?;
        config.camera.validate().map_err(invalid)?;
        let limits = [
            (
                "commands.rate_per_second",
                config.commands.rate_per_second,
                "commands.burst",
                config.commands.burst,
            ),
            (
                "commands.completions_per_second",
                config.commands.completions_per_second,
                "commands.completion_burst",
                config.commands.completion_burst,
            ),
        ];
        for (rate_option, rate, burst_option, burst) in limits {
            if !(0.0..=MAX_RATE_PER_SECOND).contains(&rate) {
                return Err(invalid(format!(
                    "{rate_option} must be from 0 (no limit) to {MAX_RATE_PER_SECOND}, found {rate}"
                )));
            }
            if burst == 0 {
                return Err(invalid(format!("{burst_option} must be at least 1")));
            }
        }
        Ok(config)
    }

    /// Reads a configuration file, with the process's `EMOTED__…`
    /// variables set over it ([`mod@env`]).
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        env::load(&text, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listening_line_says_where_and_how() {
        let mut config = Config::default();
        assert_eq!(
            config.listening_line(),
            "players connect to 0.0.0.0:25565 (offline mode: no Mojang authentication), 20 at once"
        );
        config.server.connection_mode = ConnectionModeSetting::Velocity;
        assert!(config.listening_line().contains("Velocity forwarding"));
    }

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
        assert_eq!(bundled.server.motd, defaults.server.motd);
        assert_eq!(bundled.emotes.folders, defaults.emotes.folders);
        assert_eq!(
            bundled.emotes.max_active_display_entities,
            defaults.emotes.max_active_display_entities
        );
        assert_eq!(
            bundled.emotes.display_view_scale,
            defaults.emotes.display_view_scale
        );
        assert_eq!(
            bundled.emotes.display_tolerance_blocks,
            defaults.emotes.display_tolerance_blocks
        );
        assert_eq!(
            bundled.emotes.display_tolerance_degrees,
            defaults.emotes.display_tolerance_degrees
        );
        assert_eq!(
            bundled.emotes.tolerance_near_blocks,
            defaults.emotes.tolerance_near_blocks
        );
        assert_eq!(
            bundled.emotes.viewer_bytes_per_second,
            defaults.emotes.viewer_bytes_per_second
        );
        assert_eq!(
            bundled.emotes.viewer_spawns_per_tick,
            defaults.emotes.viewer_spawns_per_tick
        );
        assert_eq!(
            bundled.emotes.molang_budget_ops,
            defaults.emotes.molang_budget_ops
        );
        assert_eq!(bundled.permissions, defaults.permissions);
        assert_eq!(bundled.commands, defaults.commands);
        assert_eq!(bundled.resource_pack, defaults.resource_pack);
        assert_eq!(bundled.skins, defaults.skins);
        assert_eq!(bundled.camera, defaults.camera);
    }

    #[test]
    fn permission_and_rate_options_are_read() {
        let p = Path::new("emoted.toml");
        let config = Config::parse(
            r#"
            [permissions]
            operators = ["Admin"]
            default_nodes = []
            [permissions.groups.vip]
            players = ["Alex"]
            nodes = ["emote.play.vip"]
            [[permissions.emote_groups]]
            emotes = ["example:*"]
            node = "emote.play.vip"
            cooldown_multiplier = 0.5
            [commands]
            rate_per_second = 2.5
            burst = 4
            "#,
            p,
        )
        .expect("valid");
        assert!(config.permissions.default_nodes.is_empty());
        assert_eq!(config.permissions.groups["vip"].players, ["Alex"]);
        assert_eq!(
            config.permissions.emote_groups[0].cooldown_multiplier,
            Some(0.5)
        );
        assert_eq!(config.commands.rate_per_second, 2.5);
        assert_eq!(config.commands.burst, 4);
        assert_eq!(config.commands.completion_burst, 40, "unset keeps default");
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
            (
                "[emotes]\ndisplay_view_scale = 0.1",
                "emotes.display_view_scale",
            ),
            (
                "[emotes]\ndisplay_view_scale = nan",
                "emotes.display_view_scale",
            ),
            (
                "[emotes]\ndisplay_tolerance_blocks = 0",
                "emotes.display_tolerance_blocks",
            ),
            (
                "[emotes]\ndisplay_tolerance_degrees = 90",
                "emotes.display_tolerance_degrees",
            ),
            (
                "[emotes]\ntolerance_near_blocks = 65",
                "emotes.tolerance_near_blocks must be from 0 to 64, found 65",
            ),
            (
                "[emotes]\nmolang_budget_ops = 999",
                "emotes.molang_budget_ops must be at least 1000, found 999",
            ),
            ("[emotes]\nmolang_budget_ops = -1", "molang_budget_ops"),
            ("[server\n", "emoted.toml"),
            ("[permissions]\noperator = []", "operator"),
            (
                "[permissions.groups.vip]\nnodes = [\"Emote.VIP\"]",
                "permissions.groups.vip.nodes",
            ),
            (
                "[permissions.groups.vip]\nmembers = []",
                "members",
            ),
            (
                "[[permissions.emote_groups]]\nemotes = [\"example:*\"]\ncooldown_multiplier = -2.0",
                "permissions.emote_groups[1].cooldown_multiplier",
            ),
            (
                "[[permissions.emote_groups]]\nemotes = [\"example:*\"]\ncooldown = \"x2\"",
                "cooldown",
            ),
            ("[commands]\nrate_per_second = -1.0", "commands.rate_per_second"),
            ("[commands]\nrate_per_second = nan", "commands.rate_per_second"),
            ("[commands]\nburst = 0", "commands.burst"),
            ("[commands]\ncompletion_burst = 0", "commands.completion_burst"),
            ("[commands]\nburst = -3", "burst"),
            (
                "[resource_pack]\npublic_url = \"ftp://example.com\"",
                "resource_pack.public_url `ftp://example.com` must start with http:// or https://",
            ),
            ("[resource_pack]\nlisten = \"25580\"", "listen"),
            ("[resource_pack]\nrequire = true", "require"),
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

    #[test]
    fn startup_warnings_name_the_exposure() {
        let parse = |text: &str| Config::parse(text, Path::new("emoted.toml")).expect("valid");
        assert!(Config::default().startup_warnings().is_empty());
        let offline_ops = parse("[permissions]\noperators = [\"Admin\"]");
        let warnings = offline_ops.startup_warnings();
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("offline mode authenticates nobody"),
            "{warnings:?}"
        );
        assert!(warnings[0].contains("Admin"));
        let bungee =
            parse("[server]\nconnection_mode = \"bungeecord\"\naddress = \"0.0.0.0:25565\"");
        let warnings = bungee.startup_warnings();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("firewall"), "{warnings:?}");
        assert!(warnings[0].contains("not signed"));
        assert!(
            warnings[1].contains("behind a bungeecord proxy"),
            "the pack's local URL: {warnings:?}"
        );
        let public_pack = "[resource_pack]\npublic_url = \"http://play.example.com:25580\"";
        let local = parse(&format!(
            "[server]\nconnection_mode = \"velocity\"\nvelocity_secret = \"k\"\naddress = \"127.0.0.1:25577\"\n[permissions]\noperators = [\"Admin\"]\n{public_pack}",
        ));
        assert!(
            local.startup_warnings().is_empty(),
            "loopback behind a proxy is fine, and so is a public pack URL"
        );
    }
}
