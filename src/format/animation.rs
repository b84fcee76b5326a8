//! The schema 4 Animation file.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};
use valence::prelude::ItemStack;

use super::camera::{read_document_camera, CameraSetting};
use super::event::{read_events, Events, NodeRef};
use super::ident::EmoteId;
use super::keyframes::molang_string;
use super::nbt_track::read_nbt_track;
use super::node::{
    read_node, record_snbt, Attachment, ItemContent, Node, NodeKind, Participant, RawNode, Space,
};
use super::problem::{field, JsonPointer, Problems, Root};
use super::read::{self, Obj};
use super::resources::{check_node_models, read_resources, Resources};
use super::settings::{read_animation_settings, AnimationSettings, PlaybackMode};
use super::snbt;
use super::solvers::{read_document_solvers, SolverSettings};
use super::track::{read_vector_track, read_visibility_track, NodeTracks};
use super::{MAX_TIMELINE_TICKS, SCHEMA_VERSION};

/// `metadata`: a name, a description and anything else the author adds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    /// Shown in commands and the emote wheel (nonempty).
    pub name: String,
    /// Shown to players.
    pub description: String,
    /// `icon`: the item the emote wheel shows for it, from an item id
    /// (`"minecraft:stick"`, or `"stick"`) or item SNBT
    /// (`"{id:\"minecraft:player_head\",tag:{...}}"`, the rules of
    /// `item_stack_snbt`). `None`: the wheel's default for the emote's kind.
    pub icon: Option<ItemStack>,
    /// Any other fields (author, license...), kept as written
    /// (`emoted` among them).
    pub extra: Map<String, Value>,
    /// `emoted.camera`, read by an Animation ([`super::camera`]); the
    /// server's default for a Sequence.
    pub camera: CameraSetting,
    /// `emoted.look_at`, `emoted.ik` and `emoted.springs`, read by an
    /// Animation ([`super::solvers`]).
    pub solvers: SolverSettings,
}

/// The message for an `icon` that is neither an item id nor item SNBT.
const ICON_RULE: &str = "metadata `icon` must be an item id such as \"minecraft:stick\" or item \
     SNBT such as {id:\"minecraft:stick\"}";

/// Reads `metadata.icon` (see [`Metadata::icon`]): item SNBT by the rules
/// of `item_stack_snbt`, or an item id by the same rules as its `id`.
fn read_icon(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<ItemStack> {
    let Some(text) = value.as_str() else {
        problems.error(
            pointer,
            format!("{ICON_RULE}, not {}", read::kind_of(value)),
        );
        return None;
    };
    let text = text.trim();
    if text.is_empty() {
        problems.error(pointer, format!("{ICON_RULE}, not an empty string"));
        return None;
    }
    let read = if text.starts_with('{') {
        snbt::item_stack(text)
    } else {
        snbt::item_kind(text).map(|kind| (ItemStack::new(kind, 1, None), Vec::new()))
    };
    record_snbt(
        read.map_err(|e| format!("metadata `icon`: {e}")),
        pointer,
        problems,
    )
}

/// Root Molang programs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MolangPrograms {
    /// Runs when each cycle begins.
    pub initialize: Option<String>,
    /// Runs every tick before the tracks are sampled.
    pub tick: Option<String>,
}

/// `timeline`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    /// Length of one cycle, 1..=12,000 ticks.
    pub duration_ticks: u32,
    /// Tracks by node id.
    pub tracks: BTreeMap<String, NodeTracks>,
    /// Command events.
    pub events: Events,
}

/// A validated schema 4 Animation, as read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationFile {
    /// The emote id.
    pub id: EmoteId,
    /// Name, description, extras.
    pub metadata: Metadata,
    /// Settings, with defaults filled in.
    pub settings: AnimationSettings,
    /// Optional Molang programs.
    pub molang: MolangPrograms,
    /// Every node, parents before children (then by id).
    pub nodes: Vec<Node>,
    /// Duration, tracks and events.
    pub timeline: Timeline,
    /// Item models and textures for the resource pack
    /// ([`super::resources`]); empty for most emotes.
    pub resources: Resources,
}

