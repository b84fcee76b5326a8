//! emoted's resource pack: what lets a vanilla 1.20.1 client draw a
//! skin-bound display as one part of the player's own body.
//!
//! The design (A2 in `skin-binding-notes.md`): every skin-bound node is a
//! `player_head` item display wearing the participant's profile. The server
//! moves it `512·k` blocks down, where k ([`ids::SliceId`]) names the
//! part and slice it shows; the pack's core shader ([`shader`]) finds k
//! from that height, moves the skull back and draws it with that slice's
//! rectangles of the player's skin instead of the head's. The item models
//! ([`models`]) give each k a `CustomModelData` and the display transform
//! that turns the skull the rig's way and narrows slim arms.
//!
//! - [`skin_uv`]: the one table of the skin's layout and its slices;
//! - [`ids`]: the slice ids k the loaded emotes need;
//! - [`slices`]: which rows of a part each node shows (the slicing rule),
//!   and which slices the loaded emotes need;
//! - [`shader`], [`models`]: the files generated from the table;
//! - [`profile`]: whose skin a display wears and whether its arms are slim;
//! - [`imported`]: the item models and textures emotes bring in their
//!   `resources` (converted Blockbench cubes), drawn on paper by
//!   `CustomModelData`, with the collisions between emotes reported;
//! - [`ResourcePack`] (here): puts them, `pack.mcmeta` (`pack_format` 15)
//!   and any later files into one zip, the same bytes and SHA-1 for the
//!   same input;
//! - [`admin_pack`], [`merge`]: an admin's own pack (`resource_pack.merge`),
//!   read within size caps and merged into ours, since a 1.20.1 client
//!   takes one server pack only.
//!
//! Serving the pack, offering it at join and dressing the displays are the
//! server's business; this module names no valence type.

pub mod admin_pack;
pub mod ids;
pub mod imported;
pub mod merge;
pub mod models;
pub mod profile;
pub mod shader;
pub mod skin_uv;
pub mod slices;

use std::collections::BTreeMap;
use std::io::{Cursor, Write};

use serde_json::{Map, Value};
use sha1::{Digest, Sha1};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use crate::library::Library;
use admin_pack::AdminPack;
use ids::SliceTable;
use imported::{imported_models, ModelCollision};
use merge::MergeConflict;

/// The `pack_format` of Minecraft 1.20.1.
pub const PACK_FORMAT: u32 = 15;

/// The description `pack.mcmeta` carries by default.
pub const DEFAULT_DESCRIPTION: &str = "emoted: emotes drawn with your own skin";

/// What can go wrong while putting a pack together.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// A file's path is not a plain relative path inside the pack.
    #[error("`{path}` is not a pack path: {reason}; use a relative path with `/` between names, such as assets/<namespace>/models/item/x.json")]
    BadPath {
        /// The path given.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Two files with one path.
    #[error("the pack already has `{path}`: each file is added once")]
    Duplicate {
        /// The path given twice.
        path: String,
    },
    /// The zip writer failed (it writes to memory, so this is unexpected).
    #[error("cannot write the pack's zip: {source}")]
    Zip {
        /// The writer's error.
        #[from]
        source: zip::result::ZipError,
    },
}

/// A pack being put together: files by path.
#[derive(Clone, Debug)]
pub struct ResourcePack {
    /// `pack.description`: a text component (a JSON string, or an object
    /// or array when an admin's pack brought one).
    description: Value,
    /// `pack.mcmeta`'s sections besides `pack` (`language`, `filter`...),
    /// from a merged admin pack.
    mcmeta_sections: Map<String, Value>,
    files: BTreeMap<String, Vec<u8>>,
}

/// emoted's pack for a library, built, with the table that numbers its
/// slices and what merging an admin's pack met ([`merge`]).
#[derive(Clone, Debug)]
pub struct LibraryPack {
    /// The zip and its SHA-1.
    pub built: BuiltPack,
    /// The slice ids the pack draws.
    pub table: SliceTable,
    /// The paths both packs had and who won each, sorted by path; empty
    /// without an admin pack.
    pub conflicts: Vec<MergeConflict>,
    /// Imported models left out because another emote's took their number
    /// ([`imported`]).
    pub collisions: Vec<ModelCollision>,
}

