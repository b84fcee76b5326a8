//! Slice ids: the small number **k** that names a slice to the shader (the
//! display is moved `512·k` blocks down) and to the item models (its
//! `CustomModelData` is [`CUSTOM_MODEL_DATA_BASE`] + k).
//!
//! Ids 0 to 7 are the whole parts and never change; the cut slices the
//! loaded emotes need get the ids after them ([`SliceTable`]). A fixed id
//! for every possible cut would not fit: a 12-row part has 78 row ranges,
//! about 550 slices in all, and 512·550 blocks is far past where a float
//! keeps a vertex within a few hundredths of a pixel.

use std::collections::BTreeSet;

use super::skin_uv::{has_slim_variant, part_layouts, Slice};

/// How far down (in blocks) a display is moved per slice id, so that the
/// shader can tell which slice a skull shows.
pub const SLICE_SPACING_BLOCKS: f32 = 512.0;

/// The largest view range a pack-drawn twin is sent with, whatever its
/// file says.
///
/// The shader reads a slice id from the vertex's height below the camera,
/// rounded to a multiple of [`SLICE_SPACING_BLOCKS`]: a twin drawn 256
/// blocks or more above or below the camera would read as the next id.
/// A 1.20.1 client draws a display up to `view_range · 64 · s` blocks
/// away, `s` its entity distance setting (50 % to 500 %): at 5 and 0.78
/// that is 249.6 blocks, which leaves 6 blocks for the part's offset from
/// the display's position (a rig's translation) within the window. Files
/// keep their own view range below it.
pub const TWIN_MAX_VIEW_RANGE: f32 = 0.78;

/// How many slice ids there are at most. `512 · 47` blocks is about 24,000:
/// beyond that a 32-bit float loses more than a few hundredths of a pixel
/// when the shader moves the vertex back.
pub const MAX_SLICE_IDS: usize = 48;

/// The `CustomModelData` of slice 0; slice k uses this plus k. It is
/// `0x454D00` ("EM" and a zero byte): far from the small numbers other packs
/// use, and below 2^24, so the client's float comparison of the predicate
/// is exact.
pub const CUSTOM_MODEL_DATA_BASE: i32 = 0x45_4D00;

/// A slice's id k: the shader's part index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SliceId(u8);

impl SliceId {
    /// The number k.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The item's `CustomModelData` that selects this slice's model.
    pub fn custom_model_data(self) -> i32 {
        CUSTOM_MODEL_DATA_BASE + i32::from(self.0)
    }

    /// How far down the display is moved: `512 · k` blocks.
    pub fn offset_blocks(self) -> f32 {
        SLICE_SPACING_BLOCKS * f32::from(self.0)
    }
}

/// The ids of the slices one pack draws.
///
/// Ids 0 to 7 are always the whole parts, in the table's order: 0 head,
/// 1 body, 2 right arm, 3 left arm, 4 right leg, 5 left leg, 6 slim right
/// arm, 7 slim left arm. The cut slices come next, sorted by part, rows and
/// width, an arm's classic and slim slices side by side (which one a player
/// gets is known only when they play). At most [`MAX_SLICE_IDS`] ids fit;
/// the cut slices that do not are [`left_out`](SliceTable::left_out) (a
/// display that needs one can show the whole part instead).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceTable {
    slices: Vec<Slice>,
    left_out: Vec<Slice>,
}

impl Default for SliceTable {
    fn default() -> Self {
        SliceTable::new([])
    }
}

impl SliceTable {
    /// The table for the whole parts plus the `needed` cut slices.
    pub fn new(needed: impl IntoIterator<Item = Slice>) -> SliceTable {
        let mut slices: Vec<Slice> = part_layouts()
            .iter()
            .map(|l| Slice::full(l.part, l.slim))
            .collect();
        let cut: BTreeSet<Slice> = needed
            .into_iter()
            .filter(|s| !s.is_full())
            .map(|s| s.classic())
            .collect();
        let mut left_out = Vec::new();
        for slice in cut {
            let variants: &[Slice] = if has_slim_variant(slice.part()) {
                &[slice, slice.other_width()]
            } else {
                &[slice]
            };
            if slices.len() + variants.len() <= MAX_SLICE_IDS {
                slices.extend_from_slice(variants);
            } else {
                left_out.extend_from_slice(variants);
            }
        }
        SliceTable { slices, left_out }
    }

