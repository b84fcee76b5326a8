//! The importer against hand-worked values of glTF 2.0's Appendix C, on
//! small files written here from the specification's layout.

use glam::{Quat, Vec3, Vec4};
use serde_json::json;

use super::curves::{hermite, Curve, Interpolation};
use super::writer::Doc;
use super::{convert, sample, GltfError, SampledClip};
use crate::import::{ConvertOptions, ImportError};

/// A way to break a document.
type Break = Box<dyn Fn(&mut Doc)>;

fn options() -> ConvertOptions {
    ConvertOptions {
        namespace: "test".to_owned(),
        stem: "model".to_owned(),
        ..ConvertOptions::default()
    }
}

/// The one clip of `doc` (as `.gltf` with a data URI), sampled.
fn one(doc: &Doc) -> SampledClip {
    let mut clips = sample(&doc.gltf(), &options()).expect("samples");
    assert_eq!(clips.len(), 1);
    clips.remove(0)
}

/// Node `i`'s translation at `tick`.
fn at(clip: &SampledClip, node: usize, tick: usize) -> Vec3 {
    clip.scene.nodes[node].frames[tick].translation
}

fn rot(clip: &SampledClip, node: usize, tick: usize) -> Quat {
    clip.scene.nodes[node].frames[tick].rotation
}

fn same_rotation(a: Quat, b: Quat) -> bool {
    a.abs_diff_eq(b, 1e-5) || a.abs_diff_eq(-b, 1e-5)
}

fn has_note(clip: &SampledClip, pointer: &str, words: &str) -> bool {
    clip.notes
        .iter()
        .any(|n| n.pointer == pointer && n.message.contains(words))
}

// STEP, keys at 0 s, 0.5 s (tick 10) and 1 s (tick 20):
//   x: 0 ─────────┐1 ─────────┐2
//   tick 0 … 9    10 … 19     20
#[test]
fn step_holds_each_key_until_the_next() {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "box"}), true);
    let a = doc.animation(Some("jump"));
    doc.channel(
        a,
        n,
        "translation",
        "STEP",
        &[0.0, 0.5, 1.0],
        &[0., 0., 0., 1., 0., 0., 2., 0., 0.],
    );
    let clip = one(&doc);
    assert_eq!(clip.scene.duration_ticks, 20);
    for (tick, x) in [
        (0, 0.0),
        (9, 0.0),
        (10, 1.0),
        (11, 1.0),
        (19, 1.0),
        (20, 2.0),
    ] {
        assert_eq!(at(&clip, 0, tick), Vec3::new(x, 0.0, 0.0), "tick {tick}");
    }
    assert!(has_note(
        &clip,
        "/animations/0/samplers/0",
        "one-tick blend"
    ));
}

#[test]
fn linear_translation_is_a_straight_line_and_keys_are_exact() {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "box"}), true);
    let a = doc.animation(None);
    // 0 s: (0, 0, 0); 1 s: (2, 4, 0); 2 s: (2, 4, -8).
    doc.channel(
        a,
        n,
        "translation",
        "LINEAR",
        &[0.0, 1.0, 2.0],
        &[0., 0., 0., 2., 4., 0., 2., 4., -8.],
    );
    let clip = one(&doc);
    assert!(at(&clip, 0, 5).abs_diff_eq(Vec3::new(0.5, 1.0, 0.0), 1e-6));
    assert_eq!(at(&clip, 0, 20), Vec3::new(2.0, 4.0, 0.0));
    assert!(at(&clip, 0, 30).abs_diff_eq(Vec3::new(2.0, 4.0, -4.0), 1e-6));
    // Keys on ticks: nothing lost, so no note.
    assert!(clip.notes.iter().all(|n| !n.pointer.contains("samplers")));
}