impl LibraryPack {
    /// One line per problem worth telling the admin: slices left without
    /// an id and imported models whose number another emote took.
    pub fn warnings(&self) -> impl Iterator<Item = String> + '_ {
        self.table
            .left_out_warnings()
            .chain(self.collisions.iter().map(ToString::to_string))
    }
}

/// A built pack: the zip and its SHA-1, as a client checks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltPack {
    /// The zip file.
    pub zip_bytes: Vec<u8>,
    /// The zip's SHA-1 as 40 lower-case hex digits.
    pub sha1_hex: String,
}

impl ResourcePack {
    /// emoted's pack for `table`: the item models and the core shader.
    pub fn new(table: &SliceTable) -> ResourcePack {
        let mut files = BTreeMap::new();
        for (path, bytes) in models::model_files(table)
            .into_iter()
            .chain(shader::shader_files(table))
        {
            files.insert(path, bytes);
        }
        ResourcePack {
            description: Value::String(DEFAULT_DESCRIPTION.to_owned()),
            mcmeta_sections: Map::new(),
            files,
        }
    }

    /// emoted's pack for the slices `library`'s emotes need, with the table
    /// that numbers them (the server gives each display its id from it),
    /// and the imported models its emotes bring ([`imported`]).
    pub fn for_library(library: &Library) -> (ResourcePack, SliceTable) {
        let (pack, table, _) = ResourcePack::assemble(library);
        (pack, table)
    }

    /// [`ResourcePack::for_library`], with the imported models' collisions.
    fn assemble(library: &Library) -> (ResourcePack, SliceTable, Vec<ModelCollision>) {
        let table = SliceTable::new(slices::library_slices(library));
        let mut pack = ResourcePack::new(&table);
        let imported = imported_models(library);
        for (path, bytes) in imported.files {
            // Emote folders keep the paths apart (see `imported`).
            pack.files.insert(path, bytes);
        }
        (pack, table, imported.collisions)
    }

    /// emoted's pack for `library`, merged with the admin's pack if any
    /// ([`ResourcePack::merge`]), built: what the server serves and `emoted
    /// pack` writes, one path for both. The table says which slices found
    /// no id ([`SliceTable::left_out_warnings`]).
    pub fn build_for_library(
        library: &Library,
        admin: Option<AdminPack>,
    ) -> Result<LibraryPack, PackError> {
        let (mut pack, table, collisions) = ResourcePack::assemble(library);
        let conflicts = match admin {
            Some(admin) => pack.merge(admin),
            None => Vec::new(),
        };
        Ok(LibraryPack {
            built: pack.build()?,
            table,
            conflicts,
            collisions,
        })
    }

    /// Sets the description `pack.mcmeta` carries.
    pub fn set_description(&mut self, description: impl Into<String>) {
        self.description = Value::String(description.into());
    }

    /// The description `pack.mcmeta` carries: a text component, most often
    /// a JSON string.
    pub fn description(&self) -> &Value {
        &self.description
    }

    /// Adds a file (an imported model, a texture...) at `path`, relative to
    /// the pack's root. `pack.mcmeta` is written by [`build`](Self::build).
    pub fn add_file(&mut self, path: &str, bytes: Vec<u8>) -> Result<(), PackError> {
        check_path(path)?;
        if self.files.contains_key(path) || path == "pack.mcmeta" {
            return Err(PackError::Duplicate {
                path: path.to_owned(),
            });
        }
        self.files.insert(path.to_owned(), bytes);
        Ok(())
    }

    /// True when the pack has a file at `path`.
    pub fn contains(&self, path: &str) -> bool {
        path == "pack.mcmeta" || self.files.contains_key(path)
    }

    /// Every file's path but `pack.mcmeta`, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// The `pack.mcmeta` file: `pack` with [`PACK_FORMAT`] and the
    /// description, then the sections a merged admin pack brought.
    pub fn pack_mcmeta(&self) -> Vec<u8> {
        let mut meta = self.mcmeta_sections.clone();
        meta.insert(
            "pack".to_owned(),
            serde_json::json!({"pack_format": PACK_FORMAT, "description": self.description}),
        );
        let mut text = serde_json::to_vec_pretty(&Value::Object(meta)).unwrap_or_default();
        text.push(b'\n');
        text
    }

