//! The core shader: our own `rendertype_entity_translucent` for 1.20.1.
//!
//! 1.20.1 draws a player-head skull that has a skin texture with the
//! `entity_translucent` render type, so replacing that one program (its
//! `.json`, `.vsh` and `.fsh`) reaches every skin-bound display. The vertex
//! stage (`shaders/rendertype_entity_translucent.vsh`, a template) does what
//! vanilla does, and for a skull moved `512·k` blocks down (k ≥ 1, decoded
//! from the vertex's world-space height below the camera, within ±256
//! blocks of the camera's height) it moves the vertex back and remaps the
//! skull's UVs to slice k's face rectangles of the same layer. The fragment
//! stage is vanilla's, plus dropping triangles that straddle two slice
//! windows.
//!
//! The constants are generated here from [`SliceTable`] and the skin table
//! ([`skin_uv`](super::skin_uv)): per k, per layer, per face, one `vec4`
//! rectangle in pixels, and which of the skull's 8×8 tiles is which face.
//! Slim is a property of k (its rectangles are 3 px wide), never guessed
//! from the skin's pixels.
//!
//! Shader packs (OptiFine, Iris) replace the vanilla core shaders, so with
//! one on, slices stay 512·k blocks away and only the head shows.

use std::fmt::Write;

use serde_json::json;

use super::ids::{SliceTable, SLICE_SPACING_BLOCKS};
use super::skin_uv::{part_layout, Face, Layer, Slice, SKIN_SIZE_PX};
use crate::format::node::BodyPart;

/// The folder of the core shaders in a pack.
pub const CORE_SHADER_DIR: &str = "assets/minecraft/shaders/core";

/// The program's name (its three files share it).
pub const PROGRAM_NAME: &str = "rendertype_entity_translucent";

/// The line of the vertex template that the generated tables replace.
const TABLES_MARKER: &str = "//@SLICE_TABLES@";

const VERTEX_TEMPLATE: &str = include_str!("shaders/rendertype_entity_translucent.vsh");
const FRAGMENT_SOURCE: &str = include_str!("shaders/rendertype_entity_translucent.fsh");

/// The skull's tile of each face (row · 4 + column of its 8×8 tiles,
/// counted from the base layer's corner), from the head's row of the table.
fn tile_of(face: Face) -> usize {
    let head = Slice::full(BodyPart::Head, false);
    let layout = head.layout();
    let rect = head.face_rect(Layer::Base, face);
    let side = usize::from(layout.size.width_px.max(1));
    let (u, v) = layout.base_origin_px;
    usize::from(rect.y_px.saturating_sub(v)) / side * 4
        + usize::from(rect.x_px.saturating_sub(u)) / side
}

/// The GLSL constants for `table`: spacing, counts, the skull's tile map and
/// every slice's face rectangles.
pub fn slice_tables_glsl(table: &SliceTable) -> String {
    let head = part_layout(BodyPart::Head, false);
    let mut faces_of_tiles = [-1i32; 8];
    for (index, face) in Face::ALL.iter().enumerate() {
        if let Some(slot) = faces_of_tiles.get_mut(tile_of(*face)) {
            *slot = index as i32;
        }
    }
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "#define SLICE_SPACING {SLICE_SPACING_BLOCKS:.1}");
    let _ = writeln!(out, "#define SLICE_COUNT {}", table.len());
    let _ = writeln!(out, "#define SKIN_SIZE {:.1}", f32::from(SKIN_SIZE_PX));
    let _ = writeln!(
        out,
        "#define SKULL_FACE {:.1}",
        f32::from(head.size.width_px)
    );
    let _ = writeln!(out, "#define BOTTOM_TILE {}", tile_of(Face::Bottom));
    let tiles: Vec<String> = faces_of_tiles.iter().map(i32::to_string).collect();
    let _ = writeln!(
        out,
        "// The face (top, bottom, right, front, left, back) of each of the skull's\n\
         // 8x8 tiles, row * 4 + column; -1 for the two unused corners.\n\
         const int FACE_OF_TILE[8] = int[]({});",
        tiles.join(", ")
    );
    let _ = writeln!(
        out,
        "// Per slice k, per layer (base, overlay), per face (top, bottom, right,\n\
         // front, left, back): the skin rectangle (x, y, width, height) in pixels.\n\
         const vec4 SLICE_RECTS[{}] = vec4[](",
        table.len() * Layer::ALL.len() * Face::ALL.len()
    );
    let mut entries = Vec::new();
    for (id, slice) in table.iter() {
        for layer in Layer::ALL {
            let rects: Vec<String> = Face::ALL
                .iter()
                .map(|face| {
                    let r = slice.face_rect(layer, *face);
                    format!(
                        "vec4({:.1}, {:.1}, {:.1}, {:.1})",
                        f32::from(r.x_px),
                        f32::from(r.y_px),
                        f32::from(r.width_px),
                        f32::from(r.height_px)
                    )
                })
                .collect();
            entries.push(format!(
                "    // k {} {} {:?}\n    {}",
                id.index(),
                slice.name(),
                layer,
                rects.join(", ")
            ));
        }
    }
    let _ = writeln!(out, "{}\n);", entries.join(",\n"));
    out
}

