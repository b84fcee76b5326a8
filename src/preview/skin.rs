//! The skin a preview wears: a PNG given with `--skin`, or emoted's own
//! stand-in.
//!
//! **The stand-in is not Mojang's Steve.** Mojang's texture is not part of
//! emoted; [`Skin::stand_in`] paints a 64×64 skin in Steve-like colours
//! through the skin table ([`skin_uv`](crate::pack::skin_uv)): a skin-tone
//! head with dark hair on top and at the back, eyes, nose and beard on the
//! front; a cyan shirt; arms with cyan sleeves over skin-tone forearms;
//! blue trousers and grey shoes. Every face of a part is tinted its own
//! way (the top lightest, then the front, the right side, the left side,
//! the back, the bottom darkest), so a picture shows which face is which.
//! Its overlay layer is clear.
//!
//! A loaded skin is 64×64, or a legacy 64×32 skin, converted as the game
//! converts one: the top half kept, the left arm and left leg made from
//! the right ones mirrored (each face flipped left to right, the right
//! and left sides swapped), and a hat layer without a single clear pixel
//! cleared. Every skin's base layer is made opaque, as the game does, so
//! only the overlay can be see-through.

use glam::Vec2;

use super::image::{shade, PngError, Rgba, RgbaImage};
use crate::format::node::BodyPart;
use crate::pack::skin_uv::{
    part_layout, part_layouts, Face, Layer, PartLayout, Rect, Rows, Slice, SKIN_SIZE_PX,
};

/// Why a PNG is not a skin.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SkinError {
    /// The bytes are not a PNG.
    #[error("not a PNG image ({source}); give a skin as a 64×64 PNG")]
    NotPng {
        /// What the PNG decoder said.
        source: PngError,
    },
    /// A PNG of another size.
    #[error(
        "the image is {width_px}×{height_px} px; a skin is 64×64 px (or a legacy 64×32 px one)"
    )]
    WrongSize {
        /// Its width.
        width_px: u32,
        /// Its height.
        height_px: u32,
    },
}

/// A 64×64 skin texture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skin {
    image: RgbaImage,
}

/// The stand-in's colours.
mod palette {
    use super::Rgba;
    pub(super) const SKIN: Rgba = [0xc6, 0x8e, 0x6f, 255];
    pub(super) const SKIN_SHADOW: Rgba = [0xa8, 0x72, 0x55, 255];
    pub(super) const HAIR: Rgba = [0x3b, 0x26, 0x14, 255];
    pub(super) const BEARD: Rgba = [0x5e, 0x3a, 0x22, 255];
    pub(super) const EYE_WHITE: Rgba = [0xf2, 0xf2, 0xf2, 255];
    pub(super) const EYE: Rgba = [0x4c, 0x3f, 0x9a, 255];
    pub(super) const SHIRT: Rgba = [0x00, 0xaa, 0xb0, 255];
    pub(super) const TROUSERS: Rgba = [0x3b, 0x3f, 0xa8, 255];
    pub(super) const SHOES: Rgba = [0x6e, 0x6e, 0x6e, 255];
}

/// How the stand-in tints each face.
fn face_tint(face: Face) -> f32 {
    match face {
        Face::Top => 1.12,
        Face::Front => 1.0,
        Face::Right => 0.92,
        Face::Left => 0.85,
        Face::Back => 0.78,
        Face::Bottom => 0.68,
    }
}

/// The stand-in's colour of a texel at `(column, row)` of one face of a
/// whole part (rows of the side faces count from the part's top).
fn stand_in_texel(part: BodyPart, face: Face, column: u8, row: u8) -> Rgba {
    use palette::*;
    match part {
        BodyPart::Head => match face {
            Face::Top => HAIR,
            Face::Bottom => SKIN_SHADOW,
            Face::Back => {
                if row < 7 {
                    HAIR
                } else {
                    SKIN
                }
            }
            Face::Right | Face::Left => {
                // Hair on top and toward the back.
                let toward_back = if face == Face::Right {
                    column < 3
                } else {
                    column > 4
                };
                if row < 2 || (row < 5 && toward_back) {
                    HAIR
                } else {
                    SKIN
                }
            }
            Face::Front => match (row, column) {
                (0 | 1, _) => HAIR,
                (4, 1 | 6) => EYE_WHITE,
                (4, 2 | 5) => EYE,
                (5, 3 | 4) => SKIN_SHADOW,
                (6, 2..=5) | (7, 3 | 4) => BEARD,
                _ => SKIN,
            },
        },
        BodyPart::Body => match (face, row, column) {
            // A collar at the front.
            (Face::Front, 0, 3 | 4) => SKIN,
            _ => SHIRT,
        },
        BodyPart::RightArm | BodyPart::LeftArm => match face {
            Face::Top => SHIRT,
            Face::Bottom => SKIN,
            _ if row < 4 => SHIRT,
            _ => SKIN,
        },
        BodyPart::RightLeg | BodyPart::LeftLeg => match face {
            Face::Top => TROUSERS,
            Face::Bottom => SHOES,
            _ if row < 9 => TROUSERS,
            _ => SHOES,
        },
    }
}

