//! The command parser, tree, rate limits and suggestions, without a server.

use std::path::PathBuf;

use governor::clock::FakeRelativeClock;

use super::parse::*;
use super::rate::*;
use super::run;
use super::suggest::*;
use super::tree::*;
use crate::store::OnOffChoice;
use std::time::Duration;

use valence::prelude::*;

use crate::library::Library;
use crate::server::config::{CommandsSection, PermissionsSection};
use crate::server::permissions::testing::{named, vip_rules_toml};
use crate::server::permissions::PlayerPermissions;
use crate::server::syntax::selector::Selector;
use crate::server::syntax::{
    game_mode_name, parse_game_mode, CommandError, Coordinates, Destination, Facing,
    GameModeCommand, TeleportCommand, WorldCoord,
};

fn emote(line: &str) -> Result<EmoteCommand, CommandError> {
    match parse_command(line)? {
        Command::Emote(c) => Ok(c),
        other => panic!("{line}: not an emote command: {other:?}"),
    }
}

#[test]
fn parses_every_emote_subcommand() {
    assert_eq!(
        emote("emote play example:wave"),
        Ok(EmoteCommand::Play {
            id: "example:wave".into(),
            target: None
        })
    );
    assert_eq!(
        emote("e play example:wave Steve"),
        Ok(EmoteCommand::Play {
            id: "example:wave".into(),
            target: Some("Steve".into())
        })
    );
    assert_eq!(emote("emote stop"), Ok(EmoteCommand::Stop { target: None }));
    assert_eq!(
        emote("emote set waving 0.5"),
        Ok(EmoteCommand::Set {
            parameter: "waving".into(),
            value: 0.5
        })
    );
    assert_eq!(
        emote("e set sitting true"),
        Ok(EmoteCommand::Set {
            parameter: "sitting".into(),
            value: 1.0
        })
    );
    for (line, refusal) in [
        ("emote set waving", "Missing a value"),
        ("emote set waving fast", "a number, true or false"),
        ("emote set", "Missing a parameter"),
        ("emote set a 1 2", "Too many arguments"),
    ] {
        let error = emote(line).expect_err(line).to_string();
        assert!(error.contains(refusal), "{line}: {error}");
    }
    assert_eq!(emote("emote list"), Ok(EmoteCommand::List { page: 1 }));
    assert_eq!(emote("emote list 3"), Ok(EmoteCommand::List { page: 3 }));
    assert_eq!(
        emote("emote info a:b"),
        Ok(EmoteCommand::Info { id: "a:b".into() })
    );
    assert_eq!(emote("emote reload"), Ok(EmoteCommand::Reload));
    assert_eq!(
        emote("emote parts"),
        Ok(EmoteCommand::Choose {
            choice: OnOffChoice::Parts,
            on: None
        })
    );
    assert_eq!(
        emote("emote parts off"),
        Ok(EmoteCommand::Choose {
            choice: OnOffChoice::Parts,
            on: Some(false)
        })
    );
    assert_eq!(
        emote("e parts on"),
        Ok(EmoteCommand::Choose {
            choice: OnOffChoice::Parts,
            on: Some(true)
        })
    );
    assert_eq!(
        emote("emote camera off"),
        Ok(EmoteCommand::Choose {
            choice: OnOffChoice::Camera,
            on: Some(false)
        })
    );
    assert_eq!(
        emote("e camera"),
        Ok(EmoteCommand::Choose {
            choice: OnOffChoice::Camera,
            on: None
        })
    );
    assert!(emote("emote camera maybe").is_err());
}

#[test]
fn parses_gamemode() {
    assert_eq!(
        parse_command("gamemode creative"),
        Ok(Command::GameMode(GameModeCommand {
            mode: GameMode::Creative,
            targets: Selector::source()
        }))
    );
    assert_eq!(
        parse_command("gamemode Spectator Alex"),
        Ok(Command::GameMode(GameModeCommand {
            mode: GameMode::Spectator,
            targets: target("Alex")
        }))
    );
    for mode in [
        GameMode::Survival,
        GameMode::Creative,
        GameMode::Adventure,
        GameMode::Spectator,
    ] {
        assert_eq!(parse_game_mode(game_mode_name(mode)), Some(mode));
    }
}

