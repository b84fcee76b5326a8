//! The compiled form: a flat arena of [`Node`]s addressed by `u32`, built
//! once by [`compile`](super::compile) and only read afterwards.

use super::ast::BinaryOp;
use super::math::{Math1, Math2, Math3};
use super::query::{Function, ItemSlot, Scalar};

/// Index of a node in [`Program::nodes`].
pub(crate) type NodeId = u32;

/// "No node" for optional children (keeps [`Node`] at 16 bytes).
pub(crate) const NO_NODE: NodeId = u32::MAX;

/// A runtime value. Variables start [`Value::Unset`], which reads as 0 and
/// makes `??` take its right side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    /// Never assigned.
    Unset,
    /// A number.
    Num(f64),
    /// A string, by its id in the [`Symbols`](super::Symbols) that compiled it.
    Str(u32),
}

impl Value {
    /// The value as a number: unset is 0, and a string is an error, so 0.
    #[inline]
    pub(crate) fn number(self) -> f64 {
        match self {
            Self::Num(n) => n,
            Self::Unset | Self::Str(_) => 0.0,
        }
    }
}

/// Where an item query looks, packed into one `u32` so that [`Node`] stays
/// 16 bytes: a slot known at compile time, or a numeric expression (0 is the
/// main hand, 1 the off hand, anything else an error, so 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlotArg(u32);

/// The high bit marks a fixed slot.
const FIXED_SLOT: u32 = 1 << 31;

/// A [`SlotArg`] unpacked.
pub(crate) enum Slot {
    Fixed(ItemSlot),
    Dynamic(NodeId),
}

impl SlotArg {
    pub(crate) fn fixed(slot: ItemSlot) -> Self {
        Self(FIXED_SLOT | slot.index() as u32)
    }

    pub(crate) fn dynamic(node: NodeId) -> Self {
        Self(node & !FIXED_SLOT)
    }

    pub(crate) fn unpack(self) -> Slot {
        if self.0 & FIXED_SLOT == 0 {
            return Slot::Dynamic(self.0);
        }
        Slot::Fixed(match self.0 & !FIXED_SLOT {
            0 => ItemSlot::MainHand,
            1 => ItemSlot::OffHand,
            2 => ItemSlot::Head,
            3 => ItemSlot::Chest,
            4 => ItemSlot::Legs,
            _ => ItemSlot::Feet,
        })
    }
}

/// The item questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemQuestion {
    /// `q.is_item_equipped`
    Equipped,
    /// `q.item_is_charged`
    Charged,
}

/// One compiled operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Node {
    Const(f64),
    Str(u32),
    Var(u32),
    Temp(u32),
    /// `c.*`: emoted supplies no context, so always unset.
    Context,
    Scalar(Scalar),
    Math1(Math1, NodeId),
    Math2(Math2, NodeId, NodeId),
    Math3(Math3, NodeId, NodeId, NodeId),
    Neg(NodeId),
    Not(NodeId),
    /// Arithmetic, comparison and equality (not `&&`, `||`, `??`).
    Binary(BinaryOp, NodeId, NodeId),
    /// `Binary` with a constant right side (never `==`/`!=`).
    BinaryK(BinaryOp, NodeId, f64),
    /// `BinaryK` whose left side is a scalar query (`q.anim_time * 90`).
    ScalarK(BinaryOp, Scalar, f64),
    /// `Binary` with a constant left side (never `==`/`!=`).
    KBinary(BinaryOp, f64, NodeId),
    And(NodeId, NodeId),
    Or(NodeId, NodeId),
    Coalesce(NodeId, NodeId),
    /// Condition, then, else (or [`NO_NODE`]).
    Cond(NodeId, NodeId, NodeId),
    SetVar(u32, NodeId),
    SetTemp(u32, NodeId),
    /// Statements `lists[start..start + len]`; its value is 0.
    Block(u32, u32),
    /// Count, body, and the body's weight: the operations one iteration
    /// is charged (see [`budget`](super::budget)), filled in after compiling.
    Loop(NodeId, NodeId, u32),
    /// Evaluates the array expression and iterates zero times (emoted has
    /// no arrays).
    ForEach(NodeId),
    /// Value or [`NO_NODE`].
    Return(NodeId),
    Break,
    Continue,
    /// `q.any`/`q.all`/`q.approx_eq`: value and candidates are `lists[start..start + len]`.
    Compare(Function, u32, u32),
    InRange(NodeId, NodeId, NodeId),
    /// `q.count`: evaluates `lists[start..start + len]` and gives `len`.
    Count(u32, u32),
    /// `q.position` (0), `q.position_delta` (1), `q.movement_direction` (2) with an axis.
    Axis(u8, NodeId),
    Item(ItemQuestion, SlotArg),
    /// Slot, then item ids `texts[start..start + len]`.
    ItemNameAny(SlotArg, u32, u32),
    /// Objective `texts[index]`.
    Scoreboard(u32),
}

