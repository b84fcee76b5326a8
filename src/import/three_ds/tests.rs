//! Reading keyframers: the hierarchy, ids, names and key order, and every
//! rule a broken file can break, each at the offset it names.

use glam::{Quat, Vec3};
use proptest::prelude::*;

use super::writer::*;
use super::*;

const POS: u16 = 0xB020;
const ROT: u16 = 0xB021;
const SCL: u16 = 0xB022;
const HIDE: u16 = 0xB029;

/// The scene the hierarchy tests use: a dummy "body" (id 0) at (1, 2, 3)
/// turned 90° about the file's Z, and its child "arm" (id 1) at (2, 0, 0)
/// relative to it, scale 2, pivot (1, 0, 0).
pub(super) fn two_nodes() -> Vec<u8> {
    file(&[
        chunk(0xB00A, &[5, 0, b's', 0, 100, 0, 0, 0]),
        chunk(0xB008, &floats_as_i32(&[0, 100])),
        parent(
            0xB002,
            &[
                node_id(0),
                node_header("$$$DUMMY", 0, 0xFFFF),
                chunk(0xB011, b"body\0"),
                track(POS, 0, &[linear(0, &[1.0, 2.0, 3.0])]),
                track(
                    ROT,
                    0,
                    &[linear(0, &[std::f32::consts::FRAC_PI_2, 0.0, 0.0, 1.0])],
                ),
            ],
        ),
        parent(
            0xB002,
            &[
                node_id(1),
                node_header("arm", 0, 0),
                pivot([1.0, 0.0, 0.0]),
                track(POS, 0, &[linear(0, &[2.0, 0.0, 0.0])]),
                track(SCL, 0, &[linear(0, &[2.0, 2.0, 2.0])]),
            ],
        ),
    ])
}

