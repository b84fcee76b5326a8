//! `metadata.emoted.look_at`, `metadata.emoted.ik` and
//! `metadata.emoted.springs` in an Animation: the solvers that bend its
//! pose toward the live world every tick ([`crate::anim::solve`] has the
//! math). Under `metadata.emoted`, so the file stays valid for every
//! schema 4 server.
//!
//! ```json
//! "metadata": {"name": "Wave", "emoted": {
//!   "look_at": {"nodes": ["spine", "neck"], "yaw_limit": 70},
//!   "ik": [{"chain": ["shoulder_r", "elbow_r", "hand_r"], "target": {"partner": "hand_r"}, "pole": [0, 0, -1]}],
//!   "springs": [{"node": "cape", "axis": [0, -1, 0], "length": 0.9}]
//! }}
//! ```
//!
//! - `look_at` (or `false`): `nodes`, 1 to 4, root-most first, each below
//!   the one before; `shares` of the turn (default rising toward the head,
//!   1 : 2 for two); `target` `"look"` (the participant's own look, the
//!   default), `"partner"`, `"nearest_player"` or `{"node": ID}`;
//!   `yaw_limit` (0–180°, default 70), `pitch_limit` (0–90°, default 50),
//!   `weight` (0–1, default 1), `smoothing` (the share of the remaining turn
//!   taken each tick, above 0 up to 1, default 0.5), `enabled`.
//! - `ik`: up to 8 chains, `chain` `[grandparent, parent, end]` (each the
//!   parent of the next, none at zero length); `target` `{"node": ID}`, `{"partner":
//!   ID}` (that node of the other participant: the two meet halfway) or
//!   `{"point": [x, y, z]}` in the participant's frame, absent for a chain
//!   declared for later; `pole` (a direction in the participant's frame,
//!   `[0, 0, 0]` or absent: keep the animated bend plane), `weight`,
//!   `enabled`.
//! - `springs`: up to 16, each `node`, `axis` (the tip's direction in the
//!   node's frame, default `[0, -1, 0]`), `length` (blocks, above 0, default
//!   0.5), `stiffness` (per s², default 40), `damping` (per s, default 6),
//!   `gravity` (blocks per s², default 9.8); listed parents first.

use serde_json::Value;
use valence::math::Vec3;

use super::node::{Attachment, Node};
use super::problem::{field, index as at_index, JsonPointer, Problems, Root};
use super::read::{self, Obj};

/// At most this many nodes share a look.
pub const MAX_LOOK_NODES: usize = 4;
/// At most this many IK chains in one Animation.
pub const MAX_IK_CHAINS: usize = 8;
/// At most this many springs in one Animation.
pub const MAX_SPRINGS: usize = 16;

/// What a look-at turns toward.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookTarget {
    /// The participant's own look (the head follows the mouse).
    Look,
    /// The other participant's head.
    Partner,
    /// The nearest other player's eyes.
    NearestPlayer,
    /// A node of the Animation.
    Node(String),
}

/// `look_at`, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct LookAtSetting {
    /// The chain, root-most first.
    pub nodes: Vec<String>,
    /// Each node's share of the turn, summing to 1.
    pub shares: Vec<f32>,
    /// What it turns toward.
    pub target: LookTarget,
    /// The largest yaw either way, degrees.
    pub yaw_limit_degrees: f32,
    /// The largest pitch up or down, degrees.
    pub pitch_limit_degrees: f32,
    /// 0 to 1.
    pub weight: f32,
    /// The share of the remaining turn taken each tick.
    pub smoothing: f32,
}

/// What an IK chain reaches for.
#[derive(Clone, Debug, PartialEq)]
pub enum IkTarget {
    /// A node of the Animation.
    Node(String),
    /// This node of the other participant (meeting halfway).
    Partner(String),
    /// A point in the participant's frame, blocks.
    Point(Vec3),
}

/// One `ik` chain, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct IkSetting {
    /// Grandparent, parent, end.
    pub chain: [String; 3],
    /// What it reaches for (`None`: declared, off).
    pub target: Option<IkTarget>,
    /// The bend direction (`None`: the animated plane).
    pub pole: Option<Vec3>,
    /// 0 to 1.
    pub weight: f32,
}

/// One spring, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct SpringSetting {
    /// The node it swings.
    pub node: String,
    /// The tip's unit direction in the node's frame.
    pub axis: Vec3,
    /// Blocks.
    pub length_blocks: f32,
    /// Per second².
    pub stiffness: f32,
    /// Per second.
    pub damping: f32,
    /// Blocks per second².
    pub gravity: f32,
}

