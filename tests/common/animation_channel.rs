//! emoted's own channel, `emoted:animation`, read as the README lays it
//! out (this file's own code, not the server's codec), for the tests of
//! channel clients.

use super::plugin_messages::{hex, messages};
use serde_json::Value;

use super::BotRun;

/// The channel's name.
pub const CHANNEL: &str = "emoted:animation";

/// A client's HELLO: version 1, kind 0, reads up to version 1.
pub const HELLO: [u8; 3] = [1, 0, 1];

/// A server message, read as the README lays it out.
#[derive(Debug)]
pub enum Message {
    Hello {
        version: u8,
        max_from_client: u32,
        max_to_client: u32,
    },
    Play {
        player: String,
        animation: String,
        start_tick: i32,
        name: String,
        json: Value,
    },
    Stop {
        player: String,
        animation: String,
    },
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Reads one message; every byte must be used.
pub fn read(bytes: &[u8]) -> Message {
    assert_eq!(bytes[0], 1, "version 1");
    let (message, end) = match bytes[1] {
        0 => (
            Message::Hello {
                version: bytes[2],
                max_from_client: u32_at(bytes, 3),
                max_to_client: u32_at(bytes, 7),
            },
            11,
        ),
        1 => {
            let start_tick = u32_at(bytes, 34) as i32;
            let name_length = u16::from_be_bytes([bytes[38], bytes[39]]) as usize;
            let name = String::from_utf8(bytes[40..40 + name_length].to_vec()).expect("UTF-8");
            let at = 40 + name_length;
            let json_length = u32_at(bytes, at) as usize;
            let json_bytes = &bytes[at + 4..at + 4 + json_length];
            (
                Message::Play {
                    player: hex(&bytes[2..18]),
                    animation: hex(&bytes[18..34]),
                    start_tick,
                    name,
                    json: serde_json::from_slice(json_bytes).expect("JSON"),
                },
                at + 4 + json_length,
            )
        }
        2 => (
            Message::Stop {
                player: hex(&bytes[2..18]),
                animation: hex(&bytes[18..34]),
            },
            34,
        ),
        kind => panic!("unknown kind {kind}"),
    };
    assert_eq!(end, bytes.len(), "nothing after the message");
    message
}

pub fn read_all(run: &BotRun) -> Vec<Message> {
    messages(run, CHANNEL).iter().map(|m| read(m)).collect()
}