/// A target as parsed.
fn target(text: &str) -> Selector {
    text.parse().expect("a target")
}

/// `/tp` to a position (`None`: the sender moves).
fn to_position(target: Option<&str>, position: Coordinates) -> Command {
    Command::Teleport(TeleportCommand {
        targets: target.map_or_else(Selector::source, self::target),
        destination: Destination::Position(position, None),
    })
}

#[test]
fn parses_teleport() {
    let absolute = |value| WorldCoord {
        value,
        relative: false,
    };
    let relative = |value| WorldCoord {
        value,
        relative: true,
    };
    let world = |x, y, z| Coordinates::World([x, y, z]);
    assert_eq!(
        parse_command("tp 3 65 3"),
        Ok(to_position(
            None,
            world(absolute(3.5), absolute(65.0), absolute(3.5))
        )),
        "whole x and z point at the block centre, y stays"
    );
    assert_eq!(
        parse_command("teleport Alex ~ ~2.5 -0.25"),
        Ok(to_position(
            Some("Alex"),
            world(relative(0.0), relative(2.5), absolute(-0.25))
        ))
    );
    assert_eq!(
        parse_command("tp ~-1 ~ ~+1"),
        Ok(to_position(
            None,
            world(relative(-1.0), relative(0.0), relative(1.0))
        ))
    );
    assert_eq!(
        parse_command("tp Alex"),
        Ok(Command::Teleport(TeleportCommand {
            targets: Selector::source(),
            destination: Destination::Entity(target("Alex"))
        }))
    );
    assert_eq!(
        parse_command("tp Alex Steve"),
        Ok(Command::Teleport(TeleportCommand {
            targets: target("Alex"),
            destination: Destination::Entity(target("Steve"))
        }))
    );
    assert_eq!(relative(2.0).resolve(64.0), 66.0);
    assert_eq!(absolute(2.0).resolve(64.0), 2.0);
}

#[test]
fn typed_teleport_takes_local_coordinates() {
    // Once refused ("Local coordinates ... are not supported"): now
    // `^left ^up ^forward` from where the sender stands and looks.
    assert_eq!(
        parse_command("tp ^ ^ ^1"),
        Ok(to_position(None, Coordinates::Local([0.0, 0.0, 1.0])))
    );
    assert_eq!(
        parse_command("tp Alex ^1 ^ ^-2.5"),
        Ok(to_position(
            Some("Alex"),
            Coordinates::Local([1.0, 0.0, -2.5])
        ))
    );
    let Ok(Command::Teleport(TeleportCommand {
        destination: Destination::Position(position, None),
        ..
    })) = parse_command("tp ^ ^ ^1")
    else {
        panic!("tp ^ ^ ^1 is a position");
    };
    let here = DVec3::new(10.0, 64.0, -5.0);
    // Yaw 0 faces +Z (south), yaw 90 faces -X (west), pitch 90 looks down.
    for (yaw, pitch, expected) in [
        (0.0, 0.0, DVec3::new(10.0, 64.0, -4.0)),
        (90.0, 0.0, DVec3::new(9.0, 64.0, -5.0)),
        (0.0, 90.0, DVec3::new(10.0, 63.0, -5.0)),
    ] {
        let at = position.resolve(here, Facing { yaw, pitch });
        assert!(at.abs_diff_eq(expected, 1e-9), "{yaw} {pitch}: {at}");
    }
}

