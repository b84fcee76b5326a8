//! Property tests of the reader: it never panics, whatever it is given,
//! and a refused file always says why.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;

fn read(value: &Value) -> Report<ClipFile> {
    parse_clip_json(&value.to_string())
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1e3f64..1e3).prop_map(|n| json!(n)),
        prop_oneof![
            Just("linear"),
            Just("bezier"),
            Just("rotation"),
            Just("loop"),
            Just("x")
        ]
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("joints"),
                    Just("rotation"),
                    Just("position"),
                    Just("keyframes"),
                    Just("poses"),
                    Just("modifiers"),
                    Just("type"),
                    Just("head"),
                    Just("time")
                ]
                .prop_map(str::to_owned),
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Replaces the `n`th value (depth first) of `value` with `with`; true once done.
fn replace_nth(value: &mut Value, n: &mut usize, with: &Value) -> bool {
    if *n == 0 {
        *value = with.clone();
        return true;
    }
    *n -= 1;
    match value {
        Value::Array(items) => items.iter_mut().any(|v| replace_nth(v, n, with)),
        Value::Object(map) => map.values_mut().any(|v| replace_nth(v, n, with)),
        _ => false,
    }
}

proptest! {
    #[test]
    fn the_reader_never_panics_on_a_valid_file_with_one_value_replaced(n in 0usize..600, with in arbitrary_json()) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips");
        for name in ["walk_v1.anim", "every_feature_v3.anim"] {
            let text = std::fs::read_to_string(dir.join(name)).expect("fixture");
            let mut value: Value = serde_json::from_str(&text).expect("JSON");
            replace_nth(&mut value, &mut n.clone(), &with);
            let report = read(&value);
            // A refused file always says why.
            prop_assert!(report.file.is_some() || report.problems.iter().any(Problem::is_error));
        }
    }

    #[test]
    fn the_reader_never_panics_on_arbitrary_json(value in arbitrary_json()) {
        let _ = read(&value);
        let _ = parse_retarget_json(&value.to_string());
    }

    #[test]
    fn the_reader_never_panics_on_mutated_fixtures(cut in 0usize..4000, byte in any::<u8>()) {
        let text = include_str!("../../../tests/fixtures/clips/every_feature_v3.anim");
        let mut bytes = text.as_bytes().to_vec();
        let at = cut % bytes.len();
        bytes[at] = byte;
        let _ = parse_clip_bytes(&bytes);
        let _ = parse_clip_bytes(&bytes[..at]);
    }
}
