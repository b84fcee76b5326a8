//! The wheel's window, written as raw packets (`../shared/specs/ux-notes.md`
//! §1).
//!
//! valence's own `OpenInventory` applies a client's clicks to the server's
//! inventories before anyone can refuse them, so a menu built on it leaks
//! its icons into the player's inventory. The wheel instead opens a window
//! valence does not know: id [`WHEEL_WINDOW_ID`], outside valence's 1–100
//! and below 128 (the client closes windows by an `i8` id). valence then
//! refuses every click on it (the window id does not match) and changes
//! nothing; the wheel reads the click itself and answers **every** one with
//! the whole window again ([`WheelWindow::resync`]): its 45 slots, the
//! player's 36 inventory slots as the server has them, and the server's
//! cursor. Whatever the client guessed a click did (an icon on the cursor,
//! an icon moved into the inventory, a stack split by a drag) is undone.

use std::borrow::Cow;

use valence::prelude::*;
use valence::protocol::packets::play::open_screen_s2c::WindowType;
use valence::protocol::packets::play::{CloseScreenS2c, InventoryS2c, OpenScreenS2c};
use valence::protocol::{VarInt, WritePacket};

use super::book::{WheelBook, WINDOW_SLOTS};
use super::icons::{draw_page, DrawnPage, IconCache};

/// The wheel's window id (see the module docs).
pub const WHEEL_WINDOW_ID: u8 = 117;

/// The player inventory's slots a container window shows below its own:
/// the main inventory (9–35) and the hotbar (36–44).
const PLAYER_SLOTS: std::ops::RangeInclusive<u16> = 9..=44;

/// On a player whose wheel is open.
#[derive(Component, Debug)]
pub struct WheelWindow {
    /// The emotes and pages.
    pub book: WheelBook,
    /// The page shown.
    pub page: usize,
    /// The name of the emote the player plays, for the stop button.
    pub playing: Option<String>,
    /// The last state id sent; the next packet sends one more.
    state_id: i32,
    /// The page as drawn: the title, and the window's 45 slots followed by
    /// the player's 36 as last sent (the packet's own layout, so a resync
    /// copies only the player's part).
    drawn: DrawnPage,
}

/// The drawn page with room for the player's slots after its own.
fn with_player_part(mut drawn: DrawnPage) -> DrawnPage {
    drawn.slots.resize(WINDOW_SLOTS + PLAYER_SLOTS.len(), None);
    drawn
}

impl WheelWindow {
    /// A wheel showing page `page` of `book`.
    pub fn new(
        book: WheelBook,
        page: usize,
        playing: Option<String>,
        icons: &mut IconCache,
    ) -> WheelWindow {
        let page = page.min(book.pages().len() - 1);
        let drawn = with_player_part(draw_page(&book, page, playing.as_deref(), icons));
        WheelWindow {
            book,
            page,
            playing,
            state_id: 0,
            drawn,
        }
    }

    /// Draws the page again (after the book or the page changed).
    pub fn redraw(&mut self, icons: &mut IconCache) {
        self.page = self.page.min(self.book.pages().len() - 1);
        self.drawn = with_player_part(draw_page(
            &self.book,
            self.page,
            self.playing.as_deref(),
            icons,
        ));
    }

    /// Opens the window on the client (or retitles it: the client keeps
    /// the mouse where it was when a screen replaces another) and sends
    /// its contents.
    pub fn open(&mut self, client: &mut Client, inventory: &Inventory, cursor: &CursorItem) {
        client.write_packet(&OpenScreenS2c {
            window_id: VarInt(WHEEL_WINDOW_ID.into()),
            window_type: WindowType::Generic9x5,
            window_title: Cow::Borrowed(&self.drawn.title),
        });
        self.resync(client, inventory, cursor);
    }

    /// Sends the whole window: its slots, the player's inventory as the
    /// server has it, and the server's cursor (see the module docs).
    pub fn resync(&mut self, client: &mut Client, inventory: &Inventory, cursor: &CursorItem) {
        self.state_id = self.state_id.wrapping_add(1);
        for (sent, slot) in self.drawn.slots[WINDOW_SLOTS..]
            .iter_mut()
            .zip(PLAYER_SLOTS)
        {
            let now = inventory.slot(slot);
            if sent.as_ref() != now {
                *sent = now.cloned();
            }
        }
        client.write_packet(&InventoryS2c {
            window_id: WHEEL_WINDOW_ID,
            state_id: VarInt(self.state_id),
            slots: Cow::Borrowed(&self.drawn.slots),
            carried_item: Cow::Borrowed(&cursor.0),
        });
    }
}

/// Closes the wheel on the client (the caller removes [`WheelWindow`]).
pub fn close(client: &mut Client) {
    client.write_packet(&CloseScreenS2c {
        window_id: WHEEL_WINDOW_ID,
    });
}
