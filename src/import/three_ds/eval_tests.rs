//! Evaluation worked by hand: the Hermite numbers of linear, Catmull-Rom
//! and TCB keys, squad over relative rotations, REPEAT and SMOOTH, ease,
//! hide toggles and the hierarchy's matrices.
//!
//! Hermite basis at u = ½: h00 = h01 = ½, h10 = ⅛, h11 = −⅛; at u = ¼:
//! h00 = 0.84375, h01 = 0.15625, h10 = 0.140625, h11 = −0.046875.

use std::f32::consts::{FRAC_PI_2, PI};

use glam::{Quat, Vec3};

use super::tests::two_nodes;
use super::writer::*;
use super::*;

const POS: u16 = 0xB020;
const ROT: u16 = 0xB021;
const HIDE: u16 = 0xB029;

/// The one node of a keyframer built from `node_children`.
fn node_of(node_children: &[Vec<u8>]) -> Node {
    let mut children = vec![node_header("n", 0, 0xFFFF)];
    children.extend_from_slice(node_children);
    let bytes = file(&[parent(0xB002, &children)]);
    let mut scene = read_scene(&bytes).expect("valid");
    scene.nodes.remove(0)
}

/// A position track of x values at frames, with `key` making each key.
fn x_track(flags: u16, keys: &[(i32, f32)], key: fn(i32, &[f32]) -> Vec<u8>) -> Node {
    let keys: Vec<Vec<u8>> = keys.iter().map(|&(f, x)| key(f, &[x, 0.0, 0.0])).collect();
    node_of(&[track(POS, flags, &keys)])
}

fn x_at(node: &Node, frame: f32) -> f32 {
    node.position.sample(frame).expect("keys").x
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-4
}

fn same_turn(a: Quat, b: Quat) -> bool {
    a.abs_diff_eq(b, 1e-5) || a.abs_diff_eq(-b, 1e-5)
}

#[test]
fn continuity_minus_one_is_linear_and_the_ends_hold() {
    // Keys 0 → 0, 10 → 10, 20 → 40. With C = −1 every tangent is its
    // segment's chord (kdm = 0, kdp = 1; ksm = 1, ksp = 0), so a segment is
    // P0 + u·(P1 − P0): at u = ¼, 0.15625 + 0.140625 − 0.046875 = 0.25.
    let node = x_track(0, &[(0, 0.0), (10, 10.0), (20, 40.0)], linear);
    let table = [
        (-5.0, 0.0),
        (0.0, 0.0),
        (2.5, 2.5),
        (5.0, 5.0),
        (10.0, 10.0),
        (15.0, 25.0),
        (20.0, 40.0),
        (30.0, 40.0),
    ];
    for (frame, x) in table {
        assert!(
            close(x_at(&node, frame), x),
            "frame {frame}: {}",
            x_at(&node, frame)
        );
    }
}

#[test]
fn zero_parameters_are_catmull_rom_with_fair_tangents_on_uneven_spacing() {
    // Keys 0 → 0, 10 → 10, 20 → 30 (even). Key 0 (no left neighbour):
    // Δm copies Δp = 10, dd0 = ½·10 + ½·10 = 10. Key 1: Δm = 10, Δp = 20,
    // fp = fn = 1, ds1 = ½·10 + ½·20 = 15, dd1 = 15. Key 2: Δ = 20 both
    // sides, ds2 = 20.
    // Frame 5: ½·0 + ½·10 + ⅛·10 − ⅛·15 = 4.375.
    // Frame 15: ½·10 + ½·30 + ⅛·15 − ⅛·20 = 19.375.
    let even = x_track(0, &[(0, 0.0), (10, 10.0), (20, 30.0)], plain);
    assert!(close(x_at(&even, 5.0), 4.375), "{}", x_at(&even, 5.0));
    assert!(close(x_at(&even, 15.0), 19.375), "{}", x_at(&even, 15.0));
    // Key 2 moved to frame 40: at key 1 dt = 20, fp = 10/20 = ½, so
    // ksm = ksp = ½·½ = ¼ and ds1 = ¼·10 + ¼·20 = 7.5.
    // Frame 5: 5 + ⅛·10 − ⅛·7.5 = 5.3125.
    let uneven = x_track(0, &[(0, 0.0), (10, 10.0), (40, 30.0)], plain);
    assert!(close(x_at(&uneven, 5.0), 5.3125), "{}", x_at(&uneven, 5.0));
}

