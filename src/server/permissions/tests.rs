//! The permission rules' unit tests.

use super::testing::*;
use super::*;

fn rules(toml_text: &str) -> PermissionsSection {
    let section: PermissionsSection = toml::from_str(toml_text).expect("valid toml");
    validate_rules(&section).expect("valid rules");
    section
}

#[test]
fn globs_match_whole_ids() {
    for (pattern, text, expected) in [
        ("example:*", "example:wave", true),
        ("example:*", "other:wave", false),
        ("example:*", "example:", true),
        ("*:dance_*", "a:dance_slow", true),
        ("*:dance_*", "a:slow_dance", false),
        ("*", "anything:at/all", true),
        ("example:wave", "example:wave", true),
        ("example:wave", "example:waves", false),
        ("ex*le:w*e", "example:wave", true),
        ("a*b*c", "aXbYbZc", true),
        ("a*b*c", "aXbYbZ", false),
        ("**", "", true),
        ("", "", true),
        ("", "a", false),
        ("emote.play.*", "emote.play.vip", true),
        ("emote.play.*", "emote.manage", false),
    ] {
        assert_eq!(glob_matches(pattern, text), expected, "{pattern} vs {text}");
    }
}

#[test]
fn out_of_the_box_players_play_standalone_emotes_and_operators_everything() {
    let rules = PermissionsSection::default();
    let player = PlayerPermissions::resolve(&rules, named("Steve"), 0);
    assert!(player.has(EMOTE_DEFAULT));
    assert!(!player.has(EMOTE_MANAGE));
    assert!(!player.has(EMOTE_BYPASS));
    assert!(!player.has(GAMEMODE));
    assert_eq!(player.may_play("example:wave", true), Ok(()));
    assert_eq!(
        player.may_play("example:sit_down", false),
        Err(PlayDenied::NotStandalone {
            id: "example:sit_down".into()
        })
    );
    assert_eq!(player.cooldown_multiplier("example:wave"), 1.0);

    for op in [
        PlayerPermissions::resolve(&rules, named("Steve"), 2),
        PlayerPermissions::resolve(&rules, named("Steve"), 4),
    ] {
        assert!(op.is_operator());
        for node in [EMOTE_MANAGE, EMOTE_BYPASS, GAMEMODE, TELEPORT, "made.up"] {
            assert!(op.has(node), "{node}");
        }
        assert_eq!(op.may_play("example:sit_down", false), Ok(()));
    }
    assert!(!PlayerPermissions::resolve(&rules, named("Steve"), 1).is_operator());
}

#[test]
fn listed_operators_hold_everything_whatever_their_level() {
    let rules = rules("operators = [\"Admin\"]");
    assert!(PlayerPermissions::resolve(&rules, named("admin"), 0).has(TELEPORT));
    assert!(!PlayerPermissions::resolve(&rules, named("Guest"), 0).has(TELEPORT));
}

#[test]
fn groups_grant_and_deny_nodes() {
    let rules = rules(
        r#"
        [groups.staff]
        players = ["Alex"]
        nodes = ["emote.manage", "minecraft.command.*"]
        [groups.muted]
        players = ["Troll", "alex"]
        nodes = ["-emote.default"]
        "#,
    );
    let alex = PlayerPermissions::resolve(&rules, named("ALEX"), 0);
    assert!(alex.has(EMOTE_MANAGE));
    assert!(alex.has(GAMEMODE) && alex.has(TELEPORT));
    assert!(!alex.has(EMOTE_BYPASS));
    assert!(!alex.has(EMOTE_DEFAULT), "a denial beats the default grant");
    // Managers may play non-standalone emotes, but still need access.
    assert_eq!(
        alex.may_play("example:sit_down", false),
        Err(PlayDenied::MissingNode {
            id: "example:sit_down".into(),
            nodes: vec![EMOTE_DEFAULT.into()]
        })
    );
    let troll = PlayerPermissions::resolve(&rules, named("Troll"), 0);
    assert!(troll.may_play("example:wave", true).is_err());
    let other = PlayerPermissions::resolve(&rules, named("Steve"), 0);
    assert!(other.has(EMOTE_DEFAULT) && !other.has(EMOTE_MANAGE));
    // Operators are not muted.
    assert!(PlayerPermissions::resolve(&rules, named("Troll"), 3).has(EMOTE_DEFAULT));
}

#[test]
fn emote_groups_require_nodes_and_scale_cooldowns() {
    let rules = rules(
        r#"
        [groups.vip]
        players = ["Vip"]
        nodes = ["emote.play.vip"]
        [groups.free]
        players = ["Free"]
        nodes = ["emote.bypass"]

        [[emote_groups]]
        emotes = ["example:guitar", "vip:*"]
        node = "emote.play.vip"
        cooldown_multiplier = 0.5

        [[emote_groups]]
        emotes = ["example:*"]
        cooldown_multiplier = 2.0

        [[emote_groups]]
        emotes = ["example:wave"]
        cooldown_multiplier = 0.0
        "#,
    );
    let steve = PlayerPermissions::resolve(&rules, named("Steve"), 0);
    let vip = PlayerPermissions::resolve(&rules, named("vip"), 0);
    let free = PlayerPermissions::resolve(&rules, named("Free"), 0);

    assert_eq!(
        steve.may_play("example:guitar", true),
        Err(PlayDenied::MissingNode {
            id: "example:guitar".into(),
            nodes: vec!["emote.play.vip".into()]
        })
    );
    let message = steve
        .may_play("vip:dance", true)
        .expect_err("needs vip")
        .to_string();
    assert!(message.contains("emote.play.vip"), "{message}");
    assert_eq!(vip.may_play("example:guitar", true), Ok(()));
    assert_eq!(vip.may_play("vip:dance", true), Ok(()));
    assert_eq!(steve.may_play("example:wave", true), Ok(()));
    assert_eq!(free.may_play("vip:dance", false), Ok(()), "bypass");

    // First held group with a multiplier wins, top to bottom.
    assert_eq!(vip.cooldown_multiplier("example:guitar"), 0.5);
    assert_eq!(
        steve.cooldown_multiplier("example:guitar"),
        2.0,
        "the VIP group is not held, so the next match applies"
    );
    assert_eq!(steve.cooldown_multiplier("example:wave"), 2.0);
    assert_eq!(steve.cooldown_multiplier("other:wave"), 1.0);
}

