//! What both game listeners share: valence's own (offline and online
//! mode, through [`EmotedCallbacks`]) and the proxy gateway
//! ([`crate::server::gateway`]). That is the line players see under the
//! server in their list (`[server] motd`), and whether new players may
//! join. A shutdown closes the gate ([`crate::server::shutdown`]); a login
//! after that is refused with the shutdown message.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use valence::network::{
    async_trait, CleanupFn, HandshakeData, NetworkCallbacks, NewClientInfo, ServerListPing,
    SharedNetworkState,
};
use valence::prelude::*;
use valence::protocol::{MINECRAFT_VERSION, PROTOCOL_VERSION};

/// What a player is told when the server stops (vanilla's words).
pub const SHUTDOWN_MESSAGE: &str = "Server closed";

/// The listeners' shared state.
#[derive(Debug)]
pub struct ListenerGate {
    motd: String,
    open: AtomicBool,
}

impl ListenerGate {
    /// An open gate showing `motd`.
    pub fn new(motd: &str) -> Arc<ListenerGate> {
        Arc::new(ListenerGate {
            motd: motd.to_owned(),
            open: AtomicBool::new(true),
        })
    }

    /// The server list line.
    pub fn motd(&self) -> &str {
        &self.motd
    }

    /// True while new players may join.
    pub fn is_open(&self) -> bool {
        self.open.load(Ordering::Acquire)
    }

    /// No new player joins from now on.
    pub fn close(&self) {
        self.open.store(false, Ordering::Release);
    }
}

/// The gate as a resource (the shutdown closes it).
#[derive(Resource, Clone, Debug)]
pub struct Listener(pub Arc<ListenerGate>);

/// valence's callbacks for the direct modes: the server list shows the
/// motd, and logins take a place as valence's own do, or are refused with
/// [`SHUTDOWN_MESSAGE`] once the gate is closed.
pub struct EmotedCallbacks(pub Arc<ListenerGate>);

#[async_trait]
impl NetworkCallbacks for EmotedCallbacks {
    async fn server_list_ping(
        &self,
        shared: &SharedNetworkState,
        _remote_addr: SocketAddr,
        _handshake_data: &HandshakeData,
    ) -> ServerListPing {
        ServerListPing::Respond {
            online_players: shared.player_count().load(Ordering::Relaxed) as i32,
            max_players: shared.max_players() as i32,
            player_sample: vec![],
            description: self.0.motd().to_owned().into_text(),
            favicon_png: &[],
            version_name: MINECRAFT_VERSION.to_owned(),
            protocol: PROTOCOL_VERSION,
        }
    }

    async fn login(
        &self,
        shared: &SharedNetworkState,
        info: &NewClientInfo,
    ) -> Result<CleanupFn, Text> {
        if !self.0.is_open() {
            tracing::info!("refused {}: the server is stopping", info.username);
            return Err(SHUTDOWN_MESSAGE.into_text());
        }
        let max_players = shared.max_players();
        let taken = shared
            .player_count()
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max_players).then_some(n + 1)
            })
            .is_ok();
        if !taken {
            return Err("The server is full.".into_text());
        }
        let shared = shared.clone();
        Ok(Box::new(move || {
            shared.player_count().fetch_sub(1, Ordering::SeqCst);
        }))
    }
}
