//! The player skin's layout: **the one table** that the shader, the item
//! models and a later preview all read, so that they cannot disagree.
//!
//! A 1.20.1 skin is a 64×64 texture. Each body part is a box of
//! `width × height × depth` pixels whose six faces are laid out in the
//! texture as a "net" starting at the part's origin `(u, v)`, once for the
//! base layer and once for the overlay (hat, jacket, sleeves, pants):
//!
//! ```text
//!            u    u+d     u+d+w   u+d+2w
//!       v    ┌────┬───────┬───────┐
//!            │    │  top  │bottom │            (w × d each)
//!     v+d    ├────┼───────┼───────┼──────────┐
//!            │right front │ left  │   back   │ (d × h, w × h, d × h, w × h)
//!   v+d+h    └────┴───────┴───────┴──────────┘
//!            u    u+d     u+d+w   u+2d+w    u+2d+2w
//! ```
//!
//! "Right" is the side of the player's right hand. This is the order in
//! which vanilla's `ModelPart.Cube` lays out every box, the player's limbs
//! and the skull alike, so a face of the skull corresponds to the same face
//! of a limb corner for corner.
//!
//! A **slice** is a part cut along its height to rows `[start, end)` of its
//! 12 (the head, 8 px tall, is never cut). Its four side faces keep only
//! those rows; its top and bottom caps stay whole (what hanhy06/emote
//! does too: a cap inside an elbow is rarely seen, and a 1-px row would be
//! a poor cap).
//!
//! Every slice the pack draws gets a small id **k**
//! ([`SliceId`](super::ids::SliceId), numbered in [`ids`](super::ids)):
//! the shader's part index and the item's `CustomModelData`. Classic and
//! slim arms are different slices (3 px wide instead of 4), so slim comes
//! from k, never from the skin's pixels.

use crate::format::node::BodyPart;

/// The width and height of a 1.20.1 skin texture, in pixels.
pub const SKIN_SIZE_PX: u8 = 64;

/// The height of the body, the arms and the legs, in pixels.
pub const LIMB_HEIGHT_PX: u8 = 12;

/// One of a skin's two layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// The inner layer.
    Base,
    /// The outer layer: hat, jacket, sleeves and pants.
    Overlay,
}

impl Layer {
    /// Both layers, base first (the order of the skull's two cubes).
    pub const ALL: [Layer; 2] = [Layer::Base, Layer::Overlay];
}

/// A face of a part's box.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Face {
    /// The top cap.
    Top,
    /// The bottom cap.
    Bottom,
    /// The side of the player's right hand.
    Right,
    /// The front.
    Front,
    /// The side of the player's left hand.
    Left,
    /// The back.
    Back,
}

impl Face {
    /// Every face, in the order the shader's tables use.
    pub const ALL: [Face; 6] = [
        Face::Top,
        Face::Bottom,
        Face::Right,
        Face::Front,
        Face::Left,
        Face::Back,
    ];

    /// True for the four faces that run along the part's height.
    pub fn is_side(self) -> bool {
        !matches!(self, Face::Top | Face::Bottom)
    }
}

/// A rectangle of the skin texture, in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rect {
    /// Left edge.
    pub x_px: u8,
    /// Top edge.
    pub y_px: u8,
    /// Width.
    pub width_px: u8,
    /// Height.
    pub height_px: u8,
}

impl Rect {
    /// One past the right edge.
    pub fn right_px(&self) -> u16 {
        u16::from(self.x_px) + u16::from(self.width_px)
    }

    /// One past the bottom edge.
    pub fn bottom_px(&self) -> u16 {
        u16::from(self.y_px) + u16::from(self.height_px)
    }

    /// True when `other` lies wholly inside this rectangle.
    pub fn contains(&self, other: &Rect) -> bool {
        other.x_px >= self.x_px
            && other.y_px >= self.y_px
            && other.right_px() <= self.right_px()
            && other.bottom_px() <= self.bottom_px()
    }

