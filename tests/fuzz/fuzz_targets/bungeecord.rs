//! Fuzz target `bungeecord`: the server address of a handshake in
//! BungeeCord mode, where the proxy puts `host\0ip\0uuid\0properties`.
//!
//! The handshake's address is a string, so the bytes are read as UTF-8
//! text and given to
//! [`emoted::server::gateway::forwarding::parse_bungeecord`]; a refusal is
//! rendered as the log line and as the disconnect the client is sent. The
//! contract is no panic: bad text gives a `Refusal`.
#![no_main]

use emoted::server::gateway::forwarding::parse_bungeecord;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(address) = std::str::from_utf8(bytes) else {
        return;
    };
    if let Err(refusal) = parse_bungeecord(address) {
        let _ = refusal.to_string();
        let _ = refusal.client_message();
    }
});
