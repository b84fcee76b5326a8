//! Checking a controller against the library: the clips its states play
//! must be Animations, and its mask nodes nodes of those Animations.

use std::collections::{BTreeMap, BTreeSet};

use super::ControllerFile;
use crate::format::ident::EmoteId;
use crate::format::problem::Problems;
use crate::format::read;

/// What the library knows of its Animations, for [`check_references`].
pub trait ClipLookup {
    /// The node ids of the Animation `id`, or `None` when there is no such
    /// Animation.
    fn node_ids(&self, id: &EmoteId) -> Option<Vec<&str>>;

    /// Every Animation id, for did-you-mean suggestions.
    fn animation_ids(&self) -> Vec<&EmoteId>;
}

impl ClipLookup for BTreeMap<EmoteId, Vec<String>> {
    fn node_ids(&self, id: &EmoteId) -> Option<Vec<&str>> {
        self.get(id)
            .map(|nodes| nodes.iter().map(String::as_str).collect())
    }

    fn animation_ids(&self) -> Vec<&EmoteId> {
        self.keys().collect()
    }
}

/// Checks every clip reference and mask node of `controller` against
/// `lookup`: a clip must be a known Animation, and a mask node a node of
/// at least one Animation the controller plays (in any layer: a mask says
/// which part of the body a layer covers, and the body is every clip's).
/// Each problem has the pointer where the name is written and the closest
/// known name.
pub fn check_references(controller: &ControllerFile, lookup: &dyn ClipLookup) -> Problems {
    let mut problems = Problems::new();
    let known = lookup.animation_ids();
    let mut nodes: BTreeSet<&str> = BTreeSet::new();
    for layer in &controller.layers {
        for state in &layer.states {
            for clip in state.motion.clips() {
                match lookup.node_ids(&clip.id) {
                    Some(ids) => nodes.extend(ids),
                    None => problems.error(
                        clip.pointer.as_str(),
                        format!(
                            "`clip` names `{}`, which is not a loaded Animation{}",
                            clip.id,
                            read::did_you_mean(clip.id.as_str(), known.iter().map(|k| k.as_str()))
                        ),
                    ),
                }
            }
        }
    }
    for layer in &controller.layers {
        for mask in layer.mask.iter().flatten() {
            if !nodes.contains(mask.node.as_str()) {
                problems.error(
                    mask.pointer.as_str(),
                    format!(
                        "mask node `{}` is not a node of any clip this controller plays{}",
                        mask.node,
                        read::did_you_mean(&mask.node, nodes.iter().copied())
                    ),
                );
            }
        }
    }
    problems
}
