//! Layering several bone animations on one body, as seed 001 defines it
//! for a body's animator (priority and weight, fades, masks, additive
//! tracks). Pure: each playing track hands in what it poses this tick,
//! and [`blend_joint`] gives the pose one joint ends up with.
//!
//! # The rules, per joint and per channel
//! - A track takes part in a joint's channel when it has that channel for
//!   the joint ("channels a joint does not have are left alone") and its
//!   mask, if any, names the joint.
//! - Its **weight** is the track's weight × how far it has faded
//!   ([`fade_factor`]) × the joint's weight in the clip.
//! - **Normal** tracks are grouped by priority and laid from the lowest
//!   group to the highest. Inside a group the tracks share the joint by
//!   weight (a weighted mean: two tracks at 1 and 1 land halfway). A
//!   group's weights add up to at most 1, and the group covers what is
//!   under it by that much: the result is `lerp(under, group, min(1, Σw))`
//!   (rotations slerp). What is under the lowest group is the joint's base
//!   pose (the rest, or the client's own walk).
//! - **Additive** tracks come after every normal track whatever their
//!   priority: the joint is turned by the track's rotation and moved by its
//!   position, each scaled by the weight (`R · slerp(1, r, w)`, `p + w·t`).
//!   The spec says nothing of an additive scale; emoted multiplies by
//!   `lerp(1, s, w)`, so an additive scale of 1 changes nothing.
//! - A group whose weights add up to 0 covers nothing.

use glam::{Quat, Vec3};

/// Seed 001's priority levels by name, lowest first (`core` is 0,
/// `action` 3). A file may also give any number.
pub const PRIORITY_LEVELS: [(&str, f32); 7] = [
    ("core", 0.0),
    ("idle", 1.0),
    ("movement", 2.0),
    ("action", 3.0),
    ("action2", 4.0),
    ("action3", 5.0),
    ("action4", 6.0),
];

/// The number of a priority level's name.
pub fn priority_of(name: &str) -> Option<f32> {
    PRIORITY_LEVELS
        .iter()
        .find(|(level, _)| *level == name)
        .map(|(_, number)| *number)
}

/// How a track's pose meets the pose under it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Blend {
    /// Replaces it by the track's weight.
    #[default]
    Normal,
    /// Adds to it after every normal track.
    Additive,
}

/// What one track poses on one joint: the channels it has.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointChannels {
    /// The rotation, when the track has one for the joint.
    pub rotation: Option<Quat>,
    /// The offset from the joint's rest, in blocks.
    pub position: Option<Vec3>,
    /// The scale.
    pub scale: Option<Vec3>,
}

/// A joint's whole pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointPose {
    /// The rotation.
    pub rotation: Quat,
    /// The offset from the rest, in blocks.
    pub position: Vec3,
    /// The scale.
    pub scale: Vec3,
}

impl JointPose {
    /// The rest: no turn, no offset, scale 1.
    pub const REST: JointPose = JointPose {
        rotation: Quat::IDENTITY,
        position: Vec3::ZERO,
        scale: Vec3::ONE,
    };
}

/// One track's say on one joint this tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackOnJoint {
    /// The track's priority.
    pub priority: f32,
    /// Its weight on this joint: track weight × fade × joint weight.
    pub weight: f32,
    /// Normal or additive.
    pub blend: Blend,
    /// What it poses.
    pub channels: JointChannels,
}

/// How far a track has faded in (and out), 0 to 1: linear over
/// `fade_in_s` from its start, and linear down over `fade_out_s` from
/// `stopped_at_s` when it has been stopped. A fade of 0 is a cut.
pub fn fade_factor(now_s: f32, fade_in_s: f32, stopped_at_s: Option<f32>, fade_out_s: f32) -> f32 {
    let ramp = |elapsed: f32, length: f32| {
        if length <= 0.0 {
            if elapsed >= 0.0 {
                1.0
            } else {
                0.0
            }
        } else {
            (elapsed / length).clamp(0.0, 1.0)
        }
    };
    let fade_in = ramp(now_s, fade_in_s);
    let fade_out = stopped_at_s.map_or(1.0, |stop| 1.0 - ramp(now_s - stop, fade_out_s));
    (fade_in * fade_out).clamp(0.0, 1.0)
}

