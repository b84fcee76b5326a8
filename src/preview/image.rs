//! An RGBA picture in memory, its rectangles, and PNG in and out.
//!
//! PNG goes through `lodepng`, which runs on the `flate2` valence already
//! brings: decoding accepts every PNG colour type and bit depth and gives
//! 8-bit RGBA; encoding picks the smallest colour type that keeps every
//! pixel.

/// An RGBA colour, 8 bits a channel, not premultiplied.
pub type Rgba = [u8; 4];

/// A rectangle of pixels; `x_px` and `y_px` may lie outside a picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PixelRect {
    /// Left edge.
    pub x_px: i32,
    /// Top edge.
    pub y_px: i32,
    /// Width.
    pub width_px: u32,
    /// Height.
    pub height_px: u32,
}

impl PixelRect {
    /// One past the right edge.
    pub fn right_px(&self) -> i32 {
        self.x_px.saturating_add(self.width_px as i32)
    }

    /// One past the bottom edge.
    pub fn bottom_px(&self) -> i32 {
        self.y_px.saturating_add(self.height_px as i32)
    }

    /// True when pixel `(x_px, y_px)` lies inside.
    pub fn contains(&self, x_px: i32, y_px: i32) -> bool {
        x_px >= self.x_px && x_px < self.right_px() && y_px >= self.y_px && y_px < self.bottom_px()
    }

    /// The pixels both rectangles cover, if any.
    pub fn intersection(&self, other: &PixelRect) -> Option<PixelRect> {
        let left = self.x_px.max(other.x_px);
        let top = self.y_px.max(other.y_px);
        let right = self.right_px().min(other.right_px());
        let bottom = self.bottom_px().min(other.bottom_px());
        (left < right && top < bottom).then(|| PixelRect {
            x_px: left,
            y_px: top,
            width_px: (right - left) as u32,
            height_px: (bottom - top) as u32,
        })
    }

    /// This rectangle moved by `(dx_px, dy_px)`.
    pub fn offset(&self, dx_px: i32, dy_px: i32) -> PixelRect {
        PixelRect {
            x_px: self.x_px + dx_px,
            y_px: self.y_px + dy_px,
            ..*self
        }
    }
}

/// A PNG that could not be read or written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct PngError {
    /// What the PNG library said.
    pub reason: String,
}

/// An RGBA picture, row by row from the top left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    width_px: u32,
    height_px: u32,
    pixels: Vec<Rgba>,
}

impl RgbaImage {
    /// A picture of one colour.
    pub fn new(width_px: u32, height_px: u32, fill: Rgba) -> RgbaImage {
        RgbaImage {
            width_px,
            height_px,
            pixels: vec![fill; width_px as usize * height_px as usize],
        }
    }

    /// Its width.
    pub fn width_px(&self) -> u32 {
        self.width_px
    }

    /// Its height.
    pub fn height_px(&self) -> u32 {
        self.height_px
    }

    /// Every pixel, row by row.
    pub fn pixels(&self) -> &[Rgba] {
        &self.pixels
    }

    /// The whole picture as a rectangle at the origin.
    pub fn bounds(&self) -> PixelRect {
        PixelRect {
            x_px: 0,
            y_px: 0,
            width_px: self.width_px,
            height_px: self.height_px,
        }
    }

    fn index(&self, x_px: i32, y_px: i32) -> Option<usize> {
        let inside = x_px >= 0
            && y_px >= 0
            && (x_px as u32) < self.width_px
            && (y_px as u32) < self.height_px;
        inside.then(|| y_px as usize * self.width_px as usize + x_px as usize)
    }

    /// The pixel at `(x_px, y_px)`, `None` outside the picture.
    pub fn pixel(&self, x_px: i32, y_px: i32) -> Option<Rgba> {
        self.index(x_px, y_px).map(|i| self.pixels[i])
    }

    /// Sets one pixel; outside the picture, nothing happens.
    pub fn set_pixel(&mut self, x_px: i32, y_px: i32, colour: Rgba) {
        if let Some(i) = self.index(x_px, y_px) {
            self.pixels[i] = colour;
        }
    }

    /// Paints `colour` over one pixel by its alpha ("over"); the pixel
    /// keeps its own alpha when it is opaque.
    pub fn blend_pixel(&mut self, x_px: i32, y_px: i32, colour: Rgba) {
        if let Some(i) = self.index(x_px, y_px) {
            self.pixels[i] = over(self.pixels[i], colour);
        }
    }

