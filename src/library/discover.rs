//! Finding emote files on disk.
//!
//! `emotes/` is searched recursively for `*.json` and `*.anim` (clips
//! play as emotes, [`super::clips`]). In a datapack
//! (`datapacks/<pack>/data/<namespace>/...`) only files under
//! `data/<namespace>/emotes/` are emotes; other data (tags, recipes...) and
//! `pack.mcmeta` are skipped. A path given to `emoted check` is treated the
//! same way, so `emoted check emotes datapacks` checks exactly what the server
//! loads.
//!
//! `.retarget` maps are found by [`retarget_files`]: every file with that
//! extension below a folder, wherever it is.

use std::path::{Component, Path, PathBuf};

/// Every emote file (`*.json`, `*.anim`) under `path` (or `path` itself
/// when it is a file), sorted.
pub fn emote_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    files_under(path, |p| {
        p.extension().is_some_and(|e| e == "json" || e == "anim") && is_emote_path(p)
    })
}

/// Every `.retarget` file under the folder `path` (or `path` itself when
/// it is a file), sorted.
pub fn retarget_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    files_under(path, is_retarget_path)
}

/// True for a path named `*.retarget`.
pub fn is_retarget_path(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "retarget")
}

fn files_under(path: &Path, wanted: fn(&Path) -> bool) -> std::io::Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    walk(path, wanted, &mut out)?;
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, wanted: fn(&Path) -> bool, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            walk(&path, wanted, out)?;
        } else if wanted(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// False for JSON inside a datapack's `data/` that is not under
/// `data/<namespace>/emotes/`. A folder counts as a datapack's `data/` only
/// when a `pack.mcmeta` sits beside it, so an emote folder that happens to be
/// called `data` is still read, and checking `datapacks/p/data` directly
/// skips tags and recipes too.
fn is_emote_path(path: &Path) -> bool {
    for ancestor in path.ancestors().skip(1) {
        let is_data = ancestor.file_name().is_some_and(|n| n == "data");
        let is_pack = is_data
            && ancestor
                .parent()
                .is_some_and(|pack| pack.join("pack.mcmeta").is_file());
        if is_pack {
            let Ok(relative) = path.strip_prefix(ancestor) else {
                return true;
            };
            let parts: Vec<&str> = relative
                .components()
                .filter_map(|c| match c {
                    Component::Normal(s) => s.to_str(),
                    _ => None,
                })
                .collect();
            // <namespace>/emotes/.../<file>.json
            return parts.len() >= 3 && parts[1] == "emotes";
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datapack_layout() {
        let root = std::env::temp_dir().join(format!("emoted-discover-{}", std::process::id()));
        let pack = root.join("p");
        let files = [
            "p/data/ns/emotes/a.json",
            "p/data/ns/emotes/sub/b.json",
            "p/data/ns/tags/c.json",
            "p/data/ns/loose.json",
            "plain/data/x/y/d.json",
        ];
        for f in files {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().expect("has parent")).expect("mkdir");
            std::fs::write(&path, "{}").expect("write");
        }
        std::fs::write(pack.join("pack.mcmeta"), "{}").expect("write");
        let found: Vec<String> = emote_files(&root)
            .expect("walk")
            .iter()
            .map(|p| {
                p.strip_prefix(&root)
                    .expect("under root")
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        assert_eq!(
            found,
            vec![
                "p/data/ns/emotes/a.json",
                "p/data/ns/emotes/sub/b.json",
                "plain/data/x/y/d.json"
            ]
        );
        // Pointing straight at the pack's data folder applies the same rule.
        assert_eq!(emote_files(&pack.join("data")).expect("walk").len(), 2);
        let _ = std::fs::remove_dir_all(&root);
    }
}
