//! NBT tracks (`timeline.tracks.<node>.nbt`): stepped keys that change a
//! display entity's NBT while an Animation plays, and the state they build.
//!
//! # The model
//! A track is a list of keys `{time, value}` with the timing rules of every
//! track (the first at `0t`, times strictly increasing, none past the
//! duration) and no interpolation. A `value` is a compound SNBT string, or a
//! selector `{select: "<molang>", options: ["<snbt>", ...]}` with at least
//! two options. Each value is read here once, into an [`NbtPatch`]: the
//! display fields it sets (checked like `entity_nbt`, see
//! [`snbt::display_fields`]) and the display content it replaces, already
//! decoded (`item`, `item_display`, `block_state`, `text`).
//!
//! While a cycle plays, each key is applied once, at its tick: a selector
//! picks its option then (the runtime side is [`crate::anim::nbt`],
//! [`crate::library::nbt`] and [`crate::playback::session::nbt`]), and
//! the chosen patch is **merged** into the
//! node's [`NbtState`], the state the earlier keys of the cycle built on
//! the node's own `entity_nbt` and content. A new cycle (a loop, a
//! Sequence segment) starts again from the node's own state.
//!
//! # Rules checked at load
//! - A key has only `time` and `value`; interpolation, easing and
//!   `pre`/`post` are refused.
//! - Keys after `0t` may not add top-level fields the `0t` key did not
//!   declare, and every option of the `0t` key declares the same top-level
//!   fields: so the `0t` key alone decides which fields the track owns, and
//!   a new cycle resets all of them.
//! - Runtime-owned fields are refused ([`nbt_track_owned_keys`]):
//!   identity, position, transformation, interpolation and passengers.
//! - Not on anchors (they have no entity).
//! - The content fields belong to their display kind (`item` and
//!   `item_display` to item displays, `block_state` to block displays,
//!   `text` to text displays). On a participant-hand node `item` is
//!   refused (it shows what the participant holds).
//!
//! # Choices where the specification is silent
//! - **Merge is per top-level field.** A field a key sets replaces that
//!   field's whole value (an `item` is a whole stack, `brightness` both
//!   levels); fields it leaves out keep theirs. Vanilla's `/data merge`
//!   would merge nested compounds too, but then an `item` could only be
//!   checked once every combination of options is known.
//! - **Content may change, with the 1.20.1 item rules.** The display
//!   content `entity_nbt` may not set (it has its own node fields) is what
//!   an NBT track is for: `item` is an item stack compound read by the
//!   rules of `item_stack_snbt` (modern or 1.20.1 form), `block_state` by
//!   those of `block_state_snbt`, `text` is 1.20.1's NBT form, a string of
//!   JSON text (`'{"text":"Hi"}'`), and `item_display` a context name.
//! - **Skin-bound nodes** may not change `item` either: the player head
//!   carrying the skin is the content.
//! - **A selector** is evaluated as at its key's time (`q.anim_time` is the
//!   key's, `q.key_frame_lerp_time` 0), also when a later start evaluates
//!   the earlier keys; it reads the cycle's `v.*` and draws its random
//!   numbers from a stream of its own, so choosing an option never changes
//!   what the tracks draw.

use std::collections::BTreeSet;

use serde_json::Value;
use valence::nbt::{Compound, Value as Nbt};
use valence::{BlockState, ItemStack, Text};

use super::display_fields::DisplayFields;
use super::keyframes::{molang_string, read_keys};
use super::node::{record_snbt, ItemContent, ItemDisplayContext, Node, NodeKind};
use super::problem::{field, index, JsonPointer, Problems};
use super::read::{self, Obj};
use super::snbt::{self, DisplayKind, SnbtResult};

/// The display content `entity_nbt` may not set (nodes have their own
/// fields for it) and an NBT track may change: of
/// [`snbt::RUNTIME_OWNED_KEYS`], the only ones a track may set.
pub const CONTENT_KEYS: &[&str] = &["item", "item_display", "block_state", "text"];

/// The display-entity fields an NBT track may not set: identity, position,
/// the transformation, interpolation and `Passengers`, that is
/// [`snbt::RUNTIME_OWNED_KEYS`] but the [`CONTENT_KEYS`].
pub fn nbt_track_owned_keys() -> impl Iterator<Item = &'static str> {
    snbt::RUNTIME_OWNED_KEYS
        .iter()
        .copied()
        .filter(|key| !CONTENT_KEYS.contains(key))
}

