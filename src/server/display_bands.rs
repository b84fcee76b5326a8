//! The band streams of the culling cells, shared between the module that
//! delivers them ([`crate::server::cull`]) and the one that writes display
//! updates into them ([`crate::server::emote`]).
//!
//! A cell's displays live in the cell's entity layer, which spawns and
//! despawns them and carries everything but their transformation. The
//! transformation updates go by band ([`crate::playback::schedule::bands`]):
//! a playback's updates for band `k` are encoded once and appended to band
//! `k`'s stream of the display's cell, and each viewer of the cell is
//! copied, once a tick, the bytes of the bands it gets ([`CellBands`]).
//!
//! # Why streams and not layers
//!
//! A viewer may get a cell's nearest playbacks in one band and the rest in
//! another: the byte budget keeps the nearest 20 emotes fine and draws the
//! rest coarser, even when all of them stand in one chunk column. A layer
//! per band and playback group would make every viewer read dozens of
//! layers a tick. Instead each band's bytes are kept in playback order
//! (by the owner's entity, the same order for every viewer), so a viewer's
//! kept playbacks are a prefix of the finer band's bytes and the rest a
//! suffix of the coarser band's: two copies a cell, whatever the split.
//!
//! The bytes written to each band are also counted here, for the budget.

use std::collections::HashMap;

use valence::prelude::*;
use valence::protocol::WritePacket;
use valence::{ChunkPos, ChunkView};

use crate::playback::schedule::{bands_of, BandMask, DISPLAY_BANDS};

/// The bands one viewer gets a cell's playbacks in: those whose owner is
/// at most `kept_through` (in entity order) in `kept_band`, the others in
/// `band`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellBands {
    /// The band of the kept playbacks (the one the viewer's distance
    /// allows).
    pub kept_band: usize,
    /// The last kept playback's owner (`None`: none is kept apart, all
    /// are in `band`).
    pub kept_through: Option<Entity>,
    /// The band of every other playback.
    pub band: usize,
}

impl CellBands {
    /// Every playback in `band`.
    pub fn uniform(band: usize) -> Self {
        Self {
            kept_band: band,
            kept_through: None,
            band,
        }
    }

    /// The band the playback of `owner` is drawn in.
    pub fn band_of(&self, owner: Entity) -> usize {
        match self.kept_through {
            Some(last) if owner <= last => self.kept_band,
            _ => self.band,
        }
    }
}

/// One band's updates of one cell this tick.
#[derive(Debug, Default)]
struct BandStream {
    /// The packets as written.
    written: Vec<u8>,
    /// Which owner wrote each run of `written`: owner, start, end.
    pieces: Vec<(Entity, usize, usize)>,
    /// `written` in owner order (after [`BandStream::seal`]).
    ordered: Vec<u8>,
    /// The owners of `ordered`'s runs, ascending, and where each run ends.
    runs: Vec<(Entity, usize)>,
}

impl BandStream {
    fn append(&mut self, owner: Entity, packet: &[u8]) {
        let start = self.written.len();
        self.written.extend_from_slice(packet);
        let end = self.written.len();
        match self.pieces.last_mut() {
            Some((last, _, last_end)) if *last == owner && *last_end == start => *last_end = end,
            _ => self.pieces.push((owner, start, end)),
        }
    }

    /// Orders the written packets by owner (each owner's in the order
    /// written).
    fn seal(&mut self) {
        self.ordered.clear();
        self.runs.clear();
        self.pieces
            .sort_unstable_by_key(|&(owner, start, _)| (owner, start));
        for &(owner, start, end) in &self.pieces {
            self.ordered.extend_from_slice(&self.written[start..end]);
            let ordered_end = self.ordered.len();
            match self.runs.last_mut() {
                Some((last, run_end)) if *last == owner => *run_end = ordered_end,
                _ => self.runs.push((owner, ordered_end)),
            }
        }
    }

