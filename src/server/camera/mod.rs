//! The emote camera (issue 29): a vanilla player who plays an emote sees
//! it, from a camera the server flies for them alone.
//!
//! # The model
//! While a player's emote plays, an [`EmoteCamera`] on the player holds
//! its [`Flight`] (the geometry, pure: [`crate::playback::camera`]) and
//! two entities in an entity layer only that player sees
//! ([`PrivateLayer`]): the camera and the seat ([`rig`]). Every tick the
//! flight gives the camera's pose from the emote's shots (or the orbit
//! the player steers with the mouse), the body (the emote's root and its
//! yaw, held while the camera flies) and the world's blocks, and the
//! camera entity is moved there.
//!
//! # Who gets one
//! A camera starts the tick after a playback appears, when all of these
//! hold:
//! - `[camera] enabled`, and `allow_in_pvp` or a player who cannot be
//!   hurt (creative or spectator mode);
//! - the emote does not refuse one (`metadata.emoted.camera: false`);
//! - the player did not choose `/emote camera off`
//!   ([`PlayerChoices::camera_off`]);
//! - the client is vanilla: a modded client ([`BoneViewer`], Emotecraft or
//!   `emoted:animation`) moves its own camera;
//! - the emote is not an idle emote: a camera that takes the view of a
//!   player who is away would greet them with it.
//!
//! The partner of a two-player Sequence gets none yet.
//!
//! # While it flies
//! The player is seated ([`CameraFlying`] marks them): their look steers
//! the orbit and does not turn the emote (the rotation deadzone holds the
//! body's yaw), and their clicks at entities do nothing (no attack, no
//! stop condition). Shift asks to leave a seat: it stops the emote, as
//! `/emote stop` does; the jump key is a jump for the emote's `jump` stop
//! condition. A player the server moves (`/tp`, an event command) keeps
//! their emote, as without a camera: they are unseated before the move
//! reaches the client, the seat follows them, and they are seated again
//! the next tick (the camera keeps filming the body where it plays).
//!
//! # The end
//! Every playback's end is an [`EmoteEndedEvent`]: the camera is handed
//! back ([`rig::hand_back`]) before its entities are removed, in the same
//! tick, for every reason. An emote replaced by another keeps the camera
//! and starts the new one's shots (or hands back if the new emote wants
//! none). A player who leaves takes nothing with them: a safety net
//! removes camera parts and private layers whose owner is gone.

mod framing;
pub mod rig;

use std::collections::HashSet;

use valence::abilities::PlayerAbilitiesFlags;
use valence::entity::{EntityId, HeadYaw};
use valence::event_loop::PacketEvent;
use valence::prelude::*;
use valence::protocol::packets::play::PlayerInputC2s;

pub use rig::{CameraPart, CAMERA_EYE_HEIGHT_BLOCKS};

use self::framing::{frame_of, look_degrees, wanted_shots, LayerBlocks, Player};
use crate::format::node::Participant;
use crate::playback::camera::flight::Flight;
use crate::server::config::Config;
use crate::server::emote::{ActiveEmote, EmotePartner, StopWatch};
use crate::server::events::{
    add_shared_events, BoneViewer, CameraFlying, EmoteEndedEvent, EmotePlaybackSet, EndReason,
    StopEmoteRequest,
};
use crate::server::idle::IdleWatch;
use crate::server::storage::PlayerChoices;

/// Flies emote cameras: starts, moves and hands them back.
pub struct EmoteCameraPlugin;

impl Plugin for EmoteCameraPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app).add_systems(
            Update,
            (
                end_cameras,
                start_cameras,
                fly_cameras,
                read_seat_input,
                remove_orphan_parts,
            )
                .chain()
                .after(EmotePlaybackSet),
        );
    }
}

/// A player's own entity layer (their camera and seat live there), made
/// for their first camera and kept while they are online.
#[derive(Component, Clone, Copy, Debug)]
pub struct PrivateLayer(pub Entity);

/// On a private layer: whose it is.
#[derive(Component, Clone, Copy, Debug)]
struct PrivateLayerOf(Entity);

