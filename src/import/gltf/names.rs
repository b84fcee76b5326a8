//! Animation names as exporters write them, cleaned for emote ids.
//!
//! Blender names an action exported from an FBX import `object|take|layer`
//! (`Armature|mixamo.com|Layer0`, `Armature|Walk`). The id takes what is
//! after the first `|`, without the `mixamo.com` take and `Layer0` layer
//! that say nothing of the motion; when nothing else is left, the object
//! name before the `|`. `metadata.name` keeps the original.

/// Segments that name the exporter, not the motion (compared ignoring case).
const NOISE: [&str; 2] = ["mixamo.com", "layer0"];

/// The name animation `index` is known by in ids: `original` cleaned of
/// exporter segments, or `animation_N` when it has no name.
pub fn clip_name(original: Option<&str>, index: usize) -> String {
    let Some(original) = original.map(str::trim).filter(|n| !n.is_empty()) else {
        return format!("animation_{index}");
    };
    let Some((object, rest)) = original.split_once('|') else {
        return original.to_owned();
    };
    let kept: Vec<&str> = rest
        .split('|')
        .map(str::trim)
        .filter(|s| !s.is_empty() && !NOISE.iter().any(|n| s.eq_ignore_ascii_case(n)))
        .collect();
    if kept.is_empty() {
        let object = object.trim();
        if object.is_empty() {
            format!("animation_{index}")
        } else {
            object.to_owned()
        }
    } else {
        kept.join("|")
    }
}

#[cfg(test)]
mod tests {
    use super::clip_name;

    #[test]
    fn exporter_segments_are_dropped_and_the_motion_kept() {
        assert_eq!(clip_name(Some("Armature|Walk"), 0), "Walk");
        assert_eq!(clip_name(Some("Armature|mixamo.com|Layer0"), 0), "Armature");
        assert_eq!(clip_name(Some("Rig|Dance|Layer0"), 0), "Dance");
        assert_eq!(clip_name(Some("Armature|mixamo.com|Wave"), 0), "Wave");
        assert_eq!(clip_name(Some("Survey"), 0), "Survey");
        assert_eq!(clip_name(Some("  "), 3), "animation_3");
        assert_eq!(clip_name(None, 2), "animation_2");
        assert_eq!(clip_name(Some("|mixamo.com"), 1), "animation_1");
    }
}
