//! Small Minecraft worlds written by the tests themselves, in the format
//! Minecraft 1.20.1 saves: `level.dat` (gzip-compressed NBT) and region
//! files in the Anvil format.
//!
//! A region file `r.X.Z.mca` holds 32 × 32 chunks. It starts with an
//! 8 KiB header: 1,024 big-endian locations (a 3-byte offset in 4 KiB
//! sectors and a 1-byte sector count; 0 for a chunk that is not there),
//! then 1,024 timestamps. Each chunk starts at its sector: a 4-byte
//! big-endian length (of what follows), a compression byte (2 = zlib) and
//! the compressed NBT, padded to whole sectors.
//!
//! A chunk is the 1.18+ compound: `DataVersion`, `xPos`, `zPos`, `yPos`
//! (-4: the overworld's 24 sections start at y = -64), `Status`, and
//! `sections`, each with its `Y`, `block_states` (a `palette` of block
//! compounds, and `data`: the palette indices packed in longs, at least 4
//! bits each, never split across two longs, in y, z, x order) and `biomes`
//! (here one biome, so a palette alone).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::Path;

use flate2::write::{GzEncoder, ZlibEncoder};
use flate2::Compression;
use valence_nbt::{Compound, List, Value};

/// The data version of Minecraft 1.20.1.
pub const DATA_VERSION_1_20_1: i32 = 3465;
const SECTOR_BYTES: usize = 4096;
/// The overworld's sections: y = -64 to 319.
const SECTIONS: std::ops::RangeInclusive<i32> = -4..=19;

/// A world to write: blocks by position (everything else air), and a spawn.
#[derive(Default)]
pub struct TestWorld {
    blocks: BTreeMap<[i32; 3], String>,
    spawn: [i32; 3],
}

impl TestWorld {
    /// An empty world with its spawn block at `spawn`.
    pub fn new(spawn: [i32; 3]) -> TestWorld {
        TestWorld {
            blocks: BTreeMap::new(),
            spawn,
        }
    }

    /// Puts `block` ("minecraft:gold_block") at `[x, y, z]`.
    pub fn set(&mut self, at: [i32; 3], block: &str) -> &mut TestWorld {
        self.blocks.insert(at, block.to_owned());
        self
    }

    /// Fills the box from `from` to `to` (both included) with `block`.
    pub fn fill(&mut self, from: [i32; 3], to: [i32; 3], block: &str) -> &mut TestWorld {
        for x in from[0]..=to[0] {
            for y in from[1]..=to[1] {
                for z in from[2]..=to[2] {
                    self.set([x, y, z], block);
                }
            }
        }
        self
    }

    /// Writes `level.dat` and one region file for every region with a
    /// block in `folder` (made when missing). Only chunks with a block are
    /// in their region file; the others are left out, as ungenerated.
    pub fn write(&self, folder: &Path) {
        fs::create_dir_all(folder.join("region")).expect("make the world's folders");
        fs::write(folder.join("level.dat"), level_dat(self.spawn)).expect("write level.dat");
        let mut regions: BTreeMap<[i32; 2], BTreeSet<[i32; 2]>> = BTreeMap::new();
        for [x, _, z] in self.blocks.keys() {
            let chunk = [x.div_euclid(16), z.div_euclid(16)];
            regions
                .entry([chunk[0].div_euclid(32), chunk[1].div_euclid(32)])
                .or_default()
                .insert(chunk);
        }
        for ([rx, rz], chunks) in regions {
            let chunks: Vec<([i32; 2], Vec<u8>)> = chunks
                .into_iter()
                .map(|chunk| (chunk, self.chunk_nbt(chunk)))
                .collect();
            let path = folder.join("region").join(format!("r.{rx}.{rz}.mca"));
            fs::write(path, region_file(&chunks)).expect("write a region file");
        }
    }

    /// The uncompressed NBT of one chunk.
    fn chunk_nbt(&self, [cx, cz]: [i32; 2]) -> Vec<u8> {
        let mut sections = Vec::new();
        for sy in SECTIONS {
            let mut indices = vec![0_usize; 4096];
            let mut palette = vec!["minecraft:air".to_owned()];
            for x in 0..16 {
                for y in 0..16 {
                    for z in 0..16 {
                        let at = [cx * 16 + x, sy * 16 + y, cz * 16 + z];
                        let Some(block) = self.blocks.get(&at) else {
                            continue;
                        };
                        let index = match palette.iter().position(|b| b == block) {
                            Some(index) => index,
                            None => {
                                palette.push(block.clone());
                                palette.len() - 1
                            }
                        };
                        indices[(y * 256 + z * 16 + x) as usize] = index;
                    }
                }
            }
            sections.push(section(sy, &palette, &indices));
        }
        let mut chunk = Compound::new();
        chunk.insert("DataVersion", DATA_VERSION_1_20_1);
        chunk.insert("xPos", cx);
        chunk.insert("zPos", cz);
        chunk.insert("yPos", *SECTIONS.start());
        chunk.insert("Status", "minecraft:full");
        chunk.insert("LastUpdate", 0_i64);
        chunk.insert("InhabitedTime", 0_i64);
        chunk.insert("sections", Value::List(List::Compound(sections)));
        chunk.insert("block_entities", Value::List(List::End));
        chunk.insert("Heightmaps", Value::Compound(Compound::new()));
        let mut bytes = Vec::new();
        chunk.to_binary(&mut bytes, "").expect("encode a chunk");
        bytes
    }
}

