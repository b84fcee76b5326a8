//! `emoted convert` run as a real process on the fixtures of each format
//! it reads: what it writes equals the golden `NAME.schema4.json` in
//! `tests/fixtures/import/FORMAT/`, passes `emoted check`,
//! and every lossy step is a `NOTE: POINTER: MESSAGE` line; broken input
//! fails with the file and the byte offset or pointer named, writing
//! nothing.
//!
//! To accept a deliberate change of the output, run with
//! `EMOTED_BLESS=1`: the goldens are then rewritten, and the diff shows
//! what changed.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixtures(format: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(format)
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("convert_cli")
        .join(format!("{}-{name}", std::process::id()));
    fs::create_dir_all(&dir).expect("create the scratch dir");
    dir
}

fn emoted(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_emoted"))
        .args(args)
        .output()
        .expect("emoted runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Converts `input` into `out`, checks it against its golden file in
/// `golden_dir`, and returns standard error.
fn convert_against_golden(input: &Path, golden_dir: &Path, out: &Path) -> String {
    let run = emoted(&["convert", &input.to_string_lossy(), "-o", &out.to_string_lossy()]);
    let stderr = text(&run.stderr);
    assert!(run.status.success(), "{}: {stderr}", input.display());
    assert!(stderr.contains(&format!("wrote {}", out.display())), "{stderr}");
    let written: Value =
        serde_json::from_str(&fs::read_to_string(out).expect("written")).expect("JSON");
    let name = input.file_stem().expect("a name").to_string_lossy().into_owned();
    let golden_path = golden_dir.join(format!("{name}.schema4.json"));
    if std::env::var_os("EMOTED_BLESS").is_some() {
        fs::copy(out, &golden_path).expect("bless");
    }
    let golden: Value = serde_json::from_str(
        &fs::read_to_string(&golden_path)
            .unwrap_or_else(|_| panic!("{} (run with EMOTED_BLESS=1)", golden_path.display())),
    )
    .expect("golden JSON");
    assert_eq!(written, golden, "{} differs from its golden", input.display());
    stderr
}

/// Every output in `dir` passes `emoted check`.
fn assert_checks(dir: &Path, count: usize) {
    let run = emoted(&["check", &dir.to_string_lossy()]);
    let stderr = text(&run.stderr);
    assert!(
        run.status.success(),
        "{}{stderr}",
        text(&run.stdout)
    );
    assert!(stderr.contains(&format!("{count} emotes valid")), "{stderr}");
}

#[test]
fn three_ds_fixtures_convert_to_their_golden_files_and_check() {
    let out = scratch("3ds");
    for name in ["arm", "spinner", "blink"] {
        let input = fixtures("3ds").join(format!("{name}.3ds"));
        let stderr = convert_against_golden(&input, &fixtures("3ds"), &out.join(format!("{name}.json")));
        assert!(stderr.contains("NOTE: /nodes/root: one file unit is one block"), "{stderr}");
        assert!(stderr.contains("linear keys within 0.5°") || name == "blink", "{stderr}");
    }
    let blink = text(&emoted(&["convert", &fixtures("3ds").join("blink.3ds").to_string_lossy()]).stderr);
    assert!(blink.contains("`Camera01` (Camera) is not an emote part"), "{blink}");
    let spinner: Value = serde_json::from_slice(
        &emoted(&["convert", &fixtures("3ds").join("spinner.3ds").to_string_lossy()]).stdout,
    )
    .expect("the emote on standard output");
    // The dummy is named by its instance name, and its child hangs from it.
    assert_eq!(spinner["nodes"]["blade"]["parent"], "pivot");
    assert_eq!(spinner["id"], "converted:spinner");
    assert_checks(&out, 3);
}

#[test]
fn anim_clips_convert_to_their_golden_files_and_check() {
    let out = scratch("anim");
    let clips = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips");
    for name in ["walk_v1", "swing_v2", "every_feature_v3"] {
        let input = clips.join(format!("{name}.anim"));
        let stderr = convert_against_golden(&input, &fixtures("anim"), &out.join(format!("{name}.json")));
        assert!(stderr.contains("NOTE: /timeline/tracks/"), "{stderr}");
    }
    assert_checks(&out, 3);
}

#[test]
fn broken_input_names_the_place_and_writes_nothing() {
    let out = scratch("broken");
    let whole = fs::read(fixtures("3ds").join("arm.3ds")).expect("fixture");
    let cut = out.join("cut.3ds");
    fs::write(&cut, &whole[..whole.len() - 7]).expect("write");
    let target = out.join("cut.json");
    let run = emoted(&["convert", &cut.to_string_lossy(), "-o", &target.to_string_lossy()]);
    let stderr = text(&run.stderr);
    assert!(!run.status.success());
    assert!(stderr.starts_with(&format!("{}: byte ", cut.display())), "{stderr}");
    assert!(!target.exists());

    let schema4 = Path::new(env!("CARGO_MANIFEST_DIR")).join("emotes/wave.json");
    let run = emoted(&["convert", &schema4.to_string_lossy()]);
    assert!(!run.status.success());
    assert!(text(&run.stderr).contains("/schema_version: the file is already schema 4"));

    let unknown = out.join("unknown.json");
    fs::write(&unknown, r#"{"hello": 1}"#).expect("write");
    let run = emoted(&["convert", &unknown.to_string_lossy()]);
    assert!(!run.status.success());
    assert!(text(&run.stderr).contains("use --from to say which"));
}
