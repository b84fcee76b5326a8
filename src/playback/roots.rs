//! Where each participant's root is in a playback's emote frame: shared by
//! the playing Animation, the solvers and the camera.

use glam::Mat4;

/// Where each space's root is, in the emote frame (the initiator's root,
/// which the root yaw turns). Solo playbacks use the identity for all.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceRoots {
    /// `initiator` space.
    pub initiator: Mat4,
    /// `partner` space; `None` hides partner content (no partner yet).
    pub partner: Option<Mat4>,
    /// Copy `initiator` nodes onto the partner for Animations without
    /// `partner` nodes (after a match).
    pub mirror: bool,
}

impl SpaceRoots {
    /// A playback with one participant.
    pub const SOLO: Self = Self {
        initiator: Mat4::IDENTITY,
        partner: Some(Mat4::IDENTITY),
        mirror: false,
    };
    /// A two-player offer (or its timeout branch): partner content hidden.
    pub const OFFER: Self = Self {
        initiator: Mat4::IDENTITY,
        partner: None,
        mirror: false,
    };
}
