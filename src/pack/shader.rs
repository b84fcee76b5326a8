//! The core shader: our own `rendertype_entity_translucent` for 1.20.1.
//!
//! 1.20.1 draws a player-head skull that has a skin texture with the
//! `entity_translucent` render type, so replacing that one program (its
//! `.json`, `.vsh` and `.fsh`) reaches every skin-bound display.
//!
//! ## The model
//! A **twin** is a skull that emoted moved `512·k` blocks down (k ≥ 1):
//! slice k of a player's body. The vertex stage
//! (`shaders/rendertype_entity_translucent.vsh`) decodes k from the
//! vertex's world-space height below the camera, moves the vertex back up
//! and passes k on. The fragment stage (`….fsh`) finds the skull face and
//! layer from the fragment's own interpolated UV (each face of the skull's
//! two 8×8×8 box-UV cubes is one 8×8 tile of the skin) and maps the
//! fragment's place in that tile linearly onto slice k's rectangle of the
//! same face and layer. Nothing depends on the order in which a client
//! writes a cube's faces or corners: vanilla writes down, up, west, north,
//! east, south; Sodium 0.5.0–0.5.3 east, west, down, up, north, south;
//! Sodium 0.5.6 and later down, up, north, south, east, west; all
//! three give each face the same UV rectangle, so a fragment's UV lies in
//! the same tile. `tests/render_twins.rs` renders all three.
//!
//! **Edges.** A fragment on a face's edge can be interpolated a hair (float
//! rounding, about 10⁻⁵ texel) into the next tile. Across the side–side
//! and cap–front tile edges that tile is the face across the same 3D edge,
//! and its edge texel is the one the neighbouring face shows there, as in
//! vanilla; a fragment that lands in a layer's unused corner tile goes to
//! the nearer face beside it; and every sample is kept inside the chosen
//! face's rectangle, so a cut slice never shows rows it does not own. What
//! is left are the three tile edges of a layer that are not box edges: a
//! pixel centre lying within that hair of the edge where the two caps'
//! tiles touch, of the bottom cap's front edge (its tile borders the left
//! side's) or of the base back's outer edge (it borders the hat's right
//! side) can take the other tile's edge texel, as a vanilla player's
//! pixel exactly on a face's texture edge can take the texel beyond it. The render test (`tests/render/README.md`) compares every pixel
//! with a `PlayerModel` drawn by the same program and forgives only lone
//! pixels whose colour is one pixel away.
//!
//! **Overlay pixels of twins are all-or-nothing**: texel alpha under 0.5 is
//! cut and the rest is drawn opaque, so the order in which translucent
//! geometry is sorted (by the positions 512·k blocks down) cannot change
//! them. Vanilla geometry keeps vanilla's cut at 0.1 and its blending.
//!
//! ## The gate
//! Geometry that is not a twin must be drawn untouched: a player or a worn
//! head 256+ blocks below the camera decodes as some k too. A vertex is a
//! twin's only when all of these hold:
//!
//! 1. it is drawn in the world (perspective) from a 64×64 skin;
//! 2. it lies `512·k` blocks below the camera with `1 ≤ k <` the table's
//!    length, and moved back up it is within [`TWIN_RADIUS_BLOCKS`] of the
//!    camera (the server clamps every twin's view range to ≤ 0.78, 250
//!    blocks at the client's largest entity distance, so a twin always is);
//! 3. its packed light (`UV2`) is the fixed brightness
//!    [`TWIN_BLOCK_LIGHT`]/[`TWIN_SKY_LIGHT`] that the server sends on
//!    every twin ([`twin_brightness_packed`]).
//!
//! What each costs and leaves: (2) alone is no real band, since a twin may
//! be anywhere within 250 blocks; it drops only geometry that would land
//! more than 256 blocks from the camera. (3) is what separates: a display's
//! brightness override is the one per-vertex input the server controls
//! that a player model or a worn head does not share (their light is what
//! the client finds where they stand; vertex colour and overlay are the
//! same for a display's skull and a worn head). Its cost is that twins do
//! not follow the world's light. On a valence server that costs nothing:
//! valence sends no light data and gives every dimension full ambient
//! light, so every light level draws alike. In a world with real light,
//! twins would stay lit as under open sky in caves and at night.
//!
//! What is left: a bystander 256–320 blocks below the camera (320 is the
//! farthest a client draws a player, at 500 % entity distance) that the
//! client lights at exactly block light 1 and sky light 15 (the fringe of a
//! torch's light under open sky) is still drawn 512 blocks higher. A
//! bystander 256 blocks down lit otherwise, and everything nearer, is drawn
//! untouched. The item models' transform cannot carry a mark the shader
//! could read: it only moves and scales the skull, as a node's own
//! transform does.
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

