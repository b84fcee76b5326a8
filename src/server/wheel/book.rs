//! The wheel's model: the emotes one player is shown, in their order, cut
//! into pages of eight, and what each of the window's 45 slots does on a
//! page. Building it reads no ECS state: [`super::open`] gathers the
//! player's facts into [`ShownEmote`]s, this file decides the pages, and
//! [`super::icons`] draws them.
//!
//! # Pages
//!
//! - The **favourites** pages come first (when the player has any), then
//!   the pages of **every** emote the player may play, favourites included.
//! - Both follow the player's **wheel order**: the ids of their stored
//!   order first, in that order, then every other emote in library order
//!   (namespace, then name). A favourite keeps its place in that order, so
//!   the favourites pages read as the full pages with the rest left out.
//! - Eight emotes a page, on the ring `[4, 15, 25, 33, 40, 29, 19, 11]`
//!   of a 9×5 chest, clockwise from the top; the stop button in the centre
//!   (22); previous and next page at 36 and 44 when those pages exist; a
//!   jump to the favourites (0) and to every emote (8) when both exist;
//!   the player's emote camera switch (42) when the server flies cameras.
//! - A player with nothing to play sees one empty page that says so.

use crate::format::EmoteId;

use valence::prelude::ItemStack;

/// Slots in the wheel's window (a 9×5 chest).
pub const WINDOW_SLOTS: usize = 45;
/// The ring of emote slots, clockwise from the top.
pub const RING_SLOTS: [usize; 8] = [4, 15, 25, 33, 40, 29, 19, 11];
/// Emotes on a page.
pub const EMOTES_PER_PAGE: usize = RING_SLOTS.len();
/// The stop button.
pub const STOP_SLOT: usize = 22;
/// The previous page.
pub const PREVIOUS_SLOT: usize = 36;
/// The next page.
pub const NEXT_SLOT: usize = 44;
/// The first favourites page.
pub const FAVOURITES_SLOT: usize = 0;
/// The first page of every emote.
pub const EVERY_EMOTE_SLOT: usize = 8;
/// The emote camera's on/off switch.
pub const CAMERA_SLOT: usize = 42;

/// What kind of emote an icon stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmoteKind {
    /// An Animation.
    Animation,
    /// A Sequence for one player.
    Sequence,
    /// A two-player Sequence.
    TwoPlayer,
    /// A controller: it plays while the player moves.
    Controller,
}

impl EmoteKind {
    /// The word in the icon's lore.
    pub fn label(self) -> &'static str {
        match self {
            EmoteKind::Animation => "Animation",
            EmoteKind::Sequence => "Sequence",
            EmoteKind::TwoPlayer => "Two-player Sequence",
            EmoteKind::Controller => "Controller: walk, run and jump in it",
        }
    }
}

