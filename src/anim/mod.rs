//! Runtime animation math on `glam` (the copy valence's `valence::math`
//! re-exports, so the server passes these types straight through), with no
//! valence types: easing, track sampling with cursors, Euler conversion, and the
//! node hierarchy composed into matrices.
//!
//! Offline and runtime are split as in ozz-animation: [`Rig::build`]
//! compiles a validated [`AnimationFile`](crate::format::AnimationFile) once,
//! and [`Pose::sample`] evaluates it every tick without allocating.

pub mod bones;
pub mod clip;
pub mod controller;
pub mod decompose;
mod easing;
pub mod euler;
pub mod layers;
pub mod nbt;
pub mod pose;
pub mod rig;
pub mod solve;
pub mod thin;
pub mod track;

pub use decompose::DisplayTransform;
pub use euler::{euler_degrees_from_quat, quat_from_euler_degrees};
pub use pose::{NodePose, Pose, SampleError};
pub use rig::{ExprCompiler, Rig, RigNode};
pub use track::{slerp, ExprEvaluator, ExprId, NoExprs, Scalar, VectorTrack, VisibilityTrack};

#[cfg(test)]
mod tests;