/// Whether a track's mask lets it move `joint` (no mask: every joint).
/// Names compare as written; a retargeted clip passes both names.
pub fn mask_admits(mask: Option<&[String]>, joint_names: &[&str]) -> bool {
    mask.is_none_or(|names| names.iter().any(|n| joint_names.contains(&n.as_str())))
}

/// The pose `base` ends up with under `tracks` (any order), by the rules
/// of the module docs.
pub fn blend_joint(base: JointPose, tracks: &[TrackOnJoint]) -> JointPose {
    let mut normal: Vec<&TrackOnJoint> = tracks
        .iter()
        .filter(|t| t.blend == Blend::Normal && t.weight > 0.0)
        .collect();
    normal.sort_by(|a, b| a.priority.total_cmp(&b.priority));
    let mut pose = base;
    let mut start = 0;
    while start < normal.len() {
        let priority = normal[start].priority;
        let end = start
            + normal[start..]
                .iter()
                .take_while(|t| t.priority == priority)
                .count();
        let group = &normal[start..end];
        pose.rotation = cover_rotation(pose.rotation, group, |c| c.rotation);
        pose.position = cover_vec(pose.position, group, |c| c.position);
        pose.scale = cover_vec(pose.scale, group, |c| c.scale);
        start = end;
    }
    for track in tracks
        .iter()
        .filter(|t| t.blend == Blend::Additive && t.weight > 0.0)
    {
        let w = track.weight;
        let c = track.channels;
        if let Some(r) = c.rotation {
            pose.rotation = (pose.rotation * Quat::IDENTITY.slerp(r, w)).normalize();
        }
        if let Some(p) = c.position {
            pose.position += p * w;
        }
        if let Some(s) = c.scale {
            pose.scale *= Vec3::ONE.lerp(s, w);
        }
    }
    pose
}

/// `under` covered by a group's weighted mean of `channel`, by the
/// group's weight (at most 1).
fn cover_vec(
    under: Vec3,
    group: &[&TrackOnJoint],
    channel: impl Fn(&JointChannels) -> Option<Vec3>,
) -> Vec3 {
    let (mut sum, mut total) = (Vec3::ZERO, 0.0);
    for track in group {
        if let Some(v) = channel(&track.channels) {
            sum += v * track.weight;
            total += track.weight;
        }
    }
    if total <= 0.0 {
        return under;
    }
    under.lerp(sum / total, total.min(1.0))
}

