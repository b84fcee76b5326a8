//! A packet framed once for many clients.
//!
//! valence frames (and past the threshold compresses) a packet into each
//! client's buffer on its own, so one packet for 1,000 players is encoded
//! 1,000 times. Framed here once with the server's compression threshold,
//! its bytes are copied to each client's buffer; encryption still happens
//! per client when the buffer is flushed.

use valence::prelude::*;
use valence::protocol::encode::PacketWriter;
use valence::protocol::{Encode, Packet, WritePacket};

/// One packet, framed as a client's connection sends it.
pub struct FramedPacket(Vec<u8>);

impl FramedPacket {
    /// `packet`, framed for `server`'s clients.
    pub fn new<P: Packet + Encode>(server: &Server, packet: &P) -> FramedPacket {
        let mut bytes = Vec::new();
        PacketWriter::new(&mut bytes, server.compression_threshold()).write_packet(packet);
        FramedPacket(bytes)
    }

    /// Adds it to `client`'s packets of this tick.
    pub fn send_to(&self, client: &mut Client) {
        client.write_packet_bytes(&self.0);
    }
}
