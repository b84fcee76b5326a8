//! View-range culling's bookkeeping, on the real server in-process (the
//! `emoted loadtest` harness): an emote's displays go into a cell layer that
//! clients in range see and a client past the range does not; the cell
//! follows a client that walks away and back; a reload to a reach past the
//! chunk view moves the displays to the world's layer and back; once the
//! emote is over and the cell has been empty for `CELL_RETIRE_TICKS`, its
//! layer is gone.

use emoted::format::EmoteId;
use emoted::server::config::Config;
use emoted::server::cull::{DisplayCells, CELL_RETIRE_TICKS};
use emoted::server::emote::{ActiveEmote, DisplayUpdatePolicy};
use emoted::server::events::{EmoteDisplay, EndReason, PlayEmoteRequest, StopEmoteRequest};
use emoted::server::loadtest::{headless_app, join_counting_client};
use valence::prelude::*;

fn sees(app: &App, client: Entity, layer: Entity) -> bool {
    app.world
        .get::<VisibleEntityLayers>(client)
        .expect("a client")
        .0
        .contains(&layer)
}

fn move_to(app: &mut App, client: Entity, x: f64) {
    app.world.get_mut::<Position>(client).expect("a client").0.x = x;
}

#[test]
fn cells_are_seen_in_range_and_retired_when_empty() {
    let roots = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/emotes"
    ))];
    let mut app = headless_app(&roots, DisplayUpdatePolicy::Scheduled);
    let (dancer, _) = join_counting_client(&mut app, 0);
    let (watcher, _) = join_counting_client(&mut app, 1);
    app.update();
    assert!(app.world.resource::<DisplayCells>().is_empty());

    app.world.send_event(PlayEmoteRequest {
        client: dancer,
        emote: EmoteId::parse("example:guitar").expect("an id"),
        bypass: true,
        cooldown_multiplier: 1.0,
        quiet: false,
    });
    for _ in 0..3 {
        app.update();
    }
    assert!(app.world.get::<ActiveEmote>(dancer).is_some());
    let cells: Vec<_> = app.world.resource::<DisplayCells>().iter().collect();
    assert_eq!(cells.len(), 1, "one chunk, one view range: {cells:?}");
    let (key, layer) = cells[0];
    assert_eq!(key.chunk, valence::ChunkPos::new(0, 0));
    // Every display of the emote is in the cell's layer.
    let mut displays = app
        .world
        .query_filtered::<&EntityLayerId, With<EmoteDisplay>>();
    let in_cell = displays.iter(&app.world).filter(|l| l.0 == layer).count();
    assert!(in_cell > 0);
    assert_eq!(in_cell, displays.iter(&app.world).count());
    assert!(sees(&app, dancer, layer) && sees(&app, watcher, layer));

    // 74.5 blocks from the chunk: past 64.
    move_to(&mut app, watcher, 90.5);
    app.update();
    assert!(sees(&app, dancer, layer));
    assert!(!sees(&app, watcher, layer));
    // 63.5 blocks: in range again.
    move_to(&mut app, watcher, 79.5);
    app.update();
    assert!(sees(&app, watcher, layer));

    // A reload to a reach past the chunk view: nothing to cull, so the
    // displays go back to the world's layer; and back into the cell.
    let in_layer = |app: &mut App, layer: Entity| {
        app.world
            .query_filtered::<&EntityLayerId, With<EmoteDisplay>>()
            .iter(&app.world)
            .filter(|l| l.0 == layer)
            .count()
    };
    // With distance bands (the default) a display stays in a cell even
    // then: the bands choose per viewer.
    let mut config = Config::default();
    config.emotes.display_view_scale = 5.0;
    app.world.insert_resource(config.clone());
    app.update();
    assert_eq!(in_layer(&mut app, layer), in_cell);
    config.emotes.tolerance_near_blocks = 0.0;
    config.emotes.viewer_bytes_per_second = 0;
    app.world.insert_resource(config.clone());
    app.update();
    assert_eq!(in_layer(&mut app, key.world), in_cell);
    assert_eq!(in_layer(&mut app, layer), 0);
    config.emotes.display_view_scale = 1.0;
    app.world.insert_resource(config);
    app.update();
    assert_eq!(in_layer(&mut app, layer), in_cell);

    app.world.send_event(StopEmoteRequest {
        client: dancer,
        reason: EndReason::Stopped,
    });
    for _ in 0..CELL_RETIRE_TICKS - 5 {
        app.update();
    }
    assert_eq!(
        app.world.query::<&EmoteDisplay>().iter(&app.world).count(),
        0
    );
    assert_eq!(
        app.world.resource::<DisplayCells>().len(),
        1,
        "an empty cell is kept for a while"
    );
    for _ in 0..10 {
        app.update();
    }
    assert!(app.world.resource::<DisplayCells>().is_empty());
    assert!(!sees(&app, dancer, layer) && !sees(&app, watcher, layer));
    assert!(
        app.world.get_entity(layer).is_none(),
        "the layer is despawned"
    );
}
