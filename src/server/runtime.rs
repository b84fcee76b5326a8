//! The one tokio runtime that every network task of the server runs on.
//!
//! valence 0.2.0-alpha.1's `NetworkPlugin` makes a runtime of its own unless
//! `NetworkSettings::tokio_handle` names one, and it keeps that runtime
//! private. So `emoted serve` makes the runtime first, as a
//! [`NetworkRuntime`] resource, and hands its handle to valence; the proxy
//! gateway ([`crate::server::gateway`]) and the resource pack's HTTP server
//! ([`crate::server::resource_pack`]) spawn their tasks on the same handle.
//! One pool of worker threads then serves the game port, the pack port and
//! every connection, none of it on the tick's thread.
//!
//! A host game that adds [`crate::EmotePlugins`] to its own app may insert a
//! [`NetworkRuntime`] of its own (see [`NetworkRuntime::from_handle`]); the
//! features that need one and find none fall back as their docs say.

use std::sync::Arc;

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
