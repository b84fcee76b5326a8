//! The GLB container and the buffers: every broken structure refused with
//! its byte offset or pointer, nothing panics.

use proptest::prelude::*;
use serde_json::json;

use super::writer::{chunk, glb, Doc};
use super::{convert, glb as container, sample, GltfError};
use crate::import::ConvertOptions;

fn options() -> ConvertOptions {
    ConvertOptions {
        namespace: "test".to_owned(),
        stem: "model".to_owned(),
        ..ConvertOptions::default()
    }
}

fn small_doc() -> Doc {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "a"}), true);
    let a = doc.animation(None);
    doc.channel(
        a,
        n,
        "translation",
        "LINEAR",
        &[0.0, 0.5],
        &[0., 0., 0., 1., 0., 0.],
    );
    doc
}

/// A way to break a file.
type Break = Box<dyn Fn(&mut Vec<u8>)>;

fn set_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

fn offset_of(bytes: &[u8]) -> Option<usize> {
    match sample(bytes, &options()) {
        Err(e) => e.offset(),
        Ok(_) => None,
    }
}

#[test]
fn a_built_glb_reads_and_splits_into_its_two_chunks() {
    let doc = small_doc();
    let bytes = doc.glb();
    let split = container::split(&bytes).expect("valid");
    assert_eq!(split.json_offset, 20);
    assert_eq!(split.bin.map(<[u8]>::len), Some(doc.bin.len()));
    assert_eq!(sample(&bytes, &options()).expect("reads").len(), 1);
}

#[test]
fn glb_header_errors_name_their_byte_offset() {
    let good = small_doc().glb();
    // (how to break it, the offset named, words of the message)
    let cases: Vec<(Break, usize, &str)> = vec![
        (Box::new(|b| b.truncate(10)), 8, "cut short"),
        (Box::new(|b| set_u32(b, 4, 1)), 4, "GLB version 1"),
        (
            Box::new(|b| set_u32(b, 8, 5)),
            8,
            "says the file is 5 bytes",
        ),
        (
            Box::new(|b| {
                b.pop();
            }),
            8,
            "the file is cut short",
        ),
        (Box::new(|b| set_u32(b, 12, 0xFFFF_FFF0)), 12, "only"),
        (Box::new(|b| set_u32(b, 12, 6)), 12, "multiple of 4"),
        (
            Box::new(|b| b[16..20].copy_from_slice(b"BIN\0")),
            16,
            "first chunk must be the JSON chunk",
        ),
        (
            Box::new(|b| {
                let json_len = u32::from_le_bytes([b[12], b[13], b[14], b[15]]) as usize;
                let at = 20 + json_len + 4;
                b[at..at + 4].copy_from_slice(b"JSON");
            }),
            0,
            "second \"JSON\" chunk",
        ),
        (
            Box::new(|b| {
                b.extend_from_slice(&[0, 0, 0]);
                let len = b.len() as u32;
                set_u32(b, 8, len);
            }),
            0,
            "a chunk's length needs 4 bytes",
        ),
    ];
    for (i, (break_it, offset, words)) in cases.into_iter().enumerate() {
        let mut bytes = good.clone();
        break_it(&mut bytes);
        let err = sample(&bytes, &options()).expect_err("broken");
        let message = err.to_string();
        assert!(message.contains(words), "case {i}: {message}");
        if offset > 0 {
            assert_eq!(err.offset(), Some(offset), "case {i}: {message}");
        }
        assert!(
            err.offset().is_some_and(|o| o <= bytes.len()),
            "case {i}: {message}"
        );
        assert!(message.starts_with(&format!("byte {}", err.offset().unwrap_or(0))));
    }
}

#[test]
fn the_crates_own_glb_reader_panics_on_a_declared_length_under_12_so_emoted_checks_first() {
    // gltf 1.4's `Glb::from_slice` computes `length - 12` unchecked: with
    // overflow checks (debug and test builds) that is a panic. emoted
    // splits the container itself and refuses it at byte 8.
    let mut bytes = small_doc().glb();
    set_u32(&mut bytes, 8, 4);
    let crate_result = std::panic::catch_unwind(|| ::gltf::Gltf::from_slice(&bytes).is_ok());
    if cfg!(debug_assertions) {
        assert!(
            crate_result.is_err(),
            "the crate no longer panics; the pre-check may go"
        );
    }
    assert_eq!(offset_of(&bytes), Some(8));
}

#[test]
fn unknown_chunks_are_skipped_and_a_missing_bin_is_named() {
    let doc = small_doc();
    let mut json = doc.json.clone();
    json["buffers"] = json!([{"byteLength": doc.bin.len()}]);
    let json = serde_json::to_vec(&json).expect("json");
    let mut body = chunk(b"JSON", &json, b' ');
    body.extend(chunk(b"BIN\0", &doc.bin, 0));
    body.extend(chunk(b"XTRA", &[1, 2, 3, 4, 5], 0));
    let mut bytes = b"glTF".to_vec();
    bytes.extend_from_slice(&2u32.to_le_bytes());
    bytes.extend_from_slice(&(12 + body.len() as u32).to_le_bytes());
    bytes.extend(body);
    assert!(sample(&bytes, &options()).is_ok());

    let no_bin = glb(&json, None);
    let err = sample(&no_bin, &options()).expect_err("no BIN");
    assert!(
        err.to_string()
            .starts_with("/buffers/0/uri: a buffer without a uri"),
        "{err}"
    );
}

