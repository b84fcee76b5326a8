//! The node tree: parents from `children`, checked to be a forest, and
//! the part of it an animation needs.
//!
//! glTF gives each node its `children`; a node has at most one parent and
//! no node is its own ancestor. The roots are ordered as the scene lists
//! them (`scene`, else the first of `scenes`), then any other root by
//! index, so nodes outside the scene still play when a channel moves them.

use std::collections::{BTreeSet, VecDeque};

use ::gltf::json::Root;

use super::GltfError;

/// Parents and children of every node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hierarchy {
    parents: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    roots: Vec<usize>,
}

impl Hierarchy {
    /// The tree of `root`'s nodes, or the rule it breaks.
    pub fn new(root: &Root) -> Result<Hierarchy, GltfError> {
        let count = root.nodes.len();
        let mut parents: Vec<Option<usize>> = vec![None; count];
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); count];
        for (p, node) in root.nodes.iter().enumerate() {
            for (k, child) in node.children.iter().flatten().enumerate() {
                let c = child.value();
                let pointer = format!("/nodes/{p}/children/{k}");
                let Some(slot) = parents.get_mut(c) else {
                    return Err(GltfError::Invalid {
                        pointer,
                        rule: format!("there is no node {c} (the file has {count})"),
                    });
                };
                if let Some(other) = *slot {
                    return Err(GltfError::Invalid {
                        pointer,
                        rule: format!(
                            "node {c} is already a child of node {other}; a node has at most one parent"
                        ),
                    });
                }
                *slot = Some(p);
                if let Some(list) = children.get_mut(p) {
                    list.push(c);
                }
            }
        }
        // No cycles: from every node, the walk up ends within `count` steps.
        for start in 0..count {
            let mut at = start;
            let mut steps = 0usize;
            while let Some(p) = parents.get(at).copied().flatten() {
                steps += 1;
                if steps > count || p == start {
                    return Err(GltfError::Invalid {
                        pointer: format!("/nodes/{start}"),
                        rule: "the node is its own ancestor; the node hierarchy must be a tree"
                            .to_owned(),
                    });
                }
                at = p;
            }
        }
        let scene = root.scene.map(|s| s.value()).or(if root.scenes.is_empty() {
            None
        } else {
            Some(0)
        });
        let mut roots: Vec<usize> = Vec::new();
        let scene_nodes = scene.and_then(|s| root.scenes.get(s)).map(|s| &s.nodes);
        for n in scene_nodes.into_iter().flatten() {
            let n = n.value();
            if parents.get(n) == Some(&None) && !roots.contains(&n) {
                roots.push(n);
            }
        }
        let listed: BTreeSet<usize> = roots.iter().copied().collect();
        roots.extend((0..count).filter(|n| parents.get(*n) == Some(&None) && !listed.contains(n)));
        Ok(Hierarchy {
            parents,
            children,
            roots,
        })
    }

    /// Node `node`'s parent.
    pub fn parent(&self, node: usize) -> Option<usize> {
        self.parents.get(node).copied().flatten()
    }

    /// The nodes of `animated` and their ancestors, breadth first from the
    /// roots (so parents come first), and the roots of the subtrees left
    /// out (with how many nodes are below each) whose parent is kept or
    /// which are roots themselves.
    pub fn keep(&self, animated: &BTreeSet<usize>) -> (Vec<usize>, Vec<(usize, usize)>) {
        let mut wanted = vec![false; self.parents.len()];
        for &n in animated {
            let mut at = Some(n);
            while let Some(node) = at {
                match wanted.get_mut(node) {
                    Some(w) if !*w => *w = true,
                    _ => break,
                }
                at = self.parent(node);
            }
        }
        let is_wanted = |n: usize| wanted.get(n).copied().unwrap_or(false);
        let mut kept = Vec::new();
        let mut dropped = Vec::new();
        let mut queue: VecDeque<usize> = VecDeque::new();
        for &r in &self.roots {
            if is_wanted(r) {
                queue.push_back(r);
            } else {
                dropped.push((r, self.descendant_count(r)));
            }
        }
        while let Some(n) = queue.pop_front() {
            kept.push(n);
            for &c in self.children.get(n).into_iter().flatten() {
                if is_wanted(c) {
                    queue.push_back(c);
                } else {
                    dropped.push((c, self.descendant_count(c)));
                }
            }
        }
        (kept, dropped)
    }

    /// How many nodes are below `node`.
    fn descendant_count(&self, node: usize) -> usize {
        let mut count = 0usize;
        let mut stack: Vec<usize> = self.children.get(node).cloned().unwrap_or_default();
        while let Some(n) = stack.pop() {
            count += 1;
            stack.extend(self.children.get(n).into_iter().flatten().copied());
        }
        count
    }
}
