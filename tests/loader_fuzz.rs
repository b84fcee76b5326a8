//! The loader never panics, and every refusal says where.
//!
//! Over 100,000 inputs in all: random bytes, random JSON-looking text, and
//! the bundled emote files mutated (fields deleted, retyped, duplicated,
//! moved into the wrong place). For every input that parses as JSON, each
//! error's pointer must resolve to a value in the document (a missing field is
//! reported at the object that lacks it), so an admin can always find it.

use std::path::Path;

use emoted::format::{parse_emote_bytes, parse_emote_json, parse_emote_value, Problem};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

fn bundled_files() -> Vec<Value> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["emotes", "datapacks"] {
        let files =
            emoted::library::discover::emote_files(&root.join(dir)).expect("bundled folders exist");
        for path in files {
            let text = std::fs::read_to_string(&path).expect("bundled file is readable");
            out.push(serde_json::from_str(&text).expect("bundled file is JSON"));
        }
    }
    assert!(
        out.len() >= 10,
        "expected the bundled emotes, found {}",
        out.len()
    );
    out
}

fn split_pointer(pointer: &str) -> (String, String) {
    let i = pointer.rfind('/').unwrap_or(0);
    let last = pointer[i..]
        .trim_start_matches('/')
        .replace("~1", "/")
        .replace("~0", "~");
    (pointer[..i].to_owned(), last)
}

/// A replacement value of another type, chosen by `kind`.
fn other_value(kind: u8, original: &Value) -> Value {
    match kind % 9 {
        0 => Value::Null,
        1 => Value::Bool(kind % 2 == 0),
        2 => serde_json::json!(-1),
        3 => serde_json::json!(1e300),
        4 => Value::String(String::new()),
        5 => Value::String("~!@#{".repeat(usize::from(kind % 4))),
        6 => serde_json::json!([]),
        7 => serde_json::json!({}),
        _ => serde_json::json!([original.clone(), original.clone(), 3]),
    }
}

/// A pointer chosen by walking down from the root, steered by `index`
/// (cheap: no list of every pointer is built).
fn pick_pointer(doc: &Value, mut index: usize) -> String {
    let mut pointer = String::new();
    let mut node = doc;
    loop {
        let stop = index % 4 == 0;
        index /= 4;
        let next = match node {
            Value::Object(map) if !map.is_empty() && !stop => {
                let (k, v) = map.iter().nth(index % map.len()).expect("index in range");
                index /= map.len();
                pointer.push('/');
                pointer.push_str(&k.replace('~', "~0").replace('/', "~1"));
                v
            }
            Value::Array(items) if !items.is_empty() && !stop => {
                let i = index % items.len();
                index /= items.len();
                pointer.push_str(&format!("/{i}"));
                &items[i]
            }
            _ => return pointer,
        };
        node = next;
        if index == 0 {
            return pointer;
        }
    }
}

/// Applies one mutation chosen by (`op`, `index`, `kind`).
fn mutate(doc: &mut Value, op: u8, index: usize, kind: u8) {
    let target = pick_pointer(doc, index);
    if target.is_empty() {
        if op % 4 == 0 {
            *doc = other_value(kind, doc);
        }
        return;
    }
    let (parent_ptr, last) = split_pointer(&target);
    let Some(original) = doc.pointer(&target).cloned() else {
        return;
    };
    let donor_ptr = pick_pointer(doc, index.rotate_left(17) ^ usize::from(kind));
    let donor = doc.pointer(&donor_ptr).cloned().unwrap_or(Value::Null);
    let Some(parent) = doc.pointer_mut(&parent_ptr) else {
        return;
    };
    match (op % 4, parent) {
        // Delete.
        (0, Value::Object(map)) => {
            map.remove(&last);
        }
        (0, Value::Array(items)) => {
            if let Ok(i) = last.parse::<usize>() {
                if i < items.len() {
                    items.remove(i);
                }
            }
        }
        // Retype.
        (1, Value::Object(map)) => {
            map.insert(last, other_value(kind, &original));
        }
        (1, Value::Array(items)) => {
            if let Ok(i) = last.parse::<usize>() {
                if i < items.len() {
                    items[i] = other_value(kind, &original);
                }
            }
        }
        // Duplicate.
        (2, Value::Object(map)) => {
            map.insert(format!("{last}_copy"), original);
        }
        (2, Value::Array(items)) => {
            items.push(original);
        }
        // Transplant another part of the document here.
        (_, Value::Object(map)) => {
            map.insert(last, donor);
        }
        (_, Value::Array(items)) => {
            if let Ok(i) = last.parse::<usize>() {
                if i < items.len() {
                    items[i] = donor;
                }
            }
        }
        _ => {}
    }
}

