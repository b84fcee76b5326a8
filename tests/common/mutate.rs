//! Byte mutations for the binary readers' mutation tests
//! (`tests/three_ds_mutations.rs`, `tests/gltf_mutations.rs`): a small
//! deterministic generator and one mutation step. Included with
//! `#[path = "common/mutate.rs"] mod mutate;`, so those tests do not pull
//! in the server helpers of `common/mod.rs`.

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `bytes`: flip a bit, insert, remove or overwrite a
/// byte, or write a little-endian `u32` there taken from
/// `lengths(bytes left from there)` (the lengths the format's own length
/// fields make interesting: zero, one past the end, all ones...).
pub fn mutate(bytes: &mut Vec<u8>, rng: &mut Rng, lengths: impl Fn(u32) -> Vec<u32>) {
    if bytes.is_empty() {
        bytes.push(rng.next() as u8);
        return;
    }
    let at = rng.below(bytes.len());
    match rng.below(5) {
        0 => bytes[at] ^= 1 << rng.below(8),
        1 => bytes.insert(at, rng.next() as u8),
        2 => {
            bytes.remove(at);
        }
        3 => bytes[at] = rng.next() as u8,
        _ => {
            let values = lengths((bytes.len() - at) as u32);
            let value = values[rng.below(values.len())].to_le_bytes();
            for (i, b) in value.iter().enumerate() {
                if let Some(slot) = bytes.get_mut(at + i) {
                    *slot = *b;
                }
            }
        }
    }
}
