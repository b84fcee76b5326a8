//! Sending what a playback decided: the commands it queued, to the
//! dispatcher, and each tick's display updates (decided by
//! [`PlaybackState::pose_updates`](crate::playback::session::PlaybackState::pose_updates))
//! to the display entities; and the shared plan cache as a resource.

use valence::entity::display::{
    InterpolationDuration, LeftRotation, RightRotation, Scale, StartInterpolation, Translation,
};
use valence::prelude::*;

use super::active::*;
use crate::anim::DisplayTransform;
use crate::playback::schedule::Tolerance;
use crate::playback::session::{DueCommand, DueSource, NodeUpdate, PlanCache};
use crate::server::events::{CommandSource, EmoteCommandEvent};

/// The scheduler's plans shared between playbacks
/// ([`PlanCache`]), as a resource.
#[derive(Resource, Default)]
pub struct EmotePlans(pub PlanCache);

/// Takes the scheduler's tolerance from `[emotes]` in the configuration,
/// at start-up and after each reload.
pub(super) fn apply_display_tolerance(
    config: Res<crate::server::config::Config>,
    mut plans: ResMut<EmotePlans>,
) {
    if config.is_changed() {
        plans.0.set_tolerance(Tolerance {
            translation_blocks: config.emotes.display_tolerance_blocks,
            rotation_degrees: config.emotes.display_tolerance_degrees,
        });
    }
}

pub(super) type DisplayQuery<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut Translation,
        &'static mut LeftRotation,
        &'static mut Scale,
        &'static mut RightRotation,
        &'static mut StartInterpolation,
        &'static mut InterpolationDuration,
    ),
>;

/// Writes the playback's updates (emptying `updates`) to its displays; a
/// skin-bound node's head is turned to face the rig ([`face_the_rig`]) and
/// its pack-drawn twin gets the update moved down by its slice's offset
/// (its model turns the skull itself).
pub(super) fn write_updates(
    playback: &ActiveEmote,
    updates: &mut Vec<NodeUpdate>,
    displays: &mut DisplayQuery,
) {
    for update in updates.drain(..) {
        if let Some(Some(entity)) = playback.displays.get(update.union).copied() {
            let drawn = playback.drawn_by_node_display(update.union, &update.transform);
            write_transform(displays, entity, &drawn, update.duration_ticks);
        }
        let twin = playback
            .pack_twins
            .get(update.union)
            .and_then(Option::as_ref);
        // An undressed twin stays at scale 0 until it is dressed.
        if let Some(twin) = twin.filter(|t| t.dressed) {
            let moved = twin.offset(&update.transform);
            write_transform(displays, twin.entity, &moved, update.duration_ticks);
        }
    }
}

/// Writes one display's transformation: only the fields that changed, and
/// always `start_interpolation` (so the client measures from now).
pub(super) fn write_transform(
    displays: &mut DisplayQuery,
    entity: Entity,
    transform: &DisplayTransform,
    duration_ticks: u32,
) {
    if let Ok((mut t, mut l, mut s, mut r, mut start, mut duration)) = displays.get_mut(entity) {
        if t.0 != transform.translation {
            t.0 = transform.translation;
        }
        if l.0 != transform.left_rotation {
            l.0 = transform.left_rotation;
        }
        if s.0 != transform.scale {
            s.0 = transform.scale;
        }
        if r.0 != transform.right_rotation {
            r.0 = transform.right_rotation;
        }
        start.0 = 0;
        let ticks = i32::try_from(duration_ticks).unwrap_or(i32::MAX);
        if duration.0 != ticks {
            duration.0 = ticks;
        }
    }
}

/// Sends the commands a playback queued to the dispatcher (emptying
/// `due`); a node source whose node has no entity is skipped.
pub(super) fn send_due(
    playback: &ActiveEmote,
    player: Entity,
    due: &mut Vec<DueCommand>,
    out: &mut EventWriter<EmoteCommandEvent>,
) {
    for command in due.drain(..) {
        let source = match command.source {
            DueSource::Player => CommandSource::Player(player),
            DueSource::Server => CommandSource::Server,
            DueSource::Node { id, union } => {
                match playback.displays.get(union).copied().flatten() {
                    Some(entity) => CommandSource::Node { id, entity },
                    None => continue,
                }
            }
        };
        out.send(EmoteCommandEvent {
            playback: Some(player),
            source,
            origin: command.origin,
            command: command.command,
        });
    }
}
