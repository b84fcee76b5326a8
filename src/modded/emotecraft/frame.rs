//! The packet framing (`EmotePacket.write/read` in Emotecraft) and the
//! small sub-packets: the player, the versions map, the stopped emote.

use uuid::Uuid;

use super::bytes::*;
use super::{MAX_TO_CLIENT_BYTES, NETWORKING_VERSION};

/// Sub-packet 0: the emote (`i32` start tick, then the animation binary).
pub const SUB_EMOTE: u8 = 0;
/// Sub-packet 1: the player the packet is about (to clients), or the
/// target of a repeat (from clients).
pub const SUB_PLAYER: u8 = 1;
/// Sub-packet 3: a song.
pub const SUB_SONG: u8 = 3;
/// Sub-packet 8: the versions map (CONFIG only).
pub const SUB_DISCOVERY: u8 = 8;
/// Sub-packet 10: the UUID of the emote stopped (STOP only).
pub const SUB_STOP: u8 = 10;
/// Sub-packet 0x11: name, description and author (FILE only).
pub const SUB_HEADER: u8 = 0x11;
/// Sub-packet 0x12: a PNG icon (FILE only).
pub const SUB_ICON: u8 = 0x12;
/// The versions-map key that says the server tracks who plays what.
pub const KEY_SERVER_TRACKS_PLAY_STATE: u8 = 0x80;

/// What a packet is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Play an emote.
    Stream,
    /// Trade versions.
    Config,
    /// Stop an emote.
    Stop,
    /// An emote for the player's wheel.
    File,
    /// A purpose this server does not know (kept, so a relay can pass it).
    Other(u8),
}

impl Purpose {
    /// The byte on the wire.
    pub fn byte(self) -> u8 {
        match self {
            Purpose::Stream => 1,
            Purpose::Config => 8,
            Purpose::Stop => 10,
            Purpose::File => 0x10,
            Purpose::Other(b) => b,
        }
    }

    /// The purpose of a byte.
    pub fn from_byte(b: u8) -> Purpose {
        match b {
            1 => Purpose::Stream,
            8 => Purpose::Config,
            10 => Purpose::Stop,
            0x10 => Purpose::File,
            b => Purpose::Other(b),
        }
    }
}

/// One sub-packet, as framed: its id, version and payload bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubPacket {
    /// What it is (the `SUB_*` constants).
    pub id: u8,
    /// Its format's version.
    pub version: u8,
    /// Its bytes.
    pub payload: Vec<u8>,
}

/// One message on the channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmotePacket {
    /// The sender's networking version (at most [`NETWORKING_VERSION`]).
    pub version: i32,
    /// What it is for.
    pub purpose: Purpose,
    /// Its sub-packets, in the order they came (order does not matter).
    pub subs: Vec<SubPacket>,
}

impl EmotePacket {
    /// A packet of this server's version.
    pub fn new(purpose: Purpose, subs: Vec<SubPacket>) -> EmotePacket {
        EmotePacket {
            version: NETWORKING_VERSION,
            purpose,
            subs,
        }
    }

