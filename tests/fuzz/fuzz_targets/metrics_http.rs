//! Fuzz target `metrics_http`: an HTTP/1 request to the metrics endpoint.
//!
//! As for the pack server (`pack_http`), hyper reads the request head with
//! `httparse` and the project's own code is the routing: the bytes are
//! parsed as a request head with `httparse`, the method read with
//! [`hyper::Method::from_bytes`] and the target with [`hyper::Uri`], and
//! [`emoted::server::metrics::http::respond`] answers it from a fresh set
//! of sources (a scrape renders every counter, gauge and histogram bucket
//! at zero). The contract is no panic: every request gets an answer, and a
//! `GET /metrics` gets the text format.
#![no_main]

use std::sync::OnceLock;

use emoted::server::metrics::http::{respond, Sources, CONTENT_TYPE_TEXT};
use hyper::{Method, StatusCode, Uri};
use libfuzzer_sys::fuzz_target;

/// The most headers a request may have here (hyper's own limit is 100).
const MAX_HEADERS: usize = 100;

/// The sources scraped: one set for the whole run.
fn sources() -> &'static Sources {
    static SOURCES: OnceLock<Sources> = OnceLock::new();
    SOURCES.get_or_init(Sources::default)
}

fuzz_target!(|bytes: &[u8]| {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    let Ok(httparse::Status::Complete(_head_bytes)) = request.parse(bytes) else {
        return;
    };
    let (Some(method), Some(target)) = (request.method, request.path) else {
        return;
    };
    let (Ok(method), Ok(uri)) = (Method::from_bytes(method.as_bytes()), target.parse::<Uri>())
    else {
        return;
    };
    let answer = respond(&method, uri.path(), sources());
    if method == Method::GET && uri.path() == "/metrics" {
        assert_eq!(answer.status(), StatusCode::OK);
        assert_eq!(
            answer.headers().get(hyper::header::CONTENT_TYPE).map(|v| v.as_bytes()),
            Some(CONTENT_TYPE_TEXT.as_bytes())
        );
    }
});