/// One compound an NBT key may apply, checked and decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct NbtPatch {
    /// The compound as written (what `emoted sample` prints).
    pub compound: Compound,
    /// The display fields it sets (the compound without its content
    /// fields), as [`DisplayFields::apply_checked`] reads them.
    pub fields: Compound,
    /// A new item (item displays).
    pub item: Option<ItemStack>,
    /// A new item display context (item displays).
    pub item_display: Option<ItemDisplayContext>,
    /// A new block state (block displays).
    pub block_state: Option<BlockState>,
    /// A new text (text displays).
    pub text: Option<Text>,
}

impl NbtPatch {
    /// The top-level fields it declares.
    pub fn field_names(&self) -> BTreeSet<&str> {
        self.compound.keys().map(String::as_str).collect()
    }
}

/// The value of an NBT key.
#[derive(Clone, Debug, PartialEq)]
pub enum NbtValue {
    /// One compound.
    Fixed(NbtPatch),
    /// A Molang expression choosing one of the options, by index.
    Select {
        /// The expression (a track expression: it reads `v.*`).
        select: String,
        /// At least two compounds.
        options: Vec<NbtPatch>,
    },
}

impl NbtValue {
    /// The compounds it may apply: one, or the selector's options.
    pub fn options(&self) -> &[NbtPatch] {
        match self {
            NbtValue::Fixed(patch) => std::slice::from_ref(patch),
            NbtValue::Select { options, .. } => options,
        }
    }
}

/// One key of an NBT track (always stepped).
#[derive(Clone, Debug, PartialEq)]
pub struct NbtKey {
    /// When, in ticks after the cycle starts.
    pub time_ticks: u32,
    /// What it applies.
    pub value: NbtValue,
}

/// What an NBT track has built on a display: its fields, and the content
/// the keys replaced (`None`: the node's own).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NbtState {
    /// Every display field.
    pub fields: DisplayFields,
    /// The item, when a key replaced it.
    pub item: Option<ItemStack>,
    /// The item display context, when a key replaced it.
    pub item_display: Option<ItemDisplayContext>,
    /// The block state, when a key replaced it.
    pub block_state: Option<BlockState>,
    /// The text, when a key replaced it.
    pub text: Option<Text>,
}

impl NbtState {
    /// The state of a display before any key: its own fields and content.
    pub fn of_node(fields: DisplayFields) -> Self {
        Self {
            fields,
            ..Self::default()
        }
    }

    /// Merges `patch` in: every top-level field it declares replaces the
    /// one before; the others are kept.
    pub fn merge(&mut self, patch: &NbtPatch) {
        self.fields.apply_checked(&patch.fields);
        if let Some(item) = &patch.item {
            self.item = Some(item.clone());
        }
        if let Some(context) = patch.item_display {
            self.item_display = Some(context);
        }
        if let Some(state) = patch.block_state {
            self.block_state = Some(state);
        }
        if let Some(text) = &patch.text {
            self.text = Some(text.clone());
        }
    }
}

/// What the reader knows of the node a track animates.
#[derive(Clone, Copy, Debug)]
struct Target {
    kind: DisplayKind,
    /// The item comes from somewhere else: a participant's hand, or the
    /// skin a head is dressed in (the message names which).
    item_owner: Option<&'static str>,
}

impl Target {
    /// `None` for an anchor; a node not in `nodes` is read as permissively
    /// as a text display with no owner (its own error is elsewhere).
    fn of(node: Option<&Node>) -> Option<Self> {
        let (kind, item_owner) = match node.map(|n| &n.kind) {
            Some(NodeKind::Anchor) => return None,
            Some(NodeKind::Item { content, skin, .. }) => (
                DisplayKind::Item,
                match (content, skin) {
                    (ItemContent::ParticipantHand(_), _) => {
                        Some("a participant-hand node shows what the participant holds")
                    }
                    (_, Some(_)) => Some("a skin-bound node shows its participant's head"),
                    _ => None,
                },
            ),
            Some(NodeKind::Block { .. }) => (DisplayKind::Block, None),
            Some(NodeKind::Text { .. }) | None => (DisplayKind::Text, None),
        };
        Some(Self { kind, item_owner })
    }