/// A player's emote camera, from its start to its release.
#[derive(Component)]
pub struct EmoteCamera {
    flight: Flight,
    /// Whose playback it films (the player's own, or, for the partner of
    /// a two-player Sequence, the initiator's).
    filming: Entity,
    /// The player's part in it.
    role: Participant,
    /// The camera entity.
    pub camera: Entity,
    /// The seat entity.
    pub seat: Entity,
    /// Ticks since the camera (or the emote it films) started.
    ticks: u32,
    /// The player is seated and sees through the camera.
    handed_over: bool,
    /// The player's feet when seated.
    seated_at: DVec3,
    /// The server moved the player: seat them again this tick.
    reseat: bool,
    /// The emote was replaced: film the new one (or hand back).
    restart: bool,
    /// A cut's fresh camera entity, spawned last tick: the client looks
    /// through it this tick and the old one goes.
    cut_to: Option<Entity>,
}

impl EmoteCamera {
    /// True once the player sees through the camera.
    pub fn is_handed_over(&self) -> bool {
        self.handed_over
    }
}

/// Hands the view back (when it was handed over and the client is still
/// here) and removes the camera.
fn release(
    commands: &mut Commands,
    player: Entity,
    camera: &EmoteCamera,
    back: Option<Returning<'_>>,
    ids: &Query<&EntityId>,
) {
    if let (true, Some(mut back), Ok(seat_id)) = (camera.handed_over, back, ids.get(camera.seat)) {
        rig::hand_back(back.client, seat_id.get(), *back.mode);
        // The client's own mode switch left its abilities its own way:
        // valence sends the server's again.
        back.abilities.set_changed();
    }
    for part in [camera.camera, camera.seat]
        .into_iter()
        .chain(camera.cut_to)
    {
        if let Some(mut e) = commands.get_entity(part) {
            e.insert(Despawned);
        }
    }
    if let Some(mut e) = commands.get_entity(player) {
        e.remove::<(EmoteCamera, CameraFlying)>();
    }
}

/// What a hand-back needs of the player: the client, their real game
/// mode, and their abilities (resent).
struct Returning<'a> {
    client: &'a mut Client,
    mode: &'a GameMode,
    abilities: Mut<'a, PlayerAbilitiesFlags>,
}

/// Players as [`end_cameras`] reads them.
type EndingPlayers<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut EmoteCamera,
        Option<(
            &'static mut Client,
            &'static GameMode,
            &'static mut PlayerAbilitiesFlags,
        )>,
    ),
>;

/// Every ended playback hands its camera back, in the tick it ended; a
/// replaced one keeps it for the next emote.
fn end_cameras(
    mut commands: Commands,
    mut ended: EventReader<EmoteEndedEvent>,
    mut players: EndingPlayers,
    ids: Query<&EntityId>,
) {
    let mut released = HashSet::new();
    for end in ended.iter() {
        for player in std::iter::once(end.client).chain(end.partner) {
            if released.contains(&player) {
                continue;
            }
            let Ok((mut camera, client)) = players.get_mut(player) else {
                continue;
            };
            if end.reason == EndReason::Replaced && player == end.client {
                camera.restart = true;
                continue;
            }
            let back = client.map(|(client, mode, abilities)| Returning {
                client: client.into_inner(),
                mode,
                abilities,
            });
            release(&mut commands, player, &camera, back, &ids);
            released.insert(player);
        }
    }
}

/// Players as [`start_cameras`] reads them.
type StartingPlayers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Position,
        &'static Look,
        &'static GameMode,
        &'static VisibleChunkLayer,
        &'static mut VisibleEntityLayers,
        Option<&'static PrivateLayer>,
        Option<&'static PlayerChoices>,
        Option<&'static IdleWatch>,
        Option<&'static BoneViewer>,
        Option<&'static EmotePartner>,
    ),
    (With<Client>, Without<EmoteCamera>),
>;

/// The playback a player takes part in: their own, or as the matched
/// partner of a two-player Sequence, the initiator's.
fn filmed(
    player: Entity,
    partner: Option<&EmotePartner>,
    playbacks: &Query<&mut ActiveEmote>,
) -> Option<(Entity, Participant)> {
    if playbacks.contains(player) {
        return Some((player, Participant::Initiator));
    }
    let initiator = partner?.initiator;
    let matched = playbacks
        .get(initiator)
        .is_ok_and(|p| p.state.partner_matched && p.partner() == Some(player));
    matched.then_some((initiator, Participant::Partner))
}

