//! The resource pack from the outside: what the bot was offered and did
//! (see tests/client/resource_pack.js), and a plain HTTP/1.1 client over
//! `std::net::TcpStream` that fetches what the server serves.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use serde::Deserialize;
use sha1::{Digest, Sha1};

use super::*;

// ------------------------------------------------------------------ events

/// A `resource_pack_send` packet as the bot received it.
#[derive(Debug, Clone, Deserialize)]
pub struct PackOffer {
    pub t: u64,
    pub url: String,
    pub hash: String,
    pub forced: bool,
    /// The prompt as plain text; None when the server sent none.
    pub prompt: Option<String>,
}

/// What `"resource_pack": "accept"` got when it downloaded an offer.
#[derive(Debug, Clone, Deserialize)]
pub struct PackDownload {
    pub t: u64,
    pub url: String,
    pub http_status: Option<u16>,
    pub bytes: Option<u64>,
    /// Lowercase hex of the body's SHA-1.
    pub sha1: Option<String>,
    pub error: Option<String>,
}

impl BotRun {
    /// Every resource pack offer, in order.
    pub fn pack_offers(&self) -> Vec<&PackOffer> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ResourcePack(offer) => Some(offer),
                _ => None,
            })
            .collect()
    }

    /// Every download the bot made.
    pub fn pack_downloads(&self) -> Vec<&PackDownload> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ResourcePackDownload(download) => Some(download),
                _ => None,
            })
            .collect()
    }

    /// Every answer the bot sent: "accepted", "loaded", "declined",
    /// "failed_download".
    pub fn pack_answers(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ResourcePackAnswer { result, .. } => Some(result.as_str()),
                _ => None,
            })
            .collect()
    }
}

// ------------------------------------------------------------------ HTTP

/// One HTTP answer.
#[derive(Debug)]
pub struct HttpAnswer {
    pub status: u16,
    /// Header names in lowercase.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpAnswer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Lowercase hex SHA-1 of `bytes`.
pub fn sha1_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha1::digest(bytes))
}

/// Splits `http://host:port/path` into the address and the path.
pub fn split_http_url(url: &str) -> (SocketAddr, String) {
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], rest[i..].to_owned()),
        None => (rest, "/".to_owned()),
    };
    let address = authority.parse().expect("a numeric host:port");
    (address, path)
}

/// `METHOD path HTTP/1.1` to `address` with a Host header and the vanilla
/// client's User-Agent; reads the answer to the end (the server closes the
/// connection after one answer).
pub fn http_request(address: SocketAddr, method: &str, path: &str) -> HttpAnswer {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))
        .expect("connect to the pack server");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("read timeout");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nUser-Agent: Minecraft Java/1.20.1\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .expect("send the request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the answer");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {head:?}"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    HttpAnswer {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

/// `GET url` (an `http://` URL with a numeric host).
pub fn http_get(url: &str) -> HttpAnswer {
    let (address, path) = split_http_url(url);
    http_request(address, "GET", &path)
}

impl Server {
    /// Where the resource pack's HTTP server listens, from its start-up
    /// log line.
    pub fn pack_address(&self) -> SocketAddr {
        let needle = "serving the resource pack on ";
        assert!(
            self.wait_for_log(needle, Duration::from_secs(10)),
            "the pack server did not start:\n{}",
            self.log()
        );
        let log = self.log();
        let start = log.find(needle).expect("found") + needle.len();
        let end = log[start..].find(';').expect("the address ends with ;") + start;
        log[start..end].parse().expect("an address")
    }
}
