//! The channel's messages, one enum per direction, with a reader that
//! never panics and a writer (the layout is in the parent module's guide).

use uuid::Uuid;

use super::{
    KIND_HELLO, KIND_PLAY, KIND_STOP, MAX_FROM_CLIENT_BYTES, MAX_TO_CLIENT_BYTES, VERSION,
};

/// Why a message could not be read or written: where (the byte offset
/// into the message) and the rule it broke.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChannelError {
    /// The header's version is not [`VERSION`].
    #[error("byte {offset}: version {version} is not one this side reads (it reads {VERSION}); send a HELLO as version 1 and speak the version the answer names")]
    UnknownVersion {
        /// Where the version byte is.
        offset: usize,
        /// The version sent.
        version: u8,
    },
    /// The kind byte is not one this direction has.
    #[error(
        "byte {offset}: kind {kind} is not a {direction} message (see the channel's byte layout)"
    )]
    UnknownKind {
        /// Where the kind byte is.
        offset: usize,
        /// The kind sent.
        kind: u8,
        /// `"client to server"` or `"server to client"`.
        direction: &'static str,
    },
    /// The message ends inside a field.
    #[error("byte {offset}: {what} needs {needed} bytes, {left} are left")]
    Truncated {
        /// Where the field starts.
        offset: usize,
        /// The field.
        what: &'static str,
        /// Its size.
        needed: usize,
        /// The bytes left.
        left: usize,
    },
    /// The message, or a length inside it, is over its cap.
    #[error("byte {offset}: {what} is {length} bytes, more than the {cap} allowed")]
    OverCap {
        /// Where the message (0) or the length field starts.
        offset: usize,
        /// The message or the field.
        what: &'static str,
        /// Its length.
        length: usize,
        /// The cap.
        cap: usize,
    },
    /// A text field is not UTF-8.
    #[error("byte {offset}: {what} is not UTF-8")]
    BadUtf8 {
        /// Where the text starts.
        offset: usize,
        /// The field.
        what: &'static str,
    },
    /// Bytes follow the end of the message.
    #[error("byte {offset}: {count} bytes follow the end of the message; send nothing after it")]
    TrailingBytes {
        /// Where the extra bytes start.
        offset: usize,
        /// How many there are.
        count: usize,
    },
    /// A client's HELLO names version 0.
    #[error("byte {offset}: a client must read version 1 or later, not {highest}")]
    NoCommonVersion {
        /// Where the version field is.
        offset: usize,
        /// The version the client sent.
        highest: u8,
    },
}

impl ChannelError {
    /// The byte offset the error is at.
    pub fn offset(&self) -> usize {
        match self {
            ChannelError::UnknownVersion { offset, .. }
            | ChannelError::UnknownKind { offset, .. }
            | ChannelError::Truncated { offset, .. }
            | ChannelError::OverCap { offset, .. }
            | ChannelError::BadUtf8 { offset, .. }
            | ChannelError::TrailingBytes { offset, .. }
            | ChannelError::NoCommonVersion { offset, .. } => *offset,
        }
    }
}

/// A message from a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnimationC2s {
    /// The client reads the channel, up to `highest_version`.
    Hello {
        /// The highest version the client reads (at least 1).
        highest_version: u8,
    },
}

/// A PLAY: a player plays an animation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayAnimationS2c {
    /// The player who plays it.
    pub player: Uuid,
    /// The animation's UUID (a STOP names it).
    pub animation: Uuid,
    /// Ticks of it already played (0 at its start).
    pub start_tick: i32,
    /// The animation's name inside the JSON.
    pub name: String,
    /// One Bedrock animation file ([`super::bedrock_json`]).
    pub json: String,
}

/// A message to a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnimationS2c {
    /// The answer to a client's HELLO.
    Hello {
        /// The version both speak.
        version: u8,
        /// The most bytes a client's message may have.
        max_from_client_bytes: u32,
        /// The most bytes a server's message may have.
        max_to_client_bytes: u32,
    },
    /// A player plays an animation.
    Play(PlayAnimationS2c),
    /// A player's animation ended.
    Stop {
        /// The player.
        player: Uuid,
        /// The animation the PLAY named.
        animation: Uuid,
    },
}

