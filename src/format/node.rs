//! Nodes: the display entities and anchors an Animation is built from.

use serde_json::Value;
use valence::math::Vec3;
use valence::{BlockState, ItemStack, Text};

use super::display_fields::DisplayFields;
use super::problem::{JsonPointer, Problems};
use super::read::{self, Obj};
use super::snbt::{self, DisplayKind, SnbtResult};

/// Which player or shared root a node hangs from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// The shared scene root, placed where the initiator started.
    Scene,
    /// The initiator's placement.
    Initiator,
    /// The partner's placement (the initiator in single-player playback).
    Partner,
}

impl Space {
    /// The name files use.
    pub fn name(self) -> &'static str {
        match self {
            Space::Scene => "scene",
            Space::Initiator => "initiator",
            Space::Partner => "partner",
        }
    }
}

/// How a node is attached: a root declares a space, a child names its parent.
#[derive(Clone, Debug, PartialEq)]
pub enum Attachment {
    /// A root node in the given space.
    Root(Space),
    /// A child of the named node in the same file.
    Parent(String),
}

/// A node's local transform as written: blocks, XYZ Euler degrees, factors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Local position in blocks.
    pub position: Vec3,
    /// XYZ Euler angles in degrees (`q = qx · qy · qz`).
    pub rotation_degrees: Vec3,
    /// Local scale factors.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self {
            position: Vec3::ZERO,
            rotation_degrees: Vec3::ZERO,
            scale: Vec3::ONE,
        }
    }
}

/// A physical hand, independent of the player's main-hand setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arm {
    /// The left hand.
    Left,
    /// The right hand.
    Right,
}

/// What an item display shows.
#[derive(Clone, Debug, PartialEq)]
pub enum ItemContent {
    /// A fixed stack, already in the 1.20.1 form.
    Stack(ItemStack),
    /// The item the participant holds in that hand, followed live.
    ParticipantHand(Arm),
}

/// Minecraft's item display contexts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemDisplayContext {
    /// `none`
    None,
    /// `thirdperson_lefthand`
    ThirdPersonLeftHand,
    /// `thirdperson_righthand`
    ThirdPersonRightHand,
    /// `firstperson_lefthand`
    FirstPersonLeftHand,
    /// `firstperson_righthand`
    FirstPersonRightHand,
    /// `head`
    Head,
    /// `gui`
    Gui,
    /// `ground`
    Ground,
    /// `fixed`
    Fixed,
}

impl ItemDisplayContext {
    /// Every context with its file name, in protocol order (the metadata byte is the index).
    pub const ALL: [(&'static str, ItemDisplayContext); 9] = [
        ("none", Self::None),
        ("thirdperson_lefthand", Self::ThirdPersonLeftHand),
        ("thirdperson_righthand", Self::ThirdPersonRightHand),
        ("firstperson_lefthand", Self::FirstPersonLeftHand),
        ("firstperson_righthand", Self::FirstPersonRightHand),
        ("head", Self::Head),
        ("gui", Self::Gui),
        ("ground", Self::Ground),
        ("fixed", Self::Fixed),
    ];

    /// The byte 1.20.1 sends in the item display's metadata.
    pub fn protocol_id(self) -> u8 {
        Self::ALL.iter().position(|(_, c)| *c == self).unwrap_or(0) as u8
    }
}

/// A body part whose skin an item display shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BodyPart {
    /// `head`
    Head,
    /// `body`
    Body,
    /// `left_arm`
    LeftArm,
    /// `right_arm`
    RightArm,
    /// `left_leg`
    LeftLeg,
    /// `right_leg`
    RightLeg,
}

/// Which participant's skin, or which participant's placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Participant {
    /// The player who started the emote.
    Initiator,
    /// The player who joined a two-player Sequence.
    Partner,
}

/// A player-skin binding on an item display.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkinBinding {
    /// Whose skin.
    pub participant: Participant,
    /// Which body part.
    pub part: BodyPart,
    /// Nodes bound to the same participant and part get skin data in this order.
    pub order: u32,
}

