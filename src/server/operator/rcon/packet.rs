//! The Source RCON packet, as Minecraft speaks it.
//!
//! On the wire: a little-endian `i32` length (of what follows), then a
//! little-endian `i32` request id, a little-endian `i32` type, the payload
//! (text, no NUL inside) and two zero bytes: the payload's terminator and
//! an empty string. The shortest packet is 10 bytes after the length; a
//! client may send at most [`MAX_CLIENT_PACKET_BYTES`]. The server's
//! answers are cut into payloads of at most [`MAX_RESPONSE_PAYLOAD_BYTES`],
//! each its own packet with the request's id, as vanilla cuts them (its
//! pieces are 4,096 bytes of payload; ours keep the whole packet within
//! 4,096).

/// A client logs in with this type (`SERVERDATA_AUTH`).
pub const TYPE_AUTH: i32 = 3;
/// A client runs a command with this type (`SERVERDATA_EXECCOMMAND`); the
/// server answers a login with the same number (`SERVERDATA_AUTH_RESPONSE`).
pub const TYPE_COMMAND: i32 = 2;
/// The server's answer to a command (`SERVERDATA_RESPONSE_VALUE`).
pub const TYPE_RESPONSE: i32 = 0;
/// The id a refused login is answered with.
pub const REFUSED_ID: i32 = -1;
/// The largest length a client's packet may give (the protocol's 4,096
/// bytes).
pub const MAX_CLIENT_PACKET_BYTES: usize = 4096;
/// The smallest: id, type and the two zero bytes.
pub const MIN_PACKET_BYTES: usize = 10;
/// The most payload one answer packet carries: the packet then stays
/// within the same 4,096 bytes, so a client with a buffer of that size
/// (mcrcon has one) reads every answer.
pub const MAX_RESPONSE_PAYLOAD_BYTES: usize = MAX_CLIENT_PACKET_BYTES - MIN_PACKET_BYTES;

/// One packet, without its length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RconPacket {
    /// The client's request id, echoed in the answer.
    pub request_id: i32,
    /// [`TYPE_AUTH`], [`TYPE_COMMAND`] or [`TYPE_RESPONSE`] (others are
    /// answered as unknown requests).
    pub kind: i32,
    /// The password or the command line, or the answer's text.
    pub payload: String,
}

/// What is wrong with a client's packet; offsets count from the first byte
/// after the length.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PacketError {
    /// The length field is over the protocol's limit (the connection is
    /// closed: what follows cannot be trusted to be a packet).
    #[error("the packet's length {length} is over the protocol's {MAX_CLIENT_PACKET_BYTES} bytes")]
    TooLong {
        /// The length as sent (may be negative).
        length: i64,
    },
    /// The length field is below the 10 bytes every packet has.
    #[error("the packet's length {length} is under the {MIN_PACKET_BYTES} bytes every packet has")]
    TooShort {
        /// The length as sent (may be negative).
        length: i64,
    },
    /// The payload's terminator or the empty string after it is not zero.
    #[error("byte {offset} should be the payload's terminating zero")]
    Unterminated {
        /// Where the zero byte was expected.
        offset: usize,
    },
    /// The payload is not UTF-8 text.
    #[error("the payload is not UTF-8 text (byte {offset})")]
    NotText {
        /// The first byte that is not.
        offset: usize,
    },
}

impl PacketError {
    /// True when the connection cannot go on: the stream is no longer
    /// framed where this packet said.
    pub fn closes_connection(&self) -> bool {
        matches!(
            self,
            PacketError::TooLong { .. } | PacketError::TooShort { .. }
        )
    }
}

/// Checks a length field; the body that follows has that many bytes.
pub fn check_length(length: i32) -> Result<usize, PacketError> {
    let wide = i64::from(length);
    match usize::try_from(length) {
        Ok(n) if n > MAX_CLIENT_PACKET_BYTES => Err(PacketError::TooLong { length: wide }),
        Ok(n) if n >= MIN_PACKET_BYTES => Ok(n),
        _ => Err(PacketError::TooShort { length: wide }),
    }
}

/// Reads a packet's body (the `length` bytes after the length field). The
/// id is returned even for a packet whose payload is refused, so the
/// refusal can be answered to the right request.
pub fn decode_body(body: &[u8]) -> Result<RconPacket, (Option<i32>, PacketError)> {
    let length = i32::try_from(body.len()).unwrap_or(i32::MAX);
    check_length(length).map_err(|e| (None, e))?;
    let word = |at: usize| i32::from_le_bytes([body[at], body[at + 1], body[at + 2], body[at + 3]]);
    let request_id = word(0);
    let kind = word(4);
    let end = body.len();
    for offset in [end - 2, end - 1] {
        if body[offset] != 0 {
            return Err((Some(request_id), PacketError::Unterminated { offset }));
        }
    }
    let payload = &body[8..end - 2];
    // A NUL inside ends the payload early: the bytes after it are the
    // terminators of a shorter packet that was padded.
    let payload = match payload.iter().position(|b| *b == 0) {
        Some(nul) => &payload[..nul],
        None => payload,
    };
    match std::str::from_utf8(payload) {
        Ok(text) => Ok(RconPacket {
            request_id,
            kind,
            payload: text.to_owned(),
        }),
        Err(e) => Err((
            Some(request_id),
            PacketError::NotText {
                offset: 8 + e.valid_up_to(),
            },
        )),
    }
}

