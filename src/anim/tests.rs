//! Sampling tables in the style of ozz's `sampling_job_tests.cc`: a key
//! timeline in a comment, and values at `k − ε`, `k` and `k + ε`, before the
//! first key and after the last.

use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;

use super::*;
use crate::format::{parse_emote_json, EmoteFile};

const EPS_T: f32 = 1e-3;

/// Numbers Molang expressions in order; evaluation looks the value up by id.
struct Numbering(Vec<String>);

impl ExprCompiler for Numbering {
    type Error = String;
    fn compile(&mut self, source: &str, pointer: &str) -> Result<ExprId, String> {
        if source == "bad" {
            return Err(format!("{pointer}: bad"));
        }
        self.0.push(source.to_owned());
        Ok(ExprId(self.0.len() as u32 - 1))
    }
}

/// Evaluates expression `i` as a fixed table value.
struct Table(Vec<f32>);

impl ExprEvaluator for Table {
    fn evaluate(&mut self, expr: ExprId, _lerp: f32) -> f32 {
        self.0[expr.0 as usize]
    }
}

fn rig_from(nodes: &str, tracks: &str, duration: &str) -> (Rig, Vec<String>) {
    let text = format!(
        r#"{{"type":"animation","schema_version":4,"id":"test:rig","metadata":{{"name":"T"}},"settings":{{}},
        "nodes":{nodes},"timeline":{{"duration":"{duration}","tracks":{tracks}}}}}"#
    );
    let report = parse_emote_json(&text);
    let Some(EmoteFile::Animation(file)) = report.file else {
        panic!("test file invalid: {:?}", report.problems);
    };
    let mut numbering = Numbering(Vec::new());
    let rig = Rig::build(&file, &mut numbering).expect("compiles");
    (rig, numbering.0)
}

const ONE_ITEM: &str = r#"{"a":{"type":"item_display","space":"initiator","item_stack_snbt":"{id:\"minecraft:stick\",count:1}","item_display":"fixed",
    "transform":{"position":[7,8,9],"rotation":[0,0,0],"scale":[1,1,1]}}}"#;

/// Samples [`ONE_ITEM`] with `tracks` over `duration` at tick `t`; returns its pose.
fn sample_one_item(tracks: &str, duration: &str, t: f32) -> NodePose {
    let (rig, _) = rig_from(ONE_ITEM, tracks, duration);
    let mut pose = Pose::new(&rig);
    pose.sample(&rig, t, &mut NoExprs).expect("finite");
    pose.nodes.swap_remove(0)
}

/// The rotation of [`ONE_ITEM`] at tick `t` of a track that turns it from
/// the Euler angles `from` (degrees) at 0t to `to` at `end_ticks`, the end.
fn rotation_between(from: [i32; 3], to: [i32; 3], end_ticks: u32, t: f32) -> Quat {
    let tracks = format!(
        r#"{{"a":{{"rotation":[{{"time":0,"value":{from:?}}},{{"time":{end_ticks},"value":{to:?}}}]}}}}"#
    );
    sample_one_item(&tracks, &format!("{end_ticks}t"), t).rotation
}

fn sample_x(rig: &Rig, pose: &mut Pose, t: f32) -> f32 {
    pose.sample(rig, t, &mut NoExprs).expect("finite");
    pose.nodes[0].position.x
}

/// ```text
/// x:   0 ──linear──▶ pre 1 | post 2 ──step──▶ 5 ─────(hold)
/// t:   0             10                    20        30 (end)
/// ```
#[test]
fn linear_step_and_pre_post_table() {
    let (rig, _) = rig_from(
        ONE_ITEM,
        r#"{"a":{"position":[
            {"time":0,"value":[0,0,0]},
            {"time":10,"pre":[1,0,0],"post":[2,0,0],"interpolation":"step"},
            {"time":20,"value":[5,0,0]}]}}"#,
        "30t",
    );
    let mut pose = Pose::new(&rig);
    let table: &[(f32, f32)] = &[
        (-1.0, 0.0),
        (0.0, 0.0),
        (5.0, 0.5),
        (10.0 - EPS_T, 1.0 - EPS_T / 10.0),
        (10.0, 2.0),
        (10.0 + EPS_T, 2.0),
        (15.0, 2.0),
        (20.0 - EPS_T, 2.0),
        (20.0, 5.0),
        (20.0 + EPS_T, 5.0),
        (30.0, 5.0),
    ];
    for &(t, expected) in table {
        let got = sample_x(&rig, &mut pose, t);
        assert!(
            (got - expected).abs() < 1e-4,
            "t={t}: got {got}, expected {expected}"
        );
    }
    // Backwards after forwards: the cursor restarts and agrees.
    for &(t, expected) in table.iter().rev() {
        let got = sample_x(&rig, &mut pose, t);
        assert!(
            (got - expected).abs() < 1e-4,
            "backwards t={t}: got {got}, expected {expected}"
        );
    }
    // Channels without a track keep the node's transform.
    assert_eq!(pose.nodes[0].position.y, 0.0);
    assert_eq!(pose.nodes[0].scale, Vec3::ONE);
}

