//! What the NBT tracks have built on each display of a playback, and the
//! changes a tick makes for the server to write.
//!
//! Every union node with a display has an [`NbtState`]: its own fields and
//! content, as the union's first Animation declares them (what its entity
//! was spawned with), with the keys of the current cycle merged in. Each
//! tick on the timeline, after the pose, `PlaybackState::apply_nbt`:
//! - at the start of a cycle (each loop, each Sequence segment) puts every
//!   display back to its own state, so the keys of a track start again
//!   from the node's own, and a node the playing Animation has no track
//!   for shows what it was spawned with;
//! - applies the keys due ([`NbtPlayhead::step`](crate::library::NbtPlayhead::step)),
//!   merging the option each chose into the node (and into its partner
//!   copy, when a two-player Sequence mirrors it);
//! - records an [`NbtChange`] for each display whose state differs from
//!   the one before the tick; the server writes those, field by field.
//!
//! Keys are events: a tick whose pose the schedule draws without sampling
//! still applies them, and a held pose (a loop delay, the end of `hold`, a
//! Sequence `wait`) applies none.

use super::{PlaybackState, UnionNodes};
use crate::anim::SampleError;
use crate::format::nbt_track::NbtState;
use crate::library::NbtEvent;

/// One display's NBT state changed this tick.
#[derive(Clone, Debug, PartialEq)]
pub struct NbtChange {
    /// The union node (it has a display).
    pub union: usize,
    /// What it was.
    pub before: NbtState,
    /// What it is now.
    pub after: NbtState,
}

/// The NBT states of a playback's displays, and this tick's changes.
#[derive(Clone, Debug, Default)]
pub struct UnionNbt {
    /// Per union node (`None`: an anchor).
    pub states: Vec<Option<NbtState>>,
    /// What the last tick changed (see [`UnionNbt::take_changes`]).
    changes: Vec<NbtChange>,
    /// The tick's key events (a buffer kept from tick to tick).
    events: Vec<NbtEvent>,
}

impl UnionNbt {
    /// Every display of `union` at its own state.
    pub fn new(union: &UnionNodes) -> Self {
        Self {
            states: (0..union.len()).map(|u| own_state(union, u)).collect(),
            ..Self::default()
        }
    }

    /// True when the last tick changed a display.
    pub fn has_changes(&self) -> bool {
        !self.changes.is_empty()
    }

    /// The changes of the last tick, for the server to write; taken once.
    pub fn take_changes(&mut self) -> std::vec::Drain<'_, NbtChange> {
        self.changes.drain(..)
    }

    /// Records `union`'s state before the tick changes it (once a tick).
    fn touch(&mut self, union: usize) {
        if self.changes.iter().any(|c| c.union == union) {
            return;
        }
        if let Some(Some(state)) = self.states.get(union) {
            self.changes.push(NbtChange {
                union,
                before: state.clone(),
                after: state.clone(),
            });
        }
    }
}

/// A display's own state (`None` for anchors).
fn own_state(union: &UnionNodes, index: usize) -> Option<NbtState> {
    let common = union.kinds.get(index)?.display()?;
    Some(NbtState::of_node(common.fields))
}

impl PlaybackState {
    /// Applies this tick's NBT keys (the timeline is at `position_ticks`;
    /// `cycle_started`: a cycle begins), recording the changes (see the
    /// module docs).
    pub(super) fn apply_nbt(
        &mut self,
        position_ticks: u32,
        cycle_started: bool,
    ) -> Result<(), SampleError> {
        let nbt = &mut self.nbt;
        nbt.changes.clear();
        if cycle_started {
            for union in 0..nbt.states.len() {
                let own = own_state(&self.union, union);
                if nbt.states[union] != own {
                    nbt.touch(union);
                    nbt.states[union] = own;
                }
            }
        }
        let mut events = std::mem::take(&mut nbt.events);
        events.clear();
        let current = &mut self.current;
        let stepped = current.nbt.step(
            &current.compiled,
            &mut current.molang,
            position_ticks,
            cycle_started,
            &mut events,
        );
        for event in &events {
            let (rig_node, patch) = match *event {
                NbtEvent::Restart { rig_node } => (rig_node, None),
                NbtEvent::Apply {
                    rig_node,
                    key,
                    option,
                } => {
                    let patch = current
                        .compiled
                        .runtime
                        .nodes
                        .get(rig_node)
                        .and_then(|n| n.nbt.get(key))
                        .and_then(|k| k.value.options().get(option));
                    (rig_node, patch)
                }
            };
            let slots = [
                current.rig_to_union.get(rig_node),
                current.rig_to_mirror.get(rig_node),
            ];
            for &union in slots.into_iter().flatten() {
                if nbt.states.get(union).is_none_or(Option::is_none) {
                    continue; // no such slot (no mirror), or an anchor
                }
                nbt.touch(union);
                let state = &mut nbt.states[union];
                match patch {
                    Some(patch) => {
                        if let Some(state) = state {
                            state.merge(patch);
                        }
                    }
                    None => *state = own_state(&self.union, union),
                }
            }
        }
        nbt.events = events;
        // Only real changes are kept.
        let states = &nbt.states;
        nbt.changes.retain_mut(|change| {
            match states.get(change.union).cloned().flatten() {
                Some(now) => change.after = now,
                None => return false,
            }
            change.after != change.before
        });
        stepped
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use glam::DVec3;
    use serde_json::Value;
    use uuid::Uuid;

    use super::*;
    use crate::format::display_fields::Billboard;
    use crate::format::EmoteId;
    use crate::library::Library;
    use crate::playback::session::{prepare, PlanCache, PlayRequest};
    use crate::playback::Cooldowns;

    const FIXTURE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/nbt_tracks/flowers.json"
    );

