//! A small triangle rasteriser: textured triangles and quads with a depth
//! buffer.
//!
//! emoted draws its own triangles because the 2D crates (tiny-skia and
//! the like) fill paths with solid colours or gradients, not triangles
//! with a texture and a depth test. The rules:
//!
//! - a pixel is covered when its centre `(x + 0.5, y + 0.5)` lies inside
//!   the triangle or on its edge (barycentric weights all ≥ 0), whichever
//!   way the triangle winds: nothing is culled, as vanilla draws skulls
//!   without culling;
//! - depth and texture coordinates are interpolated perspective-correctly
//!   (`1/depth`, `u/depth` and `v/depth` are linear on the picture), and
//!   a pixel is drawn when it is nearer than what is there (the first
//!   triangle wins a tie);
//! - the shader closure turns texture coordinates `(u, v)` ∈ [0, 1]² into
//!   a colour; colours with alpha under 26 (0.1, vanilla's discard) are
//!   dropped and leave the depth alone, others are painted over by their
//!   alpha and set the depth;
//! - a triangle any of whose corners is behind the camera's near plane is
//!   left out (the cameras keep the whole scene in front).

use glam::Vec2;

use super::camera::ScreenPoint;
use super::image::{over, Rgba, RgbaImage};

/// Colours with less alpha than this are not drawn.
pub const MIN_ALPHA: u8 = 26;

/// A corner of a triangle: where it lands and its texture coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vertex {
    /// Its place on the picture.
    pub screen: ScreenPoint,
    /// Its texture coordinates, `(0, 0)` top left to `(1, 1)` bottom right.
    pub uv: Vec2,
}

/// A picture with a depth buffer.
#[derive(Clone, Debug)]
pub struct Canvas {
    image: RgbaImage,
    /// Per pixel, `1 / depth` of what is drawn there (0: nothing).
    inverse_depth: Vec<f32>,
}

impl Canvas {
    /// An empty canvas of one colour.
    pub fn new(width_px: u32, height_px: u32, background: Rgba) -> Canvas {
        Canvas {
            image: RgbaImage::new(width_px, height_px, background),
            inverse_depth: vec![0.0; width_px as usize * height_px as usize],
        }
    }

    /// The picture so far.
    pub fn image(&self) -> &RgbaImage {
        &self.image
    }

    /// The picture, for drawing on without depth (labels).
    pub fn image_mut(&mut self) -> &mut RgbaImage {
        &mut self.image
    }

    /// The depth drawn at a pixel, `None` where nothing was drawn.
    pub fn depth(&self, x_px: u32, y_px: u32) -> Option<f32> {
        if x_px >= self.image.width_px() || y_px >= self.image.height_px() {
            return None;
        }
        let index = y_px as usize * self.image.width_px() as usize + x_px as usize;
        let inverse = self.inverse_depth[index];
        (inverse > 0.0).then(|| 1.0 / inverse)
    }

    /// Draws a quad (corners in order around it) as two triangles.
    pub fn fill_quad(&mut self, corners: [Vertex; 4], shader: &dyn Fn(Vec2) -> Rgba) {
        let [a, b, c, d] = corners;
        self.fill_triangle([a, b, c], shader);
        self.fill_triangle([a, c, d], shader);
    }

    /// Draws one triangle; see the module docs for the rules.
    pub fn fill_triangle(&mut self, corners: [Vertex; 3], shader: &dyn Fn(Vec2) -> Rgba) {
        let [a, b, c] = corners.map(|v| v.screen);
        let finite = corners.iter().all(|v| {
            v.screen.x_px.is_finite() && v.screen.y_px.is_finite() && v.screen.depth > 0.0
        });
        let area = edge(a, b, c.x_px, c.y_px);
        if !finite || area.abs() < 1e-6 {
            return;
        }
        let (width, height) = (self.image.width_px() as f32, self.image.height_px() as f32);
        let min_x = a.x_px.min(b.x_px).min(c.x_px).floor().max(0.0);
        let max_x = a.x_px.max(b.x_px).max(c.x_px).ceil().min(width);
        let min_y = a.y_px.min(b.y_px).min(c.y_px).floor().max(0.0);
        let max_y = a.y_px.max(b.y_px).max(c.y_px).ceil().min(height);
        if min_x >= max_x || min_y >= max_y {
            return;
        }
        let inverse = corners.map(|v| 1.0 / v.screen.depth);
        let uv_over_depth = [0, 1, 2].map(|i| corners[i].uv * inverse[i]);
        let row_width = self.image.width_px() as usize;
        for y in min_y as u32..max_y as u32 {
            let py = y as f32 + 0.5;
            for x in min_x as u32..max_x as u32 {
                let px = x as f32 + 0.5;
                let weights = [
                    edge(b, c, px, py) / area,
                    edge(c, a, px, py) / area,
                    edge(a, b, px, py) / area,
                ];
                if weights.iter().any(|w| *w < 0.0) {
                    continue;
                }
                let inverse_depth: f32 = (0..3).map(|i| weights[i] * inverse[i]).sum();
                let index = y as usize * row_width + x as usize;
                if inverse_depth <= self.inverse_depth[index] {
                    continue;
                }
                let uv = (0..3)
                    .map(|i| uv_over_depth[i] * weights[i])
                    .fold(Vec2::ZERO, |sum, w| sum + w)
                    / inverse_depth;
                let colour = shader(uv);
                if colour[3] < MIN_ALPHA {
                    continue;
                }
                self.inverse_depth[index] = inverse_depth;
                let below = self.image.pixel(x as i32, y as i32).unwrap_or(colour);
                self.image
                    .set_pixel(x as i32, y as i32, over(below, colour));
            }
        }
    }
}

