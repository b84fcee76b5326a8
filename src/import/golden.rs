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
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &text).expect("writes the golden file");
    }
    let expected = std::fs::read_to_string(&golden)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", golden.display()));
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
