//! FILE packets (purpose 0x10): an emote put into a modded player's own
//! wheel, so they can pick it there and play it as their own (their client
//! then sends a STREAM, which the server relays). A FILE carries the emote
//! sub-packet (start tick 0 and the animation) and the header, sub-packet
//! 0x11: three strings, name, description and author, each an `i32`
//! length and UTF-8, where length 0 means none. No icon is sent.

use super::animation::{emote_payload, BoneAnimation, ANIMATION_BINARY_VERSION};
use super::bytes::{put_string, Reader};
use super::frame::{EmotePacket, Purpose, SubPacket, SUB_EMOTE, SUB_HEADER};
use super::WireError;

/// What the header names: what the mod's wheel shows for the emote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmoteHeader {
    /// The name (`None` is written as length 0).
    pub name: Option<String>,
    /// The description.
    pub description: Option<String>,
    /// The author.
    pub author: Option<String>,
}

/// Sub-packet 0x11 for `header`.
pub fn header_sub(header: &EmoteHeader) -> SubPacket {
    let mut payload = Vec::new();
    for field in [&header.name, &header.description, &header.author] {
        put_string(&mut payload, field.as_deref().unwrap_or(""));
    }
    SubPacket {
        id: SUB_HEADER,
        version: 1,
        payload,
    }
}

/// Reads sub-packet 0x11 (an empty string reads as none).
pub fn read_header(payload: &[u8]) -> Result<EmoteHeader, WireError> {
    let mut r = Reader::new(payload, 0);
    let mut field = |what: &str| -> Result<Option<String>, WireError> {
        let text = r.string(what)?;
        Ok((!text.is_empty()).then_some(text))
    };
    Ok(EmoteHeader {
        name: field("the name")?,
        description: field("the description")?,
        author: field("the author")?,
    })
}

/// A FILE of `animation` with `header`.
pub fn file_packet(animation: &BoneAnimation, header: &EmoteHeader) -> EmotePacket {
    EmotePacket::new(
        Purpose::File,
        vec![
            SubPacket {
                id: SUB_EMOTE,
                version: ANIMATION_BINARY_VERSION,
                payload: emote_payload(0, animation),
            },
            header_sub(header),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_is_three_sized_strings_and_reads_back() {
        let header = EmoteHeader {
            name: Some("Wave".into()),
            description: None,
            author: Some("é".into()),
        };
        let sub = header_sub(&header);
        // "Wave": length 4 then the bytes; none: length 0; "é": 2 bytes.
        assert_eq!(
            sub.payload,
            [0, 0, 0, 4, b'W', b'a', b'v', b'e', 0, 0, 0, 0, 0, 0, 0, 2, 0xc3, 0xa9]
        );
        assert_eq!(read_header(&sub.payload).expect("reads"), header);
        assert!(read_header(&[0, 0, 0, 9, 1]).is_err());
    }
}
