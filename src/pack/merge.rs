//! Merging an admin's own pack ([`AdminPack`]) into emoted's: a 1.20.1
//! client takes one server pack only, so the server serves the two as one.
//!
//! # The rule
//!
//! A file only one pack has is kept as it is (their `pack.png` included).
//! For a path both have, one **conflict** is recorded ([`MergeConflict`]),
//! and:
//!
//! | path in both packs | result |
//! |---|---|
//! | `pack.mcmeta` | merged: `pack_format` stays 15 (1.20.1's); the description is theirs followed by `" + emoted"` (ours when they have none); their other sections (`language`, `filter`...) are kept |
//! | one of **our shader files**: a path our pack has under `assets/minecraft/shaders/` | ours: our core shader is what draws skin-bound parts |
//! | `assets/minecraft/models/item/player_head.json`, and `paper.json` when emotes bring imported models ([`super::imported`]) | merged: their model (parent, textures, display...) with their overrides and ours in one list, in ascending `custom_model_data` ([`merge_player_head`]) |
//! | anything else (a texture, a model, even one under `assets/emoted/`) | theirs: it is their server |
//!
//! "Our shader files" are the paths our pack has, so only the shaders we
//! write win (and any shader we add later, without a list to keep up);
//! their other shader files do not conflict and are kept. A JSON file of
//! theirs that cannot be merged (`pack.mcmeta` or `player_head.json` that is
//! not valid JSON, or not of the expected shape) leaves ours, and the
//! conflict says why.
//!
//! The merge is deterministic: the same two packs give the same files, so
//! the built zip ([`ResourcePack::build`]) has the same SHA-1.

use std::fmt;

use serde_json::Value;

use super::admin_pack::{AdminPack, PACK_MCMETA};
use super::ids::CUSTOM_MODEL_DATA_BASE;
use super::imported::BASE_ITEM_MODEL_PATH;
use super::models::PLAYER_HEAD_MODEL_PATH;
use super::{ResourcePack, PACK_FORMAT};
use crate::format::resources::MODEL_DATA_RANGE;

/// Where our shader files are: a path both packs have under this prefix is
/// ours.
pub const SHADER_PREFIX: &str = "assets/minecraft/shaders/";

/// What follows their description in the merged `pack.mcmeta`.
pub const DESCRIPTION_SUFFIX: &str = " + emoted";

/// Who won a path both packs have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Winner {
    /// emoted's file is kept; theirs is left out.
    Ours,
    /// The admin's file replaces ours.
    Theirs,
    /// The file is made of both.
    Merged,
}

impl fmt::Display for Winner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Winner::Ours => "emoted's kept",
            Winner::Theirs => "the admin's kept",
            Winner::Merged => "merged",
        })
    }
}

/// A path both packs have, who won it and why: one line of the list that
/// `emoted check`, `emoted pack` and the server's start-up print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeConflict {
    /// The path inside the pack.
    pub path: String,
    /// Who won.
    pub winner: Winner,
    /// Why, and what was lost.
    pub reason: String,
}

impl fmt::Display for MergeConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.path, self.winner, self.reason)
    }
}

impl ResourcePack {
    /// Puts `theirs` into this pack by the rule in the module docs and
    /// returns one conflict per path both had, sorted by path
    /// (`pack.mcmeta` is always one).
    pub fn merge(&mut self, theirs: AdminPack) -> Vec<MergeConflict> {
        let (their_mcmeta, their_files) = theirs.into_parts();
        let mut conflicts = vec![self.merge_mcmeta(&their_mcmeta)];
        for (path, bytes) in their_files {
            let Some(ours) = self.files.get_mut(&path) else {
                self.files.insert(path, bytes);
                continue;
            };
            let (winner, reason) = if path == PLAYER_HEAD_MODEL_PATH {
                merge_player_head(ours, &bytes, CUSTOM_MODEL_DATA_BASE)
            } else if path == BASE_ITEM_MODEL_PATH {
                merge_player_head(ours, &bytes, MODEL_DATA_RANGE.start)
            } else if path.starts_with(SHADER_PREFIX) {
                (
                    Winner::Ours,
                    "emoted's core shader draws skin-bound emote parts; the admin's is left out"
                        .to_owned(),
                )
            } else {
                *ours = bytes;
                (Winner::Theirs, theirs_reason(&path))
            };
            conflicts.push(MergeConflict {
                path,
                winner,
                reason,
            });
        }
        conflicts.sort_by(|a, b| a.path.cmp(&b.path));
        conflicts
    }