#[test]
fn linear_rotation_slerps_the_short_way_across_a_sign_flip() {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "head"}), true);
    let a = doc.animation(None);
    // The second key is −(90° about Y): the same turn written the long way.
    let q1 = -Quat::from_rotation_y(90f32.to_radians());
    doc.channel(
        a,
        n,
        "rotation",
        "LINEAR",
        &[0.0, 1.0],
        &[0., 0., 0., 1., q1.x, q1.y, q1.z, q1.w],
    );
    let clip = one(&doc);
    let half = rot(&clip, 0, 10);
    assert!(
        same_rotation(half, Quat::from_rotation_y(45f32.to_radians())),
        "{half:?}"
    );
    let quarter = rot(&clip, 0, 5);
    assert!(
        same_rotation(quarter, Quat::from_rotation_y(22.5f32.to_radians())),
        "{quarter:?}"
    );
    assert!((quarter.length() - 1.0).abs() < 1e-6);
}

/// Appendix C's Hermite form, written out for one component.
fn appendix_c(v_k: f32, b_k: f32, v_next: f32, a_next: f32, t_d: f32, t: f32) -> f32 {
    (2.0 * t.powi(3) - 3.0 * t.powi(2) + 1.0) * v_k
        + t_d * (t.powi(3) - 2.0 * t.powi(2) + t) * b_k
        + (-2.0 * t.powi(3) + 3.0 * t.powi(2)) * v_next
        + t_d * (t.powi(3) - t.powi(2)) * a_next
}

#[test]
fn cubicspline_follows_the_hermite_form_with_tangents_scaled_by_the_key_gap() {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "tail"}), true);
    let a = doc.animation(None);
    // Keys at 0 s and 2 s (t_d = 2): per key [in-tangent, value, out-tangent].
    // x: a0 = 9 (unused), v0 = 0, b0 = 2; a1 = 4, v1 = 1, b1 = 9 (unused).
    let values = [
        9., 0., 0., 0., 0., 0., 2., 0., 0., 4., 0., 0., 1., 0., 0., 9., 0., 0.,
    ];
    doc.channel(a, n, "translation", "CUBICSPLINE", &[0.0, 2.0], &values);
    let clip = one(&doc);
    // Tick 10 is 0.5 s: t = 0.25. By hand: h00 = 0.84375, h10 = 0.140625,
    // h01 = 0.15625, h11 = −0.046875, so x = 2·0.140625·2 + 0.15625·1
    // + 2·(−0.046875)·4 = 0.34375.
    let x = at(&clip, 0, 10).x;
    assert!((x - 0.34375).abs() < 1e-6, "{x}");
    assert!((x - appendix_c(0.0, 2.0, 1.0, 4.0, 2.0, 0.25)).abs() < 1e-6);
    for tick in 0..=40 {
        let t = tick as f32 / 40.0;
        let want = appendix_c(0.0, 2.0, 1.0, 4.0, 2.0, t);
        assert!((at(&clip, 0, tick).x - want).abs() < 1e-5, "tick {tick}");
    }
    assert_eq!(at(&clip, 0, 0).x, 0.0);
    assert_eq!(at(&clip, 0, 40).x, 1.0);
    assert!(has_note(
        &clip,
        "/animations/0/samplers/0",
        "CUBICSPLINE resampled at 20 tps"
    ));
}

#[test]
fn cubicspline_rotations_are_normalised() {
    let q0 = Vec4::new(0.0, 0.0, 0.0, 1.0);
    let q1 = Quat::from_rotation_x(1.2);
    let q1 = Vec4::new(q1.x, q1.y, q1.z, q1.w);
    let tangent = Vec4::new(0.3, 0.0, 0.0, 0.0);
    let values = vec![tangent, q0, tangent, tangent, q1, tangent];
    let curve =
        Curve::new(vec![0.0, 1.0], values, Interpolation::CubicSpline, true).expect("valid");
    let raw = hermite(q0, tangent, q1, tangent, 1.0, 0.5);
    let v = curve.sample(0.5);
    assert!((v.length() - 1.0).abs() < 1e-6);
    assert!(v.abs_diff_eq(raw / raw.length(), 1e-6));
}

