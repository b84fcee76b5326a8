//! The loaded emotes: every file found, validated, de-duplicated by id and
//! checked across files, with the last good version kept on reload.
//!
//! Rules applied here, on top of each file's own:
//! - the id inside the file is the emote's id; when several files share an
//!   id, **all** of them are refused and each names the others;
//! - a Sequence's references must be loaded Animations, not Sequences, not
//!   `hold` or `server_sync`, and compatible with each other
//!   ([`compat`](self) rules: shared node ids, skin layout);
//! - a Sequence that fails those rules is refused; the Animations stay.

#[cfg(test)]
mod bedrock_tests;
pub mod bones;
#[cfg(test)]
mod channel_tests;
pub mod clip_cli;
pub mod clip_export;
pub mod clips;
mod compat;
pub mod compiled;
pub mod convert_cli;
pub mod discover;
#[cfg(test)]
mod emotecraft_json_tests;
#[cfg(test)]
mod encoder_tests;
#[cfg(test)]
mod gltf_humanoid_tests;
#[cfg(test)]
mod gltf_tests;
#[cfg(test)]
mod humanoid_fidelity_tests;
#[cfg(test)]
mod import_tests;
#[cfg(test)]
mod legacy_tests;
pub mod nbt;
pub mod runtime;
pub mod sample;
#[cfg(test)]
mod scene_tests;
pub mod solvers;
#[cfg(test)]
mod spin_tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use bones::{bone_form, BoneForm};
pub use compiled::{CompiledAnimation, MolangState};
pub use nbt::{NbtEvent, NbtPlayhead};

use crate::format::{read_emote_file, EmoteFile, EmoteId, Problem};

/// One loaded emote and the file it came from.
#[derive(Clone, Debug)]
pub struct LoadedEmote {
    /// The validated file.
    pub file: Arc<EmoteFile>,
    /// For Animations: the compiled rig and Molang programs.
    pub compiled: Option<Arc<CompiledAnimation>>,
    /// For Animations with parts on the initiator's skin: the bone form
    /// modded viewers get ([`bones`]), sampled once at load.
    pub bones: Option<Arc<BoneForm>>,
    /// Where it was read from.
    pub path: PathBuf,
}

impl LoadedEmote {
    /// True for an emote read from an `.anim` clip ([`clips`]).
    pub fn is_clip(&self) -> bool {
        self.path.extension().is_some_and(|e| e == "anim")
    }
}

/// A file that read and compiled cleanly, with its bone form.
type Parsed = (
    Arc<EmoteFile>,
    Option<Arc<CompiledAnimation>>,
    Option<Arc<BoneForm>>,
);

/// The problems of one file.
#[derive(Clone, Debug)]
pub struct FileProblems {
    /// The file.
    pub path: PathBuf,
    /// Its errors and warnings.
    pub problems: Vec<Problem>,
}

impl FileProblems {
    /// True when the file was refused.
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(Problem::is_error)
    }
}

/// The emotes a server can play, by id.
#[derive(Clone, Debug, Default)]
pub struct Library {
    emotes: BTreeMap<EmoteId, LoadedEmote>,
}

/// The outcome of a load: the library and every file's problems.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// What loaded.
    pub library: Library,
    /// Files with at least one problem, in path order.
    pub files: Vec<FileProblems>,
    /// Files read in all.
    pub file_count: usize,
    /// Refused files whose previous version was kept (on reload).
    pub kept_previous: Vec<PathBuf>,
}

impl LoadReport {
    /// The number of errors over all files.
    pub fn error_count(&self) -> usize {
        self.files
            .iter()
            .flat_map(|f| &f.problems)
            .filter(|p| p.is_error())
            .count()
    }

    /// Lines `FILE: /pointer: message`, as `emoted check` prints them.
    pub fn lines(&self) -> Vec<String> {
        self.files
            .iter()
            .flat_map(|f| {
                f.problems
                    .iter()
                    .map(move |p| format!("{}: {p}", f.path.display()))
            })
            .collect()
    }
}

