//! Fuzz target `rcon`: the bytes a client sends on an RCON connection, one
//! packet after another.
//!
//! The stream is cut as the server's private `serve_connection` cuts it: a
//! little-endian `i32` length checked by
//! [`emoted::server::operator::rcon::packet::check_length`] (a refused one
//! closes the connection), then that many bytes read with
//! [`emoted::server::operator::rcon::packet::decode_body`]. An unreadable
//! packet is answered with its error
//! ([`emoted::server::operator::rcon::packet::encode_response`]) and the
//! stream goes on; a command is parsed as the operator console parses it
//! ([`emoted::server::operator::parse_operator_command`]) and a refusal
//! answered the same way. The password check and the running of commands
//! need a server and are left out. The contract is no panic.
#![no_main]

use emoted::server::operator::parse_operator_command;
use emoted::server::operator::rcon::packet::{
    check_length, decode_body, encode_response, TYPE_COMMAND,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|stream: &[u8]| {
    let mut rest = stream;
    while let Some((length, after)) = rest.split_first_chunk::<4>() {
        let Ok(body_bytes) = check_length(i32::from_le_bytes(*length)) else {
            return;
        };
        let Some((body, after_body)) = after.split_at_checked(body_bytes) else {
            return;
        };
        rest = after_body;
        let packet = match decode_body(body) {
            Ok(packet) => packet,
            Err((request_id, error)) => {
                let answer = format!("Unreadable packet: {error}");
                let _ = encode_response(request_id.unwrap_or(0), &answer);
                continue;
            }
        };
        if packet.kind == TYPE_COMMAND {
            if let Err(error) = parse_operator_command(&packet.payload) {
                let _ = encode_response(packet.request_id, &error.to_string());
            }
        }
    }
});