    /// Where the bytes of owners after `kept_through` start in `ordered`.
    fn split(&self, kept_through: Entity) -> usize {
        let kept_runs = self
            .runs
            .partition_point(|(owner, _)| *owner <= kept_through);
        kept_runs
            .checked_sub(1)
            .and_then(|last| self.runs.get(last))
            .map_or(0, |(_, end)| *end)
    }

    fn clear(&mut self) {
        self.written.clear();
        self.pieces.clear();
        self.ordered.clear();
        self.runs.clear();
    }
}

/// One cell's band streams.
#[derive(Debug)]
struct CellStreams {
    /// The cell's chunk column (a viewer gets nothing of a cell outside
    /// its chunk view, where valence spawned nothing).
    chunk: ChunkPos,
    bands: [BandStream; DISPLAY_BANDS],
    /// Bytes written per band since the budget last read them.
    counted_bytes: [u64; DISPLAY_BANDS],
    /// True when something was written this tick.
    written: bool,
}

/// The band streams of each cell (by the cell's layer) and the bytes
/// written to them since the budget last read them.
#[derive(Resource, Debug, Default)]
pub struct BandStreams {
    by_cell: HashMap<Entity, CellStreams>,
    /// True when something was written this tick.
    written: bool,
}

impl BandStreams {
    /// Whether `cell` is a cell's layer with band streams (if not, every
    /// viewer gets band 0 through the entity's own components).
    pub fn has(&self, cell: Entity) -> bool {
        self.by_cell.contains_key(&cell)
    }

    /// Records a new cell, in chunk column `chunk`.
    pub fn insert(&mut self, cell: Entity, chunk: ChunkPos) {
        self.by_cell.entry(cell).or_insert_with(|| CellStreams {
            chunk,
            bands: Default::default(),
            counted_bytes: [0; DISPLAY_BANDS],
            written: false,
        });
    }

    /// Forgets a retired cell.
    pub fn remove(&mut self, cell: Entity) {
        self.by_cell.remove(&cell);
    }

    /// Appends one encoded packet of `owner`'s playback for each band of
    /// `mask` of cell `cell`, and counts its bytes.
    pub fn write(&mut self, cell: Entity, owner: Entity, mask: BandMask, packet: &[u8]) {
        let Some(streams) = self.by_cell.get_mut(&cell) else {
            return;
        };
        for band in bands_of(mask) {
            streams.bands[band].append(owner, packet);
            streams.counted_bytes[band] += packet.len() as u64;
        }
        streams.written = true;
        self.written = true;
    }

    /// Puts this tick's packets in owner order, ready for
    /// [`BandStreams::send`]; false when nothing was written.
    pub fn seal(&mut self) -> bool {
        if !self.written {
            return false;
        }
        for streams in self.by_cell.values_mut().filter(|s| s.written) {
            for stream in &mut streams.bands {
                stream.seal();
            }
        }
        true
    }

    /// Writes what a viewer getting `cell` in `bands` is sent of this
    /// tick's sealed packets to `out`, if the cell is in `view`.
    pub fn send(
        &self,
        cell: Entity,
        bands: &CellBands,
        view: &ChunkView,
        out: &mut impl WritePacket,
    ) {
        let Some(streams) = self.by_cell.get(&cell) else {
            return;
        };
        if !streams.written || !view.contains(streams.chunk) {
            return;
        }
        let Some(rest) = streams.bands.get(bands.band) else {
            return;
        };
        match bands.kept_through {
            Some(last) if bands.kept_band != bands.band => {
                if let Some(kept) = streams.bands.get(bands.kept_band) {
                    write_nonempty(out, &kept.ordered[..kept.split(last)]);
                }
                write_nonempty(out, &rest.ordered[rest.split(last)..]);
            }
            _ => write_nonempty(out, &rest.ordered),
        }
    }

