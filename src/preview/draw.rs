//! Drawing one cell: the floor, every placed node through the camera, and
//! the labels on top.
//!
//! A skull is drawn layer by layer, base first and then the overlay (hat)
//! cube around it; each face of each cube reads the rectangle of its
//! slice, layer and face from the skin table
//! ([`Slice::face_rect`](crate::pack::skin_uv::Slice::face_rect)), with
//! the face's corners in the order the rectangle is read
//! ([`cuboid`](super::cuboid)). So a face shows exactly the texels the
//! pack's shader gives that face in game. Clear overlay texels let the
//! base show through. Faces are lit by a fixed light from above and in
//! front, so the sides of a box read apart; labels (text displays) are
//! drawn last, over everything, at a fixed size.

use glam::{Affine3A, Vec2, Vec3};

use super::camera::{Camera, Sphere};
use super::cuboid::{Cuboid, FaceQuad};
use super::font::{draw_text, text_size_px};
use super::image::{shade, PixelRect, Rgba, RgbaImage};
use super::raster::{Canvas, Vertex};
use super::scene::{skull_layers, DrawnNode, Frame, Placed, Shape};
use super::skin::Skin;
use crate::pack::skin_uv::Slice;

/// The cells' background.
pub const BACKGROUND: Rgba = [0xee, 0xf0, 0xf3, 255];

/// The floor's two tile colours.
const FLOOR: [Rgba; 2] = [[0xd9, 0xdd, 0xe2, 255], [0xcb, 0xd0, 0xd7, 255]];

/// The floor's tile size, in blocks.
const FLOOR_TILE_BLOCKS: f32 = 0.5;

/// A label's background and text.
const LABEL_BACKGROUND: Rgba = [0x20, 0x20, 0x28, 0xc0];
const LABEL_TEXT: Rgba = [0xff, 0xff, 0xff, 255];

/// Screen pixels per font pixel in labels.
const LABEL_SCALE: u32 = 2;

/// The most characters a label shows.
const LABEL_MAX_CHARS: usize = 20;

/// How bright a face with outward normal `normal` is drawn.
fn brightness(normal: Vec3) -> f32 {
    let light = Vec3::new(0.3, 1.0, 0.6).normalize();
    0.72 + 0.28 * normal.dot(light).max(0.0)
}

/// Everything that places boxes on a cell.
pub struct CellPainter<'a> {
    /// The cell's camera.
    pub camera: &'a Camera,
    /// The skin skulls wear.
    pub skin: &'a Skin,
    /// The shapes [`Placed::shape_index`] points into.
    pub shapes: &'a [DrawnNode],
}

