//! Sampling `.anim` clips (pure: glam, no valence).
//!
//! # The model
//! A validated [`ClipFile`] is compiled once into a [`CompiledClip`]: each
//! joint's channels with their enabled curve modifiers, where the joint
//! plays (the clip's own `retarget` and name matching, or a `.retarget`
//! file given at compile time), and the clip's playback fields. Sampling
//! then fills a [`ClipPose`] made once by [`CompiledClip::new_pose`]:
//! [`CompiledClip::sample_into`] writes every joint's local pose (rotation,
//! offset from the rest, scale, and the joint's weight) at a clip time
//! without allocating. [`CompiledClip::clip_time`] turns the time a track
//! has played into clip time (speed and loop mode), and
//! [`CompiledClip::cues_between`] lists the markers, events, sounds and
//! plays passed between two track times, for a player to fire
//! ([`playhead`]).
//!
//! What a joint samples is [`JointChannels`]: the channels the joint has,
//! `None` for the others ("channels a joint does not have are left
//! alone"), so it goes straight into [`crate::anim::layers`] through
//! [`CompiledClip::track_on_joint`].
//!
//! # Rotations
//! Euler keys are interpolated one axis at a time in degrees (so a key can
//! spin a joint more than half a turn), the curve modifiers run on them,
//! and only then are the three angles put together in the clip's `euler`
//! order ([`crate::format::clip::EulerOrder`]). Quaternion keys slerp.
//!
//! # Retargeting
//! With a `.retarget` file, a joint it names plays on its `to` (a body
//! joint when the name matches one, else a model's joint of that name;
//! `""` keeps it still); the others keep where the clip put them. Every
//! position is multiplied by the file's `scale`. A joint with `source` and
//! `target` rest rotations `S` and `T` has its turn `r` carried across as
//! the same turn in the world: the clip's joint ends at `S · r`, a world
//! turn of `S · r · S⁻¹`, which on the target rest gives
//! `r' = T⁻¹ · S · r · S⁻¹ · T`. Offsets are in the parent's space and are
//! only scaled.

pub mod curve;
mod modifier;
pub mod playhead;

#[cfg(test)]
mod tests;

use glam::{Quat, Vec3};

use crate::anim::layers::{mask_admits, Blend, JointChannels, TrackOnJoint};
use crate::format::clip::{
    BodyJoint, ClipBlend, ClipEvent, ClipFile, ClipJoint, ClipPlay, ClipSound, EulerOrder,
    JointTarget, JointWeight, Key, LoopMode, Marker, RetargetFile, RotationChannel,
};
use modifier::ModifiedCurve;
pub use playhead::{Cue, MAX_CUE_CYCLES};

/// A clip ready to sample.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledClip {
    length_secs: f32,
    speed: f32,
    loop_mode: LoopMode,
    priority: f32,
    blend: Blend,
    joints: Vec<CompiledJoint>,
    markers: Vec<Marker>,
    events: Vec<ClipEvent>,
    sounds: Vec<ClipSound>,
    plays: Vec<ClipPlay>,
}

/// One joint of a compiled clip.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledJoint {
    name: String,
    target_name: Option<String>,
    body_joint: Option<BodyJoint>,
    playing: bool,
    rotation: Option<RotationCurve>,
    position: Option<ModifiedCurve>,
    scale: Option<Vec<Key<Vec3>>>,
    weight: WeightCurve,
    position_scale: f32,
    /// `(T⁻¹ · S, S⁻¹ · T)` for a joint with rest rotations.
    rest_turn: Option<(Quat, Quat)>,
}

#[derive(Clone, Debug, PartialEq)]
enum RotationCurve {
    Euler(ModifiedCurve, EulerOrder),
    Quaternion(Vec<Key<Quat>>),
}

#[derive(Clone, Debug, PartialEq)]
enum WeightCurve {
    Constant(f32),
    Keyed(Vec<Key<Vec3>>),
}

impl CompiledJoint {
    /// The joint's name in the clip.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The joint it plays on (a body joint's name, a `.retarget`'s `to`, or
    /// the clip's own name for a joint no body joint matches); `None` when
    /// it is kept off (`""` in a retarget map, or a second joint on a body
    /// joint already taken).
    pub fn target_name(&self) -> Option<&str> {
        self.target_name.as_deref()
    }

    /// The body joint it plays on, if any.
    pub fn body_joint(&self) -> Option<BodyJoint> {
        self.body_joint
    }

    /// False when the joint is muted, kept off, or outside the clip's mask
    /// (which takes either the clip's name or the target's).
    pub fn is_playing(&self) -> bool {
        self.playing
    }
}

/// What one joint samples at one time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointSample {
    /// The channels the joint has: rotation (unit), offset from the rest
    /// in blocks, scale.
    pub channels: JointChannels,
    /// The joint's weight in the clip, 0 to 1.
    pub weight: f32,
}

/// Every joint's sample, in the order of [`CompiledClip::joints`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipPose {
    samples: Vec<JointSample>,
}

impl ClipPose {
    /// The samples, one per joint of the clip.
    pub fn samples(&self) -> &[JointSample] {
        &self.samples
    }
}

