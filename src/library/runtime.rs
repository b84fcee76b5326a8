//! What playback reads of an Animation besides its rig and Molang: the
//! mode and loop delay, the rotation deadzone, the command events (timeline
//! events in time order, looked up by tick), and each rig node's space and
//! kind with its display fields already decoded.
//!
//! It is taken from the validated file once, when the Animation compiles,
//! so the runtime never reads the file model ([`AnimationFile`]).

use std::ops::RangeInclusive;

use crate::anim::solve::Solvers;
use crate::anim::Rig;
use crate::format::event::{CommandEvent, Events};
use crate::format::nbt_track::NbtKey;
use crate::format::node::{NodeKind, Space};
use crate::format::settings::{PlaybackMode, PlaybackSettings};
use crate::format::AnimationFile;

/// A rig node as playback sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeNode {
    /// The space it inherits from its root.
    pub space: Space,
    /// What it draws (an anchor draws nothing), with typed display fields.
    pub kind: NodeKind,
    /// Its NBT track's keys, with their compounds decoded (empty without
    /// one); the rig node's [`crate::anim::nbt::NbtTrack`] says when each
    /// applies.
    pub nbt: Vec<NbtKey>,
}

/// The parts of an Animation file the runtime needs, by rig node where
/// they belong to a node.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationRuntime {
    /// Mode and loop delay.
    pub playback: PlaybackSettings,
    /// The length of one cycle.
    pub duration_ticks: u32,
    /// The root follows the player's yaw only past this angle.
    pub rotation_deadzone_degrees: f32,
    /// The command events; `timeline` is in time order.
    pub events: Events,
    /// Per rig node ([`Rig::nodes`] order).
    pub nodes: Vec<RuntimeNode>,
    /// Look-at, IK and springs, by rig node ([`super::solvers`]).
    pub solvers: Solvers,
}

impl AnimationRuntime {
    /// Takes what the runtime needs from `file`, whose nodes `rig` was
    /// built from.
    pub fn new(file: &AnimationFile, rig: &Rig) -> Self {
        let nodes = rig
            .nodes
            .iter()
            .map(|rig_node| match file.node(&rig_node.id) {
                Some(node) => RuntimeNode {
                    space: node.space,
                    kind: node.kind.clone(),
                    nbt: file
                        .timeline
                        .tracks
                        .get(&node.id)
                        .and_then(|t| t.nbt.clone())
                        .unwrap_or_default(),
                },
                // Every rig node comes from a file node.
                None => RuntimeNode {
                    space: Space::Initiator,
                    kind: NodeKind::Anchor,
                    nbt: Vec::new(),
                },
            })
            .collect();
        let mut events = file.timeline.events.clone();
        // Validation keeps them in order; the lookup below relies on it.
        events.timeline.sort_by_key(|e| e.time_ticks);
        Self {
            playback: file.settings.playback,
            duration_ticks: file.timeline.duration_ticks,
            rotation_deadzone_degrees: file.settings.rotation_deadzone_degrees,
            events,
            nodes,
            solvers: super::solvers::compile_solvers(&file.metadata.solvers, rig),
        }
    }

    /// The delay a Sequence holds between two cycles of this Animation (a
    /// `loop` Animation's `loop_delay`; `None` for other modes).
    pub fn loop_delay_between_cycles(&self) -> Option<u32> {
        (self.playback.mode == PlaybackMode::Loop).then_some(self.playback.loop_delay_ticks)
    }

    /// The timeline events whose time falls in `range` (the positions a
    /// tick covered), in time order.
    pub fn timeline_events_in(
        &self,
        range: &RangeInclusive<u32>,
    ) -> impl Iterator<Item = &CommandEvent> + '_ {
        let timeline = &self.events.timeline;
        let first = timeline.partition_point(|e| e.time_ticks < *range.start());
        let end = timeline.partition_point(|e| e.time_ticks <= *range.end());
        timeline[first..end.max(first)].iter().map(|e| &e.event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::parse_emote_json;
    use crate::format::EmoteFile;

    fn runtime_of(json: &str) -> AnimationRuntime {
        let report = parse_emote_json(json);
        let Some(EmoteFile::Animation(file)) = report.file else {
            panic!("a valid Animation: {:?}", report.problems);
        };
        let compiled = crate::library::CompiledAnimation::compile(&file).expect("compiles");
        compiled.runtime.clone()
    }

    const ANIMATION: &str = r#"{
        "type": "animation", "schema_version": 4, "id": "test:runtime",
        "metadata": {"name": "Runtime", "description": "A unit test's."},
        "settings": {
            "standalone": true, "cooldown": "0t", "rotation_deadzone": 30,
            "player": {"hidden": false, "stop_conditions": {
                "movement_distance": 0, "jump": false, "submerge": false, "ride": false,
                "damage": false, "attack": false, "game_mode_change": false}},
            "playback": {"mode": "loop", "loop_delay": "5t"}
        },
        "molang": {},
        "nodes": {
            "root": {"type": "anchor", "space": "initiator",
                     "transform": {"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}},
            "cube": {"type": "block_display", "parent": "root",
                     "block_state_snbt": "{Name:\"minecraft:stone\"}",
                     "entity_nbt": "{billboard:\"center\"}",
                     "transform": {"position": [0, 2, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}}
        },
        "timeline": {
            "duration": "20t",
            "tracks": {},
            "events": {
                "timeline": [
                    {"time": "2t", "source": {"type": "server"}, "origin": {"type": "root"}, "commands": ["say two"]},
                    {"time": "2t", "source": {"type": "server"}, "origin": {"type": "root"}, "commands": ["say two again"]},
                    {"time": "7t", "source": {"type": "server"}, "origin": {"type": "root"}, "commands": ["say seven"]}
                ]
            }
        }
    }"#;

    #[test]
    fn settings_and_nodes_come_from_the_file() {
        let runtime = runtime_of(ANIMATION);
        assert_eq!(runtime.playback.mode, PlaybackMode::Loop);
        assert_eq!(runtime.loop_delay_between_cycles(), Some(5));
        assert_eq!(runtime.duration_ticks, 20);
        assert_eq!(runtime.rotation_deadzone_degrees, 30.0);
        assert_eq!(runtime.nodes.len(), 2);
        let NodeKind::Block { common, .. } = &runtime.nodes[1].kind else {
            panic!("the cube is a block display: {:?}", runtime.nodes[1]);
        };
        assert_eq!(
            common.fields.billboard,
            crate::format::display_fields::Billboard::Center
        );
    }

    #[test]
    fn timeline_events_are_found_by_tick_range() {
        let runtime = runtime_of(ANIMATION);
        let said = |range: RangeInclusive<u32>| -> Vec<String> {
            runtime
                .timeline_events_in(&range)
                .flat_map(|e| e.commands.clone())
                .collect()
        };
        assert_eq!(said(0..=1), Vec::<String>::new());
        assert_eq!(said(2..=2), ["say two", "say two again"]);
        assert_eq!(said(0..=19), ["say two", "say two again", "say seven"]);
        assert_eq!(said(3..=7), ["say seven"]);
        assert_eq!(said(8..=19), Vec::<String>::new());
    }
}