impl CellPainter<'_> {
    /// Draws the floor under `bounds`, then every node of `frame`, then
    /// the labels, on a new `size_px` square cell.
    pub fn draw(&self, frame: &Frame, bounds: Sphere, size_px: u32) -> RgbaImage {
        let mut canvas = Canvas::new(size_px, size_px, BACKGROUND);
        self.draw_floor(&mut canvas, bounds);
        for placed in &frame.placed {
            let Some(drawn) = self.shapes.get(placed.shape_index) else {
                continue;
            };
            let matrix = placed.matrix * drawn.shape.local_transform();
            match &drawn.shape {
                Shape::Skull { slice, .. } => self.draw_skull(&mut canvas, &matrix, slice),
                Shape::Solid { cuboid, colour } => {
                    for quad in cuboid.faces() {
                        self.draw_face(&mut canvas, &matrix, quad, &|_| *colour);
                    }
                }
                Shape::Label { .. } => {}
            }
        }
        let mut image = canvas.image().clone();
        for placed in &frame.placed {
            if let Some((rect, text)) = self.label(placed) {
                image.fill_rect(rect, LABEL_BACKGROUND);
                let inset = LABEL_SCALE as i32;
                draw_text(
                    &mut image,
                    &text,
                    rect.x_px + inset,
                    rect.y_px + inset,
                    LABEL_SCALE,
                    LABEL_TEXT,
                );
            }
        }
        image
    }

    fn draw_floor(&self, canvas: &mut Canvas, bounds: Sphere) {
        let tiles = (bounds.radius.max(1.0) / FLOOR_TILE_BLOCKS).ceil() as i32;
        let snap = |v: f32| (v / FLOOR_TILE_BLOCKS).round() as i32;
        let (cx, cz) = (snap(bounds.centre.x), snap(bounds.centre.z));
        for i in cx - tiles..cx + tiles {
            for k in cz - tiles..cz + tiles {
                let (x, z) = (i as f32 * FLOOR_TILE_BLOCKS, k as f32 * FLOOR_TILE_BLOCKS);
                let corners = [
                    Vec3::new(x, 0.0, z),
                    Vec3::new(x + FLOOR_TILE_BLOCKS, 0.0, z),
                    Vec3::new(x + FLOOR_TILE_BLOCKS, 0.0, z + FLOOR_TILE_BLOCKS),
                    Vec3::new(x, 0.0, z + FLOOR_TILE_BLOCKS),
                ];
                let colour = FLOOR[(i + k).rem_euclid(2) as usize];
                if let Some(vertices) = self.vertices(corners) {
                    canvas.fill_quad(vertices, &|_| colour);
                }
            }
        }
    }

    fn draw_skull(&self, canvas: &mut Canvas, matrix: &Affine3A, slice: &Slice) {
        for (layer, cuboid) in skull_layers() {
            for quad in cuboid.faces() {
                let rect = slice.face_rect(layer, quad.face);
                self.draw_face(canvas, matrix, quad, &|uv| self.skin.texel(rect, uv));
            }
        }
    }

    /// Draws one face of a box under `matrix`, coloured by `texture`
    /// (texture coordinates over the face's rectangle) and lit.
    fn draw_face(
        &self,
        canvas: &mut Canvas,
        matrix: &Affine3A,
        quad: FaceQuad,
        texture: &dyn Fn(Vec2) -> Rgba,
    ) {
        let placed = quad.transformed(matrix);
        let mirrored = matrix.matrix3.determinant() < 0.0;
        let light = brightness(placed.outward_normal(mirrored));
        if let Some(vertices) = self.vertices(placed.corners) {
            canvas.fill_quad(vertices, &|uv| shade(texture(uv), light));
        }
    }

    /// The projected corners with the rectangle's texture coordinates
    /// (top left, top right, bottom right, bottom left).
    fn vertices(&self, corners: [Vec3; 4]) -> Option<[Vertex; 4]> {
        let uvs = [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y];
        let mut out = [Vertex {
            screen: self.camera.project(corners[0])?,
            uv: uvs[0],
        }; 4];
        for i in 1..4 {
            out[i] = Vertex {
                screen: self.camera.project(corners[i])?,
                uv: uvs[i],
            };
        }
        Some(out)
    }

    /// A label's rectangle and text: centred across the node's origin, its
    /// bottom edge there (a text display's text rises from its origin).
    fn label(&self, placed: &Placed) -> Option<(PixelRect, String)> {
        let Shape::Label { text } = &self.shapes.get(placed.shape_index)?.shape else {
            return None;
        };
        let text = label_text(text);
        let origin = self
            .camera
            .project(placed.matrix.transform_point3(Vec3::ZERO))?;
        let (width, height) = text_size_px(&text, LABEL_SCALE);
        let (width, height) = (width + 2 * LABEL_SCALE, height + 2 * LABEL_SCALE);
        let rect = PixelRect {
            x_px: (origin.x_px - width as f32 / 2.0).round() as i32,
            y_px: origin.y_px.round() as i32 - height as i32,
            width_px: width,
            height_px: height,
        };
        Some((rect, text))
    }

    /// The pixels a placed node may cover on the cell: the box around its
    /// projected corners (both layers of a skull), or its label.
    pub fn bounds_px(&self, placed: &Placed) -> Option<PixelRect> {
        let drawn = self.shapes.get(placed.shape_index)?;
        if let Shape::Label { .. } = drawn.shape {
            return self.label(placed).map(|(rect, _)| rect);
        }
        let matrix = placed.matrix * drawn.shape.local_transform();
        let points = drawn
            .shape
            .boxes()
            .iter()
            .flat_map(Cuboid::corners)
            .map(|c| self.camera.project(matrix.transform_point3(c)))
            .collect::<Option<Vec<_>>>()?;
        let min_x = points.iter().map(|p| p.x_px).fold(f32::INFINITY, f32::min);
        let max_x = points
            .iter()
            .map(|p| p.x_px)
            .fold(f32::NEG_INFINITY, f32::max);
        let min_y = points.iter().map(|p| p.y_px).fold(f32::INFINITY, f32::min);
        let max_y = points
            .iter()
            .map(|p| p.y_px)
            .fold(f32::NEG_INFINITY, f32::max);
        if !(min_x <= max_x && min_y <= max_y) {
            return None;
        }
        let (left, top) = (min_x.floor() as i32, min_y.floor() as i32);
        Some(PixelRect {
            x_px: left,
            y_px: top,
            width_px: (max_x.ceil() as i32 - left).max(1) as u32,
            height_px: (max_y.ceil() as i32 - top).max(1) as u32,
        })
    }
}

/// A label's text, cut to [`LABEL_MAX_CHARS`].
fn label_text(text: &str) -> String {
    let text = if text.trim().is_empty() {
        "(text)"
    } else {
        text.trim()
    };
    if text.chars().count() <= LABEL_MAX_CHARS {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(LABEL_MAX_CHARS - 2).collect();
        cut.push_str("..");
        cut
    }
}

