//! The `resources` reader: every rule of the module guide
//! ([`super`]), each problem recorded at its pointer.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{
    decode_png_data_uri, is_resource_name, Element, Face, ItemModel, ModelFace, Resources,
    ELEMENT_RANGE_PX, MAX_ELEMENTS, MAX_MODELS, MAX_NAME_CHARS, MAX_TEXTURES, MODEL_DATA_RANGE,
};
use crate::format::problem::{field, index, JsonPointer, Problems};
use crate::format::read::{self, Obj};

/// Reads `resources` (module docs), recording every problem.
pub(crate) fn read_resources(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Resources {
    let mut out = Resources::default();
    let Some(mut obj) = Obj::new(value, pointer, problems, "`resources`") else {
        return out;
    };
    if let Some((v, p)) = obj.opt("textures") {
        if let Some(textures) = Obj::new(v, &p, problems, "`resources.textures`") {
            if textures.entries().count() > MAX_TEXTURES {
                problems.error(
                    &p,
                    format!("at most {MAX_TEXTURES} textures fit in one file"),
                );
            }
            for (name, v) in textures.entries().take(MAX_TEXTURES) {
                let tp = field(&p, name);
                if !is_resource_name(name) {
                    problems.error(&tp, name_rule("texture", name));
                }
                let Some(text) = read::string(v, &tp, problems, "a texture") else {
                    continue;
                };
                match decode_png_data_uri(text) {
                    Ok(texture) => {
                        out.textures.insert(name.clone(), texture);
                    }
                    Err(e) => problems.error(&tp, e.to_string()),
                }
            }
        }
    }
    if let Some((v, p)) = obj.opt("models") {
        if let Some(models) = Obj::new(v, &p, problems, "`resources.models`") {
            if models.entries().count() > MAX_MODELS {
                problems.error(&p, format!("at most {MAX_MODELS} models fit in one file"));
            }
            let mut numbers: BTreeMap<i32, &str> = BTreeMap::new();
            for (name, v) in models.entries().take(MAX_MODELS) {
                let mp = field(&p, name);
                if !is_resource_name(name) {
                    problems.error(&mp, name_rule("model", name));
                }
                let Some(model) = read_model(v, &mp, problems, &out) else {
                    continue;
                };
                if let Some(other) = numbers.insert(model.custom_model_data, name) {
                    problems.error(
                        &field(&mp, "custom_model_data"),
                        format!(
                            "custom_model_data {} is also model `{other}`'s; each model needs its own",
                            model.custom_model_data
                        ),
                    );
                }
                out.models.insert(name.clone(), model);
            }
        }
    }
    obj.finish(problems, &["textures", "models"]);
    out
}

fn name_rule(what: &str, name: &str) -> String {
    format!("`{name}` is not a {what} name: use 1 to {MAX_NAME_CHARS} of a-z, 0-9, _, . and -")
}

fn read_model(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    resources: &Resources,
) -> Option<ItemModel> {
    let mut obj = Obj::new(value, pointer, problems, "a model")?;
    let number = obj.req("custom_model_data", problems).and_then(|(v, p)| {
        match v.as_i64().and_then(|n| i32::try_from(n).ok()) {
            Some(n) if MODEL_DATA_RANGE.contains(&n) => Some(n),
            _ => {
                problems.error(
                    &p,
                    format!(
                        "custom_model_data must be a whole number from {} to {} (emoted's range for imported models), found {v}",
                        MODEL_DATA_RANGE.start,
                        MODEL_DATA_RANGE.end - 1
                    ),
                );
                None
            }
        }
    });
    let mut textures = BTreeMap::new();
    if let Some((v, p)) = obj.req("textures", problems) {
        if let Some(map) = Obj::new(v, &p, problems, "a model's `textures`") {
            for (key, v) in map.entries() {
                let kp = field(&p, key);
                let Some(name) = read::string(v, &kp, problems, "a model texture") else {
                    continue;
                };
                if !resources.textures.contains_key(name) {
                    problems.error(
                        &kp,
                        format!("`{name}` is not a texture of this file's `resources.textures`"),
                    );
                }
                textures.insert(key.clone(), name.to_owned());
            }
        }
    }
    let mut elements = Vec::new();
    if let Some((v, p)) = obj.req("elements", problems) {
        match v.as_array() {
            Some(list) if !list.is_empty() && list.len() <= MAX_ELEMENTS => {
                for (i, e) in list.iter().enumerate() {
                    if let Some(e) = read_element(e, &index(&p, i), problems, &textures) {
                        elements.push(e);
                    }
                }
            }
            _ => problems.error(
                &p,
                format!("`elements` must be an array of 1 to {MAX_ELEMENTS} elements"),
            ),
        }
    }
    obj.finish(problems, &["custom_model_data", "textures", "elements"]);
    Some(ItemModel {
        custom_model_data: number?,
        textures,
        elements,
    })
}

fn read_element(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    textures: &BTreeMap<String, String>,
) -> Option<Element> {
    let mut obj = Obj::new(value, pointer, problems, "an element")?;
    let mut corner = |key: &str, problems: &mut Problems| -> Option<[f32; 3]> {
        let (v, p) = obj.req(key, problems)?;
        let at = read::vec3(v, &p, problems, &format!("`{key}`"))?;
        let inside = at
            .to_array()
            .iter()
            .all(|c| ELEMENT_RANGE_PX.contains(&f64::from(*c)));
        if !inside {
            problems.error(
                &p,
                format!("`{key}` must lie within -16..32 px (Java item models' limit), found {v}"),
            );
            return None;
        }
        Some(at.to_array())
    };
    let from_px = corner("from", problems);
    let to_px = corner("to", problems);
    let mut faces = BTreeMap::new();
    if let Some((v, p)) = obj.req("faces", problems) {
        if let Some(map) = Obj::new(v, &p, problems, "`faces`") {
            for (name, v) in map.entries() {
                let fp = field(&p, name);
                let Some(face) = Face::ALL.into_iter().find(|f| f.name() == name) else {
                    problems.error(
                        &fp,
                        format!("`{name}` is not a face: north, east, south, west, up or down"),
                    );
                    continue;
                };
                if let Some(f) = read_face(v, &fp, problems, textures) {
                    faces.insert(face, f);
                }
            }
        }
    }
    obj.finish(problems, &["from", "to", "faces"]);
    Some(Element {
        from_px: from_px?,
        to_px: to_px?,
        faces,
    })
}

fn read_face(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    textures: &BTreeMap<String, String>,
) -> Option<ModelFace> {
    let mut obj = Obj::new(value, pointer, problems, "a face")?;
    let uv = obj.req("uv", problems).and_then(|(v, p)| {
        let uv = read::finite_numbers::<4>(v, &p, problems, "`uv`");
        match uv {
            Some(uv) if uv.iter().all(|c| (0.0..=16.0).contains(c)) => Some(uv),
            _ => {
                problems.error(
                    &p,
                    format!("`uv` must be four numbers within 0..16, found {v}"),
                );
                None
            }
        }
    });
    let texture_key = obj.req("texture", problems).and_then(|(v, p)| {
        let text = read::string(v, &p, problems, "a face's `texture`")?;
        match text.strip_prefix('#') {
            Some(key) if textures.contains_key(key) => Some(key.to_owned()),
            _ => {
                problems.error(&p, format!("a face's `texture` must be `#KEY` for a key of the model's `textures`, found `{text}`"));
                None
            }
        }
    });
    let rotation_deg = match obj.opt("rotation") {
        None => Some(0),
        Some((v, p)) => match v.as_u64() {
            Some(r @ (0 | 90 | 180 | 270)) => Some(r as u16),
            _ => {
                problems.error(
                    &p,
                    format!("a face's `rotation` must be 0, 90, 180 or 270, found {v}"),
                );
                None
            }
        },
    };
    obj.finish(problems, &["uv", "texture", "rotation"]);
    Some(ModelFace {
        uv: uv?,
        texture_key: texture_key?,
        rotation_deg: rotation_deg?,
    })
}