/// A playback with no camera yet gets one when it wants one.
fn start_cameras(
    mut commands: Commands,
    config: Res<Config>,
    server: Res<Server>,
    mut players: StartingPlayers,
    playbacks: Query<&mut ActiveEmote>,
    layers: Query<&ChunkLayer>,
) {
    for (
        player,
        position,
        look,
        mode,
        chunks,
        mut visible,
        private,
        choices,
        idle,
        modded,
        partner,
    ) in &mut players
    {
        let Some((filming, role)) = filmed(player, partner, &playbacks) else {
            continue;
        };
        let Ok(playback) = playbacks.get(filming) else {
            continue;
        };
        let who = Player {
            mode: *mode,
            choices,
            idle,
            modded: modded.is_some(),
            role,
        };
        let Some(shots) = wanted_shots(&config, playback, &who) else {
            continue;
        };
        let Ok(chunk_layer) = layers.get(chunks.0) else {
            continue;
        };
        let layer = match private {
            Some(layer) => layer.0,
            None => {
                let layer = commands
                    .spawn((EntityLayer::new(&server), PrivateLayerOf(player)))
                    .id();
                commands.entity(player).insert(PrivateLayer(layer));
                layer
            }
        };
        visible.0.insert(layer);
        let mut flight = Flight::new(shots, look_degrees(look), config.camera.flight_settings());
        let blocks = LayerBlocks(chunk_layer);
        let first = frame_of(&mut flight, 0, playback, role, look, &blocks);
        let (camera, seat) = rig::spawn_camera_and_seat(
            &mut commands,
            layer,
            player,
            &first.pose,
            position.0,
            *look,
        );
        commands.entity(player).insert((
            EmoteCamera {
                flight,
                filming,
                role,
                camera,
                seat,
                ticks: 1,
                handed_over: false,
                seated_at: position.0,
                reseat: false,
                restart: false,
                cut_to: None,
            },
            CameraFlying::default(),
        ));
    }
}

/// Players as [`fly_cameras`] reads them.
type FlyingPlayers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut EmoteCamera,
        &'static mut Client,
        &'static Position,
        &'static Look,
        &'static GameMode,
        &'static mut PlayerAbilitiesFlags,
        Option<&'static PrivateLayer>,
        &'static VisibleChunkLayer,
        Option<&'static PlayerChoices>,
        Option<&'static IdleWatch>,
        Option<&'static BoneViewer>,
        Option<&'static EmotePartner>,
        Option<&'static mut CameraFlying>,
    ),
>;

/// The camera entities as [`fly_cameras`] moves them.
type CameraEntities<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut Position,
        &'static mut Look,
        &'static mut HeadYaw,
    ),
    (With<CameraPart>, Without<Client>),
>;

/// Moves every camera to this tick's pose; hands the view over the tick
/// after the camera was spawned.
#[allow(clippy::too_many_arguments)]
fn fly_cameras(
    mut commands: Commands,
    config: Res<Config>,
    mut players: FlyingPlayers,
    mut playbacks: Query<&mut ActiveEmote>,
    mut cameras: CameraEntities,
    layers: Query<&ChunkLayer>,
    ids: Query<&EntityId>,
) {
    for (
        player,
        mut camera,
        mut client,
        position,
        look,
        mode,
        abilities,
        private,
        chunks,
        choices,
        idle,
        modded,
        partner,
        flying,
    ) in &mut players
    {
        let still = filmed(player, partner, &playbacks) == Some((camera.filming, camera.role));
        let mut playback = playbacks.get_mut(camera.filming).ok().filter(|_| still);
        if camera.restart {
            // The emote was replaced: the new one's shots, or none.
            camera.restart = false;
            let who = Player {
                mode: *mode,
                choices,
                idle,
                modded: modded.is_some(),
                role: camera.role,
            };
            match playback
                .as_ref()
                .and_then(|p| wanted_shots(&config, p, &who))
            {
                Some(shots) => {
                    let settings = config.camera.flight_settings();
                    camera.flight = Flight::new(shots, look_degrees(look), settings);
                    camera.ticks = 0;
                }
                None => playback = None,
            }
        }
        let Some(mut playback) = playback else {
            // No playback to film: gone without an end event (a safety
            // net), or a replacing emote that wants no camera.
            let back = Returning {
                client: &mut client,
                mode,
                abilities,
            };
            release(&mut commands, player, &camera, Some(back), &ids);
            continue;
        };
        let camera: &mut EmoteCamera = &mut camera;
        if camera.flight.needs_nodes() {
            // Anchors are not in the scheduled frame: the pose of this tick.
            playback.bypass_change_detection().state.refresh_pose();
        }
        if camera.handed_over {
            follow_server_moves(camera, &mut client, position.0, &mut cameras, &ids);
        }
        let Ok(chunk_layer) = layers.get(chunks.0) else {
            continue;
        };
        // Shots are timed on the Animation's timeline (a camera starts a
        // tick after its emote); between segments, on the camera's own.
        let tick = playback.state.position_ticks.unwrap_or(camera.ticks);
        let frame = frame_of(
            &mut camera.flight,
            tick,
            &playback,
            camera.role,
            look,
            &LayerBlocks(chunk_layer),
        );
        camera.ticks = camera.ticks.saturating_add(1);
        if let Some(next) = camera.cut_to {
            if let Ok(next_id) = ids.get(next) {
                // The client knows the cut's camera: look through it now.
                rig::look_through(&mut client, next_id.get());
                commands.entity(camera.camera).insert(Despawned);
                camera.camera = next;
                camera.cut_to = None;
            }
        }
        if let (true, true, None, Some(layer)) =
            (frame.cut, camera.handed_over, camera.cut_to, private)
        {
            // A cut jumps: a fresh entity there, the old one held still
            // until the client looks through the new one.
            camera.cut_to = Some(rig::spawn_camera(
                &mut commands,
                layer.0,
                player,
                &frame.pose,
            ));
        }
        if let Some(mut flying) = flying {
            flying.eye = Some(frame.pose.eye.as_dvec3());
        }
        let moving = camera.cut_to.unwrap_or(camera.camera);
        if let Ok((mut feet, mut entity_look, mut head_yaw)) = cameras.get_mut(moving) {
            feet.0 = rig::camera_feet(&frame.pose);
            *entity_look = rig::camera_look(&frame.pose);
            head_yaw.0 = entity_look.yaw;
        }
        if !camera.handed_over {
            if let (Ok(camera_id), Ok(seat_id)) = (ids.get(camera.camera), ids.get(camera.seat)) {
                rig::hand_over(&mut client, seat_id.get(), camera_id.get());
                camera.handed_over = true;
            }
        }
    }
}

