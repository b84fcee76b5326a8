//! `emoted convert`: another format's animation into schema 4.
//!
//! The input's format is found from its content ([`detect`]) unless
//! `--from` names it; each importer gives one [`Imported`] per animation
//! it converts (a file with several clips gives several emotes, or the
//! one `--clip` names), each already read back through the schema 4
//! reader, so what is written passes `emoted check`.
//!
//! Output: without `-o`, one emote is printed on standard output (several
//! need `-o FOLDER` or `--clip`); with `-o`, one emote goes to that file
//! unless it is a folder (one that exists, or a path ending in `/`),
//! several go into the folder (made if missing),
//! each named after its id's path (`converted:fox/walk` → `fox_walk.json`).
//! Every lossy step is printed on standard error as `NOTE: POINTER:
//! MESSAGE`, and each file written as `wrote PATH (ID)`. A file that
//! cannot be converted prints `INPUT: MESSAGE` (with the pointer or the
//! byte offset and the rule) and exits 1; nothing is written.
//!
//! With `--to anim`, each emote is written as an `.anim` clip instead
//! ([`super::clip_export`]), `NAME.anim` in a folder.
//!
//! This lives in the library, not in `import`, because `.anim` clips are
//! converted by the same code that loads them as emotes ([`super::clips`]).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::clip_export::anim_clip;
use crate::format::clip::read_clip_file;
use crate::import::detect::{detect, SourceFormat};
use crate::import::humanoid::Imported;
use crate::import::{bedrock, blockbench, emotecraft_json, gltf, legacy, three_ds};
use crate::import::{ConvertOptions, Note};

/// The largest input `convert` reads: 64 MiB.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// `emoted convert`'s arguments.
#[derive(Clone, Debug, clap::Args)]
pub struct ConvertArgs {
    /// The file to convert: `.anim`, `.bbmodel`, Bedrock `.animation.json`,
    /// `.gltf`/`.glb`, `.3ds`, a schema 1 or 3 emote, or an Emotecraft emote.
    pub input: PathBuf,
    /// Where to write: a file for one emote, a folder for several
    /// (default: standard output, for one).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// The input's format, when its content should not decide.
    #[arg(long, value_enum)]
    pub from: Option<SourceFormat>,
    /// Convert only the animation of this name (of a file with several).
    #[arg(long)]
    pub clip: Option<String>,
    /// The namespace of the emote ids written.
    #[arg(long, default_value = "converted")]
    pub namespace: String,
    /// The Bedrock geometry file an animation plays on (default: the
    /// `.geo.json` beside it).
    #[arg(long, value_name = "GEO.json")]
    pub geometry: Option<PathBuf>,
    /// Frames per second of a `.3ds` file's keyframer (it does not store
    /// them).
    #[arg(long, value_name = "FPS")]
    pub fps: Option<f32>,
    /// What a glTF skeleton's animation is drawn on: the player's body
    /// (`humanoid`), named anchors (`scene`), or the body when the bone
    /// names make a humanoid (`auto`).
    #[arg(long, value_enum, default_value = "auto")]
    pub rig: gltf::RigChoice,
    /// What to write: a schema 4 emote (plays for everyone), or an `.anim`
    /// clip of a body emote's joints (the bone form modded clients get).
    #[arg(long, value_enum, default_value = "schema4")]
    pub to: Target,
}

/// What `emoted convert` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// A schema 4 Animation.
    Schema4,
    /// An `.anim` clip, version 3 ([`super::clip_export`]).
    Anim,
}

/// What a conversion gave: the emotes, or the message to print after the
/// input's name.
pub type Converted = Result<Vec<Imported>, String>;