impl CompiledClip {
    /// Compiles `clip`, playing it through `retarget` when given (see the
    /// module docs).
    pub fn compile(clip: &ClipFile, retarget: Option<&RetargetFile>) -> Self {
        let joints = clip
            .joints
            .iter()
            .map(|joint| compile_joint(joint, clip, retarget))
            .collect();
        Self {
            length_secs: clip.length_secs,
            speed: clip.speed,
            loop_mode: clip.loop_mode,
            priority: clip.priority,
            blend: match clip.blend {
                ClipBlend::Normal => Blend::Normal,
                ClipBlend::Additive => Blend::Additive,
            },
            joints,
            markers: clip.markers.clone(),
            events: clip.events.clone(),
            sounds: clip.sounds.clone(),
            plays: clip.plays.clone(),
        }
    }

    /// A pose with room for every joint, for [`CompiledClip::sample_into`].
    pub fn new_pose(&self) -> ClipPose {
        ClipPose {
            samples: vec![JointSample::default(); self.joints.len()],
        }
    }

    /// Writes every joint's sample at clip time `clip_time_secs` into `out`
    /// (made by [`CompiledClip::new_pose`]; a pose of another size is
    /// resized, the only case that allocates).
    pub fn sample_into(&self, clip_time_secs: f32, out: &mut ClipPose) {
        out.samples
            .resize(self.joints.len(), JointSample::default());
        let t = if clip_time_secs.is_finite() {
            clip_time_secs
        } else {
            0.0
        };
        for (joint, sample) in self.joints.iter().zip(out.samples.iter_mut()) {
            *sample = joint.sample(t);
        }
    }

    /// The joints.
    pub fn joints(&self) -> &[CompiledJoint] {
        &self.joints
    }

    /// A joint's sample as a layering input, with the track's own weight
    /// (× fade) multiplied in.
    pub fn track_on_joint(&self, sample: &JointSample, track_weight: f32) -> TrackOnJoint {
        TrackOnJoint {
            priority: self.priority,
            weight: track_weight * sample.weight,
            blend: self.blend,
            channels: sample.channels,
        }
    }

    /// The length in seconds.
    pub fn length_secs(&self) -> f32 {
        self.length_secs
    }

    /// The loop mode.
    pub fn loop_mode(&self) -> LoopMode {
        self.loop_mode
    }

    /// The priority number.
    pub fn priority(&self) -> f32 {
        self.priority
    }

    /// The markers, by time.
    pub fn markers(&self) -> &[Marker] {
        &self.markers
    }

    /// The events, by time.
    pub fn events(&self) -> &[ClipEvent] {
        &self.events
    }

    /// The sounds, by time.
    pub fn sounds(&self) -> &[ClipSound] {
        &self.sounds
    }

    /// The plays, by time.
    pub fn plays(&self) -> &[ClipPlay] {
        &self.plays
    }
}

fn compile_joint(
    joint: &ClipJoint,
    clip: &ClipFile,
    retarget: Option<&RetargetFile>,
) -> CompiledJoint {
    let entry = retarget.and_then(|r| r.joints.get(&joint.name));
    let (target_name, body_joint, rests) = match entry {
        Some(entry) if entry.to.is_empty() => (None, None, None),
        Some(entry) => (
            Some(entry.to.clone()),
            BodyJoint::matching(&entry.to),
            entry.rests,
        ),
        None => match joint.target {
            JointTarget::Body(body) => (Some(body.name().to_owned()), Some(body), None),
            JointTarget::Off => (None, None, None),
            JointTarget::Unmatched => (Some(joint.name.clone()), None, None),
        },
    };
    let in_mask = {
        let names: Vec<&str> = [Some(joint.name.as_str()), target_name.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        mask_admits(clip.mask.as_deref(), &names)
    };
    let rotation = joint.rotation.as_ref().map(|channel| match channel {
        RotationChannel::Euler(keys) => RotationCurve::Euler(
            ModifiedCurve::new(keys.clone(), &joint.rotation_modifiers),
            clip.euler,
        ),
        RotationChannel::Quaternion(keys) => RotationCurve::Quaternion(keys.clone()),
    });
    CompiledJoint {
        name: joint.name.clone(),
        playing: target_name.is_some() && !joint.muted && in_mask,
        target_name,
        body_joint,
        rotation,
        position: joint
            .position
            .as_ref()
            .map(|keys| ModifiedCurve::new(keys.clone(), &joint.position_modifiers)),
        scale: joint.scale.clone(),
        weight: match &joint.weight {
            JointWeight::Constant(w) => WeightCurve::Constant(*w),
            JointWeight::Keyed(keys) => WeightCurve::Keyed(keys.clone()),
        },
        position_scale: retarget.map_or(1.0, |r| r.scale),
        rest_turn: rests.map(|r| (r.target.inverse() * r.source, r.source.inverse() * r.target)),
    }
}

impl CompiledJoint {
    fn sample(&self, t: f32) -> JointSample {
        let rotation = self.rotation.as_ref().map(|curve| {
            let r = match curve {
                RotationCurve::Euler(curve, order) => order.quat_from_degrees(curve.sample(t)),
                RotationCurve::Quaternion(keys) => curve::sample_quat(keys, t),
            };
            match self.rest_turn {
                Some((left, right)) => (left * r * right).normalize(),
                None => r,
            }
        });
        let weight = match &self.weight {
            WeightCurve::Constant(w) => *w,
            WeightCurve::Keyed(keys) => curve::sample_vec(keys, t).x.clamp(0.0, 1.0),
        };
        JointSample {
            channels: JointChannels {
                rotation,
                position: self
                    .position
                    .as_ref()
                    .map(|c| c.sample(t) * self.position_scale),
                scale: self.scale.as_deref().map(|keys| curve::sample_vec(keys, t)),
            },
            weight,
        }
    }
}
