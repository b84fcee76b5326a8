//! An `.anim` clip in an emote folder plays with `/emote play` like any
//! emote, for real clients (mineflayer): a vanilla viewer gets display
//! entities in the player's skin, a modded viewer (Emotecraft's channel)
//! gets the clip as bones, with the arm where the clip puts it.

mod common;

use common::emotecraft::*;
use common::Server;
use serde_json::json;

#[test]
fn a_clip_plays_as_displays_for_vanilla_viewers_and_as_bones_for_modded_ones() {
    let mut server = Server::start_with(&["emotes", "tests/fixtures/clip_emotes"]);
    let channel = json!({"event": "plugin_message", "channel": CHANNEL});
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
    // raise.anim: 2 s once, so 40 ticks; its id comes from its file name.
    let alice = server.play_after_settling("alice", "clip:raise");
    let (bob, carol) = (bob.wait(), carol.wait());
    alice.assert_ok();
    bob.assert_ok();
    carol.assert_ok();

    let packets: Vec<Unpacked> = messages(&bob, CHANNEL).iter().map(|m| unpack(m)).collect();
    let purposes: Vec<u8> = packets.iter().map(|p| p.0).collect();
    assert_eq!(purposes, [8, 1, 10], "CONFIG answer, STREAM, STOP");
    let stream = &packets[1].1;
    let player = &stream.iter().find(|s| s.0 == 1).expect("a player").2;
    assert_eq!(hex(&player[..16]), uuid_seen_by(&bob, "alice"));
    let emote = &stream.iter().find(|s| s.0 == 0).expect("the emote").2;
    let animation = decode_animation(&emote[4..]);
    assert_eq!(animation.end_tick, 40);
    assert!(!animation.looped, "loop once");
    let right_arm = &animation
        .parts
        .iter()
        .find(|p| p.0 == "rightArm")
        .expect("the right arm")
        .1;
    // The clip's +90° about its X points the arm forward: −90° about the
    // player's X, and the model's frame (the player's turned half a turn
    // about X) keeps a turn about X, so pitch −π/2, vanilla's arm held
    // out in front. Linear from tick 0 to 10, held to 30, back by 40.
    let pitch = &right_arm[3];
    assert!(pitch.0, "pitch is animated");
    let forward = -std::f32::consts::FRAC_PI_2;
    for tick in [10, 20, 30] {
        let value = value_at(&pitch.1, tick);
        assert!((value - forward).abs() < 0.02, "pitch {value} at {tick}");
    }
    let half = value_at(&pitch.1, 5);
    assert!((half - forward / 2.0).abs() < 0.02, "pitch {half} at 5");
    assert!(value_at(&pitch.1, 0).abs() < 0.02);
    assert!(value_at(&pitch.1, 40).abs() < 0.02);
    // The yaw and roll stay at rest.
    for axis in [4, 5] {
        assert!(
            right_arm[axis].1.iter().all(|k| k.1.abs() < 0.02),
            "axis {axis}"
        );
    }

    // Carol (vanilla) saw alice's body as displays in her skin, and nothing
    // on the channel; bob got no display copy of the body.
    assert!(!skin_displays(&carol).is_empty(), "{}", carol.describe());
    assert!(messages(&carol, CHANNEL).is_empty());
    assert!(
        bob.spawned_of("item_display").is_empty(),
        "{}",
        bob.describe()
    );
    server.assert_log_clean();
}
