//! The command events a tick runs: timeline, start, loop and stop events
//! of the Animation playing now, with their sources named and their
//! origins placed in the world.

use glam::{DVec3, Quat, Vec3};

use super::PlaybackState;
use crate::format::event::{CommandEvent, EventSource, OriginAnchor};

/// Who runs a due command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DueSource {
    /// The player whose playback it is (the initiator).
    Player,
    /// The server console.
    Server,
    /// A display node (`@s` is its entity).
    Node {
        /// The node id.
        id: String,
        /// Its union index (the server knows its entity).
        union: usize,
    },
}

/// One command an event of the playback runs this tick.
#[derive(Clone, Debug, PartialEq)]
pub struct DueCommand {
    /// Who runs it.
    pub source: DueSource,
    /// Where it runs (`~ ~ ~`), in world coordinates.
    pub origin: DVec3,
    /// The command, without a leading slash.
    pub command: String,
}

/// Which event group to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EventGroup {
    Start,
    Loop,
    Stop,
}

impl PlaybackState {
    /// Queues the `stop` events of the Animation playing now, once (a
    /// playback that ends early runs them too).
    pub fn fire_stop(&mut self, due: &mut Vec<DueCommand>) {
        if !self.current.stop_fired {
            self.refresh_pose();
            queue_group(self, EventGroup::Stop, due);
            self.current.stop_fired = true;
        }
    }

    /// Queues the commands of `events`, resolving sources and origins
    /// against the Animation playing now.
    pub(super) fn queue_events<'a>(
        &self,
        events: impl Iterator<Item = &'a CommandEvent>,
        due: &mut Vec<DueCommand>,
    ) {
        let rotation = Quat::from_rotation_y(-self.yaw.yaw_degrees().to_radians());
        let current = &self.current;
        let rig = &current.compiled.rig;
        for event in events {
            let source = match &event.source {
                EventSource::Player => DueSource::Player,
                EventSource::Server => DueSource::Server,
                EventSource::Node(id) => {
                    let union = rig
                        .node_index(id)
                        .and_then(|i| current.rig_to_union.get(i).copied());
                    match union {
                        Some(union) => DueSource::Node {
                            id: id.clone(),
                            union,
                        },
                        None => continue,
                    }
                }
            };
            let base = match &event.origin.anchor {
                OriginAnchor::Root => Vec3::ZERO,
                OriginAnchor::Node(id) => rig
                    .node_index(id)
                    .and_then(|i| current.pose.nodes.get(i))
                    .map_or(Vec3::ZERO, |p| Vec3::from(p.matrix.translation)),
            };
            let origin = self.root
                + self.walk_offset.as_dvec3()
                + (rotation * (base + event.origin.offset)).as_dvec3();
            for command in &event.commands {
                due.push(DueCommand {
                    source: source.clone(),
                    origin,
                    command: command.clone(),
                });
            }
        }
    }
}

/// Queues a whole group of the playing Animation's events.
pub(super) fn queue_group(playback: &PlaybackState, group: EventGroup, due: &mut Vec<DueCommand>) {
    let events = &playback.current.runtime().events;
    let list = match group {
        EventGroup::Start => &events.start,
        EventGroup::Loop => &events.on_loop,
        EventGroup::Stop => &events.stop,
    };
    playback.queue_events(list.iter(), due);
}