    /// Reads one packet of at most `cap` bytes. The whole message must be
    /// the packet: bytes left over are an error.
    pub fn read(bytes: &[u8], cap: usize) -> Result<EmotePacket, WireError> {
        if bytes.len() > cap {
            return Err(WireError {
                offset: cap,
                rule: format!(
                    "the packet has {} bytes, more than the {cap} allowed",
                    bytes.len()
                ),
            });
        }
        let mut r = Reader::new(bytes, 0);
        let at = r.offset();
        let version = r.i32("the version")?;
        if !(0..=NETWORKING_VERSION).contains(&version) {
            return Err(WireError {
                offset: at,
                rule: format!(
                    "version {version} is not one this server reads (0 to {NETWORKING_VERSION})"
                ),
            });
        }
        let purpose = Purpose::from_byte(r.u8("the purpose")?);
        let count = r.u8("the sub-packet count")?;
        let mut subs = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            let id = r.u8("a sub-packet id")?;
            let version = r.u8("a sub-packet version")?;
            let size = r.count("a sub-packet size", 1)?;
            let payload = r.take(size, "a sub-packet")?.to_vec();
            subs.push(SubPacket {
                id,
                version,
                payload,
            });
        }
        if r.remaining() > 0 {
            return Err(r.error(format!(
                "{} bytes follow the last sub-packet",
                r.remaining()
            )));
        }
        Ok(EmotePacket {
            version,
            purpose,
            subs,
        })
    }

    /// The packet's bytes. At most 255 sub-packets are written (the count
    /// is one byte); [`EmotePacket::read`] never makes more.
    pub fn write(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(6 + self.subs.iter().map(|s| 6 + s.payload.len()).sum::<usize>());
        put_i32(&mut out, self.version);
        out.push(self.purpose.byte());
        let subs = &self.subs[..self.subs.len().min(255)];
        out.push(subs.len() as u8);
        for sub in subs {
            out.push(sub.id);
            out.push(sub.version);
            put_i32(&mut out, sub.payload.len().min(i32::MAX as usize) as i32);
            out.extend_from_slice(&sub.payload);
        }
        out
    }

    /// Whether the packet fits what may be sent to a client.
    pub fn fits_a_client(&self) -> bool {
        6 + self.subs.iter().map(|s| 6 + s.payload.len()).sum::<usize>() <= MAX_TO_CLIENT_BYTES
    }

    /// The first sub-packet with `id`.
    pub fn sub(&self, id: u8) -> Option<&SubPacket> {
        self.subs.iter().find(|s| s.id == id)
    }

    /// Puts `player` in sub-packet 1 (replacing any there): what a relay
    /// does before it forwards a player's STREAM or STOP, since clients
    /// refuse either without a player.
    pub fn set_player(&mut self, player: Uuid, forced: bool) {
        self.subs.retain(|s| s.id != SUB_PLAYER);
        self.subs.push(player_sub(player, forced));
    }

    /// The player of sub-packet 1, if there is one and it reads.
    pub fn player(&self) -> Option<Result<(Uuid, bool), WireError>> {
        self.sub(SUB_PLAYER).map(|s| read_player(&s.payload))
    }

    /// The emote's start tick (the first four bytes of sub-packet 0).
    pub fn start_tick(&self) -> Option<i32> {
        let payload = &self.sub(SUB_EMOTE)?.payload;
        let b = payload.get(..4)?;
        Some(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Sets the emote's start tick, for a viewer who arrives while it
    /// plays; false when there is no emote sub-packet to change.
    pub fn set_start_tick(&mut self, tick: i32) -> bool {
        let Some(sub) = self.subs.iter_mut().find(|s| s.id == SUB_EMOTE) else {
            return false;
        };
        let Some(head) = sub.payload.get_mut(..4) else {
            return false;
        };
        head.copy_from_slice(&tick.to_be_bytes());
        true
    }
}

/// Sub-packet 1 for `player`.
pub fn player_sub(player: Uuid, forced: bool) -> SubPacket {
    let (msb, lsb) = player.as_u64_pair();
    let mut payload = Vec::with_capacity(17);
    put_i64(&mut payload, msb as i64);
    put_i64(&mut payload, lsb as i64);
    payload.push(u8::from(forced));
    SubPacket {
        id: SUB_PLAYER,
        version: 1,
        payload,
    }
}

/// Reads sub-packet 1: a UUID and, from version 1, whether it is forced.
pub fn read_player(payload: &[u8]) -> Result<(Uuid, bool), WireError> {
    let mut r = Reader::new(payload, 0);
    let msb = r.i64("the player's UUID")? as u64;
    let lsb = r.i64("the player's UUID")? as u64;
    let forced = if r.remaining() > 0 {
        r.bool("is forced")?
    } else {
        false
    };
    Ok((Uuid::from_u64_pair(msb, lsb), forced))
}

/// Reads sub-packet 8: `i32` n, then n pairs of (id, version).
pub fn read_discovery(payload: &[u8]) -> Result<Vec<(u8, u8)>, WireError> {
    let mut r = Reader::new(payload, 0);
    let n = r.count("the number of versions", 2)?;
    let mut versions = Vec::with_capacity(n);
    for _ in 0..n {
        versions.push((r.u8("a version key")?, r.u8("a version")?));
    }
    Ok(versions)
}

/// Sub-packet 8 for `versions`.
pub fn discovery_sub(versions: &[(u8, u8)]) -> SubPacket {
    let mut payload = Vec::with_capacity(4 + 2 * versions.len());
    put_i32(&mut payload, versions.len() as i32);
    for (key, version) in versions {
        payload.push(*key);
        payload.push(*version);
    }
    SubPacket {
        id: SUB_DISCOVERY,
        version: 8,
        payload,
    }
}

/// The versions this server speaks, as its CONFIG answer says them: the
/// animation binary 2, the player 1, no songs, networking 8, stop 1, the
/// FILE header 1 and icons, and that the server tracks play state (so
/// clients stop sending targeted repeats).
pub const SERVER_VERSIONS: [(u8, u8); 8] = [
    (SUB_EMOTE, 2),
    (SUB_PLAYER, 1),
    (SUB_SONG, 0),
    (SUB_DISCOVERY, 8),
    (SUB_STOP, 1),
    (SUB_HEADER, 1),
    (SUB_ICON, 0x12),
    (KEY_SERVER_TRACKS_PLAY_STATE, 1),
];

/// This server's answer to a client's CONFIG.
pub fn server_config() -> EmotePacket {
    EmotePacket::new(Purpose::Config, vec![discovery_sub(&SERVER_VERSIONS)])
}

/// A STOP of the emote `emote` played by `player`.
pub fn stop_packet(emote: Uuid, player: Uuid) -> EmotePacket {
    let (msb, lsb) = emote.as_u64_pair();
    let mut payload = Vec::with_capacity(16);
    put_i64(&mut payload, msb as i64);
    put_i64(&mut payload, lsb as i64);
    EmotePacket::new(
        Purpose::Stop,
        vec![
            SubPacket {
                id: SUB_STOP,
                version: 1,
                payload,
            },
            player_sub(player, false),
        ],
    )
}

/// The emote UUID of a STOP's sub-packet 10.
pub fn read_stop(payload: &[u8]) -> Result<Uuid, WireError> {
    let mut r = Reader::new(payload, 0);
    let msb = r.i64("the emote's UUID")? as u64;
    let lsb = r.i64("the emote's UUID")? as u64;
    Ok(Uuid::from_u64_pair(msb, lsb))
}