/// The line of the vertex template that the generated defines replace.
const DEFINES_MARKER: &str = "//@SLICE_DEFINES@";

/// The line of the fragment template that the generated tables replace.
const TABLES_MARKER: &str = "//@SLICE_TABLES@";

const VERTEX_TEMPLATE: &str = include_str!("shaders/rendertype_entity_translucent.vsh");
const FRAGMENT_TEMPLATE: &str = include_str!("shaders/rendertype_entity_translucent.fsh");

/// The block light of every twin's brightness override: part of the
/// shader's gate (see the module docs). Anything else is lit like this
/// only at the fringe of a torch's light under open sky.
pub const TWIN_BLOCK_LIGHT: u8 = 1;

/// The sky light of every twin's brightness override (see
/// [`TWIN_BLOCK_LIGHT`]).
pub const TWIN_SKY_LIGHT: u8 = 15;

/// How far from the camera (in blocks) a twin can be once moved back up:
/// half the slice spacing, the decode window. The server keeps every twin
/// nearer (view range ≤ 0.78 is 250 blocks at the largest entity distance).
pub const TWIN_RADIUS_BLOCKS: f32 = SLICE_SPACING_BLOCKS / 2.0;

/// How far (in pixels) a twin's sample stays inside its face's rectangle.
const EDGE_INSET_PX: f32 = 0.001;

/// The display entity `brightness` value (block light · 16 + sky light ·
/// 2²⁰, as 1.20.1 packs it) that the server must send on every twin, and
/// only on twins: the vertex stage remaps nothing else.
pub fn twin_brightness_packed() -> i32 {
    (i32::from(TWIN_BLOCK_LIGHT) << 4) | (i32::from(TWIN_SKY_LIGHT) << 20)
}

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

/// The GLSL defines both stages share: spacing, count, skin size and the
/// gate's constants.
pub fn slice_defines_glsl(table: &SliceTable) -> String {
    let head = part_layout(BodyPart::Head, false);
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
    let _ = writeln!(out, "#define TWIN_RADIUS {TWIN_RADIUS_BLOCKS:.1}");
    let _ = writeln!(
        out,
        "// A twin's packed light: block light {TWIN_BLOCK_LIGHT}, sky light {TWIN_SKY_LIGHT}.\n\
         #define TWIN_UV2 ivec2({}, {})",
        u16::from(TWIN_BLOCK_LIGHT) * 16,
        u16::from(TWIN_SKY_LIGHT) * 16
    );
    out
}

/// The GLSL constants of the fragment stage for `table`: the shared
/// defines, the skull's tile map and every slice's face rectangles.
pub fn slice_tables_glsl(table: &SliceTable) -> String {
    let mut faces_of_tiles = [-1i32; 8];
    for (index, face) in Face::ALL.iter().enumerate() {
        if let Some(slot) = faces_of_tiles.get_mut(tile_of(*face)) {
            *slot = index as i32;
        }
    }
    let mut out = slice_defines_glsl(table);
    let _ = writeln!(out, "#define EDGE_INSET {EDGE_INSET_PX:.3}");
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
    VERTEX_TEMPLATE.replacen(DEFINES_MARKER, slice_defines_glsl(table).trim_end(), 1)
}

