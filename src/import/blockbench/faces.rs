//! A `.bbmodel`'s textures and its cubes' faces, as the scene builder
//! draws them ([`crate::import::scene`], "Cubes").
//!
//! # Textures
//! `textures[i]` is embedded when its `source` is a
//! `data:image/png;base64,` URI; it is decoded and checked by the rules a
//! loaded emote's textures keep
//! ([`decode_png_data_uri`]: at most 1 MiB and 1024 px on a side). A
//! texture that is only a `path` on the author's disk, or that fails a
//! rule, is not carried: a note names it, and the cubes that use it are
//! drawn untextured.
//!
//! # Face UVs
//! Blockbench keeps UVs in texture pixels of the texture's UV size
//! (`uv_width`/`uv_height`, else the project's `resolution`, else 16); a
//! Java item model's are 0..16 over the whole texture, so each
//! coordinate is scaled by `16 / size` ([`to_model_uv`]). Coordinates
//! outside the texture are clamped, with a note.
//!
//! - **Per-face UV** (`box_uv` false): each face's `uv` and `rotation` as
//!   the file has them; a face whose `texture` is `null` is not drawn.
//! - **Box UV** (`box_uv` true on the cube, else `meta.box_uv`): the faces
//!   are laid out from `uv_offset` (u, v) by the cube's size (w, h, d) =
//!   `to − from` floored to whole pixels (before `inflate`, which grows
//!   the box and not its UVs), the Minecraft entity template
//!   ([`box_uv_rects`]):
//!
//!   ```text
//!   u:  0     d     d+w    2d+w   2d+2w
//!   v=0       ┌─up──┬─down─┐
//!   v=d ┌east─┼north┼─west─┼south─┐
//!   v=d+h
//!   ```
//!
//!   `up` is read flipped on both axes and `down` flipped on U, as
//!   Blockbench reads them; `mirror_uv` flips every face on U and swaps
//!   the east and west rectangles.
//!
//! A cube is textured when at least one face is drawn and every drawn
//! face names an embedded texture (by index, or by uuid in newer files);
//! otherwise it is drawn untextured with a note naming the face.

use serde_json::{Map, Value};

use crate::format::resources::{decode_png_data_uri, Face};
use crate::import::scene::{CubeFace, CubeFaces, SceneTexture};
use crate::import::Note;

/// The project's textures and UV mode, to find each cube's faces.
#[derive(Clone, Debug, Default)]
pub struct Skinning {
    /// Per `textures[i]`: its uuid, and where it is in [`Skinning::textures`]
    /// with its UV size when it is embedded.
    slots: Vec<(String, Option<Embedded>)>,
    /// The embedded textures.
    pub textures: Vec<SceneTexture>,
    /// `meta.box_uv`.
    box_uv: bool,
}

/// An embedded texture: its index in [`Skinning::textures`] and its UV
/// size (width, height).
type Embedded = (usize, [f32; 2]);

/// The UV rectangles of a box-UV cube, in texture pixels, in
/// [`Face::ALL`] order (module docs).
pub fn box_uv_rects(offset_px: [f32; 2], size_px: [f32; 3], mirror: bool) -> [[f32; 4]; 6] {
    let [u, v] = offset_px;
    let [w, h, d] = size_px;
    let rect = |x: f32, y: f32, dx: f32, dy: f32| [u + x, v + y, u + x + dx, v + y + dy];
    let mut east = rect(0.0, d, d, h);
    let mut west = rect(d + w, d, d, h);
    let mut rects = [
        rect(d, d, w, h),              // north
        east,                          // east
        rect(2.0 * d + w, d, w, h),    // south
        west,                          // west
        rect(d + w, d, -w, -d),        // up: flipped both ways
        rect(d + 2.0 * w, 0.0, -w, d), // down: flipped on U
    ];
    if mirror {
        for r in &mut rects {
            r.swap(0, 2);
        }
        east.swap(0, 2);
        west.swap(0, 2);
        rects[1] = west;
        rects[3] = east;
    }
    rects
}

/// `uv_px` (Blockbench's, in a texture of `uv_size` units) in item model
/// units, clamped to 0..16; the flag says whether it had to be clamped.
pub fn to_model_uv(uv_px: [f32; 4], uv_size: [f32; 2]) -> ([f32; 4], bool) {
    let mut clamped = false;
    let mut out = [0.0; 4];
    for (i, (slot, value)) in out.iter_mut().zip(uv_px).enumerate() {
        let size = uv_size[i % 2].max(f32::MIN_POSITIVE);
        let scaled = value * 16.0 / size;
        let kept = scaled.clamp(0.0, 16.0);
        clamped |= (kept - scaled).abs() > 1e-4;
        *slot = kept;
    }
    (out, clamped)
}