    /// A playback of `test:nbt_flowers` as written, or with `edit` made to
    /// it (then from a folder of its own).
    fn flowers(edit: Option<fn(&mut Value)>) -> PlaybackState {
        let folder = match edit {
            None => PathBuf::from(FIXTURE)
                .parent()
                .expect("a folder")
                .to_owned(),
            Some(edit) => {
                let mut file: Value =
                    serde_json::from_str(&std::fs::read_to_string(FIXTURE).expect("read"))
                        .expect("JSON");
                edit(&mut file);
                let dir =
                    std::env::temp_dir().join(format!("emoted-session-nbt-{}", std::process::id()));
                std::fs::create_dir_all(&dir).expect("a folder");
                std::fs::write(dir.join("flowers.json"), file.to_string()).expect("write");
                dir
            }
        };
        let library = Library::load(&[folder]).library;
        let id = EmoteId::parse("test:nbt_flowers").expect("an id");
        let request = PlayRequest {
            emote: &id,
            bypass: false,
            player: Uuid::from_u128(3),
            now_tick: 0,
            position: DVec3::ZERO,
            yaw_degrees: 0.0,
            molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
        };
        prepare(&request, &library, &Cooldowns::default())
            .expect("plays")
            .state
    }

    /// The item a key put on a display, by name (`Poppy`).
    fn item(state: &NbtState) -> Option<String> {
        state.item.as_ref().map(|stack| format!("{:?}", stack.item))
    }

    /// Plays `ticks` ticks as the server does (planning each cycle); per
    /// tick with a change, the flower's item and glow after it, and
    /// whether that tick skipped sampling.
    fn play(state: &mut PlaybackState, ticks: u32) -> Vec<(u32, Option<String>, bool, bool)> {
        let flower = state.union.ids.iter().position(|id| id == "flower");
        let mut cache = PlanCache::default();
        let (mut due, mut updates) = (Vec::new(), Vec::new());
        let mut out = Vec::new();
        for tick in 0..ticks {
            let outcome = state.advance(u64::from(tick), &mut due);
            assert_eq!(outcome.end, None, "tick {tick}");
            state.plan_new_cycle(&mut cache);
            state.pose_updates(0.0, i64::from(tick), &mut updates);
            let quiet = state.stale_pose.is_some();
            for change in state.nbt.take_changes() {
                assert_eq!(Some(change.union), flower, "only the flower has keys");
                assert_ne!(change.before, change.after);
                out.push((
                    tick,
                    item(&change.after),
                    change.after.fields.glowing,
                    quiet,
                ));
            }
        }
        out
    }

    #[test]
    fn keys_change_the_flower_at_their_ticks_and_each_cycle_picks_again() {
        let mut state = flowers(None);
        let changes: Vec<(u32, Option<String>, bool)> = play(&mut state, 61)
            .into_iter()
            .map(|(tick, item, glowing, _)| (tick, item, glowing))
            .collect();
        let expected = [
            (0, "Poppy", false),
            (10, "Poppy", true),
            (15, "Diamond", true),
            (20, "Dandelion", false),
            (30, "Dandelion", true),
            (35, "Diamond", true),
            (40, "BlueOrchid", false),
            (50, "BlueOrchid", true),
            (55, "Diamond", true),
            (60, "Poppy", false),
        ]
        .map(|(tick, item, glowing)| (tick, Some(item.to_owned()), glowing));
        assert_eq!(changes, expected);
        // Keys merge into the node's own fields (`entity_nbt`).
        let flower = state.union.ids.iter().position(|id| id == "flower");
        let now = state.nbt.states[flower.expect("flower")].as_ref();
        assert_eq!(now.map(|s| s.fields.billboard), Some(Billboard::Center));
    }

    #[test]
    fn keys_apply_on_ticks_the_schedule_draws_without_sampling() {
        // Without the selector by loop count every cycle is alike, so the
        // cycle is planned and its quiet ticks skip sampling.
        let mut state = flowers(Some(|file| {
            file["timeline"]["tracks"]["flower"]["nbt"][0]["value"] =
                Value::from("{item:{id:'minecraft:poppy',count:1},Glowing:0b}");
        }));
        assert!(state.current.is_position_pure());
        let changes = play(&mut state, 41);
        let ticks: Vec<u32> = changes.iter().map(|c| c.0).collect();
        // The poppy is already there when the second cycle starts: only
        // the glow and the diamond go back, at 20.
        assert_eq!(ticks, [0, 10, 15, 20, 30, 35, 40]);
        assert!(
            changes.iter().any(|&(_, _, _, quiet)| quiet),
            "some key fell on a quiet tick: {changes:?}"
        );
        assert_eq!(changes[3].1.as_deref(), Some("Poppy"));
        assert!(!changes[3].2, "the glow is reset at 20");
    }
}
