//! An Animation's bone form ([`crate::anim::bones`]) sampled over one
//! cycle: every joint's frame at every tick, for the modded clients'
//! channels to encode.
//!
//! The cycle is sampled as `emoted sample` samples it (one run from tick
//! 0, Molang seeded with 0), so an Animation whose tracks use randomness
//! reaches modded viewers with seed 0's motion, the same every time.

use super::CompiledAnimation;
use crate::anim::bones::BoneBinding;
pub use crate::anim::bones::BoneForm;
use crate::anim::{Pose, SampleError};
use crate::format::AnimationFile;

/// The bone form of `compiled` (built from `file`), or `None` when no
/// node is bound to the initiator's skin.
pub fn bone_form(
    compiled: &CompiledAnimation,
    file: &AnimationFile,
) -> Result<Option<BoneForm>, SampleError> {
    bone_form_with(compiled, file, &mut |_, _| {})
}

/// [`bone_form`], with `after_step(tick, pose)` called on every tick's
/// pose before its joints are read (where playback's solvers bend it, so
/// a modded viewer gets the solved body).
pub fn bone_form_with(
    compiled: &CompiledAnimation,
    file: &AnimationFile,
    after_step: &mut dyn FnMut(u32, &mut Pose),
) -> Result<Option<BoneForm>, SampleError> {
    let Some(binding) = BoneBinding::find(file, &compiled.rig) else {
        return Ok(None);
    };
    let duration_ticks = compiled.rig.duration_ticks;
    let mut state = compiled.new_molang_state(0);
    let mut pose = Pose::new(&compiled.rig);
    compiled.begin_cycle(&mut state, 0)?;
    let mut frames = Vec::with_capacity(duration_ticks as usize + 1);
    let mut tick_frames = Vec::new();
    for tick in 0..=duration_ticks {
        compiled.step(&mut state, tick, true, &mut pose)?;
        after_step(tick, &mut pose);
        binding.frames(&pose, &mut tick_frames);
        frames.push(tick_frames.clone());
    }
    let settings = &compiled.runtime.playback;
    Ok(Some(BoneForm {
        duration_ticks,
        mode: settings.mode,
        loop_delay_ticks: settings.loop_delay_ticks,
        joints: binding.joints().collect(),
        frames,
    }))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::anim::bones::BodyJoint;
    use crate::format::node::{NodeKind, Participant};
    use crate::format::EmoteFile;
    use crate::library::Library;

    /// Every bundled Animation with a node on the initiator's skin has a
    /// bone form with one frame per tick, and an arm raised by the file
    /// is raised in it.
    #[test]
    fn every_bundled_body_emote_has_a_bone_form() {
        let library =
            Library::load(&[PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("emotes")]).library;
        let mut with_bones = 0;
        for (id, loaded) in library.iter() {
            let (EmoteFile::Animation(file), Some(compiled)) = (&*loaded.file, &loaded.compiled)
            else {
                continue;
            };
            let bound = file.nodes.iter().any(|n| {
                matches!(&n.kind, NodeKind::Item { skin: Some(s), .. }
                    if s.participant == Participant::Initiator)
            });
            let form = bone_form(compiled, file).expect("samples");
            assert_eq!(form.is_some(), bound, "{id}");
            if let Some(form) = form {
                with_bones += 1;
                assert_eq!(form.frames.len() as u32, form.duration_ticks + 1, "{id}");
                assert!(form.frames.iter().all(|f| f.len() == form.joints.len()));
            }
        }
        assert!(with_bones >= 8, "{with_bones} body emotes");
        let wave = library.get("example:wave").expect("the wave");
        let EmoteFile::Animation(file) = &*wave.file else {
            panic!("an Animation");
        };
        let form = bone_form(wave.compiled.as_ref().expect("compiled"), file)
            .expect("samples")
            .expect("bones");
        let arm = form
            .joints
            .iter()
            .position(|(j, bends)| *j == BodyJoint::RightArm && *bends)
            .expect("a bending right arm");
        // wave.json: shoulder_r turns −115° about Z at tick 18.
        let (axis, angle) = form.frames[18][arm].rotation.to_axis_angle();
        let turn = axis.z
            * if angle > std::f32::consts::PI {
                angle - std::f32::consts::TAU
            } else {
                angle
            };
        assert!((turn + 115_f32.to_radians()).abs() < 1e-3, "{axis} {angle}");
        assert!(
            form.frames[0][arm]
                .rotation
                .angle_between(glam::Quat::IDENTITY)
                < 1e-4
        );
    }
}
