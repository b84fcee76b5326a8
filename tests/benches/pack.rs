//! emoted's resource pack for the bundled emotes, as the server builds it at
//! start-up and after each reload (`current_pack`): the slices the emotes
//! need, the item models, the generated shader and the zip with its SHA-1.
//! Issue 14 asks for under 100 ms.

use criterion::{criterion_group, Criterion};
use emoted::library::Library;
use emoted::server::resource_pack::current_pack;

fn build_bundled(c: &mut Criterion) {
    let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
    let library = Library::load(&[root]).library;
    let mut group = c.benchmark_group("pack");
    group.bench_function("build_for_bundled_emotes", |b| {
        b.iter(|| std::hint::black_box(current_pack(&library, None).expect("builds")))
    });
    group.finish();
}

criterion_group!(benches, build_bundled);
