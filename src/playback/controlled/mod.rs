//! A controller playing for one player, as pure state: its state machines
//! ([`crate::anim::controller`]), every clip it may sample with the clip's
//! own Molang state, and the mixer that lays the layers on the body.
//!
//! # The model
//! The server feeds the built-in parameters from the live player
//! ([`Motion`], [`ControlledBody::observe`]) and may set others
//! (`/emote set`, [`ControlledBody::set_parameter`]); each tick
//! [`ControlledBody::step`] steps the machines, samples each clip a layer
//! shows at its normalized time × its length (between ticks when it falls
//! there) and mixes them into the body's pose.
//!
//! Choices where seed 004 is silent: a clip's `molang.initialize` runs once,
//! when the controller starts, and its `molang.tick` on every tick the clip
//! is sampled; a clip's own events, settings and playback mode are not
//! used (the controller's states time the clips and carry the events); a
//! clip two samples show in one tick (a crossfade between two states that
//! play it) is sampled once, at the first sample's time.

pub mod bones;
pub mod sample;

use std::sync::Arc;

use glam::DVec3;

use crate::anim::controller::mix::{BodyMixer, ClipPose};
use crate::anim::controller::{
    CompiledController, ControllerError, ControllerOutput, ControllerRuntime, ParameterError,
    ParameterValue, Parameters,
};
use crate::anim::{Pose, SampleError};
use crate::format::controller::StateEvent;
use crate::format::EmoteId;
use crate::library::{CompiledAnimation, MolangState};

/// What the server observed of the player this tick: the built-in
/// parameters (their names in
/// [`BUILTIN_PARAMETERS`](crate::format::controller::BUILTIN_PARAMETERS)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    /// Horizontal speed over the last tick, blocks per second.
    pub speed: f32,
    /// The move along the body's facing, blocks per second (backwards is
    /// negative).
    pub forward: f32,
    /// The move to the body's right, blocks per second.
    pub strafe: f32,
    /// On the ground.
    pub grounded: bool,
    /// Sneaking.
    pub sneaking: bool,
    /// Sprinting.
    pub sprinting: bool,
    /// Jumped this tick (arms the `jump` trigger).
    pub jumped: bool,
    /// Where the head looks relative to the body, degrees (right positive).
    pub look_yaw: f32,
    /// Degrees, down positive.
    pub look_pitch: f32,
    /// The feet are in water.
    pub in_water: bool,
}

impl Default for Motion {
    fn default() -> Self {
        Self {
            speed: 0.0,
            forward: 0.0,
            strafe: 0.0,
            grounded: true,
            sneaking: false,
            sprinting: false,
            jumped: false,
            look_yaw: 0.0,
            look_pitch: 0.0,
            in_water: false,
        }
    }
}

impl Motion {
    /// The built-in motion of a body whose feet moved from `before` to
    /// `feet` over one tick, turned to `body_yaw` (Minecraft degrees: 0
    /// faces +Z, positive turns right): the horizontal move as `speed` and,
    /// in the body's frame, `forward` and `strafe` (blocks a second); the
    /// rest at their defaults.
    pub fn between(before: DVec3, feet: DVec3, body_yaw: f32) -> Motion {
        let moved = (feet - before) * 20.0;
        let yaw = f64::from(body_yaw).to_radians();
        // Facing +Z at yaw 0, the right hand is −X.
        let facing = DVec3::new(-yaw.sin(), 0.0, yaw.cos());
        let right = DVec3::new(-yaw.cos(), 0.0, -yaw.sin());
        Motion {
            speed: DVec3::new(moved.x, 0.0, moved.z).length() as f32,
            forward: moved.dot(facing) as f32,
            strafe: moved.dot(right) as f32,
            ..Motion::default()
        }
    }
}

/// One clip a controller samples.
#[derive(Clone)]
struct ClipPlayback {
    compiled: Arc<CompiledAnimation>,
    molang: MolangState,
    pose: Pose,
    /// For each body node, the clip node that poses it.
    from_body: Vec<Option<usize>>,
    /// Sampled this tick already (a clip two samples show is sampled once).
    sampled: bool,
}

/// What a tick of a controller did besides posing the body.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ControlledStep {
    /// A transition went to `exit`: the emote ends.
    pub exited: bool,
}

/// A controller playing for one player.
#[derive(Clone)]
pub struct ControlledBody {
    controller: Arc<CompiledController>,
    runtime: ControllerRuntime,
    output: ControllerOutput,
    clips: Vec<ClipPlayback>,
    mixer: BodyMixer,
    /// The motion last observed.
    observed: Motion,
}

impl ControlledBody {
    /// `controller` on `body` (its body clip, compiled), every clip looked
    /// up with `clip_of`, Molang seeded by `seed` with `budget_ops` a tick.
    pub fn new(
        controller: Arc<CompiledController>,
        body: &CompiledAnimation,
        clip_of: impl Fn(&EmoteId) -> Option<Arc<CompiledAnimation>>,
        seed: u64,
        budget_ops: u64,
    ) -> Result<Self, ControllerError> {
        let mut clips = Vec::with_capacity(controller.clips().len());
        for (index, id) in controller.clips().iter().enumerate() {
            let compiled = clip_of(id).ok_or_else(|| ControllerError::UnknownClip {
                controller: controller.id().clone(),
                clip: id.clone(),
            })?;
            let from_body = body
                .rig
                .nodes
                .iter()
                .map(|b| compiled.rig.nodes.iter().position(|n| n.id == b.id))
                .collect();
            let mut molang = compiled
                .new_molang_state(seed.wrapping_add(index as u64))
                .with_budget_ops(budget_ops);
            // A failing `molang.initialize` shows on the first sample.
            let _ = compiled.begin_cycle(&mut molang, 0);
            clips.push(ClipPlayback {
                pose: Pose::new(&compiled.rig),
                molang,
                from_body,
                sampled: false,
                compiled,
            });
        }
        Ok(Self {
            runtime: ControllerRuntime::new(&controller),
            output: ControllerOutput::default(),
            mixer: BodyMixer::new(&controller, &body.rig),
            clips,
            controller,
            observed: Motion::default(),
        })
    }

