//! `emoted convert` run as a real process on the fixtures of each format
//! it reads: what it writes equals the golden `NAME.schema4.json` in
//! `tests/fixtures/import/FORMAT/`, passes `emoted check`,
//! and every lossy step is a `NOTE: POINTER: MESSAGE` line; broken input
//! fails with the file and the byte offset or pointer named, writing
//! nothing.
//!
//! To accept a deliberate change of the output, run with
//! `UPDATE_GOLDEN=1`: the goldens are then rewritten, and the diff shows
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
    convert_against_golden_in(input, golden_dir, out, "converted")
}

/// [`convert_against_golden`] with the ids in `namespace`.
fn convert_against_golden_in(
    input: &Path,
    golden_dir: &Path,
    out: &Path,
    namespace: &str,
) -> String {
    let run = emoted(&[
        "convert",
        &input.to_string_lossy(),
        "-o",
        &out.to_string_lossy(),
        "--namespace",
        namespace,
    ]);
    let stderr = text(&run.stderr);
    assert!(run.status.success(), "{}: {stderr}", input.display());
    assert!(
        stderr.contains(&format!("wrote {}", out.display())),
        "{stderr}"
    );
    let written: Value =
        serde_json::from_str(&fs::read_to_string(out).expect("written")).expect("JSON");
    let name = input
        .file_stem()
        .expect("a name")
        .to_string_lossy()
        .into_owned();
    let golden_path = golden_dir.join(format!("{name}.schema4.json"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        fs::copy(out, &golden_path).expect("bless");
    }
    let golden: Value = serde_json::from_str(
        &fs::read_to_string(&golden_path)
            .unwrap_or_else(|_| panic!("{} (run with UPDATE_GOLDEN=1)", golden_path.display())),
    )
    .expect("golden JSON");
    assert_eq!(
        written,
        golden,
        "{} differs from its golden",
        input.display()
    );
    stderr
}

/// Every output in `dir` passes `emoted check`.
fn assert_checks(dir: &Path, count: usize) {
    let run = emoted(&["check", &dir.to_string_lossy()]);
    let stderr = text(&run.stderr);
    assert!(run.status.success(), "{}{stderr}", text(&run.stdout));
    assert!(
        stderr.contains(&format!("{count} emotes valid")),
        "{stderr}"
    );
}

#[test]
fn three_ds_fixtures_convert_to_their_golden_files_and_check() {
    let out = scratch("3ds");
    for name in ["arm", "spinner", "blink", "spin"] {
        let input = fixtures("3ds").join(format!("{name}.3ds"));
        let stderr =
            convert_against_golden(&input, &fixtures("3ds"), &out.join(format!("{name}.json")));
        assert!(
            stderr.contains("NOTE: /nodes/root: one file unit is one block"),
            "{stderr}"
        );
        assert!(
            stderr.contains("linear keys within 0.5°") || name == "blink",
            "{stderr}"
        );
    }
    let blink = text(
        &emoted(&[
            "convert",
            &fixtures("3ds").join("blink.3ds").to_string_lossy(),
        ])
        .stderr,
    );
    assert!(
        blink.contains("`Camera01` (Camera) is not an emote part"),
        "{blink}"
    );
    let spinner: Value = serde_json::from_slice(
        &emoted(&[
            "convert",
            &fixtures("3ds").join("spinner.3ds").to_string_lossy(),
        ])
        .stdout,
    )
    .expect("the emote on standard output");
    // The dummy is named by its instance name, and its child hangs from it.
    assert_eq!(spinner["nodes"]["blade"]["parent"], "pivot");
    assert_eq!(spinner["id"], "converted:spinner");
    assert_checks(&out, 4);
}

#[test]
fn anim_clips_convert_to_their_golden_files_and_check() {
    let out = scratch("anim");
    let clips = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips");
    for name in ["walk_v1", "swing_v2", "every_feature_v3"] {
        let input = clips.join(format!("{name}.anim"));
        let stderr =
            convert_against_golden(&input, &fixtures("anim"), &out.join(format!("{name}.json")));
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
    let run = emoted(&[
        "convert",
        &cut.to_string_lossy(),
        "-o",
        &target.to_string_lossy(),
    ]);
    let stderr = text(&run.stderr);
    assert!(!run.status.success());
    assert!(
        stderr.starts_with(&format!("{}: byte ", cut.display())),
        "{stderr}"
    );
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

#[test]
fn emotecraft_and_schema_1_and_3_fixtures_convert_to_their_golden_files_and_check() {
    for (format, names) in [
        (
            "emotecraft",
            &["wave_v1", "props_hold_v2", "spin_loop_v3"][..],
        ),
        (
            "legacy",
            &[
                "s1_bob",
                "s1_flag",
                "s1_spin",
                "s3_parented",
                "s3_props",
                "s3_turn",
            ][..],
        ),
    ] {
        let out = scratch(format);
        for name in names {
            let input = fixtures(format).join(format!("{name}.json"));
            // These goldens are the importers' unit tests' too, which write
            // ids in `test:`.
            let out_file = out.join(format!("{name}.json"));
            let stderr = convert_against_golden_in(&input, &fixtures(format), &out_file, "test");
            assert!(stderr.contains("NOTE: "), "{stderr}");
        }
        assert_checks(&out, names.len());
    }
}

/// Converts `input` into the folder `out` (one file per animation) and
/// checks each file written against `golden_dir/NAME.schema4.json`;
/// returns standard error and how many files were written.
fn convert_folder_against_goldens(input: &Path, golden_dir: &Path, out: &Path) -> (String, usize) {
    fs::create_dir_all(out).expect("the output folder");
    let run = emoted(&[
        "convert",
        &input.to_string_lossy(),
        "-o",
        &out.to_string_lossy(),
    ]);
    let stderr = text(&run.stderr);
    assert!(run.status.success(), "{}: {stderr}", input.display());
    let mut written = 0;
    for line in stderr.lines().filter(|l| l.starts_with("wrote ")) {
        let path = PathBuf::from(line["wrote ".len()..].split(" (").next().expect("a path"));
        let name = path
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let golden_path = golden_dir.join(format!("{name}.schema4.json"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            fs::copy(&path, &golden_path).expect("bless");
        }
        let got: Value =
            serde_json::from_str(&fs::read_to_string(&path).expect("written")).expect("JSON");
        let golden: Value =
            serde_json::from_str(&fs::read_to_string(&golden_path).unwrap_or_else(|_| {
                panic!("{} (run with UPDATE_GOLDEN=1)", golden_path.display())
            }))
            .expect("golden JSON");
        assert_eq!(got, golden, "{} differs from its golden", path.display());
        written += 1;
    }
    (stderr, written)
}

#[test]
fn bedrock_and_blockbench_fixtures_convert_to_their_golden_files_and_check() {
    let bedrock = fixtures("bedrock");
    let cases = [
        (bedrock.join("wave.animation.json"), "bedrock", 1),
        (bedrock.join("hop.animation.json"), "bedrock", 1),
        (bedrock.join("spin.animation.json"), "bedrock", 1),
        (
            bedrock.join("geckolib/animations/entity/spinner.animation.json"),
            "bedrock",
            2,
        ),
        (
            fixtures("blockbench").join("wave_5x.bbmodel"),
            "blockbench",
            1,
        ),
        (
            fixtures("blockbench").join("bob_4x.bbmodel"),
            "blockbench",
            1,
        ),
        (
            fixtures("blockbench").join("legacy_4x.bbmodel"),
            "blockbench",
            2,
        ),
        (
            fixtures("blockbench").join("spin_5x.bbmodel"),
            "blockbench",
            1,
        ),
    ];
    for (format, total) in [("bedrock", 5), ("blockbench", 5)] {
        let out = scratch(format);
        for (input, _, count) in cases.iter().filter(|c| c.1 == format) {
            let (stderr, written) = convert_folder_against_goldens(input, &fixtures(format), &out);
            assert_eq!(written, *count, "{}: {stderr}", input.display());
            assert!(stderr.contains("NOTE: "), "{stderr}");
        }
        assert_checks(&out, total);
    }
    // The geometry is found beside the animation: the wave's bones hang
    // from each other and its cubes are drawn.
    let wave: Value = serde_json::from_slice(
        &emoted(&[
            "convert",
            &bedrock.join("wave.animation.json").to_string_lossy(),
        ])
        .stdout,
    )
    .expect("the wave on standard output");
    let nodes = wave["nodes"].as_object().expect("nodes");
    assert!(
        nodes.values().any(|n| n["type"] == "block_display"),
        "{wave}"
    );
    assert!(
        nodes
            .values()
            .filter(|n| n["parent"] != "root" && n.get("space").is_none())
            .count()
            > 1
    );
}

#[test]
fn gltf_fixtures_convert_to_their_golden_files_and_check() {
    let out = scratch("gltf");
    let mut total = 0;
    for name in [
        "pendulum.gltf",
        "hop.gltf",
        "chain.glb",
        "reach.gltf",
        "spin.gltf",
    ] {
        let input = fixtures("gltf").join(name);
        let (stderr, written) = convert_folder_against_goldens(&input, &fixtures("gltf"), &out);
        assert!(written >= 1, "{stderr}");
        // Mixamo's bone names make reach.gltf a humanoid: it plays on the body.
        let humanoid = stderr.contains("the skeleton is humanoid");
        assert_eq!(humanoid, name == "reach.gltf", "{stderr}");
        total += written;
    }
    assert_eq!(total, 6, "chain.glb holds two clips");
    let reach: Value =
        serde_json::from_str(&fs::read_to_string(out.join("reach.json")).expect("written"))
            .expect("JSON");
    assert!(
        reach["timeline"]["tracks"]["shoulder_r"]["rotation"].is_array(),
        "{reach}"
    );
    assert_checks(&out, total);
    // One clip of several, by name.
    let nod = emoted(&[
        "convert",
        &fixtures("gltf").join("chain.glb").to_string_lossy(),
        "--clip",
        "Armature|Nod",
    ]);
    let nod: Value = serde_json::from_slice(&nod.stdout).expect("one emote on standard output");
    assert_eq!(nod["id"], "converted:chain/nod");
    // `-o` ending in a slash is a folder, made when missing, even for one emote.
    let folder = format!("{}/new/", out.display());
    let run = emoted(&[
        "convert",
        &fixtures("gltf").join("hop.gltf").to_string_lossy(),
        "-o",
        &folder,
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(out.join("new/hop.json").is_file());
}

#[test]
fn to_anim_writes_a_clip_that_checks_and_converts_back() {
    let out = scratch("to_anim");
    let clip = out.join("wave.anim");
    let input = fixtures("emotecraft").join("wave_v1.json");
    let run = emoted(&[
        "convert",
        &input.to_string_lossy(),
        "--to",
        "anim",
        "-o",
        &clip.to_string_lossy(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let written: Value =
        serde_json::from_str(&fs::read_to_string(&clip).expect("written")).expect("JSON");
    assert_eq!(written["version"], 3);
    assert!(
        written["joints"]["rightArm"]["rotation"].is_array(),
        "{written}"
    );
    let check = emoted(&["check", &clip.to_string_lossy()]);
    assert!(check.status.success(), "{}", text(&check.stdout));
    assert!(text(&check.stderr).contains("1 emotes valid (1 from clips)"));
    let back = emoted(&["convert", &clip.to_string_lossy()]);
    assert!(back.status.success(), "{}", text(&back.stderr));
    // A source that converts to named nodes has no body for a clip.
    let run = emoted(&[
        "convert",
        &fixtures("gltf").join("hop.gltf").to_string_lossy(),
        "--to",
        "anim",
    ]);
    assert!(!run.status.success());
    assert!(
        text(&run.stderr).contains("not a body"),
        "{}",
        text(&run.stderr)
    );
}
