//! A controller's body for modded viewers (issue 32): while a player plays
//! a bone-drawn controller and a modded viewer is online, the player has a
//! **held form** here ([`HeldForms`]): the body as it plays on from that
//! tick with the parameters held, over one cycle of its base state
//! ([`ControlledBody::held_bone_form`]). Both channels send it (Emotecraft's
//! STREAM, `emoted:animation`'s PLAY) as they send an Animation's bone form,
//! and send it again each time it is sampled anew.
//!
//! It is sampled anew when the blend on screen moved
//! ([`HeldBlend::distance`] over [`RESEND_BLEND_CHANGE`]: a layer changed
//! state, or a clip's share of the body moved, a walk turning into a run),
//! at most once per [`RESTREAM_MIN_TICKS`] like a solved head's re-stream:
//! a player who stops walking is seen still walking on a modded client for
//! up to a second. PlayerAnimator plays what it receives and blends
//! nothing, so a loop of the current blend is what a modded client can be
//! given; a blend that keeps moving (a player speeding up) is sent once a
//! second, each a few kilobytes, where a vanilla viewer gets every display
//! every tick.
//!
//! A form that cannot be sampled (a clip's Molang fails) is kept as none:
//! modded viewers get nothing (a STOP) until the blend moves again, and
//! each failed sampling is logged.
//!
//! At most [`MAX_HELD_SAMPLES_PER_TICK`] forms are sampled a tick, the
//! players who waited longest first, so a crowd that starts walking at
//! once is served over a few ticks. While no bone viewer is online nothing
//! is sampled.

use std::collections::HashMap;
use std::sync::Arc;

use valence::prelude::*;

use super::RESTREAM_MIN_TICKS;
use crate::anim::bones::BoneForm;
use crate::format::{EmoteFile, EmoteId};
use crate::playback::controlled::bones::{HeldBlend, RESEND_BLEND_CHANGE};
use crate::playback::controlled::ControlledBody;
use crate::server::emote::ActiveEmote;
use crate::server::events::BoneViewer;

/// The most held forms sampled in one tick; more wait for the next
/// ticks, the longest waiting first. A form of walk_wave costs about
/// 0.36 ms to sample and key (criterion, `cargo bench --bench main --
/// controllers`), so a crowd of 100 that starts walking together would
/// otherwise take one tick 36 ms; at 8 a tick the load test's worst ticks
/// are 5 ms.
pub(super) const MAX_HELD_SAMPLES_PER_TICK: usize = 8;

/// One player's held form.
#[derive(Clone, Debug)]
pub struct HeldForm {
    /// The controller it is of.
    pub emote: EmoteId,
    /// The form (`None`: it could not be sampled, see the module docs).
    pub form: Option<Arc<BoneForm>>,
    /// The blend it was sampled at.
    pub blend: HeldBlend,
    /// The server tick it was sampled at: its tick 0. A new one is a form
    /// to send again.
    pub sampled_at_tick: i64,
}

/// The held form of every player playing a bone-drawn controller, while
/// bone viewers are online (module docs).
#[derive(Resource, Default)]
pub struct HeldForms(HashMap<Entity, HeldForm>);

impl HeldForms {
    /// The held form of `player`'s controller, if it plays one.
    pub fn of(&self, player: Entity) -> Option<&HeldForm> {
        self.0.get(&player)
    }
}

/// The controller `active` plays, when it is one modded viewers get as
/// bones.
fn held_controller(active: &ActiveEmote) -> Option<&ControlledBody> {
    active
        .is_bone_drawn()
        .then_some(active.state.controller.as_deref())
        .flatten()
}

/// Samples the held form of `active`'s controller now.
fn sample(active: &ActiveEmote, controller: &ControlledBody) -> Option<BoneForm> {
    let body_id = active.state.current_animation();
    let (_, EmoteFile::Animation(file)) = active
        .state
        .animation_files()
        .find(|(id, _)| *id == body_id)?
    else {
        return None;
    };
    let body = &active.state.current.compiled;
    match controller.held_bone_form(body, file, controller.observed()) {
        Ok(form) => form,
        Err(e) => {
            tracing::warn!(
                "{}: its body for modded viewers could not be sampled: {e}",
                active.emote()
            );
            None
        }
    }
}

/// Keeps every held form current (module docs).
pub(super) fn hold_controller_forms(
    server: Res<Server>,
    mut held: ResMut<HeldForms>,
    players: Query<(Entity, &ActiveEmote)>,
    viewers: Query<(), With<BoneViewer>>,
) {
    if viewers.is_empty() {
        held.0.clear();
        return;
    }
    let now = server.current_tick();
    held.0.retain(|player, form| {
        players
            .get(*player)
            .is_ok_and(|(_, a)| held_controller(a).is_some() && *a.emote() == form.emote)
    });
    // Those due, the longest waiting first (a form never sent before all).
    let mut due: Vec<(i64, Entity, &ActiveEmote, &ControlledBody, HeldBlend)> = Vec::new();
    for (player, active) in &players {
        let Some(controller) = held_controller(active) else {
            continue;
        };
        let blend = controller.held_blend();
        if blend.is_empty() {
            continue; // not stepped yet: nothing on screen to hold
        }
        let since = held.0.get(&player).map(|kept| kept.sampled_at_tick);
        let moved = held.0.get(&player).is_none_or(|kept| {
            kept.blend.distance(&blend) > RESEND_BLEND_CHANGE
                && now - kept.sampled_at_tick >= RESTREAM_MIN_TICKS
        });
        if moved {
            due.push((since.unwrap_or(i64::MIN), player, active, controller, blend));
        }
    }
    due.sort_unstable_by_key(|(since, player, ..)| (*since, *player));
    for (_, player, active, controller, blend) in due.into_iter().take(MAX_HELD_SAMPLES_PER_TICK) {
        let form = sample(active, controller).map(Arc::new);
        held.0.insert(
            player,
            HeldForm {
                emote: active.emote().clone(),
                form,
                blend,
                sampled_at_tick: now,
            },
        );
    }
}
