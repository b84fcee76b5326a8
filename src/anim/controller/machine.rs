//! One playing controller: parameter values and one state machine per
//! layer, stepped once a tick (the order of a step is in the module guide).

use super::{
    ClipSample, CompiledController, CompiledLayer, CompiledState, ControllerOutput, FiredEvent,
    LayerOutput, Parameters,
};
use crate::format::controller::{LayerWeight, Target, Transition};

/// A state being played and how far it is.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Clock {
    state: usize,
    /// Normalized time, not wrapped: 2.25 is a quarter into the third cycle.
    time: f32,
    /// `time` before the last step, for exit times and events.
    before: f32,
}

impl Clock {
    fn start(state: usize, offset: f32) -> Self {
        Self {
            state,
            time: offset,
            before: offset,
        }
    }

    /// Where in its cycle, in `[0, 1]`.
    fn normalized(&self, looping: bool) -> f32 {
        if looping {
            self.time.fract()
        } else {
            self.time.min(1.0)
        }
    }

    /// True when the exit time `exit` allows leaving now: a one-shot once
    /// it got there; a looping state on the step that crossed it (in any
    /// cycle), as it comes round again every cycle.
    fn reached(&self, exit: f32, looping: bool) -> bool {
        if !looping {
            return self.time >= exit;
        }
        // The first `k + exit` after `before`, for a whole `k`.
        let next = (self.before - exit).floor() + 1.0 + exit;
        next <= self.time
    }
}

/// What a layer fades out of.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    /// A state that keeps playing while it fades.
    State(Clock),
    /// The mix that was on screen when a crossfade was interrupted, frozen.
    Frozen(Vec<ClipSample>),
}

#[derive(Clone, Debug, PartialEq)]
struct Fade {
    source: Source,
    elapsed_ticks: u32,
    duration_ticks: u32,
    interruptible: bool,
}

impl Fade {
    /// The destination's share, in `(0, 1]`.
    fn progress(&self) -> f32 {
        self.elapsed_ticks as f32 / self.duration_ticks as f32
    }
}

#[derive(Clone, Debug, PartialEq)]
struct LayerMachine {
    current: Clock,
    fade: Option<Fade>,
    /// A transition to `exit` fired.
    exited: bool,
}

/// One player's copy of a controller: parameter values and the state of
/// each layer. Step it once a tick with [`ControllerRuntime::step`].
#[derive(Clone, Debug, PartialEq)]
pub struct ControllerRuntime {
    parameters: Parameters,
    layers: Vec<LayerMachine>,
    /// Scratch for clip weights.
    weights: Vec<f32>,
}

impl ControllerRuntime {
    /// Every layer in its default state at time 0, parameters at their defaults.
    pub fn new(controller: &CompiledController) -> Self {
        Self {
            parameters: Parameters::new(controller.parameters()),
            layers: (0..controller.layer_count())
                .map(|i| LayerMachine {
                    current: Clock::start(controller.layer(i).default_state, 0.0),
                    fade: None,
                    exited: false,
                })
                .collect(),
            weights: Vec::new(),
        }
    }

    /// The parameter values.
    pub fn parameters(&self) -> &Parameters {
        &self.parameters
    }

    /// The parameter values, to set before the next step.
    pub fn parameters_mut(&mut self) -> &mut Parameters {
        &mut self.parameters
    }

    /// The ticks one cycle of layer `layer`'s current state takes with the
    /// parameters as they are: its clips' lengths blended by this tick's
    /// weights, over its speed (`None`: no such layer, or a state that does
    /// not move at this speed).
    pub fn cycle_ticks(&self, controller: &CompiledController, layer: usize) -> Option<f32> {
        let machine = self.layers.get(layer)?;
        let state = controller
            .layers
            .get(layer)?
            .states
            .get(machine.current.state)?;
        let (cycle, speed) = state.pace(&self.parameters, &mut Vec::new());
        (speed > 0.0).then(|| cycle / speed)
    }

    /// The state layer `layer` is in (or fading into).
    pub fn state(&self, layer: usize) -> Option<usize> {
        self.layers.get(layer).map(|l| l.current.state)
    }

    /// Advances every layer by one tick and writes what to sample into `out`.
    pub fn step(&mut self, controller: &CompiledController, out: &mut ControllerOutput) {
        out.events.clear();
        out.exited = false;
        out.layers
            .resize_with(controller.layer_count(), LayerOutput::default);
        for (index, (machine, output)) in self.layers.iter_mut().zip(&mut out.layers).enumerate() {
            let layer = controller.layer(index);
            transition(machine, layer, &mut self.parameters, &mut self.weights);
            out.exited |= machine.exited;
            advance(machine, layer, &self.parameters, &mut self.weights);
            let state = &layer.states[machine.current.state];
            let (before, after) = (machine.current.before, machine.current.time);
            for (event, e) in state.events.iter().enumerate() {
                if crossed(e.time, before, after, state.looping) {
                    out.events.push(FiredEvent {
                        layer: index,
                        state: machine.current.state,
                        event,
                    });
                }
            }
            output.weight = match layer.weight {
                LayerWeight::Fixed(w) => w,
                LayerWeight::Parameter(p) => self.parameters.number(p).clamp(0.0, 1.0),
            };
            output.blending = layer.blending;
            output.mask.clone_from(&layer.mask);
            output.state = machine.current.state;
            output.samples.clear();
            mix(
                machine,
                layer,
                &self.parameters,
                &mut self.weights,
                &mut output.samples,
            );
        }
        self.parameters.end_step();
    }
}

