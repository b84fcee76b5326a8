//! Emotes you can walk in: what the server feeds a controller playback
//! ([`crate::playback::controlled`]) from the live player, and the body
//! following the player.
//!
//! # The model
//! A controller's body is posed per tick by its state machines; the
//! server's part is the **observation** and the **place**:
//!
//! - [`observe_walkers`] (before the playbacks step) turns what the player
//!   did since the last tick into the built-in parameters
//!   ([`Motion`]): the horizontal move over the tick as `speed` (blocks a
//!   second) and, in the frame of the body's yaw, `forward` and `strafe`;
//!   `grounded` from the client's on-ground flag; `sneaking` and
//!   `sprinting` from its entity flags; `jump` when it left the ground
//!   moving up (vanilla's jump test, as the stop conditions use);
//!   `look_yaw` (wrapped to ±180°) and `look_pitch` against the body;
//!   `in_water` when the block at the feet is water.
//! - The **place**: the body is drawn where the player is by carrying the
//!   way from the displays' place (the playback's root) in every node's
//!   transformation ([`PlaybackState::follow_to`](crate::playback::session::PlaybackState::follow_to)),
//!   so it moves as smoothly as the pose, over the same one-tick
//!   interpolation; once the player is [`REANCHOR_BLOCKS`] away the
//!   displays are moved to the player ([`follow_walkers`]) and that tick's
//!   transformations snap with them.
//!
//! # The choice of how the rig moves
//! 1.20.1 has no `teleport_duration` for displays: a display the server
//! moves is drawn at its new place at once. The ways, and what they cost
//! (`emoted loadtest --emote example:walk_wave --walk`, 100 walkers and
//! 100 viewers; README, Performance):
//!
//! - moving every display every tick: the body is drawn in steps of 0.2
//!   block at a walk, 20 a second, while its pose between them is
//!   interpolated; 952 KB/s a viewer, 192 KB/s of it the moves;
//! - the way carried in the transformation (this one): as smooth as the
//!   pose, over the same one-tick interpolation, and no packet beyond the
//!   pose's, which a walking body sends every tick anyway: 786 KB/s a
//!   viewer; the tick costs the same within noise. Every 8 blocks the
//!   displays are moved to the body (a tick with no interpolation);
//! - displays riding an entity the client moves smoothly (an armour stand
//!   lerps over 3 ticks), not built: one packet a body, but the body lags
//!   the player by those 3 ticks and the passengers must be sent again to
//!   every viewer that sees the displays anew (a new cell, a chunk).

use valence::entity::entity::Flags;
use valence::entity::OnGround;
use valence::movement::MovementEvent;
use valence::prelude::*;

use crate::playback::controlled::Motion;
pub use crate::playback::session::controlled::REANCHOR_BLOCKS;
use crate::server::emote::ActiveEmote;
use crate::server::events::{EmoteDisplay, EmotePlaybackSet, SetParameterRequest};

/// Feeds controller playbacks from the live player and moves their rigs
/// with the player (see the module docs).
pub struct WalkingBodyPlugin;

impl Plugin for WalkingBodyPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            Update,
            (
                (observe_walkers, apply_parameter_requests)
                    .chain()
                    .before(EmotePlaybackSet),
                follow_walkers.after(EmotePlaybackSet),
            ),
        );
    }
}

/// Where a player walking in a controller was on the last tick.
#[derive(Component, Clone, Copy, Debug)]
pub struct Stride {
    /// The feet on the last tick.
    pub feet: DVec3,
}

/// Players as [`observe_walkers`] reads them.
type Walkers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut ActiveEmote,
        &'static Position,
        &'static Look,
        Option<&'static OnGround>,
        Option<&'static Flags>,
        &'static VisibleChunkLayer,
        Option<&'static mut Stride>,
    ),
    With<Client>,
>;

/// The yaw `degrees` wrapped into `[-180, 180)`.
fn wrapped(degrees: f32) -> f32 {
    (degrees + 180.0).rem_euclid(360.0) - 180.0
}

