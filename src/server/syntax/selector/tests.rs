//! Parsing and selecting targets, without a server.

use super::parse::*;
use super::types::*;
use crate::server::syntax::assert_refusals;

use valence::entity::EntityKind;
use valence::prelude::{DVec3, Entity, GameMode};

fn parse(text: &str) -> Selector {
    match text.parse::<Selector>() {
        Ok(s) => s,
        Err(e) => panic!("{text}: {e}"),
    }
}

fn error(text: &str) -> String {
    match text.parse::<Selector>() {
        Ok(s) => panic!("{text} parsed as {s:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parses_bases_and_names() {
    assert_eq!(parse("@s").base, SelectorBase::Source);
    assert_eq!(parse("@p").base, SelectorBase::Nearest);
    assert_eq!(parse("@a").base, SelectorBase::AllPlayers);
    assert_eq!(parse("@r").base, SelectorBase::Random);
    assert_eq!(parse("@e").base, SelectorBase::Entities);
    assert_eq!(parse("@e[]").base, SelectorBase::Entities);
    assert_eq!(
        parse("Steve_1").base,
        SelectorBase::Player("Steve_1".into())
    );
    let (s, rest) = parse_target("  @a[distance=..5] {\"text\":\"x\"}").expect("parses");
    assert_eq!(s.text, "@a[distance=..5]");
    assert_eq!(rest, "{\"text\":\"x\"}");
    let (s, rest) = parse_target("alex ~ ~ ~").expect("parses");
    assert_eq!(s.base, SelectorBase::Player("alex".into()));
    assert_eq!(rest, "~ ~ ~");
}

#[test]
fn parses_arguments() {
    let s = parse("@e[ limit = 3 , sort=furthest,distance=1..4.5,name=!\"Bob, the ]\",type=!player,gamemode=creative,x=1,dy=-2.5]");
    assert_eq!(s.limit, Some(3));
    assert_eq!(s.sort, Some(Sort::Furthest));
    assert_eq!(
        s.distance,
        Some(DistanceRange {
            min: Some(1.0),
            max: Some(4.5)
        })
    );
    assert_eq!(
        s.names,
        vec![Filter {
            value: "Bob, the ]".into(),
            negated: true
        }]
    );
    assert_eq!(
        s.types,
        vec![Filter {
            value: EntityKind::PLAYER,
            negated: true
        }]
    );
    assert_eq!(
        s.game_modes,
        vec![Filter {
            value: GameMode::Creative,
            negated: false
        }]
    );
    assert_eq!(s.center, [Some(1.0), None, None]);
    assert_eq!(s.volume, [None, Some(-2.5), None]);
    assert_eq!(
        parse("@e[type=minecraft:item_display]").types[0].value,
        EntityKind::ITEM_DISPLAY
    );
    assert_eq!(
        parse("@s[type=text_display]").types[0].value,
        EntityKind::TEXT_DISPLAY
    );
    assert_eq!(parse("@e[type=!player,type=!block_display]").types.len(), 2);
}

#[test]
fn ranges() {
    let r = |min, max| Some(DistanceRange { min, max });
    assert_eq!(parse_range("..5"), r(None, Some(5.0)));
    assert_eq!(parse_range("1.."), r(Some(1.0), None));
    assert_eq!(parse_range("2..4"), r(Some(2.0), Some(4.0)));
    assert_eq!(parse_range("3"), r(Some(3.0), Some(3.0)));
    assert_eq!(parse_range(".5..1.5"), r(Some(0.5), Some(1.5)));
    for bad in ["", "..", "4..2", "-1", "..-1", "a", "1...2", "1..2..3"] {
        assert_eq!(parse_range(bad), None, "{bad}");
    }
}

#[test]
fn refuses_bad_selectors_with_clear_messages() {
    let cases = [
        ("", "missing target"),
        ("@x", "unknown selector `@x`"),
        ("@", "unknown selector `@`"),
        ("@ax", "unexpected `x` right after selector `@a`"),
        ("@e[limit=2", "missing its closing `]`"),
        ("@e[limit]", "expected `=` after `limit`"),
        ("@e[limit=1 sort=nearest]", "expected `,` or `]`"),
        (
            "@e[limit=0]",
            "invalid value `0` for selector argument `limit`",
        ),
        ("@e[limit=!2]", "`limit` cannot be negated"),
        ("@s[limit=1]", "`limit` is not allowed here: @s"),
        ("@s[sort=nearest]", "`sort` is not allowed here"),
        ("@a[type=player]", "@p, @a and @r only select players"),
        ("@e[sort=closest]", "nearest, furthest, random or arbitrary"),
        ("@e[distance=-1..]", "never negative"),
        ("@e[distance=5..2]", "min ≤ max"),
        (
            "@e[type=dragonfly]",
            "invalid value `dragonfly` for selector argument `type`",
        ),
        ("@e[type=#minecraft:raiders]", "type tags"),
        (
            "@e[gamemode=hardcore]",
            "survival, creative, adventure or spectator",
        ),
        ("@e[name=a,name=b]", "`name` is given twice"),
        (
            "@e[tag=dancer]",
            "`tag` is not supported: emoted keeps no entity tags",
        ),
        ("@e[scores={a=1}]", "`scores` is not supported"),
        ("@e[colour=red]", "unknown selector argument `colour`"),
        ("@e[x=~1]", "no ~ or ^ in selectors"),
        ("@e[name=\"open]", "missing its closing `]`"),
        ("no-dashes", "neither a player name"),
        ("a_name_that_is_far_too_long", "neither a player name"),
        ("@a extra", "unexpected `extra`"),
    ];
    assert_refusals(&cases, error);
}

fn world() -> Vec<Candidate> {
    let player = |i: u32, name: &str, x: f64, mode| Candidate {
        entity: Entity::from_raw(i),
        kind: EntityKind::PLAYER,
        name: Some(name.into()),
        position: DVec3::new(x, 0.0, 0.0),
        game_mode: Some(mode),
    };
    let display = |i: u32, kind, x: f64| Candidate {
        entity: Entity::from_raw(i),
        kind,
        name: None,
        position: DVec3::new(x, 1.0, 0.0),
        game_mode: None,
    };
    vec![
        player(1, "Alice", 0.0, GameMode::Survival),
        player(2, "Bob", 10.0, GameMode::Creative),
        player(3, "Carol", -3.0, GameMode::Survival),
        display(10, EntityKind::ITEM_DISPLAY, 0.5),
        display(11, EntityKind::TEXT_DISPLAY, 20.0),
    ]
}

fn ids(selector: &str, source: Option<u32>, origin_x: f64) -> Vec<u32> {
    let context = SelectContext {
        source: source.map(Entity::from_raw),
        origin: DVec3::new(origin_x, 0.0, 0.0),
    };
    parse(selector)
        .select(&context, &world(), &mut SelectorRng::seeded(7))
        .into_iter()
        .map(|e| e.index())
        .collect()
}

#[test]
fn resolves_against_the_world() {
    assert_eq!(ids("@s", Some(2), 0.0), vec![2]);
    assert_eq!(ids("@s", Some(10), 0.0), vec![10], "a node source");
    assert_eq!(ids("@s", None, 0.0), Vec::<u32>::new(), "the server");
    assert_eq!(ids("@s[type=player]", Some(10), 0.0), Vec::<u32>::new());
    assert_eq!(ids("@a", None, 0.0), vec![1, 2, 3]);
    assert_eq!(ids("@p", None, 9.0), vec![2]);
    assert_eq!(ids("@p", None, -2.0), vec![3]);
    assert_eq!(ids("@p[limit=2]", None, -2.0), vec![3, 1]);
    assert_eq!(ids("@a[sort=furthest,limit=1]", None, 0.0), vec![2]);
    assert_eq!(ids("@e", None, 0.0), vec![1, 2, 3, 10, 11]);
    assert_eq!(ids("@e[type=!player]", None, 0.0), vec![10, 11]);
    assert_eq!(ids("@e[type=item_display]", None, 0.0), vec![10]);
    assert_eq!(ids("@e[distance=..1.5]", None, 0.0), vec![1, 10]);
    assert_eq!(ids("@a[distance=3]", None, 0.0), vec![3]);
    assert_eq!(ids("@a[distance=5..]", None, 0.0), vec![2]);
    assert_eq!(ids("@a[x=10,distance=..1]", None, 0.0), vec![2]);
    assert_eq!(ids("@e[x=-1,y=0,z=0,dx=2,dy=1]", None, 0.0), vec![1, 10]);
    assert_eq!(
        ids("@a[name=bob]", None, 0.0),
        Vec::<u32>::new(),
        "name= is exact"
    );
    assert_eq!(ids("@a[name=Bob]", None, 0.0), vec![2]);
    assert_eq!(ids("@a[name=!Bob,name=!Alice]", None, 0.0), vec![3]);
    assert_eq!(ids("bob", None, 0.0), vec![2], "player names ignore case");
    assert_eq!(ids("Nobody", None, 0.0), Vec::<u32>::new());
    assert_eq!(ids("@a[gamemode=survival]", None, 0.0), vec![1, 3]);
    assert_eq!(
        ids("@e[gamemode=!survival]", None, 0.0),
        vec![2],
        "only players"
    );
    let random = ids("@r", None, 0.0);
    assert_eq!(random.len(), 1);
    assert!([1, 2, 3].contains(&random[0]));
    let mut shuffled = ids("@a[sort=random]", None, 0.0);
    shuffled.sort_unstable();
    assert_eq!(shuffled, vec![1, 2, 3]);
}

#[test]
fn random_picks_every_player_eventually() {
    let context = SelectContext {
        source: None,
        origin: DVec3::ZERO,
    };
    let selector = parse("@r");
    let mut rng = SelectorRng::from_entropy();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..200 {
        seen.extend(selector.select(&context, &world(), &mut rng));
    }
    assert_eq!(seen.len(), 3);
}

#[test]
fn selects_every_player_only_for_a_plain_at_a() {
    assert!(parse("@a").selects_every_player());
    assert!(parse("@a[]").selects_every_player());
    for narrowed in [
        "@a[distance=..16]",
        "@a[limit=3]",
        "@a[sort=nearest]",
        "@a[x=1]",
        "@a[dx=2]",
        "@a[name=Bob]",
        "@a[gamemode=creative]",
        "@p",
        "@r",
        "@e",
        "@s",
        "Bob",
    ] {
        assert!(!parse(narrowed).selects_every_player(), "{narrowed}");
    }
}

#[test]
fn only_players() {
    assert!(parse("@a").only_players());
    assert!(parse("Bob").only_players());
    assert!(parse("@e[type=player]").only_players());
    assert!(!parse("@e").only_players());
    assert!(!parse("@s").only_players());
}
