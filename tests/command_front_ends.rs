//! The two command front ends, typed chat commands (`emoted::server::commands`)
//! and event commands (`emoted::server::dispatch`), read game modes and
//! numbers through one syntax layer (`emoted::server::syntax`): the same
//! inputs are accepted or refused by both, and an accepted position means
//! the same place. Two divergences of the past are in the table:
//! `gamemode Creative` (typed took it, events refused it) and `tp 1e3 ..`
//! (events took it, typed refused it).

use emoted::server::commands::{parse_command, Command, Coordinate, TeleportCommand};
use emoted::server::dispatch::{parse_event_command, Coordinates, Destination, ParsedCommand};
use valence::prelude::GameMode;

/// (command without the slash, accepted by both?)
const SAME_INPUTS: &[(&str, bool)] = &[
    ("gamemode creative", true),
    ("gamemode Creative", true),
    ("gamemode SPECTATOR", true),
    ("gamemode adventure Steve", true),
    ("gamemode hardcore", false),
    ("gamemode 1", false),
    ("gamemode", false),
    ("tp 1 64 1", true),
    ("tp 1000 64 0", true),
    ("tp 1.5 64 -2.25", true),
    ("tp ~ ~1 ~-0.5", true),
    ("tp Steve 3 65 3", true),
    ("tp Steve", true),
    ("tp 1e3 64 0", false),
    ("tp 1E3 64 0", false),
    ("tp ~1e2 ~ ~", false),
    ("tp inf 64 0", false),
    ("tp NaN 64 0", false),
    ("tp 0x10 64 0", false),
    ("tp 1,5 64 0", false),
    ("tp 1 64", false),
];

#[test]
fn typed_and_event_commands_accept_and_refuse_the_same_inputs() {
    let mut disagreements = Vec::new();
    for (input, accepted) in SAME_INPUTS {
        let typed = parse_command(input);
        let event = parse_event_command(input);
        if typed.is_ok() != *accepted || event.is_ok() != *accepted {
            disagreements.push(format!(
                "{input}: expected {}, typed {:?}, event {:?}",
                if *accepted { "accepted" } else { "refused" },
                typed.map(|_| ()).map_err(|e| e.to_string()),
                event.map(|_| ()).map_err(|e| e.to_string()),
            ));
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

#[test]
fn both_front_ends_read_the_same_game_mode_and_position() {
    for input in [
        "gamemode Creative",
        "gamemode creative",
        "gamemode CREATIVE",
    ] {
        match parse_command(input) {
            Ok(Command::GameMode { mode, .. }) => assert_eq!(mode, GameMode::Creative, "{input}"),
            other => panic!("{input}: {other:?}"),
        }
        match parse_event_command(input) {
            Ok(ParsedCommand::GameMode { mode, .. }) => {
                assert_eq!(mode, GameMode::Creative, "{input}")
            }
            other => panic!("{input}: {other:?}"),
        }
    }
    // Whole x and z are block centres in both; y is not; `~` is relative.
    let input = "tp 1000 64 ~-2.5";
    let typed = match parse_command(input) {
        Ok(Command::Teleport(TeleportCommand::ToPosition { position, .. })) => position,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        typed,
        [
            Coordinate::Absolute(1000.5),
            Coordinate::Absolute(64.0),
            Coordinate::Relative(-2.5)
        ]
    );
    let event = match parse_event_command(input) {
        Ok(ParsedCommand::Teleport {
            destination: Destination::Position(Coordinates::World(world), None),
            ..
        }) => world,
        other => panic!("{other:?}"),
    };
    let read: Vec<(f64, bool)> = event.iter().map(|c| (c.value, c.relative)).collect();
    assert_eq!(read, vec![(1000.5, false), (64.0, false), (-2.5, true)]);
}
