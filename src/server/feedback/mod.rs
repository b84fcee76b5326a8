//! What players are told about their own emotes, in one place: the action
//! bar while an emote plays, and why it ended.
//!
//! The model: the playback systems only change state ([`ActiveEmote`], its
//! two-player [`DuoStage`]) and send an [`EmoteEndedEvent`] with an
//! [`EndReason`](crate::server::events::EndReason); this plugin reads both once a tick, after every `Update`
//! system (so a playback started or stopped this tick is seen as it is now),
//! and writes the action bars.
//!
//! - **While an emote plays** each of its players has a bar: "Wave ·
//!   /emote stop" for a solo playback; for a two-player Sequence "Handshake ·
//!   waiting for a partner, 7s", "Handshake · bob is joining", "Handshake
//!   with alice" or "Handshake · nobody joined" for the initiator and the
//!   partner, and "Joining alice's Handshake…" for a player whose join waits
//!   for the match. A bar is sent when it changes and again every second
//!   while it does not (the client fades an action bar after about three
//!   seconds; the rules are in `bars.rs`).
//! - **When it ends**, each of its players gets one line in its place:
//!   "Wave finished", or "Wave stopped: " and the reason in the words of
//!   [`EndReason::describe`](crate::server::events::EndReason::describe),
//!   from that player's side ("you moved" to the player who moved, "your
//!   partner moved" to the other). A player for
//!   whom a new emote started in the same tick gets the new bar instead
//!   (its name says what happened). A failure also gets its red chat line
//!   and its log warning from the playback (`report_failed_emotes`).
//! - **An emote's own action bar text wins**: when an event command
//!   (`title … actionbar`) shows text on a player's action bar
//!   ([`ActionBarShownEvent`]), the bar waits two seconds (while the client
//!   shows that text in full) before it comes back, and an end line due in the same tick is not sent (the text the
//!   emote's author wrote for its end is what stays).
//!
//! Refusals (an unknown id, a cooldown, a permission…) are not feedback
//! about a playback: they stay one red chat line from whoever refused.

mod bars;
mod text;

use valence::client::FlushPacketsSet;
use valence::prelude::*;

use self::bars::*;
use self::text::*;
use crate::format::node::Participant;
use crate::server::emote::{ActiveEmote, DuoStage};
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::{add_shared_events, ActionBarShownEvent, EmoteEndedEvent};

/// Action bars while emotes play, and why they ended.
pub struct EmoteFeedbackPlugin;

impl Plugin for EmoteFeedbackPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app)
            .init_resource::<FeedbackState>()
            .add_systems(
                PostUpdate,
                (
                    hold_bars_for_other_texts,
                    tell_why_emotes_ended,
                    show_playing_bars,
                )
                    .chain()
                    .in_set(EmoteFeedbackSet)
                    .before(FlushPacketsSet),
            );
    }
}

/// The feedback systems. This set lives in [`PostUpdate`], before valence
/// flushes packets, so it sees what every `Update` system did this tick.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EmoteFeedbackSet;

/// What the three systems of the set share: every player's bar, and the
/// players whose action bar something else wrote this tick.
#[derive(Resource, Default)]
struct FeedbackState {
    bars: Bars<Entity>,
    held_now: Vec<Entity>,
}

/// Ticks per second, for the offer's countdown.
const TICKS_PER_SECOND: u32 = 20;

fn now_tick(server: &Server) -> i64 {
    server.current_tick()
}

fn hold_bars_for_other_texts(
    mut shown: EventReader<ActionBarShownEvent>,
    mut feedback: ResMut<FeedbackState>,
    server: Res<Server>,
) {
    let now = now_tick(&server);
    let feedback = &mut *feedback;
    feedback.held_now.clear();
    for event in shown.iter() {
        feedback.bars.hold(event.client, now);
        feedback.held_now.push(event.client);
    }
}

/// The end line for each player of each playback that ended.
fn tell_why_emotes_ended(
    mut ended: EventReader<EmoteEndedEvent>,
    mut feedback: ResMut<FeedbackState>,
    mut clients: Query<&mut Client>,
    playing: Query<(), With<ActiveEmote>>,
    library: Res<EmoteLibrary>,
) {
    let feedback = &mut *feedback;
    for end in ended.iter() {
        let participants = [
            Some((end.client, Participant::Initiator)),
            end.partner.map(|partner| (partner, Participant::Partner)),
        ];
        for (player, told) in participants.into_iter().flatten() {
            let shown_name = feedback.bars.forget(player);
            // A new emote of theirs, or the emote's own text, says it.
            if playing.contains(player) || feedback.held_now.contains(&player) {
                continue;
            }
            let Ok(mut client) = clients.get_mut(player) else {
                continue; // the player left
            };
            let name = shown_name
                .or_else(|| {
                    library
                        .0
                        .get(end.emote.as_str())
                        .map(|e| e.file.metadata().name.clone())
                })
                .unwrap_or_else(|| end.emote.to_string());
            client.send_action_bar_message(ended_text(&name, &end.reason, told));
        }
    }
}

/// The bar each player of a playback sees now (see the module docs).
fn views(initiator: Entity, playback: &ActiveEmote) -> [Option<(Entity, BarView<Entity>)>; 2] {
    match playback.duo_stage() {
        None => [Some((initiator, BarView::Playing)), None],
        Some(DuoStage::Waiting {
            ticks_left,
            joining: None,
        }) => [
            Some((
                initiator,
                BarView::Waiting {
                    seconds_left: ticks_left.div_ceil(TICKS_PER_SECOND),
                },
            )),
            None,
        ],
        Some(DuoStage::Waiting {
            joining: Some(joiner),
            ..
        }) => [
            Some((initiator, BarView::Joined { joiner })),
            Some((joiner, BarView::Joining { initiator })),
        ],
        Some(DuoStage::Matched { partner }) => [
            Some((initiator, BarView::With { other: partner })),
            Some((partner, BarView::With { other: initiator })),
        ],
        Some(DuoStage::NobodyJoined) => [Some((initiator, BarView::NobodyJoined)), None],
    }
}

fn show_playing_bars(
    mut feedback: ResMut<FeedbackState>,
    playbacks: Query<(Entity, &ActiveEmote)>,
    mut clients: Query<(&mut Client, &Username)>,
    server: Res<Server>,
) {
    let now = now_tick(&server);
    let bars = &mut feedback.bars;
    for (initiator, playback) in &playbacks {
        for (player, view) in views(initiator, playback).into_iter().flatten() {
            if !bars.due(player, view, now) {
                continue;
            }
            let name = playback.state.name.as_str();
            let named = |entity: Entity| {
                clients
                    .get(entity)
                    .map_or_else(|_| "someone".to_owned(), |(_, u)| u.0.clone())
            };
            let text = match view {
                BarView::Playing => bar_text(Bar::Playing { name }),
                BarView::Waiting { seconds_left } => bar_text(Bar::Waiting { name, seconds_left }),
                BarView::Joined { joiner } => bar_text(Bar::Joined {
                    name,
                    joiner: &named(joiner),
                }),
                BarView::Joining { initiator } => bar_text(Bar::Joining {
                    name,
                    initiator: &named(initiator),
                }),
                BarView::With { other } => bar_text(Bar::With {
                    name,
                    other: &named(other),
                }),
                BarView::NobodyJoined => bar_text(Bar::NobodyJoined { name }),
            };
            if let Ok((mut client, _)) = clients.get_mut(player) {
                client.send_action_bar_message(text);
                bars.sent(player, view, name, now);
            }
        }
    }
    bars.end_tick(now);
}
