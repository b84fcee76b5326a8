//! A glTF node tree as a skeleton (names, parents, rest poses) and the
//! bones of a humanoid one that drive the player's joints: what the
//! humanoid path ([`super::humanoid`]) matches and [`super::retarget`]
//! reads, in a module of its own so neither imports the other back.

use glam::{Affine3A, Quat, Vec3};

use super::bone_names::{read_bone_name, Role, Side};
use super::hierarchy::Hierarchy;
use crate::anim::bones::BodyJoint;
use crate::import::scene::Trs;

/// The node tree with every node's name and rest pose.
#[derive(Clone, Debug)]
pub struct Skeleton {
    pub(super) names: Vec<Option<String>>,
    pub(super) parents: Vec<Option<usize>>,
    pub(super) rest: Vec<Trs>,
    /// Every node, parents first.
    order: Vec<usize>,
    pub(super) rest_worlds: Vec<Affine3A>,
}

impl Skeleton {
    /// The skeleton of a document: names, the checked `hierarchy`, and
    /// each node's `rest` pose (a node whose rest cannot be used rests at
    /// identity; a clip that moves it is refused before this is read).
    pub(super) fn new(
        root: &::gltf::json::Root,
        hierarchy: &Hierarchy,
        rest: &[Result<Trs, String>],
    ) -> Skeleton {
        let count = root.nodes.len();
        let names = root.nodes.iter().map(|n| n.name.clone()).collect();
        let parents = (0..count).map(|n| hierarchy.parent(n)).collect();
        let rest: Vec<Trs> = (0..count)
            .map(|n| match rest.get(n) {
                Some(Ok(trs)) => *trs,
                _ => Trs::IDENTITY,
            })
            .collect();
        let (order, _) = hierarchy.keep(&(0..count).collect());
        let mut skeleton = Skeleton {
            names,
            parents,
            rest,
            order,
            rest_worlds: Vec::new(),
        };
        let mut worlds = Vec::new();
        skeleton.worlds(|n| skeleton.rest.get(n).copied(), None, &mut worlds);
        skeleton.rest_worlds = worlds;
        skeleton
    }

    /// Every node's world transform (of the nodes `only` marks, when
    /// given; the others are left at identity), from its local one
    /// (`local`, or its rest when that gives `None`).
    pub(super) fn worlds(
        &self,
        local: impl Fn(usize) -> Option<Trs>,
        only: Option<&[bool]>,
        out: &mut Vec<Affine3A>,
    ) {
        out.clear();
        out.resize(self.parents.len(), Affine3A::IDENTITY);
        let wanted = |n: usize| only.is_none_or(|o| o.get(n).copied().unwrap_or(false));
        for &n in self.order.iter().filter(|&&n| wanted(n)) {
            let own = local(n)
                .or_else(|| self.rest.get(n).copied())
                .unwrap_or(Trs::IDENTITY)
                .affine();
            let parent = self.parent(n).and_then(|p| out.get(p).copied());
            if let Some(slot) = out.get_mut(n) {
                *slot = parent.unwrap_or(Affine3A::IDENTITY) * own;
            }
        }
    }

    pub(super) fn parent(&self, node: usize) -> Option<usize> {
        self.parents.get(node).copied().flatten()
    }

    /// Node `node`'s name for a message (`node_N` when it has none).
    pub(super) fn name(&self, node: usize) -> String {
        match self.names.get(node).cloned().flatten() {
            Some(name) => name,
            None => format!("node_{node}"),
        }
    }

    /// How many ancestors `node` has.
    pub(super) fn depth(&self, node: usize) -> usize {
        let mut depth = 0;
        let mut at = self.parent(node);
        while let Some(p) = at {
            depth += 1;
            if depth > self.parents.len() {
                break;
            }
            at = self.parent(p);
        }
        depth
    }

