//! The idle clock, the pose watch and the candidates, tick by tick: the
//! phases at their boundary ticks, patterns against a loaded set, and
//! seeded draws against the weights.

use std::collections::HashMap;

use proptest::prelude::*;

use super::*;

fn id(text: &str) -> EmoteId {
    EmoteId::parse(text).expect("valid id")
}

/// One observation with nothing happening.
fn quiet(now_tick: u64, playing: Option<&EmoteId>) -> IdleObservation<'_> {
    IdleObservation {
        now_tick,
        wake: None,
        ended: false,
        playing,
        delay_ticks: Some(100),
    }
}

/// Runs the clock through quiet ticks `from..=to`, returning the first
/// tick that asked for something.
fn first_decision(clock: &mut IdleClock, from: u64, to: u64) -> Option<(u64, IdleDecision)> {
    (from..=to).find_map(|tick| {
        let decision = clock.observe(&quiet(tick, None));
        (decision != IdleDecision::Nothing).then_some((tick, decision))
    })
}

#[test]
fn an_attempt_is_due_after_the_delay_of_quiet_and_not_before() {
    let mut clock = IdleClock::new(1000);
    // Delay 100: due at 1100, not at 1099 (tick ozz-style at k-1, k).
    assert_eq!(
        first_decision(&mut clock, 1001, 1200),
        Some((1100, IdleDecision::Attempt))
    );
    // Activity at 1150 moves the quiet point.
    let mut clock = IdleClock::new(1000);
    assert_eq!(first_decision(&mut clock, 1001, 1049), None);
    let wake = IdleObservation {
        wake: Some(IdleWake::Chatted),
        ..quiet(1050, None)
    };
    assert_eq!(clock.observe(&wake), IdleDecision::Nothing);
    assert_eq!(clock.quiet_since_tick(), 1050);
    assert_eq!(
        first_decision(&mut clock, 1051, 1300),
        Some((1150, IdleDecision::Attempt))
    );
    // No rule: never.
    let mut clock = IdleClock::new(0);
    let none = IdleObservation {
        delay_ticks: None,
        ..quiet(10_000, None)
    };
    assert_eq!(clock.observe(&none), IdleDecision::Nothing);
}

#[test]
fn a_failed_start_is_retried_a_second_after_the_attempt() {
    let sit = id("example:sit");
    let mut clock = IdleClock::new(0);
    assert_eq!(clock.observe(&quiet(100, None)), IdleDecision::Attempt);
    clock.attempted(Some(sit.clone()), 100);
    // The next tick shows nothing playing: refused.
    assert_eq!(
        first_decision(&mut clock, 101, 200),
        Some((120, IdleDecision::Attempt))
    );
    // No candidate at all: the same wait.
    clock.attempted(None, 120);
    assert_eq!(
        first_decision(&mut clock, 121, 200),
        Some((140, IdleDecision::Attempt))
    );
    assert_eq!(clock.last_played(), None, "nothing played");
}

#[test]
fn a_playing_idle_emote_stops_on_a_wake_and_repeats_after_ending_by_itself() {
    let sit = id("example:sit");
    let mut clock = IdleClock::new(0);
    assert_eq!(clock.observe(&quiet(100, None)), IdleDecision::Attempt);
    clock.attempted(Some(sit.clone()), 100);
    assert_eq!(
        clock.observe(&quiet(101, Some(&sit))),
        IdleDecision::Nothing
    );
    assert!(clock.plays_idle_emote());
    assert_eq!(clock.last_played(), Some(&sit));
    // It plays for a while; quiet ticks change nothing.
    for tick in 102..400 {
        assert_eq!(
            clock.observe(&quiet(tick, Some(&sit))),
            IdleDecision::Nothing
        );
    }
    // It ends by itself at 400: the next one is due 100 ticks later.
    let end = IdleObservation {
        ended: true,
        ..quiet(400, None)
    };
    assert_eq!(clock.observe(&end), IdleDecision::Nothing);
    assert!(!clock.plays_idle_emote());
    assert_eq!(
        first_decision(&mut clock, 401, 600),
        Some((500, IdleDecision::Attempt))
    );
    clock.attempted(Some(sit.clone()), 500);
    assert_eq!(
        clock.observe(&quiet(501, Some(&sit))),
        IdleDecision::Nothing
    );
    // A look: stop it, once.
    let look = IdleObservation {
        wake: Some(IdleWake::LookedAround),
        ..quiet(510, Some(&sit))
    };
    assert_eq!(
        clock.observe(&look),
        IdleDecision::Stop(IdleWake::LookedAround)
    );
    let again = IdleObservation {
        wake: Some(IdleWake::Moved),
        ..quiet(511, Some(&sit))
    };
    assert_eq!(clock.observe(&again), IdleDecision::Nothing, "asked once");
    let stopped = IdleObservation {
        ended: true,
        ..quiet(512, None)
    };
    assert_eq!(clock.observe(&stopped), IdleDecision::Nothing);
    assert_eq!(
        first_decision(&mut clock, 513, 700),
        Some((612, IdleDecision::Attempt))
    );
}

