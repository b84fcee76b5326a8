//! Real clients (mineflayer) speaking Emotecraft's `emotecraft:emote`
//! channel as a modded client does: the server announces the channel,
//! answers CONFIG, relays a STREAM to another modded player with the
//! sender's UUID, sends nothing to a vanilla player, and shrugs off
//! malformed and oversized messages.
//!
//! The bytes are built and read by the tests' own code
//! (`tests/common/emotecraft.rs`), from `protocol-notes.md` §3, not by the
//! server's codec.

mod common;

use common::emotecraft::*;
use common::Server;
use serde_json::json;

#[test]
fn the_handshake_answers_and_a_stream_reaches_modded_players_only() {
    let mut server = Server::start();
    let waiting = json!({"event": "plugin_message", "channel": CHANNEL});
    // B: modded, waits for alice's STREAM.
    let b = send(server.bot("bob").wait_spawn(), &client_config())
        .wait_for(waiting.clone(), 2, 15000)
        .wait_ms(300)
        .disconnect()
        .spawn();
    // C: vanilla, never answers the channel.
    let c = server
        .bot("carol")
        .wait_spawn()
        .wait_ms(4000)
        .disconnect()
        .spawn();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // A: modded; CONFIG, then garbage and an oversized message, then a STREAM.
    let a = send(server.bot("alice").wait_spawn(), &client_config())
        .wait_for(waiting, 1, 5000)
        .wait_ms(500);
    let a = send(a, &[0xff, 0x00, 0x13]);
    let a = send(a, &vec![0; 40 * 1024]);
    let a = send(a, &client_stream())
        .wait_ms(800)
        .chat("/emote list")
        .wait_for(json!({"event": "chat", "text_contains": "Emotes"}), 1, 5000)
        .disconnect()
        .run();
    let (b, c) = (b.wait(), c.wait());
    a.assert_ok();
    b.assert_ok();
    c.assert_ok();

    // Everyone was told the server speaks the channel.
    for run in [&a, &b, &c] {
        let registers = messages(run, "minecraft:register");
        assert!(
            registers
                .iter()
                .any(|r| r.split(|&b| b == 0).any(|name| name == CHANNEL.as_bytes())),
            "{}: {registers:?}",
            run.username
        );
    }
    // CONFIG answered: the discovery map says "tracks play state" (0x80 → 1).
    let answer = &messages(&a, CHANNEL)[0];
    let (purpose, subs) = unpack(answer);
    assert_eq!(purpose, 8);
    let discovery = &subs
        .iter()
        .find(|s| s.0 == 8)
        .expect("a discovery sub-packet")
        .2;
    let n = i32::from_be_bytes(discovery[..4].try_into().expect("4")) as usize;
    let pairs: Vec<(u8, u8)> = (0..n)
        .map(|i| (discovery[4 + 2 * i], discovery[5 + 2 * i]))
        .collect();
    assert!(pairs.contains(&(0x80, 1)), "{pairs:?}");
    assert!(pairs.contains(&(8, 8)), "{pairs:?}");

    // Bob got alice's STREAM with alice's UUID, the emote bytes untouched.
    let alice_uuid = uuid_seen_by(&b, "alice");
    let stream = messages(&b, CHANNEL)
        .into_iter()
        .map(|m| unpack(&m))
        .find(|(purpose, _)| *purpose == 1)
        .expect("a STREAM reached bob");
    let emote = &stream.1.iter().find(|s| s.0 == 0).expect("the emote").2;
    assert_eq!(&emote[4..], &[0xde, 0xad, 0xbe, 0xef, 1, 2, 3]);
    let players: Vec<&Vec<u8>> = stream.1.iter().filter(|s| s.0 == 1).map(|s| &s.2).collect();
    assert_eq!(players.len(), 1, "one player sub-packet");
    let uuid_hex = hex(&players[0][..16]);
    assert_eq!(uuid_hex, alice_uuid, "alice's UUID");
    assert_eq!(players[0][16], 0, "not forced");

    // Carol (vanilla) got nothing on the channel; alice's bad messages
    // were dropped with a line each, and she stayed (her /emote list ran).
    assert!(messages(&c, CHANNEL).is_empty());
    let log = server.log();
    assert!(
        log.contains("alice: dropped a message on emotecraft:emote"),
        "{log}"
    );
    assert!(log.contains("more than the 32768 allowed"), "{log}");
    server.assert_log_clean();
}

