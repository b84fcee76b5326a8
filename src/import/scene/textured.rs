//! Textured cubes: a cube's item display node and the item model and
//! textures it brings (the module guide, [`super`], "Cubes", gives the
//! choice; this file the numbers).
//!
//! # The display
//! An item display draws its item model's 16³ box centred on the entity,
//! after turning it half a turn about Y (1.20.1's item display renderer
//! does `rotate(Y, π)` before the item renderer's `translate(−0.5)`). So a
//! model point `p` (px) lands at `R_y(π)·(p/16 − ½)` in the display
//! node's frame. The element is the whole box, `from [0, 0, 0]` to
//! `[16, 16, 16]`, and the node's transform is
//!
//! `T(min + size/2) · R_y(π) · S(size)`
//!
//! so that `p` lands at `min + size ⊙ p/16` (`R_y(π)` is `diag(−1, 1, −1)`:
//! it commutes with the scale and undoes the renderer's turn). The box's
//! north face (−Z in the cube's frame) is the model's north face, as in
//! Blockbench. `inflate` is already in the box, and a face's UVs stay the
//! cube's own, as Blockbench draws an inflated cube.
//!
//! # Numbers and names
//! Each model is named after its display node's id and numbered by
//! [`model_data_for`] (the emote id and the model name), moved to the next
//! free number when the file already uses one. Each texture is named
//! after the source's name (`Skin.png` → `skin`), made unique.

use std::collections::BTreeSet;

use glam::Vec3;
use serde_json::{json, Value};

use super::{CubeBox, SceneClip, SceneTexture};
use crate::format::resources::{
    is_resource_name, model_data_for, Element, Face, ItemModel, ModelFace, Resources,
    IMPORTED_BASE_ITEM, MAX_NAME_CHARS, MODEL_DATA_RANGE,
};
use crate::import::keys::round;

/// The smallest extent a cube's display is given, blocks: a flat cube (a
/// plane in Blockbench) still decomposes into a finite transform.
pub const MIN_CUBE_EXTENT_BLOCKS: f32 = 0.001;

/// The display node's transform for `cube` (module docs): position
/// (blocks), XYZ Euler degrees, scale.
pub fn cube_display_transform(cube: &CubeBox) -> (Vec3, Vec3, Vec3) {
    let size = cube.size_blocks.max(Vec3::splat(MIN_CUBE_EXTENT_BLOCKS));
    (
        cube.min_blocks + cube.size_blocks / 2.0,
        Vec3::new(0.0, 180.0, 0.0),
        size,
    )
}

/// A source texture name as a resource name: lower case, `.png` dropped,
/// other characters `_`, unique among `taken`.
pub fn texture_name(source: &str, taken: &mut BTreeSet<String>) -> String {
    let stem = source
        .strip_suffix(".png")
        .or_else(|| source.strip_suffix(".PNG"))
        .unwrap_or(source);
    let mut base: String = stem
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| {
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME_CHARS - 4)
        .collect();
    if base.is_empty() {
        base.push_str("texture");
    }
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) || !is_resource_name(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// Builds the textured cubes of one clip and the `resources` they need.
pub(super) struct TexturedCubes<'a> {
    emote_id: &'a str,
    textures: &'a [SceneTexture],
    /// The resource name of each texture, once a model uses it.
    names: Vec<Option<String>>,
    taken_names: BTreeSet<String>,
    numbers: BTreeSet<i32>,
    resources: Resources,
}