#[test]
fn malformed_commands_say_what_is_wrong() {
    for (line, needle) in [
        ("", "Type a command"),
        ("   ", "Type a command"),
        ("fly", "Unknown command `/fly`"),
        ("emote dance", "Usage: /emote"),
        ("emotes page", "Too many arguments"),
        ("emote dance", "Unknown subcommand `dance`"),
        ("emote play", "Missing emote id"),
        ("emote play a:b c d", "Too many arguments"),
        ("emote stop a b", "Too many arguments"),
        ("emote list zero", "not a page number"),
        ("emote list 0", "not a page number"),
        ("emote list -1", "not a page number"),
        ("emote list 99999999999999999999999", "not a page number"),
        ("emote list 1 2", "Too many arguments"),
        ("emote info", "Missing emote id"),
        ("emote info a:b c", "Too many arguments"),
        ("emote reload now", "Too many arguments"),
        ("emote parts maybe", "`maybe` is not on or off"),
        ("emote parts off now", "Too many arguments"),
        ("gamemode", "Missing game mode"),
        ("gamemode flying", "`flying` is not a game mode"),
        ("gamemode 1", "`1` is not a game mode"),
        ("gamemode creative Alex Steve", "Too many arguments"),
        ("tp", "Missing destination"),
        ("tp 3 65", "Missing z coordinate"),
        ("tp ~ ~", "Missing z coordinate"),
        ("tp 1 2 x", "`x` is not a coordinate"),
        ("tp 1 2 3 4 5", "Too many arguments"),
        ("tp Alex 1 2 3 4", "Too many arguments"),
        ("tp NaN 1 2", "`NaN` is not a coordinate"),
        ("tp inf 1 2", "`inf` is not a coordinate"),
        ("tp 1e400 1 2", "`1e400` is not a coordinate"),
        ("tp 1 ~x 2", "`~x` is not a coordinate"),
        ("tp 1 ~~ 2", "`~~` is not a coordinate"),
        ("tp 1 - 2", "`-` is not a coordinate"),
        ("tp 1.2.3 1 2", "`1.2.3` is not a coordinate"),
        ("tp Alex 1 2 ^", "Local coordinates"),
    ] {
        let err = parse_command(line).expect_err(line).to_string();
        assert!(err.contains(needle), "{line:?}: {err}");
    }
}

#[test]
fn emote_alone_and_emotes_open_the_wheel() {
    for line in ["emote", "e", "emotes", "emote   "] {
        assert_eq!(
            parse_command(line).expect(line),
            Command::Emote(EmoteCommand::Wheel),
            "{line:?}"
        );
    }
}

proptest::proptest! {
    #[test]
    fn parsing_never_panics(line in "\\PC{0,64}") {
        let _ = parse_command(&line);
    }

    #[test]
    fn teleport_parsing_never_panics(
        words in proptest::collection::vec("[~^0-9.+eE-]{0,6}|[a-z]{1,4}", 0..6)
    ) {
        let _ = parse_command(&format!("tp {}", words.join(" ")));
    }
}

#[test]
fn rate_limits_allow_a_burst_then_the_rate() {
    let clock = FakeRelativeClock::default();
    let limit = RateLimit {
        per_second: 5.0,
        burst: 3,
    };
    let bucket = Bucket::new(limit, clock.clone());
    for i in 0..3 {
        assert_eq!(bucket.take(), Ok(()), "burst token {i}");
    }
    let wait = bucket.take().expect_err("the burst is spent");
    assert!(
        wait > Duration::ZERO && wait <= Duration::from_millis(200),
        "{wait:?}"
    );
    clock.advance(Duration::from_millis(200));
    assert_eq!(bucket.take(), Ok(()), "one token per 200 ms");
    assert!(bucket.take().is_err());
    clock.advance(Duration::from_secs(10));
    for _ in 0..3 {
        assert_eq!(bucket.take(), Ok(()), "the bucket refills to the burst");
    }
    assert!(bucket.take().is_err(), "but no further");

    let message = slow_down_message(limit, wait);
    assert!(message.starts_with("Slow down:"), "{message}");
}

#[test]
fn a_zero_rate_means_no_limit() {
    let bucket = Bucket::new(
        RateLimit {
            per_second: 0.0,
            burst: 1,
        },
        FakeRelativeClock::default(),
    );
    for _ in 0..1000 {
        assert_eq!(bucket.take(), Ok(()));
    }
}

