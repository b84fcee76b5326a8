//! The pack's core shader, run headlessly on Mesa (llvmpipe through EGL),
//! draws every twin where a vanilla `PlayerModel`'s part is and with the
//! right texels, in every vertex order a 1.20.1 client uses; leaves
//! bystanders alone; and a planted wrong slice table fails the comparison.
//!
//! The pack is built for the bundled emotes, as `pack_shaders.rs` builds
//! it, and unzipped into a scratch folder. The harness (`tests/render/`,
//! Python with Debian's `python3-moderngl`, `python3-numpy` and
//! `python3-pil`, installed here with apt-get when missing) reads the
//! shaders and the item models from there, builds skull and `PlayerModel`
//! vertices the way the client builds them, renders, compares, and writes
//! a JSON result that this file asserts on. See `tests/render/README.md`.
//!
//! The five pictures of the body (`tests/render/views/*.png`) are rendered
//! each run and must still match the committed ones; `UPDATE_GOLDEN=1`
//! rewrites them.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::process::Command;

use emoted::format::node::BodyPart;
use emoted::library::Library;
use emoted::pack::ids::{SliceTable, CUSTOM_MODEL_DATA_BASE, MAX_SLICE_IDS};
use emoted::pack::shader::{TWIN_BLOCK_LIGHT, TWIN_SKY_LIGHT};
use emoted::pack::skin_uv::{part_name, Rows, Slice, LIMB_HEIGHT_PX};
use emoted::pack::ResourcePack;
use serde_json::{json, Value};

/// Debian's own Python, where apt installs the harness's modules.
const PYTHON: &str = "/usr/bin/python3";

/// The Debian packages the harness needs: Python's GL binding, arrays and
/// PNGs, and Mesa's EGL with the llvmpipe driver.
const PACKAGES: [&str; 7] = [
    "python3-moderngl",
    "python3-numpy",
    "python3-pil",
    "libegl1",
    "libegl-mesa0",
    "libgl1",
    "libgl1-mesa-dri",
];

/// The fragment stage's file in the pack.
const FRAGMENT_PATH: &str = "assets/minecraft/shaders/core/rendertype_entity_translucent.fsh";

fn harness_dir() -> PathBuf {
    common::crate_root().join("tests").join("render")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("render_twins")
        .join(format!("{}-{name}", std::process::id()));
    fs::create_dir_all(&dir).expect("create the scratch dir");
    dir
}

fn harness_can_run() -> bool {
    Command::new(PYTHON)
        // The modules, and a headless context: glcontext also needs
        // libGL.so.1 (libgl1), which a machine may lack while it has EGL.
        .args([
            "-c",
            "import moderngl, numpy, PIL; \
             moderngl.create_standalone_context(backend='egl', require=330)",
        ])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The bundled emotes' pack, unzipped into `dir`, and its slice table.
fn unpack_bundled(dir: &Path) -> SliceTable {
    let root = common::crate_root();
    let report = Library::load(&[root.join("emotes"), root.join("datapacks")]);
    let (pack, table) = ResourcePack::for_library(&report.library);
    unpack(&pack, dir);
    table
}

/// A pack with every slice id taken (cuts of every limb and the body at
/// a few rows, arms in both widths, up to k 47), unzipped into `dir`, and
/// its slice table.
fn unpack_full_table(dir: &Path) -> SliceTable {
    let bounds = [0, 2, 5, 9, LIMB_HEIGHT_PX];
    let parts = [
        BodyPart::Body,
        BodyPart::RightArm,
        BodyPart::LeftArm,
        BodyPart::RightLeg,
        BodyPart::LeftLeg,
    ];
    let mut cuts = Vec::new();
    for part in parts {
        for (i, start) in bounds.iter().enumerate() {
            for end in &bounds[i + 1..] {
                let rows = Rows::new(*start, *end).expect("rows");
                cuts.push(Slice::new(part, rows, false).expect("a slice"));
            }
        }
    }
    let table = SliceTable::new(cuts);
    assert_eq!(table.len(), MAX_SLICE_IDS);
    unpack(&ResourcePack::new(&table), dir);
    table
}

/// `pack`'s files, unzipped into `dir`.
fn unpack(pack: &ResourcePack, dir: &Path) {
    let built = pack.build().expect("the pack builds");
    let mut archive = zip::ZipArchive::new(Cursor::new(built.zip_bytes)).expect("a zip");
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).expect("an entry");
        let name = file.name().expect("an entry name").into_owned();
        if name.ends_with('/') || name.split('/').any(|part| part == "..") {
            continue;
        }
        let path = dir.join(name);
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).expect("read an entry");
        fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        fs::write(&path, bytes).expect("write an entry");
    }
}