#[test]
fn times_before_the_first_key_and_after_the_last_clamp() {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "a"}), true);
    let m = doc.node(json!({"name": "b"}), true);
    let a = doc.animation(None);
    doc.channel(
        a,
        n,
        "translation",
        "LINEAR",
        &[1.0, 2.0],
        &[1., 0., 0., 3., 0., 0.],
    );
    doc.channel(
        a,
        m,
        "scale",
        "LINEAR",
        &[0.0, 3.0],
        &[1., 1., 1., 2., 2., 2.],
    );
    let clip = one(&doc);
    assert_eq!(clip.scene.duration_ticks, 60);
    for tick in [0, 7, 20] {
        assert_eq!(at(&clip, 0, tick).x, 1.0, "tick {tick}");
    }
    assert_eq!(at(&clip, 0, 30).x, 2.0);
    for tick in [40, 55, 60] {
        assert_eq!(at(&clip, 0, tick).x, 3.0, "tick {tick}");
    }
}

#[test]
fn unanimated_properties_keep_the_rest_pose_and_channels_replace_it() {
    let mut doc = Doc::new();
    let rest_rotation = Quat::from_rotation_z(0.5);
    let n = doc.node(
        json!({"name": "arm", "translation": [1, 2, 3], "scale": [2, 2, 2],
               "rotation": rest_rotation.to_array()}),
        true,
    );
    let a = doc.animation(None);
    let q = Quat::from_rotation_x(0.4);
    doc.channel(
        a,
        n,
        "rotation",
        "STEP",
        &[0.0, 0.5],
        &[0., 0., 0., 1., q.x, q.y, q.z, q.w],
    );
    let clip = one(&doc);
    for tick in [0, 10] {
        let f = clip.scene.nodes[0].frames[tick];
        assert_eq!(f.translation, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(f.scale, Vec3::splat(2.0));
    }
    // The channel replaces the rest rotation; it is not added to it.
    assert!(same_rotation(rot(&clip, 0, 0), Quat::IDENTITY));
    assert!(same_rotation(rot(&clip, 0, 10), q));
}

#[test]
fn a_matrix_rest_pose_is_decomposed() {
    let mut doc = Doc::new();
    let m = glam::Mat4::from_scale_rotation_translation(
        Vec3::new(1.0, 2.0, 3.0),
        Quat::from_rotation_y(0.7),
        Vec3::new(4.0, 5.0, 6.0),
    );
    let n = doc.node(json!({"name": "m", "matrix": m.to_cols_array()}), true);
    let a = doc.animation(None);
    doc.channel(
        a,
        n,
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0., 0., 0., 1., 0., 0.],
    );
    let clip = one(&doc);
    let f = clip.scene.nodes[0].frames[0];
    assert!(f.scale.abs_diff_eq(Vec3::new(1.0, 2.0, 3.0), 1e-5));
    assert!(same_rotation(f.rotation, Quat::from_rotation_y(0.7)));
    assert_eq!(
        f.translation,
        Vec3::ZERO,
        "the channel replaces the matrix's translation"
    );
    assert!(has_note(&clip, "/nodes/0/matrix", "decomposed"));
}

#[test]
fn ancestors_of_animated_nodes_are_kept_parents_first_and_still_subtrees_dropped() {
    let mut doc = Doc::new();
    // 0 armature ─ 1 hips ─ 2 hand (animated)
    //            └ 3 prop ─ 4 gem      5 mesh (a root)
    let armature = doc.node(
        json!({"name": "Armature", "children": [1, 3], "scale": [0.01, 0.01, 0.01]}),
        true,
    );
    let hips = doc.node(json!({"name": "hips", "children": [2]}), false);
    let hand = doc.node(json!({}), false);
    doc.node(json!({"name": "prop", "children": [4]}), false);
    doc.node(json!({"name": "gem"}), false);
    doc.node(json!({"name": "mesh"}), true);
    let a = doc.animation(None);
    doc.channel(
        a,
        hand,
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0., 0., 0., 0., 100., 0.],
    );
    let clip = one(&doc);
    let names: Vec<&str> = clip.scene.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["Armature", "hips", "node_2"]);
    let parents: Vec<Option<usize>> = clip.scene.nodes.iter().map(|n| n.parent).collect();
    assert_eq!(parents, [None, Some(0), Some(1)]);
    assert_eq!(clip.scene.nodes[0].frames[5].scale, Vec3::splat(0.01));
    assert_eq!((armature, hips), (0, 1));
    assert!(has_note(
        &clip,
        "/nodes/3",
        "`prop` and the 1 node(s) below it are dropped"
    ));
    assert!(has_note(&clip, "/nodes/5", "`mesh`"));
    assert!(has_note(&clip, "/nodes/2", "called `node_2`"));
}