#[test]
fn tension_continuity_and_bias_shape_the_tangents() {
    // Keys 0 → 0, 10 → 10, 40 → 30; key 1 has T = ½, C = ¼, B = −½.
    // At key 1: dt = 20, fp = ½ → ½ + ¼·½ = 0.625, fn = 1.5 → 1.5 − ¼·½ =
    // 1.375. tm = ¼, cm = 0.75, cp = 1.25, bm = 1.5, bp = 0.5:
    // ksm = ¼·0.75·0.5·0.625 = 0.05859375, ksp = ¼·1.25·1.5·0.625 = 0.29296875,
    // kdm = ¼·1.25·0.5·1.375 = 0.21484375, kdp = ¼·0.75·1.5·1.375 = 0.38671875.
    // Δm = 10, Δp = 20: ds1 = 6.4453125, dd1 = 9.8828125.
    // Frame 5: 5 + ⅛·10 − ⅛·6.4453125 = 5.4443359375.
    // Frame 25 (u = ½; key 2's ds2 = 20): 20 + ⅛·9.8828125 − ⅛·20 = 18.7353515625.
    let spline = Spline {
        tension: 0.5,
        continuity: 0.25,
        bias: -0.5,
        ..Spline::default()
    };
    let node = node_of(&[track(
        POS,
        0,
        &[
            plain(0, &[0.0; 3]),
            key(10, spline, &[10.0, 0.0, 0.0]),
            plain(40, &[30.0, 0.0, 0.0]),
        ],
    )]);
    assert!(close(x_at(&node, 5.0), 5.444_336), "{}", x_at(&node, 5.0));
    assert!(
        close(x_at(&node, 25.0), 18.735_352),
        "{}",
        x_at(&node, 25.0)
    );
}

#[test]
fn ease_slows_the_motion_leaving_and_arriving() {
    // ease(u, from ½, to 0): a = 1/(2 − ½) = ⅔. u = ¼ < ½: ⅔/½·(¼)² =
    // 0.0833…; u = ¾: (2·¾ − ½)·⅔ = ⅔. On a linear 0 → 10 segment those
    // are 0.8333 and 6.6667.
    let leaving = Spline {
        continuity: -1.0,
        ease_from: 0.5,
        ..Spline::default()
    };
    let node = node_of(&[track(
        POS,
        0,
        &[key(0, leaving, &[0.0; 3]), linear(10, &[10.0, 0.0, 0.0])],
    )]);
    assert!(close(x_at(&node, 2.5), 0.833_333), "{}", x_at(&node, 2.5));
    assert!(close(x_at(&node, 7.5), 6.666_667), "{}", x_at(&node, 7.5));
    // ease to ½ near the end: u = 0.9: 1 − ⅔/½·(0.1)² = 0.986667.
    assert!(close(tcb::ease(0.9, 0.0, 0.5), 0.986_667));
    // Both 0.8: scaled to ½ each, a = 1: u = ¼ → 2·(¼)² = 0.125, u = ¾ →
    // 1 − 2·(¼)² = 0.875; the ends stay put and no ease is the identity.
    assert!(close(tcb::ease(0.25, 0.8, 0.8), 0.125));
    assert!(close(tcb::ease(0.75, 0.8, 0.8), 0.875));
    assert_eq!(
        (tcb::ease(0.0, 0.3, 0.2), tcb::ease(1.0, 0.3, 0.2)),
        (0.0, 1.0)
    );
    assert_eq!(tcb::ease(0.37, 0.0, 0.0), 0.37);
}

#[test]
fn repeat_wraps_the_frame_and_smooth_closes_the_tangents() {
    // REPEAT over keys 0 → 0, 10 → 10 (linear): nt = fmod(t, 10). Frame 15
    // and 25 are frame 5; frame 10 is frame 0 again; −5 stays before.
    let node = x_track(0x0001, &[(0, 0.0), (10, 10.0)], linear);
    for (frame, x) in [
        (15.0, 5.0),
        (25.0, 5.0),
        (10.0, 0.0),
        (-5.0, 0.0),
        (7.5, 7.5),
    ] {
        assert!(
            close(x_at(&node, frame), x),
            "frame {frame}: {}",
            x_at(&node, frame)
        );
    }
    // Catmull-Rom 0 → 0, 10 → 10, 20 → 0. Without SMOOTH key 0's Δm copies
    // Δp (dd0 = 10): frame 2.5 = 0.15625·10 + 0.140625·10 = 2.96875. With
    // SMOOTH its left neighbour is key 1 (x 10) at frame −10: Δm = −10,
    // Δp = 10, dd0 = 0; key 1's Δm = 10, Δp = −10, ds1 = 0: frame 2.5 =
    // 1.5625.
    let open = x_track(0, &[(0, 0.0), (10, 10.0), (20, 0.0)], plain);
    let closed = x_track(0x0002, &[(0, 0.0), (10, 10.0), (20, 0.0)], plain);
    assert!(close(x_at(&open, 2.5), 2.968_75), "{}", x_at(&open, 2.5));
    assert!(close(x_at(&closed, 2.5), 1.5625), "{}", x_at(&closed, 2.5));
}

