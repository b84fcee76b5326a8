//! Which format a file is in, from its content (`emoted convert` without
//! `--from`).
//!
//! Binary formats by their first bytes: GLB starts with `glTF`, a `.3ds`
//! file with its main chunk id `0x4D4D` (little-endian). Everything else
//! must be JSON, told apart by its root object: `asset` (glTF), `meta`
//! (a Blockbench model), `minecraft:geometry` or a `geometry.*` key (a
//! Bedrock geometry file, which holds no animation), `animations` (a
//! Bedrock animation file), `emote` (an Emotecraft emote),
//! `schema_version` 1 or 3 or a schema 1 `duration_ticks` (an older
//! emoted file), and `joints` or `keyframes` (an `.anim` clip). The
//! extension is only a hint, used for a clip whose JSON is broken, so the
//! clip reader can say where.

use std::path::Path;

use serde_json::Value;

/// A format `emoted convert` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SourceFormat {
    /// An `.anim` clip, versions 1 to 3.
    Anim,
    /// A Blockbench model, `.bbmodel` 4.x or 5.x.
    Blockbench,
    /// A Bedrock (GeckoLib) animation file, with its geometry.
    Bedrock,
    /// glTF 2.0, as `.gltf` JSON or `.glb`.
    Gltf,
    /// A 3D Studio `.3ds` file's keyframer.
    #[value(name = "3ds")]
    ThreeDs,
    /// A schema 1 or schema 3 emote file.
    Legacy,
    /// An Emotecraft JSON emote.
    Emotecraft,
}

impl SourceFormat {
    /// The name `--from` takes.
    pub fn name(self) -> &'static str {
        match self {
            SourceFormat::Anim => "anim",
            SourceFormat::Blockbench => "blockbench",
            SourceFormat::Bedrock => "bedrock",
            SourceFormat::Gltf => "gltf",
            SourceFormat::ThreeDs => "3ds",
            SourceFormat::Legacy => "legacy",
            SourceFormat::Emotecraft => "emotecraft",
        }
    }
}

/// Why no format was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DetectError {
    /// Neither binary nor JSON.
    #[error("not a format emote converts: not GLB, not .3ds, and not JSON (line {line}, column {column}: {message})")]
    NotJson {
        /// Where the JSON broke.
        line: usize,
        /// The column there.
        column: usize,
        /// serde_json's words.
        message: String,
    },
    /// JSON, but no format's root.
    #[error("/: a JSON file emoted does not know: expected a glTF (`asset`), Blockbench (`meta`), Bedrock animation (`animations`), Emotecraft (`emote`), schema 1 or 3 emote (`schema_version`) or `.anim` clip (`joints`) root; use --from to say which")]
    UnknownJson,
    /// A Bedrock geometry file.
    #[error("/: a Bedrock geometry file holds no animation; convert its .animation.json (with --geometry naming this file when it is not beside it)")]
    GeometryOnly,
    /// Already schema 4.
    #[error("/schema_version: the file is already schema 4; `emoted check` it instead")]
    AlreadySchema4,
}

/// The format of `bytes`, read from `path` (whose extension is a hint).
pub fn detect(path: &Path, bytes: &[u8]) -> Result<SourceFormat, DetectError> {
    if bytes.starts_with(b"glTF") {
        return Ok(SourceFormat::Gltf);
    }
    if bytes.len() >= 6 && bytes.starts_with(&[0x4D, 0x4D]) {
        return Ok(SourceFormat::ThreeDs);
    }
    let is_anim = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("anim"));
    let root: Value = match serde_json::from_slice(bytes) {
        Ok(root) => root,
        Err(_) if is_anim => return Ok(SourceFormat::Anim),
        Err(e) => {
            return Err(DetectError::NotJson {
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })
        }
    };
    let Some(object) = root.as_object() else {
        return if is_anim {
            Ok(SourceFormat::Anim)
        } else {
            Err(DetectError::UnknownJson)
        };
    };
    let has = |key: &str| object.contains_key(key);
    if object.get("asset").is_some_and(Value::is_object) {
        return Ok(SourceFormat::Gltf);
    }
    if object.get("meta").is_some_and(Value::is_object) {
        return Ok(SourceFormat::Blockbench);
    }
    if has("minecraft:geometry") || object.keys().any(|k| k.starts_with("geometry.")) {
        return Err(DetectError::GeometryOnly);
    }
    if object.get("emote").is_some_and(Value::is_object) {
        return Ok(SourceFormat::Emotecraft);
    }
    match object.get("schema_version").and_then(Value::as_u64) {
        Some(4) => return Err(DetectError::AlreadySchema4),
        Some(1 | 3) => return Ok(SourceFormat::Legacy),
        _ => {}
    }
    if has("duration_ticks") || object.get("timeline").is_some_and(|t| t.get("duration_ticks").is_some()) {
        return Ok(SourceFormat::Legacy);
    }
    if object.get("animations").is_some_and(Value::is_object) {
        return Ok(SourceFormat::Bedrock);
    }
    if is_anim || has("joints") || has("keyframes") {
        return Ok(SourceFormat::Anim);
    }
    Err(DetectError::UnknownJson)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(name: &str, text: &str) -> Result<SourceFormat, DetectError> {
        detect(Path::new(name), text.as_bytes())
    }

    #[test]
    fn each_format_is_told_by_its_content_not_its_name() {
        assert_eq!(of("x.json", r#"{"asset":{"version":"2.0"}}"#), Ok(SourceFormat::Gltf));
        assert_eq!(detect(Path::new("x"), b"glTF\x02\0\0\0"), Ok(SourceFormat::Gltf));
        assert_eq!(
            detect(Path::new("x.json"), &[0x4D, 0x4D, 6, 0, 0, 0]),
            Ok(SourceFormat::ThreeDs)
        );
        assert_eq!(of("x", r#"{"meta":{"format_version":"5.0"}}"#), Ok(SourceFormat::Blockbench));
        assert_eq!(
            of("x", r#"{"format_version":"1.8.0","animations":{"animation.a":{}}}"#),
            Ok(SourceFormat::Bedrock)
        );
        assert_eq!(of("x", r#"{"version":1,"emote":{"moves":[]}}"#), Ok(SourceFormat::Emotecraft));
        assert_eq!(of("x", r#"{"schema_version":3}"#), Ok(SourceFormat::Legacy));
        assert_eq!(of("x", r#"{"timeline":{"duration_ticks":40}}"#), Ok(SourceFormat::Legacy));
        assert_eq!(of("x", r#"{"version":2,"joints":{}}"#), Ok(SourceFormat::Anim));
        assert_eq!(of("x.anim", "{broken"), Ok(SourceFormat::Anim));
    }

    #[test]
    fn what_cannot_be_converted_says_why() {
        assert_eq!(of("x", r#"{"schema_version":4}"#), Err(DetectError::AlreadySchema4));
        assert_eq!(
            of("x", r#"{"format_version":"1.12.0","minecraft:geometry":[]}"#),
            Err(DetectError::GeometryOnly)
        );
        assert_eq!(of("x", r#"{"hello":1}"#), Err(DetectError::UnknownJson));
        assert!(matches!(of("x.json", "{broken"), Err(DetectError::NotJson { line: 1, .. })));
    }
}
