//! The update scheduler: the fewest display updates that let a 1.20.1 client
//! draw a node's motion within a tolerance of the exact pose.
//!
//! The client interpolates a display's transformation by itself: translation
//! and scale are lerped, the left and right rotations are each slerped on the
//! shortest arc ([`DisplayTransform::interpolate`](crate::anim::DisplayTransform::interpolate)), from the transform it
//! shows when an update arrives to the update's, over
//! `interpolation_duration` ticks. Where a stretch of motion is close enough
//! to that, one update with the stretch's length replaces one per tick.
//!
//! # Timing model
//!
//! Ticks are timeline ticks `0..=D` of one cycle. A constant network delay is
//! ignored.
//!
//! - Per-tick streaming sends, at server tick `t`, `pose(t)` with duration 1,
//!   so the client shows `pose(t)` at `t + 1`.
//! - A **stretch** `[a, b]` (`a < b`) is sent at tick `a + 1` with a target
//!   `T` and duration `b − a`. The client starts from `S`, what it shows
//!   once the previous update has finished (at `a + 1`), and shows
//!   `interpolate(S, T, (t − a) / (b − a))` at tick `t + 1` for every `t`
//!   in `[a, b]`. `S` and `T` are poses within tolerance of `pose(a)` and
//!   `pose(b)`, not always the exact ones (see Planning). Per-tick streaming
//!   is the special case of stretches of length 1 with exact targets.
//! - A **point** update at tick `c` is sent at `c` with a target within
//!   tolerance of `pose(c)` and duration 1, so the client shows it at
//!   `c + 1`. The plan starts with one at tick 0, and each shown run after a
//!   hidden one starts with one (unless what the client shows is already
//!   close enough).
//! - Hidden (`None`) is drawn as scale 0. A visibility change is always a
//!   stretch boundary; a hidden run is one point update at its first tick,
//!   with scale 0 and the translation and rotations last sent.
//! - An update whose target is what the client already shows is not sent,
//!   so a node whose pose does not change sends nothing.
//!
//! In every update `target_tick = send_tick + duration_ticks − 1`, and send
//! ticks strictly increase; each update is sent exactly when the previous
//! one has finished.
//!
//! # Error metric
//!
//! A drawn matrix `D` is within a [`Tolerance`] of the exact composed matrix
//! `E` when both hold:
//!
//! - **translation**: each of the 8 corners `c` of the unit cube
//!   `[−0.5, 0.5]³` lands within `translation_blocks` of where the exact pose
//!   puts it: `max |D·c − E·c| ≤ translation_blocks`. The difference is
//!   affine in `c`, so the corners bound every point of the cube;
//! - **rotation**: the angle between the two rotations is at most
//!   `rotation_degrees`. A matrix's rotation is `R_left · R_right` from
//!   [`DisplayTransform::from_matrix`](crate::anim::DisplayTransform::from_matrix), which is the orthogonal polar factor
//!   of its 3×3 part when that is invertible with a positive determinant (so
//!   it does not depend on how the decomposition split it). The rotation is
//!   not compared when either matrix has a scale below [`MIN_ROTATED_SCALE`]
//!   on some axis: such a node is too thin for its rotation to be defined,
//!   and the corner test already bounds it.
//!
//! Shown and hidden must agree exactly; a shown matrix whose 3×3 part is zero
//! draws nothing and counts as hidden.
//!
//! # Planning
//!
//! Greedy: from a stretch start `a`, the end `b` is searched by galloping
//! (lengths 2, 4, 8, ... while some target for `b` is drawn within tolerance
//! at every tick of `(a, b]`, up to the end of the shown run), then by binary
//! search between the last length that fit and the first that did not.
//! Every stretch chosen is verified at every tick it covers, so the plan is
//! within tolerance even where the error is not monotone in the length (the
//! search may then stop short of, or beyond, the first failing length).
//!
//! The targets tried for `b` are the exact `pose(b)`, then that pose
//! **aimed** past the path: a chord across a curving path misses it on one
//! side, so the end is moved to the other side by `1 / (1 + u)` of the
//! worst miss (at fraction `u` of the stretch), which splits the error
//! between the middle and the end; the next stretch starts from that
//! off-path pose. On a path of constant curvature this fits stretches up to
//! √2 times longer than chords between exact poses.
//!
//! Then each field of the chosen target (scale, right rotation,
//! translation, left rotation, in that order) is set back to the value the
//! client already has when the stretch still fits with it: the update then
//! leaves that field out. A composed scale, for example, jitters in its last
//! bits as parents turn, and is then never resent.
//!
//! The planner compares with 0.999 of the tolerance (a drawn pose's rotation
//! is read off its transformation instead of being decomposed again, which
//! differs from [`verify`] by float rounding). [`Planner`] keeps its buffers
//! between nodes; nothing is allocated per tick.
//!
//! # Frames
//!
//! The plan is made in the emote root's frame. A root turned by a constant
//! rotation `q` (the player's yaw) may send every update as
//! [`DisplayUpdate::turned`]: slerp and lerp commute with a fixed left
//! rotation, so the client draws exactly the turned poses. A yaw change in
//! the middle of a stretch is not covered and needs a new update.

pub mod bands;
mod metric;
mod planner;
mod replay;
#[cfg(test)]
mod tests;
mod update;

pub use bands::{
    band_for_distance, band_tolerance, bands_of, BandMask, COARSEST_BAND, DISPLAY_BANDS, EVERY_BAND,
};
pub use metric::{pose_error, PoseError, Tolerance, MIN_ROTATED_SCALE};
pub use planner::{plan, Planner};
pub use replay::{
    per_tick_update_count, per_tick_updates, replay, update_counts, verify, ScheduleMismatch,
};
pub use update::{held_at, metadata_bytes, update_at, DisplayUpdate, UpdateCounts};
