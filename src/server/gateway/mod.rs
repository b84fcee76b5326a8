//! The front door in the proxy modes: emoted's own listener for
//! `connection_mode = "bungeecord"` and `"velocity"`, which checks what the
//! proxy forwards before valence ever sees the player.
//!
//! # Why not valence's listener
//!
//! valence 0.2.0-alpha.1's network plugin logs in a BungeeCord-mode client
//! that sends no forwarding data under a made-up offline UUID, and its login
//! callback only sees the finished player (not the handshake), so it cannot
//! tell. A malformed forwarded field or any Velocity failure ends inside
//! valence with the socket closed and no reason for the player. So in the
//! two proxy modes `emoted serve` leaves valence's `NetworkPlugin` out and
//! adds [`GatewayPlugin`]: it accepts connections itself, answers status
//! pings, runs the login with the checks of [`forwarding`], sends each
//! refusal as a login disconnect with the sentence the Spigot family or
//! Velocity uses, and hands an admitted player to valence as
//! [`ClientBundleArgs`] with the *forwarded* UUID, name, address and
//! properties. From there valence plays the client exactly as its own
//! listener would ([`connection::TcpConnection`]).
//!
//! Offline and online modes keep valence's listener (online mode needs its
//! encryption and session-server code). Proxy modes never encrypt: the
//! proxy already did that with the player.
//!
//! # Trust
//!
//! BungeeCord forwarding is not signed: whoever reaches the backend port
//! can claim any UUID. The port must be reachable from the proxy alone; at
//! start-up the server warns when it listens beyond loopback in a proxy
//! mode. Velocity's forwarding is signed with `velocity_secret`.

pub mod connection;
pub mod forwarding;
pub mod login;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use valence::client::{ClientBundle, ClientBundleArgs, SpawnClientsSet};
use valence::prelude::*;
use valence::CompressionThreshold;

use crate::server::listener::ListenerGate;
use crate::server::runtime::NetworkRuntime;
use connection::ByteLimits;

/// Connections that may be between their first byte and the play state at
/// once; more wait to be accepted.
const MAX_PENDING_CONNECTIONS: usize = 1024;

/// How long a connection may take from its first byte to the play state.
const LOGIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Which proxy the server sits behind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProxyMode {
    /// BungeeCord (or Waterfall, or Velocity's `legacy` mode): forwarding in
    /// the handshake address.
    BungeeCord,
    /// Velocity modern forwarding, signed with the shared secret.
    Velocity {
        /// The proxy's forwarding secret.
        secret: String,
    },
}

impl ProxyMode {
    /// The mode's name as the configuration writes it.
    pub fn name(&self) -> &'static str {
        match self {
            ProxyMode::BungeeCord => "bungeecord",
            ProxyMode::Velocity { .. } => "velocity",
        }
    }
}

/// What [`GatewayPlugin`] needs: insert it before adding the plugin.
#[derive(Resource, Clone, Debug)]
pub struct GatewaySettings {
    /// The proxy mode.
    pub mode: ProxyMode,
    /// The address to listen on.
    pub address: SocketAddr,
    /// Players allowed at once.
    pub max_players: usize,
    /// The motd, and whether players may join (a shutdown closes it).
    pub listener: Arc<ListenerGate>,
}

/// What every connection task shares.
#[derive(Clone)]
pub struct GatewayShared(Arc<SharedState>);

/// The inside of [`GatewayShared`].
pub struct SharedState {
    /// The proxy mode.
    pub mode: ProxyMode,
    /// Players allowed at once.
    pub max_players: usize,
    /// Players in the play state now.
    pub player_count: Arc<AtomicUsize>,
    /// The server's compression threshold.
    pub compression: CompressionThreshold,
    /// Each connection's byte limits.
    pub limits: ByteLimits,
    /// Where admitted players go.
    pub new_clients: Sender<ClientBundleArgs>,
    /// The motd, and whether players may join.
    pub listener: Arc<ListenerGate>,
}

impl std::ops::Deref for GatewayShared {
    type Target = SharedState;
    fn deref(&self) -> &SharedState {
        &self.0
    }
}

