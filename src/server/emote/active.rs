//! What a playing emote is on the player entity: [`ActiveEmote`], its
//! display entities and held-item and stop-condition state, and the
//! wall clock playbacks read.

use std::collections::HashMap;

use valence::prelude::*;

use super::duo_state::*;
use crate::anim::DisplayTransform;
use crate::format::node::{Arm, ItemContent, NodeKind, Participant, Space};
use crate::format::{EmoteFile, EmoteId};
use crate::pack::slices::{animation_slices, NodeSlice};
use crate::playback::playing::{mirrored_source, InFlight};
use crate::playback::session::PlaybackState;
use crate::playback::Cooldowns;
use crate::playback::{PlayerObservation, StopMonitor, StopReason};

/// An entity layer nobody views: a player whose emote sets `player.hidden`
/// is moved there for the playback, so no viewer draws the player's model or
/// equipment; the displays stay in the player's own layer.
#[derive(Resource, Clone, Copy, Debug)]
pub struct HiddenPlayersLayer(pub Entity);

pub(super) fn create_hidden_players_layer(mut commands: Commands, server: Res<Server>) {
    let layer = commands.spawn(EntityLayer::new(&server)).id();
    commands.insert_resource(HiddenPlayersLayer(layer));
}

/// The emote a player is playing: one Animation, or a Sequence of them.
///
/// The playback itself is pure state ([`PlaybackState`]); this adds the
/// entities it drives. Every node any of its Animations has (the union, by
/// node id) gets its display entity once, when the playback starts; nodes
/// the playing Animation lacks are hidden.
#[derive(Component)]
pub struct ActiveEmote {
    /// The playback.
    pub state: PlaybackState,
    /// Display entity per union node (None for anchors).
    pub(super) displays: Vec<Option<Entity>>,
    /// For `player.hidden`: the layer to put the player back in.
    pub(super) restore_layer: Option<Entity>,
    /// Two-player state: `None` for a solo playback.
    pub(crate) duo: Option<Duo>,
    /// Item displays that show what a participant holds.
    pub(super) hands: Vec<HandDisplay>,
    /// Skin-bound item displays: which part they show and whose skin.
    pub(super) skins: Vec<SkinDisplay>,
    /// Per union node: the display drawn through the resource pack for
    /// viewers who loaded it, when the node is skin-bound and a pack is
    /// served (`displays` then holds the fallback, a whole head).
    pub(super) pack_twins: Vec<Option<PackTwin>>,
    /// Per union node: true for a skin-bound node, whose display (the
    /// whole head) is turned half a turn about Y ([`face_the_rig`]).
    pub(super) skin_bound: Vec<bool>,
    /// The participants the skins were last dressed for (initiator, partner).
    pub(super) skins_dressed: Option<(Entity, Option<Entity>)>,
    /// True when every Animation it plays has a bone form: modded viewers
    /// see the initiator's body in bones ([`super::bone_view`]).
    pub(super) bone_drawn: bool,
}

/// A skin-bound node's head turned half a turn about its Y axis, applied
/// first (inside the node's own rotation and scale).
///
/// A `player_head` in an item display faces −Z: the skull renderer draws an
/// item skull facing +Z and the item display turns every item half a turn
/// before drawing it. A rig faces +Z (yaw 0 looks along +Z), so a head
/// drawn as it comes would show its face on the back. The pack's slice
/// models turn their skull back the same way ([`crate::pack::models`]),
/// so a skin-bound node faces the rig's way for every viewer, with the pack
/// or without. The skull's box is centred on the node's Y axis, so the turn
/// moves no pixel of the box, only which face is in front.
pub(super) fn face_the_rig(transform: &DisplayTransform) -> DisplayTransform {
    let mut turned = *transform;
    turned.right_rotation =
        transform.right_rotation * valence::math::Quat::from_rotation_y(std::f32::consts::PI);
    turned
}

/// A skin-bound node: the rows of its part it shows and whose skin.
#[derive(Clone, Debug)]
pub(super) struct SkinDisplay {
    /// Union node index.
    pub(super) union: usize,
    /// Whose skin it wears.
    pub(super) participant: Participant,
    /// Its part and rows (the slicing rule of [`crate::pack::slices`]).
    pub(super) slice: NodeSlice,
}