#[test]
fn morph_weights_are_skipped_with_a_note() {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "face"}), true);
    let a = doc.animation(None);
    doc.channel(
        a,
        n,
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0., 0., 0., 1., 0., 0.],
    );
    let input = doc.floats(&[0.0, 1.0], "SCALAR");
    let output = doc.floats(&[0.0, 1.0], "SCALAR");
    doc.json["animations"][0]["samplers"]
        .as_array_mut()
        .expect("samplers")
        .push(json!({"input": input, "output": output}));
    doc.json["animations"][0]["channels"]
        .as_array_mut()
        .expect("channels")
        .push(json!({"sampler": 1, "target": {"node": n, "path": "weights"}}));
    let clip = one(&doc);
    assert!(has_note(
        &clip,
        "/animations/0/channels/1",
        "morph target weights are skipped"
    ));
}

#[test]
fn duration_is_the_last_key_rounded_up_to_a_tick() {
    for (end, ticks) in [(1.0f32, 20u32), (1.01, 21), (0.0, 1), (0.049, 1), (0.3, 6)] {
        let mut doc = Doc::new();
        let n = doc.node(json!({"name": "a"}), true);
        let a = doc.animation(None);
        let (times, values) = if end > 0.0 {
            (vec![0.0, end], vec![0., 0., 0., 1., 0., 0.])
        } else {
            (vec![0.0], vec![0., 0., 0.])
        };
        doc.channel(a, n, "translation", "LINEAR", &times, &values);
        assert_eq!(one(&doc).scene.duration_ticks, ticks, "end {end} s");
    }
}

#[test]
fn a_clip_over_ten_minutes_is_refused() {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "a"}), true);
    let a = doc.animation(Some("long"));
    doc.channel(
        a,
        n,
        "translation",
        "LINEAR",
        &[0.0, 601.0],
        &[0., 0., 0., 1., 0., 0.],
    );
    let err = sample(&doc.gltf(), &options()).expect_err("too long");
    assert!(
        matches!(
            err,
            GltfError::Import {
                error: ImportError::TooLong { ticks: 12020, .. },
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn animations_become_emotes_named_after_their_cleaned_names() {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "Hips"}), true);
    for name in ["Armature|Walk", "Armature|mixamo.com|Layer0"] {
        let a = doc.animation(Some(name));
        doc.channel(
            a,
            n,
            "translation",
            "LINEAR",
            &[0.0, 1.0],
            &[0., 0., 0., 1., 0., 0.],
        );
    }
    let out = convert(&doc.glb(), &options()).expect("converts");
    let ids: Vec<&str> = out
        .iter()
        .map(|i| i.json["id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(ids, ["test:model/walk", "test:model/armature"]);
    assert_eq!(
        out[1].json["metadata"]["name"],
        "Armature|mixamo.com|Layer0"
    );
    assert_eq!(out[0].json["metadata"]["source"], "glTF");
    assert_eq!(out[0].json["settings"]["playback"]["mode"], "once");
    // The builder notes the renamed node.
    assert!(out[0]
        .notes
        .iter()
        .any(|n| n.pointer == "/nodes/0" && n.message.contains("`hips`")));

    let mut pick = options();
    pick.clip = Some("walk".to_owned());
    let one = convert(&doc.glb(), &pick).expect("converts");
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].json["metadata"]["name"], "Armature|Walk");
    pick.clip = Some("Run".to_owned());
    let err = convert(&doc.glb(), &pick).expect_err("no Run");
    assert_eq!(
        err.to_string(),
        "no animation is called `Run`; the file has Armature|Walk, Armature|mixamo.com|Layer0"
    );
}

