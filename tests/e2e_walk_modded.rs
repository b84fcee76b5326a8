//! A controller seen by modded clients, with real clients: `walker` (a
//! vanilla client) plays the bundled controller `example:walk_wave`,
//! stands, walks 6 blocks, stands again and stops it. Three watchers 4
//! blocks away: `bob` speaks Emotecraft's channel, `dave` emoted's own
//! `emoted:animation`, `carol` neither.
//!
//! Bob and dave get the walker's body as bones, on the walker's own model:
//! a loop of the blend on screen (the held form), the idle with the legs
//! still while it stands, a form that swings the legs once it walks, the
//! idle again once it stands, never two within a second, then a STOP. They
//! get no display of the body; carol gets the displays. What the body
//! cost each of them, in bytes, is measured and bounded.

mod common;

use common::animation_channel::{read, Message, CHANNEL as ANIMATION, HELLO};
use common::emotecraft::{
    client_config, decode_animation, send, unpack, Unpacked, CHANNEL as EMOTECRAFT,
};
use common::plugin_messages::{hex, skin_displays, timed_messages, uuid_seen_by};
use common::{Plan, Server};
use serde_json::{json, Value};

const WALK_WAVE: &str = "example:walk_wave";

/// A watcher standing 4 blocks from the walker's path, at `z`.
fn watcher(server: &Server, name: &str, z: f64) -> Plan {
    server
        .bot(name)
        .count_bytes()
        .wait_spawn()
        .move_to(-8.5, 65.0, z)
}

/// How far the right leg swings over a Bedrock animation: the largest
/// range of one rotation axis over its keys, degrees (a leg that does not
/// move has no rotation, 0).
fn bedrock_leg_swing(json: &Value) -> f64 {
    let Some((_, animation)) = json["animations"].as_object().and_then(|a| a.iter().next()) else {
        panic!("one animation: {json}")
    };
    let rotation = &animation["bones"]["rightLeg"]["rotation"];
    let Some(keys) = rotation.as_object() else {
        return 0.0;
    };
    (0..3)
        .map(|axis| {
            let values: Vec<f64> = keys.values().filter_map(|v| v[axis].as_f64()).collect();
            let most = values.iter().copied().fold(f64::MIN, f64::max);
            let least = values.iter().copied().fold(f64::MAX, f64::min);
            most - least
        })
        .fold(0.0, f64::max)
}

/// How far the right leg swings over an Emotecraft STREAM's animation:
/// the range of its pitch keys, degrees (a leg left out does not move).
fn emotecraft_leg_swing(emote: &[u8]) -> f64 {
    let animation = decode_animation(&emote[4..]);
    // A part the emote never moves is left out.
    let Some((_, axes)) = animation.parts.iter().find(|(name, _)| name == "rightLeg") else {
        return 0.0;
    };
    let pitch: Vec<f64> = axes[3].1.iter().map(|k| f64::from(k.1)).collect();
    let most = pitch.iter().copied().fold(0.0, f64::max);
    let least = pitch.iter().copied().fold(0.0, f64::min);
    (most - least).to_degrees()
}

/// The forms a watcher got, `(unix ms, leg swing)`, checked against the
/// walk: the idle first, a swinging form while walking, the idle last,
/// never two within 900 ms (the server sends at most one a second).
fn check_forms(who: &str, forms: &[(u64, f64)], walk_start: u64, walk_end: u64, stopped: u64) {
    assert!(forms.len() >= 3, "{who}: {forms:?}");
    let (first_at, first) = forms[0];
    assert!(first_at < walk_start && first < 5.0, "{who}: {forms:?}");
    assert!(
        forms
            .iter()
            .any(|(at, swing)| (walk_start..walk_end + 1_000).contains(at) && *swing > 30.0),
        "{who}: the legs swing while it walks: {forms:?}"
    );
    let (last_at, last) = forms[forms.len() - 1];
    assert!(
        last_at > walk_end && last_at < stopped && last < 5.0,
        "{who}: the idle again before the stop: {forms:?}"
    );
    for pair in forms.windows(2) {
        assert!(pair[1].0 - pair[0].0 >= 900, "{who}: {forms:?}");
    }
}