    /// True when the two rectangles share at least one pixel.
    pub fn overlaps(&self, other: &Rect) -> bool {
        u16::from(self.x_px) < other.right_px()
            && u16::from(other.x_px) < self.right_px()
            && u16::from(self.y_px) < other.bottom_px()
            && u16::from(other.y_px) < self.bottom_px()
    }
}

/// A part's box, in skin pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoxSize {
    /// Left to right.
    pub width_px: u8,
    /// Top to bottom.
    pub height_px: u8,
    /// Front to back.
    pub depth_px: u8,
}

/// Where one part (classic or slim) lies in the skin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartLayout {
    /// The part.
    pub part: BodyPart,
    /// True for the 3-px slim arm (false for every other part).
    pub slim: bool,
    /// Its box.
    pub size: BoxSize,
    /// The corner of its base-layer net.
    pub base_origin_px: (u8, u8),
    /// The corner of its overlay-layer net.
    pub overlay_origin_px: (u8, u8),
}

const fn layout(
    part: BodyPart,
    slim: bool,
    (width_px, height_px, depth_px): (u8, u8, u8),
    base_origin_px: (u8, u8),
    overlay_origin_px: (u8, u8),
) -> PartLayout {
    PartLayout {
        part,
        slim,
        size: BoxSize {
            width_px,
            height_px,
            depth_px,
        },
        base_origin_px,
        overlay_origin_px,
    }
}

/// The table: the standard 64×64 skin layout, every part with its classic
/// and (arms only) slim box. The first six rows are also slice ids 0 to 5
/// and the slim arms ids 6 and 7, in this order.
const LAYOUTS: [PartLayout; 8] = [
    layout(BodyPart::Head, false, (8, 8, 8), (0, 0), (32, 0)),
    layout(BodyPart::Body, false, (8, 12, 4), (16, 16), (16, 32)),
    layout(BodyPart::RightArm, false, (4, 12, 4), (40, 16), (40, 32)),
    layout(BodyPart::LeftArm, false, (4, 12, 4), (32, 48), (48, 48)),
    layout(BodyPart::RightLeg, false, (4, 12, 4), (0, 16), (0, 32)),
    layout(BodyPart::LeftLeg, false, (4, 12, 4), (16, 48), (0, 48)),
    layout(BodyPart::RightArm, true, (3, 12, 4), (40, 16), (40, 32)),
    layout(BodyPart::LeftArm, true, (3, 12, 4), (32, 48), (48, 48)),
];

/// Every part layout in the table, whole parts first, then the slim arms.
pub fn part_layouts() -> &'static [PartLayout] {
    &LAYOUTS
}

/// True for the parts that have a slim variant (the arms).
pub fn has_slim_variant(part: BodyPart) -> bool {
    matches!(part, BodyPart::LeftArm | BodyPart::RightArm)
}

/// The layout of `part`; `slim` counts for the arms only.
pub fn part_layout(part: BodyPart, slim: bool) -> &'static PartLayout {
    let slim = slim && has_slim_variant(part);
    // Every (part, slim) pair has a row, so the fallback is never taken.
    LAYOUTS
        .iter()
        .find(|l| l.part == part && l.slim == slim)
        .unwrap_or(&LAYOUTS[0])
}

impl PartLayout {
    /// The corner of this layer's net.
    pub fn origin_px(&self, layer: Layer) -> (u8, u8) {
        match layer {
            Layer::Base => self.base_origin_px,
            Layer::Overlay => self.overlay_origin_px,
        }
    }

    /// This layer's net origin and the box size: `(u, v, width, height,
    /// depth)` in pixels.
    fn net_px(&self, layer: Layer) -> (u8, u8, u8, u8, u8) {
        let (u, v) = self.origin_px(layer);
        let BoxSize {
            width_px,
            height_px,
            depth_px,
        } = self.size;
        (u, v, width_px, height_px, depth_px)
    }

