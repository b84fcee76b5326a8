//! `emoted check PATH...` run as a real process on temporary files: exit
//! codes, `FILE: /pointer: message` lines, recursive folders, the datapack
//! layout, the 8 MiB limit (checked from the size, without reading), and
//! files that are not UTF-8 or not JSON.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};

const EIGHT_MIB: u64 = 8 * 1024 * 1024;

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let path =
            std::env::temp_dir().join(format!("emoted-check-cli-{}-{n}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.0.join(relative)
    }

    fn write_bytes(&self, relative: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().expect("parent")).expect("create dirs");
        fs::write(&path, bytes).expect("write");
        path
    }

    fn write(&self, relative: &str, value: &Value) -> PathBuf {
        self.write_bytes(relative, &serde_json::to_vec_pretty(value).expect("json"))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

struct Run {
    code: Option<i32>,
    stdout: Vec<String>,
    stderr: String,
}

impl Run {
    fn describe(&self) -> String {
        format!(
            "exit {:?}\nstdout:\n{}\nstderr:\n{}",
            self.code,
            self.stdout
                .iter()
                .map(|l| format!("  {l}"))
                .collect::<Vec<_>>()
                .join("\n"),
            self.stderr
        )
    }

    /// The `(pointer, message)` of every line about `file`.
    fn lines_for(&self, file: &Path) -> Vec<(String, String)> {
        let prefix = format!("{}: ", file.display());
        self.stdout
            .iter()
            .filter_map(|l| l.strip_prefix(&prefix))
            .map(|rest| match rest.split_once(": ") {
                Some((pointer, message)) => (pointer.to_owned(), message.to_owned()),
                None => (String::new(), rest.to_owned()),
            })
            .collect()
    }

    fn has_line(&self, file: &Path, pointer: &str, fragment: &str) -> bool {
        self.lines_for(file)
            .iter()
            .any(|(p, m)| p == pointer && m.contains(fragment))
    }
}

fn check(paths: &[&Path]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .arg("check")
        .args(paths)
        .output()
        .expect("run emoted check");
    let stdout = String::from_utf8(output.stdout).expect("stdout is UTF-8");
    Run {
        code: output.status.code(),
        stdout: stdout.lines().map(str::to_owned).collect(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn tf() -> Value {
    json!({"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]})
}

fn animation(id: &str) -> Value {
    json!({
        "type": "animation",
        "schema_version": 4,
        "id": id,
        "metadata": {"name": "Test"},
        "settings": {"standalone": true, "cooldown": "0t", "playback": {"mode": "once", "loop_delay": "0t"}},
        "nodes": {
            "body": {"type": "anchor", "space": "initiator", "transform": tf()},
            "hand": {
                "type": "item_display",
                "parent": "body",
                "item_stack_snbt": "{id:\"minecraft:stick\",count:1}",
                "item_display": "fixed",
                "transform": tf()
            }
        },
        "timeline": {
            "duration": "20t",
            "tracks": {"hand": {"rotation": [
                {"time": "0t", "value": [0, 0, 0], "interpolation": "linear", "easing": "ease_in_sine"},
                {"time": "20t", "value": [0, 0, 90]}
            ]}},
            "events": {"timeline": [{"time": "10t", "source": {"type": "server"}, "origin": {"type": "root"}, "commands": ["say hi"]}]}
        }
    })
}

/// An Animation with three independent errors.
fn three_errors(id: &str) -> (Value, [(&'static str, &'static str); 3]) {
    let mut v = animation(id);
    v["settings"]["rotation_deadzone"] = json!(181);
    v["nodes"]["hand"]["item_display"] = json!("left_hand");
    v["timeline"]["events"]["timeline"][0]["commands"][0] = json!("/say hi");
    (
        v,
        [
            ("/settings/rotation_deadzone", "from 0 to 180"),
            ("/nodes/hand/item_display", "is not one of"),
            (
                "/timeline/events/timeline/0/commands/0",
                "do not start with `/`",
            ),
        ],
    )
}

fn sequence(id: &str, animation_id: &str) -> Value {
    json!({
        "type": "sequence",
        "schema_version": 4,
        "id": id,
        "metadata": {"name": "Seq"},
        "settings": {"cooldown": "1s"},
        "steps": [{"emote": animation_id}, {"wait": "5t"}, {"emote": animation_id, "repeat": 2}]
    })
}

// ---------------------------------------------------------------------------

#[test]
fn valid_files_exit_0_with_no_stdout() {
    let dir = TempDir::new("valid");
    let a = dir.write("a.json", &animation("test:a"));
    let s = dir.write("s.json", &sequence("test:s", "test:a"));
    let run = check(&[&dir.0]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
    // Files given one by one.
    let run = check(&[&a, &s]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
}

#[test]
fn an_invalid_file_exits_1_with_file_pointer_message_lines() {
    let dir = TempDir::new("invalid");
    let mut v = animation("test:a");
    v["timeline"]["duration"] = json!("0t");
    let bad = dir.write("bad.json", &v);
    let run = check(&[&bad]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert!(
        run.has_line(&bad, "/timeline/duration", "at least 1t"),
        "{}",
        run.describe()
    );
    let expected_prefix = format!("{}: /timeline/duration: ", bad.display());
    assert!(
        run.stdout.iter().any(|l| l.starts_with(&expected_prefix)),
        "{}",
        run.describe()
    );
    for line in &run.stdout {
        assert!(
            line.starts_with(&format!("{}: ", bad.display())),
            "line does not start with the file: {line}"
        );
    }
}

#[test]
fn every_error_of_a_file_is_reported() {
    let dir = TempDir::new("every");
    let (v, expected) = three_errors("test:a");
    let bad = dir.write("bad.json", &v);
    let run = check(&[&bad]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    for (pointer, fragment) in expected {
        assert!(
            run.has_line(&bad, pointer, fragment),
            "missing {pointer}: {fragment}\n{}",
            run.describe()
        );
    }
    assert!(run.lines_for(&bad).len() >= 3, "{}", run.describe());
}

#[test]
fn only_invalid_files_are_listed_and_the_valid_ones_still_count() {
    let dir = TempDir::new("mixed");
    let good = dir.write("good.json", &animation("test:good"));
    let (v, expected) = three_errors("test:bad");
    let bad = dir.write("bad.json", &v);
    let run = check(&[&dir.0]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert!(run.lines_for(&good).is_empty(), "{}", run.describe());
    for (pointer, fragment) in expected {
        assert!(run.has_line(&bad, pointer, fragment), "{}", run.describe());
    }
}

#[test]
fn warnings_are_printed_but_do_not_fail() {
    let dir = TempDir::new("warning");
    let mut v = animation("test:a");
    v["nodes"]["hand"]["item_stack_snbt"] =
        json!("{id:\"minecraft:stick\",count:1,components:{\"minecraft:rarity\":\"epic\"}}");
    let file = dir.write("a.json", &v);
    let run = check(&[&file]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let lines = run.lines_for(&file);
    assert_eq!(lines.len(), 1, "{}", run.describe());
    assert_eq!(lines[0].0, "/nodes/hand/item_stack_snbt");
    assert!(lines[0].1.starts_with("warning: "), "{}", run.describe());
    assert!(
        lines[0].1.contains("minecraft:rarity"),
        "{}",
        run.describe()
    );
}

#[test]
fn cross_file_errors_are_reported_too() {
    let dir = TempDir::new("cross");
    dir.write("a.json", &animation("test:a"));
    let s = dir.write("s.json", &sequence("test:s", "test:missing"));
    let d1 = dir.write("d1.json", &animation("test:dup"));
    let d2 = dir.write("d2.json", &animation("test:dup"));
    let run = check(&[&dir.0]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert!(
        run.has_line(&s, "/steps/0/emote", "not loaded"),
        "{}",
        run.describe()
    );
    assert!(
        run.has_line(&s, "/steps/2/emote", "not loaded"),
        "{}",
        run.describe()
    );
    assert!(
        run.has_line(&d1, "/id", &d2.display().to_string()),
        "{}",
        run.describe()
    );
    assert!(
        run.has_line(&d2, "/id", &d1.display().to_string()),
        "{}",
        run.describe()
    );
}

#[test]
fn a_folder_is_searched_recursively() {
    let dir = TempDir::new("recursive");
    dir.write("top.json", &animation("test:top"));
    dir.write("a/b/c/deep_ok.json", &animation("test:deep_ok"));
    let (v, expected) = three_errors("test:deep_bad");
    let deep_bad = dir.write("a/b/c/d/deep_bad.json", &v);
    // Not JSON files: never read.
    dir.write_bytes("a/notes.txt", b"not an emote");
    dir.write_bytes("a/b/readme.md", b"# nothing");
    dir.write_bytes("a/b/c/animation.json.bak", b"{");
    let run = check(&[&dir.0]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    for (pointer, fragment) in expected {
        assert!(
            run.has_line(&deep_bad, pointer, fragment),
            "{}",
            run.describe()
        );
    }
    for line in &run.stdout {
        assert!(
            line.starts_with(&format!("{}: ", deep_bad.display())),
            "unexpected line: {line}"
        );
    }
    assert!(
        run.stderr.contains("checked 3 files"),
        "three JSON files should be read:\n{}",
        run.describe()
    );

    // The same tree without the invalid file is valid.
    fs::remove_file(&deep_bad).expect("remove");
    let run = check(&[&dir.0]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
    assert!(run.stderr.contains("checked 2 files"), "{}", run.describe());
}

#[test]
fn in_a_datapack_only_data_ns_emotes_json_is_read() {
    let dir = TempDir::new("datapack");
    let pack = dir.path("datapacks/pack");
    dir.write(
        "datapacks/pack/pack.mcmeta",
        &json!({"pack": {"pack_format": 15, "description": "test"}}),
    );
    dir.write(
        "datapacks/pack/data/ns/emotes/wave.json",
        &animation("ns:wave"),
    );
    dir.write(
        "datapacks/pack/data/ns/emotes/dances/deep/salsa.json",
        &animation("ns:salsa"),
    );
    dir.write(
        "datapacks/pack/data/ns/emotes/combo.json",
        &sequence("ns:combo", "ns:wave"),
    );
    // Other datapack JSON: not emotes, must be ignored.
    dir.write(
        "datapacks/pack/data/ns/tags/x.json",
        &json!({"values": ["ns:wave"]}),
    );
    dir.write(
        "datapacks/pack/data/ns/tags/functions/load.json",
        &json!({"values": ["ns:init"]}),
    );
    dir.write("datapacks/pack/data/ns/recipes/r.json", &json!({"type": "minecraft:crafting_shapeless", "ingredients": [], "result": {"item": "minecraft:stick"}}));
    dir.write(
        "datapacks/pack/data/other/advancements/a.json",
        &json!({"criteria": {}}),
    );
    dir.write_bytes("datapacks/pack/data/ns/functions/f.mcfunction", b"say hi\n");

    for root in [dir.path("datapacks"), pack.clone()] {
        let run = check(&[&root]);
        assert_eq!(
            run.code,
            Some(0),
            "root {}: {}",
            root.display(),
            run.describe()
        );
        assert!(
            run.stdout.is_empty(),
            "root {}: {}",
            root.display(),
            run.describe()
        );
        assert!(
            run.stderr.contains("checked 3 files"),
            "root {}: {}",
            root.display(),
            run.describe()
        );
    }

    // An invalid emote in the pack is reported; the tags still are not.
    let (v, expected) = three_errors("ns:bad");
    let bad = dir.write("datapacks/pack/data/ns/emotes/bad.json", &v);
    let run = check(&[&dir.path("datapacks")]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    for (pointer, fragment) in expected {
        assert!(run.has_line(&bad, pointer, fragment), "{}", run.describe());
    }
    for line in &run.stdout {
        assert!(
            line.starts_with(&format!("{}: ", bad.display())),
            "unexpected line: {line}"
        );
    }
}

#[test]

fn json_directly_under_a_datapack_namespace_is_not_an_emote() {
    let dir = TempDir::new("loose");
    dir.write(
        "datapacks/pack/pack.mcmeta",
        &json!({"pack": {"pack_format": 15, "description": "test"}}),
    );
    dir.write(
        "datapacks/pack/data/ns/emotes/wave.json",
        &animation("ns:wave"),
    );
    dir.write("datapacks/pack/data/ns/loose.json", &json!({"values": []}));
    let run = check(&[&dir.path("datapacks")]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
}

#[test]
fn a_file_over_8_mib_is_refused_with_the_size_message() {
    let dir = TempDir::new("large");
    let path = dir.path("huge.json");
    let size = EIGHT_MIB + 1;
    fs::File::create(&path)
        .expect("create")
        .set_len(size)
        .expect("set_len");
    let run = check(&[&path]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let lines = run.lines_for(&path);
    assert_eq!(lines.len(), 1, "{}", run.describe());
    assert_eq!(
        lines[0].0, "",
        "the size error is at the document pointer \"\""
    );
    assert!(
        lines[0].1.contains(&format!("{size} bytes")),
        "{}",
        run.describe()
    );
    assert!(
        lines[0].1.contains("limited to 8 MiB"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_huge_file_is_refused_from_its_size_without_being_read() {
    // A sparse 4 GiB file: reading it (or even its first 8 MiB + 1) could only
    // report 8 MiB + 1 bytes; the true size in the message proves the refusal
    // came from the file's metadata.
    let dir = TempDir::new("huge");
    let path = dir.path("sub/huge.json");
    fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
    let size = 4 * 1024 * 1024 * 1024u64 + 7;
    fs::File::create(&path)
        .expect("create")
        .set_len(size)
        .expect("set_len");
    let started = std::time::Instant::now();
    let run = check(&[&dir.0]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert!(
        run.has_line(&path, "", &format!("file is {size} bytes")),
        "{}",
        run.describe()
    );
    assert!(
        run.has_line(&path, "", "limited to 8 MiB"),
        "{}",
        run.describe()
    );
    assert!(
        started.elapsed().as_secs() < 20,
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_file_of_exactly_8_mib_is_not_refused_for_its_size() {
    let dir = TempDir::new("exact");
    let mut bytes = serde_json::to_vec(&animation("test:big")).expect("json");
    let padding = EIGHT_MIB as usize - bytes.len();
    bytes.extend(std::iter::repeat(b' ').take(padding));
    assert_eq!(bytes.len() as u64, EIGHT_MIB);
    let path = dir.write_bytes("big.json", &bytes);
    let run = check(&[&path]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
}

#[test]
fn invalid_utf8_is_refused_at_the_document_pointer() {
    let dir = TempDir::new("utf8");
    let mut bytes = serde_json::to_vec(&animation("test:a")).expect("json");
    // Replace the name "Test" with invalid UTF-8.
    let at = bytes.windows(4).position(|w| w == b"Test").expect("name");
    bytes[at] = 0xff;
    bytes[at + 1] = 0xfe;
    let path = dir.write_bytes("latin1.json", &bytes);
    let run = check(&[&path]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let lines = run.lines_for(&path);
    assert_eq!(lines.len(), 1, "{}", run.describe());
    assert_eq!(lines[0].0, "", "{}", run.describe());
    assert!(lines[0].1.contains("not UTF-8"), "{}", run.describe());
}

#[test]
fn invalid_json_is_refused_at_the_document_pointer() {
    let dir = TempDir::new("json");
    let cases: [(&str, &[u8]); 4] = [
        (
            "truncated.json",
            b"{\"type\": \"animation\", \"schema_version\": 4",
        ),
        ("trailing_comma.json", b"{\"type\": \"animation\",}"),
        ("empty.json", b""),
        ("two_values.json", b"{} {}"),
    ];
    for (name, bytes) in cases {
        let path = dir.write_bytes(name, bytes);
        let run = check(&[&path]);
        assert_eq!(run.code, Some(1), "{name}: {}", run.describe());
        let lines = run.lines_for(&path);
        assert_eq!(lines.len(), 1, "{name}: {}", run.describe());
        assert_eq!(lines[0].0, "", "{name}: {}", run.describe());
        assert!(
            lines[0].1.contains("not valid JSON"),
            "{name}: {}",
            run.describe()
        );
    }
}

#[test]
fn json_that_is_not_an_emote_object_is_refused_at_the_document_pointer() {
    let dir = TempDir::new("notobject");
    let cases: [(&str, Value, &str); 3] = [
        ("array.json", json!([1, 2, 3]), "must be a JSON object"),
        ("string.json", json!("animation"), "must be a JSON object"),
        (
            "no_type.json",
            json!({"schema_version": 4}),
            "missing required field `type`",
        ),
    ];
    for (name, value, fragment) in cases {
        let path = dir.write(name, &value);
        let run = check(&[&path]);
        assert_eq!(run.code, Some(1), "{name}: {}", run.describe());
        assert!(
            run.has_line(&path, "", fragment),
            "{name}: {}",
            run.describe()
        );
    }
}

#[test]
fn a_utf8_byte_order_mark_is_accepted() {
    let dir = TempDir::new("bom");
    let mut bytes = vec![0xef, 0xbb, 0xbf];
    bytes.extend(serde_json::to_vec(&animation("test:a")).expect("json"));
    let path = dir.write_bytes("bom.json", &bytes);
    let run = check(&[&path]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
}

#[test]
fn a_missing_path_is_an_error() {
    let dir = TempDir::new("missing");
    let missing = dir.path("does/not/exist");
    let run = check(&[&missing]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert!(
        run.has_line(&missing, "", "cannot read"),
        "{}",
        run.describe()
    );
}

#[test]
fn check_needs_at_least_one_path() {
    let output = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .arg("check")
        .output()
        .expect("run");
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
}

#[test]
fn a_molang_program_that_may_overrun_its_budget_is_a_warning() {
    let dir = TempDir::new("molang-budget");
    let mut v = animation("test:a");
    v["molang"] = json!({"tick": "loop(1024, {loop(1024, {loop(16, {v.x = v.x + 1;});});});"});
    let file = dir.write("a.json", &v);
    let run = check(&[&file]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let lines = run.lines_for(&file);
    assert_eq!(lines.len(), 1, "{}", run.describe());
    assert_eq!(lines[0].0, "/molang/tick", "{}", run.describe());
    assert!(
        lines[0].1.starts_with("warning: Molang: this program may run up to 70,257,664 operations in one tick, over the default budget of 50,000"),
        "{}",
        run.describe()
    );
}
