//! The geometry of two-player Sequences, as pure rules: whether a partner
//! may match an offer (distance, level, facing, line of sight), and where
//! `participants` places both players. The server observes the players
//! ([`Stance`]) and applies the placement ([`Placed`]).

use glam::{DVec3, Mat4, Quat};

use crate::format::sequence::{Angle, Placement, PositionFrame};

/// Farthest apart two players may stand horizontally to match, in blocks.
pub const MATCH_HORIZONTAL_BLOCKS: f64 = 2.0;
/// Largest height difference of two players who match, in blocks.
pub const MATCH_VERTICAL_BLOCKS: f64 = 1.0;
/// How far from straight at the other each player may face, in degrees.
pub const MATCH_FACING_DEGREES: f32 = 45.0;
/// Eye height of a standing player, in blocks.
pub const EYE_HEIGHT: f64 = 1.62;
/// Players this close to an open offer hear of it, in blocks.
pub const OFFER_ANNOUNCE_BLOCKS: f64 = 16.0;

/// What matching needs to know of one player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stance {
    /// Feet position.
    pub position: DVec3,
    /// Minecraft yaw in degrees (0 faces +Z, 90 faces −X).
    pub yaw_degrees: f32,
    /// Health above zero.
    pub alive: bool,
    /// The world (chunk layer) the player is in, as an opaque id.
    pub world: u64,
}

/// Why two players cannot match, as the joining player reads it.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum MatchRefusal {
    /// One of them is dead.
    #[error("both players must be alive")]
    NotAlive,
    /// Different worlds.
    #[error("you are not in the same world")]
    OtherWorld,
    /// Too far apart.
    #[error("stand within {MATCH_HORIZONTAL_BLOCKS} blocks (you are {0:.1} away)")]
    TooFar(f64),
    /// Too far above or below.
    #[error("stand on the same level (within {MATCH_VERTICAL_BLOCKS} block)")]
    OtherLevel,
    /// Not facing each other.
    #[error("face each other")]
    NotFacing,
    /// Something opaque in between.
    #[error("nothing may stand between you")]
    NoLineOfSight,
}

/// The Minecraft yaw that looks from `from` towards `to`.
pub fn yaw_towards(from: DVec3, to: DVec3) -> f32 {
    let d = to - from;
    (-d.x).atan2(d.z).to_degrees() as f32
}

/// True when a player at `from` with `yaw_degrees` faces `to` within the limit.
pub fn faces(from: DVec3, yaw_degrees: f32, to: DVec3) -> bool {
    let towards = yaw_towards(from, to);
    crate::playback::deadzone::yaw_difference(yaw_degrees, towards).abs() <= MATCH_FACING_DEGREES
}

/// Checks the matching conditions between an initiator and a joining
/// player; `line_of_sight` is the world's answer for their eyes.
pub fn check_match(
    initiator: &Stance,
    partner: &Stance,
    line_of_sight: impl FnOnce() -> bool,
) -> Result<(), MatchRefusal> {
    if !(initiator.alive && partner.alive) {
        return Err(MatchRefusal::NotAlive);
    }
    if initiator.world != partner.world {
        return Err(MatchRefusal::OtherWorld);
    }
    let d = partner.position - initiator.position;
    let horizontal = (d.x * d.x + d.z * d.z).sqrt();
    if horizontal > MATCH_HORIZONTAL_BLOCKS {
        return Err(MatchRefusal::TooFar(horizontal));
    }
    if d.y.abs() > MATCH_VERTICAL_BLOCKS {
        return Err(MatchRefusal::OtherLevel);
    }
    if !faces(initiator.position, initiator.yaw_degrees, partner.position)
        || !faces(partner.position, partner.yaw_degrees, initiator.position)
    {
        return Err(MatchRefusal::NotFacing);
    }
    if !line_of_sight() {
        return Err(MatchRefusal::NoLineOfSight);
    }
    Ok(())
}

/// Points every 0.1 block from `from` to `to` (both ends included), for a
/// line-of-sight test against the blocks they fall in.
pub fn sight_samples(from: DVec3, to: DVec3) -> impl Iterator<Item = DVec3> {
    let steps = ((to - from).length() / 0.1).ceil().max(1.0) as usize;
    (0..=steps).map(move |i| from.lerp(to, i as f64 / steps as f64))
}

/// Where a participant stands and faces, in the world, at the match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    /// Feet position.
    pub position: DVec3,
    /// Yaw in degrees.
    pub yaw_degrees: f32,
    /// Pitch in degrees.
    pub pitch_degrees: f32,
}

/// An angle of a placement in degrees: relative (`~N`) to `base`, or absolute.
pub fn angle(angle: Angle, base: f32) -> f32 {
    match angle {
        Angle::Absolute(v) => v,
        Angle::Relative(v) => base + v,
    }
}