#[test]
fn a_final_post_holds_until_the_end() {
    let (rig, _) = rig_from(
        ONE_ITEM,
        r#"{"a":{"scale":[{"time":0,"value":[1,1,1]},{"time":10,"pre":[2,2,2],"post":[3,3,3]}]}}"#,
        "20t",
    );
    let mut pose = Pose::new(&rig);
    pose.sample(&rig, 9.5, &mut NoExprs).expect("finite");
    assert!(pose.nodes[0].scale.abs_diff_eq(Vec3::splat(1.95), 1e-5));
    pose.sample(&rig, 15.0, &mut NoExprs).expect("finite");
    assert_eq!(pose.nodes[0].scale, Vec3::splat(3.0));
}

#[test]
fn easing_reshapes_the_fraction() {
    let (rig, _) = rig_from(
        ONE_ITEM,
        r#"{"a":{"position":[{"time":0,"value":[0,0,0],"easing":"ease_in_quad"},{"time":10,"value":[10,0,0],"easing":"ease_out_quad","interpolation":"linear"},{"time":20,"value":[20,0,0]}]}}"#,
        "20t",
    );
    let mut pose = Pose::new(&rig);
    // ease_in_quad at u = 0.5: 0.25 of the way.
    assert!((sample_x(&rig, &mut pose, 5.0) - 2.5).abs() < 1e-5);
    // ease_out_quad at u = 0.5: 0.75 of the way from 10 to 20.
    assert!((sample_x(&rig, &mut pose, 15.0) - 17.5).abs() < 1e-5);
}

#[test]
fn rotation_slerps_between_euler_keys() {
    let got = rotation_between([0, 0, 0], [0, 90, 0], 20, 10.0);
    let expected = Quat::from_rotation_y(45f32.to_radians());
    assert!(
        got.abs_diff_eq(expected, 1e-5) || got.abs_diff_eq(-expected, 1e-5),
        "{got}"
    );
}

#[test]
fn slerp_takes_the_short_way_round() {
    // 170° to −170° about Z is a 20° turn through 180°, not 340° back through 0.
    let v = rotation_between([0, 0, 170], [0, 0, -170], 10, 5.0) * Vec3::X;
    assert!(v.abs_diff_eq(Vec3::new(-1.0, 0.0, 0.0), 1e-5), "{v}");
}

#[test]
fn hierarchy_composes_translation_rotation_and_scale() {
    // The parent sits at x = 1, turned 90° about Y and scaled 2; the child sits
    // at local x = 1 and is itself turned 90° about Y.
    let nodes = r#"{
        "p":{"type":"anchor","space":"initiator","transform":{"position":[1,0,0],"rotation":[0,90,0],"scale":[2,2,2]}},
        "c":{"type":"block_display","parent":"p","block_state_snbt":"{Name:\"minecraft:stone\"}",
             "transform":{"position":[1,0,0],"rotation":[0,90,0],"scale":[1,1,1]}}}"#;
    let (rig, _) = rig_from(nodes, "{}", "10t");
    let mut pose = Pose::new(&rig);
    pose.sample(&rig, 0.0, &mut NoExprs).expect("finite");
    let child = rig.node_index("c").expect("child");
    let m = Mat4::from(pose.nodes[child].matrix);
    // Hand-computed: origin = (1,0,0) + R_y(90°)·(2·(1,0,0)) = (1,0,0) + (0,0,−2).
    assert!(m
        .transform_point3(Vec3::ZERO)
        .abs_diff_eq(Vec3::new(1.0, 0.0, -2.0), 1e-5));
    // The child's +X: turned 180° about Y in all, scaled 2 → (−2,0,0).
    assert!(m
        .transform_vector3(Vec3::X)
        .abs_diff_eq(Vec3::new(-2.0, 0.0, 0.0), 1e-5));
    assert!(m
        .transform_vector3(Vec3::Y)
        .abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-5));
    // The anchor is never shown; the block is.
    assert!(!pose.nodes[rig.node_index("p").expect("parent")].visible);
    assert!(pose.nodes[child].visible);
}

#[test]
fn moving_parent_carries_its_children() {
    let nodes = r#"{
        "p":{"type":"anchor","space":"scene","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}},
        "c":{"type":"text_display","parent":"p","text":"hi","transform":{"position":[0,1,0],"rotation":[0,0,0],"scale":[1,1,1]}}}"#;
    let tracks = r#"{"p":{"position":[{"time":0,"value":[0,0,0]},{"time":10,"value":[4,0,0]}],
                        "rotation":[{"time":0,"value":[0,0,0]},{"time":10,"value":[0,0,90]}],
                        "scale":[{"time":0,"value":[1,1,1]},{"time":10,"value":[3,3,3]}]}}"#;
    let (rig, _) = rig_from(nodes, tracks, "10t");
    let mut pose = Pose::new(&rig);
    pose.sample(&rig, 10.0, &mut NoExprs).expect("finite");
    let c = rig.node_index("c").expect("child");
    // (4,0,0) + R_z(90°)·(3·(0,1,0)) = (4,0,0) + (−3,0,0).
    let origin = pose.nodes[c].matrix.transform_point3(Vec3::ZERO);
    assert!(
        origin.abs_diff_eq(Vec3::new(1.0, 0.0, 0.0), 1e-5),
        "{origin}"
    );
}