impl Skin {
    /// emoted's Steve-like stand-in (see the module docs).
    pub fn stand_in() -> Skin {
        let mut image = RgbaImage::new(u32::from(SKIN_SIZE_PX), u32::from(SKIN_SIZE_PX), [0; 4]);
        for layout in part_layouts().iter().filter(|l| !l.slim) {
            let rows = whole_rows(layout);
            for face in Face::ALL {
                let rect = layout.face_rect(Layer::Base, face, rows);
                for row in 0..rect.height_px {
                    for column in 0..rect.width_px {
                        let colour = stand_in_texel(layout.part, face, column, row);
                        image.set_pixel(
                            i32::from(rect.x_px + column),
                            i32::from(rect.y_px + row),
                            shade(colour, face_tint(face)),
                        );
                    }
                }
            }
        }
        Skin { image }
    }

    /// Reads a skin PNG (64×64, or a legacy 64×32 one, converted).
    pub fn from_png(bytes: &[u8]) -> Result<Skin, SkinError> {
        let image = RgbaImage::decode_png(bytes).map_err(|source| SkinError::NotPng { source })?;
        Skin::from_image(image)
    }

    /// A skin from a decoded picture (64×64, or a legacy 64×32 one, converted).
    pub fn from_image(image: RgbaImage) -> Result<Skin, SkinError> {
        let size = u32::from(SKIN_SIZE_PX);
        let mut image = match (image.width_px(), image.height_px()) {
            (w, h) if w == size && h == size => image,
            (w, h) if w == size && h == size / 2 => convert_legacy(&image),
            (width_px, height_px) => {
                return Err(SkinError::WrongSize {
                    width_px,
                    height_px,
                })
            }
        };
        for layout in part_layouts().iter().filter(|l| !l.slim) {
            let region = layout.region(Layer::Base);
            for_each_texel(region, |x, y| {
                if let Some(mut texel) = image.pixel(x, y) {
                    texel[3] = 255;
                    image.set_pixel(x, y, texel);
                }
            });
        }
        Ok(Skin { image })
    }

    /// The texture.
    pub fn image(&self) -> &RgbaImage {
        &self.image
    }

    /// The texel of `rect` at `uv` ∈ [0, 1]² (nearest neighbour; `(0, 0)`
    /// is the rectangle's top left corner).
    pub fn texel(&self, rect: Rect, uv: Vec2) -> Rgba {
        let pick = |t: f32, start: u8, length: u8| {
            let offset = (t * f32::from(length))
                .floor()
                .clamp(0.0, f32::from(length) - 1.0);
            i32::from(start) + offset as i32
        };
        let x = pick(uv.x, rect.x_px, rect.width_px.max(1));
        let y = pick(uv.y, rect.y_px, rect.height_px.max(1));
        self.image.pixel(x, y).unwrap_or([0; 4])
    }
}

/// Every row of a part.
fn whole_rows(layout: &PartLayout) -> Rows {
    Slice::full(layout.part, layout.slim).rows()
}

fn for_each_texel(rect: Rect, mut f: impl FnMut(i32, i32)) {
    for y in rect.y_px..rect.y_px.saturating_add(rect.height_px) {
        for x in rect.x_px..rect.x_px.saturating_add(rect.width_px) {
            f(i32::from(x), i32::from(y));
        }
    }
}

/// The same face on a mirrored part: the right and left sides swap.
fn mirrored(face: Face) -> Face {
    match face {
        Face::Right => Face::Left,
        Face::Left => Face::Right,
        other => other,
    }
}

/// A legacy 64×32 skin as a 64×64 one (see the module docs).
fn convert_legacy(legacy: &RgbaImage) -> RgbaImage {
    let size = u32::from(SKIN_SIZE_PX);
    let mut image = RgbaImage::new(size, size, [0; 4]);
    image.blit(legacy, 0, 0);
    for (left, right) in [
        (BodyPart::LeftArm, BodyPart::RightArm),
        (BodyPart::LeftLeg, BodyPart::RightLeg),
    ] {
        let (to, from) = (part_layout(left, false), part_layout(right, false));
        let rows = whole_rows(to);
        for face in Face::ALL {
            let target = to.face_rect(Layer::Base, face, rows);
            let source = from.face_rect(Layer::Base, mirrored(face), rows);
            for row in 0..target.height_px.min(source.height_px) {
                for column in 0..target.width_px.min(source.width_px) {
                    let flipped = source.width_px - 1 - column;
                    let texel = legacy
                        .pixel(
                            i32::from(source.x_px + flipped),
                            i32::from(source.y_px + row),
                        )
                        .unwrap_or([0; 4]);
                    image.set_pixel(
                        i32::from(target.x_px + column),
                        i32::from(target.y_px + row),
                        texel,
                    );
                }
            }
        }
    }
    // Old skins often filled the hat with one opaque colour: no clear
    // pixel at all means no hat.
    let hat = part_layout(BodyPart::Head, false).region(Layer::Overlay);
    let mut any_clear = false;
    for_each_texel(hat, |x, y| {
        any_clear |= image.pixel(x, y).is_some_and(|p| p[3] < 128);
    });
    if !any_clear {
        for_each_texel(hat, |x, y| image.set_pixel(x, y, [0; 4]));
    }
    image
}