impl Skinning {
    /// Reads `textures[]`, `resolution` and `meta.box_uv` of `root`.
    pub fn read(root: &Map<String, Value>, notes: &mut Vec<Note>) -> Skinning {
        let number = |v: Option<&Value>| v.and_then(Value::as_f64).filter(|n| *n > 0.0);
        let resolution = root.get("resolution");
        let project_size = [
            number(resolution.and_then(|r| r.get("width"))).unwrap_or(16.0) as f32,
            number(resolution.and_then(|r| r.get("height"))).unwrap_or(16.0) as f32,
        ];
        let mut skinning = Skinning {
            box_uv: root
                .get("meta")
                .and_then(|m| m.get("box_uv"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            ..Skinning::default()
        };
        let list = root.get("textures").and_then(Value::as_array);
        for (i, texture) in list.into_iter().flatten().enumerate() {
            let at = format!("/textures/{i}");
            let uuid = texture.get("uuid").and_then(Value::as_str).unwrap_or("");
            let name = texture
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("texture");
            let uv_size = [
                number(texture.get("uv_width")).map_or(project_size[0], |n| n as f32),
                number(texture.get("uv_height")).map_or(project_size[1], |n| n as f32),
            ];
            let decoded = match texture.get("source").and_then(Value::as_str) {
                Some(source) if source.starts_with("data:") => decode_png_data_uri(source)
                    .map_err(|e| (format!("{at}/source"), format!("texture `{name}`: {e}"))),
                _ => Err((at.clone(), format!(
                    "texture `{name}` is not embedded (no PNG `source`); in Blockbench, save the project with its textures embedded"
                ))),
            };
            let slot = match decoded {
                Ok(texture) => {
                    skinning.textures.push(SceneTexture {
                        name: name.to_owned(),
                        texture,
                    });
                    Some((skinning.textures.len() - 1, uv_size))
                }
                Err((pointer, why)) => {
                    notes.push(Note::new(
                        pointer,
                        format!("{why}; cubes that use it are drawn untextured"),
                    ));
                    None
                }
            };
            skinning.slots.push((uuid.to_owned(), slot));
        }
        skinning
    }

    /// The faces of the cube `element` (at `at`), or `None` with a note
    /// saying why it is drawn untextured (module docs).
    pub fn cube_faces(
        &self,
        element: &Value,
        at: &str,
        notes: &mut Vec<Note>,
    ) -> Option<Box<CubeFaces>> {
        let untextured = |notes: &mut Vec<Note>, pointer: String, why: &str| {
            notes.push(Note::new(
                pointer,
                format!("{why}, so the cube is drawn untextured"),
            ));
            None
        };
        if self.textures.is_empty() {
            // The project's own note (or none: it has no textures at all).
            return None;
        }
        let box_uv = element
            .get("box_uv")
            .and_then(Value::as_bool)
            .unwrap_or(self.box_uv);
        let rects = box_uv.then(|| {
            let corner = |key: &str| -> [f32; 3] {
                let mut out = [0.0; 3];
                let list = element.get(key).and_then(Value::as_array);
                for (slot, v) in out.iter_mut().zip(list.into_iter().flatten()) {
                    *slot = v.as_f64().unwrap_or(0.0) as f32;
                }
                out
            };
            let (from, to) = (corner("from"), corner("to"));
            let size = [0, 1, 2].map(|i| ((to[i] - from[i]).abs() + 1e-6).floor());
            let offset = element.get("uv_offset").and_then(Value::as_array);
            let mut uv_offset = [0.0f32; 2];
            for (slot, v) in uv_offset.iter_mut().zip(offset.into_iter().flatten()) {
                *slot = v.as_f64().unwrap_or(0.0) as f32;
            }
            let mirror = element
                .get("mirror_uv")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            box_uv_rects(uv_offset, size, mirror)
        });
        let mut faces: CubeFaces = [None; 6];
        let mut clamped = false;
        for (k, face) in Face::ALL.into_iter().enumerate() {
            let fp = format!("{at}/faces/{}", face.name());
            let data = element.get("faces").and_then(|f| f.get(face.name()));
            let texture = data.and_then(|d| d.get("texture"));
            if texture.is_some_and(Value::is_null) {
                continue; // not drawn
            }
            let Some((index, uv_size)) = texture.and_then(|t| self.slot(t)) else {
                return untextured(notes, fp, "this face names no embedded texture");
            };
            let (uv_px, rotation) = match &rects {
                Some(rects) => (rects.get(k).copied().unwrap_or_default(), 0),
                None => {
                    let uv = data.and_then(|d| d.get("uv")).and_then(Value::as_array);
                    let mut uv_px = [0.0f32; 4];
                    let mut count = 0;
                    for (slot, v) in uv_px.iter_mut().zip(uv.into_iter().flatten()) {
                        *slot = v.as_f64().unwrap_or(0.0) as f32;
                        count += 1;
                    }
                    if count != 4 || !uv_px.iter().all(|c| c.is_finite()) {
                        return untextured(
                            notes,
                            format!("{fp}/uv"),
                            "this face has no `uv` of four numbers",
                        );
                    }
                    let rotation = data
                        .and_then(|d| d.get("rotation"))
                        .and_then(Value::as_f64)
                        .unwrap_or(0.0);
                    let quarter = ((rotation / 90.0).round() as i64).rem_euclid(4) as u16;
                    (uv_px, quarter * 90)
                }
            };
            let (uv, was_clamped) = to_model_uv(uv_px, uv_size);
            clamped |= was_clamped;
            faces[k] = Some(CubeFace {
                uv,
                texture: index,
                rotation_deg: rotation,
            });
        }
        if faces.iter().all(Option::is_none) {
            return untextured(
                notes,
                at.to_owned(),
                "every face's texture is `null` (none is drawn)",
            );
        }
        if clamped {
            notes.push(Note::new(
                at,
                "a face's UV reaches outside its texture; clamped to the texture's edge (Java item models stay within it)",
            ));
        }
        Some(Box::new(faces))
    }

    /// The embedded texture a face's `texture` names: an index into
    /// `textures[]` or a texture's uuid.
    fn slot(&self, texture: &Value) -> Option<Embedded> {
        let found = match texture {
            Value::Number(n) => n
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| self.slots.get(i)),
            Value::String(uuid) => self.slots.iter().find(|(u, _)| u == uuid),
            _ => None,
        };
        found.and_then(|(_, slot)| *slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4×6×2 box at uv_offset (10, 20): d = 2, w = 4, h = 6.
    #[test]
    fn box_uv_follows_the_entity_template() {
        let rects = box_uv_rects([10.0, 20.0], [4.0, 6.0, 2.0], false);
        assert_eq!(
            rects,
            [
                [12.0, 22.0, 16.0, 28.0], // north: u+d .. u+d+w, v+d .. v+d+h
                [10.0, 22.0, 12.0, 28.0], // east: u .. u+d
                [18.0, 22.0, 22.0, 28.0], // south: u+2d+w .. u+2d+2w
                [16.0, 22.0, 18.0, 28.0], // west: u+d+w .. u+2d+w
                [16.0, 22.0, 12.0, 20.0], // up: the top strip u+d .. u+d+w, flipped
                [20.0, 20.0, 16.0, 22.0], // down: u+d+w .. u+d+2w, flipped on U
            ]
        );
    }

    #[test]
    fn mirrored_box_uv_flips_u_and_swaps_east_and_west() {
        let rects = box_uv_rects([10.0, 20.0], [4.0, 6.0, 2.0], true);
        assert_eq!(rects[0], [16.0, 22.0, 12.0, 28.0]);
        assert_eq!(
            rects[1],
            [18.0, 22.0, 16.0, 28.0],
            "east takes west's, flipped"
        );
        assert_eq!(
            rects[3],
            [12.0, 22.0, 10.0, 28.0],
            "west takes east's, flipped"
        );
        assert_eq!(rects[4], [12.0, 22.0, 16.0, 20.0]);
    }

    #[test]
    fn model_uv_is_sixteen_over_the_uv_size() {
        // A 64×32 texture: u px × 16/64, v px × 16/32.
        assert_eq!(
            to_model_uv([8.0, 4.0, 16.0, 12.0], [64.0, 32.0]),
            ([2.0, 2.0, 4.0, 6.0], false)
        );
        // Flipped coordinates stay flipped; outside the texture is clamped.
        assert_eq!(
            to_model_uv([16.0, 0.0, 8.0, 40.0], [16.0, 32.0]),
            ([16.0, 0.0, 8.0, 16.0], true)
        );
    }
}