/// Twice the signed area of the triangle `a`, `b`, `(x, y)`.
fn edge(a: ScreenPoint, b: ScreenPoint, x: f32, y: f32) -> f32 {
    (b.x_px - a.x_px) * (y - a.y_px) - (b.y_px - a.y_px) * (x - a.x_px)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: Rgba = [255, 0, 0, 255];
    const BLUE: Rgba = [0, 0, 255, 255];
    const WHITE: Rgba = [255, 255, 255, 255];

    /// A quad from `(x0, y0)` to `(x1, y1)` at one depth, uv over the whole.
    fn rect(x0: f32, y0: f32, x1: f32, y1: f32, depth: f32) -> [Vertex; 4] {
        let v = |x_px, y_px, u, v| Vertex {
            screen: ScreenPoint { x_px, y_px, depth },
            uv: Vec2::new(u, v),
        };
        [
            v(x0, y0, 0.0, 0.0),
            v(x1, y0, 1.0, 0.0),
            v(x1, y1, 1.0, 1.0),
            v(x0, y1, 0.0, 1.0),
        ]
    }

    fn covered(canvas: &Canvas, colour: Rgba) -> usize {
        canvas
            .image()
            .pixels()
            .iter()
            .filter(|p| **p == colour)
            .count()
    }

    #[test]
    fn a_quad_fills_exactly_its_pixels() {
        let mut canvas = Canvas::new(10, 10, WHITE);
        canvas.fill_quad(rect(2.0, 3.0, 6.0, 8.0, 1.0), &|_| RED);
        assert_eq!(covered(&canvas, RED), 4 * 5);
        for (x, y, inside) in [
            (2, 3, true),
            (5, 7, true),
            (6, 7, false),
            (1, 3, false),
            (2, 8, false),
        ] {
            assert_eq!(
                canvas.image().pixel(x, y) == Some(RED),
                inside,
                "({x}, {y})"
            );
        }
        // Wound the other way round, the same pixels.
        let mut other = Canvas::new(10, 10, WHITE);
        let [a, b, c, d] = rect(2.0, 3.0, 6.0, 8.0, 1.0);
        other.fill_quad([d, c, b, a], &|_| RED);
        assert_eq!(other.image(), canvas.image());
    }

    #[test]
    fn the_depth_buffer_keeps_the_nearer() {
        for near_first in [true, false] {
            let mut canvas = Canvas::new(10, 10, WHITE);
            let near = rect(0.0, 0.0, 6.0, 6.0, 2.0);
            let far = rect(3.0, 3.0, 10.0, 10.0, 5.0);
            if near_first {
                canvas.fill_quad(near, &|_| RED);
                canvas.fill_quad(far, &|_| BLUE);
            } else {
                canvas.fill_quad(far, &|_| BLUE);
                canvas.fill_quad(near, &|_| RED);
            }
            assert_eq!(
                canvas.image().pixel(4, 4),
                Some(RED),
                "near first: {near_first}"
            );
            assert_eq!(canvas.image().pixel(8, 8), Some(BLUE));
            assert_eq!(covered(&canvas, RED), 36);
            assert_eq!(canvas.depth(4, 4), Some(2.0));
            assert_eq!(canvas.depth(9, 0), None);
        }
    }

    #[test]
    fn texture_coordinates_reach_every_texel_and_clear_ones_are_dropped() {
        let mut canvas = Canvas::new(8, 8, WHITE);
        // Left half of the texture red, right half clear.
        canvas.fill_quad(rect(0.0, 0.0, 8.0, 8.0, 1.0), &|uv| {
            if uv.x < 0.5 {
                RED
            } else {
                [0, 0, 0, 0]
            }
        });
        for x in 0..8 {
            let expected = if x < 4 { RED } else { WHITE };
            assert_eq!(canvas.image().pixel(x, 5), Some(expected), "x {x}");
        }
        assert_eq!(canvas.depth(6, 5), None);
    }

    #[test]
    fn perspective_correct_coordinates_follow_depth() {
        // A quad whose right edge is four times as far: the texture's middle
        // is seen nearer the right edge than the picture's middle.
        let mut quad = rect(0.0, 0.0, 100.0, 1.0, 1.0);
        quad[1].screen.depth = 4.0;
        quad[2].screen.depth = 4.0;
        let mut canvas = Canvas::new(100, 1, WHITE);
        canvas.fill_quad(quad, &|uv| if uv.x < 0.5 { RED } else { BLUE });
        let first_blue = (0..100).find(|x| canvas.image().pixel(*x, 0) == Some(BLUE));
        // u = 0.5 where (t / 4) / ((1 - t) + t / 4) = 0.5, so t = 0.8.
        assert_eq!(first_blue, Some(80));
    }
}