    /// Paints `colour` over every pixel of `rect` inside the picture.
    pub fn fill_rect(&mut self, rect: PixelRect, colour: Rgba) {
        let Some(rect) = rect.intersection(&self.bounds()) else {
            return;
        };
        for y in rect.y_px..rect.bottom_px() {
            for x in rect.x_px..rect.right_px() {
                self.blend_pixel(x, y, colour);
            }
        }
    }

    /// Copies `other` with its top left corner at `(x_px, y_px)`, clipped
    /// to this picture.
    pub fn blit(&mut self, other: &RgbaImage, x_px: i32, y_px: i32) {
        for y in 0..other.height_px as i32 {
            for x in 0..other.width_px as i32 {
                if let Some(colour) = other.pixel(x, y) {
                    self.set_pixel(x_px + x, y_px + y, colour);
                }
            }
        }
    }

    /// Decodes a PNG of any colour type into 8-bit RGBA.
    pub fn decode_png(bytes: &[u8]) -> Result<RgbaImage, PngError> {
        let bitmap = lodepng::decode32(bytes).map_err(|e| PngError {
            reason: e.to_string(),
        })?;
        let (width_px, height_px) = (bitmap.width as u32, bitmap.height as u32);
        let pixels = bitmap.buffer.iter().map(|p| [p.r, p.g, p.b, p.a]).collect();
        Ok(RgbaImage {
            width_px,
            height_px,
            pixels,
        })
    }

    /// Encodes the picture as a PNG.
    pub fn encode_png(&self) -> Result<Vec<u8>, PngError> {
        lodepng::encode32(
            &self.pixels,
            self.width_px as usize,
            self.height_px as usize,
        )
        .map_err(|e| PngError {
            reason: e.to_string(),
        })
    }
}

/// `top` painted over `bottom` by `top`'s alpha.
pub fn over(bottom: Rgba, top: Rgba) -> Rgba {
    let alpha = u32::from(top[3]);
    if alpha == 255 {
        return top;
    }
    let mix =
        |b: u8, t: u8| ((u32::from(t) * alpha + u32::from(b) * (255 - alpha) + 127) / 255) as u8;
    let out_alpha = alpha + u32::from(bottom[3]) * (255 - alpha) / 255;
    [
        mix(bottom[0], top[0]),
        mix(bottom[1], top[1]),
        mix(bottom[2], top[2]),
        out_alpha.min(255) as u8,
    ]
}

/// `colour` with its red, green and blue scaled by `factor` (clamped).
pub fn shade(colour: Rgba, factor: f32) -> Rgba {
    let scale = |c: u8| (f32::from(c) * factor).round().clamp(0.0, 255.0) as u8;
    [
        scale(colour[0]),
        scale(colour[1]),
        scale(colour[2]),
        colour[3],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips_and_garbage_is_refused() {
        let mut image = RgbaImage::new(5, 3, [10, 20, 30, 255]);
        image.set_pixel(4, 2, [200, 0, 0, 128]);
        image.set_pixel(9, 9, [1, 1, 1, 1]);
        let bytes = image.encode_png().expect("encodes");
        assert_eq!(RgbaImage::decode_png(&bytes), Ok(image));
        assert!(RgbaImage::decode_png(b"not a png at all").is_err());
    }

    #[test]
    fn rectangles_clip_and_blend() {
        let mut image = RgbaImage::new(4, 4, [0, 0, 0, 255]);
        let rect = PixelRect {
            x_px: -1,
            y_px: 2,
            width_px: 3,
            height_px: 5,
        };
        image.fill_rect(rect, [255, 255, 255, 255]);
        assert_eq!(image.pixel(1, 3), Some([255, 255, 255, 255]));
        assert_eq!(image.pixel(2, 3), Some([0, 0, 0, 255]));
        assert_eq!(image.pixel(0, 1), Some([0, 0, 0, 255]));
        image.blend_pixel(3, 0, [255, 0, 0, 128]);
        assert_eq!(image.pixel(3, 0), Some([128, 0, 0, 255]));
        assert_eq!(
            rect.intersection(&image.bounds()),
            Some(PixelRect {
                x_px: 0,
                y_px: 2,
                width_px: 2,
                height_px: 2
            })
        );
    }
}
