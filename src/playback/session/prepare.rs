//! A play request's checks (the emote exists, is standalone, is not
//! cooling down, picked something to play) and the playback state it
//! starts from: every Animation it may play looked up once, the union of
//! their nodes, and the first segment ready. The server adds what needs
//! the world: the display entity cap, the entities, the hidden layer.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use glam::{DVec3, Mat4, Quat};
use uuid::Uuid;

use super::{PlaybackState, UnionNbt, UnionNodes};
use crate::anim::controller::{CompiledController, ControllerError};
use crate::format::controller::ControllerFile;
use crate::format::node::{NodeKind, Space};
use crate::format::sequence::{Participants, Step};
use crate::format::{EmoteFile, EmoteId};
use crate::library::Library;
use crate::playback::controlled::ControlledBody;
use crate::playback::live::LiveInputs;
use crate::playback::playing::{
    mirror_id, Phase, PlayMode, PlayableAnimation, Playing, SpaceRoots,
};
use crate::playback::sequence::{self, Segment, StepRng};
use crate::playback::{Cooldowns, YawFollower};

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

/// What a play request asks, and what the server observed of the player.
#[derive(Clone, Copy, Debug)]
pub struct PlayRequest<'a> {
    /// The emote id.
    pub emote: &'a EmoteId,
    /// Skip the `standalone` and cooldown checks.
    pub bypass: bool,
    /// The player (cooldowns are by UUID; it seeds the randomness too).
    pub player: Uuid,
    /// The server tick (cooldowns count in it).
    pub now_tick: u64,
    /// The player's feet: where the root goes.
    pub position: DVec3,
    /// The player's yaw, in degrees.
    pub yaw_degrees: f32,
    /// `[emotes] molang_budget_ops`.
    pub molang_budget_ops: u64,
}

/// The two-player part of a Sequence that starts with `await_partner`.
#[derive(Clone, Debug, PartialEq)]
pub struct TwoPlayerPlan {
    /// Where each participant stands after a match.
    pub participants: Participants,
    /// How long the offer waits.
    pub timeout_ticks: u32,
    /// The branch after a match.
    pub matched: Vec<Step>,
    /// The branch after the timeout.
    pub timeout: Vec<Step>,
}

/// A playback ready to start, and what starting it needs.
pub struct Prepared {
    /// The state, its first segment ready.
    pub state: PlaybackState,
    /// A two-player Sequence's offer, match and timeout.
    pub two_player: Option<TwoPlayerPlan>,
}