impl AnimationC2s {
    /// Reads a client's message (at most [`MAX_FROM_CLIENT_BYTES`]).
    pub fn read(bytes: &[u8]) -> Result<AnimationC2s, ChannelError> {
        let mut r = Reader::new(bytes, MAX_FROM_CLIENT_BYTES)?;
        let kind_at = r.at;
        let message = match r.u8("the kind")? {
            KIND_HELLO => {
                let at = r.at;
                let highest_version = r.u8("the highest version")?;
                if highest_version == 0 {
                    return Err(ChannelError::NoCommonVersion {
                        offset: at,
                        highest: 0,
                    });
                }
                AnimationC2s::Hello { highest_version }
            }
            kind => {
                return Err(ChannelError::UnknownKind {
                    offset: kind_at,
                    kind,
                    direction: "client to server",
                })
            }
        };
        r.end()?;
        Ok(message)
    }

    /// The message's bytes.
    pub fn write(&self) -> Vec<u8> {
        match self {
            AnimationC2s::Hello { highest_version } => vec![VERSION, KIND_HELLO, *highest_version],
        }
    }
}

impl AnimationS2c {
    /// The server's answer to a HELLO: this version and both caps.
    pub fn hello() -> AnimationS2c {
        AnimationS2c::Hello {
            version: VERSION,
            max_from_client_bytes: MAX_FROM_CLIENT_BYTES as u32,
            max_to_client_bytes: MAX_TO_CLIENT_BYTES as u32,
        }
    }

    /// Reads a server's message (at most [`MAX_TO_CLIENT_BYTES`]).
    pub fn read(bytes: &[u8]) -> Result<AnimationS2c, ChannelError> {
        let mut r = Reader::new(bytes, MAX_TO_CLIENT_BYTES)?;
        let kind_at = r.at;
        let message = match r.u8("the kind")? {
            KIND_HELLO => AnimationS2c::Hello {
                version: r.u8("the version")?,
                max_from_client_bytes: r.u32("the client cap")?,
                max_to_client_bytes: r.u32("the server cap")?,
            },
            KIND_PLAY => {
                let player = r.uuid("the player's UUID")?;
                let animation = r.uuid("the animation's UUID")?;
                let start_tick = r.u32("the ticks already played")? as i32;
                let name_length = usize::from(r.u16("the name's length")?);
                let name = r.text(name_length, "the name")?;
                let at = r.at;
                let json_length = r.u32("the JSON's length")? as usize;
                if json_length > MAX_TO_CLIENT_BYTES {
                    return Err(ChannelError::OverCap {
                        offset: at,
                        what: "the JSON",
                        length: json_length,
                        cap: MAX_TO_CLIENT_BYTES,
                    });
                }
                let json = r.text(json_length, "the JSON")?;
                AnimationS2c::Play(PlayAnimationS2c {
                    player,
                    animation,
                    start_tick,
                    name,
                    json,
                })
            }
            KIND_STOP => AnimationS2c::Stop {
                player: r.uuid("the player's UUID")?,
                animation: r.uuid("the animation's UUID")?,
            },
            kind => {
                return Err(ChannelError::UnknownKind {
                    offset: kind_at,
                    kind,
                    direction: "server to client",
                })
            }
        };
        r.end()?;
        Ok(message)
    }