    /// Takes their description and sections (see the module docs).
    fn merge_mcmeta(&mut self, theirs: &[u8]) -> MergeConflict {
        let conflict = |winner, reason: String| MergeConflict {
            path: PACK_MCMETA.to_owned(),
            winner,
            reason,
        };
        let parsed = match serde_json::from_slice::<Value>(theirs) {
            Ok(Value::Object(object)) => object,
            Ok(_) => {
                return conflict(
                    Winner::Ours,
                    "the admin's is not a JSON object; emoted's is written".to_owned(),
                )
            }
            Err(e) => {
                return conflict(
                    Winner::Ours,
                    format!("the admin's is not valid JSON ({e}); emoted's is written"),
                )
            }
        };
        let mut sections = parsed;
        let pack = sections.remove("pack");
        let their_format = pack
            .as_ref()
            .and_then(|p| p.get("pack_format"))
            .map_or_else(|| "none".to_owned(), Value::to_string);
        let description = match pack.as_ref().and_then(|p| p.get("description")) {
            Some(Value::String(text)) if !text.trim().is_empty() => {
                Some(Value::String(format!("{text}{DESCRIPTION_SUFFIX}")))
            }
            Some(component @ (Value::Object(_) | Value::Array(_))) => Some(Value::Array(vec![
                Value::String(String::new()),
                component.clone(),
                Value::String(DESCRIPTION_SUFFIX.to_owned()),
            ])),
            _ => None,
        };
        let described = match description {
            Some(description) => {
                self.description = description;
                "the admin's description with \" + emoted\""
            }
            None => "emoted's description (the admin's has none)",
        };
        let kept = if sections.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = sections.keys().map(String::as_str).collect();
            format!(", and the admin's {} kept", names.join(", "))
        };
        self.mcmeta_sections = sections;
        conflict(
            Winner::Merged,
            format!("pack_format {PACK_FORMAT} (the admin's: {their_format}), {described}{kept}"),
        )
    }
}

/// Why theirs wins a file both packs have.
const THEIRS_WIN: &str =
    "the admin's pack wins every file both have but emoted's shaders (player_head.json and \
     pack.mcmeta are merged)";

/// Why theirs won `path`: it is their server, and what that costs when the
/// file is one of emoted's models.
fn theirs_reason(path: &str) -> String {
    if path.starts_with("assets/emoted/") {
        format!(
            "{THEIRS_WIN}; this is one of emoted's own models, so skin-bound parts that use it \
             look as the admin's file says"
        )
    } else {
        THEIRS_WIN.to_owned()
    }
}

/// Merges their `player_head.json` (or `paper.json`) into ours (`ours` is
/// replaced by the result): their model with its fields, its overrides being theirs and ours
/// sorted by `custom_model_data` (an override without one sorts as 0). The
/// client uses the last override that matches, so ascending order gives
/// each item the override closest below its `CustomModelData`; the sort is
/// stable and theirs come first, so on a tie ours is last and wins. Theirs
/// that reach emoted's range (from `range_start`: [`CUSTOM_MODEL_DATA_BASE`]
/// for the skin slices, the imported range's start for paper) are named in
/// the reason: they would take some of emoted's models or lose theirs to
/// them. When their file is not a JSON object whose `overrides` (if any) is
/// an array of objects with numeric `custom_model_data`, ours is kept.
pub fn merge_player_head(ours: &mut Vec<u8>, theirs: &[u8], range_start: i32) -> (Winner, String) {
    let kept = |why: String| {
        (
            Winner::Ours,
            format!("{why}; emoted's is kept, so the admin's item model is left out"),
        )
    };
    let mut model = match serde_json::from_slice::<Value>(theirs) {
        Ok(Value::Object(model)) => model,
        Ok(_) => return kept("the admin's is not a JSON object".to_owned()),
        Err(e) => return kept(format!("the admin's is not valid JSON ({e})")),
    };
    let their_overrides = match model.remove("overrides") {
        None => Vec::new(),
        Some(Value::Array(overrides)) => overrides,
        Some(_) => return kept("the admin's `overrides` is not an array".to_owned()),
    };
    let our_overrides = match serde_json::from_slice::<Value>(ours) {
        Ok(Value::Object(mut our_model)) => match our_model.remove("overrides") {
            Some(Value::Array(overrides)) => overrides,
            _ => Vec::new(),
        },
        _ => return kept("emoted's own model did not parse (a bug in emoted)".to_owned()),
    };
    let their_count = their_overrides.len();
    let our_count = our_overrides.len();
    let mut keyed = Vec::with_capacity(their_count + our_count);
    for (index, item) in their_overrides.into_iter().enumerate() {
        match custom_model_data(&item) {
            Some(key) => keyed.push((key, item)),
            None => {
                return kept(format!(
                    "the admin's overrides[{index}] is not an object with a numeric \
                     predicate.custom_model_data"
                ))
            }
        }
    }
    let in_our_range = keyed
        .iter()
        .filter(|(key, _)| *key >= f64::from(range_start))
        .count();
    keyed.extend(
        our_overrides
            .into_iter()
            .map(|item| (custom_model_data(&item).unwrap_or(0.0), item)),
    );
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    model.insert(
        "overrides".to_owned(),
        Value::Array(keyed.into_iter().map(|(_, item)| item).collect()),
    );
    let Ok(mut text) = serde_json::to_vec_pretty(&Value::Object(model)) else {
        return kept("the merged model could not be written".to_owned());
    };
    text.push(b'\n');
    *ours = text;
    let mut reason = format!(
        "the admin's model, with its overrides ({their_count}) and emoted's ({our_count}) in \
         ascending custom_model_data"
    );
    if in_our_range > 0 {
        reason.push_str(&format!(
            "; {in_our_range} of the admin's use custom_model_data {range_start} or more, \
             emoted's range: move them below it"
        ));
    }
    (Winner::Merged, reason)
}