/// Fields every display node has.
#[derive(Clone, Debug, PartialEq)]
pub struct DisplayCommon {
    /// Initial visibility.
    pub visible: bool,
    /// The display-entity fields `entity_nbt` set (checked against the
    /// runtime-owned keys, then decoded; vanilla's defaults without it).
    pub fields: DisplayFields,
}

/// What kind of node, with its content.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// A transform only: groups children or gives a command origin.
    Anchor,
    /// An item display.
    Item {
        /// The item shown.
        content: ItemContent,
        /// The item display context.
        context: ItemDisplayContext,
        /// An optional player-skin binding.
        skin: Option<SkinBinding>,
        /// Visibility and extra NBT.
        common: DisplayCommon,
    },
    /// A block display.
    Block {
        /// The block state shown.
        state: BlockState,
        /// Visibility and extra NBT.
        common: DisplayCommon,
    },
    /// A text display.
    Text {
        /// The text component shown.
        text: Text,
        /// Visibility and extra NBT.
        common: DisplayCommon,
    },
}

impl NodeKind {
    /// The `type` name files use.
    pub fn type_name(&self) -> &'static str {
        match self {
            NodeKind::Anchor => "anchor",
            NodeKind::Item { .. } => "item_display",
            NodeKind::Block { .. } => "block_display",
            NodeKind::Text { .. } => "text_display",
        }
    }

    /// Visibility and NBT, for display nodes.
    pub fn display(&self) -> Option<&DisplayCommon> {
        match self {
            NodeKind::Anchor => None,
            NodeKind::Item { common, .. }
            | NodeKind::Block { common, .. }
            | NodeKind::Text { common, .. } => Some(common),
        }
    }

    /// True for item, block and text displays.
    pub fn is_display(&self) -> bool {
        self.display().is_some()
    }
}

/// One node of an Animation.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The stable node id (the key in `nodes`).
    pub id: String,
    /// Root space or parent.
    pub attachment: Attachment,
    /// The space inherited from the root ancestor (equal to the root's own space for roots).
    pub space: Space,
    /// The local transform.
    pub transform: Transform,
    /// Type and content.
    pub kind: NodeKind,
}

const SPACES: &[(&str, Space)] = &[
    ("scene", Space::Scene),
    ("initiator", Space::Initiator),
    ("partner", Space::Partner),
];

const NODE_TYPES: &[(&str, &str)] = &[
    ("item_display", "item_display"),
    ("block_display", "block_display"),
    ("text_display", "text_display"),
    ("anchor", "anchor"),
];

const ARMS: &[(&str, Arm)] = &[("left", Arm::Left), ("right", Arm::Right)];

const PARTICIPANTS: &[(&str, Participant)] = &[
    ("initiator", Participant::Initiator),
    ("partner", Participant::Partner),
];

const BODY_PARTS: &[(&str, BodyPart)] = &[
    ("head", BodyPart::Head),
    ("body", BodyPart::Body),
    ("left_arm", BodyPart::LeftArm),
    ("right_arm", BodyPart::RightArm),
    ("left_leg", BodyPart::LeftLeg),
    ("right_leg", BodyPart::RightLeg),
];

/// The fields every node may have.
const COMMON_FIELDS: &[&str] = &[
    "type",
    "space",
    "parent",
    "transform",
    "visible",
    "entity_nbt",
];

/// The fields of a display's content, each for some display types only.
const CONTENT_FIELDS: &[&str] = &[
    "skin",
    "item_stack_snbt",
    "item_source",
    "item_display",
    "block_state_snbt",
    "text",
];

/// A node as read, before its space is resolved through its parents.
pub(crate) struct RawNode {
    pub(crate) id: String,
    pub(crate) attachment: Option<Attachment>,
    pub(crate) transform: Transform,
    pub(crate) kind: Option<NodeKind>,
    /// The pointer of `skin.participant` (or `skin`), for the space check.
    pub(crate) skin_pointer: String,
    pub(crate) item_source_pointer: Option<String>,
}