fn slices_json(table: &SliceTable) -> Value {
    let slices: Vec<Value> = table
        .iter()
        .map(|(id, slice)| {
            json!({
                "k": id.index(),
                "part": part_name(slice.part()),
                "slim": slice.slim(),
                "rows": [slice.rows().start_px(), slice.rows().end_px()],
            })
        })
        .collect();
    Value::Array(slices)
}

/// Runs the harness on `job` (completed with the common fields) and
/// returns its result.
fn run_harness(dir: &Path, mut job: Value) -> Value {
    let result = dir.join("result.json");
    job["result"] = json!(result);
    job["custom_model_data_base"] = json!(CUSTOM_MODEL_DATA_BASE);
    job["twin_light"] = json!([
        u16::from(TWIN_BLOCK_LIGHT) * 16,
        u16::from(TWIN_SKY_LIGHT) * 16
    ]);
    let job_path = dir.join("job.json");
    fs::write(&job_path, serde_json::to_vec_pretty(&job).expect("json")).expect("write the job");
    let output = Command::new(PYTHON)
        .arg(harness_dir().join("harness.py"))
        .arg(&job_path)
        .output()
        .expect("run the harness");
    assert!(
        output.status.success(),
        "the harness failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = fs::read(&result).expect("the harness's result");
    serde_json::from_slice(&text).expect("a JSON result")
}

/// `source` with the rectangles of slices `a` and `b` swapped: a slice
/// table that is wrong in a way only texels show (same sizes).
fn swap_slices(source: &str, a: u8, b: u8) -> String {
    let lines: Vec<&str> = source.lines().collect();
    // Each slice and layer is a comment line `// k N name Layer` and the
    // line of its six rectangles after it.
    let rect_line = |k: u8, layer: &str| {
        let prefix = format!("// k {k} ");
        lines
            .iter()
            .position(|l| l.trim_start().starts_with(&prefix) && l.trim_end().ends_with(layer))
            .map(|i| i + 1)
            .unwrap_or_else(|| panic!("no rectangles for k {k} {layer}"))
    };
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    for layer in ["Base", "Overlay"] {
        let (i, j) = (rect_line(a, layer), rect_line(b, layer));
        let comma = |s: &str| s.trim_end().ends_with(',');
        let (x, y) = (
            lines[i].trim_end().trim_end_matches(','),
            lines[j].trim_end().trim_end_matches(','),
        );
        out[i] = format!("{y}{}", if comma(lines[i]) { "," } else { "" });
        out[j] = format!("{x}{}", if comma(lines[j]) { "," } else { "" });
    }
    out.join("\n") + "\n"
}

/// Installs what the harness needs, and unpacks the pack `unpack` makes
/// into a fresh scratch folder: (the folder, the pack's folder, its table).
fn set_up(name: &str, unpack: fn(&Path) -> SliceTable) -> (PathBuf, PathBuf, SliceTable) {
    let present = harness_can_run;
    common::ensure_debian_packages("the render harness", &present, &PACKAGES);
    let dir = scratch(name);
    let pack_dir = dir.join("pack");
    let table = unpack(&pack_dir);
    (dir, pack_dir, table)
}

fn failing_slices(result: &Value) -> BTreeSet<u64> {
    result["slices"]["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .filter_map(|f| f["k"].as_u64())
        .collect()
}

#[test]
fn twins_land_on_the_player_model_and_a_wrong_table_fails() {
    let (dir, pack_dir, table) = set_up("pack", unpack_bundled);
    let slices = slices_json(&table);
    let slice_count = table.len();
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let result = run_harness(
        &dir,
        json!({
            "pack_dir": pack_dir,
            "slices": slices,
            "views_dir": harness_dir().join("views"),
            "write_views": update,
            "seed": 20,
        }),
    );
    eprintln!(
        "render harness: {} slice cases, at most {} isolated pixels off in one, {:.1} s",
        result["slices"]["cases"], result["slices"]["worst_isolated_pixels"], result["seconds"]
    );

    // Every slice, in three vertex orders, under three cameras each (two
    // at random, one square on to a face).
    assert_eq!(result["slices"]["cases"], json!(slice_count * 3 * 3));
    assert_eq!(
        result["slices"]["failures"],
        json!([]),
        "twins that do not match the PlayerModel"
    );

    // The five views: the whole body matches in every order, classic and
    // slim, and the committed pictures are what the pack draws today.
    let views = result["views"].as_array().expect("views");
    assert_eq!(views.len(), 5);
    for view in views {
        let name = &view["name"];
        for (case, count) in view["unexplained"].as_object().expect("cases") {
            assert_eq!(count, &json!(0), "view {name}, {case}");
        }
        let mean = view["mean_difference"].as_f64();
        let off = view["pixels_off"].as_u64();
        assert!(
            mean.is_some_and(|m| m < 0.5) && off.is_some_and(|o| o < 256),
            "view {name} differs from the committed {} (mean {mean:?}, {off:?} pixels off): \
             run with UPDATE_GOLDEN=1 if the change is meant",
            view["path"]
        );
    }

    // The gate: a bystander 300 blocks down is drawn where it is, as with
    // no remap at all; lit as a twin it would be moved away.
    let gate = &result["gate"];
    assert!(
        gate["bystander_covered"].as_u64().is_some_and(|c| c > 300),
        "{gate}"
    );
    assert_eq!(
        gate["bystander_unexplained_vs_no_remap"],
        json!(0),
        "{gate}"
    );
    assert_eq!(gate["bystander_twin_lit_covered"], json!(0), "{gate}");

    // A slice table with two same-sized slices swapped (the classic right
    // arm and right leg: k 2 and 4) must fail for those two, in every case,
    // and only them.
    let fragment = fs::read_to_string(pack_dir.join(FRAGMENT_PATH)).expect("the fragment stage");
    let broken = swap_slices(&fragment, 2, 4);
    assert_ne!(broken, fragment);
    let broken_path = dir.join("broken.fsh");
    fs::write(&broken_path, broken).expect("write the broken stage");
    let broken_result = run_harness(
        &dir,
        json!({
            "pack_dir": pack_dir,
            "fragment_shader": broken_path,
            "slices": slices.as_array().expect("slices")[..5],
            "only_slices": true,
            "seed": 21,
        }),
    );
    assert_eq!(
        failing_slices(&broken_result),
        BTreeSet::from([2, 4]),
        "{broken_result}"
    );
    // Every order and camera of those two: 2 slices x 3 orders x 3 cameras.
    let failures = broken_result["slices"]["failures"].as_array().map(Vec::len);
    assert_eq!(failures, Some(18), "{broken_result}");
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn every_slice_id_up_to_the_last_lands_within_a_pixel() {
    let (dir, pack_dir, table) = set_up("full", unpack_full_table);
    // k 47 is 24,064 blocks down, where a float's step is 1/512 block.
    let result = run_harness(
        &dir,
        json!({
            "pack_dir": pack_dir,
            "slices": slices_json(&table),
            "only_slices": true,
            "cameras_per_case": 1,
            "seed": 22,
        }),
    );
    assert_eq!(result["slices"]["cases"], json!(MAX_SLICE_IDS * 3));
    assert_eq!(result["slices"]["failures"], json!([]), "{result}");
    let _ = fs::remove_dir_all(dir);
}
