//! The emote camera as a client sees it: which entity it looked through,
//! the seat it rode, and the hand-back every end of an emote owes it.

use super::*;

/// The entity ids `run` was told to look through, in order.
pub fn camera_ids(run: &BotRun) -> Vec<i64> {
    run.packets_named("camera")
        .iter()
        .filter_map(|p| p["cameraId"].as_i64())
        .collect()
}

/// The one camera entity `run` looked through (the first id that is not
/// its own, 0).
pub fn the_camera(run: &BotRun) -> i32 {
    let id = camera_ids(run)
        .into_iter()
        .find(|id| *id != 0)
        .unwrap_or_else(|| panic!("no Set Camera: {}", run.describe()));
    i32::try_from(id).expect("an entity id")
}

/// The seat: the entity the player (id 0) was put on.
pub fn the_seat(run: &BotRun) -> i32 {
    run.events
        .iter()
        .find_map(|e| match e {
            Event::SetPassengers {
                entity_id,
                passengers,
                ..
            } if passengers.contains(&0) => Some(*entity_id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("never seated: {}", run.describe()))
}

/// After the camera started: the view came back (Set Camera 0) before
/// the camera entity was destroyed, the seat was emptied, and the player
/// rode nothing at the end.
pub fn assert_handed_back(run: &BotRun, camera: i32) {
    let seat = the_seat(run);
    let position = |wanted: &dyn Fn(&Event) -> bool| run.events.iter().position(wanted);
    let looked_through = position(&|e| {
        matches!(e, Event::Packet { name, data, .. }
            if name == "camera" && data["cameraId"].as_i64() == Some(i64::from(camera)))
    })
    .expect("looked through the camera");
    let back = run.events[looked_through..]
        .iter()
        .position(|e| {
            matches!(e, Event::Packet { name, data, .. }
                if name == "camera" && data["cameraId"].as_i64() == Some(0))
        })
        .map(|p| p + looked_through)
        .unwrap_or_else(|| panic!("no Set Camera back: {}", run.describe()));
    let destroyed = position(
        &|e| matches!(e, Event::EntityDestroy { entity_ids, .. } if entity_ids.contains(&camera)),
    )
    .unwrap_or_else(|| panic!("the camera entity stayed: {}", run.describe()));
    assert!(
        back < destroyed,
        "the view came back ({back}) before the camera went ({destroyed})"
    );
    let last_seating = run
        .events
        .iter()
        .filter_map(|e| match e {
            Event::SetPassengers {
                entity_id,
                passengers,
                ..
            } if *entity_id == seat => Some(passengers.clone()),
            _ => None,
        })
        .next_back();
    assert_eq!(last_seating, Some(vec![]), "the seat emptied");
    // While it flew the client believed it spectated (no hand drawn), and
    // it was told its real mode again.
    let modes: Vec<&str> = run.events[looked_through..]
        .iter()
        .filter_map(|e| match e {
            Event::GameMode { game_mode, .. } => game_mode.as_deref(),
            _ => None,
        })
        .collect();
    assert_eq!(modes.first(), Some(&"spectator"), "{modes:?}");
    assert_eq!(modes.last(), Some(&"survival"), "{modes:?}");
    let seat_destroyed = position(
        &|e| matches!(e, Event::EntityDestroy { entity_ids, .. } if entity_ids.contains(&seat)),
    );
    assert!(
        seat_destroyed.is_some_and(|d| d > back),
        "the seat went too"
    );
}
