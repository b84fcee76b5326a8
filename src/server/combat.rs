//! Melee PvP, so that the `damage` and `attack` stop conditions happen for
//! real on the default server, and death, which ends a playback.
//!
//! The rules, simpler than vanilla's and chosen for a server where players
//! mostly emote:
//! - a player in survival or adventure who is hit by another player (not a
//!   spectator) within [`REACH_BLOCKS`] loses [`HIT_DAMAGE`] health (half a
//!   heart; held items are not weighed) and is knocked back;
//! - after a hit the victim cannot be hurt again for [`HURT_COOLDOWN_TICKS`]
//!   (vanilla's invulnerability window);
//! - at zero health the player dies (death screen); on respawn they are back
//!   at the spawn with full health.
//!
//! Every hit that hurts is a [`PlayerDamagedEvent`]; every death a
//! [`PlayerDiedEvent`]. The emote playback reads both.

use valence::entity::living::Health;
use valence::entity::EntityStatuses;
use valence::prelude::*;
use valence::protocol::packets::play::HealthUpdateS2c;
use valence::protocol::{VarInt, WritePacket};
use valence::status::RequestRespawnEvent;

use crate::server::events::add_shared_events;
use crate::server::events::{CameraFlying, PlayerDamagedEvent, PlayerDiedEvent};
use crate::server::world::WorldSpawn;

/// A player's full health.
pub const PLAYER_MAX_HEALTH: f32 = 20.0;
/// Health one hit takes.
pub const HIT_DAMAGE: f32 = 1.0;
/// Ticks after a hit during which the victim cannot be hurt.
pub const HURT_COOLDOWN_TICKS: i64 = 10;
/// Farthest an attacker may stand from the victim (feet to feet), as
/// vanilla's server-side reach check allows.
pub const REACH_BLOCKS: f64 = 6.0;

/// When a player was last hurt (server tick).
#[derive(Component, Clone, Copy, Debug, Default)]
struct LastHurt(Option<i64>);

/// Melee PvP damage, death and respawn.
pub struct CombatPlugin;

/// The systems of [`CombatPlugin`]; the emote playback runs after them.
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CombatSet;

impl Plugin for CombatPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app).add_systems(
            Update,
            (add_last_hurt, melee_hits, respawn_players)
                .chain()
                .in_set(CombatSet)
                .before(crate::server::events::EmotePlaybackSet),
        );
    }
}

/// A joining player gets a hurt clock and a player's full health (valence
/// gives every new player entity 200, ten times a player's: twenty hits
/// would not have killed anyone).
fn add_last_hurt(mut commands: Commands, mut new: Query<(Entity, &mut Health), Added<Client>>) {
    for (entity, mut health) in &mut new {
        health.0 = PLAYER_MAX_HEALTH;
        commands.entity(entity).insert(LastHurt::default());
    }
}

/// Whether a player in `mode` can be hurt by another player.
pub fn can_be_hurt(mode: GameMode) -> bool {
    matches!(mode, GameMode::Survival | GameMode::Adventure)
}

#[allow(clippy::type_complexity)]
fn melee_hits(
    server: Res<Server>,
    mut interactions: EventReader<InteractEntityEvent>,
    mut players: Query<(
        &mut Client,
        &Position,
        &GameMode,
        &mut Health,
        &mut LastHurt,
        &mut EntityStatuses,
        &Username,
    )>,
    mut damaged: EventWriter<PlayerDamagedEvent>,
    mut died: EventWriter<PlayerDiedEvent>,
    flying: Query<(), With<CameraFlying>>,
) {
    let now = server.current_tick();
    for interaction in interactions.iter() {
        if interaction.interact != EntityInteraction::Attack {
            continue;
        }
        if flying.contains(interaction.client) {
            continue; // a click through the emote camera does nothing
        }
        let Ok([attacker, victim]) = players.get_many_mut([interaction.client, interaction.entity])
        else {
            continue; // not a player, gone, or hitting oneself
        };
        let (_, attacker_pos, attacker_mode, _, _, _, attacker_name) = attacker;
        let (mut client, victim_pos, victim_mode, mut health, mut last, mut statuses, _) = victim;
        if *attacker_mode == GameMode::Spectator || !can_be_hurt(*victim_mode) {
            continue;
        }
        if attacker_pos.0.distance(victim_pos.0) > REACH_BLOCKS {
            continue;
        }
        if last.0.is_some_and(|t| now - t < HURT_COOLDOWN_TICKS) || health.0 <= 0.0 {
            continue;
        }
        last.0 = Some(now);
        health.0 = (health.0 - HIT_DAMAGE).max(0.0);
        let away = (victim_pos.0 - attacker_pos.0).truncate_y();
        client.set_velocity([away.x as f32 * 8.0, 6.432, away.y as f32 * 8.0]);
        client.trigger_status(EntityStatus::PlayAttackSound);
        statuses.trigger(EntityStatus::PlayAttackSound);
        client.write_packet(&HealthUpdateS2c {
            health: health.0,
            food: VarInt(20),
            food_saturation: 5.0,
        });
        damaged.send(PlayerDamagedEvent {
            victim: interaction.entity,
            attacker: interaction.client,
            amount: HIT_DAMAGE,
        });
        if health.0 <= 0.0 {
            client.kill(format!("You were hit by {}.", attacker_name.0));
            died.send(PlayerDiedEvent {
                player: interaction.entity,
            });
        }
    }
}

/// Horizontal part of a vector, normalised (zero stays zero).
trait TruncateY {
    fn truncate_y(self) -> DVec2;
}

impl TruncateY for DVec3 {
    fn truncate_y(self) -> DVec2 {
        DVec2::new(self.x, self.z).normalize_or_zero()
    }
}

#[allow(clippy::type_complexity)]
fn respawn_players(
    mut events: EventReader<RequestRespawnEvent>,
    mut players: Query<(
        &mut Client,
        &mut Health,
        &mut Position,
        &mut RespawnPosition,
        &mut VisibleChunkLayer,
    )>,
    spawn: Option<Res<WorldSpawn>>,
) {
    let spawn = spawn.map(|spawn| *spawn).unwrap_or_default();
    for event in events.iter() {
        let Ok((mut client, mut health, mut position, mut respawn, mut layer)) =
            players.get_mut(event.client)
        else {
            continue;
        };
        if health.0 > 0.0 {
            continue; // not dead: nothing to do
        }
        health.0 = PLAYER_MAX_HEALTH;
        respawn.pos = spawn.block();
        // Touching the layer makes valence send the respawn packet.
        layer.set_changed();
        position.set(spawn.0);
        client.write_packet(&HealthUpdateS2c {
            health: PLAYER_MAX_HEALTH,
            food: VarInt(20),
            food_saturation: 5.0,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_survival_and_adventure_players_are_hurt() {
        assert!(can_be_hurt(GameMode::Survival));
        assert!(can_be_hurt(GameMode::Adventure));
        assert!(!can_be_hurt(GameMode::Creative));
        assert!(!can_be_hurt(GameMode::Spectator));
    }

    #[test]
    fn knockback_points_away_horizontally() {
        let away = DVec3::new(3.0, 5.0, 4.0).truncate_y();
        assert!((away - DVec2::new(0.6, 0.8)).length() < 1e-9);
        assert_eq!(DVec3::new(0.0, 2.0, 0.0).truncate_y(), DVec2::ZERO);
    }
}