    /// The zip and its SHA-1. The same files give the same bytes: entries
    /// sorted by path, every timestamp 1980-01-01 00:00, mode 0644, deflate
    /// at level 6, except PNG and Ogg files (an admin's textures and
    /// sounds), stored as they are: they are compressed already, and
    /// deflating them again would cost the rebuild time for nothing.
    pub fn build(&self) -> Result<BuiltPack, PackError> {
        let deflated = SimpleFileOptions::DEFAULT
            .compression_method(CompressionMethod::Deflated)
            .compression_level(Some(6))
            .unix_permissions(0o644);
        let stored = SimpleFileOptions::DEFAULT
            .compression_method(CompressionMethod::Stored)
            .unix_permissions(0o644);
        let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
        let meta = self.pack_mcmeta();
        let mut entries: Vec<(&str, &[u8])> = vec![("pack.mcmeta", &meta)];
        entries.extend(self.files.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
        entries.sort_by(|a, b| a.0.cmp(b.0));
        for (path, bytes) in entries {
            let options = if is_compressed_already(path) {
                stored
            } else {
                deflated
            };
            zip.start_file(path, options)?;
            zip.write_all(bytes).map_err(zip::result::ZipError::from)?;
        }
        let zip_bytes = zip.finish()?.into_inner();
        let sha1_hex = sha1_hex(&zip_bytes);
        Ok(BuiltPack {
            zip_bytes,
            sha1_hex,
        })
    }
}

/// The SHA-1 of `bytes` as 40 lower-case hex digits.
pub fn sha1_hex(bytes: &[u8]) -> String {
    Sha1::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// True for the files [`ResourcePack::build`] stores without deflating.
fn is_compressed_already(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".png") || lower.ends_with(".ogg")
}

fn check_path(path: &str) -> Result<(), PackError> {
    match path_problem(path) {
        Some(reason) => Err(PackError::BadPath {
            path: path.to_owned(),
            reason,
        }),
        None => Ok(()),
    }
}

/// Why `path` is not a plain relative path inside a pack, if it is not:
/// the rule every file of ours and every entry of an admin's pack keeps.
pub(crate) fn path_problem(path: &str) -> Option<&'static str> {
    let bytes = path.as_bytes();
    if path.is_empty() {
        return Some("it is empty");
    }
    if path.contains('\\') {
        return Some("it has a `\\` (pack paths use `/`)");
    }
    if path.starts_with('/') {
        return Some("it is absolute (starts with `/`)");
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Some("it is absolute (starts with a drive letter)");
    }
    if path.chars().any(char::is_control) {
        return Some("it has a control character");
    }
    if path.ends_with('/') {
        return Some("it names a folder");
    }
    for part in path.split('/') {
        match part {
            "" => return Some("it has an empty part (`//`)"),
            "." => return Some("it has a `.` part"),
            ".." => return Some("it has a `..` part, which would leave the pack's root"),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::pack::ids::testing::one_cut_table;
    use std::io::Read;

    use super::*;
    use crate::format::node::BodyPart;

    fn table() -> SliceTable {
        one_cut_table(BodyPart::LeftLeg, 0, 7)
    }

    fn read(zip: &[u8], name: &str) -> String {
        let mut archive = zip::ZipArchive::new(Cursor::new(zip)).expect("a zip");
        let mut file = archive.by_name(name).expect("entry");
        let mut text = String::new();
        file.read_to_string(&mut text).expect("utf-8");
        text
    }

    #[test]
    fn the_pack_is_deterministic() {
        let a = ResourcePack::new(&table()).build().expect("built");
        let b = ResourcePack::new(&table()).build().expect("built");
        assert_eq!(a, b);
        assert_eq!(a.sha1_hex.len(), 40);
        assert!(a
            .sha1_hex
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_eq!(a.sha1_hex, sha1_hex(&a.zip_bytes));
        // Files added in another order give the same zip.
        let mut c = ResourcePack::new(&SliceTable::default());
        let mut d = c.clone();
        c.add_file("assets/x/a.json", b"1".to_vec()).expect("added");
        c.add_file("assets/x/b.json", b"2".to_vec()).expect("added");
        d.add_file("assets/x/b.json", b"2".to_vec()).expect("added");
        d.add_file("assets/x/a.json", b"1".to_vec()).expect("added");
        assert_eq!(c.build().expect("built"), d.build().expect("built"));
        assert_ne!(c.build().expect("built").sha1_hex, a.sha1_hex);
    }

    #[test]
    fn the_zip_opens_with_format_15_models_and_shaders() {
        let built = ResourcePack::new(&table()).build().expect("built");
        let meta: serde_json::Value =
            serde_json::from_str(&read(&built.zip_bytes, "pack.mcmeta")).expect("json");
        assert_eq!(meta["pack"]["pack_format"], 15);
        assert_eq!(meta["pack"]["description"], DEFAULT_DESCRIPTION);
        assert_eq!(meta.as_object().map(|m| m.len()), Some(1), "{meta}");
        let archive = zip::ZipArchive::new(Cursor::new(&built.zip_bytes)).expect("a zip");
        let names: Vec<String> = archive
            .file_names()
            .map(|n| n.expect("a name").into_owned())
            .collect();
        for name in [
            models::PLAYER_HEAD_MODEL_PATH,
            "assets/emoted/models/item/skin/left_leg_0_7.json",
            "assets/minecraft/shaders/core/rendertype_entity_translucent.vsh",
            "assets/minecraft/shaders/core/rendertype_entity_translucent.fsh",
            "assets/minecraft/shaders/core/rendertype_entity_translucent.json",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        }
        assert!(read(
            &built.zip_bytes,
            "assets/minecraft/shaders/core/rendertype_entity_translucent.fsh"
        )
        .contains("SLICE_RECTS[108]"));
    }

    #[test]
    fn textures_and_sounds_are_stored_the_rest_deflated() {
        let mut pack = ResourcePack::new(&SliceTable::default());
        let texture = vec![7u8; 4096];
        pack.add_file("assets/x/textures/a.png", texture.clone())
            .expect("added");
        pack.add_file("assets/x/sounds/b.OGG", texture.clone())
            .expect("added");
        pack.add_file("assets/x/c.json", texture).expect("added");
        let built = pack.build().expect("built");
        let mut archive = zip::ZipArchive::new(Cursor::new(&built.zip_bytes)).expect("a zip");
        for (name, method) in [
            ("assets/x/textures/a.png", CompressionMethod::Stored),
            ("assets/x/sounds/b.OGG", CompressionMethod::Stored),
            ("assets/x/c.json", CompressionMethod::Deflated),
            ("pack.mcmeta", CompressionMethod::Deflated),
        ] {
            assert_eq!(
                archive.by_name(name).expect(name).compression(),
                method,
                "{name}"
            );
        }
    }

    #[test]
    fn added_files_are_checked() {
        let mut pack = ResourcePack::new(&SliceTable::default());
        for path in [
            "",
            "/abs.json",
            "a\\b.json",
            "a/../b.json",
            "a//b",
            "dir/",
            "./a",
        ] {
            assert!(
                matches!(
                    pack.add_file(path, Vec::new()),
                    Err(PackError::BadPath { .. })
                ),
                "{path:?}"
            );
        }
        assert!(matches!(
            pack.add_file(models::PLAYER_HEAD_MODEL_PATH, Vec::new()),
            Err(PackError::Duplicate { .. })
        ));
        assert!(matches!(
            pack.add_file("pack.mcmeta", Vec::new()),
            Err(PackError::Duplicate { .. })
        ));
        pack.add_file(
            "assets/emoted/models/item/imported/chair.json",
            b"{}".to_vec(),
        )
        .expect("added");
        assert!(pack.contains("assets/emoted/models/item/imported/chair.json"));
        pack.set_description("mine");
        let built = pack.build().expect("built");
        assert!(read(&built.zip_bytes, "pack.mcmeta").contains("\"mine\""));
        assert_eq!(
            read(
                &built.zip_bytes,
                "assets/emoted/models/item/imported/chair.json"
            ),
            "{}"
        );
    }
}