    /// Whether `node` is strictly below `ancestor`.
    pub(super) fn is_below(&self, node: usize, ancestor: usize) -> bool {
        let mut at = self.parent(node);
        let mut steps = 0;
        while let Some(p) = at {
            if p == ancestor {
                return true;
            }
            steps += 1;
            if steps > self.parents.len() {
                return false;
            }
            at = self.parent(p);
        }
        false
    }

    /// The first child of `node`, if any.
    pub(super) fn first_child(&self, node: usize) -> Option<usize> {
        self.order
            .iter()
            .copied()
            .find(|&c| self.parent(c) == Some(node))
    }

    pub(super) fn rest_position(&self, node: usize) -> Vec3 {
        self.rest_worlds
            .get(node)
            .map_or(Vec3::ZERO, |w| Vec3::from(w.translation))
    }

    pub(super) fn rest_rotation(&self, node: usize) -> Quat {
        self.rest_worlds
            .get(node)
            .map_or(Quat::IDENTITY, rotation_of)
    }
}

/// An arm's or a leg's bones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Limb {
    /// The upper arm or thigh (drives the joint).
    pub(super) upper: usize,
    /// The forearm or shin (its bend), when the skeleton has one below.
    pub(super) lower: Option<usize>,
    /// The hand or foot (aims the lower bone at rest).
    pub(super) tip: Option<usize>,
}

/// The bones of a humanoid skeleton that drive the player's joints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matching {
    pub(super) hips: usize,
    /// The spine bones between the hips and the head, hips side first.
    pub(super) spine: Vec<usize>,
    pub(super) neck: Option<usize>,
    pub(super) head: usize,
    /// Right, then left.
    pub(super) arms: [Limb; 2],
    /// Right, then left.
    pub(super) legs: [Limb; 2],
}