    /// The id of `slice`, if this table draws it.
    pub fn id(&self, slice: Slice) -> Option<SliceId> {
        self.slices
            .iter()
            .position(|s| *s == slice)
            .and_then(|k| u8::try_from(k).ok())
            .map(SliceId)
    }

    /// The slice with id `id`.
    pub fn slice(&self, id: SliceId) -> Option<Slice> {
        self.slices.get(usize::from(id.0)).copied()
    }

    /// Every id and its slice, by id.
    pub fn iter(&self) -> impl Iterator<Item = (SliceId, Slice)> + '_ {
        // `new` keeps at most MAX_SLICE_IDS (48) slices, so k fits in a u8.
        self.slices
            .iter()
            .enumerate()
            .map(|(k, s)| (SliceId(k as u8), *s))
    }

    /// How many ids there are.
    pub fn len(&self) -> usize {
        self.slices.len()
    }

    /// Never true: the whole parts are always there.
    pub fn is_empty(&self) -> bool {
        self.slices.is_empty()
    }

    /// Needed cut slices that did not fit in [`MAX_SLICE_IDS`].
    pub fn left_out(&self) -> &[Slice] {
        &self.left_out
    }

    /// One line per [left out](SliceTable::left_out) slice, for the log
    /// or the terminal.
    pub fn left_out_warnings(&self) -> impl Iterator<Item = String> + '_ {
        self.left_out.iter().map(|slice| {
            format!(
                "no slice id left for {} (at most {MAX_SLICE_IDS}): it shows the whole part",
                slice.name()
            )
        })
    }
}

/// Tables the tests of the pack's modules share.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::format::node::BodyPart;
    use crate::pack::skin_uv::testing::rows;

    /// The table of the whole parts and one cut of `part`: rows
    /// `[start, end)`, classic.
    pub(crate) fn one_cut_table(part: BodyPart, start: u8, end: u8) -> SliceTable {
        SliceTable::new([Slice::new(part, rows(start, end), false).expect("fits")])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::node::BodyPart;
    use crate::pack::skin_uv::testing::{every_cut, rows};

    #[test]
    fn whole_parts_keep_ids_0_to_7_and_cut_arms_come_in_pairs() {
        let cut_arm = Slice::new(BodyPart::LeftArm, rows(0, 6), true).expect("fits");
        let cut_body = Slice::new(BodyPart::Body, rows(6, 12), false).expect("fits");
        let table = SliceTable::new([cut_arm, cut_body, cut_body]);
        let names: Vec<String> = table.iter().map(|(_, s)| s.name()).collect();
        assert_eq!(
            names,
            [
                "head",
                "body",
                "right_arm",
                "left_arm",
                "right_leg",
                "left_leg",
                "right_arm_slim",
                "left_arm_slim",
                "body_6_12",
                "left_arm_0_6",
                "left_arm_0_6_slim",
            ]
        );
        let id = table.id(cut_arm).expect("drawn");
        assert_eq!(id.index(), 10);
        assert_eq!(table.slice(id), Some(cut_arm));
        assert_eq!(id.custom_model_data(), 0x45_4D0A);
        assert_eq!(id.offset_blocks(), 5120.0);
        assert_eq!(SliceTable::default().len(), 8);
        assert!(table.left_out().is_empty());
    }

    #[test]
    fn the_table_stops_at_the_id_limit() {
        let table = SliceTable::new(every_cut());
        assert_eq!(table.len(), MAX_SLICE_IDS);
        assert!(!table.left_out().is_empty());
        // Nothing is both drawn and left out, and no arm loses its twin.
        for (_, slice) in table.iter() {
            assert!(!table.left_out().contains(&slice));
            assert!(table.id(slice.other_width()).is_some(), "{slice:?}");
        }
        // One warning per slice left out, naming it.
        let warnings: Vec<String> = table.left_out_warnings().collect();
        assert_eq!(warnings.len(), table.left_out().len());
        for (warning, slice) in warnings.iter().zip(table.left_out()) {
            assert!(warning.contains(&slice.name()), "{warning}");
        }
    }
}