    /// The controller's id.
    pub fn id(&self) -> &EmoteId {
        self.controller.id()
    }

    /// The parameter values.
    pub fn parameters(&self) -> &Parameters {
        self.runtime.parameters()
    }

    /// The state layer `layer` is in (or fading into), by name.
    pub fn state_name(&self, layer: usize) -> Option<&str> {
        let state = self.runtime.state(layer)?;
        self.controller.state_name(layer, state)
    }

    /// The motion last observed (the defaults before any).
    pub fn observed(&self) -> &Motion {
        &self.observed
    }

    /// Feeds the built-in parameters for the next step.
    pub fn observe(&mut self, motion: &Motion) {
        self.observed = *motion;
        let parameters = self.runtime.parameters_mut();
        let floats = [
            ("speed", motion.speed),
            ("forward", motion.forward),
            ("strafe", motion.strafe),
            ("look_yaw", motion.look_yaw),
            ("look_pitch", motion.look_pitch),
        ];
        for (name, value) in floats {
            // Built-ins always exist with these types.
            let _ = parameters.set(name, ParameterValue::Float(value));
        }
        let bools = [
            ("grounded", motion.grounded),
            ("sneaking", motion.sneaking),
            ("sprinting", motion.sprinting),
            ("in_water", motion.in_water),
        ];
        for (name, value) in bools {
            let _ = parameters.set(name, ParameterValue::Bool(value));
        }
        if motion.jumped {
            let _ = parameters.fire("jump");
        }
    }

    /// Sets a parameter (an event or `/emote set`): a number for a float or
    /// int, 0 or 1 for a bool, anything to fire a trigger.
    pub fn set_parameter(&mut self, name: &str, value: f32) -> Result<(), ParameterError> {
        let parameters = self.runtime.parameters_mut();
        let index = parameters.index_of(name)?;
        match parameters.value(index) {
            Some(ParameterValue::Trigger { .. }) => parameters.fire(name),
            Some(ParameterValue::Bool(_)) => {
                parameters.set(name, ParameterValue::Bool(value != 0.0))
            }
            Some(ParameterValue::Int(_)) => {
                parameters.set(name, ParameterValue::Int(value.round() as i32))
            }
            _ => parameters.set(name, ParameterValue::Float(value)),
        }
    }

    /// One tick: steps the machines, samples the clips they show and mixes
    /// them onto `body` into `pose` (the body clip's rig and pose buffer).
    pub fn step(
        &mut self,
        body: &CompiledAnimation,
        pose: &mut Pose,
    ) -> Result<ControlledStep, SampleError> {
        self.runtime.step(&self.controller, &mut self.output);
        for clip in &mut self.clips {
            clip.sampled = false;
        }
        for layer in &self.output.layers {
            for sample in &layer.samples {
                let Some(clip) = self.clips.get_mut(sample.clip.0) else {
                    continue;
                };
                if std::mem::replace(&mut clip.sampled, true) {
                    continue;
                }
                let position = sample.normalized_time * clip.compiled.rig.duration_ticks as f32;
                clip.compiled
                    .step_at(&mut clip.molang, position, true, &mut clip.pose)?;
            }
        }
        let clips = &self.clips;
        let clip = |c: usize| {
            clips.get(c).map(|c| ClipPose {
                nodes: &c.pose.nodes,
                from_body: &c.from_body,
            })
        };
        self.mixer
            .mix(&body.rig, &self.output, clip, &mut pose.nodes);
        Ok(ControlledStep {
            exited: self.output.exited,
        })
    }

    /// The events this tick's step crossed, in layer order.
    pub fn fired_events(&self) -> impl Iterator<Item = &StateEvent> + '_ {
        self.output
            .events
            .iter()
            .filter_map(|fired| self.controller.event(fired))
    }

    /// What the last step gave each layer (for `emoted sample` and tests).
    pub fn output(&self) -> &ControllerOutput {
        &self.output
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec3;

    use super::Motion;

    #[test]
    fn a_move_is_split_along_the_body() {
        // Facing +Z (yaw 0), 0.2 block forward in a tick: 4 blocks a second.
        let m = Motion::between(DVec3::ZERO, DVec3::new(0.0, 0.0, 0.2), 0.0);
        assert!((m.speed - 4.0).abs() < 1e-5 && (m.forward - 4.0).abs() < 1e-5);
        assert!(m.strafe.abs() < 1e-5);
        // Facing −X (yaw 90): a step to −Z is to the body's right.
        let m = Motion::between(DVec3::ZERO, DVec3::new(0.0, 0.0, -0.1), 90.0);
        assert!((m.strafe - 2.0).abs() < 1e-4, "{m:?}");
        assert!(m.forward.abs() < 1e-4);
        // Falling is no speed.
        let m = Motion::between(DVec3::ZERO, DVec3::new(0.0, -1.0, 0.0), 0.0);
        assert_eq!(m.speed, 0.0);
    }
}
