//! `emoted serve`: the configuration read and overridden by the command
//! line, the world opened, the network runtime and the listeners made, and
//! [`crate::EmotePlugins`] run on one thread until a stop. What the
//! binary's other commands share with it ([`DEFAULT_CONFIG`]) lives here.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// Where `emoted serve` and `emoted check` look for the configuration when
/// none is named.
pub const DEFAULT_CONFIG: &str = "config/emoted.toml";

/// `emoted serve`'s options: each overrides its key of the configuration.
#[derive(clap::Args, Debug, Default)]
pub struct ServeArgs {
    /// The configuration file (default: config/emoted.toml when it exists).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Address to listen on, overriding the configuration.
    #[arg(long)]
    pub address: Option<SocketAddr>,
    /// Folders (or files) to load emotes from, overriding the configuration (repeatable).
    #[arg(long = "emotes")]
    pub emote_roots: Vec<PathBuf>,
    /// Address the resource pack's HTTP server listens on, overriding
    /// `resource_pack.listen` (port 0 picks a free port).
    #[arg(long = "resource-pack-listen", value_name = "ADDRESS")]
    pub resource_pack_listen: Option<SocketAddr>,
    /// The folder of the per-player store (`players.sqlite3`), overriding
    /// `storage.data_folder`.
    #[arg(long = "data-folder", value_name = "FOLDER")]
    pub data_folder: Option<PathBuf>,
}

/// Runs the server until it is stopped (a signal, the console's or
/// RCON's `stop`): 0 after a clean stop, 1 when it cannot start.
pub fn serve(args: ServeArgs) -> ExitCode {
    use crate::server::config::{Config, ConnectionModeSetting};
    use crate::server::gateway::{GatewayPlugin, GatewaySettings, ProxyMode};
    use crate::server::runtime::NetworkRuntime;
    use valence::network::{ConnectionMode, NetworkPlugin, NetworkSettings};
    use valence::prelude::*;

    let default_path = PathBuf::from(DEFAULT_CONFIG);
    let config_path = match &args.config {
        Some(path) => Some(path.clone()),
        None if default_path.is_file() => Some(default_path),
        None => None,
    };
    let config = match &config_path {
        Some(path) => Config::load(path),
        None => Config::from_environment(),
    };
    let mut config = match config {
        Ok(c) => c,
        Err(e) => {
            eprintln!("emoted: bad configuration: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(address) = args.address {
        config.server.address = address;
    }
    if !args.emote_roots.is_empty() {
        config.emotes.folders = args.emote_roots;
    }
    if let Some(listen) = args.resource_pack_listen {
        config.resource_pack.listen = listen;
    }
    if let Some(folder) = args.data_folder {
        config.storage.data_folder = folder;
    }
    let world = match crate::server::world::WorldPlugin::open(&config.world) {
        Ok(world) => world,
        Err(e) => {
            eprintln!("emoted: cannot open the world: {e}");
            return ExitCode::FAILURE;
        }
    };
    let warnings = config.startup_warnings();
    // One tokio runtime for every network task: valence's listener, the
    // proxy gateway, the resource pack's HTTP server (src/server/runtime.rs).
    let runtime = match NetworkRuntime::new("emoted-network") {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("emoted: cannot start the network runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut app = App::new();
    app.insert_resource(runtime.clone());
    app.insert_resource(crate::server::EmoteFolders {
        roots: config.emotes.folders.clone(),
    });
    // Both listeners show the motd and refuse logins once a stop began.
    let gate = crate::server::listener::ListenerGate::new(&config.server.motd);
    app.insert_resource(crate::server::listener::Listener(gate.clone()));
    let network = |connection_mode| NetworkSettings {
        connection_mode,
        address: config.server.address,
        max_players: config.server.max_players,
        tokio_handle: Some(runtime.handle().clone()),
        callbacks: valence::network::ErasedNetworkCallbacks::new(
            crate::server::listener::EmotedCallbacks(gate.clone()),
        ),
        ..Default::default()
    };
    let proxy = match config.server.connection_mode {
        ConnectionModeSetting::Offline => {
            app.insert_resource(network(ConnectionMode::Offline));
            None
        }
        ConnectionModeSetting::Online => {
            app.insert_resource(network(ConnectionMode::Online {
                prevent_proxy_connections: false,
            }));
            None
        }
        ConnectionModeSetting::Bungeecord => Some(ProxyMode::BungeeCord),
        ConnectionModeSetting::Velocity => Some(ProxyMode::Velocity {
            secret: config.server.velocity_secret.clone(),
        }),
    };
    // The proxy modes use emoted's own listener, which checks the forwarding
    // before valence sees the player (src/server/gateway).
    match proxy {
        Some(mode) => {
            app.insert_resource(GatewaySettings {
                mode,
                address: config.server.address,
                max_players: config.server.max_players,
                listener: gate.clone(),
            })
            .add_plugins(DefaultPlugins.build().disable::<NetworkPlugin>())
            .add_plugins(GatewayPlugin);
        }
        None => {
            app.add_plugins(DefaultPlugins);
        }
    }
    app.insert_resource(config)
        .insert_resource(crate::server::reload::ConfigPath(config_path))
        .add_plugins(crate::EmotePlugins.set(world));
    // After DefaultPlugins, whose LogPlugin sets up the log.
    for warning in warnings {
        tracing::warn!("{warning}");
    }
    tracing::info!("{}", app.world.resource::<Config>().listening_line());
    if let Some(line) = app.world.resource::<Config>().environment_line() {
        tracing::info!("{line}");
    }
    // SIGINT and SIGTERM stop the server cleanly (src/server/shutdown).
    let requests = crate::server::shutdown::ShutdownRequests::default();
    crate::server::shutdown::listen_for_signals(&runtime, requests.clone());
    app.insert_resource(requests);
    // Operator commands typed on standard input (src/server/operator).
    crate::server::operator::console::start_on_stdin(&app.world);
    crate::server::run_schedules_on_one_thread(&mut app);
    app.run();
    ExitCode::SUCCESS
}