impl<'a> TexturedCubes<'a> {
    /// Nothing built yet for `clip`.
    pub(super) fn new(clip: &'a SceneClip) -> TexturedCubes<'a> {
        TexturedCubes {
            emote_id: &clip.id,
            textures: &clip.textures,
            names: vec![None; clip.textures.len()],
            taken_names: BTreeSet::new(),
            numbers: BTreeSet::new(),
            resources: Resources::default(),
        }
    }

    /// The item display node that draws `cube` as node `cube_id` under
    /// `parent_id`, its model added; `None` when the cube is untextured.
    pub(super) fn display(
        &mut self,
        cube: &CubeBox,
        cube_id: &str,
        parent_id: &str,
    ) -> Option<Value> {
        let faces = cube.faces.as_deref()?;
        if faces
            .iter()
            .flatten()
            .any(|f| f.texture >= self.textures.len())
            || faces.iter().all(Option::is_none)
        {
            return None;
        }
        let mut model = ItemModel {
            custom_model_data: self.number(cube_id),
            textures: Default::default(),
            elements: Vec::new(),
        };
        let mut element = Element {
            from_px: [0.0; 3],
            to_px: [16.0; 3],
            faces: Default::default(),
        };
        for (face, cube_face) in Face::ALL.into_iter().zip(faces.iter().copied()) {
            let Some(cube_face) = cube_face else {
                continue;
            };
            let key = cube_face.texture.to_string();
            let name = self.texture(cube_face.texture)?;
            model.textures.insert(key.clone(), name);
            element.faces.insert(
                face,
                ModelFace {
                    uv: cube_face.uv.map(|c| (c * 1e4).round() / 1e4),
                    texture_key: key,
                    rotation_deg: cube_face.rotation_deg,
                },
            );
        }
        model.elements.push(element);
        let number = model.custom_model_data;
        self.resources.models.insert(cube_id.to_owned(), model);
        let (position, rotation, scale) = cube_display_transform(cube);
        Some(json!({
            "type": "item_display",
            "parent": parent_id,
            "item_display": "none",
            "item_stack_snbt": format!("{{id:\"{IMPORTED_BASE_ITEM}\",Count:1b,tag:{{CustomModelData:{number}}}}}"),
            "transform": {
                "position": round(position, 1e6),
                "rotation": round(rotation, 1e4),
                "scale": round(scale, 1e6),
            },
        }))
    }

    /// The resources built.
    pub(super) fn into_resources(self) -> Resources {
        self.resources
    }

    /// A free number for model `name`.
    fn number(&mut self, name: &str) -> i32 {
        let mut number = model_data_for(self.emote_id, name);
        while !self.numbers.insert(number) {
            number = if number + 1 >= MODEL_DATA_RANGE.end {
                MODEL_DATA_RANGE.start
            } else {
                number + 1
            };
        }
        number
    }

    /// The resource name of texture `index`, adding it to the resources
    /// the first time.
    fn texture(&mut self, index: usize) -> Option<String> {
        if let Some(name) = self.names.get(index)?.clone() {
            return Some(name);
        }
        let source = self.textures.get(index)?;
        let name = texture_name(&source.name, &mut self.taken_names);
        self.resources
            .textures
            .insert(name.clone(), source.texture.clone());
        if let Some(slot) = self.names.get_mut(index) {
            *slot = Some(name.clone());
        }
        Some(name)
    }
}

#[cfg(test)]
mod tests {
    use glam::{Affine3A, Quat};

    use super::*;
    use crate::anim::quat_from_euler_degrees;

    /// The display transform carries every model corner onto the box: a
    /// 0.5 × 0.25 × 0.125 box at (−0.25, 0, 0.5), hand-worked.
    #[test]
    fn model_corners_land_on_the_box_corners() {
        let cube = CubeBox {
            min_blocks: Vec3::new(-0.25, 0.0, 0.5),
            size_blocks: Vec3::new(0.5, 0.25, 0.125),
            faces: None,
        };
        let (position, rotation, scale) = cube_display_transform(&cube);
        assert_eq!(position, Vec3::new(0.0, 0.125, 0.5625));
        assert_eq!(rotation, Vec3::new(0.0, 180.0, 0.0));
        assert_eq!(scale, Vec3::new(0.5, 0.25, 0.125));
        let node = Affine3A::from_scale_rotation_translation(
            scale,
            quat_from_euler_degrees(rotation),
            position,
        );
        // What the item display renderer does to a model point p (px).
        let renderer = |p: Vec3| Quat::from_rotation_y(std::f32::consts::PI) * (p / 16.0 - 0.5);
        for (model_px, expected) in [
            (Vec3::ZERO, cube.min_blocks),
            (Vec3::splat(16.0), cube.min_blocks + cube.size_blocks),
            // The model's north-west-bottom corner (x 0, z 0) is the box's.
            (Vec3::new(0.0, 16.0, 0.0), Vec3::new(-0.25, 0.25, 0.5)),
            (Vec3::new(16.0, 0.0, 8.0), Vec3::new(0.25, 0.0, 0.5625)),
        ] {
            let at = node.transform_point3(renderer(model_px));
            assert!(
                at.abs_diff_eq(expected, 1e-6),
                "{model_px} → {at}, not {expected}"
            );
        }
    }

    #[test]
    fn texture_names_are_resource_names_and_unique() {
        let mut taken = BTreeSet::new();
        assert_eq!(texture_name("Skin Main.png", &mut taken), "skin_main");
        assert_eq!(texture_name("skin main", &mut taken), "skin_main_2");
        assert_eq!(texture_name(".png", &mut taken), "texture");
        assert!(taken.iter().all(|n| is_resource_name(n)));
    }

    #[test]
    fn numbers_are_stable_and_in_range() {
        let a = model_data_for("converted:wave", "arm_cube");
        assert_eq!(a, model_data_for("converted:wave", "arm_cube"));
        assert_ne!(a, model_data_for("converted:wave2", "arm_cube"));
        assert!(MODEL_DATA_RANGE.contains(&a));
    }
}
