//! Datapack functions for the `function <namespace:path>` event command.
//!
//! A datapack is a folder with a `pack.mcmeta` beside its `data/` folder
//! (the rule [`crate::library::discover`] uses for emotes). Its functions
//! are `data/<namespace>/functions/<path>.mcfunction` (1.20.1; the 1.21
//! folder name `function` is read too), with the id `namespace:path`. The
//! emote roots ([`EmoteFolders`]) are searched for datapacks: a root may be
//! a datapack, its `data/` folder, or a folder of datapacks (`datapacks/`).
//!
//! Each non-empty line that does not start with `#` is one command, parsed
//! when the file is loaded with the dispatcher's own parser, so a function
//! runs exactly what an event may run. As in vanilla, a file with a line
//! that does not parse (or starts with `/`) is refused as a whole, and every
//! problem is logged with its file and line; `function` on a refused id says
//! so. When two packs define the same id the first (in path order) is kept
//! and the second is reported.
//!
//! The dispatch plugin loads the functions at start-up and again on every
//! [`ReloadRequest`] (`/emote reload` and the file watcher); other code can
//! call [`reload_functions`] itself.
//! A reload replaces every function (there is no last-good copy: a refused
//! file is refused until it is fixed).

use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use valence::prelude::bevy_ecs::event::ManualEventReader;
use valence::prelude::*;

use super::parse::{parse_event_command, ParsedCommand};
use crate::server::emote_library::EmoteFolders;
use crate::server::events::ReloadRequest;
use crate::server::syntax::CommandError;

/// Folders are searched this deep for datapacks.
const MAX_SEARCH_DEPTH: usize = 8;

/// One command line of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionLine {
    /// The line number in the file, from 1.
    pub number: usize,
    /// The line as written (trimmed).
    pub text: String,
    /// The parsed command.
    pub command: ParsedCommand,
}

/// A loaded `.mcfunction`.
#[derive(Clone, Debug, PartialEq)]
pub struct McFunction {
    /// `namespace:path`.
    pub id: String,
    /// The file it was read from.
    pub path: PathBuf,
    /// Its commands, in order.
    pub lines: Vec<FunctionLine>,
}

/// What [`EmoteFunctions::get`] knows about an id.
#[derive(Clone, Debug, PartialEq)]
pub enum FunctionState<'a> {
    /// Loaded and ready to run.
    Loaded(&'a Arc<McFunction>),
    /// The file exists but was refused at load.
    Refused,
    /// No datapack defines it.
    Missing,
}

/// The loaded datapack functions, by id.
#[derive(Resource, Clone, Debug, Default)]
pub struct EmoteFunctions {
    loaded: BTreeMap<String, Arc<McFunction>>,
    refused: HashSet<String>,
}

impl EmoteFunctions {
    /// Looks up a function by `namespace:path`.
    pub fn get(&self, id: &str) -> FunctionState<'_> {
        match self.loaded.get(id) {
            Some(f) => FunctionState::Loaded(f),
            None if self.refused.contains(id) => FunctionState::Refused,
            None => FunctionState::Missing,
        }
    }

    /// The ids of the loaded functions, sorted.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.loaded.keys().map(String::as_str)
    }

    /// How many functions are loaded.
    pub fn len(&self) -> usize {
        self.loaded.len()
    }

    /// True when no function is loaded.
    pub fn is_empty(&self) -> bool {
        self.loaded.is_empty()
    }
}

/// A problem found while loading functions.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FunctionError {
    /// The file or a folder could not be read.
    #[error("{path}: cannot read: {message}")]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        message: String,
    },
    /// The file name does not make a valid id.
    #[error("{path}: not a function id: namespaces and paths use lowercase a-z, 0-9, _ - . (and / in the path); the file is skipped")]
    BadId {
        /// The file.
        path: PathBuf,
    },
    /// A line does not parse; the function is refused.
    #[error("{path}:{line}: `{text}`: {error} The function is refused.")]
    Line {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// The line.
        text: String,
        /// Why.
        error: CommandError,
    },
    /// A line starts with `/`.
    #[error(
        "{path}:{line}: `{text}`: function lines do not start with `/`; the function is refused"
    )]
    Slash {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// The line.
        text: String,
    },
    /// Two packs define the same id.
    #[error("{path}: function `{id}` is already defined by {first}; this copy is ignored")]
    Duplicate {
        /// The ignored file.
        path: PathBuf,
        /// The id.
        id: String,
        /// The file that was kept.
        first: String,
    },
}

