//! Bone names of humanoid skeletons read as the roles the player's joints
//! need: which bone is the hips, the head, an upper arm…
//!
//! # Reading a name
//! 1. **Prefixes** an exporter or a rig adds are cut: an FBX namespace or
//!    a Blender object (everything up to the last `:` or `|`, so
//!    `mixamorig:Hips` and `Character1:Hips` give `Hips`), `mixamorig`,
//!    `mixamorig1`… followed by `_` (Mixamo through Collada), Rigify's
//!    deform bones' `DEF-`, VRoid's `J_Bip_` (and its centre mark `C_`),
//!    3ds Max Biped's `Bip01 `/`Bip001 `, Character Creator's `CC_Base_`.
//! 2. The rest is cut into **words** at punctuation, spaces, a lower-case
//!    letter followed by a capital, and between letters and digits, all in
//!    lower case: `LeftUpperArm` → `left upper arm`, `upper_arm.L.001` →
//!    `upper arm l 001`, `Spine2` → `spine 2`.
//! 3. A number at the end is the bone's **number** in a chain (`Spine2`,
//!    `spine.003`, `neck_01`).
//! 4. The **side** is a first or last word `left`/`l` or `right`/`r`
//!    (`LeftArm`, `upper_arm.L`, `thigh_l`, `L_UpperArm`, `Bip01 L Thigh`),
//!    or a `left`/`right` glued to the front (`leftarm`).
//! 5. The words left, joined, are looked up in [`TABLE`]. A role with a
//!    side needs one; a role without one (hips, spine, neck, head) must
//!    have none.
//!
//! # The table
//! | Role | Names (after the steps above) | Seen in |
//! |------|-------------------------------|---------|
//! | hips | `hips`, `pelvis` | Mixamo, VRM/Unity `Hips`; Unreal, Biped `pelvis` |
//! | spine | `spine`, `chest`, `upperchest`, `abdomen`, `abdomenlower`, `abdomenupper`, `chestlower`, `chestupper` | Mixamo `Spine`, `Spine1`, `Spine2`; VRM `Spine`, `Chest`, `UpperChest`; Rigify `spine.001`…; DAZ |
//! | neck | `neck` | everywhere (`neck_01`, `spine.004` in Rigify: see below) |
//! | head | `head` | everywhere |
//! | upper arm | `arm`, `upperarm`, `uparm` | Mixamo `LeftArm`; VRM `LeftUpperArm`; Rigify `upper_arm.L`; Unreal `upperarm_l` |
//! | lower arm | `forearm`, `lowerarm` | Mixamo `LeftForeArm`; VRM `LeftLowerArm`; Rigify `forearm.L`; Unreal `lowerarm_l` |
//! | hand | `hand`, `wrist` | the tip that aims the lower arm |
//! | upper leg | `upleg`, `upperleg`, `thigh` | Mixamo `LeftUpLeg`; VRM `LeftUpperLeg`; Rigify `thigh.L`; Unreal `thigh_l` |
//! | lower leg | `leg`, `lowerleg`, `shin`, `calf` | Mixamo `LeftLeg`; VRM `LeftLowerLeg`; Rigify `shin.L`; Unreal `calf_l` |
//! | foot | `foot`, `ankle` | the tip that aims the lower leg |
//!
//! Note Mixamo's `LeftArm` (the upper arm) and `LeftLeg` (the shin).
//! Anything else (fingers, toes, clavicles, twist bones such as
//! `upperarm_twist_01_l`, `HeadTop_End`) has no role. Blender's metarig
//! and Rigify name the pelvis `spine` and number the chain above it
//! `spine.001` to `spine.006`; the matcher ([`super::humanoid`]) reads
//! that when no bone is called hips.

/// A side of the body, as the skeleton names it (its own left).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    /// The character's left (+X in glTF and in the player's frame).
    Left,
    /// The character's right.
    Right,
}

/// What a bone is in a humanoid skeleton.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// The pelvis, root of the legs and the spine.
    Hips,
    /// A bone of the spine between the hips and the neck.
    Spine,
    /// A neck bone.
    Neck,
    /// The head.
    Head,
    /// The upper arm.
    UpperArm(Side),
    /// The forearm.
    LowerArm(Side),
    /// The hand.
    Hand(Side),
    /// The thigh.
    UpperLeg(Side),
    /// The shin.
    LowerLeg(Side),
    /// The foot.
    Foot(Side),
}

/// A role without its side, as the table lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Hips,
    Spine,
    Neck,
    Head,
    UpperArm,
    LowerArm,
    Hand,
    UpperLeg,
    LowerLeg,
    Foot,
}