/// Places a participant from the scene `origin` and the initiator's yaw and
/// pitch at the match.
pub fn place(
    placement: &Placement,
    origin: DVec3,
    initiator_yaw_degrees: f32,
    initiator_pitch_degrees: f32,
) -> Placed {
    let o = placement.offset.as_dvec3();
    let offset = match placement.frame {
        PositionFrame::Relative => o,
        PositionFrame::Local => {
            // ^left ^up ^forward of the horizontal facing: at yaw 0 (facing
            // +Z) left is +X.
            let yaw = f64::from(initiator_yaw_degrees).to_radians();
            let forward = DVec3::new(-yaw.sin(), 0.0, yaw.cos());
            let left = DVec3::new(yaw.cos(), 0.0, yaw.sin());
            left * o.x + DVec3::Y * o.y + forward * o.z
        }
    };
    Placed {
        position: origin + offset,
        yaw_degrees: angle(placement.yaw, initiator_yaw_degrees),
        pitch_degrees: angle(placement.pitch, initiator_pitch_degrees).clamp(-90.0, 90.0),
    }
}

/// How far from its placement a participant may stand and stay there, when
/// the matched Animations reach for each other with IK, horizontally in
/// blocks: the hands still meet (the IK closes the gap), and nobody is
/// yanked a few tenths of a block. Farther, or 0.1 block above or below,
/// the participant is moved onto the placement as before.
pub const KEEP_OFFSET_BLOCKS: f64 = 0.35;

/// Where a participant's body goes at the match: `placed`, or where they
/// stand (`standing`, their feet; the placement's yaw and pitch kept) when
/// `ik_closes_gaps` and they stand within [`KEEP_OFFSET_BLOCKS`] of it.
/// The flag says whether they must be moved.
pub fn settle(placed: Placed, standing: DVec3, ik_closes_gaps: bool) -> (Placed, bool) {
    let d = standing - placed.position;
    let near = (d.x * d.x + d.z * d.z).sqrt() <= KEEP_OFFSET_BLOCKS && d.y.abs() <= 0.1;
    if ik_closes_gaps && near {
        (
            Placed {
                position: standing,
                ..placed
            },
            false,
        )
    } else {
        (placed, true)
    }
}

