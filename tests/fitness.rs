//! The shape of `src/`, checked so that it stays as the design says
//! (DESIGN.md, "The shape"; issue 13):
//!
//! - `anim`, `import`, `modded`, `molang`, `pack`, `playback`, `preview` and `store` are pure: no
//!   `valence` in their code;
//! - no import cycle between sibling modules (`a` uses `b` and `b` uses `a`,
//!   directly or around a loop), at any level of the tree;
//! - no file over 800 lines.
//!
//! The test reads the sources as text: every `crate::`, `super::` and
//! `self::` path in the code (comments left out), `use` trees with braces
//! included, is a reference from the module of the file it is in. Two
//! sibling modules are joined when anything in one (or below it) names
//! anything in the other (or below it).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The longest a file in `src/` may be.
const MAX_LINES: usize = 800;

/// The modules that must not name valence.
const PURE: &[&str] = &[
    "anim", "import", "modded", "molang", "pack", "playback", "preview", "store",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `server/gateway/login.rs` → `["server", "gateway", "login"]`; `mod.rs`
/// and `lib.rs`/`main.rs` stand for their folder (the crate root: `[]`).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_owned());
    }
    parts
}

/// The code of a file with comments (line and block) and string contents
/// blanked out, so that neither a doc line nor a message names a path.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').map_or(text.len(), |n| i + n);
            i = end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(text.len(), |n| i + n + 2);
            i = end;
        } else if bytes[i] == b'"' {
            out.push('"');
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                if bytes[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if bytes[i] == b'\'' && rest.len() >= 3 && rest.as_bytes()[2] == b'\'' {
            // A char literal such as '"'.
            out.push_str("' '");
            i += 3;
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Reads a use tree or path after `crate::` (or `super::`, `self::`) from
/// `chars[at..]`, pushing every full path it names into `out`.
fn read_tree(
    chars: &[char],
    mut at: usize,
    prefix: &[String],
    out: &mut Vec<Vec<String>>,
) -> usize {
    let mut path = prefix.to_vec();
    loop {
        while at < chars.len() && chars[at].is_whitespace() {
            at += 1;
        }
        if at < chars.len() && chars[at] == '{' {
            at += 1;
            loop {
                at = read_tree(chars, at, &path, out);
                while at < chars.len() && chars[at].is_whitespace() {
                    at += 1;
                }
                match chars.get(at) {
                    Some(',') => at += 1,
                    Some('}') => return at + 1,
                    _ => return at,
                }
                while at < chars.len() && chars[at].is_whitespace() {
                    at += 1;
                }
                if chars.get(at) == Some(&'}') {
                    return at + 1;
                }
            }
        }
        let start = at;
        while at < chars.len() && is_ident(chars[at]) {
            at += 1;
        }
        if start == at {
            out.push(path);
            return at;
        }
        path.push(chars[start..at].iter().collect());
        if chars.get(at) == Some(&':') && chars.get(at + 1) == Some(&':') {
            at += 2;
        } else {
            out.push(path);
            return at;
        }
    }
}

/// Every module path the code refers to, resolved from `module`.
fn references(module: &[String], code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let before_ok = i == 0 || !is_ident(chars[i - 1]) && chars[i - 1] != ':';
        let word_at = |i: usize, w: &str| {
            let w: Vec<char> = w.chars().collect();
            chars.len() >= i + w.len() && chars[i..i + w.len()] == w[..]
        };
        if before_ok && word_at(i, "crate::") {
            i = read_tree(&chars, i + 7, &[], &mut out);
        } else if before_ok && (word_at(i, "super::") || word_at(i, "self::")) {
            let mut base = module.to_vec();
            while word_at(i, "super::") {
                base.pop();
                i += 7;
            }
            if word_at(i, "self::") {
                i += 6;
            }
            i = read_tree(&chars, i, &base, &mut out);
        } else {
            i += 1;
        }
    }
    out
}

struct Source {
    relative: String,
    module: Vec<String>,
    lines: usize,
    code: String,
}

fn sources() -> Vec<Source> {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).expect("read a source file");
            let relative = path.strip_prefix(&root).expect("under src");
            Source {
                relative: relative.to_string_lossy().replace('\\', "/"),
                module: module_of(relative),
                lines: text.lines().count(),
                code: code_only(&text),
            }
        })
        .collect()
}