    /// The message's bytes, or why it cannot be sent: a name over 65535
    /// bytes, or a message over [`MAX_TO_CLIENT_BYTES`].
    pub fn write(&self) -> Result<Vec<u8>, ChannelError> {
        let mut out = vec![VERSION];
        match self {
            AnimationS2c::Hello {
                version,
                max_from_client_bytes,
                max_to_client_bytes,
            } => {
                out.extend([KIND_HELLO, *version]);
                out.extend(max_from_client_bytes.to_be_bytes());
                out.extend(max_to_client_bytes.to_be_bytes());
            }
            AnimationS2c::Play(play) => {
                out.push(KIND_PLAY);
                out.extend(play.player.as_bytes());
                out.extend(play.animation.as_bytes());
                out.extend(play.start_tick.to_be_bytes());
                let name_length =
                    u16::try_from(play.name.len()).map_err(|_| ChannelError::OverCap {
                        offset: out.len(),
                        what: "the name",
                        length: play.name.len(),
                        cap: usize::from(u16::MAX),
                    })?;
                out.extend(name_length.to_be_bytes());
                out.extend(play.name.as_bytes());
                let json_length = play.json.len().min(MAX_TO_CLIENT_BYTES + 1) as u32;
                out.extend(json_length.to_be_bytes());
                out.extend(play.json.as_bytes());
            }
            AnimationS2c::Stop { player, animation } => {
                out.push(KIND_STOP);
                out.extend(player.as_bytes());
                out.extend(animation.as_bytes());
            }
        }
        if out.len() > MAX_TO_CLIENT_BYTES {
            return Err(ChannelError::OverCap {
                offset: 0,
                what: "the message",
                length: out.len(),
                cap: MAX_TO_CLIENT_BYTES,
            });
        }
        Ok(out)
    }
}