/// The vertex shader for `table`.
pub fn vertex_shader(table: &SliceTable) -> String {
    VERTEX_TEMPLATE.replacen(TABLES_MARKER, slice_tables_glsl(table).trim_end(), 1)
}

/// The fragment shader (the same for every table).
pub fn fragment_shader() -> &'static str {
    FRAGMENT_SOURCE
}

/// The program definition: vanilla 1.20.1's blend, attributes, samplers
/// and uniforms for `entity_translucent`.
pub fn program_json() -> String {
    let identity4 = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let identity3 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let uniform = |name: &str, kind: &str, values: &[f64]| json!({"name": name, "type": kind, "count": values.len(), "values": values});
    let program = json!({
        "blend": {"func": "add", "srcrgb": "srcalpha", "dstrgb": "1-srcalpha"},
        "vertex": PROGRAM_NAME,
        "fragment": PROGRAM_NAME,
        "attributes": ["Position", "Color", "UV0", "UV1", "UV2", "Normal"],
        "samplers": [{"name": "Sampler0"}, {"name": "Sampler1"}, {"name": "Sampler2"}],
        "uniforms": [
            uniform("ModelViewMat", "matrix4x4", &identity4),
            uniform("ProjMat", "matrix4x4", &identity4),
            uniform("IViewRotMat", "matrix3x3", &identity3),
            uniform("ColorModulator", "float", &[1.0, 1.0, 1.0, 1.0]),
            uniform("Light0_Direction", "float", &[0.0, 0.0, 0.0]),
            uniform("Light1_Direction", "float", &[0.0, 0.0, 0.0]),
            uniform("FogStart", "float", &[0.0]),
            uniform("FogEnd", "float", &[1.0]),
            uniform("FogColor", "float", &[0.0, 0.0, 0.0, 0.0]),
            uniform("FogShape", "int", &[0.0]),
        ]
    });
    let mut text = serde_json::to_string_pretty(&program).unwrap_or_default();
    text.push('\n');
    text
}