/// Strongly connected sets of more than one module in `edges`.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let nodes: BTreeSet<&String> = edges
        .iter()
        .flat_map(|(a, bs)| std::iter::once(a).chain(bs))
        .collect();
    let reaches = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for next in edges.get(&n).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reaches(n))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for n in &nodes {
        let set: BTreeSet<String> = nodes
            .iter()
            .filter(|m| reach[*n].contains(**m) && reach[**m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        if set.len() > 1 && !out.contains(&set) {
            out.push(set);
        }
    }
    out
}

#[test]
fn the_pure_modules_do_not_name_valence() {
    let offenders: Vec<String> = sources()
        .into_iter()
        .filter(|s| s.module.first().is_some_and(|m| PURE.contains(&m.as_str())))
        .filter(|s| {
            s.code
                .split(|c: char| !is_ident(c))
                .any(|word| word == "valence" || word.starts_with("valence_"))
        })
        .map(|s| s.relative)
        .collect();
    assert!(
        offenders.is_empty(),
        "valence named in pure modules: {offenders:?}"
    );
}

#[test]
fn no_file_is_over_the_line_limit() {
    let mut problems = Vec::new();
    for source in sources() {
        if source.lines > MAX_LINES {
            problems.push(format!(
                "{}: {} lines (at most {MAX_LINES})",
                source.relative, source.lines
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn no_import_cycle_between_sibling_modules() {
    // parent path → (sibling → siblings it refers to).
    let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for source in sources() {
        for target in references(&source.module, &source.code) {
            let common = source
                .module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            // A module naming its own ancestors or descendants is no sibling edge.
            let (Some(from), Some(to)) = (source.module.get(common), target.get(common)) else {
                continue;
            };
            let parent = source.module[..common].to_vec();
            let name = |m: &str| {
                let mut path = vec!["crate".to_owned()];
                path.extend(parent.iter().cloned());
                path.push(m.to_owned());
                path.join("::")
            };
            graphs
                .entry(parent.clone())
                .or_default()
                .entry(name(from))
                .or_default()
                .insert(name(to));
        }
    }
    let mut problems = Vec::new();
    for edges in graphs.values() {
        for cycle in cycles(edges) {
            problems.push(cycle);
        }
    }
    assert!(
        problems.is_empty(),
        "import cycles between sibling modules: {problems:#?}"
    );
}

#[test]
fn the_reader_sees_paths_in_use_trees_and_code() {
    let code = code_only(
        "use crate::server::{config::Config, emote::{A, B}};\n\
         // crate::commented::Out\n\
         fn f() { let _ = crate::library::Library::new(); let s = \"crate::in_string\"; }\n\
         use super::sibling::X;\n",
    );
    let refs = references(&["server".to_owned(), "duo".to_owned()], &code);
    let joined: Vec<String> = refs.iter().map(|r| r.join("::")).collect();
    for expected in [
        "server::config::Config",
        "server::emote::A",
        "server::emote::B",
        "library::Library::new",
        "server::sibling::X",
    ] {
        assert!(
            joined.iter().any(|j| j == expected),
            "{expected} in {joined:?}"
        );
    }
    assert!(!joined
        .iter()
        .any(|j| j.contains("commented") || j.contains("in_string")));
    let mut edges = BTreeMap::new();
    edges.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    edges.insert("b".to_owned(), BTreeSet::from(["c".to_owned()]));
    edges.insert("c".to_owned(), BTreeSet::from(["a".to_owned()]));
    edges.insert("d".to_owned(), BTreeSet::from(["a".to_owned()]));
    let found = cycles(&edges);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].len(), 3);
}