/// The pack-drawn display of a skin-bound node.
#[derive(Clone, Copy, Debug)]
pub(super) struct PackTwin {
    /// The display entity.
    pub(super) entity: Entity,
    /// How far below the node it is drawn, `512·k` for its slice id k
    /// (0 until it is dressed): the pack's shader reads k from it and
    /// draws the slice back in place.
    pub(super) offset_blocks: f32,
    /// Whether it wears its slice's head. An undressed twin (its wearer
    /// not known yet) stays at scale 0 and gets no update.
    pub(super) dressed: bool,
}

impl SkinDisplay {
    /// The player whose skin it wears: the initiator, or the partner once
    /// there is one.
    pub(super) fn worn_by(&self, initiator: Entity, partner: Option<Entity>) -> Option<Entity> {
        match self.participant {
            Participant::Initiator => Some(initiator),
            Participant::Partner => partner,
        }
    }
}

impl PackTwin {
    /// `transform` moved down by the twin's offset.
    pub(super) fn offset(&self, transform: &DisplayTransform) -> DisplayTransform {
        let mut moved = *transform;
        moved.translation.y -= self.offset_blocks;
        moved
    }

    /// Where the twin is drawn when it is dressed or moves to another
    /// window: its node's pose as last sent, moved down by its offset, or
    /// for a node never sent yet scale 0 at the origin of its window (so
    /// the node's first update moves it within the window).
    pub(super) fn placed(&self, last_sent: Option<DisplayTransform>) -> DisplayTransform {
        self.offset(&last_sent.unwrap_or(crate::playback::session::sent::UNSENT))
    }
}

/// An `item_source: participant_hand` display and what it shows now.
#[derive(Clone, Debug)]
pub(super) struct HandDisplay {
    /// Union node index.
    pub(super) union: usize,
    /// Which hand (right is the main hand, left the off hand).
    pub(super) arm: Arm,
    /// A partner node (or a partner copy): follows the partner's hands.
    pub(super) partner: bool,
    /// The stack last shown.
    pub(super) shown: Option<ItemStack>,
}

/// Put this on a player who rides something: playbacks whose `ride` stop
/// condition is on stop. emoted's default world has nothing to ride; a
/// host game that adds mounts sets it.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Riding;

/// The stop conditions watched on one participant of a playback: what was
/// observed since the last tick, checked and reset every tick.
#[derive(Component)]
pub struct StopWatch {
    pub(super) monitor: StopMonitor,
    pub(super) observed: PlayerObservation,
    /// Ticks checked so far (a game mode "change" on the first is the join).
    pub(super) age_ticks: u64,
}

impl StopWatch {
    /// A jump the server saw other than by the player's movement: a
    /// seated player's jump key (the emote camera's seat).
    pub fn observe_jump(&mut self) {
        self.observed.jumped = true;
    }

    /// Watches `conditions` for a participant standing at `position`.
    pub fn new(conditions: crate::format::settings::StopConditions, position: DVec3) -> Self {
        Self {
            monitor: StopMonitor::new(conditions, [position.x, position.z]),
            observed: PlayerObservation {
                horizontal_position: [position.x, position.z],
                ..Default::default()
            },
            age_ticks: 0,
        }
    }

    /// Checks this tick's observations and starts the next tick's.
    pub fn check(&mut self) -> Option<StopReason> {
        let reason = self.monitor.check(&self.observed);
        self.observed = PlayerObservation {
            horizontal_position: self.observed.horizontal_position,
            ..Default::default()
        };
        self.age_ticks += 1;
        reason
    }
}