/// A STREAM with a real (empty) animation binary v2 that loops: begin 0,
/// end 40, stop 43, looped, return 0, easing before, not nsfw, keyframe
/// size 9, no parts, then the emote's UUID.
fn looping_stream() -> Vec<u8> {
    let mut emote = 0_i32.to_be_bytes().to_vec(); // start tick
    for v in [0_i32, 40, 43] {
        emote.extend(v.to_be_bytes());
    }
    emote.push(1);
    emote.extend(0_i32.to_be_bytes());
    emote.extend([1, 0, 9]);
    emote.extend(0_i32.to_be_bytes());
    emote.extend(0x77_u128.to_be_bytes());
    packet(1, &[(0, 2, emote)])
}

#[test]
fn a_modded_player_who_arrives_mid_emote_gets_it_at_the_current_tick() {
    let server = Server::start();
    let channel = json!({"event": "plugin_message", "channel": CHANNEL});
    let alice =
        send(server.bot("alice").wait_spawn(), &client_config()).wait_for(channel.clone(), 1, 5000);
    let alice = send(alice, &looping_stream())
        .wait_ms(6000)
        .disconnect()
        .spawn();
    std::thread::sleep(std::time::Duration::from_millis(4000));
    // Dave arrives while alice's emote plays, and answers CONFIG.
    let dave = send(server.bot("dave").wait_spawn(), &client_config())
        .wait_for(channel, 2, 5000)
        .disconnect()
        .run();
    alice.wait().assert_ok();
    dave.assert_ok();
    let alice_uuid = uuid_seen_by(&dave, "alice");
    let stream = messages(&dave, CHANNEL)
        .into_iter()
        .map(|m| unpack(&m))
        .find(|(purpose, _)| *purpose == 1)
        .expect("alice's STREAM reached dave");
    let emote = &stream.1.iter().find(|s| s.0 == 0).expect("the emote").2;
    let start = i32::from_be_bytes(emote[..4].try_into().expect("4"));
    // Sent about 4 s (80 ticks) after alice started it; dave's own join
    // takes some of that, so at least 2 s.
    assert!((40..=200).contains(&start), "start tick {start}");
    assert_eq!(
        &emote[4..],
        &looping_stream()[12..][4..],
        "the rest as sent"
    );
    let player = &stream.1.iter().find(|s| s.0 == 1).expect("a player").2;
    assert_eq!(hex(&player[..16]), alice_uuid);
}

