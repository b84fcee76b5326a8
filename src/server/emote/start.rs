//! Starting a playback: the checks a play request must pass (cooldown,
//! standalone, the display cap, an open two-player offer) and the playback
//! it prepares, displays spawned.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use valence::math::{Mat4, Quat};
use valence::prelude::*;

use super::active::*;
use super::displays::*;
use super::duo_state::*;
use super::stop::*;
use crate::format::node::{ItemContent, NodeKind, Participant, Space};
use crate::format::sequence::Step;
use crate::format::{EmoteFile, EmoteId};
use crate::playback::playing::*;
use crate::playback::sequence::{self, Segment, StepRng};
use crate::playback::YawFollower;
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::{
    EmoteCommandEvent, EmoteDisplay, EmoteEndedEvent, EndReason, PlayEmoteRequest,
};

/// Why a play request was refused, as the player reads it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlayRefusal {
    /// No emote with that id.
    #[error("Unknown emote `{0}`. Try /emote list.")]
    Unknown(String),
    /// Only usable inside Sequences.
    #[error("`{0}` is not a standalone emote; it only plays inside Sequences.")]
    NotStandalone(String),
    /// Still cooling down.
    #[error("`{id}` is on cooldown for {seconds:.1} more seconds.")]
    Cooldown {
        /// The emote.
        id: String,
        /// Seconds left.
        seconds: f64,
    },
    /// The player is not in a world.
    #[error("You must be in a world to play an emote.")]
    NoWorld,
    /// The server-wide display entity cap would be passed.
    #[error("The server is showing too many emote entities right now ({active} of {max}); try again shortly.")]
    EntityCap {
        /// Displays in use.
        active: usize,
        /// `max_active_display_entities`.
        max: usize,
    },
    /// Molang failed on the first tick.
    #[error("`{0}` could not start: {1}")]
    Failed(String, String),
}

/// Players as [`start_requested_emotes`] reads them.
pub(super) type StartingPlayers<'w, 's> = Query<
    'w,
    's,
    (
        &'static Position,
        &'static Look,
        &'static mut EntityLayerId,
        &'static UniqueId,
        Option<&'static mut ActiveEmote>,
        &'static mut Client,
    ),
>;

#[allow(clippy::too_many_arguments)]
pub(super) fn start_requested_emotes(
    mut requests: EventReader<PlayEmoteRequest>,
    mut commands: Commands,
    library: Res<EmoteLibrary>,
    server: Res<Server>,
    mut cooldowns: ResMut<EmoteCooldowns>,
    mut players: StartingPlayers,
    mut ended: EventWriter<EmoteEndedEvent>,
    existing_displays: Query<(), (With<EmoteDisplay>, Without<Despawned>)>,
    config: Res<crate::server::config::Config>,
    mut commands_out: EventWriter<EmoteCommandEvent>,
    hidden_layer: Option<Res<HiddenPlayersLayer>>,
    joined: Res<JoinedThisTick>,
) {
    let molang_budget_ops = config.emotes.molang_budget_ops;
    let max_displays = config.emotes.max_active_display_entities;
    // Displays spawned through `commands` this tick are not in the query yet.
    let mut in_use = existing_displays.iter().count();
    for request in requests.iter() {
        if joined.0.contains(&request.client) {
            continue; // taken by an open two-player offer
        }
        let Ok((position, look, mut layer, uuid, active, mut client)) =
            players.get_mut(request.client)
        else {
            continue;
        };
        let result = prepare_playback(
            request,
            &library,
            &cooldowns,
            uuid.0,
            now_tick(&server),
            position.0,
            look.yaw,
            molang_budget_ops,
        );
        let prepared = match result {
            Ok(p) => p,
            Err(refusal) => {
                client.send_chat_message(refusal.to_string().color(Color::RED));
                continue;
            }
        };
        let mut playback = prepared.playback;
        // The cap is checked before anything is spawned; a replaced emote's
        // displays are about to go.
        let needed = prepared
            .kinds
            .iter()
            .filter(|k| !matches!(k, NodeKind::Anchor))
            .count();
        let freed = active.as_ref().map_or(0, |a| a.display_entities().count());
        if in_use.saturating_sub(freed) + needed > max_displays {
            let refusal = PlayRefusal::EntityCap {
                active: in_use,
                max: max_displays,
            };
            client.send_chat_message(refusal.to_string().color(Color::RED));
            continue;
        }
        in_use = in_use.saturating_sub(freed) + needed;
        if let Some(mut old) = active {
            if let Some(original) =
                wind_down(&mut old, request.client, &mut commands, &mut commands_out)
            {
                layer.0 = original;
            }
            ended.send(EmoteEndedEvent {
                client: request.client,
                emote: old.emote.clone(),
                reason: EndReason::Stopped,
            });
        }
        let root = position.0;
        let visible_layer = layer.0;
        playback.displays = prepared
            .kinds
            .iter()
            .map(|kind| spawn_display(&mut commands, kind, visible_layer, root, request.client))
            .collect();
        if let (true, Some(hidden)) = (prepared.hidden, &hidden_layer) {
            playback.restore_layer = Some(visible_layer);
            layer.0 = hidden.0;
        }
        cooldowns.0.start(
            uuid.0,
            request.emote.clone(),
            now_tick(&server),
            (f64::from(prepared.cooldown_ticks) * f64::from(request.cooldown_multiplier)).round()
                as u32,
        );
        client.send_action_bar_message(format!("Playing {}", prepared.name).color(Color::GOLD));
        let watch = StopWatch::new(playback.stop_conditions, root);
        commands.entity(request.client).insert((playback, watch));
    }
}