    /// Empties every stream for the next tick.
    pub fn clear(&mut self) {
        if std::mem::take(&mut self.written) {
            for streams in self.by_cell.values_mut() {
                if std::mem::take(&mut streams.written) {
                    streams.bands.iter_mut().for_each(BandStream::clear);
                }
            }
        }
    }

    /// The bytes counted per cell and band since the last call, and starts
    /// counting again.
    pub fn take_bytes(&mut self) -> HashMap<Entity, [u64; DISPLAY_BANDS]> {
        self.by_cell
            .iter_mut()
            .map(|(cell, streams)| (*cell, std::mem::take(&mut streams.counted_bytes)))
            .filter(|(_, bytes)| bytes.iter().any(|b| *b > 0))
            .collect()
    }
}

/// Writes `bytes` unless there are none (writing marks a client changed).
fn write_nonempty(out: &mut impl WritePacket, bytes: &[u8]) {
    if !bytes.is_empty() {
        out.write_packet_bytes(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects what is written.
    #[derive(Default)]
    struct Sink(Vec<u8>);

    impl WritePacket for Sink {
        fn write_packet_fallible<P>(&mut self, _: &P) -> anyhow::Result<()>
        where
            P: valence::protocol::Packet + valence::protocol::Encode,
        {
            Ok(())
        }

        fn write_packet_bytes(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
    }

    fn owner(index: u32) -> Entity {
        Entity::from_raw(index)
    }

    fn sent(streams: &BandStreams, cell: Entity, bands: CellBands) -> Vec<u8> {
        let mut sink = Sink::default();
        let view = ChunkView::new(ChunkPos::new(0, 0), 2);
        streams.send(cell, &bands, &view, &mut sink);
        sink.0
    }

    #[test]
    fn a_viewer_gets_its_kept_owners_in_one_band_and_the_rest_in_another() {
        let cell = Entity::from_raw(100);
        let mut streams = BandStreams::default();
        streams.insert(cell, ChunkPos::new(1, -1));
        // Written out of owner order; band 0 gets every packet, band 3
        // (mask 0b1000) one of its own per owner.
        for (who, fine) in [(3, b'c'), (1, b'a'), (2, b'b'), (1, b'A')] {
            streams.write(cell, owner(who), 0b0001, &[fine]);
            streams.write(cell, owner(who), 0b1000, &[fine + 10]);
        }
        assert!(streams.seal());
        // Everything in band 0: owner order, each owner's in write order.
        assert_eq!(sent(&streams, cell, CellBands::uniform(0)), b"aAbc");
        // Owners 1 and 2 kept in band 0, owner 3 in band 3.
        let split = CellBands {
            kept_band: 0,
            kept_through: Some(owner(2)),
            band: 3,
        };
        assert_eq!(sent(&streams, cell, split), b"aAbm");
        assert_eq!(split.band_of(owner(2)), 0);
        assert_eq!(split.band_of(owner(3)), 3);
        // Kept through an owner that wrote nothing this tick.
        let none_kept = CellBands {
            kept_through: Some(owner(0)),
            ..split
        };
        assert_eq!(sent(&streams, cell, none_kept), b"kKlm");
        // Bands with nothing written send nothing.
        assert!(sent(&streams, cell, CellBands::uniform(1)).is_empty());
        // Nor does a cell outside the viewer's chunk view.
        let mut sink = Sink::default();
        let far_view = ChunkView::new(ChunkPos::new(10, 0), 2);
        streams.send(cell, &CellBands::uniform(0), &far_view, &mut sink);
        assert!(sink.0.is_empty());
        // Counted per band; a cell that is not one gets nothing.
        let bytes = streams.take_bytes();
        assert_eq!(bytes[&cell], [4, 0, 0, 4]);
        streams.clear();
        assert!(!streams.seal(), "nothing written after clear");
        assert!(sent(&streams, cell, CellBands::uniform(0)).is_empty());
        streams.write(Entity::from_raw(7), owner(1), 1, b"x");
        assert!(streams.take_bytes().is_empty());
    }
}
