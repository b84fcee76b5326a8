//! Walking in an emote, with real clients: `walker` plays the bundled
//! controller `example:walk_wave`, stands, walks 6 blocks, stands, sneaks,
//! jumps and stops it; `watcher`, 4 blocks away, records what a vanilla
//! client draws. The emote keeps playing all the way; the body stays
//! within 0.5 block of the walker (carried in the transformation); the legs swing while it walks and
//! rest while it stands; a sneak lowers the body and a jump plays the jump
//! state's sound; `/emote set waving 0` lowers the waving arm (a typo is
//! answered with the name it meant); `/emote stop` ends it and every
//! display goes.

mod common;

use std::collections::BTreeMap;

use glam::{Mat3, Quat, Vec3};

use common::{Event, Server};

const WALK_WAVE: &str = "example:walk_wave";
/// Where the walker plays, and where it walks to (6 blocks along +Z).
const START: [f64; 3] = [-4.5, 65.0, -8.5];
const END: [f64; 3] = [-4.5, 65.0, -2.5];

/// One display as the watcher drew it: its position and its
/// transformation over time (unix ms), as sent (each field kept until it
/// is sent again).
#[derive(Default)]
struct Drawn {
    positions: Vec<(u64, Vec3)>,
    /// The linear part, `R_left · S · R_right`.
    linear: Vec<(u64, Mat3)>,
    translation: Vec<(u64, Vec3)>,
    kept: Option<(Quat, Vec3, Quat)>,
}

impl Drawn {
    /// The latest value of `series` at `at`.
    fn at<T: Copy>(series: &[(u64, T)], at: u64) -> Option<T> {
        series
            .iter()
            .take_while(|(t, _)| *t <= at)
            .last()
            .map(|(_, v)| *v)
    }
}

/// How far a leg turns from hanging straight: the angle between its
/// drawn up axis and up (a turn about Y, the body's yaw, is none).
fn tilt_degrees(linear: Mat3) -> f32 {
    (linear * Vec3::Y).angle_between(Vec3::Y).to_degrees()
}

