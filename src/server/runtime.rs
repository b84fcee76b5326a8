//! The one tokio runtime that every network task of the server runs on.
//!
//! valence 0.2.0-alpha.1's `NetworkPlugin` makes a runtime of its own unless
//! `NetworkSettings::tokio_handle` names one, and it keeps that runtime
//! private. So `emoted serve` makes the runtime first, as a
//! [`NetworkRuntime`] resource, and hands its handle to valence; the proxy
//! gateway ([`crate::server::gateway`]), RCON
//! ([`crate::server::operator::rcon`]), the metrics endpoint
//! ([`crate::server::metrics`]) and the signal listener spawn their tasks
//! on the same handle. One pool of worker threads then serves the game
//! port and every connection, none of it on the tick's thread. The
//! resource pack's HTTP server is the exception: bulk downloads run on a
//! small runtime of their own at a lower priority
//! ([`NetworkRuntime::background`]), so they never take a core from the
//! game.
//!
//! A host game that adds [`crate::EmotePlugins`] to its own app may insert a
//! [`NetworkRuntime`] of its own (see [`NetworkRuntime::from_handle`]); the
//! features that need one and find none fall back as their docs say.

use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::{Handle, Runtime};
use valence::prelude::*;

/// The tokio runtime the server's network tasks share: a handle, and the
/// runtime itself when this resource owns it (kept alive as long as any
/// copy of the resource is).
#[derive(Resource, Clone, Debug)]
pub struct NetworkRuntime {
    handle: Handle,
    /// The runtime, when this resource made it; `None` for a borrowed handle.
    _owned: Option<Arc<Runtime>>,
}

impl NetworkRuntime {
    /// A new multi-threaded runtime (one worker per core, as tokio's
    /// default and valence's own), its threads named `thread_name`.
    pub fn new(thread_name: &str) -> std::io::Result<NetworkRuntime> {
        Self::owned(tokio::runtime::Builder::new_multi_thread().thread_name(thread_name))
    }

    /// A runtime with `worker_threads` workers (at least one), for a
    /// feature that found no shared runtime and needs only a little.
    pub fn small(thread_name: &str, worker_threads: usize) -> std::io::Result<NetworkRuntime> {
        Self::owned(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(worker_threads.max(1))
                .thread_name(thread_name),
        )
    }

    /// A runtime for bulk transfers that must not slow the game: at most
    /// `worker_threads` workers (at least one), each running at a lower
    /// scheduling priority than the rest of the process ([`BACKGROUND_NICE`]
    /// on Linux; elsewhere the normal one). On a small machine the tick's
    /// thread and valence's connection workers then get a core before it
    /// does, and it still uses every idle cycle. The resource pack's HTTP
    /// server runs on one.
    pub fn background(thread_name: &str, worker_threads: usize) -> std::io::Result<NetworkRuntime> {
        Self::owned(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(worker_threads.max(1))
                .thread_name(thread_name)
                .on_thread_start(lower_this_threads_priority),
        )
    }

    /// The runtime `builder` makes, with every driver (I/O, time) on, owned
    /// by this resource.
    fn owned(builder: &mut tokio::runtime::Builder) -> std::io::Result<NetworkRuntime> {
        let runtime = builder.enable_all().build()?;
        Ok(NetworkRuntime {
            handle: runtime.handle().clone(),
            _owned: Some(Arc::new(runtime)),
        })
    }

    /// A runtime someone else owns and keeps alive (a host game's).
    pub fn from_handle(handle: Handle) -> NetworkRuntime {
        NetworkRuntime {
            handle,
            _owned: None,
        }
    }

    /// The handle to spawn tasks with, and to give valence's
    /// `NetworkSettings::tokio_handle`.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }
}

/// The nice value of a [`NetworkRuntime::background`] worker: 10, half way
/// to the lowest priority, as `nice` gives a command by default.
pub const BACKGROUND_NICE: i32 = 10;

/// Lowers the calling thread's priority to [`BACKGROUND_NICE`]. On Linux
/// the nice value belongs to each thread (`setpriority` with `who = 0`
/// names the caller), so the rest of the process keeps its own. A failure
/// only leaves the thread at its normal priority.
pub fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: setpriority takes plain integers and touches no memory of
        // ours; PRIO_PROCESS with who 0 is the calling thread on Linux.
        let result = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, BACKGROUND_NICE) };
        if result != 0 {
            tracing::debug!(
                "could not lower a background thread's priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// How long a listener waits after a failed accept before it tries again.
pub const ACCEPT_RETRY_DELAY: std::time::Duration = std::time::Duration::from_millis(100);

/// The next connection on `listener`. A failed accept (out of file
/// descriptors and the like) is logged as `what` could not accept, and
/// tried again after [`ACCEPT_RETRY_DELAY`]: the listener never ends and
/// never spins. The pack server, the metrics endpoint and RCON accept with
/// it.
pub async fn accept_retrying(
    listener: &TcpListener,
    what: &str,
) -> (TcpStream, std::net::SocketAddr) {
    loop {
        match listener.accept().await {
            Ok(accepted) => return accepted,
            Err(e) => {
                tracing::warn!("{what} could not accept a connection: {e}");
                tokio::time::sleep(ACCEPT_RETRY_DELAY).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn background_workers_run_at_a_lower_priority_and_the_caller_keeps_its_own() {
        // SAFETY: getpriority reads the calling thread's nice value.
        let own = || unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        let before = own();
        let runtime = NetworkRuntime::background("emoted-test-background", 1).expect("runtime");
        let worker = runtime
            .handle()
            .block_on(async { tokio::spawn(async move { own() }).await })
            .expect("the task ran");
        assert_eq!(worker, BACKGROUND_NICE.max(before), "the worker is niced");
        assert_eq!(own(), before, "the calling thread is not");
    }
}