impl AnimationFile {
    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// The number of nodes that create an entity.
    pub fn display_count(&self) -> usize {
        self.nodes.iter().filter(|n| n.kind.is_display()).count()
    }
}

/// Reads the fields every emote file starts with; returns the id.
pub(crate) fn read_header(
    obj: &mut Obj<'_>,
    problems: &mut Problems,
    expected_type: &str,
) -> Option<EmoteId> {
    if let Some((v, p)) = obj.req("type", problems) {
        if v.as_str() != Some(expected_type) {
            problems.error(&p, format!("`type` must be \"{expected_type}\""));
        }
    }
    if let Some((v, p)) = obj.req("schema_version", problems) {
        if v.as_u64() != Some(u64::from(SCHEMA_VERSION)) {
            problems.error(
                &p,
                format!("`schema_version` must be {SCHEMA_VERSION}, found {v}; convert older files with `emoted convert`"),
            );
        }
    }
    obj.opt("target_minecraft_version")
        .and_then(|(v, p)| read::string(v, &p, problems, "`target_minecraft_version`"));
    obj.req("id", problems).and_then(|(v, p)| {
        let text = read::string(v, &p, problems, "`id`")?;
        match EmoteId::parse(text) {
            Ok(id) if id.is_control() => {
                problems.error(
                    &p,
                    format!("`{id}` is reserved for Sequence repeat control"),
                );
                None
            }
            Ok(id) => Some(id),
            Err(e) => {
                problems.error(&p, e);
                None
            }
        }
    })
}

/// Records every top-level field that is not allowed as unknown: the header
/// ([`read_header`]), `metadata` and `settings`, the file kind's own `body`
/// fields, and `target_minecraft_version`, listed in that order.
pub(crate) fn finish_document(obj: Obj<'_>, problems: &mut Problems, body: &[&str]) {
    let header: &[&str] = &["type", "schema_version", "id", "metadata", "settings"];
    obj.finish(
        problems,
        &[header, body, &["target_minecraft_version"]].concat(),
    );
}

/// Reads `metadata`.
pub(crate) fn read_metadata(obj: &mut Obj<'_>, problems: &mut Problems) -> Metadata {
    let mut metadata = Metadata::default();
    let Some((v, p)) = obj.req("metadata", problems) else {
        return metadata;
    };
    let Some(mut m) = Obj::new(v, &p, problems, "`metadata`") else {
        return metadata;
    };
    if let Some((v, np)) = m.req("name", problems) {
        if let Some(name) = read::nonempty_string(v, &np, problems, "metadata `name`") {
            metadata.name = name.to_owned();
        }
    }
    if let Some((v, dp)) = m.opt("description") {
        if let Some(d) = read::string(v, &dp, problems, "metadata `description`") {
            metadata.description = d.to_owned();
        }
    }
    if let Some((v, ip)) = m.opt("icon") {
        metadata.icon = read_icon(v, &ip, problems);
    }
    for (k, v) in m.entries() {
        if k != "name" && k != "description" && k != "icon" {
            metadata.extra.insert(k.clone(), v.clone());
        }
    }
    metadata
}

/// What emoted reads under `metadata.emoted` (the rest of `metadata` is
/// the author's, kept as written).
const EMOTED_FIELDS: [&str; 5] = ["camera", "ik", "look_at", "resources", "springs"];