impl Library {
    /// The emote with this id.
    pub fn get(&self, id: &str) -> Option<&LoadedEmote> {
        let id = EmoteId::parse(id).ok()?;
        self.emotes.get(&id)
    }

    /// Adds (or replaces, by id) an emote that no file holds: a modded
    /// player's own emote, imported for one playback
    /// ([`crate::server::emote_library::ClientEmotes`]).
    pub fn insert(&mut self, emote: LoadedEmote) {
        self.emotes.insert(emote.file.id().clone(), emote);
    }

    /// Removes the emote `id`, if there is one.
    pub fn remove(&mut self, id: &EmoteId) -> Option<LoadedEmote> {
        self.emotes.remove(id)
    }

    /// Every emote, by id.
    pub fn iter(&self) -> impl Iterator<Item = (&EmoteId, &LoadedEmote)> {
        self.emotes.iter()
    }

    /// The number of emotes loaded.
    pub fn len(&self) -> usize {
        self.emotes.len()
    }

    /// True when nothing is loaded.
    pub fn is_empty(&self) -> bool {
        self.emotes.is_empty()
    }

    /// Loads every emote file under `roots` (files or folders).
    pub fn load(roots: &[PathBuf]) -> LoadReport {
        Self::reload(roots, None)
    }

    /// Loads like [`Library::load`], but a file that is now refused keeps
    /// the version `previous` loaded from the same path, if any (last good).
    pub fn reload(roots: &[PathBuf], previous: Option<&Library>) -> LoadReport {
        let mut report = LoadReport::default();
        let mut problems_by_path: BTreeMap<PathBuf, Vec<Problem>> = BTreeMap::new();
        let mut parsed: Vec<(PathBuf, Parsed)> = Vec::new();
        let mut paths = Vec::new();
        for root in roots {
            match discover::emote_files(root) {
                Ok(found) => paths.extend(found),
                Err(e) => problems_by_path
                    .entry(root.clone())
                    .or_default()
                    .push(Problem::error("", format!("cannot read: {e}"))),
            }
        }
        report.file_count = paths.len();
        for (path, (problems, file)) in paths.iter().zip(read_all(&paths)) {
            if !problems.is_empty() {
                problems_by_path
                    .entry(path.clone())
                    .or_default()
                    .extend(problems);
            }
            match file {
                Some(file) => parsed.push((path.clone(), file)),
                None => {
                    // Last good: keep what this path held before.
                    if let Some(prev) = previous.and_then(|l| l.by_path(path)) {
                        report.kept_previous.push(path.clone());
                        parsed.push((
                            path.clone(),
                            (
                                Arc::clone(&prev.file),
                                prev.compiled.clone(),
                                prev.bones.clone(),
                            ),
                        ));
                    }
                }
            }
        }

        // Every file sharing an id is refused.
        let mut by_id: BTreeMap<EmoteId, Vec<usize>> = BTreeMap::new();
        for (i, (_, (file, ..))) in parsed.iter().enumerate() {
            by_id.entry(file.id().clone()).or_default().push(i);
        }
        let mut refused = vec![false; parsed.len()];
        for (id, indices) in &by_id {
            if indices.len() > 1 {
                for &i in indices {
                    refused[i] = true;
                    let others: Vec<String> = indices
                        .iter()
                        .filter(|&&j| j != i)
                        .map(|&j| parsed[j].0.display().to_string())
                        .collect();
                    problems_by_path
                        .entry(parsed[i].0.clone())
                        .or_default()
                        .push(Problem::error(
                            "/id",
                            format!(
                                "id `{id}` is also used by {}; every file sharing an id is refused",
                                others.join(", ")
                            ),
                        ));
                }
            }
        }

        // Sequences and controllers are checked against the Animations that
        // survived.
        let candidates: BTreeMap<EmoteId, &EmoteFile> = parsed
            .iter()
            .zip(&refused)
            .filter(|(_, r)| !**r)
            .map(|((_, (f, ..)), _)| (f.id().clone(), &**f))
            .collect();
        for (i, (path, (file, ..))) in parsed.iter().enumerate() {
            if refused[i] {
                continue;
            }
            let errors = match &**file {
                EmoteFile::Sequence(seq) => compat::check_sequence(seq, &candidates),
                EmoteFile::Controller(controller) => {
                    compat::check_controller(controller, &candidates)
                }
                EmoteFile::Animation(_) => Vec::new(),
            };
            {
                if !errors.is_empty() {
                    refused[i] = true;
                    problems_by_path
                        .entry(path.clone())
                        .or_default()
                        .extend(errors);
                }
            }
        }

        let mut emotes: BTreeMap<EmoteId, LoadedEmote> = BTreeMap::new();
        let mut refused_paths = Vec::new();
        for ((path, (file, compiled, bones)), refused) in parsed.into_iter().zip(refused) {
            if refused {
                refused_paths.push(path);
            } else {
                emotes.insert(
                    file.id().clone(),
                    LoadedEmote {
                        file,
                        compiled,
                        bones,
                        path,
                    },
                );
            }
        }
        // Last good for files refused by the rules across files (a duplicate id,
        // a Sequence whose references broke): the previous version stays when
        // its id is still free and, for a Sequence, it still checks out.
        if let Some(previous) = previous {
            for path in refused_paths {
                let Some(prev) = previous.by_path(&path) else {
                    continue;
                };
                if emotes.contains_key(prev.file.id()) || report.kept_previous.contains(&path) {
                    continue;
                }
                let current = || -> BTreeMap<EmoteId, &EmoteFile> {
                    emotes
                        .iter()
                        .map(|(id, e)| (id.clone(), &*e.file))
                        .collect()
                };
                let still_good = match &*prev.file {
                    EmoteFile::Sequence(seq) => compat::check_sequence(seq, &current()).is_empty(),
                    EmoteFile::Controller(controller) => {
                        compat::check_controller(controller, &current()).is_empty()
                    }
                    EmoteFile::Animation(_) => true,
                };
                if !still_good {
                    continue;
                }
                report.kept_previous.push(path.clone());
                emotes.insert(prev.file.id().clone(), prev.clone());
            }
        }
        report.library.emotes = emotes;
        report.files = problems_by_path
            .into_iter()
            .map(|(path, problems)| FileProblems { path, problems })
            .collect();
        report
    }

