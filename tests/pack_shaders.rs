//! Every shader in emoted's resource pack compiles with `glslangValidator`
//! (Debian's `glslang-tools`, installed here when missing) against the
//! vanilla 1.20.1 include functions.
//!
//! The pack is built for the bundled emotes and read back from its zip.
//! `#moj_import <x.glsl>` is resolved the way 1.20.1's `GlslPreprocessor`
//! does it: the included file's text replaces the line, its own `#version`
//! is commented out, and `#line` directives keep error lines right. The
//! includes are our own stubs that declare what vanilla's `light.glsl` and
//! `fog.glsl` declare, with the same signatures and trivial bodies. Each
//! stage is compiled on its own, then the two are linked, so the vertex
//! outputs must match the fragment inputs.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::process::Command;

use emoted::library::Library;
use emoted::pack::ResourcePack;

const SHADER_DIR: &str = "assets/minecraft/shaders/core";
const PROGRAM: &str = "rendertype_entity_translucent";

/// vanilla 1.20.1's `light.glsl`: the two defines and two functions.
const LIGHT_STUB: &str = "#version 150

#define MINECRAFT_LIGHT_POWER   (0.6)
#define MINECRAFT_AMBIENT_LIGHT (0.4)

vec4 minecraft_mix_light(vec3 lightDir0, vec3 lightDir1, vec3 normal, vec4 color) {
    return color * (MINECRAFT_AMBIENT_LIGHT + MINECRAFT_LIGHT_POWER * dot(lightDir0 + lightDir1, normal));
}

vec4 minecraft_sample_lightmap(sampler2D lightMap, ivec2 uv) {
    return texture(lightMap, vec2(uv) / 256.0);
}
";

/// vanilla 1.20.1's `fog.glsl`: three functions (the `mat4` form of
/// `fog_distance`, which 1.20.1 has).
const FOG_STUB: &str = "#version 150

vec4 linear_fog(vec4 inColor, float vertexDistance, float fogStart, float fogEnd, vec4 fogColor) {
    return mix(inColor, fogColor, clamp((vertexDistance - fogStart) / (fogEnd - fogStart), 0.0, 1.0));
}

float linear_fog_fade(float vertexDistance, float fogStart, float fogEnd) {
    return 1.0 - clamp((vertexDistance - fogStart) / (fogEnd - fogStart), 0.0, 1.0);
}

float fog_distance(mat4 modelViewMat, vec3 pos, int shape) {
    return shape == 0 ? length((modelViewMat * vec4(pos, 1.0)).xyz) : abs(pos.y);
}
";

fn includes() -> BTreeMap<&'static str, &'static str> {
    BTreeMap::from([("light.glsl", LIGHT_STUB), ("fog.glsl", FOG_STUB)])
}

fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("pack_shaders")
        .join(std::process::id().to_string());
    fs::create_dir_all(&dir).expect("create the scratch dir");
    dir
}

/// The pack for the bundled emotes, as its zip's entries.
fn pack_entries() -> BTreeMap<String, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let report = Library::load(&[root.join("emotes"), root.join("datapacks")]);
    let (pack, _) = ResourcePack::for_library(&report.library);
    let built = pack.build().expect("the pack builds");
    let mut archive = zip::ZipArchive::new(Cursor::new(built.zip_bytes)).expect("a zip");
    let mut out = BTreeMap::new();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).expect("an entry");
        let name = file.name().expect("an entry name").into_owned();
        let mut text = String::new();
        if file.read_to_string(&mut text).is_ok() {
            out.insert(name, text);
        }
    }
    out
}

/// `source` with every `#moj_import <name>` (or `"name"`) replaced by the
/// include's text, as the game does it.
fn resolve_imports(source: &str, includes: &BTreeMap<&str, &str>) -> Result<String, String> {
    let mut out = String::new();
    let mut next_id = 1;
    for (index, line) in source.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("#moj_import") else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let name = rest
            .trim()
            .trim_start_matches(['<', '"'])
            .trim_end_matches(['>', '"']);
        let text = includes
            .get(name)
            .ok_or_else(|| format!("line {}: no include `{name}`", index + 1))?;
        out.push_str(&format!("#line 1 {next_id}\n"));
        next_id += 1;
        for included in text.lines() {
            if included.trim_start().starts_with("#version") {
                out.push_str(&format!("/* {} */\n", included.trim()));
            } else {
                out.push_str(included);
                out.push('\n');
            }
        }
        // The line after the import, in the including file.
        out.push_str(&format!("#line {} 0\n", index + 2));
    }
    Ok(out)
}

