//! Drawing a page of the wheel: the window's title and its 45 item stacks.
//!
//! An emote's icon is its file's `metadata.icon`, or the default of its
//! kind ([`default_icon`]), with a name and lore written over whatever
//! display tag the icon had (its other tags, a skull's owner say, stay):
//!
//! - the name, not italic; gold with a `★` and an enchantment glint for a
//!   favourite; `[Join]` after it when a nearby offer of it is open;
//! - the description, wrapped at [`LORE_LINE_CHARS`];
//! - its kind (Animation, Sequence, Two-player Sequence);
//! - "Cooldown: 3.5s" while the player's cooldown runs;
//! - "Join `player`'s offer" for an open offer nearby;
//! - the controls in one line (left-click plays, right-click favourites,
//!   a number key 1–8 moves it).
//!
//! Every stack hides its tooltip extras (`HideFlags` 255), so icons read
//! as buttons, not as items.
//!
//! Writing the texts is most of the work of opening a wheel, so the
//! [`IconCache`] keeps each emote's icon, plain and as a favourite, until
//! the library changes; icons with a running cooldown or an offer are
//! drawn fresh.

use std::collections::HashMap;

use valence::nbt::{compound, Compound, List, Value};
use valence::prelude::*;

use crate::format::EmoteId;

use super::book::*;

/// Characters a lore line holds before the description wraps.
pub const LORE_LINE_CHARS: usize = 36;

/// The default icon of an emote kind: an armour stand strikes a pose, a
/// clock runs a sequence, a cake is shared, and leather boots walk.
pub fn default_icon(kind: EmoteKind) -> ItemKind {
    match kind {
        EmoteKind::Animation => ItemKind::ArmorStand,
        EmoteKind::Sequence => ItemKind::Clock,
        EmoteKind::TwoPlayer => ItemKind::Cake,
        EmoteKind::Controller => ItemKind::LeatherBoots,
    }
}

/// Icons already drawn: by emote and whether it is a favourite (see the
/// module docs). Cleared whenever the library changes.
#[derive(Resource, Default, Debug)]
pub struct IconCache {
    icons: HashMap<(EmoteId, bool), ItemStack>,
}

impl IconCache {
    /// The icon of `emote`, from the cache when it holds it.
    pub fn icon(&mut self, emote: &ShownEmote) -> ItemStack {
        if emote.cooldown_ticks > 0 || emote.offered_by.is_some() {
            return emote_icon(emote);
        }
        self.icons
            .entry((emote.id.clone(), emote.favourite))
            .or_insert_with(|| emote_icon(emote))
            .clone()
    }

    /// Forgets every icon (the library changed).
    pub fn clear(&mut self) {
        self.icons.clear();
    }
}

/// A page drawn: its title and its slots.
#[derive(Clone, Debug)]
pub struct DrawnPage {
    /// The window title.
    pub title: Text,
    /// The 45 slots of the window.
    pub slots: Vec<Option<ItemStack>>,
}

/// Draws page `index` of `book` with the icons of `cache`; `playing` is
/// the name of the emote the player plays now, if any (the stop button
/// says it).
pub fn draw_page(
    book: &WheelBook,
    index: usize,
    playing: Option<&str>,
    cache: &mut IconCache,
) -> DrawnPage {
    let page = book.page(index);
    let mut slots: Vec<Option<ItemStack>> = vec![None; WINDOW_SLOTS];
    for (ring, &emote) in page.emotes.iter().enumerate() {
        slots[RING_SLOTS[ring]] = Some(cache.icon(&book.emotes()[emote]));
    }
    if book.emotes().is_empty() {
        slots[RING_SLOTS[0]] = Some(button(
            ItemKind::Paper,
            "No emotes you may play".color(Color::GRAY),
            &[],
        ));
    }
    slots[STOP_SLOT] = Some(match playing {
        Some(name) => button(
            ItemKind::Barrier,
            "Stop emote".color(Color::RED),
            &[format!("Playing {name}").color(Color::GRAY)],
        ),
        None => button(
            ItemKind::Barrier,
            "Stop emote".color(Color::RED),
            &["You are not playing an emote".color(Color::DARK_GRAY)],
        ),
    });
    for (slot, label) in [(PREVIOUS_SLOT, "Previous page"), (NEXT_SLOT, "Next page")] {
        if let SlotAction::Page(to) = book.action(index, slot) {
            slots[slot] = Some(button(
                ItemKind::Arrow,
                label.color(Color::YELLOW),
                &[page_name(book.page(to)).color(Color::GRAY)],
            ));
        }
    }
    if let Some(on) = book.camera() {
        let (state, then) = match on {
            true => ("on".color(Color::GREEN), "Click: keep your own view"),
            false => (
                "off".color(Color::GRAY),
                "Click: see yourself from a camera",
            ),
        };
        slots[CAMERA_SLOT] = Some(button(
            ItemKind::Spyglass,
            "Emote camera: ".color(Color::YELLOW) + state,
            &[then.color(Color::GRAY)],
        ));
    }
    if book.action(index, FAVOURITES_SLOT) != SlotAction::Nothing {
        slots[FAVOURITES_SLOT] = Some(button(
            ItemKind::NetherStar,
            "Favourites".color(Color::GOLD),
            &[],
        ));
        slots[EVERY_EMOTE_SLOT] = Some(button(
            ItemKind::Book,
            "Every emote".color(Color::YELLOW),
            &[],
        ));
    }
    DrawnPage {
        title: format!("Emotes · {}", page_name(page)).into_text(),
        slots,
    }
}