    /// The bounding box of this layer's net (faces and the unused corners).
    pub fn region(&self, layer: Layer) -> Rect {
        let (u, v, w, h, d) = self.net_px(layer);
        Rect {
            x_px: u,
            y_px: v,
            width_px: 2 * (w + d),
            height_px: d + h,
        }
    }

    /// One face of this layer, keeping only `rows` of the side faces.
    pub fn face_rect(&self, layer: Layer, face: Face, rows: Rows) -> Rect {
        let (u, v, w, h, d) = self.net_px(layer);
        let rect = |x_px, y_px, width_px, height_px| Rect {
            x_px,
            y_px,
            width_px,
            height_px,
        };
        // Rows past the box (a slice of another part) are clamped to it.
        let end = rows.end_px.min(h);
        let start = rows.start_px.min(end.saturating_sub(1));
        let side_y = v + d + start;
        let side_h = end - start;
        match face {
            Face::Top => rect(u + d, v, w, d),
            Face::Bottom => rect(u + d + w, v, w, d),
            Face::Right => rect(u, side_y, d, side_h),
            Face::Front => rect(u + d, side_y, w, side_h),
            Face::Left => rect(u + d + w, side_y, d, side_h),
            Face::Back => rect(u + 2 * d + w, side_y, w, side_h),
        }
    }
}

/// Rows `[start_px, end_px)` of a part's height, counted from its top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rows {
    start_px: u8,
    end_px: u8,
}

impl Rows {
    /// Rows `[start_px, end_px)`; `None` unless `start_px < end_px`.
    pub fn new(start_px: u8, end_px: u8) -> Option<Rows> {
        (start_px < end_px).then_some(Rows { start_px, end_px })
    }

    /// The first row.
    pub fn start_px(&self) -> u8 {
        self.start_px
    }

    /// One past the last row.
    pub fn end_px(&self) -> u8 {
        self.end_px
    }

    /// How many rows.
    pub fn height_px(&self) -> u8 {
        self.end_px - self.start_px
    }
}

/// What can be wrong with a slice.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SliceError {
    /// The rows do not fit the part.
    #[error(
        "rows {start_px}..{end_px} do not fit the {height_px}-px {part:?}: a slice lies within 0..{height_px}"
    )]
    RowsOutOfRange {
        /// The part.
        part: BodyPart,
        /// The first row asked for.
        start_px: u8,
        /// One past the last row asked for.
        end_px: u8,
        /// The part's height.
        height_px: u8,
    },
    /// The head was asked to be cut.
    #[error("the head is never cut: bind one node to it, or use rows 0..8")]
    HeadIsNeverCut,
}

/// A part cut to some of its rows, classic or slim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slice {
    part: BodyPart,
    rows: Rows,
    slim: bool,
}

impl Slice {
    /// The whole part (`slim` counts for the arms only).
    pub fn full(part: BodyPart, slim: bool) -> Slice {
        let layout = part_layout(part, slim);
        Slice {
            part,
            rows: Rows {
                start_px: 0,
                end_px: layout.size.height_px,
            },
            slim: layout.slim,
        }
    }

    /// The part cut to `rows` (`slim` counts for the arms only).
    pub fn new(part: BodyPart, rows: Rows, slim: bool) -> Result<Slice, SliceError> {
        let full = Slice::full(part, slim);
        if rows == full.rows {
            return Ok(full);
        }
        if part == BodyPart::Head {
            return Err(SliceError::HeadIsNeverCut);
        }
        if rows.end_px > full.rows.end_px {
            return Err(SliceError::RowsOutOfRange {
                part,
                start_px: rows.start_px,
                end_px: rows.end_px,
                height_px: full.rows.end_px,
            });
        }
        Ok(Slice { rows, ..full })
    }

    /// The body part.
    pub fn part(&self) -> BodyPart {
        self.part
    }

