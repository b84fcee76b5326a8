//! The dispatcher's parser and runner, without a server.

use valence::ident::Ident;
use valence::prelude::*;
use valence::protocol::sound::SoundCategory;

use super::functions::{self, FunctionState};
use super::parse::*;
pub(super) use crate::format::event::KNOWN_COMMANDS;
use crate::format::EmoteId;
use crate::server::syntax::selector::{Selector, SelectorBase};
use crate::server::syntax::{
    assert_refusals, parse_coordinates, CoordError, Coordinates, Destination, Facing, WorldCoord,
};

fn parsed(text: &str) -> ParsedCommand {
    match parse_event_command(text) {
        Ok(c) => c,
        Err(e) => panic!("{text}: {e}"),
    }
}

fn error(text: &str) -> String {
    match parse_event_command(text) {
        Ok(c) => panic!("{text} parsed as {c:?}"),
        Err(e) => e.to_string(),
    }
}

fn here() -> Coordinates {
    Coordinates::HERE
}

#[test]
fn parses_say_tellraw_title_and_data() {
    assert_eq!(
        parsed("say hi there"),
        ParsedCommand::Say("hi there".into())
    );
    match parsed(r#"title @s actionbar {"text":"Woo!","bold":true}"#) {
        ParsedCommand::Title {
            targets,
            action: TitleAction::Show(kind, _),
        } => {
            assert_eq!(targets.base, SelectorBase::Source);
            assert_eq!(kind, TitleKind::ActionBar);
        }
        other => panic!("{other:?}"),
    }
    match parsed(r#"tellraw @a[distance=..5] {"text":"x"}"#) {
        ParsedCommand::Tellraw { targets, .. } => assert_eq!(targets.text, "@a[distance=..5]"),
        other => panic!("{other:?}"),
    }
    match parsed("title @a times 10 2s 0.5s") {
        ParsedCommand::Title { action, .. } => assert_eq!(
            action,
            TitleAction::Times {
                fade_in: 10,
                stay: 40,
                fade_out: 10
            }
        ),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parsed("title Steve reset"),
        ParsedCommand::Title {
            action: TitleAction::Reset,
            ..
        }
    ));
    match parsed("data merge entity @s {Glowing:1b,glow_color_override:16766720}") {
        ParsedCommand::MergeData {
            target,
            glowing,
            glow_color,
        } => {
            assert_eq!(target.base, SelectorBase::Source);
            assert_eq!(glowing, Some(true));
            assert_eq!(glow_color, Some(16766720));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn parses_coordinates() {
    let w = |value, relative| WorldCoord { value, relative };
    assert_eq!(parse_coordinates(["~", "~", "~"]), Ok(here()));
    assert_eq!(
        parse_coordinates(["~1", "~-0.5", "~.5"]),
        Ok(Coordinates::World([
            w(1.0, true),
            w(-0.5, true),
            w(0.5, true)
        ]))
    );
    assert_eq!(
        parse_coordinates(["10", "64", "-3"]),
        Ok(Coordinates::World([
            w(10.5, false),
            w(64.0, false),
            w(-2.5, false)
        ])),
        "whole x and z are block centres"
    );
    assert_eq!(
        parse_coordinates(["10.0", "64.25", "~"]),
        Ok(Coordinates::World([
            w(10.0, false),
            w(64.25, false),
            w(0.0, true)
        ]))
    );
    assert_eq!(
        parse_coordinates(["^", "^1", "^-2"]),
        Ok(Coordinates::Local([0.0, 1.0, -2.0]))
    );
    assert_eq!(parse_coordinates(["^", "~", "^"]), Err(CoordError::Mixed));
    assert_eq!(
        parse_coordinates(["~x", "0", "0"]),
        Err(CoordError::Bad("~x".into()))
    );
    assert_eq!(
        parse_coordinates(["1", "nan", "0"]),
        Err(CoordError::Bad("nan".into()))
    );
    assert!(error("tp @s ^ ~ ^").contains("Local coordinates (^) cannot be mixed"));
}

#[test]
fn resolves_relative_and_local_coordinates() {
    let origin = DVec3::new(10.0, 64.0, -5.0);
    let at = |text: [&str; 3], yaw, pitch| {
        parse_coordinates(text)
            .expect("parses")
            .resolve(origin, Facing { yaw, pitch })
    };
    assert!(at(["~", "~1", "~-2"], 0.0, 0.0).abs_diff_eq(DVec3::new(10.0, 65.0, -7.0), 1e-9));
    // Yaw 0 faces +Z (south); left is +X (east).
    assert!(at(["^", "^", "^2"], 0.0, 0.0).abs_diff_eq(DVec3::new(10.0, 64.0, -3.0), 1e-9));
    assert!(at(["^1", "^", "^"], 0.0, 0.0).abs_diff_eq(DVec3::new(11.0, 64.0, -5.0), 1e-9));
    assert!(at(["^", "^1", "^"], 0.0, 0.0).abs_diff_eq(DVec3::new(10.0, 65.0, -5.0), 1e-9));
    // Yaw 90 faces -X (west).
    assert!(at(["^", "^", "^1"], 90.0, 0.0).abs_diff_eq(DVec3::new(9.0, 64.0, -5.0), 1e-9));
    // Pitch 90 looks down: forward is -Y.
    assert!(at(["^", "^", "^1"], 0.0, 90.0).abs_diff_eq(DVec3::new(10.0, 63.0, -5.0), 1e-9));
}

#[test]
fn parses_particles() {
    match parsed("particle minecraft:heart ~ ~1 ~ 0.3 0.2 0.3 0 5") {
        ParsedCommand::Particle(p) => {
            assert_eq!(p.particle, Particle::Heart);
            assert_eq!(p.delta, Vec3::new(0.3, 0.2, 0.3));
            assert_eq!(p.count, 5);
            assert!(!p.force);
            assert_eq!(p.viewers, None);
        }
        other => panic!("{other:?}"),
    }
    match parsed("particle flame") {
        ParsedCommand::Particle(p) => {
            assert_eq!(p.particle, Particle::Flame);
            assert_eq!(p.position, here());
            assert_eq!(p.count, 0);
        }
        other => panic!("{other:?}"),
    }
    match parsed("particle dust 1 0.2 0.2 1 ~ ~ ~ 0.6 0.5 0.6 0 25 force @a[distance=..10]") {
        ParsedCommand::Particle(p) => {
            assert_eq!(
                p.particle,
                Particle::Dust {
                    rgb: Vec3::new(1.0, 0.2, 0.2),
                    scale: 1.0
                }
            );
            assert!(p.force);
            assert_eq!(p.count, 25);
            assert!(p.viewers.is_some());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parsed("particle block minecraft:stone ~ ~ ~"),
        ParsedCommand::Particle(ParticleCommand {
            particle: Particle::Block(_),
            ..
        })
    ));
    assert!(matches!(
        parsed("particle item diamond"),
        ParsedCommand::Particle(ParticleCommand {
            particle: Particle::Item(Some(_)),
            ..
        })
    ));
    for name in [
        "note",
        "cloud",
        "end_rod",
        "happy_villager",
        "totem_of_undying",
    ] {
        assert!(
            parse_event_command(&format!("particle {name}")).is_ok(),
            "{name}"
        );
    }
    let cases = [
        ("particle", "Missing a particle name"),
        ("particle sparkles", "Unknown particle `sparkles`"),
        ("particle other:heart", "Unknown particle `other:heart`"),
        (
            "particle vibration",
            "`vibration` particle is not supported",
        ),
        ("particle dust 1 0", "Missing a blue value"),
        (
            "particle block stone[lit=true]",
            "a block name (without [properties])",
        ),
        ("particle heart ~ ~", "Missing a position"),
        ("particle heart ~ ~ ~ 0 0 0 -1", "a speed of at least 0"),
        ("particle heart ~ ~ ~ 0 0 0 0 1.5", "a whole number"),
        ("particle heart ~ ~ ~ 0 0 0 0 1 loud", "`force` or `normal`"),
        ("particle heart ~ ~ ~ 0 0 0 0 1 @a", "`force` or `normal`"),
        (
            "particle heart ~ ~ ~ 0 0 0 0 1 force @q",
            "unknown selector `@q`",
        ),
    ];
    assert_refusals(&cases, error);
}

#[test]
fn parses_sounds() {
    match parsed("playsound minecraft:block.note_block.bell player @a ~ ~ ~ 0.5 1.5") {
        ParsedCommand::PlaySound(s) => {
            assert_eq!(s.sound.as_str(), "minecraft:block.note_block.bell");
            assert_eq!(s.category, SoundCategory::Player);
            assert_eq!(s.targets.base, SelectorBase::AllPlayers);
            assert_eq!((s.volume, s.pitch, s.min_volume), (0.5, 1.5, 0.0));
        }
        other => panic!("{other:?}"),
    }
    match parsed("playsound custom.pack:drum master @s") {
        ParsedCommand::PlaySound(s) => {
            assert_eq!(s.sound.as_str(), "custom.pack:drum", "any identifier");
            assert_eq!(s.position, here());
            assert_eq!((s.volume, s.pitch), (1.0, 1.0));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        parsed("stopsound @a[distance=..24] record minecraft:music_disc.cat"),
        ParsedCommand::StopSound {
            targets: "@a[distance=..24]".parse().expect("selector"),
            category: Some(SoundCategory::Record),
            sound: Some(
                Ident::new("minecraft:music_disc.cat")
                    .expect("ident")
                    .to_string_ident()
            ),
        }
    );
    assert!(matches!(
        parsed("stopsound @s * ambient.cave"),
        ParsedCommand::StopSound {
            category: None,
            sound: Some(_),
            ..
        }
    ));
    let cases = [
        ("playsound", "Missing a sound"),
        ("playsound Bad:Sound player @a", "a sound identifier"),
        ("playsound a.b loud @a", "a sound source"),
        ("playsound a.b player", "Missing a target"),
        ("playsound a.b player @a ~ ~ ~ 1 3", "a pitch from 0 to 2"),
        (
            "playsound a.b player @a ~ ~ ~ 1 1 1 9",
            "Too many arguments",
        ),
        ("stopsound @a weather a.b c", "Too many arguments"),
    ];
    assert_refusals(&cases, error);
}

#[test]
fn parses_teleports() {
    match parsed("tp ~ ~ ~2") {
        ParsedCommand::Teleport {
            targets,
            destination: Destination::Position(Coordinates::World(c), None),
        } => {
            assert_eq!(targets.base, SelectorBase::Source);
            assert_eq!(c[2].value, 2.0);
        }
        other => panic!("{other:?}"),
    }
    match parsed("teleport @a[distance=..3] 0 65 0 90 ~") {
        ParsedCommand::Teleport {
            targets,
            destination: Destination::Position(_, Some(rotation)),
        } => {
            assert_eq!(targets.base, SelectorBase::AllPlayers);
            assert_eq!(rotation.yaw.value, 90.0);
            assert!(rotation.pitch.relative);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parsed("tp @p"),
        ParsedCommand::Teleport {
            destination: Destination::Entity(_),
            ..
        }
    ));
    assert!(matches!(
        parsed("tp Alex Steve"),
        ParsedCommand::Teleport {
            destination: Destination::Entity(_),
            ..
        }
    ));
    let cases = [
        ("tp", "Missing destination (a target or a position)"),
        ("tp ~ ~", "Missing z coordinate"),
        ("tp @s ~ ~ ~ 90", "Missing a pitch"),
        ("tp @s ~ ~ ~ facing @p", "`tp … facing` is not supported"),
        ("tp @s ~ ~ ~ 0 0 0", "Too many arguments"),
    ];
    assert_refusals(&cases, error);
}

#[test]
fn parses_gamemode_function_and_emote() {
    assert_eq!(
        parsed("gamemode creative"),
        ParsedCommand::GameMode {
            mode: GameMode::Creative,
            targets: Selector::source()
        }
    );
    assert!(matches!(
        parsed("gamemode adventure @a"),
        ParsedCommand::GameMode {
            mode: GameMode::Adventure,
            ..
        }
    ));
    assert_eq!(
        parsed("function example_pack:confetti"),
        ParsedCommand::Function("example_pack:confetti".into())
    );
    assert_eq!(
        parsed("function sub/dir"),
        ParsedCommand::Function("minecraft:sub/dir".into())
    );
    assert_eq!(
        parsed("emote play example:wave"),
        ParsedCommand::EmotePlay {
            emote: EmoteId::parse("example:wave").expect("id"),
            target: None
        }
    );
    assert!(matches!(
        parsed("emote play example:wave @a"),
        ParsedCommand::EmotePlay {
            target: Some(_),
            ..
        }
    ));
    assert_eq!(
        parsed("emote stop"),
        ParsedCommand::EmoteStop { target: None }
    );
    assert_eq!(
        parsed("emote set waving false"),
        ParsedCommand::EmoteSet {
            parameter: "waving".into(),
            value: 0.0,
            target: None
        }
    );
    assert!(matches!(
        parsed("emote set jump 1 @a"),
        ParsedCommand::EmoteSet {
            target: Some(_),
            ..
        }
    ));
    let cases = [
        ("gamemode 1", "a game mode (survival"),
        ("gamemode hardcore @a", "a game mode"),
        ("gamemode creative @a extra", "Too many arguments"),
        (
            "function #minecraft:tick",
            "Function tag `#minecraft:tick` is not supported",
        ),
        ("function Bad:Id", "a function id"),
        ("function a:b with {x:1}", "macros"),
        ("emote play wave", "an emote id"),
        ("emote list", "`emote list` is not supported"),
        ("emote", "Missing `play`, `stop` or `set`"),
        ("emote set waving much", "a number, true or false"),
    ];
    assert_refusals(&cases, error);
}

#[test]
fn malformed_commands_are_errors_not_panics() {
    let cases = [
        ("", "Type a command"),
        ("kill @a", "Unknown command `kill`"),
        ("tellraw @s {", "Invalid JSON text"),
        ("tellraw @s", "Missing a JSON text"),
        ("title @s sideways {}", "a title action"),
        ("data get entity @s", "only `data merge entity"),
        ("data merge entity @s {", "Invalid SNBT"),
        (
            "tellraw @e[tag=x] {\"text\":\"x\"}",
            "`tag` is not supported",
        ),
    ];
    assert_refusals(&cases, error);
    for junk in [
        "@",
        "tp ^",
        "particle dust",
        "playsound : : :",
        "title @a times",
        "\u{0} \u{fffd}",
    ] {
        let _ = parse_event_command(junk);
    }
}

#[test]
fn the_parser_and_the_load_check_agree() {
    // Every command the load check accepts by name is one this parser knows…
    for name in KNOWN_COMMANDS {
        let message = parse_event_command(name).err().map(|e| e.to_string());
        assert!(
            !message.as_deref().unwrap_or("").contains("Unknown command"),
            "{name}: {message:?}"
        );
    }
    // …and the other way round.
    for name in ["kill", "give", "execute", "summon", "scoreboard"] {
        assert!(crate::format::event::check_command(name).is_err(), "{name}");
        assert!(error(name).contains("Unknown command"), "{name}");
    }
}

#[test]
fn every_bundled_event_command_parses() {
    let dirs = [
        concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/datapacks"),
    ];
    let mut count = 0;
    for dir in dirs {
        for path in crate::library::discover::emote_files(std::path::Path::new(dir)).expect("walk")
        {
            if let Some(crate::format::EmoteFile::Animation(a)) =
                crate::format::read_emote_file(&path).file
            {
                let ev = &a.timeline.events;
                let all = ev
                    .start
                    .iter()
                    .chain(ev.on_loop.iter())
                    .chain(ev.stop.iter())
                    .chain(ev.timeline.iter().map(|t| &t.event));
                for event in all {
                    for command in &event.commands {
                        count += 1;
                        if let Err(e) = parse_event_command(command) {
                            panic!("{}: {command}: {e}", path.display());
                        }
                    }
                }
            }
        }
    }
    assert!(count > 20, "{count}");
}

#[test]
fn every_bundled_function_loads() {
    let roots = [std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datapacks"
    ))];
    let report = functions::load_functions(&roots);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert!(matches!(
        report.functions.get("example_pack:confetti"),
        FunctionState::Loaded(_)
    ));
}
