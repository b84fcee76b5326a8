//! The Emotecraft codec on bytes built by hand from the protocol notes,
//! round trips, and arbitrary bytes.

use proptest::prelude::*;
use uuid::Uuid;

use super::animation::*;
use super::*;

/// A STREAM built byte by byte: version 8, purpose 1, two sub-packets (the
/// player with a UUID and forced = 1, then an unknown id 0x42).
fn hand_built_stream() -> Vec<u8> {
    let mut b = vec![0, 0, 0, 8, 1, 2];
    b.extend([1, 1, 0, 0, 0, 17]);
    b.extend(0x0102_0304_0506_0708_u64.to_be_bytes());
    b.extend(0x090a_0b0c_0d0e_0f10_u64.to_be_bytes());
    b.push(1);
    b.extend([0x42, 3, 0, 0, 0, 2, 0xaa, 0xbb]);
    b
}

#[test]
fn a_hand_built_packet_reads_as_the_notes_say() {
    let packet = EmotePacket::read(&hand_built_stream(), MAX_FROM_CLIENT_BYTES).expect("reads");
    assert_eq!(packet.version, 8);
    assert_eq!(packet.purpose, Purpose::Stream);
    assert_eq!(packet.subs.len(), 2);
    let (player, forced) = packet.player().expect("a player").expect("reads");
    assert_eq!(
        player,
        Uuid::from_u128(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10)
    );
    assert!(forced);
    // An unknown sub-packet is kept as it came, for a relay.
    assert_eq!(
        packet.sub(0x42).map(|s| (s.version, s.payload.clone())),
        Some((3, vec![0xaa, 0xbb]))
    );
    assert_eq!(packet.write(), hand_built_stream());
}

#[test]
fn a_relay_replaces_the_player_and_moves_the_start_tick() {
    let mut packet = EmotePacket::read(&hand_built_stream(), MAX_FROM_CLIENT_BYTES).expect("reads");
    let alice = Uuid::from_u128(7);
    packet.set_player(alice, false);
    assert_eq!(packet.subs.iter().filter(|s| s.id == SUB_PLAYER).count(), 1);
    assert_eq!(
        packet.player().expect("one").expect("reads"),
        (alice, false)
    );
    assert!(!packet.set_start_tick(5), "no emote sub-packet");
    packet.subs.push(SubPacket {
        id: SUB_EMOTE,
        version: 2,
        payload: emote_payload(0, &wave()),
    });
    assert_eq!(packet.start_tick(), Some(0));
    assert!(packet.set_start_tick(31));
    assert_eq!(packet.start_tick(), Some(31));
    let again = EmotePacket::read(&packet.write(), MAX_TO_CLIENT_BYTES).expect("reads");
    let emote = again.sub(SUB_EMOTE).expect("the emote");
    let (start, animation) = read_emote(&emote.payload, 0).expect("reads");
    assert_eq!((start, animation), (31, wave()));
}

#[test]
fn bad_framing_names_the_byte_and_the_rule() {
    let bytes = hand_built_stream();
    let cases: Vec<(Vec<u8>, usize, &str)> = vec![
        (bytes[..3].to_vec(), 0, "the version needs 4 bytes"),
        (
            {
                let mut b = bytes.clone();
                b[3] = 9;
                b
            },
            0,
            "version 9",
        ),
        (
            {
                let mut b = bytes.clone();
                b.push(0);
                b
            },
            bytes.len(),
            "1 bytes follow",
        ),
        // The first sub-packet's size says 17; make it 1,000.
        (
            {
                let mut b = bytes.clone();
                b[8..12].copy_from_slice(&1000_i32.to_be_bytes());
                b
            },
            8,
            "more than the",
        ),
        (
            {
                let mut b = bytes.clone();
                b[8..12].copy_from_slice(&(-1_i32).to_be_bytes());
                b
            },
            8,
            "negative",
        ),
        (
            {
                let mut b = bytes.clone();
                b[5] = 3;
                b
            },
            bytes.len(),
            "a sub-packet id needs 1 bytes",
        ),
    ];
    for (input, offset, rule) in cases {
        let err = EmotePacket::read(&input, MAX_FROM_CLIENT_BYTES).expect_err(rule);
        assert_eq!(err.offset, offset, "{err}");
        assert!(err.rule.contains(rule), "{err}");
    }
    let huge = vec![0; MAX_FROM_CLIENT_BYTES + 1];
    let err = EmotePacket::read(&huge, MAX_FROM_CLIENT_BYTES).expect_err("over the cap");
    assert!(err.rule.contains("more than the 32768 allowed"), "{err}");
}

#[test]
fn the_server_config_advertises_tracking_and_no_songs() {
    let bytes = server_config().write();
    let packet = EmotePacket::read(&bytes, MAX_FROM_CLIENT_BYTES).expect("reads");
    assert_eq!(packet.purpose, Purpose::Config);
    let versions =
        read_discovery(&packet.sub(SUB_DISCOVERY).expect("discovery").payload).expect("reads");
    assert!(versions.contains(&(KEY_SERVER_TRACKS_PLAY_STATE, 1)));
    assert!(versions.contains(&(SUB_SONG, 0)));
    assert!(versions.contains(&(SUB_DISCOVERY, 8)));
    // Byte for byte: count 8, then the pairs.
    let payload = &packet.sub(SUB_DISCOVERY).expect("discovery").payload;
    assert_eq!(&payload[..6], &[0, 0, 0, 8, 0, 2]);
}

