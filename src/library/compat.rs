//! Cross-file rules: what a Sequence may reference, and the compatibility of
//! the Animations one Sequence plays (shared node ids, skin layout); what a
//! controller plays (Animations that pose one body).

use std::collections::BTreeMap;

use crate::format::controller::{check_references, ClipLookup, ControllerFile};
use crate::format::node::{Node, NodeKind};
use crate::format::sequence::AnimationRef;
use crate::format::settings::PlaybackMode;
use crate::format::{AnimationFile, EmoteFile, EmoteId, Problem, SequenceFile};

/// Checks one Sequence against the loaded emotes; returns its errors.
pub(crate) fn check_sequence(
    sequence: &SequenceFile,
    emotes: &BTreeMap<EmoteId, &EmoteFile>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut resolved: Vec<(&AnimationRef, &AnimationFile)> = Vec::new();
    for reference in sequence.references() {
        match emotes.get(&reference.id) {
            None => problems.push(Problem::error(
                &reference.pointer,
                format!(
                    "Animation `{}` is not loaded: no valid file has this id",
                    reference.id
                ),
            )),
            Some(EmoteFile::Sequence(_)) => problems.push(Problem::error(
                &reference.pointer,
                format!(
                    "`{}` is a Sequence; steps may only reference Animations",
                    reference.id
                ),
            )),
            Some(EmoteFile::Controller(_)) => problems.push(Problem::error(
                &reference.pointer,
                format!(
                    "`{}` is a controller; steps may only reference Animations",
                    reference.id
                ),
            )),
            Some(EmoteFile::Animation(anim)) => match anim.settings.playback.mode {
                PlaybackMode::Hold | PlaybackMode::ServerSync => problems.push(Problem::error(
                    &reference.pointer,
                    format!(
                        "Animation `{}` uses `{}` mode, which Sequences cannot play",
                        reference.id,
                        anim.settings.playback.mode.name()
                    ),
                )),
                _ => resolved.push((reference, anim)),
            },
        }
    }
    // Shared node ids must agree on everything but transform, visibility and tracks.
    let mut first_by_node: BTreeMap<&str, (&EmoteId, &Node)> = BTreeMap::new();
    let mut reported: Vec<(&str, &EmoteId)> = Vec::new();
    for (reference, anim) in &resolved {
        for node in &anim.nodes {
            match first_by_node.get(node.id.as_str()) {
                None => {
                    first_by_node.insert(&node.id, (&anim.id, node));
                }
                Some((first_id, first)) => {
                    if let Some(what) = node_difference(first, node) {
                        if !reported.contains(&(node.id.as_str(), &anim.id)) {
                            reported.push((&node.id, &anim.id));
                            problems.push(Problem::error(
                                &reference.pointer,
                                format!(
                                    "node `{}` of `{}` is incompatible with the same node of `{}`: its {what} differs",
                                    node.id, anim.id, first_id
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    // Every Animation must produce the same player-skin layout.
    if let Some(((_, first_anim), rest)) = resolved.split_first() {
        let expected = skin_layout(first_anim);
        for (reference, anim) in rest {
            if skin_layout(anim) != expected && !reported.contains(&("", &anim.id)) {
                reported.push(("", &anim.id));
                problems.push(Problem::error(
                    &reference.pointer,
                    format!(
                        "Animation `{}` has a different player-skin layout from `{}` (skinned node ids, participants, parts, orders and local Y scales must match)",
                        anim.id, first_anim.id
                    ),
                ));
            }
        }
    }
    problems
}

/// The Animations among the loaded emotes, for a controller's references.
struct Animations<'a>(&'a BTreeMap<EmoteId, &'a EmoteFile>);

impl ClipLookup for Animations<'_> {
    fn node_ids(&self, id: &EmoteId) -> Option<Vec<&str>> {
        match self.0.get(id) {
            Some(EmoteFile::Animation(anim)) => {
                Some(anim.nodes.iter().map(|n| n.id.as_str()).collect())
            }
            _ => None,
        }
    }

    fn animation_ids(&self) -> Vec<&EmoteId> {
        self.0
            .iter()
            .filter(|(_, f)| matches!(f, EmoteFile::Animation(_)))
            .map(|(id, _)| id)
            .collect()
    }
}

/// Checks one controller against the loaded emotes; returns its errors.
///
/// Its clips must be loaded Animations, its mask nodes nodes of them, and
/// every clip must pose the **body**: the nodes of the first clip of the
/// base layer's default state ([`ControllerFile::body_clip`]). A clip may
/// leave nodes of the body out (they keep the pose under it), but every
/// node it has must be a node of the body with the same parent and the
/// same type, content and skin binding: the controller mixes the clips'
/// local transforms node by node, so they must mean the same bone.
pub(crate) fn check_controller(
    controller: &ControllerFile,
    emotes: &BTreeMap<EmoteId, &EmoteFile>,
) -> Vec<Problem> {
    let mut problems = check_references(controller, &Animations(emotes)).into_vec();
    if !problems.is_empty() {
        return problems;
    }
    let Some(body_ref) = controller.body_clip() else {
        return problems;
    };
    let Some(EmoteFile::Animation(body)) = emotes.get(&body_ref.id) else {
        return problems;
    };
    let mut checked: Vec<&EmoteId> = vec![&body.id];
    for clip in controller.clips() {
        if checked.contains(&&clip.id) {
            continue;
        }
        checked.push(&clip.id);
        let Some(EmoteFile::Animation(anim)) = emotes.get(&clip.id) else {
            continue;
        };
        for node in &anim.nodes {
            let what = match body.nodes.iter().find(|n| n.id == node.id) {
                None => Some("is not a node of the body".to_owned()),
                Some(same) if same.attachment != node.attachment => {
                    Some("has another parent than in the body".to_owned())
                }
                Some(same) => {
                    node_difference(same, node).map(|what| format!("differs in its {what}"))
                }
            };
            if let Some(what) = what {
                problems.push(Problem::error(
                    &clip.pointer,
                    format!(
                        "node `{}` of `{}` {what} `{}` (the first clip of the first layer's default state): every clip of a controller poses that body",
                        node.id, anim.id, body.id
                    ),
                ));
                break;
            }
        }
    }
    problems
}

/// What differs between two nodes that share an id, if anything that must match does.
fn node_difference(a: &Node, b: &Node) -> Option<&'static str> {
    if a.kind.type_name() != b.kind.type_name() {
        return Some("type");
    }
    if a.space != b.space {
        return Some("inherited space");
    }
    if a.kind.display().map(|d| &d.fields) != b.kind.display().map(|d| &d.fields) {
        return Some("entity_nbt");
    }
    match (&a.kind, &b.kind) {
        (
            NodeKind::Item {
                content: ca,
                context: xa,
                skin: sa,
                ..
            },
            NodeKind::Item {
                content: cb,
                context: xb,
                skin: sb,
                ..
            },
        ) => {
            if ca != cb {
                Some("item stack or item_source")
            } else if xa != xb {
                Some("item_display context")
            } else if sa != sb {
                Some("skin binding")
            } else {
                None
            }
        }
        (NodeKind::Block { state: a, .. }, NodeKind::Block { state: b, .. }) => {
            (a != b).then_some("block state")
        }
        (NodeKind::Text { text: a, .. }, NodeKind::Text { text: b, .. }) => {
            (a != b).then_some("text")
        }
        _ => None,
    }
}

type SkinEntry = (String, u8, u8, u32, u32);

fn skin_layout(anim: &AnimationFile) -> Vec<SkinEntry> {
    let mut layout: Vec<SkinEntry> = anim
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Item { skin: Some(s), .. } => Some((
                n.id.clone(),
                s.participant as u8,
                s.part as u8,
                s.order,
                n.transform.scale.y.to_bits(),
            )),
            _ => None,
        })
        .collect();
    layout.sort();
    layout
}
