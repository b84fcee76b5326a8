//! Fuzz target `pack_http`: an HTTP/1 request to the resource pack server.
//!
//! emoted parses no HTTP itself: hyper reads the request head (with
//! `httparse`), and the project's own code is the routing on the parsed
//! method and path. So the bytes are parsed as a request head with
//! `httparse`, as hyper does; the method is read with
//! [`hyper::Method::from_bytes`] and the target with [`hyper::Uri`]; and
//! the project's [`emoted::server::resource_pack::http::respond`] answers
//! it, both while a pack is served and while none is, after
//! [`emoted::server::resource_pack::url::requested_sha1`] reads the raw
//! target too. The pack served is the empty file, so a request for
//! `/pack/da39a3ee5e6b4b0d3255bfef95601890afd80709.zip` finds it.
//!
//! The metrics endpoint has a target of its own (`metrics_http`). The
//! contract is no panic: every request gets an answer.
#![no_main]

use std::sync::OnceLock;

use emoted::server::resource_pack::http::respond;
use emoted::server::resource_pack::url::requested_sha1;
use emoted::server::resource_pack::ServedPack;
use hyper::{Method, Uri};
use libfuzzer_sys::fuzz_target;

/// The most headers a request may have here (hyper's own limit is 100).
const MAX_HEADERS: usize = 100;

/// The pack served: the empty file, whose SHA-1 the seeds ask for.
fn served() -> &'static ServedPack {
    static SERVED: OnceLock<ServedPack> = OnceLock::new();
    SERVED.get_or_init(|| ServedPack::new(Vec::new()))
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
    let _ = requested_sha1(target);
    let (Ok(method), Ok(uri)) = (Method::from_bytes(method.as_bytes()), target.parse::<Uri>())
    else {
        return;
    };
    for pack in [Some(served()), None] {
        let answer = respond(&method, uri.path(), pack);
        let _ = answer.status();
    }
});
