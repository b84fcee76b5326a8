//! The rules of NBT tracks ([`super::nbt_track`]): one invalid case per
//! rule (its exact JSON pointer and a fragment of the message), valid
//! variants with what they read, and the merge.

use serde_json::{json, Value};
use valence::ItemKind;

use super::display_fields::{Billboard, DisplayFields};
use super::nbt_track::{nbt_track_owned_keys, NbtKey, NbtState, NbtValue, CONTENT_KEYS};
use super::node::ItemDisplayContext;
use super::{parse_emote_value, AnimationFile, EmoteFile, Problem};

fn tf() -> Value {
    json!({"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]})
}

/// A valid Animation: a fixed item, a held item, a skin-bound head, a
/// block and a text, and an NBT track that picks the item by loop count,
/// then makes it glow.
fn base() -> Value {
    json!({
        "type": "animation", "schema_version": 4, "id": "test:nbt",
        "metadata": {"name": "NBT"},
        "settings": {"playback": {"mode": "loop"}},
        "nodes": {
            "body": {"type": "anchor", "space": "initiator", "transform": tf()},
            "hand": {"type": "item_display", "parent": "body", "item_display": "fixed",
                     "item_stack_snbt": "{id:\"minecraft:stick\",count:1}", "transform": tf()},
            "held": {"type": "item_display", "parent": "body", "item_display": "fixed",
                     "item_source": {"type": "participant_hand", "arm": "right"}, "transform": tf()},
            "head": {"type": "item_display", "parent": "body", "item_display": "none",
                     "item_stack_snbt": "{id:\"minecraft:player_head\",count:1}",
                     "skin": {"part": "head", "order": 0}, "transform": tf()},
            "cube": {"type": "block_display", "parent": "body",
                     "block_state_snbt": "{Name:\"minecraft:stone\"}", "transform": tf()},
            "sign": {"type": "text_display", "parent": "body", "text": {"text": "Hi"},
                     "transform": tf()}
        },
        "timeline": {"duration": "20t", "tracks": {"hand": {"nbt": [
            {"time": "0t", "value": {"select": "math.mod(q.loop_count, 3)", "options": [
                "{item:{id:'minecraft:poppy',count:1},Glowing:0b}",
                "{item:{id:'minecraft:dandelion',count:1},Glowing:0b}",
                "{item:{id:'minecraft:blue_orchid',count:1},Glowing:0b}"
            ]}},
            {"time": "10t", "value": "{Glowing:1b}"},
            {"time": "15t", "value": "{item:{id:\"minecraft:diamond\",Count:1b}}"}
        ]}}}
    })
}

/// Sets the value at `pointer`, adding it to its parent object if needed.
fn set(v: &mut Value, pointer: &str, new: Value) {
    let (parent, token) = pointer.rsplit_once('/').expect("a pointer");
    match v.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.insert(token.to_owned(), new);
        }
        Some(Value::Array(items)) => items[token.parse::<usize>().expect("an index")] = new,
        _ => panic!("test bug: nothing at {parent}"),
    }
}

fn read(v: &Value) -> Result<AnimationFile, Vec<Problem>> {
    let report = parse_emote_value(v);
    match report.file {
        Some(EmoteFile::Animation(a)) => Ok(a),
        _ => Err(report.problems),
    }
}

const HAND: &str = "/timeline/tracks/hand/nbt";

/// One invalid variant of [`base`].
struct Case {
    name: &'static str,
    patch: fn(&mut Value),
    pointer: &'static str,
    message: &'static str,
}

fn key(v: &mut Value, k: usize, value: Value) {
    set(v, &format!("{HAND}/{k}/value"), value);
}