impl GatewayShared {
    /// Players in the play state now.
    pub fn online(&self) -> usize {
        self.player_count.load(Ordering::SeqCst)
    }
}

/// Players admitted by the gateway, waiting to be spawned.
#[derive(Resource)]
struct AdmittedPlayers(Mutex<Receiver<ClientBundleArgs>>);

/// The runtime the gateway's tasks run on (kept alive with the app).
#[derive(Resource)]
struct GatewayRuntime(NetworkRuntime);

/// Listens in a proxy mode and admits players whose forwarding checks out
/// (see the module docs). Needs [`GatewaySettings`]; replaces valence's
/// `NetworkPlugin`, which must be left out. Its tasks run on the
/// [`NetworkRuntime`] resource when there is one (as `emoted serve` inserts),
/// else on a runtime of its own.
pub struct GatewayPlugin;

impl Plugin for GatewayPlugin {
    fn build(&self, app: &mut App) {
        let Some(settings) = app.world.get_resource::<GatewaySettings>().cloned() else {
            tracing::error!("the proxy gateway needs GatewaySettings; nobody can connect");
            return;
        };
        let compression = app
            .world
            .get_resource::<Server>()
            .and_then(|s| s.compression_threshold());
        let runtime = match app.world.get_resource::<NetworkRuntime>() {
            Some(shared) => shared.clone(),
            None => match NetworkRuntime::new("emoted-gateway") {
                Ok(runtime) => runtime,
                Err(e) => {
                    tracing::error!("cannot start the network runtime: {e}");
                    return;
                }
            },
        };
        let (send, receive) = std::sync::mpsc::channel();
        let shared = GatewayShared(Arc::new(SharedState {
            mode: settings.mode.clone(),
            max_players: settings.max_players,
            player_count: Arc::new(AtomicUsize::new(0)),
            compression,
            limits: ByteLimits {
                incoming_bytes: 2 * 1024 * 1024,
                outgoing_bytes: 8 * 1024 * 1024,
            },
            new_clients: send,
            listener: Arc::clone(&settings.listener),
        }));
        let address = settings.address;
        let start = move |runtime: Res<GatewayRuntime>| {
            runtime
                .0
                .handle()
                .spawn(accept_loop(shared.clone(), address));
        };
        app.insert_resource(GatewayRuntime(runtime))
            .insert_resource(AdmittedPlayers(Mutex::new(receive)))
            .add_systems(PostStartup, start)
            .add_systems(PreUpdate, spawn_admitted.in_set(SpawnClientsSet));
    }
}

async fn accept_loop(shared: GatewayShared, address: SocketAddr) {
    let listener = match TcpListener::bind(address).await {
        Ok(listener) => listener,
        Err(e) => {
            tracing::error!("failed to start TCP listener on {address}: {e}");
            return;
        }
    };
    tracing::info!(
        "listening on {address} for players forwarded by a {} proxy",
        shared.mode.name()
    );
    let pending = Arc::new(Semaphore::new(MAX_PENDING_CONNECTIONS));
    loop {
        let Ok(permit) = Arc::clone(&pending).acquire_owned().await else {
            return;
        };
        match listener.accept().await {
            Ok((stream, peer)) => {
                let shared = shared.clone();
                tokio::spawn(async move {
                    let login = login::handle_connection(shared, stream, peer);
                    if tokio::time::timeout(LOGIN_TIMEOUT, login).await.is_err() {
                        tracing::warn!(
                            "the connection from {peer} took over {} s to log in; closed",
                            LOGIN_TIMEOUT.as_secs()
                        );
                    }
                    drop(permit);
                });
            }
            Err(e) => tracing::warn!("accepting a connection failed: {e}"),
        }
    }
}

fn spawn_admitted(world: &mut World) {
    let admitted: Vec<ClientBundleArgs> = match world.get_resource::<AdmittedPlayers>() {
        Some(queue) => match queue.0.lock() {
            Ok(receiver) => receiver.try_iter().collect(),
            Err(_) => return,
        },
        None => return,
    };
    for args in admitted {
        world.spawn(ClientBundle::new(args));
    }
}
