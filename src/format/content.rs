//! What a display node shows, as plain names and text: for the parts of
//! emoted that name no valence type (the preview draws an item display by
//! its item's name, a block display by its block's name and a text display
//! by its text).

use super::node::{Arm, ItemContent, NodeKind};
use valence::Text;

impl NodeKind {
    /// The item an item display shows, without the namespace
    /// (`player_head`); `None` for other nodes and for a participant's hand,
    /// whose item is known only when it plays (see [`Self::hand`]).
    pub fn item_name(&self) -> Option<&'static str> {
        match self {
            NodeKind::Item {
                content: ItemContent::Stack(stack),
                ..
            } => Some(stack.item.to_str()),
            _ => None,
        }
    }

    /// The hand a `participant_hand` item display follows.
    pub fn hand(&self) -> Option<Arm> {
        match self {
            NodeKind::Item {
                content: ItemContent::ParticipantHand(arm),
                ..
            } => Some(*arm),
            _ => None,
        }
    }

    /// The block a block display shows, without the namespace or its
    /// properties (`oak_stairs`).
    pub fn block_name(&self) -> Option<&'static str> {
        match self {
            NodeKind::Block { state, .. } => Some(state.to_kind().to_str()),
            _ => None,
        }
    }

    /// A text display's text as plain characters: its components joined,
    /// colours and styles left out.
    pub fn plain_text(&self) -> Option<String> {
        let NodeKind::Text { text, .. } = self else {
            return None;
        };
        Some(plain_text(text))
    }
}

/// A chat text as plain characters: its components joined, colours,
/// styles and buttons left out (what a terminal or an RCON tool shows).
pub fn plain_text(text: &Text) -> String {
    let legacy = text.to_legacy_lossy();
    let mut plain = String::with_capacity(legacy.len());
    let mut chars = legacy.chars();
    while let Some(c) = chars.next() {
        if c == '§' {
            // A format code: `§` and one character.
            chars.next();
        } else {
            plain.push(c);
        }
    }
    plain
}

#[cfg(test)]
mod tests {
    use crate::format::{parse_emote_value, EmoteFile};

    #[test]
    fn nodes_name_what_they_show() {
        let transform =
            serde_json::json!({"position": [0, 0, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]});
        let value = serde_json::json!({
            "type": "animation", "schema_version": 4, "id": "test:names",
            "metadata": {"name": "Names"}, "settings": {},
            "nodes": {
                "item": {"type": "item_display", "space": "initiator", "transform": transform,
                         "item_stack_snbt": "{id:\"minecraft:golden_apple\",count:1}", "item_display": "fixed"},
                "hand": {"type": "item_display", "space": "initiator", "transform": transform,
                         "item_source": {"type": "participant_hand", "arm": "left"}, "item_display": "fixed"},
                "block": {"type": "block_display", "space": "scene", "transform": transform,
                          "block_state_snbt": "{Name:\"minecraft:oak_stairs\",Properties:{facing:\"east\"}}"},
                "text": {"type": "text_display", "space": "scene", "transform": transform,
                         "text": {"text": "Hello ", "color": "gold", "extra": [{"text": "there", "bold": true}]}}
            },
            "timeline": {"duration": "10t"}
        });
        let report = parse_emote_value(&value);
        let Some(EmoteFile::Animation(file)) = report.file else {
            panic!("invalid: {:?}", report.problems);
        };
        let kind = |id: &str| &file.node(id).expect("node").kind;
        assert_eq!(kind("item").item_name(), Some("golden_apple"));
        assert_eq!(kind("hand").item_name(), None);
        assert_eq!(kind("hand").hand(), Some(crate::format::node::Arm::Left));
        assert_eq!(kind("block").block_name(), Some("oak_stairs"));
        assert_eq!(kind("text").plain_text().as_deref(), Some("Hello there"));
        assert_eq!(kind("item").plain_text(), None);
    }
}
