//! `/emote list [page]`: the emotes a player may play, one chat message a
//! page, every entry a button.
//!
//! A page is a header ("Emotes (page 2 of 5)"), [`LIST_PAGE_SIZE`] entries
//! and, when there is more than one page, a row with `[< Prev]` and
//! `[Next >]`. An entry is the emote's name and id; clicking anywhere on it
//! runs `/emote play <id>` and hovering shows its description, its kind
//! (Animation, Sequence, two-player Sequence), its cooldown and, when one is
//! running for this player, how long is left. The buttons run `/emote list
//! <page>`; a button with no page behind it is drawn grey and does nothing.
//!
//! How the text is built matters, because in a JSON text a child inherits
//! its parent's style **and click and hover events**: the message is an
//! empty root whose children are the lines' pieces side by side (header,
//! line breaks, entries, buttons), so nothing leaks from one piece into the
//! next. Inside an entry the id is a child of the name on purpose: it
//! inherits the name's click and hover, so the whole entry is one button.
//! Click values start with `/` (1.20.1 refuses to run one without) and
//! carry only the id and a page number, which the command tree parses as a
//! resource location and an integer: no signed argument, so the client
//! runs them without asking.

use valence::prelude::*;

use crate::format::{EmoteFile, EmoteId};

/// Emotes per page of `/emote list`: with the header and the button row a
/// page is ten lines, what the chat box shows while it is closed, so a page
/// is read whole without scrolling.
pub const LIST_PAGE_SIZE: usize = 8;

/// Ticks per second, for the seconds the hover shows.
const TICKS_PER_SECOND: f64 = 20.0;

/// The command an entry runs when clicked.
pub(super) fn play_command(id: &EmoteId) -> String {
    format!("/emote play {id}")
}

/// The command a page button runs.
pub(super) fn list_command(page: usize) -> String {
    format!("/emote list {page}")
}

/// What kind of emote a file is, as the hover names it.
pub(super) fn kind_name(file: &EmoteFile) -> &'static str {
    match file {
        EmoteFile::Animation(a) if a.settings.standalone => "Animation",
        EmoteFile::Animation(_) => "Animation (played inside Sequences)",
        EmoteFile::Sequence(s) if s.is_two_player() => "Two-player Sequence",
        EmoteFile::Sequence(_) => "Sequence",
        EmoteFile::Controller(_) => "Controller (plays while you move)",
    }
}

fn cooldown_ticks(file: &EmoteFile) -> u32 {
    match file {
        EmoteFile::Animation(a) => a.settings.cooldown_ticks,
        EmoteFile::Sequence(s) => s.settings.cooldown_ticks,
        EmoteFile::Controller(c) => c.settings.cooldown_ticks,
    }
}

/// `ticks` as seconds for people: "2s", "0.5s", "1.3s" (one decimal,
/// rounded up so that "0s" never shows for a cooldown still running).
pub(super) fn seconds(ticks: u64) -> String {
    let tenths = (ticks as f64 / TICKS_PER_SECOND * 10.0).ceil() as u64;
    if tenths.is_multiple_of(10) {
        format!("{}s", tenths / 10)
    } else {
        format!("{}.{}s", tenths / 10, tenths % 10)
    }
}

/// One emote on the list.
pub(super) struct Listed<'a> {
    /// Its id.
    pub(super) id: &'a EmoteId,
    /// Its file.
    pub(super) file: &'a EmoteFile,
    /// The player's cooldown left on it, in ticks (0: none).
    pub(super) cooldown_left_ticks: u64,
}

/// Page `page` of `emotes` (see the module docs).
pub(super) fn page_text(emotes: &[Listed], page: usize) -> Text {
    if emotes.is_empty() {
        return "There are no emotes you may play.".color(Color::GOLD);
    }
    let pages = emotes.len().div_ceil(LIST_PAGE_SIZE);
    if page > pages {
        return match pages {
            1 => "There is only one page of emotes.".color(Color::RED),
            _ => format!("There are only {pages} pages of emotes.").color(Color::RED),
        };
    }
    let mut message = Text::text("")
        + format!("Emotes (page {page} of {pages})").color(Color::GOLD)
        + " · click one to play it".color(Color::GRAY);
    for listed in emotes
        .iter()
        .skip((page - 1) * LIST_PAGE_SIZE)
        .take(LIST_PAGE_SIZE)
    {
        message = message + "\n  " + entry(listed);
    }
    if pages > 1 {
        message = message
            + "\n"
            + page_button("[< Prev]", page.checked_sub(1).filter(|p| *p >= 1))
            + "  "
            + page_button("[Next >]", Some(page + 1).filter(|p| *p <= pages));
    }
    message
}

