//! The two command front ends, typed chat commands (`emoted::server::commands`)
//! and event commands (`emoted::server::dispatch`), read words, numbers,
//! coordinates, game modes, selectors and the `tp` and `gamemode` grammars
//! through one syntax layer (`emoted::server::syntax`): the same inputs are
//! accepted or refused by both, and an accepted position means the same
//! place. Three divergences of the past are in the table: `gamemode
//! Creative` (typed took it, events refused it), `tp 1e3 ..` (events took
//! it, typed refused it) and `tp ^ ^ ^1` (events took it, typed refused it).

use emoted::server::commands::{parse_command, Command, EmoteCommandsPlugin};
use emoted::server::config::Config;
use emoted::server::dispatch::{parse_event_command, EmoteDispatchPlugin, ParsedCommand};
use emoted::server::events::{CommandSource, EmoteCommandEvent};
use emoted::server::syntax::{Coordinates, Destination, Facing, TeleportCommand};
use emoted::server::EmoteLibrary;
use valence::op_level::OpLevel;
use valence::prelude::{DVec3, GameMode, Look, Position};
use valence::protocol::packets::play::CommandExecutionC2s;
use valence::protocol::VarInt;
use valence::testing::ScenarioSingleClient;

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
    ("tp ^ ^ ^1", true),
    ("tp ^1 ^-2.5 ^.5", true),
    ("tp Steve ^ ^ ^2", true),
    ("tp ^1 ~ 0", false),
    ("tp ^ ^ 0", false),
    ("tp Steve ^ ~ ^", false),
    ("tp ^1e3 ^ ^", false),
    ("tp ^inf ^ ^", false),
    ("tp ^ ^", false),
    ("tp Alex Steve", true),
    ("tp @p", true),
    ("tp @a ~ ~1 ~", true),
    ("tp @a[distance=..5, limit=1] Steve", true),
    ("gamemode creative @a[distance=..5]", true),
    ("tp", false),
    ("tp ~ ~", false),
    ("tp Bad-Name", false),
    ("tp @q 1 2 3", false),
    ("gamemode creative Bad-Name", false),
    ("gamemode creative Alex Steve", false),
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
fn both_front_ends_refuse_with_the_same_sentence() {
    // One error type and one style: the same sentence, then each front
    // end's own usage (`/tp …` typed, `tp …` in an event).
    for (input, _) in SAME_INPUTS.iter().filter(|(_, accepted)| !accepted) {
        let typed = parse_command(input).expect_err(input).to_string();
        let event = parse_event_command(input).expect_err(input).to_string();
        let sentence = |message: &str| message.split(" Usage: ").next().map(str::to_owned);
        assert_eq!(sentence(&typed), sentence(&event), "{input}");
        assert!(typed.contains(" Usage: /"), "{input}: {typed}");
        assert!(!event.contains(" Usage: /"), "{input}: {event}");
    }
}