/// The program's three files: pack path and contents.
pub fn shader_files(table: &SliceTable) -> Vec<(String, Vec<u8>)> {
    let path = |ext: &str| format!("{CORE_SHADER_DIR}/{PROGRAM_NAME}.{ext}");
    vec![
        (path("json"), program_json().into_bytes()),
        (path("vsh"), vertex_shader(table).into_bytes()),
        (path("fsh"), fragment_shader().as_bytes().to_vec()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::ids::testing::one_cut_table;

    fn table() -> SliceTable {
        one_cut_table(BodyPart::RightArm, 0, 5)
    }

    /// Every `vec4(...)` of SLICE_RECTS, as integers.
    fn rects_in(glsl: &str) -> Vec<[u8; 4]> {
        let start = glsl.find("SLICE_RECTS[").expect("the rect table");
        let end = start + glsl[start..].find("\n);").expect("the table's end");
        glsl[start..end]
            .split("vec4(")
            .skip(1) // the declaration
            .map(|chunk| {
                let inside = chunk.split(')').next().expect("closing paren");
                let numbers: Vec<u8> = inside
                    .split(',')
                    .map(|n| n.trim().parse::<f32>().expect("number") as u8)
                    .collect();
                [numbers[0], numbers[1], numbers[2], numbers[3]]
            })
            .collect()
    }

    #[test]
    fn the_shader_tables_are_the_skin_table() {
        let table = table();
        let glsl = vertex_shader(&table);
        assert!(!glsl.contains(TABLES_MARKER));
        assert!(glsl.contains(&format!("#define SLICE_COUNT {}", table.len())));
        assert!(glsl.contains("const int FACE_OF_TILE[8] = int[](-1, 0, 1, -1, 2, 3, 4, 5);"));
        assert!(glsl.contains("#define BOTTOM_TILE 2"));
        let rects = rects_in(&glsl);
        let mut expected = Vec::new();
        for (_, slice) in table.iter() {
            for layer in Layer::ALL {
                for face in Face::ALL {
                    let r = slice.face_rect(layer, face);
                    expected.push([r.x_px, r.y_px, r.width_px, r.height_px]);
                }
            }
        }
        assert_eq!(rects, expected);
        // k 8 is the cut classic right arm: its front keeps rows 0..5.
        assert_eq!(rects[(8 * 2) * 6 + 3], [44, 20, 4, 5]);
        // k 6 is the whole slim right arm: 3 px wide in front.
        assert_eq!(rects[(6 * 2) * 6 + 3], [44, 20, 3, 12]);
    }

    #[test]
    fn the_program_json_names_both_stages_and_every_uniform() {
        let program: serde_json::Value = serde_json::from_str(&program_json()).expect("json");
        assert_eq!(program["vertex"], PROGRAM_NAME);
        assert_eq!(program["fragment"], PROGRAM_NAME);
        let uniforms: Vec<&str> = program["uniforms"]
            .as_array()
            .expect("uniforms")
            .iter()
            .filter_map(|u| u["name"].as_str())
            .collect();
        for name in [
            "ModelViewMat",
            "ProjMat",
            "IViewRotMat",
            "FogShape",
            "Light0_Direction",
        ] {
            assert!(uniforms.contains(&name), "{name}");
        }
        assert_eq!(program["uniforms"][2]["count"], 9);
        let files = shader_files(&table());
        assert_eq!(files.len(), 3);
        assert!(files.iter().all(|(p, _)| p.starts_with(CORE_SHADER_DIR)));
    }

    /// The vertex stage's `sliceUv`, step for step, in pixels.
    fn slice_uv_port(px: (f32, f32), vertex_id: usize, rects: &[[f32; 4]], k: usize) -> (f32, f32) {
        let corner = vertex_id % 4;
        let quad = (vertex_id / 4) % 6;
        let at_u_max = if corner == 0 || corner == 3 { 1.0 } else { 0.0 };
        let first_row = corner < 2;
        let tile_u = px.0 - at_u_max * 8.0;
        let column = (tile_u / 8.0 + 0.5).floor() as i32;
        let bottom_column = column.rem_euclid(4) == tile_of(Face::Bottom) as i32 % 4;
        let backwards = if bottom_column && !first_row {
            px.1 < 4.0
        } else {
            bottom_column && quad == 1
        };
        let at_v_max = if first_row == backwards { 1.0 } else { 0.0 };
        let tile_v = px.1 - at_v_max * 8.0;
        let row = (tile_v / 8.0 + 0.5).floor() as i32;
        assert!(
            (0..8).contains(&column) && (0..2).contains(&row),
            "{px:?} {vertex_id}"
        );
        let face = Face::ALL
            .iter()
            .position(|f| tile_of(*f) as i32 == row * 4 + column % 4)
            .expect("a face");
        let layer = (column / 4) as usize;
        let r = rects[(k * 2 + layer) * 6 + face];
        (r[0] + at_u_max * r[2], r[1] + at_v_max * r[3])
    }

    /// The corners of vanilla 1.20.1's `ModelPart.Cube` for a box at
    /// `(u, v)` of `w × h × d` px, in its quad order (down, up, west,
    /// north, east, south), each quad's corners at (u2, v1), (u1, v1),
    /// (u1, v2), (u2, v2). Our faces in that order: top, bottom, right,
    /// front, left, back.
    fn vanilla_cube(u: f32, v: f32, w: f32, h: f32, d: f32) -> Vec<(f32, f32)> {
        let quads = [
            (u + d, v, u + d + w, v + d),
            (u + d + w, v + d, u + d + 2.0 * w, v),
            (u, v + d, u + d, v + d + h),
            (u + d, v + d, u + d + w, v + d + h),
            (u + d + w, v + d, u + 2.0 * d + w, v + d + h),
            (u + 2.0 * d + w, v + d, u + 2.0 * d + 2.0 * w, v + d + h),
        ];
        quads
            .iter()
            .flat_map(|&(u1, v1, u2, v2)| [(u2, v1), (u1, v1), (u1, v2), (u2, v2)])
            .collect()
    }

    #[test]
    fn the_decode_maps_a_vanilla_skull_onto_each_slice_face_for_face() {
        let table = table();
        let rects: Vec<[f32; 4]> = rects_in(&vertex_shader(&table))
            .iter()
            .map(|r| r.map(f32::from))
            .collect();
        // The skull: base cube at (0, 0), hat at (32, 0), 8 px each way.
        let skull: Vec<(f32, f32)> = [0.0, 32.0]
            .iter()
            .flat_map(|&u| vanilla_cube(u, 0.0, 8.0, 8.0, 8.0))
            .collect();
        for (id, slice) in table.iter() {
            for (layer_index, layer) in Layer::ALL.iter().enumerate() {
                // What vanilla's cube code would give each corner if the
                // slice were a real box with these face rectangles.
                let mut expected = Vec::new();
                for (face_index, face) in Face::ALL.iter().enumerate() {
                    let r = slice.face_rect(*layer, *face);
                    let (x, y) = (f32::from(r.x_px), f32::from(r.y_px));
                    let (w, h) = (f32::from(r.width_px), f32::from(r.height_px));
                    let (v1, v2) = if face_index == 1 {
                        (y + h, y)
                    } else {
                        (y, y + h)
                    };
                    expected.extend([(x + w, v1), (x, v1), (x, v2), (x + w, v2)]);
                }
                for (i, want) in expected.iter().enumerate() {
                    let vertex = layer_index * 24 + i;
                    let got = slice_uv_port(skull[vertex], vertex, &rects, usize::from(id.index()));
                    assert_eq!(got, *want, "k {} {layer:?} vertex {vertex}", id.index());
                }
            }
        }
    }
}