#[test]
fn a_player_walks_sneaks_and_jumps_in_walk_wave_and_a_watcher_sees_it() {
    let emotes = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    let server = Server::start_with_args(&[emotes], &[]);
    let watcher = server
        .bot("watcher")
        .record_packets(&["sound_effect"])
        .wait_spawn()
        .move_to(-8.5, 65.0, -5.5)
        .wait_ms(14_000)
        .disconnect()
        .timeout_ms(40_000)
        .spawn();
    let walker = server
        .bot("walker")
        .wait_spawn()
        .wait_ms(1_500)
        .move_to(START[0], START[1], START[2]) // step 2
        .chat(&format!("/emote play {WALK_WAVE}")) // 3
        .wait_ms(1_500) // 4: standing
        .track_position(200) // 5
        .move_to(END[0], END[1], END[2]) // 6: walking
        .wait_ms(1_500) // 7: standing again
        .set_control("sneak", true) // 8
        .wait_ms(1_000) // 9: sneaking
        .set_control("sneak", false) // 10
        .wait_ms(800) // 11
        .set_control("jump", true) // 12
        .wait_ms(250) // 13
        .set_control("jump", false) // 14
        .wait_ms(1_200) // 15
        .chat("/emote set wavng 0") // 16: a typo
        .wait_ms(300) // 17
        .chat("/emote set waving 0") // 18: the arm comes down
        .wait_ms(800) // 19
        .chat("/emote stop") // 20
        .wait_ms(1_500) // 21
        .disconnect()
        .timeout_ms(40_000)
        .spawn();
    let walker = walker.wait();
    let watcher = watcher.wait();
    walker.assert_ok();
    watcher.assert_ok();
    let steps = walker.step_unix_ms();
    let (played, walk_start, walk_end) = (steps[3], steps[6], steps[7]);
    let (sneak_on, sneak_off, jump_at) = (steps[8], steps[10], steps[12]);
    let (waving_off, stopped) = (steps[18], steps[20]);

    // The walker was never seated or turned into a spectator: it walked.
    let path: Vec<(u64, Vec3)> = walker
        .events
        .iter()
        .filter_map(|e| match e {
            Event::BotPosition(p) => Some((
                walker.unix_ms(p.t),
                Vec3::new(p.x as f32, p.y as f32, p.z as f32),
            )),
            _ => None,
        })
        .collect();
    let last = path.last().expect("positions").1;
    assert!(
        (last.z - END[2] as f32).abs() < 0.5,
        "{last}\n{}",
        walker.describe()
    );

    // The rig: the item displays the watcher got near the walker's start.
    let rig: Vec<i32> = watcher
        .spawned_of("item_display")
        .into_iter()
        .filter(|s| {
            watcher.unix_ms(s.t) >= played
                && (s.x - START[0]).abs() < 1.0
                && (s.z - START[2]).abs() < 1.0
        })
        .map(|s| s.entity_id)
        .collect();
    assert!(
        rig.len() >= 6,
        "the body's displays: {rig:?}\n{}",
        watcher.describe()
    );
    let mut drawn: BTreeMap<i32, Drawn> = BTreeMap::new();
    for event in &watcher.events {
        match event {
            Event::SpawnEntity(s) if rig.contains(&s.entity_id) => {
                let at = Vec3::new(s.x as f32, s.y as f32, s.z as f32);
                drawn
                    .entry(s.entity_id)
                    .or_default()
                    .positions
                    .push((watcher.unix_ms(s.t), at));
            }
            Event::EntityMove {
                t,
                entity_id,
                x: Some(x),
                y: Some(y),
                z: Some(z),
                ..
            } if rig.contains(entity_id) => {
                let at = Vec3::new(*x as f32, *y as f32, *z as f32);
                drawn
                    .entry(*entity_id)
                    .or_default()
                    .positions
                    .push((watcher.unix_ms(*t), at));
            }
            Event::EntityMetadata(m) if rig.contains(&m.entity_id) => {
                let entry = drawn.entry(m.entity_id).or_default();
                let t = watcher.unix_ms(m.t);
                let (mut left, mut scale, mut right) =
                    entry
                        .kept
                        .unwrap_or((Quat::IDENTITY, Vec3::ONE, Quat::IDENTITY));
                let quat = |name: &str| {
                    m.quat(name)
                        .map(|[x, y, z, w]| Quat::from_xyzw(x as f32, y as f32, z as f32, w as f32))
                };
                left = quat("left_rotation").unwrap_or(left);
                right = quat("right_rotation").unwrap_or(right);
                if let Some([x, y, z]) = m.vec3("scale") {
                    scale = Vec3::new(x as f32, y as f32, z as f32);
                }
                if (left, scale, right) != entry.kept.unwrap_or_default() {
                    let linear =
                        Mat3::from_quat(left) * Mat3::from_diagonal(scale) * Mat3::from_quat(right);
                    entry.linear.push((t, linear));
                }
                entry.kept = Some((left, scale, right));
                if let Some([x, y, z]) = m.vec3("translation") {
                    entry
                        .translation
                        .push((t, Vec3::new(x as f32, y as f32, z as f32)));
                }
            }
            _ => {}
        }
    }

    // It kept playing: no display went before the stop, all went after it.
    let destroyed: BTreeMap<i32, u64> = watcher
        .events
        .iter()
        .filter_map(|e| match e {
            Event::EntityDestroy { t, entity_ids } => {
                Some((entity_ids.clone(), watcher.unix_ms(*t)))
            }
            _ => None,
        })
        .flat_map(|(ids, t)| ids.into_iter().map(move |id| (id, t)))
        .filter(|(id, _)| rig.contains(id))
        .collect();
    for id in &rig {
        let gone = destroyed
            .get(id)
            .unwrap_or_else(|| panic!("display {id} left behind"));
        assert!(*gone >= stopped, "display {id} went before /emote stop");
    }

    // The body follows: for every walker position (five a second), the
    // right leg the watcher draws shortly after (below) comes within 0.5
    // block of it. The way is carried in the
    // transformation: the display itself never moves in 6 blocks.
    let legs = *rig.iter().min().expect("a display");
    let leg = &drawn[&legs];
    assert_eq!(leg.positions.len(), 1, "the leg display moved");
    let followed: Vec<_> = path
        .iter()
        .filter(|(t, _)| *t >= walk_start && *t <= walk_end + 1_000)
        .collect();
    assert!(followed.len() >= 8, "{followed:?}");
    for (t, walker_at) in followed {
        // What the watcher drew from 50 to 300 ms after: a server tick and
        // the network, with room for the test clients' own event loops,
        // which lagged 250 ms now and then in a full run.
        let window = (t + 50)..=(t + 300);
        let off = std::iter::once(t + 50)
            .chain(
                leg.translation
                    .iter()
                    .map(|(at, _)| *at)
                    .filter(|at| window.contains(at)),
            )
            .filter_map(|at| {
                let seen = Drawn::at(&leg.positions, at)? + Drawn::at(&leg.translation, at)?;
                Some(Vec3::new(seen.x - walker_at.x, 0.0, seen.z - walker_at.z).length())
            })
            .fold(f32::INFINITY, f32::min);
        assert!(off < 0.5, "at {t}: the leg is {off} blocks from the walker");
    }

    // The right leg (the first display of the body) swings while walking
    // and hangs straight while standing: each sent transformation's up
    // axis against up.
    let tilts = |from: u64, to: u64| -> f32 {
        leg.linear
            .iter()
            .filter(|(t, _)| *t >= from && *t <= to && Drawn::at(&leg.linear, *t).is_some())
            .map(|(_, m)| tilt_degrees(*m))
            .fold(0.0, f32::max)
    };
    let standing = tilts(played + 600, walk_start);
    let walking = tilts(walk_start + 300, walk_end);
    let stood = tilts(walk_end + 500, sneak_on);
    assert!(standing < 5.0, "standing, the leg turns {standing}°");
    // The run's ±45°, sent as it is (no lead past the turn of a swing).
    assert!(
        (30.0..50.0).contains(&walking),
        "walking, the leg swings {walking}°"
    );
    assert!(stood < 5.0, "stopped, the leg turns {stood}°");

    // A sneak lowers the body: the highest display (the head) drops.
    let top = |at: u64| -> f32 {
        drawn
            .values()
            .filter_map(|d| Drawn::at(&d.translation, at).map(|t| t.y))
            .fold(f32::MIN, f32::max)
    };
    let upright = top(sneak_on);
    let crouched = top(sneak_on + 700);
    assert!(
        upright - crouched > 0.08,
        "sneaking: {upright} → {crouched}"
    );
    assert!(
        (top(jump_at) - upright).abs() < 0.05,
        "back up after the sneak"
    );
    let _ = sneak_off;

    // A jump enters the jump state: its sound plays for the watcher then,
    // and not before.
    let sweeps: Vec<u64> = watcher
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Packet { t, name, data }
                if name == "sound_effect" && data.to_string().contains("attack.sweep") =>
            {
                Some(watcher.unix_ms(*t))
            }
            _ => None,
        })
        .collect();
    assert!(
        sweeps
            .iter()
            .any(|t| *t >= jump_at && *t <= jump_at + 1_500),
        "no jump sound after {jump_at}: {sweeps:?}"
    );
    assert!(
        sweeps.iter().all(|t| *t >= jump_at),
        "a jump sound before the jump: {sweeps:?}"
    );

    // `/emote set waving 0` lays the wave layer's weight to 0: the raised
    // arm (turned past 100° from hanging) comes down to the idle's; the
    // held item, always turned 90° in the hand, is not the arm.
    let raised = |at: u64| {
        drawn
            .values()
            .filter_map(|d| Drawn::at(&d.linear, at))
            .map(tilt_degrees)
            .filter(|tilt| *tilt > 100.0)
            .count()
    };
    assert!(raised(waving_off) >= 2, "the wave raises the arm");
    assert_eq!(raised(waving_off + 600), 0, "after /emote set waving 0");
    let chat = walker.chat().join("\n");
    assert!(
        chat.contains("unknown parameter `wavng`") && chat.contains("did you mean `waving`?"),
        "{chat}"
    );

    // /emote stop ended it, as the walker was told.
    let bar = walker.action_bar().join(" | ");
    assert!(bar.contains("stopped") || bar.contains("Stopped"), "{bar}");
}
