//! Two-player Sequences with real clients: an offer, a second player who
//! walks up, faces the first and joins, both placed as `participants` says
//! with the matched branch played (partner copies included), the timeout
//! branch when nobody joins, and a partner who disconnects mid-Sequence.
//!
//! The bundled handshake is played as shipped, except for the timeout test,
//! which uses a copy with a short timeout so it does not wait ten seconds.

mod common;

use common::{display_updates, BotRun, Event, Server, TempDir};
use serde_json::json;

fn handshake_folder(timeout: &str) -> TempDir {
    let dir = TempDir::new("duo-emotes");
    let root = env!("CARGO_MANIFEST_DIR");
    for name in [
        "handshake_offer.json",
        "handshake_shake.json",
        "handshake_close.json",
    ] {
        std::fs::copy(format!("{root}/emotes/{name}"), dir.path().join(name)).expect("copy");
    }
    let text = std::fs::read_to_string(format!("{root}/emotes/handshake.json")).expect("read");
    let text = text.replace(
        "\"timeout\": \"10s\"",
        &format!("\"timeout\": \"{timeout}\""),
    );
    assert!(
        text.contains(timeout),
        "the bundled handshake changed shape"
    );
    dir.write("handshake.json", &text);
    dir
}

fn teleports(run: &BotRun) -> Vec<(f64, f64, f64, f64)> {
    run.events
        .iter()
        .filter_map(|e| match e {
            Event::Teleport { x, y, z, yaw, .. } => Some((*x, *y, *z, *yaw)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_second_player_joins_the_offer_and_both_play_the_matched_branch() {
    // The bundled files, as shipped.
    let mut server = Server::start();
    // B stands 1.5 blocks in front of A's spot, facing A (north, yaw 180).
    let bob = server
        .bot("bob")
        .wait_spawn()
        .move_to(0.5, 65.0, 2.0)
        .look(180.0, 0.0)
        .join_handshake("alice")
        .wait_ms(300)
        .position()
        .wait_for(json!({"event": "entity_destroy"}), 1, 15_000)
        .wait_ms(500)
        .disconnect()
        .spawn();
    let alice = server
        .bot("alice")
        .wait_spawn()
        .look(0.0, 0.0)
        .wait_for_since_start(
            json!({"event": "spawn_entity", "username": "bob"}),
            1,
            20_000,
        )
        .wait_ms(2_500)
        .chat("/emote play example:handshake")
        .wait_for(
            json!({"event": "action_bar", "text_contains": "Handshake with bob"}),
            1,
            15_000,
        )
        .wait_for(json!({"event": "entity_destroy"}), 1, 15_000)
        .wait_ms(500)
        .disconnect()
        .run();
    alice.assert_ok();
    let bob = bob.wait();
    bob.assert_ok();

    // Each side's action bar followed the offer: alice waited and played
    // with bob (the offer's own start text covers her bar while bob's join
    // waits); bob's join waited for the match. At the end bob is told the
    // Sequence finished; alice keeps the close's own stop text.
    let alice_bars = alice.action_bar();
    assert!(
        alice_bars
            .iter()
            .any(|t| t.starts_with("Handshake · waiting for a partner, ")),
        "{alice_bars:?}"
    );
    assert!(
        alice_bars.contains(&"Handshake with bob · /emote stop"),
        "{alice_bars:?}"
    );
    let bob_bars = bob.action_bar();
    assert!(
        bob_bars.contains(&"Joining alice's Handshake…"),
        "{bob_bars:?}"
    );
    assert!(
        bob_bars.contains(&"Handshake with alice · /emote stop"),
        "{bob_bars:?}"
    );
    assert_eq!(bob_bars.last(), Some(&"Handshake finished"), "{bob_bars:?}");
    assert_eq!(
        alice_bars.last(),
        Some(&"Handshake over."),
        "{alice_bars:?}"
    );

    // The offer came to bob as a chat line with a [Join] button.
    let offer = bob
        .events
        .iter()
        .find_map(|e| match e {
            Event::Chat { text, json, .. } if text.contains("offers Handshake") => {
                Some(json.clone())
            }
            _ => None,
        })
        .expect("an offer line");
    assert!(
        offer.to_string().contains("/emote play example:handshake"),
        "no clickable join: {offer}"
    );

    // Bob was placed "^ ^ ^0.8" from alice's spot (she faces +Z), turned
    // "~180": he stood 0.7 block from it, too far to stay where he was.
    let spot = alice.spawn().expect("spawned");
    let placed = bob
        .events
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::BotPosition(p) => Some(p.clone()),
            _ => None,
        })
        .expect("bob's position after the match");
    assert!((placed.x - spot.x).abs() < 0.05, "{placed:?}");
    assert!(
        (placed.z - (spot.z + 0.8)).abs() < 0.05,
        "{placed:?} (teleports {:?})",
        teleports(&bob)
    );
    let yaw = placed.yaw.rem_euclid(360.0);
    assert!(
        (yaw - 180.0).abs() < 1.0,
        "bob does not face alice: {placed:?}"
    );

    // Both saw the same displays: the union of offer, shake and close, plus
    // the partner copies of the mirrored Animations.
    let seen = alice.display_ids();
    assert_eq!(seen.len(), bob.display_ids().len());
    // offer: 7 items (the right arm in two, to bend at the elbow) +
    // prompt; shake adds deal_text; the copies: 7 items.
    assert_eq!(seen.len(), 7 + 1 + 1 + 7, "{}", alice.describe());
    // Some display was drawn around bob (0.8 block in front of alice).
    let near_bob = seen.iter().any(|id| {
        display_updates(&alice, *id)
            .iter()
            .any(|(matrix, scale)| scale.length() > 0.01 && (matrix.w_axis.z - 0.8).abs() < 0.4)
    });
    assert!(near_bob, "no partner copy was shown at bob's place");
    // Skin-bound nodes wear their participant's head: alice's own nodes
    // hers, the partner copies bob's (SkullOwner in the item's tag).
    let owners: Vec<String> = seen
        .iter()
        .flat_map(|id| alice.metadata_of(*id))
        .filter_map(|m| {
            let owner = m.fields.get("item")?.get("nbt")?.get("SkullOwner")?;
            owner.get("Name")?.as_str().map(str::to_owned)
        })
        .collect();
    assert!(owners.iter().any(|n| n == "alice"), "{owners:?}");
    assert!(owners.iter().any(|n| n == "bob"), "{owners:?}");
    // All of it is gone at the end, for both.
    for run in [&alice, &bob] {
        let destroyed = run.destroyed();
        assert!(
            seen.iter().all(|id| destroyed.contains(id)),
            "{} still has displays: {}",
            run.username,
            run.describe()
        );
    }
    server.assert_log_clean();
}

#[test]
fn nobody_joins_so_the_timeout_branch_plays() {
    let emotes = handshake_folder("30t");
    let mut server = Server::start_with(&[emotes.path()]);
    let run = server
        .bot("lonely")
        .wait_spawn()
        .chat("/emote play example:handshake")
        .wait_for(
            json!({"event": "action_bar", "text": "Handshake · nobody joined · /emote stop"}),
            1,
            10_000,
        )
        .wait_for(json!({"event": "entity_destroy"}), 1, 10_000)
        .wait_ms(300)
        .disconnect()
        .run();
    run.assert_ok();
    let seen = run.display_ids();
    assert!(!seen.is_empty());
    let destroyed = run.destroyed();
    assert!(
        seen.iter().all(|id| destroyed.contains(id)),
        "{}",
        run.describe()
    );
    // The prompt text of the offer was shown, the partner copies never were.
    server.assert_log_clean();
}

#[test]
fn a_partner_who_disconnects_ends_the_sequence_cleanly() {
    let mut server = Server::start();
    let bob = server
        .bot("bob")
        .wait_spawn()
        .move_to(0.5, 65.0, 2.0)
        .look(180.0, 0.0)
        .join_handshake("alice")
        .wait_ms(500)
        .disconnect()
        .spawn();
    let alice = server
        .bot("alice")
        .wait_spawn()
        .look(0.0, 0.0)
        .wait_for_since_start(
            json!({"event": "spawn_entity", "username": "bob"}),
            1,
            20_000,
        )
        .wait_ms(2_500)
        .chat("/emote play example:handshake")
        .wait_for(
            json!({"event": "action_bar", "text": "Handshake stopped: your partner left"}),
            1,
            15_000,
        )
        .wait_ms(500)
        .disconnect()
        .run();
    alice.assert_ok();
    bob.wait().assert_ok();
    let seen = alice.display_ids();
    let destroyed = alice.destroyed();
    assert!(!seen.is_empty());
    assert!(
        seen.iter().all(|id| destroyed.contains(id)),
        "{}",
        alice.describe()
    );
    server.assert_log_clean();
}
