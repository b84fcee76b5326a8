//! Real clients (mineflayer) speaking emoted's own channel,
//! `emoted:animation`, as a client mod would: the server announces it,
//! answers HELLO, sends a PLAY (Bedrock animation JSON) and a STOP for
//! the server's body emotes to channel clients only, catches up a client
//! whose HELLO comes mid-emote, shrugs off malformed and oversized
//! messages, and gives a client that speaks Emotecraft's channel too the
//! server's emotes on `emoted:animation` only.
//!
//! The bytes here are built and read by this file's own code, from the
//! README's byte layout, not by the server's codec.

mod common;

use common::animation_channel::{read_all, Message, CHANNEL, HELLO};
use common::emotecraft::{client_config, unpack, CHANNEL as EMOTECRAFT};
use common::plugin_messages::{hex, messages, uuid_seen_by};
use common::Server;
use serde_json::{json, Value};

fn send(plan: common::Plan, bytes: &[u8]) -> common::Plan {
    plan.step(json!({"send_plugin": {"channel": CHANNEL, "hex": hex(bytes)}}))
}

/// The `[x, y, z]` of linear Bedrock keys (`{"<seconds>": [x, y, z]}`) at
/// `seconds`: the keys around it, mixed by where it falls between them.
fn value_at(keys: &Value, seconds: f64) -> [f64; 3] {
    let mut keys: Vec<(f64, [f64; 3])> = keys
        .as_object()
        .expect("keyed by seconds")
        .iter()
        .map(|(t, v)| {
            let v: Vec<f64> = v
                .as_array()
                .expect("[x, y, z]")
                .iter()
                .map(|c| c.as_f64().expect("a number"))
                .collect();
            (t.parse().expect("seconds"), [v[0], v[1], v[2]])
        })
        .collect();
    keys.sort_by(|a, b| a.0.total_cmp(&b.0));
    let after = keys
        .iter()
        .position(|(t, _)| *t >= seconds)
        .unwrap_or(keys.len() - 1);
    if after == 0 || keys[after].0 < seconds {
        return keys[after].1;
    }
    let ((t0, v0), (t1, v1)) = (keys[after - 1], keys[after]);
    let f = (seconds - t0) / (t1 - t0);
    [0, 1, 2].map(|c| v0[c] + (v1[c] - v0[c]) * f)
}

