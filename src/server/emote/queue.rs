//! Command events queued for the dispatcher: timeline, start, loop and
//! stop events, with their sources and origins resolved.

use valence::math::{Quat, Vec3};
use valence::prelude::*;

use super::active::*;
use crate::format::event::{CommandEvent, EventSource, OriginAnchor};
use crate::server::events::{CommandSource, EmoteCommandEvent};

/// Runs the `stop` events of the Animation playing now, once.
pub(crate) fn fire_stop(
    playback: &mut ActiveEmote,
    player: Entity,
    out: &mut EventWriter<EmoteCommandEvent>,
) {
    if !playback.current.stop_fired {
        playback.refresh_pose();
        queue_group(playback, EventGroup::Stop, player, out);
        playback.current.stop_fired = true;
    }
}

/// Which event group to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EventGroup {
    Start,
    Loop,
    Stop,
}

/// Queues the commands of `events` for the dispatcher, resolving sources and
/// origins against the Animation playing now.
pub(super) fn queue_events<'a>(
    playback: &ActiveEmote,
    events: impl Iterator<Item = &'a CommandEvent>,
    player: Entity,
    out: &mut EventWriter<EmoteCommandEvent>,
) {
    let rotation = Quat::from_rotation_y(-playback.yaw.yaw_degrees().to_radians());
    let current = &playback.current;
    let union_of = |id: &str| {
        current
            .compiled
            .rig
            .node_index(id)
            .and_then(|i| current.rig_to_union.get(i).copied())
    };
    for event in events {
        let source = match &event.source {
            EventSource::Player => CommandSource::Player(player),
            EventSource::Server => CommandSource::Server,
            EventSource::Node(id) => {
                let entity = union_of(id).and_then(|u| playback.displays.get(u).copied().flatten());
                match entity {
                    Some(entity) => CommandSource::Node {
                        id: id.clone(),
                        entity,
                    },
                    None => continue,
                }
            }
        };
        let base = match &event.origin.anchor {
            OriginAnchor::Root => Vec3::ZERO,
            OriginAnchor::Node(id) => current
                .compiled
                .rig
                .node_index(id)
                .and_then(|i| current.pose.nodes.get(i))
                .map_or(Vec3::ZERO, |p| Vec3::from(p.matrix.translation)),
        };
        let origin = playback.root + (rotation * (base + event.origin.offset)).as_dvec3();
        for command in &event.commands {
            out.send(EmoteCommandEvent {
                playback: Some(player),
                source: source.clone(),
                origin,
                command: command.clone(),
            });
        }
    }
}

/// Queues a whole group of the playing Animation's events.
pub(super) fn queue_group(
    playback: &ActiveEmote,
    group: EventGroup,
    player: Entity,
    out: &mut EventWriter<EmoteCommandEvent>,
) {
    let Some(animation) = playback.current.animation() else {
        return;
    };
    let events = &animation.timeline.events;
    let list = match group {
        EventGroup::Start => &events.start,
        EventGroup::Loop => &events.on_loop,
        EventGroup::Stop => &events.stop,
    };
    queue_events(playback, list.iter(), player, out);
}
