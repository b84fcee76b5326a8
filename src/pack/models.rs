//! The item models: `player_head` overrides by `CustomModelData`, one model
//! per slice id.
//!
//! `assets/minecraft/models/item/player_head.json` keeps vanilla's parent
//! (`item/template_skull`, so an ordinary head looks as it always does) and
//! adds one override per slice k: `custom_model_data` ≥
//! [`CUSTOM_MODEL_DATA_BASE`](super::ids::CUSTOM_MODEL_DATA_BASE) + k
//! selects `emoted:item/skin/<slice name>`. Overrides are listed in
//! ascending order because the client uses the last one that matches.
//!
//! Each slice model has parent `builtin/entity`, so the skull renderer
//! still draws it (with the player's skin, through the core shader), and a
//! display transform for **`thirdperson_righthand`**, the item display
//! mode a skin-bound display is shown in (the choice stable_player_display
//! made; the server sets it whatever the file's `item_display` says). The
//! transform keeps the part's size with the node (the node's own scale
//! makes the skull's 8×8×8 box the part's box, schema 4 §5.6) and does two
//! things:
//!
//! - **rotation `[0, 180, 0]`**: an item display turns its item half a
//!   turn about Y before drawing it, which leaves a skull facing −Z; turned
//!   back, the part faces +Z, the way the emote's rig faces (yaw 0), with
//!   its right side at −X where rigs put the right arm;
//! - **slim arms** are 3 px wide instead of 4: `scale [0.75, 1, 1]`, and
//!   moved half the difference (1/8 of the box, 1 model unit before the
//!   node's scale) toward the body, so the arm keeps its shoulder edge as
//!   the player model's slim arm does.
//!
//! The other display modes fall back to `builtin/entity`'s identity.

use serde_json::{json, Value};

use super::ids::{SliceId, SliceTable};
use super::skin_uv::Slice;
use crate::format::node::BodyPart;

/// The item display mode the slice models define a transform for.
pub const SLICE_DISPLAY_MODE: &str = "thirdperson_righthand";

/// The namespace of emoted's own models.
pub const NAMESPACE: &str = "emoted";

/// The pack path of the `player_head` item model.
pub const PLAYER_HEAD_MODEL_PATH: &str = "assets/minecraft/models/item/player_head.json";

/// The model id of a slice: `emoted:item/skin/<name>`.
pub fn slice_model_id(slice: &Slice) -> String {
    format!("{NAMESPACE}:item/skin/{}", slice.name())
}

/// The pack path of a slice's model.
pub fn slice_model_path(slice: &Slice) -> String {
    format!("assets/{NAMESPACE}/models/item/skin/{}.json", slice.name())
}

/// The display transform of a slice's model (translation in 1/16 blocks,
/// rotation in degrees, scale factors), as documented above.
pub fn slice_transform(slice: &Slice) -> ([f32; 3], [f32; 3], [f32; 3]) {
    let classic = Slice::full(slice.part(), false).layout().size.width_px;
    let width = slice.layout().size.width_px;
    let rotation = [0.0, 180.0, 0.0];
    if width == classic || classic == 0 {
        return ([0.0; 3], rotation, [1.0; 3]);
    }
    let scale_x = f32::from(width) / f32::from(classic);
    // The skull is 8 units wide before the node's scale; half the lost width.
    let shift = 8.0 * (1.0 - scale_x) / 2.0;
    // Toward the body: +X for the right arm (at −X), −X for the left. The
    // model's translation is applied outside its half turn but inside the
    // display's own, so it points the other way.
    let toward_body = match slice.part() {
        BodyPart::RightArm => 1.0,
        _ => -1.0,
    };
    (
        [-toward_body * shift, 0.0, 0.0],
        rotation,
        [scale_x, 1.0, 1.0],
    )
}

fn pretty(value: &Value) -> Vec<u8> {
    let mut text = serde_json::to_vec_pretty(value).unwrap_or_default();
    text.push(b'\n');
    text
}

/// A slice's model file.
pub fn slice_model(slice: &Slice) -> Vec<u8> {
    let (translation, rotation, scale) = slice_transform(slice);
    pretty(&json!({
        "parent": "minecraft:builtin/entity",
        "display": {
            SLICE_DISPLAY_MODE: {
                "rotation": rotation,
                "translation": translation,
                "scale": scale,
            }
        }
    }))
}

/// The `player_head` item model with one override per slice.
pub fn player_head_model(table: &SliceTable) -> Vec<u8> {
    let overrides: Vec<Value> = table
        .iter()
        .map(|(id, slice): (SliceId, Slice)| {
            json!({
                "predicate": {"custom_model_data": id.custom_model_data()},
                "model": slice_model_id(&slice),
            })
        })
        .collect();
    pretty(&json!({
        "parent": "minecraft:item/template_skull",
        "overrides": overrides,
    }))
}

/// Every model file of `table`: pack path and contents.
pub fn model_files(table: &SliceTable) -> Vec<(String, Vec<u8>)> {
    let mut files = vec![(PLAYER_HEAD_MODEL_PATH.to_owned(), player_head_model(table))];
    files.extend(
        table
            .iter()
            .map(|(_, slice)| (slice_model_path(&slice), slice_model(&slice))),
    );
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::ids::CUSTOM_MODEL_DATA_BASE;
    use crate::pack::skin_uv::Rows;

    #[test]
    fn overrides_ascend_and_name_every_slice_model() {
        let cut = Slice::new(BodyPart::Body, Rows::new(0, 6).expect("rows"), false).expect("fits");
        let table = SliceTable::new([cut]);
        let head: Value = serde_json::from_slice(&player_head_model(&table)).expect("json");
        assert_eq!(head["parent"], "minecraft:item/template_skull");
        let overrides = head["overrides"].as_array().expect("overrides");
        assert_eq!(overrides.len(), table.len());
        let files = model_files(&table);
        for (k, o) in overrides.iter().enumerate() {
            let cmd = o["predicate"]["custom_model_data"].as_i64().expect("cmd");
            assert_eq!(cmd, i64::from(CUSTOM_MODEL_DATA_BASE) + k as i64);
            let id = o["model"].as_str().expect("model id");
            let path = format!(
                "assets/{}/models/{}.json",
                NAMESPACE,
                id.trim_start_matches("emoted:")
            );
            assert!(files.iter().any(|(p, _)| *p == path), "{path}");
        }
        assert_eq!(overrides[8]["model"], "emoted:item/skin/body_0_6");
    }

    #[test]
    fn slim_arms_narrow_toward_the_body_and_every_part_turns_back() {
        let (t, r, s) = slice_transform(&Slice::full(BodyPart::RightArm, true));
        assert_eq!(
            (t, r, s),
            ([-1.0, 0.0, 0.0], [0.0, 180.0, 0.0], [0.75, 1.0, 1.0])
        );
        let (t, _, _) = slice_transform(&Slice::full(BodyPart::LeftArm, true));
        assert_eq!(t, [1.0, 0.0, 0.0]);
        let (t, r, s) = slice_transform(&Slice::full(BodyPart::Body, false));
        assert_eq!((t, r, s), ([0.0; 3], [0.0, 180.0, 0.0], [1.0; 3]));
        let model: Value =
            serde_json::from_slice(&slice_model(&Slice::full(BodyPart::Head, false)))
                .expect("json");
        assert_eq!(model["parent"], "minecraft:builtin/entity");
        assert_eq!(model["display"][SLICE_DISPLAY_MODE]["rotation"][1], 180.0);
    }
}