    /// Unknown nodes take every kind's content fields.
    fn allows(&self, node: Option<&Node>, kind: DisplayKind) -> bool {
        node.is_none() || self.kind == kind
    }
}

/// Reads an NBT track of `node` (`None` when the id is not in `nodes`).
pub(crate) fn read_nbt_track(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    duration_ticks: Option<u32>,
    node: Option<&Node>,
) -> Option<Vec<NbtKey>> {
    let target = Target::of(node);
    if target.is_none() {
        problems.error(
            pointer,
            "anchor nodes cannot have an `nbt` track: they create no entity",
        );
    }
    let keys = read_keys(
        value,
        pointer,
        problems,
        "nbt",
        duration_ticks,
        |key, problems| {
            let mut obj = key.obj;
            let value = obj
                .req("value", problems)
                .and_then(|(v, p)| read_value(v, &p, problems, target, node));
            for field in ["interpolation", "easing", "pre", "post"] {
                obj.forbid(
                    field,
                    problems,
                    &format!("nbt tracks are stepped and do not support `{field}`"),
                );
            }
            obj.finish(problems, &["time", "value"]);
            Some(NbtKey {
                time_ticks: key.time_ticks?,
                value: value?,
            })
        },
    )?;
    let shaped = check_shape(&keys, value, pointer, problems);
    (target.is_some() && shaped).then_some(keys)
}

