//! The emote camera, as real clients receive it: the emoting player gets a
//! Set Camera naming an entity no other client ever gets, seated where
//! they stand; the camera circles the body at a distance, out of the
//! ground, steered by the player's look; and every end (`/emote stop`,
//! the emote's own end, death) hands the view back before the camera
//! entity goes, with the player riding nothing. `/emote camera off` is
//! kept across a restart.

mod common;

use std::collections::HashMap;

use common::{assert_handed_back, camera_ids, the_camera, BotRun, Event, Server, TempDir};
use serde_json::{json, Value};

/// `server::camera::CAMERA_EYE_HEIGHT_BLOCKS`.
const EYE_HEIGHT: f64 = 1.7775;

/// The flat world's surface: feet stand at this height.
const SURFACE_Y: f64 = 64.0;

/// Where the player's feet were at spawn.
fn feet(run: &BotRun) -> [f64; 3] {
    let spawn = run.spawn().expect("spawned");
    [spawn.x, spawn.y, spawn.z]
}

/// The camera entity's position after each event that moved it, and the
/// step each came in.
fn camera_track(run: &BotRun, camera: i32) -> Vec<(usize, [f64; 3])> {
    let mut step = 0;
    let mut at = None;
    let mut track = Vec::new();
    for event in &run.events {
        match event {
            Event::Step { index, .. } => step = *index,
            Event::SpawnEntity(s) if s.entity_id == camera => {
                assert_eq!(s.entity_type.as_deref(), Some("armor_stand"), "{s:?}");
                at = Some([s.x, s.y, s.z]);
            }
            Event::EntityMove {
                entity_id, x, y, z, ..
            } if *entity_id == camera => {
                if let (Some(x), Some(y), Some(z)) = (x, y, z) {
                    at = Some([*x, *y, *z]);
                }
            }
            _ => continue,
        }
        if let Some(at) = at {
            track.push((step, at));
        }
    }
    track
}

fn horizontal_distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The bearing of `at` round `centre`, degrees.
fn bearing(centre: [f64; 3], at: [f64; 3]) -> f64 {
    (-(at[0] - centre[0])).atan2(at[2] - centre[2]).to_degrees()
}

#[test]
fn the_emoting_player_alone_sees_through_a_camera_they_steer_and_gets_their_view_back() {
    let mut server = Server::start();
    let watcher = server
        .bot("watcher")
        .wait_spawn()
        .wait_for_since_start(
            json!({"event": "spawn_entity", "username": "emoter"}),
            1,
            20_000,
        )
        .wait_ms(6500)
        .disconnect()
        .spawn();
    let emoter = server
        .bot("emoter")
        .record_packets(&["camera"])
        .wait_spawn() // 0
        .look(0.0, 0.0) // 1
        .wait_ms(600) // 2
        .chat("/emote play example:dance") // 3
        .wait_ms(1500) // 4
        .look(90.0, 0.0) // 5: a quarter turn right
        .wait_ms(1000) // 6
        .chat("/emote stop") // 7
        .wait_ms(1000) // 8
        .disconnect()
        .run();
    emoter.assert_ok();
    let watcher = watcher.wait();
    watcher.assert_ok();

    let camera = the_camera(&emoter);
    assert!(
        !watcher.spawned().iter().any(|s| s.entity_id == camera),
        "the watcher never gets the camera entity"
    );
    assert!(
        !watcher.spawned_of("armor_stand").iter().any(|_| true),
        "nor any seat"
    );
    let body = feet(&emoter);
    let track = camera_track(&emoter, camera);
    assert!(track.len() >= 3, "the camera moves: {track:?}");
    for (_, at) in &track {
        let d = distance(*at, body);
        assert!((1.5..=8.0).contains(&d), "{d} blocks from the body: {at:?}");
        assert!(
            at[1] + EYE_HEIGHT > SURFACE_Y + 0.2,
            "eye out of the ground: {at:?}"
        );
    }
    let before = track
        .iter()
        .rfind(|(step, _)| *step <= 4)
        .expect("positions before the turn")
        .1;
    let after = track
        .iter()
        .rfind(|(step, _)| *step <= 6)
        .expect("positions within a second of the turn")
        .1;
    assert!(horizontal_distance(before, body) > 1.0);
    let turned = (bearing(body, after) - bearing(body, before) + 540.0).rem_euclid(360.0) - 180.0;
    assert!(
        turned.abs() >= 45.0,
        "a 90° turn of the look moved the orbit {turned}°: {before:?} → {after:?}"
    );
    assert_handed_back(&emoter, camera);
    server.assert_log_clean();
}

