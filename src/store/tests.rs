//! The store on real SQLite files in a temporary folder.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

/// A fresh folder under the system's temporary directory.
fn folder(tag: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let path = std::env::temp_dir().join(format!("emoted-store-{}-{n}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    path
}

fn alice() -> Uuid {
    Uuid::from_u128(0x1234_5678_9abc_def0_1234_5678_9abc_def0)
}

#[test]
fn favourites_and_wheel_order_survive_a_reopen() {
    let dir = folder("reopen");
    let opened = PlayerStore::open(&dir).expect("a new store");
    assert!(opened.warnings.is_empty(), "{:?}", opened.warnings);
    let mut store = opened.store;
    assert_eq!(store.schema_version().expect("version"), SCHEMA_VERSION);
    assert_eq!(
        store.favourites(alice()).expect("read"),
        Vec::<String>::new()
    );
    assert!(store
        .toggle_favourite(alice(), "example:wave")
        .expect("toggle"));
    assert!(store
        .toggle_favourite(alice(), "example:bow")
        .expect("toggle"));
    assert!(store
        .toggle_favourite(alice(), "example:dance")
        .expect("toggle"));
    // A second toggle removes it.
    assert!(!store
        .toggle_favourite(alice(), "example:bow")
        .expect("toggle"));
    let order: Vec<String> = ["example:sit", "example:wave"].map(String::from).to_vec();
    store.set_wheel_order(alice(), &order).expect("order");
    // Another player's state is their own.
    let bob = Uuid::from_u128(2);
    assert!(store.toggle_favourite(bob, "example:bow").expect("toggle"));
    drop(store);

    let opened = PlayerStore::open(&dir).expect("the same store");
    assert!(opened.warnings.is_empty(), "{:?}", opened.warnings);
    let mut store = opened.store;
    let mut favourites = store.favourites(alice()).expect("read");
    favourites.sort();
    assert_eq!(favourites, ["example:dance", "example:wave"]);
    assert_eq!(store.favourites(bob).expect("read"), ["example:bow"]);
    assert_eq!(store.wheel_order(alice()).expect("read"), order);
    assert_eq!(store.wheel_order(bob).expect("read"), Vec::<String>::new());
    // Replacing the order drops the old slots.
    store
        .set_wheel_order(alice(), &["example:bow".to_owned()])
        .expect("order");
    assert_eq!(store.wheel_order(alice()).expect("read"), ["example:bow"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corrupt_file_is_moved_aside_and_recreated_with_a_warning() {
    let dir = folder("corrupt");
    std::fs::create_dir_all(&dir).expect("folder");
    let file = dir.join(FILE_NAME);
    let garbage = b"this is not a database, it only sits where one should be".repeat(200);
    std::fs::write(&file, &garbage).expect("write garbage");

    let opened = PlayerStore::open(&dir).expect("recreated");
    assert_eq!(opened.warnings.len(), 1, "{:?}", opened.warnings);
    let warning = &opened.warnings[0];
    assert!(warning.contains("could not be read"), "{warning}");
    assert!(warning.contains(".corrupt-"), "{warning}");
    let store = opened.store;
    assert_eq!(store.schema_version().expect("version"), SCHEMA_VERSION);
    assert!(store
        .toggle_favourite(alice(), "example:wave")
        .expect("works"));
    // The old bytes were kept aside, untouched.
    let aside: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("list")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().contains(".corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read(&aside[0]).expect("read"), garbage);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_old_file_is_migrated_and_a_newer_one_left_alone() {
    // Version 0: an empty SQLite file (as a first start leaves nothing else).
    let dir = folder("migrate");
    std::fs::create_dir_all(&dir).expect("folder");
    let file = dir.join(FILE_NAME);
    Connection::open(&file)
        .and_then(|c| c.execute_batch("CREATE TABLE unrelated (x INTEGER);"))
        .expect("a version 0 file");
    let opened = PlayerStore::open(&dir).expect("migrated");
    assert!(opened.warnings.is_empty());
    assert_eq!(
        opened.store.schema_version().expect("version"),
        SCHEMA_VERSION
    );
    drop(opened);

    // A newer emoted's file: refused, not touched.
    Connection::open(&file)
        .and_then(|c| c.pragma_update(None, "user_version", SCHEMA_VERSION + 5))
        .expect("a newer file");
    let before = std::fs::read(&file).expect("read");
    let error = PlayerStore::open(&dir).expect_err("refused");
    assert!(
        matches!(error, StoreError::Newer { found, .. } if found == SCHEMA_VERSION + 5),
        "{error}"
    );
    assert!(
        error.to_string().contains("newer than this emoted's"),
        "{error}"
    );
    assert_eq!(std::fs::read(&file).expect("read"), before, "left as it is");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn on_off_choices_survive_a_reopen_default_to_on_and_stay_apart() {
    let dir = folder("parts");
    let mut store = PlayerStore::open(&dir).expect("a new store").store;
    let bob = Uuid::from_u128(2);
    for choice in [OnOffChoice::Parts, OnOffChoice::Camera] {
        assert!(
            store.choice(alice(), choice).expect("read"),
            "on by default"
        );
    }
    store
        .set_choice(alice(), OnOffChoice::Parts, false)
        .expect("store");
    store
        .set_choice(bob, OnOffChoice::Parts, false)
        .expect("store");
    store
        .set_choice(bob, OnOffChoice::Parts, true)
        .expect("store again");
    store
        .set_choice(bob, OnOffChoice::Camera, false)
        .expect("store");
    drop(store);

    let store = PlayerStore::open(&dir).expect("the same store").store;
    assert!(
        !store.choice(alice(), OnOffChoice::Parts).expect("read"),
        "heads, kept"
    );
    assert!(
        store.choice(alice(), OnOffChoice::Camera).expect("read"),
        "one choice does not touch the other"
    );
    assert!(
        store.choice(bob, OnOffChoice::Parts).expect("read"),
        "the last choice wins"
    );
    assert!(!store.choice(bob, OnOffChoice::Camera).expect("read"));
    let _ = std::fs::remove_dir_all(&dir);
}