/// One section: its palette and, for more than one block, the packed
/// indices; plains everywhere.
fn section(y: i32, palette: &[String], indices: &[usize]) -> Compound {
    let mut block_states = Compound::new();
    let entries = palette
        .iter()
        .map(|name| {
            let mut entry = Compound::new();
            entry.insert("Name", name.as_str());
            entry
        })
        .collect();
    block_states.insert("palette", Value::List(List::Compound(entries)));
    if palette.len() > 1 {
        block_states.insert("data", Value::LongArray(pack(indices, palette.len())));
    }
    let mut biomes = Compound::new();
    biomes.insert(
        "palette",
        Value::List(List::String(vec!["minecraft:plains".to_owned()])),
    );
    let mut section = Compound::new();
    section.insert("Y", Value::Byte(y as i8));
    section.insert("block_states", Value::Compound(block_states));
    section.insert("biomes", Value::Compound(biomes));
    section
}

/// Palette indices packed as 1.16+ saves them: `bits` (at least 4) per
/// index, `64 / bits` in each long from its low bits up, none split.
fn pack(indices: &[usize], palette_len: usize) -> Vec<i64> {
    let bits = (usize::BITS - (palette_len - 1).leading_zeros()).max(4) as usize;
    let per_long = 64 / bits;
    indices
        .chunks(per_long)
        .map(|run| {
            let mut long = 0_u64;
            for (i, index) in run.iter().enumerate() {
                long |= (*index as u64) << (i * bits);
            }
            long as i64
        })
        .collect()
}

/// A region file holding these chunks (positions in chunks, each NBT
/// uncompressed), zlib-compressed, in order from sector 2.
fn region_file(chunks: &[([i32; 2], Vec<u8>)]) -> Vec<u8> {
    let mut header = vec![0_u8; 2 * SECTOR_BYTES];
    let mut body = Vec::new();
    for ([cx, cz], nbt) in chunks {
        let mut zlib = ZlibEncoder::new(Vec::new(), Compression::default());
        zlib.write_all(nbt).expect("compress a chunk");
        let compressed = zlib.finish().expect("compress a chunk");
        let mut data = Vec::new();
        data.extend_from_slice(&(compressed.len() as u32 + 1).to_be_bytes());
        data.push(2); // zlib
        data.extend_from_slice(&compressed);
        let sectors = data.len().div_ceil(SECTOR_BYTES);
        data.resize(sectors * SECTOR_BYTES, 0);
        let offset = 2 + body.len() / SECTOR_BYTES;
        let index = (cx.rem_euclid(32) + cz.rem_euclid(32) * 32) as usize * 4;
        let location = ((offset as u32) << 8) | sectors as u32;
        header[index..index + 4].copy_from_slice(&location.to_be_bytes());
        let timestamp = 1_700_000_000_u32.to_be_bytes();
        header[SECTOR_BYTES + index..SECTOR_BYTES + index + 4].copy_from_slice(&timestamp);
        body.extend_from_slice(&data);
    }
    header.extend_from_slice(&body);
    header
}

/// A 1.20.1 `level.dat` with its spawn at `spawn`: gzip-compressed NBT.
pub fn level_dat(spawn: [i32; 3]) -> Vec<u8> {
    let mut data = Compound::new();
    data.insert("SpawnX", spawn[0]);
    data.insert("SpawnY", spawn[1]);
    data.insert("SpawnZ", spawn[2]);
    data.insert("SpawnAngle", 0.0_f32);
    data.insert("DataVersion", DATA_VERSION_1_20_1);
    data.insert("LevelName", "emoted test world");
    data.insert("version", 19133);
    let mut root = Compound::new();
    root.insert("Data", Value::Compound(data));
    let mut nbt = Vec::new();
    root.to_binary(&mut nbt, "").expect("encode level.dat");
    let mut gzip = GzEncoder::new(Vec::new(), Compression::default());
    gzip.write_all(&nbt).expect("gzip level.dat");
    gzip.finish().expect("gzip level.dat")
}

/// `length` bytes that are no region file: a fixed pseudo-random sequence,
/// so the header's locations point anywhere.
pub fn garbage(length: usize) -> Vec<u8> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    (0..length)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}
