//! Poses: what `emoted sample` computes and what a client draws.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;
use valence::math::{Mat4, Quat, Vec3};

use super::*;

// ---- Poses: what `emoted sample` computes and what a client draws ----

/// `emoted sample FILE --tick T... EXTRA...`, run from the crate root.
pub fn run_sample(file: &str, ticks: &[u32], extra: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_emoted"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("sample")
        .arg(file);
    for t in ticks {
        cmd.arg("--tick").arg(t.to_string());
    }
    cmd.args(extra);
    cmd.output().expect("emoted sample runs")
}

/// The JSON lines of [`run_sample`], which must succeed.
pub fn sample_lines(file: &str, ticks: &[u32], extra: &[&str]) -> Vec<Value> {
    let out = run_sample(file, ticks, extra);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

/// `emoted sample` at ticks 0..=n: per node id, (visible, 4×4 matrix) per tick.
pub fn sampled(file: &str, last_tick: u32) -> BTreeMap<String, Vec<(bool, Mat4)>> {
    let ticks: Vec<u32> = (0..=last_tick).collect();
    let mut by_node: BTreeMap<String, Vec<(bool, Mat4)>> = BTreeMap::new();
    for v in sample_lines(file, &ticks, &[]) {
        for (id, node) in v["nodes"].as_object().expect("nodes") {
            let m: Vec<f32> = node["matrix"]
                .as_array()
                .expect("matrix")
                .iter()
                .map(|x| x.as_f64().expect("f") as f32)
                .collect();
            let visible = node["visible"].as_bool().expect("visible");
            by_node
                .entry(id.clone())
                .or_default()
                .push((visible, Mat4::from_cols_slice(&m)));
        }
    }
    by_node
}

/// The matrix a 1.20.1 client draws from a display's transformation: T · R_left · S · R_right.
pub fn client_matrix(meta: &EntityMetadata) -> Option<(Mat4, Vec3)> {
    let t = meta.vec3("translation")?;
    let s = meta.vec3("scale")?;
    let l = meta.quat("left_rotation")?;
    let r = meta.quat("right_rotation")?;
    let f = |a: [f64; 3]| Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32);
    let q = |a: [f64; 4]| Quat::from_xyzw(a[0] as f32, a[1] as f32, a[2] as f32, a[3] as f32);
    let scale = f(s);
    Some((
        Mat4::from_translation(f(t))
            * Mat4::from_quat(q(l))
            * Mat4::from_scale(scale)
            * Mat4::from_quat(q(r)),
        scale,
    ))
}

/// True when a transformation the server sent can stand for the sampled
/// pose `expected`: within the scheduler's tolerance of it (0.01 block at
/// the unit cube's corners, 0.5°), as a planned update's target is (it may
/// be aimed off the exact pose, or keep a field the client already has).
/// The 1% slack covers the float round trip through the test client.
pub fn close_to_sample(matrix: &Mat4, expected: &Mat4) -> bool {
    use emoted::playback::schedule::{pose_error, Tolerance};
    let tolerance = Tolerance::default();
    let slack = Tolerance {
        translation_blocks: tolerance.translation_blocks * 1.01,
        rotation_degrees: tolerance.rotation_degrees * 1.01,
    };
    slack.accepts(pose_error(matrix, expected))
}

/// True when every transformation `updates` holds matches the sampled pose of
/// `node` at some tick ([`close_to_sample`]), in increasing tick order.
pub fn follows_sample(updates: &[(Mat4, Vec3)], node: &[(bool, Mat4)]) -> bool {
    let mut tick = 0;
    for (matrix, scale) in updates {
        let hidden = scale.abs_diff_eq(Vec3::ZERO, 1e-6);
        let found = (tick..node.len()).find(|&k| {
            let (visible, expected) = node[k];
            if hidden {
                !visible
            } else {
                visible && close_to_sample(matrix, &expected)
            }
        });
        match found {
            Some(k) => tick = k,
            None => return false,
        }
    }
    true
}

/// The transformation a client holds for a display after each update the
/// server made, as (matrix, scale). An update is a metadata packet with
/// `start_interpolation` (the server re-sends it with every update; the
/// spawn packet has none). Fields a packet leaves out keep their last
/// value, those of the spawn packet included; before any, the entity
/// defaults (no translation, scale 1, no rotation), as the client does.
pub fn display_updates(run: &BotRun, entity_id: i32) -> Vec<(Mat4, Vec3)> {
    let mut t = [0.0; 3];
    let mut s = [1.0; 3];
    let mut l = [0.0, 0.0, 0.0, 1.0];
    let mut r = [0.0, 0.0, 0.0, 1.0];
    let mut out = Vec::new();
    for meta in run.metadata_of(entity_id) {
        if let Some(v) = meta.vec3("translation") {
            t = v;
        }
        if let Some(v) = meta.vec3("scale") {
            s = v;
        }
        if let Some(v) = meta.quat("left_rotation") {
            l = v;
        }
        if let Some(v) = meta.quat("right_rotation") {
            r = v;
        }
        if meta.int("start_interpolation").is_some() {
            let f = |a: [f64; 3]| Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32);
            let q =
                |a: [f64; 4]| Quat::from_xyzw(a[0] as f32, a[1] as f32, a[2] as f32, a[3] as f32);
            let scale = f(s);
            out.push((
                Mat4::from_translation(f(t))
                    * Mat4::from_quat(q(l))
                    * Mat4::from_scale(scale)
                    * Mat4::from_quat(q(r)),
                scale,
            ));
        }
    }
    out
}

/// The node's own matrix behind what a client draws for a skin-bound head:
/// the server turns such a head half a turn about its Y axis, applied
/// first (`face_the_rig` in `src/server/emote/active.rs`), and a half turn
/// is its own inverse.
pub fn unturned_head(matrix: &Mat4) -> Mat4 {
    *matrix * Mat4::from_rotation_y(std::f32::consts::PI)
}

/// [`display_updates`] of a display, with a skin-bound head's half turn
/// undone ([`unturned_head`]) when the display shows a `player_head`.
pub fn node_updates(run: &BotRun, entity_id: i32) -> Vec<(Mat4, Vec3)> {
    let head = run
        .merged_fields(entity_id)
        .get("item")
        .and_then(|item| item.get("id"))
        .is_some_and(|id| id == "minecraft:player_head");
    let updates = display_updates(run, entity_id);
    if !head {
        return updates;
    }
    updates
        .into_iter()
        .map(|(matrix, scale)| (unturned_head(&matrix), scale))
        .collect()
}