/// Turns this tick's movement of every player in a controller into its
/// built-in parameters.
fn observe_walkers(
    mut commands: Commands,
    mut movements: EventReader<MovementEvent>,
    mut walkers: Walkers,
    layers: Query<&ChunkLayer>,
) {
    let jumped: Vec<Entity> = movements
        .iter()
        .filter(|m| m.old_on_ground && !m.on_ground && m.position.y > m.old_position.y)
        .map(|m| m.client)
        .collect();
    for (player, mut playback, feet, look, on_ground, flags, world, stride) in &mut walkers {
        if playback.state.controller.is_none() {
            continue;
        }
        let before = stride.as_ref().map_or(feet.0, |s| s.feet);
        let body_yaw = playback.state.root_yaw_degrees();
        let feet_block = BlockPos::new(
            feet.0.x.floor() as i32,
            feet.0.y.floor() as i32,
            feet.0.z.floor() as i32,
        );
        let in_water = layers
            .get(world.0)
            .ok()
            .and_then(|l| l.block(feet_block))
            .is_some_and(|b| b.state.to_kind() == valence::block::BlockKind::Water);
        let motion = Motion {
            grounded: on_ground.is_none_or(|g| g.0),
            sneaking: flags.is_some_and(|f| f.sneaking()),
            sprinting: flags.is_some_and(|f| f.sprinting()),
            jumped: jumped.contains(&player),
            look_yaw: wrapped(look.yaw - body_yaw),
            look_pitch: look.pitch,
            in_water,
            ..Motion::between(before, feet.0, body_yaw)
        };
        playback.state.observe_motion(&motion);
        playback.state.follow_to(feet.0);
        match stride {
            Some(mut stride) => stride.feet = feet.0,
            None => {
                commands.entity(player).insert(Stride { feet: feet.0 });
            }
        }
    }
}

/// Sets the parameters `/emote set` (typed, or run by an event) asks for;
/// a typed one that cannot be set is answered in chat, an event's logged.
fn apply_parameter_requests(
    mut requests: EventReader<SetParameterRequest>,
    mut players: Query<(&mut Client, Option<&mut ActiveEmote>, &Username)>,
) {
    for request in requests.iter() {
        let Ok((mut client, playback, name)) = players.get_mut(request.client) else {
            continue;
        };
        let refused = match playback {
            Some(mut playback) => match playback.state.controller.as_mut() {
                Some(controller) => controller
                    .set_parameter(&request.parameter, request.value)
                    .err()
                    .map(|e| {
                        let names: Vec<&str> = controller.parameters().names().collect();
                        format!(
                            "{e}{}",
                            crate::format::did_you_mean_among(&request.parameter, &names)
                        )
                    }),
                None => Some(format!(
                    "`{}` is not a controller: /emote set changes the parameters of a controller you play",
                    playback.emote()
                )),
            },
            None => Some("You are not playing an emote: /emote set changes the parameters of a controller you play".to_owned()),
        };
        if let Some(message) = refused {
            if request.typed {
                client.send_chat_message(message.color(Color::RED));
            } else {
                tracing::warn!("emote set for {}: {message}", name.0);
            }
        }
    }
}

/// Moves the displays of every controller playback whose root moved to
/// the player (every [`REANCHOR_BLOCKS`]) to that root; the tick's
/// updates snap with them.
fn follow_walkers(
    walkers: Query<&ActiveEmote, With<Client>>,
    mut displays: Query<&mut Position, (With<EmoteDisplay>, Without<Client>)>,
) {
    for playback in &walkers {
        if playback.state.controller.is_none() {
            continue;
        }
        let root = playback.state.root;
        for entity in playback.display_entities() {
            if let Ok(mut position) = displays.get_mut(entity) {
                if position.0 != root {
                    position.0 = root;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_yaw_is_wrapped_against_the_body() {
        assert_eq!(wrapped(350.0 - 10.0), -20.0);
        assert_eq!(wrapped(-190.0), 170.0);
        assert_eq!(wrapped(45.0), 45.0);
    }
}