/// The solvers of an Animation as its file declares them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolverSettings {
    /// `look_at`, when on.
    pub look_at: Option<LookAtSetting>,
    /// `ik`, every chain (enabled ones with their target).
    pub ik: Vec<IkSetting>,
    /// `springs`.
    pub springs: Vec<SpringSetting>,
}

impl SolverSettings {
    /// True when the file declares none.
    pub fn is_empty(&self) -> bool {
        self.look_at.is_none() && self.ik.is_empty() && self.springs.is_empty()
    }
}

/// The nodes of the file, for the checks.
struct NodeIndex<'a> {
    nodes: &'a [Node],
}

impl<'a> NodeIndex<'a> {
    fn get(&self, id: &str) -> Option<&'a Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    fn parent(&self, id: &str) -> Option<&'a str> {
        match &self.get(id)?.attachment {
            Attachment::Parent(p) => Some(p.as_str()),
            Attachment::Root(_) => None,
        }
    }

    /// True when `ancestor` is above `id`.
    fn is_below(&self, id: &str, ancestor: &str) -> bool {
        let mut at = self.parent(id);
        while let Some(p) = at {
            if p == ancestor {
                return true;
            }
            at = self.parent(p);
        }
        false
    }

    /// Reads a node id, recording an unknown one with the closest name.
    fn node(
        &self,
        value: &Value,
        pointer: &dyn JsonPointer,
        problems: &mut Problems,
        what: &str,
    ) -> Option<String> {
        let id = read::nonempty_string(value, pointer, problems, what)?;
        if self.get(id).is_some() {
            return Some(id.to_owned());
        }
        let ids = self.nodes.iter().map(|n| n.id.as_str());
        problems.error(
            pointer,
            format!(
                "{what} `{id}` is not a node of this Animation{}",
                read::did_you_mean(id, ids)
            ),
        );
        None
    }
}

/// Reads the solvers of a whole Animation document with `nodes`.
pub(crate) fn read_document_solvers(
    root: &Value,
    problems: &mut Problems,
    nodes: &[Node],
) -> SolverSettings {
    let index = NodeIndex { nodes };
    let metadata = field(&Root, "metadata");
    let emoted = field(&metadata, "emoted");
    let mut out = SolverSettings::default();
    if let Some(value) = root.pointer("/metadata/emoted/look_at") {
        out.look_at = read_look_at(value, &field(&emoted, "look_at"), problems, &index);
    }
    if let Some(value) = root.pointer("/metadata/emoted/ik") {
        let pointer = field(&emoted, "ik");
        for_each_item(
            value,
            &pointer,
            problems,
            MAX_IK_CHAINS,
            "`ik` chains",
            |item, at, problems| {
                if let Some(chain) = read_ik(item, at, problems, &index) {
                    if let Some(same) = out.ik.iter().find(|c| c.chain[2] == chain.chain[2]) {
                        problems.error(at, format!("two `ik` chains end at `{}`", same.chain[2]));
                    } else {
                        out.ik.push(chain);
                    }
                }
            },
        );
    }
    if let Some(value) = root.pointer("/metadata/emoted/springs") {
        let pointer = field(&emoted, "springs");
        for_each_item(
            value,
            &pointer,
            problems,
            MAX_SPRINGS,
            "springs",
            |item, at, problems| {
                if let Some(spring) = read_spring(item, at, problems, &index) {
                    if out.springs.iter().any(|s| s.node == spring.node) {
                        problems.error(at, format!("two springs on `{}`", spring.node));
                    } else if let Some(child) = out
                        .springs
                        .iter()
                        .find(|s| index.is_below(&s.node, &spring.node))
                    {
                        problems.error(
                        at,
                        format!("list the spring on `{}` before the one on `{}`, below it: parents are solved first", spring.node, child.node),
                    );
                    } else {
                        out.springs.push(spring);
                    }
                }
            },
        );
    }
    out
}

/// Calls `each` on every element of an array of at most `max`.
fn for_each_item(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    max: usize,
    what: &str,
    mut each: impl FnMut(&Value, &dyn JsonPointer, &mut Problems),
) {
    match value.as_array() {
        Some(items) if items.len() <= max => {
            for (i, item) in items.iter().enumerate() {
                each(item, &at_index(pointer, i), problems);
            }
        }
        _ => problems.error(pointer, format!("{what} must be an array of at most {max}")),
    }
}