#[test]
fn a_server_emote_reaches_modded_players_as_bones_and_vanilla_players_as_displays() {
    let mut server = Server::start();
    let channel = json!({"event": "plugin_message", "channel": CHANNEL});
    // Bob (modded): the CONFIG answer, alice's STREAM, then her STOP.
    let bob = send(server.bot("bob").wait_spawn(), &client_config())
        .wait_for(channel, 3, 20000)
        .disconnect()
        .spawn();
    let carol = server
        .bot("carol")
        .wait_spawn()
        .wait_ms(7000)
        .disconnect()
        .spawn();
    // Alice (vanilla) waves: example:wave is 40 ticks, mode once.
    let alice = server.play_after_settling("alice", "example:wave");
    let (bob, carol) = (bob.wait(), carol.wait());
    alice.assert_ok();
    bob.assert_ok();
    carol.assert_ok();

    let alice_uuid = uuid_seen_by(&bob, "alice");
    let packets: Vec<Unpacked> = messages(&bob, CHANNEL).iter().map(|m| unpack(m)).collect();
    let purposes: Vec<u8> = packets.iter().map(|p| p.0).collect();
    assert_eq!(purposes, [8, 1, 10], "CONFIG answer, STREAM, STOP");
    let player_of = |subs: &[(u8, u8, Vec<u8>)]| {
        hex(&subs.iter().find(|s| s.0 == 1).expect("a player").2[..16])
    };
    let stream = &packets[1].1;
    assert_eq!(player_of(stream), alice_uuid, "the STREAM names alice");
    let emote = &stream.iter().find(|s| s.0 == 0).expect("the emote").2;
    assert_eq!(i32::from_be_bytes(emote[..4].try_into().expect("4")), 0);
    let animation = decode_animation(&emote[4..]);
    assert_eq!(animation.end_tick, 40, "the wave's 40 ticks");
    assert!(!animation.looped, "mode once");
    let names: Vec<&str> = animation.parts.iter().map(|p| p.0.as_str()).collect();
    // wave.json moves the right arm alone; a part the emote never moves
    // is left out (PlayerAnimator's reader makes a missing part a still
    // one, every axis the vanilla model's).
    assert_eq!(names, ["rightArm"]);
    // The right shoulder turns −115° about the player's Z from tick 6 to
    // 30 (wave.json). The model's frame is the player's turned half a turn
    // about X, where a turn about Z changes sign: roll +115° (2.007 rad),
    // vanilla's "arm out to the side" direction for the right arm.
    let right_arm = &animation.parts[names.iter().position(|n| *n == "rightArm").expect("arm")].1;
    let roll = &right_arm[5];
    assert!(roll.0, "roll is animated");
    let raised = 115_f32.to_radians();
    for tick in [6, 18, 30] {
        let value = value_at(&roll.1, tick);
        assert!((value - raised).abs() < 0.01, "roll {value} at {tick}");
    }
    assert!(value_at(&roll.1, 0).abs() < 0.01);
    assert!(value_at(&roll.1, 40).abs() < 0.01);
    // At rest the arm hangs at vanilla's shoulder pivot, 5 px out, 2 down.
    assert!((value_at(&right_arm[0].1, 0) + 5.0).abs() < 0.2);
    assert!((value_at(&right_arm[1].1, 0) - 2.0).abs() < 0.2);
    // The elbow bends (wave.json's elbow_r): the bend axis is animated.
    assert!(right_arm[7].1.iter().any(|k| k.1.abs() > 0.1), "a bend");
    // The STOP names alice and the emote the STREAM named.
    let stop = &packets[2].1;
    assert_eq!(player_of(stop), alice_uuid);
    let stopped = hex(&stop
        .iter()
        .find(|s| s.0 == 10)
        .expect("the emote stopped")
        .2);
    assert_eq!(stopped, animation.uuid_hex);

    // One form per viewer. Carol (vanilla) got alice's body as skin-bound
    // displays and nothing on the channel; bob (modded) got the bones, and
    // no item display (the body, and the held item his client draws in the
    // model's hand), only the greeting's text (a prop).
    assert!(!skin_displays(&carol).is_empty(), "{}", carol.describe());
    assert!(messages(&carol, CHANNEL).is_empty());
    assert!(
        bob.spawned_of("item_display").is_empty(),
        "{}",
        bob.describe()
    );
    assert!(!bob.spawned_of("text_display").is_empty(), "the greeting");
    // wave.json hides the player: gone for carol while she waves, back
    // after; bob kept seeing alice's model, which the bones move.
    let spawns_of_alice = |run: &common::BotRun| {
        run.spawned()
            .iter()
            .filter(|s| s.username.as_deref() == Some("alice"))
            .map(|s| s.entity_id)
            .collect::<Vec<i32>>()
    };
    let for_carol = spawns_of_alice(&carol);
    assert!(for_carol.len() >= 2, "hidden, then back: {for_carol:?}");
    assert!(carol.destroyed().contains(&for_carol[0]));
    let for_bob = spawns_of_alice(&bob);
    assert_eq!(for_bob.len(), 1, "{for_bob:?}");
    assert!(
        !bob.destroyed().contains(&for_bob[0]),
        "never hidden from bob"
    );
    server.assert_log_clean();
}