/// Reads one node object; space-dependent rules are checked later.
pub(crate) fn read_node(
    id: &str,
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<RawNode> {
    let mut obj = Obj::new(value, pointer, problems, "a node")?;
    let type_name = obj.req_one_of("type", problems, "node `type`", NODE_TYPES);

    let space = obj.opt("space");
    let parent = obj.opt("parent");
    let attachment = match (space, parent) {
        (Some(_), Some((_, p))) => {
            problems.error(
                &p,
                "a node declares either `space` (root) or `parent` (child), not both",
            );
            None
        }
        (Some((v, p)), None) => {
            read::one_of(v, &p, problems, "`space`", SPACES).map(Attachment::Root)
        }
        (None, Some((v, p))) => read::nonempty_string(v, &p, problems, "`parent`")
            .map(|s| Attachment::Parent(s.to_owned())),
        (None, None) => {
            problems.error(
                pointer,
                "a root node needs `space` (scene, initiator or partner); a child needs `parent`",
            );
            None
        }
    };

    let transform = obj
        .req("transform", problems)
        .and_then(|(v, p)| read_transform(v, &p, problems))
        .unwrap_or_default();

    let mut skin_pointer = String::new();
    let mut item_source_pointer = None;
    let kind = match type_name {
        None => None,
        Some("anchor") => {
            for key in ["visible", "entity_nbt"] {
                obj.forbid(
                    key,
                    problems,
                    &format!("anchor nodes do not support `{key}`: they create no entity"),
                );
            }
            for key in CONTENT_FIELDS {
                obj.forbid(
                    key,
                    problems,
                    &format!("`{key}` belongs to display nodes, not anchors"),
                );
            }
            Some(NodeKind::Anchor)
        }
        Some(type_name) => {
            let display_kind = match type_name {
                "item_display" => DisplayKind::Item,
                "block_display" => DisplayKind::Block,
                _ => DisplayKind::Text,
            };
            let visible = obj.opt_bool("visible", problems).unwrap_or(true);
            let entity_nbt = obj.opt("entity_nbt").and_then(|(v, p)| {
                let text = read::string(v, &p, problems, "`entity_nbt`")?;
                let checked = snbt::entity_nbt(text, display_kind);
                record_snbt(checked, &p, problems).map(|c| DisplayFields::from_checked(&c))
            });
            let common = DisplayCommon {
                visible,
                fields: entity_nbt.unwrap_or_default(),
            };
            if display_kind != DisplayKind::Item {
                obj.forbid(
                    "skin",
                    problems,
                    "`skin` is only supported on item_display nodes",
                );
                for key in ["item_stack_snbt", "item_source", "item_display"] {
                    obj.forbid(
                        key,
                        problems,
                        &format!("`{key}` belongs to item_display nodes"),
                    );
                }
            }
            if display_kind != DisplayKind::Block {
                obj.forbid(
                    "block_state_snbt",
                    problems,
                    "`block_state_snbt` belongs to block_display nodes",
                );
            }
            if display_kind != DisplayKind::Text {
                obj.forbid("text", problems, "`text` belongs to text_display nodes");
            }
            match display_kind {
                DisplayKind::Item => {
                    let stack = obj.opt("item_stack_snbt");
                    let source = obj.opt("item_source");
                    let content = match (stack, source) {
                        (Some(_), Some((_, p))) => {
                            problems.error(&p, "an item_display has exactly one of `item_stack_snbt` or `item_source`, not both");
                            None
                        }
                        (None, None) => {
                            problems.error(pointer, "an item_display needs exactly one of `item_stack_snbt` or `item_source`");
                            None
                        }
                        (Some((v, p)), None) => {
                            let text = read::string(v, &p, problems, "`item_stack_snbt`");
                            text.and_then(|t| record_snbt(snbt::item_stack(t), &p, problems))
                                .map(ItemContent::Stack)
                        }
                        (None, Some((v, p))) => {
                            item_source_pointer = Some(p.render());
                            read_item_source(v, &p, problems).map(ItemContent::ParticipantHand)
                        }
                    };
                    let context = obj.req_one_of(
                        "item_display",
                        problems,
                        "`item_display` context",
                        &ItemDisplayContext::ALL,
                    );
                    let skin = obj.opt("skin").and_then(|(v, p)| {
                        if matches!(content, Some(ItemContent::ParticipantHand(_))) {
                            problems.error(&p, "participant-hand items cannot use `skin`");
                        }
                        let (binding, participant_pointer) = read_skin(v, &p, problems)?;
                        skin_pointer = participant_pointer;
                        Some(binding)
                    });
                    match (content, context) {
                        (Some(content), Some(context)) => Some(NodeKind::Item {
                            content,
                            context,
                            skin,
                            common,
                        }),
                        _ => None,
                    }
                }
                DisplayKind::Block => obj.req("block_state_snbt", problems).and_then(|(v, p)| {
                    let text = read::string(v, &p, problems, "`block_state_snbt`")?;
                    match snbt::block_state(text) {
                        Ok(state) => Some(NodeKind::Block { state, common }),
                        Err(e) => {
                            problems.error(&p, e);
                            None
                        }
                    }
                }),
                DisplayKind::Text => obj.req("text", problems).and_then(|(v, p)| {
                    read_text(v, &p, problems).map(|text| NodeKind::Text { text, common })
                }),
            }
        }
    };
    obj.finish(problems, &[COMMON_FIELDS, CONTENT_FIELDS].concat());
    Some(RawNode {
        id: id.to_owned(),
        attachment,
        transform,
        kind,
        skin_pointer,
        item_source_pointer,
    })
}

/// Reads a JSON text component (an object or a plain string).
pub(crate) fn read_text(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<Text> {
    if !matches!(value, Value::Object(_) | Value::String(_)) {
        problems.error(
            pointer,
            "`text` must be a JSON text component: an object such as {\"text\":\"Hi\"} or a string",
        );
        return None;
    }
    match serde_json::from_value::<Text>(value.clone()) {
        Ok(text) => Some(text),
        Err(e) => {
            problems.error(
                pointer,
                format!("`text` is not a valid text component: {e}"),
            );
            None
        }
    }
}

/// Records the warnings of a successful SNBT parse, or its error, at `pointer`.
pub(super) fn record_snbt<T>(
    parsed: SnbtResult<T>,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<T> {
    match parsed {
        Ok((value, warnings)) => {
            for warning in warnings {
                problems.warning(pointer, warning);
            }
            Some(value)
        }
        Err(e) => {
            problems.error(pointer, e);
            None
        }
    }
}

fn read_transform(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<Transform> {
    let mut obj = Obj::new(value, pointer, problems, "`transform`")?;
    let mut transform = Transform::default();
    let mut ok = true;
    for (key, slot) in [
        ("position", &mut transform.position),
        ("rotation", &mut transform.rotation_degrees),
        ("scale", &mut transform.scale),
    ] {
        match obj.req(key, problems) {
            Some((v, p)) => match read::vec3(v, &p, problems, &format!("transform `{key}`")) {
                Some(vec) => *slot = vec,
                None => ok = false,
            },
            None => ok = false,
        }
    }
    obj.finish(problems, &["position", "rotation", "scale"]);
    ok.then_some(transform)
}

fn read_item_source(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<Arm> {
    let mut obj = Obj::new(value, pointer, problems, "`item_source`")?;
    let ty = obj.req_one_of(
        "type",
        problems,
        "`item_source.type`",
        &[("participant_hand", ())],
    );
    let arm = obj.req_one_of("arm", problems, "`arm`", ARMS);
    obj.finish(problems, &["type", "arm"]);
    ty.and(arm)
}

fn read_skin(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<(SkinBinding, String)> {
    let mut obj = Obj::new(value, pointer, problems, "`skin`")?;
    let (participant, participant_pointer) = match obj.opt("participant") {
        Some((v, p)) => (
            read::one_of(v, &p, problems, "`participant`", PARTICIPANTS),
            p.render(),
        ),
        None => (Some(Participant::Initiator), pointer.render()),
    };
    let part = obj.req_one_of("part", problems, "skin `part`", BODY_PARTS);
    let order = obj
        .req("order", problems)
        .and_then(|(v, p)| read::count(v, &p, problems, "skin `order`", 0));
    obj.finish(problems, &["participant", "part", "order"]);
    Some((
        SkinBinding {
            participant: participant?,
            part: part?,
            order: order?,
        },
        participant_pointer,
    ))
}
