//! Finding emote files on disk.
//!
//! `emotes/` is searched recursively for `*.json`. In a datapack
//! (`datapacks/<pack>/data/<namespace>/...`) only files under
//! `data/<namespace>/emotes/` are emotes; other data (tags, recipes...) and
//! `pack.mcmeta` are skipped. A path given to `emoted check` is treated the
//! same way, so `emoted check emotes datapacks` checks exactly what the server
//! loads.

use std::path::{Component, Path, PathBuf};

/// Every emote file under `path` (or `path` itself when it is a file), sorted.
pub fn emote_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    walk(path, path, &mut out)?;
    out.sort();
    Ok(out)
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            walk(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") && is_emote_path(root, &path) {
            out.push(path);
        }
    }
    Ok(())
}

/// False for JSON inside a datapack's `data/<namespace>/` that is not under `emotes/`.
fn is_emote_path(root: &Path, path: &Path) -> bool {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<&str> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect();
    match parts.iter().position(|p| *p == "data") {
        // data/<namespace>/<kind>/...: an emote only when <kind> is `emotes`.
        Some(i) if parts.len() > i + 3 => parts[i + 2] == "emotes",
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datapack_layout() {
        let root = Path::new("datapacks");
        assert!(is_emote_path(
            root,
            Path::new("datapacks/p/data/ns/emotes/a.json")
        ));
        assert!(is_emote_path(
            root,
            Path::new("datapacks/p/data/ns/emotes/sub/a.json")
        ));
        assert!(!is_emote_path(
            root,
            Path::new("datapacks/p/data/ns/tags/a.json")
        ));
        assert!(is_emote_path(
            Path::new("emotes"),
            Path::new("emotes/dances/a.json")
        ));
    }
}
