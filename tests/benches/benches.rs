//! Criterion benchmarks: `cargo bench --bench main` (this file is named
//! `benches.rs`, not `main.rs`, so that cargo does not also take it for an
//! integration test).
//!
//! One harness, one module per area (valence's layout).

mod controllers;
mod convert_gltf;
mod load_files;
mod molang_eval;
mod pack;
mod sample_tracks;
mod schedule;
mod solvers;
mod wheel;

criterion::criterion_main!(
    controllers::benches,
    convert_gltf::benches,
    load_files::benches,
    molang_eval::benches,
    pack::benches,
    sample_tracks::benches,
    schedule::benches,
    solvers::benches,
    wheel::benches
);
