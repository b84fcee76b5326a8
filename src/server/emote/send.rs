//! Sending what a playback decided: the commands it queued, to the
//! dispatcher, and each tick's display updates (decided by
//! [`PlaybackState::pose_updates`](crate::playback::session::PlaybackState::pose_updates))
//! to the display entities; and the shared plan cache as a resource.

use valence::entity::display::{
    InterpolationDuration, LeftRotation, RightRotation, Scale, StartInterpolation, Translation,
};
use valence::entity::tracked_data::TrackedData;
use valence::entity::EntityId;
use valence::prelude::bevy_ecs::system::SystemParam;
use valence::prelude::*;
use valence::protocol::encode::PacketWriter;
use valence::protocol::packets::play::EntityTrackerUpdateS2c;
use valence::protocol::{Encode, RawBytes, VarInt, WritePacket};

use super::active::*;
use crate::anim::DisplayTransform;
use crate::playback::schedule::Tolerance;
use crate::playback::session::{DueCommand, DueSource, NodeUpdate, PlanCache};
use crate::server::display_bands::BandStreams;
use crate::server::events::{CommandSource, EmoteCommandEvent, EmoteDisplay};

/// The scheduler's plans shared between playbacks
/// ([`PlanCache`]), as a resource.
#[derive(Resource, Default)]
pub struct EmotePlans(pub PlanCache);

