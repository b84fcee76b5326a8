//! A playing controller's body as a bone form (modded clients' joints,
//! [`crate::anim::bones`]): the mix as it plays on from now with every
//! parameter held, over one cycle of the base layer's state at this speed.
//! PlayerAnimator plays what it receives and blends nothing itself, so
//! this is what a modded viewer is sent for a controller: a loop of the
//! blend on screen, sent again when the blend moved ([`HeldBlend`]: a layer
//! changed state, or a clip's share of the body moved by more than
//! [`RESEND_BLEND_CHANGE`]). The server decides when
//! (`crate::server::modded`'s `held`), at most once a second.

use crate::anim::bones::{BoneBinding, BoneForm};
use crate::anim::{Pose, SampleError};
use crate::format::settings::PlaybackMode;
use crate::format::AnimationFile;
use crate::library::CompiledAnimation;

use super::{ControlledBody, Motion};

/// A held form is out of date once a clip's share of the body moved this
/// much (a walk at 2.6 blocks a second that speeds up to 3.1 on walk_wave's
/// 1.3 / 4 thresholds), or a layer changed state.
pub const RESEND_BLEND_CHANGE: f32 = 0.2;

/// What a controller shows, as numbers to compare: each layer's state and
/// each clip's share of each layer (layer weight × sample weight).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeldBlend {
    states: Vec<usize>,
    /// Layer-major: `layer * clips + clip`.
    shares: Vec<f32>,
}

impl HeldBlend {
    /// No layer: the controller has not stepped yet.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// How far apart two blends are: 1 when a layer is in another state
    /// (or the layouts differ), else the largest change of a share.
    pub fn distance(&self, other: &HeldBlend) -> f32 {
        if self.states != other.states || self.shares.len() != other.shares.len() {
            return 1.0;
        }
        self.shares
            .iter()
            .zip(&other.shares)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max)
    }
}

/// The longest held cycle sampled, ticks (a state slowed to a crawl
/// would otherwise be sampled for minutes).
pub const MAX_HELD_CYCLE_TICKS: u32 = 200;

impl ControlledBody {
    /// What the last step showed, to tell when a held form is out of date.
    pub fn held_blend(&self) -> HeldBlend {
        let clips = self.clips.len();
        let output = self.output();
        let mut shares = vec![0.0; output.layers.len() * clips];
        for (index, layer) in output.layers.iter().enumerate() {
            for sample in &layer.samples {
                if let Some(share) = shares.get_mut(index * clips + sample.clip.0) {
                    *share += layer.weight * sample.weight;
                }
            }
        }
        HeldBlend {
            states: output.layers.iter().map(|l| l.state).collect(),
            shares,
        }
    }