fn read_look_at(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    index: &NodeIndex<'_>,
) -> Option<LookAtSetting> {
    if value == &Value::Bool(false) {
        return None;
    }
    let mut obj = Obj::new(value, pointer, problems, "`look_at` (an object, or false)")?;
    let enabled = obj.opt_bool("enabled", problems).unwrap_or(true);
    let mut nodes: Vec<String> = Vec::new();
    if let Some((list, list_pointer)) = obj.req("nodes", problems) {
        match list.as_array() {
            Some(items) if (1..=MAX_LOOK_NODES).contains(&items.len()) => {
                for (i, item) in items.iter().enumerate() {
                    let at = at_index(&list_pointer, i);
                    let Some(id) = index.node(item, &at, problems, "look_at node") else {
                        continue;
                    };
                    if let Some(before) = nodes.last() {
                        if !index.is_below(&id, before) {
                            problems.error(&at, format!("look_at node `{id}` must be below `{before}`, the node before it (list them root-most first)"));
                        }
                    }
                    nodes.push(id);
                }
            }
            _ => problems.error(&list_pointer, format!("look_at `nodes` must be an array of 1 to {MAX_LOOK_NODES} node ids, root-most first")),
        }
    }
    let count = nodes.len().max(1);
    let mut shares: Vec<f32> = (1..=count).map(|k| k as f32).collect();
    if let Some((list, list_pointer)) = obj.opt("shares") {
        let read: Option<Vec<f32>> =
            list.as_array()
                .filter(|a| a.len() == count)
                .and_then(|items| {
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| {
                            read::number_in_range(
                                v,
                                &at_index(&list_pointer, i),
                                problems,
                                "a look_at share",
                                0.0..=1e6,
                                "must be at least 0",
                            )
                        })
                        .collect()
                });
        match read {
            Some(s) if s.iter().sum::<f32>() > 0.0 => shares = s,
            Some(_) => problems.error(&list_pointer, "look_at `shares` may not all be 0"),
            None => problems.error(
                &list_pointer,
                format!("look_at `shares` must be {count} numbers, one per node"),
            ),
        }
    }
    let total: f32 = shares.iter().sum();
    shares.iter_mut().for_each(|s| *s /= total);
    let target = match obj.opt("target") {
        None => Some(LookTarget::Look),
        Some((Value::String(s), p)) => match s.as_str() {
            "look" => Some(LookTarget::Look),
            "partner" => Some(LookTarget::Partner),
            "nearest_player" => Some(LookTarget::NearestPlayer),
            other => {
                problems.error(&p, format!("look_at `target` `{other}` is not one of: look, partner, nearest_player, or {{\"node\": ID}}"));
                None
            }
        },
        Some((v, p)) => {
            let mut target = Obj::new(v, &p, problems, "look_at `target`")?;
            let node = target
                .req("node", problems)
                .and_then(|(v, np)| index.node(v, &np, problems, "look_at target node"));
            target.finish(problems, &["node"]);
            if let (Some(id), Some(first)) = (&node, nodes.first()) {
                if id == first || index.is_below(id, first) {
                    problems.error(&p, format!("look_at target node `{id}` turns with the chain; pick a node outside it"));
                }
            }
            node.map(LookTarget::Node)
        }
    };
    let yaw_limit = obj
        .opt_number_in_range(
            "yaw_limit",
            problems,
            0.0..=180.0,
            "must be from 0 to 180 degrees",
        )
        .unwrap_or(70.0);
    let pitch_limit = obj
        .opt_number_in_range(
            "pitch_limit",
            problems,
            0.0..=90.0,
            "must be from 0 to 90 degrees",
        )
        .unwrap_or(50.0);
    let weight = obj
        .opt_number_in_range("weight", problems, 0.0..=1.0, "must be from 0 to 1")
        .unwrap_or(1.0);
    let smoothing = obj
        .opt_number_in_range(
            "smoothing",
            problems,
            0.01..=1.0,
            "must be above 0 and at most 1 (the share of the remaining turn taken each tick)",
        )
        .unwrap_or(0.5);
    obj.finish(
        problems,
        &[
            "nodes",
            "shares",
            "target",
            "yaw_limit",
            "pitch_limit",
            "weight",
            "smoothing",
            "enabled",
        ],
    );
    (enabled && !nodes.is_empty()).then_some(LookAtSetting {
        nodes,
        shares,
        target: target?,
        yaw_limit_degrees: yaw_limit,
        pitch_limit_degrees: pitch_limit,
        weight,
        smoothing,
    })
}