/// One entry: the name, then the id (a child, so the same button).
fn entry(listed: &Listed) -> Text {
    let meta = listed.file.metadata();
    meta.name
        .clone()
        .color(Color::GOLD)
        .on_click_run_command(play_command(listed.id))
        .on_hover_show_text(hover(listed))
        + format!(" {}", listed.id).color(Color::GRAY)
}

/// What hovering over an entry shows.
fn hover(listed: &Listed) -> Text {
    let meta = listed.file.metadata();
    let mut facts = kind_name(listed.file).to_owned();
    let cooldown = cooldown_ticks(listed.file);
    if cooldown > 0 {
        facts.push_str(&format!(" · cooldown {}", seconds(u64::from(cooldown))));
    }
    let mut text = Text::text("") + meta.name.clone().color(Color::GOLD).bold();
    if !meta.description.is_empty() {
        text = text + "\n" + meta.description.clone().color(Color::WHITE);
    }
    text = text + "\n" + facts.color(Color::GRAY) + "\n";
    if listed.cooldown_left_ticks > 0 {
        text + format!("On cooldown: {} left", seconds(listed.cooldown_left_ticks))
            .color(Color::RED)
    } else {
        text + format!("Click to run {}", play_command(listed.id)).color(Color::GREEN)
    }
}

