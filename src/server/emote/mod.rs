//! Playing Animations and Sequences for players with display entities.
//!
//! One [`ActiveEmote`] lives on the (initiating) player entity while an
//! emote plays: the pure [`PlaybackState`](crate::playback::session::PlaybackState)
//! (the phase machine, the pose, what is due this tick) and the entities
//! it drives. These systems feed it the wall clock and the player's yaw,
//! send the commands it queues to the dispatcher and write the display
//! updates it returns. Each display node of the union of its Animations gets one
//! display entity, spawned once, that stays where the root was placed
//! (1.20.1 snaps entity moves); the whole pose goes in its transformation,
//! `T · R_left · S · R_right`, decomposed from the node's matrix turned by the
//! root's yaw. Every update re-sends `start_interpolation` 0 with an
//! `interpolation_duration`: the stretch the scheduler planned, or one tick
//! where it streams per tick; of the transformation only the fields that
//! changed are written, and a node that did not move sends nothing. A hidden node is drawn at scale 0.
//!
//! Roots: all spaces start at the player's feet and yaw where the emote
//! started. `initiator` (and `partner` in a solo playback) turn with the
//! player's yaw through the rotation deadzone; `scene` stays as it started.
//! After a two-player match the initiator and partner roots are where
//! `participants` placed them ([`duo`]). Minecraft yaw 0
//! faces +Z, and emote space faces +Z too, so a root rotation is `R_y(−yaw)`.
//!
//! A Sequence plays as segments ([`crate::playback::sequence`]): one cycle
//! of an Animation each, holds for `wait` steps and loop delays, and
//! transitions that move the shown nodes from the last pose to the next
//! Animation's first pose as the client would interpolate them.

mod active;
mod advance;
mod bone_view;
mod displays;
pub mod duo;
mod duo_state;
mod nbt;
mod send;
mod start;
mod stop;
mod twins;

use valence::prelude::*;

use self::active::*;
use self::advance::*;
use self::bone_view::*;
use self::displays::*;
use self::send::*;
use self::start::*;
use self::stop::*;
use self::twins::*;
use crate::server::events::add_shared_events;
use crate::server::events::EmotePlaybackSet;

pub use crate::playback::playing::{wall_tick, InFlight};
pub use crate::playback::session::PlayRefusal;
pub use active::{
    ActiveEmote, DisplayUpdatePolicy, EmoteCooldowns, HiddenPlayersLayer, Riding,
    SimulatedWallClock, StopWatch,
};
pub use bone_view::VanillaHiddenLayers;
pub use duo_state::{Duo, DuoStage, EmotePartner, JoinedThisTick};
pub use send::{append_changed, EmotePlans};

/// Plays emotes: starts, advances and stops playbacks, and cleans up after them.
pub struct EmotePlaybackPlugin;

impl Plugin for EmotePlaybackPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app)
            .init_resource::<EmoteCooldowns>()
            .init_resource::<JoinedThisTick>()
            .init_resource::<EmotePlans>()
            .init_resource::<crate::server::display_bands::BandStreams>()
            .init_resource::<VanillaHiddenLayers>()
            .add_systems(Startup, create_hidden_players_layer)
            .add_systems(
                Update,
                (
                    apply_display_tolerance,
                    end_emotes_of_dead_players,
                    duo::join_offers,
                    start_requested_emotes,
                    stop_requested_emotes,
                    observe_players,
                    advance_emotes,
                    nbt::write_nbt_changes,
                    follow_held_items,
                    add_pack_twins,
                    dress_skins,
                    duo::run_offers,
                    duo::watch_partners,
                    end_emotes_of_leaving_players,
                    despawn_orphan_displays,
                    show_hidden_bodies_to_bone_viewers,
                    report_failed_emotes,
                )
                    .chain()
                    .in_set(EmotePlaybackSet),
            );
    }
}
