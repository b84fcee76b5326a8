//! An Animation with an `nbt` track plays for a real 1.20.1 client
//! (mineflayer): `tests/fixtures/nbt_tracks/flowers.json` loops a 20-tick
//! cycle whose flower picks its item by Molang at `0t`
//! (`math.mod(q.loop_count, 3)`: a poppy, a dandelion, a blue orchid, one a
//! cycle), glows from `10t` and turns into a diamond at `15t`. The player
//! receives the item display's metadata changes in that order, each at its
//! key's tick; a player who arrives while it plays is sent the flower as
//! the keys left it.
//!
//! Ticks are counted in the stream itself, never on a wall clock: the
//! fixture's `clock` block display is shown on odd ticks and hidden on
//! even ones, so the client gets one metadata packet for it every tick.
//! Two entities changed on the same tick may arrive in either order, so a
//! gap is checked to within two ticks.

mod common;

use common::{BotRun, Event, Server};

const FLOWERS: &str = "test:nbt_flowers";

/// The flower's item from each cycle's first key, by loop count.
const PICKED: [&str; 3] = [
    "minecraft:poppy",
    "minecraft:dandelion",
    "minecraft:blue_orchid",
];

/// One metadata packet of the flower that set its item or its flags.
#[derive(Debug)]
struct Seen {
    /// Clock packets received before it: ticks, give or take one.
    tick: usize,
    /// The item it set.
    item: Option<String>,
    /// The glow it set (flags 0x40).
    glowing: Option<bool>,
}

/// The one display of `entity_type` the run saw spawn.
fn the_display(run: &BotRun, entity_type: &str) -> i32 {
    let spawned = run.spawned_of(entity_type);
    assert_eq!(spawned.len(), 1, "one {entity_type}: {}", run.describe());
    spawned[0].entity_id
}

/// The flower's item and glow changes, each with the clock's count then.
fn flower_changes(run: &BotRun) -> Vec<Seen> {
    let (flower, clock) = (
        the_display(run, "item_display"),
        the_display(run, "block_display"),
    );
    let mut ticks = 0;
    let mut out = Vec::new();
    for event in &run.events {
        let Event::EntityMetadata(m) = event else {
            continue;
        };
        if m.entity_id == clock && m.fields.contains_key("scale") {
            ticks += 1;
        } else if m.entity_id == flower {
            let item = m.item_id().map(str::to_owned);
            let glowing = m.int("flags").map(|flags| flags & 0x40 != 0);
            if item.is_some() || glowing.is_some() {
                out.push(Seen {
                    tick: ticks,
                    item,
                    glowing,
                });
            }
        }
    }
    out
}

#[test]
fn an_nbt_track_picks_the_item_by_molang_and_changes_it_at_its_keys() {
    let mut server = Server::start_with(&["tests/fixtures/nbt_tracks"]);
    let alice = server
        .bot("alice")
        .wait_spawn()
        .wait_ms(300)
        .chat(&format!("/emote play {FLOWERS}"))
        .wait_ms(5000)
        .chat("/emote stop")
        .wait_ms(400)
        .disconnect()
        .spawn();
    // Bob arrives while it plays: he is sent the flower as the keys left it.
    std::thread::sleep(std::time::Duration::from_millis(2000));
    let bob = server
        .bot("bob")
        .wait_spawn()
        .wait_ms(2000)
        .disconnect()
        .run();
    let run = alice.wait();
    run.assert_ok();
    bob.assert_ok();
    let late = flower_changes(&bob);
    let first = late.first().and_then(|s| s.item.as_deref());
    assert!(
        first.is_some_and(|item| item != "minecraft:stick"),
        "a late viewer gets the keyed item at once: {late:?}\n{}",
        bob.describe()
    );
    let changes = flower_changes(&run);
    let describe = || format!("{changes:#?}\n{}", run.describe());

    // The items in order: the stick it spawned with (unless the first key
    // came with the spawn), then per cycle the pick and the diamond.
    let mut items: Vec<&str> = changes.iter().filter_map(|s| s.item.as_deref()).collect();
    if items.first() == Some(&"minecraft:stick") {
        items.remove(0);
    }
    let expected: Vec<&str> = (0..items.len())
        .map(|i| match i % 2 {
            0 => PICKED[(i / 2) % 3],
            _ => "minecraft:diamond",
        })
        .collect();
    assert_eq!(items, expected, "{}", describe());
    assert!(
        items.len() >= 6,
        "three cycles at least (5 s, 100 ticks at 20 tps): {}",
        describe()
    );

    // Each cycle from its pick: the glow 10 ticks later, the diamond 5
    // after that, the next pick 5 after that (and its glow off with it).
    let picks: Vec<usize> = changes
        .iter()
        .enumerate()
        .filter(|(_, s)| s.item.as_deref().is_some_and(|i| PICKED.contains(&i)))
        .map(|(index, _)| index)
        .collect();
    let near =
        |from: &Seen, to: &Seen, ticks: i64| (to.tick as i64 - from.tick as i64 - ticks).abs() <= 2;
    for window in picks.windows(2) {
        let cycle = &changes[window[0]..=window[1]];
        let (pick, next) = (&cycle[0], &cycle[cycle.len() - 1]);
        // The first pick changes no glow; the next puts it out.
        assert_ne!(pick.glowing, Some(true), "a pick does not glow: {pick:?}");
        assert_eq!(next.glowing, Some(false), "the next puts it out: {next:?}");
        let glow = cycle
            .iter()
            .find(|s| s.glowing == Some(true))
            .unwrap_or_else(|| panic!("a glow in {cycle:?}"));
        assert!(glow.item.is_none(), "the glow keeps the flower: {glow:?}");
        let diamond = cycle
            .iter()
            .find(|s| s.item.as_deref() == Some("minecraft:diamond"))
            .unwrap_or_else(|| panic!("a diamond in {cycle:?}"));
        assert!(
            near(pick, glow, 10)
                && near(glow, diamond, 5)
                && near(diamond, next, 5)
                && near(pick, next, 20),
            "key gaps 10, 5, 5 ticks: {cycle:?}"
        );
    }
    assert!(picks.len() >= 3, "{}", describe());
    server.assert_log_clean();
}