#[test]
fn relative_turns_over_three_axes_are_made_absolute_in_lib3ds_order() {
    // Turns of 90° about Z, then X, then Y, at frames 0, 10, 20; each is
    // −90° in the right-handed sense (lib3ds's −angle/2 half-angle), and
    // q_k = r_k · q_{k−1}. x̂ under q1 = Rx(−90°)·Rz(−90°): Rz takes it to
    // (0, −1, 0), Rx to (0, 0, 1). Under q2 = Ry(−90°)·q1: (−1, 0, 0).
    // (assimp's q_{k−1}·r_k would give (0, −1, 0) at key 1.)
    let keys = [
        linear(0, &[FRAC_PI_2, 0.0, 0.0, 1.0]),
        linear(10, &[FRAC_PI_2, 1.0, 0.0, 0.0]),
        linear(20, &[FRAC_PI_2, 0.0, 1.0, 0.0]),
    ];
    let node = node_of(&[track(ROT, 0, &keys)]);
    let at = |frame: f32, v: Vec3| node.rotation.sample(frame) * v;
    assert!(at(0.0, Vec3::X).abs_diff_eq(Vec3::new(0.0, -1.0, 0.0), 1e-5));
    assert!(at(10.0, Vec3::X).abs_diff_eq(Vec3::Z, 1e-5));
    assert!(at(20.0, Vec3::X).abs_diff_eq(-Vec3::X, 1e-5));
    assert!(at(99.0, Vec3::X).abs_diff_eq(-Vec3::X, 1e-5));
    // ŷ: Rz(−90°) → x̂, Rx keeps it, Ry(−90°) → ẑ.
    assert!(at(20.0, Vec3::Y).abs_diff_eq(Vec3::Z, 1e-5));
}

#[test]
fn rotation_keys_interpolate_by_squad() {
    // About Z only: relative 0, 90°, 45° at frames 0, 10, 20; absolute
    // half-angles 0, −π/4, −3π/8. Linear (C = −1): a = b = the key, so
    // squad is slerp: frame 5 turns −45°.
    let linear_keys = [
        linear(0, &[0.0, 0.0, 0.0, 1.0]),
        linear(10, &[FRAC_PI_2, 0.0, 0.0, 1.0]),
        linear(20, &[PI / 4.0, 0.0, 0.0, 1.0]),
    ];
    let node = node_of(&[track(ROT, 0, &linear_keys)]);
    let five = node.rotation.sample(5.0);
    assert!(
        same_turn(five, Quat::from_rotation_z(-PI / 4.0)),
        "{five:?}"
    );
    // Catmull-Rom: key 0's qm copies qp = −π/4 (half-angle, about Z),
    // a0 = P0·exp(½(½qm − ½qp)) = P0. Key 1: qm = −π/4, qp = −π/8,
    // b1 = P1·exp(½(½·qm − ½·qp)) = P1·exp(−π/32): half-angle −9π/32.
    // At u = ½: slerp(P0, P1) = −π/8, slerp(a0, b1) = −9π/64, and their
    // midpoint −17π/128: a turn of −17π/64 about Z.
    let plain_keys = [
        plain(0, &[0.0, 0.0, 0.0, 1.0]),
        plain(10, &[FRAC_PI_2, 0.0, 0.0, 1.0]),
        plain(20, &[PI / 4.0, 0.0, 0.0, 1.0]),
    ];
    let node = node_of(&[track(ROT, 0, &plain_keys)]);
    let five = node.rotation.sample(5.0);
    let expected = Quat::from_rotation_z(-17.0 * PI / 64.0);
    assert!(same_turn(five, expected), "{five:?} vs {expected:?}");
    // Every sample is a unit quaternion.
    for frame in [0.5, 3.0, 9.9, 12.0, 19.0] {
        assert!((node.rotation.sample(frame).length() - 1.0).abs() < 1e-5);
    }
}