    /// The rows it shows.
    pub fn rows(&self) -> Rows {
        self.rows
    }

    /// True for a slim arm.
    pub fn slim(&self) -> bool {
        self.slim
    }

    /// True when it shows the whole part.
    pub fn is_full(&self) -> bool {
        *self == Slice::full(self.part, self.slim)
    }

    /// The same rows, classic width.
    pub fn classic(&self) -> Slice {
        Slice {
            slim: false,
            ..*self
        }
    }

    /// The same rows of the other arm width (itself for other parts).
    pub fn other_width(&self) -> Slice {
        Slice {
            slim: !self.slim && has_slim_variant(self.part),
            ..*self
        }
    }

    /// Its part's layout.
    pub fn layout(&self) -> &'static PartLayout {
        part_layout(self.part, self.slim)
    }

    /// One face of one layer, as the shader draws it.
    pub fn face_rect(&self, layer: Layer, face: Face) -> Rect {
        self.layout().face_rect(layer, face, self.rows)
    }

    /// A name for files and logs: `right_arm`, `body_0_6`, `left_arm_6_12_slim`.
    pub fn name(&self) -> String {
        let mut name = part_name(self.part).to_owned();
        if !self.is_full() {
            name.push_str(&format!("_{}_{}", self.rows.start_px, self.rows.end_px));
        }
        if self.slim {
            name.push_str("_slim");
        }
        name
    }
}

/// The part's name as files write it.
pub fn part_name(part: BodyPart) -> &'static str {
    match part {
        BodyPart::Head => "head",
        BodyPart::Body => "body",
        BodyPart::LeftArm => "left_arm",
        BodyPart::RightArm => "right_arm",
        BodyPart::LeftLeg => "left_leg",
        BodyPart::RightLeg => "right_leg",
    }
}

