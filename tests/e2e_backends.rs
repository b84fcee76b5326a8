//! Two emoted backends behind one proxy agree on a `server_sync` emote:
//! both take its phase from the wall clock (`unix_ms / 50` ticks), not
//! from their own tick counters, so a player moved between them (or two
//! players on two of them) sees the same moment of the cycle. Each backend
//! has one forwarded player playing a `server_sync` emote whose cycle
//! starts with a chat line; the wall-clock times those lines arrive must
//! fall on the same cycle boundary on both servers, within a tick.

mod common;

use std::thread;
use std::time::Duration;

use common::{label_animation, BotRun, Server, TempDir};
use serde_json::json;

/// The cycle: 20 ticks, one second.
const CYCLE_TICKS: u64 = 20;
const TICK_MS: f64 = 50.0;

fn emote() -> serde_json::Value {
    let says_cycle = json!([{
        "time": "0t",
        "source": {"type": "server"},
        "origin": {"type": "root"},
        "commands": ["say cycle"]
    }]);
    label_animation(
        "e2e:sync",
        "server_sync",
        CYCLE_TICKS as u32,
        json!({}),
        says_cycle,
    )
}

/// Where in the wall clock's cycle each cycle line arrived, in ticks from
/// the nearest cycle boundary.
fn arrival_phases(run: &BotRun) -> Vec<f64> {
    let clock = run.clock_unix_ms().expect("the client prints its clock") as f64;
    run.chat_containing("cycle")
        .iter()
        .map(|(t, _)| signed_phase(((clock + *t as f64) / TICK_MS) % CYCLE_TICKS as f64))
        .collect()
}

/// A phase as an offset from the nearest cycle boundary, in `(-10, 10]`
/// ticks, so that lines just before and just after a boundary sort
/// together.
fn signed_phase(phase: f64) -> f64 {
    if phase > CYCLE_TICKS as f64 / 2.0 {
        phase - CYCLE_TICKS as f64
    } else {
        phase
    }
}

/// The distance between two phases around the cycle, in ticks.
fn around(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(CYCLE_TICKS as f64);
    d.min(CYCLE_TICKS as f64 - d)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[test]
fn two_backends_agree_on_a_server_sync_phase() {
    let dir = TempDir::new("backends");
    dir.write("emotes/sync.json", &emote().to_string());
    let config = dir.write(
        "emoted.toml",
        "[server]\nconnection_mode = \"bungeecord\"\n",
    );
    let config = config.to_string_lossy().into_owned();
    let emotes = dir.path().join("emotes");
    let first = Server::start_with_args(&[emotes.as_path()], &["--config", &config]);
    // A start 0.53 s later: a server counting its own ticks would be
    // about 10 ticks off the first.
    thread::sleep(Duration::from_millis(530));
    let second = Server::start_with_args(&[emotes.as_path()], &["--config", &config]);

    let plan = |server: &Server, name: &str, ip: &str, uuid: &str| {
        server
            .bot(name)
            .forwarding(json!({"mode": "bungeecord", "ip": ip, "uuid": uuid}))
            .wait_spawn()
            .chat("/emote play e2e:sync")
            .wait_for(json!({"event": "chat", "text_contains": "cycle"}), 6, 10000)
            .disconnect()
    };
    let runs = common::run_all(vec![
        plan(
            &first,
            "Alex",
            "203.0.113.1",
            "069a79f444e94726a5befca90e38aaf5",
        ),
        plan(
            &second,
            "Steve",
            "203.0.113.2",
            "853c80ef3c3749fdaa49938b674adae6",
        ),
    ]);
    for run in &runs {
        run.assert_ok();
    }
    let phases: Vec<Vec<f64>> = runs.iter().map(arrival_phases).collect();
    let medians: Vec<f64> = phases.iter().map(|p| median(p.clone())).collect();
    eprintln!("cycle lines arrived at wall phases (ticks) {phases:?}");
    // Each server starts the cycle at a wall-clock cycle boundary (phase
    // 0), give or take the tick it lands on and the loopback's latency.
    for (run, (phase, all)) in runs.iter().zip(medians.iter().zip(&phases)) {
        assert!(
            around(*phase, 0.0) <= 2.0,
            "{}: the cycle starts at wall phase {phase:.2} ticks, not at 0: {all:?}",
            run.username
        );
    }
    // Each server ticks at its own offset inside the 50 ms slot, so two
    // servers that agree on the phase fire the same cycle start up to one
    // tick apart (plus the loopback's latency); a server counting its own
    // ticks would be about 10 ticks off.
    assert!(
        around(medians[0], medians[1]) <= 1.5,
        "the two backends' cycles start {:.2} ticks apart: {phases:?}",
        around(medians[0], medians[1])
    );
}