/// The result of loading every function under some roots.
#[derive(Clone, Debug, Default)]
pub struct FunctionReport {
    /// What loaded.
    pub functions: EmoteFunctions,
    /// Every problem, in file order.
    pub problems: Vec<FunctionError>,
    /// Datapacks found.
    pub pack_count: usize,
}

/// Loads every function of every datapack under `roots`.
pub fn load_functions(roots: &[PathBuf]) -> FunctionReport {
    let mut report = FunctionReport::default();
    let mut packs = Vec::new();
    for root in roots {
        find_packs(root, 0, &mut packs, &mut report.problems);
    }
    packs.sort();
    packs.dedup();
    report.pack_count = packs.len();
    for pack in packs {
        load_pack(&pack, &mut report);
    }
    report
}

/// Replaces `functions` with what is under `roots` now, logging every
/// problem and a summary; returns the problems. The hot-reload code may
/// call this (the dispatch plugin already does on each [`ReloadRequest`]).
pub fn reload_functions(functions: &mut EmoteFunctions, roots: &[PathBuf]) -> Vec<FunctionError> {
    let report = load_functions(roots);
    for problem in &report.problems {
        tracing::warn!("{problem}");
    }
    tracing::info!(
        "loaded {} datapack functions from {} datapacks ({} refused)",
        report.functions.len(),
        report.pack_count,
        report.functions.refused.len()
    );
    *functions = report.functions;
    report.problems
}

/// Start-up: loads the functions of the emote roots.
pub(crate) fn load_functions_at_startup(
    folders: Option<Res<EmoteFolders>>,
    mut functions: ResMut<EmoteFunctions>,
) {
    let roots = folders.map(|f| f.roots.clone()).unwrap_or_default();
    reload_functions(&mut functions, &roots);
}

/// Reloads the functions whenever a [`ReloadRequest`] is sent (when the
/// reload plugin is not installed there are none, and this does nothing).
pub(crate) fn reload_functions_on_request(
    requests: Option<Res<Events<ReloadRequest>>>,
    mut reader: Local<ManualEventReader<ReloadRequest>>,
    folders: Option<Res<EmoteFolders>>,
    mut functions: ResMut<EmoteFunctions>,
) {
    let Some(requests) = requests else {
        return;
    };
    if reader.iter(&requests).count() == 0 {
        return;
    }
    let roots = folders.map(|f| f.roots.clone()).unwrap_or_default();
    reload_functions(&mut functions, &roots);
}

fn is_pack(dir: &Path) -> bool {
    dir.join("pack.mcmeta").is_file() && dir.join("data").is_dir()
}

fn find_packs(
    path: &Path,
    depth: usize,
    packs: &mut Vec<PathBuf>,
    problems: &mut Vec<FunctionError>,
) {
    if !path.is_dir() {
        return;
    }
    if is_pack(path) {
        packs.push(path.to_path_buf());
        return;
    }
    // A pack's own `data/` folder given as a root.
    if depth == 0 && path.file_name().is_some_and(|n| n == "data") {
        if let Some(parent) = path.parent().filter(|p| is_pack(p)) {
            packs.push(parent.to_path_buf());
            return;
        }
    }
    if depth >= MAX_SEARCH_DEPTH {
        return;
    }
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(e) => {
            problems.push(FunctionError::Read {
                path: path.to_path_buf(),
                message: e.to_string(),
            });
            return;
        }
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for dir in dirs {
        find_packs(&dir, depth + 1, packs, problems);
    }
}

