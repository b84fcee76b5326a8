//! `resources`: every rule of the module docs, with the pointer it names.

use super::*;
use crate::format::problem::Root;

/// A 2×1 RGBA PNG (red, blue).
pub(crate) fn tiny_png() -> Vec<u8> {
    let pixels = [255u8, 0, 0, 255, 0, 0, 255, 255];
    lodepng::encode32(&pixels, 2, 1).expect("encodes")
}

fn model(texture: &str, uv: serde_json::Value) -> Value {
    json!({
        "custom_model_data": MODEL_DATA_RANGE.start + 7,
        "textures": {"0": texture},
        "elements": [{"from": [0, 0, 0], "to": [16, 16, 16],
                      "faces": {"north": {"uv": uv, "texture": "#0", "rotation": 90}}}]
    })
}

fn read(value: Value) -> (Resources, Vec<(String, String)>) {
    let mut problems = Problems::new();
    let resources = read_resources(&value, &Root, &mut problems);
    let found = problems
        .into_vec()
        .into_iter()
        .map(|p| (p.pointer, p.message))
        .collect();
    (resources, found)
}

#[test]
fn a_model_and_its_texture_read_and_write_back() {
    let uri = png_data_uri(&tiny_png());
    let value =
        json!({"textures": {"skin": uri}, "models": {"arm": model("skin", json!([0, 0, 8, 16]))}});
    let (resources, problems) = read(value.clone());
    assert!(problems.is_empty(), "{problems:?}");
    let skin = resources.textures.get("skin").expect("texture");
    assert_eq!((skin.width_px, skin.height_px), (2, 1));
    let arm = resources.models.get("arm").expect("model");
    assert_eq!(arm.custom_model_data, 0x50_0007);
    let north = arm.elements[0].faces.get(&Face::North).expect("north");
    assert_eq!(north.uv, [0.0, 0.0, 8.0, 16.0]);
    assert_eq!(north.rotation_deg, 90);
    // Written back, it reads as the same resources.
    let (again, problems) = read(resources.to_json());
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(again, resources);
    // The pack's form names resource locations.
    let pack = arm.model_json(|name| format!("emoted:item/x/{name}"));
    assert_eq!(pack["textures"]["0"], "emoted:item/x/skin");
    assert_eq!(pack["elements"][0]["faces"]["north"]["texture"], "#0");
}

struct Case {
    resources: Value,
    pointer: &'static str,
    message: &'static str,
}

#[test]
fn every_rule_names_its_pointer() {
    let uri = png_data_uri(&tiny_png());
    let big = vec![0u8; MAX_TEXTURE_BYTES + 10];
    let wide = lodepng::encode32(&vec![0u8; 4 * 1025], 1025, 1).expect("encodes");
    let cases = [
        Case {
            resources: json!({"textures": {"skin": "skin.png"}}),
            pointer: "/textures/skin",
            message: "data:image/png;base64",
        },
        Case {
            resources: json!({"textures": {"skin": "data:image/png;base64,@@@@"}}),
            pointer: "/textures/skin",
            message: "base64 does not decode",
        },
        Case {
            resources: json!({"textures": {"skin": png_data_uri(&big)}}),
            pointer: "/textures/skin",
            message: "over the 1048576-byte limit",
        },
        Case {
            resources: json!({"textures": {"skin": png_data_uri(b"not a png at all")}}),
            pointer: "/textures/skin",
            message: "not a PNG",
        },
        Case {
            resources: json!({"textures": {"skin": png_data_uri(&wide)}}),
            pointer: "/textures/skin",
            message: "1025×1 px",
        },
        Case {
            resources: json!({"textures": {"Skin": uri}}),
            pointer: "/textures/Skin",
            message: "not a texture name",
        },
        Case {
            resources: json!({"textures": {"skin": uri}, "models": {"arm": model("other", json!([0, 0, 8, 16]))}}),
            pointer: "/models/arm/textures/0",
            message: "`other` is not a texture",
        },
        Case {
            resources: json!({"textures": {"skin": uri}, "models": {"arm": model("skin", json!([0, 0, 8, 17]))}}),
            pointer: "/models/arm/elements/0/faces/north/uv",
            message: "within 0..16",
        },
        Case {
            resources: json!({"textures": {"skin": uri}, "models": {"arm": {
                "custom_model_data": 12, "textures": {"0": "skin"},
                "elements": [{"from": [0, 0, 0], "to": [16, 40, 16], "faces": {"top": {}}}]}}}),
            pointer: "/models/arm/custom_model_data",
            message: "emoted's range",
        },
        Case {
            resources: json!({"textures": {"skin": uri}, "models": {"arm": {
                "custom_model_data": 0x50_0000, "textures": {"0": "skin"},
                "elements": [{"from": [0, 0, 0], "to": [16, 40, 16], "faces": {}}]}}}),
            pointer: "/models/arm/elements/0/to",
            message: "within -16..32 px",
        },
        Case {
            resources: json!({"textures": {"skin": uri}, "models": {"a": model("skin", json!([0, 0, 1, 1])), "b": model("skin", json!([0, 0, 1, 1]))}}),
            pointer: "/models/b/custom_model_data",
            message: "also model `a`'s",
        },
        Case {
            resources: json!({"sounds": {}}),
            pointer: "/sounds",
            message: "unknown field",
        },
    ];
    for case in cases {
        let (_, problems) = read(case.resources.clone());
        assert!(
            problems
                .iter()
                .any(|(p, m)| p == case.pointer && m.contains(case.message)),
            "{} / {}: {problems:?}",
            case.pointer,
            case.message
        );
    }
}

#[test]
fn a_png_header_that_claims_a_huge_picture_is_refused_before_decoding() {
    let mut png = tiny_png();
    // IHDR width at bytes 16..20.
    png[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    assert_eq!(
        check_png(png),
        Err(TextureError::TooWide {
            width_px: 100_000,
            height_px: 1
        })
    );
}
