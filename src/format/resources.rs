//! `resources`: the item models and textures an Animation brings with it
//! for emoted's resource pack (what `emoted convert` writes for a
//! Blockbench model's textured cubes).
//!
//! # The model
//! An Animation may carry, under `metadata.emoted` (where every schema 4
//! server keeps it: `metadata` keeps any field), a `resources` object. A
//! top-level `resources`, where `emoted convert` wrote it before, is still
//! read, with a warning to move it.
//!
//! ```json
//! "metadata": {"name": "Textured", "emoted": {"resources": {
//!   "textures": {"skin": "data:image/png;base64,iVBORw0KGgo..."},
//!   "models": {
//!     "arm_cube": {
//!       "custom_model_data": 6123456,
//!       "textures": {"0": "skin"},
//!       "elements": [{"from": [0, 0, 0], "to": [16, 16, 16],
//!                     "faces": {"north": {"uv": [0, 0, 4, 8], "texture": "#0"}}}]
//!     }
//!   }
//! }}}
//! ```
//!
//! - A **texture** is a PNG as a `data:image/png;base64,` URI, at most
//!   [`MAX_TEXTURE_BYTES`] once decoded and [`MAX_TEXTURE_SIDE_PX`] pixels
//!   on a side; it is decoded when the file loads, so a bad one refuses the
//!   file with its pointer (and a reload keeps the last good version).
//! - A **model** is a Java item model of the [`IMPORTED_BASE_ITEM`] (paper)
//!   selected by its `custom_model_data`, which must lie in emoted's
//!   imported range ([`MODEL_DATA_RANGE`]) and be unique in the file. Its
//!   `textures` map the model's own keys to this file's texture names (the
//!   pack turns them into resource locations), and its `elements` are Java
//!   model elements without rotation: `from`/`to` within −16..32 px, each
//!   face's `uv` within 0..16, `texture` a `#key` of the model, `rotation`
//!   0, 90, 180 or 270. The item display that shows it carries
//!   `{id:"minecraft:paper",tag:{CustomModelData:N}}`; a node whose paper
//!   names a number in the range that no model of the file has gets a
//!   warning (it would show plain paper).
//!
//! Names are `[a-z0-9_.-]`, at most [`MAX_NAME_CHARS`] characters, so they
//! can be part of a resource location. Embedding keeps an emote one file:
//! it is checked, copied, put in a datapack and reloaded as one, and its
//! nodes' numbers never part from the models that draw them.

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine;
use serde_json::{json, Map, Value};

use super::node::{ItemContent, Node, NodeKind};
use super::problem::{join_pointer, Problems};

/// The item every imported model overrides.
pub const IMPORTED_BASE_ITEM: &str = "minecraft:paper";
/// emoted's range of `CustomModelData` for imported models: 0x500000 up
/// to 2^24 (exclusive), above the skin slices' `0x454D00 + k` and below
/// the point where the client's float comparison stops being exact.
pub const MODEL_DATA_RANGE: std::ops::Range<i32> = 0x50_0000..0x100_0000;
/// The largest texture, in bytes of PNG once decoded from base64.
pub const MAX_TEXTURE_BYTES: usize = 1024 * 1024;
/// The widest and tallest texture, pixels.
pub const MAX_TEXTURE_SIDE_PX: u32 = 1024;
/// The most textures one file may carry.
pub const MAX_TEXTURES: usize = 64;
/// The most models one file may carry.
pub const MAX_MODELS: usize = 1024;
/// The most elements one model may have.
pub const MAX_ELEMENTS: usize = 64;
/// The longest texture or model name.
pub const MAX_NAME_CHARS: usize = 64;
/// Where a model element may reach, px (Java item models' limit).
pub const ELEMENT_RANGE_PX: std::ops::RangeInclusive<f64> = -16.0..=32.0;
/// The prefix of a texture's data URI.
pub const PNG_DATA_URI_PREFIX: &str = "data:image/png;base64,";

/// A face of a model element, in Java's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Face {
    /// −Z.
    North,
    /// +X.
    East,
    /// +Z.
    South,
    /// −X.
    West,
    /// +Y.
    Up,
    /// −Y.
    Down,
}

impl Face {
    /// All six, in this order.
    pub const ALL: [Face; 6] = [
        Face::North,
        Face::East,
        Face::South,
        Face::West,
        Face::Up,
        Face::Down,
    ];

    /// The name in model JSON (and in Blockbench).
    pub fn name(self) -> &'static str {
        match self {
            Face::North => "north",
            Face::East => "east",
            Face::South => "south",
            Face::West => "west",
            Face::Up => "up",
            Face::Down => "down",
        }
    }
}

