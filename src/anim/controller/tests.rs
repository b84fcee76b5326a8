//! The engine, stepped by hand: blends share one normalized time and blend
//! the cycle length, crossfades take exactly their ticks, exit times and
//! triggers are respected, events fire once per crossing; and property
//! tests for the blend weights and transitions.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::{
    line_weights, plane_weights, ClipSample, CompiledController, ControllerOutput,
    ControllerRuntime, ParameterError, ParameterValue,
};
use crate::format::controller::{parse_controller_value, Blending};
use crate::format::ident::EmoteId;

/// Cycle lengths of the test Animations, in ticks.
fn cycle(id: &EmoteId) -> Option<u32> {
    match id.as_str() {
        "t:idle" => Some(40),
        "t:walk" => Some(20),
        "t:jump" => Some(10),
        "t:wave" => Some(16),
        _ => None,
    }
}

/// A base layer (idle/walk by speed, a one-shot jump on the trigger) and a
/// masked wave; `transitions` replaces the base layer's.
fn controller(transitions: Value) -> CompiledController {
    let doc = json!({
        "type": "controller", "schema_version": 4, "id": "t:c", "metadata": {"name": "C"},
        "parameters": {"waving": {"type": "float", "default": 0.5}},
        "layers": [
            {"name": "base", "default_state": "move",
             "states": {
                 "move": {"blend": {"parameter": "speed", "clips": [
                     {"clip": "t:idle", "threshold": 0}, {"clip": "t:walk", "threshold": 4}]},
                     "events": [{"time": 0, "commands": ["say step"]}, {"time": 0.52, "commands": ["say step"]}]},
                 "jump": {"clip": "t:jump", "loop": false}},
             "transitions": transitions},
            {"name": "wave", "weight_parameter": "waving", "blending": "additive", "mask": ["arm"],
             "default_state": "wave", "states": {"wave": {"clip": "t:wave"}}}
        ]
    });
    let (file, problems) = parse_controller_value(&doc);
    let file = file.unwrap_or_else(|| panic!("{:?}", problems.as_slice()));
    CompiledController::compile(&file, cycle).expect("compiles")
}

fn jumping(crossfade: u32, back_exit: f32, interruptible: bool) -> CompiledController {
    controller(json!([
        {"from": "any", "to": "jump", "when": "jump", "crossfade": crossfade},
        {"from": "jump", "to": "move", "exit_time": back_exit, "crossfade": crossfade,
         "interruptible": interruptible}
    ]))
}

/// Steps once and returns the base layer's samples.
fn step(
    c: &CompiledController,
    run: &mut ControllerRuntime,
    out: &mut ControllerOutput,
) -> Vec<ClipSample> {
    run.step(c, out);
    out.layers[0].samples.clone()
}

fn weight_of(samples: &[ClipSample], c: &CompiledController, clip: &str) -> f32 {
    samples
        .iter()
        .filter(|s| c.clips()[s.clip.0].as_str() == clip)
        .map(|s| s.weight)
        .sum()
}

fn set_speed(run: &mut ControllerRuntime, speed: f32) {
    run.parameters_mut()
        .set("speed", ParameterValue::Float(speed))
        .expect("speed is a float");
}

#[test]
fn a_blend_shares_one_time_and_blends_the_cycle() {
    let c = jumping(4, 1.0, false);
    let mut run = ControllerRuntime::new(&c);
    let mut out = ControllerOutput::default();
    // speed 2: halfway between idle (40t) and walk (20t): a 30-tick cycle.
    set_speed(&mut run, 2.0);
    let samples = step(&c, &mut run, &mut out);
    assert_eq!(samples.len(), 2);
    assert!((weight_of(&samples, &c, "t:idle") - 0.5).abs() < 1e-6);
    assert!((samples[0].normalized_time - 1.0 / 30.0).abs() < 1e-6);
    assert_eq!(samples[0].normalized_time, samples[1].normalized_time);
    // Standing still: idle alone, 40 ticks a cycle.
    set_speed(&mut run, 0.0);
    let samples = step(&c, &mut run, &mut out);
    assert_eq!(samples.len(), 1);
    assert!((samples[0].normalized_time - (1.0 / 30.0 + 1.0 / 40.0)).abs() < 1e-6);
}

#[test]
fn the_layer_output_carries_weight_mask_and_blending() {
    let c = jumping(4, 1.0, false);
    let mut run = ControllerRuntime::new(&c);
    let mut out = ControllerOutput::default();
    run.step(&c, &mut out);
    let wave = &out.layers[1];
    assert_eq!((wave.weight, wave.blending), (0.5, Blending::Additive));
    let mask = wave.mask.as_deref().expect("masked");
    assert_eq!((mask[0].node.as_str(), mask[0].weight), ("arm", 1.0));
    assert_eq!(out.layers[0].mask, None);
    run.parameters_mut()
        .set("waving", ParameterValue::Float(3.0))
        .expect("float");
    run.step(&c, &mut out);
    assert_eq!(out.layers[1].weight, 1.0, "clamped to [0, 1]");
}

