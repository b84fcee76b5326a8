//! Chat and action-bar feedback with real clients: `/emote list` pages whose
//! entries run `/emote play <id>` when clicked and whose buttons move
//! between pages, the bar shown (and shown again) while an emote plays, the
//! line that says why it ended, and refusals that stay one red chat line.
//!
//! mineflayer cannot click, so the tests read the click values out of the
//! chat JSON and send them the way the client does: as a command.

mod common;

use std::collections::BTreeMap;

use common::{BotRun, Event, Server};
use serde_json::{json, Value};

/// Name and description of every bundled emote, by id.
fn bundled_metadata() -> BTreeMap<String, (String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("emotes/").flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let Ok(file) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if let (Some(id), Some(name)) = (file["id"].as_str(), file["metadata"]["name"].as_str()) {
            let description = file["metadata"]["description"].as_str().unwrap_or_default();
            out.insert(id.to_owned(), (name.to_owned(), description.to_owned()));
        }
    }
    out
}

/// One piece of a chat line: its text and the click and hover it has,
/// inherited from its ancestors as the client does.
#[derive(Debug, Clone)]
struct Piece {
    text: String,
    click: Option<String>,
    hover: Option<Value>,
}

fn pieces(json: &Value) -> Vec<Piece> {
    fn walk(node: &Value, click: Option<String>, hover: Option<Value>, out: &mut Vec<Piece>) {
        if let Some(text) = node.as_str() {
            out.push(Piece {
                text: text.to_owned(),
                click,
                hover,
            });
            return;
        }
        let click = node
            .get("clickEvent")
            .filter(|c| c["action"] == "run_command")
            .and_then(|c| c["value"].as_str())
            .map(str::to_owned)
            .or(click);
        let hover = node.get("hoverEvent").cloned().or(hover);
        if let Some(text) = node.get("text").and_then(Value::as_str) {
            if !text.is_empty() {
                out.push(Piece {
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
    let mut out = Vec::new();
    walk(json, None, None, &mut out);
    out
}

/// The JSON of every list page the bot got, with its plain text.
fn list_pages(run: &BotRun) -> Vec<(String, Value)> {
    run.events
        .iter()
        .filter_map(|e| match e {
            Event::Chat { text, json, .. } if text.starts_with("Emotes (page") => {
                Some((text.clone(), json.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The plain text of a hover's `show_text` contents.
fn hover_text(hover: &Value) -> String {
    assert_eq!(hover["action"], "show_text", "{hover}");
    pieces(&hover["contents"])
        .into_iter()
        .map(|p| p.text)
        .collect()
}

/// The index of the first event after the step that sent `command`.
fn after_step(run: &BotRun, command: &str) -> usize {
    run.events
        .iter()
        .position(|e| matches!(e, Event::Step { step, .. } if step["chat"] == command))
        .unwrap_or_else(|| panic!("no step sent {command}"))
}

fn action_bars_from(run: &BotRun, from: usize) -> Vec<String> {
    run.events[from..]
        .iter()
        .filter_map(|e| match e {
            Event::ActionBar { text: Some(t), .. } => Some(t.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn list_entries_play_when_clicked_and_the_buttons_turn_pages() {
    let mut server = Server::start();
    let metadata = bundled_metadata();

    // Page 1, as a player without any extra permission sees it.
    let first = server
        .bot("reader")
        .wait_spawn()
        .chat("/emote list")
        .wait_for(
            json!({"event": "chat", "text_contains": "Emotes (page 1 of"}),
            1,
            5000,
        )
        .disconnect()
        .run();
    first.assert_ok();
    let pages = list_pages(&first);
    assert_eq!(pages.len(), 1, "{}", first.describe());
    let (plain, json) = &pages[0];
    let page_one = pieces(json);

    // Every entry's click plays exactly the emote it names, and its hover
    // has that emote's description; nothing else on the page plays.
    let mut entries = Vec::new();
    for piece in &page_one {
        let Some(click) = &piece.click else {
            assert!(piece.hover.is_none(), "a hover without a click: {piece:?}");
            continue;
        };
        if let Some(id) = click.strip_prefix("/emote play ") {
            let (name, description) = metadata
                .get(id)
                .unwrap_or_else(|| panic!("{click} plays no bundled emote"));
            assert!(
                piece.text == *name || piece.text.trim() == id,
                "`{}` runs {click}",
                piece.text
            );
            let hover = hover_text(piece.hover.as_ref().expect("an entry has a hover"));
            assert!(hover.contains(description.as_str()), "{hover}");
            assert!(
                hover.contains("Animation") || hover.contains("Sequence"),
                "{hover}"
            );
            if piece.text == *name {
                entries.push((id.to_owned(), name.clone()));
            }
        } else {
            assert!(click.starts_with("/emote list "), "{click}");
        }
    }
    assert_eq!(
        entries.len(),
        emoted::server::commands::LIST_PAGE_SIZE,
        "{plain}"
    );
    let next = page_one
        .iter()
        .find(|p| p.text == "[Next >]")
        .and_then(|p| p.click.clone())
        .expect("page 1 has a next page");
    assert_eq!(next, "/emote list 2");
    assert!(
        page_one
            .iter()
            .any(|p| p.text == "[< Prev]" && p.click.is_none()),
        "page 1 has no previous page: {page_one:?}"
    );

    // Click "Next": page 2, other emotes, and its "Prev" goes back. Then
    // click the first entry of page 1: it plays, and its bar names it.
    let (first_id, first_name) = entries[0].clone();
    let play = format!("/emote play {first_id}");
    let second = server
        .bot("reader")
        .wait_spawn()
        .chat(&next)
        .wait_for(
            json!({"event": "chat", "text_contains": "Emotes (page 2 of"}),
            1,
            5000,
        )
        .chat(&play)
        .wait_for(json!({"event": "spawn_entity"}), 1, 5000)
        .wait_for(
            json!({"event": "action_bar", "text": format!("{first_name} · /emote stop")}),
            1,
            5000,
        )
        .chat("/emote stop")
        .wait_ms(300)
        .disconnect()
        .run();
    second.assert_ok();
    let pages = list_pages(&second);
    assert_eq!(pages.len(), 1, "{}", second.describe());
    let page_two = pieces(&pages[0].1);
    let prev = page_two
        .iter()
        .find(|p| p.text == "[< Prev]")
        .and_then(|p| p.click.clone());
    assert_eq!(prev.as_deref(), Some("/emote list 1"));
    let played_on_two: Vec<&str> = page_two
        .iter()
        .filter_map(|p| p.click.as_deref()?.strip_prefix("/emote play "))
        .collect();
    assert!(!played_on_two.is_empty());
    for id in &played_on_two {
        assert!(
            !entries.iter().any(|(e, _)| e == id),
            "{id} is on pages 1 and 2"
        );
    }
    assert!(
        second.spawned().iter().any(|s| s
            .entity_type
            .as_deref()
            .is_some_and(|t| t.ends_with("_display"))),
        "the clicked emote spawned no display: {}",
        second.describe()
    );
    server.assert_log_clean();
}

#[test]
fn the_bar_stays_while_the_emote_plays_and_the_end_says_why() {
    let mut server = Server::start();
    // The looping guitar: its bar comes again while it plays (three bars
    // mean two resends), and `/emote stop` replaces it with the reason.
    let stopper = server
        .bot("stopper")
        .wait_spawn()
        .chat("/emote play example:guitar")
        .wait_for(
            json!({"event": "action_bar", "text": "Guitar · /emote stop"}),
            3,
            15_000,
        )
        .chat("/emote stop")
        .wait_for_since_start(
            json!({"event": "action_bar", "text": "Guitar stopped: you stopped it"}),
            1,
            5000,
        )
        .wait_ms(2500)
        .disconnect()
        .spawn();
    // The guitar stops when its player walks away: the bar says so. (The
    // emote camera would seat them: no camera for the walker.)
    let walker = server
        .bot("walker")
        .wait_spawn()
        .chat("/emote camera off")
        .move_to(-2.5, 65.0, -6.5)
        .chat("/emote play example:guitar")
        .wait_for(
            json!({"event": "action_bar", "text": "Guitar · /emote stop"}),
            1,
            5000,
        )
        .move_to(-5.5, 65.0, -6.5)
        .wait_for_since_start(
            json!({"event": "action_bar", "text": "Guitar stopped: you moved"}),
            1,
            5000,
        )
        .wait_ms(2500)
        .disconnect()
        .run();
    for run in [&stopper.wait(), &walker] {
        run.assert_ok();
        // Once the end line came, no playing bar follows it.
        let bars = action_bars_from(run, 0);
        let end = bars
            .iter()
            .position(|b| b.starts_with("Guitar stopped: "))
            .expect("an end line");
        assert!(
            bars[end + 1..].iter().all(|b| !b.ends_with("/emote stop")),
            "{} still shows a playing bar after the end: {bars:?}",
            run.username
        );
        assert_eq!(
            bars.iter()
                .filter(|b| b.starts_with("Guitar stopped: "))
                .count(),
            1,
            "{bars:?}"
        );
    }
    server.assert_log_clean();
}

#[test]
fn every_refusal_is_one_red_chat_line_and_no_action_bar() {
    let mut server = Server::start();
    let refusals = [
        ("/emote play example:nope", "Unknown emote `example:nope`"),
        ("/emote play example:sit_down", "not a standalone emote"),
        ("/emote play not-an-id", "is not an emote id"),
        (
            "/emote play example:wave someone",
            "only play emotes on yourself",
        ),
        ("/emote stop", "not playing an emote"),
        ("/emote list 99", "There are only"),
    ];
    let mut plan = server.bot("refused").wait_spawn();
    for (command, _) in refusals {
        plan = plan.chat(command).wait_ms(150);
    }
    let run = plan
        .wait_ms(500)
        .chat("/emote play example:guitar")
        .wait_for(
            json!({"event": "action_bar", "text": "Guitar · /emote stop"}),
            1,
            5000,
        )
        .chat("/emote stop")
        .wait_for_since_start(
            json!({"event": "action_bar", "text_contains": "Guitar stopped"}),
            1,
            5000,
        )
        .chat("/emote play example:guitar")
        .wait_ms(1500)
        .disconnect()
        .run();
    run.assert_ok();

    // Before the first play: no action bar at all.
    let first_play = after_step(&run, "/emote play example:guitar");
    assert!(
        action_bars_from(&run, 0).len() == action_bars_from(&run, first_play).len(),
        "a refusal showed an action bar: {}",
        run.describe()
    );
    let red_lines: Vec<(&str, &Value)> = run
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Chat { text, json, .. } => Some((text.as_str(), json)),
            _ => None,
        })
        .collect();
    let needles = refusals
        .iter()
        .map(|(_, needle)| *needle)
        .chain(["on cooldown"]);
    for needle in needles {
        let lines: Vec<&(&str, &Value)> = red_lines
            .iter()
            .filter(|(t, _)| t.contains(needle))
            .collect();
        assert_eq!(lines.len(), 1, "`{needle}`: {lines:?}");
        let (text, json) = lines[0];
        assert!(!text.contains('\n'), "one line: {text}");
        assert_eq!(json["color"], "red", "`{needle}` is not red: {json}");
    }
    // The refused second play: the cooldown line only, no bar after the
    // first guitar's end line.
    let second_play = run
        .events
        .iter()
        .rposition(|e| matches!(e, Event::Step { step, .. } if step["chat"] == "/emote play example:guitar"))
        .expect("the second play");
    assert_eq!(
        action_bars_from(&run, second_play),
        Vec::<String>::new(),
        "{}",
        run.describe()
    );
    server.assert_log_clean();
}