#[cfg(test)]
mod tests {
    use super::*;

    fn centre_of(skin: &Skin, part: BodyPart, face: Face) -> Rgba {
        let rect = Slice::full(part, false).face_rect(Layer::Base, face);
        skin.texel(rect, Vec2::splat(0.5))
    }

    #[test]
    fn the_stand_in_has_steve_like_colours() {
        let skin = Skin::stand_in();
        let full = |part| Slice::full(part, false);
        // The head: hair on top, eyes on the front's fifth row.
        let top = full(BodyPart::Head).face_rect(Layer::Base, Face::Top);
        assert_eq!(
            skin.texel(top, Vec2::splat(0.5)),
            shade(palette::HAIR, 1.12)
        );
        let front = full(BodyPart::Head).face_rect(Layer::Base, Face::Front);
        assert_eq!(
            skin.image()
                .pixel(i32::from(front.x_px) + 2, i32::from(front.y_px) + 4),
            Some(palette::EYE)
        );
        // The right arm: a cyan sleeve, then skin down to the hand.
        let arm = full(BodyPart::RightArm).face_rect(Layer::Base, Face::Front);
        assert_eq!((arm.x_px, arm.y_px), (44, 20));
        assert_eq!(skin.texel(arm, Vec2::new(0.5, 0.1)), palette::SHIRT);
        assert_eq!(skin.texel(arm, Vec2::new(0.5, 0.9)), palette::SKIN);
        assert_eq!(
            centre_of(&skin, BodyPart::LeftLeg, Face::Front),
            palette::TROUSERS
        );
        // The overlay is clear.
        let hat = full(BodyPart::Head).face_rect(Layer::Overlay, Face::Front);
        assert_eq!(skin.texel(hat, Vec2::splat(0.5))[3], 0);
    }

    #[test]
    fn every_face_of_the_stand_in_looks_different() {
        let skin = Skin::stand_in();
        for part in [BodyPart::Body, BodyPart::RightArm, BodyPart::LeftLeg] {
            let colours: Vec<Rgba> = Face::ALL
                .iter()
                .map(|f| centre_of(&skin, part, *f))
                .collect();
            for (i, a) in colours.iter().enumerate() {
                for b in &colours[i + 1..] {
                    assert_ne!(a, b, "{part:?}: {colours:?}");
                }
            }
        }
    }

    #[test]
    fn a_legacy_skin_gets_mirrored_left_limbs() {
        let mut legacy = RgbaImage::new(64, 32, [0; 4]);
        let arm = part_layout(BodyPart::RightArm, false);
        let rows = whole_rows(arm);
        // The right arm's right side: its left column red, the rest blue.
        let right_side = arm.face_rect(Layer::Base, Face::Right, rows);
        for_each_texel(right_side, |x, y| {
            let colour = if x == i32::from(right_side.x_px) {
                [255, 0, 0, 255]
            } else {
                [0, 0, 255, 255]
            };
            legacy.set_pixel(x, y, colour);
        });
        // An opaque hat: cleared.
        let hat = part_layout(BodyPart::Head, false).region(Layer::Overlay);
        for_each_texel(hat, |x, y| legacy.set_pixel(x, y, [9, 9, 9, 255]));
        let bytes = legacy.encode_png().expect("encodes");
        let skin = Skin::from_png(&bytes).expect("a legacy skin");
        assert_eq!(skin.image().height_px(), 64);
        // The left arm's left side is the right arm's right side, flipped.
        let left = part_layout(BodyPart::LeftArm, false);
        let left_side = left.face_rect(Layer::Base, Face::Left, whole_rows(left));
        let row = i32::from(left_side.y_px);
        let last = i32::from(left_side.x_px + left_side.width_px - 1);
        assert_eq!(skin.image().pixel(last, row), Some([255, 0, 0, 255]));
        assert_eq!(skin.image().pixel(last - 1, row), Some([0, 0, 255, 255]));
        assert_eq!(skin.image().pixel(i32::from(hat.x_px) + 9, 2), Some([0; 4]));
        // The base layer is opaque everywhere.
        let front = left.face_rect(Layer::Base, Face::Front, whole_rows(left));
        assert_eq!(
            skin.image()
                .pixel(i32::from(front.x_px), i32::from(front.y_px))
                .map(|p| p[3]),
            Some(255)
        );
    }

    #[test]
    fn other_sizes_and_other_files_are_refused() {
        let wrong = RgbaImage::new(32, 32, [0; 4])
            .encode_png()
            .expect("encodes");
        assert_eq!(
            Skin::from_png(&wrong),
            Err(SkinError::WrongSize {
                width_px: 32,
                height_px: 32
            })
        );
        let error = Skin::from_png(b"GIF89a").expect_err("not a PNG");
        assert!(error.to_string().starts_with("not a PNG image"), "{error}");
    }
}
