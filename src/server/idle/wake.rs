//! Which client packets wake an idle player, and as what.
//!
//! Movement and look are read from the player's [`Position`] and [`Look`]
//! (see [`PoseWatch`](crate::playback::idle::PoseWatch)); everything else a
//! player does arrives as a packet, read here from valence's
//! [`PacketEvent`]s (valence has events for some of these but not all, and
//! not in every plugin set a host may use). Packets a still client sends
//! on its own (keep-alives, settings, position packets that repeat the
//! position, resource pack answers, plugin messages, chat acknowledgements)
//! wake nobody.

use valence::event_loop::PacketEvent;
use valence::protocol::packet_id;
use valence::protocol::packets::play::player_action_c2s::PlayerAction;
use valence::protocol::packets::play::PlayerActionC2s;

use crate::playback::idle::IdleWake;

/// What `packet` shows the player doing, if it shows anything.
pub(super) fn wake_of(packet: &PacketEvent) -> Option<IdleWake> {
    Some(match packet.id {
        packet_id::CHAT_MESSAGE_C2S => IdleWake::Chatted,
        packet_id::COMMAND_EXECUTION_C2S | packet_id::REQUEST_COMMAND_COMPLETIONS_C2S => {
            IdleWake::Command
        }
        packet_id::HAND_SWING_C2S
        | packet_id::PLAYER_INTERACT_BLOCK_C2S
        | packet_id::PLAYER_INTERACT_ENTITY_C2S
        | packet_id::PLAYER_INTERACT_ITEM_C2S => IdleWake::Clicked,
        packet_id::PLAYER_ACTION_C2S => match packet.decode::<PlayerActionC2s>()?.action {
            PlayerAction::DropAllItems
            | PlayerAction::DropItem
            | PlayerAction::SwapItemWithOffhand => IdleWake::Inventory,
            PlayerAction::StartDestroyBlock
            | PlayerAction::AbortDestroyBlock
            | PlayerAction::StopDestroyBlock
            | PlayerAction::ReleaseUseItem => IdleWake::Clicked,
        },
        packet_id::CLICK_SLOT_C2S
        | packet_id::CREATIVE_INVENTORY_ACTION_C2S
        | packet_id::UPDATE_SELECTED_SLOT_C2S
        | packet_id::PICK_FROM_INVENTORY_C2S
        | packet_id::BUTTON_CLICK_C2S
        | packet_id::CLOSE_HANDLED_SCREEN_C2S
        | packet_id::CRAFT_REQUEST_C2S
        | packet_id::RENAME_ITEM_C2S
        | packet_id::SELECT_MERCHANT_TRADE_C2S
        | packet_id::BOOK_UPDATE_C2S
        | packet_id::UPDATE_SIGN_C2S => IdleWake::Inventory,
        // Sneaking, sprinting, leaving a bed; starting or stopping to fly.
        packet_id::CLIENT_COMMAND_C2S | packet_id::UPDATE_PLAYER_ABILITIES_C2S => IdleWake::Moved,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use valence::prelude::*;
    use valence::protocol::packets::play::{
        ChatMessageC2s, ClientCommandC2s, HandSwingC2s, KeepAliveC2s, PositionAndOnGroundC2s,
        TeleportConfirmC2s, UpdateSelectedSlotC2s,
    };
    use valence::protocol::{Encode, Packet, VarInt};

    use super::*;

    fn event<P: Packet + Encode>(packet: &P) -> PacketEvent {
        let mut data = Vec::new();
        packet.encode(&mut data).expect("encodes");
        PacketEvent {
            client: Entity::PLACEHOLDER,
            timestamp: Instant::now(),
            id: P::ID,
            data: data.into(),
        }
    }

    #[test]
    fn what_a_player_does_wakes_them_and_what_a_client_sends_alone_does_not() {
        use valence::protocol::packets::play::client_command_c2s::ClientCommand;
        use valence::protocol::{BlockPos, Direction, Hand};

        let chat = ChatMessageC2s {
            message: "hi",
            timestamp: 0,
            salt: 0,
            signature: None,
            message_count: VarInt(0),
            acknowledgement: [0; 3],
        };
        assert_eq!(wake_of(&event(&chat)), Some(IdleWake::Chatted));
        let swing = HandSwingC2s { hand: Hand::Main };
        assert_eq!(wake_of(&event(&swing)), Some(IdleWake::Clicked));
        let slot = UpdateSelectedSlotC2s { slot: 3 };
        assert_eq!(wake_of(&event(&slot)), Some(IdleWake::Inventory));
        let sneak = ClientCommandC2s {
            entity_id: VarInt(0),
            action: ClientCommand::StartSneaking,
            jump_boost: VarInt(0),
        };
        assert_eq!(wake_of(&event(&sneak)), Some(IdleWake::Moved));
        for (action, wake) in [
            (PlayerAction::SwapItemWithOffhand, IdleWake::Inventory),
            (PlayerAction::DropItem, IdleWake::Inventory),
            (PlayerAction::StartDestroyBlock, IdleWake::Clicked),
        ] {
            let packet = PlayerActionC2s {
                action,
                position: BlockPos::new(0, 64, 0),
                direction: Direction::Up,
                sequence: VarInt(1),
            };
            assert_eq!(wake_of(&event(&packet)), Some(wake), "{action:?}");
        }

        assert_eq!(wake_of(&event(&KeepAliveC2s { id: 7 })), None);
        let confirm = TeleportConfirmC2s {
            teleport_id: VarInt(3),
        };
        assert_eq!(wake_of(&event(&confirm)), None);
        // Movement is read from the position, not from the packet.
        let still = PositionAndOnGroundC2s {
            position: [0.5, 65.0, 0.5].into(),
            on_ground: true,
        };
        assert_eq!(wake_of(&event(&still)), None);
    }
}