/// A playback ready to start, and what starting it needs.
pub(super) struct Prepared {
    pub(super) playback: ActiveEmote,
    /// The node of each union node, from the first Animation that has it.
    pub(super) kinds: Vec<NodeKind>,
    pub(super) hidden: bool,
    pub(super) cooldown_ticks: u32,
    pub(super) name: String,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn prepare_playback(
    request: &PlayEmoteRequest,
    library: &EmoteLibrary,
    cooldowns: &EmoteCooldowns,
    uuid: Uuid,
    now: u64,
    position: DVec3,
    yaw_degrees: f32,
    molang_budget_ops: u64,
) -> Result<Prepared, PlayRefusal> {
    let id = request.emote.as_str().to_owned();
    let loaded = library
        .0
        .get(&id)
        .ok_or_else(|| PlayRefusal::Unknown(id.clone()))?;
    let seed = uuid.as_u128() as u64 ^ now;
    let lookup = |reference: &EmoteId| -> Option<PlayableAnimation> {
        let loaded = library.0.get(reference.as_str())?;
        Some(PlayableAnimation {
            file: Arc::clone(&loaded.file),
            compiled: Arc::clone(loaded.compiled.as_ref()?),
            molang_budget_ops,
        })
    };
    // What plays: the Animation itself, or the Sequence's resolved segments.
    let mut duo: Option<Duo> = None;
    let (player_settings, cooldown_ticks, name, mut segments) = match &*loaded.file {
        EmoteFile::Animation(animation) => {
            if !request.bypass && !animation.settings.standalone {
                return Err(PlayRefusal::NotStandalone(id));
            }
            let first = Segment::Play {
                step: 0,
                repetition: 0,
                animation: request.emote.clone(),
                transition_ticks: 0,
            };
            (
                animation.settings.player,
                animation.settings.cooldown_ticks,
                animation.metadata.name.clone(),
                VecDeque::from([first]),
            )
        }
        EmoteFile::Sequence(sequence) => {
            let segments = match (&sequence.participants, sequence.steps.first()) {
                // Two-player: the offer plays (looping) until a match or the
                // timeout; the branches are resolved then.
                (
                    Some(participants),
                    Some(Step::AwaitPartner {
                        offer,
                        timeout_ticks,
                        matched,
                        timeout,
                    }),
                ) => {
                    duo = Some(Duo::new(
                        *participants,
                        *timeout_ticks,
                        matched.clone(),
                        timeout.clone(),
                    ));
                    // Every Animation of both branches is looked up (and
                    // spawned for) now, after the offer.
                    let mut all = vec![Segment::Play {
                        step: 0,
                        repetition: 0,
                        animation: offer.id.clone(),
                        transition_ticks: 0,
                    }];
                    for step in matched.iter().chain(timeout) {
                        if let Step::Play { emote, .. } = step {
                            for reference in emote.animations() {
                                all.push(Segment::Play {
                                    step: 0,
                                    repetition: 0,
                                    animation: reference.id.clone(),
                                    transition_ticks: 0,
                                });
                            }
                        }
                    }
                    all
                }
                _ => {
                    let loop_delay =
                        |reference: &EmoteId| loop_delay_between_cycles(&lookup(reference)?.file);
                    let mut rng = StepRng::new(seed);
                    sequence::resolve(&sequence.steps, &loop_delay, &mut rng, false)
                }
            };
            (
                sequence.settings.player,
                sequence.settings.cooldown_ticks,
                sequence.metadata.name.clone(),
                VecDeque::from(segments),
            )
        }
    };
    if !request.bypass {
        let left = cooldowns.0.remaining_ticks(&uuid, &request.emote, now);
        if left > 0 {
            return Err(PlayRefusal::Cooldown {
                id,
                seconds: left as f64 / 20.0,
            });
        }
    }
    // Look every Animation up now, and build the union of their nodes.
    let mut animations = BTreeMap::new();
    let mut union_ids: Vec<String> = Vec::new();
    let mut kinds: Vec<NodeKind> = Vec::new();
    // The space of each union node (a partner copy's is `partner`).
    let mut union_spaces: Vec<Space> = Vec::new();
    for (index, segment) in segments.iter().enumerate() {
        let Segment::Play { animation, .. } = segment else {
            continue;
        };
        if animations.contains_key(animation) {
            continue;
        }
        // A two-player offer only plays before a match: never mirrored.
        let is_offer = duo.is_some() && index == 0;
        let playable =
            lookup(animation).ok_or_else(|| PlayRefusal::Unknown(animation.to_string()))?;
        if let EmoteFile::Animation(file) = &*playable.file {
            // Two-player Sequences copy the initiator nodes of an Animation
            // without `partner` nodes onto the partner (shown after a match).
            let mirrored =
                duo.is_some() && !is_offer && !file.nodes.iter().any(|n| n.space == Space::Partner);
            for rig_node in &playable.compiled.rig.nodes {
                let Some(node) = file.node(&rig_node.id) else {
                    continue;
                };
                if !union_ids.contains(&rig_node.id) {
                    union_ids.push(rig_node.id.clone());
                    kinds.push(node.kind.clone());
                    union_spaces.push(node.space);
                }
                let copy = mirror_id(&rig_node.id);
                if mirrored && node.space == Space::Initiator && !union_ids.contains(&copy) {
                    union_ids.push(copy);
                    kinds.push(node.kind.clone());
                    union_spaces.push(Space::Partner);
                }
            }
        }
        animations.insert(animation.clone(), playable);
    }
    // The first segment is an Animation (validation puts no wait first; a
    // step of only `continue`/`break` picks may leave nothing).
    while matches!(segments.front(), Some(Segment::Hold { .. })) {
        segments.pop_front();
    }
    let Some(Segment::Play {
        animation: first_id,
        ..
    }) = segments.pop_front()
    else {
        return Err(PlayRefusal::Failed(
            id,
            "every step picked `emote:continue` or `emote:break`; nothing to play this time".into(),
        ));
    };
    let play_mode = match (&*loaded.file, &duo) {
        (EmoteFile::Animation(_), _) => PlayMode::Own,
        (EmoteFile::Sequence(_), Some(_)) => PlayMode::Looping,
        (EmoteFile::Sequence(_), None) => PlayMode::OneCycle,
    };
    if duo.is_some() {
        // The rest were only listed to be looked up and spawned.
        segments.clear();
    }
    let first = animations
        .get(&first_id)
        .and_then(|p| Playing::new(first_id.clone(), p, &union_ids, play_mode, seed))
        .ok_or_else(|| PlayRefusal::Unknown(first_id.to_string()))?;
    let deadzone = first
        .animation()
        .map_or(180.0, |a| a.settings.rotation_deadzone_degrees);
    let union_len = union_ids.len();
    let scene_nodes = union_spaces.iter().map(|s| *s == Space::Scene).collect();
    // Skin bindings: a node wears its participant's head; a partner copy of
    // an initiator node wears the partner's.
    let skins = kinds
        .iter()
        .enumerate()
        .filter_map(|(union, kind)| match kind {
            NodeKind::Item {
                skin: Some(binding),
                ..
            } => {
                let copy = union_ids[union].ends_with("@partner");
                Some((
                    union,
                    if copy {
                        Participant::Partner
                    } else {
                        binding.participant
                    },
                ))
            }
            _ => None,
        })
        .collect();
    let hands = kinds
        .iter()
        .enumerate()
        .filter_map(|(union, kind)| match kind {
            NodeKind::Item {
                content: ItemContent::ParticipantHand(arm),
                ..
            } => Some(HandDisplay {
                union,
                arm: *arm,
                partner: union_spaces[union] == Space::Partner,
                shown: None,
            }),
            _ => None,
        })
        .collect();
    Ok(Prepared {
        playback: ActiveEmote {
            emote: request.emote.clone(),
            file: Arc::clone(&loaded.file),
            animations,
            union_ids,
            displays: Vec::new(),
            frame: vec![None; union_len],
            last_sent: vec![None; union_len],
            in_flight: vec![None; union_len],
            current: first,
            phase: Phase::Timeline,
            queue: segments,
            seed,
            segments_started: 0,
            yaw: YawFollower::new(deadzone, yaw_degrees),
            root: position,
            restore_layer: None,
            stop_conditions: player_settings.stop_conditions,
            player_hidden: player_settings.hidden,
            roots: if duo.is_some() {
                SpaceRoots::OFFER
            } else {
                SpaceRoots::SOLO
            },
            duo,
            hands,
            skins,
            skins_dressed: None,
            scene_nodes,
            scene_root: Mat4::from_quat(Quat::from_rotation_y(-yaw_degrees.to_radians())),
            schedule: None,
            position_ticks: None,
            scheduled_yaw: None,
            cycle_started: false,
            plan_pending: false,
            stale_pose: None,
        },
        kinds,
        hidden: player_settings.hidden,
        cooldown_ticks,
        name,
    })
}
