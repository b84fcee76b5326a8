//! The pack's HTTP server: hyper's HTTP/1 on the shared network runtime,
//! one request per connection, everything bounded.
//!
//! | request | answer |
//! |---|---|
//! | `GET /pack/<sha1>.zip`, the current pack's SHA-1 | 200, the bytes, `Content-Type: application/zip`, `Content-Length` |
//! | `HEAD` of the same | the same headers, no body |
//! | `GET`/`HEAD` of any other path, an older pack's SHA-1 included | 404 |
//! | any other method | 405 with `Allow: GET, HEAD` |
//!
//! Bounds, so that a client (or a port scanner) costs little:
//! - at most [`MAX_CONNECTIONS`] connections at once; more wait in the
//!   kernel's accept queue;
//! - the request head must arrive within [`HEADER_READ_TIMEOUT`] and fit
//!   [`MAX_REQUEST_HEAD_BYTES`] (hyper answers 431 past it);
//! - request bodies are never read, keep-alive is off (a client downloads
//!   one file), and a connection is closed after [`CONNECTION_TIMEOUT`]
//!   whatever it is doing;
//! - the answer shares the pack's bytes ([`Bytes`] is reference counted):
//!   a download copies nothing.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use hyper::body::Bytes;
use hyper::header::{HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, ETAG};
use hyper::server::conn::Http;
use hyper::service::service_fn;
use hyper::{Body, Method, Request, Response, StatusCode};
use tokio::net::TcpListener;

use crate::server::counters::{SentKind, ServerCounters};
use crate::server::runtime::accept_retrying;
use tokio::runtime::Handle;
use tokio::sync::Semaphore;

use super::pack::ServedPack;
use super::url::requested_sha1;

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 256;

/// How long a client may take to send its request line and headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one connection may last, download included.
pub const CONNECTION_TIMEOUT: Duration = Duration::from_secs(120);

/// The most a request head may take (hyper's smallest buffer limit).
pub const MAX_REQUEST_HEAD_BYTES: usize = 8192;

/// The pack being served now, shared by the server's systems (which set it
/// after each build) and every connection task (which read it per request).
#[derive(Clone, Debug, Default)]
pub struct PackSlot(Arc<RwLock<Option<ServedPack>>>);