/// A participant's root in the emote frame of a playback whose root is at
/// `root` turned to `root_yaw_degrees` (world = root + R_y(−yaw) · local).
pub fn root_in_emote_frame(placed: &Placed, root: DVec3, root_yaw_degrees: f32) -> Mat4 {
    let turn_back = Quat::from_rotation_y(root_yaw_degrees.to_radians());
    let local = turn_back * (placed.position - root).as_vec3();
    let relative_yaw = placed.yaw_degrees - root_yaw_degrees;
    Mat4::from_translation(local)
        * Mat4::from_quat(Quat::from_rotation_y(-relative_yaw.to_radians()))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    fn stance(x: f64, z: f64, yaw: f32) -> Stance {
        Stance {
            position: DVec3::new(x, 65.0, z),
            yaw_degrees: yaw,
            alive: true,
            world: 1,
        }
    }

    #[test]
    fn yaw_towards_follows_minecraft_axes() {
        let o = DVec3::ZERO;
        assert!((yaw_towards(o, DVec3::Z) - 0.0).abs() < 1e-4);
        assert!((yaw_towards(o, -DVec3::X) - 90.0).abs() < 1e-4);
        assert!((yaw_towards(o, -DVec3::Z).abs() - 180.0).abs() < 1e-4);
        assert!((yaw_towards(o, DVec3::X) + 90.0).abs() < 1e-4);
    }

    #[test]
    fn facing_each_other_within_reach_matches() {
        // A faces +Z (yaw 0); B stands 1.5 blocks in front, facing back (180).
        let a = stance(0.5, 0.5, 0.0);
        let b = stance(0.5, 2.0, 180.0);
        assert_eq!(check_match(&a, &b, || true), Ok(()));
        // 40° off is still facing; 50° is not.
        assert_eq!(check_match(&a, &stance(0.5, 2.0, 220.0), || true), Ok(()));
        assert_eq!(
            check_match(&a, &stance(0.5, 2.0, 230.0), || true),
            Err(MatchRefusal::NotFacing)
        );
        assert_eq!(
            check_match(&stance(0.5, 0.5, 90.0), &b, || true),
            Err(MatchRefusal::NotFacing)
        );
    }

    #[test]
    fn every_condition_refuses_with_its_reason() {
        let a = stance(0.5, 0.5, 0.0);
        assert!(matches!(
            check_match(&a, &stance(0.5, 3.0, 180.0), || true),
            Err(MatchRefusal::TooFar(d)) if (d - 2.5).abs() < 1e-9
        ));
        let mut high = stance(0.5, 2.0, 180.0);
        high.position.y += 1.5;
        assert_eq!(
            check_match(&a, &high, || true),
            Err(MatchRefusal::OtherLevel)
        );
        let mut dead = stance(0.5, 2.0, 180.0);
        dead.alive = false;
        assert_eq!(check_match(&a, &dead, || true), Err(MatchRefusal::NotAlive));
        let mut elsewhere = stance(0.5, 2.0, 180.0);
        elsewhere.world = 2;
        assert_eq!(
            check_match(&a, &elsewhere, || true),
            Err(MatchRefusal::OtherWorld)
        );
        assert_eq!(
            check_match(&a, &stance(0.5, 2.0, 180.0), || false),
            Err(MatchRefusal::NoLineOfSight)
        );
    }

    #[test]
    fn sight_samples_cover_the_segment() {
        let points: Vec<DVec3> = sight_samples(DVec3::ZERO, DVec3::new(0.0, 0.0, 1.0)).collect();
        assert_eq!(points.len(), 11);
        assert_eq!(points[0], DVec3::ZERO);
        assert_eq!(points[10], DVec3::new(0.0, 0.0, 1.0));
    }

    #[test]
    fn the_bundled_handshake_placement_puts_the_partner_in_front_facing_back() {
        // "^ ^ ^1.2", "~180 0" for an initiator facing −X (yaw 90).
        let partner = Placement {
            frame: PositionFrame::Local,
            offset: Vec3::new(0.0, 0.0, 1.2),
            yaw: Angle::Relative(180.0),
            pitch: Angle::Absolute(0.0),
        };
        let origin = DVec3::new(10.0, 65.0, 10.0);
        let placed = place(&partner, origin, 90.0, 20.0);
        assert!((placed.position - DVec3::new(8.8, 65.0, 10.0)).length() < 1e-6);
        assert_eq!(placed.yaw_degrees, 270.0);
        assert_eq!(placed.pitch_degrees, 0.0);
        // "~1 ~ ~-2" is world axes.
        let relative = Placement {
            frame: PositionFrame::Relative,
            offset: Vec3::new(1.0, 0.0, -2.0),
            yaw: Angle::Relative(0.0),
            pitch: Angle::Relative(0.0),
        };
        let placed = place(&relative, origin, 90.0, 20.0);
        assert!((placed.position - DVec3::new(11.0, 65.0, 8.0)).length() < 1e-9);
        assert_eq!(placed.pitch_degrees, 20.0);
        // ^ left at yaw 0 is +X.
        let left = Placement {
            frame: PositionFrame::Local,
            offset: Vec3::new(1.0, 0.0, 0.0),
            yaw: Angle::Relative(0.0),
            pitch: Angle::Relative(0.0),
        };
        assert!((place(&left, DVec3::ZERO, 0.0, 0.0).position - DVec3::X).length() < 1e-9);
    }

    #[test]
    fn a_participant_near_the_placement_stays_when_ik_closes_the_gap() {
        let placed = Placed {
            position: DVec3::new(0.5, 65.0, 1.3),
            yaw_degrees: 180.0,
            pitch_degrees: 0.0,
        };
        let aside = DVec3::new(0.8, 65.0, 1.3);
        let (kept, moved) = settle(placed, aside, true);
        assert!(!moved);
        assert_eq!(kept.position, aside);
        assert_eq!(kept.yaw_degrees, 180.0, "the body faces as placed");
        // Without IK, or too far, or on another level: moved as placed.
        assert_eq!(settle(placed, aside, false), (placed, true));
        assert_eq!(
            settle(placed, DVec3::new(0.5, 65.0, 1.7), true),
            (placed, true)
        );
        assert_eq!(
            settle(placed, DVec3::new(0.5, 65.5, 1.3), true),
            (placed, true)
        );
    }

    #[test]
    fn a_partner_root_maps_back_to_its_world_placement() {
        let root = DVec3::new(10.0, 65.0, 10.0);
        let root_yaw = 90.0;
        let placed = Placed {
            position: DVec3::new(8.8, 65.0, 10.0),
            yaw_degrees: 270.0,
            pitch_degrees: 0.0,
        };
        let m = root_in_emote_frame(&placed, root, root_yaw);
        // Emote frame → world: root + R_y(−yaw) · local.
        let to_world = Mat4::from_translation(root.as_vec3())
            * Mat4::from_quat(Quat::from_rotation_y(-root_yaw.to_radians()));
        let world = to_world * m;
        let origin = world.transform_point3(Vec3::ZERO);
        assert!((origin - placed.position.as_vec3()).length() < 1e-4);
        // The partner's +Z (its forward) points along its yaw 270 (+X).
        let forward = world.transform_vector3(Vec3::Z);
        assert!((forward - Vec3::X).length() < 1e-4, "{forward:?}");
    }
}