#[test]
fn a_required_node_is_enough_without_the_default() {
    let rules = rules(&format!("default_nodes = []\n{}", vip_rules_toml("vip:*")));
    let vip = PlayerPermissions::resolve(&rules, named("Vip"), 0);
    assert_eq!(vip.may_play("vip:dance", true), Ok(()));
    assert!(vip.may_play("example:wave", true).is_err());
    assert_eq!(vip.required_nodes("vip:dance"), vec!["emote.play.vip"]);
    assert!(vip.required_nodes("example:wave").is_empty());
}

#[test]
fn validation_names_the_option() {
    for (text, needle) in [
        ("default_nodes = [\"Emote.Default\"]", "permissions.default_nodes"),
        ("default_nodes = [\"-emote.default\"]", "permissions.default_nodes"),
        ("default_nodes = [\"emote..x\"]", "`emote..x`"),
        (
            "[groups.vip]\nnodes = [\"emote play\"]",
            "permissions.groups.vip.nodes",
        ),
        (
            "[groups.vip]\nplayers = [\"not a name\"]",
            "permissions.groups.vip.players",
        ),
        ("operators = [\"\"]", "permissions.operators"),
        (
            "[[emote_groups]]\nemotes = []",
            "permissions.emote_groups[1].emotes",
        ),
        (
            "[[emote_groups]]\nemotes = [\"Example:Wave\"]",
            "permissions.emote_groups[1].emotes",
        ),
        (
            "[[emote_groups]]\nemotes = [\"example:(a|b)*\"]",
            "only wildcard",
        ),
        (
            "[[emote_groups]]\nemotes = [\"a:b\"]\n[[emote_groups]]\nemotes = [\"a:*\"]\ncooldown_multiplier = -1.0",
            "permissions.emote_groups[2].cooldown_multiplier",
        ),
        (
            "[[emote_groups]]\nemotes = [\"a:*\"]\nnode = \"emote.*\"",
            "permissions.emote_groups[1].node",
        ),
    ] {
        let section: PermissionsSection = toml::from_str(text).expect(text);
        let err = validate_rules(&section).expect_err(text).to_string();
        assert!(err.contains(needle), "{text}: {err}");
    }
    assert_eq!(validate_rules(&PermissionsSection::default()), Ok(()));
}

#[test]
fn lists_take_uuids_as_well_as_names() {
    let rules: PermissionsSection = toml::from_str(
        r#"
        operators = ["5a0ed1d8-3c4b-4e1a-9f3e-1d2c3b4a5f60", "Named"]
        [groups.vip]
        players = ["853c80ef3c3749fdaa49938b674adae6"]
        nodes = ["emote.play.vip"]
        "#,
    )
    .expect("rules");
    validate_rules(&rules).expect("UUIDs are valid entries");
    let admin_uuid = Uuid::parse_str("5a0ed1d8-3c4b-4e1a-9f3e-1d2c3b4a5f60").unwrap();
    let admin = PlayerIdentity {
        name: "Whoever",
        uuid: admin_uuid,
    };
    assert!(PlayerPermissions::resolve(&rules, admin, 0).is_operator());
    // The name alone does not make someone the listed UUID.
    let impostor = PlayerIdentity {
        name: "5a0ed1d8-3c4b-4e1a-9f3e-1d2c3b4a5f60",
        uuid: Uuid::nil(),
    };
    assert!(!PlayerPermissions::resolve(&rules, impostor, 0).is_operator());
    assert!(PlayerPermissions::resolve(&rules, named("named"), 0).is_operator());
    let vip = PlayerIdentity {
        name: "Anyone",
        uuid: Uuid::parse_str("853c80ef-3c37-49fd-aa49-938b674adae6").unwrap(),
    };
    assert!(PlayerPermissions::resolve(&rules, vip, 0).has("emote.play.vip"));
    assert!(!PlayerPermissions::resolve(&rules, named("Anyone"), 0).has("emote.play.vip"));
    for bad in [
        "5a0ed1d8-3c4b-4e1a-9f3e-1d2c3b4a5f6",
        "5a0ed1d83c4b-4e1a-9f3e-1d2c3b4a5f60x",
    ] {
        let rules = PermissionsSection {
            operators: vec![bad.to_owned()],
            ..PermissionsSection::default()
        };
        assert!(validate_rules(&rules).is_err(), "{bad}");
    }
}

#[test]
fn a_disabled_emote_is_for_bypass_players_only() {
    let section = rules("disabled = [\"example:wave\"]\n");
    let player = PlayerPermissions::resolve(&section, named("alice"), 0);
    assert_eq!(
        player.may_play("example:wave", true),
        Err(PlayDenied::Disabled {
            id: "example:wave".into()
        })
    );
    assert!(player.may_play("example:bow", true).is_ok());
    let operator = PlayerPermissions::resolve(&section, named("alice"), 4);
    assert!(operator.may_play("example:wave", true).is_ok());
    let bad: PermissionsSection = toml::from_str("disabled = [\"wave\"]\n").expect("toml");
    assert_eq!(
        validate_rules(&bad),
        Err(RuleError::BadDisabledId { id: "wave".into() })
    );
}
