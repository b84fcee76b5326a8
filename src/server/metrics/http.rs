//! The metrics endpoint: HTTP/1.1 with hyper, `GET` (or `HEAD`)
//! `/metrics` answered with [`super::render::render`]; other paths 404,
//! other methods 405. Request bodies are never read and keep-alive is on
//! (Prometheus scrapes every few seconds on one connection); at most
//! [`MAX_CONNECTIONS`] at once.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE};
use hyper::server::conn::Http;
use hyper::service::service_fn;
use hyper::{Body, Method, Request, Response, StatusCode};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use valence::prelude::*;

use super::{Gauges, TickHistogram};
use crate::server::counters::ServerCounters;
use crate::server::runtime::{accept_retrying, NetworkRuntime};

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 8;
/// The content type of the text format.
pub const CONTENT_TYPE_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// What a scrape reads: handles on the server's counters, gauges and tick
/// histogram (the default is a fresh set, all zero).
#[derive(Clone, Default)]
pub struct Sources {
    /// The counters.
    pub counters: ServerCounters,
    /// The gauges.
    pub gauges: Gauges,
    /// The tick durations.
    pub ticks: TickHistogram,
}

/// The running endpoint.
#[derive(Resource)]
pub struct MetricsServer {
    /// Where it listens (port 0 resolved).
    pub bound: SocketAddr,
    /// The runtime it runs on, kept alive with it.
    _runtime: NetworkRuntime,
}

/// Binds `listen` now and serves on `runtime`.
pub(super) fn start(
    listen: SocketAddr,
    runtime: &NetworkRuntime,
    sources: Sources,
) -> std::io::Result<MetricsServer> {
    let socket = std::net::TcpListener::bind(listen)?;
    socket.set_nonblocking(true)?;
    let bound = socket.local_addr()?;
    let handle = runtime.handle().clone();
    let listener = {
        let _entered = handle.enter();
        TcpListener::from_std(socket)?
    };
    handle.spawn(serve(listener, sources));
    Ok(MetricsServer {
        bound,
        _runtime: runtime.clone(),
    })
}

/// The answer to one request (public for the fuzz target `metrics_http`).
pub fn respond(method: &Method, path: &str, sources: &Sources) -> Response<Body> {
    let status = |code: StatusCode, text: &'static str| {
        let mut answer = Response::new(Body::from(text));
        *answer.status_mut() = code;
        answer
    };
    if method != Method::GET && method != Method::HEAD {
        let mut answer = status(StatusCode::METHOD_NOT_ALLOWED, "GET or HEAD\n");
        answer
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return answer;
    }
    if path != "/metrics" {
        return status(StatusCode::NOT_FOUND, "the metrics are at /metrics\n");
    }
    let text = super::render::render(&sources.counters, &sources.gauges, &sources.ticks);
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from(text)
    };
    let mut answer = Response::new(body);
    answer
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE_TEXT));
    answer
}

async fn serve(listener: TcpListener, sources: Sources) {
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let http = Http::new();
    loop {
        let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
            return;
        };
        let (stream, peer) = accept_retrying(&listener, "the metrics endpoint").await;
        let sources = sources.clone();
        let service = service_fn(move |request: Request<Body>| {
            let answer = respond(request.method(), request.uri().path(), &sources);
            async move { Ok::<_, Infallible>(answer) }
        });
        let connection = http.serve_connection(stream, service);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("metrics: connection from {peer} failed: {e}");
            }
            drop(permit);
        });
    }
}