/// One emote as a player's wheel shows it.
#[derive(Clone, Debug)]
pub struct ShownEmote {
    /// Its id.
    pub id: EmoteId,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.description`.
    pub description: String,
    /// Its kind.
    pub kind: EmoteKind,
    /// `metadata.icon`, or `None` for the kind's default.
    pub icon: Option<ItemStack>,
    /// Whether it is one of the player's favourites.
    pub favourite: bool,
    /// Ticks of the player's cooldown still to run (0: none).
    pub cooldown_ticks: u64,
    /// For a two-player Sequence: the name of a player nearby whose offer
    /// of it is open (a click joins it).
    pub offered_by: Option<String>,
}

/// Who offers emote `id` nearby, for a two-player Sequence (`offers` as in
/// [`super::open::Viewer`]).
pub(super) fn offered_by(
    kind: EmoteKind,
    id: &EmoteId,
    offers: &[(EmoteId, String)],
) -> Option<String> {
    (kind == EmoteKind::TwoPlayer)
        .then(|| offers.iter().find(|(offered, _)| offered == id))
        .flatten()
        .map(|(_, by)| by.clone())
}

/// Which pages a page belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageKind {
    /// The player's favourites.
    Favourites,
    /// Every emote the player may play.
    Every,
}

/// One page: its kind, its number among the pages of that kind, and its
/// emotes (indices into [`WheelBook::emotes`], ring order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// Favourites or every emote.
    pub kind: PageKind,
    /// 1-based, among the pages of its kind.
    pub number: usize,
    /// Pages of its kind.
    pub of: usize,
    /// Up to [`EMOTES_PER_PAGE`] emotes, in ring order.
    pub emotes: Vec<usize>,
}

/// What clicking a slot of a page does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotAction {
    /// Nothing (an empty or decorative slot, or the player's inventory).
    Nothing,
    /// The emote with this index into [`WheelBook::emotes`].
    Emote(usize),
    /// Stop the player's emote.
    Stop,
    /// Turn to this page.
    Page(usize),
    /// Switch the player's emote camera on or off.
    ToggleCamera,
}

/// One player's wheel: the emotes shown, their order, and the pages.
#[derive(Clone, Debug)]
pub struct WheelBook {
    emotes: Vec<ShownEmote>,
    /// Every shown emote, as indices into `emotes`, in wheel order.
    order: Vec<usize>,
    pages: Vec<Page>,
    /// The player's emote camera: on or off, `None` when the server flies
    /// none (no switch).
    camera: Option<bool>,
}

impl WheelBook {
    /// The wheel of `emotes` (in library order) for a player whose stored
    /// wheel order is `wheel_order` (see the module docs).
    pub fn new(emotes: Vec<ShownEmote>, wheel_order: &[String]) -> WheelBook {
        let mut order: Vec<usize> = Vec::with_capacity(emotes.len());
        let mut placed = vec![false; emotes.len()];
        if !wheel_order.is_empty() {
            let by_id: std::collections::HashMap<&str, usize> = emotes
                .iter()
                .enumerate()
                .map(|(i, e)| (e.id.as_str(), i))
                .collect();
            for id in wheel_order {
                if let Some(&i) = by_id.get(id.as_str()) {
                    if !placed[i] {
                        placed[i] = true;
                        order.push(i);
                    }
                }
            }
        }
        order.extend((0..emotes.len()).filter(|&i| !placed[i]));
        let mut book = WheelBook {
            emotes,
            order,
            pages: Vec::new(),
            camera: None,
        };
        book.cut_pages();
        book
    }

    /// Cuts the pages from the order and the favourites.
    fn cut_pages(&mut self) {
        let favourites: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&i| self.emotes[i].favourite)
            .collect();
        let mut pages = Vec::new();
        for (kind, list) in [
            (PageKind::Favourites, &favourites),
            (PageKind::Every, &self.order),
        ] {
            let of = list.len().div_ceil(EMOTES_PER_PAGE);
            for (n, chunk) in list.chunks(EMOTES_PER_PAGE).enumerate() {
                pages.push(Page {
                    kind,
                    number: n + 1,
                    of,
                    emotes: chunk.to_vec(),
                });
            }
        }
        if pages.is_empty() {
            pages.push(Page {
                kind: PageKind::Every,
                number: 1,
                of: 1,
                emotes: Vec::new(),
            });
        }
        self.pages = pages;
    }

    /// The player's emote camera (`None`: the server flies none).
    pub fn camera(&self) -> Option<bool> {
        self.camera
    }

    /// Shows the camera switch, on or off (`None`: hides it).
    pub fn set_camera(&mut self, camera: Option<bool>) {
        self.camera = camera;
    }

    /// Brings each emote's cooldown and nearby offer up to date
    /// (`cooldown_ticks` and `offers` as in [`super::open::Viewer`]);
    /// true when a page would look different: a cooldown started or ended,
    /// or an offer opened, closed or changed hands. A cooldown that only
    /// ran on is updated without counting.
    pub fn refresh_facts(
        &mut self,
        cooldown_ticks: &dyn Fn(&EmoteId) -> u64,
        offers: &[(EmoteId, String)],
    ) -> bool {
        let mut changed = false;
        for emote in &mut self.emotes {
            let cooldown = cooldown_ticks(&emote.id);
            changed |= (cooldown > 0) != (emote.cooldown_ticks > 0);
            emote.cooldown_ticks = cooldown;
            let offered = offered_by(emote.kind, &emote.id, offers);
            changed |= offered != emote.offered_by;
            emote.offered_by = offered;
        }
        changed
    }

    /// The shown emotes, in library order.
    pub fn emotes(&self) -> &[ShownEmote] {
        &self.emotes
    }

    /// The pages (at least one).
    pub fn pages(&self) -> &[Page] {
        &self.pages
    }

    /// Page `index`, or the last one when past the end.
    pub fn page(&self, index: usize) -> &Page {
        &self.pages[index.min(self.pages.len() - 1)]
    }

    /// The first page of `kind`, if any.
    pub fn first_page(&self, kind: PageKind) -> Option<usize> {
        self.pages.iter().position(|p| p.kind == kind)
    }

    /// What clicking `slot` of page `index` does.
    pub fn action(&self, index: usize, slot: usize) -> SlotAction {
        let page = self.page(index);
        let index = index.min(self.pages.len() - 1);
        if let Some(ring) = RING_SLOTS.iter().position(|&s| s == slot) {
            return page
                .emotes
                .get(ring)
                .map_or(SlotAction::Nothing, |&e| SlotAction::Emote(e));
        }
        let favourites = self.first_page(PageKind::Favourites);
        let every = self.first_page(PageKind::Every);
        match slot {
            STOP_SLOT => SlotAction::Stop,
            CAMERA_SLOT if self.camera.is_some() => SlotAction::ToggleCamera,
            PREVIOUS_SLOT if index > 0 => SlotAction::Page(index - 1),
            NEXT_SLOT if index + 1 < self.pages.len() => SlotAction::Page(index + 1),
            FAVOURITES_SLOT if favourites.is_some() && every.is_some() => {
                favourites.map_or(SlotAction::Nothing, SlotAction::Page)
            }
            EVERY_EMOTE_SLOT if favourites.is_some() && every.is_some() => {
                every.map_or(SlotAction::Nothing, SlotAction::Page)
            }
            _ => SlotAction::Nothing,
        }
    }

    /// Makes emote `emote` a favourite or no longer one and re-cuts the
    /// pages; returns the page that shows what `at` showed (the same kind
    /// and number, or the nearest that still exists).
    pub fn set_favourite(&mut self, emote: usize, favourite: bool, at: usize) -> usize {
        let (kind, number) = {
            let page = self.page(at);
            (page.kind, page.number)
        };
        if let Some(shown) = self.emotes.get_mut(emote) {
            shown.favourite = favourite;
        }
        self.cut_pages();
        self.find(kind, number)
    }

    /// Puts the emote at ring position `from` of page `at` in ring position
    /// `to` of the same page, and the one there in its place (in the wheel
    /// order, so both kinds of page change). Returns false when either
    /// position is empty.
    pub fn swap_on_page(&mut self, at: usize, from: usize, to: usize) -> bool {
        let page = self.page(at);
        let (Some(&a), Some(&b)) = (page.emotes.get(from), page.emotes.get(to)) else {
            return false;
        };
        let (Some(pa), Some(pb)) = (
            self.order.iter().position(|&i| i == a),
            self.order.iter().position(|&i| i == b),
        ) else {
            return false;
        };
        self.order.swap(pa, pb);
        self.cut_pages();
        true
    }

    /// The wheel order to store: the shown emotes' ids in order, then the
    /// ids of `stored` that are not shown (an emote that is not loaded, or
    /// not playable now, keeps its place for when it is back).
    pub fn order_to_store(&self, stored: &[String]) -> Vec<String> {
        let mut ids: Vec<String> = self
            .order
            .iter()
            .map(|&i| self.emotes[i].id.to_string())
            .collect();
        for id in stored {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        ids
    }

    /// The page of `kind` numbered `number`, or the nearest one.
    fn find(&self, kind: PageKind, number: usize) -> usize {
        let of_kind: Vec<usize> = (0..self.pages.len())
            .filter(|&i| self.pages[i].kind == kind)
            .collect();
        match of_kind.last() {
            Some(&last) => of_kind
                .get(number.saturating_sub(1))
                .copied()
                .unwrap_or(last),
            None => 0,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn shown(id: &str, favourite: bool) -> ShownEmote {
        ShownEmote {
            id: EmoteId::parse(id).expect("an id"),
            name: id.to_owned(),
            description: String::new(),
            kind: EmoteKind::Animation,
            icon: None,
            favourite,
            cooldown_ticks: 0,
            offered_by: None,
        }
    }

    fn ids(book: &WheelBook, page: usize) -> Vec<&str> {
        book.page(page)
            .emotes
            .iter()
            .map(|&i| book.emotes()[i].id.as_str())
            .collect()
    }

    fn many(n: usize, favourites: &[usize]) -> Vec<ShownEmote> {
        (0..n)
            .map(|i| shown(&format!("t:e{i:02}"), favourites.contains(&i)))
            .collect()
    }

    #[test]
    fn favourites_come_first_then_every_emote_in_eights() {
        let book = WheelBook::new(many(10, &[3, 9]), &[]);
        let kinds: Vec<(PageKind, usize, usize)> = book
            .pages()
            .iter()
            .map(|p| (p.kind, p.number, p.of))
            .collect();
        assert_eq!(
            kinds,
            [
                (PageKind::Favourites, 1, 1),
                (PageKind::Every, 1, 2),
                (PageKind::Every, 2, 2)
            ]
        );
        assert_eq!(ids(&book, 0), ["t:e03", "t:e09"]);
        assert_eq!(ids(&book, 1).len(), 8);
        assert_eq!(ids(&book, 2), ["t:e08", "t:e09"]);
    }

    #[test]
    fn the_stored_order_leads_and_unknown_ids_are_skipped() {
        let order = ["t:e02".to_owned(), "t:gone".into(), "t:e00".into()];
        let book = WheelBook::new(many(3, &[0, 2]), &order);
        assert_eq!(ids(&book, 0), ["t:e02", "t:e00"]);
        assert_eq!(ids(&book, 1), ["t:e02", "t:e00", "t:e01"]);
        // What is stored keeps the id that is not shown, at the end.
        assert_eq!(
            book.order_to_store(&order),
            ["t:e02", "t:e00", "t:e01", "t:gone"]
        );
    }

    #[test]
    fn slots_do_what_the_page_shows() {
        let book = WheelBook::new(many(10, &[1]), &[]);
        // Page 1 (every emote, first page): ring slot 4 is the first emote.
        assert_eq!(book.action(1, 4), SlotAction::Emote(0));
        assert_eq!(book.action(1, 11), SlotAction::Emote(7));
        assert_eq!(book.action(1, STOP_SLOT), SlotAction::Stop);
        assert_eq!(book.action(1, PREVIOUS_SLOT), SlotAction::Page(0));
        assert_eq!(book.action(1, NEXT_SLOT), SlotAction::Page(2));
        assert_eq!(book.action(2, NEXT_SLOT), SlotAction::Nothing);
        assert_eq!(book.action(0, PREVIOUS_SLOT), SlotAction::Nothing);
        assert_eq!(book.action(2, FAVOURITES_SLOT), SlotAction::Page(0));
        assert_eq!(book.action(0, EVERY_EMOTE_SLOT), SlotAction::Page(1));
        // Page 2 has two emotes: the third ring slot is empty.
        assert_eq!(book.action(2, 25), SlotAction::Nothing);
        // The player's inventory and stray slots do nothing.
        for slot in [1, 13, 45, 80] {
            assert_eq!(book.action(1, slot), SlotAction::Nothing);
        }
    }

    #[test]
    fn without_favourites_there_are_no_jumps() {
        let book = WheelBook::new(many(3, &[]), &[]);
        assert_eq!(book.pages().len(), 1);
        assert_eq!(book.action(0, FAVOURITES_SLOT), SlotAction::Nothing);
        assert_eq!(book.action(0, EVERY_EMOTE_SLOT), SlotAction::Nothing);
        let empty = WheelBook::new(Vec::new(), &[]);
        assert_eq!(empty.pages().len(), 1);
        assert!(empty.page(0).emotes.is_empty());
        assert_eq!(empty.action(0, 4), SlotAction::Nothing);
    }

    #[test]
    fn a_new_favourite_keeps_the_player_on_their_page() {
        let mut book = WheelBook::new(many(20, &[]), &[]);
        assert_eq!(book.page(2).kind, PageKind::Every);
        let at = book.set_favourite(5, true, 2);
        // A favourites page was added in front: the same page moved by one.
        assert_eq!(
            (book.page(at).kind, book.page(at).number),
            (PageKind::Every, 3)
        );
        assert_eq!(at, 3);
        assert_eq!(ids(&book, 0), ["t:e05"]);
        // Unfavouriting the last one on the favourites page lands on every emote.
        let at = book.set_favourite(5, false, 0);
        assert_eq!(book.page(at).kind, PageKind::Every);
    }

    #[test]
    fn a_swap_moves_both_emotes_in_every_page() {
        let mut book = WheelBook::new(many(10, &[0, 3]), &[]);
        assert!(book.swap_on_page(0, 0, 1));
        assert_eq!(ids(&book, 0), ["t:e03", "t:e00"]);
        assert_eq!(&ids(&book, 1)[..4], ["t:e03", "t:e01", "t:e02", "t:e00"]);
        assert!(!book.swap_on_page(0, 0, 5), "no emote in ring position 6");
    }

    #[test]
    fn facts_count_as_changed_when_a_cooldown_starts_or_ends_or_an_offer_moves() {
        let mut duo = shown("t:duo", false);
        duo.kind = EmoteKind::TwoPlayer;
        let mut book = WheelBook::new(vec![shown("t:wave", false), duo], &[]);
        let wave = EmoteId::parse("t:wave").expect("an id");
        let duo = EmoteId::parse("t:duo").expect("an id");
        let cooling = |left: u64| {
            let wave = wave.clone();
            move |id: &EmoteId| if *id == wave { left } else { 0 }
        };
        assert!(!book.refresh_facts(&cooling(0), &[]), "nothing new");
        assert!(book.refresh_facts(&cooling(40), &[]), "a cooldown starts");
        assert!(!book.refresh_facts(&cooling(20), &[]), "it only runs on");
        assert_eq!(book.emotes()[0].cooldown_ticks, 20);
        assert!(book.refresh_facts(&cooling(0), &[]), "and ends");
        let offer = [(duo.clone(), "bob".to_owned())];
        assert!(book.refresh_facts(&cooling(0), &offer), "an offer opens");
        assert_eq!(book.emotes()[1].offered_by.as_deref(), Some("bob"));
        assert!(!book.refresh_facts(&cooling(0), &offer));
        // An offer of an emote that is not two-player shows nothing.
        let not_duo = [(EmoteId::parse("t:wave").expect("an id"), "eve".to_owned())];
        assert!(book.refresh_facts(&cooling(0), &not_duo), "bob's closed");
        assert_eq!(book.emotes()[0].offered_by, None);
    }
}