#[test]
fn a_modded_player_who_plays_a_server_emote_sees_it_on_their_own_model() {
    let mut server = Server::start();
    let channel = json!({"event": "plugin_message", "channel": CHANNEL});
    let carol = server
        .bot("carol")
        .wait_spawn()
        .wait_ms(8000)
        .disconnect()
        .spawn();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // Dave (modded) waves: the CONFIG answer, his own STREAM, its STOP.
    let dave = send(server.bot("dave").wait_spawn(), &client_config())
        .wait_for(channel.clone(), 1, 10000)
        .wait_ms(300)
        .chat("/emote play example:wave")
        .wait_for(channel, 2, 10000)
        .wait_ms(300)
        .disconnect()
        .run();
    let carol = carol.wait();
    dave.assert_ok();
    carol.assert_ok();
    let packets: Vec<Unpacked> = messages(&dave, CHANNEL).iter().map(|m| unpack(m)).collect();
    let purposes: Vec<u8> = packets.iter().map(|p| p.0).collect();
    assert_eq!(purposes, [8, 1, 10], "CONFIG answer, STREAM, STOP");
    let dave_uuid = uuid_seen_by(&carol, "dave");
    for (purpose, subs) in &packets[1..] {
        // PlayerData v1: the UUID, then isForced, set: the server ends it.
        let player = &subs.iter().find(|s| s.0 == 1).expect("a player").2;
        assert_eq!(hex(&player[..16]), dave_uuid, "purpose {purpose}");
        assert_eq!(player.get(16), Some(&1), "forced, purpose {purpose}");
    }
    let emote = &packets[1].1.iter().find(|s| s.0 == 0).expect("the emote").2;
    assert_eq!(decode_animation(&emote[4..]).end_tick, 40);
    // Carol, vanilla, saw dave's body in displays.
    assert!(!skin_displays(&carol).is_empty(), "{}", carol.describe());
    server.assert_log_clean();
}

