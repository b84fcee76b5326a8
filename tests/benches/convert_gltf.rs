//! Converting a glTF clip of 10,000 keys (a chain of 10 bones, each with
//! a 500-key CUBICSPLINE translation and a 500-key LINEAR rotation at
//! 30 keys per second, 16.6 s) built in memory as a GLB: the whole of
//! [`emoted::import::gltf::convert`], from the bytes through Appendix C
//! sampling at every tick to thinned, validated schema 4. Target: under
//! 200 ms (issue 17).

use criterion::{criterion_group, Criterion, Throughput};
use emoted::import::gltf::convert;
use emoted::import::ConvertOptions;
use serde_json::{json, Value};

/// Bones in the chain.
const BONES: usize = 10;
/// Keys per channel (two channels per bone).
const KEYS: usize = 500;
/// Keys per second.
const KEY_RATE: f32 = 30.0;

/// `values` appended to `bin` as little-endian floats, with a view and a
/// FLOAT accessor of `kind`; returns the accessor index.
fn accessor(
    json: &mut Value,
    bin: &mut Vec<u8>,
    values: &[f32],
    kind: &str,
    count: usize,
) -> usize {
    let offset = bin.len();
    for v in values {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    let views = json["bufferViews"].as_array_mut().expect("views");
    views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": values.len() * 4}));
    let view = views.len() - 1;
    let accessors = json["accessors"].as_array_mut().expect("accessors");
    accessors
        .push(json!({"bufferView": view, "componentType": 5126, "count": count, "type": kind}));
    accessors.len() - 1
}

/// The clip as GLB bytes, and how many keys it has.
pub fn ten_thousand_key_glb() -> (Vec<u8>, usize) {
    let nodes: Vec<Value> = (0..BONES)
        .map(|i| {
            let mut node = json!({"name": format!("Bone{i}"), "translation": [0, 0.5, 0]});
            if i + 1 < BONES {
                node["children"] = json!([i + 1]);
            }
            node
        })
        .collect();
    let mut json = json!({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes,
        "accessors": [], "bufferViews": [],
    });
    let mut bin = Vec::new();
    let times: Vec<f32> = (0..KEYS).map(|k| k as f32 / KEY_RATE).collect();
    let input = accessor(&mut json, &mut bin, &times, "SCALAR", KEYS);
    let (mut samplers, mut channels) = (Vec::new(), Vec::new());
    for bone in 0..BONES {
        let phase = bone as f32 * 0.7;
        let mut moves = Vec::with_capacity(KEYS * 9);
        let mut turns = Vec::with_capacity(KEYS * 4);
        for &t in &times {
            let y = 0.5 + 0.1 * (t * 2.0 + phase).sin();
            let dy = 0.2 * (t * 2.0 + phase).cos();
            moves.extend([0.0, dy, 0.0, 0.0, y, 0.05 * (t + phase).sin(), 0.0, dy, 0.0]);
            let angle = 0.8 * (t * 3.0 + phase).sin();
            let q = glam::Quat::from_rotation_z(angle) * glam::Quat::from_rotation_x(0.3 * t.cos());
            turns.extend(q.to_array());
        }
        let moves = accessor(&mut json, &mut bin, &moves, "VEC3", KEYS * 3);
        let turns = accessor(&mut json, &mut bin, &turns, "VEC4", KEYS);
        samplers.push(json!({"input": input, "output": moves, "interpolation": "CUBICSPLINE"}));
        samplers.push(json!({"input": input, "output": turns}));
        let s = samplers.len();
        channels.push(json!({"sampler": s - 2, "target": {"node": bone, "path": "translation"}}));
        channels.push(json!({"sampler": s - 1, "target": {"node": bone, "path": "rotation"}}));
    }
    json["animations"] =
        json!([{"name": "Armature|Bench", "samplers": samplers, "channels": channels}]);
    json["buffers"] = json!([{"byteLength": bin.len()}]);
    let mut text = serde_json::to_vec(&json).expect("json");
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + 8 + text.len() + 8 + bin.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend(text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend(bin);
    (out, BONES * 2 * KEYS)
}

fn convert_gltf(c: &mut Criterion) {
    let (bytes, keys) = ten_thousand_key_glb();
    let options = ConvertOptions {
        namespace: "bench".to_owned(),
        stem: "chain".to_owned(),
        ..ConvertOptions::default()
    };
    let imported = convert(&bytes, &options).expect("the bench clip converts");
    assert_eq!(imported.len(), 1);
    let mut group = c.benchmark_group("convert_gltf");
    group.sample_size(10);
    group.throughput(Throughput::Elements(keys as u64));
    group.bench_function("ten_thousand_keys", |b| {
        b.iter(|| convert(std::hint::black_box(&bytes), &options).expect("converts"))
    });
    group.finish();
}

criterion_group!(benches, convert_gltf);
