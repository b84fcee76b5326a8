//! Test-only: an importer's output held to the golden file beside its
//! fixture (`NAME.json` → `NAME.schema4.json`), rewritten on purpose with
//! `UPDATE_GOLDEN=1`, and read back as a valid Animation.

use std::path::Path;

use serde_json::Value;

use crate::format::{parse_emote_value, EmoteFile};

/// Asserts that `json`, converted from `source`, is exactly the golden
/// file beside `source` (as indented text) and a valid Animation.
pub(crate) fn assert_matches_golden(source: &Path, json: &Value) {
    let golden = source.with_extension("schema4.json");
    let text = serde_json::to_string_pretty(json).expect("prints") + "\n";
    let expected = String::from_utf8_lossy(&golden_bytes(&golden, text.as_bytes())).into_owned();
    assert_eq!(
        text,
        expected,
        "{} differs from {}",
        source.display(),
        golden.display()
    );
    let report = parse_emote_value(json);
    assert!(
        matches!(report.file, Some(EmoteFile::Animation(_))),
        "{:?}",
        report.problems
    );
}

/// The golden file at `path`, rewritten with `bytes` first when
/// `UPDATE_GOLDEN=1`: what a test holds its output to.
pub(crate) fn golden_bytes(path: &Path, bytes: &[u8]) -> Vec<u8> {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, bytes).expect("writes the golden file");
    }
    std::fs::read(path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()))
}