#[test]
fn events_fire_once_per_crossing() {
    let c = jumping(4, 1.0, false);
    let mut run = ControllerRuntime::new(&c);
    let mut out = ControllerOutput::default();
    // Idle alone: 40 ticks a cycle, events at 0 and 0.52: ticks 0 and 20 of each cycle.
    let mut fired = Vec::new();
    for tick in 0..80 {
        run.step(&c, &mut out);
        fired.extend(out.events.iter().map(|e| (tick, e.event)));
    }
    assert_eq!(fired, [(0, 0), (20, 1), (40, 0), (60, 1)]);
    assert_eq!(
        c.event(&super::FiredEvent {
            layer: 0,
            state: 1,
            event: 0
        })
        .map(|e| e.event.commands.clone()),
        Some(vec!["say step".to_owned()])
    );
}

#[test]
fn a_trigger_is_consumed_once_or_expires_after_five_ticks() {
    // The jump lasts 10 ticks and returns without a crossfade at its end.
    let c = jumping(0, 1.0, false);
    let mut run = ControllerRuntime::new(&c);
    let mut out = ControllerOutput::default();
    run.parameters_mut().fire("jump").expect("trigger");
    run.step(&c, &mut out);
    assert_eq!(run.state(0), Some(0), "in the jump");
    assert!(!run.parameters().is_armed(6), "consumed");
    let mut jumps = 0;
    for _ in 0..40 {
        let before = run.state(0);
        run.step(&c, &mut out);
        jumps += usize::from(before != Some(0) && run.state(0) == Some(0));
    }
    assert_eq!(jumps, 0, "a consumed trigger does not fire again");
    assert_eq!(run.state(0), Some(1));

    // Nothing can take it: it stays armed for 5 steps, then is gone.
    let c = controller(json!([{"from": "move", "to": "jump", "when": ["jump", "sneaking"]}]));
    let mut run = ControllerRuntime::new(&c);
    run.parameters_mut().fire("jump").expect("trigger");
    let armed: Vec<bool> = (0..7)
        .map(|_| {
            let armed = run.parameters().is_armed(6);
            run.step(&c, &mut out);
            armed
        })
        .collect();
    assert_eq!(armed, [true, true, true, true, true, false, false]);
}

#[test]
fn setting_parameters_checks_names_and_types() {
    let c = jumping(4, 1.0, false);
    let mut run = ControllerRuntime::new(&c);
    let p = run.parameters_mut();
    assert!(matches!(
        p.set("sped", ParameterValue::Float(1.0)),
        Err(ParameterError::Unknown { .. })
    ));
    assert!(matches!(
        p.set("grounded", ParameterValue::Float(1.0)),
        Err(ParameterError::WrongType { .. })
    ));
    assert!(matches!(
        p.fire("speed"),
        Err(ParameterError::WrongType { .. })
    ));
    assert_eq!(p.set("grounded", ParameterValue::Bool(false)), Ok(()));
}

#[test]
fn an_interruptible_crossfade_can_be_cut_from_the_pose_on_screen() {
    let c = controller(json!([
        {"from": "move", "to": "jump", "when": "jump", "crossfade": 10, "interruptible": true},
        {"from": "jump", "to": "move", "when": "sneaking", "crossfade": 4}
    ]));
    let mut run = ControllerRuntime::new(&c);
    let mut out = ControllerOutput::default();
    run.parameters_mut().fire("jump").expect("trigger");
    for _ in 0..5 {
        run.step(&c, &mut out);
    }
    // Halfway into the jump, sneaking cuts back to move over 4 ticks: the
    // frozen half-and-half fades out, move fades in.
    run.parameters_mut()
        .set("sneaking", ParameterValue::Bool(true))
        .expect("bool");
    let samples = step(&c, &mut run, &mut out);
    assert_eq!(run.state(0), Some(1));
    assert!(
        (weight_of(&samples, &c, "t:jump") - 0.5 * 0.75).abs() < 1e-6,
        "{samples:?}"
    );
    let frozen_jump = samples
        .iter()
        .find(|s| c.clips()[s.clip.0].as_str() == "t:jump")
        .expect("jump");
    let later = step(&c, &mut run, &mut out);
    let jump_later = later
        .iter()
        .find(|s| c.clips()[s.clip.0].as_str() == "t:jump")
        .expect("jump");
    assert_eq!(
        frozen_jump.normalized_time, jump_later.normalized_time,
        "frozen"
    );
    let sum: f32 = later.iter().map(|s| s.weight).sum();
    assert!((sum - 1.0).abs() < 1e-5);
}

