//! `emoted sample` of the bundled `example:walk_wave` with its speed
//! ramped from 0 at tick 0 to 4 at tick 20: the legs' pose at every tick
//! is the blend seed 004 describes, computed here from the clips alone —
//! the idle, walk and run clips weighted by where the speed lies between
//! their thresholds (0, 1.3 and 4 blocks a second), sharing one normalized
//! time that moves each tick by 1 / (the cycle lengths 40, 20 and 14
//! ticks, blended by the same weights). Tick 0 is the idle's pose and
//! tick 40 the run's, within 0.01 block and 0.5°.

mod common;

use std::path::PathBuf;

use glam::{Quat, Vec3};
use serde_json::Value;

use emoted::anim::Pose;
use emoted::library::Library;

const CONTROLLER: &str = "emotes/walk_wave/walk_wave.json";
const CLIPS: [(&str, f32); 3] = [
    ("example:stand_idle", 0.0),
    ("example:walk", 1.3),
    ("example:run", 4.0),
];
/// The nodes of the legs' pose: the hips carry both legs.
const LEG_NODES: [&str; 3] = ["hips", "leg_r", "leg_l"];

/// The weights of a 1D blend at `x`: the two clips around it, linearly.
fn weights(x: f32) -> [f32; 3] {
    let t: Vec<f32> = CLIPS.iter().map(|(_, t)| *t).collect();
    if x <= t[0] {
        return [1.0, 0.0, 0.0];
    }
    if x >= t[2] {
        return [0.0, 0.0, 1.0];
    }
    let mut w = [0.0; 3];
    let i = if x < t[1] { 0 } else { 1 };
    let f = (x - t[i]) / (t[i + 1] - t[i]);
    w[i] = 1.0 - f;
    w[i + 1] = f;
    w
}

/// `--param speed=0@0 --param speed=4@20`: linear between, held after.
fn speed_at(tick: u32) -> f32 {
    4.0 * tick.min(20) as f32 / 20.0
}

fn local(node: &Value) -> (Vec3, Quat) {
    let f = |key: &str| -> Vec<f32> {
        node[key]
            .as_array()
            .expect("array")
            .iter()
            .map(|x| x.as_f64().expect("number") as f32)
            .collect()
    };
    let p = f("position");
    let r = f("rotation");
    (
        Vec3::new(p[0], p[1], p[2]),
        Quat::from_xyzw(r[0], r[1], r[2], r[3]),
    )
}

#[test]
fn a_speed_ramp_blends_idle_walk_and_run_on_one_normalized_time() {
    let ticks: Vec<u32> = (0..=40).collect();
    let speed = ["--param", "speed=0@0", "--param", "speed=4@20"];
    let lines = common::sample_lines(CONTROLLER, &ticks, &speed);
    assert_eq!(lines.len(), 41);

    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("emotes/walk_wave");
    let report = Library::load(&[folder]);
    assert_eq!(report.error_count(), 0, "{:?}", report.lines());
    let clips: Vec<_> = CLIPS
        .iter()
        .map(|(id, _)| {
            let loaded = report.library.get(id).expect("a bundled clip");
            loaded.compiled.clone().expect("an Animation")
        })
        .collect();
    let cycles: Vec<f32> = clips.iter().map(|c| c.rig.duration_ticks as f32).collect();
    assert_eq!(cycles, [40.0, 20.0, 14.0]);

    let mut normalized = 0.0_f32;
    for (tick, line) in ticks.iter().zip(&lines) {
        assert_eq!(line["tick"], *tick);
        assert_eq!(line["states"][0], "move", "tick {tick}");
        let w = weights(speed_at(*tick));
        let cycle: f32 = w.iter().zip(&cycles).map(|(w, c)| w * c).sum();
        normalized += 1.0 / cycle;
        let phase = normalized.fract();
        // Each clip's legs at the shared normalized time.
        let mut poses = Vec::new();
        for clip in &clips {
            let mut state = clip.new_molang_state(0);
            clip.begin_cycle(&mut state, 0).expect("initializes");
            let mut pose = Pose::new(&clip.rig);
            let at = phase * clip.rig.duration_ticks as f32;
            clip.step_at(&mut state, at, true, &mut pose)
                .expect("samples");
            poses.push(pose);
        }
        for node in LEG_NODES {
            let mut position = Vec3::ZERO;
            let mut rotation: Option<(Quat, f32)> = None;
            for ((clip, pose), weight) in clips.iter().zip(&poses).zip(w) {
                if weight == 0.0 {
                    continue;
                }
                let i = clip.rig.node_index(node).expect("the body's node");
                let n = pose.nodes[i];
                position += n.position * weight;
                rotation = Some(match rotation {
                    None => (n.rotation, weight),
                    Some((mean, total)) => (
                        mean.slerp(n.rotation, weight / (total + weight)),
                        total + weight,
                    ),
                });
            }
            let expected_rotation = rotation.expect("a clip").0;
            let (got_position, got_rotation) = local(&line["nodes"][node]);
            let off = got_position.distance(position);
            assert!(
                off < 0.01,
                "tick {tick} {node}: {got_position} vs {position}"
            );
            let angle = got_rotation.angle_between(expected_rotation).to_degrees();
            assert!(angle < 0.5, "tick {tick} {node}: {angle}° off");
        }
        if *tick == 0 {
            assert_eq!(w, [1.0, 0.0, 0.0], "tick 0 is the idle alone");
        }
        if *tick == 40 {
            assert_eq!(w, [0.0, 0.0, 1.0], "tick 40 is the run alone");
        }
    }
    // The legs really move between tick 20 and 40 (a run, not a stand).
    let (_, at20) = local(&lines[20]["nodes"]["leg_r"]);
    let (_, at30) = local(&lines[30]["nodes"]["leg_r"]);
    assert!(at20.angle_between(at30).to_degrees() > 10.0);
}

#[test]
fn a_param_the_controller_lacks_or_a_param_on_an_animation_is_refused() {
    let out = common::run_sample(CONTROLLER, &[0], &["--param", "sped=4@0"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`sped` is not a parameter"), "{err}");
    assert!(err.contains("did you mean `speed`"), "{err}");
    let out = common::run_sample("emotes/wave.json", &[0], &["--param", "speed=4@0"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a controller"), "{err}");
    let out = common::run_sample(CONTROLLER, &[0], &["--param", "speed=fast@0"]);
    assert!(!out.status.success());
}

#[test]
fn a_jump_param_and_a_path_drive_the_states() {
    // Walking 4.3 blocks a second along +Z from tick 0, jumping at 10.
    let lines = common::sample_lines(
        CONTROLLER,
        &[5, 11, 40],
        &["--path", "0:0,0,0,0;40:0,0,8.6,0", "--param", "jump=1@10"],
    );
    let states: Vec<&str> = lines
        .iter()
        .map(|l| l["states"][0].as_str().expect("a state"))
        .collect();
    assert_eq!(states, ["move", "jump", "move"]);
}