#[test]
fn the_configured_limits_are_used_and_replaced_on_reload() {
    let mut limits = CommandRateLimits::default();
    let player = uuid::Uuid::from_u128(7);
    let mut section = CommandsSection {
        burst: 2,
        ..CommandsSection::default()
    };
    let buckets = limits.buckets(player, &section);
    assert!(buckets.commands.take().is_ok() && buckets.commands.take().is_ok());
    assert!(buckets.commands.take().is_err());
    assert!(buckets.completions.take().is_ok(), "a separate bucket");
    section.burst = 4;
    let buckets = limits.buckets(player, &section);
    assert_eq!(buckets.commands.limit().burst, 4);
    assert!(
        buckets.commands.take().is_ok(),
        "a new limit, a full bucket"
    );
}

#[test]
fn a_leavers_buckets_are_kept_until_they_would_be_full_again() {
    let mut limits = CommandRateLimits::default();
    let (gone, here) = (uuid::Uuid::from_u128(1), uuid::Uuid::from_u128(2));
    // 5 a second, 15 at once: full again 3 s after the last use.
    let section = CommandsSection::default();
    for player in [gone, here] {
        let buckets = limits.buckets(player, &section);
        while buckets.commands.take().is_ok() {}
    }
    let online = std::collections::HashSet::from([here]);
    let used = std::time::Instant::now();
    limits.forget_refilled(&online, used + Duration::from_secs(2));
    // Back within 3 s, the player who left finds the bucket empty.
    assert!(limits.buckets(gone, &section).commands.take().is_err());
    limits.forget_refilled(&online, used + Duration::from_secs(60));
    assert!(!limits.players.contains_key(&gone), "forgotten once full");
    assert!(
        limits.players.contains_key(&here),
        "an online player's kept"
    );
}

fn bundled_library() -> Library {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
    Library::load(&[root]).library
}

#[test]
fn suggestions_complete_the_last_word() {
    let rules = PermissionsSection::default();
    let player = PlayerPermissions::resolve(&rules, named("Steve"), 0);
    let op = PlayerPermissions::resolve(&rules, named("Admin"), 2);
    let library = Library::default();
    let (start, m) = suggest("/emote pl", &library, &[], &player);
    assert_eq!((start, m), (7, vec!["play".to_owned()]));
    let (start, m) = suggest("/emote ", &library, &[], &player);
    assert_eq!(start, 7);
    assert_eq!(m.len(), 7);
    assert!(m.contains(&"parts".to_owned()), "{m:?}");
    assert!(m.contains(&"camera".to_owned()), "{m:?}");
    let (start, m) = suggest("/emote parts o", &library, &[], &player);
    assert_eq!((start, m), (13, vec!["on".to_owned(), "off".to_owned()]));
    let (start, m) = suggest("/emote camera o", &library, &[], &player);
    assert_eq!((start, m), (14, vec!["on".to_owned(), "off".to_owned()]));
    let (_, m) = suggest("/emote play x:y ", &library, &["Alex"], &player);
    assert!(m.is_empty(), "players are only suggested to managers");
    let (start, m) = suggest("/emote play x:y A", &library, &["Alex", "Bob"], &op);
    assert_eq!((start, m), (16, vec!["Alex".to_owned()]));
    let (_, m) = suggest("/gamemode creative ", &library, &["Alex"], &player);
    assert!(m.is_empty(), "no /gamemode for players");
    let (_, m) = suggest("/gamemode creative ", &library, &["Alex"], &op);
    assert_eq!(m, ["Alex"]);
    let (_, m) = suggest("/tp B", &library, &["Alex", "Bob"], &op);
    assert_eq!(m, ["Bob"]);
    let (_, m) = suggest("/tp ~ ", &library, &["Alex"], &op);
    assert!(m.is_empty(), "after a coordinate come coordinates");
    let (_, m) = suggest("/tp Alex ", &library, &["Alex", "Bob"], &op);
    assert_eq!(m.len(), 2);
    let (_, m) = suggest("/tp ", &library, &["Alex"], &player);
    assert!(m.is_empty());
}

