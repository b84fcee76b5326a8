//! The emote wheel with real 1.20.1 clients (mineflayer): sneak + F and
//! `/emote` open it, a click plays what it shows (seen by another player),
//! a favourite survives a restart, no inventory trick takes anything out
//! of it, and an open wheel is drawn again when a cooldown ends or an offer
//! opens nearby.
//!
//! The bundled emotes a default player may play, in library order, fill
//! the first page's ring (slots 4, 15, 25, 33, 40, 29, 19, 11, clockwise
//! from the top) with Bow, Cape, Celebrate, Clock Sync, Dance, Fireworks,
//! Guitar and Halo; the tests check the names they click. The sneak + F
//! test plays from the bundled emotes without the cape, so that the
//! handshake (and its Join icon) closes the first page.

mod common;

use common::{Server, TempDir, WindowItems, WHEEL_SLOTS, WHEEL_WINDOW};
use serde_json::json;

/// A config that makes `name` an operator (for `/gamemode creative`, so the
/// bot can hold an item).
fn operator_config(dir: &TempDir, name: &str) -> String {
    let path = dir.write(
        "emoted.toml",
        &format!("[permissions]\noperators = [\"{name}\"]\n"),
    );
    path.to_string_lossy().into_owned()
}

fn emotes() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/emotes")
}

/// The window slot that shows player inventory slot `player_slot` (9–44).
fn window_slot_of(player_slot: usize) -> usize {
    WHEEL_SLOTS + player_slot - 9
}

