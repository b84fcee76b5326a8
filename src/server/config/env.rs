//! Options from the environment: `EMOTED__<SECTION>__<KEY>` sets
//! `[section] key` over what the file says, for containers and compose
//! files, where an option is easier to pass as a variable than as a file.
//!
//! The name is `EMOTED__`, the section and the key in upper case, joined
//! by double underscores: `EMOTED__RESOURCE_PACK__PUBLIC_URL` sets
//! `[resource_pack] public_url`, `EMOTED__SERVER__ADDRESS` sets
//! `[server] address`. The value is read as a TOML value when it is one
//! (`25`, `true`, `["emotes"]`, `"quoted"`, `{ vip = { nodes = [] } }`)
//! and the option takes that type, and as a plain string otherwise
//! (`0.0.0.0:25565`, `http://play.example.com:25580`, an empty value).
//! A value that is TOML of the wrong type for a text option (a secret
//! `12345`, a motd `true`) is taken as its text.
//!
//! Each variable is checked on its own against the configuration's types,
//! as strict as the file: an unknown section or key, or a value the
//! option cannot take, is an error that names the variable. The merged
//! configuration then goes through every check a file does
//! ([`Config::parse`]), and an error there says which variables were
//! applied. Order, last wins: the defaults, the file, the environment,
//! then `emoted serve`'s flags. A reload reads the environment again
//! (it has not changed: a process's environment is fixed at its start).
//!
//! Start-up logs the names of the variables applied, never their values
//! (secrets come this way).

use std::ffi::OsString;
use std::path::Path;

use super::{Config, ConfigError};

/// What every variable read here starts with.
pub const PREFIX: &str = "EMOTED__";

/// Why an `EMOTED__…` variable was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    /// The name is not `EMOTED__<SECTION>__<KEY>` in upper case.
    #[error(
        "environment variable {variable}: write EMOTED__<SECTION>__<KEY> in upper case, \
         section and key joined by two underscores (EMOTED__SERVER__ADDRESS sets [server] \
         address)"
    )]
    Malformed {
        /// The variable's name (lossy if it is not UTF-8).
        variable: String,
    },
    /// The value is not valid UTF-8.
    #[error("environment variable {variable}: the value is not valid UTF-8")]
    NotUnicode {
        /// The variable's name.
        variable: String,
    },
    /// The section or key does not exist, or the option cannot take the
    /// value.
    #[error("environment variable {variable} sets [{section}] {key}: {message}")]
    Rejected {
        /// The variable's name.
        variable: String,
        /// The section it names, lower case.
        section: String,
        /// The key it names, lower case.
        key: String,
        /// What the configuration's types said (naming the unknown field
        /// and those that exist, or the type expected).
        message: String,
    },
}

/// One variable, read and checked.
#[derive(Debug, Clone, PartialEq)]
struct Override {
    variable: String,
    section: String,
    key: String,
    value: toml::Value,
}

/// The `EMOTED__…` variables of an environment, each checked on its own.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvOverrides {
    overrides: Vec<Override>,
}

impl EnvOverrides {
    /// Reads the variables that start with [`PREFIX`] from `vars` (the
    /// process's are [`std::env::vars_os`]); others are ignored.
    pub fn read<I, K, V>(vars: I) -> Result<EnvOverrides, EnvError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        let mut overrides = Vec::new();
        for (name, value) in vars {
            let (name, value) = (name.into(), value.into());
            let Some(variable) = name.to_str() else {
                let lossy = name.to_string_lossy();
                if lossy.starts_with(PREFIX) {
                    return Err(EnvError::Malformed {
                        variable: lossy.into_owned(),
                    });
                }
                continue;
            };
            if !variable.starts_with(PREFIX) {
                continue;
            }
            let Some((section, key)) = option_of(variable) else {
                return Err(EnvError::Malformed {
                    variable: variable.to_owned(),
                });
            };
            let Some(text) = value.to_str() else {
                return Err(EnvError::NotUnicode {
                    variable: variable.to_owned(),
                });
            };
            let value = checked_value(variable, &section, &key, text)?;
            overrides.push(Override {
                variable: variable.to_owned(),
                section,
                key,
                value,
            });
        }
        overrides.sort_by(|a, b| a.variable.cmp(&b.variable));
        Ok(EnvOverrides { overrides })
    }

    /// True when no variable applies.
    pub fn is_empty(&self) -> bool {
        self.overrides.is_empty()
    }

    /// The names of the variables, sorted.
    pub fn names(&self) -> Vec<String> {
        self.overrides.iter().map(|o| o.variable.clone()).collect()
    }

    /// Sets each option in `table` (a whole configuration file).
    fn apply(&self, table: &mut toml::Table) {
        for o in &self.overrides {
            let section = table
                .entry(o.section.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            // A section that is not a table is the file's own error, which
            // the parse reports.
            if let toml::Value::Table(section) = section {
                section.insert(o.key.clone(), o.value.clone());
            }
        }
    }

    /// Parses the configuration file `text` with these options set over
    /// it, and checks the result as [`Config::parse`] does; the config
    /// names the variables applied ([`Config::environment`]).
    pub fn parse(&self, text: &str, path: &Path) -> Result<Config, ConfigError> {
        if self.is_empty() {
            return Config::parse(text, path);
        }
        // A file that is no TOML at all is reported as it is, with its
        // line and column.
        let Ok(mut table) = toml::from_str::<toml::Table>(text) else {
            return Config::parse(text, path);
        };
        self.apply(&mut table);
        let merged = toml::to_string(&table).map_err(|e| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: format!("cannot merge the environment's options: {e}"),
        })?;
        let mut config = Config::parse(&merged, path).map_err(|e| match e {
            ConfigError::Invalid { path, message } => ConfigError::Invalid {
                path,
                message: format!(
                    "{message} (with {} from the environment)",
                    self.names().join(", ")
                ),
            },
            other => other,
        })?;
        config.environment = self.names();
        Ok(config)
    }
}