/// Reads big-endian fields, never past the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// A reader past the header of `bytes`, a message of at most `cap`
    /// bytes, whose version it has checked.
    fn new(bytes: &'a [u8], cap: usize) -> Result<Reader<'a>, ChannelError> {
        if bytes.len() > cap {
            return Err(ChannelError::OverCap {
                offset: 0,
                what: "the message",
                length: bytes.len(),
                cap,
            });
        }
        let mut r = Reader { bytes, at: 0 };
        let version = r.u8("the version")?;
        if version != VERSION {
            return Err(ChannelError::UnknownVersion { offset: 0, version });
        }
        Ok(r)
    }

    /// The next `n` bytes.
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ChannelError> {
        let left = self.bytes.len().saturating_sub(self.at);
        let Some(slice) = self.bytes.get(self.at..).and_then(|rest| rest.get(..n)) else {
            return Err(ChannelError::Truncated {
                offset: self.at,
                what,
                needed: n,
                left,
            });
        };
        self.at += n;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ChannelError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, ChannelError> {
        Ok(u8::from_be_bytes(self.array(what)?))
    }

    fn u16(&mut self, what: &'static str) -> Result<u16, ChannelError> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, ChannelError> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    fn uuid(&mut self, what: &'static str) -> Result<Uuid, ChannelError> {
        Ok(Uuid::from_bytes(self.array(what)?))
    }

    /// `n` bytes of UTF-8.
    fn text(&mut self, n: usize, what: &'static str) -> Result<String, ChannelError> {
        let offset = self.at;
        let bytes = self.take(n, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| ChannelError::BadUtf8 { offset, what })
    }

    /// Fails when bytes are left.
    fn end(&self) -> Result<(), ChannelError> {
        match self.bytes.len().saturating_sub(self.at) {
            0 => Ok(()),
            count => Err(ChannelError::TrailingBytes {
                offset: self.at,
                count,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_hello_from_a_client_is_three_bytes() {
        let hello = AnimationC2s::Hello { highest_version: 3 };
        assert_eq!(hello.write(), [1, 0, 3]);
        assert_eq!(AnimationC2s::read(&[1, 0, 3]), Ok(hello));
    }

    #[test]
    fn the_servers_hello_names_the_version_and_both_caps() {
        // 1, 0, version 1, 32768 = 0x8000, 1048576 = 0x10_0000.
        let bytes = AnimationS2c::hello().write().expect("small");
        assert_eq!(bytes, [1, 0, 1, 0, 0, 0x80, 0, 0, 0x10, 0, 0]);
    }

    #[test]
    fn a_play_is_laid_out_as_the_guide_says() {
        let play = AnimationS2c::Play(PlayAnimationS2c {
            player: Uuid::from_u128(0x0102),
            animation: Uuid::from_u128(0x0304),
            start_tick: 7,
            name: "ab".into(),
            json: "{}".into(),
        });
        let bytes = play.write().expect("small");
        // 2 header + 16 + 16 + 4 + (2 + 2) + (4 + 2) = 48 bytes.
        assert_eq!(bytes.len(), 48);
        assert_eq!(&bytes[..2], &[1, 1]);
        assert_eq!(&bytes[16..18], &[0x01, 0x02], "player UUID's last bytes");
        assert_eq!(&bytes[32..34], &[0x03, 0x04], "animation UUID's last bytes");
        assert_eq!(&bytes[34..38], &[0, 0, 0, 7]);
        assert_eq!(&bytes[38..42], &[0, 2, b'a', b'b']);
        assert_eq!(&bytes[42..], &[0, 0, 0, 2, b'{', b'}']);
        assert_eq!(AnimationS2c::read(&bytes), Ok(play));
    }

    #[test]
    fn each_rule_is_reported_at_its_byte() {
        let cases: [(&[u8], usize, &str); 6] = [
            (&[2, 0, 1], 0, "version 2"),
            (&[1, 9, 1], 1, "kind 9"),
            (&[1, 0], 2, "needs 1 bytes, 0 are left"),
            (&[1, 0, 1, 5], 3, "1 bytes follow"),
            (&[1, 0, 0], 2, "version 1 or later"),
            (&[], 0, "the version needs 1 bytes"),
        ];
        for (bytes, offset, message) in cases {
            let e = AnimationC2s::read(bytes).expect_err("refused");
            assert_eq!(e.offset(), offset, "{bytes:?}: {e}");
            assert!(e.to_string().contains(message), "{bytes:?}: {e}");
        }
        let big = vec![1; MAX_FROM_CLIENT_BYTES + 1];
        let e = AnimationC2s::read(&big).expect_err("over 32 KiB");
        assert!(e.to_string().contains("more than the 32768 allowed"), "{e}");
    }

    #[test]
    fn a_play_with_bad_text_or_a_huge_json_length_is_refused() {
        let mut bytes = vec![1, 1];
        bytes.extend([0; 36]); // two UUIDs and the start tick
        let name_at = bytes.len() + 2;
        bytes.extend([0, 1, 0xff]); // a one-byte name that is not UTF-8
        let e = AnimationS2c::read(&bytes).expect_err("bad UTF-8");
        assert_eq!(
            e,
            ChannelError::BadUtf8 {
                offset: name_at,
                what: "the name"
            }
        );
        bytes.truncate(name_at - 2);
        bytes.extend([0, 0, 0xff, 0xff, 0xff, 0xff]); // empty name, 4 GiB JSON
        let e = AnimationS2c::read(&bytes).expect_err("over the cap");
        assert!(
            matches!(
                e,
                ChannelError::OverCap {
                    offset: 40,
                    what: "the JSON",
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn a_name_too_long_for_its_length_field_is_not_written() {
        let play = AnimationS2c::Play(PlayAnimationS2c {
            player: Uuid::nil(),
            animation: Uuid::nil(),
            start_tick: 0,
            name: "n".repeat(70_000),
            json: String::new(),
        });
        assert!(matches!(
            play.write(),
            Err(ChannelError::OverCap {
                what: "the name",
                ..
            })
        ));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = AnimationC2s::read(&bytes);
            let _ = AnimationS2c::read(&bytes);
        }

        #[test]
        fn arbitrary_bytes_after_a_valid_header_never_panic(
            kind in 0u8..4,
            rest in proptest::collection::vec(any::<u8>(), 0..120),
        ) {
            let mut bytes = vec![1, kind];
            bytes.extend(rest);
            let _ = AnimationC2s::read(&bytes);
            let _ = AnimationS2c::read(&bytes);
        }

        #[test]
        fn plays_and_stops_read_back_as_written(
            player in any::<u128>(),
            animation in any::<u128>(),
            start_tick in any::<i32>(),
            name in "\\PC{0,40}",
            json in "\\PC{0,200}",
            highest_version in 1u8..,
        ) {
            let (player, animation) = (Uuid::from_u128(player), Uuid::from_u128(animation));
            let messages = [
                AnimationS2c::Play(PlayAnimationS2c { player, animation, start_tick, name, json }),
                AnimationS2c::Stop { player, animation },
                AnimationS2c::hello(),
            ];
            for message in messages {
                let bytes = message.write().expect("small");
                prop_assert_eq!(AnimationS2c::read(&bytes), Ok(message));
            }
            let hello = AnimationC2s::Hello { highest_version };
            prop_assert_eq!(AnimationC2s::read(&hello.write()), Ok(hello));
        }
    }
}