/// The names of each role, after prefixes, side and number are taken off
/// and the words joined (module docs).
pub const TABLE: &[(&str, &str)] = &[
    ("hips", "hips"),
    ("pelvis", "hips"),
    ("spine", "spine"),
    ("chest", "spine"),
    ("upperchest", "spine"),
    ("abdomen", "spine"),
    ("abdomenlower", "spine"),
    ("abdomenupper", "spine"),
    ("chestlower", "spine"),
    ("chestupper", "spine"),
    ("neck", "neck"),
    ("head", "head"),
    ("arm", "upper arm"),
    ("upperarm", "upper arm"),
    ("uparm", "upper arm"),
    ("forearm", "lower arm"),
    ("lowerarm", "lower arm"),
    ("hand", "hand"),
    ("wrist", "hand"),
    ("upleg", "upper leg"),
    ("upperleg", "upper leg"),
    ("thigh", "upper leg"),
    ("leg", "lower leg"),
    ("lowerleg", "lower leg"),
    ("shin", "lower leg"),
    ("calf", "lower leg"),
    ("foot", "foot"),
    ("ankle", "foot"),
];

/// A bone name read: its role and its number in a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoneName {
    /// What the bone is.
    pub role: Role,
    /// The number after the name (`Spine2` → 2, `spine.003` → 3).
    pub number: Option<u32>,
}

/// Reads `name` as a humanoid bone (module docs), or `None` when it has
/// no role.
pub fn read_bone_name(name: &str) -> Option<BoneName> {
    let mut words = words(strip_prefixes(name));
    let mut number = pop_number(&mut words);
    let mut side = take_side(&mut words);
    if number.is_none() {
        number = pop_number(&mut words);
    }
    let mut key: String = words.concat();
    if side.is_none() {
        for (glued, s) in [("left", Side::Left), ("right", Side::Right)] {
            if let Some(rest) = key.strip_prefix(glued).filter(|r| !r.is_empty()) {
                key = rest.to_owned();
                side = Some(s);
                break;
            }
        }
    }
    let kind = TABLE
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, role)| kind_of(role))?;
    let role = match (kind, side) {
        (Kind::Hips, None) => Role::Hips,
        (Kind::Spine, None) => Role::Spine,
        (Kind::Neck, None) => Role::Neck,
        (Kind::Head, None) => Role::Head,
        (Kind::UpperArm, Some(s)) => Role::UpperArm(s),
        (Kind::LowerArm, Some(s)) => Role::LowerArm(s),
        (Kind::Hand, Some(s)) => Role::Hand(s),
        (Kind::UpperLeg, Some(s)) => Role::UpperLeg(s),
        (Kind::LowerLeg, Some(s)) => Role::LowerLeg(s),
        (Kind::Foot, Some(s)) => Role::Foot(s),
        _ => return None,
    };
    Some(BoneName { role, number })
}

/// The [`Kind`] a table entry names.
fn kind_of(role: &str) -> Option<Kind> {
    Some(match role {
        "hips" => Kind::Hips,
        "spine" => Kind::Spine,
        "neck" => Kind::Neck,
        "head" => Kind::Head,
        "upper arm" => Kind::UpperArm,
        "lower arm" => Kind::LowerArm,
        "hand" => Kind::Hand,
        "upper leg" => Kind::UpperLeg,
        "lower leg" => Kind::LowerLeg,
        "foot" => Kind::Foot,
        _ => return None,
    })
}

/// `s` without `prefix` (compared ignoring ASCII case), if it starts so.
fn strip_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| s.get(prefix.len()..))
        .flatten()
}

/// `name` without the prefixes of step 1 (module docs).
fn strip_prefixes(name: &str) -> &str {
    let mut s = name.trim();
    if let Some(at) = s.rfind([':', '|']) {
        s = s.get(at + 1..).unwrap_or(s);
    }
    if let Some(rest) = strip_ci(s, "mixamorig") {
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        s = rest.strip_prefix('_').unwrap_or(rest);
    }
    for prefix in ["DEF-", "DEF_", "CC_Base_"] {
        if let Some(rest) = strip_ci(s, prefix) {
            s = rest;
        }
    }
    if let Some(rest) = strip_ci(s, "J_Bip_") {
        s = strip_ci(rest, "C_").unwrap_or(rest);
    }
    if let Some(rest) = strip_ci(s, "Bip") {
        let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        if digits.len() < rest.len() {
            if let Some(rest) = digits.strip_prefix([' ', '_']) {
                s = rest;
            }
        }
    }
    s
}