/// Takes the scheduler's tolerance from `[emotes]` in the configuration,
/// at start-up and after each reload; and after a reload of the emotes,
/// drops the shared plans of Animations no longer loaded or played.
pub(super) fn apply_display_tolerance(
    config: Res<crate::server::config::Config>,
    library: Option<Res<crate::server::emote_library::EmoteLibrary>>,
    mut plans: ResMut<EmotePlans>,
) {
    if config.is_changed() {
        plans.0.set_tolerance(Tolerance {
            translation_blocks: config.emotes.display_tolerance_blocks,
            rotation_degrees: config.emotes.display_tolerance_degrees,
        });
    }
    if library.is_some_and(|library| library.is_changed()) {
        plans.0.forget_unloaded();
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
/// (its model turns the skull itself). Each update goes to the band streams
/// of its bands ([`BandWriter`]).
pub(super) fn write_updates(
    playback: &ActiveEmote,
    updates: &mut Vec<NodeUpdate>,
    displays: &mut DisplayQuery,
    bands: &mut BandWriter,
) {
    for update in updates.drain(..) {
        if let Some(Some(entity)) = playback.displays.get(update.union).copied() {
            let draw = |t: &DisplayTransform| playback.drawn_by_node_display(update.union, t);
            bands.write(displays, entity, &update, draw);
        }
        let twin = playback
            .pack_twins
            .get(update.union)
            .and_then(Option::as_ref);
        // An undressed twin stays at scale 0 until it is dressed.
        if let Some(twin) = twin.filter(|t| t.dressed) {
            bands.write(displays, twin.entity, &update, |t| twin.offset(t));
        }
    }
}

/// Where a display's band updates go: its cell, its playback and its id;
/// and its tracked data, whose spawn fields carry band 0's pose.
type BandRoute = (
    &'static EntityLayerId,
    &'static EmoteDisplay,
    &'static EntityId,
    &'static mut TrackedData,
);

/// Writes display updates into the band streams of the displays' cells
/// ([`crate::server::display_bands`]).
#[derive(SystemParam)]
pub(super) struct BandWriter<'w, 's> {
    routes: Query<'w, 's, BandRoute, Without<Client>>,
    streams: ResMut<'w, BandStreams>,
    server: Res<'w, Server>,
    scratch: Local<'s, Vec<u8>>,
    metadata: Local<'s, TrackedData>,
}

impl BandWriter<'_, '_> {
    /// Writes `update`, drawn by this display as `draw` gives, for its
    /// bands. A display outside a banded cell (its first tick, or cells
    /// off) gets band 0's update the ordinary way, through its components,
    /// for every viewer.
    fn write(
        &mut self,
        displays: &mut DisplayQuery,
        entity: Entity,
        update: &NodeUpdate,
        draw: impl Fn(&DisplayTransform) -> DisplayTransform,
    ) {
        let transform = draw(&update.transform);
        let Ok((layer, display, id, mut tracked)) = self.routes.get_mut(entity) else {
            return;
        };
        let cell = layer.0;
        if !self.streams.has(cell) {
            if update.bands & 1 != 0 {
                write_transform(displays, entity, &transform, update.duration_ticks);
            }
            return;
        };
        if update.bands & 1 != 0 {
            // Band 0's pose is what a newly arrived viewer is spawned with
            // (the cell's catch-up moves it to its own band's).
            set_spawn_transform(
                displays,
                &mut tracked,
                entity,
                &transform,
                update.duration_ticks,
            );
        }
        let previous = update.previous.map(|p| draw(&p));
        let duration = i32::try_from(update.duration_ticks).unwrap_or(i32::MAX);
        let data = &mut *self.metadata;
        data.clear_update_values();
        let duration_changed = update.previous_duration_ticks != update.duration_ticks;
        append_changed(
            data,
            &transform,
            previous.as_ref(),
            0,
            duration_changed.then_some(duration),
        );
        let Some(metadata) = data.update_data() else {
            return;
        };
        let scratch = &mut *self.scratch;
        scratch.clear();
        PacketWriter::new(scratch, self.server.compression_threshold()).write_packet(
            &EntityTrackerUpdateS2c {
                entity_id: VarInt(id.get()),
                metadata: RawBytes(metadata),
            },
        );
        self.streams
            .write(cell, display.owner, update.bands, scratch);
    }
}

/// A display field's 1.20.1 metadata index and type id (valence's
/// generated ones: VarInt 1, Vector3f 26, Quaternionf 27).
type Field = (u8, u8);
const START_INTERPOLATION: Field = (8, 1);
const INTERPOLATION_DURATION: Field = (9, 1);
const TRANSLATION: Field = (10, 26);
const SCALE: Field = (11, 26);
const LEFT_ROTATION: Field = (12, 27);
const RIGHT_ROTATION: Field = (13, 27);

/// Appends a display transformation's metadata: the fields that differ
/// from `previous` (all of them when it is `None`), always
/// `start_interpolation`, and `interpolation_duration` when given (a
/// client keeps the last one it was sent).
pub fn append_changed(
    data: &mut TrackedData,
    transform: &DisplayTransform,
    previous: Option<&DisplayTransform>,
    start_interpolation: i32,
    duration_ticks: Option<i32>,
) {
    let (index, kind) = START_INTERPOLATION;
    data.append_update_value(index, kind, VarInt(start_interpolation));
    if let Some(duration_ticks) = duration_ticks {
        let (index, kind) = INTERPOLATION_DURATION;
        data.append_update_value(index, kind, VarInt(duration_ticks));
    }
    let translation = previous.map(|p| p.translation);
    append_if_changed(data, TRANSLATION, transform.translation, translation);
    append_if_changed(data, SCALE, transform.scale, previous.map(|p| p.scale));
    let left = previous.map(|p| p.left_rotation);
    append_if_changed(data, LEFT_ROTATION, transform.left_rotation, left);
    let right = previous.map(|p| p.right_rotation);
    append_if_changed(data, RIGHT_ROTATION, transform.right_rotation, right);
}

/// Appends `field` set to `now` unless it was `before`.
fn append_if_changed<T: PartialEq + Encode>(
    data: &mut TrackedData,
    (index, kind): Field,
    now: T,
    before: Option<T>,
) {
    if before.as_ref() != Some(&now) {
        data.append_update_value(index, kind, now);
    }
}

/// Sets a display's transformation components without valence sending
/// them (the band streams carry the update), and its spawn fields to them.
fn set_spawn_transform(
    displays: &mut DisplayQuery,
    tracked: &mut TrackedData,
    entity: Entity,
    transform: &DisplayTransform,
    duration_ticks: u32,
) {
    let Ok((mut t, mut l, mut s, mut r, mut start, mut duration)) = displays.get_mut(entity) else {
        return;
    };
    let ticks = i32::try_from(duration_ticks).unwrap_or(i32::MAX);
    // Only what changed: each spawn field written moves the ones after it.
    set_spawn_field(
        tracked,
        &mut t.bypass_change_detection().0,
        TRANSLATION,
        transform.translation,
    );
    set_spawn_field(
        tracked,
        &mut s.bypass_change_detection().0,
        SCALE,
        transform.scale,
    );
    let left = &mut l.bypass_change_detection().0;
    set_spawn_field(tracked, left, LEFT_ROTATION, transform.left_rotation);
    let right = &mut r.bypass_change_detection().0;
    set_spawn_field(tracked, right, RIGHT_ROTATION, transform.right_rotation);
    // A spawn starts at once: `start_interpolation` stays 0.
    start.bypass_change_detection().0 = 0;
    if duration.0 != ticks {
        duration.bypass_change_detection().0 = ticks;
        let (index, kind) = INTERPOLATION_DURATION;
        tracked.insert_init_value(index, kind, VarInt(ticks));
    }
}

/// Sets a component's value to `now`, and its spawn field with it, unless
/// it already is.
fn set_spawn_field<T: PartialEq + Encode + Copy>(
    tracked: &mut TrackedData,
    value: &mut T,
    (index, kind): Field,
    now: T,
) {
    if *value != now {
        *value = now;
        tracked.insert_init_value(index, kind, now);
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