#[test]
fn hide_keys_toggle_visibility_from_the_header_state() {
    // Keys at 10 and 20: shown before 10, hidden from 10, shown from 20.
    let keys = [plain(10, &[]), plain(20, &[])];
    let shown = node_of(&[track(HIDE, 0, &keys)]);
    let table = [
        (0.0, true),
        (9.9, true),
        (10.0, false),
        (19.9, false),
        (20.0, true),
        (99.0, true),
    ];
    for (frame, visible) in table {
        assert_eq!(scene::visible(&shown, frame), visible, "frame {frame}");
    }
    // The same keys on a node whose header says hidden: the opposite.
    let bytes = file(&[parent(
        0xB002,
        &[node_header("n", 0x0800, 0xFFFF), track(HIDE, 0, &keys)],
    )]);
    let hidden = read_scene(&bytes).expect("valid").nodes.remove(0);
    for (frame, visible) in table {
        assert_eq!(scene::visible(&hidden, frame), !visible, "frame {frame}");
    }
}

#[test]
fn the_hierarchy_composes_and_the_pivot_moves_only_the_mesh() {
    // Z-up: body = T(1, 2, 3)·Rz(−90°); arm = T(2, 0, 0)·S(2) under it.
    // The arm's origin: (1, 2, 3) + Rz(−90°)(2, 0, 0) = (1, 0, 3), Y-up
    // (x, z, −y) = (1, 3, 0). The pivot (1, 0, 0) is where the mesh turns:
    // world · T(−pivot) puts it at the arm's origin, and a mesh vertex at
    // the file's origin at body's origin: T(2,0,0)·S(2)·(−1, 0, 0) = 0 →
    // (1, 2, 3), Y-up (1, 3, −2).
    let scene = read_scene(&two_nodes()).expect("valid");
    let samples = evaluate(&scene, 0.0);
    let (body, arm) = (&samples[0], &samples[1]);
    assert!(body
        .local
        .translation
        .abs_diff_eq(Vec3::new(1.0, 3.0, -2.0), 1e-5));
    assert!(arm
        .world
        .transform_point3(Vec3::ZERO)
        .abs_diff_eq(Vec3::new(1.0, 3.0, 0.0), 1e-5));
    let c = scene::z_up_to_y_up();
    let pivot = c * Vec3::X;
    assert!(arm
        .mesh
        .transform_point3(pivot)
        .abs_diff_eq(Vec3::new(1.0, 3.0, 0.0), 1e-5));
    assert!(arm
        .mesh
        .transform_point3(Vec3::ZERO)
        .abs_diff_eq(Vec3::new(1.0, 3.0, -2.0), 1e-5));
    // The body has no pivot: its mesh matrix is its world matrix.
    assert!(body.mesh.abs_diff_eq(body.world, 1e-6));
    assert!(arm.local.scale.abs_diff_eq(Vec3::splat(2.0), 1e-6));
    assert!(samples.iter().all(|s| s.visible));
}

#[test]
fn smooth_rotations_see_the_turn_after_the_loop() {
    // About Z: relative 0, 90°, −90° at frames 0, 10, 20 (absolute
    // half-angles 0, −π/4, 0). Key 1: qm = −π/4, qp = +π/4,
    // a1 = P1·exp(½(½·qm − ½·qp)) = half-angle −3π/8.
    // Open: key 2's qp copies qm = +π/4, b2 = P2: at frame 15
    // slerp(P1, P2) = −π/8, slerp(a1, b2) = −3π/16, midpoint −5π/32 (a
    // turn of −5π/16).
    // SMOOTH: key 2's right neighbour is key 1's turn after P2 (half-angle
    // −π/4, frame 30), qp = −π/4, b2 = P2·exp(½(½·π/4 + ½·π/4)) = +π/8;
    // slerp(a1, b2) = −π/8, midpoint −π/8 (a turn of −π/4).
    let keys = [
        plain(0, &[0.0, 0.0, 0.0, 1.0]),
        plain(10, &[FRAC_PI_2, 0.0, 0.0, 1.0]),
        plain(20, &[-FRAC_PI_2, 0.0, 0.0, 1.0]),
    ];
    let open = node_of(&[track(ROT, 0, &keys)]).rotation.sample(15.0);
    let closed = node_of(&[track(ROT, 0x0002, &keys)]).rotation.sample(15.0);
    let open_expected = Quat::from_rotation_z(-5.0 * PI / 16.0);
    let closed_expected = Quat::from_rotation_z(-PI / 4.0);
    assert!(same_turn(open, open_expected), "{open:?}");
    assert!(same_turn(closed, closed_expected), "{closed:?}");
}