/// Runs glslangValidator on `files`; `Err` with its output on failure.
fn glslang(args: &[&str], files: &[&Path]) -> Result<(), String> {
    let output = Command::new("glslangValidator")
        .args(args)
        .args(files)
        .output()
        .map_err(|e| format!("cannot run glslangValidator: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "glslangValidator {args:?} {files:?} failed ({}):\n{}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Writes the resolved stage to `dir/name.ext` (the extension names the
/// stage for glslang) and compiles it.
fn compile(dir: &Path, name: &str, ext: &str, source: &str) -> Result<PathBuf, String> {
    let resolved = resolve_imports(source, &includes())?;
    let path = dir.join(format!("{name}.{ext}"));
    fs::write(&path, resolved).map_err(|e| e.to_string())?;
    glslang(&[], &[&path])?;
    Ok(path)
}

#[test]
fn every_shader_in_the_pack_compiles_and_links() {
    common::ensure_debian_tool("glslangValidator", "glslang-tools");
    let entries = pack_entries();
    let dir = scratch();
    let stages: Vec<(&String, &String)> = entries
        .iter()
        .filter(|(path, _)| path.ends_with(".vsh") || path.ends_with(".fsh"))
        .collect();
    assert!(
        stages.len() >= 2,
        "the pack has shaders: {:?}",
        entries.keys()
    );
    let mut compiled: BTreeMap<String, (Option<PathBuf>, Option<PathBuf>)> = BTreeMap::new();
    for (path, source) in stages {
        let file = Path::new(path);
        let name = file.file_stem().and_then(|s| s.to_str()).expect("a name");
        let vertex = path.ends_with(".vsh");
        let out = compile(&dir, name, if vertex { "vert" } else { "frag" }, source)
            .unwrap_or_else(|e| panic!("{path} does not compile:\n{e}"));
        let slot = compiled.entry(name.to_owned()).or_default();
        if vertex {
            slot.0 = Some(out);
        } else {
            slot.1 = Some(out);
        }
    }
    for (name, pair) in &compiled {
        let (Some(vertex), Some(fragment)) = pair else {
            panic!("{name}: the pack has one stage of it but not the other");
        };
        glslang(&["-l"], &[vertex, fragment])
            .unwrap_or_else(|e| panic!("{name} does not link:\n{e}"));
    }
    assert!(compiled.contains_key(PROGRAM), "{:?}", compiled.keys());
    assert!(entries.contains_key(&format!("{SHADER_DIR}/{PROGRAM}.json")));
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn a_broken_shader_fails_the_check() {
    common::ensure_debian_tool("glslangValidator", "glslang-tools");
    let entries = pack_entries();
    let vsh = &entries[&format!("{SHADER_DIR}/{PROGRAM}.vsh")];
    let dir = scratch().join("broken");
    fs::create_dir_all(&dir).expect("create");
    // An undeclared name in main: the compile must report it.
    let broken = vsh.replacen("sliceId = k;", "sliceId = notDeclared;", 1);
    assert_ne!(&broken, vsh, "the vertex shader sets sliceId");
    let error = compile(&dir, "broken", "vert", &broken).expect_err("an error");
    assert!(error.contains("notDeclared"), "{error}");
    // An unknown include is refused by the resolver, as the game refuses it.
    assert!(resolve_imports("#version 150\n#moj_import <nope.glsl>\n", &includes()).is_err());
    // The includes' own #version lines are commented out.
    let resolved = resolve_imports(
        "#version 150\n#moj_import <fog.glsl>\nvoid main() {}\n",
        &includes(),
    )
    .expect("resolved");
    assert_eq!(
        resolved.matches("\n#version").count() + usize::from(resolved.starts_with("#version")),
        1
    );
    let _ = fs::remove_dir_all(dir);
}
