//! A body's joints (seed 001: `root`, `head`, `torso`, `rightArm`,
//! `leftArm`, `rightLeg`, `leftLeg`, `cape`, `rightWing`, `leftWing`,
//! `spinInner`, `spinOuter`) and how a clip's joint names land on them.
//!
//! Names are compared without case, spaces, `_` or `-`, and with a
//! leading `biped` dropped, so Blockbench's `RightArm`, Bedrock's
//! `rightArm`, Java's `right_arm` and `biped_right_arm` are one joint.
//! Blockbench's player template calls the torso `Body`, so `body` is
//! taken for `torso` as well. Nothing else is guessed: a `Waist` or a
//! `tail` matches no body joint.

/// One of a body's twelve joints.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BodyJoint {
    Root,
    Head,
    Torso,
    RightArm,
    LeftArm,
    RightLeg,
    LeftLeg,
    Cape,
    RightWing,
    LeftWing,
    SpinInner,
    SpinOuter,
}

impl BodyJoint {
    /// Every joint, in seed 001's order.
    pub const ALL: [BodyJoint; 12] = [
        BodyJoint::Root,
        BodyJoint::Head,
        BodyJoint::Torso,
        BodyJoint::RightArm,
        BodyJoint::LeftArm,
        BodyJoint::RightLeg,
        BodyJoint::LeftLeg,
        BodyJoint::Cape,
        BodyJoint::RightWing,
        BodyJoint::LeftWing,
        BodyJoint::SpinInner,
        BodyJoint::SpinOuter,
    ];

    /// The joint's name on a body (`rightArm`).
    pub fn name(self) -> &'static str {
        match self {
            BodyJoint::Root => "root",
            BodyJoint::Head => "head",
            BodyJoint::Torso => "torso",
            BodyJoint::RightArm => "rightArm",
            BodyJoint::LeftArm => "leftArm",
            BodyJoint::RightLeg => "rightLeg",
            BodyJoint::LeftLeg => "leftLeg",
            BodyJoint::Cape => "cape",
            BodyJoint::RightWing => "rightWing",
            BodyJoint::LeftWing => "leftWing",
            BodyJoint::SpinInner => "spinInner",
            BodyJoint::SpinOuter => "spinOuter",
        }
    }

    /// The body joint a clip's joint name lands on, by the rules of the
    /// module docs.
    pub fn matching(name: &str) -> Option<BodyJoint> {
        let folded: String = name
            .chars()
            .filter(|c| !matches!(c, ' ' | '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect();
        let folded = folded.strip_prefix("biped").unwrap_or(&folded);
        if folded == "body" {
            return Some(BodyJoint::Torso);
        }
        BodyJoint::ALL
            .into_iter()
            .find(|joint| joint.name().eq_ignore_ascii_case(folded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editors_spellings_land_on_one_joint() {
        for name in [
            "RightArm",
            "rightArm",
            "right_arm",
            "biped_right_arm",
            "Right Arm",
            "right-arm",
        ] {
            assert_eq!(
                BodyJoint::matching(name),
                Some(BodyJoint::RightArm),
                "{name}"
            );
        }
        assert_eq!(BodyJoint::matching("Body"), Some(BodyJoint::Torso));
        assert_eq!(BodyJoint::matching("torso"), Some(BodyJoint::Torso));
        assert_eq!(BodyJoint::matching("Head"), Some(BodyJoint::Head));
        assert_eq!(
            BodyJoint::matching("spin_outer"),
            Some(BodyJoint::SpinOuter)
        );
        assert_eq!(BodyJoint::matching("Waist"), None);
        assert_eq!(BodyJoint::matching(""), None);
        for joint in BodyJoint::ALL {
            assert_eq!(BodyJoint::matching(joint.name()), Some(joint));
        }
    }
}