impl ActiveEmote {
    /// The playback of `state`, before its displays are spawned.
    pub(super) fn new(state: PlaybackState, duo: Option<Duo>) -> Self {
        let union = &state.union;
        let hands = union
            .kinds
            .iter()
            .enumerate()
            .filter_map(|(index, kind)| match kind {
                NodeKind::Item {
                    content: ItemContent::ParticipantHand(arm),
                    ..
                } => Some(HandDisplay {
                    union: index,
                    arm: *arm,
                    partner: union.spaces[index] == Space::Partner,
                    shown: None,
                }),
                _ => None,
            })
            .collect();
        let slices = node_slices(&state);
        let skins = union
            .skin_bindings()
            .into_iter()
            .filter_map(|(union_index, participant)| {
                let (file_id, _) = mirrored_source(&union.ids[union_index]);
                let slice = slices.get(file_id)?.clone();
                Some(SkinDisplay {
                    union: union_index,
                    participant,
                    slice,
                })
            })
            .collect::<Vec<SkinDisplay>>();
        let mut skin_bound = vec![false; union.kinds.len()];
        for skin in &skins {
            if let Some(bound) = skin_bound.get_mut(skin.union) {
                *bound = true;
            }
        }
        Self {
            skins,
            skin_bound,
            pack_twins: Vec::new(),
            hands,
            state,
            displays: Vec::new(),
            restore_layer: None,
            duo,
            skins_dressed: None,
            bone_drawn: false,
        }
    }

    /// Whether modded viewers see the initiator's body in bones rather
    /// than displays (the module docs of `bone_view`).
    pub fn is_bone_drawn(&self) -> bool {
        self.bone_drawn
    }

    /// The matched partner of a two-player Sequence.
    pub fn partner(&self) -> Option<Entity> {
        self.duo.as_ref().and_then(Duo::partner)
    }

    /// Where a two-player Sequence is (`None` for a solo playback).
    pub fn duo_stage(&self) -> Option<DuoStage> {
        self.duo.as_ref().map(Duo::stage)
    }

    /// The emote id (an Animation or a Sequence).
    pub fn emote(&self) -> &EmoteId {
        &self.state.emote
    }

    /// The display entities of this playback (the pack-drawn ones too).
    pub fn display_entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.displays
            .iter()
            .flatten()
            .copied()
            .chain(self.pack_twins.iter().flatten().map(|twin| twin.entity))
    }

    /// Whether `display` is one of this playback's display entities.
    pub fn owns(&self, display: Entity) -> bool {
        self.displays.contains(&Some(display))
            || self
                .pack_twins
                .iter()
                .flatten()
                .any(|twin| twin.entity == display)
    }

    /// The update of more than one tick that band `band`'s viewers may
    /// still be interpolating for `display`, if any (it may have finished:
    /// compare its tick and duration with the server's tick).
    pub fn in_flight_of(&self, display: Entity, band: usize) -> Option<InFlight> {
        let (union, drawn) = self.drawing_of(display)?;
        let flight = self.state.sent.flight(union, band)?;
        Some(flight.map(|t| drawn.draw(self, union, t)))
    }

    /// The node `display` draws and how (its own display or a dressed
    /// pack twin; an undressed twin is at scale 0 until it is dressed).
    fn drawing_of(&self, display: Entity) -> Option<(usize, DrawnBy)> {
        if let Some(union) = self.displays.iter().position(|d| *d == Some(display)) {
            return Some((union, DrawnBy::NodeDisplay));
        }
        self.pack_twins
            .iter()
            .enumerate()
            .find_map(|(union, twin)| Some((union, (*twin)?)).filter(|(_, t)| t.entity == display))
            .filter(|(_, twin)| twin.dressed)
            .map(|(union, twin)| (union, DrawnBy::Twin(twin)))
    }

    /// What node `union`'s own display (the head, for a skin-bound node)
    /// is sent for the node's pose `transform`: the pose, turned to face
    /// the rig for a skin-bound head ([`face_the_rig`]). Its pack-drawn
    /// twin is sent [`PackTwin::offset`] instead.
    pub(super) fn drawn_by_node_display(
        &self,
        union: usize,
        transform: &DisplayTransform,
    ) -> DisplayTransform {
        if self.skin_bound.get(union).copied().unwrap_or(false) {
            face_the_rig(transform)
        } else {
            *transform
        }
    }

    /// The validated file this playback started from.
    pub fn file(&self) -> &EmoteFile {
        &self.state.file
    }

    /// Every Animation file the playback may play (for a Sequence, those it
    /// references), by id.
    pub fn animation_files(&self) -> impl Iterator<Item = (&EmoteId, &EmoteFile)> + '_ {
        self.state.animation_files()
    }

    /// The id of the Animation playing now (for a Sequence, its current step's).
    pub fn current_animation(&self) -> &EmoteId {
        self.state.current_animation()
    }
}