/// The shape rules: the options of the first key declare the same fields,
/// and later keys declare no other. False when one was broken.
fn check_shape(
    keys: &[NbtKey],
    json: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> bool {
    let Some(first) = keys.first() else {
        return true;
    };
    let mut ok = true;
    let list = |names: &BTreeSet<&str>| {
        if names.is_empty() {
            "none".to_owned()
        } else {
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let declared = first.value.options()[0].field_names();
    for (k, key) in keys.iter().enumerate() {
        let key_pointer = index(pointer, k);
        let value_pointer = field(&key_pointer, "value");
        let options_pointer = field(&value_pointer, "options");
        // A later key's selector options are checked one by one.
        let is_select = json
            .pointer(&format!("/{k}/value"))
            .is_some_and(Value::is_object);
        for (o, option) in key.value.options().iter().enumerate() {
            let option_pointer = index(&options_pointer, o);
            let at: &dyn JsonPointer = if is_select {
                &option_pointer
            } else {
                &value_pointer
            };
            let names = option.field_names();
            if k == 0 {
                if names != declared {
                    ok = false;
                    problems.error(
                        at,
                        format!(
                            "every option of the 0t key must declare the same top-level fields: \
                             option {o} declares {}, option 0 declares {}",
                            list(&names),
                            list(&declared)
                        ),
                    );
                }
                continue;
            }
            let added: BTreeSet<&str> = names.difference(&declared).copied().collect();
            if !added.is_empty() {
                ok = false;
                problems.error(
                    at,
                    format!(
                        "keys after 0t may not add top-level fields the 0t key did not declare: \
                         {} (the 0t key declares {})",
                        list(&added),
                        list(&declared)
                    ),
                );
            }
        }
    }
    ok
}

/// Reads a key's `value`: compound SNBT, or a selector.
fn read_value(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    target: Option<Target>,
    node: Option<&Node>,
) -> Option<NbtValue> {
    match value {
        Value::String(text) => {
            let patch = read_patch(text, target, node);
            record_snbt(patch, pointer, problems).map(NbtValue::Fixed)
        }
        Value::Object(_) => {
            let mut obj = Obj::new(value, pointer, problems, "an nbt selector")?;
            let select = obj.req("select", problems).and_then(|(v, p)| {
                let text = read::string(v, &p, problems, "`select`")?;
                molang_string(text, &p, problems)
            });
            let options = obj
                .req("options", problems)
                .and_then(|(v, p)| read_options(v, &p, problems, target, node));
            obj.finish(problems, &["select", "options"]);
            Some(NbtValue::Select {
                select: select?,
                options: options?,
            })
        }
        other => {
            problems.error(
                pointer,
                format!(
                    "an nbt value must be a compound SNBT string or {{\"select\": ..., \"options\": [...]}}, found {}",
                    read::kind_of(other)
                ),
            );
            None
        }
    }
}

/// Reads a selector's `options`: at least two compound SNBT strings.
fn read_options(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    target: Option<Target>,
    node: Option<&Node>,
) -> Option<Vec<NbtPatch>> {
    let Some(items) = value.as_array().filter(|a| a.len() >= 2) else {
        let found = match value.as_array() {
            Some(a) => format!("{} option(s)", a.len()),
            None => read::kind_of(value).to_owned(),
        };
        problems.error(
            pointer,
            format!(
                "`options` must be an array of at least 2 compound SNBT strings, found {found}"
            ),
        );
        return None;
    };
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        let p = index(pointer, i);
        let patch = read::string(item, &p, problems, "an option")
            .and_then(|text| record_snbt(read_patch(text, target, node), &p, problems));
        match patch {
            Some(patch) => out.push(patch),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// Reads one compound of a key: refuses the runtime-owned fields, decodes
/// the content fields and checks the display fields like `entity_nbt`.
fn read_patch(text: &str, target: Option<Target>, node: Option<&Node>) -> SnbtResult<NbtPatch> {
    let compound = snbt::parse_compound(text)?;
    // Anchors were refused already; check the compound as a text display's.
    let target = target.unwrap_or(Target {
        kind: DisplayKind::Text,
        item_owner: None,
    });
    let mut warnings = Vec::new();
    let mut patch = NbtPatch {
        compound: Compound::new(),
        fields: Compound::new(),
        item: None,
        item_display: None,
        block_state: None,
        text: None,
    };
    let belongs = |key: &str, kind: DisplayKind, kind_name: &str| {
        if target.allows(node, kind) {
            Ok(())
        } else {
            Err(format!("nbt `{key}` belongs to {kind_name} nodes"))
        }
    };
    for (key, value) in compound.iter() {
        match key.as_str() {
            owned if nbt_track_owned_keys().any(|k| k == owned) => {
                let all: Vec<&str> = nbt_track_owned_keys().collect();
                return Err(format!(
                    "an nbt track may not set `{owned}`: playback owns identity, position, \
                     transformation, interpolation and passengers ({})",
                    all.join(", ")
                ));
            }
            "item" => {
                belongs("item", DisplayKind::Item, "item_display")?;
                if let Some(owner) = target.item_owner {
                    return Err(format!("an nbt track may not change `item`: {owner}"));
                }
                let Nbt::Compound(stack) = value else {
                    return Err(
                        "nbt `item` must be an item stack compound such as {id:\"minecraft:stick\",count:1}"
                            .to_owned(),
                    );
                };
                let (stack, item_warnings) =
                    snbt::item_stack_compound(stack).map_err(|e| format!("nbt `item`: {e}"))?;
                warnings.extend(item_warnings);
                patch.item = Some(stack);
            }
            "item_display" => {
                belongs("item_display", DisplayKind::Item, "item_display")?;
                let context = match value {
                    Nbt::String(name) => ItemDisplayContext::ALL
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, c)| *c),
                    _ => None,
                };
                let names: Vec<&str> = ItemDisplayContext::ALL.iter().map(|(n, _)| *n).collect();
                patch.item_display = Some(context.ok_or_else(|| {
                    format!("nbt `item_display` must be one of {}", names.join(", "))
                })?);
            }
            "block_state" => {
                belongs("block_state", DisplayKind::Block, "block_display")?;
                let Nbt::Compound(state) = value else {
                    return Err(
                        "nbt `block_state` must be a compound such as {Name:\"minecraft:stone\"}"
                            .to_owned(),
                    );
                };
                patch.block_state = Some(
                    snbt::block_state_compound(state)
                        .map_err(|e| format!("nbt `block_state`: {e}"))?,
                );
            }
            "text" => {
                belongs("text", DisplayKind::Text, "text_display")?;
                let text = match value {
                    Nbt::String(json) => serde_json::from_str::<Text>(json).ok(),
                    _ => None,
                };
                patch.text = Some(text.ok_or_else(|| {
                    "nbt `text` must be a string of JSON text, such as '{\"text\":\"Hi\"}'"
                        .to_owned()
                })?);
            }
            _ => {
                patch.fields.insert(key.clone(), value.clone());
            }
        }
    }
    warnings.extend(snbt::display_fields(&patch.fields, target.kind, "nbt")?);
    patch.compound = compound;
    Ok((patch, warnings))
}
