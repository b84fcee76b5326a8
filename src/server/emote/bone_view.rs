//! One form per viewer: bones for modded viewers, displays for the rest.
//!
//! A playback is **bone-drawn** when every Animation it can play has a
//! bone form ([`crate::library::bones`]), so a modded viewer
//! ([`BoneViewer`]) can be shown the whole emote on the player's own
//! model (the STREAM of [`crate::server::modded`]). Then:
//!
//! - the display entities of the initiator's skin-bound parts, and of the
//!   items in the initiator's hands (`participant_hand`), are marked
//!   [`BoneDrawn`], and the culling cells keep them from bone viewers
//!   ([`crate::server::cull`]): a modded viewer gets the props (items,
//!   blocks, text) and no copy of the body, whose model the bones move
//!   with the held item in its hand;
//! - a player the emote hides (`player.hidden`) is moved to their world's
//!   [`VanillaHiddenLayers`] layer instead of the layer nobody sees: bone
//!   viewers keep seeing the player, whose model the bones move, and
//!   vanilla viewers see only the displays.
//!
//! A playback with any Animation without a bone form (a Sequence with a
//! props-only step, say) is drawn with displays for everyone, as before:
//! half an emote in bones and half in displays would show a modded viewer
//! the player standing still through the display half. A partner's body in
//! a two-player emote is always drawn with displays (the bone form is the
//! initiator's), and a hidden partner is hidden from everyone. A
//! controller is bone-drawn when its body clip has a bone form (every clip
//! it mixes poses that body's nodes, `emoted check` sees to it): modded
//! viewers get its held form, the blend on screen as a loop sent again
//! when the blend moves ([`crate::server::modded`]'s `held`), on the
//! player's own model, which walks where the player walks.

use std::collections::HashMap;

use valence::prelude::*;

use crate::library::Library;
use crate::playback::session::PlaybackState;
use crate::server::events::BoneViewer;

/// Per world entity layer, a layer only bone viewers see: where a hidden
/// player of a bone-drawn playback goes (module docs). Made on first use.
#[derive(Resource, Debug, Default)]
pub struct VanillaHiddenLayers(HashMap<Entity, Entity>);

impl VanillaHiddenLayers {
    /// The layer for players hidden from vanilla viewers of `world`,
    /// spawning it the first time.
    pub(super) fn of(&mut self, world: Entity, commands: &mut Commands, server: &Server) -> Entity {
        *self
            .0
            .entry(world)
            .or_insert_with(|| commands.spawn(EntityLayer::new(server)).id())
    }
}

/// Whether every Animation `state` can play has a bone form in `library`
/// (module docs).
pub(super) fn is_bone_drawn(state: &PlaybackState, library: &Library) -> bool {
    !state.animations.is_empty()
        && state
            .animations
            .keys()
            .all(|id| library.get(id.as_str()).is_some_and(|e| e.bones.is_some()))
}

/// Keeps every bone viewer seeing the hidden-from-vanilla layer of each
/// world layer it sees, and no other. The layer of a bone viewer's own
/// world is made as soon as the viewer is there, before anyone hides in
/// it: valence despawns an entity that moves into a layer its viewer
/// started to see only this tick, so a layer made when the first player
/// hides would blink that player out and back for modded viewers.
pub(super) fn show_hidden_bodies_to_bone_viewers(
    mut commands: Commands,
    server: Res<Server>,
    mut layers: ResMut<VanillaHiddenLayers>,
    mut viewers: Query<(&mut VisibleEntityLayers, &VisibleChunkLayer), With<BoneViewer>>,
) {
    for (mut visible, world) in &mut viewers {
        if !layers.0.contains_key(&world.0) {
            layers.of(world.0, &mut commands, &server);
        }
        for (world, hidden) in &layers.0 {
            let wanted = visible.0.contains(world);
            if wanted != visible.0.contains(hidden) {
                if wanted {
                    visible.0.insert(*hidden);
                } else {
                    visible.0.remove(hidden);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use glam::DVec3;
    use uuid::Uuid;

    use super::*;
    use crate::format::EmoteId;
    use crate::playback::session::{prepare, PlayRequest};
    use crate::playback::Cooldowns;

    fn state_of(library: &Library, emote: &str) -> PlaybackState {
        let id = EmoteId::parse(emote).expect("an id");
        let request = PlayRequest {
            emote: &id,
            bypass: true,
            player: Uuid::from_u128(3),
            now_tick: 0,
            position: DVec3::ZERO,
            yaw_degrees: 0.0,
            molang_budget_ops: crate::molang::DEFAULT_OP_BUDGET,
        };
        prepare(&request, library, &Cooldowns::default())
            .unwrap_or_else(|e| panic!("{emote}: {e}"))
            .state
    }

    #[test]
    fn a_body_animation_and_a_controller_on_the_same_body_are_bone_drawn() {
        let emotes = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
        let library = Library::load(&[emotes]).library;
        assert!(is_bone_drawn(&state_of(&library, "example:wave"), &library));
        // Its body clip has a bone form, and so has the controller (its
        // held form) ...
        assert!(is_bone_drawn(
            &state_of(&library, "example:stand_idle"),
            &library
        ));
        assert!(is_bone_drawn(
            &state_of(&library, "example:walk_wave"),
            &library
        ));
        // ... but not a props-only emote.
        let (props_only, _) = library
            .iter()
            .find(|(_, e)| {
                e.bones.is_none() && matches!(&*e.file, crate::format::EmoteFile::Animation(_))
            })
            .expect("a bundled Animation without a bone form");
        assert!(!is_bone_drawn(
            &state_of(&library, props_only.as_str()),
            &library
        ));
    }
}