impl PackSlot {
    /// The pack served now, if one was built yet.
    pub fn current(&self) -> Option<ServedPack> {
        // A panic while holding the lock cannot leave a half-written
        // `Option<ServedPack>` behind: take the value either way.
        match self.0.read() {
            Ok(pack) => pack.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// True once a pack is served (no copy taken).
    pub fn is_set(&self) -> bool {
        match self.0.read() {
            Ok(pack) => pack.is_some(),
            Err(poisoned) => poisoned.into_inner().is_some(),
        }
    }

    /// Serves `pack` from now on; the previous one's path answers 404.
    pub fn set(&self, pack: ServedPack) {
        match self.0.write() {
            Ok(mut slot) => *slot = Some(pack),
            Err(poisoned) => *poisoned.into_inner() = Some(pack),
        }
    }
}

/// The answer to `method path` while `pack` is served (see the table in the
/// module docs). For `HEAD` the body is left in: hyper sends the headers
/// and never the body of an answer to `HEAD`.
pub fn respond(method: &Method, path: &str, pack: Option<&ServedPack>) -> Response<Body> {
    if method != Method::GET && method != Method::HEAD {
        let mut answer = plain(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
        answer
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return answer;
    }
    let current = pack.filter(|pack| requested_sha1(path) == Some(pack.sha1_hex()));
    let Some(pack) = current else {
        return plain(StatusCode::NOT_FOUND, "no such pack\n");
    };
    let mut answer = Response::new(Body::from(pack.bytes().clone()));
    let headers = answer.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/zip"));
    headers.insert(CONTENT_LENGTH, HeaderValue::from(pack.size_bytes()));
    // The path names the content: it never changes under the same URL.
    headers.insert(
        CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    if let Ok(tag) = HeaderValue::from_str(&format!("\"{}\"", pack.sha1_hex())) {
        headers.insert(ETAG, tag);
    }
    answer
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut answer = Response::new(Body::from(Bytes::from_static(text.as_bytes())));
    *answer.status_mut() = status;
    let headers = answer.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(CONTENT_LENGTH, HeaderValue::from(text.len()));
    answer
}

/// Binds `listen` now (so an address in use is reported at start-up, and
/// port 0 is resolved) and hands the socket to `runtime`.
pub fn bind(listen: SocketAddr, runtime: &Handle) -> std::io::Result<TcpListener> {
    let socket = std::net::TcpListener::bind(listen)?;
    socket.set_nonblocking(true)?;
    let _entered = runtime.enter();
    TcpListener::from_std(socket)
}

/// Accepts connections on `listener` for ever, answering each request with
/// [`respond`] for the pack in `slot` at that moment; each download (a GET
/// answered 200) is counted in `counters` with its bytes.
pub async fn serve(listener: TcpListener, slot: PackSlot, counters: ServerCounters) {
    let mut http = Http::new();
    http.http1_only(true)
        .http1_keep_alive(false)
        .http1_header_read_timeout(HEADER_READ_TIMEOUT)
        .max_buf_size(MAX_REQUEST_HEAD_BYTES);
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
            return;
        };
        let (stream, peer) = accept_retrying(&listener, "the resource pack server").await;
        let slot = slot.clone();
        let counters = counters.clone();
        let service = service_fn(move |request: Request<Body>| {
            let pack = slot.current();
            let answer = respond(request.method(), request.uri().path(), pack.as_ref());
            if let (Some(pack), true) = (
                &pack,
                request.method() == Method::GET && answer.status() == StatusCode::OK,
            ) {
                counters.pack_downloaded();
                counters.sent(SentKind::ResourcePack, pack.size_bytes() as u64);
            }
            tracing::debug!(
                "resource pack: {peer} {} {} ({}): {}",
                request.method(),
                request.uri().path(),
                request
                    .headers()
                    .get("x-minecraft-username")
                    .and_then(|name| name.to_str().ok())
                    .unwrap_or("no player name"),
                answer.status()
            );
            async move { Ok::<_, Infallible>(answer) }
        });
        let connection = http.serve_connection(stream, service);
        tokio::spawn(async move {
            match tokio::time::timeout(CONNECTION_TIMEOUT, connection).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::debug!("resource pack: connection from {peer} failed: {e}"),
                Err(_) => tracing::debug!(
                    "resource pack: closed the connection from {peer} after {} s",
                    CONNECTION_TIMEOUT.as_secs()
                ),
            }
            drop(permit);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::resource_pack::url::pack_path;

    fn pack() -> ServedPack {
        ServedPack::new(&b"not a zip yet"[..])
    }

    #[test]
    fn the_current_pack_is_served_with_its_type_and_length() {
        let pack = pack();
        for method in [Method::GET, Method::HEAD] {
            let answer = respond(&method, &pack_path(pack.sha1_hex()), Some(&pack));
            assert_eq!(answer.status(), StatusCode::OK, "{method}");
            let headers = answer.headers();
            assert_eq!(headers[CONTENT_TYPE], "application/zip");
            assert_eq!(
                headers[CONTENT_LENGTH],
                pack.size_bytes().to_string().as_str()
            );
            assert_eq!(headers[ETAG], format!("\"{}\"", pack.sha1_hex()).as_str());
        }
    }

    #[test]
    fn other_paths_old_packs_and_other_methods_are_refused() {
        let pack = pack();
        let old = ServedPack::new(&b"the pack before the reload"[..]);
        for (method, path, current, status) in [
            (
                Method::GET,
                pack_path(old.sha1_hex()),
                Some(&pack),
                StatusCode::NOT_FOUND,
            ),
            (
                Method::GET,
                "/".to_owned(),
                Some(&pack),
                StatusCode::NOT_FOUND,
            ),
            (
                Method::HEAD,
                "/favicon.ico".to_owned(),
                Some(&pack),
                StatusCode::NOT_FOUND,
            ),
            (
                Method::GET,
                pack_path(pack.sha1_hex()),
                None,
                StatusCode::NOT_FOUND,
            ),
            (
                Method::POST,
                pack_path(pack.sha1_hex()),
                Some(&pack),
                StatusCode::METHOD_NOT_ALLOWED,
            ),
            (
                Method::PUT,
                "/".to_owned(),
                Some(&pack),
                StatusCode::METHOD_NOT_ALLOWED,
            ),
            (
                Method::DELETE,
                pack_path(pack.sha1_hex()),
                Some(&pack),
                StatusCode::METHOD_NOT_ALLOWED,
            ),
        ] {
            let answer = respond(&method, &path, current);
            assert_eq!(answer.status(), status, "{method} {path}");
            if status == StatusCode::METHOD_NOT_ALLOWED {
                assert_eq!(answer.headers()[ALLOW], "GET, HEAD");
            }
        }
    }

    #[test]
    fn the_slot_swaps_packs() {
        let slot = PackSlot::default();
        assert_eq!(slot.current(), None);
        slot.set(pack());
        assert_eq!(slot.current(), Some(pack()));
        let next = ServedPack::new(&b"next"[..]);
        slot.clone().set(next.clone());
        assert_eq!(slot.current(), Some(next), "clones share the slot");
    }
}