fn read_ik(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    index: &NodeIndex<'_>,
) -> Option<IkSetting> {
    let mut obj = Obj::new(value, pointer, problems, "an `ik` chain")?;
    let enabled = obj.opt_bool("enabled", problems).unwrap_or(true);
    let (list, list_pointer) = obj.req("chain", problems)?;
    let Some(items) = list.as_array().filter(|a| a.len() == 3) else {
        problems.error(&list_pointer, "an ik `chain` must be three node ids: [grandparent, parent, end], such as [\"shoulder_r\", \"elbow_r\", \"hand_r\"]");
        return None;
    };
    let ids: Vec<Option<String>> = items
        .iter()
        .enumerate()
        .map(|(i, item)| index.node(item, &at_index(&list_pointer, i), problems, "ik chain node"))
        .collect();
    let [Some(root), Some(mid), Some(end)] = <[Option<String>; 3]>::try_from(ids).ok()? else {
        return None;
    };
    let mut ok = true;
    for (i, (upper, lower)) in [(&root, &mid), (&mid, &end)].into_iter().enumerate() {
        let at = at_index(&list_pointer, i + 1);
        if index.parent(lower) != Some(upper.as_str()) {
            problems.error(&at, format!("ik chain: `{upper}` must be the parent of `{lower}` (a chain is a grandparent, its child and that child's child)"));
            ok = false;
        } else if index
            .get(lower)
            .is_some_and(|n| n.transform.position.length() < 1e-4)
        {
            problems.error(
                &at,
                format!(
                    "ik chain: `{lower}` sits on `{upper}` (a bone of length zero cannot bend)"
                ),
            );
            ok = false;
        }
    }
    let target = match obj.opt("target") {
        None => None,
        Some((v, p)) => {
            let mut t = Obj::new(v, &p, problems, "an ik `target`")?;
            let found = if let Some((v, np)) = t.opt("node") {
                let node = index.node(v, &np, problems, "ik target node")?;
                if [&root, &mid, &end].contains(&&node) || index.is_below(&node, &root) {
                    problems.error(
                        &np,
                        format!(
                            "ik target node `{node}` moves with the chain; pick a node outside it"
                        ),
                    );
                    return None;
                }
                Some(IkTarget::Node(node))
            } else if let Some((v, np)) = t.opt("partner") {
                index
                    .node(v, &np, problems, "ik partner node")
                    .map(IkTarget::Partner)
            } else if let Some((v, np)) = t.opt("point") {
                read::vec3(v, &np, problems, "an ik target point").map(IkTarget::Point)
            } else {
                problems.error(
                    &p,
                    "an ik `target` must have one of `node`, `partner`, `point`",
                );
                None
            };
            t.finish(problems, &["node", "partner", "point"]);
            found
        }
    };
    let pole = obj
        .opt("pole")
        .and_then(|(v, p)| read::vec3(v, &p, problems, "an ik `pole`"))
        .and_then(|p| p.try_normalize());
    let weight = obj
        .opt_number_in_range("weight", problems, 0.0..=1.0, "must be from 0 to 1")
        .unwrap_or(1.0);
    obj.finish(problems, &["chain", "target", "pole", "weight", "enabled"]);
    ok.then_some(IkSetting {
        chain: [root, mid, end],
        target: target.filter(|_| enabled),
        pole,
        weight,
    })
}

fn read_spring(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    index: &NodeIndex<'_>,
) -> Option<SpringSetting> {
    let mut obj = Obj::new(value, pointer, problems, "a spring")?;
    let node = obj
        .req("node", problems)
        .and_then(|(v, p)| index.node(v, &p, problems, "spring node"));
    let axis = match obj.opt("axis") {
        None => Some(Vec3::NEG_Y),
        Some((v, p)) => read::vec3(v, &p, problems, "a spring `axis`").and_then(|a| {
            let unit = a.try_normalize();
            if unit.is_none() {
                problems.error(
                    &p,
                    "a spring `axis` may not be [0, 0, 0]: it is the direction of the tip",
                );
            }
            unit
        }),
    };
    let length = obj
        .opt_number_in_range(
            "length",
            problems,
            0.001..=16.0,
            "must be above 0 and at most 16 blocks (a length of zero has no tip to swing)",
        )
        .unwrap_or(0.5);
    let stiffness = obj
        .opt_number_in_range(
            "stiffness",
            problems,
            0.0..=2000.0,
            "must be from 0 to 2000 per second²",
        )
        .unwrap_or(40.0);
    let damping = obj
        .opt_number_in_range(
            "damping",
            problems,
            0.0..=200.0,
            "must be from 0 to 200 per second",
        )
        .unwrap_or(6.0);
    let gravity = obj
        .opt_number_in_range(
            "gravity",
            problems,
            -100.0..=100.0,
            "must be from -100 to 100 blocks per second²",
        )
        .unwrap_or(9.8);
    obj.finish(
        problems,
        &["node", "axis", "length", "stiffness", "damping", "gravity"],
    );
    Some(SpringSetting {
        node: node?,
        axis: axis?,
        length_blocks: length,
        stiffness,
        damping,
        gravity,
    })
}