/// `[< Prev]` or `[Next >]`: a button to `target`, or grey text when
/// there is no such page.
fn page_button(label: &'static str, target: Option<usize>) -> Text {
    match target {
        Some(page) => label
            .color(Color::GREEN)
            .on_click_run_command(list_command(page))
            .on_hover_show_text(format!("Page {page}")),
        None => label.color(Color::DARK_GRAY),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::format::read_emote_file;

    /// Every bundled Animation and Sequence, in id order.
    fn bundled() -> Vec<EmoteFile> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
        let mut files: Vec<EmoteFile> = std::fs::read_dir(dir)
            .expect("emotes/")
            .flatten()
            .filter_map(|entry| read_emote_file(&entry.path()).file)
            .collect();
        files.sort_by(|a, b| a.id().as_str().cmp(b.id().as_str()));
        files
    }

    fn listed(files: &[EmoteFile]) -> Vec<Listed<'_>> {
        files
            .iter()
            .map(|file| Listed {
                id: file.id(),
                file,
                cooldown_left_ticks: 0,
            })
            .collect()
    }

    /// A piece of plain text and the click and hover it ends up with once
    /// inherited from its ancestors, as the client reads the JSON.
    #[derive(Debug)]
    struct Leaf {
        text: String,
        click: Option<(String, String)>,
        hover: Option<Value>,
    }

    fn leaves(text: &Text) -> Vec<Leaf> {
        let json: Value = serde_json::from_str(&text.to_string()).expect("valid JSON");
        let mut out = Vec::new();
        walk(&json, None, None, &mut out);
        out
    }

    fn walk(
        node: &Value,
        click: Option<(String, String)>,
        hover: Option<Value>,
        out: &mut Vec<Leaf>,
    ) {
        let click = node
            .get("clickEvent")
            .map(|c| {
                (
                    c["action"].as_str().unwrap_or_default().to_owned(),
                    c["value"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .or(click);
        let hover = node.get("hoverEvent").cloned().or(hover);
        if let Some(text) = node.get("text").and_then(Value::as_str) {
            if !text.is_empty() {
                out.push(Leaf {
                    text: text.to_owned(),
                    click: click.clone(),
                    hover: hover.clone(),
                });
            }
        }
        for child in node
            .get("extra")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            walk(child, click.clone(), hover.clone(), out);
        }
    }

    fn plain(text: &Text) -> String {
        leaves(text).iter().map(|l| l.text.as_str()).collect()
    }

    fn run_command(value: &str) -> Option<(String, String)> {
        Some(("run_command".to_owned(), value.to_owned()))
    }

    #[test]
    fn each_entry_plays_its_own_emote_and_nothing_else_is_clickable() {
        let files = bundled();
        let emotes = listed(&files);
        assert!(emotes.len() > LIST_PAGE_SIZE, "the test wants two pages");
        let page = page_text(&emotes, 1);
        let leaves = leaves(&page);
        for emote in &emotes[..LIST_PAGE_SIZE] {
            let name = &emote.file.metadata().name;
            let id = format!(" {}", emote.id);
            for piece in [name.as_str(), id.as_str()] {
                let leaf = leaves
                    .iter()
                    .find(|l| l.text == piece)
                    .unwrap_or_else(|| panic!("no `{piece}` in {leaves:?}"));
                assert_eq!(
                    leaf.click,
                    run_command(&format!("/emote play {}", emote.id)),
                    "{piece}"
                );
                assert!(leaf.hover.is_some(), "{piece}");
            }
        }
        // The header and the line breaks carry no click (the root is
        // empty, so nothing is inherited from it).
        for leaf in &leaves {
            if leaf.text.starts_with("Emotes (page") || leaf.text.trim().is_empty() {
                assert_eq!(leaf.click, None, "{leaf:?}");
                assert_eq!(leaf.hover, None, "{leaf:?}");
            }
        }
        // Page 1 has no previous page and a next one.
        let prev = leaves.iter().find(|l| l.text == "[< Prev]").expect("prev");
        assert_eq!(prev.click, None);
        let next = leaves.iter().find(|l| l.text == "[Next >]").expect("next");
        assert_eq!(next.click, run_command("/emote list 2"));
        // The ninth emote is not on page 1.
        let ninth = format!(" {}", emotes[LIST_PAGE_SIZE].id);
        assert!(!leaves.iter().any(|l| l.text == ninth), "{leaves:?}");
        assert!(plain(&page).starts_with(&format!(
            "Emotes (page 1 of {})",
            emotes.len().div_ceil(LIST_PAGE_SIZE)
        )));
    }

    #[test]
    fn pages_move_both_ways_and_the_last_has_no_next() {
        let files = bundled();
        let emotes = listed(&files);
        let pages = emotes.len().div_ceil(LIST_PAGE_SIZE);
        let second = leaves(&page_text(&emotes, 2));
        let prev = second.iter().find(|l| l.text == "[< Prev]").expect("prev");
        assert_eq!(prev.click, run_command("/emote list 1"));
        let ninth = format!(" {}", emotes[LIST_PAGE_SIZE].id);
        let entry = second.iter().find(|l| l.text == ninth).expect("9th entry");
        assert_eq!(
            entry.click,
            run_command(&format!("/emote play {}", emotes[LIST_PAGE_SIZE].id))
        );
        let last = leaves(&page_text(&emotes, pages));
        let next = last.iter().find(|l| l.text == "[Next >]").expect("next");
        assert_eq!(next.click, None);
        let past = plain(&page_text(&emotes, pages + 1));
        assert_eq!(past, format!("There are only {pages} pages of emotes."));
    }

    #[test]
    fn one_page_has_no_buttons() {
        let files = bundled();
        let emotes = listed(&files[..3]);
        let page = plain(&page_text(&emotes, 1));
        assert!(page.starts_with("Emotes (page 1 of 1)"), "{page}");
        assert!(!page.contains("[Next >]") && !page.contains("[< Prev]"));
        assert_eq!(
            plain(&page_text(&emotes, 2)),
            "There is only one page of emotes."
        );
        assert_eq!(
            plain(&page_text(&[], 1)),
            "There are no emotes you may play."
        );
    }

    #[test]
    fn the_hover_shows_the_description_kind_and_cooldown_left() {
        let files = bundled();
        let mut emotes = listed(&files);
        let wave = emotes
            .iter()
            .position(|l| l.id.as_str() == "example:wave")
            .expect("bundled wave");
        emotes[wave].cooldown_left_ticks = 25;
        let handshake = emotes
            .iter()
            .position(|l| l.id.as_str() == "example:handshake")
            .expect("bundled handshake");
        let hover_of = |index: usize| {
            let page = index / LIST_PAGE_SIZE + 1;
            let leaves = leaves(&page_text(&emotes, page));
            let id = format!(" {}", emotes[index].id);
            let hover = leaves
                .iter()
                .find(|l| l.text == id)
                .and_then(|l| l.hover.clone())
                .expect("a hover");
            assert_eq!(hover["action"], "show_text", "{hover}");
            let shown: Text =
                serde_json::from_value(hover["contents"].clone()).expect("hover text");
            plain(&shown)
        };
        let shown = hover_of(wave);
        let description = &emotes[wave].file.metadata().description;
        assert!(shown.contains(description.as_str()), "{shown}");
        assert!(shown.contains("Animation · cooldown 2s"), "{shown}");
        assert!(shown.contains("On cooldown: 1.3s left"), "{shown}");
        let shown = hover_of(handshake);
        assert!(shown.contains("Two-player Sequence"), "{shown}");
        assert!(
            shown.contains("Click to run /emote play example:handshake"),
            "{shown}"
        );
    }

    #[test]
    fn seconds_round_up_to_a_tenth() {
        assert_eq!(seconds(40), "2s");
        assert_eq!(seconds(10), "0.5s");
        assert_eq!(seconds(1), "0.1s");
        assert_eq!(seconds(25), "1.3s");
        assert_eq!(seconds(0), "0s");
    }
}