#[test]
fn modded_viewers_get_a_walking_controller_as_bones_sent_again_as_the_blend_moves() {
    let mut server = Server::start();
    let bob = send(watcher(&server, "bob", -5.5), &client_config())
        .wait_ms(16_000)
        .disconnect()
        .timeout_ms(40_000)
        .spawn();
    let dave = watcher(&server, "dave", -4.5)
        .step(json!({"send_plugin": {"channel": ANIMATION, "hex": hex(&HELLO)}}))
        .wait_ms(16_000)
        .disconnect()
        .timeout_ms(40_000)
        .spawn();
    let carol = watcher(&server, "carol", -6.5)
        .wait_ms(16_000)
        .disconnect()
        .timeout_ms(40_000)
        .spawn();
    let walker = server
        .bot("walker")
        .wait_spawn()
        .wait_ms(2_500)
        .move_to(-4.5, 65.0, -8.5) // step 2
        .chat(&format!("/emote play {WALK_WAVE}")) // 3
        .wait_ms(2_500) // 4: standing
        .move_to(-4.5, 65.0, -2.5) // 5: walking 6 blocks
        .wait_ms(3_000) // 6: standing again
        .chat("/emote stop") // 7
        .wait_ms(1_500)
        .disconnect()
        .timeout_ms(40_000)
        .spawn();
    let walker = walker.wait();
    let (bob, dave, carol) = (bob.wait(), dave.wait(), carol.wait());
    for run in [&walker, &bob, &dave, &carol] {
        run.assert_ok();
    }
    let steps = walker.step_unix_ms();
    let (played, walk_start, walk_end, stopped) = (steps[3], steps[5], steps[6], steps[7]);
    let walker_uuid = uuid_seen_by(&carol, "walker");

    // Bob: the CONFIG answer, the walker's STREAMs, then a STOP.
    let emotecraft: Vec<(u64, Unpacked)> = timed_messages(&bob, EMOTECRAFT)
        .iter()
        .map(|(at, bytes)| (*at, unpack(bytes)))
        .collect();
    let purposes: Vec<u8> = emotecraft.iter().map(|(_, (p, _))| *p).collect();
    assert_eq!(purposes.first(), Some(&8), "{purposes:?}");
    assert_eq!(purposes.last(), Some(&10), "a STOP ends it: {purposes:?}");
    assert!(
        purposes[1..purposes.len() - 1].iter().all(|p| *p == 1),
        "STREAMs between: {purposes:?}"
    );
    let mut streams = Vec::new();
    for (at, (purpose, subs)) in &emotecraft[1..] {
        let player = &subs.iter().find(|s| s.0 == 1).expect("a player").2;
        assert_eq!(hex(&player[..16]), walker_uuid);
        if *purpose == 1 {
            assert!(*at >= played, "no STREAM before the emote");
            let emote = &subs.iter().find(|s| s.0 == 0).expect("the emote").2;
            streams.push((*at, emotecraft_leg_swing(emote)));
        } else if *purpose == 10 {
            assert!(*at >= stopped, "the STOP comes with /emote stop");
        }
    }
    check_forms("bob", &streams, walk_start, walk_end, stopped);

    // Dave: the HELLO answer, PLAYs of one animation that replace each
    // other (no STOP between them), then its STOP.
    let channel: Vec<(u64, Message)> = timed_messages(&dave, ANIMATION)
        .iter()
        .map(|(at, bytes)| (*at, read(bytes)))
        .collect();
    assert!(matches!(channel[0].1, Message::Hello { .. }), "{channel:?}");
    let Some((stop_at, Message::Stop { player, animation })) = channel.last() else {
        panic!("a STOP ends it: {channel:?}")
    };
    assert!(*stop_at >= stopped);
    assert_eq!(player, &walker_uuid);
    let mut plays = Vec::new();
    for (at, message) in &channel[1..channel.len() - 1] {
        let Message::Play {
            player: p,
            animation: a,
            start_tick,
            json,
            ..
        } = message
        else {
            panic!("PLAYs between: {channel:?}")
        };
        assert_eq!((p, a), (&walker_uuid, animation));
        assert_eq!(*start_tick, 0, "each form from its start");
        plays.push((*at, bedrock_leg_swing(json)));
    }
    check_forms("dave", &plays, walk_start, walk_end, stopped);

    // The body reached bob and dave as bones only, carol as displays.
    assert!(skin_displays(&bob).is_empty(), "{}", bob.describe());
    assert!(skin_displays(&dave).is_empty(), "{}", dave.describe());
    assert!(skin_displays(&carol).len() >= 6, "{}", carol.describe());

    // The bytes the emote cost each watcher: entity metadata (the
    // displays' updates) and plugin messages, over the same 16 seconds.
    let cost = |run: &common::BotRun| run.bytes_of(&["entity_metadata", "custom_payload"]);
    let (bob_bytes, dave_bytes, carol_bytes) = (cost(&bob), cost(&dave), cost(&carol));
    eprintln!("bytes: bob {bob_bytes}, dave {dave_bytes}, carol {carol_bytes}");
    assert!(bob_bytes * 2 < carol_bytes, "{bob_bytes} vs {carol_bytes}");
    assert!(
        dave_bytes * 2 < carol_bytes,
        "{dave_bytes} vs {carol_bytes}"
    );
    server.assert_log_clean();
}