    /// The bone form of the body (`body`, built from `file`) playing on
    /// from now with `motion` held, over one cycle of the base layer's
    /// state (at most [`MAX_HELD_CYCLE_TICKS`]; a state that does not move
    /// at this speed holds its pose for one tick). `None` when no node is
    /// bound to the initiator's skin. The playback itself is not changed.
    pub fn held_bone_form(
        &self,
        body: &CompiledAnimation,
        file: &AnimationFile,
        motion: &Motion,
    ) -> Result<Option<BoneForm>, SampleError> {
        let Some(binding) = BoneBinding::find(file, &body.rig) else {
            return Ok(None);
        };
        let mut copy = self.clone();
        let held = Motion {
            jumped: false,
            ..*motion
        };
        copy.observe(&held);
        let cycle = copy
            .runtime
            .cycle_ticks(&copy.controller, 0)
            .map_or(1, |ticks| {
                (ticks.round() as u32).clamp(1, MAX_HELD_CYCLE_TICKS)
            });
        let mut pose = Pose::new(&body.rig);
        let mut frames = Vec::with_capacity(cycle as usize + 1);
        let mut tick_frames = Vec::new();
        for _ in 0..=cycle {
            copy.observe(&held);
            copy.step(body, &mut pose)?;
            binding.frames(&pose, &mut tick_frames);
            frames.push(tick_frames.clone());
        }
        Ok(Some(BoneForm {
            duration_ticks: cycle,
            mode: PlaybackMode::Loop,
            loop_delay_ticks: 0,
            joints: binding.joints().collect(),
            frames,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;
    use crate::anim::bones::BodyJoint;
    use crate::anim::controller::CompiledController;
    use crate::format::EmoteFile;
    use crate::library::Library;

    /// The bundled walk_wave, ready to play, with its body clip.
    fn walk_wave() -> (ControlledBody, Arc<CompiledAnimation>, AnimationFile) {
        let emotes = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
        let library = Library::load(&[emotes]).library;
        let loaded = library.get("example:walk_wave").expect("bundled");
        let EmoteFile::Controller(file) = &*loaded.file else {
            panic!("a controller")
        };
        let clip = |id: &crate::format::EmoteId| library.get(id.as_str())?.compiled.clone();
        let body_id = file.body_clip().expect("a body").id.clone();
        let body = clip(&body_id).expect("the body clip");
        let EmoteFile::Animation(body_file) = &*library.get(body_id.as_str()).expect("loaded").file
        else {
            panic!("an Animation")
        };
        let compiled = CompiledController::compile(file, |id| Some(clip(id)?.rig.duration_ticks))
            .expect("compiles");
        let controlled =
            ControlledBody::new(Arc::new(compiled), &body, clip, 0, 1 << 20).expect("plays");
        (controlled, body, body_file.clone())
    }

    fn running() -> Motion {
        Motion {
            speed: 4.3,
            forward: 4.3,
            ..Motion::default()
        }
    }

    #[test]
    fn a_run_is_one_run_cycle_that_closes_and_swings_the_legs() {
        let (controlled, body, file) = walk_wave();
        let form = controlled
            .held_bone_form(&body, &file, &running())
            .expect("samples")
            .expect("a skin-bound body");
        // The run alone (speed past its threshold of 4): its 14 ticks.
        assert_eq!(form.duration_ticks, 14);
        assert_eq!(form.mode, PlaybackMode::Loop);
        assert_eq!(form.frames.len(), 15);
        let leg = form
            .joints
            .iter()
            .position(|(j, _)| *j == BodyJoint::RightLeg)
            .expect("a right leg");
        let turn = |tick: usize| form.frames[tick][leg].rotation;
        // The loop closes on itself, and the leg swings in between.
        assert!(turn(0).angle_between(turn(14)).to_degrees() < 0.5);
        let swing = (0..14)
            .map(|t| turn(0).angle_between(turn(t)).to_degrees())
            .fold(0.0_f32, f32::max);
        assert!(swing > 60.0, "{swing}");
        // Sampling ahead leaves the playback where it was.
        assert_eq!(controlled.state_name(0), Some("move"));
    }

    #[test]
    fn standing_is_the_idle_cycle_with_straight_legs() {
        let (controlled, body, file) = walk_wave();
        let form = controlled
            .held_bone_form(&body, &file, &Motion::default())
            .expect("samples")
            .expect("a skin-bound body");
        assert_eq!(form.duration_ticks, 40);
        let leg = form
            .joints
            .iter()
            .position(|(j, _)| *j == BodyJoint::RightLeg)
            .expect("a right leg");
        let most = form
            .frames
            .iter()
            .map(|f| {
                f[leg]
                    .rotation
                    .angle_between(glam::Quat::IDENTITY)
                    .to_degrees()
            })
            .fold(0.0_f32, f32::max);
        assert!(most < 2.0, "{most}");
    }

    #[test]
    fn the_blend_moves_when_the_body_starts_running_and_not_while_it_stands() {
        let (mut controlled, body, _) = walk_wave();
        let mut pose = Pose::new(&body.rig);
        let mut step = |controlled: &mut ControlledBody, motion: &Motion| {
            controlled.observe(motion);
            controlled.step(&body, &mut pose).expect("steps");
        };
        for _ in 0..3 {
            step(&mut controlled, &Motion::default());
        }
        let standing = controlled.held_blend();
        step(&mut controlled, &Motion::default());
        assert_eq!(standing.distance(&controlled.held_blend()), 0.0);
        for _ in 0..3 {
            step(&mut controlled, &running());
        }
        assert_eq!(controlled.observed(), &running());
        let moved = standing.distance(&controlled.held_blend());
        assert!(moved > RESEND_BLEND_CHANGE, "{moved}");
    }
}
