//! A planned display update, where a node's updates put it at a tick, and
//! the counts and byte estimates of a plan.

use glam::{Quat, Vec3};

use crate::anim::DisplayTransform;

/// One display update: a transformation metadata packet with
/// `start_interpolation` 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DisplayUpdate {
    /// The timeline tick at which to send it.
    pub send_tick: u32,
    /// The timeline tick whose pose it targets
    /// (`send_tick + duration_ticks − 1`).
    pub target_tick: u32,
    /// The transformation to send, in the root's frame; scale 0 when hidden.
    pub transform: DisplayTransform,
    /// The `interpolation_duration` to send, at least 1.
    pub duration_ticks: u32,
}

impl DisplayUpdate {
    /// True when this update hides the node (scale 0).
    pub fn hides(&self) -> bool {
        self.transform.scale == Vec3::ZERO
    }

    /// The transformation for a root turned by `root` (for example the
    /// player's yaw), as `DisplayTransform::from_matrix(Mat4::from_quat(root)
    /// · matrix)` would give it.
    pub fn turned(&self, root: Quat) -> DisplayTransform {
        DisplayTransform {
            translation: root * self.transform.translation,
            left_rotation: (root * self.transform.left_rotation).normalize(),
            ..self.transform
        }
    }
}

/// Per-tick streaming's updates against a plan's, for one node: how many,
/// and their size on the wire as [`metadata_bytes`] estimates it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateCounts {
    /// Updates per-tick streaming sends: one for every tick whose transform
    /// differs from the last one sent (tick 0 always sends).
    pub per_tick: usize,
    /// Updates in the plan.
    pub planned: usize,
    /// Estimated bytes of per-tick streaming's updates.
    pub per_tick_bytes: usize,
    /// Estimated bytes of the plan's updates.
    pub planned_bytes: usize,
}

impl std::ops::AddAssign for UpdateCounts {
    fn add_assign(&mut self, other: Self) {
        self.per_tick += other.per_tick;
        self.planned += other.planned;
        self.per_tick_bytes += other.per_tick_bytes;
        self.planned_bytes += other.planned_bytes;
    }
}

/// The size of one display update's `EntityTrackerUpdateS2c` as the server
/// sends it, uncompressed (it stays under the compression threshold): the
/// frame (length, data length, packet id, a 2-byte entity id, the end
/// marker: 6 bytes), `start_interpolation` (3), `interpolation_duration`
/// when it changes (3), and each transformation field that differs from
/// `previous` (a vector 14, a quaternion 18). An estimate for comparing
/// plans; `emoted loadtest` counts the real bytes.
pub fn metadata_bytes(
    previous: Option<&DisplayTransform>,
    next: &DisplayTransform,
    duration_changed: bool,
) -> usize {
    let differs = |same: fn(&DisplayTransform, &DisplayTransform) -> bool| {
        previous.is_none_or(|p| !same(p, next))
    };
    let mut bytes = 6 + 3;
    if duration_changed {
        bytes += 3;
    }
    if differs(|a, b| a.translation == b.translation) {
        bytes += 14;
    }
    if differs(|a, b| a.left_rotation == b.left_rotation) {
        bytes += 18;
    }
    if differs(|a, b| a.scale == b.scale) {
        bytes += 14;
    }
    if differs(|a, b| a.right_rotation == b.right_rotation) {
        bytes += 18;
    }
    bytes
}

/// The update to send at `tick`, if any (`updates` sorted by send tick, at
/// most one per tick, as [`plan`](super::plan) makes them).
pub fn update_at(updates: &[DisplayUpdate], tick: u32) -> Option<&DisplayUpdate> {
    updates
        .binary_search_by_key(&tick, |u| u.send_tick)
        .ok()
        .map(|i| &updates[i])
}

/// The update whose target the client holds at `tick` (drawn exactly, its
/// interpolation done), when none is in flight then: the last one sent
/// before `tick` whose target tick has come. `None` while an update is
/// still interpolating, or before the first.
pub fn held_at(updates: &[DisplayUpdate], tick: u32) -> Option<&DisplayUpdate> {
    let sent_before = updates.partition_point(|u| u.send_tick < tick);
    let last = updates.get(sent_before.checked_sub(1)?)?;
    (last.target_tick <= tick).then_some(last)
}