/// One face of an element.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelFace {
    /// `[u1, v1, u2, v2]` in the model's 0..16 texture units (u2 < u1 or
    /// v2 < v1 mirrors).
    pub uv: [f32; 4],
    /// The model's texture key, without `#`.
    pub texture_key: String,
    /// 0, 90, 180 or 270.
    pub rotation_deg: u16,
}

/// One element: an axis-aligned box with its faces.
#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    /// The corner with the smallest coordinates, px.
    pub from_px: [f32; 3],
    /// The opposite corner, px.
    pub to_px: [f32; 3],
    /// The faces drawn.
    pub faces: BTreeMap<Face, ModelFace>,
}

/// An item model of the base item.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemModel {
    /// The number that selects it.
    pub custom_model_data: i32,
    /// The model's texture keys to this file's texture names.
    pub textures: BTreeMap<String, String>,
    /// Its elements.
    pub elements: Vec<Element>,
}

/// A PNG texture, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Texture {
    /// The PNG file.
    pub png: Arc<[u8]>,
    /// Its width, px.
    pub width_px: u32,
    /// Its height, px.
    pub height_px: u32,
}

/// An Animation's `resources` (empty when it has none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resources {
    /// Textures by name.
    pub textures: BTreeMap<String, Texture>,
    /// Models by name.
    pub models: BTreeMap<String, ItemModel>,
}

impl Resources {
    /// True when there is nothing for the pack.
    pub fn is_empty(&self) -> bool {
        self.textures.is_empty() && self.models.is_empty()
    }

    /// The `resources` object as a file holds it.
    pub fn to_json(&self) -> Value {
        let textures: Map<String, Value> = self
            .textures
            .iter()
            .map(|(name, t)| (name.clone(), json!(png_data_uri(&t.png))))
            .collect();
        let models: Map<String, Value> = self
            .models
            .iter()
            .map(|(name, m)| {
                let mut object = Map::new();
                object.insert("custom_model_data".to_owned(), json!(m.custom_model_data));
                let mut rest = m.model_json(|name| name.to_owned());
                if let Some(rest) = rest.as_object_mut() {
                    object.append(rest);
                }
                (name.clone(), Value::Object(object))
            })
            .collect();
        json!({"textures": textures, "models": models})
    }
}

impl ItemModel {
    /// The model as Java reads it (`textures` and `elements`), each
    /// texture name given to `location` for what the model names.
    pub fn model_json(&self, location: impl Fn(&str) -> String) -> Value {
        let textures: Map<String, Value> = self
            .textures
            .iter()
            .map(|(key, name)| (key.clone(), json!(location(name))))
            .collect();
        let elements: Vec<Value> = self
            .elements
            .iter()
            .map(|e| {
                let faces: Map<String, Value> = e
                    .faces
                    .iter()
                    .map(|(face, f)| {
                        let mut object =
                            json!({"uv": f.uv, "texture": format!("#{}", f.texture_key)});
                        if f.rotation_deg != 0 {
                            object["rotation"] = json!(f.rotation_deg);
                        }
                        (face.name().to_owned(), object)
                    })
                    .collect();
                json!({"from": e.from_px, "to": e.to_px, "faces": faces})
            })
            .collect();
        json!({"textures": textures, "elements": elements})
    }
}

/// The `CustomModelData` `emote convert` gives model `model` of emote
/// `emote_id`: the 64-bit FNV-1a hash of `"<emote_id>\0<model>"` taken into
/// [`MODEL_DATA_RANGE`]. The same emote id and model name always give the
/// same number, so converting again does not change what a pack already
/// cached; two emotes' models rarely meet (11.5 million numbers: a pack
/// of 1,000 imported models has about a 4% chance of one pair), and when
/// they do the pack reports both files ([`crate::pack::imported`]).
/// Within one file the converter moves a taken number to the next free one.
pub fn model_data_for(emote_id: &str, model: &str) -> i32 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in emote_id.bytes().chain([0]).chain(model.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let span = (MODEL_DATA_RANGE.end - MODEL_DATA_RANGE.start) as u64;
    // The remainder is below the span, which fits an i32.
    MODEL_DATA_RANGE.start + (hash % span) as i32
}

/// `png` as a `data:image/png;base64,` URI.
pub fn png_data_uri(png: &[u8]) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(png);
    format!("{PNG_DATA_URI_PREFIX}{encoded}")
}

