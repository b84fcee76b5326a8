//! The emote wheel as a player opens it with 200 emotes loaded: who may
//! play what, the pages in the player's order, and the first page drawn
//! (45 item stacks with names and lore). Issue 15 asks for under 1 ms.
//! The cost of 100 players opening it in one tick, packets included, is
//! `emoted loadtest --open-wheels` (README).

use criterion::{criterion_group, Criterion};
use emoted::format::EmoteId;
use emoted::library::Library;
use emoted::server::permissions::{PermissionsSection, PlayerIdentity, PlayerPermissions};
use emoted::server::storage::PlayerChoices;
use emoted::server::wheel::icons::{draw_page, IconCache};
use emoted::server::wheel::{shown_emotes, Viewer, WheelBook};
use uuid::Uuid;

/// Emotes in the benchmark's library.
const EMOTES: usize = 200;

/// A folder of 200 Animations: the bundled wave under 200 ids.
fn two_hundred_emotes() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("emoted-bench-wheel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let wave = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes/wave.json");
    let text = std::fs::read_to_string(wave).expect("the bundled wave");
    let mut json: serde_json::Value = serde_json::from_str(&text).expect("json");
    for i in 0..EMOTES {
        json["id"] = format!("bench:emote_{i:03}").into();
        json["metadata"]["name"] = format!("Emote {i}").into();
        let path = dir.join(format!("emote_{i:03}.json"));
        std::fs::write(path, serde_json::to_vec(&json).expect("json")).expect("write");
    }
    dir
}

fn open_with_200(c: &mut Criterion) {
    let dir = two_hundred_emotes();
    let library = Library::load(&[dir.clone()]).library;
    assert_eq!(library.len(), EMOTES, "every copy loads");
    let rules = PermissionsSection::default();
    let identity = PlayerIdentity {
        name: "bench",
        uuid: Uuid::nil(),
    };
    let perms = PlayerPermissions::resolve(&rules, identity, 0);
    // Twenty favourites and a stored order for fifty of them.
    let choices = PlayerChoices {
        favourites: (0..EMOTES)
            .step_by(10)
            .map(|i| format!("bench:emote_{i:03}"))
            .collect(),
        wheel_order: (0..50)
            .rev()
            .map(|i| format!("bench:emote_{i:03}"))
            .collect(),
        ..PlayerChoices::default()
    };
    let no_cooldown = |_: &EmoteId| 0;
    let viewer = Viewer {
        perms: &perms,
        choices: &choices,
        cooldown_ticks: &no_cooldown,
        offers: &[],
    };
    let mut group = c.benchmark_group("wheel");
    // The first open after a reload: every icon on the page drawn.
    group.bench_function("open_with_200_emotes", |b| {
        b.iter(|| {
            let mut icons = IconCache::default();
            let book = WheelBook::new(shown_emotes(&library, &viewer), &choices.wheel_order);
            std::hint::black_box(draw_page(&book, 0, None, &mut icons))
        })
    });
    // Every later open: the page's icons come from the cache.
    let mut icons = IconCache::default();
    group.bench_function("open_with_200_emotes_cached_icons", |b| {
        b.iter(|| {
            let book = WheelBook::new(shown_emotes(&library, &viewer), &choices.wheel_order);
            std::hint::black_box(draw_page(&book, 0, None, &mut icons))
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(dir);
}

criterion_group!(benches, open_with_200);