impl Matching {
    /// Matches `skeleton`'s names to the joints (module docs), or gives
    /// the roles no bone has.
    pub fn find(skeleton: &Skeleton) -> Result<Matching, Vec<&'static str>> {
        let mut bones: Vec<(Role, Option<u32>, usize)> = (0..skeleton.names.len())
            .filter_map(|n| {
                let name = skeleton.names.get(n).cloned().flatten()?;
                read_bone_name(&name).map(|b| (b.role, b.number, n))
            })
            .collect();
        let pick = |bones: &[(Role, Option<u32>, usize)], role: Role, below: Option<usize>| {
            bones
                .iter()
                .filter(|(r, _, n)| *r == role && below.is_none_or(|a| skeleton.is_below(*n, a)))
                .min_by_key(|(_, number, n)| (skeleton.depth(*n), number.unwrap_or(0), *n))
                .map(|(_, _, n)| *n)
        };
        if pick(&bones, Role::Hips, None).is_none() {
            // Blender's metarig: `spine` is the pelvis, `spine.004`/`.005`
            // the neck, `spine.006` the head.
            if let Some(pelvis) = bones
                .iter()
                .filter(|(r, number, _)| *r == Role::Spine && number.is_none())
                .min_by_key(|(_, _, n)| (skeleton.depth(*n), *n))
                .map(|(_, _, n)| *n)
            {
                for (role, number, n) in &mut bones {
                    match (*role, *number) {
                        (Role::Spine, None) if *n == pelvis => *role = Role::Hips,
                        (Role::Spine, Some(4 | 5)) => *role = Role::Neck,
                        (Role::Spine, Some(6)) => *role = Role::Head,
                        _ => {}
                    }
                }
            }
        }
        let hips = pick(&bones, Role::Hips, None);
        let head = pick(&bones, Role::Head, hips).or_else(|| pick(&bones, Role::Head, None));
        let limb = |upper: Role, lower: Role, tip: Role| {
            let upper = pick(&bones, upper, None)?;
            let lower = pick(&bones, lower, Some(upper));
            let tip = pick(&bones, tip, Some(lower.unwrap_or(upper)))
                .or_else(|| lower.and_then(|l| skeleton.first_child(l)));
            Some(Limb { upper, lower, tip })
        };
        let arm = |side| limb(Role::UpperArm(side), Role::LowerArm(side), Role::Hand(side));
        let leg = |side| limb(Role::UpperLeg(side), Role::LowerLeg(side), Role::Foot(side));
        let found = (
            hips,
            head,
            arm(Side::Right),
            arm(Side::Left),
            leg(Side::Right),
            leg(Side::Left),
        );
        let (Some(hips), Some(head), Some(ra), Some(la), Some(rl), Some(ll)) = found else {
            let names = ["hips", "head", "right upper arm", "left upper arm"];
            let names = names
                .into_iter()
                .chain(["right upper leg", "left upper leg"]);
            let have = [
                found.0.is_some(),
                found.1.is_some(),
                found.2.is_some(),
                found.3.is_some(),
                found.4.is_some(),
                found.5.is_some(),
            ];
            return Err(names
                .zip(have)
                .filter(|(_, have)| !have)
                .map(|(name, _)| name)
                .collect());
        };
        let between = |n: usize| skeleton.is_below(n, hips) && skeleton.is_below(head, n);
        let mut spine: Vec<usize> = bones
            .iter()
            .filter(|(r, _, n)| *r == Role::Spine && between(*n))
            .map(|(_, _, n)| *n)
            .collect();
        spine.sort_by_key(|&n| (skeleton.depth(n), n));
        let neck = bones
            .iter()
            .filter(|(r, _, n)| *r == Role::Neck && between(*n))
            .map(|(_, _, n)| *n)
            .min_by_key(|&n| (skeleton.depth(n), n));
        Ok(Matching {
            hips,
            spine,
            neck,
            head,
            arms: [ra, la],
            legs: [rl, ll],
        })
    }

    /// The bones matched, in the note's words.
    pub(super) fn describe(&self, skeleton: &Skeleton) -> String {
        let quoted = |n: usize| format!("`{}`", skeleton.name(n));
        let mut parts = vec![format!("hips {}", quoted(self.hips))];
        match (self.spine.first(), self.spine.last()) {
            (Some(&lower), Some(&upper)) if lower != upper => parts.push(format!(
                "torso {} (lower half) and {} (upper half's bend)",
                quoted(lower),
                quoted(upper)
            )),
            (Some(&lower), _) => parts.push(format!("torso {}", quoted(lower))),
            _ => parts.push(format!("torso {} (no spine bone)", quoted(self.hips))),
        }
        parts.push(format!("head {}", quoted(self.head)));
        let joints = [BodyJoint::RightArm, BodyJoint::LeftArm];
        let joints = joints
            .into_iter()
            .chain([BodyJoint::RightLeg, BodyJoint::LeftLeg]);
        for (joint, limb) in joints.zip(self.arms.iter().chain(&self.legs)) {
            parts.push(match limb.lower {
                Some(lower) => format!(
                    "{} {} and {} (bend)",
                    joint.name(),
                    quoted(limb.upper),
                    quoted(lower)
                ),
                None => format!("{} {} (no bend)", joint.name(), quoted(limb.upper)),
            });
        }
        parts.join(", ")
    }

    /// Every bone the joints use.
    pub(super) fn used(&self) -> Vec<usize> {
        let mut used = vec![self.hips, self.head];
        used.extend(&self.spine);
        used.extend(self.neck);
        for limb in self.arms.iter().chain(&self.legs) {
            used.push(limb.upper);
            used.extend(limb.lower);
            used.extend(limb.tip);
        }
        used
    }
}

/// The rotation of an affine transform, its scale dropped.
pub(super) fn rotation_of(transform: &Affine3A) -> Quat {
    let (_, rotation, _) = transform.to_scale_rotation_translation();
    if rotation.is_finite() && rotation.length_squared() > 1e-12 {
        rotation.normalize()
    } else {
        Quat::IDENTITY
    }
}
