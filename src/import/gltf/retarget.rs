//! One tick of a humanoid skeleton's world transforms as the player's
//! body pose, and the notes of what that drops; the model is in
//! [`super::humanoid`]'s guide.

use std::collections::BTreeMap;

use glam::{Affine3A, Quat, Vec3};

use super::skeleton::{rotation_of, Matching, Skeleton};
use crate::anim::bones::WAIST_HEIGHT_BLOCKS;
use crate::anim::bones::{bend_between, upper_parts_turn, Bend, BodyJoint, JointFrame};
use crate::import::humanoid::BodyPose;
use crate::import::scene::Trs;
use crate::import::Note;

/// The player's pelvis at rest: the legs' pivots' height, blocks.
const PELVIS: Vec3 = Vec3::new(0.0, 0.75, 0.0);
/// A limb resting further than this from hanging gets a note, degrees.
const REST_NOTE_DEGREES: f32 = 5.0;
/// A twist a bend drops gets a note above this, degrees.
const TWIST_NOTE_DEGREES: f32 = 1.0;
/// A bone's own move dropped gets a note above this, metres.
const SLIDE_NOTE_METRES: f32 = 0.005;

/// The largest losses over a clip's ticks.
#[derive(Clone, Debug, Default)]
pub(super) struct Losses {
    /// Per bending bone, the largest twist its bend dropped, degrees.
    twists: BTreeMap<usize, f32>,
    /// Per used bone but the hips, the largest own move dropped, metres.
    slides: BTreeMap<usize, f32>,
}

impl Losses {
    fn keep(map: &mut BTreeMap<usize, f32>, node: usize, value: f32) {
        let slot = map.entry(node).or_insert(0.0);
        *slot = slot.max(value);
    }
}

/// What every tick's retargeting needs of the rest pose.
pub(super) struct Retarget<'a> {
    skeleton: &'a Skeleton,
    matching: &'a Matching,
    /// Each limb's swing from hanging onto its rest direction, upper and
    /// lower bone: right arm, left arm, right leg, left leg.
    swings: [(Quat, Quat); 4],
    /// The player's hip height over the skeleton's.
    scale: f32,
    /// The bones the joints use.
    used: Vec<usize>,
}

impl<'a> Retarget<'a> {
    /// The rest-pose quantities, with a note for a limb that does not rest
    /// hanging and for hips that cannot be scaled.
    pub(super) fn new(
        skeleton: &'a Skeleton,
        matching: &'a Matching,
        notes: &mut Vec<Note>,
    ) -> Self {
        let at = |n: usize| skeleton.rest_position(n);
        let swing_to = |from: usize, to: Option<usize>| {
            let direction = (at(to?) - at(from)).try_normalize()?;
            Some(Quat::from_rotation_arc(Vec3::NEG_Y, direction))
        };
        let mut swings = [(Quat::IDENTITY, Quat::IDENTITY); 4];
        let limbs = matching.arms.iter().chain(&matching.legs);
        for (slot, limb) in swings.iter_mut().zip(limbs) {
            let upper = swing_to(limb.upper, limb.lower.or(limb.tip)).unwrap_or(Quat::IDENTITY);
            let lower = limb
                .lower
                .and_then(|l| swing_to(l, limb.tip))
                .unwrap_or(upper);
            *slot = (upper, lower);
            let degrees = upper.angle_between(Quat::IDENTITY).to_degrees();
            if degrees > REST_NOTE_DEGREES {
                notes.push(Note::new(
                    format!("/nodes/{}", limb.upper),
                    format!(
                        "at rest `{}` points {degrees:.0}° from straight down (a T- or A-pose); the player's limb takes that rest, so the clip's poses land as drawn",
                        skeleton.name(limb.upper)
                    ),
                ));
            }
        }
        let [right, left] = matching.legs.map(|l| at(l.upper).y);
        let height = (right + left) / 2.0;
        let scale = if height.is_finite() && height > 0.05 {
            PELVIS.y / height
        } else {
            notes.push(Note::new(
                format!("/nodes/{}", matching.legs[0].upper),
                "the upper legs rest at or below y = 0, so the hips' moves are not scaled",
            ));
            1.0
        };
        Retarget {
            skeleton,
            matching,
            swings,
            scale,
            used: matching.used(),
        }
    }

    /// Node `n`'s turn from rest in `worlds`.
    fn turn(&self, worlds: &[Affine3A], n: usize) -> Quat {
        let now = worlds.get(n).map_or(Quat::IDENTITY, rotation_of);
        (now * self.skeleton.rest_rotation(n).inverse()).normalize()
    }

