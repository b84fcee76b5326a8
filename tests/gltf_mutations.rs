//! The glTF importer never panics on a broken GLB, and every refusal of
//! the container names a byte offset within the input.
//!
//! 100,000 inputs, seeded and deterministic: two small valid GLB files
//! built here from the specification's layout (a two-node hierarchy with
//! LINEAR translation, STEP scale and CUBICSPLINE rotation channels; a
//! one-node file with a sparse accessor and an unknown trailing chunk),
//! each mutated one to eight times by flipping a bit, inserting, deleting
//! or overwriting a byte, or writing a length-like `u32` (0, 4, the
//! remaining length − 8, the remaining length, `u32::MAX`) at some offset.
//! Mutations land anywhere: in the header, the chunk headers, the JSON
//! (indices, counts, offsets) and the key data (times, values).

use std::panic::{catch_unwind, AssertUnwindSafe};

use emoted::import::gltf::convert;
use emoted::import::ConvertOptions;
use serde_json::{json, Value};

#[path = "common/mutate.rs"]
mod mutate;

use mutate::{mutate, Rng};

const INPUTS: usize = 100_000;
/// cos 45°, for quarter turns.
const H: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// One chunk: length, type, data padded to 4 bytes with `pad`.
fn chunk(kind: &[u8; 4], data: &[u8], pad: u8) -> Vec<u8> {
    let mut body = data.to_vec();
    while !body.len().is_multiple_of(4) {
        body.push(pad);
    }
    let mut out = (body.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(kind);
    out.extend(body);
    out
}

/// A GLB: the 12-byte header, then the chunks.
fn glb(chunks: &[Vec<u8>]) -> Vec<u8> {
    let body = chunks.concat();
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(12 + body.len() as u32).to_le_bytes());
    out.extend(body);
    out
}

/// `values` as little-endian floats appended to `bin`, with a view and a
/// FLOAT accessor of `kind` added to `json`; returns the accessor index.
fn floats(json: &mut Value, bin: &mut Vec<u8>, values: &[f32], kind: &str, width: usize) -> usize {
    let offset = bin.len();
    for v in values {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    let views = json["bufferViews"].as_array_mut().expect("views");
    views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": values.len() * 4}));
    let view = views.len() - 1;
    let accessors = json["accessors"].as_array_mut().expect("accessors");
    accessors.push(json!({"bufferView": view, "componentType": 5126, "count": values.len() / width, "type": kind}));
    accessors.len() - 1
}

fn valid_files() -> Vec<Vec<u8>> {
    // A hip and a hand, three channels, three interpolations.
    let mut json = json!({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "hips", "children": [1], "scale": [0.5, 0.5, 0.5]}, {"name": "hand", "translation": [0, 1, 0]}],
        "accessors": [], "bufferViews": [],
    });
    let mut bin = Vec::new();
    let times = floats(&mut json, &mut bin, &[0.0, 0.5, 1.0], "SCALAR", 1);
    let moves = floats(
        &mut json,
        &mut bin,
        &[0., 0., 0., 1., 0., 0., 1., 1., 0.],
        "VEC3",
        3,
    );
    let scales = floats(
        &mut json,
        &mut bin,
        &[1., 1., 1., 2., 2., 2., 1., 1., 1.],
        "VEC3",
        3,
    );
    let mut cubic = Vec::new();
    for q in [[0., 0., 0., 1.], [H, 0., 0., H], [0., H, 0., H]] {
        cubic.extend([0.1, 0., 0., 0.]);
        cubic.extend(q);
        cubic.extend([0., 0.1, 0., 0.]);
    }
    let turns = floats(&mut json, &mut bin, &cubic, "VEC4", 4);
    json["animations"] = json!([{
        "name": "Armature|Wave",
        "samplers": [
            {"input": times, "output": moves},
            {"input": times, "output": scales, "interpolation": "STEP"},
            {"input": times, "output": turns, "interpolation": "CUBICSPLINE"},
        ],
        "channels": [
            {"sampler": 0, "target": {"node": 1, "path": "translation"}},
            {"sampler": 1, "target": {"node": 0, "path": "scale"}},
            {"sampler": 2, "target": {"node": 1, "path": "rotation"}},
        ],
    }]);
    json["buffers"] = json!([{"byteLength": bin.len()}]);
    let rig = glb(&[
        chunk(b"JSON", &serde_json::to_vec(&json).expect("json"), b' '),
        chunk(b"BIN\0", &bin, 0),
    ]);

    // One node, a sparse output over zeros, an unknown chunk at the end.
    let mut json = json!({
        "asset": {"version": "2.0"}, "nodes": [{"name": "gem"}], "accessors": [], "bufferViews": [],
    });
    let mut bin = Vec::new();
    let times = floats(&mut json, &mut bin, &[0.0, 0.25, 0.5, 0.75], "SCALAR", 1);
    bin.extend_from_slice(&[1, 0, 3, 0]);
    let values = floats(&mut json, &mut bin, &[0., 2., 0., 0., 0., 3.], "VEC3", 3);
    json["bufferViews"]
        .as_array_mut()
        .expect("views")
        .push(json!({"buffer": 0, "byteOffset": 16, "byteLength": 4}));
    json["accessors"][1] = json!({
        "componentType": 5126, "count": 4, "type": "VEC3",
        "sparse": {"count": 2, "indices": {"bufferView": 2, "componentType": 5123}, "values": {"bufferView": 1}},
    });
    json["animations"] = json!([{"samplers": [{"input": times, "output": values}],
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]);
    json["buffers"] = json!([{"byteLength": bin.len()}]);
    let sparse = glb(&[
        chunk(b"JSON", &serde_json::to_vec(&json).expect("json"), b' '),
        chunk(b"BIN\0", &bin, 0),
        chunk(b"XTRA", &[9, 9, 9], 0),
    ]);
    vec![rig, sparse]
}

#[test]
fn a_hundred_thousand_mutated_glbs_never_panic_and_offsets_point_inside() {
    let options = ConvertOptions {
        namespace: "fuzz".to_owned(),
        stem: "model".to_owned(),
        ..ConvertOptions::default()
    };
    let files = valid_files();
    for f in &files {
        let imported = convert(f, &options).expect("the built files are valid");
        assert_eq!(imported.len(), 1);
    }
    let mut rng = Rng(0x617F_2026);
    let (mut read, mut refused) = (0usize, 0usize);
    for input in 0..INPUTS {
        let mut bytes = files[input % files.len()].clone();
        for _ in 0..1 + rng.below(8) {
            mutate(&mut bytes, &mut rng, |left| {
                vec![0, 4, left.wrapping_sub(8), left, u32::MAX]
            });
        }
        match catch_unwind(AssertUnwindSafe(|| convert(&bytes, &options))) {
            Ok(Ok(imported)) => {
                assert!(!imported.is_empty());
                read += 1;
            }
            Ok(Err(err)) => {
                assert!(!err.to_string().is_empty());
                if let Some(offset) = err.offset() {
                    assert!(
                        offset <= bytes.len(),
                        "input {input}: {err} names an offset past the {} bytes",
                        bytes.len()
                    );
                }
                refused += 1;
            }
            Err(_) => panic!("input {input} panicked: {bytes:02x?}"),
        }
    }
    // Both paths are exercised: some mutants still convert, most are refused.
    assert_eq!(read + refused, INPUTS);
    assert!(read > INPUTS / 100, "only {read} mutants converted");
    assert!(refused > INPUTS / 10, "only {refused} mutants refused");
}