/// Each skin-bound node of the playback's Animations with its part and
/// rows, by node id (the first Animation that has the node decides).
fn node_slices(state: &PlaybackState) -> HashMap<String, NodeSlice> {
    let mut slices = HashMap::new();
    for (_, file) in state.animation_files() {
        if let EmoteFile::Animation(animation) = file {
            for slice in animation_slices(animation) {
                slices.entry(slice.node_id.clone()).or_insert(slice);
            }
        }
    }
    slices
}

/// Replaces the wall clock that `server_sync` follows with the server's own
/// tick counter plus `start_tick`: for runs that tick faster than real time
/// (`emoted loadtest`), where the real wall clock would barely move.
#[derive(Resource, Clone, Copy, Debug)]
pub struct SimulatedWallClock {
    /// The wall tick at server tick 0.
    pub start_tick: u64,
}

/// The server tick counter used for cooldowns.
pub(super) fn now_tick(server: &Server) -> u64 {
    u64::try_from(server.current_tick()).unwrap_or(0)
}

/// How display transformations are sent.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DisplayUpdatePolicy {
    /// One update per stretch the client can interpolate within tolerance
    /// ([`crate::playback::schedule`]), per-tick where it cannot.
    #[default]
    Scheduled,
    /// Every changed node every tick, with a one-tick interpolation (the
    /// naive baseline `emoted loadtest --per-tick` measures).
    PerTick,
}

/// Cooldowns by player UUID and emote id.
#[derive(Resource, Default)]
pub struct EmoteCooldowns(pub Cooldowns<Uuid, EmoteId>);

#[cfg(test)]
mod tests {
    use valence::math::{Quat, Vec3};

    use super::*;

    #[test]
    fn a_turned_head_faces_plus_z_and_keeps_its_box() {
        let node = DisplayTransform {
            translation: Vec3::new(0.3, 1.2, -0.1),
            left_rotation: Quat::from_rotation_x(0.4),
            scale: Vec3::new(0.46875, 1.40625, 0.46875),
            right_rotation: Quat::from_rotation_z(0.2),
        };
        let (drawn, turned) = (node.to_matrix(), face_the_rig(&node).to_matrix());
        // The centre of the skull's face (the item display draws it on −Z)
        // ends where the node's +Z face is.
        let face = Vec3::new(0.0, -0.25, -0.25);
        let front = Vec3::new(0.0, -0.25, 0.25);
        assert!(turned
            .transform_point3(face)
            .abs_diff_eq(drawn.transform_point3(front), 1e-5));
        // Every corner of the box lands on a corner of the same box.
        for corner in [
            Vec3::new(0.25, 0.0, 0.25),
            Vec3::new(-0.25, -0.5, 0.25),
            Vec3::new(0.25, -0.5, -0.25),
        ] {
            let mirrored = Vec3::new(-corner.x, corner.y, -corner.z);
            assert!(turned
                .transform_point3(corner)
                .abs_diff_eq(drawn.transform_point3(mirrored), 1e-5));
        }
    }
}

/// Which of a node's displays draws it ([`ActiveEmote::in_flight_of`]).
#[derive(Clone, Copy)]
enum DrawnBy {
    /// The node's own display.
    NodeDisplay,
    /// Its pack-drawn twin.
    Twin(PackTwin),
}

impl DrawnBy {
    /// What this display is sent for node `union`'s pose `transform`.
    fn draw(
        self,
        playback: &ActiveEmote,
        union: usize,
        transform: &DisplayTransform,
    ) -> DisplayTransform {
        match self {
            DrawnBy::NodeDisplay => playback.drawn_by_node_display(union, transform),
            DrawnBy::Twin(twin) => twin.offset(transform),
        }
    }
}
