//! Source names as schema 4 node ids.
//!
//! A node id here is lower case ASCII letters, digits and `_`: every other
//! character becomes `_` (upper case is lowered first, and runs of `_` are
//! folded to one), an empty result becomes `node`, and a name already
//! taken (by an earlier node or by the reserved root anchor) gets `_2`,
//! `_3`… Authors recognise their parts, and every id is one a command,
//! a Sequence or a hand edit can name without quoting.

use std::collections::BTreeSet;

/// `name` as a node id not in `taken`, which it is then added to.
pub fn node_id(name: &str, taken: &mut BTreeSet<String>) -> String {
    let mut base = String::with_capacity(name.len());
    for c in name.chars() {
        let c = c.to_ascii_lowercase();
        let keep = c.is_ascii_lowercase() || c.is_ascii_digit();
        if keep {
            base.push(c);
        } else if !base.ends_with('_') {
            base.push('_');
        }
    }
    let trimmed = base.trim_matches('_');
    let base = if trimmed.is_empty() {
        "node".to_owned()
    } else {
        trimmed.to_owned()
    };
    let mut id = base.clone();
    let mut n = 2u32;
    while taken.contains(&id) {
        id = format!("{base}_{n}");
        n = n.saturating_add(1);
    }
    taken.insert(id.clone());
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_lowered_and_punctuation_folds_to_one_underscore() {
        let mut taken = BTreeSet::new();
        assert_eq!(node_id("Right Arm", &mut taken), "right_arm");
        assert_eq!(node_id("mixamorig:LeftHand", &mut taken), "mixamorig_lefthand");
        assert_eq!(node_id("--tail--", &mut taken), "tail");
        assert_eq!(node_id("Ärm", &mut taken), "rm");
        assert_eq!(node_id("", &mut taken), "node");
        assert_eq!(node_id("***", &mut taken), "node_2");
    }

    #[test]
    fn a_taken_name_gets_the_next_free_number() {
        let mut taken = BTreeSet::from(["root".to_owned()]);
        assert_eq!(node_id("root", &mut taken), "root_2");
        assert_eq!(node_id("Root", &mut taken), "root_3");
        assert_eq!(node_id("arm", &mut taken), "arm");
        assert_eq!(node_id("arm", &mut taken), "arm_2");
    }
}