/// Slices the tests of the pack's modules share.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// Every body part, the head first.
    pub(crate) const PARTS: [BodyPart; 6] = [
        BodyPart::Head,
        BodyPart::Body,
        BodyPart::RightArm,
        BodyPart::LeftArm,
        BodyPart::RightLeg,
        BodyPart::LeftLeg,
    ];

    /// Rows `[start, end)`, which the caller knows are valid.
    pub(crate) fn rows(start: u8, end: u8) -> Rows {
        Rows::new(start, end).expect("rows")
    }

    /// Every cut of every limb and of the body (the head is never cut),
    /// classic and slim.
    pub(crate) fn every_cut() -> Vec<Slice> {
        let mut out = Vec::new();
        for part in PARTS.into_iter().filter(|p| *p != BodyPart::Head) {
            for slim in [false, true] {
                for start in 0..LIMB_HEIGHT_PX {
                    for end in start + 1..=LIMB_HEIGHT_PX {
                        out.push(Slice::new(part, rows(start, end), slim).expect("fits"));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skin() -> Rect {
        Rect {
            x_px: 0,
            y_px: 0,
            width_px: SKIN_SIZE_PX,
            height_px: SKIN_SIZE_PX,
        }
    }

    use super::testing::{self, rows, PARTS};

    /// Every slice of every part: whole, and every cut of the limbs.
    fn every_slice() -> Vec<Slice> {
        let mut out = Vec::new();
        for part in PARTS {
            for slim in [false, true] {
                out.push(Slice::full(part, slim));
            }
        }
        out.extend(testing::every_cut());
        out
    }

    #[test]
    fn whole_parts_have_the_standard_sizes_and_origins() {
        let head = part_layout(BodyPart::Head, false);
        assert_eq!((head.size.width_px, head.size.height_px), (8, 8));
        assert_eq!(head.overlay_origin_px, (32, 0));
        let arm = part_layout(BodyPart::RightArm, false);
        assert_eq!(arm.size.width_px, 4);
        assert_eq!(arm.base_origin_px, (40, 16));
        assert_eq!(part_layout(BodyPart::RightArm, true).size.width_px, 3);
        assert_eq!(
            part_layout(BodyPart::LeftArm, false).overlay_origin_px,
            (48, 48)
        );
        // Slim means nothing for a leg.
        assert_eq!(
            part_layout(BodyPart::LeftLeg, true),
            part_layout(BodyPart::LeftLeg, false)
        );
        let body = Slice::full(BodyPart::Body, false);
        assert_eq!(
            body.face_rect(Layer::Base, Face::Front),
            Rect {
                x_px: 20,
                y_px: 20,
                width_px: 8,
                height_px: 12
            }
        );
    }

    #[test]
    fn every_rect_lies_inside_the_skin_and_its_part() {
        for slice in every_slice() {
            for layer in Layer::ALL {
                let region = slice.layout().region(layer);
                assert!(skin().contains(&region), "{slice:?} {layer:?}");
                for face in Face::ALL {
                    let rect = slice.face_rect(layer, face);
                    assert!(
                        rect.width_px > 0 && rect.height_px > 0,
                        "{slice:?} {face:?}"
                    );
                    assert!(region.contains(&rect), "{slice:?} {layer:?} {face:?}");
                }
            }
        }
    }

    #[test]
    fn part_regions_do_not_overlap() {
        let regions: Vec<(String, Rect)> = LAYOUTS[..6]
            .iter()
            .flat_map(|l| {
                Layer::ALL.map(|layer| (format!("{:?} {layer:?}", l.part), l.region(layer)))
            })
            .collect();
        for (i, (a, ra)) in regions.iter().enumerate() {
            for (b, rb) in &regions[i + 1..] {
                assert!(!ra.overlaps(rb), "{a} overlaps {b}");
            }
        }
    }

    #[test]
    fn a_slice_keeps_its_rows_of_the_sides_and_whole_caps() {
        let slice = Slice::new(BodyPart::RightLeg, rows(4, 12), false).expect("fits");
        let whole = Slice::full(BodyPart::RightLeg, false);
        for face in Face::ALL {
            let (cut, full) = (
                slice.face_rect(Layer::Overlay, face),
                whole.face_rect(Layer::Overlay, face),
            );
            if face.is_side() {
                assert_eq!((cut.y_px, cut.height_px), (full.y_px + 4, 8), "{face:?}");
                assert_eq!((cut.x_px, cut.width_px), (full.x_px, full.width_px));
            } else {
                assert_eq!(cut, full, "{face:?}");
            }
        }
    }

    #[test]
    fn slices_of_a_part_cover_its_rows_exactly_once() {
        for part in &PARTS[1..] {
            let cuts = [rows(0, 3), rows(3, 4), rows(4, 12)];
            let mut hits = [0u8; LIMB_HEIGHT_PX as usize];
            for r in cuts {
                let slice = Slice::new(*part, r, false).expect("fits");
                let front = slice.face_rect(Layer::Base, Face::Front);
                let top = part_layout(*part, false)
                    .face_rect(Layer::Base, Face::Front, rows(0, 12))
                    .y_px;
                for y in front.y_px..front.y_px + front.height_px {
                    hits[usize::from(y - top)] += 1;
                }
            }
            assert_eq!(hits, [1; 12], "{part:?}");
        }
    }

    #[test]
    fn bad_slices_are_refused() {
        assert_eq!(
            Slice::new(BodyPart::Head, rows(0, 4), false),
            Err(SliceError::HeadIsNeverCut)
        );
        assert!(Slice::new(BodyPart::Head, rows(0, 8), false).is_ok_and(|s| s.is_full()));
        assert!(matches!(
            Slice::new(BodyPart::Body, rows(6, 13), false),
            Err(SliceError::RowsOutOfRange { height_px: 12, .. })
        ));
        assert_eq!(Rows::new(3, 3), None);
        assert_eq!(
            Slice::new(BodyPart::Body, rows(0, 6), true).map(|s| s.slim()),
            Ok(false)
        );
    }
}