#[test]
fn a_stop_names_the_emote_and_the_player() {
    let emote = Uuid::from_u128(0xfeed);
    let player = Uuid::from_u128(0xbeef);
    let packet = EmotePacket::read(&stop_packet(emote, player).write(), 1 << 10).expect("reads");
    assert_eq!(packet.purpose, Purpose::Stop);
    assert_eq!(
        read_stop(&packet.sub(SUB_STOP).expect("stop").payload),
        Ok(emote)
    );
    assert_eq!(packet.player().expect("player"), Ok((player, false)));
}

/// A two-part animation: a bending right arm with two pitch keyframes,
/// and a head (which does not bend).
fn wave() -> BoneAnimation {
    let mut arm = Part::still("rightArm");
    arm.axes[3] = Axis {
        enabled: true,
        keyframes: vec![
            Keyframe {
                tick: 0,
                value: 0.0,
                ease: 0,
            },
            Keyframe {
                tick: 10,
                value: -2.5,
                ease: 8,
            },
        ],
    };
    BoneAnimation {
        begin_tick: 0,
        end_tick: 20,
        stop_tick: 23,
        is_looped: true,
        return_tick: 5,
        easing_before: true,
        nsfw: false,
        parts: vec![arm, Part::still("head")],
        uuid: Uuid::from_u128(0x1234),
    }
}

#[test]
fn an_animation_reads_from_hand_built_bytes() {
    let mut b = Vec::new();
    for v in [0_i32, 20, 23] {
        b.extend(v.to_be_bytes());
    }
    b.push(1);
    b.extend(5_i32.to_be_bytes());
    b.extend([1, 0, 9]);
    b.extend(2_i32.to_be_bytes());
    // rightArm: eight axes, pitch (the fourth) with two keyframes.
    b.extend(8_i32.to_be_bytes());
    b.extend(b"rightArm");
    for axis in 0..8 {
        if axis == 3 {
            b.push(1);
            b.extend(2_i32.to_be_bytes());
            b.extend(0_i32.to_be_bytes());
            b.extend(0.0_f32.to_be_bytes());
            b.push(0);
            b.extend(10_i32.to_be_bytes());
            b.extend((-2.5_f32).to_be_bytes());
            b.push(8);
        } else {
            b.push(0);
            b.extend(0_i32.to_be_bytes());
        }
    }
    // head: six axes, all off.
    b.extend(4_i32.to_be_bytes());
    b.extend(b"head");
    for _ in 0..6 {
        b.push(0);
        b.extend(0_i32.to_be_bytes());
    }
    b.extend(0_u64.to_be_bytes());
    b.extend(0x1234_u64.to_be_bytes());
    assert_eq!(read_animation(&b, 0), Ok(wave()));
    assert_eq!(write_animation(&wave()), b);
}

#[test]
fn longer_keyframes_of_a_later_format_are_skipped() {
    let mut animation = wave();
    animation.parts.truncate(1);
    let mut b = write_animation(&animation);
    // keyframeSize 9 → 11: each keyframe gets two more bytes.
    b[19] = 11;
    let mut longer = b[..20].to_vec();
    let mut r = 20;
    // Rebuild the part with two padding bytes after each keyframe.
    longer.extend(&b[r..r + 16]); // the part count and "rightArm"
    r += 16;
    for _ in 0..8 {
        longer.extend(&b[r..r + 5]);
        let n = i32::from_be_bytes([b[r + 1], b[r + 2], b[r + 3], b[r + 4]]) as usize;
        r += 5;
        for _ in 0..n {
            longer.extend(&b[r..r + 9]);
            longer.extend([0xee, 0xee]);
            r += 9;
        }
    }
    longer.extend(&b[r..]);
    assert_eq!(read_animation(&longer, 0), Ok(animation));
    // A keyframe shorter than 9 bytes cannot be read.
    b[19] = 8;
    let err = read_animation(&b, 100).expect_err("short keyframes");
    assert_eq!(err.offset, 119);
}

#[test]
fn a_truncated_animation_says_where_it_ends() {
    let bytes = write_animation(&wave());
    for cut in [0, 5, 19, 40, bytes.len() - 1] {
        let err = read_animation(&bytes[..cut], 10).expect_err("truncated");
        assert!(err.offset <= cut + 10, "{cut}: {err}");
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = EmotePacket::read(&bytes, MAX_FROM_CLIENT_BYTES);
        let _ = read_animation(&bytes, 0);
        let _ = read_emote(&bytes, 0);
        let _ = read_discovery(&bytes);
        let _ = read_player(&bytes);
        let _ = read_stop(&bytes);
    }

    #[test]
    fn a_packet_reads_back_as_written(
        purpose in any::<u8>(),
        subs in proptest::collection::vec((any::<u8>(), any::<u8>(), proptest::collection::vec(any::<u8>(), 0..40)), 0..6),
    ) {
        let packet = EmotePacket::new(
            Purpose::from_byte(purpose),
            subs.into_iter().map(|(id, version, payload)| SubPacket { id, version, payload }).collect(),
        );
        prop_assert_eq!(EmotePacket::read(&packet.write(), MAX_TO_CLIENT_BYTES), Ok(packet));
    }

    #[test]
    fn an_animation_reads_back_as_written(
        ticks in proptest::collection::vec((-100_i32..100, -10.0_f32..10.0, 0_u8..40), 0..8),
        looped in any::<bool>(),
        part in 0_usize..STANDARD_PARTS.len(),
    ) {
        let mut animation = wave();
        animation.is_looped = looped;
        let mut moved = Part::still(STANDARD_PARTS[part]);
        moved.axes[0] = Axis {
            enabled: true,
            keyframes: ticks.into_iter().map(|(tick, value, ease)| Keyframe { tick, value, ease }).collect(),
        };
        animation.parts.push(moved);
        prop_assert_eq!(read_animation(&write_animation(&animation), 0), Ok(animation));
    }
}
