//! What the headless server tests share (mock clients driven by hand).

use valence::prelude::*;
use valence::protocol::packets::play::TeleportConfirmC2s;
use valence::protocol::VarInt;
use valence::teleport::TeleportState;
use valence::testing::MockClientHelper;

/// Answers every position packet the server sent `player`, as a client
/// does (valence ignores a client's movement until it has); the next tick
/// reads the answers.
pub(crate) fn confirm_teleports(app: &App, player: Entity, helper: &mut MockClientHelper) {
    let state = app.world.get::<TeleportState>(player).expect("a client");
    let (pending, next) = (state.pending_teleports(), state.teleport_id_counter());
    for id in next.wrapping_sub(pending)..next {
        helper.send(&TeleportConfirmC2s {
            teleport_id: VarInt(id as i32),
        });
    }
}