fn floats_as_i32(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A keyframer whose only node is `node_children` in an object node.
fn one_node(node_children: &[Vec<u8>]) -> Vec<u8> {
    file(&[parent(0xB002, node_children)])
}

#[test]
fn the_header_segment_names_ids_parents_and_pivot_are_read() {
    let scene = read_scene(&two_nodes()).expect("valid");
    assert_eq!(
        scene.header,
        Some(KeyframerHeader {
            revision: 5,
            name: "s".to_owned(),
            frame_count: 100
        })
    );
    assert_eq!(
        scene.segment,
        Some(Segment {
            first_frame: 0,
            last_frame: 100
        })
    );
    let [body, arm] = &scene.nodes[..] else {
        panic!("two nodes, got {}", scene.nodes.len());
    };
    assert_eq!(
        (body.name(), body.object_name.as_str()),
        ("body", "$$$DUMMY")
    );
    assert_eq!(
        (arm.name(), arm.id, arm.parent_id, arm.parent),
        ("arm", 1, 0, Some(0))
    );
    assert_eq!(body.parent, None);
    assert_eq!(arm.pivot, Vec3::new(1.0, 0.0, 0.0));
    // Main (6) + keyframer (6) headers, then header chunk 6 + 8, segment
    // 6 + 8: the first node starts at byte 40.
    assert_eq!(body.offset, 40);
    assert_eq!(scene.parent_first(), [0, 1]);
}

#[test]
fn without_id_chunks_nodes_are_numbered_in_file_order_across_kinds() {
    // A camera (index 0), then two objects (1 and 2); object 2 names
    // parent 1. The camera's rotation track is not its to have: skipped.
    let bytes = file(&[
        parent(
            0xB003,
            &[
                node_header("cam", 0, 0xFFFF),
                track(ROT, 0, &[linear(0, &[1.0, 0.0, 0.0, 1.0])]),
            ],
        ),
        parent(0xB002, &[node_header("a", 0, 0xFFFF)]),
        parent(0xB002, &[node_header("b", 0, 1)]),
    ]);
    let scene = read_scene(&bytes).expect("valid");
    let ids: Vec<u16> = scene.nodes.iter().map(|n| n.id).collect();
    assert_eq!(ids, [0, 1, 2]);
    assert_eq!(scene.nodes[0].kind, NodeKind::Camera);
    assert!(scene.nodes[0].rotation.track.keys.is_empty());
    assert_eq!(scene.nodes[2].parent, Some(1));
    assert_eq!(scene.node_by_id(2).map(Node::name), Some("b"));
    // Breadth-first: roots 0 and 1 in file order, then 1's child 2.
    assert_eq!(scene.parent_first(), [0, 1, 2]);
}

#[test]
fn children_listed_before_their_parents_still_come_after_them() {
    // Node 0 is the child of node 1, which comes later in the file.
    let bytes = file(&[
        parent(0xB002, &[node_id(0), node_header("child", 0, 1)]),
        parent(0xB002, &[node_id(1), node_header("root", 0, 0xFFFF)]),
    ]);
    let scene = read_scene(&bytes).expect("valid");
    assert_eq!(scene.parent_first(), [1, 0]);
}

#[test]
fn keys_are_sorted_and_the_last_of_a_frame_wins() {
    // File order: 10 → x 10, 0 → x 0, 10 → x 99: kept 0 → 0, 10 → 99.
    let bytes = one_node(&[
        node_header("n", 0, 0xFFFF),
        track(
            POS,
            0,
            &[
                linear(10, &[10.0, 0.0, 0.0]),
                linear(0, &[0.0, 0.0, 0.0]),
                linear(10, &[99.0, 0.0, 0.0]),
            ],
        ),
        track(HIDE, 0, &[plain(5, &[]), plain(3, &[]), plain(5, &[])]),
    ]);
    let scene = read_scene(&bytes).expect("valid");
    let node = &scene.nodes[0];
    let keys: Vec<(i32, f32)> = node
        .position
        .keys
        .iter()
        .map(|k| (k.frame, k.value.x))
        .collect();
    assert_eq!(keys, [(0, 0.0), (10, 99.0)]);
    let hides: Vec<i32> = node.hide.keys.iter().map(|k| k.frame).collect();
    assert_eq!(hides, [3, 5]);
}

#[test]
fn duplicate_rotation_keys_are_combined_in_file_order() {
    // Frame 10 holds a turn of 90° about Z, then one of 90° about X: the
    // kept key makes both, X after Z: r = r_x · r_z, with lib3ds's turn of
    // −angle (Quat::from_axis_angle(axis, −angle)).
    let half = std::f32::consts::FRAC_PI_2;
    let bytes = one_node(&[
        node_header("n", 0, 0xFFFF),
        track(
            ROT,
            0,
            &[
                linear(0, &[0.0, 0.0, 0.0, 1.0]),
                linear(10, &[half, 0.0, 0.0, 1.0]),
                linear(10, &[half, 1.0, 0.0, 0.0]),
            ],
        ),
    ]);
    let scene = read_scene(&bytes).expect("valid");
    let rotation = &scene.nodes[0].rotation;
    assert_eq!(rotation.track.keys.len(), 2);
    let expected = Quat::from_rotation_x(-half) * Quat::from_rotation_z(-half);
    let got = rotation.absolute[1];
    assert!(got.abs_diff_eq(expected, 1e-6) || got.abs_diff_eq(-expected, 1e-6));
}

#[test]
fn a_zero_axis_is_no_turn_and_a_zero_scale_component_is_one() {
    let bytes = one_node(&[
        node_header("n", 0, 0xFFFF),
        track(ROT, 0, &[linear(0, &[1.0, 0.0, 0.0, 0.0])]),
        track(SCL, 0, &[linear(0, &[0.0, 2.0, 0.0])]),
    ]);
    let scene = read_scene(&bytes).expect("valid");
    let node = &scene.nodes[0];
    assert_eq!(node.rotation.absolute, [Quat::IDENTITY]);
    assert_eq!(node.scale.keys[0].value, Vec3::new(1.0, 2.0, 1.0));
}

#[test]
fn spline_parameters_are_read_only_for_their_bits_in_order() {
    // Bits: continuity (0x02) and ease from (0x10) only: the two floats
    // are continuity then ease from, and the value follows them.
    let spline = Spline {
        continuity: -0.5,
        ease_from: 0.25,
        ..Spline::default()
    };
    let bytes = one_node(&[
        node_header("n", 0, 0xFFFF),
        track(POS, 0x0003, &[key(4, spline, &[7.0, 8.0, 9.0])]),
    ]);
    let scene = read_scene(&bytes).expect("valid");
    let track = &scene.nodes[0].position;
    assert!(track.flags.repeat() && track.flags.smooth());
    assert_eq!(track.keys[0].spline, spline);
    assert_eq!(track.keys[0].value, Vec3::new(7.0, 8.0, 9.0));
}

// ---- Errors -------------------------------------------------------------

#[test]
fn every_truncation_of_a_valid_file_is_an_error_within_the_input() {
    let bytes = two_nodes();
    assert!(read_scene(&bytes).is_ok());
    for len in 0..bytes.len() {
        let cut = &bytes[..len];
        let err = read_scene(cut).expect_err("a cut file is refused");
        assert!(err.offset() <= len, "cut at {len}: {err}");
    }
    // Cut inside the main chunk, the main chunk itself is what overruns.
    assert!(matches!(
        read_scene(&bytes[..50]),
        Err(ReadError::PastParent {
            offset: 0,
            id: 0x4D4D,
            ..
        })
    ));
}

#[test]
fn a_chunk_shorter_than_its_header_is_refused_at_its_offset() {
    // Node at byte 12, its header child at 18 says it is 3 bytes long.
    let mut bytes = one_node(&[node_header("n", 0, 0xFFFF)]);
    bytes[20..24].copy_from_slice(&3u32.to_le_bytes());
    assert_eq!(
        read_scene(&bytes),
        Err(ReadError::ShortChunk {
            offset: 18,
            id: 0xB010,
            length: 3
        })
    );
}

#[test]
fn a_child_running_past_its_node_is_refused_at_the_child() {
    // The node (12..12 + 6 + 14) holds its header (18..32); make the
    // header one byte longer than what is left in the node.
    let mut bytes = one_node(&[node_header("n", 0, 0xFFFF)]);
    bytes[20..24].copy_from_slice(&15u32.to_le_bytes());
    assert_eq!(
        read_scene(&bytes),
        Err(ReadError::PastParent {
            offset: 18,
            id: 0xB010,
            length: 15,
            parent: Place::Chunk(0xB002),
            parent_end: 32
        })
    );
}

#[test]
fn a_parent_loop_is_refused_at_its_first_node() {
    // 0 → 1 → 0, then a root 2 hanging nothing. Node 0 is at byte 12.
    let bytes = file(&[
        parent(0xB002, &[node_id(0), node_header("a", 0, 1)]),
        parent(0xB002, &[node_id(1), node_header("b", 0, 0)]),
        parent(0xB002, &[node_id(2), node_header("c", 0, 0xFFFF)]),
    ]);
    assert_eq!(
        read_scene(&bytes),
        Err(ReadError::ParentCycle {
            offset: 12,
            node_id: 0
        })
    );
    // A node that is its own parent is a loop of one.
    let own = file(&[
        parent(0xB002, &[node_id(2), node_header("r", 0, 0xFFFF)]),
        parent(0xB002, &[node_id(5), node_header("s", 0, 5)]),
    ]);
    let first_len = 6 + 8 + 6 + 8;
    assert_eq!(
        read_scene(&own),
        Err(ReadError::ParentCycle {
            offset: 12 + first_len,
            node_id: 5
        })
    );
}

#[test]
fn a_missing_parent_and_a_repeated_id_are_refused_at_the_node() {
    let missing = one_node(&[node_id(3), node_header("n", 0, 7)]);
    assert_eq!(
        read_scene(&missing),
        Err(ReadError::MissingParent {
            offset: 12,
            node_id: 3,
            parent_id: 7
        })
    );
    // Node 1 has no id chunk (index 1) but node 0 took id 1 already.
    let first = parent(0xB002, &[node_id(1), node_header("a", 0, 0xFFFF)]);
    let at = 12 + first.len();
    let repeated = file(&[first, parent(0xB002, &[node_header("b", 0, 0xFFFF)])]);
    assert_eq!(
        read_scene(&repeated),
        Err(ReadError::DuplicateNodeId {
            offset: at,
            node_id: 1,
            first_offset: 12
        })
    );
}

#[test]
fn broken_fields_are_refused_where_they_are() {
    // Header at 18: its name (body at 24) has no NUL in the chunk.
    let unterminated = one_node(&[chunk(0xB010, b"name")]);
    assert_eq!(read_scene(&unterminated).map_err(|e| e.offset()), Err(24));
    // A track (at 32 after the 14-byte header chunk) says 1000 keys; its
    // count is at 32 + 6 + 10 = 48.
    let mut many = one_node(&[
        node_header("n", 0, 0xFFFF),
        track(POS, 0, &[linear(0, &[0.0; 3])]),
    ]);
    many[48..52].copy_from_slice(&1000u32.to_le_bytes());
    assert!(matches!(
        read_scene(&many),
        Err(ReadError::CountTooLarge {
            offset: 48,
            count: 1000,
            ..
        })
    ));
    // A tension of 2 (its float at 52 + 6 = 58).
    let tense = one_node(&[
        node_header("n", 0, 0xFFFF),
        track(
            POS,
            0,
            &[key(
                0,
                Spline {
                    tension: 2.0,
                    ..Spline::default()
                },
                &[0.0; 3],
            )],
        ),
    ]);
    assert!(matches!(
        read_scene(&tense),
        Err(ReadError::OutOfRange { offset: 58, .. })
    ));
    // A NaN position (after frame, flags: 52 + 6 = 58).
    let nan = one_node(&[
        node_header("n", 0, 0xFFFF),
        track(POS, 0, &[plain(0, &[f32::NAN, 0.0, 0.0])]),
    ]);
    assert!(matches!(
        read_scene(&nan),
        Err(ReadError::NotFinite { offset: 58, .. })
    ));
}

#[test]
fn files_without_a_main_chunk_keyframer_or_node_header_are_refused() {
    assert_eq!(
        read_scene(&chunk(0x3D3D, &[])),
        Err(ReadError::NotThreeDs {
            offset: 0,
            id: 0x3D3D
        })
    );
    assert_eq!(
        read_scene(&parent(0x4D4D, &[chunk(0x3D3D, &[])])),
        Err(ReadError::NoKeyframer { offset: 0 })
    );
    assert_eq!(
        read_scene(&one_node(&[node_id(0)])),
        Err(ReadError::MissingNodeHeader {
            offset: 12,
            id: 0xB002
        })
    );
    // Two headers in one node: the second (at 18 + 14) is refused.
    let twice = one_node(&[node_header("a", 0, 0xFFFF), node_header("b", 0, 0xFFFF)]);
    assert_eq!(
        read_scene(&twice),
        Err(ReadError::Duplicate {
            offset: 32,
            id: 0xB010,
            parent: Place::Chunk(0xB002),
            first_offset: 18
        })
    );
}

#[test]
fn unknown_chunks_are_skipped_by_length_unread() {
    // An unknown chunk full of junk (including what looks like a short
    // chunk) beside the node, and an editor chunk, change nothing.
    let junk = chunk(0x7777, &[0x10, 0xB0, 1, 0, 0, 0, 0xFF]);
    let bytes = parent(
        0x4D4D,
        &[
            chunk(0x3D3D, &[0xFF; 9]),
            parent(
                0xB000,
                &[junk, parent(0xB002, &[node_header("n", 0, 0xFFFF)])],
            ),
        ],
    );
    let scene = read_scene(&bytes).expect("valid");
    assert_eq!(scene.nodes.len(), 1);
}

// ---- Never panic --------------------------------------------------------

/// `bytes` changed by one mutation chosen by `kind` at `at`.
fn mutate(bytes: &mut Vec<u8>, kind: u8, at: usize, byte: u8) {
    if bytes.is_empty() {
        bytes.push(byte);
        return;
    }
    let at = at % bytes.len();
    match kind % 4 {
        0 => bytes[at] ^= 1 << (byte % 8),
        1 => bytes.insert(at, byte),
        2 => {
            bytes.remove(at);
        }
        _ => bytes[at] = byte,
    }
}

fn check_no_panic(bytes: &[u8]) {
    match read_scene(bytes) {
        Ok(scene) => {
            for frame in [-3.0, 0.0, 2.5, 50.0, 1e9] {
                assert_eq!(evaluate(&scene, frame).len(), scene.nodes.len());
            }
        }
        Err(err) => assert!(err.offset() <= bytes.len(), "{err} past {}", bytes.len()),
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_no_panic(&bytes);
        // The same bytes behind a valid main and keyframer header.
        let mut framed = file(&[]);
        framed.extend_from_slice(&bytes);
        let total = framed.len() as u32;
        framed[2..6].copy_from_slice(&total.to_le_bytes());
        framed[8..12].copy_from_slice(&(total - 6).to_le_bytes());
        check_no_panic(&framed);
    }

    #[test]
    fn mutated_files_never_panic(
        mutations in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..6)
    ) {
        let mut bytes = two_nodes();
        for (kind, at, byte) in mutations {
            mutate(&mut bytes, kind, at, byte);
        }
        check_no_panic(&bytes);
    }
}