/// Reads the configuration file at `path` with the process's `EMOTED__…`
/// variables set over it: [`Config::load`].
pub(super) fn load(text: &str, path: &Path) -> Result<Config, ConfigError> {
    EnvOverrides::read(std::env::vars_os())?.parse(text, path)
}

impl Config {
    /// The defaults with the process's `EMOTED__…` variables set over them:
    /// the configuration when there is no file.
    pub fn from_environment() -> Result<Config, ConfigError> {
        load("", Path::new("(no configuration file)"))
    }

    /// The start-up line naming the variables applied (never their
    /// values), `None` when there are none.
    pub fn environment_line(&self) -> Option<String> {
        (!self.environment.is_empty()).then(|| {
            format!(
                "options from the environment: {}",
                self.environment.join(", ")
            )
        })
    }
}

/// `(section, key)` of a variable named `EMOTED__<SECTION>__<KEY>`, lower
/// case; `None` when the name has another shape.
fn option_of(variable: &str) -> Option<(String, String)> {
    let rest = variable.strip_prefix(PREFIX)?;
    let (section, key) = rest.split_once("__")?;
    let part_ok = |part: &str| {
        !part.is_empty()
            && !part.starts_with('_')
            && !part.ends_with('_')
            && part
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    };
    if !part_ok(section) || !part_ok(key) || key.contains("__") {
        return None;
    }
    Some((section.to_ascii_lowercase(), key.to_ascii_lowercase()))
}

/// The value `text` sets `[section] key` to: its TOML reading when the
/// option takes it, else the plain string when the option takes that.
fn checked_value(
    variable: &str,
    section: &str,
    key: &str,
    text: &str,
) -> Result<toml::Value, EnvError> {
    let plain = toml::Value::String(text.to_owned());
    let Some(typed) = toml_value(text) else {
        return check_alone(section, key, &plain)
            .map(|()| plain)
            .map_err(|message| rejected(variable, section, key, message));
    };
    match check_alone(section, key, &typed) {
        Ok(()) => Ok(typed),
        Err(message) if typed.is_str() => Err(rejected(variable, section, key, message)),
        // `motd = true`, `velocity_secret = 12345`: meant as text.
        Err(message) => match check_alone(section, key, &plain) {
            Ok(()) => Ok(plain),
            Err(_) => Err(rejected(variable, section, key, message)),
        },
    }
}

fn rejected(variable: &str, section: &str, key: &str, message: String) -> EnvError {
    EnvError::Rejected {
        variable: variable.to_owned(),
        section: section.to_owned(),
        key: key.to_owned(),
        message,
    }
}

/// `text` as one TOML value (`v = <text>` is a document with that one
/// key), `None` when it is not one.
fn toml_value(text: &str) -> Option<toml::Value> {
    let mut table = toml::from_str::<toml::Table>(&format!("v = {text}")).ok()?;
    if table.len() != 1 {
        return None;
    }
    table.remove("v")
}

