//! The band layers of the culling cells, shared between the module that
//! makes them ([`crate::server::cull`]) and the one that writes display
//! updates into them ([`crate::server::emote`]).
//!
//! A cell's displays live in the cell's entity layer, which spawns and
//! despawns them and carries everything but their transformation. Each
//! cell also has one entity layer per distance band
//! ([`crate::playback::schedule::bands`]), holding no entity: a
//! playback's updates for band `k` are encoded once and written to the
//! band `k` layer of the display's cell, and a viewer sees exactly one
//! band layer of each cell it sees. The bytes written to each band layer
//! are counted here for the byte budget.

use std::collections::HashMap;

use valence::prelude::*;

use crate::playback::schedule::{bands_of, BandMask, DISPLAY_BANDS};

/// The band layers of each cell (by the cell's layer) and the bytes written
/// to them since the budget last read them.
#[derive(Resource, Debug, Default)]
pub struct BandLayers {
    by_cell: HashMap<Entity, [Entity; DISPLAY_BANDS]>,
    bytes: HashMap<Entity, [u64; DISPLAY_BANDS]>,
}

impl BandLayers {
    /// The band layers of the cell whose layer is `cell`, finest first
    /// (`None`: not a cell, so every viewer gets band 0).
    pub fn of(&self, cell: Entity) -> Option<[Entity; DISPLAY_BANDS]> {
        self.by_cell.get(&cell).copied()
    }

    /// Records a new cell's band layers.
    pub fn insert(&mut self, cell: Entity, bands: [Entity; DISPLAY_BANDS]) {
        self.by_cell.insert(cell, bands);
    }

    /// Forgets a retired cell; its band layers, to despawn.
    pub fn remove(&mut self, cell: Entity) -> Option<[Entity; DISPLAY_BANDS]> {
        self.bytes.remove(&cell);
        self.by_cell.remove(&cell)
    }

    /// Counts `bytes` written to each band of `mask` of cell `cell`.
    pub fn count(&mut self, cell: Entity, mask: BandMask, bytes: usize) {
        let slots = self.bytes.entry(cell).or_default();
        for band in bands_of(mask) {
            slots[band] += bytes as u64;
        }
    }

    /// The bytes counted per cell and band since the last call, and starts
    /// counting again.
    pub fn take_bytes(&mut self) -> HashMap<Entity, [u64; DISPLAY_BANDS]> {
        std::mem::take(&mut self.bytes)
    }
}