#[test]
fn the_clock_never_touches_an_emote_it_did_not_start() {
    let sit = id("example:sit");
    let wave = id("example:wave");
    let mut clock = IdleClock::new(0);
    // The player plays a wave themself: busy however long it plays.
    let started = IdleObservation {
        wake: Some(IdleWake::Command),
        ..quiet(10, Some(&wave))
    };
    assert_eq!(clock.observe(&started), IdleDecision::Nothing);
    for tick in 11..1000 {
        assert_eq!(
            clock.observe(&quiet(tick, Some(&wave))),
            IdleDecision::Nothing
        );
    }
    let turn = IdleObservation {
        wake: Some(IdleWake::LookedAround),
        ..quiet(1000, Some(&wave))
    };
    assert_eq!(
        clock.observe(&turn),
        IdleDecision::Nothing,
        "not ours to stop"
    );
    // It ends: a stop from anything else counts as activity.
    let end = IdleObservation {
        ended: true,
        ..quiet(1200, None)
    };
    assert_eq!(clock.observe(&end), IdleDecision::Nothing);
    assert_eq!(
        first_decision(&mut clock, 1201, 1400),
        Some((1300, IdleDecision::Attempt))
    );

    // Ours is replaced by a command in the tick it starts, or later.
    clock.attempted(Some(sit.clone()), 1300);
    let replaced = IdleObservation {
        wake: Some(IdleWake::Command),
        ended: true,
        ..quiet(1301, Some(&wave))
    };
    assert_eq!(clock.observe(&replaced), IdleDecision::Nothing);
    assert!(!clock.plays_idle_emote());
    let end = IdleObservation {
        ended: true,
        ..quiet(1400, None)
    };
    clock.observe(&end);
    assert_eq!(
        first_decision(&mut clock, 1401, 1600),
        Some((1500, IdleDecision::Attempt))
    );
    clock.attempted(Some(sit.clone()), 1500);
    assert_eq!(
        clock.observe(&quiet(1501, Some(&sit))),
        IdleDecision::Nothing
    );
    // `/emote play example:sit` replaces ours with the same emote: the
    // command's playback is not stopped by the command's own wake.
    let same = IdleObservation {
        wake: Some(IdleWake::Command),
        ended: true,
        ..quiet(1600, Some(&sit))
    };
    assert_eq!(clock.observe(&same), IdleDecision::Nothing);
    let moved = IdleObservation {
        wake: Some(IdleWake::Moved),
        ..quiet(1601, Some(&sit))
    };
    assert_eq!(clock.observe(&moved), IdleDecision::Nothing);
}

#[test]
fn an_emote_that_vanishes_without_an_end_moves_the_quiet_point() {
    // A two-player partner's playback lives on the initiator: the
    // partner's clock only sees it stop playing.
    let duo = id("example:handshake");
    let mut clock = IdleClock::new(0);
    for tick in 1..300 {
        assert_eq!(
            clock.observe(&quiet(tick, Some(&duo))),
            IdleDecision::Nothing
        );
    }
    assert_eq!(clock.observe(&quiet(300, None)), IdleDecision::Nothing);
    assert_eq!(clock.quiet_since_tick(), 300);
    assert_eq!(
        first_decision(&mut clock, 301, 500),
        Some((400, IdleDecision::Attempt))
    );
}

#[test]
fn a_shorter_delay_from_a_reload_applies_at_once() {
    let mut clock = IdleClock::new(0);
    assert_eq!(clock.observe(&quiet(50, None)), IdleDecision::Nothing);
    let shorter = IdleObservation {
        delay_ticks: Some(40),
        ..quiet(51, None)
    };
    assert_eq!(clock.observe(&shorter), IdleDecision::Attempt);
}

#[test]
fn each_notice_ends_with_its_phrase() {
    for wake in [
        IdleWake::Moved,
        IdleWake::LookedAround,
        IdleWake::Chatted,
        IdleWake::Command,
        IdleWake::Clicked,
        IdleWake::Inventory,
    ] {
        assert_eq!(
            wake.stop_notice(),
            format!("Emote stopped: {}", wake.describe())
        );
    }
}