/// `emoted convert`: [`run`], its lines on standard error.
pub fn main(args: &ConvertArgs) -> std::process::ExitCode {
    match run(args) {
        Ok(lines) => {
            lines.iter().for_each(|line| eprintln!("{line}"));
            std::process::ExitCode::SUCCESS
        }
        Err(line) => {
            eprintln!("{line}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Converts `args.input` and writes or prints the result (module docs);
/// `Err` carries the line to print, already prefixed with the input.
#[allow(clippy::print_stdout)]
pub fn run(args: &ConvertArgs) -> Result<Vec<String>, String> {
    let input = args.input.display().to_string();
    let fail = |message: String| format!("{input}: {message}");
    let emotes = convert_file(args).map_err(fail)?;
    let mut lines: Vec<String> = Vec::new();
    // (id, the document to write, its extension)
    let mut outputs: Vec<(String, Value, &str)> = Vec::with_capacity(emotes.len());
    for imported in &emotes {
        lines.extend(imported.notes.iter().map(Note::to_string));
        let id = imported.file.id.as_str().to_owned();
        match args.to {
            Target::Schema4 => outputs.push((id, imported.json.clone(), "json")),
            Target::Anim => {
                let (clip, notes) = anim_clip(imported).map_err(fail)?;
                lines.extend(notes.iter().map(Note::to_string));
                outputs.push((id, clip, "anim"));
            }
        }
    }
    match &args.output {
        None => {
            let [(_, one, _)] = outputs.as_slice() else {
                let ids: Vec<&str> = outputs.iter().map(|(id, _, _)| id.as_str()).collect();
                return Err(fail(format!(
                    "{} animations ({}): give -o FOLDER, or --clip NAME for one",
                    outputs.len(),
                    ids.join(", ")
                )));
            };
            println!("{}", pretty(one));
        }
        Some(path) if outputs.len() == 1 && !is_folder(path) => {
            let (id, document, _) = &outputs[0];
            write(path, document).map_err(fail)?;
            lines.push(format!("wrote {} ({id})", path.display()));
        }
        Some(folder) => {
            std::fs::create_dir_all(folder)
                .map_err(|e| fail(format!("cannot make {}: {e}", folder.display())))?;
            for (id, document, extension) in &outputs {
                let name = id
                    .split_once(':')
                    .map_or(id.as_str(), |(_, path)| path)
                    .replace('/', "_");
                let path = folder.join(format!("{name}.{extension}"));
                write(&path, document).map_err(fail)?;
                lines.push(format!("wrote {} ({id})", path.display()));
            }
        }
    }
    Ok(lines)
}

/// Whether `-o` names a folder: one that exists, or a path ending in `/`.
fn is_folder(path: &Path) -> bool {
    path.is_dir()
        || path
            .as_os_str()
            .to_string_lossy()
            .ends_with(std::path::MAIN_SEPARATOR)
}

/// Reads, detects and converts `args.input`.
pub fn convert_file(args: &ConvertArgs) -> Converted {
    let path = &args.input;
    let bytes = read_capped(path)?;
    let format = match args.from {
        Some(format) => format,
        None => detect(path, &bytes).map_err(|e| e.to_string())?,
    };
    let options = ConvertOptions {
        namespace: args.namespace.clone(),
        stem: stem(path),
        clip: args.clip.clone(),
        base_dir: path.parent().map(Path::to_path_buf),
        geometry: args.geometry.clone(),
        rig: args.rig,
    };
    match format {
        SourceFormat::Anim => convert_clip(path, &options),
        SourceFormat::ThreeDs => {
            three_ds::convert::convert(&bytes, &options, args.fps).map_err(|e| e.to_string())
        }
        SourceFormat::Emotecraft => {
            emotecraft_json::convert(&bytes, &options).map_err(|e| e.to_string())
        }
        SourceFormat::Legacy => legacy::convert(&bytes, &options).map_err(|e| e.to_string()),
        SourceFormat::Bedrock => bedrock::convert(&bytes, &options).map_err(|e| e.to_string()),
        SourceFormat::Blockbench => {
            blockbench::convert(&bytes, &options).map_err(|e| e.to_string())
        }
        SourceFormat::Gltf => gltf::convert(&bytes, &options).map_err(|e| e.to_string()),
    }
}

/// An `.anim` clip on the humanoid rig, as the library loads it: its
/// errors refuse it, its warnings become notes.
fn convert_clip(path: &Path, options: &ConvertOptions) -> Converted {
    let report = read_clip_file(path);
    let mut problems = report.problems;
    let refused = |problems: &[crate::format::Problem]| {
        problems
            .iter()
            .filter(|p| p.is_error())
            .map(|p| format!("{}: {}", p.pointer, p.message))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let Some(clip) = report.file else {
        return Err(refused(&problems));
    };
    let id = options.id(None);
    let mut imported = super::clips::clip_imported(&clip, &id, &options.stem, &mut problems)
        .map_err(|p| format!("{}: {}", p.pointer, p.message))?;
    if problems.iter().any(|p| p.is_error()) {
        return Err(refused(&problems));
    }
    let mut notes: Vec<Note> = problems
        .into_iter()
        .map(|p| Note::new(p.pointer, p.message))
        .collect();
    notes.append(&mut imported.notes);
    imported.notes = notes;
    Ok(vec![imported])
}

/// The file's bytes, refusing one over [`MAX_INPUT_BYTES`].
fn read_capped(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!(
            "byte {MAX_INPUT_BYTES}: the file is over the {MAX_INPUT_BYTES}-byte (64 MiB) limit for a converted file"
        ));
    }
    Ok(bytes)
}

/// The file name without its extensions (`wave.animation.json` → `wave`).
fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = name.split('.').next().unwrap_or("");
    if base.is_empty() {
        "emote".to_owned()
    } else {
        base.to_owned()
    }
}

/// A document as indented JSON.
fn pretty(document: &Value) -> String {
    serde_json::to_string_pretty(document).unwrap_or_else(|_| document.to_string())
}

/// Writes `document` to `path`, making its folder if missing.
fn write(path: &Path, document: &Value) -> Result<(), String> {
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)
            .map_err(|e| format!("cannot make {}: {e}", folder.display()))?;
    }
    std::fs::write(path, pretty(document) + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stem_drops_every_extension() {
        assert_eq!(stem(Path::new("a/wave.animation.json")), "wave");
        assert_eq!(stem(Path::new("Fox.glb")), "Fox");
        assert_eq!(stem(Path::new(".hidden")), "emote");
    }
}