/// "Favourites 1/2" or "2/5".
fn page_name(page: &Page) -> String {
    match page.kind {
        PageKind::Favourites => format!("Favourites {}/{}", page.number, page.of),
        PageKind::Every => format!("{}/{}", page.number, page.of),
    }
}

/// The icon of one emote (see the module docs).
pub fn emote_icon(emote: &ShownEmote) -> ItemStack {
    let mut name = if emote.favourite {
        format!("★ {}", emote.name).color(Color::GOLD)
    } else {
        emote.name.clone().color(Color::WHITE)
    };
    if emote.offered_by.is_some() {
        name = Text::text("") + name + " [Join]".color(Color::GREEN);
    }
    let mut lore: Vec<Text> = wrap(&emote.description, LORE_LINE_CHARS)
        .into_iter()
        .map(|line| line.color(Color::GRAY))
        .collect();
    lore.push(emote.kind.label().color(Color::DARK_GRAY));
    if emote.cooldown_ticks > 0 {
        lore.push(
            format!("Cooldown: {:.1}s", emote.cooldown_ticks as f64 / 20.0).color(Color::RED),
        );
    }
    if let Some(by) = &emote.offered_by {
        lore.push(format!("Join {by}'s offer").color(Color::GREEN));
    }
    lore.push(
        if emote.favourite {
            "Left: play · Right: unfavourite · 1–8: move"
        } else {
            "Left: play · Right: favourite · 1–8: move"
        }
        .color(Color::DARK_GRAY),
    );
    let (kind, count, mut nbt) = match &emote.icon {
        Some(icon) => (
            icon.item,
            icon.count(),
            icon.nbt.clone().unwrap_or_default(),
        ),
        None => (default_icon(emote.kind), 1, Compound::new()),
    };
    write_display(&mut nbt, name, &lore);
    if emote.favourite {
        nbt.insert(
            "Enchantments",
            List::Compound(vec![compound! {
                "id" => "minecraft:unbreaking",
                "lvl" => 1_i16,
            }]),
        );
    }
    ItemStack::new(kind, count.max(1), Some(nbt))
}

/// A button: an item with a name and lore.
fn button(kind: ItemKind, name: Text, lore: &[Text]) -> ItemStack {
    let mut nbt = Compound::new();
    write_display(&mut nbt, name, lore);
    ItemStack::new(kind, 1, Some(nbt))
}

/// Writes `display.Name` and `display.Lore` (JSON text, not italic) and
/// hides every tooltip extra, keeping the tag's other entries.
fn write_display(nbt: &mut Compound, name: Text, lore: &[Text]) {
    let mut display = match nbt.remove("display") {
        Some(Value::Compound(display)) => display,
        _ => Compound::new(),
    };
    display.insert("Name", name.not_italic().to_string());
    display.insert(
        "Lore",
        List::String(
            lore.iter()
                .map(|l| l.clone().not_italic().to_string())
                .collect(),
        ),
    );
    nbt.insert("display", display);
    nbt.insert("HideFlags", 255_i32);
}