fn valid_part(s: &str, slash: bool) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_lowercase()
                || b.is_ascii_digit()
                || b"_-.".contains(&b)
                || (slash && b == b'/')
        })
}

fn load_pack(pack: &Path, report: &mut FunctionReport) {
    let data = pack.join("data");
    let Ok(namespaces) = std::fs::read_dir(&data) else {
        return;
    };
    let mut namespaces: Vec<PathBuf> = namespaces.flatten().map(|e| e.path()).collect();
    namespaces.sort();
    for namespace_dir in namespaces {
        for folder in ["functions", "function"] {
            let dir = namespace_dir.join(folder);
            if !dir.is_dir() {
                continue;
            }
            let mut files = Vec::new();
            collect_mcfunctions(&dir, 0, &mut files);
            files.sort();
            for file in files {
                load_file(&namespace_dir, &dir, &file, report);
            }
        }
    }
}

fn collect_mcfunctions(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > 16 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            collect_mcfunctions(&path, depth + 1, out);
        } else if path.extension().is_some_and(|e| e == "mcfunction") {
            out.push(path);
        }
    }
}

/// `namespace:path` for a file under `<namespace>/functions/`.
fn function_id(namespace_dir: &Path, functions_dir: &Path, file: &Path) -> Option<String> {
    let namespace = namespace_dir.file_name()?.to_str()?;
    let relative = file.strip_prefix(functions_dir).ok()?.with_extension("");
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect();
    let path = parts?.join("/");
    (valid_part(namespace, false) && valid_part(&path, true)).then(|| format!("{namespace}:{path}"))
}

fn load_file(namespace_dir: &Path, functions_dir: &Path, file: &Path, report: &mut FunctionReport) {
    let Some(id) = function_id(namespace_dir, functions_dir, file) else {
        report.problems.push(FunctionError::BadId {
            path: file.to_path_buf(),
        });
        return;
    };
    let functions = &mut report.functions;
    if let Some(first) = functions
        .loaded
        .get(&id)
        .map(|f| f.path.display().to_string())
    {
        report.problems.push(FunctionError::Duplicate {
            path: file.to_path_buf(),
            id,
            first,
        });
        return;
    }
    if functions.refused.contains(&id) {
        report.problems.push(FunctionError::Duplicate {
            path: file.to_path_buf(),
            id,
            first: "a refused file".to_owned(),
        });
        return;
    }
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            report.problems.push(FunctionError::Read {
                path: file.to_path_buf(),
                message: e.to_string(),
            });
            functions.refused.insert(id);
            return;
        }
    };
    match parse_function(file, &text) {
        Ok(lines) => {
            functions.loaded.insert(
                id.clone(),
                Arc::new(McFunction {
                    id,
                    path: file.to_path_buf(),
                    lines,
                }),
            );
        }
        Err(problems) => {
            report.problems.extend(problems);
            functions.refused.insert(id);
        }
    }
}