#[test]
fn a_crossfade_that_is_not_interruptible_finishes_first() {
    let c = controller(json!([
        {"from": "move", "to": "jump", "when": "jump", "crossfade": 10},
        {"from": "jump", "to": "move", "when": "sneaking", "crossfade": 4}
    ]));
    let mut run = ControllerRuntime::new(&c);
    let mut out = ControllerOutput::default();
    run.parameters_mut().fire("jump").expect("trigger");
    run.parameters_mut()
        .set("sneaking", ParameterValue::Bool(true))
        .expect("bool");
    let states: Vec<Option<usize>> = (0..12)
        .map(|_| {
            run.step(&c, &mut out);
            run.state(0)
        })
        .collect();
    assert_eq!(states[..10], [Some(0); 10]);
    assert_eq!(states[10], Some(1), "leaves once the crossfade is done");
}

fn sorted_thresholds() -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(0.01f32..5.0, 2..6).prop_map(|gaps| {
        let mut at = -3.0;
        gaps.iter()
            .map(|g| {
                at += g;
                at
            })
            .collect()
    })
}

fn distinct_positions() -> impl Strategy<Value = Vec<[f32; 2]>> {
    prop::collection::vec([-4i32..=4, -4i32..=4], 3..7).prop_filter_map("distinct", |cells| {
        let mut out: Vec<[f32; 2]> = Vec::new();
        for [x, y] in cells {
            let p = [x as f32 * 0.5, y as f32 * 0.5];
            if out.contains(&p) {
                return None;
            }
            out.push(p);
        }
        Some(out)
    })
}

fn assert_normalised(w: &[f32]) -> Result<(), TestCaseError> {
    prop_assert!(w.iter().all(|w| *w >= 0.0), "{w:?}");
    prop_assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{w:?}");
    Ok(())
}

proptest! {
    #[test]
    fn line_weights_are_a_partition_of_one(thresholds in sorted_thresholds(), value in -10f32..10.0, pick in 0usize..6) {
        let mut w = vec![0.0; thresholds.len()];
        line_weights(&thresholds, value, &mut w);
        assert_normalised(&w)?;
        let at = pick % thresholds.len();
        line_weights(&thresholds, thresholds[at], &mut w);
        prop_assert_eq!(w[at], 1.0);
    }

    #[test]
    fn plane_weights_are_a_partition_of_one(positions in distinct_positions(), x in -3f32..3.0, y in -3f32..3.0, pick in 0usize..7) {
        let positions: Vec<glam::Vec2> = positions.iter().map(|p| glam::Vec2::from_array(*p)).collect();
        let mut w = vec![0.0; positions.len()];
        plane_weights(&positions, glam::Vec2::new(x, y), &mut w);
        assert_normalised(&w)?;
        let at = pick % positions.len();
        plane_weights(&positions, positions[at], &mut w);
        prop_assert_eq!(w[at], 1.0);
    }

    #[test]
    fn a_crossfade_takes_exactly_its_ticks(ticks in 1u32..40) {
        let c = controller(json!([{"from": "any", "to": "jump", "when": "jump", "crossfade": ticks}]));
        let mut run = ControllerRuntime::new(&c);
        let mut out = ControllerOutput::default();
        let before = step(&c, &mut run, &mut out);
        prop_assert_eq!(weight_of(&before, &c, "t:idle"), 1.0);
        run.parameters_mut().fire("jump").expect("trigger");
        for k in 1..=ticks {
            let samples = step(&c, &mut run, &mut out);
            let expected = 1.0 - k as f32 / ticks as f32;
            prop_assert!((weight_of(&samples, &c, "t:idle") - expected).abs() < 1e-5, "tick {}: {:?}", k, samples);
            prop_assert!((weight_of(&samples, &c, "t:jump") - (1.0 - expected)).abs() < 1e-5);
        }
        let after = step(&c, &mut run, &mut out);
        prop_assert_eq!(after.len(), 1);
    }

    #[test]
    fn an_exit_time_is_respected(exit in 0.05f32..=1.0) {
        // The jump (10 ticks, a one-shot) may leave once its time reaches `exit`.
        let c = jumping(0, exit, false);
        let mut run = ControllerRuntime::new(&c);
        let mut out = ControllerOutput::default();
        run.parameters_mut().fire("jump").expect("trigger");
        run.step(&c, &mut out);
        let mut time = out.layers[0].samples[0].normalized_time;
        let mut left = None;
        for _ in 0..20 {
            run.step(&c, &mut out);
            if run.state(0) == Some(1) {
                left = Some(time);
                break;
            }
            time = out.layers[0].samples[0].normalized_time;
        }
        let left = left.expect("leaves the jump");
        prop_assert!(left >= exit - 1e-6, "left at {} before {}", left, exit);
        prop_assert!(left < exit + 0.1 + 1e-6, "left at {} long after {}", left, exit);
    }
}