/// A seated player the server moved (their position is no longer the
/// seat's): unseated now, before valence writes the move, the seat moved
/// under them, and seated again on the next tick.
fn follow_server_moves(
    camera: &mut EmoteCamera,
    client: &mut Client,
    feet: DVec3,
    entities: &mut CameraEntities,
    ids: &Query<&EntityId>,
) {
    let Ok(seat_id) = ids.get(camera.seat).map(|id| id.get()) else {
        return;
    };
    if camera.reseat {
        rig::seat(client, seat_id);
        camera.reseat = false;
    }
    if feet.distance(camera.seated_at) > 0.01 {
        rig::unseat(client, seat_id);
        if let Ok((mut seat_at, ..)) = entities.get_mut(camera.seat) {
            seat_at.0 = rig::seat_position(feet);
        }
        camera.seated_at = feet;
        camera.reseat = true;
    }
}

/// What a seated player's inputs mean: Shift (the client's "press Shift
/// to dismount") stops the emote, as `/emote stop` would; the jump key is
/// a jump for the stop conditions.
fn read_seat_input(
    mut packets: EventReader<PacketEvent>,
    mut flying: Query<(&EmoteCamera, Option<&mut StopWatch>)>,
    mut stop: EventWriter<StopEmoteRequest>,
) {
    let mut asked = HashSet::new();
    for packet in packets.iter() {
        let Some(input) = packet.decode::<PlayerInputC2s>() else {
            continue;
        };
        let Ok((camera, watch)) = flying.get_mut(packet.client) else {
            continue;
        };
        if !camera.handed_over {
            continue;
        }
        if input.flags.jump() {
            if let Some(mut watch) = watch {
                watch.observe_jump();
            }
        }
        if input.flags.unmount() && asked.insert(packet.client) {
            stop.send(StopEmoteRequest {
                client: packet.client,
                reason: EndReason::Stopped,
            });
        }
    }
}

/// Removes camera parts whose owner no longer flies them and private
/// layers whose owner left.
fn remove_orphan_parts(
    mut commands: Commands,
    parts: Query<(Entity, &CameraPart), Without<Despawned>>,
    layers: Query<(Entity, &PrivateLayerOf), Without<Despawned>>,
    owners: Query<&EmoteCamera>,
    clients: Query<(), With<Client>>,
) {
    for (entity, part) in &parts {
        let owned = owners
            .get(part.owner)
            .is_ok_and(|c| c.camera == entity || c.seat == entity || c.cut_to == Some(entity));
        if !owned {
            commands.entity(entity).insert(Despawned);
        }
    }
    for (entity, owner) in &layers {
        if !clients.contains(owner.0) {
            commands.entity(entity).insert(Despawned);
        }
    }
}

#[cfg(test)]
mod tests;