/// The fragment shader for `table`.
pub fn fragment_shader(table: &SliceTable) -> String {
    FRAGMENT_TEMPLATE.replacen(TABLES_MARKER, slice_tables_glsl(table).trim_end(), 1)
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
        (path("fsh"), fragment_shader(table).into_bytes()),
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
        let glsl = fragment_shader(&table);
        assert!(!glsl.contains(TABLES_MARKER));
        assert!(glsl.contains(&format!("#define SLICE_COUNT {}", table.len())));
        assert!(glsl.contains("const int FACE_OF_TILE[8] = int[](-1, 0, 1, -1, 2, 3, 4, 5);"));
        // The vertex stage gets the defines (the gate's among them), not the tables.
        let vertex = vertex_shader(&table);
        assert!(!vertex.contains(DEFINES_MARKER) && !vertex.contains("SLICE_RECTS"));
        assert!(vertex.contains(&format!("#define SLICE_COUNT {}", table.len())));
        assert!(vertex.contains("#define TWIN_UV2 ivec2(16, 240)"));
        assert!(vertex.contains("#define TWIN_RADIUS 256.0"));
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

    /// The fragment stage's `sliceUv`, step for step, in pixels.
    fn slice_uv_port(px: (f32, f32), rects: &[[f32; 4]], k: usize) -> (f32, f32) {
        let side = 8.0;
        let mut tile = (
            (px.0 / side).floor().clamp(0.0, 7.0),
            (px.1 / side).floor().clamp(0.0, 1.0),
        );
        let mut within = (
            (px.0 / side - tile.0).clamp(0.0, 1.0),
            (px.1 / side - tile.1).clamp(0.0, 1.0),
        );
        let mut column = tile.0 as usize;
        let faces = [-1, 0, 1, -1, 2, 3, 4, 5];
        let mut face = faces[tile.1 as usize * 4 + column % 4];
        if face < 0 {
            let left = column % 4 == 0;
            let to_cap = if left { 1.0 - within.0 } else { within.0 };
            if to_cap < 1.0 - within.1 {
                column = if left { column + 1 } else { column - 1 };
                within.0 = if left { 0.0 } else { 1.0 };
            } else {
                within.1 = 0.0;
                tile.1 = 1.0;
            }
            face = faces[tile.1 as usize * 4 + column % 4];
        }
        let r = rects[(k * 2 + column / 4) * 6 + face as usize];
        let inset = EDGE_INSET_PX;
        (
            (r[0] + within.0 * r[2]).clamp(r[0] + inset, r[0] + r[2] - inset),
            (r[1] + within.1 * r[3]).clamp(r[1] + inset, r[1] + r[3] - inset),
        )
    }

    /// The point at `(s, t)` of a quad's corners, bilinearly.
    fn lerp_quad(corners: &[(f32, f32)], s: f32, t: f32) -> (f32, f32) {
        let mix =
            |a: (f32, f32), b: (f32, f32), f: f32| (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f);
        mix(
            mix(corners[0], corners[1], s),
            mix(corners[3], corners[2], s),
            t,
        )
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
    fn the_remap_maps_every_point_of_a_vanilla_skull_onto_each_slice_face() {
        let table = table();
        let rects: Vec<[f32; 4]> = rects_in(&fragment_shader(&table))
            .iter()
            .map(|r| r.map(f32::from))
            .collect();
        // The skull: base cube at (0, 0), hat at (32, 0), 8 px each way.
        let skull: Vec<(f32, f32)> = [0.0, 32.0]
            .iter()
            .flat_map(|&u| vanilla_cube(u, 0.0, 8.0, 8.0, 8.0))
            .collect();
        // Points inside each quad, a hair from its edges included; and its
        // edges and a hair beyond them.
        let inside = [1e-3, 0.3, 0.5, 0.9, 1.0 - 1e-3];
        let edges = [-1e-5, 0.0, 1.0, 1.0 + 1e-5];
        for (id, slice) in table.iter() {
            for (layer_index, layer) in Layer::ALL.iter().enumerate() {
                for (face_index, face) in Face::ALL.iter().enumerate() {
                    // What vanilla's cube code gives this face's corners if
                    // the slice were a real box with these rectangles.
                    let r = slice.face_rect(*layer, *face);
                    let (x, y) = (f32::from(r.x_px), f32::from(r.y_px));
                    let (w, h) = (f32::from(r.width_px), f32::from(r.height_px));
                    let (v1, v2) = if face_index == 1 {
                        (y + h, y)
                    } else {
                        (y, y + h)
                    };
                    let want = [(x + w, v1), (x, v1), (x, v2), (x + w, v2)];
                    let quad = (layer_index * 6 + face_index) * 4;
                    let corners = &skull[quad..quad + 4];
                    let k = usize::from(id.index());
                    for s in inside {
                        for t in inside {
                            let got = slice_uv_port(lerp_quad(corners, s, t), &rects, k);
                            let expected = lerp_quad(&want, s, t);
                            assert!(
                                (got.0 - expected.0).abs() <= 1e-3
                                    && (got.1 - expected.1).abs() <= 1e-3,
                                "k {k} {layer:?} {face:?} at ({s}, {t}): {got:?}, not {expected:?}"
                            );
                        }
                    }
                    // On and a hair off an edge, a fragment samples inside
                    // one of slice k's own rectangles (that face's or the
                    // neighbouring tile's face's), never outside them.
                    for s in edges.iter().chain(&inside) {
                        for t in edges {
                            for (s, t) in [(*s, t), (t, *s)] {
                                let got = slice_uv_port(lerp_quad(corners, s, t), &rects, k);
                                let owned = rects[k * 12..k * 12 + 12].iter().any(|r| {
                                    (r[0]..=r[0] + r[2]).contains(&got.0)
                                        && (r[1]..=r[1] + r[3]).contains(&got.1)
                                });
                                assert!(owned, "k {k} {layer:?} {face:?} at ({s}, {t}): {got:?}");
                            }
                        }
                    }
                }
            }
        }
    }
}