/// Reads `metadata.emoted.resources`, or the top-level `resources` that
/// `emoted convert` wrote before (with a warning: other schema 4 servers
/// refuse a top-level field they do not know, and keep any `metadata`);
/// refuses an unknown field of `metadata.emoted` and `resources` written in
/// both places.
fn read_document_resources(root: &Value, obj: &mut Obj<'_>, problems: &mut Problems) -> Resources {
    let metadata = field(&Root, "metadata");
    let emoted = field(&metadata, "emoted");
    match root.pointer("/metadata/emoted") {
        Some(Value::Object(fields)) => {
            for key in fields.keys() {
                if !EMOTED_FIELDS.contains(&key.as_str()) {
                    problems.error(
                        &field(&emoted, key),
                        format!(
                            "unknown field `{key}` in `metadata.emoted`; expected one of: {}",
                            EMOTED_FIELDS.join(", ")
                        ),
                    );
                }
            }
        }
        Some(_) => problems.error(&emoted, "`metadata.emoted` must be an object"),
        None => {}
    }
    let old = obj.opt("resources");
    match (root.pointer("/metadata/emoted/resources"), old) {
        (Some(value), old) => {
            if let Some((_, p)) = old {
                problems.error(
                    &p,
                    "`resources` is written twice: keep only `metadata.emoted.resources`",
                );
            }
            read_resources(value, &field(&emoted, "resources"), problems)
        }
        (None, Some((value, p))) => {
            problems.warning(
                &p,
                "a top-level `resources` is read for now: move it to `metadata.emoted.resources`, \
                 where every schema 4 server keeps it (an unknown top-level field may be refused)",
            );
            read_resources(value, &p, problems)
        }
        (None, None) => Default::default(),
    }
}

/// Reads an Animation from parsed JSON, recording every problem.
pub(crate) fn read_animation(root: &Value, problems: &mut Problems) -> Option<AnimationFile> {
    let mut obj = Obj::new(root, &Root, problems, "an Animation file")?;
    let id = read_header(&mut obj, problems, "animation");
    let mut metadata = read_metadata(&mut obj, problems);
    let settings = obj
        .opt("settings")
        .map(|(v, p)| read_animation_settings(v, &p, problems))
        .unwrap_or_default();
    if !obj.has("settings") {
        problems.error("", "missing required field `settings`");
    }
    let molang = obj
        .opt("molang")
        .map(|(v, p)| read_molang(v, &p, problems))
        .unwrap_or_default();
    if settings.playback.mode == PlaybackMode::ServerSync && molang.tick.is_some() {
        problems.error(
            "/molang/tick",
            "`server_sync` Animations may not have a `molang.tick` program: playback can begin anywhere in the timeline",
        );
    }

    let (nodes, node_ids) = match obj.req("nodes", problems) {
        Some((v, p)) => (
            read_nodes(v, &p, problems),
            v.as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default(),
        ),
        None => (Vec::new(), Vec::new()),
    };

    let mut timeline = Timeline::default();
    let mut event_refs = Vec::new();
    if let Some((v, p)) = obj.req("timeline", problems) {
        if let Some(mut t) = Obj::new(v, &p, problems, "`timeline`") {
            let duration = t.req("duration", problems).and_then(|(v, dp)| {
                let d = read::time(v, &dp, problems, "timeline `duration`", 1)?;
                if d > MAX_TIMELINE_TICKS {
                    problems.error(&dp, format!("timeline `duration` may be at most 10 minutes ({MAX_TIMELINE_TICKS}t), found {d}t"));
                    return None;
                }
                Some(d)
            });
            timeline.duration_ticks = duration.unwrap_or(0);
            if let Some((v, tp)) = t.opt("tracks") {
                timeline.tracks = read_tracks(v, &tp, problems, duration, &nodes, &node_ids);
            }
            if let Some((v, ep)) = t.opt("events") {
                timeline.events = read_events(v, &ep, problems, duration, &mut event_refs);
            }
            t.finish(problems, &["duration", "tracks", "events"]);
        }
    }
    check_event_refs(&event_refs, &nodes, &node_ids, problems);
    let ids: Vec<&str> = node_ids.iter().map(String::as_str).collect();
    let anchors: Vec<&str> = nodes
        .iter()
        .filter(|n| matches!(n.kind, super::node::NodeKind::Anchor))
        .map(|n| n.id.as_str())
        .collect();
    let camera_nodes = super::camera::NodeIds {
        all: &ids,
        anchors: &anchors,
    };
    metadata.camera = read_document_camera(root, problems, camera_nodes);
    metadata.solvers = read_document_solvers(root, problems, &nodes);
    let resources = read_document_resources(root, &mut obj, problems);
    check_node_models(&nodes, &resources, problems);
    finish_document(obj, problems, &["molang", "nodes", "timeline", "resources"]);
    if problems.has_errors() {
        return None;
    }
    Some(AnimationFile {
        id: id?,
        metadata,
        settings,
        molang,
        nodes,
        timeline,
        resources,
    })
}

