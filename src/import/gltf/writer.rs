//! Small glTF files for tests, written from the specification's layout:
//! a JSON document whose one buffer is either a base64 `data:` URI or a
//! GLB's BIN chunk, assembled byte by byte.

use base64::Engine;
use serde_json::{json, Value};

/// A document being built: the JSON and the buffer's bytes.
pub(crate) struct Doc {
    /// The glTF JSON (without `buffers`, added when written).
    pub(crate) json: Value,
    /// The buffer.
    pub(crate) bin: Vec<u8>,
}

impl Doc {
    /// An empty glTF 2.0 document with one scene.
    pub(crate) fn new() -> Doc {
        Doc {
            json: json!({
                "asset": {"version": "2.0"},
                "scene": 0,
                "scenes": [{"nodes": []}],
                "nodes": [],
                "animations": [],
                "accessors": [],
                "bufferViews": [],
            }),
            bin: Vec::new(),
        }
    }

    fn push(&mut self, key: &str, value: Value) -> usize {
        let list = self.json[key].as_array_mut().expect("an array");
        list.push(value);
        list.len() - 1
    }

    /// Adds a node (its JSON as given); a root of the scene when `root`.
    pub(crate) fn node(&mut self, node: Value, root: bool) -> usize {
        let index = self.push("nodes", node);
        if root {
            self.json["scenes"][0]["nodes"]
                .as_array_mut()
                .expect("scene nodes")
                .push(json!(index));
        }
        index
    }

    /// Adds `values` as a FLOAT accessor of `kind` (`SCALAR`, `VEC3`…).
    pub(crate) fn floats(&mut self, values: &[f32], kind: &str) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let width = match kind {
            "SCALAR" => 1,
            "VEC3" => 3,
            _ => 4,
        };
        let offset = self.bin.len();
        for v in values {
            self.bin.extend_from_slice(&v.to_le_bytes());
        }
        let view = self.push(
            "bufferViews",
            json!({"buffer": 0, "byteOffset": offset, "byteLength": values.len() * 4}),
        );
        let mut accessor = json!({
            "bufferView": view, "componentType": 5126, "count": values.len() / width, "type": kind,
        });
        if kind == "SCALAR" {
            let min = values.iter().copied().fold(f32::INFINITY, f32::min);
            let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            accessor["min"] = json!([min]);
            accessor["max"] = json!([max]);
        }
        self.push("accessors", accessor)
    }

    /// Adds an animation named `name` (none when `None`); returns its index.
    pub(crate) fn animation(&mut self, name: Option<&str>) -> usize {
        let mut animation = json!({"channels": [], "samplers": []});
        if let Some(name) = name {
            animation["name"] = json!(name);
        }
        self.push("animations", animation)
    }

    /// Adds a channel driving `path` of `node` in animation `a`, with a new
    /// sampler of `times` and `values` (flattened; three per key for
    /// CUBICSPLINE).
    pub(crate) fn channel(
        &mut self,
        a: usize,
        node: usize,
        path: &str,
        interpolation: &str,
        times: &[f32],
        values: &[f32],
    ) {
        let kind = if path == "rotation" { "VEC4" } else { "VEC3" };
        let input = self.floats(times, "SCALAR");
        let output = self.floats(values, kind);
        let animation = &mut self.json["animations"][a];
        let samplers = animation["samplers"].as_array_mut().expect("samplers");
        samplers.push(json!({"input": input, "output": output, "interpolation": interpolation}));
        let sampler = samplers.len() - 1;
        animation["channels"]
            .as_array_mut()
            .expect("channels")
            .push(json!({"sampler": sampler, "target": {"node": node, "path": path}}));
    }

    /// The document as `.gltf` text with the buffer as a data URI.
    pub(crate) fn gltf(&self) -> Vec<u8> {
        let mut json = self.json.clone();
        let data = base64::engine::general_purpose::STANDARD.encode(&self.bin);
        json["buffers"] = json!([{
            "byteLength": self.bin.len(),
            "uri": format!("data:application/octet-stream;base64,{data}"),
        }]);
        serde_json::to_vec(&json).expect("serialises")
    }

    /// The document as a GLB: header, JSON chunk (padded with spaces), BIN
    /// chunk (padded with zeros).
    pub(crate) fn glb(&self) -> Vec<u8> {
        let mut json = self.json.clone();
        json["buffers"] = json!([{"byteLength": self.bin.len()}]);
        glb(
            &serde_json::to_vec(&json).expect("serialises"),
            Some(&self.bin),
        )
    }
}

/// A GLB of `json` and an optional `bin` chunk, assembled byte by byte.
pub(crate) fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
    let mut chunks = chunk(b"JSON", json, b' ');
    if let Some(bin) = bin {
        chunks.extend(chunk(b"BIN\0", bin, 0));
    }
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(12 + chunks.len() as u32).to_le_bytes());
    out.extend(chunks);
    out
}

/// One chunk: length, type, data padded to 4 bytes with `pad`.
pub(crate) fn chunk(kind: &[u8; 4], data: &[u8], pad: u8) -> Vec<u8> {
    let mut body = data.to_vec();
    while !body.len().is_multiple_of(4) {
        body.push(pad);
    }
    let mut out = (body.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(kind);
    out.extend(body);
    out
}