/// One packet on the wire, length included.
pub fn encode(request_id: i32, kind: i32, payload: &str) -> Vec<u8> {
    let body_length = 4 + 4 + payload.len() + 2;
    let mut bytes = Vec::with_capacity(4 + body_length);
    let length = i32::try_from(body_length).unwrap_or(i32::MAX);
    bytes.extend_from_slice(&length.to_le_bytes());
    bytes.extend_from_slice(&request_id.to_le_bytes());
    bytes.extend_from_slice(&kind.to_le_bytes());
    bytes.extend_from_slice(payload.as_bytes());
    bytes.extend_from_slice(&[0, 0]);
    bytes
}

/// An answer to request `request_id`: one [`TYPE_RESPONSE`] packet per
/// [`MAX_RESPONSE_PAYLOAD_BYTES`] of text (cut between characters), one
/// empty packet for an empty answer.
pub fn encode_response(request_id: i32, text: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(text.len() + 14);
    let mut rest = text;
    loop {
        let mut cut = rest.len().min(MAX_RESPONSE_PAYLOAD_BYTES);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (part, after) = rest.split_at(cut);
        bytes.extend(encode(request_id, TYPE_RESPONSE, part));
        rest = after;
        if rest.is_empty() {
            return bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn body(request_id: i32, kind: i32, payload: &[u8]) -> Vec<u8> {
        let mut b = request_id.to_le_bytes().to_vec();
        b.extend(kind.to_le_bytes());
        b.extend(payload);
        b.extend([0, 0]);
        b
    }

    #[test]
    fn a_login_packet_reads_back() {
        let wire = encode(7, TYPE_AUTH, "hunter2");
        assert_eq!(&wire[..4], &17i32.to_le_bytes(), "length of what follows");
        let packet = decode_body(&wire[4..]).expect("valid");
        assert_eq!(
            packet,
            RconPacket {
                request_id: 7,
                kind: TYPE_AUTH,
                payload: "hunter2".to_owned()
            }
        );
    }

    #[test]
    fn lengths_outside_the_protocol_close_the_connection() {
        assert_eq!(check_length(10), Ok(10));
        assert_eq!(check_length(4096), Ok(4096));
        let long = check_length(4097).expect_err("too long");
        assert_eq!(long, PacketError::TooLong { length: 4097 });
        assert!(long.closes_connection());
        assert!(check_length(9).expect_err("short").closes_connection());
        assert!(check_length(-5).expect_err("negative").closes_connection());
        assert!(long.to_string().contains("4096"), "{long}");
    }

    #[test]
    fn bad_payloads_keep_the_id_and_the_connection() {
        let mut unterminated = body(3, TYPE_COMMAND, b"list");
        let last = unterminated.len() - 1;
        unterminated[last] = b'x';
        let (id, error) = decode_body(&unterminated).expect_err("unterminated");
        assert_eq!(id, Some(3));
        assert_eq!(error, PacketError::Unterminated { offset: last });
        assert!(!error.closes_connection());
        let (id, error) = decode_body(&body(4, TYPE_COMMAND, b"li\xffst")).expect_err("not text");
        assert_eq!((id, error), (Some(4), PacketError::NotText { offset: 10 }));
    }

    #[test]
    fn long_answers_are_cut_into_packets_between_characters() {
        let text = "é".repeat(3000); // 6000 bytes
        let wire = encode_response(9, &text);
        let mut rest = &wire[..];
        let mut joined = String::new();
        let mut packets = 0;
        while !rest.is_empty() {
            let length = i32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            let packet = decode_body(&rest[4..4 + length]).expect("valid");
            assert_eq!((packet.request_id, packet.kind), (9, TYPE_RESPONSE));
            assert!(packet.payload.len() <= MAX_RESPONSE_PAYLOAD_BYTES);
            joined.push_str(&packet.payload);
            rest = &rest[4 + length..];
            packets += 1;
        }
        assert_eq!(packets, 2);
        assert_eq!(joined, text);
        assert_eq!(encode_response(1, "").len(), 14, "one empty packet");
    }

    proptest! {
        #[test]
        fn any_body_decodes_or_refuses_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode_body(&bytes);
        }

        #[test]
        fn text_round_trips(id in any::<i32>(), text in "[^\u{0}]{0,200}") {
            let wire = encode(id, TYPE_COMMAND, &text);
            let packet = decode_body(&wire[4..]).expect("valid");
            prop_assert_eq!(packet.payload, text);
            prop_assert_eq!(packet.request_id, id);
        }
    }
}