#[test]
fn a_client_that_reads_headers_gets_the_body_emotes_for_its_own_wheel() {
    let mut server = Server::start();
    // Emotecraft's full map: the header (0x11) and icons (0x12) too.
    let mut map = 6_i32.to_be_bytes().to_vec();
    map.extend([0, 2, 1, 1, 8, 8, 10, 1, 0x11, 1, 0x12, 0x12]);
    let config = packet(8, &[(8, 8, map)]);
    let eve = send(server.bot("eve").wait_spawn(), &config)
        .wait_for(
            json!({"event": "plugin_message", "channel": CHANNEL}),
            3,
            15000,
        )
        .wait_ms(1000)
        .disconnect()
        .run();
    eve.assert_ok();
    let files: Vec<Unpacked> = messages(&eve, CHANNEL)
        .iter()
        .map(|m| unpack(m))
        .filter(|(purpose, _)| *purpose == 0x10)
        .collect();
    let mut names = Vec::new();
    for (_, subs) in &files {
        // The header: three sized strings, name first.
        let header = &subs.iter().find(|s| s.0 == 0x11).expect("a header").2;
        let len = i32::from_be_bytes(header[..4].try_into().expect("4")) as usize;
        let name = String::from_utf8(header[4..4 + len].to_vec()).expect("utf-8");
        let emote = &subs.iter().find(|s| s.0 == 0).expect("the emote").2;
        let animation = decode_animation(&emote[4..]);
        assert!(
            animation.parts.iter().any(|p| p.0 == "rightArm"),
            "{name}: a body emote"
        );
        names.push(name);
    }
    // The standalone body emotes, and nothing else: not the guitar (props
    // only), not the handshake steps (not standalone), not a Sequence.
    for name in ["Wave", "Bow"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    assert!(!names.iter().any(|n| n.contains("Guitar")), "{names:?}");
    assert!(!names.iter().any(|n| n == "Handshake (shake)"), "{names:?}");
    assert!(files.len() >= 4, "{names:?}");
    server.assert_log_clean();
}

/// An AnimationBinary v2 (protocol-notes §3.3) of `end_tick` ticks, not
/// looped, with one part, `rightArm`, whose roll goes 0 → `raised`
/// radians → 0 at ticks 0, 10 and `end_tick` (linear keys), every other
/// axis disabled; then the emote's UUID (all 0x42).
fn raised_arm_binary(end_tick: i32, raised: f32) -> Vec<u8> {
    let mut b = Vec::new();
    for v in [0, end_tick, end_tick] {
        b.extend(v.to_be_bytes()); // beginTick, endTick, stopTick
    }
    b.push(0); // isLooped
    b.extend(0_i32.to_be_bytes()); // returnTick
    b.extend([0, 0, 9]); // isEasingBefore, nsfw, keyframeSize
    b.extend(1_i32.to_be_bytes()); // one part
    b.extend(8_i32.to_be_bytes());
    b.extend(b"rightArm");
    for axis in 0..8 {
        if axis != 5 {
            b.push(0); // disabled
            b.extend(0_i32.to_be_bytes());
            continue;
        }
        b.push(1);
        b.extend(3_i32.to_be_bytes());
        for (tick, value) in [(0, 0.0_f32), (10, raised), (end_tick, 0.0)] {
            b.extend(tick.to_be_bytes());
            b.extend(value.to_be_bytes());
            b.push(0); // linear
        }
    }
    b.extend([0x42; 16]);
    b
}

#[test]
fn a_modded_players_own_emote_is_relayed_to_modded_players_and_drawn_for_vanilla_ones() {
    let mut server = Server::start();
    let channel = json!({"event": "plugin_message", "channel": CHANNEL});
    // Carol (vanilla) watches; bob (modded) waits for the answer and the relay.
    let carol = server
        .bot("carol")
        .wait_spawn()
        .wait_ms(7000)
        .disconnect()
        .spawn();
    let bob = send(server.bot("bob").wait_spawn(), &client_config())
        .wait_for(channel.clone(), 2, 20000)
        .wait_ms(1500)
        .disconnect()
        .spawn();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    // Alice (modded) plays a two-second emote from her own wheel.
    let mut emote = 0_i32.to_be_bytes().to_vec();
    emote.extend(raised_arm_binary(40, 2.0));
    let stream = packet(1, &[(0, 2, emote.clone())]);
    let alice =
        send(server.bot("alice").wait_spawn(), &client_config()).wait_for(channel, 1, 10000);
    let alice = send(alice, &stream).wait_ms(3000).disconnect().run();
    let (carol, bob) = (carol.wait(), bob.wait());
    alice.assert_ok();
    carol.assert_ok();
    bob.assert_ok();

    // Bob got it relayed as sent, with alice's UUID, and no displays.
    let alice_uuid = uuid_seen_by(&bob, "alice");
    let relayed: Vec<Unpacked> = messages(&bob, CHANNEL)
        .iter()
        .map(|m| unpack(m))
        .filter(|(purpose, _)| *purpose == 1)
        .collect();
    assert_eq!(relayed.len(), 1, "one STREAM");
    let subs = &relayed[0].1;
    assert_eq!(
        &subs.iter().find(|s| s.0 == 0).expect("the emote").2,
        &emote
    );
    let player = &subs.iter().find(|s| s.0 == 1).expect("a player").2;
    assert_eq!(hex(&player[..16]), alice_uuid);
    assert!(
        bob.spawned_of("item_display").is_empty(),
        "{}",
        bob.describe()
    );
    // Carol saw alice's body drawn in her skin, and alice hidden for it.
    assert!(!skin_displays(&carol).is_empty(), "{}", carol.describe());
    let alice_for_carol: Vec<i32> = carol
        .spawned()
        .iter()
        .filter(|s| s.username.as_deref() == Some("alice"))
        .map(|s| s.entity_id)
        .collect();
    assert!(!alice_for_carol.is_empty());
    assert!(carol.destroyed().contains(&alice_for_carol[0]), "hidden");
    // The arm is raised: some display turns by more than 90° between two
    // of its updates (2 rad of roll at tick 10), angle = 2·acos|q1·q2|.
    let turned = skin_displays(&carol).iter().any(|id| {
        let turns: Vec<[f64; 4]> = carol
            .metadata_of(*id)
            .iter()
            .filter_map(|m| m.quat("left_rotation"))
            .collect();
        turns.iter().any(|a| {
            turns.iter().any(|b| {
                let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
                dot.abs() < std::f64::consts::FRAC_1_SQRT_2
            })
        })
    });
    assert!(turned, "an arm raised past 90°");
    server.assert_log_clean();
}