    /// The player's pose for one tick's `worlds`; keeps the twists the
    /// bends drop in `losses`.
    pub(super) fn pose(&self, worlds: &[Affine3A], losses: &mut Losses) -> BodyPose {
        let m = self.matching;
        let turn = |n: usize| self.turn(worlds, n);
        let mut pose = BodyPose::default();

        // The torso: the lower half about the pelvis, the upper half's bend.
        let lower = turn(m.spine.first().copied().unwrap_or(m.hips));
        let upper_bone = m.spine.last().copied().filter(|_| m.spine.len() > 1);
        let torso_bend = match upper_bone {
            Some(u) => {
                let upper = turn(u);
                Losses::keep(&mut losses.twists, u, twist_degrees(lower, upper));
                bend_between(lower, upper)
            }
            None => Bend::NONE,
        };
        let about_pelvis = |r: Quat, p: Vec3| PELVIS + r * (p - PELVIS);
        let waist = Vec3::new(0.0, WAIST_HEIGHT_BLOCKS, 0.0);
        let waist_now = about_pelvis(lower, waist);
        let bend_turn = torso_bend.turn();
        let on_upper_half = |p: Vec3| waist_now + lower * bend_turn * (p - waist);
        let undo_upper = upper_parts_turn(torso_bend).inverse();
        pose.joints.insert(
            BodyJoint::Torso,
            JointFrame {
                rotation: lower,
                pivot: about_pelvis(lower, BodyJoint::Torso.rest_pivot()),
                bend: Some(torso_bend),
            },
        );
        pose.joints.insert(
            BodyJoint::Head,
            JointFrame {
                rotation: (bend_turn.inverse() * turn(m.head)).normalize(),
                pivot: undo_upper.transform_point3(on_upper_half(BodyJoint::Head.rest_pivot())),
                bend: None,
            },
        );

        // The limbs: turn, bend, and where the pivot rides.
        let hips = turn(m.hips);
        let joints = [BodyJoint::RightArm, BodyJoint::LeftArm];
        let joints = joints
            .into_iter()
            .chain([BodyJoint::RightLeg, BodyJoint::LeftLeg]);
        let limbs = m.arms.iter().chain(&m.legs);
        for ((joint, limb), (swing_upper, swing_lower)) in joints.zip(limbs).zip(self.swings) {
            let driver = (turn(limb.upper) * swing_upper).normalize();
            let bend = limb.lower.map(|l| {
                let bending = (turn(l) * swing_lower).normalize();
                Losses::keep(&mut losses.twists, l, twist_degrees(driver, bending));
                bend_between(driver, bending)
            });
            let rest_pivot = joint.rest_pivot();
            let frame = match joint {
                BodyJoint::RightArm | BodyJoint::LeftArm => JointFrame {
                    rotation: (bend_turn.inverse() * driver).normalize(),
                    pivot: undo_upper.transform_point3(on_upper_half(rest_pivot)),
                    bend,
                },
                _ => JointFrame {
                    rotation: driver,
                    pivot: about_pelvis(hips, rest_pivot),
                    bend,
                },
            };
            pose.joints.insert(joint, frame);
        }

        // The hips' move, scaled to the player.
        let now = worlds
            .get(m.hips)
            .map_or(Vec3::ZERO, |w| Vec3::from(w.translation));
        let moved = (now - self.skeleton.rest_position(m.hips)) * self.scale;
        if moved.is_finite() && moved != Vec3::ZERO {
            pose.body = Some(Affine3A::from_translation(moved));
        }
        pose
    }

    /// Keeps in `losses` how far each used bone but the hips is moved off
    /// its rest offset from its parent at this tick (in the world, metres).
    pub(super) fn slides(
        &self,
        worlds: &[Affine3A],
        local: impl Fn(usize) -> Option<Trs>,
        losses: &mut Losses,
    ) {
        for &n in self.used.iter().filter(|&&n| n != self.matching.hips) {
            let (Some(now), Some(rest)) = (local(n), self.skeleton.rest.get(n)) else {
                continue;
            };
            let parent = self
                .skeleton
                .parent(n)
                .and_then(|p| worlds.get(p).copied())
                .unwrap_or(Affine3A::IDENTITY);
            let metres = parent
                .transform_vector3(now.translation - rest.translation)
                .length();
            if metres.is_finite() {
                Losses::keep(&mut losses.slides, n, metres);
            }
        }
    }

    /// The notes of what the clip's ticks lost: the bones it `moved` that
    /// are not joints, other bones' own moves, twists.
    pub(super) fn notes(&self, moved: &[usize], losses: &Losses, notes: &mut Vec<Note>) {
        let skeleton = self.skeleton;
        let above_hips = |n: usize| skeleton.is_below(self.matching.hips, n);
        let dropped: Vec<String> = moved
            .iter()
            .filter(|&&n| !self.used.contains(&n) && !above_hips(n))
            .map(|&n| skeleton.name(n))
            .collect();
        if !dropped.is_empty() {
            notes.push(Note::new(
                "/nodes",
                format!(
                    "{} bone(s) are not body joints and their own motion is dropped (their parents' turns still reach the joints below them): {}",
                    dropped.len(),
                    dropped.join(", ")
                ),
            ));
        }
        let slid: Vec<String> = losses
            .slides
            .iter()
            .filter(|(_, &metres)| metres > SLIDE_NOTE_METRES)
            .map(|(&n, metres)| format!("{} (up to {metres:.3} m)", skeleton.name(n)))
            .collect();
        if !slid.is_empty() {
            notes.push(Note::new(
                "/nodes",
                format!(
                    "only the hips keep their translation; the moves of {} are dropped",
                    slid.join(", ")
                ),
            ));
        }
        for (&n, &degrees) in &losses.twists {
            if degrees > TWIST_NOTE_DEGREES {
                notes.push(Note::new(
                    format!("/nodes/{n}"),
                    format!(
                        "`{}` twists up to {degrees:.1}° about its own length against the bone above; a bend cannot twist, so the twist is dropped",
                        skeleton.name(n)
                    ),
                ));
            }
        }
    }
}

/// How far `bending` twists about its own Y against `driver`, degrees.
fn twist_degrees(driver: Quat, bending: Quat) -> f32 {
    let relative = (driver.inverse() * bending).normalize();
    let angle = 2.0 * relative.y.abs().atan2(relative.w.abs());
    if angle.is_finite() {
        angle.to_degrees()
    } else {
        0.0
    }
}