/// An override's `predicate.custom_model_data`: 0 when it has none, `None`
/// when it is not an object or the value is not a number.
fn custom_model_data(item: &Value) -> Option<f64> {
    let object = item.as_object()?;
    match object
        .get("predicate")
        .and_then(|p| p.get("custom_model_data"))
    {
        None => Some(0.0),
        Some(value) => value.as_f64(),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read};
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::format::node::BodyPart;
    use crate::pack::admin_pack::{AdminPack, MergeLimits};
    use crate::pack::ids::testing::one_cut_table;
    use crate::pack::ids::SliceTable;
    use crate::pack::shader::{CORE_SHADER_DIR, PROGRAM_NAME};

    const TEXTURE: &str = "assets/minecraft/textures/block/stone.png";

    fn ours() -> ResourcePack {
        ResourcePack::new(&one_cut_table(BodyPart::LeftLeg, 0, 7))
    }

    fn vsh() -> String {
        format!("{CORE_SHADER_DIR}/{PROGRAM_NAME}.vsh")
    }

    /// An admin pack of `files` with a plain `pack.mcmeta`.
    fn theirs(files: &[(&str, &[u8])]) -> AdminPack {
        let mcmeta = br#"{"pack":{"pack_format":15,"description":"Our server"}}"#;
        theirs_with(mcmeta, files)
    }

    fn theirs_with(mcmeta: &[u8], files: &[(&str, &[u8])]) -> AdminPack {
        let mut entries: Vec<(&str, &[u8])> = vec![("pack.mcmeta", mcmeta)];
        entries.extend_from_slice(files);
        let zip = crate::pack::admin_pack::tests::zip_of(&entries);
        AdminPack::from_zip_bytes(Path::new("admin.zip"), &zip, &MergeLimits::default())
            .expect("a valid admin pack")
    }

    fn file(pack: &ResourcePack, path: &str) -> Vec<u8> {
        pack.files.get(path).cloned().expect(path)
    }

    fn only(conflicts: &[MergeConflict], path: &str) -> MergeConflict {
        let found: Vec<_> = conflicts.iter().filter(|c| c.path == path).collect();
        assert_eq!(found.len(), 1, "{path} in {conflicts:?}");
        found[0].clone()
    }

    #[test]
    fn disjoint_packs_keep_every_file_and_only_pack_mcmeta_conflicts() {
        let mut pack = ours();
        let before: Vec<String> = pack.paths().map(str::to_owned).collect();
        let conflicts = pack.merge(theirs(&[(TEXTURE, b"stone"), ("pack.png", b"icon")]));
        assert_eq!(conflicts.len(), 1, "{conflicts:?}");
        assert_eq!(conflicts[0].path, "pack.mcmeta");
        assert_eq!(conflicts[0].winner, Winner::Merged);
        for path in &before {
            assert!(pack.contains(path), "{path}");
        }
        assert_eq!(file(&pack, TEXTURE), b"stone");
        assert_eq!(file(&pack, "pack.png"), b"icon", "their pack.png is kept");
        let meta: Value = serde_json::from_slice(&pack.pack_mcmeta()).expect("json");
        assert_eq!(meta["pack"]["pack_format"], 15);
        assert_eq!(meta["pack"]["description"], "Our server + emoted");
    }

    #[test]
    fn our_shader_wins_and_their_texture_wins() {
        let mut pack = ours();
        let our_vsh = file(&pack, &vsh());
        let their_other_shader = "assets/minecraft/shaders/core/rendertype_solid.vsh";
        let conflicts = pack.merge(theirs(&[
            (&vsh(), b"their shader"),
            (their_other_shader, b"their solid"),
            (TEXTURE, b"their stone"),
        ]));
        assert_eq!(file(&pack, &vsh()), our_vsh);
        assert_eq!(only(&conflicts, &vsh()).winner, Winner::Ours);
        assert_eq!(
            file(&pack, their_other_shader),
            b"their solid",
            "not ours: kept"
        );
        assert!(conflicts.iter().all(|c| c.path != their_other_shader));
        // A texture both have (ours has none, so give ours one first).
        let mut pack = ours();
        pack.add_file(TEXTURE, b"our stone".to_vec())
            .expect("added");
        let slice_model = "assets/emoted/models/item/skin/left_leg_0_7.json";
        let conflicts = pack.merge(theirs(&[(TEXTURE, b"their stone"), (slice_model, b"{}")]));
        let texture = only(&conflicts, TEXTURE);
        assert_eq!(texture.winner, Winner::Theirs);
        assert_eq!(file(&pack, TEXTURE), b"their stone");
        let model = only(&conflicts, slice_model);
        assert_eq!(model.winner, Winner::Theirs);
        assert!(model.reason.contains("emoted's own models"), "{model}");
        assert_eq!(
            texture.to_string(),
            format!("{TEXTURE}: the admin's kept: {THEIRS_WIN}")
        );
    }

    #[test]
    fn player_head_overrides_are_merged_in_ascending_order_with_theirs_kept() {
        let their_head = json!({
            "parent": "minecraft:item/custom_skull",
            "display": {"head": {"scale": [2, 2, 2]}},
            "overrides": [
                {"predicate": {"custom_model_data": 20}, "model": "admin:item/hat_b"},
                {"predicate": {"custom_model_data": 10}, "model": "admin:item/hat_a"},
                {"predicate": {"custom_model_data": CUSTOM_MODEL_DATA_BASE + 3}, "model": "admin:item/late"},
            ]
        });
        let bytes = serde_json::to_vec(&their_head).expect("json");
        let mut pack = ResourcePack::new(&SliceTable::default());
        let our_count = 8;
        let conflicts = pack.merge(theirs(&[(PLAYER_HEAD_MODEL_PATH, &bytes)]));
        let conflict = only(&conflicts, PLAYER_HEAD_MODEL_PATH);
        assert_eq!(conflict.winner, Winner::Merged);
        assert!(
            conflict.reason.contains("1 of the admin's use"),
            "{conflict}"
        );
        let merged: Value =
            serde_json::from_slice(&file(&pack, PLAYER_HEAD_MODEL_PATH)).expect("json");
        assert_eq!(merged["parent"], "minecraft:item/custom_skull");
        assert_eq!(merged["display"]["head"]["scale"], json!([2, 2, 2]));
        let overrides = merged["overrides"].as_array().expect("overrides");
        assert_eq!(overrides.len(), 3 + our_count);
        let keys: Vec<f64> = overrides
            .iter()
            .map(|o| o["predicate"]["custom_model_data"].as_f64().expect("cmd"))
            .collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{keys:?}");
        let models: Vec<&str> = overrides
            .iter()
            .filter_map(|o| o["model"].as_str())
            .collect();
        assert_eq!(&models[..2], ["admin:item/hat_a", "admin:item/hat_b"]);
        // Theirs at base + 3 ties with our slice 3: ours comes last and wins.
        let late = models
            .iter()
            .position(|m| *m == "admin:item/late")
            .expect("late");
        assert_eq!(models[late + 1], "emoted:item/skin/left_arm");
        assert_eq!(keys[late], keys[late + 1]);
    }

    #[test]
    fn their_paper_json_is_merged_with_our_imported_overrides() {
        let ours_model = crate::pack::imported::base_item_model(
            &[(
                MODEL_DATA_RANGE.start + 1,
                "emoted:item/imported/a/b/c".to_owned(),
            )]
            .into(),
        );
        let mut pack = ResourcePack::new(&SliceTable::default());
        pack.add_file(BASE_ITEM_MODEL_PATH, ours_model)
            .expect("added");
        let theirs_model = json!({"parent": "minecraft:item/generated",
            "overrides": [{"predicate": {"custom_model_data": 3}, "model": "admin:item/note"}]});
        let bytes = serde_json::to_vec(&theirs_model).expect("json");
        let conflicts = pack.merge(theirs(&[(BASE_ITEM_MODEL_PATH, &bytes)]));
        assert_eq!(
            only(&conflicts, BASE_ITEM_MODEL_PATH).winner,
            Winner::Merged
        );
        let merged: Value =
            serde_json::from_slice(&file(&pack, BASE_ITEM_MODEL_PATH)).expect("json");
        let models: Vec<&str> = merged["overrides"]
            .as_array()
            .expect("overrides")
            .iter()
            .filter_map(|o| o["model"].as_str())
            .collect();
        assert_eq!(models, ["admin:item/note", "emoted:item/imported/a/b/c"]);
    }

    #[test]
    fn a_player_head_that_is_not_json_leaves_ours() {
        for (bad, why) in [
            (&b"{ not json"[..], "not valid JSON"),
            (br#"[1, 2]"#, "not a JSON object"),
            (br#"{"overrides": {}}"#, "not an array"),
            (
                br#"{"overrides": [{"predicate": {"custom_model_data": "x"}}]}"#,
                "overrides[0]",
            ),
        ] {
            let mut pack = ours();
            let before = file(&pack, PLAYER_HEAD_MODEL_PATH);
            let conflicts = pack.merge(theirs(&[(PLAYER_HEAD_MODEL_PATH, bad)]));
            let conflict = only(&conflicts, PLAYER_HEAD_MODEL_PATH);
            assert_eq!(conflict.winner, Winner::Ours, "{conflict}");
            assert!(conflict.reason.contains(why), "{conflict}");
            assert_eq!(file(&pack, PLAYER_HEAD_MODEL_PATH), before);
        }
    }

    #[test]
    fn pack_mcmeta_keeps_format_15_and_their_sections() {
        let mcmeta = json!({
            "pack": {"pack_format": 9, "description": {"text": "Red", "color": "red"}},
            "language": {"xx_xx": {"name": "X", "region": "X", "bidirectional": false}}
        });
        let mut pack = ours();
        let conflicts = pack.merge(theirs_with(
            &serde_json::to_vec(&mcmeta).expect("json"),
            &[],
        ));
        let conflict = only(&conflicts, "pack.mcmeta");
        assert!(conflict.reason.contains("the admin's: 9"), "{conflict}");
        assert!(conflict.reason.contains("language kept"), "{conflict}");
        let meta: Value = serde_json::from_slice(&pack.pack_mcmeta()).expect("json");
        assert_eq!(meta["pack"]["pack_format"], 15);
        assert_eq!(
            meta["pack"]["description"],
            json!(["", {"text": "Red", "color": "red"}, " + emoted"])
        );
        assert_eq!(meta["language"], mcmeta["language"]);
        // Not JSON: ours is written.
        let mut pack = ours();
        let conflicts = pack.merge(theirs_with(b"nope", &[]));
        assert_eq!(only(&conflicts, "pack.mcmeta").winner, Winner::Ours);
        assert_eq!(pack.pack_mcmeta(), ours().pack_mcmeta());
    }

    #[test]
    fn the_merged_pack_is_deterministic() {
        let build = || {
            let mut pack = ours();
            pack.merge(theirs(&[
                (TEXTURE, b"stone"),
                ("pack.png", &[0x89, b'P', b'N', b'G']),
                (&vsh(), b"theirs"),
            ]));
            pack.build().expect("built")
        };
        let (a, b) = (build(), build());
        assert_eq!(a.sha1_hex, b.sha1_hex);
        assert_eq!(a.zip_bytes, b.zip_bytes);
        assert_ne!(a.sha1_hex, ours().build().expect("built").sha1_hex);
        let mut archive = zip::ZipArchive::new(Cursor::new(&a.zip_bytes)).expect("zip");
        let mut stone = String::new();
        archive
            .by_name(TEXTURE)
            .expect("their texture")
            .read_to_string(&mut stone)
            .expect("read");
        assert_eq!(stone, "stone");
    }
}