/// Parses the text of one `.mcfunction`; every bad line is reported.
pub fn parse_function(path: &Path, text: &str) -> Result<Vec<FunctionLine>, Vec<FunctionError>> {
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let number = i + 1;
        if line.starts_with('/') {
            problems.push(FunctionError::Slash {
                path: path.to_path_buf(),
                line: number,
                text: line.to_owned(),
            });
            continue;
        }
        match parse_event_command(line) {
            Ok(command) => lines.push(FunctionLine {
                number,
                text: line.to_owned(),
                command,
            }),
            Err(error) => problems.push(FunctionError::Line {
                path: path.to_path_buf(),
                line: number,
                text: line.to_owned(),
                error,
            }),
        }
    }
    if problems.is_empty() {
        Ok(lines)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Scratch(PathBuf);

    impl Scratch {
        fn new(tag: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("emoted-fn-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("temp dir");
            Self(dir)
        }

        fn write(&self, relative: &str, text: &str) {
            let path = self.0.join(relative);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }

        /// Writes each `(relative path, text)` file.
        fn write_all(&self, files: &[(&str, &str)]) {
            for (relative, text) in files {
                self.write(relative, text);
            }
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn parses_lines_skipping_comments_and_blanks() {
        let text = "# a comment\n\n  say one  \n   # indented comment\nparticle heart\n";
        let lines = parse_function(Path::new("f.mcfunction"), text).expect("parses");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].number, 3);
        assert_eq!(lines[0].text, "say one");
        assert_eq!(lines[0].command, ParsedCommand::Say("one".into()));
        assert_eq!(lines[1].number, 5);
    }

    #[test]
    fn refuses_a_file_with_bad_lines_and_names_each() {
        let text = "say fine\n/say slash\nkill @a\nparticle sparkles\n";
        let problems = parse_function(Path::new("p/f.mcfunction"), text).expect_err("refused");
        let messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(
            messages[0].contains("p/f.mcfunction:2")
                && messages[0].contains("do not start with `/`")
        );
        assert!(messages[1].contains(":3") && messages[1].contains("Unknown command `kill`"));
        assert!(messages[2].contains(":4") && messages[2].contains("Unknown particle"));
    }

    #[test]
    fn finds_datapacks_and_their_functions() {
        let s = Scratch::new("find");
        s.write_all(&[
            ("datapacks/a/pack.mcmeta", "{}"),
            ("datapacks/a/data/ns/functions/top.mcfunction", "say top"),
            (
                "datapacks/a/data/ns/functions/sub/deep.mcfunction",
                "say deep\nfunction ns:top",
            ),
            (
                "datapacks/a/data/ns/functions/broken.mcfunction",
                "say ok\nexecute run say no",
            ),
            (
                "datapacks/a/data/ns/functions/Upper.mcfunction",
                "say bad id",
            ),
            ("datapacks/a/data/ns/emotes/x.json", "{}"),
            ("datapacks/b/pack.mcmeta", "{}"),
            (
                "datapacks/b/data/ns/functions/top.mcfunction",
                "say duplicate",
            ),
            (
                "datapacks/b/data/other/function/new_style.mcfunction",
                "say 1.21 folder",
            ),
            // Not a datapack: no pack.mcmeta.
            (
                "datapacks/c/data/ns/functions/loose.mcfunction",
                "say loose",
            ),
        ]);
        let report = load_functions(&[s.0.join("datapacks")]);
        let ids: Vec<&str> = report.functions.ids().collect();
        assert_eq!(ids, vec!["ns:sub/deep", "ns:top", "other:new_style"]);
        assert_eq!(report.pack_count, 2);
        match report.functions.get("ns:top") {
            FunctionState::Loaded(f) => {
                assert_eq!(f.lines[0].command, ParsedCommand::Say("top".into()));
                assert!(f
                    .path
                    .ends_with("datapacks/a/data/ns/functions/top.mcfunction"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(report.functions.get("ns:broken"), FunctionState::Refused);
        assert_eq!(report.functions.get("ns:nothing"), FunctionState::Missing);
        let messages: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("broken.mcfunction:2")));
        assert!(messages
            .iter()
            .any(|m| m.contains("Upper.mcfunction: not a function id")));
        assert!(messages.iter().any(|m| m.contains("already defined")));

        // A pack, or its data folder, given directly as a root.
        let direct = load_functions(&[s.0.join("datapacks/b")]);
        assert_eq!(direct.functions.len(), 2);
        let data = load_functions(&[s.0.join("datapacks/b/data")]);
        assert_eq!(data.functions.len(), 2);
        // Reload replaces what was there.
        let mut functions = report.functions.clone();
        s.write(
            "datapacks/a/data/ns/functions/broken.mcfunction",
            "say fixed",
        );
        let problems = reload_functions(&mut functions, &[s.0.join("datapacks")]);
        assert!(matches!(
            functions.get("ns:broken"),
            FunctionState::Loaded(_)
        ));
        assert_eq!(problems.len(), 2);
    }
}
