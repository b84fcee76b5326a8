//! Stopping the server the way vanilla does. SIGINT, SIGTERM and any
//! other stop request ([`ShutdownRequests::request`]) take one path:
//!
//! 1. the listeners take no new player ([`crate::server::listener`]);
//! 2. every playback ends ([`EndReason::ServerStopping`]): displays
//!    removed, cameras and seats handed back, partners released;
//! 3. every player is sent the vanilla shutdown message
//!    ([`SHUTDOWN_MESSAGE`]) and, [`KICK_GRACE_TICKS`] later, their
//!    connection closes;
//! 4. the player store's SQLite file is closed (choices are written
//!    through as they are made, so nothing waits to be saved);
//! 5. one log line says what stopped, and the app exits: `emoted serve`
//!    returns 0.
//!
//! It takes a few ticks, well within the 5 s an admin or `docker stop`
//! gives. `emoted serve` feeds the requests from the process's signals
//! ([`listen_for_signals`]): a second signal while stopping exits at once
//! (status 1), as a stuck shutdown must not need `kill -9`. A host game
//! that adds [`crate::EmotePlugins`] sends its own requests.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use valence::prelude::*;
use valence::protocol::packets::play::DisconnectS2c;
use valence::protocol::WritePacket;

use crate::server::emote::ActiveEmote;
use crate::server::events::{add_shared_events, EmotePlaybackSet, EndReason, StopEmoteRequest};
use crate::server::listener::{Listener, SHUTDOWN_MESSAGE};
use crate::server::runtime::NetworkRuntime;
use crate::server::storage::PlayerStoreResource;

/// Ticks between the shutdown message and closing the connections, so the
/// message is flushed first.
pub const KICK_GRACE_TICKS: u32 = 2;

/// Stop requests so far, and the first one's reason; shared with the
/// signal listener's task.
#[derive(Resource, Clone, Debug, Default)]
pub struct ShutdownRequests(Arc<Requests>);

/// The inside of [`ShutdownRequests`].
#[derive(Debug, Default)]
pub struct Requests {
    count: AtomicU32,
    first_reason: OnceLock<String>,
}

impl ShutdownRequests {
    /// Asks the server to stop because of `reason` ("SIGTERM", "the
    /// console's stop"); returns how many requests there are now.
    pub fn request(&self, reason: &str) -> u32 {
        let _ = self.0.first_reason.set(reason.to_owned());
        self.0.count.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// True once a stop was asked for.
    pub fn is_requested(&self) -> bool {
        self.0.count.load(Ordering::Acquire) > 0
    }

    /// Why the first request came.
    pub fn reason(&self) -> &str {
        self.0
            .first_reason
            .get()
            .map_or("a stop request", String::as_str)
    }
}

/// Where the shutdown is.
#[derive(Resource, Debug, Default)]
enum Stopping {
    #[default]
    Running,
    /// Players were told; their connections close when this reaches zero.
    Kicking {
        ticks_left: u32,
        started: Instant,
        players: usize,
        playbacks: usize,
    },
    /// The app was told to exit.
    Done,
}

/// The shutdown path (module docs).
pub struct ShutdownPlugin;

impl Plugin for ShutdownPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app);
        app.init_resource::<ShutdownRequests>()
            .init_resource::<Stopping>()
            .add_systems(Update, begin_shutdown.before(EmotePlaybackSet))
            .add_systems(Last, finish_shutdown);
    }
}

/// On the first request: the gate closes, every playback ends, every
/// player is told.
fn begin_shutdown(
    requests: Res<ShutdownRequests>,
    mut stopping: ResMut<Stopping>,
    listener: Option<Res<Listener>>,
    mut clients: Query<&mut Client>,
    playing: Query<Entity, With<ActiveEmote>>,
    mut stop: EventWriter<StopEmoteRequest>,
) {
    if !requests.is_requested() || !matches!(*stopping, Stopping::Running) {
        return;
    }
    if let Some(listener) = listener {
        listener.0.close();
    }
    let mut playbacks = 0;
    for client in &playing {
        stop.send(StopEmoteRequest {
            client,
            reason: EndReason::ServerStopping,
        });
        playbacks += 1;
    }
    let mut players = 0;
    for mut client in &mut clients {
        client.write_packet(&DisconnectS2c {
            reason: SHUTDOWN_MESSAGE.into_text().into(),
        });
        players += 1;
    }
    tracing::info!(
        "stopping ({}): {players} players told, {playbacks} playbacks ending",
        requests.reason()
    );
    *stopping = Stopping::Kicking {
        ticks_left: KICK_GRACE_TICKS,
        started: Instant::now(),
        players,
        playbacks,
    };
}

/// Closes the connections after the grace ticks, then the store, then
/// exits.
fn finish_shutdown(
    mut commands: Commands,
    mut stopping: ResMut<Stopping>,
    clients: Query<Entity, With<Client>>,
    store: Option<ResMut<PlayerStoreResource>>,
    mut exit: EventWriter<bevy_app::AppExit>,
) {
    let Stopping::Kicking {
        ticks_left,
        started,
        players,
        playbacks,
    } = &mut *stopping
    else {
        return;
    };
    if *ticks_left > 0 {
        *ticks_left -= 1;
        return;
    }
    for client in &clients {
        // valence then despawns the player as for any disconnect.
        commands.entity(client).remove::<Client>();
    }
    let closed = store.is_some_and(|mut store| store.close());
    tracing::info!(
        "emoted stopped in {} ms: {players} players disconnected, {playbacks} playbacks ended{}",
        started.elapsed().as_millis(),
        if closed {
            ", the player store closed"
        } else {
            ""
        }
    );
    *stopping = Stopping::Done;
    exit.send(bevy_app::AppExit);
}

/// Feeds `requests` from the process's SIGINT and SIGTERM, on `runtime`:
/// the first asks for a clean stop, a second one exits at once with
/// status 1.
pub fn listen_for_signals(runtime: &NetworkRuntime, requests: ShutdownRequests) {
    runtime.handle().spawn(async move {
        let mut signals = match Signals::new() {
            Ok(signals) => signals,
            Err(e) => {
                tracing::warn!(
                    "cannot listen for SIGINT and SIGTERM ({e}): stop the server another way"
                );
                return;
            }
        };
        loop {
            let name = signals.next().await;
            if requests.request(name) >= 2 {
                tracing::warn!("{name} again while stopping: exiting now");
                std::process::exit(1);
            }
        }
    });
}

/// The signals that stop the server.
#[cfg(unix)]
struct Signals {
    terminate: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn new() -> std::io::Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Signals {
            terminate: signal(SignalKind::terminate())?,
            interrupt: signal(SignalKind::interrupt())?,
        })
    }

    /// Waits for the next one; its name.
    async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.interrupt.recv() => "SIGINT",
        }
    }
}

/// The signal that stops the server.
#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn new() -> std::io::Result<Signals> {
        Ok(Signals)
    }

    /// Waits for the next Ctrl-C; its name.
    async fn next(&mut self) -> &'static str {
        let _ = tokio::signal::ctrl_c().await;
        "Ctrl-C"
    }
}
