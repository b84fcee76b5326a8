//! Copying each tick's band updates to the viewers of each cell, in the
//! bands each viewer gets ("Distance bands" in the module docs).

use std::collections::HashMap;

use valence::prelude::*;
use valence::protocol::{Encode, Packet, WritePacket};
use valence::{ChunkPos, ChunkView};

use crate::server::display_bands::{BandStreams, CellBands};

/// The cells a client sees (by the cell's layer) and the bands it gets
/// each in, as [`super::show_cells_in_range`] last chose.
#[derive(Component, Debug, Default)]
pub struct ViewerCells {
    cells: HashMap<Entity, CellBands>,
    /// True while cells in reach wait for a later tick's spawn budget
    /// (`[emotes] viewer_spawns_per_tick`).
    arrivals_waiting: bool,
}

impl ViewerCells {
    /// The bands this viewer gets `cell` in, if it sees it.
    pub fn of(&self, cell: Entity) -> Option<CellBands> {
        self.cells.get(&cell).copied()
    }

    /// Every cell seen, with its bands.
    pub fn iter(&self) -> impl Iterator<Item = (Entity, CellBands)> + '_ {
        self.cells.iter().map(|(cell, bands)| (*cell, *bands))
    }

    /// True while cells in reach wait for a later tick's spawn budget.
    pub fn arrivals_waiting(&self) -> bool {
        self.arrivals_waiting
    }

    /// Records that the viewer gets `cell` in `bands`.
    pub(super) fn set(&mut self, cell: Entity, bands: CellBands) {
        self.cells.insert(cell, bands);
    }

    /// Records that the viewer no longer sees `cell`.
    pub(super) fn forget(&mut self, cell: Entity) {
        self.cells.remove(&cell);
    }

    /// Records whether cells in reach wait for a later tick.
    pub(super) fn set_arrivals_waiting(&mut self, waiting: bool) {
        self.arrivals_waiting = waiting;
    }
}

/// Gives each new client an empty [`ViewerCells`].
pub(super) fn track_new_viewers(
    mut commands: Commands,
    clients: Query<Entity, (Added<Client>, Without<ViewerCells>)>,
) {
    for client in &clients {
        commands.entity(client).insert(ViewerCells::default());
    }
}

/// The most bytes of band updates a client's buffer takes before it is
/// flushed ([`send_band_updates`]).
const FLUSH_BYTES: usize = 16 * 1024;

/// Right after valence's own client updates (so the cells' spawns come
/// first): each viewer is copied this tick's updates of each cell it sees,
/// in its bands, where the cell's chunk is in its view (valence spawns
/// nothing outside it); then the streams are emptied.
///
/// A client's packet buffer keeps the largest size it ever held, and a
/// crowd's updates are much of a tick's bytes. So a viewer's buffer is
/// flushed before its band updates and after each [`FLUSH_BYTES`] of them:
/// the stream is the same, in more writes, and the buffer is sized by the
/// rest of the tick. A flush that fails (the client stopped reading, or
/// left) has lost the bytes it took, so the client is dropped, as valence
/// drops one whose flush fails, and sent nothing more.
pub(super) fn send_band_updates(
    mut commands: Commands,
    mut streams: ResMut<BandStreams>,
    mut clients: Query<(Entity, &mut Client, &ViewerCells, &Position, &ViewDistance)>,
) {
    if streams.seal() {
        for (entity, mut client, viewer_cells, position, view_distance) in &mut clients {
            let view = ChunkView::new(ChunkPos::from_pos(position.0), view_distance.get());
            let mut out = Flushing {
                client: &mut *client,
                unflushed_bytes: None,
                failed: None,
            };
            for (cell, bands) in viewer_cells.iter() {
                streams.send(cell, &bands, &view, &mut out);
            }
            if let Some(error) = out.failed {
                tracing::warn!("failed to flush packets for client {entity:?}: {error:#}");
                commands.entity(entity).remove::<Client>();
            }
        }
    }
    streams.clear();
}

/// A packet writer that can send what it holds (a client).
trait Flush: WritePacket {
    /// Sends what was written so far.
    fn flush(&mut self) -> anyhow::Result<()>;
}

impl Flush for Client {
    fn flush(&mut self) -> anyhow::Result<()> {
        self.flush_packets()
    }
}