/// An emote that loops with no stop condition a hit would trip, so that
/// only death ends it.
fn endless_emote(dir: &TempDir) {
    let mut wave: Value =
        serde_json::from_str(&std::fs::read_to_string("emotes/wave.json").expect("the wave"))
            .expect("JSON");
    wave["id"] = json!("test:endless");
    wave["settings"]["player"]["stop_conditions"] = json!({});
    wave["settings"]["player"]["hidden"] = json!(false);
    wave["settings"]["playback"] = json!({"mode": "loop", "loop_delay": "0t"});
    wave["settings"]["cooldown"] = json!("0t");
    dir.write("endless.json", &serde_json::to_string(&wave).expect("JSON"));
}

#[test]
fn the_natural_end_and_death_hand_the_view_back_too() {
    let dir = TempDir::new("camera-endless");
    endless_emote(&dir);
    let root = dir.path().to_string_lossy().into_owned();
    let mut server = Server::start_with(&["emotes", root.as_str()]);

    // The wave plays once (2 s) and ends by itself.
    let waver = server
        .bot("waver")
        .record_packets(&["camera"])
        .wait_spawn()
        .wait_ms(500)
        .chat("/emote play example:wave")
        .wait_ms(3500)
        .disconnect()
        .run();
    waver.assert_ok();
    let camera = the_camera(&waver);
    assert_handed_back(&waver, camera);

    // A loop that only death ends: twenty hits of half a heart.
    let victim = server
        .bot("victim")
        .record_packets(&["camera"])
        .timeout_ms(60_000)
        .wait_spawn()
        .wait_ms(500)
        .chat("/emote play test:endless")
        .wait_for(json!({"event": "health", "health": 0}), 1, 40_000)
        .wait_ms(1000)
        .disconnect()
        .spawn();
    let mut hitter = server
        .bot("hitter")
        .timeout_ms(60_000)
        .wait_spawn()
        .wait_for_since_start(
            json!({"event": "spawn_entity", "username": "victim"}),
            1,
            20_000,
        )
        .wait_ms(2000);
    for _ in 0..20 {
        hitter = hitter.attack("victim").wait_ms(600);
    }
    let hitter = hitter.disconnect().run();
    hitter.assert_ok();
    let victim = victim.wait();
    victim.assert_ok();
    assert!(
        victim.action_bar().iter().any(|l| l.contains("you died")),
        "death ended it: {:?}",
        victim.action_bar()
    );
    let camera = the_camera(&victim);
    assert_handed_back(&victim, camera);
    server.assert_log_clean();
}

#[test]
fn camera_off_keeps_the_players_own_view_across_a_restart() {
    let data = TempDir::new("camera-choice");
    let folder = data.path().join("data");
    let folder_arg = folder.to_string_lossy().into_owned();
    let args = ["--data-folder", folder_arg.as_str()];
    let roots = ["emotes", "datapacks"];
    let wave = |server: &Server, lines: &[&str]| -> BotRun {
        let mut plan = server
            .bot("shy")
            .record_packets(&["camera"])
            .wait_spawn()
            .wait_ms(400);
        for line in lines {
            plan = plan.chat(line).wait_ms(300);
        }
        let run = plan
            .chat("/emote play example:wave")
            .wait_ms(1500)
            .disconnect()
            .run();
        run.assert_ok();
        run
    };

    let mut server = Server::start_with_args(&roots, &args);
    let chooser = wave(&server, &["/emote camera off"]);
    assert!(camera_ids(&chooser).is_empty(), "{}", chooser.describe());
    assert!(
        chooser
            .chat()
            .iter()
            .any(|l| l.contains("keep your own view")),
        "{:?}",
        chooser.chat()
    );
    server.assert_log_clean();
    drop(server);

    let mut server = Server::start_with_args(&roots, &args);
    let returner = wave(&server, &[]);
    assert!(
        camera_ids(&returner).is_empty(),
        "kept: {}",
        returner.describe()
    );
    // The wheel's switch (slot 42) turns it back on: it says off, then on.
    let switcher = server
        .bot("shy")
        .wait_spawn()
        .wait_ms(400)
        .chat("/emote")
        .wait_for(json!({"event": "window_open", "window_id": 117}), 1, 5000)
        .click_wheel(42, 0, 0)
        .wait_ms(500)
        .disconnect()
        .run();
    switcher.assert_ok();
    let switch_states: Vec<String> = switcher
        .events
        .iter()
        .filter_map(|e| match e {
            Event::WindowItems(w) if w.window_id == 117 => w
                .slots
                .get(&42)
                .map(|slot| slot.name.clone().unwrap_or_default()),
            _ => None,
        })
        .collect();
    assert!(
        switch_states.first().is_some_and(|n| n.ends_with("off"))
            && switch_states.last().is_some_and(|n| n.ends_with("on")),
        "{switch_states:?}"
    );
    let back_on = wave(&server, &[]);
    let seen: HashMap<i64, usize> =
        camera_ids(&back_on)
            .into_iter()
            .fold(HashMap::new(), |mut m, id| {
                *m.entry(id).or_default() += 1;
                m
            });
    assert!(seen.keys().any(|id| *id != 0), "the camera again: {seen:?}");
    server.assert_log_clean();
}