#[test]
fn sneak_f_opens_the_wheel_without_swapping_and_a_click_plays_for_a_watcher() {
    let dir = TempDir::new("wheel-open");
    let config = operator_config(&dir, "alice");
    let folder = TempDir::new("wheel-open-emotes");
    for entry in std::fs::read_dir(emotes()).expect("the bundled emotes") {
        let path = entry.expect("an entry").path();
        let target = folder.path().join(path.file_name().expect("a name"));
        if path.is_dir() {
            common::container::copy_tree(&path, &target);
        } else if path.file_name().is_some_and(|n| n != "cape.json") {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
    let server = Server::start_with_args(&[folder.path()], &["--config", &config]);
    let watcher = server
        .bot("bob")
        .wait_spawn()
        .chat("/emote play example:handshake")
        .wait_for(
            json!({"event": "spawn_entity", "type": "item_display"}),
            1,
            5000,
        )
        .wait_for(
            json!({"event": "spawn_entity", "type": "item_display"}),
            1,
            15000,
        )
        .wait_ms(1500)
        .disconnect()
        .spawn();
    let run = server
        .bot("alice")
        .wait_spawn()
        .chat("/gamemode creative")
        .wait_ms(400)
        .set_slot(36, "diamond")
        .wait_ms(400)
        // F alone does nothing.
        .swap_hands()
        .wait_ms(600)
        .set_control("sneak", true)
        .wait_ms(300)
        .swap_hands()
        .wait_for(
            json!({"event": "window_open", "window_id": WHEEL_WINDOW}),
            1,
            3000,
        )
        .set_control("sneak", false)
        .wait_ms(300)
        .click_wheel(4, 0, 0)
        .wait_for(json!({"event": "window_close"}), 1, 3000)
        .wait_ms(1500)
        .disconnect()
        .run();
    let watched = watcher.wait();
    run.assert_ok();
    watched.assert_ok();

    // Exactly one wheel opened: by sneak + F, not by F alone.
    let step_times = |kind: &str| -> Vec<u64> {
        run.events
            .iter()
            .filter_map(|e| match e {
                common::Event::Step { t, step, .. } if step.get(kind).is_some() => Some(*t),
                _ => None,
            })
            .collect()
    };
    let presses = step_times("swap_hands");
    let opened = run.windows_opened();
    assert_eq!(opened.len(), 1, "{}", run.describe());
    assert!(
        opened[0].t > presses[1],
        "opened by the second F, with sneak"
    );
    assert_eq!(opened[0].type_id, 4, "a generic 9x5 chest");
    assert!(
        opened[0]
            .title
            .as_deref()
            .is_some_and(|t| t.contains("Emotes")),
        "{:?}",
        opened[0].title
    );

    // The held items were not swapped: the diamond is still in the hand
    // slot as the server sends it, and nothing went to the off hand.
    let first: &WindowItems = run.window_items(WHEEL_WINDOW)[0];
    let player = first.player_part(WHEEL_SLOTS);
    assert_eq!(
        player.get(&36).and_then(|s| s.id.as_deref()),
        Some("minecraft:diamond"),
        "{player:?}"
    );
    assert_eq!(first.slot(window_slot_of(36)).map(|s| s.count), Some(1));
    assert!(
        run.window_slots()
            .iter()
            .filter(|s| s.t > presses[1])
            .all(|s| !(s.window_id == 0 && (s.slot == 36 || s.slot == 45))),
        "the server moved a held item: {:?}",
        run.window_slots()
    );

    // The ring, the stop button, and a next page for the rest.
    let bow = first.slot(4).expect("the ring's top");
    assert_eq!(bow.name.as_deref(), Some("Bow"));
    assert!(bow.lore_text().contains("Animation"), "{}", bow.lore_text());
    assert_eq!(
        first.slot(22).and_then(|s| s.id.as_deref()),
        Some("minecraft:barrier")
    );
    assert_eq!(
        first.slot(44).and_then(|s| s.id.as_deref()),
        Some("minecraft:arrow")
    );
    // Bob's open handshake offer nearby makes its icon a "Join".
    let handshake = first.slot(11).expect("the eighth ring slot");
    let name = handshake.name.as_deref().unwrap_or("");
    assert!(
        name.contains("Handshake") && name.contains("Join"),
        "{name}"
    );
    assert!(handshake.lore_text().contains("Join bob's offer"));
    assert!(handshake.lore_text().contains("Two-player Sequence"));

    // The click played the bow: alice hears it, bob sees its displays.
    assert!(
        run.action_bar().iter().any(|t| t.contains("Bow")),
        "{:?}",
        run.action_bar()
    );
    let click_at = step_times("click_window")[0];
    let clock = |r: &common::BotRun| r.clock_unix_ms().expect("a clock") as i64;
    let bob_saw = watched
        .spawned_of("item_display")
        .iter()
        .filter(|s| clock(&watched) + s.t as i64 > clock(&run) + click_at as i64)
        .count();
    assert!(
        bob_saw > 0,
        "bob saw no display after the click: {}",
        watched.describe()
    );
}

#[test]
fn no_inventory_trick_takes_anything_out_of_the_wheel() {
    let dir = TempDir::new("wheel-tricks");
    let config = operator_config(&dir, "carol");
    let server = Server::start_with_args(&[emotes()], &["--config", &config]);
    let hand = window_slot_of(36) as i16;
    let icon = |slot: i16| json!([{"slot": slot}]);
    let stand = |slot: i16| json!({"slot": slot, "item": "armor_stand", "count": 1});
    let mut plan = server
        .bot("carol")
        .wait_spawn()
        .chat("/gamemode creative")
        .wait_ms(400)
        .set_slot(36, "diamond")
        .wait_ms(400)
        .chat("/emote")
        .wait_wheel_items(3000);
    // Each trick as a client that believes it worked claims, then a wait
    // for the server's answer.
    let steps: Vec<Box<dyn Fn(common::Plan) -> common::Plan>> = vec![
        // Shift-click an icon into the inventory.
        Box::new(move |p| {
            p.click_wheel_claiming(4, 0, 1, json!([{"slot": 4}, stand(hand + 1)]), json!(null))
        }),
        // Number key 9 over an icon: the icon into hotbar slot 9.
        Box::new(move |p| {
            p.click_wheel_claiming(
                15,
                8,
                2,
                json!([{"slot": 15}, stand(hand + 8)]),
                json!(null),
            )
        }),
        // F over an icon: the icon into the off hand.
        Box::new(move |p| p.click_wheel_claiming(25, 40, 2, icon(25), json!(null))),
        // A left click on an empty slot that claims an icon on the cursor.
        Box::new(move |p| {
            p.click_wheel_claiming(13, 0, 0, json!([]), json!({"item": "armor_stand"}))
        }),
        // Drag a stack over the inventory: start, add a slot, end.
        Box::new(move |p| {
            p.click_wheel_claiming(-999, 0, 5, json!([]), json!(null))
                .click_wheel_claiming(hand + 2, 1, 5, json!([]), json!(null))
                .click_wheel_claiming(-999, 2, 5, json!([stand(hand + 2)]), json!(null))
        }),
        // Double-click the diamond: everything like it onto the cursor.
        Box::new(move |p| {
            p.click_wheel_claiming(
                hand,
                0,
                6,
                json!([{"slot": hand}]),
                json!({"item": "diamond"}),
            )
        }),
        // Throw an icon (Q) and a whole stack (Ctrl+Q).
        Box::new(move |p| p.click_wheel_claiming(33, 0, 4, icon(33), json!(null))),
        Box::new(move |p| p.click_wheel_claiming(hand, 1, 4, json!([{"slot": hand}]), json!(null))),
        // Take the diamond and drop it outside the window.
        Box::new(move |p| {
            p.click_wheel_claiming(
                hand,
                0,
                0,
                json!([{"slot": hand}]),
                json!({"item": "diamond"}),
            )
            .click_wheel_claiming(-999, 0, 0, json!([]), json!(null))
        }),
        // The creative middle click: a copy of the icon on the cursor.
        Box::new(move |p| {
            p.click_wheel_claiming(40, 2, 3, json!([]), json!({"item": "armor_stand"}))
        }),
    ];
    let trick_count = steps.len();
    for step in &steps {
        plan = step(plan).wait_wheel_items(3000).wait_ms(150);
    }
    let run = plan.close_wheel().wait_ms(300).disconnect().run();
    run.assert_ok();

    let items = run.window_items(WHEEL_WINDOW);
    assert!(
        items.len() > trick_count,
        "{} window contents for {trick_count} tricks: {}",
        items.len(),
        run.describe()
    );
    let first = items[0];
    let wheel_part = |w: &WindowItems| {
        w.slots
            .iter()
            .filter(|(i, _)| **i < WHEEL_SLOTS)
            .map(|(i, s)| (*i, s.clone()))
            .collect::<Vec<_>>()
    };
    for (n, after) in items.iter().enumerate() {
        assert_eq!(after.slot_count, WHEEL_SLOTS + 36);
        let player = after.player_part(WHEEL_SLOTS);
        assert_eq!(
            player.keys().copied().collect::<Vec<_>>(),
            [36],
            "contents {n}: the inventory changed: {player:?}"
        );
        assert_eq!(player[&36].id.as_deref(), Some("minecraft:diamond"));
        assert_eq!(player[&36].count, 1);
        assert_eq!(after.carried, None, "contents {n}: something on the cursor");
        assert_eq!(
            wheel_part(after),
            wheel_part(first),
            "contents {n}: the wheel changed"
        );
    }
    // No trick played or stopped anything, and the wheel stayed open.
    assert_eq!(run.windows_closed(), 0);
    assert!(run.spawned_of("item_display").is_empty());
    // No single-slot update put an icon anywhere, and valence's own
    // answers (it refuses clicks on a window it does not know and resyncs
    // the player's inventory, window 0) show the same inventory.
    let opened_at = first.t;
    assert!(
        run.window_slots()
            .iter()
            .filter(|s| s.t >= opened_at)
            .all(|s| s.item.as_ref().and_then(|i| i.id.as_deref()) != Some("minecraft:armor_stand")),
        "{:?}",
        run.window_slots()
    );
    let resyncs: Vec<&WindowItems> = run
        .window_items(0)
        .into_iter()
        .filter(|w| w.t >= opened_at)
        .collect();
    assert!(!resyncs.is_empty(), "valence answered no click");
    for own in resyncs {
        let held: Vec<(usize, Option<&str>)> = own
            .slots
            .iter()
            .map(|(i, s)| (*i, s.id.as_deref()))
            .collect();
        assert_eq!(held, [(36, Some("minecraft:diamond"))]);
        assert_eq!(own.carried, None);
    }
}

#[test]
fn a_favourite_and_the_wheel_order_survive_a_restart() {
    let data = TempDir::new("wheel-store");
    let folder = data.path().join("data");
    let folder_arg = folder.to_string_lossy().into_owned();
    let args = ["--data-folder", folder_arg.as_str()];
    let run = {
        let server = Server::start_with_args(&[emotes()], &args);
        let run = server
            .bot("dave")
            .wait_spawn()
            .chat("/emotes")
            .wait_wheel_items(3000)
            // Right-click Cape (ring slot 15): a favourite.
            .click_wheel(15, 1, 0)
            .wait_wheel_items(3000)
            .wait_ms(200)
            // Number key 2 over Bow (ring place 1): Bow and Cape swap.
            .click_wheel(4, 1, 2)
            .wait_wheel_items(3000)
            .wait_ms(200)
            .close_wheel()
            .wait_ms(300)
            .disconnect()
            .run();
        run.assert_ok();
        run
    };
    assert!(folder.join("players.sqlite3").is_file());
    // The favourite shows at once: a favourites page in front.
    let items = run.window_items(WHEEL_WINDOW);
    let last = items.last().expect("contents");
    let titles: Vec<String> = run
        .windows_opened()
        .iter()
        .filter_map(|w| w.title.clone())
        .collect();
    // The page moved back by one, so the window was sent again, on the
    // same page of every emote.
    assert_eq!(titles.len(), 2, "{titles:?}");
    assert!(titles[0].starts_with("Emotes · 1/"), "{titles:?}");
    assert_eq!(titles[0], titles[1]);
    let favourited = items[items.len() - 2];
    let (slot, cape) = favourited.named("Cape").expect("Cape on the same page");
    assert_eq!(slot, 15);
    assert!(cape.glint, "a favourite glints");
    assert_eq!(last.named("Cape").map(|(s, _)| s), Some(4), "swapped");
    assert_eq!(last.named("Bow").map(|(s, _)| s), Some(15), "swapped");

    let server = Server::start_with_args(&[emotes()], &args);
    let again = server
        .bot("dave")
        .wait_spawn()
        .chat("/emote")
        .wait_wheel_items(3000)
        .wait_ms(200)
        // To every emote, in the stored order.
        .click_wheel(44, 0, 0)
        .wait_wheel_items(3000)
        .close_wheel()
        .wait_ms(200)
        .disconnect()
        .run();
    again.assert_ok();
    let opened = again.windows_opened();
    assert!(
        opened[0]
            .title
            .as_deref()
            .is_some_and(|t| t.contains("Favourites 1/1")),
        "{:?}",
        opened[0].title
    );
    let page = again.window_items(WHEEL_WINDOW)[0];
    let top = page.slot(4).expect("the favourite on top");
    assert!(
        top.name.as_deref().is_some_and(|n| n.contains("★ Cape")),
        "{top:?}"
    );
    assert!(page.slot(15).is_none(), "one favourite only");
    let every = *again
        .window_items(WHEEL_WINDOW)
        .last()
        .expect("every emote");
    assert_eq!(
        every.named("Cape").map(|(s, _)| s),
        Some(4),
        "the order was kept"
    );
    assert_eq!(every.named("Bow").map(|(s, _)| s), Some(15));
    assert!(server.log().contains("players.sqlite3"));
}

#[test]
fn an_open_wheel_shows_a_cooldown_end_and_a_new_offer_without_a_click() {
    // Two emotes on the first page: Handshake (two-player) and Heart (a
    // 3-second cooldown).
    let folder = TempDir::new("wheel-refresh-emotes");
    for name in [
        "heart.json",
        "handshake.json",
        "handshake_offer.json",
        "handshake_shake.json",
        "handshake_close.json",
    ] {
        std::fs::copy(
            std::path::Path::new(emotes()).join(name),
            folder.path().join(name),
        )
        .expect("copy");
    }
    let server = Server::start_with_args(&[folder.path()], &[]);
    // Bob offers the handshake beside alice while her wheel is open.
    let bob = server
        .bot("bob")
        .wait_spawn()
        .wait_ms(3_000)
        .chat("/emote play example:handshake")
        .wait_ms(3_000)
        .disconnect()
        .spawn();
    let alice = server
        .bot("alice")
        .wait_spawn()
        .chat("/emote play example:heart")
        .wait_ms(300)
        .chat("/emote")
        .wait_for(
            json!({"event": "window_open", "window_id": WHEEL_WINDOW}),
            1,
            3_000,
        )
        .wait_ms(5_000) // no click from here on
        .disconnect()
        .run();
    let bob = bob.wait();
    alice.assert_ok();
    bob.assert_ok();

    let lore_of = |items: &WindowItems, name: &str| -> String {
        items
            .named(name)
            .map(|(_, stack)| stack.lore_text())
            .unwrap_or_else(|| panic!("{name} on the page"))
    };
    let drawn = alice.window_items(WHEEL_WINDOW);
    assert!(drawn.len() >= 2, "{}", alice.describe());
    // Opened with Heart cooling down and no offer.
    assert!(lore_of(drawn[0], "Heart").contains("Cooldown"));
    assert!(!lore_of(drawn[0], "Handshake").contains("bob"));
    // Then, with no click: Heart's cooldown ends, and bob's offer shows
    // (both about 3 seconds in: one redraw may show both).
    let later = &drawn[1..];
    assert!(
        later
            .iter()
            .any(|items| !lore_of(items, "Heart").contains("Cooldown")),
        "the cooldown's end is drawn"
    );
    assert!(
        later
            .iter()
            .any(|items| lore_of(items, "Handshake").contains("bob")),
        "bob's offer is drawn: {:?}",
        later
            .iter()
            .map(|items| lore_of(items, "Handshake"))
            .collect::<Vec<_>>()
    );
    // Nothing else was sent: each redraw is one of those changes (the
    // cooldown ending, the offer opening and, after bob's 3 seconds, maybe
    // closing).
    assert!(drawn.len() <= 4, "{} windows", drawn.len());
}