    fn by_path(&self, path: &Path) -> Option<&LoadedEmote> {
        self.emotes.values().find(|e| e.path == path)
    }
}

/// Reads, validates and compiles one file (an `.anim` clip through
/// [`clips`]).
fn read_and_compile(path: &Path) -> (Vec<Problem>, Option<Parsed>) {
    if path.extension().is_some_and(|e| e == "anim") {
        return clips::read_clip_emote(path);
    }
    let report = read_emote_file(path);
    let mut problems = report.problems;
    let Some(file) = report.file else {
        return (problems, None);
    };
    let compiled = match &file {
        EmoteFile::Animation(anim) => match CompiledAnimation::compile(anim) {
            Ok(c) => {
                problems.extend(c.warnings.iter().cloned());
                Some(Arc::new(c))
            }
            Err(mut errors) => {
                problems.append(&mut errors);
                return (problems, None);
            }
        },
        EmoteFile::Sequence(_) | EmoteFile::Controller(_) => None,
    };
    let bones = match (&file, &compiled) {
        (EmoteFile::Animation(anim), Some(compiled)) => match bone_form(compiled, anim) {
            Ok(form) => form.map(Arc::new),
            Err(e) => {
                problems.push(Problem::warning(
                    "/timeline",
                    format!("no bone form for modded clients (they see the displays): {e}"),
                ));
                None
            }
        },
        _ => None,
    };
    (problems, Some((Arc::new(file), compiled, bones)))
}

/// Reads and validates files on every core: each file is independent, and
/// loading is dominated by JSON parsing and validation, not by the disk.
fn read_all(paths: &[PathBuf]) -> Vec<(Vec<Problem>, Option<Parsed>)> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len().max(1));
    if threads <= 1 || paths.len() < 8 {
        return paths.iter().map(|p| read_and_compile(p)).collect();
    }
    let chunk = paths.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = paths
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || part.iter().map(|p| read_and_compile(p)).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(reports) => reports,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}
