//! The emote wheel: a chest-style window every vanilla 1.20.1 client can
//! use to play emotes without typing (issue 15).
//!
//! # The model
//!
//! - **Opening.** `/emote` alone or `/emotes` (an [`OpenWheelRequest`](crate::server::events::OpenWheelRequest) from
//!   the commands), or sneak + F ([`input`]). The player's wheel is built
//!   at that moment from the library, their permissions, their
//!   [`PlayerChoices`](crate::server::storage::PlayerChoices) (favourites,
//!   wheel order), their cooldowns and the open two-player offers near
//!   them ([`open::shown_emotes`]), and kept in a [`WheelWindow`] on the
//!   player until it closes. It shows what the player may play themselves
//!   and nothing else.
//! - **Pages** ([`book`]): eight emotes on a ring around a stop button,
//!   the favourites first, then every emote, in the player's wheel order.
//! - **Icons** ([`icons`]): the file's `metadata.icon` or a default for
//!   its kind, named, with the description, the kind, a running cooldown
//!   and a nearby offer ("Join") in the lore.
//! - **Clicks** ([`input`]): left plays and closes, right toggles a
//!   favourite (stored at once), number keys reorder; the window is sent
//!   again after every click, so nothing ever leaves it ([`window`]).
//! - **Kept current.** An open wheel is drawn again, on its page, when one
//!   of the player's cooldowns starts or ends or a two-player offer near
//!   them opens or closes ([`open::refresh_open_wheels`], four times a
//!   second); a cooldown's seconds are not counted down on screen.
//!
//! The window is built from raw packets under a window id valence does not
//! use, because valence's own inventories apply a client's clicks before
//! they can be refused (`../shared/specs/ux-notes.md` §1).

pub mod book;
pub mod icons;
pub mod input;
pub mod open;
pub mod window;

use valence::prelude::*;

use crate::server::events::{add_shared_events, EmotePlaybackSet};

pub use book::{EmoteKind, ShownEmote, SlotAction, WheelBook};
pub use input::SNEAK_GRACE_TICKS;
pub use open::{shown_emotes, Viewer, MAX_WHEEL_OPENS_PER_TICK};
pub use window::{WheelWindow, WHEEL_WINDOW_ID};

/// The emote wheel: opening, clicks, closing.
pub struct EmoteWheelPlugin;

impl Plugin for EmoteWheelPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app)
            .init_resource::<crate::server::emote::EmoteCooldowns>()
            .init_resource::<crate::server::storage::PlayerStoreResource>()
            .init_resource::<icons::IconCache>()
            .add_systems(
                Update,
                (input::open_on_sneak_and_swap, input::handle_wheel_clicks)
                    .chain()
                    .before(EmotePlaybackSet),
            )
            .add_systems(
                Update,
                (open::open_requested_wheels, open::refresh_open_wheels)
                    .chain()
                    .after(EmotePlaybackSet),
            );
    }
}