/// A client's packet writer that flushes before its first write and after
/// each [`FLUSH_BYTES`].
struct Flushing<'a, W: Flush> {
    client: &'a mut W,
    /// Bytes written since the last flush (`None`: nothing written yet).
    unflushed_bytes: Option<usize>,
    /// Why a flush failed: nothing more is written.
    failed: Option<anyhow::Error>,
}

impl<W: Flush> Flushing<'_, W> {
    /// Flushes; false (and nothing more is written) when that failed.
    fn flush(&mut self) -> bool {
        if let Err(error) = self.client.flush() {
            self.failed = Some(error);
        }
        self.failed.is_none()
    }
}

impl<W: Flush> WritePacket for Flushing<'_, W> {
    fn write_packet_fallible<P>(&mut self, packet: &P) -> anyhow::Result<()>
    where
        P: Packet + Encode,
    {
        self.client.write_packet_fallible(packet)
    }

    fn write_packet_bytes(&mut self, mut bytes: &[u8]) {
        if self.failed.is_some() {
            return;
        }
        let mut unflushed = match self.unflushed_bytes {
            Some(unflushed) => unflushed,
            None => {
                if !self.flush() {
                    return;
                }
                0
            }
        };
        // The bytes are one stream: a packet may be split between writes.
        while !bytes.is_empty() {
            let room = FLUSH_BYTES.saturating_sub(unflushed).max(1);
            let (now, rest) = bytes.split_at(room.min(bytes.len()));
            self.client.write_packet_bytes(now);
            unflushed += now.len();
            bytes = rest;
            if unflushed >= FLUSH_BYTES {
                if !self.flush() {
                    return;
                }
                unflushed = 0;
            }
        }
        self.unflushed_bytes = Some(unflushed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeps what each flush sent; fails the flush numbered `fail_at`.
    #[derive(Default)]
    struct Sent {
        pending: Vec<u8>,
        flushes: Vec<Vec<u8>>,
        fail_at: Option<usize>,
    }

    impl WritePacket for Sent {
        fn write_packet_fallible<P>(&mut self, _: &P) -> anyhow::Result<()>
        where
            P: Packet + Encode,
        {
            Ok(())
        }

        fn write_packet_bytes(&mut self, bytes: &[u8]) {
            self.pending.extend_from_slice(bytes);
        }
    }

    impl Flush for Sent {
        fn flush(&mut self) -> anyhow::Result<()> {
            if self.fail_at == Some(self.flushes.len()) {
                anyhow::bail!("not reading");
            }
            self.flushes.push(std::mem::take(&mut self.pending));
            Ok(())
        }
    }

    #[test]
    fn band_updates_are_sent_in_pieces_after_what_came_before() {
        let mut sent = Sent {
            pending: b"spawns".to_vec(),
            ..Sent::default()
        };
        let stream: Vec<u8> = (0..40_000u32).map(|i| (i % 251) as u8).collect();
        let mut out = Flushing {
            client: &mut sent,
            unflushed_bytes: None,
            failed: None,
        };
        out.write_packet_bytes(&stream[..30_000]);
        out.write_packet_bytes(&stream[30_000..]);
        assert!(out.failed.is_none());
        // What valence wrote first goes alone; then 16 KiB pieces, and the
        // rest waits for valence's own flush.
        assert_eq!(sent.flushes[0], b"spawns");
        let sizes: Vec<usize> = sent.flushes[1..].iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![FLUSH_BYTES, FLUSH_BYTES]);
        let mut whole: Vec<u8> = sent.flushes[1..].concat();
        whole.extend_from_slice(&sent.pending);
        assert_eq!(whole, stream, "the same stream, in order");
    }

    #[test]
    fn a_failed_flush_stops_the_writes() {
        let mut sent = Sent {
            fail_at: Some(1),
            ..Sent::default()
        };
        let mut out = Flushing {
            client: &mut sent,
            unflushed_bytes: None,
            failed: None,
        };
        out.write_packet_bytes(&[7; FLUSH_BYTES + 10]);
        assert!(out.failed.is_some());
        out.write_packet_bytes(&[8; 100]);
        assert_eq!(sent.flushes.len(), 1, "only the first flush went");
        assert_eq!(sent.pending.len(), FLUSH_BYTES, "nothing written after");
    }
}