fn read_molang(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> super::animation::MolangPrograms {
    let mut out = MolangPrograms::default();
    let Some(mut obj) = Obj::new(value, pointer, problems, "`molang`") else {
        return out;
    };
    for key in ["initialize", "tick"] {
        if let Some((v, p)) = obj.opt(key) {
            let program = read::string(v, &p, problems, &format!("`molang.{key}`"))
                .and_then(|s| molang_string(s, &p, problems));
            if key == "initialize" {
                out.initialize = program;
            } else {
                out.tick = program;
            }
        }
    }
    obj.finish(problems, &["initialize", "tick"]);
    out
}

/// Reads `nodes`, resolves parents and spaces, and checks the space rules.
fn read_nodes(value: &Value, pointer: &dyn JsonPointer, problems: &mut Problems) -> Vec<Node> {
    let Some(obj) = Obj::new(value, pointer, problems, "`nodes`") else {
        return Vec::new();
    };
    let mut raw: Vec<RawNode> = Vec::new();
    for (id, v) in obj.entries() {
        let p = field(pointer, id);
        if id.is_empty() {
            problems.error(&p, "a node id must not be empty");
            continue;
        }
        if let Some(node) = read_node(id, v, &p, problems) {
            raw.push(node);
        }
    }
    if obj.entries().next().is_none() {
        problems.error(pointer, "`nodes` must contain at least one node");
    }
    let index: HashMap<&str, usize> = raw
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();

    // Resolve each node's root space by walking parents, detecting missing parents and cycles.
    let mut spaces: Vec<Option<Space>> = vec![None; raw.len()];
    let mut depth: Vec<usize> = vec![0; raw.len()];
    for (i, node) in raw.iter().enumerate() {
        let node_pointer = field(pointer, &node.id);
        let mut chain = vec![i];
        let mut current = i;
        loop {
            match &raw[current].attachment {
                Some(Attachment::Root(space)) => {
                    spaces[i] = Some(*space);
                    depth[i] = chain.len() - 1;
                    break;
                }
                Some(Attachment::Parent(parent)) => match index.get(parent.as_str()) {
                    Some(&next) if chain.contains(&next) => {
                        // Report a cycle once, at the member whose id sorts first
                        // (`nodes` is read in key order; nodes that merely lead
                        // into a cycle are not members).
                        let start = chain.iter().position(|&c| c == next).unwrap_or(0);
                        let first_member = chain[start..].iter().copied().min();
                        if first_member == Some(i) {
                            let names: Vec<&str> =
                                chain.iter().map(|&c| raw[c].id.as_str()).collect();
                            problems.error(
                                &field(&node_pointer, "parent"),
                                format!(
                                    "parent links cannot form a cycle: {} → {}",
                                    names.join(" → "),
                                    raw[next].id
                                ),
                            );
                        }
                        break;
                    }
                    Some(&next) => {
                        chain.push(next);
                        current = next;
                    }
                    None => {
                        if current == i {
                            problems.error(
                                &field(&node_pointer, "parent"),
                                format!("parent `{parent}` is not a node of this file"),
                            );
                        }
                        break;
                    }
                },
                None => break,
            }
        }
    }

    let mut nodes = Vec::with_capacity(raw.len());
    for (i, node) in raw.into_iter().enumerate() {
        let (Some(space), Some(attachment), Some(kind)) = (spaces[i], node.attachment, node.kind)
        else {
            continue;
        };
        if let NodeKind::Item { content, skin, .. } = &kind {
            if let (ItemContent::ParticipantHand(_), Some(p)) = (content, &node.item_source_pointer)
            {
                if space == Space::Scene {
                    problems.error(
                        p.as_str(),
                        "participant-hand items must inherit initiator or partner space, not scene",
                    );
                }
            }
            if let Some(skin) = skin {
                let expected = match space {
                    Space::Scene => {
                        problems.error(
                            node.skin_pointer.as_str(),
                            "scene-space nodes do not support skin binding",
                        );
                        None
                    }
                    Space::Initiator => Some(Participant::Initiator),
                    Space::Partner => Some(Participant::Partner),
                };
                if expected.is_some_and(|e| e != skin.participant) {
                    problems.error(
                        &node.skin_pointer,
                        format!(
                            "skin `participant` must match the node's inherited space `{}`",
                            space.name()
                        ),
                    );
                }
            }
        }
        nodes.push((
            depth[i],
            Node {
                id: node.id,
                attachment,
                space,
                transform: node.transform,
                kind,
            },
        ));
    }
    nodes.sort_by(|(da, a), (db, b)| da.cmp(db).then_with(|| a.id.cmp(&b.id)));
    nodes.into_iter().map(|(_, n)| n).collect()
}

fn read_tracks(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    duration: Option<u32>,
    nodes: &[Node],
    node_ids: &[String],
) -> BTreeMap<String, NodeTracks> {
    let mut out = BTreeMap::new();
    let Some(obj) = Obj::new(value, pointer, problems, "`tracks`") else {
        return out;
    };
    for (node_id, channels) in obj.entries() {
        let np = field(pointer, node_id);
        let node = nodes.iter().find(|n| &n.id == node_id);
        if !node_ids.contains(node_id) {
            problems.error(
                &np,
                format!("tracks name node `{node_id}`, which is not in `nodes`"),
            );
        }
        let Some(mut ch) = Obj::new(channels, &np, problems, "a node's tracks") else {
            continue;
        };
        let mut tracks = NodeTracks::default();
        for channel in ["position", "rotation", "scale"] {
            if let Some((v, p)) = ch.opt(channel) {
                let keys = read_vector_track(v, &p, problems, channel, duration);
                match channel {
                    "position" => tracks.position = keys,
                    "rotation" => tracks.rotation = keys,
                    _ => tracks.scale = keys,
                }
            }
        }
        if let Some((v, p)) = ch.opt("visible") {
            if node.is_some_and(|n| !n.kind.is_display()) {
                problems.error(
                    &p,
                    "anchor nodes cannot have a `visible` track: they create no entity",
                );
            }
            tracks.visible = read_visibility_track(v, &p, problems, duration);
        }
        if let Some((v, p)) = ch.opt("nbt") {
            tracks.nbt = read_nbt_track(v, &p, problems, duration, node);
        }
        ch.finish(
            problems,
            &["position", "rotation", "scale", "visible", "nbt"],
        );
        out.insert(node_id.clone(), tracks);
    }
    out
}

fn check_event_refs(
    refs: &[NodeRef],
    nodes: &[Node],
    node_ids: &[String],
    problems: &mut Problems,
) {
    for r in refs {
        match nodes.iter().find(|n| n.id == r.node) {
            None if node_ids.contains(&r.node) => {}
            None => problems.error(&r.pointer, format!("node `{}` is not in `nodes`", r.node)),
            Some(n) if r.as_source && !n.kind.is_display() => problems.error(
                &r.pointer,
                format!(
                    "a `node` source must be a display node; `{}` is an anchor and has no entity",
                    r.node
                ),
            ),
            Some(_) => {}
        }
    }
}