/// Every point a sheet must keep in view: each placed node's box corners
/// (labels: their origin) at every frame, and the floor's centre.
pub fn scene_points(shapes: &[DrawnNode], frames: &[Frame]) -> Vec<Vec3> {
    let mut points = vec![Vec3::ZERO];
    for placed in frames.iter().flat_map(|f| &f.placed) {
        let Some(drawn) = shapes.get(placed.shape_index) else {
            continue;
        };
        let matrix = placed.matrix * drawn.shape.local_transform();
        let boxes = drawn.shape.boxes();
        if boxes.is_empty() {
            points.push(matrix.transform_point3(Vec3::ZERO));
        }
        points.extend(
            boxes
                .iter()
                .flat_map(Cuboid::corners)
                .map(|c| matrix.transform_point3(c)),
        );
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::node::BodyPart;
    use crate::pack::skin_uv::{Face, Layer};

    const UNIT_SPHERE: Sphere = Sphere {
        centre: Vec3::ZERO,
        radius: 1.0,
    };

    /// A right arm skull seen from the front, 1 block tall, filling most
    /// of a 64-px cell.
    fn right_arm(slim: bool) -> (Vec<DrawnNode>, Frame, Camera) {
        let slice = Slice::full(BodyPart::RightArm, slim);
        let shapes = vec![DrawnNode {
            id: "arm".into(),
            shape: Shape::Skull {
                slice,
                item_transform: Affine3A::IDENTITY,
            },
        }];
        let frame = Frame {
            tick: 0,
            placed: vec![Placed {
                shape_index: 0,
                matrix: Affine3A::from_scale(Vec3::new(1.0, 2.0, 1.0)),
            }],
        };
        let camera = Camera::looking_at(
            Vec3::new(0.0, -0.5, 6.0),
            Vec3::new(0.0, -0.5, 0.0),
            256.0,
            Vec2::splat(32.0),
        );
        (shapes, frame, camera)
    }

    /// The front view of an arm whose skin has one colour per texel
    /// column of the right arm's front rectangle.
    #[test]
    fn a_right_arm_front_reads_the_right_arm_rectangle() {
        for slim in [false, true] {
            let (shapes, frame, camera) = right_arm(slim);
            let slice = Slice::full(BodyPart::RightArm, slim);
            let rect = slice.face_rect(Layer::Base, Face::Front);
            assert_eq!(rect.width_px, if slim { 3 } else { 4 });
            let mut image = RgbaImage::new(64, 64, [0, 0, 0, 0]);
            let columns = [
                [250, 0, 0, 255],
                [0, 250, 0, 255],
                [0, 0, 250, 255],
                [250, 250, 0, 255],
            ];
            for column in 0..rect.width_px {
                for row in 0..rect.height_px {
                    image.set_pixel(
                        i32::from(rect.x_px + column),
                        i32::from(rect.y_px + row),
                        columns[usize::from(column)],
                    );
                }
            }
            let skin = Skin::from_image(image).expect("64×64");
            let painter = CellPainter {
                camera: &camera,
                skin: &skin,
                shapes: &shapes,
            };
            let cell = painter.draw(&frame, UNIT_SPHERE, 64);
            // Across the middle row of the face, left to right: the
            // rectangle's columns in order, each a quarter (or a third).
            let row = 28;
            let seen: Vec<Rgba> = (0..64)
                .filter_map(|x| cell.pixel(x, row))
                .filter(|p| p[0] > 100 || p[1] > 100 || p[2] > 100)
                .collect();
            let mut runs: Vec<Rgba> = Vec::new();
            for p in &seen {
                let hue = [p[0] > 100, p[1] > 100, p[2] > 100];
                let known = columns
                    .iter()
                    .position(|c| [c[0] > 100, c[1] > 100, c[2] > 100] == hue);
                if let Some(i) = known {
                    if runs.last() != Some(&columns[i]) {
                        runs.push(columns[i]);
                    }
                }
            }
            assert_eq!(
                runs,
                columns[..usize::from(rect.width_px)].to_vec(),
                "slim {slim}"
            );
        }
    }

    #[test]
    fn bounds_hold_every_drawn_pixel() {
        let (shapes, frame, camera) = right_arm(false);
        let skin = Skin::stand_in();
        let painter = CellPainter {
            camera: &camera,
            skin: &skin,
            shapes: &shapes,
        };
        let cell = painter.draw(&frame, UNIT_SPHERE, 64);
        let mut floor_only = Canvas::new(64, 64, BACKGROUND);
        painter.draw_floor(&mut floor_only, UNIT_SPHERE);
        let bounds = painter.bounds_px(&frame.placed[0]).expect("in front");
        let mut changed = 0;
        for y in 0..64 {
            for x in 0..64 {
                if cell.pixel(x, y) != floor_only.image().pixel(x, y) {
                    changed += 1;
                    assert!(bounds.contains(x, y), "({x}, {y}) outside {bounds:?}");
                }
            }
        }
        assert!(changed > 100, "{changed}");
    }

    #[test]
    fn long_labels_are_cut() {
        assert_eq!(label_text("  "), "(text)");
        assert_eq!(
            label_text("a very long label indeed, yes"),
            "a very long label .."
        );
    }
}
