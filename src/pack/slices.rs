//! The slicing rule: which rows of its part each skin-bound node shows.
//!
//! Nodes bound to the same participant **and** part share the part's height
//! (12 px; the head is never cut). They take it from the top down in
//! ascending `order` (schema 4 §5.6: "receive skin data in ascending
//! order"; a tie keeps the file's node order), each in proportion to its
//! **local Y scale**: the length of its rest transform's Y axis, which for
//! `T · R · S` is `|scale.y|` since `R` keeps lengths. This follows the rule
//! hanhy06/emote applies to BD Engine exports, written anew:
//!
//! - one node, or more nodes than the part has rows: each shows the whole
//!   part;
//! - otherwise the boundary after the i-th node is the cumulative share
//!   `height · (w₀ + … + wᵢ) / Σw`, rounded to the nearest row, then kept
//!   at least one row past the previous boundary and far enough from the
//!   bottom that every node still to come gets a row. The last node ends
//!   at the bottom, so the slices cover the part exactly once.
//!
//! A Y scale that is zero or not finite weighs nothing (such a node still
//! gets its one row); when no node weighs anything they share equally.
//!
//! Rounding cumulative shares (not each share alone) keeps rounding errors
//! from piling up: scales 1 and 2 give 4 + 8 rows, three equal scales give
//! 4 + 4 + 4.

use std::collections::{BTreeMap, BTreeSet};

use super::skin_uv::{part_layout, Rows, Slice};
use crate::format::node::{BodyPart, NodeKind, Participant};
use crate::format::{AnimationFile, EmoteFile};
use crate::library::Library;

/// One node of a group that shares a part, as the rule sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliceRequest {
    /// The node's skin `order`.
    pub order: u32,
    /// The length of the node's rest transform's Y axis.
    pub y_scale: f32,
}

/// The rows each of `nodes` shows of a part `height_px` tall, in the order
/// of `nodes` (which need not be sorted). See the module docs for the rule.
pub fn share_rows(height_px: u8, nodes: &[SliceRequest]) -> Vec<Rows> {
    let full = Rows::new(0, height_px);
    let count = nodes.len();
    let Some(full) = full else {
        return Vec::new();
    };
    if count <= 1 || count > usize::from(height_px) {
        return vec![full; count];
    }
    let weight = |y: f32| {
        let y = f64::from(y).abs();
        if y.is_finite() && y > 0.0 {
            y
        } else {
            0.0
        }
    };
    let mut weights: Vec<f64> = nodes.iter().map(|n| weight(n.y_scale)).collect();
    let mut total: f64 = weights.iter().sum();
    if !(total.is_finite() && total > 0.0) {
        weights = vec![1.0; count];
        total = count as f64;
    }
    let mut by_order: Vec<usize> = (0..count).collect();
    by_order.sort_by_key(|&i| (nodes[i].order, i));

    let height = f64::from(height_px);
    let mut rows = vec![full; count];
    let mut start: u8 = 0;
    let mut sum = 0.0;
    for (rank, &i) in by_order.iter().enumerate() {
        sum += weights[i];
        // count <= height_px, so these fit in a u8.
        let still_to_come = (count - 1 - rank) as u8;
        let latest = height_px - still_to_come;
        let end = if still_to_come == 0 {
            height_px
        } else {
            let ideal = (height * sum / total).round().clamp(0.0, height) as u8;
            ideal.clamp(start + 1, latest)
        };
        rows[i] = Rows::new(start, end).unwrap_or(full);
        start = end;
    }
    rows
}

/// A skin-bound node and the rows of its part it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSlice {
    /// The node's id.
    pub node_id: String,
    /// Whose skin it wears.
    pub participant: Participant,
    /// Which part.
    pub part: BodyPart,
    /// Which rows of it.
    pub rows: Rows,
}

impl NodeSlice {
    /// The slice for a player whose arms are `slim` (or not).
    pub fn slice(&self, slim: bool) -> Slice {
        Slice::new(self.part, self.rows, slim).unwrap_or_else(|_| Slice::full(self.part, slim))
    }
}

