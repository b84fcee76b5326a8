//! What the fuzz targets of `tests/fuzz/` found, kept as inputs in
//! `tests/fixtures/fuzz_regressions/` and converted as `emoted convert`
//! does: each is refused with a message naming where and why, and none
//! panics or runs out of memory.

use std::panic::{catch_unwind, AssertUnwindSafe};

use emoted::import::ConvertOptions;

/// The bytes of fixture `name`.
fn fixture(name: &str) -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fuzz_regressions/"
    );
    std::fs::read(format!("{path}{name}")).expect("the fixture")
}

/// What `emoted convert` is told for a file read from memory.
fn options() -> ConvertOptions {
    ConvertOptions {
        stem: "input".to_owned(),
        ..ConvertOptions::default()
    }
}

#[test]
fn a_3ds_file_whose_key_frames_span_more_than_an_i32_is_refused() {
    use emoted::import::three_ds::convert::convert;
    // Found by `three_ds`. No segment or frame count: the frames are the
    // track keys', from -2,118,189,056 to 503,316,481, a span that
    // overflowed an i32. It is far past the longest timeline.
    let bytes = fixture("three_ds_frame_span_overflow.3ds");
    let converted = catch_unwind(AssertUnwindSafe(|| convert(&bytes, &options(), None)))
        .unwrap_or_else(|_| panic!("the .3ds input panicked"));
    let message = converted.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.starts_with("the track keys:") && message.contains("1747670400 ticks"),
        "{message:?}"
    );
}

#[test]
fn a_legacy_timeline_of_thirty_days_is_refused_before_it_is_sampled() {
    use emoted::import::legacy::convert;
    // Found by `legacy` (out of memory): a schema 3 Animation whose
    // duration is "30d", 30 Minecraft days or 720,000 ticks, each of which the migration
    // sampled before the schema 4 reader refused the length.
    let bytes = fixture("legacy_thirty_day_timeline.json");
    let converted = catch_unwind(AssertUnwindSafe(|| convert(&bytes, &options())))
        .unwrap_or_else(|_| panic!("the schema 3 input panicked"));
    let message = converted.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.starts_with("/timeline/duration: 720000t is longer than"),
        "{message:?}"
    );
}
