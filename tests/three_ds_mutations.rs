//! The `.3ds` keyframer reader and evaluator never panic, and every
//! refusal names a byte offset within the input.
//!
//! 100,000 inputs, seeded and deterministic: three small valid files built
//! here from the documented layout (a two-node hierarchy; a node with TCB,
//! ease, REPEAT and SMOOTH tracks and hide keys; a camera and an object
//! without id chunks), each mutated one to eight times by flipping a bit,
//! inserting, deleting or overwriting a byte, or writing a chunk-length
//! value (0, 5, 6, the remaining length ± 1, `u32::MAX`) at some offset.
//! Whatever reads is evaluated at frames before, inside and after its
//! keys.

use std::panic::{catch_unwind, AssertUnwindSafe};

use emoted::import::three_ds::{evaluate, read_scene};

#[path = "common/mutate.rs"]
mod mutate;

use mutate::{mutate, Rng};

const INPUTS: usize = 100_000;

fn chunk(id: u16, body: &[u8]) -> Vec<u8> {
    let mut out = id.to_le_bytes().to_vec();
    out.extend_from_slice(&(6 + body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    out
}

fn parent(id: u16, children: &[Vec<u8>]) -> Vec<u8> {
    chunk(id, &children.concat())
}

fn file(children: &[Vec<u8>]) -> Vec<u8> {
    parent(0x4D4D, &[parent(0xB000, children)])
}

fn header(name: &str, flags1: u16, parent_id: u16) -> Vec<u8> {
    let mut body = name.as_bytes().to_vec();
    body.push(0);
    for word in [flags1, 0, parent_id] {
        body.extend_from_slice(&word.to_le_bytes());
    }
    chunk(0xB010, &body)
}

/// A key: frame, spline flags, the given parameters, then the value.
fn key(frame: i32, bits: u16, params: &[f32], value: &[f32]) -> Vec<u8> {
    let mut out = frame.to_le_bytes().to_vec();
    out.extend_from_slice(&bits.to_le_bytes());
    for v in params.iter().chain(value) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

fn track(id: u16, flags: u16, keys: &[Vec<u8>]) -> Vec<u8> {
    let mut body = flags.to_le_bytes().to_vec();
    body.extend_from_slice(&[0; 8]);
    body.extend_from_slice(&(keys.len() as u32).to_le_bytes());
    body.extend_from_slice(&keys.concat());
    chunk(id, &body)
}

fn valid_files() -> Vec<Vec<u8>> {
    let hierarchy = file(&[
        chunk(0xB00A, &[5, 0, b's', 0, 30, 0, 0, 0]),
        parent(
            0xB002,
            &[
                chunk(0xB030, &0u16.to_le_bytes()),
                header("$$$DUMMY", 0, 0xFFFF),
                chunk(0xB011, b"body\0"),
                track(0xB020, 0, &[key(0, 2, &[-1.0], &[1.0, 2.0, 3.0])]),
                track(0xB021, 0, &[key(0, 0, &[], &[1.5, 0.0, 0.0, 1.0])]),
            ],
        ),
        parent(
            0xB002,
            &[
                chunk(0xB030, &1u16.to_le_bytes()),
                header("arm", 0, 0),
                chunk(0xB013, &[0, 0, 128, 63, 0, 0, 0, 0, 0, 0, 0, 0]),
                track(0xB022, 0, &[key(0, 0, &[], &[2.0, 2.0, 2.0])]),
            ],
        ),
    ]);
    let tcb = file(&[parent(
        0xB002,
        &[
            header("n", 0x0800, 0xFFFF),
            track(
                0xB020,
                0x0003,
                &[
                    key(0, 0x1F, &[0.5, 0.25, -0.5, 0.2, 0.3], &[0.0, 0.0, 0.0]),
                    key(10, 0, &[], &[10.0, 0.0, 0.0]),
                    key(30, 0x18, &[0.6, 0.7], &[0.0, 5.0, 0.0]),
                ],
            ),
            track(
                0xB021,
                0x0002,
                &[
                    key(0, 0, &[], &[0.0, 0.0, 0.0, 1.0]),
                    key(10, 0x07, &[0.1, -0.2, 0.3], &[1.5, 1.0, 0.0, 0.0]),
                    key(20, 0, &[], &[4.0, 0.0, 1.0, 0.0]),
                ],
            ),
            track(0xB029, 0x0001, &[key(5, 0, &[], &[]), key(15, 0, &[], &[])]),
        ],
    )]);
    let kinds = file(&[
        parent(
            0xB003,
            &[
                header("cam", 0, 0xFFFF),
                track(0xB020, 0, &[key(0, 0, &[], &[0.0, -5.0, 1.0])]),
            ],
        ),
        parent(0xB002, &[header("a", 0, 0), chunk(0x7777, &[1, 2, 3])]),
    ]);
    vec![hierarchy, tcb, kinds]
}

#[test]
fn a_hundred_thousand_mutated_files_never_panic_and_errors_point_inside() {
    let files = valid_files();
    for f in &files {
        let scene = read_scene(f).expect("the built files are valid");
        assert!(!scene.nodes.is_empty());
    }
    let mut rng = Rng(0x3D5_2026);
    let (mut read, mut refused) = (0usize, 0usize);
    for input in 0..INPUTS {
        let mut bytes = files[input % files.len()].clone();
        for _ in 0..1 + rng.below(8) {
            mutate(&mut bytes, &mut rng, |left| {
                vec![0, 5, 6, left.wrapping_sub(1), left + 1, u32::MAX]
            });
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| match read_scene(&bytes) {
            Ok(scene) => {
                for frame in [-7.0, 0.0, 3.3, 10.0, 17.5, 40.0, 1e7] {
                    assert_eq!(evaluate(&scene, frame).len(), scene.nodes.len());
                }
                Ok(())
            }
            Err(err) => Err(err),
        }));
        match outcome {
            Ok(Ok(())) => read += 1,
            Ok(Err(err)) => {
                assert!(!err.to_string().is_empty());
                assert!(
                    err.offset() <= bytes.len(),
                    "input {input}: {err} names an offset past the {} bytes",
                    bytes.len()
                );
                refused += 1;
            }
            Err(_) => panic!("input {input} panicked: {bytes:02x?}"),
        }
    }
    // Both paths are exercised: some mutants still read (and evaluate),
    // most are refused.
    assert_eq!(read + refused, INPUTS);
    assert!(read > INPUTS / 100, "only {read} mutants read");
    assert!(refused > INPUTS / 10, "only {refused} mutants refused");
}