/// Every error must point at a value that exists in `doc`.
fn assert_pointers_resolve(doc: &Value, problems: &[Problem]) -> Result<(), TestCaseError> {
    for p in problems.iter().filter(|p| p.is_error()) {
        prop_assert!(
            p.pointer.is_empty() || p.pointer.starts_with('/'),
            "malformed pointer {:?}",
            p.pointer
        );
        prop_assert!(
            doc.pointer(&p.pointer).is_some(),
            "pointer {:?} of `{}` does not resolve in the document",
            p.pointer,
            p.message
        );
        prop_assert!(
            !p.message.trim().is_empty(),
            "empty message at {:?}",
            p.pointer
        );
    }
    Ok(())
}

fn assert_refusal_explained(file_loaded: bool, problems: &[Problem]) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        file_loaded,
        !problems.iter().any(Problem::is_error),
        "a file loads exactly when it has no error"
    );
    Ok(())
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn random_bytes_never_panic() {
    runner(20_000)
        .run(&proptest::collection::vec(any::<u8>(), 0..512), |bytes| {
            let report = parse_emote_bytes(&bytes);
            assert_refusal_explained(report.file.is_some(), &report.problems)?;
            prop_assert!(report.file.is_none() || !bytes.is_empty());
            Ok(())
        })
        .expect("random bytes");
}

#[test]
fn json_looking_text_never_panics() {
    let strategy = proptest::string::string_regex(r#"[\{\}\[\]",:0-9a-z_ .\-tsd~^/\\]{0,300}"#)
        .expect("valid regex");
    runner(20_000)
        .run(&strategy, |text| {
            let report = parse_emote_json(&text);
            assert_refusal_explained(report.file.is_some(), &report.problems)?;
            if let Ok(doc) = serde_json::from_str::<Value>(&text) {
                assert_pointers_resolve(&doc, &report.problems)?;
            }
            Ok(())
        })
        .expect("json-looking text");
}

#[test]
fn mutated_bundled_files_never_panic_and_point_at_the_problem() {
    let bases = bundled_files();
    let strategy = (
        0..bases.len(),
        proptest::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..6),
    );
    let mut refused = 0u32;
    runner(60_000)
        .run(&strategy, |(base, ops)| {
            let mut doc = bases[base].clone();
            for (op, index, kind) in ops {
                mutate(&mut doc, op, index, kind);
            }
            let report = parse_emote_value(&doc);
            assert_refusal_explained(report.file.is_some(), &report.problems)?;
            assert_pointers_resolve(&doc, &report.problems)?;
            Ok(())
        })
        .expect("mutated bundled files");
    // Sanity: the mutations really do break files (the property above is not vacuous).
    let mut doc = bases[0].clone();
    for i in 0..40 {
        mutate(&mut doc, 1, i * 13, 4);
        if parse_emote_value(&doc).file.is_none() {
            refused += 1;
        }
    }
    assert!(refused > 0, "mutations never produced an invalid file");
}

#[test]
fn every_bundled_file_loads_unmutated() {
    for doc in bundled_files() {
        let report = parse_emote_value(&doc);
        let errors: Vec<String> = report
            .problems
            .iter()
            .filter(|p| p.is_error())
            .map(|p| p.to_string())
            .collect();
        assert!(report.file.is_some(), "{:?}: {errors:?}", doc.get("id"));
    }
}