/// Splits `text` into lines of at most `width` characters at spaces (a
/// longer word gets a line of its own); blank lines are dropped.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.lines() {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            let fits = line.chars().count() + 1 + word.chars().count() <= width;
            if !line.is_empty() && !fits {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        if !line.is_empty() {
            lines.push(line);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::super::book::tests::shown;
    use super::*;

    fn lore_of(stack: &ItemStack) -> Vec<String> {
        let Some(Value::Compound(display)) = stack.nbt.as_ref().and_then(|n| n.get("display"))
        else {
            panic!("no display tag");
        };
        match display.get("Lore") {
            Some(Value::List(List::String(lines))) => lines.clone(),
            other => panic!("no lore: {other:?}"),
        }
    }

    #[test]
    fn descriptions_wrap_at_spaces() {
        assert_eq!(
            wrap("a wave to say hello to everyone around you", 12),
            ["a wave to", "say hello to", "everyone", "around you"]
        );
        assert_eq!(wrap("  ", 10), Vec::<String>::new());
        assert_eq!(
            wrap("unbreakablewordhere x", 5),
            ["unbreakablewordhere", "x"]
        );
    }

    #[test]
    fn an_icon_says_kind_cooldown_offer_and_favourite() {
        let mut emote = shown("example:handshake", true);
        emote.kind = EmoteKind::TwoPlayer;
        emote.description = "Shake hands".into();
        emote.cooldown_ticks = 70;
        emote.offered_by = Some("Steve".into());
        let icon = emote_icon(&emote);
        assert_eq!(icon.item, ItemKind::Cake);
        let lore = lore_of(&icon).join("\n");
        for needle in [
            "Shake hands",
            "Two-player Sequence",
            "Cooldown: 3.5s",
            "Join Steve's offer",
            "unfavourite",
        ] {
            assert!(lore.contains(needle), "{needle} missing from {lore}");
        }
        let nbt = icon.nbt.as_ref().expect("a tag");
        assert!(
            matches!(nbt.get("Enchantments"), Some(Value::List(_))),
            "a glint"
        );
        let Some(Value::Compound(display)) = nbt.get("display") else {
            panic!("no display");
        };
        let Some(Value::String(name)) = display.get("Name") else {
            panic!("no name");
        };
        assert!(
            name.contains("[Join]") && name.contains("\"italic\":false"),
            "{name}"
        );
    }

    #[test]
    fn a_files_icon_keeps_its_own_tags() {
        let mut emote = shown("example:wave", false);
        emote.icon = Some(ItemStack::new(
            ItemKind::PlayerHead,
            1,
            Some(
                compound! { "SkullOwner" => "Steve", "display" => compound! { "color" => 3_i32 } },
            ),
        ));
        let icon = emote_icon(&emote);
        assert_eq!(icon.item, ItemKind::PlayerHead);
        let nbt = icon.nbt.as_ref().expect("a tag");
        assert_eq!(nbt.get("SkullOwner"), Some(&Value::String("Steve".into())));
        assert!(nbt.get("Enchantments").is_none());
        assert!(lore_of(&icon).iter().any(|l| l.contains("Animation")));
    }

    #[test]
    fn a_page_has_its_ring_stop_and_arrows() {
        let emotes = (0..10).map(|i| shown(&format!("t:e{i}"), false)).collect();
        let book = WheelBook::new(emotes, &[]);
        let mut cache = IconCache::default();
        let first = draw_page(&book, 0, Some("Wave"), &mut cache);
        for slot in RING_SLOTS {
            assert!(first.slots[slot].is_some(), "ring slot {slot}");
        }
        assert_eq!(
            first.slots[STOP_SLOT].as_ref().map(|s| s.item),
            Some(ItemKind::Barrier)
        );
        assert!(first.slots[PREVIOUS_SLOT].is_none());
        assert_eq!(
            first.slots[NEXT_SLOT].as_ref().map(|s| s.item),
            Some(ItemKind::Arrow)
        );
        assert!(first.title.to_string().contains("1/2"));
        let second = draw_page(&book, 1, None, &mut cache);
        assert_eq!(second.slots.iter().flatten().count(), 2 + 1 + 1);
        // No camera switch unless the server flies cameras; then it says
        // the player's choice and a click switches it.
        assert!(first.slots[CAMERA_SLOT].is_none());
        assert_eq!(book.action(0, CAMERA_SLOT), SlotAction::Nothing);
        let mut with_camera = book.clone();
        for on in [true, false] {
            with_camera.set_camera(Some(on));
            let page = draw_page(&with_camera, 0, None, &mut cache);
            let switch = page.slots[CAMERA_SLOT].as_ref().expect("the switch");
            assert_eq!(switch.item, ItemKind::Spyglass);
            let said = lore_of(switch).join(" ");
            let wanted = if on {
                "keep your own view"
            } else {
                "see yourself"
            };
            assert!(said.contains(wanted), "{said}");
            assert_eq!(with_camera.action(0, CAMERA_SLOT), SlotAction::ToggleCamera);
        }
        // The cache gives what drawing gives, and is keyed by favourite.
        let mut emote = book.emotes()[0].clone();
        assert_eq!(cache.icon(&emote), emote_icon(&emote));
        emote.favourite = true;
        assert_eq!(cache.icon(&emote), emote_icon(&emote));
        emote.cooldown_ticks = 20;
        let cooling = cache.icon(&emote);
        assert!(
            format!("{:?}", cooling.nbt).contains("Cooldown"),
            "drawn fresh"
        );
    }
}