#[test]
fn the_pose_watch_sees_moves_and_turns_past_the_epsilons() {
    let mut watch = PoseWatch::new([0.5, 65.0, 0.5], 0.0, 0.0);
    assert_eq!(watch.observe([0.5, 65.0, 0.5], 0.0, 0.0), None);
    assert_eq!(watch.observe([0.505, 65.0, 0.5], 0.05, -0.05), None);
    // Creeping 0.004 a tick adds up from the reference.
    assert_eq!(watch.observe([0.509, 65.0, 0.5], 0.0, 0.0), None);
    assert_eq!(
        watch.observe([0.5111, 65.0, 0.5], 0.0, 0.0),
        Some(IdleWake::Moved)
    );
    assert_eq!(watch.observe([0.5111, 65.0, 0.5], 0.0, 0.0), None);
    assert_eq!(
        watch.observe([0.5111, 64.9, 0.5], 0.0, 0.0),
        Some(IdleWake::Moved),
        "falling is moving"
    );
    assert_eq!(
        watch.observe([0.5111, 64.9, 0.5], 0.0, 0.15),
        Some(IdleWake::LookedAround)
    );
    assert_eq!(
        watch.observe([1.0, 64.9, 0.5], 90.0, 0.15),
        Some(IdleWake::Moved),
        "moving wins"
    );
    assert_eq!(
        watch.observe([1.0, 64.9, 0.5], 90.0, 0.15),
        None,
        "both taken"
    );
}

fn loaded() -> Vec<EmoteId> {
    [
        "example:sit",
        "example:sit_down",
        "example:sit_idle_a",
        "example:wave",
        "other:sit",
    ]
    .into_iter()
    .map(id)
    .collect()
}

#[test]
fn patterns_expand_to_the_loaded_ids_once_each() {
    let loaded = loaded();
    let rule = IdleCandidates::Equal(vec![
        "example:sit".into(),
        "example:sit_*".into(),
        "*:sit*".into(),
        "example:gone".into(),
    ]);
    let resolved = rule.resolve(&loaded, |_| true);
    let names: Vec<(&str, u32)> = resolved.iter().map(|(i, w)| (i.as_str(), *w)).collect();
    assert_eq!(
        names,
        [
            ("example:sit", 1),
            ("example:sit_down", 1),
            ("example:sit_idle_a", 1),
            ("other:sit", 1)
        ]
    );
    // The server's rules (standalone, cooldowns) filter.
    let standalone = rule.resolve(&loaded, |i| !i.as_str().contains("sit_"));
    assert_eq!(standalone.len(), 2);
    let weighted = IdleCandidates::Weighted(vec![
        (id("example:wave"), 60),
        (id("example:gone"), 30),
        (id("example:sit"), 10),
    ]);
    let resolved = weighted.resolve(&loaded, |_| true);
    let names: Vec<(&str, u32)> = resolved.iter().map(|(i, w)| (i.as_str(), *w)).collect();
    assert_eq!(names, [("example:sit", 10), ("example:wave", 60)]);
}

#[test]
fn pick_avoids_the_last_where_another_exists() {
    let (a, b) = (id("example:a"), id("example:b"));
    let mut rng = StepRng::new(7);
    let both = [(&a, 99), (&b, 1)];
    for _ in 0..200 {
        assert_eq!(pick(&both, Some(&a), &mut rng), Some(&b));
    }
    let alone = [(&a, 1)];
    assert_eq!(pick(&alone, Some(&a), &mut rng), Some(&a), "nothing else");
    assert_eq!(pick(&[], None, &mut rng), None);
    assert_eq!(pick(&[(&a, 0)], None, &mut rng), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Over many seeded draws, each candidate comes up about as often
    /// as its weight says (renormalised without the last one).
    #[test]
    fn draws_follow_the_weights(
        weights in proptest::collection::vec(1u32..60, 2..5),
        seed in any::<u64>(),
        avoid_first in any::<bool>(),
    ) {
        let ids: Vec<EmoteId> = (0..weights.len()).map(|i| id(&format!("t:e{i}"))).collect();
        let candidates: Vec<(&EmoteId, u32)> = ids.iter().zip(weights.iter().copied()).collect();
        let last = avoid_first.then(|| &ids[0]);
        let mut rng = StepRng::new(seed);
        let draws = 4000;
        let mut counts: HashMap<&EmoteId, u32> = HashMap::new();
        for _ in 0..draws {
            let picked = pick(&candidates, last, &mut rng).expect("a pick");
            *counts.entry(picked).or_default() += 1;
        }
        let total: u32 = candidates
            .iter()
            .filter(|(i, _)| Some(*i) != last)
            .map(|(_, w)| w)
            .sum();
        for (candidate, weight) in &candidates {
            let seen = f64::from(counts.get(candidate).copied().unwrap_or(0));
            if Some(*candidate) == last {
                prop_assert_eq!(seen, 0.0);
                continue;
            }
            let expected = f64::from(draws) * f64::from(*weight) / f64::from(total);
            // Five standard deviations of a binomial count.
            let p = f64::from(*weight) / f64::from(total);
            let sigma = (f64::from(draws) * p * (1.0 - p)).sqrt();
            prop_assert!(
                (seen - expected).abs() <= 5.0 * sigma + 1.0,
                "{} drawn {} times, expected about {}", candidate, seen, expected
            );
        }
    }
}