/// Every skin-bound node of an Animation with its rows, in the file's node
/// order (parents first, then by id).
pub fn animation_slices(file: &AnimationFile) -> Vec<NodeSlice> {
    let mut groups: BTreeMap<(Participant, BodyPart), Vec<(usize, SliceRequest)>> = BTreeMap::new();
    for (index, node) in file.nodes.iter().enumerate() {
        if let NodeKind::Item {
            skin: Some(skin), ..
        } = &node.kind
        {
            groups
                .entry((skin.participant, skin.part))
                .or_default()
                .push((
                    index,
                    SliceRequest {
                        order: skin.order,
                        y_scale: node.transform.scale.y.abs(),
                    },
                ));
        }
    }
    let mut out: Vec<(usize, NodeSlice)> = Vec::new();
    for ((participant, part), members) in groups {
        let requests: Vec<SliceRequest> = members.iter().map(|(_, r)| *r).collect();
        let height = part_layout(part, false).size.height_px;
        let shared = if part == BodyPart::Head {
            // The head is never cut: every head node shows all of it.
            Rows::new(0, height).map_or_else(Vec::new, |full| vec![full; requests.len()])
        } else {
            share_rows(height, &requests)
        };
        for ((index, _), rows) in members.into_iter().zip(shared) {
            out.push((
                index,
                NodeSlice {
                    node_id: file.nodes[index].id.clone(),
                    participant,
                    part,
                    rows,
                },
            ));
        }
    }
    out.sort_by_key(|(index, _)| *index);
    out.into_iter().map(|(_, s)| s).collect()
}