#[test]
fn a_channel_client_gets_the_servers_emote_as_bedrock_json_and_a_vanilla_player_nothing() {
    let mut server = Server::start();
    let channel = json!({"event": "plugin_message", "channel": CHANNEL});
    // Bob: HELLO, its answer, then three messages the server must drop
    // (40 KiB, a PLAY sent by a client, version 9), then alice's PLAY and STOP.
    let bob = send(server.bot("bob").wait_spawn(), &HELLO).wait_for(channel.clone(), 1, 10000);
    let bob = send(bob, &vec![1; 40 * 1024]);
    let bob = send(bob, &[1, 1, 0]);
    let bob = send(bob, &[9, 0, 1]);
    let bob = bob
        .wait_for(channel, 2, 20000)
        .wait_ms(300)
        .disconnect()
        .spawn();
    // Carol: vanilla, never says HELLO.
    let carol = server
        .bot("carol")
        .wait_spawn()
        .wait_ms(7000)
        .disconnect()
        .spawn();
    // Alice (vanilla) waves: example:wave, 40 ticks, mode once.
    let alice = server.play_after_settling("alice", "example:wave");
    let (bob, carol) = (bob.wait(), carol.wait());
    alice.assert_ok();
    bob.assert_ok();
    carol.assert_ok();

    // Everyone was told the server speaks both channels.
    for run in [&alice, &bob, &carol] {
        let registers = messages(run, "minecraft:register");
        let names: Vec<&[u8]> = registers
            .iter()
            .flat_map(|r| r.split(|&b| b == 0))
            .collect();
        assert!(names.contains(&CHANNEL.as_bytes()), "{}", run.username);
        assert!(names.contains(&b"emotecraft:emote".as_slice()));
    }
    let got = read_all(&bob);
    assert_eq!(got.len(), 3, "HELLO, PLAY, STOP: {got:?}");
    let Message::Hello {
        version,
        max_from_client,
        max_to_client,
    } = got[0]
    else {
        panic!("the answer first: {got:?}");
    };
    assert_eq!(
        (version, max_from_client, max_to_client),
        (1, 32768, 1_048_576)
    );
    let Message::Play {
        player,
        animation,
        start_tick,
        name,
        json,
    } = &got[1]
    else {
        panic!("then a PLAY: {got:?}");
    };
    assert_eq!(*player, uuid_seen_by(&bob, "alice"), "alice's UUID");
    // From its start: the PLAY goes out in the server tick the wave
    // starts. The playback's clock counts wall ticks, so a server tick
    // that runs late under load may already count one; a PLAY held back
    // any longer fails.
    assert!((0..=1).contains(start_tick), "from its start: {start_tick}");
    assert_eq!(name, "animation.emoted.example.wave");
    assert_eq!(json["format_version"], "1.8.0");
    let wave = &json["animations"][name.as_str()];
    assert_eq!(wave["loop"], false, "mode once");
    assert_eq!(wave["animation_length"], 2.0, "40 ticks");
    // wave.json turns shoulder_r −115° about the player's Z from tick 6
    // to 30. The Bedrock model faces −Z, so a player-frame R_z(θ) is
    // written z = −θ: +115, the right arm out to its side. At tick 18
    // (0.9 s), halfway through the hold, and at the start, at rest.
    let arm = &wave["bones"]["rightArm"]["rotation"];
    let [x, y, z] = value_at(arm, 0.9);
    assert!(x.abs() < 0.5 && y.abs() < 0.5, "{arm}");
    assert!((z - 115.0).abs() < 0.5, "z {z} at 0.9 s: {arm}");
    assert!(value_at(arm, 0.0).iter().all(|c| c.abs() < 0.01), "{arm}");
    let Message::Stop {
        player: stopped_player,
        animation: stopped,
    } = &got[2]
    else {
        panic!("then a STOP: {got:?}");
    };
    assert_eq!((stopped_player, stopped), (player, animation));

    // Carol got nothing on the channel; bob's bad messages were dropped
    // with a line each, and he stayed (the PLAY came after them).
    assert!(messages(&carol, CHANNEL).is_empty());
    assert!(messages(&alice, CHANNEL).is_empty());
    let log = server.log();
    let dropped = log
        .matches("bob: dropped a message on emoted:animation")
        .count();
    assert_eq!(dropped, 3, "{log}");
    assert!(
        log.contains("the message is 40960 bytes, more than the 32768 allowed"),
        "{log}"
    );
    server.assert_log_clean();
}

#[test]
fn a_hello_mid_emote_gets_the_play_at_the_tick_reached() {
    let mut server = Server::start();
    let channel = json!({"event": "plugin_message", "channel": CHANNEL});
    // Dave is vanilla until alice's wave shows (her skin's displays
    // spawn for him); then he says HELLO.
    let dave = server.bot("dave").wait_spawn().wait_for(
        json!({"event": "spawn_entity", "type": "item_display"}),
        1,
        20000,
    );
    let dave = send(dave, &HELLO)
        .wait_for(channel, 3, 10000)
        .disconnect()
        .spawn();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let alice = server
        .bot("alice")
        .wait_spawn()
        .wait_ms(300)
        .chat("/emote play example:wave")
        .wait_ms(3500)
        .disconnect()
        .run();
    let dave = dave.wait();
    alice.assert_ok();
    dave.assert_ok();
    let got = read_all(&dave);
    assert!(matches!(got[0], Message::Hello { .. }), "{got:?}");
    let Message::Play {
        player, start_tick, ..
    } = &got[1]
    else {
        panic!("a PLAY: {got:?}");
    };
    assert_eq!(*player, uuid_seen_by(&dave, "alice"));
    // The wave had played a little (the displays' spawn, then the HELLO's
    // round trip) and not all of its 40 ticks.
    assert!((1..40).contains(start_tick), "start tick {start_tick}");
    assert!(matches!(got[2], Message::Stop { .. }), "{got:?}");
    server.assert_log_clean();
}