#[test]
fn visibility_steps_and_molang_zero_hides() {
    let (rig, exprs) = rig_from(
        ONE_ITEM,
        r#"{"a":{"visible":[{"time":0,"value":false},{"time":5,"value":true},{"time":10,"value":"v.flag"}]}}"#,
        "20t",
    );
    assert_eq!(exprs, vec!["v.flag".to_owned()]);
    let mut pose = Pose::new(&rig);
    let mut shown = |t: f32, flag: f32| {
        pose.sample(&rig, t, &mut Table(vec![flag]))
            .map(|_| pose.nodes[0].visible)
    };
    assert_eq!(shown(0.0, 0.0), Ok(false));
    assert_eq!(shown(5.0 - EPS_T, 0.0), Ok(false));
    assert_eq!(shown(5.0, 0.0), Ok(true));
    assert_eq!(shown(10.0, 0.0), Ok(false));
    assert_eq!(shown(10.0, -2.0), Ok(true));
    assert!(matches!(
        shown(12.0, f32::NAN),
        Err(SampleError::NonFiniteVisibility { .. })
    ));
}

#[test]
fn molang_components_are_evaluated_per_key() {
    let (rig, exprs) = rig_from(
        ONE_ITEM,
        r#"{"a":{"position":[{"time":0,"value":["v.a",0,0]},{"time":10,"value":["v.b",1,0]}]}}"#,
        "10t",
    );
    assert_eq!(exprs.len(), 2);
    let mut pose = Pose::new(&rig);
    pose.sample(&rig, 5.0, &mut Table(vec![2.0, 4.0]))
        .expect("finite");
    assert!(pose.nodes[0]
        .position
        .abs_diff_eq(Vec3::new(3.0, 0.5, 0.0), 1e-6));
    let err = pose.sample(&rig, 5.0, &mut Table(vec![f32::INFINITY, 4.0]));
    assert!(matches!(err, Err(SampleError::NonFiniteTransform { .. })));
}

#[test]
fn compile_errors_are_all_collected() {
    let text = r#"{"type":"animation","schema_version":4,"id":"t:t","metadata":{"name":"T"},"settings":{},
      "nodes":{"a":{"type":"anchor","space":"scene","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}}},
      "timeline":{"duration":10,"tracks":{"a":{"position":[{"time":0,"value":["bad",0,"bad"]}]}}}}"#;
    let Some(EmoteFile::Animation(file)) = parse_emote_json(text).file else {
        panic!("invalid")
    };
    let errors = Rig::build(&file, &mut Numbering(Vec::new())).expect_err("two bad strings");
    assert_eq!(
        errors,
        vec![
            "/timeline/tracks/a/position/0/value/0: bad".to_owned(),
            "/timeline/tracks/a/position/0/value/2: bad".to_owned()
        ]
    );
}

fn unit_quat() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_filter("not too short", |(x, y, z, w)| {
            x * x + y * y + z * z + w * w > 0.01
        })
        .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
}

fn same_rotation(a: Quat, b: Quat) -> bool {
    a.abs_diff_eq(b, 1e-4) || a.abs_diff_eq(-b, 1e-4)
}

proptest! {
    #[test]
    fn slerp_is_unit_and_hits_both_ends(a in unit_quat(), b in unit_quat(), t in -0.5f32..1.5) {
        prop_assert!((slerp(a, b, t).length() - 1.0).abs() < 1e-4);
        prop_assert!(same_rotation(slerp(a, b, 0.0), a));
        prop_assert!(same_rotation(slerp(a, b, 1.0), b));
    }

    #[test]
    fn linear_samples_lie_between_their_keys(
        v0 in -100f32..100.0, v1 in -100f32..100.0, len in 1u32..200, frac in 0f32..1.0,
    ) {
        let tracks = format!(r#"{{"a":{{"position":[{{"time":0,"value":[{v0},0,0]}},{{"time":{len},"value":[{v1},0,0]}}]}}}}"#);
        let (rig, _) = rig_from(ONE_ITEM, &tracks, &format!("{len}t"));
        let mut pose = Pose::new(&rig);
        let x = sample_x(&rig, &mut pose, frac * len as f32);
        prop_assert!(x >= v0.min(v1) - 1e-3 && x <= v0.max(v1) + 1e-3, "{x} not within [{v0}, {v1}]");
    }
}

#[test]
fn identity_when_nothing_moves() {
    let node = sample_one_item("{}", "1t", 0.0);
    assert_eq!(
        Mat4::from(node.matrix),
        Mat4::from_translation(Vec3::new(7.0, 8.0, 9.0))
    );
}