#[test]
fn a_json_syntax_error_names_its_byte_in_the_glb() {
    let bytes = glb(b"{\"asset\": {\"version\": \"2.0\"},, }", None);
    let err = sample(&bytes, &options()).expect_err("bad JSON");
    // The second comma is byte 29 of the JSON, which starts at byte 20.
    assert!(
        err.to_string()
            .starts_with("byte 49 (line 1, column 30): key must be a string;"),
        "{err}"
    );
}

#[test]
fn buffers_come_from_files_beside_the_gltf_and_never_from_outside() {
    let dir = std::env::temp_dir().join(format!("emoted-gltf-test-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
    let doc = small_doc();
    std::fs::write(dir.join("sub/data file.bin"), &doc.bin).expect("write");
    let with_uri = |uri: &str| {
        let mut json = doc.json.clone();
        json["buffers"] = json!([{"byteLength": doc.bin.len(), "uri": uri}]);
        serde_json::to_vec(&json).expect("json")
    };
    let mut from_disk = options();
    from_disk.base_dir = Some(dir.clone());
    assert!(sample(&with_uri("sub/data%20file.bin"), &from_disk).is_ok());
    for uri in [
        "../x.bin",
        "/etc/passwd",
        "sub/../../x.bin",
        "https://example.com/a.bin",
        "C:/x.bin",
    ] {
        let err = sample(&with_uri(uri), &from_disk).expect_err(uri);
        assert!(
            err.to_string().starts_with("/buffers/0/uri: "),
            "{uri}: {err}"
        );
        assert!(
            err.to_string().contains("not a relative path inside"),
            "{uri}: {err}"
        );
    }
    let err = sample(&with_uri("sub/data%20file.bin"), &options()).expect_err("no folder");
    assert!(err.to_string().contains("without its folder"), "{err}");
    let err = sample(&with_uri("missing.bin"), &from_disk).expect_err("missing");
    assert!(err.to_string().contains("cannot be read"), "{err}");
    let err =
        sample(&with_uri("data:application/octet-stream,abc"), &from_disk).expect_err("not base64");
    assert!(err.to_string().contains("only base64"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_buffer_shorter_than_its_byte_length_is_refused() {
    let doc = small_doc();
    let mut json = doc.json.clone();
    json["buffers"] = json!([{"byteLength": doc.bin.len() + 8}]);
    let bytes = glb(&serde_json::to_vec(&json).expect("json"), Some(&doc.bin));
    let err = sample(&bytes, &options()).expect_err("short");
    assert!(
        err.to_string().starts_with("/buffers/0/byteLength"),
        "{err}"
    );
}

#[test]
fn oversized_inputs_are_refused_before_reading() {
    let big = vec![b' '; super::MAX_INPUT_BYTES + 1];
    let err = convert(&big, &options()).expect_err("too big");
    assert!(matches!(err, GltfError::TooLarge { .. }), "{err}");
}

/// One mutation of `bytes`: a flipped bit, an inserted, removed or
/// overwritten byte, or a chunk-length-like `u32`.
fn mutate(bytes: &mut Vec<u8>, op: u8, at: usize, value: u8) {
    if bytes.is_empty() {
        bytes.push(value);
        return;
    }
    let at = at % bytes.len();
    match op % 5 {
        0 => bytes[at] ^= 1 << (value % 8),
        1 => bytes.insert(at, value),
        2 => {
            bytes.remove(at);
        }
        3 => bytes[at] = value,
        _ => {
            let left = (bytes.len() - at) as u32;
            let word = [0, 4, left.wrapping_sub(8), left, u32::MAX][usize::from(value % 5)];
            for (i, b) in word.to_le_bytes().into_iter().enumerate() {
                if let Some(slot) = bytes.get_mut(at + i) {
                    *slot = b;
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = convert(&bytes, &options());
        let mut glb_like = b"glTF".to_vec();
        glb_like.extend_from_slice(&bytes);
        let _ = convert(&glb_like, &options());
    }

    #[test]
    fn mutated_glbs_never_panic_and_errors_point_inside(
        edits in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..8)
    ) {
        let mut bytes = small_doc().glb();
        for (op, at, value) in edits {
            mutate(&mut bytes, op, at, value);
        }
        if let Err(err) = convert(&bytes, &options()) {
            prop_assert!(!err.to_string().is_empty());
            prop_assert!(err.offset().is_none_or(|o| o <= bytes.len()), "{}", err);
        }
    }
}