#[test]
fn a_channel_client_who_plays_a_server_emote_gets_its_own_play() {
    let mut server = Server::start();
    let channel = json!({"event": "plugin_message", "channel": CHANNEL});
    // Frank (vanilla) watches, to see eve's UUID.
    let frank = server
        .bot("frank")
        .wait_spawn()
        .wait_ms(6000)
        .disconnect()
        .spawn();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // Eve says HELLO, then waves: her own PLAY (her mod draws her model),
    // then its STOP.
    let eve = send(server.bot("eve").wait_spawn(), &HELLO).wait_for(channel.clone(), 1, 10000);
    let eve = eve
        .chat("/emote play example:wave")
        .wait_for(channel, 2, 10000)
        .disconnect()
        .run();
    let frank = frank.wait();
    eve.assert_ok();
    frank.assert_ok();
    let got = read_all(&eve);
    assert_eq!(got.len(), 3, "HELLO, PLAY, STOP: {got:?}");
    let Message::Play {
        player, start_tick, ..
    } = &got[1]
    else {
        panic!("a PLAY: {got:?}");
    };
    assert_eq!(*player, uuid_seen_by(&frank, "eve"), "eve's own UUID");
    // Sent on the tick the wave starts, or the next.
    assert!((0..=2).contains(start_tick), "start tick {start_tick}");
    assert!(matches!(got[2], Message::Stop { .. }), "{got:?}");
    assert!(messages(&frank, CHANNEL).is_empty());
    server.assert_log_clean();
}

#[test]
fn a_client_on_both_channels_gets_the_servers_emotes_on_emoted_animation_only() {
    let mut server = Server::start();
    let channel = json!({"event": "plugin_message", "channel": CHANNEL});
    // Gus answers Emotecraft's CONFIG, then says HELLO: from then on the
    // server's emotes come to him as PLAY and STOP, never as a STREAM.
    let gus = common::emotecraft::send(server.bot("gus").wait_spawn(), &client_config()).wait_for(
        json!({"event": "plugin_message", "channel": EMOTECRAFT}),
        1,
        10000,
    );
    let gus = send(gus, &HELLO)
        .wait_for(channel, 3, 20000)
        .wait_ms(500)
        .disconnect()
        .spawn();
    // Hal: Emotecraft only, who still gets the STREAM.
    let hal = common::emotecraft::send(server.bot("hal").wait_spawn(), &client_config())
        .wait_for(
            json!({"event": "plugin_message", "channel": EMOTECRAFT}),
            3,
            20000,
        )
        .wait_ms(500)
        .disconnect()
        .spawn();
    let alice = server.play_after_settling("alice", "example:wave");
    let (gus, hal) = (gus.wait(), hal.wait());
    alice.assert_ok();
    gus.assert_ok();
    hal.assert_ok();

    let got = read_all(&gus);
    assert_eq!(got.len(), 3, "HELLO, PLAY, STOP: {got:?}");
    assert!(matches!(got[1], Message::Play { .. }), "{got:?}");
    assert!(matches!(got[2], Message::Stop { .. }), "{got:?}");
    let purposes = |run: &common::BotRun| -> Vec<u8> {
        messages(run, EMOTECRAFT)
            .iter()
            .map(|m| unpack(m).0)
            .collect()
    };
    assert_eq!(purposes(&gus), [8], "the CONFIG answer and no STREAM");
    assert_eq!(purposes(&hal), [8, 1, 10], "CONFIG answer, STREAM, STOP");
    assert!(read_all(&hal).is_empty(), "hal never said HELLO");
    server.assert_log_clean();
}