#[test]
fn suggestions_and_the_list_only_offer_what_the_player_may_play() {
    let library = bundled_library();
    assert!(library.get("example:guitar").is_some(), "bundled emotes");
    let rules: PermissionsSection = toml::from_str(&vip_rules_toml("example:gui*")).expect("rules");
    let steve = PlayerPermissions::resolve(&rules, named("Steve"), 0);
    let vip = PlayerPermissions::resolve(&rules, named("Vip"), 0);
    let op = PlayerPermissions::resolve(&rules, named("Admin"), 2);

    let (_, m) = suggest("/emote play ", &library, &[], &steve);
    assert!(!m.iter().any(|id| id == "example:guitar"), "{m:?}");
    assert!(
        !m.iter().any(|id| id == "example:sit_down"),
        "non-standalone"
    );
    assert!(m.iter().any(|id| id == "example:heart"), "{m:?}");
    let (_, m) = suggest("/emote play example:gu", &library, &[], &vip);
    assert_eq!(m, ["example:guitar"]);
    let (_, m) = suggest("/emote play ", &library, &[], &op);
    assert_eq!(m.len(), library.len(), "operators may play everything");

    let list = |perms: &PlayerPermissions| {
        (1..=5)
            .map(|page| run::list_page(&library, page, perms, &|_| 0).to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(!list(&steve).contains("example:guitar"));
    assert!(list(&vip).contains("example:guitar"));
    assert!(list(&op).contains("example:sit_down"));
    let guitar = run::info(&library, "example:guitar", &steve).to_string();
    assert!(guitar.contains("emote.play.vip"), "{guitar}");
}

#[test]
fn the_tree_encodes_with_and_without_admin_commands() {
    use valence::protocol::Encode;
    let mut sizes = Vec::new();
    for (gamemode, teleport) in [(false, false), (true, false), (true, true)] {
        let tree = command_tree(SentCommandTree { gamemode, teleport });
        for node in &tree.commands {
            for child in &node.children {
                assert!((child.0 as usize) < tree.commands.len());
            }
        }
        let mut buf = Vec::new();
        tree.encode(&mut buf).expect("encodes");
        sizes.push(buf.len());
    }
    assert!(sizes[0] > 20 && sizes[0] < sizes[1] && sizes[1] < sizes[2]);
}

#[test]
fn gamemode_and_tp_declare_their_players_as_vanilla_does() {
    use valence::protocol::packets::play::command_tree_s2c::{NodeData, Parser};
    let tree = command_tree(SentCommandTree {
        gamemode: true,
        teleport: true,
    });
    let child_named = |parent: usize, wanted: &str| {
        tree.commands[parent]
            .children
            .iter()
            .map(|c| c.0 as usize)
            .find(|&c| match &tree.commands[c].data {
                NodeData::Literal { name } | NodeData::Argument { name, .. } => *name == wanted,
                NodeData::Root => false,
            })
            .unwrap_or_else(|| panic!("a node `{wanted}` under {parent}"))
    };
    let parser_of = |node: usize| match &tree.commands[node].data {
        NodeData::Argument { parser, .. } => parser.clone(),
        other => panic!("an argument, found {other:?}"),
    };
    let entity = |parser: Parser| match parser {
        Parser::Entity {
            single,
            only_players,
        } => Some((single, only_players)),
        _ => None,
    };
    let root = tree.root_index.0 as usize;
    let mode = child_named(child_named(root, "gamemode"), "gamemode");
    let players = Some((false, true));
    assert_eq!(entity(parser_of(child_named(mode, "targets"))), players);
    let targets = child_named(child_named(root, "tp"), "targets");
    assert_eq!(entity(parser_of(targets)), players);
    let destination = entity(parser_of(child_named(targets, "destination")));
    assert_eq!(destination, Some((true, true)), "one player");
    // /emote play and stop take a name only.
    let play = child_named(child_named(child_named(root, "emote"), "play"), "emote");
    assert!(matches!(
        parser_of(child_named(play, "player")),
        Parser::String(_)
    ));
}
