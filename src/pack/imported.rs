//! Imported models: the item models and textures loaded emotes carry in
//! their `resources` ([`crate::format::resources`], what `emoted convert`
//! writes for a Blockbench model's textured cubes), as pack files.
//!
//! # Paths
//! Emote `ns:path`'s files live under its own folder, so two emotes never
//! write the same file:
//!
//! - model `m`: `assets/emoted/models/item/imported/ns/path/m.json`, model
//!   id `emoted:item/imported/ns/path/m`, its `textures` rewritten from the
//!   emote's texture names to
//! - texture `t`: `assets/emoted/textures/item/imported/ns/path/t.png`,
//!   resource location `emoted:item/imported/ns/path/t`.
//!
//! # Overrides
//! Every model is drawn on [`IMPORTED_BASE_ITEM`] (paper):
//! [`BASE_ITEM_MODEL_PATH`] keeps vanilla's paper (`item/generated` with
//! `item/paper`) and lists one override per model, `custom_model_data` →
//! model id, in ascending order (the client takes the last match). It is
//! written only when some emote brings a model, so a library without
//! imported models gives the same pack as before.
//!
//! # Collisions
//! Numbers come from each emote's file ([`model_data_for`] when converted),
//! so two emotes can name one number. Emotes are taken in id order: the
//! first keeps the number, the later one's model is left out of the
//! overrides (its displays show the first one's model), and a
//! [`ModelCollision`] names both files and what to do. Collisions are
//! reported when the pack is built: the server logs them as errors, and
//! `emoted pack` prints them.
//!
//! [`model_data_for`]: crate::format::resources::model_data_for

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::format::resources::IMPORTED_BASE_ITEM;
use crate::format::EmoteFile;
use crate::library::Library;

/// The pack path of the base item's model.
pub const BASE_ITEM_MODEL_PATH: &str = "assets/minecraft/models/item/paper.json";

/// Where the models and textures of emote `id` go: `imported/ns/path`.
pub fn emote_folder(id: &str) -> String {
    let (namespace, path) = id.split_once(':').unwrap_or(("minecraft", id));
    format!("imported/{namespace}/{path}")
}

/// One side of a collision: a model of an emote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelOwner {
    /// The emote file.
    pub file: PathBuf,
    /// The emote id.
    pub emote: String,
    /// The model's name in its `resources.models`.
    pub model: String,
}

impl fmt::Display for ModelOwner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "model `{}` of `{}` ({})",
            self.model,
            self.emote,
            self.file.display()
        )
    }
}

/// Two emotes' models with one `CustomModelData`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelCollision {
    /// The number both use.
    pub custom_model_data: i32,
    /// The model the override names (the emote first by id).
    pub kept: ModelOwner,
    /// The model left out.
    pub left_out: ModelOwner,
}

impl fmt::Display for ModelCollision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "CustomModelData {} is used by {} and by {}; the pack keeps the first, so `{}`'s displays show the wrong model. Convert one of them again under another id (`emoted convert --namespace`, or rename its `id`), which gives its models new numbers",
            self.custom_model_data, self.kept, self.left_out, self.left_out.emote
        )
    }
}

/// The imported models of a library as pack files.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportedModels {
    /// Pack path and contents: models, textures and, when there is any
    /// model, [`BASE_ITEM_MODEL_PATH`].
    pub files: Vec<(String, Vec<u8>)>,
    /// The overrides written, by number.
    pub overrides: BTreeMap<i32, String>,
    /// Models left out because their number was taken.
    pub collisions: Vec<ModelCollision>,
}

fn pretty(value: &Value) -> Vec<u8> {
    let mut text = serde_json::to_vec_pretty(value).unwrap_or_default();
    text.push(b'\n');
    text
}

/// The pack files of every imported model `library` holds (module docs).
pub fn imported_models(library: &Library) -> ImportedModels {
    let mut out = ImportedModels::default();
    let mut owners: BTreeMap<i32, ModelOwner> = BTreeMap::new();
    for (id, emote) in library.iter() {
        let EmoteFile::Animation(animation) = &*emote.file else {
            continue;
        };
        let resources = &animation.resources;
        if resources.is_empty() {
            continue;
        }
        let folder = emote_folder(id.as_str());
        for (name, texture) in &resources.textures {
            out.files.push((
                format!("assets/emoted/textures/item/{folder}/{name}.png"),
                texture.png.to_vec(),
            ));
        }
        for (name, model) in &resources.models {
            let owner = ModelOwner {
                file: emote.path.clone(),
                emote: id.to_string(),
                model: name.clone(),
            };
            let number = model.custom_model_data;
            if let Some(kept) = owners.get(&number) {
                out.collisions.push(ModelCollision {
                    custom_model_data: number,
                    kept: kept.clone(),
                    left_out: owner,
                });
                continue;
            }
            owners.insert(number, owner);
            let body = model.model_json(|texture| format!("emoted:item/{folder}/{texture}"));
            out.files.push((
                format!("assets/emoted/models/item/{folder}/{name}.json"),
                pretty(&body),
            ));
            out.overrides
                .insert(number, format!("emoted:item/{folder}/{name}"));
        }
    }
    if !out.overrides.is_empty() {
        out.files.push((
            BASE_ITEM_MODEL_PATH.to_owned(),
            base_item_model(&out.overrides),
        ));
    }
    out
}

/// The paper item model: vanilla's look plus `overrides` in ascending
/// order.
pub fn base_item_model(overrides: &BTreeMap<i32, String>) -> Vec<u8> {
    let list: Vec<Value> = overrides
        .iter()
        .map(|(number, model)| json!({"predicate": {"custom_model_data": number}, "model": model}))
        .collect();
    let item = IMPORTED_BASE_ITEM.trim_start_matches("minecraft:");
    pretty(&json!({
        "parent": "minecraft:item/generated",
        "textures": {"layer0": format!("minecraft:item/{item}")},
        "overrides": list,
    }))
}

#[cfg(test)]
mod tests;