#[test]
fn validate_rejects_every_broken_rule_at_its_pointer() {
    let cases = [
        Case {
            name: "anchor with nbt",
            patch: |v| set(v, "/timeline/tracks/body", json!({"nbt": [{"time": "0t", "value": "{}"}]})),
            pointer: "/timeline/tracks/body/nbt",
            message: "anchor nodes cannot have an `nbt` track",
        },
        Case {
            name: "first key not at 0t",
            patch: |v| set(v, &format!("{HAND}/0/time"), json!("2t")),
            pointer: "/timeline/tracks/hand/nbt/0/time",
            message: "the first keyframe must be at 0t",
        },
        Case {
            name: "unsorted times",
            patch: |v| set(v, &format!("{HAND}/2/time"), json!("5t")),
            pointer: "/timeline/tracks/hand/nbt/2/time",
            message: "keyframe times must strictly increase: 5t follows 10t",
        },
        Case {
            name: "key past the duration",
            patch: |v| set(v, &format!("{HAND}/2/time"), json!("21t")),
            pointer: "/timeline/tracks/hand/nbt/2/time",
            message: "past the timeline duration",
        },
        Case {
            name: "empty track",
            patch: |v| set(v, HAND, json!([])),
            pointer: "/timeline/tracks/hand/nbt",
            message: "the `nbt` track must have at least one keyframe",
        },
        Case {
            name: "select with one option",
            patch: |v| set(v, &format!("{HAND}/0/value/options"), json!(["{Glowing:0b}"])),
            pointer: "/timeline/tracks/hand/nbt/0/value/options",
            message: "at least 2 compound SNBT strings, found 1 option(s)",
        },
        Case {
            name: "blank select",
            patch: |v| set(v, &format!("{HAND}/0/value/select"), json!("  ")),
            pointer: "/timeline/tracks/hand/nbt/0/value/select",
            message: "a Molang string must not be empty",
        },
        Case {
            name: "selector field unknown",
            patch: |v| set(v, &format!("{HAND}/0/value/weights"), json!([1, 2, 3])),
            pointer: "/timeline/tracks/hand/nbt/0/value/weights",
            message: "unknown field",
        },
        Case {
            name: "option not a compound",
            patch: |v| set(v, &format!("{HAND}/0/value/options/1"), json!("[1,2]")),
            pointer: "/timeline/tracks/hand/nbt/0/value/options/1",
            message: "SNBT must be a compound",
        },
        Case {
            name: "option not a string",
            patch: |v| set(v, &format!("{HAND}/0/value/options/1"), json!({"Glowing": 1})),
            pointer: "/timeline/tracks/hand/nbt/0/value/options/1",
            message: "an option must be a string",
        },
        Case {
            name: "value neither SNBT nor selector",
            patch: |v| key(v, 1, json!(1)),
            pointer: "/timeline/tracks/hand/nbt/1/value",
            message: "an nbt value must be a compound SNBT string or",
        },
        Case {
            name: "later key adds a field",
            patch: |v| key(v, 1, json!("{Glowing:1b,billboard:\"center\"}")),
            pointer: "/timeline/tracks/hand/nbt/1/value",
            message: "keys after 0t may not add top-level fields the 0t key did not declare: `billboard`",
        },
        Case {
            name: "later selector option adds a field",
            patch: |v| key(v, 1, json!({"select": "0", "options": ["{Glowing:1b}", "{shadow_radius:1f}"]})),
            pointer: "/timeline/tracks/hand/nbt/1/value/options/1",
            message: "keys after 0t may not add top-level fields",
        },
        Case {
            name: "options with different fields",
            patch: |v| set(v, &format!("{HAND}/0/value/options/1"), json!("{item:{id:'minecraft:dandelion',count:1}}")),
            pointer: "/timeline/tracks/hand/nbt/0/value/options/1",
            message: "every option of the 0t key must declare the same top-level fields: option 1 declares `item`, option 0 declares `Glowing`, `item`",
        },
        Case {
            name: "transformation",
            patch: |v| key(v, 1, json!("{Glowing:1b,transformation:[1f,0f,0f,0f,0f,1f,0f,0f,0f,0f,1f,0f,0f,0f,0f,1f]}")),
            pointer: "/timeline/tracks/hand/nbt/1/value",
            message: "an nbt track may not set `transformation`: playback owns identity, position, transformation, interpolation and passengers",
        },
        Case {
            name: "passengers in an option",
            patch: |v| set(v, &format!("{HAND}/0/value/options/2"), json!("{Passengers:[]}")),
            pointer: "/timeline/tracks/hand/nbt/0/value/options/2",
            message: "may not set `Passengers`",
        },
        Case {
            name: "item on a participant-hand node",
            patch: |v| set(v, "/timeline/tracks/held", json!({"nbt": [
                {"time": "0t", "value": "{Glowing:0b}"},
                {"time": "5t", "value": "{item:{id:'minecraft:stick',count:1}}"}
            ]})),
            pointer: "/timeline/tracks/held/nbt/1/value",
            message: "an nbt track may not change `item`: a participant-hand node shows what the participant holds",
        },
        Case {
            name: "item on a skin-bound node",
            patch: |v| set(v, "/timeline/tracks/head", json!({"nbt": [
                {"time": "0t", "value": "{item:{id:'minecraft:stick',count:1}}"}
            ]})),
            pointer: "/timeline/tracks/head/nbt/0/value",
            message: "may not change `item`: a skin-bound node",
        },
        Case {
            name: "block state on an item display",
            patch: |v| key(v, 1, json!("{block_state:{Name:\"minecraft:stone\"}}")),
            pointer: "/timeline/tracks/hand/nbt/1/value",
            message: "nbt `block_state` belongs to block_display nodes",
        },
        Case {
            name: "item on a block display",
            patch: |v| set(v, "/timeline/tracks/cube", json!({"nbt": [
                {"time": "0t", "value": "{item:{id:'minecraft:stick',count:1}}"}
            ]})),
            pointer: "/timeline/tracks/cube/nbt/0/value",
            message: "nbt `item` belongs to item_display nodes",
        },
        Case {
            name: "unknown item",
            patch: |v| key(v, 2, json!("{item:{id:'minecraft:mace',count:1}}")),
            pointer: "/timeline/tracks/hand/nbt/2/value",
            message: "nbt `item`: unknown item `minecraft:mace`",
        },
        Case {
            name: "text not JSON",
            patch: |v| set(v, "/timeline/tracks/sign", json!({"nbt": [{"time": "0t", "value": "{text:'Hi'}"}]})),
            pointer: "/timeline/tracks/sign/nbt/0/value",
            message: "nbt `text` must be a string of JSON text",
        },
        Case {
            name: "bad display field",
            patch: |v| key(v, 1, json!("{Glowing:\"yes\"}")),
            pointer: "/timeline/tracks/hand/nbt/1/value",
            message: "nbt `Glowing` must be a boolean byte",
        },
        Case {
            name: "text-only field on an item",
            patch: |v| key(v, 1, json!("{line_width:10}")),
            pointer: "/timeline/tracks/hand/nbt/1/value",
            message: "`line_width` belongs to text displays only",
        },
        Case {
            name: "interpolation on a key",
            patch: |v| set(v, &format!("{HAND}/1/interpolation"), json!("linear")),
            pointer: "/timeline/tracks/hand/nbt/1/interpolation",
            message: "nbt tracks are stepped and do not support `interpolation`",
        },
        Case {
            name: "invalid SNBT",
            patch: |v| key(v, 1, json!("{Glowing:1b")),
            pointer: "/timeline/tracks/hand/nbt/1/value",
            message: "invalid SNBT",
        },
    ];
    let mut failures = Vec::new();
    for case in &cases {
        let mut v = base();
        (case.patch)(&mut v);
        match read(&v) {
            Ok(_) => failures.push(format!("`{}`: accepted", case.name)),
            Err(problems) => {
                let hit = problems.iter().any(|p| {
                    p.is_error() && p.pointer == case.pointer && p.message.contains(case.message)
                });
                if !hit {
                    let found: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
                    failures.push(format!(
                        "`{}`: no error at {} with `{}`; found:\n  {}",
                        case.name,
                        case.pointer,
                        case.message,
                        found.join("\n  ")
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_runtime_owned_key_but_the_content_is_refused() {
    let owned: Vec<&str> = nbt_track_owned_keys().collect();
    assert_eq!(
        owned.len(),
        super::snbt::RUNTIME_OWNED_KEYS.len() - CONTENT_KEYS.len()
    );
    for key in owned {
        let mut v = base();
        key_value(&mut v, &format!("{{{key}:1b}}"));
        let problems = read(&v).expect_err(key);
        assert!(
            problems
                .iter()
                .any(|p| p.pointer == format!("{HAND}/1/value")
                    && p.message.contains(&format!("may not set `{key}`"))),
            "{key}: {problems:?}"
        );
    }
    for key in CONTENT_KEYS {
        let mut v = base();
        key_value(&mut v, &format!("{{{key}:1b}}"));
        let problems = read(&v).expect_err(key);
        assert!(
            problems.iter().all(|p| !p.message.contains("may not set")),
            "{key}: {problems:?}"
        );
    }
}

/// Sets key 1's value of the hand's track to `snbt`.
fn key_value(v: &mut Value, snbt: &str) {
    key(v, 1, Value::from(snbt));
}

fn hand_keys(file: &AnimationFile) -> &[NbtKey] {
    file.timeline.tracks["hand"]
        .nbt
        .as_deref()
        .expect("the hand's track")
}

#[test]
fn the_base_reads_decoded() {
    let file = read(&base()).expect("valid");
    let keys = hand_keys(&file);
    assert_eq!(
        keys.iter().map(|k| k.time_ticks).collect::<Vec<_>>(),
        [0, 10, 15]
    );
    let NbtValue::Select { select, options } = &keys[0].value else {
        panic!("a selector: {:?}", keys[0]);
    };
    assert_eq!(select, "math.mod(q.loop_count, 3)");
    let items: Vec<ItemKind> = options
        .iter()
        .map(|o| o.item.as_ref().expect("item").item)
        .collect();
    assert_eq!(
        items,
        [ItemKind::Poppy, ItemKind::Dandelion, ItemKind::BlueOrchid]
    );
    assert!(options
        .iter()
        .all(|o| o.fields.len() == 1 && o.compound.len() == 2));
    let NbtValue::Fixed(diamond) = &keys[2].value else {
        panic!("fixed: {:?}", keys[2]);
    };
    assert_eq!(
        diamond.item.as_ref().map(|s| (s.item, s.count())),
        Some((ItemKind::Diamond, 1))
    );
    assert!(diamond.fields.is_empty());
}

#[test]
fn content_fields_and_other_nodes_are_accepted() {
    let mut v = base();
    set(
        &mut v,
        "/timeline/tracks/cube",
        json!({"nbt": [
            {"time": "0t", "value": "{block_state:{Name:'minecraft:oak_stairs',Properties:{facing:'east'}},brightness:{block:15,sky:15}}"},
            {"time": "20t", "value": "{block_state:{Name:'minecraft:gold_block'}}"}
        ]}),
    );
    set(
        &mut v,
        "/timeline/tracks/sign",
        json!({"nbt": [
            {"time": "0t", "value": "{text:'{\"text\":\"One\"}',see_through:1b}"},
            {"time": "4t", "value": {"select": "q.anim_time_ticks > 100", "options": ["{text:'\"Two\"'}", "{see_through:0b}"]}}
        ]}),
    );
    // A held item may change everything but its item.
    set(
        &mut v,
        "/timeline/tracks/held",
        json!({"nbt": [
            {"time": "0t", "value": "{item_display:'head',Glowing:1b}"}
        ]}),
    );
    let file = read(&v).expect("valid");
    let cube = file.timeline.tracks["cube"].nbt.as_deref().expect("cube");
    let NbtValue::Fixed(gold) = &cube[1].value else {
        panic!("{cube:?}");
    };
    assert_eq!(
        gold.block_state.map(|s| s.to_kind()),
        Some(valence::block::BlockKind::GoldBlock)
    );
    let held = file.timeline.tracks["held"].nbt.as_deref().expect("held");
    assert_eq!(
        held[0].value.options()[0].item_display,
        Some(ItemDisplayContext::Head)
    );
}

#[test]
fn an_unknown_display_key_is_a_warning() {
    let mut v = base();
    set(
        &mut v,
        "/timeline/tracks/sign",
        json!({"nbt": [{"time": "0t", "value": "{glowing:1b}"}]}),
    );
    let report = parse_emote_value(&v);
    assert!(report.file.is_some(), "{:?}", report.problems);
    assert!(report.problems.iter().any(|p| !p.is_error()
        && p.pointer == "/timeline/tracks/sign/nbt/0/value"
        && p.message
            .contains("nbt key `glowing` is not a 1.20.1 display entity field")));
}

#[test]
fn merge_replaces_each_declared_field_and_keeps_the_rest() {
    let file = read(&base()).expect("valid");
    let keys = hand_keys(&file);
    let own = DisplayFields {
        billboard: Billboard::Center,
        ..DisplayFields::default()
    };
    let mut state = NbtState::of_node(own);
    state.merge(&keys[0].value.options()[1]);
    assert_eq!(
        state.item.as_ref().map(|s| s.item),
        Some(ItemKind::Dandelion)
    );
    assert!(!state.fields.glowing);
    state.merge(&keys[1].value.options()[0]);
    assert!(state.fields.glowing, "Glowing:1b merged in");
    assert_eq!(
        state.item.as_ref().map(|s| s.item),
        Some(ItemKind::Dandelion),
        "the item is kept"
    );
    state.merge(&keys[2].value.options()[0]);
    assert_eq!(state.item.as_ref().map(|s| s.item), Some(ItemKind::Diamond));
    assert!(state.fields.glowing, "Glowing is kept");
    // The node's own fields that no key declares stay as they were.
    assert_eq!(state.fields.billboard, Billboard::Center);
    assert_eq!(state.item_display, None);
    assert_eq!(state.block_state, None);
    assert_eq!(state.text, None);
}

proptest::proptest! {
    /// Whatever a key holds, the reader accepts it or names a problem; it
    /// never panics (the compiler after it: `library::nbt`'s tests).
    #[test]
    fn any_value_is_read_or_refused_without_panicking(
        snbt in "\\{[a-zA-Z_:'\"0-9,\\[\\]{}. ]{0,40}\\}",
        select in "[a-z_.()+ 0-9]{0,16}",
        at_key in 0usize..3,
    ) {
        let mut v = base();
        key(&mut v, at_key, json!(snbt.clone()));
        set(&mut v, &format!("{HAND}/0/value"), json!({"select": select, "options": [snbt, "{}"]}));
        let _ = read(&v);
    }
}