/// As [`cover_vec`] for rotations: the mean by successive slerps (each
/// track pulls the running mean by its share of the weight so far), then
/// a slerp from `under`.
fn cover_rotation(
    under: Quat,
    group: &[&TrackOnJoint],
    channel: impl Fn(&JointChannels) -> Option<Quat>,
) -> Quat {
    let (mut mean, mut total) = (None::<Quat>, 0.0);
    for track in group {
        if let Some(r) = channel(&track.channels) {
            total += track.weight;
            mean = Some(match mean {
                None => r,
                Some(m) => m.slerp(r, track.weight / total),
            });
        }
    }
    match mean {
        Some(m) if total > 0.0 => under.slerp(m, total.min(1.0)).normalize(),
        _ => under,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(priority: f32, weight: f32, degrees: f32) -> TrackOnJoint {
        TrackOnJoint {
            priority,
            weight,
            blend: Blend::Normal,
            channels: JointChannels {
                rotation: Some(Quat::from_rotation_x(degrees.to_radians())),
                ..JointChannels::default()
            },
        }
    }

    fn degrees_x(pose: &JointPose) -> f32 {
        let (axis, angle) = pose.rotation.to_axis_angle();
        (axis.x * angle).to_degrees()
    }

    #[test]
    fn two_tracks_at_one_priority_and_weight_one_land_halfway() {
        // 20° and 60° at weights 1 and 1: the mean is 40°, the group's
        // weight 1 + 1 = 2 is capped at 1, so 40° covers the rest fully.
        let pose = blend_joint(
            JointPose::REST,
            &[turn(1.0, 1.0, 20.0), turn(1.0, 1.0, 60.0)],
        );
        assert!((degrees_x(&pose) - 40.0).abs() < 1e-3, "{pose:?}");
    }

    #[test]
    fn a_higher_priority_hides_the_lower_at_full_weight_and_halves_it_at_half() {
        let idle = turn(1.0, 1.0, 30.0);
        let full = blend_joint(JointPose::REST, &[idle, turn(3.0, 1.0, 90.0)]);
        assert!((degrees_x(&full) - 90.0).abs() < 1e-3);
        // At 0.5: halfway between the idle's 30° and the action's 90°.
        let half = blend_joint(JointPose::REST, &[turn(3.0, 0.5, 90.0), idle]);
        assert!((degrees_x(&half) - 60.0).abs() < 1e-3, "{half:?}");
    }

    #[test]
    fn a_light_group_leaves_part_of_the_base() {
        // One track at 0.25 moving 80°: a quarter of the way from rest.
        let pose = blend_joint(JointPose::REST, &[turn(0.0, 0.25, 80.0)]);
        assert!((degrees_x(&pose) - 20.0).abs() < 1e-3);
        // Two at 0.25 (40° and 80°): mean 60°, weight 0.5, so 30°.
        let pose = blend_joint(
            JointPose::REST,
            &[turn(0.0, 0.25, 40.0), turn(0.0, 0.25, 80.0)],
        );
        assert!((degrees_x(&pose) - 30.0).abs() < 1e-3, "{pose:?}");
    }

    #[test]
    fn an_additive_track_adds_after_every_normal_track_whatever_its_priority() {
        let nod = TrackOnJoint {
            priority: -5.0,
            weight: 0.5,
            blend: Blend::Additive,
            channels: JointChannels {
                rotation: Some(Quat::from_rotation_x(20_f32.to_radians())),
                position: Some(Vec3::new(0.0, 0.2, 0.0)),
                scale: Some(Vec3::splat(3.0)),
            },
        };
        let mut walk = turn(2.0, 1.0, 30.0);
        walk.channels.position = Some(Vec3::new(1.0, 0.0, 0.0));
        let pose = blend_joint(JointPose::REST, &[nod, walk]);
        // 30° from the walk, then half the nod's 20°: 40°.
        assert!((degrees_x(&pose) - 40.0).abs() < 1e-3, "{pose:?}");
        // (1, 0, 0) moved by half of (0, 0.2, 0).
        assert!((pose.position - Vec3::new(1.0, 0.1, 0.0)).length() < 1e-5);
        // Scale 1 times lerp(1, 3, 0.5) = 2.
        assert!((pose.scale - Vec3::splat(2.0)).length() < 1e-5);
    }

    #[test]
    fn channels_a_track_lacks_are_left_alone() {
        let base = JointPose {
            position: Vec3::new(0.0, 0.5, 0.0),
            ..JointPose::REST
        };
        let pose = blend_joint(base, &[turn(3.0, 1.0, 45.0)]);
        assert_eq!(pose.position, base.position);
        assert!((degrees_x(&pose) - 45.0).abs() < 1e-3);
    }

    #[test]
    fn fades_ramp_in_from_the_start_and_out_from_the_stop() {
        // Fading in over 0.3 s: at 0.15 s half way.
        assert!((fade_factor(0.15, 0.3, None, 0.3) - 0.5).abs() < 1e-6);
        assert_eq!(fade_factor(1.0, 0.3, None, 0.3), 1.0);
        // Stopped at 2 s, fading out over 0.2 s: at 2.05 s three quarters left.
        assert!((fade_factor(2.05, 0.3, Some(2.0), 0.2) - 0.75).abs() < 1e-6);
        assert_eq!(fade_factor(2.5, 0.3, Some(2.0), 0.2), 0.0);
        // No fade: a cut.
        assert_eq!(fade_factor(0.0, 0.0, None, 0.0), 1.0);
        assert_eq!(fade_factor(3.0, 0.0, Some(3.0), 0.0), 0.0);
    }

    #[test]
    fn masks_and_priority_names() {
        let mask = vec!["rightArm".to_owned()];
        assert!(mask_admits(Some(&mask), &["rightArm"]));
        assert!(!mask_admits(Some(&mask), &["leftLeg"]));
        assert!(mask_admits(Some(&mask), &["RightArm_clip", "rightArm"]));
        assert!(mask_admits(None, &["leftLeg"]));
        assert_eq!(priority_of("action"), Some(3.0));
        assert_eq!(priority_of("core"), Some(0.0));
        assert_eq!(priority_of("sprint"), None);
    }
}