/// A compiled expression or program: immutable, `Send + Sync`, cheap to
/// evaluate with [`Program::eval`].
///
/// A node's children always come before it in `nodes` (the compiler pushes
/// a node after its children), which the budget pass relies on.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub(crate) nodes: Vec<Node>,
    /// Child lists (block statements, call arguments).
    pub(crate) lists: Vec<NodeId>,
    /// Strings queries need the text of (item ids, objectives).
    pub(crate) texts: Vec<Box<str>>,
    pub(crate) root: NodeId,
    /// True for a complex expression (statements with `;`): its value is 0
    /// unless `return` runs.
    pub(crate) complex: bool,
    /// `t.*` slots this program uses.
    pub(crate) temp_count: u32,
    /// The most operations one evaluation can be charged (see
    /// [`Program::worst_case_ops`]).
    pub(crate) worst_case_ops: u64,
}

impl Program {
    /// How many `t.` temporaries the program uses.
    pub fn temp_count(&self) -> usize {
        self.temp_count as usize
    }

    /// How many compiled operations the program has (a size measure).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The most operations one evaluation of this program can be charged
    /// against a session's budget (saturating at `u64::MAX`), computed at
    /// compile time: every `loop`'s iterations (its constant count clamped
    /// to [`MAX_LOOP_ITERATIONS`](super::MAX_LOOP_ITERATIONS), or that many
    /// when the count is computed) multiplied through the loops around it,
    /// times its body's weight. 0 for a loop-free program. An evaluation
    /// given a budget of at least this much never runs out (see the
    /// module docs, "The operation budget").
    pub fn worst_case_ops(&self) -> u64 {
        self.worst_case_ops
    }

    /// True when the program draws no random numbers (`math.random*`,
    /// `math.die_roll*`): given the same variables and queries it always
    /// gives the same value, so a caller may reuse a result.
    pub fn is_deterministic(&self) -> bool {
        !self.nodes.iter().any(|node| {
            matches!(
                node,
                Node::Math2(Math2::Random | Math2::RandomInteger, _, _)
                    | Node::Math3(Math3::DieRoll | Math3::DieRollInteger, _, _, _)
            )
        })
    }

    /// True when the program assigns a `variable.*` (which outlives one
    /// evaluation; `temp.*` does not).
    pub fn writes_variables(&self) -> bool {
        self.nodes
            .iter()
            .any(|node| matches!(node, Node::SetVar(..)))
    }

    /// True when, from a fresh session, the program's values depend only on
    /// the timeline (`q.anim_time`, `q.anim_length`, `q.delta_time`,
    /// `q.key_frame_lerp_time`) and on variables it or its Animation set:
    /// no randomness, no `q.loop_count` or `q.life_time`, no player state.
    /// Every cycle of every playback of such an Animation is then the same.
    pub fn is_cycle_invariant(&self) -> bool {
        // `q.any`/`q.all`/`q.approx_eq` and `c.*` (always unset) are pure.
        let timeline = |s: &Scalar| {
            matches!(
                s,
                Scalar::AnimTime
                    | Scalar::AnimTimeTicks
                    | Scalar::AnimLength
                    | Scalar::DeltaTime
                    | Scalar::KeyFrameLerpTime
            )
        };
        self.is_deterministic()
            && self.nodes.iter().all(|node| match node {
                Node::Scalar(s) | Node::ScalarK(_, s, _) => timeline(s),
                Node::Axis(..) | Node::Item(..) | Node::ItemNameAny(..) | Node::Scoreboard(..) => {
                    false
                }
                _ => true,
            })
    }

    /// The program's value when it reads nothing (no variables, queries or
    /// randomness) and folded to a constant at compile time, e.g. `1 + 2`;
    /// `None` otherwise.
    pub fn constant(&self) -> Option<f64> {
        match self.nodes.get(self.root as usize) {
            Some(Node::Const(n)) if !self.complex => Some(*n),
            _ => None,
        }
    }
}