#[test]
fn one_animation_takes_the_stem_as_its_id() {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "a"}), true);
    let a = doc.animation(None);
    doc.channel(
        a,
        n,
        "rotation",
        "LINEAR",
        &[0.0, 0.25],
        &[0., 0., 0., 1., 0., 1., 0., 0.],
    );
    let out = convert(&doc.gltf(), &options()).expect("converts");
    assert_eq!(out[0].json["id"], "test:model");
    assert_eq!(out[0].json["metadata"]["name"], "model");
}

#[test]
fn document_errors_name_their_json_pointer() {
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "a"}), true);
    let a = doc.animation(None);
    doc.channel(
        a,
        n,
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0., 0., 0., 1., 0., 0.],
    );
    let cases: Vec<(Break, &str)> = vec![
        (
            Box::new(|d| d.json["animations"][0]["channels"][0]["sampler"] = json!(7)),
            "/animations/0/channels/0/sampler",
        ),
        (
            Box::new(|d| d.json["animations"][0]["channels"][0]["target"]["node"] = json!(9)),
            "/animations/0/channels/0/target/node",
        ),
        (
            Box::new(|d| d.json["accessors"][1]["count"] = json!(3)),
            "/accessors/1/count",
        ),
        (
            Box::new(|d| d.json["accessors"][1]["type"] = json!("VEC4")),
            "/accessors/1/type",
        ),
        (
            Box::new(|d| d.json["bufferViews"][0]["byteLength"] = json!(400)),
            "/bufferViews/0",
        ),
        (
            Box::new(|d| d.json["nodes"][0]["children"] = json!([0])),
            "/nodes/0",
        ),
        (
            Box::new(|d| d.json["asset"]["version"] = json!("1.0")),
            "/asset/version",
        ),
    ];
    for (break_it, pointer) in cases {
        let mut broken = Doc {
            json: doc.json.clone(),
            bin: doc.bin.clone(),
        };
        break_it(&mut broken);
        let err = sample(&broken.gltf(), &options()).expect_err(pointer);
        assert!(err.to_string().starts_with(pointer), "{pointer}: {err}");
    }
    // Times must strictly increase.
    let mut doc = Doc::new();
    let n = doc.node(json!({"name": "a"}), true);
    let a = doc.animation(None);
    doc.channel(a, n, "translation", "LINEAR", &[0.0, 1.0, 1.0], &[0.; 9]);
    let err = sample(&doc.gltf(), &options()).expect_err("repeated time");
    assert!(
        err.to_string().starts_with("/accessors/0: key time 2"),
        "{err}"
    );
}

#[test]
fn converted_clips_pass_the_schema_4_reader() {
    let mut doc = Doc::new();
    let root = doc.node(json!({"name": "Body", "children": [1]}), true);
    let arm = doc.node(json!({"name": "Arm", "translation": [0.3, 1.4, 0]}), false);
    let a = doc.animation(Some("wave"));
    let q = Quat::from_rotation_z(-2.0);
    doc.channel(
        a,
        arm,
        "rotation",
        "CUBICSPLINE",
        &[0.0, 0.7],
        &[
            0., 0., 0., 0., 0., 0., 0., 1., 0., 0., 0., 0., 0., 0., 0., 0., q.x, q.y, q.z, q.w, 0.,
            0., 0., 0.,
        ],
    );
    doc.channel(
        a,
        root,
        "translation",
        "STEP",
        &[0.0, 0.33],
        &[0., 0., 0., 0., 0.5, 0.],
    );
    let out = convert(&doc.glb(), &options()).expect("converts");
    assert_eq!(out[0].file.timeline.duration_ticks, 14);
    assert!(out[0].json["nodes"]["arm"].is_object());
    assert_eq!(out[0].json["nodes"]["arm"]["parent"], "body");
}
