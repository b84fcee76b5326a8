//! Loading emote files: 1,000 generated Animations of about 50 KB each
//! through [`Library::load`], the same path the server and `emoted check` take.

use std::fmt::Write as _;
use std::path::PathBuf;

use criterion::{criterion_group, Criterion, Throughput};
use emoted::library::Library;

/// Files in the folder benchmark.
pub const FILE_COUNT: usize = 1_000;

/// One Animation of roughly `target_bytes`: item displays under an anchor,
/// each with position, rotation and scale tracks of eased keys.
pub fn generated_animation(index: usize, target_bytes: usize) -> String {
    let mut nodes = String::new();
    let mut tracks = String::new();
    let mut node = 0;
    while nodes.len() + tracks.len() < target_bytes {
        if node > 0 {
            nodes.push(',');
            tracks.push(',');
        }
        write!(
            nodes,
            r#""n{node}":{{"type":"item_display","parent":"root","item_stack_snbt":"{{id:\"minecraft:stick\",count:1}}","item_display":"fixed","transform":{{"position":[0,1,0],"rotation":[0,0,0],"scale":[1,1,1]}}}}"#
        )
        .expect("write to string");
        let mut keys = String::new();
        for k in 0..20 {
            if k > 0 {
                keys.push(',');
            }
            let t = k * 10;
            if k == 19 {
                write!(keys, r#"{{"time":"{t}t","value":[{k},0.5,-1.25]}}"#)
            } else {
                write!(
                    keys,
                    r#"{{"time":"{t}t","value":[{k},0.5,-1.25],"interpolation":"linear","easing":"ease_in_out_sine"}}"#
                )
            }
            .expect("write to string");
        }
        write!(
            tracks,
            r#""n{node}":{{"position":[{keys}],"rotation":[{keys}],"scale":[{keys}]}}"#
        )
        .expect("write to string");
        node += 1;
    }
    format!(
        r#"{{"type":"animation","schema_version":4,"id":"bench:file_{index}","metadata":{{"name":"Bench {index}"}},"settings":{{"standalone":true,"cooldown":"0t","rotation_deadzone":50,"playback":{{"mode":"loop","loop_delay":"0t"}}}},"nodes":{{"root":{{"type":"anchor","space":"initiator","transform":{{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}}}},{nodes}}},"timeline":{{"duration":"200t","tracks":{{{tracks}}}}}}}"#
    )
}

/// Writes the benchmark folder once and returns it with its total size.
fn generated_folder() -> (PathBuf, u64) {
    let dir = std::env::temp_dir().join(format!("emoted-bench-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create bench folder");
    let mut total = 0u64;
    for i in 0..FILE_COUNT {
        let text = generated_animation(i, 50 * 1024);
        total += text.len() as u64;
        std::fs::write(dir.join(format!("file_{i}.json")), text).expect("write bench file");
    }
    (dir, total)
}

fn load_1000_files(c: &mut Criterion) {
    let (dir, total_bytes) = generated_folder();
    let report = Library::load(std::slice::from_ref(&dir));
    assert_eq!(
        report.library.len(),
        FILE_COUNT,
        "{:?}",
        report.lines().first()
    );
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(total_bytes));
    group.bench_function("1000_files_50kb", |b| {
        b.iter(|| Library::load(std::slice::from_ref(&dir)).library.len())
    });
    group.finish();

    let reference = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/emotes/reference.json"
    ))
    .expect("bundled reference emote");
    c.bench_function("parse_reference_animation", |b| {
        b.iter(|| {
            emoted::format::parse_emote_json(std::hint::black_box(&reference))
                .file
                .is_some()
        })
    });
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, load_1000_files);