/// The words of `s`, lower case (step 2 of the module docs).
fn words(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    for c in s.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous = None;
            continue;
        }
        let breaks = match previous {
            Some(p) => {
                (p.is_lowercase() && c.is_uppercase()) || (p.is_ascii_digit() != c.is_ascii_digit())
            }
            None => false,
        };
        if breaks && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
        previous = Some(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Takes a number off the end of `words`.
fn pop_number(words: &mut Vec<String>) -> Option<u32> {
    if words.len() < 2 {
        return None;
    }
    let number = words.last()?.parse::<u32>().ok()?;
    words.pop();
    Some(number)
}

/// Takes the side word off the front or the end of `words`.
fn take_side(words: &mut Vec<String>) -> Option<Side> {
    let side_of = |w: &str| match w {
        "left" | "l" => Some(Side::Left),
        "right" | "r" => Some(Side::Right),
        _ => None,
    };
    if words.len() < 2 {
        return None;
    }
    if let Some(side) = words.first().and_then(|w| side_of(w)) {
        words.remove(0);
        return Some(side);
    }
    let side = words.last().and_then(|w| side_of(w))?;
    words.pop();
    Some(side)
}

#[cfg(test)]
mod tests {
    use super::{read_bone_name, Role, Side};

    fn role(name: &str) -> Option<Role> {
        read_bone_name(name).map(|b| b.role)
    }

    #[test]
    fn mixamo_names_with_every_prefix() {
        use Side::{Left, Right};
        for (name, want) in [
            ("mixamorig:Hips", Role::Hips),
            ("mixamorig_Hips", Role::Hips),
            ("mixamorig1:Spine2", Role::Spine),
            ("mixamorig:Neck", Role::Neck),
            ("mixamorig:Head", Role::Head),
            ("mixamorig:LeftArm", Role::UpperArm(Left)),
            ("mixamorig:RightForeArm", Role::LowerArm(Right)),
            ("mixamorig:LeftHand", Role::Hand(Left)),
            ("mixamorig:RightUpLeg", Role::UpperLeg(Right)),
            ("mixamorig:RightLeg", Role::LowerLeg(Right)),
            ("mixamorig:LeftFoot", Role::Foot(Left)),
            ("Character1:Hips", Role::Hips),
        ] {
            assert_eq!(role(name), Some(want), "{name}");
        }
        let spine = read_bone_name("mixamorig:Spine1").expect("a spine");
        assert_eq!((spine.role, spine.number), (Role::Spine, Some(1)));
    }

    #[test]
    fn rigify_and_metarig_names() {
        use Side::{Left, Right};
        for (name, want) in [
            ("upper_arm.L", Role::UpperArm(Left)),
            ("forearm.R", Role::LowerArm(Right)),
            ("thigh.L", Role::UpperLeg(Left)),
            ("shin.R", Role::LowerLeg(Right)),
            ("hand.L", Role::Hand(Left)),
            ("DEF-upper_arm.L", Role::UpperArm(Left)),
            ("spine", Role::Spine),
        ] {
            assert_eq!(role(name), Some(want), "{name}");
        }
        // The segment of a split bone keeps its number after the side.
        let segment = read_bone_name("upper_arm.L.001").expect("an arm");
        assert_eq!(segment.role, Role::UpperArm(Left));
        assert_eq!(segment.number, Some(1));
        assert_eq!(read_bone_name("spine.006").and_then(|b| b.number), Some(6));
    }

    #[test]
    fn vrm_unity_unreal_and_biped_names() {
        use Side::{Left, Right};
        for (name, want) in [
            ("Hips", Role::Hips),
            ("Chest", Role::Spine),
            ("UpperChest", Role::Spine),
            ("Neck", Role::Neck),
            ("Head", Role::Head),
            ("LeftUpperArm", Role::UpperArm(Left)),
            ("RightLowerArm", Role::LowerArm(Right)),
            ("LeftUpperLeg", Role::UpperLeg(Left)),
            ("RightLowerLeg", Role::LowerLeg(Right)),
            ("J_Bip_C_Hips", Role::Hips),
            ("J_Bip_L_UpperArm", Role::UpperArm(Left)),
            ("upperarm_r", Role::UpperArm(Right)),
            ("calf_l", Role::LowerLeg(Left)),
            ("pelvis", Role::Hips),
            ("Bip01 L Thigh", Role::UpperLeg(Left)),
            ("left_forearm", Role::LowerArm(Left)),
            ("leftarm", Role::UpperArm(Left)),
            ("Arm-R", Role::UpperArm(Right)),
        ] {
            assert_eq!(role(name), Some(want), "{name}");
        }
    }

    #[test]
    fn fingers_toes_twists_and_unsided_limbs_have_no_role() {
        for name in [
            "mixamorig:LeftHandThumb1",
            "mixamorig:LeftToeBase",
            "mixamorig:HeadTop_End",
            "mixamorig:LeftShoulder",
            "upperarm_twist_01_l",
            "Arm",
            "LeftHead",
            "Skeleton_torso_joint_1",
            "leg_joint_R_1",
            "",
            "ä:ö|",
        ] {
            assert_eq!(role(name), None, "{name}");
        }
    }
}