/// Whether a configuration holding only `[section] key = value` passes
/// the types (not the cross-option checks, which need the whole file):
/// the error names the unknown field or the type expected.
fn check_alone(section: &str, key: &str, value: &toml::Value) -> Result<(), String> {
    let mut inner = toml::Table::new();
    inner.insert(key.to_owned(), value.clone());
    let mut outer = toml::Table::new();
    outer.insert(section.to_owned(), toml::Value::Table(inner));
    toml::Value::Table(outer)
        .try_into::<Config>()
        .map(drop)
        .map_err(|e| e.to_string().trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::config::ConnectionModeSetting;

    fn read(vars: &[(&str, &str)]) -> Result<EnvOverrides, EnvError> {
        EnvOverrides::read(vars.iter().map(|(k, v)| (*k, *v)))
    }

    fn parse(text: &str, vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        read(vars)
            .expect("variables read")
            .parse(text, Path::new("emoted.toml"))
    }

    #[test]
    fn variables_set_options_over_the_file() {
        let config = parse(
            "[server]\nmotd = \"From the file\"\nmax_players = 5\n",
            &[
                ("EMOTED__SERVER__ADDRESS", "127.0.0.1:25570"),
                ("EMOTED__SERVER__MAX_PLAYERS", "7"),
                ("EMOTED__RESOURCE_PACK__LISTEN", "0.0.0.0:25580"),
                (
                    "EMOTED__RESOURCE_PACK__PUBLIC_URL",
                    "http://play.example.com:25580",
                ),
                ("EMOTED__RESOURCE_PACK__REQUIRED", "true"),
                ("EMOTED__EMOTES__FOLDERS", "[\"mine\", \"datapacks\"]"),
                ("EMOTED__EMOTES__DISPLAY_VIEW_SCALE", "2.5"),
                ("PATH", "/usr/bin"),
                ("EMOTED_LOG", "ignored: one underscore"),
            ],
        )
        .expect("valid");
        assert_eq!(config.server.address.port(), 25570);
        assert_eq!(config.server.max_players, 7, "the environment wins");
        assert_eq!(config.server.motd, "From the file", "the rest stays");
        assert_eq!(config.resource_pack.listen.to_string(), "0.0.0.0:25580");
        assert_eq!(
            config.resource_pack.public_url,
            "http://play.example.com:25580"
        );
        assert!(config.resource_pack.required);
        assert_eq!(config.emotes.folders.len(), 2);
        assert_eq!(config.emotes.folders[0].to_str(), Some("mine"));
        assert_eq!(config.emotes.display_view_scale, 2.5);
        assert_eq!(
            config.environment,
            [
                "EMOTED__EMOTES__DISPLAY_VIEW_SCALE",
                "EMOTED__EMOTES__FOLDERS",
                "EMOTED__RESOURCE_PACK__LISTEN",
                "EMOTED__RESOURCE_PACK__PUBLIC_URL",
                "EMOTED__RESOURCE_PACK__REQUIRED",
                "EMOTED__SERVER__ADDRESS",
                "EMOTED__SERVER__MAX_PLAYERS",
            ],
            "names, sorted"
        );
    }

    #[test]
    fn text_options_take_values_that_look_like_other_toml() {
        let config = parse(
            "",
            &[
                ("EMOTED__SERVER__CONNECTION_MODE", "velocity"),
                ("EMOTED__SERVER__VELOCITY_SECRET", "12345"),
                ("EMOTED__SERVER__MOTD", "true"),
                ("EMOTED__RESOURCE_PACK__PROMPT", "\"quoted\""),
                ("EMOTED__STORAGE__DATA_FOLDER", ""),
            ],
        )
        .expect("valid");
        assert_eq!(
            config.server.connection_mode,
            ConnectionModeSetting::Velocity
        );
        assert_eq!(config.server.velocity_secret, "12345");
        assert_eq!(config.server.motd, "true");
        assert_eq!(config.resource_pack.prompt, "quoted", "TOML string");
        assert_eq!(config.storage.data_folder(), None, "empty turns it off");
    }

    #[test]
    fn a_table_value_sets_a_table_option() {
        let config = parse(
            "[permissions.groups.staff]\nplayers = [\"Mod\"]\nnodes = [\"emote.manage\"]\n",
            &[(
                "EMOTED__PERMISSIONS__GROUPS",
                "{ vip = { players = [\"Alex\"], nodes = [\"emote.play.vip\"] } }",
            )],
        )
        .expect("valid");
        let groups = &config.permissions.groups;
        assert_eq!(groups.len(), 1, "the variable replaces the whole key");
        assert_eq!(groups["vip"].players, ["Alex"]);
    }

    #[test]
    fn unknown_sections_and_keys_name_the_variable() {
        for (variable, value, needles) in [
            (
                "EMOTED__SERVER__LISTEN",
                "0.0.0.0:25565",
                &[
                    "EMOTED__SERVER__LISTEN",
                    "[server] listen",
                    "`listen`",
                    "`address`",
                ][..],
            ),
            (
                "EMOTED__SERVR__MOTD",
                "hello",
                &["EMOTED__SERVR__MOTD", "`servr`", "`server`"],
            ),
            (
                "EMOTED__SERVER__MAX_PLAYERS",
                "many",
                &["EMOTED__SERVER__MAX_PLAYERS", "[server] max_players"],
            ),
            (
                "EMOTED__SERVER__MAX_PLAYERS",
                "-1",
                &["EMOTED__SERVER__MAX_PLAYERS"],
            ),
            (
                "EMOTED__SERVER__ADDRESS",
                "nowhere",
                &["EMOTED__SERVER__ADDRESS", "[server] address"],
            ),
            (
                "EMOTED__SERVER__CONNECTION_MODE",
                "bungee",
                &["EMOTED__SERVER__CONNECTION_MODE", "bungeecord"],
            ),
        ] {
            let err = read(&[(variable, value)]).expect_err(variable);
            assert!(
                matches!(&err, EnvError::Rejected { variable: v, .. } if v == variable),
                "{err:?}"
            );
            let text = err.to_string();
            for needle in needles {
                assert!(text.contains(needle), "{variable}: {text}");
            }
        }
    }

    #[test]
    fn names_of_another_shape_are_refused() {
        for variable in [
            "EMOTED__SERVER",
            "EMOTED__server__motd",
            "EMOTED____MOTD",
            "EMOTED__SERVER__",
            "EMOTED__PERMISSIONS__GROUPS__VIP",
            "EMOTED__SERVER___MOTD",
            "EMOTED__SERVER__MO-TD",
        ] {
            let err = read(&[(variable, "x")]).expect_err(variable);
            assert_eq!(
                err,
                EnvError::Malformed {
                    variable: variable.to_owned()
                }
            );
            assert!(err.to_string().contains(variable), "{err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_value_that_is_not_unicode_is_refused() {
        use std::os::unix::ffi::OsStringExt;
        let value = OsString::from_vec(vec![0x66, 0xff]);
        let err = EnvOverrides::read([(OsString::from("EMOTED__SERVER__MOTD"), value)])
            .expect_err("not UTF-8");
        assert!(matches!(err, EnvError::NotUnicode { .. }), "{err:?}");
    }

    #[test]
    fn the_whole_configuration_is_checked_and_the_variables_named() {
        let err = parse(
            "[server]\nconnection_mode = \"offline\"\n",
            &[("EMOTED__SERVER__CONNECTION_MODE", "velocity")],
        )
        .expect_err("no secret")
        .to_string();
        assert!(err.contains("server.velocity_secret must be set"), "{err}");
        assert!(
            err.contains("with EMOTED__SERVER__CONNECTION_MODE from the environment"),
            "{err}"
        );
        // The secret from the environment completes the file.
        let config = parse(
            "[server]\nconnection_mode = \"velocity\"\n",
            &[("EMOTED__SERVER__VELOCITY_SECRET", "s3cret")],
        )
        .expect("valid");
        assert_eq!(config.server.velocity_secret, "s3cret");
        let err = parse("", &[("EMOTED__EMOTES__DISPLAY_VIEW_SCALE", "9.0")])
            .expect_err("out of range")
            .to_string();
        assert!(err.contains("emotes.display_view_scale"), "{err}");
    }

    #[test]
    fn file_errors_are_reported_as_without_variables() {
        let vars = [("EMOTED__SERVER__MOTD", "hi")];
        let err = parse("[server\n", &vars).expect_err("bad TOML").to_string();
        assert!(err.contains("line 1"), "{err}");
        let err = parse("[server]\nadress = \"x\"\n", &vars)
            .expect_err("unknown key in the file")
            .to_string();
        assert!(err.contains("adress"), "{err}");
    }

    #[test]
    fn no_variables_leave_the_file_alone() {
        let overrides = read(&[("HOME", "/root")]).expect("read");
        assert!(overrides.is_empty());
        let config = overrides
            .parse("[server]\nmax_players = 3\n", Path::new("emoted.toml"))
            .expect("valid");
        assert_eq!(config.server.max_players, 3);
        assert!(config.environment.is_empty());
        assert_eq!(config.environment_line(), None);
    }

    #[test]
    fn the_start_up_line_names_the_variables_not_the_values() {
        let config = parse(
            "",
            &[
                ("EMOTED__SERVER__CONNECTION_MODE", "velocity"),
                ("EMOTED__SERVER__VELOCITY_SECRET", "hunter2"),
            ],
        )
        .expect("valid");
        let line = config.environment_line().expect("a line");
        assert_eq!(
            line,
            "options from the environment: EMOTED__SERVER__CONNECTION_MODE, \
             EMOTED__SERVER__VELOCITY_SECRET"
        );
        assert!(!line.contains("hunter2"));
    }
}