/// Why a texture was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextureError {
    /// Not a PNG data URI.
    #[error("a texture is a PNG as a `data:image/png;base64,...` URI; save the texture as PNG and embed it")]
    NotDataUri,
    /// The base64 text does not decode.
    #[error("the texture's base64 does not decode ({reason})")]
    Base64 {
        /// The decoder's words.
        reason: String,
    },
    /// Too many bytes.
    #[error("the texture is {size_bytes} bytes, over the {MAX_TEXTURE_BYTES}-byte limit; use a smaller texture")]
    TooLarge {
        /// Its decoded size.
        size_bytes: usize,
    },
    /// Not a PNG that decodes.
    #[error("the texture is not a PNG that decodes ({reason})")]
    NotPng {
        /// The decoder's words.
        reason: String,
    },
    /// Too many pixels on a side.
    #[error("the texture is {width_px}×{height_px} px, over {MAX_TEXTURE_SIDE_PX} px on a side; scale it down")]
    TooWide {
        /// Width, px.
        width_px: u32,
        /// Height, px.
        height_px: u32,
    },
}

/// Decodes and checks a texture's data URI (every rule of the module docs).
pub fn decode_png_data_uri(text: &str) -> Result<Texture, TextureError> {
    let Some(encoded) = text.trim().strip_prefix(PNG_DATA_URI_PREFIX) else {
        return Err(TextureError::NotDataUri);
    };
    // Four base64 characters carry three bytes: refuse before decoding.
    if encoded.len() / 4 * 3 > MAX_TEXTURE_BYTES + 3 {
        return Err(TextureError::TooLarge {
            size_bytes: encoded.len() / 4 * 3,
        });
    }
    let png = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|e| TextureError::Base64 {
            reason: e.to_string(),
        })?;
    check_png(png)
}

/// Checks a PNG file's size, header and pixels.
pub fn check_png(png: Vec<u8>) -> Result<Texture, TextureError> {
    if png.len() > MAX_TEXTURE_BYTES {
        return Err(TextureError::TooLarge {
            size_bytes: png.len(),
        });
    }
    // The header's size first, so a small file cannot claim a huge picture.
    let (width_px, height_px) = png_size_px(&png).ok_or_else(|| TextureError::NotPng {
        reason: "no PNG signature and IHDR header".to_owned(),
    })?;
    if width_px > MAX_TEXTURE_SIDE_PX || height_px > MAX_TEXTURE_SIDE_PX {
        return Err(TextureError::TooWide {
            width_px,
            height_px,
        });
    }
    lodepng::decode32(&png).map_err(|e| TextureError::NotPng {
        reason: e.to_string(),
    })?;
    Ok(Texture {
        png: png.into(),
        width_px,
        height_px,
    })
}

/// Width and height from a PNG's IHDR chunk.
fn png_size_px(png: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    let rest = png.strip_prefix(SIGNATURE)?;
    let ihdr = rest.get(4..16)?;
    if ihdr.get(..4)? != b"IHDR" {
        return None;
    }
    let number = |at: usize| -> Option<u32> {
        let bytes: [u8; 4] = ihdr.get(at..at + 4)?.try_into().ok()?;
        Some(u32::from_be_bytes(bytes))
    };
    Some((number(4)?, number(8)?))
}

/// True for a name the module docs allow.
pub fn is_resource_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_.-".contains(&b))
        && name != "."
        && name != ".."
}

/// The `CustomModelData` of a fixed paper stack, if it has one.
pub fn paper_model_data(node: &Node) -> Option<i32> {
    let NodeKind::Item {
        content: ItemContent::Stack(stack),
        ..
    } = &node.kind
    else {
        return None;
    };
    if stack.item != valence::prelude::ItemKind::Paper {
        return None;
    }
    match stack.nbt.as_ref()?.get("CustomModelData")? {
        valence::nbt::Value::Int(n) => Some(*n),
        _ => None,
    }
}

/// Warns for each node showing paper with a number in the imported range
/// that no model of `resources` has.
pub(crate) fn check_node_models(nodes: &[Node], resources: &Resources, problems: &mut Problems) {
    for node in nodes {
        let Some(number) = paper_model_data(node).filter(|n| MODEL_DATA_RANGE.contains(n)) else {
            continue;
        };
        if !resources
            .models
            .values()
            .any(|m| m.custom_model_data == number)
        {
            problems.warning(
                &join_pointer(&join_pointer("/nodes", &node.id), "item_stack_snbt"),
                format!(
                    "CustomModelData {number} is in emoted's imported range but no model in `resources.models` has it; the node shows plain paper unless another emote brings that model"
                ),
            );
        }
    }
}

mod read;
#[cfg(test)]
pub(crate) mod tests;

pub(crate) use self::read::read_resources;