/// Every slice the loaded Animations need, an arm's in both widths (which
/// one a player wears is known only when they play). Sequences and
/// controllers play loaded Animations, so they add nothing.
pub fn library_slices(library: &Library) -> BTreeSet<Slice> {
    library
        .iter()
        .filter_map(|(_, emote)| match emote.file.as_ref() {
            EmoteFile::Animation(file) => Some(animation_slices(file)),
            EmoteFile::Sequence(_) | EmoteFile::Controller(_) => None,
        })
        .flatten()
        .flat_map(|node| [node.slice(false), node.slice(true)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{parse_emote_value, EmoteFile};

    fn req(order: u32, y_scale: f32) -> SliceRequest {
        SliceRequest { order, y_scale }
    }

    fn spans(rows: &[Rows]) -> Vec<(u8, u8)> {
        rows.iter().map(|r| (r.start_px(), r.end_px())).collect()
    }

    #[test]
    fn one_node_shows_the_whole_part() {
        assert_eq!(spans(&share_rows(12, &[req(0, 1.40625)])), [(0, 12)]);
        assert!(share_rows(12, &[]).is_empty());
    }

    #[test]
    fn two_nodes_share_by_y_scale() {
        // (requests, rows each gets, in input order)
        let cases = [
            (vec![req(0, 1.0), req(1, 2.0)], [(0, 4), (4, 12)]),
            // Order, not input position, decides who is on top.
            (vec![req(1, 2.0), req(0, 1.0)], [(4, 12), (0, 4)]),
            // The bundled bow: two equal halves of the body.
            (vec![req(0, 0.703), req(1, 0.703)], [(0, 6), (6, 12)]),
            // Ties keep the input order.
            (vec![req(3, 1.0), req(3, 1.0)], [(0, 6), (6, 12)]),
        ];
        for (requests, expected) in cases {
            assert_eq!(spans(&share_rows(12, &requests)), expected, "{requests:?}");
        }
    }

    #[test]
    fn cumulative_rounding_adds_up() {
        assert_eq!(
            spans(&share_rows(12, &[req(0, 1.0), req(1, 1.0), req(2, 1.0)])),
            [(0, 4), (4, 8), (8, 12)]
        );
        // 12·1/7 = 1.7 → 2, 12·3/7 = 5.1 → 5, then the rest.
        assert_eq!(
            spans(&share_rows(12, &[req(0, 1.0), req(1, 2.0), req(2, 4.0)])),
            [(0, 2), (2, 5), (5, 12)]
        );
    }

    #[test]
    fn every_node_gets_at_least_one_row() {
        for count in 2..=12usize {
            let mut nodes: Vec<SliceRequest> = (0..count).map(|i| req(i as u32, 0.01)).collect();
            nodes[0].y_scale = 1000.0;
            nodes[count - 1].y_scale = f32::NAN;
            let rows = share_rows(12, &nodes);
            assert_eq!(rows.len(), count);
            let mut next = 0;
            for r in &rows {
                assert!(r.height_px() >= 1, "{count}: {:?}", spans(&rows));
                assert_eq!(r.start_px(), next, "{count}: {:?}", spans(&rows));
                next = r.end_px();
            }
            assert_eq!(next, 12);
        }
    }

    #[test]
    fn weightless_nodes_share_equally_and_too_many_show_all() {
        assert_eq!(
            spans(&share_rows(12, &[req(0, 0.0), req(1, -0.0)])),
            [(0, 6), (6, 12)]
        );
        // A negative scale counts by its length.
        assert_eq!(
            spans(&share_rows(12, &[req(0, -1.0), req(1, 2.0)])),
            [(0, 4), (4, 12)]
        );
        let thirteen: Vec<SliceRequest> = (0..13).map(|i| req(i, 1.0)).collect();
        assert!(share_rows(12, &thirteen)
            .iter()
            .all(|r| spans(&[*r]) == [(0, 12)]));
    }

    fn skin_node(part: &str, order: u32, y: f64, parent: Option<&str>) -> serde_json::Value {
        let mut node = serde_json::json!({
            "type": "item_display",
            "item_stack_snbt": "{id:\"minecraft:player_head\",Count:1b}",
            "item_display": "none",
            "skin": {"participant": "initiator", "part": part, "order": order},
            "transform": {"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [0.5, y, 0.5]}
        });
        match parent {
            Some(p) => node["parent"] = serde_json::json!(p),
            None => node["space"] = serde_json::json!("initiator"),
        }
        node
    }

    fn animation() -> AnimationFile {
        let value = serde_json::json!({
            "type": "animation",
            "schema_version": 4,
            "id": "test:body",
            "metadata": {"name": "Body"},
            "settings": {"standalone": true, "cooldown": "0t",
                         "playback": {"mode": "once", "loop_delay": "0t"}},
            "nodes": {
                "root": {"type": "anchor", "space": "initiator",
                         "transform": {"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}},
                "forearm": skin_node("right_arm", 1, 1.0, Some("root")),
                "upper_arm": skin_node("right_arm", 0, 0.5, Some("root")),
                "head_a": skin_node("head", 0, 1.0, None),
                "head_b": skin_node("head", 1, 1.0, None),
                "leg": skin_node("left_leg", 0, 3.0, None),
            },
            "timeline": {"duration": "10t"}
        });
        let report = parse_emote_value(&value);
        match report.file {
            Some(EmoteFile::Animation(a)) => a,
            other => panic!("not an animation: {other:?} {:?}", report.problems),
        }
    }

    #[test]
    fn an_animation_lists_its_nodes_slices() {
        let file = animation();
        let found: Vec<(String, (u8, u8))> = animation_slices(&file)
            .into_iter()
            .map(|s| (s.node_id, (s.rows.start_px(), s.rows.end_px())))
            .collect();
        let expect = |id: &str, r: (u8, u8)| (id.to_owned(), r);
        let mut found_sorted = found.clone();
        found_sorted.sort();
        assert_eq!(
            found_sorted,
            [
                expect("forearm", (4, 12)),
                expect("head_a", (0, 8)),
                expect("head_b", (0, 8)),
                expect("leg", (0, 12)),
                expect("upper_arm", (0, 4)),
            ]
        );
    }

    #[test]
    fn the_library_needs_both_arm_widths() {
        let file = animation();
        let slices: BTreeSet<Slice> = animation_slices(&file)
            .iter()
            .flat_map(|n| [n.slice(false), n.slice(true)])
            .collect();
        let names: Vec<String> = slices.iter().map(Slice::name).collect();
        assert_eq!(
            names,
            [
                "head",
                "right_arm_0_4",
                "right_arm_0_4_slim",
                "right_arm_4_12",
                "right_arm_4_12_slim",
                "left_leg",
            ]
        );
    }
}