/// Checks `request` against `library` and `cooldowns` and prepares the
/// playback it asks for.
pub fn prepare(
    request: &PlayRequest<'_>,
    library: &Library,
    cooldowns: &Cooldowns<Uuid, EmoteId>,
) -> Result<Prepared, PlayRefusal> {
    let id = request.emote.as_str().to_owned();
    let loaded = library
        .get(&id)
        .ok_or_else(|| PlayRefusal::Unknown(id.clone()))?;
    let seed = request.player.as_u128() as u64 ^ request.now_tick;
    let lookup = |reference: &EmoteId| -> Option<PlayableAnimation> {
        let loaded = library.get(reference.as_str())?;
        Some(PlayableAnimation {
            file: Arc::clone(&loaded.file),
            compiled: Arc::clone(loaded.compiled.as_ref()?),
            molang_budget_ops: request.molang_budget_ops,
        })
    };
    // What plays: the Animation itself, or the Sequence's resolved segments.
    let mut two_player = None;
    let (player_settings, cooldown_ticks, name, mut segments) = match &*loaded.file {
        EmoteFile::Animation(animation) => {
            if !request.bypass && !animation.settings.standalone {
                return Err(PlayRefusal::NotStandalone(id));
            }
            (
                animation.settings.player,
                animation.settings.cooldown_ticks,
                animation.metadata.name.clone(),
                VecDeque::from([play(request.emote)]),
            )
        }
        EmoteFile::Controller(controller) => {
            if !request.bypass && !controller.settings.standalone {
                return Err(PlayRefusal::NotStandalone(id));
            }
            let body = controller.body_clip().ok_or_else(|| {
                PlayRefusal::Failed(id.clone(), "the controller plays no clip".into())
            })?;
            (
                controller.settings.player,
                controller.settings.cooldown_ticks,
                controller.metadata.name.clone(),
                VecDeque::from([play(&body.id)]),
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
                    two_player = Some(TwoPlayerPlan {
                        participants: *participants,
                        timeout_ticks: *timeout_ticks,
                        matched: matched.clone(),
                        timeout: timeout.clone(),
                    });
                    // Every Animation of both branches is looked up (and
                    // spawned for) now, after the offer.
                    let mut all = vec![play(&offer.id)];
                    for step in matched.iter().chain(timeout) {
                        if let Step::Play { emote, .. } = step {
                            all.extend(emote.animations().into_iter().map(|r| play(&r.id)));
                        }
                    }
                    all
                }
                _ => {
                    let loop_delay = |reference: &EmoteId| {
                        lookup(reference)?
                            .compiled
                            .runtime
                            .loop_delay_between_cycles()
                    };
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
        let left = cooldowns.remaining_ticks(&request.player, request.emote, request.now_tick);
        if left > 0 {
            return Err(PlayRefusal::Cooldown {
                id,
                seconds: left as f64 / 20.0,
            });
        }
    }
    let two_players = two_player.is_some();
    let (animations, union) = look_up_and_unite(&segments, two_players, &lookup)?;
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
    let play_mode = match (&*loaded.file, two_players) {
        (EmoteFile::Animation(_), _) => PlayMode::Own,
        // The body clip's clock only counts ticks; the controller times the clips.
        (EmoteFile::Controller(_), _) => PlayMode::Looping,
        (EmoteFile::Sequence(_), true) => PlayMode::Looping,
        (EmoteFile::Sequence(_), false) => PlayMode::OneCycle,
    };
    if two_players {
        // The rest were only listed to be looked up and spawned.
        segments.clear();
    }
    let mut first = animations
        .get(&first_id)
        .map(|p| Playing::new(first_id.clone(), p, &union.ids, play_mode, seed))
        .ok_or_else(|| PlayRefusal::Unknown(first_id.to_string()))?;
    let mut deadzone = first.runtime().rotation_deadzone_degrees;
    let controller = match &*loaded.file {
        EmoteFile::Controller(file) => {
            deadzone = file.settings.rotation_deadzone_degrees;
            Some(Box::new(start_controller(
                file,
                library,
                &mut first,
                seed,
                request.molang_budget_ops,
            )?))
        }
        _ => None,
    };
    let union_len = union.len();
    let scene_nodes = union.spaces.iter().map(|s| *s == Space::Scene).collect();
    let nbt = UnionNbt::new(&union);
    let yaw_degrees = request.yaw_degrees;
    Ok(Prepared {
        state: PlaybackState {
            emote: request.emote.clone(),
            name,
            cooldown_ticks,
            file: Arc::clone(&loaded.file),
            animations,
            union,
            frame: vec![None; union_len],
            sent: super::SentBands::new(union_len),
            nbt,
            current: first,
            phase: Phase::Timeline,
            queue: segments,
            seed,
            segments_started: 0,
            yaw: YawFollower::new(deadzone, yaw_degrees),
            root: request.position,
            stop_conditions: player_settings.stop_conditions,
            player_hidden: player_settings.hidden,
            roots: if two_players {
                SpaceRoots::OFFER
            } else {
                SpaceRoots::SOLO
            },
            partner_matched: false,
            scene_nodes,
            scene_root: Mat4::from_quat(Quat::from_rotation_y(-yaw_degrees.to_radians())),
            schedule: None,
            position_ticks: None,
            scheduled_yaw: None,
            cycle_started: false,
            plan_pending: false,
            stale_pose: None,
            live_inputs: LiveInputs::default(),
            live_tolerance: Default::default(),
            live_previous: vec![None; union_len],
            controller,
            walk_offset: glam::Vec3::ZERO,
            reanchored: false,
        },
        two_player,
    })
}

/// The controller `file` ready to play on `body` (its body clip's
/// playing): compiled against the library's clips. The body's nodes all
/// go per tick ([`PlaybackState::pose_updates`]), and the body clip's own
/// events never run.
fn start_controller(
    file: &ControllerFile,
    library: &Library,
    body: &mut Playing,
    seed: u64,
    budget_ops: u64,
) -> Result<ControlledBody, PlayRefusal> {
    let compiled_clip = |id: &EmoteId| library.get(id.as_str())?.compiled.clone();
    let failed = |e: ControllerError| PlayRefusal::Failed(file.id.to_string(), e.to_string());
    let compiled =
        CompiledController::compile(file, |id| Some(compiled_clip(id)?.rig.duration_ticks))
            .map_err(failed)?;
    let controlled = ControlledBody::new(
        Arc::new(compiled),
        &body.compiled,
        compiled_clip,
        seed,
        budget_ops,
    )
    .map_err(failed)?;
    body.planned = vec![false; body.covers.len()].into();
    body.stop_fired = true;
    Ok(controlled)
}

/// A segment that plays one cycle of `animation`, with no transition.
fn play(animation: &EmoteId) -> Segment {
    Segment::Play {
        step: 0,
        repetition: 0,
        animation: animation.clone(),
        transition_ticks: 0,
    }
}

/// Looks every Animation of `segments` up and builds the union of their
/// nodes. In a two-player Sequence the first segment is the offer, and an
/// Animation without `partner` nodes after it gets a partner copy of each
/// `initiator` node (shown after a match).
fn look_up_and_unite(
    segments: &VecDeque<Segment>,
    two_players: bool,
    lookup: &dyn Fn(&EmoteId) -> Option<PlayableAnimation>,
) -> Result<(BTreeMap<EmoteId, PlayableAnimation>, UnionNodes), PlayRefusal> {
    let mut animations = BTreeMap::new();
    let mut union = UnionNodes::default();
    let add = |union: &mut UnionNodes, id: String, kind: &NodeKind, space: Space| {
        union.ids.push(id);
        union.kinds.push(kind.clone());
        union.spaces.push(space);
    };
    for (index, segment) in segments.iter().enumerate() {
        let Segment::Play { animation, .. } = segment else {
            continue;
        };
        if animations.contains_key(animation) {
            continue;
        }
        // A two-player offer only plays before a match: never mirrored.
        let is_offer = two_players && index == 0;
        let playable =
            lookup(animation).ok_or_else(|| PlayRefusal::Unknown(animation.to_string()))?;
        let compiled = &playable.compiled;
        let nodes = &compiled.runtime.nodes;
        let mirrored = two_players && !is_offer && !nodes.iter().any(|n| n.space == Space::Partner);
        for (rig_node, node) in compiled.rig.nodes.iter().zip(nodes) {
            if !union.ids.contains(&rig_node.id) {
                add(&mut union, rig_node.id.clone(), &node.kind, node.space);
            }
            let copy = mirror_id(&rig_node.id);
            if mirrored && node.space == Space::Initiator && !union.ids.contains(&copy) {
                add(&mut union, copy, &node.kind, Space::Partner);
            }
        }
        animations.insert(animation.clone(), playable);
    }
    Ok((animations, union))
}