/// True when normalized time `at` lies in `[before, after)`, in any cycle
/// for a looping state.
fn crossed(at: f32, before: f32, after: f32, looping: bool) -> bool {
    if after <= before {
        return false;
    }
    if !looping {
        return before <= at && at < after;
    }
    // The first `k + at` at or after `before`.
    let first = (before - at).ceil() + at;
    first < after
}

/// Fires the first transition that may fire, if any.
fn transition(
    machine: &mut LayerMachine,
    layer: &CompiledLayer,
    parameters: &mut Parameters,
    weights: &mut Vec<f32>,
) {
    if machine.fade.as_ref().is_some_and(|f| !f.interruptible) {
        return;
    }
    let current = machine.current;
    let state = &layer.states[current.state];
    let candidates = layer
        .from_any
        .iter()
        .chain(&layer.from_state[current.state])
        .map(|&i| &layer.transitions[i]);
    let Some(chosen) = candidates
        .filter(|t| !(t.from.is_none() && t.to == Target::State(current.state)))
        .find(|t| may_fire(t, &current, state, parameters))
    else {
        return;
    };
    parameters.consume(&chosen.conditions);
    let to = match chosen.to {
        Target::State(to) => to,
        Target::Exit => {
            machine.exited = true;
            return;
        }
    };
    let next = Clock::start(to, chosen.offset);
    if chosen.crossfade_ticks == 0 {
        machine.current = next;
        machine.fade = None;
        return;
    }
    let source = if machine.fade.is_some() {
        let mut frozen = Vec::new();
        mix(machine, layer, parameters, weights, &mut frozen);
        Source::Frozen(frozen)
    } else {
        Source::State(current)
    };
    machine.current = next;
    machine.fade = Some(Fade {
        source,
        elapsed_ticks: 0,
        duration_ticks: chosen.crossfade_ticks,
        interruptible: chosen.interruptible,
    });
}

fn may_fire(t: &Transition, clock: &Clock, state: &CompiledState, parameters: &Parameters) -> bool {
    t.exit_time
        .is_none_or(|exit| clock.reached(exit, state.looping))
        && t.conditions.iter().all(|c| parameters.holds(c))
}

/// Moves `clock` on by one tick of `state` at this tick's weights.
fn tick_clock(
    clock: &mut Clock,
    state: &CompiledState,
    parameters: &Parameters,
    weights: &mut Vec<f32>,
) {
    let (cycle, speed) = state.pace(parameters, weights);
    clock.before = clock.time;
    clock.time += speed / cycle;
    if !state.looping {
        clock.time = clock.time.min(1.0);
    }
}

fn advance(
    machine: &mut LayerMachine,
    layer: &CompiledLayer,
    parameters: &Parameters,
    weights: &mut Vec<f32>,
) {
    let state = &layer.states[machine.current.state];
    tick_clock(&mut machine.current, state, parameters, weights);
    if let Some(fade) = &mut machine.fade {
        if let Source::State(clock) = &mut fade.source {
            tick_clock(clock, &layer.states[clock.state], parameters, weights);
        }
        fade.elapsed_ticks += 1;
        if fade.elapsed_ticks >= fade.duration_ticks {
            machine.fade = None;
        }
    }
}

/// Appends the clips of `clock`'s state, each weight scaled by `share`.
fn push_state(
    clock: &Clock,
    layer: &CompiledLayer,
    parameters: &Parameters,
    share: f32,
    weights: &mut Vec<f32>,
    out: &mut Vec<ClipSample>,
) {
    let state = &layer.states[clock.state];
    state.weights(parameters, weights);
    let normalized_time = clock.normalized(state.looping);
    for (clip, w) in state.clips.iter().zip(weights.iter()) {
        let weight = w * share;
        if weight > 0.0 {
            out.push(ClipSample {
                clip: *clip,
                weight,
                normalized_time,
            });
        }
    }
}

/// Appends what `machine` shows now: the current state, and what it fades out of.
fn mix(
    machine: &LayerMachine,
    layer: &CompiledLayer,
    parameters: &Parameters,
    weights: &mut Vec<f32>,
    out: &mut Vec<ClipSample>,
) {
    let progress = machine.fade.as_ref().map_or(1.0, Fade::progress);
    if let Some(fade) = &machine.fade {
        let share = 1.0 - progress;
        match &fade.source {
            Source::State(clock) => push_state(clock, layer, parameters, share, weights, out),
            Source::Frozen(samples) => out.extend(
                samples
                    .iter()
                    .filter(|s| s.weight * share > 0.0)
                    .map(|s| ClipSample {
                        weight: s.weight * share,
                        ..*s
                    }),
            ),
        }
    }
    push_state(&machine.current, layer, parameters, progress, weights, out);
}