#[test]
fn both_front_ends_read_the_same_game_mode_and_position() {
    for input in [
        "gamemode Creative",
        "gamemode creative",
        "gamemode CREATIVE",
    ] {
        match parse_command(input) {
            Ok(Command::GameMode(command)) => {
                assert_eq!(command.mode, GameMode::Creative, "{input}")
            }
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
    let typed = match typed_position(input) {
        Coordinates::World(world) => world,
        other => panic!("{other:?}"),
    };
    let read: Vec<(f64, bool)> = typed.iter().map(|c| (c.value, c.relative)).collect();
    assert_eq!(read, vec![(1000.5, false), (64.0, false), (-2.5, true)]);
    let event = match event_position(input) {
        Coordinates::World(world) => world,
        other => panic!("{other:?}"),
    };
    let read: Vec<(f64, bool)> = event.iter().map(|c| (c.value, c.relative)).collect();
    assert_eq!(read, vec![(1000.5, false), (64.0, false), (-2.5, true)]);
}

/// The position a typed `tp` goes to, as parsed.
fn typed_position(input: &str) -> Coordinates {
    match parse_command(input) {
        Ok(Command::Teleport(TeleportCommand {
            destination: Destination::Position(position, None),
            ..
        })) => position,
        other => panic!("typed {input}: {other:?}"),
    }
}

/// The position an event `tp` goes to, as parsed.
fn event_position(input: &str) -> Coordinates {
    match parse_event_command(input) {
        Ok(ParsedCommand::Teleport {
            destination: Destination::Position(position, None),
            ..
        }) => position,
        other => panic!("event {input}: {other:?}"),
    }
}

/// Where the commands below run from: one place, facing west (yaw 90:
/// forward is -X, left is +Z).
const ORIGIN: DVec3 = DVec3::new(10.0, 64.0, -5.0);
const FACING: Facing = Facing {
    yaw: 90.0,
    pitch: 0.0,
};

/// Accepted `tp` positions and where they go from [`ORIGIN`] facing
/// [`FACING`] (`Steve` and `@s` move; the place is the same).
const PLACES: &[(&str, DVec3)] = &[
    ("tp 1 64 1", DVec3::new(1.5, 64.0, 1.5)),
    ("tp 1.5 64 -2.25", DVec3::new(1.5, 64.0, -2.25)),
    ("tp ~ ~1 ~-0.5", DVec3::new(10.0, 65.0, -5.5)),
    ("tp Steve 3 65 3", DVec3::new(3.5, 65.0, 3.5)),
    ("tp ^ ^ ^1", DVec3::new(9.0, 64.0, -5.0)),
    ("tp ^1 ^-2.5 ^.5", DVec3::new(9.5, 61.5, -4.0)),
    ("tp Steve ^ ^ ^2", DVec3::new(8.0, 64.0, -5.0)),
    ("tp @s ^ ^ ^2", DVec3::new(8.0, 64.0, -5.0)),
];

#[test]
fn an_accepted_position_resolves_to_the_same_place_in_both() {
    // Each front end resolves from where its command runs: the sender's
    // position and look (typed), the event origin and the source's facing
    // (events). From the same place, facing the same way, both land on
    // the same block.
    for (input, expected) in PLACES {
        let typed = typed_position(input);
        let event = event_position(input);
        assert_eq!(typed, event, "{input}");
        let (typed, event) = (typed.resolve(ORIGIN, FACING), event.resolve(ORIGIN, FACING));
        assert_eq!(typed, event, "{input}");
        assert!(typed.abs_diff_eq(*expected, 1e-9), "{input}: {typed}");
    }
}

/// Where a mock operator standing at `at` and looking `facing` is after
/// `line` runs, typed (`/line`) or as an event command the player is the
/// source of, with its own feet as the origin.
fn moved_by(line: &str, typed: bool, at: DVec3, facing: Facing) -> DVec3 {
    let ScenarioSingleClient {
        mut app,
        client,
        mut helper,
        ..
    } = ScenarioSingleClient::new();
    app.insert_resource(Config::default())
        .insert_resource(EmoteLibrary::default())
        .add_plugins((EmoteCommandsPlugin, EmoteDispatchPlugin));
    let mut player = app.world.entity_mut(client);
    player.get_mut::<OpLevel>().expect("an op level").set(2);
    player.get_mut::<Position>().expect("a position").0 = at;
    *player.get_mut::<Look>().expect("a look") = Look {
        yaw: facing.yaw,
        pitch: facing.pitch,
    };
    app.update();
    if typed {
        helper.send(&CommandExecutionC2s {
            command: line,
            timestamp: 0,
            salt: 0,
            argument_signatures: Vec::new(),
            message_count: VarInt(0),
            acknowledgement: [0; 3],
        });
    } else {
        app.world.send_event(EmoteCommandEvent {
            playback: None,
            source: CommandSource::Player(client),
            origin: at,
            command: line.to_owned(),
        });
    }
    app.update();
    app.world.get::<Position>(client).expect("a position").0
}

#[test]
fn both_front_ends_move_the_player_to_the_same_place() {
    // The whole path: each front end's parser, then its runner resolving
    // from the player (typed: the sender's position and look; event: the
    // origin and the player source's look). Only the player itself moves.
    for (input, expected) in PLACES.iter().filter(|(input, _)| !input.contains("Steve")) {
        let typed = moved_by(input, true, ORIGIN, FACING);
        let event = moved_by(input, false, ORIGIN, FACING);
        assert!(typed.abs_diff_eq(*expected, 1e-9), "typed {input}: {typed}");
        assert!(event.abs_diff_eq(*expected, 1e-9), "event {input}: {event}");
    }
}
